//! The one place the app runs the workspace core (`air-workspace`): it
//! hands it commands, turns its updates into signals, runs its tasks and
//! arms its one timer. The core owns the session list and opening the
//! store so far; the rest of the app's flows move there one by one.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use air_store::sync::{CHANNEL as SYNC_CHANNEL, SyncEvent};
use air_web::{IdbStore, LocalStorageKv};
use air_store::search::SearchResults;
use air_store::StoreError;
use air_workspace::{Command, Missing, Notice, Platform, StoreOp, Workspace};
use air_workspace::Update as Up;
use air_workspace::data::{Format, ImportFailure, ImportOutcome, StorageInfo};
use air_workspace::turn::{Run, Setup, TurnEnv};
use air_store::conversation::TemplateVars;
use futures_util::future::LocalBoxFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::state::AppState;
use crate::store::AnyStore;

/// The page as the core's platform.
pub struct Browser {
    state: AppState,
    kv: LocalStorageKv,
    store: Rc<RefCell<Option<Rc<AnyStore>>>>,
    http: crate::env::Http,
}

impl Platform for Browser {
    type Store = AnyStore;
    type Kv = LocalStorageKv;
    type Http = crate::env::Http;

    fn now_ms(&self) -> f64 {
        crate::env::now_ms()
    }
    fn new_id(&self) -> String {
        crate::env::new_id()
    }
    fn local_date(&self) -> String {
        crate::env::local_date_time().0
    }
    fn download(&self, name: &str, mime: &str, text: &str) -> Result<(), String> {
        air_web::download(name, mime, text)
    }
    fn export(&self, only: Option<String>, format: Format, settings: air_store::Settings) -> LocalBoxFuture<'static, Result<Result<Option<String>, StoreError>, Missing>> {
        let store = self.store();
        let now = crate::env::now_ms();
        Box::pin(async move {
            let Some(store) = store else { return Ok(Ok(None)) };
            part(export_file(store, only, format, settings, now)).await
        })
    }
    fn import(&self, text: String) -> LocalBoxFuture<'static, Result<Result<(usize, usize), ImportFailure>, Missing>> {
        let store = self.store();
        Box::pin(async move {
            let Some(store) = store else { return Ok(Ok((0, 0))) };
            part(import_file(store, text)).await
        })
    }
    fn storage_info(&self) -> LocalBoxFuture<'static, StorageInfo> {
        Box::pin(async {
            let persistent = air_web::request_persistent_storage().await;
            StorageInfo { usage: air_web::storage_estimate().await, persistent }
        })
    }
    fn kv(&self) -> &LocalStorageKv {
        &self.kv
    }
    fn open_store(&self) -> LocalBoxFuture<'static, Option<String>> {
        let slot = self.store.clone();
        Box::pin(async move {
            let (store, fell_back) = match IdbStore::open_default().await {
                Ok(db) => (AnyStore::Idb(db), None),
                Err(e) => (AnyStore::Memory(air_store::MemoryStore::new()), Some(e.to_string())),
            };
            *slot.borrow_mut() = Some(Rc::new(store));
            fell_back
        })
    }
    fn store(&self) -> Option<Rc<AnyStore>> {
        self.store.borrow().clone()
    }
    fn search(&self, query: String) -> LocalBoxFuture<'static, Result<Result<SearchResults, StoreError>, Missing>> {
        let store = self.store();
        Box::pin(async move {
            let Some(store) = store else { return Ok(Ok(SearchResults::default())) };
            part(search(store, query)).await
        })
    }
    fn read_resource(&self, server: String, uri: String) -> LocalBoxFuture<'static, Result<Result<String, String>, Missing>> {
        Box::pin(part(read_resource(self.state, server, uri)))
    }
    fn subscribe_resource(&self, server: String, uri: String, on: bool) -> LocalBoxFuture<'static, Result<bool, Missing>> {
        Box::pin(part(subscribe_resource(self.state, server, uri, on)))
    }
    fn delete_session(&self, id: String) -> LocalBoxFuture<'static, Result<Result<(), StoreError>, Missing>> {
        let store = self.store();
        Box::pin(async move {
            let Some(store) = store else { return Ok(Ok(())) };
            part(delete_session(store, id)).await
        })
    }
    fn http(&self) -> &crate::env::Http {
        &self.http
    }
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        Box::pin(crate::env::sleep(ms))
    }
    fn template_vars(&self) -> TemplateVars {
        let (date, time) = crate::env::local_date_time();
        TemplateVars { date, time, locale: crate::env::locale() }
    }
    fn show_live(&self, event: air_agent::Event) {
        crate::chat::show(self.state, event);
    }
    fn allow_always(&self, tool: &air_tools::ToolDef) {
        always_allow(self.state, tool);
    }
    fn feed(&self, cmd: Command) {
        dispatch(self.state, cmd);
    }
    fn run_turn(&self, env: TurnEnv<Self>, run: Run) -> LocalBoxFuture<'static, Result<Result<(), StoreError>, Missing>> {
        Box::pin(part(turn(env, run)))
    }
    fn rebuild_index(&self) -> LocalBoxFuture<'static, Result<Result<(), StoreError>, Missing>> {
        let store = self.store();
        Box::pin(async move {
            let Some(store) = store else { return Ok(Ok(())) };
            part(rebuild(store)).await
        })
    }
}

