//! The event log as the core keeps it (the ring and the redaction are
//! `air_store::log`'s): entries noted where things happen (a turn starts
//! and ends, the tools it offers, each call and what became of it, tools
//! loaded and invalidated, the servers' sessions and listings, and what
//! the page tells: [`Action::Note`]). What is noted waits in the core
//! until the log's work ([`work`], which the platform runs in a part
//! fetched on first use) has redacted it into the ring, read the stored
//! log back once (before what came since) and written the ring as one
//! document: when a turn ends, and otherwise [`FLUSH_MS`] after an entry.
//! A write that fails leaves the ring to write with the next batch;
//! nothing noted is dropped when the part cannot be fetched.

use std::collections::HashMap;

use air_agent::{Event, ToolMode};
use air_store::MessageRecord;
use air_store::StoreError;
use air_store::log::LOG;
use air_store::records::ToolStatus;
use air_tools::Registry;
use air_tools::offer::Offer;

pub use air_store::log::{Entry, EventLog, Kind, Level};

use crate::{Command, Missing, Platform, Timer, Update, Workspace};

/// How long after an entry the log is written (unless a turn ends first).
pub const FLUSH_MS: u64 = 5_000;

/// A tool loaded or invalidated this long ago, in a conversation whose
/// tools were not seen before, is new (older ones were so already).
const RECENT_MS: f64 = 10_000.0;

/// The names said of the tools offered; the rest are counted.
const NAMES_SAID: usize = 12;

/// What happens to the log.
#[derive(Debug)]
pub enum Action {
    /// The log is wanted (Settings): it goes out as `Update::Log`, and
    /// again when entries were added, at each batch.
    Want,
    /// Download it as JSON Lines.
    Export,
    /// An event the core does not see itself (a running turn, the page).
    Note { level: Level, kind: Kind, text: String },
    /// The log's work is done, or its part is missing.
    Worked(Result<Kept, Missing>),
}

/// An entry as noted: its text is not redacted yet.
#[derive(Debug, Clone, PartialEq)]
pub struct Noted {
    pub at: f64,
    pub level: Level,
    pub kind: Kind,
    pub text: String,
}

/// The log's work: the platform runs [`work`] in a part fetched on first
/// use, so the first screen carries neither the redaction nor the stored
/// document's reading and writing.
#[derive(Debug)]
pub struct Job {
    /// The ring as the core has it (redacted).
    pub ring: EventLog,
    /// Entries noted since, to redact into it.
    pub noted: Vec<Noted>,
    /// Read the stored log first, and put it before the ring.
    pub read: bool,
    /// Write the ring (once the stored log was read).
    pub write: bool,
    /// Give the ring as JSON Lines (an export).
    pub jsonl: bool,
}

/// What the work did.
#[derive(Debug)]
pub struct Kept {
    pub ring: EventLog,
    /// The stored log was read (and is in the ring now).
    pub read: bool,
    /// `None`: not written (no store, or its log not read).
    pub written: Option<Result<(), StoreError>>,
    pub jsonl: Option<String>,
}

/// Does `job` over `store` (`None`: not open yet).
pub async fn work<S: air_store::Store>(store: Option<&S>, job: Job) -> Kept {
    let mut ring = job.ring;
    let read = match store {
        Some(store) if job.read => {
            ring.merge_older(LOG.read(store).await);
            true
        }
        _ => false,
    };
    for n in job.noted {
        ring.push(Entry::new(n.at, n.level, n.kind, &n.text));
    }
    let written = match store {
        Some(store) if job.write && (read || !job.read) => Some(LOG.write(store, &ring).await),
        _ => None,
    };
    let jsonl = job.jsonl.then(|| ring.to_jsonl());
    Kept { ring, read, written, jsonl }
}

