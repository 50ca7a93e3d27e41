//! MCP dynamic loading in the page (`air-dynamic`): the catalog (an
//! IndexedDB document, `mcp-catalog`), each conversation's loaded tools
//! (`mcp-loaded/{session id}`), and a turn's tools and offer.

use std::rc::Rc;

use air_dynamic::{Catalog, Loaded, Session};
use air_tools::Registry;
use air_tools::offer::Offer;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::env;
use crate::state::AppState;
use futures_util::future::LocalBoxFuture;

use air_dynamic::docs::{self, CATALOG, METRICS};

/// Dynamic loading is on (the global switch; assistants may turn it off
/// for themselves).
pub fn on(state: AppState) -> bool {
    let assistant = state.assistant().map(|a| a.dynamic_loading);
    air_dynamic::enabled(state.prefs.settings.with_untracked(|s| s.dynamic_mcp_loading), assistant)
}

/// The catalog as stored, brought up to date with the saved servers (and
/// stored again if that changed it). A document that cannot be read is
/// rebuilt.
async fn catalog(state: AppState) -> Catalog {
    let Some(store) = state.store() else { return Catalog::default() };
    let stored = CATALOG.read(&*store).await;
    let servers = state.prefs.mcp_servers.get_untracked();
    let fresh = stored.refresh(&servers, env::now_ms());
    if fresh != stored
        && let Err(e) = CATALOG.write(&*store, &fresh).await
    {
        state.report(state.t().err_settings, &e);
    }
    fresh
}

/// Saves the drawer's settings: dynamic loading may have been switched
/// on, or a summarizer chosen, and the catalog follows.
pub fn save_settings(state: AppState, settings: air_store::Settings) {
    state.save_settings(settings);
    refresh_catalog(state);
}

/// Brings the stored catalog up to date (after a server is added,
/// re-synced, switched or removed), then has its new summaries written.
pub fn refresh_catalog(state: AppState) {
    // Without servers there is nothing to catalogue (a turn brings the
    // stored catalog up to date before it uses it).
    if state.prefs.mcp_servers.with_untracked(Vec::is_empty) {
        return;
    }
    spawn_local(async move {
        if let Err(missing) = refresh_catalog_now(state).await {
            crate::lazy::report(state, missing);
        }
    });
}

#[crate::lazy::split(catalog, wasm_split_path = ::leptos::wasm_split, fallible)]
fn refresh_catalog_now(state: AppState) -> Result<(), crate::lazy::Missing> {
    spawn_local(async move {
        let catalog = catalog(state).await;
        // What the open conversation loaded is checked again at once, so
        // the panel says what changed.
        if let Some(session) = state.sessions.active.get_untracked() {
            let mut list = loaded(state, &session).await;
            if list.gate(&catalog, &state.prefs.mcp_servers.get_untracked(), env::now_ms()) {
                save_loaded(state, list);
            } else if state.sessions.active.get_untracked().as_deref() == Some(session.as_str()) {
                state.chat.loaded_tools.set(list);
            }
        }
        summarize(state);
    });
    Ok(())
}

/// How long the summarizer may take per server.
const SUMMARIZER_TIMEOUT_MS: u64 = 60_000;

thread_local! {
    static SUMMARIZING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// (server, epoch, model) the summarizer failed on: not asked again
    /// this page life.
    static FAILED: std::cell::RefCell<Vec<(String, u64, String)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// In the background, never blocking anything: the summarizer model (if
/// one is chosen and dynamic loading is on) writes the summaries of the
/// servers that have none for their current tools. A failure or a timeout
/// leaves the descriptions' first sentences in place.
pub fn summarize(state: AppState) {
    let (on_, model) = state.prefs.settings.with_untracked(|s| (s.dynamic_mcp_loading, s.mcp_summarizer_model.trim().to_owned()));
    if !on_ || model.is_empty() || SUMMARIZING.with(|s| s.replace(true)) {
        return;
    }
    spawn_local(async move {
        let settings = state.prefs.settings.get_untracked();
        let servers = state.prefs.mcp_servers.get_untracked();
        for (name, epoch) in air_dynamic::unsummarized(&catalog(state).await) {
            let key = (name.clone(), epoch, model.clone());
            if FAILED.with(|f| f.borrow().contains(&key)) {
                continue;
            }
            let Some(server) = servers.iter().find(|s| s.name == name) else { continue };
            let ask = |input: String| {
                let (settings, model) = (&settings, &model);
                async move {
                    let ask = std::pin::pin!(env::complete(settings, model, air_dynamic::SUMMARIZER_PROMPT, &input));
                    match futures_util::future::select(ask, std::pin::pin!(env::sleep(SUMMARIZER_TIMEOUT_MS))).await {
                        futures_util::future::Either::Left((Ok(text), _)) => Some(text),
                        _ => None,
                    }
                }
            };
            let Some((epoch, summary, tools)) = air_dynamic::summarize_one(&catalog(state).await, server, ask).await else {
                FAILED.with(|f| f.borrow_mut().push(key));
                continue;
            };
            // Written into the catalog as it is now, for the epoch asked about.
            let mut current = catalog(state).await;
            if current.summarized(&name, epoch, &summary, &tools)
                && let Some(store) = state.store()
            {
                let _ = CATALOG.write(&*store, &current).await;
            }
        }
        SUMMARIZING.with(|s| s.set(false));
    });
}

async fn loaded(state: AppState, session: &str) -> Loaded {
    let Some(store) = state.store() else { return Loaded::default() };
    docs::loaded(session).read(&*store).await
}

/// Shows the loaded tools of the session just opened (none while dynamic
/// loading is off: its code is fetched only once it is on).
pub async fn show_loaded(state: AppState, session: &str) {
    if on(state) {
        match show_loaded_now(state, session.to_owned()).await {
            Ok(show) => show.await,
            Err(missing) => crate::lazy::report(state, missing),
        }
    } else if state.sessions.active.get_untracked().as_deref() == Some(session) {
        state.chat.loaded_tools.set(Loaded::default());
    }
}

#[crate::lazy::split(loaded_tools, wasm_split_path = ::leptos::wasm_split, fallible)]
fn show_loaded_now(state: AppState, session: String) -> Result<LocalBoxFuture<'static, ()>, crate::lazy::Missing> {
    Ok(Box::pin(async move {
        let session = session.as_str();
        let mut list = loaded(state, session).await;
        let catalog = catalog(state).await;
        list.gate(&catalog, &state.prefs.mcp_servers.get_untracked(), env::now_ms());
        if state.sessions.active.get_untracked().as_deref() == Some(session) {
            state.chat.loaded_tools.set(list);
        }
    }))
}

