//! MCP dynamic loading (`air-dynamic`) around the turn: the catalog kept
//! up to date with the saved servers, each conversation's loaded tools
//! (read and checked again when it opens and when the servers or the
//! settings change, saved when a turn's loader changes them), the
//! summarizer writing the servers' summaries in the background after each
//! refresh (never asked again, this page life, about a server, epoch and
//! summarizer it failed on, unless the user says retry; each failure
//! shown on its server's row with why), and the metrics over every
//! conversation, written one at a time so that none is lost.
//!
//! The core keeps the state and decides when; the work, with
//! `air-dynamic`'s code, is [`run`], which the platform runs in a part it
//! fetches on first use (`Platform::run_dynamic`), so the first screen
//! does not carry it.

use std::rc::Rc;

use air_chat::ChatError;
use air_dynamic::docs::{self, CATALOG, METRICS};
use air_dynamic::{Catalog, Loaded, Metrics, SummaryFailure};
use air_http::HttpClient;
use air_store::mcp::McpServer;
use air_store::{Settings, Store, StoreError};
use futures_util::future::{Either, LocalBoxFuture};

use crate::{Command, Missing, Notice, Platform, StoreOp, Update, Workspace};

/// How long the summarizer may take per server.
pub const SUMMARIZER_TIMEOUT_MS: u64 = 60_000;

/// What the summarizer failed on: a server (its name), its tools' epoch
/// and the summarizer (its provider and model:
/// `Settings::tool_calling_key`), and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Failed {
    pub server: String,
    pub epoch: u64,
    pub summarizer: String,
    pub why: air_dynamic::SummaryFailure,
}

/// What a run of the summarizer did.
#[derive(Debug, Default)]
pub struct Summarized {
    pub failed: Vec<Failed>,
    /// The servers whose summaries it wrote.
    pub done: Vec<String>,
}

/// What happens to dynamic loading (and what its work found).
#[derive(Debug)]
pub enum Action {
    /// The saved servers or the settings changed: the catalog follows,
    /// the open conversation's loaded tools are checked again, and new
    /// summaries are written.
    Refresh,
    /// Write the summaries the catalog lacks (a turn with dynamic loading
    /// begins).
    Summarize,
    /// The user asks the summarizer again about a server (its name) it
    /// failed on.
    Retry(String),
    /// A turn's loader changed the loaded tools of the turn's
    /// conversation (saved under it, even when another one is open by
    /// now); its metrics gained `gained`.
    Loaded { list: Loaded, gained: Metrics },
    /// The metrics over every conversation are wanted (the settings).
    WantMetrics,
    /// The loaded tools of `session` as checked (and whether checking
    /// changed them: they are saved then); `kept`: whether the catalog,
    /// brought up to date, could be stored.
    Gated { session: Option<String>, result: Result<(Loaded, bool), Missing>, kept: Result<(), StoreError> },
    /// The other conversations' loaded tools were checked after a
    /// refresh: those that changed (saved), as they are now.
    OthersGated(Vec<(String, Loaded)>),
    /// The summarizer is done.
    Summarized(Result<Summarized, Missing>),
    /// The overall metrics as stored, after adding `gained` to them (or
    /// read: `None`).
    Metrics { gained: Option<Metrics>, result: Result<Result<Metrics, StoreError>, Missing> },
    /// A conversation's loaded tools were saved, or not.
    Saved(Result<Result<(), StoreError>, Missing>),
}