/// The core's part.
#[derive(Debug, Default)]
pub(crate) struct Log {
    /// Redacted, as the last work left it, oldest first.
    ring: EventLog,
    /// Noted and not through the work yet; the first `sent` are in the
    /// work under way.
    noted: Vec<Noted>,
    sent: usize,
    /// The stored log was read into the ring.
    read: bool,
    /// The ring has entries not written.
    dirty: bool,
    working: bool,
    armed: bool,
    /// The page shows the log.
    shown: bool,
    /// An export waits for the work.
    exporting: bool,
    /// Each call's status last noted, by its record (this turn's).
    calls: HashMap<String, ToolStatus>,
    /// Each conversation's loaded tools last seen: (server, tool, why
    /// invalid).
    loaded: HashMap<String, Vec<(String, String, Option<String>)>>,
}

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) {
    match action {
        Action::Want => {
            w.log.shown = true;
            if w.log.read && w.log.noted.is_empty() {
                show(w);
            } else {
                flush(w);
            }
        }
        Action::Export => {
            w.log.exporting = true;
            flush(w);
        }
        Action::Note { level, kind, text } => note(w, level, kind, &text),
        Action::Worked(Ok(done)) => worked(w, done),
        Action::Worked(Err(Missing)) => {
            // Kept for the next batch.
            w.log.working = false;
            w.log.sent = 0;
            if std::mem::take(&mut w.log.exporting) {
                w.emit(Update::Notice(crate::Notice::PartMissing));
            }
        }
    }
}

fn worked<P: Platform>(w: &mut Workspace<P>, done: Kept) {
    let sent = std::mem::take(&mut w.log.sent);
    w.log.working = false;
    w.log.noted.drain(..sent.min(w.log.noted.len()));
    w.log.ring = done.ring;
    w.log.read |= done.read;
    match done.written {
        Some(Ok(())) => w.log.dirty = false,
        Some(Err(_)) => w.log.dirty = true,
        None => w.log.dirty |= sent > 0,
    }
    if w.log.shown {
        show(w);
    }
    if let Some(text) = done.jsonl {
        w.log.exporting = false;
        let name = format!("air-agent-log-{}.jsonl", w.p.local_date());
        if let Err(e) = w.p.download(&name, "application/jsonl", &text) {
            w.emit(Update::Notice(crate::Notice::DownloadFailed(e)));
        }
    }
    // What came meanwhile, or what could not be written (a failed write;
    // the store opened while the work ran without it).
    if !w.log.noted.is_empty() || (w.log.dirty && w.p.store().is_some()) {
        arm(w);
    }
}

/// The store is open: what waits is written (after the log kept there is
/// read). With nothing noted, nothing is fetched or read until the log
/// is wanted.
pub(crate) fn opened<P: Platform>(w: &mut Workspace<P>) {
    if !w.log.read && !w.log.noted.is_empty() {
        flush(w);
    }
}

/// Keeps an entry (its text is redacted by the work, before it is kept
/// anywhere but here); written with the next batch.
pub(crate) fn note<P: Platform>(w: &mut Workspace<P>, level: Level, kind: Kind, text: &str) {
    let at = w.p.now_ms();
    w.log.noted.push(Noted { at, level, kind, text: text.to_owned() });
    arm(w);
}

/// The batch's time came.
pub(crate) fn due<P: Platform>(w: &mut Workspace<P>) {
    w.log.armed = false;
    flush(w);
}

fn arm<P: Platform>(w: &mut Workspace<P>) {
    if !w.log.armed {
        w.log.armed = true;
        w.after(FLUSH_MS, Timer::LogFlush);
    }
}

/// Has the work redact what was noted, read the stored log if it was not
/// yet, write the ring if anything is new, and give it as JSON Lines if
/// an export waits; one work at a time (the next takes what came
/// meanwhile).
fn flush<P: Platform>(w: &mut Workspace<P>) {
    let write = w.log.dirty || !w.log.noted.is_empty();
    let store = w.p.store().is_some();
    if w.log.working || !(write || w.log.exporting || w.log.shown || (store && !w.log.read)) {
        return;
    }
    w.log.working = true;
    w.log.sent = w.log.noted.len();
    let job = Job { ring: w.log.ring.clone(), noted: w.log.noted.clone(), read: !w.log.read, write, jsonl: w.log.exporting };
    let working = w.p.log_work(job);
    w.spawn(async move { Some(Command::Log(Action::Worked(working.await))) });
}

