//! The parts of the app fetched on first use that the platform's calls
//! run in: the turn, MCP resources, reading files to attach, deleting,
//! export and import, search.

use std::rc::Rc;

use air_store::StoreError;
use air_store::search::SearchResults;
use air_workspace::Missing;
use air_workspace::data::{Format, ImportFailure, Imported};
use air_workspace::files::{Prepared, Read};
use air_workspace::turn::{Run, TurnEnv};
use futures_util::future::LocalBoxFuture;
use leptos::prelude::Set;
use leptos::task::spawn_local;

use super::Browser;
use super::state::AppState;
use super::store::AnyStore;

/// The turn, with the agent loop: fetched with the first message, not
/// with the first screen. Its tools come from the core's assembly
/// (`air_workspace::toolbox`); the MCP clients, the HTTP tools and dynamic
/// loading come with their own parts, fetched only when a turn has some.
#[super::lazy::split(turn, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn turn(env: TurnEnv<Browser>, run: Run) -> Result<LocalBoxFuture<'static, Result<(), StoreError>>, super::lazy::NotFetched> {
    Ok(Box::pin(async move { air_workspace::turn::run(&env, run).await }))
}

/// A turn's dynamic loading session: dynamic loading's code (off by
/// default), in its part.
#[super::lazy::split(catalog, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn dynamic_session(p: Rc<Browser>, store: Rc<AnyStore>, ask: air_workspace::toolbox::loaders::Ask) -> Result<LocalBoxFuture<'static, Rc<air_dynamic::Session>>, super::lazy::NotFetched> {
    Ok(Box::pin(air_workspace::toolbox::loaders::session(p, store, ask)))
}

/// The features a first visit does not use (`air_workspace::later`):
/// fetched with the first command for one of them.
#[super::lazy::split(later, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn later() -> Result<air_workspace::Route<Browser>, super::lazy::NotFetched> {
    Ok(air_workspace::later::route::<Browser>)
}

/// Fetches the turn's part ahead of the first message (its text is being
/// typed); a part already here costs nothing.
/// The servers' engine comes too: a new chat's choices become its
/// session's through it.
pub fn warm_turn() {
    spawn_local(async {
        let _ = __wasm_split_preload_turn().await;
        let _ = __wasm_split_preload_servers_engine().await;
        let _ = __wasm_split_preload_write_prefs().await;
    });
}

/// Fetches the preferences' writer ahead of the first change (the
/// settings drawer is opening, a message is being typed): a change saved
/// is then written at once, not after a fetch that a closed tab or a
/// reload would cut short.
pub fn warm_prefs() {
    spawn_local(async {
        let _ = __wasm_split_preload_write_prefs().await;
    });
}

/// Reading an MCP resource to attach it: with the MCP clients, fetched
/// with the first one.
#[super::lazy::split(resource_read, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn read_resource(state: AppState, server: String, uri: String) -> Result<LocalBoxFuture<'static, Result<String, String>>, super::lazy::NotFetched> {
    Ok(Box::pin(async move { super::mcp::read_resource(state, &server, &uri).await }))
}

/// What a composer's picker asks of the servers: with the MCP clients.
#[super::lazy::split(picker, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn picker(state: AppState, job: air_workspace::pickers::Job) -> Result<LocalBoxFuture<'static, air_workspace::pickers::Found>, super::lazy::NotFetched> {
    Ok(Box::pin(super::mcp::picker(state, job)))
}

/// Subscribing to an attached resource's changes, or ending it.
#[super::lazy::split(resource_watch, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn subscribe_resource(state: AppState, server: String, uri: String, on: bool) -> Result<LocalBoxFuture<'static, bool>, super::lazy::NotFetched> {
    Ok(Box::pin(async move { super::mcp::subscribe_resource(state, &server, &uri, on).await }))
}

/// Deleting a session with its messages, files and index entries:
/// fetched with the first delete.
#[super::lazy::split(session_delete, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn delete_session(store: Rc<AnyStore>, id: String) -> Result<LocalBoxFuture<'static, air_store::Result<()>>, super::lazy::NotFetched> {
    use air_store::Store;
    Ok(Box::pin(async move { store.delete_session(&id).await }))
}

/// Writing an export: fetched with the first one.
#[super::lazy::split(data_export, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn export_file(
    store: Rc<AnyStore>,
    only: Option<String>,
    format: Format,
    kept: (air_store::Settings, air_store::http_tools::Saved),
    now: f64,
) -> Result<LocalBoxFuture<'static, Result<Option<String>, StoreError>>, super::lazy::NotFetched> {
    Ok(Box::pin(async move { air_workspace::data::export_text(&*store, only.as_deref(), format, (&kept.0, &kept.1), now).await }))
}

