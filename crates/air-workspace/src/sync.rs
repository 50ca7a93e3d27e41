//! Sync with the user's own CouchDB (`Command::Sync`): when to run a pass
//! and what the user is told. The work itself (`work`) runs in a part
//! fetched when sync is on (`Platform::run_sync`).
//!
//! While the page is open and sync is on, passes follow each other: a
//! pass, then a wait that ends when the server has a change (its
//! long-poll), this device wrote one (the journal, looked at every 2 s),
//! or 25 s passed quietly (and it waits again). A failure that may pass
//! (the server unreachable, or answering 5xx) is tried again after 5 s,
//! then 10, 20, up to a minute; one only the user can mend (the password,
//! the passphrase) waits for them.

pub mod conflicts;
#[cfg(test)]
mod device_tests;
pub mod form;
pub mod prefs;
pub mod store;
pub mod work;

use air_http::Abort;
use air_store::sync_meta::{ON_KEY, SETTINGS_KEY};
pub use air_sync_local::store_peer::Tally;
use serde_json::Value;

use crate::{Command, Missing, Platform, Timer, Update, Workspace};

/// Why a pass did not go through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The server refused the user name or password.
    Unauthorized,
    /// The passphrase does not open the database.
    WrongPassphrase,
    /// The database is encrypted and no passphrase was given.
    PassphraseNeeded,
    /// A passphrase was given for a database that has none.
    NotEncrypted,
    /// The database is new and its passphrase was typed once only: it is
    /// created once it is typed again (a typo would lock every other
    /// device out).
    Unconfirmed,
    /// Nothing answered (down, offline, or CORS refused this page).
    Unreachable(String),
    /// The server answers, but not to this page (the doctor found why:
    /// CORS, mixed content, a private network): what is wrong, and what
    /// to set on the server, `(where, text)`.
    Refused {
        explain: String,
        fixes: Vec<(String, String)>,
    },
    /// The server answered with an error.
    Server(String),
    /// This device's store failed.
    Store(String),
    Other(String),
}

impl Failure {
    /// It may pass by itself: tried again.
    pub fn passes(&self) -> bool {
        matches!(self, Failure::Unreachable(_) | Failure::Refused { .. } | Failure::Server(_))
    }
}

/// A pass that went through.
#[derive(Debug, Clone, PartialEq)]
pub struct Passed {
    /// Documents sent and received.
    pub up: u64,
    pub down: u64,
    /// Where the server's feed and this device's journal stood after it.
    pub remote_seq: Value,
    pub local_seq: u64,
    /// Documents pulled that could not be opened or were not made by a
    /// device of this database: set aside.
    pub refused: u64,
    /// A preference pulled was written: they are read again.
    pub prefs: bool,
    /// The records whose versions written apart are kept to see.
    pub conflicts: Vec<crate::sync::conflicts::Conflict>,
    /// What the documents sent and received were.
    pub moved: Tally,
}

/// Why a wait ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wake {
    Remote,
    Local,
    Quiet,
    Failed(Failure),
}

/// Work for the part.
#[derive(Debug, Clone)]
/// (`settings`: as kept, JSON of `air_store::sync_meta::SyncSettings`,
/// read by the part.)
pub enum Job {
    Pass {
        settings: String,
        abort: Abort,
    },
    Wait {
        settings: String,
        since: (Value, u64),
        abort: Abort,
    },
    /// The user has seen what document `wire` kept.
    Dismiss {
        wire: String,
    },
}

/// What the part did.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Passed(Result<Passed, Failure>),
    Woke(Wake),
    Dismissed,
    /// Another tab of this browser syncs (it holds the lock): this one
    /// leaves it the work, and looks again later.
    Elsewhere,
}

#[derive(Debug, Clone)]
pub enum Action {
    /// Settings → Sync is shown: where sync stands, and its settings.
    Want,
    /// Settings → Sync was saved (as JSON; `on`: on and set up): kept,
    /// and sync starts again (or stops).
    Save { settings: String, on: bool },
    /// Sync now.
    Now,
    /// Pause (`true`) or go on.
    Pause(bool),
    /// A pass's documents so far (up, down), and about how many are to
    /// go in the direction under way, where known.
    Progress(u64, u64, Option<u64>),
    /// The part's work ended (under `ticket`).
    Done(u64, Result<Outcome, Missing>),
    /// The wait after a failure is over.
    Retry(u64),
    /// The user has seen what document `wire` kept: it goes.
    Dismiss(String),
}

/// Where sync stands.
#[derive(Debug, Clone, PartialEq)]
pub enum State {
    Off,
    Syncing {
        up: u64,
        down: u64,
        to_go: Option<u64>,
    },
    /// Up to date; waiting for changes.
    Idle,
    Paused,
    /// Another tab of this browser syncs.
    Elsewhere,
    /// The last pass failed; `retry_s`: tried again in that many seconds.
    Failed {
        failure: Failure,
        retry_s: Option<u64>,
    },
}

