//! The models the page runs itself (Settings → Provider → In this
//! browser): the core's jobs done with the engine (`air_web::inpage`), in
//! a part fetched when that section is first shown.

use std::cell::RefCell;

use air_workspace::Command;
use air_workspace::browser_models::{Action, Job, Reply, Stored};
use futures_util::future::LocalBoxFuture;

use super::state::AppState;

thread_local! {
    /// The file picked in Settings, until the core asks for it to be stored.
    static PICKED: RefCell<Option<leptos::web_sys::File>> = const { RefCell::new(None) };
}

/// A GGUF file picked from the disk: kept for the core's `StoreFile`.
pub fn pick_file(state: AppState, file: leptos::web_sys::File) {
    PICKED.with(|p| *p.borrow_mut() = Some(file));
    state.dispatch(Command::BrowserModels(Action::StoreFile));
}

/// Does `job`, in a part fetched when Settings first shows the section.
#[super::lazy::split(browser_models, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn work(state: AppState, job: Job) -> Result<LocalBoxFuture<'static, Reply>, super::lazy::NotFetched> {
    Ok(Box::pin(async move {
        match job {
            Job::List => {
                let stored = air_web::inpage::list().await.map(|l| l.into_iter().map(stored).collect());
                let offered = air_workspace::browser_models::offered(site().await);
                Reply::Listed { stored, offered, usage: air_web::storage_estimate().await }
            }
            Job::Download(offer, abort) => {
                // A model is large: asked to be kept when space runs short.
                let _ = air_web::request_persistent_storage().await;
                let Ok(web) = air_web::Abort::new() else {
                    return Reply::Downloaded { name: offer.name, result: Err("cannot be stopped".into()) };
                };
                let a = web.clone();
                abort.on_abort(move || a.abort());
                let name = offer.name.clone();
                let progress = move |got: f64, total: f64| {
                    let (got, total) = (got.max(0.0) as u64, total.max(0.0) as u64);
                    super::dispatch(state, Command::BrowserModels(Action::Progress { name: name.clone(), got, total }));
                };
                let result = air_web::inpage::download(&offer.name, &offer.url, offer.size, offer.sha256.as_deref(), progress, &web.signal()).await;
                Reply::Downloaded { name: offer.name, result }
            }
            Job::StoreFile => match PICKED.with(|p| p.borrow_mut().take()) {
                Some(file) => Reply::FileStored(air_web::inpage::store_file(&file).await),
                None => Reply::FileStored(Err("no file was picked".into())),
            },
            Job::Delete(name) => Reply::Deleted(air_web::inpage::remove(&name).await),
        }
    }))
}

fn stored(m: air_web::inpage::Stored) -> Stored {
    Stored { name: m.name, url: m.url, size: m.size.max(0.0) as u64, stored: m.stored.max(0.0) as u64, complete: m.complete }
}

/// The site's own list, `models/index.json` beside the app (none: no list,
/// or offline).
async fn site() -> Vec<air_workspace::browser_models::Offer> {
    let Some(url) = air_web::page_url("models/index.json") else { return Vec::new() };
    match super::env::get_text(&url).await {
        Some((200, text)) => air_workspace::browser_models::site_list(&text, &url).unwrap_or_default(),
        _ => Vec::new(),
    }
}