/// The work the platform runs ([`run`]).
#[derive(Debug)]
pub enum Job {
    /// Bring the catalog up to date with `servers` and check the loaded
    /// tools of `session` against it.
    Gate {
        session: Option<String>,
        servers: Vec<McpServer>,
    },
    /// Check every other conversation's loaded tools against the catalog
    /// (after a refresh), but those of `except` (the open one, checked by
    /// `Gate`; the one a turn runs in, which checks before each request).
    GateOthers {
        except: Vec<String>,
        servers: Vec<McpServer>,
    },
    /// Have the summarizer (`settings`: its provider and model,
    /// `Settings::summarizer`) summarize the servers the catalog has no
    /// summary for, but those in `skip`.
    Summarize {
        settings: Box<Settings>,
        servers: Vec<McpServer>,
        skip: Vec<Failed>,
    },
    Save {
        session: String,
        list: Loaded,
    },
    /// Add to the overall metrics.
    AddMetrics(Metrics),
    ReadMetrics,
    /// A deleted session's loaded tools go.
    Forget(String),
}

/// The core's part.
#[derive(Debug, Default)]
pub(crate) struct Dynamic {
    summarizing: bool,
    /// Asked for while it ran: it runs once more after.
    again: bool,
    /// Servers the user asked about again while it ran.
    retry: Vec<String>,
    /// The latest failure per server and summarizer, and those shown.
    failed: Vec<Failed>,
    shown: Vec<Failed>,
    /// Gains of the overall metrics not written yet, and whether a write
    /// is under way.
    pending: Metrics,
    flushing: bool,
}

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) {
    match action {
        Action::Refresh => refresh(w),
        Action::Summarize => summarize(w),
        Action::Loaded { list, gained } => {
            add_metrics(w, gained);
            if let Some(session) = w.turn.session.clone() {
                crate::log::loaded(w, &session, &list);
                save(w, session, list);
            }
        }
        Action::WantMetrics => work(w, Job::ReadMetrics),
        Action::Gated { session, result, kept } => {
            if let Err(error) = kept {
                w.emit(Update::Notice(Notice::Store { op: StoreOp::Prefs, error }));
            }
            match result {
                Ok((list, changed)) => gated(w, session, list, changed),
                Err(Missing) => w.emit(Update::Notice(Notice::PartMissing)),
            }
        }
        Action::OthersGated(changed) => {
            for (session, list) in changed {
                crate::log::loaded(w, &session, &list);
            }
        }
        Action::Retry(server) => {
            w.dynamic.failed.retain(|f| f.server != server);
            if w.dynamic.summarizing {
                w.dynamic.retry.push(server);
            }
            show_failures(w);
            summarize(w);
        }
        Action::Summarized(result) => summarized(w, result),
        Action::Metrics { gained, result } => metrics(w, gained, result),
        Action::Saved(result) => match result {
            Ok(Ok(())) => {}
            Ok(Err(error)) => w.emit(Update::Notice(Notice::Store { op: StoreOp::SaveMessage, error })),
            Err(Missing) => w.emit(Update::Notice(Notice::PartMissing)),
        },
    }
}

/// The overall metrics as stored now; after a write, the next one goes
/// (a write that could not be made keeps its gains for the next).
fn metrics<P: Platform>(w: &mut Workspace<P>, gained: Option<Metrics>, result: Result<Result<Metrics, StoreError>, Missing>) {
    let written = matches!(result, Ok(Ok(_)));
    match result {
        Ok(Ok(m)) => w.emit(Update::Metrics(m)),
        Ok(Err(error)) => w.emit(Update::Notice(Notice::Store { op: StoreOp::Prefs, error })),
        Err(Missing) => w.emit(Update::Notice(Notice::PartMissing)),
    }
    let Some(gained) = gained else { return };
    w.dynamic.flushing = false;
    if written {
        flush(w);
    } else {
        w.dynamic.pending.add(&gained);
    }
}

/// Dynamic loading is on for the open chat (the settings' switch; its
/// assistant may turn it off for itself).
pub(crate) fn on<P: Platform>(w: &Workspace<P>) -> bool {
    w.prefs.dynamic_on(w.chat.active.as_deref().unwrap_or(air_store::mcp::NEW_CHAT))
}