/// Fetches a lazily loaded part (`fetching`) and runs the work it gives.
async fn part<T>(fetching: impl std::future::Future<Output = Result<LocalBoxFuture<'static, T>, crate::lazy::Missing>>) -> Result<T, Missing> {
    match fetching.await {
        Ok(work) => Ok(work.await),
        Err(crate::lazy::Missing) => Err(Missing),
    }
}

/// The turn, with the agent loop, the tools and the MCP clients: fetched
/// with the first message, not with the first screen. It runs with the
/// settings of the moment (the chat's assistant over the user's) and the
/// tools the chat uses.
#[crate::lazy::split(turn, wasm_split_path = ::leptos::wasm_split, fallible)]
fn turn(env: TurnEnv<Browser>, run: Run) -> Result<LocalBoxFuture<'static, Result<(), StoreError>>, crate::lazy::Missing> {
    Ok(Box::pin(async move {
        let state = env.platform().state;
        let (tools, offer) = crate::dynamic::turn_tools(state, |state, servers| {
            let mut registry = crate::mcp::registry(state, &[]);
            let names = crate::mcp::register(state, &mut registry, servers);
            (registry, names)
        })
        .await;
        let setup = Setup { settings: state.turn_settings(), tools, offer, lang: state.chat_lang() };
        air_workspace::turn::run(&env, setup, run).await
    }))
}

/// Fetches the turn's part ahead of the first message (its text is being
/// typed); a part already here costs nothing.
pub fn warm_turn() {
    spawn_local(async {
        let _ = __wasm_split_preload_turn().await;
    });
}

/// Reading an MCP resource to attach it: with the MCP clients, fetched
/// with the first one.
#[crate::lazy::split(resource_read, wasm_split_path = ::leptos::wasm_split, fallible)]
fn read_resource(state: AppState, server: String, uri: String) -> Result<LocalBoxFuture<'static, Result<String, String>>, crate::lazy::Missing> {
    Ok(Box::pin(async move { crate::mcp::read_resource(state, &server, &uri).await }))
}

/// Subscribing to an attached resource's changes, or ending it.
#[crate::lazy::split(resource_watch, wasm_split_path = ::leptos::wasm_split, fallible)]
fn subscribe_resource(state: AppState, server: String, uri: String, on: bool) -> Result<LocalBoxFuture<'static, bool>, crate::lazy::Missing> {
    Ok(Box::pin(async move { crate::mcp::subscribe_resource(state, &server, &uri, on).await }))
}

/// Deleting a session with its messages, files and index entries:
/// fetched with the first delete.
#[crate::lazy::split(session_delete, wasm_split_path = ::leptos::wasm_split, fallible)]
fn delete_session(store: Rc<AnyStore>, id: String) -> Result<LocalBoxFuture<'static, air_store::Result<()>>, crate::lazy::Missing> {
    use air_store::Store;
    Ok(Box::pin(async move { store.delete_session(&id).await }))
}

/// Writing an export: fetched with the first one.
#[crate::lazy::split(data_export, wasm_split_path = ::leptos::wasm_split, fallible)]
fn export_file(store: Rc<AnyStore>, only: Option<String>, format: Format, settings: air_store::Settings, now: f64) -> Result<LocalBoxFuture<'static, Result<Option<String>, StoreError>>, crate::lazy::Missing> {
    Ok(Box::pin(async move { air_workspace::data::export_text(&*store, only.as_deref(), format, &settings, now).await }))
}

/// Reading an export into the store: fetched with the first import.
#[crate::lazy::split(data_import, wasm_split_path = ::leptos::wasm_split, fallible)]
fn import_file(store: Rc<AnyStore>, text: String) -> Result<LocalBoxFuture<'static, Result<(usize, usize), ImportFailure>>, crate::lazy::Missing> {
    Ok(Box::pin(async move { air_workspace::data::import_text(&*store, &text, &mut crate::env::new_id).await }))
}

