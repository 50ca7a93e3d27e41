//! The open conversation: which session is open, its messages read a page
//! at a time from the end (older pages on demand; a search hit with the
//! messages around it, and later ones on demand from there), on the branch
//! shown; switching branches; and what the turn and the other tabs change. The core keeps only each shown
//! message's id and place: the records go to the page.

use air_store::{MessageRecord, SessionRecord, Store, StoreError};

use crate::messages::{Got, Read};
use crate::{Command, Notice, Platform, StoreOp, Update, Workspace};

/// Messages read at a time when a session opens (and per page before or
/// after): the view draws only those near the screen, so a small first
/// read opens a conversation sooner.
pub const PAGE: usize = 50;

/// A page of `session`'s messages, read by the platform.
fn page<P: Platform>(w: &Workspace<P>, session: &str, before: Option<f64>, limit: usize) -> impl std::future::Future<Output = Result<Vec<MessageRecord>, air_store::StoreError>> + 'static {
    let asked = read(w, Read::Page { session: session.to_owned(), before, limit });
    async move { asked.await.map(|(list, _)| list) }
}

/// Messages read by the platform, and (for a read around a message)
/// what that says of those before and after.
fn read<P: Platform>(w: &Workspace<P>, what: Read) -> impl std::future::Future<Output = Result<(Vec<MessageRecord>, PageWhy), air_store::StoreError>> + 'static {
    let asked = w.p.read_messages(what);
    async move {
        match asked.await {
            Ok(Ok(Got::Page(list))) => Ok((list, PageWhy::Open)),
            Ok(Ok(Got::Around { list, older, newer })) => Ok((list, PageWhy::Around { older, newer })),
            Ok(Ok(Got::One(_))) => Ok((Vec::new(), PageWhy::Open)),
            Ok(Err(e)) => Err(e),
            Err(crate::Missing) => Err(air_store::StoreError::Unavailable("the part of the app that reads conversations could not be fetched".into())),
        }
    }
}

/// Why a page of messages was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageWhy {
    /// The session was opened.
    Open,
    /// What is shown was read again (another tab changed it).
    Refresh,
    /// The page before those shown.
    Older,
    /// A search hit and the messages around it: whether more exist
    /// before and after them.
    Around { older: bool, newer: bool },
    /// The page after those shown (on from a search hit).
    Newer,
}

/// The conversation's state.
#[derive(Debug, Default)]
pub struct Chat {
    pub active: Option<String>,
    has_older: bool,
    /// Later messages exist that are not shown (the chat was opened
    /// around a search hit).
    has_newer: bool,
    /// The page under way: its answer must name it.
    ticket: u64,
    loading_older: bool,
    loading_newer: bool,
    /// How many messages the page under way asked for.
    asked: usize,
    /// A turn runs in this tab.
    pub(crate) busy: bool,
    /// A search hit to bring into view once read: (session, message).
    target: Option<(String, String)>,
    /// The call waiting for approval that ends the chat shown (a closed
    /// tab left it), and the one already asked again.
    left_waiting: Option<String>,
    asked_again: Option<String>,
    /// While a page that replaces what is shown is read: whether a turn
    /// saved a message meanwhile (the page may have been read before it,
    /// so it is read again).
    saved_meanwhile: Option<bool>,
}

/// What the open conversation is asked, and the answers of its tasks.
#[derive(Debug)]
pub enum Action {
    /// The user opens a session.
    Open(String),
    /// The user opens a search hit: a session, at one of its messages.
    OpenAt { session: String, message: Option<String> },
    /// The user starts a new chat (the session creator).
    New,
    /// The page of messages before those shown.
    Older,
    /// The page of messages after those shown (read on from a search hit).
    Newer,
    /// The open session is read again (after an import).
    Reopen,
    /// ‹ 2 / 3 ›: alternative `alt` after fork `fork` of the open chat.
    SwitchBranch { fork: String, alt: u32 },
    /// Another tab changed a session.
    Changed(String),
    /// A turn created a session.
    Created(String),
    /// A turn saved a message.
    Saved(MessageRecord),
    /// A turn removed messages (an answer replaced).
    Removed(Vec<String>),
    /// A page of the open session's messages (and, for a session not in
    /// the list yet, the session).
    Page { ticket: u64, why: PageWhy, page: Result<(Option<SessionRecord>, Vec<MessageRecord>), StoreError> },
    /// The session with another branch shown, stored.
    BranchShown(Result<SessionRecord, StoreError>),
}

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) {
    match action {
        Action::Open(id) => {
            if w.chat.active.as_deref() != Some(id.as_str()) {
                w.emit(Update::Focus(None));
                open(w, id);
            } else {
                // A search hit in the chat open already: read around it.
                seek(w, &id, None);
            }
        }
        Action::OpenAt { session, message } => open_at(w, session, message),
        Action::New => new_chat(w),
        Action::Older => load_older(w),
        Action::Newer => load_newer(w),
        Action::Reopen => {
            if let Some(id) = w.chat.active.clone() {
                open(w, id);
            }
        }
        Action::SwitchBranch { fork, alt } => switch_branch(w, fork, alt),
        Action::Changed(id) => changed_elsewhere(w, id),
        Action::Created(id) => {
            // The user is still on the session creator: it opens.
            if w.chat.active.is_none() {
                w.chat.active = Some(id.clone());
                w.emit(Update::Active(Some(id)));
            }
        }
        Action::Saved(record) => saved(w, record),
        Action::Removed(ids) => {
            w.watch.shown.borrow_mut().retain(|(id, _)| !ids.contains(id));
            w.emit(Update::MessagesRemoved(ids));
        }
        Action::Page { ticket, why, page } => paged(w, ticket, why, page),
        Action::BranchShown(result) => match result {
            Ok(session) => {
                let id = session.id.clone();
                w.handle(Command::Sessions(crate::sessions::Action::Saved(session)));
                w.emit(Update::Changed(id.clone()));
                open(w, id);
            }
            Err(error) => w.emit(Update::Notice(Notice::Store { op: StoreOp::SaveMessage, error })),
        },
    }
}

