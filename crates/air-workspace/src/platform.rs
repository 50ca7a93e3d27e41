//! Everything the core needs from where it runs, in two traits.
//!
//! [`Edges`] is IO only: the clock, ids, the key/value store and the
//! store, HTTP, the MCP servers' sessions, sign-in windows, downloads,
//! what the page shows live. [`Platform`] is the work the page keeps in
//! parts fetched on first use: each call's default body is the core's own
//! code, run once [`Platform::part`] says the part is here. The fake
//! platform overrides only that hook (to refuse or hold a part); the page
//! overrides each call with its part, so the code is fetched when first
//! used and the first visit does not carry it.

use std::rc::Rc;

use air_agent::conversation::TemplateVars;
use air_http::{Abort, HttpClient};
use air_store::search::SearchResults;
use air_store::{KeyValue, Store, StoreError};
use futures_util::future::LocalBoxFuture;

use crate::Command;
use crate::signin::SignInReturn;
use crate::turn_env::tools::{Ask, Wanted};
use crate::turn_env::{Run, TurnEnv};

/// A result the work of a part gives once the part is here.
pub type InPart<T> = LocalBoxFuture<'static, Result<T, Missing>>;

/// Where the core runs: its IO.
pub trait Edges: 'static + Sized {
    type Store: Store + 'static;
    type Kv: KeyValue;
    type Http: HttpClient + 'static;

    /// Milliseconds since the epoch.
    fn now_ms(&self) -> f64;
    /// A new unique id.
    fn new_id(&self) -> String;
    /// Today's date where the user is (`2026-11-25`), for file names.
    fn local_date(&self) -> String;
    /// A preview of an image attached to the next message (an object URL
    /// in the page), if one can be made.
    fn preview(&self, bytes: &[u8], mime: &str) -> Option<String>;
    /// The preview is no longer shown: its memory may go.
    fn forget_preview(&self, url: &str);
    /// The page's origin (`https://app.example`), for the doctor.
    fn page_origin(&self) -> Option<String>;
    /// Connects to `server` over a connection of its own and lists its
    /// tools (as saved), and the revision it speaks; or why not.
    fn list_tools(&self, server: air_store::mcp::McpServer) -> InPart<Result<crate::servers::Listed, air_servers::add::Failure>>;
    /// Probes why the page cannot use `target` (`air-doctor`), until `abort`.
    fn diagnose(&self, target: air_doctor::Target, abort: Abort) -> InPart<air_doctor::Finding>;
    /// Connects to these servers in the background, those not connected
    /// already (their sessions report back as `servers::Action::Status`).
    fn connect_servers(&self, servers: Vec<air_store::mcp::McpServer>);
    /// Forgets the sign-in kept for the server at `url` (done when the
    /// future is).
    fn forget_sign_in(&self, url: &str) -> InPart<()>;
    /// Signs in to the server at `url` (`asked`: what it said when it
    /// refused), as the client `client_id` if given. Called within the
    /// user's click: a window for the sign-in opens at once; where none
    /// can, the whole page goes ([`air_servers::credentials::SignInError::Redirected`]),
    /// keeping what [`Edges::finish_sign_in`] needs under
    /// `air_store::keys::OAUTH_PENDING`.
    fn sign_in(&self, url: String, client_id: Option<String>, asked: air_servers::credentials::Asked) -> InPart<Result<(), air_servers::credentials::SignInError>>;
    /// Finishes a sign-in that took the whole page: `pending` was kept
    /// before it left, `callback` is the address it came back to. Its
    /// server and outcome (`None`: `pending` cannot be read).
    fn finish_sign_in(&self, pending: String, callback: String) -> InPart<Option<SignInReturn>>;
    /// The models the page runs itself: listing, downloading (progress
    /// goes to [`Edges::feed`] as `browser_models::Action::Progress`),
    /// storing a picked file, deleting.
    fn browser_models(&self, job: crate::browser_models::Job) -> InPart<crate::browser_models::Reply>;
    /// Does what a composer's picker asks of the servers (over the MCP
    /// servers' sessions).
    fn run_picker(&self, job: crate::pickers::Job) -> InPart<crate::pickers::Found>;
    /// Sync's work (a pass, or the wait after one: [`crate::sync::work`]
    /// over the store and the remote database).
    fn run_sync(&self, job: crate::sync::Job) -> InPart<crate::sync::Outcome>;
    /// Hands a file to the browser to save.
    fn download(&self, name: &str, mime: &str, text: &str) -> Result<(), String>;
    /// How much is stored; asks the browser to keep it.
    fn storage_info(&self) -> LocalBoxFuture<'static, crate::data::StorageInfo>;
    /// The small key/value store (localStorage): read and written at once.
    fn kv(&self) -> &Self::Kv;
    /// Opens the store; `Some(error)`: it could not, and a store in memory
    /// is in use instead (nothing is kept past this page).
    fn open_store(&self) -> LocalBoxFuture<'static, Option<String>>;
    /// The store, once opened.
    fn store(&self) -> Option<Rc<Self::Store>>;
    /// Reads `uri` of the MCP server `server`: the context block for a
    /// message, or why it could not be read.
    fn read_resource(&self, server: String, uri: String) -> InPart<Result<String, String>>;
    /// Subscribes to (`on`) or unsubscribes from a resource's changes;
    /// `true` when the server takes the subscription.
    fn subscribe_resource(&self, server: String, uri: String, on: bool) -> InPart<bool>;
    /// `fetch`.
    fn http(&self) -> &Self::Http;
    /// Waits `ms` milliseconds.
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()>;
    /// Today's date and time where the user is, and their locale (for
    /// the system prompt's variables).
    fn template_vars(&self) -> TemplateVars;
    /// What a running turn shows live (the answer streaming, a call's
    /// progress, what it learnt of the provider, what the other tabs are
    /// told, the session it created): the page applies it at once, the
    /// core keeps none of it.
    /// Called only by the turn, so the page's code for it loads with the turn.
    fn show_live(&self, event: air_agent::Event);
    /// A running turn reports to the core: `cmd` is handled as soon as
    /// the command being handled (if any) is done.
    fn feed(&self, cmd: Command);
    /// The clock the built-in tools tell the time by (the user's zones).
    fn clock(&self) -> Rc<dyn air_tools::builtin::Clock>;
    /// The tools a turn wants of MCP servers, each over its server's
    /// client (one session per server, kept by the platform).
    fn mcp_tools(&self, wanted: Vec<Wanted>) -> InPart<Vec<Rc<dyn air_tools::Tool>>>;
    /// Runs code in the sandbox: posts `start` (`air_sandbox::run::Run::start`)
    /// to the runner frame (made for it if need be) with the stored
    /// `files` (by id, in order) beside it, read from the store without
    /// passing through the core (one that cannot be read goes as none);
    /// what the frame says of that run goes to `inbox`.
    fn run_code(&self, start: serde_json::Value, files: Vec<String>, inbox: crate::turn_env::inbox::Inbox);
    /// The run `run` is over: its worker is terminated (a run still going
    /// is cut off), and the frame goes once it has been idle a while.
    fn stop_code(&self, run: u64);
    /// Posts `msg` (which names its run) with `bytes` beside it to the
    /// runner frame, for that run's worker.
    fn tell_code(&self, msg: serde_json::Value, bytes: Vec<Vec<u8>>);
    /// The bytes of `path`, a file of the site beside the app (through the
    /// service worker's cache when it has it), or why not.
    fn site_file(&self, path: &str) -> LocalBoxFuture<'static, Result<Vec<u8>, String>>;
}