/// Search results shown at most.
const SEARCH_LIMIT: usize = 50;

/// Searching, with the index's ranking and snippets: fetched with the
/// first search.
#[crate::lazy::split(search, wasm_split_path = ::leptos::wasm_split, fallible)]
fn search(store: Rc<AnyStore>, query: String) -> Result<LocalBoxFuture<'static, air_store::Result<SearchResults>>, crate::lazy::Missing> {
    Ok(Box::pin(async move { air_store::search::run(&*store, &query, SEARCH_LIMIT).await }))
}

/// Building the search index from every message (a store from before it,
/// or one that cannot be read).
#[crate::lazy::split(index_rebuild, wasm_split_path = ::leptos::wasm_split, fallible)]
fn rebuild(store: Rc<AnyStore>) -> Result<LocalBoxFuture<'static, air_store::Result<()>>, crate::lazy::Missing> {
    use air_store::Store;
    Ok(Box::pin(async move { store.rebuild_index().await }))
}

thread_local! {
    static CORE: RefCell<Option<Workspace<Browser>>> = const { RefCell::new(None) };
    /// Commands that came while one was being handled.
    static QUEUE: RefCell<VecDeque<Command>> = const { RefCell::new(VecDeque::new()) };
    static HANDLING: Cell<bool> = const { Cell::new(false) };
    /// The deadline the one timer is armed for.
    static ARMED: Cell<Option<f64>> = const { Cell::new(None) };
    /// The newest session is opening at start-up.
    static STARTING: Cell<bool> = const { Cell::new(false) };
    /// Fetches the conversation view (the views give it at start).
    static WARM_CHAT_VIEW: Cell<Option<fn()>> = const { Cell::new(None) };

}

/// Starts the core: the store opens and the list's first page is read.
/// `warm_chat_view` fetches the conversation view (a session is about to
/// open).
pub fn start(state: AppState, warm_chat_view: fn()) {
    state.set_dispatcher(dispatch);
    WARM_CHAT_VIEW.with(|w| w.set(Some(warm_chat_view)));
    let browser = Browser { state, kv: LocalStorageKv, store: Rc::default(), http: crate::env::Http::default() };
    CORE.with(|c| *c.borrow_mut() = Some(Workspace::new(Rc::new(browser))));
    dispatch(state, Command::Start);
}

/// Hands the core a command (queued if one is being handled), then
/// applies what it says.
pub fn dispatch(state: AppState, cmd: Command) {
    QUEUE.with(|q| q.borrow_mut().push_back(cmd));
    if HANDLING.with(|h| h.replace(true)) {
        return;
    }
    while let Some(cmd) = QUEUE.with(|q| q.borrow_mut().pop_front()) {
        CORE.with(|c| {
            if let Some(core) = c.borrow_mut().as_mut() {
                core.handle(cmd);
            }
        });
        pump(state);
    }
    HANDLING.with(|h| h.set(false));
}

/// Applies the updates, starts the tasks and arms the timer.
fn pump(state: AppState) {
    loop {
        let (update, task) = CORE.with(|c| c.borrow_mut().as_mut().map_or((None, None), |core| (core.poll_update(), core.poll_task())));
        if update.is_none() && task.is_none() {
            break;
        }
        if let Some(u) = update {
            apply(state, u);
        }
        if let Some(task) = task {
            spawn_local(async move {
                if let Some(cmd) = task.0.await {
                    dispatch(state, cmd);
                }
            });
        }
    }
    arm(state);
}

fn arm(state: AppState) {
    let Some(at) = CORE.with(|c| c.borrow().as_ref().and_then(Workspace::poll_timeout)) else { return };
    if ARMED.with(|a| a.get()).is_some_and(|armed| armed <= at) {
        return;
    }
    ARMED.with(|a| a.set(Some(at)));
    let wait = (at - crate::env::now_ms()).max(0.0) as u64;
    crate::env::after(wait, move || {
        ARMED.with(|a| a.set(None));
        CORE.with(|c| {
            if let Some(core) = c.borrow_mut().as_mut() {
                core.handle_timeout(crate::env::now_ms());
            }
        });
        dispatch_nothing(state);
    });
}

/// Applies what a timer changed.
fn dispatch_nothing(state: AppState) {
    if !HANDLING.with(|h| h.replace(true)) {
        pump(state);
        HANDLING.with(|h| h.set(false));
    }
}

