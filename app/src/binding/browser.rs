//! The page as the core's platform: its clock, ids, storage, HTTP and
//! the parts fetched on first use.

use std::cell::RefCell;
use std::rc::Rc;

use air_agent::conversation::TemplateVars;
use air_store::StoreError;
use air_store::search::SearchResults;
use air_web::{IdbStore, LocalStorageKv};
use air_workspace::data::{Format, ImportFailure, Imported, StorageInfo};
use air_workspace::turn::{Run, TurnEnv};
use air_workspace::{Command, Edges, Missing, Platform};
use futures_util::future::LocalBoxFuture;

use super::parts::*;
use super::state::AppState;
use super::store::AnyStore;

/// The page as the core's platform.
pub struct Browser {
    pub(super) state: AppState,
    pub(super) kv: LocalStorageKv,
    pub(super) store: Rc<RefCell<Option<Rc<AnyStore>>>>,
    pub(super) http: super::env::Http,
}

impl Edges for Browser {
    type Store = AnyStore;
    type Kv = LocalStorageKv;
    type Http = super::env::Http;

    fn now_ms(&self) -> f64 {
        super::env::now_ms()
    }
    fn new_id(&self) -> String {
        super::env::new_id()
    }
    fn local_date(&self) -> String {
        super::env::local_date_time().0
    }
    fn preview(&self, bytes: &[u8], mime: &str) -> Option<String> {
        air_web::bytes_blob(bytes, mime).ok().and_then(|b| air_web::image_url(&b))
    }
    fn forget_preview(&self, url: &str) {
        air_web::revoke_url(url);
    }
    fn page_origin(&self) -> Option<String> {
        air_web::page_origin()
    }
    fn list_tools(&self, server: air_store::mcp::McpServer) -> LocalBoxFuture<'static, Result<Result<air_workspace::servers::Listed, air_servers::add::Failure>, Missing>> {
        Box::pin(part(list_tools(self.state, server)))
    }
    fn diagnose(&self, target: air_doctor::Target, abort: air_http::Abort) -> LocalBoxFuture<'static, Result<air_doctor::Finding, Missing>> {
        Box::pin(part(diagnose(target, abort)))
    }
    fn connect_servers(&self, servers: Vec<air_store::mcp::McpServer>) {
        super::mcp::connect(self.state, servers);
    }
    fn forget_sign_in(&self, url: &str) -> LocalBoxFuture<'static, Result<(), Missing>> {
        let url = url.to_owned();
        Box::pin(async move { forget_sign_in(url).await.map_err(|_| Missing) })
    }
    fn sign_in(&self, url: String, client_id: Option<String>, asked: air_servers::credentials::Asked) -> LocalBoxFuture<'static, Result<Result<(), air_servers::credentials::SignInError>, Missing>> {
        Box::pin(part(super::oauth::sign_in(url, client_id, asked)))
    }
    fn finish_sign_in(&self, pending: String, callback: String) -> LocalBoxFuture<'static, Result<Option<(String, Result<(), air_servers::credentials::SignInError>)>, Missing>> {
        Box::pin(part(super::oauth::finish_redirect(pending, callback)))
    }
    fn browser_models(&self, job: air_workspace::browser_models::Job) -> LocalBoxFuture<'static, Result<air_workspace::browser_models::Reply, Missing>> {
        Box::pin(part(super::inpage::work(self.state, job)))
    }
    fn run_picker(&self, job: air_workspace::pickers::Job) -> LocalBoxFuture<'static, Result<air_workspace::pickers::Found, Missing>> {
        Box::pin(part(picker(self.state, job)))
    }
    fn run_sync(&self, job: air_workspace::sync::Job) -> LocalBoxFuture<'static, Result<air_workspace::sync::Outcome, Missing>> {
        Box::pin(part(super::sync::sync_work(self.state, self.store(), job)))
    }
    fn download(&self, name: &str, mime: &str, text: &str) -> Result<(), String> {
        air_web::download(name, mime, text)
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
            let (store, fell_back) = match open_idb().await {
                Ok(db) => (Some(AnyStore::Idb(db)), None),
                // In memory, its part fetched now (missing: nothing is kept,
                // and the page says why).
                Err(e) => (super::parts::memory_store().await.ok().map(AnyStore::Memory), Some(e.to_string())),
            };
            let store = store.map(Rc::new);
            // What the last visit left to merge, once the page has settled.
            if let Some(store) = &store {
                compact_soon(store.clone(), 5_000);
            }
            *slot.borrow_mut() = store;
            fell_back
        })
    }
    fn store(&self) -> Option<Rc<AnyStore>> {
        self.store.borrow().clone()
    }
    fn read_resource(&self, server: String, uri: String) -> LocalBoxFuture<'static, Result<Result<String, String>, Missing>> {
        Box::pin(part(read_resource(self.state, server, uri)))
    }
    fn subscribe_resource(&self, server: String, uri: String, on: bool) -> LocalBoxFuture<'static, Result<bool, Missing>> {
        Box::pin(part(subscribe_resource(self.state, server, uri, on)))
    }
    fn http(&self) -> &super::env::Http {
        &self.http
    }
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        Box::pin(super::env::sleep(ms))
    }
    fn template_vars(&self) -> TemplateVars {
        let (date, time) = super::env::local_date_time();
        TemplateVars { date, time, locale: super::env::locale() }
    }
    fn show_live(&self, event: air_agent::Event) {
        super::live::show(self.state, event);
    }
    fn feed(&self, cmd: Command) {
        super::dispatch(self.state, cmd);
    }
    fn clock(&self) -> Rc<dyn air_tools::builtin::Clock> {
        Rc::new(air_web::zoned::BrowserClock)
    }
    fn run_code(&self, start: serde_json::Value, files: Vec<String>, inbox: air_workspace::turn_env::inbox::Inbox) {
        let store = air_workspace::Edges::store(self);
        leptos::task::spawn_local(async move {
            // Blobs: the bytes never pass through the page's memory.
            let mut blobs = Vec::new();
            for id in &files {
                blobs.push(match &store {
                    Some(s) => s.file_blob(id).await,
                    None => None,
                });
            }
            // The runner's code is a part of its own: without it, the run
            // hears nothing more and ends as the frame gone.
            let closing = inbox.clone();
            if part(code_runner(start, blobs, inbox)).await.is_err() {
                closing.close();
            }
        });
    }
    fn stop_code(&self, run: u64) {
        leptos::task::spawn_local(async move {
            let _ = part(code_stop(run)).await;
        });
    }
    fn tell_code(&self, msg: serde_json::Value, bytes: Vec<Vec<u8>>) {
        leptos::task::spawn_local(async move {
            let _ = part(code_tell(msg, bytes)).await;
        });
    }
    fn site_file(&self, path: &str) -> LocalBoxFuture<'static, Result<Vec<u8>, String>> {
        let url = air_web::page_url(path);
        Box::pin(async move { super::env::get_bytes(&url.ok_or("the page has no address")?).await })
    }
    fn mcp_tools(&self, wanted: Vec<air_workspace::toolbox::mcp::Wanted>) -> LocalBoxFuture<'static, Result<Vec<Rc<dyn air_tools::Tool>>, Missing>> {
        let state = self.state;
        Box::pin(async move { super::mcp::mcp_tools(state, wanted).await.map_err(|_| Missing) })
    }
}

