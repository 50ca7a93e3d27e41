//! A turn's tools and offer with MCP dynamic loading (`air-dynamic`); the
//! rest of dynamic loading (the catalog, each conversation's loaded tools,
//! the summarizer, the metrics) is the core's (`air_workspace::dynamic`).

use std::rc::Rc;

use air_dynamic::{Loaded, Session};
use air_tools::Registry;
use air_tools::offer::Offer;
use air_workspace::Command;
use air_workspace::dynamic::Action;
use futures_util::future::LocalBoxFuture;
use leptos::prelude::*;

use super::env;
use super::state::AppState;

use air_dynamic::docs;

/// The built-ins and the tools of the turn's servers, with their registry
/// names (server, tool, name).
pub type Tools = (Registry, Vec<(String, String, String)>);

/// The tools of a turn and, when dynamic loading is on, its offer: the
/// built-ins, every enabled server's tools (offered only once loaded) and
/// the two loaders. Off, the chat's servers' tools as always (`inputs`
/// say which, as the core decided, and `tools` has them).
/// `session`: the conversation the turn runs in (none: a new chat).
pub async fn turn_tools(state: AppState, session: Option<String>, inputs: &air_workspace::prefs::Inputs, tools: Tools) -> (Registry, Option<Rc<dyn Offer>>) {
    if !inputs.dynamic {
        return (tools.0, None);
    }
    // The tools stay here while the part is fetched: without it, they are
    // offered as they are.
    let held = Rc::new(std::cell::RefCell::new(Some(tools)));
    let preload = inputs.preload.clone();
    match with_loaders(state, held.clone(), session, preload, inputs.settings.mcp_auto_load_once).await {
        Ok(prepared) => prepared.await,
        Err(missing) => {
            super::lazy::report(state, missing);
            (held.borrow_mut().take().map_or_else(super::mcp::builtins, |t| t.0), None)
        }
    }
}

/// The loaders and the offer: dynamic loading's code (off by default),
/// in its part, which a turn fetches only when it is on.
#[super::lazy::split(catalog, wasm_split_path = ::leptos::wasm_split, fallible)]
fn with_loaders(
    state: AppState,
    held: Rc<std::cell::RefCell<Option<Tools>>>,
    session: Option<String>,
    preload: Vec<(String, String)>,
    auto: bool,
) -> Result<LocalBoxFuture<'static, (Registry, Option<Rc<dyn Offer>>)>, super::lazy::Missing> {
    let (mut registry, names) = held.borrow_mut().take().unwrap_or_else(|| (super::mcp::builtins(), Vec::new()));
    Ok(Box::pin(async move {
        let all = state.prefs.mcp_servers.get_untracked();
        let Some(store) = state.store() else { return (registry, None) };
        let (catalog, kept) = air_workspace::dynamic::catalog(&*store, &all, env::now_ms()).await;
        if let Err(e) = kept {
            state.report(state.t().err_settings, &e);
        }
        state.dispatch(Command::Dynamic(Action::Summarize));
        let current = match &session {
            Some(id) => docs::loaded(id).read(&*store).await,
            None => Loaded::default(),
        };
        // What the overall metrics already hold of this conversation.
        let counted = std::cell::Cell::new(current.metrics);
        let offer = air_dynamic::prepare(true, None, &mut registry, || {
            let session = Session::new(
                catalog,
                all,
                current,
                names,
                auto,
                Box::new(env::now_ms),
                // Saved under the turn's conversation (a new chat's exists by
                // the time the model loads anything), what the metrics gained
                // added to the overall ones.
                Box::new(move |l: &Loaded| {
                    let gained = l.metrics.since(&counted.replace(l.metrics));
                    state.dispatch(Command::Dynamic(Action::Loaded { list: l.clone(), gained }));
                }),
            );
            session.preload(&preload);
            session
        });
        (registry, offer)
    }))
}


