//! Resources attached to the next message (an MCP server's resource, or
//! the context an MCP App gave): read when attached, subscribed to where
//! the server offers it and read again when it says it changed, while it
//! is attached; let go of (unsubscribed) once sent or removed, also when
//! that happens while the subscription was on its way. Their context
//! blocks go after the message's text.

use crate::{Command, Missing, Platform, Update, Workspace};

/// A resource attached to the next message.
#[derive(Debug, Clone, PartialEq)]
pub struct Attachment {
    pub server: String,
    pub uri: String,
    pub label: String,
    /// What goes after the message's text.
    pub block: String,
    /// The server announces its changes (subscribed).
    pub live: bool,
    /// Times it was read again after the server said it changed.
    pub updates: u32,
}

impl Attachment {
    /// It is `uri` of `server`.
    pub fn is(&self, server: &str, uri: &str) -> bool {
        self.server == server && self.uri == uri
    }
}

/// The attachments of the next message, and those of the message being
/// sent (given back if it is not saved).
#[derive(Debug, Default)]
pub struct Attachments {
    list: Vec<Attachment>,
    sending: Vec<Attachment>,
}

impl Attachments {
    pub(crate) fn has_any(&self) -> bool {
        !self.list.is_empty()
    }
}

/// What the resources attached to the next message are asked, and the
/// answers of their tasks.
#[derive(Debug)]
pub enum Action {
    /// Attach an MCP server's resource to the next message (it is read).
    Resource { server: String, uri: String, label: String },
    /// Attach what an MCP App said to the next message, in place of what
    /// it said before (`None`: it has nothing to say any more).
    Context { server: String, uri: String, label: String, block: Option<String> },
    /// Take an attachment off the next message.
    Detach(String),
    /// A server says a resource changed.
    Changed { server: String, uri: String },
    /// A resource read to be attached: its context block, or why not.
    Read { server: String, uri: String, label: String, result: Result<Result<String, String>, Missing> },
    /// An attached resource read again after it changed.
    Reread { server: String, uri: String, result: Result<Result<String, String>, Missing> },
    /// A subscription to a resource's changes was made (`on`) or not.
    Subscribed { server: String, uri: String, on: bool },
}

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) {
    match action {
        Action::Resource { server, uri, label } => {
            let reading = w.p.read_resource(server.clone(), uri.clone());
            w.spawn(async move { Some(Command::Attach(Action::Read { server, uri, label, result: reading.await })) });
        }
        Action::Context { server, uri, label, block } => {
            w.attach.list.retain(|x| !x.is(&server, &uri));
            if let Some(block) = block {
                w.attach.list.push(Attachment { server, uri, label, block, live: false, updates: 0 });
            }
            publish(w);
        }
        Action::Detach(label) => {
            let (gone, kept) = std::mem::take(&mut w.attach.list).into_iter().partition(|x| x.label == label);
            w.attach.list = kept;
            publish(w);
            release(w, gone);
        }
        Action::Changed { server, uri } => {
            // Read again only while it is attached.
            if w.attach.list.iter().any(|x| x.is(&server, &uri)) {
                let reading = w.p.read_resource(server.clone(), uri.clone());
                w.spawn(async move { Some(Command::Attach(Action::Reread { server, uri, result: reading.await })) });
            }
        }
        Action::Read { server, uri, label, result } => read(w, server, uri, label, result),
        Action::Reread { server, uri, result: Ok(Ok(block)) } => {
            for x in w.attach.list.iter_mut().filter(|x| x.is(&server, &uri)) {
                x.block = block.clone();
                x.updates += 1;
            }
            publish(w);
        }
        // A failed read keeps what was read before.
        Action::Reread { .. } => {}
        Action::Subscribed { server, uri, on } => {
            if !on {
                return;
            }
            if w.attach.list.iter().any(|x| x.is(&server, &uri)) {
                w.attach.list.iter_mut().filter(|x| x.is(&server, &uri)).for_each(|x| x.live = true);
                publish(w);
            } else {
                // Sent or removed while the subscription was on its way: it ends.
                unsubscribe(w, server, uri);
            }
        }
    }
}

fn read<P: Platform>(w: &mut Workspace<P>, server: String, uri: String, label: String, result: Result<Result<String, String>, Missing>) {
    let block = match result {
        Ok(Ok(block)) => block,
        Ok(Err(error)) => return w.emit(Update::AttachFailed { label, error }),
        Err(Missing) => return w.emit(Update::Notice(crate::Notice::PartMissing)),
    };
    w.attach.list.retain(|x| x.label != label);
    w.attach.list.push(Attachment { server: server.clone(), uri: uri.clone(), label: label.clone(), block, live: false, updates: 0 });
    publish(w);
    w.emit(Update::Attached(label));
    let subscribing = w.p.subscribe_resource(server.clone(), uri.clone(), true);
    w.spawn(async move {
        let on = matches!(subscribing.await, Ok(true));
        Some(Command::Attach(Action::Subscribed { server, uri, on }))
    });
}

/// The message takes the attachments with it: their blocks, in order.
pub(crate) fn take_for_sending<P: Platform>(w: &mut Workspace<P>) -> Vec<String> {
    w.attach.sending = std::mem::take(&mut w.attach.list);
    if !w.attach.sending.is_empty() {
        publish(w);
    }
    w.attach.sending.iter().map(|a| a.block.clone()).collect()
}

/// The message was saved (`sent`) or not: its attachments are let go of,
/// or come back unless new ones were attached meanwhile.
pub(crate) fn sending_ended<P: Platform>(w: &mut Workspace<P>, sent: bool) {
    let sending = std::mem::take(&mut w.attach.sending);
    if !sent && w.attach.list.is_empty() && !sending.is_empty() {
        w.attach.list = sending;
        return publish(w);
    }
    release(w, sending);
}

/// Ends the subscriptions of attachments no longer attached.
fn release<P: Platform>(w: &mut Workspace<P>, gone: Vec<Attachment>) {
    for a in gone.into_iter().filter(|a| a.live) {
        if !w.attach.list.iter().any(|x| x.is(&a.server, &a.uri)) {
            unsubscribe(w, a.server, a.uri);
        }
    }
}

fn unsubscribe<P: Platform>(w: &mut Workspace<P>, server: String, uri: String) {
    let ending = w.p.subscribe_resource(server, uri, false);
    w.spawn(async move {
        let _ = ending.await;
        None
    });
}

fn publish<P: Platform>(w: &mut Workspace<P>) {
    let list = w.attach.list.clone();
    w.emit(Update::Attachments(list));
}

#[cfg(test)]
#[path = "attach_tests.rs"]
mod tests;