/// Reading an export into the store: fetched with the first import.
#[super::lazy::split(data_import, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn import_file(state: AppState, store: Rc<AnyStore>, texts: Vec<String>) -> Result<LocalBoxFuture<'static, Result<Imported, ImportFailure>>, super::lazy::NotFetched> {
    Ok(Box::pin(async move {
        // Said every 1 % (a large import is thousands of conversations).
        let mut said = usize::MAX;
        let mut progress = |done: usize, total: usize| {
            let step = done * 100 / total.max(1);
            if total > 20 && step != said {
                said = step;
                state.shell.import_result.set(Some(state.tl().importing.replace("{d}", &done.to_string()).replace("{n}", &total.to_string())));
            }
        };
        air_workspace::data::import_text(&*store, &texts, super::env::now_ms(), &mut super::env::new_id, &mut progress).await
    }))
}

/// Says what an import from another app brought (`import_file`'s part is
/// here already: it did the import).
pub(super) fn tell_imported(state: AppState, done: Imported) {
    spawn_local(async move {
        if let Ok(text) = import_summary(state, done).await {
            state.shell.import_result.set(Some(text));
        }
    });
}

#[super::lazy::split(data_import, wasm_split_path = ::leptos::wasm_split, fallible)]
fn import_summary(state: AppState, done: Imported) -> Result<String, super::lazy::NotFetched> {
    let t = state.tl();
    let mut text = match &done.from {
        None => state.t().imported.replace("{s}", &done.sessions.to_string()).replace("{m}", &done.messages.to_string()),
        Some((source, summary)) if done.sessions == 0 && summary.conversations > 0 => t.import_nothing_new.replace("{a}", source.name()).replace("{n}", &summary.conversations.to_string()),
        Some((source, summary)) => from_app(t, &done, *source, summary),
    };
    // What the files held that was not read, a few named.
    if let [first, rest @ ..] = done.left_out.as_slice() {
        let shown = rest.iter().take(2).fold(first.clone(), |all, l| format!("{all}; {l}"));
        let more = rest.len().saturating_sub(2);
        let named = if more > 0 { t.import_left_out_more.replace("{f}", &shown).replace("{n}", &more.to_string()) } else { shown };
        text.push(' ');
        text.push_str(&t.import_left_out.replace("{f}", &named));
    }
    Ok(text)
}

/// What an import left out and why, in the page's language.
fn skipped(t: &air_i18n::Later, why: &air_import::Skipped) -> String {
    use air_import::Skipped as S;
    match why {
        S::OtherApp { file, app } => t.skip_other_app.replace("{n}", &file.to_string()).replace("{a}", app.name()),
        S::NotAnExport(app) => t.skip_not_export.replace("{a}", app.name()),
        S::NoSessions(what) => t.skip_no_sessions.replace("{w}", what),
        S::NotAList(what) => t.skip_not_list.replace("{w}", what),
        S::NotRecords { what, count } => t.skip_not_records.replace("{w}", what).replace("{n}", &count.to_string()),
        S::NoId { title, field } => t.skip_no_id.replace("{t}", title).replace("{w}", field),
        S::NoMessages { title, field } => t.skip_no_messages.replace("{t}", title).replace("{w}", field),
        S::NotAnObject(n) => t.skip_not_object.replace("{n}", &n.to_string()),
    }
}

/// What came in from another app: how much, what was hidden, kept as
/// text or skipped (the first reason), and that keys were left out.
fn from_app(t: &air_i18n::Later, done: &Imported, source: air_import::Source, summary: &air_import::Summary) -> String {
    let mut text = t.imported_from.replace("{s}", &done.sessions.to_string()).replace("{m}", &done.messages.to_string()).replace("{a}", source.name());
    for (n, line) in [(summary.hidden, t.import_hidden), (summary.as_text, t.import_as_text), (summary.skipped.len(), t.import_skipped)] {
        if n > 0 {
            text.push(' ');
            text.push_str(&line.replace("{n}", &n.to_string()));
        }
    }
    if let Some(first) = summary.skipped.first() {
        text.push_str(&format!(" ({})", skipped(t, first)));
    }
    if summary.keys_left_out {
        text.push(' ');
        text.push_str(t.import_keys);
    }
    text
}