fn show<P: Platform>(w: &mut Workspace<P>) {
    let list = w.log.ring.newest_first().cloned().collect();
    w.emit(Update::Log(list));
}

/// At most `n` characters of `text`, on one line.
fn brief(text: &str, n: usize) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(n) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// A turn starts: what it does (the job as written in the code: this
/// module is before `platform`, which names it), and where.
pub(crate) fn turn_started<P: Platform>(w: &mut Workspace<P>, job: &impl std::fmt::Debug, session: Option<&str>) {
    let what = brief(&format!("{job:?}"), 100);
    let place = session.map_or_else(|| "a new chat".to_owned(), |s| format!("chat {s}"));
    w.log.calls.clear();
    note(w, Level::Info, Kind::TurnStarted, &format!("Turn started: {what} in {place}"));
}

/// The turn is over: said, and the batch written now.
pub(crate) fn turn_ended<P: Platform>(w: &mut Workspace<P>, result: &Result<Result<(), StoreError>, Missing>) {
    let (level, text) = match result {
        Ok(Ok(())) => (Level::Info, "Turn ended".to_owned()),
        Ok(Err(e)) => (Level::Error, format!("Turn ended: the store failed: {e}")),
        Err(Missing) => (Level::Error, "Turn ended: its part of the app could not be fetched".to_owned()),
    };
    note(w, level, Kind::TurnEnded, &text);
    w.log.calls.clear();
    flush(w);
}

/// What a turn's event says of its tools.
pub(crate) fn turn_event<P: Platform>(w: &mut Workspace<P>, event: &Event) {
    match event {
        Event::MessageSaved(record) => call_saved(w, record),
        Event::ToolCallingLearnt { key, calling } => note(w, Level::Info, Kind::ToolsOffered, &format!("Tool calling for {key} found to be {calling:?}")),
        Event::StoreFailed { what, error } => note(w, Level::Error, Kind::ToolFailed, &format!("Could not save ({what}): {error}")),
        _ => {}
    }
}

/// A call's record was saved: its new status is noted (once each).
fn call_saved<P: Platform>(w: &mut Workspace<P>, record: &MessageRecord) {
    let Some(run) = &record.tool else { return };
    if w.log.calls.get(&record.id) == Some(&run.status) {
        return;
    }
    w.log.calls.insert(record.id.clone(), run.status);
    let name = match &run.server {
        Some(server) => format!("{server}/{}", run.name),
        None => run.name.clone(),
    };
    let why = brief(&record.content, 200);
    let (level, kind, text) = match run.status {
        ToolStatus::AwaitingApproval => (Level::Info, Kind::ToolAsked, format!("{name} waits for the user's approval")),
        ToolStatus::Running => (Level::Info, Kind::ToolCalled, format!("{name} called with {}", brief(&run.arguments, 200))),
        ToolStatus::Done => (Level::Info, Kind::ToolDone, format!("{name} answered{}", run.duration_ms.map(|d| format!(" in {d:.0} ms")).unwrap_or_default())),
        // Never started: refused before it ran (unknown, invalid, a repeat, over the limit).
        ToolStatus::Error if run.started_at.is_none() => (Level::Warn, Kind::ToolRefused, format!("{name} not run: {why}")),
        ToolStatus::Error => (Level::Warn, Kind::ToolFailed, format!("{name} failed: {why}")),
        ToolStatus::Denied => (Level::Warn, Kind::ToolDenied, format!("{name} denied: {why}")),
        ToolStatus::Stopped => (Level::Info, Kind::ToolFailed, format!("{name} stopped: {why}")),
        ToolStatus::Interrupted => (Level::Debug, Kind::ToolFailed, format!("{name} interrupted")),
    };
    note(w, level, kind, &text);
}