/// The built-ins and the tools of these servers, with their registry
/// names (server, tool, name).
pub type Tools = fn(AppState, &[air_store::mcp::McpServer]) -> (Registry, Vec<(String, String, String)>);

/// The tools of a turn and, when dynamic loading is on, its offer: the
/// built-ins, every enabled server's tools (offered only once loaded) and
/// the two loaders. Off, the chat's servers' tools as always.
/// `registry` gives the built-ins and the tools of the servers it is given
/// (with their registry names: server, tool, name).
pub async fn turn_tools(state: AppState, registry: Tools) -> (Registry, Option<Rc<dyn Offer>>) {
    if !on(state) {
        return (registry(state, &state.chat_servers()).0, None);
    }
    let (mut registry, names) = registry(state, &state.enabled_servers());
    let catalog = catalog(state).await;
    summarize(state);
    let session = state.sessions.active.get_untracked();
    let current = match &session {
        Some(id) => loaded(state, id).await,
        None => Loaded::default(),
    };
    let auto = state.prefs.settings.with_untracked(|s| s.mcp_auto_load_once);
    let all = state.prefs.mcp_servers.get_untracked();
    // What the overall metrics already hold of this conversation.
    let counted = std::cell::Cell::new(current.metrics);
    let offer = air_dynamic::prepare(true, None, &mut registry, || {
        Session::new(
            catalog,
            all,
            current,
            names,
            auto,
            Box::new(env::now_ms),
            // Saved for the conversation it belongs to (a new one exists by
            // the time the model loads anything).
            Box::new(move |l: &Loaded| {
                add_overall(state, l.metrics.since(&counted.replace(l.metrics)));
                save_loaded(state, l.clone());
            }),
        )
    });
    (registry, offer)
}


thread_local! {
    /// Changes to the overall metrics not yet written, and whether a write
    /// is under way (one at a time, so none is lost).
    static PENDING: std::cell::RefCell<air_dynamic::Metrics> = std::cell::RefCell::new(air_dynamic::Metrics::default());
    static FLUSHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The metrics over every conversation (shown in Settings).
pub fn load_overall(state: AppState) {
    let Some(store) = state.store() else { return };
    spawn_local(async move {
        let m = METRICS.read(&*store).await;
        state.chat.metrics_overall.set(m);
    });
}

/// Adds what a conversation's metrics gained to the overall ones.
fn add_overall(state: AppState, delta: air_dynamic::Metrics) {
    if delta == air_dynamic::Metrics::default() {
        return;
    }
    PENDING.with(|p| p.borrow_mut().add(&delta));
    if FLUSHING.with(|f| f.replace(true)) {
        return;
    }
    let Some(store) = state.store() else {
        FLUSHING.with(|f| f.set(false));
        return;
    };
    spawn_local(async move {
        loop {
            let delta = PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()));
            if delta == air_dynamic::Metrics::default() {
                break;
            }
            let mut m = METRICS.read(&*store).await;
            m.add(&delta);
            let _ = METRICS.write(&*store, &m).await;
            state.chat.metrics_overall.set(m);
        }
        FLUSHING.with(|f| f.set(false));
    });
}

fn save_loaded(state: AppState, list: Loaded) {
    let Some(session) = state.sessions.active.get_untracked() else { return };
    state.chat.loaded_tools.set(list.clone());
    let Some(store) = state.store() else { return };
    spawn_local(async move {
        if let Err(e) = docs::loaded(&session).write(&*store, &list).await {
            state.report(state.t().err_save_message, &e);
        }
    });
}