/// The store the core opened.
fn store() -> Option<Rc<AnyStore>> {
    CORE.with(|c| c.borrow().as_ref().and_then(|core| core.platform().store()))
}

fn apply(state: AppState, u: Up) {
    match u {
        Up::Notice(n) => notice(state, n),
        Up::StoreReady => store_ready(state),
        Up::WarmChatView => {
            if let Some(warm) = WARM_CHAT_VIEW.with(Cell::get) {
                warm();
            }
        }
        Up::Sessions { list, has_more } => {
            state.sessions.has_more.set(has_more);
            state.sessions.list.set(list);
        }
        Up::Started { first } => match first {
            // The newest session opens; the page is usable once it shows.
            Some(id) => {
                STARTING.with(|s| s.set(true));
                dispatch(state, Command::Open(id));
            }
            None => ready(state),
        },
        Up::Removed(id) => {
            // Do not keep writing into a session that no longer exists.
            if state.chat.streaming.with_untracked(|s| s.as_ref().is_some_and(|s| s.session_id == id)) {
                state.stop();
            }
            if state.sessions.active.get_untracked().as_deref() == Some(id.as_str()) {
                state.new_session();
            }
        }
        Up::PendingDelete(p) => state.sessions.pending_delete.set(p),
        Up::Deleted(id) => deleted(state, id),
        Up::Renamed(id) | Up::Changed(id) => state.broadcast(SyncEvent::SessionChanged { session_id: id }),
        Up::SessionsChanged => state.broadcast(SyncEvent::SessionsChanged),
        Up::SearchStarted => air_web::perf_mark("air-search-start"),
        Up::SearchResults(results) => {
            let found = results.is_some();
            state.sessions.search_results.set(results);
            if found {
                request_animation_frame(|| air_web::perf_mark("air-search-end"));
            }
        }
        Up::Indexing(on) => state.sessions.indexing.set(on),
        Up::Storage(info) => state.shell.storage_line.set(storage_line(state, info)),
        Up::Import(outcome) => state.shell.import_result.set(Some(import_text(state, outcome))),
        Up::Busy(_) | Up::Sending | Up::Sent | Up::NotSent(_) | Up::Attachments(_) | Up::Attached(_) | Up::AttachFailed { .. } | Up::Approvals { .. } | Up::Questions(_) | Up::RemoteStreams(_) => apply_turn(state, u),
        other => apply_chat(state, other),
    }
}

/// The open conversation's updates.
fn apply_chat(state: AppState, u: Up) {
    match u {
        Up::Active(active) => state.sessions.active.set(active),
        Up::Messages { mut list, has_older } => {
            // The answer this tab is streaming is shown live, not as its checkpoint.
            if let Some(live) = state.chat.streaming.with_untracked(|s| s.as_ref().map(|s| s.message_id.clone())) {
                list.retain(|m| m.id != live);
            }
            state.chat.has_older.set(has_older);
            state.chat.messages.set(list);
        }
        Up::MessagesPrepended { mut list, has_older } => {
            state.chat.has_older.set(has_older);
            state.chat.messages.update(|m| {
                list.append(m);
                *m = list;
            });
        }
        Up::Opened(id) => {
            spawn_local(async move { crate::dynamic::show_loaded(state, &id).await });
            if STARTING.with(|s| s.replace(false)) {
                ready(state);
            }
        }
        Up::MessageSaved(record) => {
            // The finished answer replaces its live view in the same update,
            // so it never shows twice.
            if state.chat.streaming.with_untracked(|s| s.as_ref().is_some_and(|s| s.message_id == record.id)) {
                state.chat.streaming.set(None);
            }
            state.chat.messages.update(|list| upsert_message(list, record));
        }
        Up::MessagesRemoved(ids) => state.chat.messages.update(|m| m.retain(|x| !ids.contains(&x.id))),
        Up::Focus(focus) => state.chat.focus.set(focus),
        _ => {}
    }
}

/// The running turn's updates.
fn apply_turn(state: AppState, u: Up) {
    match u {
        Up::Busy(on) => {
            state.chat.busy.set(on);
            if !on {
                state.chat.progress.set(Default::default());
            }
        }
        Up::Sending => crate::chat::sending(state),
        Up::NotSent(text) => crate::chat::not_sent(state, text),
        Up::Sent => crate::chat::sent(state),
        Up::Attachments(list) => state.chat.attachments.set(list),
        Up::Attached(label) => state.chat.attach_outcome.set(Some((label, None))),
        Up::AttachFailed { label, error } => state.chat.attach_outcome.set(Some((label, Some(error)))),
        Up::Approvals { awaiting, changes } => {
            state.chat.awaiting.set(awaiting);
            state.chat.changes.set(changes);
        }
        Up::Questions(questions) => state.chat.questions.set(questions),
        Up::RemoteStreams(list) => state.chat.remote_streams.set(list),
        _ => {}
    }
}

