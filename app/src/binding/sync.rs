//! Sync's part: a pass, or the wait after one (`air_workspace::sync::work`),
//! over the store, `fetch` and WebCrypto. Fetched when sync is on.

use std::cell::RefCell;
use std::rc::Rc;

use air_store::sync_meta::SyncSettings;
use air_web::crypto::{WebCrypto, WebKeys};
use air_workspace::Command;
use air_workspace::sync::work::{self as sync_work, Tools};
use air_workspace::sync::{Action, Failure, Job, Outcome};
use futures_util::future::LocalBoxFuture;

use super::state::AppState;
use super::store::AnyStore;

type Keys = Rc<RefCell<Option<(String, Rc<WebKeys>)>>>;

thread_local! {
    /// The keys of the database last opened (deriving them takes a
    /// moment: PBKDF2 at 600,000 iterations).
    static KEYS: Keys = Rc::default();
}

#[super::lazy::split(sync_work, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn sync_work(state: AppState, store: Option<Rc<AnyStore>>, job: Job) -> Result<LocalBoxFuture<'static, Outcome>, super::lazy::NotFetched> {
    Ok(Box::pin(async move {
        let Some(store) = store else {
            return Outcome::Passed(Err(Failure::Store("the store is not open".into())));
        };
        let keys = KEYS.with(Rc::clone);
        let sleep = |ms: u64| -> LocalBoxFuture<'static, ()> { Box::pin(super::env::sleep(ms)) };
        let progress = move |up: u64, down: u64, to_go: Option<u64>| super::dispatch(state, Command::Sync(Action::Progress(up, down, to_go)));
        let tools = Tools { crypto: &WebCrypto, keys: &keys, now: &super::env::now_ms, sleep: &sleep, progress: &progress, iterations: 0, origin: air_web::page_origin() };
        let http = super::env::Http::default();
        match job {
            // One tab of the browser syncs; the others hear what it wrote.
            Job::Pass { .. } if !air_web::lock::hold("air-agent-sync").await => Outcome::Elsewhere,
            Job::Pass { settings, abort } => Outcome::Passed(sync_work::pass(&*store, &air_web::LocalStorageKv, http, &device(&settings), &tools, &abort).await),
            Job::Wait { settings, since, abort } => Outcome::Woke(sync_work::wait(&*store, &air_web::LocalStorageKv, http, &device(&settings), since, &tools, &abort).await),
            Job::Dismiss { wire } => {
                sync_work::dismiss(&*store, &air_web::LocalStorageKv, &wire).await;
                Outcome::Dismissed
            }
        }
    }))
}

/// The settings kept, with this device's id (`sync_work::with_device`).
fn device(text: &str) -> SyncSettings {
    sync_work::with_device(&air_web::LocalStorageKv, text, super::env::new_id)
}
