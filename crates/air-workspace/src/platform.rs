//! Everything the core needs from where it runs. The browser implements it
//! over IndexedDB and localStorage; [`crate::fake::FakePlatform`] in memory,
//! with a clock the test moves.

use std::rc::Rc;

use air_agent::conversation::TemplateVars;
use air_http::HttpClient;
use air_store::search::SearchResults;
use air_store::{KeyValue, Store, StoreError};
use futures_util::future::LocalBoxFuture;

use std::cell::RefCell;

use air_agent::NewFile;
use air_http::Abort;
use air_tools::policy::Policies;

use crate::Command;

pub mod tools;

/// A sign-in that took the whole page, come back: its server and outcome.
pub type SignInReturn = (String, Result<(), air_servers::credentials::SignInError>);

pub trait Platform: 'static + Sized {
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
    /// Writes the preferences `touched` names ([`crate::prefs::write`]).
    fn write_prefs(&self, prefs: crate::prefs::Prefs, touched: crate::prefs::Touched) -> LocalBoxFuture<'static, Result<Result<(), StoreError>, Missing>>;
    /// The page's origin (`https://app.example`), for the doctor.
    fn page_origin(&self) -> Option<String>;
    /// The servers' engine decides `job` ([`crate::servers::decide`]; the
    /// page fetches it with the first server action). Its part missing,
    /// the state comes back.
    fn decide_servers(&self, job: crate::servers::Job) -> LocalBoxFuture<'static, Result<crate::servers::Job, (crate::servers::State, Missing)>>;
    /// Connects to `server` over a connection of its own and lists its
    /// tools (as saved), and the revision it speaks; or why not.
    fn list_tools(&self, server: air_store::mcp::McpServer) -> LocalBoxFuture<'static, Result<Result<crate::servers::Listed, air_servers::add::Failure>, Missing>>;
    /// Probes why the page cannot use `target` (`air-doctor`), until `abort`.
    fn diagnose(&self, target: air_doctor::Target, abort: Abort) -> LocalBoxFuture<'static, Result<air_doctor::Finding, Missing>>;
    /// Connects to these servers in the background, those not connected
    /// already (their sessions report back as `servers::Action::Status`).
    fn connect_servers(&self, servers: Vec<air_store::mcp::McpServer>);
    /// Forgets the sign-in kept for the server at `url` (done when the
    /// future is).
    fn forget_sign_in(&self, url: &str) -> LocalBoxFuture<'static, Result<(), Missing>>;
    /// Signs in to the server at `url` (`asked`: what it said when it
    /// refused), as the client `client_id` if given. Called within the
    /// user's click: a window for the sign-in opens at once; where none
    /// can, the whole page goes ([`air_servers::credentials::SignInError::Redirected`]),
    /// keeping what [`Platform::finish_sign_in`] needs under
    /// `air_store::keys::OAUTH_PENDING`.
    fn sign_in(&self, url: String, client_id: Option<String>, asked: air_servers::credentials::Asked) -> LocalBoxFuture<'static, Result<Result<(), air_servers::credentials::SignInError>, Missing>>;
    /// Finishes a sign-in that took the whole page: `pending` was kept
    /// before it left, `callback` is the address it came back to. Its
    /// server and outcome (`None`: `pending` cannot be read).
    fn finish_sign_in(&self, pending: String, callback: String) -> LocalBoxFuture<'static, Result<Option<SignInReturn>, Missing>>;
    /// Lists the models of the provider `settings` name (the code that
    /// talks to providers is fetched on first use).
    fn list_models(&self, settings: air_store::Settings) -> LocalBoxFuture<'static, Result<Result<Vec<String>, air_chat::ChatError>, Missing>>;
    /// The models the page runs itself: listing, downloading (progress
    /// goes to [`Platform::feed`] as `browser_models::Action::Progress`),
    /// storing a picked file, deleting.
    fn browser_models(&self, job: crate::browser_models::Job) -> LocalBoxFuture<'static, Result<crate::browser_models::Reply, Missing>>;
    /// Does what a composer's picker asks of the servers (with the MCP
    /// clients, fetched on first use).
    fn run_picker(&self, job: crate::pickers::Job) -> LocalBoxFuture<'static, Result<crate::pickers::Found, Missing>>;
    /// Checks HTTP tools or reads an OpenAPI document
    /// ([`crate::http_tools::run`]; the page fetches it on first use).
    fn run_http_tools(&self, job: crate::http_tools::Job) -> LocalBoxFuture<'static, Result<crate::http_tools::Found, Missing>>;
    /// Runs dynamic loading's work ([`crate::dynamic::run`]; the page
    /// fetches it on first use).
    fn run_dynamic(&self, job: crate::dynamic::Job) -> LocalBoxFuture<'static, Result<Option<crate::dynamic::Action>, Missing>>;
    /// Reads stored messages ([`crate::messages::read`] over the store; the
    /// page fetches it with the first conversation opened).
    fn read_messages(&self, what: crate::messages::Read) -> LocalBoxFuture<'static, Result<Result<crate::messages::Got, StoreError>, Missing>>;
    /// Sync's work (a pass, or the wait after one: [`crate::sync::work`]
    /// over the store; the page fetches it when sync is on).
    fn run_sync(&self, job: crate::sync::Job) -> LocalBoxFuture<'static, Result<crate::sync::Outcome, Missing>>;
    /// Does the event log's work ([`crate::log::work`] over the store, if
    /// open; the page fetches it on first use).
    fn log_work(&self, job: crate::log::Job) -> LocalBoxFuture<'static, Result<crate::log::Kept, Missing>>;
    /// Hands a file to the browser to save.
    fn download(&self, name: &str, mime: &str, text: &str) -> Result<(), String>;
    /// The text of an export of the conversations (or `only` one), with
    /// `settings` and the HTTP tools in a whole one ([`crate::data::export_text`]).
    fn export(
        &self,
        only: Option<String>,
        format: crate::data::Format,
        settings: air_store::Settings,
        http_tools: air_store::http_tools::Saved,
    ) -> LocalBoxFuture<'static, Result<Result<Option<String>, StoreError>, Missing>>;
    /// Imports an export's text ([`crate::data::import_text`]).
    fn import(&self, texts: Vec<String>) -> LocalBoxFuture<'static, Result<Result<crate::data::Imported, crate::data::ImportFailure>, Missing>>;
    /// How much is stored; asks the browser to keep it.
    fn storage_info(&self) -> LocalBoxFuture<'static, crate::data::StorageInfo>;
    /// The small key/value store (localStorage): read and written at once.
    fn kv(&self) -> &Self::Kv;
    /// Opens the store; `Some(error)`: it could not, and a store in memory
    /// is in use instead (nothing is kept past this page).
    fn open_store(&self) -> LocalBoxFuture<'static, Option<String>>;
    /// The store, once opened.
    fn store(&self) -> Option<Rc<Self::Store>>;
    /// Searches the store's index (the part that ranks and quotes is
    /// fetched with the first search).
    fn search(&self, query: String, limit: usize) -> LocalBoxFuture<'static, Result<Result<SearchResults, StoreError>, Missing>>;
    /// Deletes a session for good, with its messages, files and index
    /// entries (the page fetches the code with the first delete).
    fn delete_session(&self, id: String) -> LocalBoxFuture<'static, Result<Result<(), StoreError>, Missing>>;
    /// Reads `uri` of the MCP server `server`: the context block for a
    /// message, or why it could not be read.
    fn read_resource(&self, server: String, uri: String) -> LocalBoxFuture<'static, Result<Result<String, String>, Missing>>;
    /// Subscribes to (`on`) or unsubscribes from a resource's changes;
    /// `true` when the server takes the subscription.
    fn subscribe_resource(&self, server: String, uri: String, on: bool) -> LocalBoxFuture<'static, Result<bool, Missing>>;
    /// Builds the store's search index again from every message.
    fn rebuild_index(&self) -> LocalBoxFuture<'static, Result<Result<(), StoreError>, Missing>>;
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
    /// Runs a turn: `crate::turn::run`, which assembles its tools
    /// (`crate::toolbox`), in the part with the agent loop (the page
    /// fetches it with the first message).
    fn run_turn(&self, env: TurnEnv<Self>, run: Run) -> LocalBoxFuture<'static, Result<Result<(), StoreError>, Missing>>;

    /// [`crate::later::route`], for the features a first visit does not
    /// use (fetched with the first command for one of them).
    fn later(&self) -> LocalBoxFuture<'static, Result<crate::Route<Self>, Missing>>;
    /// The clock the built-in tools tell the time by (the user's zones).
    fn clock(&self) -> Rc<dyn air_tools::builtin::Clock>;
    /// The tools a turn wants of MCP servers, each over its server's
    /// client (one session per server, kept by the platform).
    fn mcp_tools(&self, wanted: Vec<tools::Wanted>) -> LocalBoxFuture<'static, Result<Vec<Rc<dyn air_tools::Tool>>, Missing>>;
    /// The enabled HTTP tools of `saved`, over [`Platform::http`]
    /// (`crate::http_tools::tools`, in its part).
    fn http_tools(&self, saved: air_store::http_tools::Saved) -> LocalBoxFuture<'static, Result<Vec<Rc<dyn air_tools::Tool>>, Missing>>;
    /// A turn's dynamic loading session (`crate::toolbox::loaders::session`,
    /// in dynamic loading's part).
    fn dynamic_session(p: &Rc<Self>, store: Rc<Self::Store>, ask: tools::Ask) -> LocalBoxFuture<'static, Result<Rc<air_dynamic::Session>, Missing>>;
}