/// The user allowed a tool always: its policy is saved, and the tool as
/// it is now is what the user accepts.
fn always_allow(state: AppState, tool: &air_tools::ToolDef) {
    let mut settings = state.prefs.settings.get_untracked();
    settings.tool_policies.set(tool, Some(air_tools::policy::Policy::Allow));
    state.save_settings(settings);
    if let (Some(m), air_tools::ToolSource::Mcp { server }) = (&tool.mcp, &tool.source)
        && m.accepted.is_some()
    {
        crate::mcp::accept_tool(state, server, &m.tool, None);
    }
}

fn import_text(state: AppState, outcome: ImportOutcome) -> String {
    let t = state.t();
    match outcome {
        ImportOutcome::Done { sessions, messages } => t.imported.replace("{s}", &sessions.to_string()).replace("{m}", &messages.to_string()),
        ImportOutcome::Failed(e) => t.import_failed.replace("{e}", &e),
        ImportOutcome::StorageFull => t.err_storage_full.to_owned(),
    }
}

fn notice(state: AppState, n: Notice) {
    let t = state.t();
    match n {
        Notice::StoreFellBack(e) => state.shell.notice.set(Some(t.err_open_store.replace("{e}", &e))),
        Notice::PartMissing => crate::lazy::report(state, crate::lazy::Missing),
        Notice::DownloadFailed(e) => state.shell.notice.set(Some(t.import_failed.replace("{e}", &e))),
        Notice::Store { op, error } => {
            let template = match op {
                StoreOp::ReadSessions => t.err_read_sessions,
                StoreOp::ReadMessages => t.err_read_messages,
                StoreOp::SaveMessage => t.err_save_message,
                StoreOp::SaveAnswer => t.err_save_answer,
                StoreOp::Replace => t.err_replace,
                StoreOp::Change => t.err_change,
                StoreOp::Export => t.import_failed,
                StoreOp::Delete => t.err_delete,
                StoreOp::Rename => t.err_rename,
            };
            state.report(template, &error);
        }
    }
}

/// The store is open: the app reads it, and hears the other tabs.
fn store_ready(state: AppState) {
    state.set_store(store());
    let channel = air_web::channel::Channel::open(SYNC_CHANNEL, move |text| {
        if let Some(event) = SyncEvent::parse(&text) {
            dispatch(state, Command::OtherTab(event));
        }
    });
    state.set_channel(channel.map(Rc::new));
}

/// "1.2 MB of 10 GB used. Kept by the browser."
fn storage_line(state: AppState, info: StorageInfo) -> String {
    let t = state.t();
    let mut line = match info.usage {
        Some((used, quota)) => t.storage_usage.replace("{used}", &crate::data::human(used)).replace("{quota}", &crate::data::human(quota)),
        None => String::new(),
    };
    line.push(' ');
    line.push_str(if info.persistent { t.storage_persistent } else { t.storage_not_persistent });
    line.trim().to_owned()
}

/// The first screen is there: the page is usable.
fn ready(state: AppState) {
    state.shell.loading.set(false);
    // After the first render of the opened state; with a conversation
    // open, once its view has drawn it (`ChatView`).
    if state.sessions.active.get_untracked().is_none() {
        request_animation_frame(crate::state::mark_ready);
    }
}

/// Puts a record in its place (by `seq`), replacing an older copy.
fn upsert_message(list: &mut Vec<air_store::MessageRecord>, record: air_store::MessageRecord) {
    if let Some(x) = list.iter_mut().find(|x| x.id == record.id) {
        *x = record;
        return;
    }
    let pos = list.iter().rposition(|x| x.seq <= record.seq).map_or(0, |p| p + 1);
    list.insert(pos, record);
}

/// A session is deleted for good: what was kept about it goes too.
fn deleted(state: AppState, id: String) {
    state.update_mcp_chat(|c| c.forget(&id));
    state.update_assistants(|a| a.forget(&id));
    if let Some(store) = store() {
        let id = id.clone();
        // Its loaded MCP tools go with it.
        spawn_local(async move {
            let _ = air_dynamic::docs::loaded(&id).delete(&*store).await;
        });
    }
    state.broadcast(SyncEvent::SessionDeleted { session_id: id });
}
