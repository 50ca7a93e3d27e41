//! The other tabs of the app, as this one hears them: what they changed
//! is read again, what they deleted leaves, and the answers they are
//! streaming are known (a turn here leaves them out, the page shows them
//! as live) until they end or their tab goes quiet.

use std::collections::HashMap;

use air_store::sync::SyncEvent;

use crate::{Command, Platform, Timer, Update, Workspace};

/// How long an answer another tab streams stays live without a heartbeat
/// (its tab was closed or crashed).
pub const REMOTE_STALE_MS: u64 = 10_000;

/// What is known of the other tabs.
#[derive(Debug, Default)]
pub struct Tabs {
    /// When each answer streaming elsewhere last sent a heartbeat.
    seen: HashMap<String, f64>,
}

pub(crate) fn heard<P: Platform>(w: &mut Workspace<P>, event: SyncEvent) {
    match event {
        SyncEvent::Streaming { session_id, message_id, active } => {
            streaming(w, message_id, active);
            // Its checkpoint is in the store: read again where shown.
            w.handle(Command::Chat(crate::chat::Action::Changed(session_id)));
        }
        SyncEvent::SessionChanged { session_id } => w.handle(Command::Chat(crate::chat::Action::Changed(session_id))),
        SyncEvent::SessionDeleted { session_id } => w.handle(Command::Sessions(crate::sessions::Action::Gone(session_id))),
        SyncEvent::PrefsChanged => crate::sync::prefs::reload(w, false),
        SyncEvent::SessionsChanged => {
            w.handle(Command::Sessions(crate::sessions::Action::Reload));
            if !w.busy() {
                w.handle(Command::Chat(crate::chat::Action::Reopen));
            }
        }
    }
}

fn streaming<P: Platform>(w: &mut Workspace<P>, message_id: String, active: bool) {
    {
        let mut remote = w.watch.remote.borrow_mut();
        remote.retain(|id| *id != message_id);
        if active {
            remote.push(message_id.clone());
        }
    }
    if active {
        let beat = w.p.now_ms();
        w.tabs.seen.insert(message_id.clone(), beat);
        w.after(REMOTE_STALE_MS, Timer::RemoteQuiet { message_id, beat: beat.to_bits() });
    } else {
        w.tabs.seen.remove(&message_id);
    }
    publish(w);
}

/// No heartbeat since `beat`: the other tab is gone, and so is its stream.
pub(crate) fn quiet<P: Platform>(w: &mut Workspace<P>, message_id: String, beat: f64) {
    if w.tabs.seen.get(&message_id) != Some(&beat) {
        return;
    }
    w.tabs.seen.remove(&message_id);
    w.watch.remote.borrow_mut().retain(|id| *id != message_id);
    publish(w);
}

fn publish<P: Platform>(w: &mut Workspace<P>) {
    let list = w.watch.remote.borrow().clone();
    w.emit(Update::RemoteStreams(list));
    // A round another tab left when it went quiet is picked up here.
    crate::chat::resume_left(w);
}

#[cfg(test)]
#[path = "tabs_tests.rs"]
mod tests;