/// The core's work that the page fetches on first use. Every call waits
/// for [`Platform::part`], then runs the core's code; the page overrides
/// each with its part instead.
pub trait Platform: Edges {
    /// `part` is here, for `job` (what the call is for: the fake keeps
    /// it). By default it always is.
    fn part(&self, _part: Part, _job: &dyn std::fmt::Debug) -> InPart<()> {
        Box::pin(std::future::ready(Ok(())))
    }
    /// Writes the preferences `touched` names ([`crate::prefs::write`]).
    fn write_prefs(self: &Rc<Self>, prefs: crate::prefs::Prefs, touched: crate::prefs::Touched) -> InPart<Result<(), StoreError>> {
        let (p, ready) = (self.clone(), self.part(Part::Prefs, &touched));
        Box::pin(async move { ready.await.map(|()| crate::prefs::write(p.kv(), &prefs, touched)) })
    }
    /// The servers' engine decides `job` ([`crate::servers::decide`]). Its
    /// part missing, the state comes back.
    fn decide_servers(&self, job: crate::servers::Job) -> LocalBoxFuture<'static, Result<crate::servers::Job, (crate::servers::State, Missing)>> {
        let ready = self.part(Part::Servers, &job.action);
        Box::pin(async move {
            match ready.await {
                Ok(()) => Ok(crate::servers::decide(job)),
                Err(missing) => Err((job.state, missing)),
            }
        })
    }
    /// Lists the models of the provider `settings` name.
    fn list_models(self: &Rc<Self>, settings: air_store::Settings) -> InPart<Result<Vec<String>, air_chat::ChatError>> {
        let (p, ready) = (self.clone(), self.part(Part::Providers, &settings.base_url));
        Box::pin(async move {
            ready.await?;
            Ok(air_agent::provider::list_models(p.http(), &settings).await)
        })
    }
    /// Checks HTTP tools or reads an OpenAPI document ([`crate::http_tools::run`]).
    fn run_http_tools(self: &Rc<Self>, job: crate::http_tools::Job) -> InPart<crate::http_tools::Found> {
        let (p, ready) = (self.clone(), self.part(Part::HttpTools, &job));
        Box::pin(async move {
            ready.await?;
            Ok(crate::http_tools::run(p.http(), job).await)
        })
    }
    /// Runs dynamic loading's work ([`crate::dynamic::run`]).
    fn run_dynamic(self: &Rc<Self>, job: crate::dynamic::Job) -> InPart<Option<crate::dynamic::Action>> {
        let (p, ready) = (self.clone(), self.part(Part::Catalog, &job));
        Box::pin(async move {
            ready.await?;
            let sleep = |ms: u64| p.sleep(ms);
            Ok(crate::dynamic::run(crate::dynamic::Env { store: p.store(), http: p.http(), now_ms: p.now_ms(), sleep: &sleep }, job).await)
        })
    }
    /// Reads stored messages ([`crate::messages::read`] over the store).
    fn read_messages(self: &Rc<Self>, what: crate::messages::Read) -> InPart<Result<crate::messages::Got, StoreError>> {
        let (store, ready) = (self.store(), self.part(Part::Messages, &what));
        Box::pin(async move {
            ready.await?;
            let Some(store) = store else { return Ok(Err(StoreError::Unavailable("the store is not open".into()))) };
            Ok(crate::messages::read(&*store, what).await)
        })
    }
    /// Does the event log's work ([`crate::log::work`] over the store, if open).
    fn log_work(self: &Rc<Self>, job: crate::log::Job) -> InPart<crate::log::Kept> {
        let (store, ready) = (self.store(), self.part(Part::Log, &job));
        Box::pin(async move {
            ready.await?;
            Ok(crate::log::work(store.as_deref(), job).await)
        })
    }
    /// The text of an export of the conversations (or `only` one), with
    /// `settings` and the HTTP tools in a whole one ([`crate::data::export_text`]).
    fn export(
        self: &Rc<Self>,
        only: Option<String>,
        format: crate::data::Format,
        settings: air_store::Settings,
        http_tools: air_store::http_tools::Saved,
    ) -> InPart<Result<Option<String>, StoreError>> {
        let (store, now, ready) = (self.store(), self.now_ms(), self.part(Part::Export, &only));
        Box::pin(async move {
            ready.await?;
            let Some(store) = store else { return Ok(Ok(None)) };
            Ok(crate::data::export_text(&*store, only.as_deref(), format, (&settings, &http_tools), now).await)
        })
    }
    /// Imports an export's text ([`crate::data::import_text`]).
    fn import(self: &Rc<Self>, texts: Vec<String>) -> InPart<Result<crate::data::Imported, crate::data::ImportFailure>> {
        let (p, ready) = (self.clone(), self.part(Part::Import, &texts.len()));
        Box::pin(async move {
            ready.await?;
            let Some(store) = p.store() else { return Ok(Ok(crate::data::Imported::default())) };
            Ok(crate::data::import_text(&*store, &texts, p.now_ms(), &mut || p.new_id(), &mut |_, _| {}).await)
        })
    }
    /// Searches the store's index (`air_store::search::run`).
    fn search(self: &Rc<Self>, query: String, limit: usize) -> InPart<Result<SearchResults, StoreError>> {
        let (store, ready) = (self.store(), self.part(Part::Search, &query));
        Box::pin(async move {
            ready.await?;
            let Some(store) = store else { return Ok(Ok(SearchResults::default())) };
            Ok(air_store::search::run(&*store, &query, limit).await)
        })
    }
    /// Deletes a session for good, with its messages, files and index entries.
    fn delete_session(self: &Rc<Self>, id: String) -> InPart<Result<(), StoreError>> {
        let (store, ready) = (self.store(), self.part(Part::Delete, &id));
        Box::pin(async move {
            ready.await?;
            let Some(store) = store else { return Ok(Ok(())) };
            Ok(store.delete_session(&id).await)
        })
    }
    /// Builds the store's search index again from every message.
    fn rebuild_index(self: &Rc<Self>) -> InPart<Result<(), StoreError>> {
        let (store, ready) = (self.store(), self.part(Part::Index, &()));
        Box::pin(async move {
            ready.await?;
            let Some(store) = store else { return Ok(Ok(())) };
            Ok(store.rebuild_index().await)
        })
    }
    /// Runs a turn ([`crate::turn::run`], which assembles its tools with
    /// `crate::toolbox`).
    fn run_turn(self: &Rc<Self>, env: TurnEnv<Self>, run: Run) -> InPart<Result<(), StoreError>> {
        let ready = self.part(Part::Turn, &run.job);
        Box::pin(async move {
            ready.await?;
            Ok(crate::turn::run(&env, run).await)
        })
    }
    /// [`crate::later::route`], for the features a first visit does not use.
    fn later(self: &Rc<Self>) -> InPart<crate::Route<Self>> {
        let ready = self.part(Part::Later, &());
        Box::pin(async move { ready.await.map(|()| crate::later::route::<Self> as crate::Route<Self>) })
    }
    /// The enabled HTTP tools of `saved`, over [`Edges::http`] ([`crate::http_tools::tools`]).
    fn http_tools(self: &Rc<Self>, saved: air_store::http_tools::Saved) -> InPart<Vec<Rc<dyn air_tools::Tool>>> {
        let (tools, ready) = (crate::http_tools::tools(&saved, Rc::new(HttpOf(self.clone()))), self.part(Part::HttpTools, &saved.tools().len()));
        Box::pin(async move { ready.await.map(|()| tools) })
    }
    /// A turn's dynamic loading session ([`crate::toolbox::loaders::session`]).
    fn dynamic_session(self: &Rc<Self>, store: Rc<Self::Store>, ask: Ask) -> InPart<Rc<air_dynamic::Session>> {
        let (p, ready) = (self.clone(), self.part(Part::DynamicLoading, &ask.session));
        Box::pin(async move {
            ready.await?;
            Ok(crate::toolbox::loaders::session(p, store, ask).await)
        })
    }
}