/// What Settings → Sync shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    /// As kept (JSON).
    pub settings: String,
    pub state: State,
    /// When the last pass went through (ms since the epoch).
    pub last: Option<f64>,
    /// Documents sent and received since the page opened.
    pub up: u64,
    pub down: u64,
    /// Documents pulled since the page opened that were set aside: they
    /// could not be opened, or no device of the database made them (a
    /// deletion moved from another document, a revision grafted onto
    /// another branch).
    pub refused: u64,
    /// The records whose versions written apart are kept to see.
    pub conflicts: Vec<crate::sync::conflicts::Conflict>,
    /// What was sent and received since the page opened, by what it is
    /// (a conversation, a message, the settings, a server…).
    pub moved: Tally,
}

/// How often a tab that leaves sync to another looks whether that tab is
/// gone.
pub const ELSEWHERE_MS: u64 = 10_000;

#[derive(Debug)]
pub struct Sync {
    state: State,
    ticket: u64,
    /// Aborts the job in flight (a pass or a wait).
    waiting: Option<Abort>,
    /// A pass is in flight (its store work must end before another starts).
    passing: bool,
    /// Another pass is wanted once it ends.
    again: bool,
    /// Where the last pass left the server's feed and the journal.
    since: Option<(Value, u64)>,
    retry_ms: u64,
    last: Option<f64>,
    up: u64,
    down: u64,
    refused: u64,
    conflicts: Vec<crate::sync::conflicts::Conflict>,
    moved: Tally,
}

impl Default for Sync {
    fn default() -> Self {
        Self {
            state: State::Off,
            ticket: 0,
            waiting: None,
            passing: false,
            again: false,
            since: None,
            retry_ms: 0,
            last: None,
            up: 0,
            down: 0,
            refused: 0,
            conflicts: Vec::new(),
            moved: Tally::default(),
        }
    }
}

/// As kept (read each time: the part adds this device's id to them).
fn settings<P: Platform>(w: &Workspace<P>) -> String {
    SETTINGS_KEY.get(w.p.kv())
}

fn ready<P: Platform>(w: &Workspace<P>) -> bool {
    ON_KEY.get(w.p.kv())
}

fn show<P: Platform>(w: &mut Workspace<P>) {
    let s = &w.sync;
    let status = Status { settings: settings(w), state: s.state.clone(), last: s.last, up: s.up, down: s.down, refused: s.refused, conflicts: s.conflicts.clone(), moved: s.moved.clone() };
    w.emit(Update::Sync(Box::new(status)));
}

/// The store is open: sync starts if it is on.
pub fn opened<P: Platform>(w: &mut Workspace<P>) {
    if ready(w) && w.p.store().is_some() {
        pass(w);
    }
}

/// Stops what runs (a wait is aborted; a pass's answer will be ignored).
fn halt<P: Platform>(w: &mut Workspace<P>) {
    w.sync.ticket += 1;
    if let Some(a) = w.sync.waiting.take() {
        a.abort();
    }
}

fn run<P: Platform>(w: &mut Workspace<P>, job: Job) {
    let ticket = w.sync.ticket;
    let working = w.p.run_sync(job);
    w.spawn(async move { Some(Command::Sync(Action::Done(ticket, working.await))) });
}

/// Starts a pass, or, while one runs, one more once it ends (one pass at
/// a time: two would write the same records and checkpoints).
fn pass<P: Platform>(w: &mut Workspace<P>) {
    w.sync.state = State::Syncing { up: 0, down: 0, to_go: None };
    show(w);
    if w.sync.passing {
        w.sync.again = true;
        return;
    }
    halt(w);
    w.sync.passing = true;
    let abort = Abort::new();
    w.sync.waiting = Some(abort.clone());
    let job = Job::Pass { settings: settings(w), abort };
    run(w, job);
}

fn wait<P: Platform>(w: &mut Workspace<P>, since: (Value, u64)) {
    w.sync.since = Some(since.clone());
    let abort = Abort::new();
    w.sync.waiting = Some(abort.clone());
    let job = Job::Wait { settings: settings(w), since, abort };
    run(w, job);
}

