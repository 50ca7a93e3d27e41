//! The app's behaviour as a synchronous core, without a browser.
//!
//! [`Workspace::handle`] takes a [`Command`] (a user's action, or the
//! completion of a task) and changes the state at once, never awaiting.
//! What changed goes out as [`Update`]s, in order ([`Workspace::poll_update`]),
//! each one write of what the page shows. IO runs in [`Task`]s
//! ([`Workspace::poll_task`]): a future that owns its inputs, works only
//! through the [`Platform`], and reports back as a command of its
//! module (each module has one `Action`: its user's commands and its
//! tasks' answers, routed once, with no catch-all arm); an answer that may
//! arrive late carries the ticket it was asked under, and is dropped when
//! that is no longer current. Timers are deadlines
//! ([`Workspace::poll_timeout`], [`Workspace::handle_timeout`]).
//!
//! The binding (the app) runs the tasks, arms one timer and turns updates
//! into signals; the fake platform and [`fake::Harness`] (feature
//! `test-support`) do the same in tests, with a clock the test moves.
//!
//! The core owns the preferences, the store, the sessions, search, the open conversation,
//! import and export, attachments, the MCP servers and signing in, the turn, the HTTP tools and sync.
//!
//! Module layers (each names only modules of the layers before it; the
//! `Platform` every flow works through is named from the crate root):
//! `attach`, `data`, `files`, `log`, `messages`, `notice`, `pickers`, `search`, `viewport`;
//! then `dynamic`, `sessions`; `chat`, `prefs`; `browser_models`, `http_tools`, `servers`,
//! `turn_env`; `models`, `signin`, `sync` (its folder: `prefs`, `store`, `conflicts`, `work`),
//! `toolbox`; `later`, `tabs`, `turn`; and `platform` last: its default bodies run the
//! work of the modules before it.

pub mod attach;
pub mod browser_models;
pub mod chat;
pub mod data;
pub mod dynamic;
#[cfg(any(test, feature = "test-support"))]
pub mod fake;
#[cfg(any(test, feature = "test-support"))]
pub mod fake_kv;
#[cfg(any(test, feature = "test-support"))]
pub mod fake_tools;
pub mod files;
pub mod http_tools;
pub mod later;
pub mod log;
pub mod messages;
pub mod models;
pub mod notice;
pub mod pickers;
pub mod platform;
pub mod prefs;
pub mod search;
pub mod servers;
pub mod sessions;
pub mod signin;
#[cfg(test)]
#[path = "stored_tests.rs"]
mod stored_tests;
pub mod sync;
pub mod tabs;
pub mod toolbox;
pub mod turn;
pub mod turn_env;
pub mod viewport;

use std::collections::VecDeque;
use std::rc::Rc;

use air_store::search::SearchResults;
use air_store::{MessageRecord, SessionRecord};

pub use notice::{Notice, StoreOp};
pub use platform::{Edges, Missing, Platform, Task};
pub use sessions::SESSION_PAGE;
pub use turn_env::Watch;

/// What the core is asked to do.
#[derive(Debug)]
pub enum Command {
    /// The page started: open the store and read the first page.
    Start,
    /// The session list: read, delete, rename.
    Sessions(sessions::Action),
    /// Searching every message and title.
    Search(search::Action),
    /// The open conversation: open, page, branches, what turns saved.
    Chat(chat::Action),
    /// Export, import, how much is stored.
    Data(data::Action),
    /// The MCP resources attached to the next message.
    Attach(attach::Action),
    /// The files attached to the next message.
    Files(files::Action),
    /// The preferences: changed (saved at once), written.
    Prefs(prefs::Action),
    /// The MCP servers: add, switch, remove, list again, sessions' states.
    Servers(servers::Action),
    /// Signing in to (and out of) the MCP servers that ask for it.
    SignIn(signin::Action),
    /// MCP dynamic loading: the catalog, loaded tools, summaries, metrics.
    Dynamic(dynamic::Action),
    /// The HTTP tools: add, import from OpenAPI, edit, switch, remove.
    HttpTools(http_tools::Action),
    /// The provider's models: the picker's lists, Settings → Test.
    Models(models::Action),
    /// Settings → Provider → In this browser.
    BrowserModels(browser_models::Action),
    /// The composer's prompt and resource pickers.
    Pickers(pickers::Action),
    /// The turn: start, stop, the user's answers, what happens in it.
    Turn(turn::Action),
    /// A running turn's work tells the user this.
    Tell(Notice),
    /// The event log: show it, export it, add to it.
    Log(log::Action),
    /// Sync with the user's CouchDB: settings, sync now, pause, progress.
    Sync(sync::Action),
    /// Another tab says what it changed.
    OtherTab(air_store::sync::SyncEvent),
    /// The code of the features fetched on first use is here (or not).
    LaterFetched,
}