/// The parts of the app fetched on first use that the calls above wait
/// for (what the fake platform can refuse, one at a time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    /// The agent loop.
    Turn,
    /// The MCP clients.
    Mcp,
    /// The HTTP tools' calls.
    HttpTools,
    /// Dynamic loading's catalog and loaders.
    DynamicLoading,
    /// The features a first visit does not use ([`crate::later`]).
    Later,
}

/// What the page asks a turn to do in the open conversation.
#[derive(Debug)]
pub enum Job {
    /// A new user message (with what is attached to the next message).
    Send(String),
    /// A new answer in place of `message` (and nothing after it).
    Regenerate(String),
    /// `message`, cut off, goes on.
    Continue(String),
    /// The user message `message` changes; what followed it goes.
    Edit { message: String, text: String },
    /// The tool round a closed tab left: asked again, run again, answered.
    Resume,
    /// A model running in this page keeps what it read: the next
    /// message's request is read ahead while the user writes it
    /// (`air_agent::Turn::warm`). Not a turn: nothing is shown or saved,
    /// and a message sent meanwhile is not held back.
    Warm,
}

/// A [`Job`] with the session it runs in (`None`: a new one).
#[derive(Debug)]
pub struct Run {
    pub session: Option<String>,
    pub job: Job,
    /// With [`Job::Send`]: the context after the text (attached resources,
    /// then text files) and the images.
    pub context: String,
    pub images: Vec<NewFile>,
    /// The preferences when it started: what it runs with is
    /// [`Run::inputs`].
    pub prefs: Box<crate::prefs::Prefs>,
}