/// Each call runs in its part, fetched on first use (the core's default
/// bodies would put the code in the first load).
impl Platform for Browser {
    fn write_prefs(self: &Rc<Self>, prefs: air_workspace::prefs::Prefs, touched: air_workspace::prefs::Touched) -> LocalBoxFuture<'static, Result<Result<(), StoreError>, Missing>> {
        Box::pin(part(write_prefs(prefs, touched)))
    }
    fn decide_servers(&self, job: air_workspace::servers::Job) -> LocalBoxFuture<'static, Result<air_workspace::servers::Job, (air_workspace::servers::State, Missing)>> {
        Box::pin(decide_servers(job))
    }
    fn list_models(self: &Rc<Self>, settings: air_store::Settings) -> LocalBoxFuture<'static, Result<Result<Vec<String>, air_chat::ChatError>, Missing>> {
        Box::pin(part(provider_models(settings)))
    }
    fn run_http_tools(self: &Rc<Self>, job: air_workspace::http_tools::Job) -> LocalBoxFuture<'static, Result<air_workspace::http_tools::Found, Missing>> {
        Box::pin(part(http_tools(job)))
    }
    fn run_dynamic(self: &Rc<Self>, job: air_workspace::dynamic::Job) -> LocalBoxFuture<'static, Result<Option<air_workspace::dynamic::Action>, Missing>> {
        Box::pin(part(dynamic(self.store(), job)))
    }
    fn read_messages(self: &Rc<Self>, what: air_workspace::messages::Read) -> LocalBoxFuture<'static, Result<Result<air_workspace::messages::Got, StoreError>, Missing>> {
        let store = self.store();
        Box::pin(async move {
            let Some(store) = store else { return Ok(Err(StoreError::Unavailable("the store is not open".into()))) };
            part(read_messages(store, what)).await
        })
    }
    fn log_work(self: &Rc<Self>, job: air_workspace::log::Job) -> LocalBoxFuture<'static, Result<air_workspace::log::Kept, Missing>> {
        Box::pin(part(event_log(self.store(), job)))
    }
    fn export(
        self: &Rc<Self>,
        only: Option<String>,
        format: Format,
        settings: air_store::Settings,
        http_tools: air_store::http_tools::Saved,
    ) -> LocalBoxFuture<'static, Result<Result<Option<String>, StoreError>, Missing>> {
        let store = self.store();
        let now = super::env::now_ms();
        Box::pin(async move {
            let Some(store) = store else { return Ok(Ok(None)) };
            part(export_file(store, only, format, (settings, http_tools), now)).await
        })
    }
    fn import(self: &Rc<Self>, texts: Vec<String>) -> LocalBoxFuture<'static, Result<Result<Imported, ImportFailure>, Missing>> {
        let store = self.store();
        let state = self.state;
        Box::pin(async move {
            let Some(store) = store else { return Ok(Ok(Imported::default())) };
            let done = part(import_file(state, store.clone(), texts)).await;
            compact_soon(store, 0);
            done
        })
    }
    fn search(self: &Rc<Self>, query: String, limit: usize) -> LocalBoxFuture<'static, Result<Result<SearchResults, StoreError>, Missing>> {
        let store = self.store();
        Box::pin(async move {
            let Some(store) = store else { return Ok(Ok(SearchResults::default())) };
            part(search(store, query, limit)).await
        })
    }
    fn delete_session(self: &Rc<Self>, id: String) -> LocalBoxFuture<'static, Result<Result<(), StoreError>, Missing>> {
        let store = self.store();
        Box::pin(async move {
            let Some(store) = store else { return Ok(Ok(())) };
            part(delete_session(store, id)).await
        })
    }
    fn run_turn(self: &Rc<Self>, env: TurnEnv<Self>, run: Run) -> LocalBoxFuture<'static, Result<Result<(), StoreError>, Missing>> {
        Box::pin(part(turn(env, run)))
    }
    fn later(self: &Rc<Self>) -> LocalBoxFuture<'static, Result<air_workspace::Route<Self>, Missing>> {
        Box::pin(async { later().await.map_err(|_| Missing) })
    }
    fn http_tools(self: &Rc<Self>, saved: air_store::http_tools::Saved) -> LocalBoxFuture<'static, Result<Vec<Rc<dyn air_tools::Tool>>, Missing>> {
        Box::pin(async move { http_tools_of(saved).await.map_err(|_| Missing) })
    }
    fn dynamic_session(self: &Rc<Self>, store: Rc<AnyStore>, ask: air_workspace::toolbox::loaders::Ask) -> LocalBoxFuture<'static, Result<Rc<air_dynamic::Session>, Missing>> {
        Box::pin(part(dynamic_session(self.clone(), store, ask)))
    }
    fn rebuild_index(self: &Rc<Self>) -> LocalBoxFuture<'static, Result<Result<(), StoreError>, Missing>> {
        let store = self.store();
        Box::pin(async move {
            let Some(store) = store else { return Ok(Ok(())) };
            let done = part(rebuild(store.clone())).await;
            compact_soon(store, 0);
            done
        })
    }
}