/// An export's texts (one per part), and what its files held that was left out.
type Exports = (Vec<String>, Vec<String>);

/// The texts of the export files chosen: a JSON file's text, a ZIP's
/// conversations files (ChatGPT's and Claude's, split ones in order), the
/// ZIP read by slices, never whole; and what the ZIPs held that is not
/// read, each with why: fetched with the first import.
#[super::lazy::split(data_read, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn read_exports(files: Vec<leptos::web_sys::File>) -> Result<LocalBoxFuture<'static, Result<Exports, String>>, super::lazy::NotFetched> {
    Ok(Box::pin(async move {
        let (mut texts, mut left_out) = (Vec::new(), Vec::new());
        for file in &files {
            use air_import::picked::{self, Picked};
            let head = air_web::read_slice(file, 0, 4).await?;
            match picked::picked(&file.name(), &head, file.size() as u64).map_err(|e| e.to_string())? {
                Picked::Zip => {
                    let (read, left) = zip_texts(file).await.map_err(|e| format!("{}: {e}", file.name()))?;
                    texts.extend(read);
                    left_out.extend(left.into_iter().map(|l| format!("{} {l}", file.name())));
                }
                Picked::Text => {
                    let bytes = air_web::read_slice(file, 0, file.size() as u64).await?;
                    texts.push(picked::text(&file.name(), bytes).map_err(|e| e.to_string())?);
                }
            }
        }
        Ok((texts, left_out))
    }))
}

/// Each conversations file of an export ZIP, unzipped (what is read and
/// refused is `air_import::zip::plan`'s), and what it leaves out.
async fn zip_texts(file: &leptos::web_sys::File) -> Result<(Vec<String>, Vec<String>), String> {
    use air_import::zip::{self, Directory};
    let len = file.size() as u64;
    let tail = air_web::read_slice(file, len.saturating_sub(zip::TAIL), len).await?;
    let items = match zip::directory(&tail, len).map_err(|e| e.to_string())? {
        Directory::Found(items) => items,
        Directory::NeedRange { offset, len: n, count } => {
            let bytes = air_web::read_slice(file, offset, offset.saturating_add(n.min(256 << 20))).await?;
            zip::directory_at(&bytes, count).map_err(|e| e.to_string())?
        }
    };
    let plan = zip::plan(&items, zip::LIMIT).map_err(|e| e.to_string())?;
    let mut texts = Vec::with_capacity(plan.read.len());
    for item in plan.read {
        let (at, n) = zip::local_span(item);
        let local = air_web::read_slice(file, at, at.saturating_add(n).min(len)).await?;
        let bytes = zip::extract(&local, item, zip::LIMIT as usize).map_err(|e| e.to_string())?;
        texts.push(String::from_utf8(bytes).map_err(|_| format!("{} is not text", item.name))?);
    }
    Ok((texts, plan.left_out))
}

/// Writing the preferences (their encoding): fetched with the first
/// change.
#[super::lazy::split(prefs_write, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn write_prefs(prefs: air_workspace::prefs::Prefs, touched: air_workspace::prefs::Touched) -> Result<LocalBoxFuture<'static, Result<(), StoreError>>, super::lazy::NotFetched> {
    Ok(Box::pin(async move { air_workspace::prefs::write(&air_web::LocalStorageKv, &prefs, touched) }))
}

/// The MCP servers' decisions: fetched with the first server action.
/// Its part missing, the state the job carried comes back.
pub(super) async fn decide_servers(job: air_workspace::servers::Job) -> Result<air_workspace::servers::Job, (air_workspace::servers::State, Missing)> {
    // The job stays here while the part is fetched: it goes in only once it is.
    let held = std::rc::Rc::new(std::cell::RefCell::new(Some(job)));
    match servers_engine(held.clone()).await {
        Ok(job) => job.ok_or((air_workspace::servers::State::default(), Missing)),
        Err(super::lazy::NotFetched) => Err((held.borrow_mut().take().map(|j| j.state).unwrap_or_default(), Missing)),
    }
}

#[super::lazy::split(servers, wasm_split_path = ::leptos::wasm_split, fallible)]
fn servers_engine(held: std::rc::Rc<std::cell::RefCell<Option<air_workspace::servers::Job>>>) -> Result<Option<air_workspace::servers::Job>, super::lazy::NotFetched> {
    Ok(held.borrow_mut().take().map(air_workspace::servers::decide))
}