/// Shows the session creator; the session is created with its first message.
fn new_chat<P: Platform>(w: &mut Workspace<P>) {
    w.chat.target = None;
    w.chat.active = None;
    w.chat.ticket += 1;
    w.chat.saved_meanwhile = None;
    w.watch.shown.borrow_mut().clear();
    w.chat.has_older = false;
    w.chat.has_newer = false;
    w.emit(Update::Active(None));
    w.emit(Update::Messages { list: Vec::new(), has_older: false, has_newer: false });
    crate::dynamic::opened(w, None);
}

/// Makes `id` the open session and reads its last page (or, when a
/// search hit in it is looked for, the messages around the hit).
pub(crate) fn open<P: Platform>(w: &mut Workspace<P>, id: String) {
    let Some(store) = w.p.store() else { return };
    // A search hit elsewhere is not looked for any more.
    if w.chat.target.as_ref().is_some_and(|(session, _)| *session != id) {
        w.chat.target = None;
    }
    if w.chat.active.as_deref() != Some(id.as_str()) {
        w.watch.shown.borrow_mut().clear();
        w.emit(Update::Messages { list: Vec::new(), has_older: false, has_newer: false });
    }
    w.chat.active = Some(id.clone());
    w.emit(Update::Active(Some(id.clone())));
    w.chat.ticket += 1;
    w.chat.saved_meanwhile = Some(false);
    w.chat.asked = PAGE;
    let (ticket, listed) = (w.chat.ticket, w.sessions.list.iter().any(|s| s.id == id));
    let what = match w.chat.target.clone() {
        Some((_, message)) => Read::Around { session: id.clone(), message, limit: PAGE / 2 },
        None => Read::Page { session: id.clone(), before: None, limit: PAGE },
    };
    let page = read(w, what);
    w.spawn(async move {
        // A session past the pages read so far (a search hit) joins the list.
        let session = if listed { None } else { store.get_session(&id).await.ok().flatten() };
        let (page, why) = match page.await {
            Ok((list, why)) => (Ok((session, list)), why),
            Err(e) => (Err(e), PageWhy::Open),
        };
        Some(Command::Chat(Action::Page { ticket, why, page }))
    });
}