/// A command of the features whose code is fetched on first use
/// ([`later::route`]).
#[derive(Debug)]
pub enum Later {
    SignIn(signin::Action),
    Models(models::Action),
    BrowserModels(browser_models::Action),
    Pickers(pickers::Action),
    HttpTools(http_tools::Action),
    Sync(sync::Action),
}

/// [`later::route`], as the platform hands it over once fetched.
pub type Route<P> = fn(&mut Workspace<P>, Later);

/// Something the page shows changed.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    Notice(Notice),
    /// The store is open (in memory, when it fell back).
    StoreReady,
    /// Fetch the conversation view now: there are sessions to show.
    WarmChatView,
    /// The session list, and whether more is stored than read.
    Sessions {
        list: Vec<SessionRecord>,
        has_more: bool,
    },
    /// The first page was read at start: open `first` (the newest), if any.
    Started {
        first: Option<String>,
    },
    /// A session left the list (deleted here or elsewhere): it must not
    /// stay open or be written into.
    Removed(String),
    /// The session deleted here and waiting for its undo window to close.
    PendingDelete(Option<SessionRecord>),
    /// A session was deleted for good: what was kept about it goes too.
    Deleted(String),
    /// A session was renamed and stored (other tabs are told).
    Renamed(String),
    /// A search is sent to the index.
    SearchStarted,
    /// What the search found (`None`: no search).
    SearchResults(Option<SearchResults>),
    /// The search index is being built again.
    Indexing(bool),
    /// The open session (`None`: the session creator).
    Active(Option<String>),
    /// The messages shown, and whether older and later ones exist.
    Messages {
        list: Vec<MessageRecord>,
        has_older: bool,
        has_newer: bool,
    },
    /// Older messages, shown before those shown.
    MessagesPrepended {
        list: Vec<MessageRecord>,
        has_older: bool,
    },
    /// Later messages, shown after those shown.
    MessagesAppended {
        list: Vec<MessageRecord>,
        has_newer: bool,
    },
    /// A session's first page is shown (what is kept per conversation
    /// follows).
    Opened(String),
    /// A message saved by the turn, in its place.
    MessageSaved(MessageRecord),
    MessagesRemoved(Vec<String>),
    /// The message a search hit opened: scrolled to and marked.
    Focus(Option<String>),
    /// A session changed here (the other tabs are told).
    Changed(String),
    Storage(data::StorageInfo),
    Import(data::ImportOutcome),
    /// Sessions were added or changed wholesale here (the other tabs are told).
    SessionsChanged,
    /// A turn runs in this tab, or no longer does.
    Busy(bool),
    /// The next message's attachments.
    Attachments(Vec<attach::Attachment>),
    /// The resource asked for (by its label) is attached.
    Attached(String),
    /// The resource could not be read: it is not attached.
    AttachFailed {
        label: String,
        error: String,
    },
    /// The files attached to the next message.
    Files(Vec<files::LocalFile>),
    /// The composer's message is being sent: the composer empties.
    Sending,
    /// The message was saved: what was attached to it is done with.
    Sent,
    /// The message could not be saved (or the turn's part fetched): its
    /// text (and what was attached) goes back to the composer.
    NotSent(String),
    /// The calls waiting for "may it run?", and of those, the ones whose
    /// tool changed since the user said yes (what was accepted, what it is).
    Approvals {
        awaiting: Vec<String>,
        changes: Vec<(String, Option<Box<air_tools::face::Face>>, air_tools::face::Face)>,
    },
    /// The questions running calls ask, by tool message.
    Questions(Vec<(String, air_tools::Elicitation)>),
    /// The answers other tabs are streaming now.
    RemoteStreams(Vec<String>),
    /// The settings now.
    Settings(Box<air_store::Settings>),
    /// The settings were written.
    PrefsSaved,
    /// The preferences kept changed (written here, or pulled): other tabs read them again.
    PrefsChanged,
    /// Where adding a server stands.
    AddFlow(Box<air_servers::add::AddFlow>),
    /// Where a server's session stands.
    ServerStatus {
        name: String,
        status: air_mcp::Connection,
    },
    /// A server's tools were listed again (the counts), or not.
    Resynced {
        name: String,
        result: Result<air_store::mcp::SyncCounts, servers::SyncFailure>,
    },
    /// The user changed the saved servers (what is built from them follows).
    ServersEdited,
    /// What the doctor found of the model provider.
    ProviderDoctor(air_servers::add::Doctor),
    /// The MCP servers now.
    Servers(Vec<air_store::mcp::McpServer>),
    /// Which servers each chat uses now.
    ChatServers(air_store::mcp::ChatServers),
    /// The assistants, and each chat's picks, now.
    Assistants(air_store::assistants::Assistants),
    /// The servers that wait for a sign-in, and the sign-ins started here.
    SignIns(Box<signin::SignIns>),
    /// The add form a sign-in that took the whole page left: as it was
    /// (it connects again).
    AddFormBack(air_servers::add::Draft),
    /// Open the settings.
    OpenSettings,
    /// The MCP tools the open conversation loaded (dynamic loading).
    LoadedTools(air_dynamic::Loaded),
    /// What dynamic loading did over every conversation.
    Metrics(air_dynamic::Metrics),
    /// What the MCP summarizer in use failed on (the latest failure per
    /// server), shown on the servers' rows.
    SummaryFailures(Vec<dynamic::Failed>),
    /// The providers' models as listed (the picker's).
    ModelLists(air_store::settings::ModelLists),
    /// Where Settings → Test stands.
    ProviderTest(models::Test),
    /// The models the page runs itself: offered, stored, downloading.
    BrowserModels(browser_models::State),
    /// What a picker asked for came.
    Picked(pickers::Found),
    /// The event log, newest first.
    Log(Vec<log::Entry>),
    /// The HTTP tools now.
    HttpTools(Vec<air_store::http_tools::SavedHttpTool>),
    /// An HTTP tool (or an import's picks) was saved: the form empties.
    HttpToolSaved,
    /// Where an OpenAPI import stands.
    HttpImport(http_tools::Importing),
    /// Where sync stands.
    Sync(Box<sync::Status>),
}