/// Listing a server's tools over a connection of its own (the add form,
/// listing again): with the MCP clients.
#[super::lazy::split(tools_list, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn list_tools(
    state: AppState,
    server: air_store::mcp::McpServer,
) -> Result<LocalBoxFuture<'static, Result<air_workspace::servers::Listed, air_servers::add::Failure>>, super::lazy::NotFetched> {
    Ok(Box::pin(super::mcp::list_tools(state, server)))
}

/// Forgetting a removed server's sign-in (its vault is read and written).
#[super::lazy::split(sign_out, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn forget_sign_in(url: String) -> Result<(), super::lazy::NotFetched> {
    super::oauth::forget(&url);
    Ok(())
}

/// The connectivity doctor's probes.
#[super::lazy::split(doctor, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn diagnose(target: air_doctor::Target, abort: air_http::Abort) -> Result<LocalBoxFuture<'static, air_doctor::Finding>, super::lazy::NotFetched> {
    Ok(Box::pin(async move { air_doctor::diagnose(&super::env::Http::default(), &target, &abort).await }))
}

/// The enabled HTTP tools, over the page's fetch: their code comes with
/// their part, fetched by a turn only when some are saved.
#[super::lazy::split(http_tools_work, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn http_tools_of(saved: air_store::http_tools::Saved) -> Result<Vec<Rc<dyn air_tools::Tool>>, super::lazy::NotFetched> {
    Ok(air_workspace::http_tools::tools(&saved, Rc::new(super::env::Http::default())))
}

/// Checking HTTP tools and reading OpenAPI documents: fetched with the
/// first change of the HTTP tools.
#[super::lazy::split(http_tools_work, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn http_tools(job: air_workspace::http_tools::Job) -> Result<LocalBoxFuture<'static, air_workspace::http_tools::Found>, super::lazy::NotFetched> {
    Ok(Box::pin(async move { air_workspace::http_tools::run(&super::env::Http::default(), job).await }))
}

/// The stored messages' reader: fetched with the first conversation
/// opened.
#[super::lazy::split(messages, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn read_messages(store: Rc<AnyStore>, what: air_workspace::messages::Read) -> Result<LocalBoxFuture<'static, Result<air_workspace::messages::Got, StoreError>>, super::lazy::NotFetched> {
    Ok(Box::pin(async move { air_workspace::messages::read(&*store, what).await }))
}

/// The event log's redaction, reading and writing: fetched with the first
/// batch of entries (or when Settings shows the log).
#[super::lazy::split(log_work, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn event_log(store: Option<Rc<AnyStore>>, job: air_workspace::log::Job) -> Result<LocalBoxFuture<'static, air_workspace::log::Kept>, super::lazy::NotFetched> {
    Ok(Box::pin(async move { air_workspace::log::work(store.as_deref(), job).await }))
}

/// Dynamic loading's work (the catalog, loaded tools, the summarizer,
/// the metrics): fetched when it is first needed.
#[super::lazy::split(catalog, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn dynamic(store: Option<Rc<AnyStore>>, job: air_workspace::dynamic::Job) -> Result<LocalBoxFuture<'static, Option<air_workspace::dynamic::Action>>, super::lazy::NotFetched> {
    Ok(Box::pin(async move {
        let sleep = |ms: u64| -> LocalBoxFuture<'static, ()> { Box::pin(super::env::sleep(ms)) };
        let env = air_workspace::dynamic::Env { store, http: &super::env::Http::default(), now_ms: super::env::now_ms(), sleep: &sleep };
        air_workspace::dynamic::run(env, job).await
    }))
}

/// The provider's models, asked with the code that sends requests (a part
/// of its own: the first screen sends none).
#[super::lazy::split(provider_models, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn provider_models(settings: air_store::Settings) -> Result<LocalBoxFuture<'static, Result<Vec<String>, air_chat::ChatError>>, super::lazy::NotFetched> {
    Ok(Box::pin(async move { super::env::list_models(&settings).await }))
}

/// Searching, with the index's ranking and snippets: fetched with the
/// first search.
#[super::lazy::split(search, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn search(store: Rc<AnyStore>, query: String, limit: usize) -> Result<LocalBoxFuture<'static, air_store::Result<SearchResults>>, super::lazy::NotFetched> {
    Ok(Box::pin(async move { air_store::search::run(&*store, &query, limit).await }))
}

/// Building the search index from every message (a store from before it,
/// or one that cannot be read).
#[super::lazy::split(index_rebuild, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn rebuild(store: Rc<AnyStore>) -> Result<LocalBoxFuture<'static, air_store::Result<()>>, super::lazy::NotFetched> {
    use air_store::Store;
    Ok(Box::pin(async move { store.rebuild_index().await }))
}