pub fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) {
    match action {
        Action::Want => show(w),
        Action::Save { settings, on } => {
            let _ = SETTINGS_KEY.set(w.p.kv(), &settings);
            let _ = ON_KEY.set(w.p.kv(), &on);
            halt(w);
            w.sync.retry_ms = 0;
            if on { pass(w) } else { stopped(w, State::Off) }
        }
        Action::Now if ready(w) => pass(w),
        Action::Now => {}
        Action::Pause(true) => stopped(w, State::Paused),
        Action::Pause(false) if ready(w) => pass(w),
        Action::Pause(false) => stopped(w, State::Off),
        Action::Progress(up, down, to_go) if matches!(w.sync.state, State::Syncing { .. }) => {
            w.sync.state = State::Syncing { up, down, to_go };
            show(w);
        }
        Action::Progress(..) => {}
        Action::Done(ticket, outcome) => ended(w, ticket, outcome),
        Action::Retry(ticket) if ticket == w.sync.ticket => pass(w),
        Action::Retry(_) => {}
        Action::Dismiss(wire) => {
            w.sync.conflicts.retain(|c| c.wire != wire);
            show(w);
            let working = w.p.run_sync(Job::Dismiss { wire });
            w.spawn(async move {
                let _ = working.await;
                None
            });
        }
    }
}

fn stopped<P: Platform>(w: &mut Workspace<P>, state: State) {
    halt(w);
    w.sync.state = state;
    show(w);
}

/// A job ended: a pass frees the way for the next; an answer under an
/// older ticket (sync was paused, saved again) changes nothing else. What
/// a pass wrote here is shown whatever follows it (another pass asked for
/// meanwhile, or a pause): the store has it either way.
fn ended<P: Platform>(w: &mut Workspace<P>, ticket: u64, outcome: Result<Outcome, Missing>) {
    let was_pass = !matches!(outcome, Ok(Outcome::Woke(_)));
    if was_pass {
        w.sync.passing = false;
    }
    let outcome = match outcome {
        Ok(Outcome::Passed(Ok(p))) => Ok(Outcome::Passed(Ok(brought(w, p, ticket == w.sync.ticket)))),
        other => other,
    };
    let again = was_pass && std::mem::take(&mut w.sync.again);
    if again && matches!(w.sync.state, State::Syncing { .. }) {
        pass(w);
    } else if ticket == w.sync.ticket {
        done(w, outcome);
    }
}

/// What pass `p` wrote here: the list, the open chat and the preferences
/// read again; counted (`current`: under this ticket) with its conflicts,
/// and the server known to be reached.
fn brought<P: Platform>(w: &mut Workspace<P>, mut p: Passed, current: bool) -> Passed {
    if current {
        w.sync.retry_ms = 0;
        w.sync.last = Some(w.p.now_ms());
        w.sync.up += p.up;
        w.sync.down += p.down;
        w.sync.refused += p.refused;
        w.sync.moved.add(&p.moved);
        w.sync.conflicts = std::mem::take(&mut p.conflicts);
    }
    if p.prefs {
        crate::sync::prefs::reload(w, true);
    }
    if p.refused > 0 {
        w.emit(Update::Notice(crate::Notice::SyncRefused(p.refused)));
    }
    if p.down > 0 {
        // As after an import: the list, and the open chat, again.
        w.emit(Update::SessionsChanged);
        w.reload_sessions();
        if w.active().is_some() && !w.busy() {
            w.reopen();
        }
    }
    p
}

fn done<P: Platform>(w: &mut Workspace<P>, outcome: Result<Outcome, Missing>) {
    match outcome {
        // What it brought is in already (`brought`).
        Ok(Outcome::Passed(Ok(p))) => {
            w.sync.state = State::Idle;
            show(w);
            wait(w, (p.remote_seq, p.local_seq));
        }
        Ok(Outcome::Passed(Err(f)) | Outcome::Woke(Wake::Failed(f))) => failed(w, f),
        // Nothing changed: wait again from where the last pass left.
        Ok(Outcome::Woke(Wake::Quiet)) => match w.sync.since.clone() {
            Some(since) => wait(w, since),
            None => pass(w),
        },
        Ok(Outcome::Woke(Wake::Remote | Wake::Local)) => pass(w),
        Ok(Outcome::Dismissed) => {}
        Ok(Outcome::Elsewhere) => {
            w.sync.state = State::Elsewhere;
            show(w);
            w.after(ELSEWHERE_MS, Timer::SyncRetry(w.sync.ticket));
        }
        Err(Missing) => {
            w.emit(Update::Notice(crate::Notice::PartMissing));
            failed(w, Failure::Other("a part of the app could not be fetched".into()));
        }
    }
}

fn failed<P: Platform>(w: &mut Workspace<P>, failure: Failure) {
    w.sync.waiting = None;
    let retry_s = failure.passes().then(|| {
        w.sync.retry_ms = (w.sync.retry_ms * 2).clamp(5_000, 60_000);
        w.sync.retry_ms / 1000
    });
    if let Some(s) = retry_s {
        w.after(s * 1000, Timer::SyncRetry(w.sync.ticket));
    }
    w.sync.state = State::Failed { failure, retry_s };
    show(w);
}

#[cfg(test)]
#[path = "sync/tests.rs"]
mod tests;