/// A deadline's reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Timer {
    /// The undo window of a deleted session closes.
    UndoDelete(String),
    /// The pause in typing after query `ticket` is over (`FIRST_HITS`), or
    /// its first hits are drawn (`ALL_HITS`): so many hits are asked for.
    Search(u64, usize),
    /// Start-up's look at the search index.
    IndexCheck,
    /// An answer another tab streams has had no heartbeat since `beat`
    /// (the bits of its time).
    RemoteQuiet { message_id: String, beat: u64 },
    /// The doctor has had long enough.
    Doctor(servers::Patient),
    /// The event log's batch is written.
    LogFlush,
    /// Sync tries again (under its ticket then).
    SyncRetry(u64),
}

/// The app's state and flows.
pub struct Workspace<P: Platform> {
    p: Rc<P>,
    prefs: prefs::Prefs,
    /// What could not be read of the preferences, said at start.
    unreadable: Vec<String>,
    out: VecDeque<Update>,
    tasks: VecDeque<Task>,
    timers: Vec<(f64, Timer)>,
    sessions: sessions::Sessions,
    search: search::Search,
    chat: chat::Chat,
    turn: turn::Turning,
    tabs: tabs::Tabs,
    attach: attach::Attachments,
    files: files::Files,
    writing: prefs::Writing,
    servers: servers::Servers,
    sign_ins: signin::SignIns,
    dynamic: dynamic::Dynamic,
    models: models::Models,
    browser_models: browser_models::BrowserModels,
    pickers: pickers::Pickers,
    log: log::Log,
    http_tools: http_tools::HttpTools,
    sync: sync::Sync,
    /// What a running turn sees of the core.
    watch: Rc<Watch>,
    /// Kinds of tool a test adds to [`toolbox::kinds`] (the kinds
    /// themselves are made where they are used, in the turn's part and in
    /// Settings', so the first load carries none of their code).
    #[cfg(test)]
    more_kinds: toolbox::Kinds<P>,
    /// [`later::route`], once fetched; the commands waiting for it, in
    /// order; whether it is being fetched.
    route: Rc<std::cell::Cell<Option<Route<P>>>>,
    held: VecDeque<Later>,
    fetching_later: bool,
}