/// Merging the search index's segments in the background, a bounded
/// step per task: fetched when there is something to merge. One tab of
/// the browser does it (the others' writes are merged by it, or by the
/// next tab that starts).
#[super::lazy::split(index_compact, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn compact(store: Rc<AnyStore>) -> Result<LocalBoxFuture<'static, ()>, super::lazy::NotFetched> {
    use air_store::Store;
    Ok(Box::pin(async move {
        if !air_web::lock::hold("air-search-compact").await {
            return;
        }
        while let Ok(true) = store.compact_index(COMPACT_STEP).await {
            // The page's own work goes first between steps.
            super::env::sleep(0).await;
        }
    }))
}

/// Entries merged per step (a few milliseconds).
const COMPACT_STEP: usize = 16_384;

/// Attaches files to the next message: read (a large image drawn
/// smaller) in a part of its own, fetched with the first file; the core
/// takes or refuses each.
pub fn attach_files(state: AppState, files: Vec<leptos::web_sys::File>) {
    if files.is_empty() {
        return;
    }
    spawn_local(async move {
        match read_files(files).await {
            Ok(reading) => super::dispatch(state, air_workspace::Command::Files(air_workspace::files::Action::Read(reading.await))),
            Err(missing) => super::lazy::report(state, missing),
        }
    });
}

#[super::lazy::split(read_files, wasm_split_path = ::leptos::wasm_split, fallible)]
fn read_files(files: Vec<leptos::web_sys::File>) -> Result<LocalBoxFuture<'static, Vec<Prepared>>, super::lazy::NotFetched> {
    Ok(Box::pin(async move {
        let mut read = Vec::new();
        for file in files {
            read.push(air_workspace::files::prepare(read_file(&file).await.map_err(|e| (file.name(), e))));
        }
        read
    }))
}

/// Reads a file; an image over the largest side is drawn smaller (what
/// is stored and sent).
async fn read_file(file: &leptos::web_sys::File) -> Result<Read, String> {
    let picked = air_web::read_file(file).await?;
    let mut read = Read { name: picked.name, mime: picked.mime, bytes: picked.bytes, scaled: None };
    if air_workspace::files::scalable(&read.mime)
        && let Some(image) = air_web::scale_image(&read.bytes, &read.mime, air_store::files::MAX_IMAGE_SIDE).await?
    {
        read.scaled = Some(image.from);
        read.bytes = image.bytes;
        read.mime = image.mime;
    }
    Ok(read)
}

/// Rewrites the records an older version stored in the current format:
/// fetched only for such a database.
#[super::lazy::split(migrate_store, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn migrate_store(db: Rc<air_web::idb::IdbStore>) -> Result<LocalBoxFuture<'static, Result<(), StoreError>>, super::lazy::NotFetched> {
    Ok(Box::pin(async move { db.migrate().await }))
}

/// The store in memory, for a browser that refuses IndexedDB: its code is
/// fetched only then.
#[super::lazy::split(memory_store, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn memory_store() -> Result<Rc<dyn super::store::InMemory>, super::lazy::NotFetched> {
    Ok(Rc::new(air_store::MemoryStore::new()))
}

/// Posts a run to the code runner's frame (`air_web::runner`), its
/// messages to `inbox`.
#[super::lazy::split(code_runner, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn code_runner(
    start: serde_json::Value,
    files: Vec<Option<leptos::web_sys::Blob>>,
    inbox: air_workspace::turn_env::inbox::Inbox,
) -> Result<LocalBoxFuture<'static, ()>, super::lazy::NotFetched> {
    let heard = inbox.clone();
    if !air_web::runner::run(&start, &files, Box::new(move |said| heard.push(said))) {
        inbox.close();
    }
    Ok(Box::pin(async {}))
}

/// Posts a message to a run's worker (`air_web::runner::tell`).
#[super::lazy::split(code_runner, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn code_tell(msg: serde_json::Value, bytes: Vec<Vec<u8>>) -> Result<LocalBoxFuture<'static, ()>, super::lazy::NotFetched> {
    air_web::runner::tell(&msg, bytes);
    Ok(Box::pin(async {}))
}

/// Ends a run's worker (`air_web::runner::stop`).
#[super::lazy::split(code_runner, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn code_stop(run: u64) -> Result<LocalBoxFuture<'static, ()>, super::lazy::NotFetched> {
    air_web::runner::stop(run);
    Ok(Box::pin(async {}))
}