thread_local! {
    /// The search index is being merged (by this tab).
    static COMPACTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Merges the search index's segments after `delay_ms`, if it says it
/// has some to merge (its part is fetched only then).
fn compact_soon(store: Rc<AnyStore>, delay_ms: u64) {
    use air_store::Store;
    if COMPACTING.with(|c| c.replace(true)) {
        return;
    }
    leptos::task::spawn_local(async move {
        super::env::sleep(delay_ms).await;
        if matches!(store.index_stats().await, Ok(Some(stats)) if stats.merge_pending) {
            let _ = part(compact(store)).await;
        }
        COMPACTING.with(|c| c.set(false));
    });
}

/// The app's database, its records in the current format: a database
/// kept by an older version is migrated by a part fetched only then.
async fn open_idb() -> Result<IdbStore, StoreError> {
    let db = IdbStore::open_default_unmigrated().await?;
    if db.needs_migration().await? {
        let db = Rc::new(db);
        match part(migrate_store(db.clone())).await {
            Ok(done) => done?,
            Err(Missing) => return Err(StoreError::Unavailable("the part of the app that upgrades stored conversations could not be fetched".into())),
        }
        return Rc::try_unwrap(db).map_err(|_| StoreError::Other("the store is still held by its migration".into()));
    }
    Ok(db)
}

/// Fetches a lazily loaded part (`fetching`) and runs the work it gives.
pub(super) async fn part<T>(fetching: impl std::future::Future<Output = Result<LocalBoxFuture<'static, T>, super::lazy::NotFetched>>) -> Result<T, Missing> {
    match fetching.await {
        Ok(work) => Ok(work.await),
        Err(super::lazy::NotFetched) => Err(Missing),
    }
}