/// A session opened: its loaded tools are shown, checked against the
/// catalog (none while dynamic loading is off: its code is fetched only
/// once it is on).
pub(crate) fn opened<P: Platform>(w: &mut Workspace<P>, session: Option<String>) {
    match session {
        Some(id) if on(w) => {
            let servers = w.prefs.servers.clone();
            work(w, Job::Gate { session: Some(id), servers });
        }
        _ => w.emit(Update::LoadedTools(Loaded::default())),
    }
}

/// A deleted session's loaded tools go with it.
pub(crate) fn forget<P: Platform>(w: &mut Workspace<P>, session: String) {
    work(w, Job::Forget(session));
}

fn refresh<P: Platform>(w: &mut Workspace<P>) {
    // The summarizer may have changed.
    show_failures(w);
    // Without servers there is nothing to catalogue (a turn brings the
    // stored catalog up to date before it uses it).
    if w.prefs.servers.is_empty() {
        return;
    }
    let (session, servers) = (w.chat.active.clone(), w.prefs.servers.clone());
    let except = session.iter().chain(&w.turn.session).cloned().collect();
    work(w, Job::Gate { session, servers: servers.clone() });
    work(w, Job::GateOthers { except, servers });
    summarize(w);
}

fn gated<P: Platform>(w: &mut Workspace<P>, session: Option<String>, list: Loaded, changed: bool) {
    let Some(session) = session else { return };
    crate::log::loaded(w, &session, &list);
    if changed {
        save(w, session, list);
    } else if w.chat.active.as_deref() == Some(session.as_str()) {
        w.emit(Update::LoadedTools(list));
    }
}

fn save<P: Platform>(w: &mut Workspace<P>, session: String, list: Loaded) {
    if w.chat.active.as_deref() == Some(session.as_str()) {
        w.emit(Update::LoadedTools(list.clone()));
    }
    work(w, Job::Save { session, list });
}

/// Runs the summarizer, if one is set (once more after, if it runs).
fn summarize<P: Platform>(w: &mut Workspace<P>) {
    let Some(settings) = summarizer(w) else { return };
    if w.dynamic.summarizing {
        w.dynamic.again = true;
        return;
    }
    w.dynamic.summarizing = true;
    let job = Job::Summarize { settings: Box::new(settings), servers: w.prefs.servers.clone(), skip: w.dynamic.failed.clone() };
    work(w, job);
}

/// The settings the summarizer runs with; `None`: dynamic loading is off
/// or no summarizer is set (the servers' descriptions are used).
fn summarizer<P: Platform>(w: &Workspace<P>) -> Option<Settings> {
    w.prefs.settings.dynamic_mcp_loading.then(|| w.prefs.settings.summarizer()).flatten()
}

/// A run of the summarizer is over: what it wrote clears the failures of
/// those servers, what it failed on replaces their older failures.
fn summarized<P: Platform>(w: &mut Workspace<P>, result: Result<Summarized, Missing>) {
    w.dynamic.summarizing = false;
    if let Ok(Summarized { failed, done }) = result {
        w.dynamic.failed.retain(|f| !done.contains(&f.server) && !failed.iter().any(|n| n.server == f.server && n.summarizer == f.summarizer));
        w.dynamic.failed.extend(failed);
    }
    // Asked about again while it ran: what it found then does not hold them back.
    let retry = std::mem::take(&mut w.dynamic.retry);
    w.dynamic.failed.retain(|f| !retry.contains(&f.server));
    show_failures(w);
    if std::mem::take(&mut w.dynamic.again) {
        summarize(w);
    }
}

/// Shows the failures of the summarizer in use, when they changed.
fn show_failures<P: Platform>(w: &mut Workspace<P>) {
    let key = summarizer(w).map(|s| s.tool_calling_key());
    let list: Vec<Failed> = w.dynamic.failed.iter().filter(|f| Some(&f.summarizer) == key.as_ref()).cloned().collect();
    if list != w.dynamic.shown {
        w.dynamic.shown = list.clone();
        w.emit(Update::SummaryFailures(list));
    }
}