fn paged<P: Platform>(w: &mut Workspace<P>, ticket: u64, why: PageWhy, page: Result<(Option<SessionRecord>, Vec<MessageRecord>), air_store::StoreError>) {
    match why {
        PageWhy::Older => w.chat.loading_older = false,
        PageWhy::Newer => w.chat.loading_newer = false,
        _ => {}
    }
    // Another session was opened (or this one read again) meanwhile; a
    // turn started here since the other tab's change was asked about.
    if ticket != w.chat.ticket {
        return;
    }
    // A message saved while a page that replaces what is shown was read:
    // it is read again, with the message (a stretch from the middle does
    // not end where it goes).
    let replacing = matches!(why, PageWhy::Open | PageWhy::Refresh | PageWhy::Around { .. });
    if replacing
        && w.chat.saved_meanwhile.take() == Some(true)
        && !matches!(why, PageWhy::Around { newer: true, .. })
        && let Some(id) = w.chat.active.clone()
    {
        return open(w, id);
    }
    if why == PageWhy::Refresh && w.chat.busy {
        return;
    }
    let (session, page) = match page {
        Ok(p) => p,
        Err(error) => return w.emit(Update::Notice(Notice::Store { op: StoreOp::ReadMessages, error })),
    };
    if let Some(s) = session {
        w.handle(Command::Sessions(crate::sessions::Action::Saved(s)));
    }
    let Some(id) = w.chat.active.clone() else { return };
    let read = page.len();
    let list = shown(w, &id, page);
    let places = list.iter().map(|m| (m.id.clone(), m.seq));
    match why {
        PageWhy::Open | PageWhy::Refresh | PageWhy::Around { .. } => {
            (w.chat.has_older, w.chat.has_newer) = match why {
                PageWhy::Around { older, newer } => (older, newer),
                _ => (read == w.chat.asked, false),
            };
            *w.watch.shown.borrow_mut() = places.collect();
            // What a closed tab left waiting is at the end, if it is shown.
            w.chat.left_waiting = if w.chat.has_newer { None } else { left_waiting(&list) };
            let (has_older, has_newer) = (w.chat.has_older, w.chat.has_newer);
            w.emit(Update::Messages { list, has_older, has_newer });
            if why != PageWhy::Refresh {
                w.emit(Update::Opened(id.clone()));
                crate::dynamic::opened(w, Some(id.clone()));
            }
            resume_left(w);
            if why == PageWhy::Open {
                w.read_ahead();
            }
        }
        PageWhy::Older => {
            w.chat.has_older = read == PAGE;
            let mut older: Vec<(String, f64)> = places.collect();
            let mut shown = w.watch.shown.borrow_mut();
            older.append(&mut shown);
            *shown = older;
            drop(shown);
            let has_older = w.chat.has_older;
            w.emit(Update::MessagesPrepended { list, has_older });
        }
        PageWhy::Newer => {
            w.chat.has_newer = read == PAGE;
            w.watch.shown.borrow_mut().extend(places);
            if !w.chat.has_newer {
                w.chat.left_waiting = left_waiting(&list);
            }
            let has_newer = w.chat.has_newer;
            w.emit(Update::MessagesAppended { list, has_newer });
            resume_left(w);
        }
    }
    seek(w, &id, Some(why));
}

/// The call waiting for approval in the last tool round of `list`.
fn left_waiting(list: &[MessageRecord]) -> Option<String> {
    list.iter().rev().take_while(|m| m.role == air_chat::Role::Tool).find(|m| m.tool.as_ref().is_some_and(|t| t.status == air_store::records::ToolStatus::AwaitingApproval)).map(|m| m.id.clone())
}

/// A closed tab left a call waiting for approval at the end of the chat
/// shown: its round is picked up (the question asked again), once per
/// call, between turns, unless another tab still streams it.
pub(crate) fn resume_left<P: Platform>(w: &mut Workspace<P>) {
    let Some(id) = w.chat.left_waiting.clone() else { return };
    if w.chat.busy || w.chat.asked_again.as_ref() == Some(&id) || w.watch.remote.borrow().contains(&id) {
        return;
    }
    w.chat.asked_again = Some(id);
    w.resume_turn();
}

/// The messages of `list` on the session's branch shown.
fn shown<P: Platform>(w: &Workspace<P>, id: &str, list: Vec<MessageRecord>) -> Vec<MessageRecord> {
    let forks = w.sessions.list.iter().find(|s| s.id == id).map(|s| s.forks.clone()).unwrap_or_default();
    air_store::branches::shown(list, &forks)
}

fn load_older<P: Platform>(w: &mut Workspace<P>) {
    let (Some(_), Some(id)) = (w.p.store(), w.chat.active.clone()) else { return };
    if w.chat.loading_older || !w.chat.has_older {
        return;
    }
    w.chat.loading_older = true;
    let (ticket, first) = (w.chat.ticket, w.watch.shown.borrow().first().map(|(_, seq)| *seq));
    let page = page(w, &id, first, PAGE);
    w.spawn(async move {
        let page = page.await;
        Some(Command::Chat(Action::Page { ticket, why: PageWhy::Older, page: page.map(|p| (None, p)) }))
    });
}

/// The page after those shown (read on from a search hit).
fn load_newer<P: Platform>(w: &mut Workspace<P>) {
    let (Some(_), Some(id)) = (w.p.store(), w.chat.active.clone()) else { return };
    let Some(last) = w.watch.shown.borrow().last().map(|(_, seq)| *seq) else { return };
    if w.chat.loading_newer || !w.chat.has_newer {
        return;
    }
    w.chat.loading_newer = true;
    let ticket = w.chat.ticket;
    let page = read(w, Read::After { session: id, after: last, limit: PAGE });
    w.spawn(async move {
        let page = page.await;
        Some(Command::Chat(Action::Page { ticket, why: PageWhy::Newer, page: page.map(|(list, _)| (None, list)) }))
    });
}

