//! Application state: small `Copy` bundles of signals, one per concern
//! ([`Shell`], [`PrefSignals`], [`SessionList`], [`Conversation`]), each in
//! context, and [`AppState`], all four, for the actions that span them.

use std::rc::Rc;

use air_store::keys::SIDEBAR_COLLAPSED;
use air_store::{MessageRecord, SessionRecord, Settings};
use air_web::{LocalStorageKv, narrow_screen};
use leptos::prelude::*;

use air_store::sync::SyncEvent;

/// The answer being streamed right now. The view keeps no copy of its
/// text: it renders what arrived since its last frame (`text_new`,
/// `reasoning_new`, which it takes) and keeps only the unfinished tail.
/// Hands the workspace core a command.
type Dispatch = fn(AppState, air_workspace::Command);

/// A tool whose face changed since the user approved it: its name, the
/// face approved (where still known) and the face now.
pub type FaceChange = (String, Option<Box<air_tools::face::Face>>, air_tools::face::Face);

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Streaming {
    /// Tells one stream from the next (a continued answer streams again
    /// under the same message id).
    pub run: u32,
    pub session_id: String,
    pub message_id: String,
    pub model: String,
    /// How long the answer and its reasoning are so far.
    pub text_len: usize,
    pub reasoning_len: usize,
    /// What arrived and is not drawn yet.
    pub text_new: String,
    pub reasoning_new: String,
    /// What the request is waiting for (e.g. a rate-limit retry).
    pub status: Option<String>,
    /// This is a Transitive Thinking chain, not the answer.
    pub thought: bool,
}

/// The page's frame: the store, notices, the channel to other tabs, and
/// what Settings says about stored data.
#[derive(Clone, Copy)]
pub struct Shell {
    /// The store is still opening.
    pub loading: RwSignal<bool>,
    /// A problem to show at the top of the page (storage, settings).
    pub notice: RwSignal<Option<String>>,
    /// Tells other tabs what this one wrote.
    channel: StoredValue<Option<Rc<air_web::channel::Channel>>, LocalStorage>,
    /// Storage usage, quota and persistence, as a sentence for Settings.
    pub storage_line: RwSignal<String>,
    /// What the last import did.
    pub import_result: RwSignal<Option<String>>,
    /// The last import failed: its line is an error, not a hint.
    pub import_failed: RwSignal<bool>,
    /// The event log as last shown (Settings), newest first.
    pub event_log: RwSignal<Vec<air_workspace::log::Entry>>,
    /// Where sync stands (Settings → Sync; `None` until it is first told).
    pub sync: RwSignal<Option<air_workspace::sync::Status>>,
    /// A new version of the app is installed and waits for a reload.
    pub update_ready: RwSignal<bool>,
    /// Hands the workspace core a command (the binding, once started).
    dispatcher: StoredValue<Option<Dispatch>>,
}

/// Settings (saved in localStorage) and how the page is laid out.
#[derive(Clone, Copy)]
pub struct PrefSignals {
    pub settings: RwSignal<Settings>,
    /// The MCP servers the user added (localStorage, saved as they change).
    pub mcp_servers: RwSignal<Vec<air_store::mcp::McpServer>>,
    /// Which of them each chat uses (localStorage).
    pub mcp_chat: RwSignal<air_store::mcp::ChatServers>,
    /// The assistants, and which one each chat uses (localStorage).
    pub assistants: RwSignal<air_store::assistants::Assistants>,
    /// Where each server's session stands, by server name.
    pub mcp_status: RwSignal<std::collections::HashMap<String, air_mcp::Connection>>,
    /// Where adding a server stands (the core's flow).
    pub add_flow: RwSignal<air_servers::add::AddFlow>,
    /// The last listing again: by server, its counts or why not.
    pub resynced: RwSignal<Option<(String, Result<air_store::mcp::SyncCounts, air_workspace::servers::SyncFailure>)>>,
    /// What the doctor found of the model provider.
    pub provider_doctor: RwSignal<air_servers::add::Doctor>,
    /// The servers that wait for a sign-in, and the sign-ins started here.
    pub sign_ins: RwSignal<air_workspace::signin::SignIns>,
    /// The add form a sign-in that took the whole page left, to refill.
    pub add_form_back: RwSignal<Option<air_servers::add::Draft>>,
    /// The providers' models as listed (the top bar's picker).
    pub model_lists: RwSignal<air_store::settings::ModelLists>,
    /// Where Settings → Test stands.
    pub provider_test: RwSignal<air_workspace::models::Test>,
    /// Settings → Provider → In this browser: offered, stored, downloading.
    pub browser_models: RwSignal<air_workspace::browser_models::State>,
    /// What the MCP summarizer failed on, per server (the core's).
    pub summary_failures: RwSignal<Vec<air_workspace::dynamic::Failed>>,
    /// Settings → HTTP tools: the saved ones, the form, the import.
    pub http_tools: HttpTools,
    pub settings_open: RwSignal<bool>,
    pub sidebar_collapsed: RwSignal<bool>,
}