fn add_metrics<P: Platform>(w: &mut Workspace<P>, gained: Metrics) {
    if gained == Metrics::default() {
        return;
    }
    w.dynamic.pending.add(&gained);
    flush(w);
}

/// Writes what the overall metrics gained, one write at a time.
fn flush<P: Platform>(w: &mut Workspace<P>) {
    if w.dynamic.flushing || w.dynamic.pending == Metrics::default() {
        return;
    }
    w.dynamic.flushing = true;
    let gained = std::mem::take(&mut w.dynamic.pending);
    work(w, Job::AddMetrics(gained));
}

/// Has the platform run `job`; what it found comes back as a command.
fn work<P: Platform>(w: &mut Workspace<P>, job: Job) {
    // What is said if its part cannot be fetched.
    let missing = match &job {
        Job::Gate { session, .. } => Some(Action::Gated { session: session.clone(), result: Err(Missing), kept: Ok(()) }),
        Job::Summarize { .. } => Some(Action::Summarized(Err(Missing))),
        Job::Save { .. } => Some(Action::Saved(Err(Missing))),
        Job::AddMetrics(gained) => Some(Action::Metrics { gained: Some(*gained), result: Err(Missing) }),
        Job::ReadMetrics => Some(Action::Metrics { gained: None, result: Err(Missing) }),
        Job::Forget(_) | Job::GateOthers { .. } => None,
    };
    let running = w.p.run_dynamic(job);
    w.spawn(async move {
        match running.await {
            Ok(found) => found.map(Command::Dynamic),
            Err(Missing) => missing.map(Command::Dynamic),
        }
    });
}

/// The catalog as stored, brought up to date with `servers`, and whether
/// it could be stored again where that changed it. A document that cannot
/// be read is rebuilt.
pub async fn catalog(store: &impl Store, servers: &[McpServer], now_ms: f64) -> (Catalog, Result<(), StoreError>) {
    let stored = CATALOG.read(store).await;
    let fresh = stored.refresh(servers, now_ms);
    let kept = if fresh != stored { CATALOG.write(store, &fresh).await } else { Ok(()) };
    (fresh, kept)
}

/// Where [`run`] works: the store, HTTP for the summarizer, the clock.
pub struct Env<'a, S, H> {
    pub store: Option<Rc<S>>,
    pub http: &'a H,
    pub now_ms: f64,
    pub sleep: &'a dyn Fn(u64) -> LocalBoxFuture<'static, ()>,
}

/// Does `job`; what it found, for the core (`None`: nothing to say).
pub async fn run<S: Store, H: HttpClient>(env: Env<'_, S, H>, job: Job) -> Option<Action> {
    let store = env.store.clone()?;
    let store = &*store;
    match job {
        Job::Gate { session, servers } => {
            let (fresh, kept) = catalog(store, &servers, env.now_ms).await;
            let mut list = match &session {
                Some(id) => docs::loaded(id).read(store).await,
                None => Loaded::default(),
            };
            let changed = list.gate(&fresh, &servers, env.now_ms);
            Some(Action::Gated { session, result: Ok((list, changed)), kept })
        }
        Job::GateOthers { except, servers } => Some(Action::OthersGated(gate_others(store, &except, &servers, env.now_ms).await)),
        Job::Summarize { settings, servers, skip } => Some(Action::Summarized(Ok(summarize_all(&env, store, &settings, &servers, &skip).await))),
        Job::Save { session, list } => Some(Action::Saved(Ok(docs::loaded(&session).write(store, &list).await))),
        Job::AddMetrics(gained) => {
            let mut m = METRICS.read(store).await;
            m.add(&gained);
            let result = METRICS.write(store, &m).await.map(|()| m);
            Some(Action::Metrics { gained: Some(gained), result: Ok(result) })
        }
        Job::ReadMetrics => Some(Action::Metrics { gained: None, result: Ok(Ok(METRICS.read(store).await)) }),
        Job::Forget(session) => {
            let _ = docs::loaded(&session).delete(store).await;
            None
        }
    }
}