impl<P: Platform> Workspace<P> {
    /// A core with the preferences its platform keeps.
    pub fn new(p: Rc<P>) -> Self {
        let (prefs, unreadable) = prefs::Prefs::load(p.kv());
        Self::with_prefs(p, prefs, unreadable)
    }

    /// A core with preferences read already (and what could not be).
    pub fn with_prefs(p: Rc<P>, prefs: prefs::Prefs, unreadable: Vec<String>) -> Self {
        Self {
            p,
            prefs,
            unreadable,
            out: VecDeque::new(),
            tasks: VecDeque::new(),
            timers: Vec::new(),
            sessions: sessions::Sessions::default(),
            search: search::Search::default(),
            chat: chat::Chat::default(),
            turn: turn::Turning::default(),
            tabs: tabs::Tabs::default(),
            attach: attach::Attachments::default(),
            files: files::Files::default(),
            writing: prefs::Writing::default(),
            servers: servers::Servers::default(),
            sign_ins: signin::SignIns::default(),
            dynamic: dynamic::Dynamic::default(),
            models: models::Models::default(),
            browser_models: browser_models::BrowserModels::default(),
            pickers: pickers::Pickers::default(),
            log: log::Log::default(),
            http_tools: http_tools::HttpTools::default(),
            sync: sync::Sync::default(),
            watch: Rc::default(),
            #[cfg(test)]
            more_kinds: Vec::new(),
            route: Rc::default(),
            held: VecDeque::new(),
            fetching_later: false,
        }
    }

    pub fn platform(&self) -> &Rc<P> {
        &self.p
    }

    /// What the user prefers.
    pub fn prefs(&self) -> &prefs::Prefs {
        &self.prefs
    }

    /// Takes a command; never awaits.
    pub fn handle(&mut self, cmd: Command) {
        match cmd {
            Command::Start => self.start(),
            Command::Sessions(action) => {
                let opened = matches!(action, sessions::Action::Opened { .. });
                if let sessions::Action::Delete(id) | sessions::Action::Gone(id) = &action {
                    // A turn does not keep writing into a session that is gone.
                    turn::session_removed(self, id);
                }
                sessions::handle(self, action);
                if opened {
                    log::opened(self);
                    sync::opened(self);
                    // A model in this page reads the first message's request ahead.
                    turn::read_ahead(self);
                }
            }
            Command::Search(action) => search::handle(self, action),
            Command::Chat(action) => chat::handle(self, action),
            Command::Data(action) => data::handle(self, action),
            Command::Attach(action) => attach::handle(self, action),
            Command::Files(action) => files::handle(self, action),
            Command::Prefs(action) => {
                if let Some(change) = prefs::handle(self, action) {
                    servers::handle(self, servers::Action::Prefs(change));
                }
            }
            Command::Servers(action) => servers::handle(self, action),
            Command::Dynamic(action) => dynamic::handle(self, action),
            Command::Turn(action) => turn::handle(self, action),
            Command::Log(action) => log::handle(self, action),
            Command::SignIn(action) => self.later(Later::SignIn(action)),
            Command::Models(action) => self.later(Later::Models(action)),
            Command::BrowserModels(action) => self.later(Later::BrowserModels(action)),
            Command::Pickers(action) => self.later(Later::Pickers(action)),
            Command::HttpTools(action) => self.later(Later::HttpTools(action)),
            Command::Sync(action) => self.later(Later::Sync(action)),
            Command::OtherTab(event) => tabs::heard(self, event),
            Command::Tell(notice) => self.emit(Update::Notice(notice)),
            Command::LaterFetched => self.later_fetched(),
        }
    }