impl Run {
    /// What the turn runs with, decided from the preferences as they were
    /// when it started ([`crate::prefs::Prefs::turn_inputs`]; run in the
    /// turn's part, so the first load does not carry it).
    pub fn inputs(&self) -> crate::prefs::Inputs {
        self.prefs.turn_inputs(self.session.as_deref().unwrap_or(air_store::mcp::NEW_CHAT))
    }
}

/// The world a turn runs in: the platform, and the core's answers.
pub struct TurnEnv<P: Platform> {
    pub(crate) p: Rc<P>,
    pub(crate) store: Rc<P::Store>,
    pub(crate) watch: Rc<Watch>,
    pub(crate) abort: Abort,
    /// The policies the turn runs with (a change since "yes" is shown).
    pub(crate) policies: RefCell<Policies>,
    /// Kinds of tool a test adds to those of `crate::toolbox::kinds`.
    #[cfg(test)]
    pub(crate) more_kinds: tools::Kinds<P>,
}

impl<P: Platform> TurnEnv<P> {
    pub fn platform(&self) -> &Rc<P> {
        &self.p
    }
}

/// What a running turn sees of the core (it runs outside [`Workspace::handle`]).
#[derive(Debug, Default)]
pub struct Watch {
    /// The messages shown, by id and place, in order (the open chat's).
    pub(crate) shown: RefCell<Vec<(String, f64)>>,
    /// The answer this tab streams, shown live instead of as its record.
    pub(crate) live: RefCell<Option<String>>,
    /// Answers other tabs are streaming.
    pub(crate) remote: RefCell<Vec<String>>,
    /// The session deleted and waiting for its undo window to close.
    pub(crate) deleting: RefCell<Option<String>>,
}

/// A part of the app fetched on first use could not be fetched (offline
/// before it ever was, or a new version replaced it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Missing;

/// IO under way: it reports back as a command, or not at all.
pub struct Task(pub LocalBoxFuture<'static, Option<Command>>);