/// A platform's [`Edges::http`], held by what outlives the call (an HTTP tool).
pub struct HttpOf<P>(pub Rc<P>);

impl<P: Edges> HttpClient for HttpOf<P> {
    type Body = <P::Http as HttpClient>::Body;

    async fn send(&self, request: air_http::Request, abort: &Abort) -> Result<air_http::Response<Self::Body>, air_http::HttpError> {
        self.0.http().send(request, abort).await
    }
    async fn answers_without_cors(&self, url: &str) -> bool {
        self.0.http().answers_without_cors(url).await
    }
}

/// The parts of the app fetched on first use that [`Platform`]'s calls
/// wait for (what the fake platform can refuse or hold, one at a time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    /// The agent loop.
    Turn,
    /// Writing the preferences.
    Prefs,
    /// The MCP servers' engine.
    Servers,
    /// The code that talks to providers (their models).
    Providers,
    /// Dynamic loading's work outside a turn (catalog, summaries, metrics).
    Catalog,
    /// Reading stored messages.
    Messages,
    /// The event log.
    Log,
    /// Writing an export.
    Export,
    /// Reading an import.
    Import,
    /// Searching.
    Search,
    /// Deleting a session.
    Delete,
    /// Building the search index again.
    Index,
    /// The MCP clients.
    Mcp,
    /// The HTTP tools' calls.
    HttpTools,
    /// Dynamic loading's catalog and loaders.
    DynamicLoading,
    /// The features a first visit does not use ([`crate::later`]).
    Later,
}

/// A part of the app fetched on first use could not be fetched (offline
/// before it ever was, or a new version replaced it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Missing;

/// IO under way: it reports back as a command, or not at all.
pub struct Task(pub LocalBoxFuture<'static, Option<Command>>);