/// The list of sessions and which one is open.
#[derive(Clone, Copy)]
pub struct SessionList {
    /// The sessions read so far, newest activity first: the first pages
    /// of the list, and any other session opened (a search hit).
    pub list: RwSignal<Vec<SessionRecord>>,
    /// More sessions are stored than read.
    pub has_more: RwSignal<bool>,
    pub active: RwSignal<Option<String>>,
    /// The sidebar's search text, and what it found (`None`: no search,
    /// or still searching).
    pub search: RwSignal<String>,
    pub search_results: RwSignal<Option<air_store::search::SearchResults>>,
    /// The search index is being built again.
    pub indexing: RwSignal<bool>,
    /// A session the user deleted, kept until the undo window closes.
    pub pending_delete: RwSignal<Option<SessionRecord>>,
}

/// The open conversation, the composer, and the turn in progress.
#[derive(Clone, Copy)]
pub struct Conversation {
    /// Finished messages of the active session, in order: the last page(s).
    pub messages: RwSignal<Vec<MessageRecord>>,
    /// Earlier messages exist that are not loaded.
    pub has_older: RwSignal<bool>,
    /// Later messages exist that are not loaded (a stretch around a
    /// search hit is shown).
    pub has_newer: RwSignal<bool>,
    /// The message a search result opened: scrolled to and marked.
    pub focus: RwSignal<Option<String>>,
    pub streaming: RwSignal<Option<Streaming>>,
    /// A turn is in progress in this tab (from the click until the answer
    /// is stored): one at a time.
    pub busy: RwSignal<bool>,
    /// Tool messages whose call waits for the user's approval in this tab.
    pub awaiting: RwSignal<Vec<String>>,
    /// Of those, the ones that ask because the server changed the tool
    /// since the user approved it: the face approved (where still known)
    /// and the face now, compared where shown.
    pub changes: RwSignal<Vec<FaceChange>>,
    /// How far running calls have come, by tool message id.
    pub progress: RwSignal<std::collections::HashMap<String, air_tools::Progress>>,
    /// Questions running calls ask the user (MCP elicitation), by tool
    /// message id.
    pub questions: RwSignal<Vec<(String, air_tools::Elicitation)>>,
    /// Messages another tab is streaming into right now.
    pub remote_streams: RwSignal<Vec<String>>,
    /// The composer's text.
    pub draft: RwSignal<String>,
    /// Resources attached to the next message (the core's list).
    pub attachments: RwSignal<Vec<Attachment>>,
    /// The last resource asked to be attached, by label: attached
    /// (`None`) or why not.
    pub attach_outcome: RwSignal<Option<(String, Option<String>)>>,
    /// Files from this machine attached to the next message.
    pub files: RwSignal<Vec<LocalFile>>,
    /// The MCP tools this conversation loaded (dynamic loading).
    pub loaded_tools: RwSignal<air_dynamic::Loaded>,
    /// Dynamic loading's metrics over every conversation.
    pub metrics_overall: RwSignal<air_dynamic::Metrics>,
    /// What a composer's picker asked for, as it came.
    pub picked: RwSignal<Option<air_workspace::pickers::Found>>,
}

