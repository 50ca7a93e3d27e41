//! The session list: opening the store and reading the list a page at a
//! time (start-up reads only the first, however many are stored), the
//! sessions saved elsewhere joining it in order, delete with an undo
//! window (a second delete finishes the first at once; a deletion is
//! written down at once, so a page closed in the window or while the store
//! deletes does not bring the session back), and rename.

use air_store::keys::{DELETING, HAS_SESSIONS};
use air_store::{KeyValue, SessionCursor, SessionRecord, Store, StoreError};

use crate::{Command, Missing, Notice, Platform, StoreOp, Timer, Update, Workspace};

/// Sessions read per page of the list.
pub const SESSION_PAGE: usize = 100;

/// How long a deleted session can be brought back.
pub const UNDO_MS: u64 = 6000;

/// The list's state.
#[derive(Debug, Default)]
pub struct Sessions {
    /// Read so far, newest activity first.
    pub list: Vec<SessionRecord>,
    has_more: bool,
    /// Where the next page starts.
    cursor: Option<SessionCursor>,
    /// The page under way: its answer must name it.
    ticket: u64,
    loading_more: bool,
    /// The start found sessions last time (the view is being fetched).
    hinted: bool,
    /// Deleted here, waiting for its undo window to close.
    pending: Option<SessionRecord>,
    /// The first page after opening the store was read.
    started: bool,
}

/// What the session list is asked, and the answers of its tasks.
#[derive(Debug)]
pub enum Action {
    /// The sidebar scrolled near the end of the list.
    LoadMore,
    /// Another tab changed the list: read its first page again.
    Reload,
    /// A session was saved elsewhere (a turn, another tab): it joins the
    /// list, or replaces itself there.
    Saved(SessionRecord),
    /// Another tab deleted a session.
    Gone(String),
    /// The user deletes a session (it can be brought back for a while).
    Delete(String),
    UndoDelete,
    Rename {
        id: String,
        title: String,
    },
    /// The store is open (`fell_back`: it had to fall back, and why).
    Opened {
        fell_back: Option<String>,
    },
    Page {
        ticket: u64,
        first: bool,
        page: Result<Vec<SessionRecord>, StoreError>,
    },
    Deleted {
        id: String,
        result: Result<Result<(), StoreError>, Missing>,
    },
    Renamed {
        id: String,
        result: Result<Option<SessionRecord>, StoreError>,
    },
}

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) {
    match action {
        Action::LoadMore => load_more(w),
        Action::Reload => read_page(w, true),
        Action::Saved(s) => {
            // Deleted here and not yet for good: it stays out of the list.
            if w.sessions.pending.as_ref().is_none_or(|p| p.id != s.id) {
                upsert(w, s);
                publish(w);
            }
        }
        Action::Gone(id) => {
            w.sessions.list.retain(|s| s.id != id);
            publish(w);
            w.emit(Update::Removed(id));
        }
        Action::Delete(id) => delete(w, id),
        Action::UndoDelete => undo(w),
        Action::Rename { id, title } => rename(w, id, title),
        Action::Opened { fell_back } => {
            if let Some(e) = fell_back {
                w.emit(Update::Notice(Notice::StoreFellBack(e)));
            }
            w.emit(Update::StoreReady);
            read_page(w, true);
        }
        Action::Page { ticket, first, page } => paged(w, ticket, first, page),
        Action::Deleted { id, result } => deleted(w, id, result),
        Action::Renamed { id, result } => match result {
            Ok(stored) => {
                // A turn may have saved the session meanwhile: the list
                // shows it as stored.
                if let Some(s) = stored {
                    upsert(w, s);
                    publish(w);
                }
                w.emit(Update::Renamed(id));
            }
            Err(error) => w.emit(Update::Notice(Notice::Store { op: StoreOp::Rename, error })),
        },
    }
}

fn deleted<P: Platform>(w: &mut Workspace<P>, id: String, result: Result<Result<(), StoreError>, Missing>) {
    match result {
        Ok(Ok(())) => {
            deleting(w, &id, false);
            w.session_gone(&id);
            w.emit(Update::Deleted(id));
        }
        Ok(Err(error)) => w.emit(Update::Notice(Notice::Store { op: StoreOp::Delete, error })),
        Err(Missing) => w.emit(Update::Notice(Notice::PartMissing)),
    }
}

/// Opens the store; a store that had sessions at the last start fetches
/// the conversation view meanwhile.
pub(crate) fn start<P: Platform>(w: &mut Workspace<P>) {
    w.sessions.hinted = HAS_SESSIONS.get(w.p.kv());
    if w.sessions.hinted {
        w.emit(Update::WarmChatView);
    }
    let open = w.p.open_store();
    w.spawn(async move { Some(Command::Sessions(Action::Opened { fell_back: open.await })) });
}

/// Reads a page: the first (`first`), or the one after those read.
fn read_page<P: Platform>(w: &mut Workspace<P>, first: bool) {
    let Some(store) = w.p.store() else { return };
    w.sessions.ticket += 1;
    let ticket = w.sessions.ticket;
    let after = if first { None } else { w.sessions.cursor.clone() };
    w.spawn(async move {
        let page = store.sessions_page(after.as_ref(), SESSION_PAGE).await;
        Some(Command::Sessions(Action::Page { ticket, first, page }))
    });
}

fn load_more<P: Platform>(w: &mut Workspace<P>) {
    if w.sessions.has_more && !w.sessions.loading_more {
        w.sessions.loading_more = true;
        read_page(w, false);
    }
}