    fn start(&mut self) {
        for why in std::mem::take(&mut self.unreadable) {
            self.emit(Update::Notice(Notice::PrefsUnreadable(why)));
        }
        sessions::start(self);
        servers::handle(self, servers::Action::Connect);
        signin::resume(self);
        http_tools::loading(self);
    }

    /// Fires the timers due at `now_ms`.
    pub fn handle_timeout(&mut self, now_ms: f64) {
        let (due, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.timers).into_iter().partition(|(at, _)| *at <= now_ms);
        self.timers = later;
        for (_, timer) in due {
            match timer {
                Timer::UndoDelete(id) => sessions::undo_window_closed(self, id),
                Timer::Search(ticket, limit) => search::run(self, ticket, limit),
                Timer::IndexCheck => search::check(self),
                Timer::RemoteQuiet { message_id, beat } => tabs::quiet(self, message_id, f64::from_bits(beat)),
                Timer::Doctor(who) => servers::doctor_late(self, who),
                Timer::LogFlush => log::due(self),
                Timer::SyncRetry(ticket) => self.later(Later::Sync(sync::Action::Retry(ticket))),
            }
        }
    }

    /// The next update, in order.
    pub fn poll_update(&mut self) -> Option<Update> {
        self.out.pop_front()
    }

    /// The next task to run.
    pub fn poll_task(&mut self) -> Option<Task> {
        self.tasks.pop_front()
    }

    /// The earliest deadline, in milliseconds since the epoch.
    pub fn poll_timeout(&self) -> Option<f64> {
        self.timers.iter().map(|(at, _)| *at).reduce(f64::min)
    }

    /// The open session.
    pub fn active(&self) -> Option<&str> {
        self.chat.active.as_deref()
    }

    /// Reads the next message's request ahead, for a model in this page
    /// ([`turn::Job::Warm`]).
    fn read_ahead(&mut self) {
        turn::read_ahead(self);
    }

    /// A tool round a closed tab left waiting is picked up.
    fn resume_turn(&mut self) {
        turn::handle(self, turn::Action::Start(turn_env::Job::Resume));
    }

    /// The new chat became session `id`: its choice of servers and
    /// assistant is now the session's (the servers' engine decides).
    /// The list is read again (what came in shows).
    fn reload_sessions(&mut self) {
        sessions::handle(self, sessions::Action::Reload);
    }

    /// The open session is read again.
    fn reopen(&mut self) {
        chat::handle(self, chat::Action::Reopen);
    }

    fn session_began(&mut self, id: &str) {
        servers::handle(self, servers::Action::SessionBegan(id.to_owned()));
    }

    /// Session `id` was deleted for good: what was kept about it goes too.
    fn session_gone(&mut self, id: &str) {
        servers::handle(self, servers::Action::SessionGone(id.to_owned()));
        dynamic::forget(self, id.to_owned());
    }

    /// The next message has attachments (resources or files).
    fn attach_pending(&self) -> bool {
        self.attach.has_any() || self.files.has_any()
    }

    /// A turn runs.
    pub fn busy(&self) -> bool {
        self.turn.busy()
    }

    /// The sessions read so far, in the list's order.
    pub fn sessions(&self) -> &[SessionRecord] {
        &self.sessions.list
    }

    fn emit(&mut self, u: Update) {
        // Whatever deletes (or brings back) a session says so here.
        if let Update::PendingDelete(p) = &u {
            *self.watch.deleting.borrow_mut() = p.as_ref().map(|s| s.id.clone());
        }
        self.out.push_back(u);
    }

    fn spawn(&mut self, f: impl std::future::Future<Output = Option<Command>> + 'static) {
        self.tasks.push_back(Task(Box::pin(f)));
    }

    fn after(&mut self, ms: u64, timer: Timer) {
        let at = self.p.now_ms() + ms as f64;
        self.timers.push((at, timer));
    }
}