pub use air_workspace::attach::Attachment;
pub use air_workspace::files::{LocalFile, LocalKind};

/// The four concerns together, for the actions that span them (opening a
/// session, a turn, syncing with other tabs). Each is also in context on
/// its own, and views take only the ones they show.
#[derive(Clone, Copy)]
pub struct AppState {
    pub shell: Shell,
    pub prefs: PrefSignals,
    pub sessions: SessionList,
    pub chat: Conversation,
}

thread_local! {
    static READY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

thread_local! {
    /// Draws the streaming answer now (set by the conversation view, a
    /// lazily loaded part: the main module does not carry the renderer).
    static DRAW_NOW: std::cell::Cell<Option<fn(AppState)>> = const { std::cell::Cell::new(None) };
}

/// The conversation view says how to draw the streaming answer at once.
pub fn set_draw_now(draw: fn(AppState)) {
    DRAW_NOW.with(|d| d.set(Some(draw)));
}

/// Draws what arrived of the streaming answer now, if the view that does
/// it was loaded.
pub fn draw_now(state: AppState) {
    if let Some(draw) = DRAW_NOW.with(std::cell::Cell::get) {
        draw(state);
    }
}

/// Marks the first usable screen (`air-ready`, read by the benchmarks), once.
pub fn mark_ready() {
    if !READY.with(|r| r.replace(true)) {
        air_web::perf_mark("air-ready");
    }
}

pub fn use_app() -> AppState {
    expect_context::<AppState>()
}

pub fn use_prefs() -> PrefSignals {
    expect_context::<PrefSignals>()
}

pub fn use_sessions() -> SessionList {
    expect_context::<SessionList>()
}

pub fn use_chat() -> Conversation {
    expect_context::<Conversation>()
}

pub fn use_shell() -> Shell {
    expect_context::<Shell>()
}

impl AppState {
    /// Creates the state from the preferences read before the first screen.
    pub fn init(prefs: &air_workspace::prefs::Prefs) -> Self {
        let kv = LocalStorageKv;
        let collapsed = SIDEBAR_COLLAPSED.get(&kv).unwrap_or_else(narrow_screen);
        let state = Self {
            shell: Shell {
                loading: RwSignal::new(true),
                notice: RwSignal::new(None),
                channel: StoredValue::new_local(None),
                storage_line: RwSignal::new(String::new()),
                import_result: RwSignal::new(None),
                import_failed: RwSignal::new(false),
                event_log: RwSignal::new(Vec::new()),
                sync: RwSignal::new(None),
                update_ready: RwSignal::new(false),
                dispatcher: StoredValue::new(None),
            },
            prefs: PrefSignals {
                settings: RwSignal::new(prefs.settings.clone()),
                mcp_servers: RwSignal::new(prefs.servers.clone()),
                mcp_chat: RwSignal::new(prefs.chat_servers.clone()),
                assistants: RwSignal::new(prefs.assistants.clone()),
                mcp_status: RwSignal::new(Default::default()),
                sign_ins: RwSignal::new(Default::default()),
                add_form_back: RwSignal::new(None),
                model_lists: RwSignal::new(Default::default()),
                provider_test: RwSignal::new(Default::default()),
                browser_models: RwSignal::new(Default::default()),
                summary_failures: RwSignal::new(Vec::new()),
                http_tools: HttpTools::new(prefs.http_tools.list().map_or(&[][..], Vec::as_slice)),
                add_flow: RwSignal::new(Default::default()),
                resynced: RwSignal::new(None),
                provider_doctor: RwSignal::new(Default::default()),
                settings_open: RwSignal::new(false),
                sidebar_collapsed: RwSignal::new(collapsed),
            },
            sessions: SessionList {
                list: RwSignal::new(Vec::new()),
                has_more: RwSignal::new(false),
                active: RwSignal::new(None),
                search: RwSignal::new(String::new()),
                search_results: RwSignal::new(None),
                indexing: RwSignal::new(false),
                pending_delete: RwSignal::new(None),
            },
            chat: Conversation {
                messages: RwSignal::new(Vec::new()),
                has_older: RwSignal::new(false),
                has_newer: RwSignal::new(false),
                focus: RwSignal::new(None),
                streaming: RwSignal::new(None),
                busy: RwSignal::new(false),
                awaiting: RwSignal::new(Vec::new()),
                changes: RwSignal::new(Vec::new()),
                progress: RwSignal::new(Default::default()),
                questions: RwSignal::new(Vec::new()),
                attachments: RwSignal::new(Vec::new()),
                attach_outcome: RwSignal::new(None),
                files: RwSignal::new(Vec::new()),
                loaded_tools: RwSignal::new(air_dynamic::Loaded::default()),
                metrics_overall: RwSignal::new(air_dynamic::Metrics::default()),
                picked: RwSignal::new(None),
                remote_streams: RwSignal::new(Vec::new()),
                draft: RwSignal::new(String::new()),
            },
        };
        provide_context(state);
        provide_context(state.shell);
        provide_context(state.prefs);
        provide_context(state.sessions);
        provide_context(state.chat);
        state
    }

    /// The channel to the other tabs.
    pub fn set_channel(&self, channel: Option<Rc<air_web::channel::Channel>>) {
        self.shell.channel.set_value(channel);
    }

    /// Hands the workspace core a command.
    pub fn dispatch(self, cmd: air_workspace::Command) {
        if let Some(dispatch) = self.shell.dispatcher.get_value() {
            dispatch(self, cmd);
        }
    }

    /// The binding takes the core's commands from now on.
    pub fn set_dispatcher(self, dispatch: fn(AppState, air_workspace::Command)) {
        self.shell.dispatcher.set_value(Some(dispatch));
    }

    /// Shows alternative `alt` after the fork `fork` of the open chat
    /// (‹ 2 / 3 ›): the session records it, and the chat is read again.
    pub fn switch_branch(self, fork: String, alt: u32) {
        self.dispatch(air_workspace::Command::Chat(air_workspace::chat::Action::SwitchBranch { fork, alt }));
    }

    /// Tells the other tabs about a change.
    pub fn broadcast(&self, event: SyncEvent) {
        if let Some(channel) = self.shell.channel.get_value() {
            channel.post(&event.to_json());
        }
    }

    /// Reads the next page of the session list (the sidebar scrolled near
    /// its end).
    pub fn load_more_sessions(self) {
        self.dispatch(air_workspace::Command::Sessions(air_workspace::sessions::Action::LoadMore));
    }

    /// Loads the page of messages before the first one shown.
    pub fn load_older(self) {
        self.dispatch(air_workspace::Command::Chat(air_workspace::chat::Action::Older));
    }

    /// Loads the page of messages after the last one shown.
    pub fn load_newer(self) {
        self.dispatch(air_workspace::Command::Chat(air_workspace::chat::Action::Newer));
    }

    pub fn select_session(self, id: String) {
        if narrow_screen() {
            self.set_sidebar_collapsed(true);
        }
        self.dispatch(air_workspace::Command::Chat(air_workspace::chat::Action::Open(id)));
    }

    /// Shows the session creator; the session is created with its first message.
    pub fn new_session(self) {
        if narrow_screen() {
            self.set_sidebar_collapsed(true);
        }
        self.dispatch(air_workspace::Command::Chat(air_workspace::chat::Action::New));
    }

    /// Hides a session at once and deletes it for good after a while,
    /// unless [`AppState::undo_delete`] is called first.
    pub fn delete_session(self, id: String) {
        self.dispatch(air_workspace::Command::Sessions(air_workspace::sessions::Action::Delete(id)));
    }

    pub fn undo_delete(self) {
        self.dispatch(air_workspace::Command::Sessions(air_workspace::sessions::Action::UndoDelete));
    }

    pub fn rename_session(self, id: String, title: String) {
        self.dispatch(air_workspace::Command::Sessions(air_workspace::sessions::Action::Rename { id, title }));
    }

    /// Searches every message and title through the store's index (after
    /// a pause in typing); results land in `search_results`.
    pub fn run_search(self, query: String) {
        self.sessions.search.set(query.clone());
        self.dispatch(air_workspace::Command::Search(air_workspace::search::Action::Query(query)));
    }

    /// Opens a session at one of its messages (a search result): pages of
    /// older messages are read until it is there, then it is shown.
    pub fn open_at(self, session_id: String, message_id: Option<String>) {
        if narrow_screen() {
            self.set_sidebar_collapsed(true);
        }
        self.dispatch(air_workspace::Command::Chat(air_workspace::chat::Action::OpenAt { session: session_id, message: message_id }));
    }

    pub fn set_sidebar_collapsed(self, collapsed: bool) {
        self.prefs.sidebar_collapsed.set(collapsed);
        let _ = SIDEBAR_COLLAPSED.set(&LocalStorageKv, &Some(collapsed));
    }

    /// An MCP servers' action (the core decides; the signals follow).
    pub fn servers(self, action: air_workspace::servers::Action) {
        self.dispatch(air_workspace::Command::Servers(action));
    }

    /// Changes a preference (the core saves it, and the signals follow).
    pub fn change_prefs(self, change: air_workspace::prefs::Change) {
        self.dispatch(air_workspace::Command::Prefs(air_workspace::prefs::Action::Change(change)));
    }

    /// The settings of a turn in the open chat: its assistant's over the
    /// user's, and the model picked for it in the top bar over both.
    pub fn turn_settings(&self) -> Settings {
        let chat = self.chat_key();
        self.prefs.settings.with_untracked(|settings| self.prefs.assistants.with_untracked(|a| a.for_chat(&chat, settings)))
    }

    /// The key of the open chat's server choice.
    pub fn chat_key(&self) -> String {
        self.sessions.active.get_untracked().unwrap_or_else(|| air_store::mcp::NEW_CHAT.to_owned())
    }

    /// Saves the settings (through the core; the signal follows).
    pub fn save_settings(self, new: Settings) {
        self.change_prefs(air_workspace::prefs::Change::Settings(Box::new(new)));
    }

    /// UI texts in the current language (untracked; for async tasks).
    pub fn t(&self) -> &'static air_i18n::Text {
        air_i18n::text(self.chat_lang())
    }

    /// The later texts (those of parts fetched on first use), likewise.
    pub fn tl(&self) -> &'static air_i18n::Later {
        air_i18n::later(self.chat_lang())
    }

    /// The language for messages built in the core crates.
    pub fn chat_lang(&self) -> air_chat::Lang {
        self.prefs.settings.with_untracked(|s| s.language.into())
    }

    /// Shows a problem, choosing the storage-full text when that is the cause.
    pub fn report(&self, template: &str, error: &air_store::StoreError) {
        let text = match error {
            air_store::StoreError::QuotaExceeded(_) => self.t().err_storage_full.to_owned(),
            other => template.replace("{e}", &other.to_string()),
        };
        self.shell.notice.set(Some(text));
    }

    pub fn is_busy(&self) -> bool {
        self.chat.busy.get_untracked()
    }

    /// Stops the turn: the request being streamed is aborted (what arrived
    /// is kept), a running tool call is abandoned, the questions it asked
    /// go unanswered, and no further request of this turn is made.
    pub fn stop(self) {
        self.dispatch(air_workspace::Command::Turn(air_workspace::turn::Action::Stop));
    }
}

/// The signals of Settings → HTTP tools.
#[derive(Clone, Copy)]
pub struct HttpTools {
    pub list: RwSignal<Vec<air_store::http_tools::SavedHttpTool>>,
    /// Why the last tool was not saved (`None`: it was, or none was tried).
    pub error: RwSignal<Option<String>>,
    /// Counts the saves: the form empties when it moves.
    pub saved: RwSignal<u32>,
    pub import: RwSignal<air_workspace::http_tools::Importing>,
}

impl HttpTools {
    pub fn new(saved: &[air_store::http_tools::SavedHttpTool]) -> Self {
        Self { list: RwSignal::new(saved.to_vec()), error: RwSignal::new(None), saved: RwSignal::new(0), import: RwSignal::new(air_workspace::http_tools::Importing::Idle) }
    }
}