/// Opens `session` at `message` (a search hit): its branch is shown first
/// where it is on another, then the messages around it are read.
fn open_at<P: Platform>(w: &mut Workspace<P>, session: String, message: Option<String>) {
    let Some(store) = w.p.store() else { return };
    w.emit(Update::Focus(None));
    w.chat.target = message.clone().map(|m| (session.clone(), m));
    let Some(target) = message else { return open(w, session) };
    let m = w.p.read_messages(crate::messages::Read::One(target));
    w.spawn(async move {
        let (m, s) = (m.await, store.get_session(&session).await);
        let (Ok(Ok(crate::messages::Got::One(Some(m)))), Ok(Some(mut s))) = (m, s) else { return Some(Command::Chat(Action::Open(session))) };
        if !air_store::branches::reveal(&mut s.forks, &m) {
            return Some(Command::Chat(Action::Open(session)));
        }
        Some(Command::Chat(Action::BranchShown(store.put_session(&s).await.map(|()| s))))
    });
}

/// After a page (`why`), or on a search hit in the chat open: a hit not
/// shown yet is read with the messages around it, else marked (and not
/// looked for again once it was read around).
fn seek<P: Platform>(w: &mut Workspace<P>, id: &str, why: Option<PageWhy>) {
    let Some((session, message)) = w.chat.target.clone() else { return };
    if session != id {
        return;
    }
    let around = matches!(why, Some(PageWhy::Around { .. }));
    if around || w.watch.shown.borrow().iter().any(|(m, _)| *m == message) || !(w.chat.has_older || w.chat.has_newer) {
        w.chat.target = None;
        w.emit(Update::Focus(Some(message)));
    } else {
        open(w, id.to_owned());
    }
}

/// Shows alternative `alt` after the fork `fork` of the open chat
/// (‹ 2 / 3 ›): the session records it, and the chat is read again.
fn switch_branch<P: Platform>(w: &mut Workspace<P>, fork: String, alt: u32) {
    let (Some(store), Some(id)) = (w.p.store(), w.chat.active.clone()) else { return };
    if w.chat.busy {
        return;
    }
    w.spawn(async move {
        let mut session = match store.get_session(&id).await {
            Ok(Some(s)) => s,
            Ok(None) => return None,
            Err(e) => return Some(Command::Chat(Action::BranchShown(Err(e)))),
        };
        let f = session.forks.get_mut(&fork)?;
        f.shown = alt.min(f.count.saturating_sub(1));
        Some(Command::Chat(Action::BranchShown(store.put_session(&session).await.map(|()| session))))
    });
}

/// Another tab changed session `id`: the list shows it as stored, and the
/// open conversation is read again (unless a turn runs here).
fn changed_elsewhere<P: Platform>(w: &mut Workspace<P>, id: String) {
    let Some(store) = w.p.store() else { return };
    // (Not while a stretch from the middle is shown: later pages are read
    // from the store as the reader goes on.)
    let reread = w.chat.active.as_deref() == Some(id.as_str()) && !w.chat.busy && !w.chat.has_newer;
    let n = w.watch.shown.borrow().len().max(PAGE);
    if reread {
        w.chat.ticket += 1;
        w.chat.saved_meanwhile = Some(false);
        w.chat.asked = n;
    }
    let ticket = w.chat.ticket;
    let page = reread.then(|| page(w, &id, None, n));
    w.spawn(async move {
        let session = store.get_session(&id).await.ok().flatten();
        let Some(page) = page else { return session.map(|s| Command::Sessions(crate::sessions::Action::Saved(s))) };
        let page = page.await;
        Some(Command::Chat(Action::Page { ticket, why: PageWhy::Refresh, page: page.map(|p| (session, p)) }))
    });
}

/// A message the turn saved: in its place among those shown.
fn saved<P: Platform>(w: &mut Workspace<P>, record: MessageRecord) {
    if w.chat.active.as_deref() != Some(record.session_id.as_str()) {
        return;
    }
    // The end of the chat changed: what a closed tab left is no longer there.
    if record.role != air_chat::Role::Tool || w.chat.left_waiting.as_ref() == Some(&record.id) {
        w.chat.left_waiting = None;
    }
    // A stretch from the middle is shown and the end changed (a message
    // was sent): the end is shown, read as stored.
    let past_shown = w.watch.shown.borrow().last().is_none_or(|(_, seq)| record.seq > *seq);
    if w.chat.has_newer && past_shown {
        return open(w, record.session_id);
    }
    if let Some(saved) = &mut w.chat.saved_meanwhile {
        *saved = true;
    }
    let mut shown = w.watch.shown.borrow_mut();
    shown.retain(|(id, _)| *id != record.id);
    let pos = shown.iter().position(|(_, seq)| *seq > record.seq).unwrap_or(shown.len());
    shown.insert(pos, (record.id.clone(), record.seq));
    drop(shown);
    w.emit(Update::MessageSaved(record));
}

#[cfg(test)]
#[path = "chat_tests.rs"]
mod tests;