fn paged<P: Platform>(w: &mut Workspace<P>, ticket: u64, first: bool, page: Result<Vec<SessionRecord>, air_store::StoreError>) {
    // Not the page asked for last (the list started again since): dropped.
    if ticket != w.sessions.ticket {
        return;
    }
    w.sessions.loading_more = false;
    let page = match page {
        Ok(page) => page,
        Err(error) => return w.emit(Update::Notice(Notice::Store { op: StoreOp::ReadSessions, error })),
    };
    let starting = first && !w.sessions.started;
    w.sessions.has_more = page.len() == SESSION_PAGE;
    w.sessions.cursor = page.last().map(SessionCursor::of).or(if first { None } else { w.sessions.cursor.clone() });
    // Being deleted (in its undo window, or by the store): never shown; at
    // the start, what a closed page left is deleted now.
    let gone = being_deleted(w.p.kv());
    let page: Vec<_> = page.into_iter().filter(|s| !gone.contains(&s.id)).collect();
    if starting {
        for id in gone {
            finish_delete(w, id);
        }
    }
    if starting {
        remember_sessions(w, !page.is_empty());
    }
    if first {
        w.sessions.list = page;
    } else {
        w.sessions.list.retain(|s| !page.iter().any(|p| p.id == s.id));
        w.sessions.list.extend(page);
        air_store::sort_by_activity(&mut w.sessions.list);
    }
    publish(w);
    if starting {
        w.sessions.started = true;
        let first = w.sessions.list.first().map(|s| s.id.clone());
        w.emit(Update::Started { first });
        w.after(crate::search::INDEX_CHECK_DELAY_MS, Timer::IndexCheck);
    }
}

/// Keeps the hint for the next start; a first session fetches the view.
fn remember_sessions<P: Platform>(w: &mut Workspace<P>, any: bool) {
    if any != w.sessions.hinted {
        if any {
            w.emit(Update::WarmChatView);
        }
        let _ = HAS_SESSIONS.set(w.p.kv(), &any);
        w.sessions.hinted = any;
    }
}

/// Puts `s` in the list in its place (replacing itself).
fn upsert<P: Platform>(w: &mut Workspace<P>, s: SessionRecord) {
    if w.sessions.list.is_empty() {
        remember_sessions(w, true);
    }
    let list = &mut w.sessions.list;
    list.retain(|x| x.id != s.id);
    let pos = list.iter().position(|x| air_store::activity_order(&s.updated_at, &s.id, &x.updated_at, &x.id).is_le()).unwrap_or(list.len());
    list.insert(pos, s);
}

fn publish<P: Platform>(w: &mut Workspace<P>) {
    let u = Update::Sessions { list: w.sessions.list.clone(), has_more: w.sessions.has_more };
    w.emit(u);
}

fn delete<P: Platform>(w: &mut Workspace<P>, id: String) {
    let Some(session) = w.sessions.list.iter().find(|s| s.id == id).cloned() else { return };
    if let Some(previous) = w.sessions.pending.take() {
        finish_delete(w, previous.id);
    }
    w.sessions.list.retain(|s| s.id != id);
    publish(w);
    w.emit(Update::Removed(id.clone()));
    deleting(w, &id, true);
    w.sessions.pending = Some(session.clone());
    w.emit(Update::PendingDelete(Some(session)));
    w.after(UNDO_MS, Timer::UndoDelete(id));
}

pub(crate) fn undo_window_closed<P: Platform>(w: &mut Workspace<P>, id: String) {
    if w.sessions.pending.as_ref().is_some_and(|p| p.id == id) {
        w.sessions.pending = None;
        w.emit(Update::PendingDelete(None));
        finish_delete(w, id);
    }
}

fn finish_delete<P: Platform>(w: &mut Workspace<P>, id: String) {
    let deleting = w.p.delete_session(id.clone());
    w.spawn(async move { Some(Command::Sessions(Action::Deleted { id, result: deleting.await })) });
}

/// The ids of the sessions being deleted ([`DELETING`]).
fn being_deleted(kv: &dyn KeyValue) -> Vec<String> {
    match kv.get(DELETING.name) {
        Some(t) if t.starts_with('[') => serde_json::from_str(&t).unwrap_or_default(),
        Some(id) if !id.is_empty() => vec![id],
        _ => Vec::new(),
    }
}

/// Writes down that `id` is being deleted (`on`), or no longer is.
fn deleting<P: Platform>(w: &mut Workspace<P>, id: &str, on: bool) {
    let kv = w.p.kv();
    let mut ids = being_deleted(kv);
    let had = ids.iter().any(|x| x == id);
    ids.retain(|x| x != id);
    if on {
        ids.push(id.to_owned());
    } else if !had {
        return;
    }
    let _ = match ids.is_empty() {
        true => kv.remove(DELETING.name),
        false => kv.set(DELETING.name, &serde_json::to_string(&ids).unwrap_or_default()),
    };
}

fn undo<P: Platform>(w: &mut Workspace<P>) {
    if let Some(session) = w.sessions.pending.take() {
        deleting(w, &session.id, false);
        w.emit(Update::PendingDelete(None));
        upsert(w, session);
        publish(w);
    }
}

fn rename<P: Platform>(w: &mut Workspace<P>, id: String, title: String) {
    let Some(store) = w.p.store() else { return };
    let Some(s) = w.sessions.list.iter_mut().find(|s| s.id == id) else { return };
    if title.trim().is_empty() || title.trim() == s.title {
        return;
    }
    s.rename(&title, w.p.now_ms());
    let session = s.clone();
    publish(w);
    w.spawn(async move {
        let result = match store.put_session(&session).await {
            Ok(()) => store.get_session(&session.id).await,
            Err(e) => Err(e),
        };
        Some(Command::Sessions(Action::Renamed { id: session.id, result }))
    });
}

#[cfg(test)]
#[path = "sessions_tests.rs"]
mod tests;