/// Every conversation's loaded tools but `except`'s, checked against the
/// catalog; those that changed are saved, and returned.
async fn gate_others<S: Store>(store: &S, except: &[String], servers: &[McpServer], now_ms: f64) -> Vec<(String, Loaded)> {
    let (fresh, _) = catalog(store, servers, now_ms).await;
    let mut out = Vec::new();
    for key in store.doc_keys(docs::LOADED_PREFIX).await.unwrap_or_default() {
        let Some(session) = key.strip_prefix(docs::LOADED_PREFIX) else { continue };
        if except.iter().any(|e| e == session) {
            continue;
        }
        let doc = docs::loaded(session);
        let mut list = doc.read(store).await;
        if list.gate(&fresh, servers, now_ms) && doc.write(store, &list).await.is_ok() {
            out.push((session.to_owned(), list));
        }
    }
    out
}

/// The summarizer (`settings`) over the servers without a summary for
/// their tools (but `skip`), one server at a time; what it wrote is
/// stored, dated `now_ms` (when the run began). A failure or a timeout
/// leaves the descriptions' first sentences in place, and is said.
async fn summarize_all<S: Store, H: HttpClient>(env: &Env<'_, S, H>, store: &S, settings: &Settings, servers: &[McpServer], skip: &[Failed]) -> Summarized {
    let key = settings.tool_calling_key();
    let mut out = Summarized::default();
    let (first, _) = catalog(store, servers, env.now_ms).await;
    for (name, epoch) in air_dynamic::unsummarized(&first) {
        let Some(server) = servers.iter().find(|s| s.name == name) else { continue };
        if skip.iter().any(|f| f.server == name && f.epoch == epoch && f.summarizer == key) {
            continue;
        }
        let (now, _) = catalog(store, servers, env.now_ms).await;
        match air_dynamic::summarize_one(&now, server, |input| ask(env, settings, input)).await {
            None => {}
            Some(Err(why)) => out.failed.push(Failed { server: name, epoch, summarizer: key.clone(), why }),
            Some(Ok((epoch, summary, tools))) => {
                // Written into the catalog as it is now, for the epoch asked about.
                let (mut current, _) = catalog(store, servers, env.now_ms).await;
                if current.summarized(&name, epoch, &summary, &tools, env.now_ms) {
                    let _ = CATALOG.write(store, &current).await;
                }
                out.done.push(name);
            }
        }
    }
    out
}

/// Asks the summarizer (`settings`: its provider and model) with the
/// built-in prompt: its answer's text, or why none came.
async fn ask<S, H: HttpClient>(env: &Env<'_, S, H>, settings: &Settings, input: String) -> Result<String, SummaryFailure> {
    let abort = air_http::Abort::new();
    let asking = std::pin::pin!(air_agent::provider::complete(env.http, settings, &settings.model, air_dynamic::SUMMARIZER_PROMPT, &input, &abort));
    match futures_util::future::select(asking, (env.sleep)(SUMMARIZER_TIMEOUT_MS)).await {
        Either::Left((Ok(text), _)) => Ok(text),
        Either::Left((Err(ChatError::Http { status, .. }), _)) => Err(SummaryFailure::Status(status)),
        Either::Left((Err(ChatError::Network { .. } | ChatError::Cors { .. }), _)) => Err(SummaryFailure::Unreachable),
        Either::Left((Err(_), _)) => Err(SummaryFailure::Unreadable),
        Either::Right(_) => {
            abort.abort();
            Err(SummaryFailure::Timeout)
        }
    }
}

#[cfg(test)]
#[path = "dynamic_tests.rs"]
mod tests;