/// What a turn offers the model (told from where the turn runs).
pub(crate) fn offered<P: Platform>(p: &P, mode: ToolMode, tools: &Registry, offer: Option<&dyn Offer>) {
    let (level, text) = if mode == ToolMode::Off {
        (Level::Info, "No tools offered: tools are off".to_owned())
    } else {
        let names: Vec<&str> = match offer {
            Some(o) => o.offered(tools).into_iter().map(|d| d.name.as_str()).collect(),
            None => tools.definitions().map(|d| d.name.as_str()).collect(),
        };
        let more = names.len().saturating_sub(NAMES_SAID);
        let said = names.iter().take(NAMES_SAID).copied().collect::<Vec<_>>().join(", ");
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        let dynamic = if offer.is_some() { format!(" (dynamic loading: {} in all)", tools.len()) } else { String::new() };
        let level = if names.is_empty() { Level::Warn } else { Level::Info };
        (level, format!("{} tools offered ({mode:?}){dynamic}: {said}{more}", names.len()))
    };
    p.feed(Command::Log(Action::Note { level, kind: Kind::ToolsOffered, text }));
}

/// What the servers' engine says of a session or a listing.
pub(crate) fn server_update<P: Platform>(w: &mut Workspace<P>, u: &Update) {
    use air_mcp::Connection;
    let (level, kind, text) = match u {
        Update::ServerStatus { name, status: Connection::Connecting } => (Level::Debug, Kind::McpConnect, format!("{name}: connecting")),
        Update::ServerStatus { name, status: Connection::Connected { version } } => (Level::Info, Kind::McpConnect, format!("{name}: connected (MCP {version})")),
        Update::ServerStatus { name, status: Connection::Reconnecting } => (Level::Warn, Kind::McpRetry, format!("{name}: the session ended; connecting again")),
        Update::ServerStatus { name, status: Connection::Failed { reason } } => (Level::Error, Kind::McpError, format!("{name}: {reason}")),
        Update::Resynced { name, result: Ok(c) } => {
            let text = format!("{name}: tools listed again: {} updated, {} new (waiting for the user), {} gone, {} unchanged", c.updated, c.added, c.gone, c.unchanged);
            (Level::Info, Kind::CapabilitiesSynced, text)
        }
        // (`servers` is after this module: its failure is said as it is.)
        Update::Resynced { name, result: Err(why) } => (Level::Error, Kind::McpError, format!("{name}: tools not listed again: {why:?}")),
        _ => return,
    };
    note(w, level, kind, &text);
}

/// The enabled servers are asked to connect (those not connected yet do).
pub(crate) fn connecting<P: Platform>(w: &mut Workspace<P>, servers: &[air_store::mcp::McpServer]) {
    let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
    note(w, Level::Debug, Kind::McpConnect, &format!("Connecting the enabled servers: {}", names.join(", ")));
}

/// A conversation's loaded tools as they are now: what was loaded and
/// what became invalid since they were last seen.
pub(crate) fn loaded<P: Platform>(w: &mut Workspace<P>, session: &str, list: &air_dynamic::Loaded) {
    let now: Vec<(String, String, Option<String>)> =
        list.tools.iter().map(|t| (t.server.clone(), t.tool.clone(), (t.status != air_dynamic::Status::Valid).then(|| t.reason.clone().unwrap_or_default()))).collect();
    let before = w.log.loaded.insert(session.to_owned(), now.clone());
    let recent = w.p.now_ms() - RECENT_MS;
    for (t, (server, tool, invalid)) in list.tools.iter().zip(now) {
        // Whether it was valid before (`None`: not there); not seen before,
        // what changed lately was different.
        let was_valid = match &before {
            Some(b) => b.iter().find(|(s, n, _)| *s == server && *n == tool).map(|(.., why)| why.is_none()),
            None if t.updated_at < recent => Some(invalid.is_none()),
            None if invalid.is_some() => Some(true),
            None => (t.loaded_at != t.updated_at).then_some(false),
        };
        match (invalid, was_valid) {
            (None, None | Some(false)) => note(w, Level::Info, Kind::ToolLoaded, &format!("{server}/{tool} loaded ({:?})", t.source)),
            (Some(why), Some(true)) => note(w, Level::Warn, Kind::ToolInvalidated, &format!("{server}/{tool} no longer offered: {why}")),
            _ => {}
        }
    }
}

/// The stored log as it is now (tests).
#[cfg(test)]
pub(crate) async fn stored(store: &impl air_store::Store) -> EventLog {
    LOG.read(store).await
}

#[cfg(test)]
#[path = "log_tests.rs"]
mod tests;
