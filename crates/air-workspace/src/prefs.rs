//! The user's preferences, kept in the small key/value store: the
//! settings, the MCP servers, which servers each chat uses, and the
//! assistants (with the one, the model and the provider profile each chat
//! picked). Read once before the first screen ([`Prefs::load`]), changed
//! only here ([`Change`]), shown at once and written as they change (one
//! write at a time, through the platform: [`write`]).
//!
//! What else a change means is decided here too: a new chat's choices
//! become its session's when it is created, a deleted session's are
//! forgotten, what a turn learnt of a provider is kept. The servers'
//! changes (and the user's yes to a tool) are `servers`'.

use air_store::assistants::{Assistant, Assistants};
use air_store::mcp::{ChatServers, McpServer};
use air_store::settings::ToolCalling;
use air_store::{KeyValue, Settings, StoreError};

use crate::{Command, Missing, Notice, Platform, StoreOp, Update, Workspace};

/// What the user prefers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prefs {
    pub settings: Settings,
    pub servers: Vec<McpServer>,
    pub chat_servers: ChatServers,
    pub assistants: Assistants,
    /// The HTTP tools the user saved (`crate::http_tools`): read after
    /// start-up, in a part fetched then.
    pub http_tools: air_store::http_tools::Saved,
}

/// What a turn runs with, from the preferences when it starts
/// ([`Prefs::turn_inputs`]).
#[derive(Debug, Clone)]
pub struct Inputs {
    /// The chat's settings (its assistant's over the user's, and the
    /// model picked for it).
    pub settings: Box<air_store::Settings>,
    /// The servers whose tools it offers: the chat's, or with dynamic
    /// loading every enabled one (offered once loaded).
    pub servers: Vec<air_store::mcp::McpServer>,
    pub dynamic: bool,
    /// With dynamic loading, the tools (server, tool) the chat's assistant
    /// preloads.
    pub preload: Vec<(String, String)>,
    /// The HTTP tools; the enabled ones are offered as they are, dynamic
    /// loading or not: they are few and the user's own
    /// ([`crate::http_tools::register`]).
    pub http_tools: air_store::http_tools::Saved,
    /// Code may run in the page's sandbox (the chat's assistant may say no).
    pub code: bool,
}

impl Prefs {
    /// The settings of a turn in `chat`: its assistant's over the user's,
    /// and the profile and model picked for it over both.
    pub fn turn_settings(&self, chat: &str) -> Settings {
        self.assistants.for_chat(chat, &self.settings)
    }

    /// The enabled MCP servers `chat` uses (and its assistant allows).
    pub fn chat_servers(&self, chat: &str) -> Vec<McpServer> {
        air_store::assistants::servers_of_chat(&self.servers, &self.chat_servers, self.assistants.of_chat(chat), chat)
    }

    /// Dynamic loading is on in `chat` (the settings' switch; its
    /// assistant may turn it off for itself).
    pub fn dynamic_on(&self, chat: &str) -> bool {
        air_dynamic::enabled(self.settings.dynamic_mcp_loading, self.assistants.of_chat(chat).map(|a| a.dynamic_loading))
    }

    /// What a turn in `chat` runs with.
    pub fn turn_inputs(&self, chat: &str) -> Inputs {
        let dynamic = self.dynamic_on(chat);
        Inputs {
            settings: Box::new(self.turn_settings(chat)),
            // With dynamic loading every enabled server is offered, through the loaders.
            servers: if dynamic { self.servers.iter().filter(|s| s.enabled).cloned().collect() } else { self.chat_servers(chat) },
            dynamic,
            preload: if dynamic { self.assistants.of_chat(chat).map(|a| a.preload.clone()).unwrap_or_default() } else { Vec::new() },
            http_tools: self.http_tools.clone(),
            code: self.assistants.of_chat(chat).is_none_or(|a| a.code),
        }
    }

    /// Reads what is kept; what could not be read is said (defaults are
    /// in use, and the unreadable value was kept aside).
    pub fn load(kv: &impl KeyValue) -> (Self, Vec<String>) {
        let loaded = air_store::settings::load(kv);
        let (servers, servers_warning) = air_store::mcp::load(kv);
        let http_tools = air_store::http_tools::Saved::kept(kv);
        let prefs = Self { settings: loaded.settings, servers, chat_servers: ChatServers::load(kv), assistants: Assistants::load(kv), http_tools };
        (prefs, loaded.warning.into_iter().chain(servers_warning).collect())
    }
}

/// A change the user (or a turn) makes.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    Settings(Box<Settings>),
    /// Chat `chat` uses `server`, or not.
    ChatServer {
        chat: String,
        server: String,
        on: bool,
    },
    /// No chat mentions `server` any more (removed, or renamed away).
    ForgetServer(String),
    /// Chat `chat` uses assistant `id` (`None`: none).
    PickAssistant {
        chat: String,
        id: Option<String>,
    },
    /// Adds an assistant, or replaces the one with its id.
    PutAssistant(Box<Assistant>),
    DeleteAssistant(String),
    /// The model picked for chat `chat` in the top bar (`None`: the usual).
    PickModel {
        chat: String,
        model: Option<String>,
    },
    /// The provider profile picked for chat `chat`.
    PickProfile {
        chat: String,
        id: Option<String>,
    },
    /// A turn learnt whether a model calls tools natively.
    ToolCallingLearnt {
        key: String,
        calling: ToolCalling,
    },
    /// A turn learnt whether a model takes images.
    VisionLearnt {
        key: String,
        vision: bool,
    },
}

/// Which of the preferences a change touched (to save, and to show).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Touched {
    pub settings: bool,
    pub servers: bool,
    pub chat_servers: bool,
    pub assistants: bool,
    pub http_tools: bool,
}

impl Touched {
    fn any(self) -> bool {
        self.settings || self.servers || self.chat_servers || self.assistants || self.http_tools
    }

    pub(crate) fn and(self, other: Touched) -> Touched {
        Touched {
            settings: self.settings || other.settings,
            servers: self.servers || other.servers,
            chat_servers: self.chat_servers || other.chat_servers,
            assistants: self.assistants || other.assistants,
            http_tools: self.http_tools || other.http_tools,
        }
    }
}

/// Writing the preferences: one write at a time, of what changed since.
#[derive(Debug, Default)]
pub(crate) struct Writing {
    busy: bool,
    dirty: Touched,
}

/// Writes what `touched` names of `prefs` into the key/value store (the
/// platform runs it in a part of its own: the first screen reads the
/// preferences, it does not write them).
pub fn write(kv: &impl KeyValue, prefs: &Prefs, touched: Touched) -> Result<(), StoreError> {
    let mut failed = None;
    let mut keep = |r: air_store::Result<()>| {
        if let Err(e) = r {
            failed.get_or_insert(e);
        }
    };
    if touched.settings {
        keep(air_store::settings::save(kv, &prefs.settings));
    }
    if touched.servers {
        keep(air_store::mcp::save(kv, &prefs.servers));
    }
    if touched.chat_servers {
        keep(prefs.chat_servers.save(kv));
    }
    if touched.assistants {
        keep(prefs.assistants.save(kv));
    }
    if touched.http_tools {
        keep(air_store::http_tools::save(kv, &prefs.http_tools));
    }
    failed.map_or(Ok(()), Err)
}

/// Whether `change` is the settings the drawer saved: made at once. The
/// others are decided by the servers' engine, which the first screen
/// does not carry ([`apply`], [`session`]).
pub fn is_settings(change: &Change) -> bool {
    matches!(change, Change::Settings(_))
}

/// What the preferences are asked, and the answer of their writing.
#[derive(Debug)]
pub enum Action {
    /// Change a preference (saved at once).
    Change(Change),
    /// The preferences `touched` were written, or not.
    Written { touched: Touched, result: Result<Result<(), StoreError>, Missing> },
}

/// Handles `action`; a change that is not the settings' comes back, for
/// the servers' engine to decide.
pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) -> Option<Change> {
    match action {
        Action::Change(change) if is_settings(&change) => self::change(w, change),
        Action::Change(change) => return Some(change),
        Action::Written { touched, result } => written(w, touched, result),
    }
    None
}

/// The settings the drawer saved.
fn change<P: Platform>(w: &mut Workspace<P>, change: Change) {
    if let Change::Settings(s) = change {
        w.prefs.settings = *s;
        save(w, Touched { settings: true, ..Touched::default() });
        // Dynamic loading may have been switched on, or a summarizer chosen.
        crate::dynamic::handle(w, crate::dynamic::Action::Refresh);
    }
}

/// The drawer's `draft` after the saved settings went from `base` to
/// `now` behind it (sync pulled an edit, another tab saved, the user
/// accepted a changed tool): what the user has not touched follows, what
/// they changed stays theirs, field by field and inside nested fields (a
/// policy accepted behind the drawer and one the user changed in it both
/// stay).
pub fn rebase(draft: &Settings, base: &Settings, now: &Settings) -> Settings {
    use serde_json::Value;
    let (Ok(Value::Object(mut d)), Ok(Value::Object(b)), Ok(Value::Object(n))) = (serde_json::to_value(draft), serde_json::to_value(base), serde_json::to_value(now)) else {
        return draft.clone();
    };
    merge(&mut d, &b, &n);
    serde_json::from_value(Value::Object(d)).unwrap_or_else(|_| draft.clone())
}

/// Three-way merge of JSON objects: `d` (ours) gets what changed from `b`
/// to `n` where it did not change itself.
fn merge(d: &mut serde_json::Map<String, serde_json::Value>, b: &serde_json::Map<String, serde_json::Value>, n: &serde_json::Map<String, serde_json::Value>) {
    use serde_json::Value;
    for (k, v) in n {
        let untouched = d.get(k) == b.get(k);
        match (d.get_mut(k), b.get(k), v) {
            (Some(Value::Object(dv)), Some(Value::Object(bv)), Value::Object(nv)) if !untouched => merge(dv, bv, nv),
            _ if untouched => {
                d.insert(k.clone(), v.clone());
            }
            _ => {}
        }
    }
    d.retain(|k, v| n.contains_key(k) || b.get(k) != Some(v));
}

/// What a change that is not the settings' does (the engine's part).
pub fn apply(p: &mut Prefs, change: Change) -> Touched {
    let chats = Touched { chat_servers: true, ..Touched::default() };
    let assistants = Touched { assistants: true, ..Touched::default() };
    match change {
        Change::ChatServer { chat, server, on } => {
            p.chat_servers.set(&chat, &server, on);
            chats
        }
        Change::ForgetServer(server) => {
            p.chat_servers.forget_server(&server);
            chats
        }
        Change::PickAssistant { chat, id } => {
            p.assistants.pick(&chat, id.as_deref());
            assistants
        }
        Change::PutAssistant(a) => {
            p.assistants.put(*a);
            assistants
        }
        Change::DeleteAssistant(id) => {
            p.assistants.delete(&id);
            assistants
        }
        Change::PickModel { chat, model } => {
            // The usual model picked is no pick: the chat follows its
            // assistant or the settings again.
            let usual = p.assistants.usual_model(&chat, &p.settings);
            p.assistants.pick_model(&chat, model.as_deref().filter(|m| m.trim() != usual));
            assistants
        }
        Change::PickProfile { chat, id } => {
            p.assistants.pick_profile(&chat, id.as_deref());
            assistants
        }
        Change::ToolCallingLearnt { key, calling } => {
            p.settings.probed_tool_calling.insert(key, calling);
            Touched { settings: true, ..Touched::default() }
        }
        Change::VisionLearnt { key, vision } => {
            p.settings.vision.insert(key, vision);
            Touched { settings: true, ..Touched::default() }
        }
        // (The core's own: see `change`.)
        Change::Settings(_) => Touched::default(),
    }
}

/// A session began (`Some`: the new chat became session `id`, whose
/// choice of servers and assistant it now is) or was deleted for good
/// (what was kept about it goes too). The engine's part.
pub fn session(p: &mut Prefs, began: Option<&str>, deleted: Option<&str>) -> Touched {
    if let Some(id) = began {
        p.chat_servers.started(id);
        p.assistants.started(id);
    }
    if let Some(id) = deleted {
        p.chat_servers.forget(id);
        p.assistants.forget(id);
    }
    Touched { chat_servers: true, assistants: true, ..Touched::default() }
}

/// Says what changed and has it written (after the write under way, if
/// any: what changed meanwhile is written then, as it is then).
pub(crate) fn save<P: Platform>(w: &mut Workspace<P>, t: Touched) {
    show(w, t);
    w.writing.dirty = w.writing.dirty.and(t);
    write_next(w);
}

/// Shows what `t` names of the preferences as they are.
pub(crate) fn show<P: Platform>(w: &mut Workspace<P>, t: Touched) {
    if t.settings {
        let settings = Box::new(w.prefs.settings.clone());
        w.emit(Update::Settings(settings));
    }
    if t.servers {
        let list = w.prefs.servers.clone();
        w.emit(Update::Servers(list));
    }
    if t.chat_servers {
        let chat = w.prefs.chat_servers.clone();
        w.emit(Update::ChatServers(chat));
    }
    if t.assistants {
        let all = w.prefs.assistants.clone();
        w.emit(Update::Assistants(all));
    }
    if let Some(list) = w.prefs.http_tools.list().filter(|_| t.http_tools) {
        let list = list.clone();
        w.emit(Update::HttpTools(list));
    }
}

fn write_next<P: Platform>(w: &mut Workspace<P>) {
    if w.writing.busy || !w.writing.dirty.any() {
        return;
    }
    w.writing.busy = true;
    let touched = std::mem::take(&mut w.writing.dirty);
    let writing = w.p.write_prefs(w.prefs.clone(), touched);
    w.spawn(async move { Some(Command::Prefs(Action::Written { touched, result: writing.await })) });
}

/// A write ended: a failure is said (what it was to write is tried again
/// with the next change), success too (a notice about saving may go).
fn written<P: Platform>(w: &mut Workspace<P>, touched: Touched, result: Result<Result<(), StoreError>, Missing>) {
    w.writing.busy = false;
    match result {
        // (As ever: settings saved take the notice away, a storage-full one.)
        Ok(Ok(())) => {
            if touched.settings {
                w.emit(Update::PrefsSaved);
            }
            // The other tabs read them again.
            w.emit(Update::PrefsChanged);
        }
        Ok(Err(error)) => {
            w.writing.dirty = w.writing.dirty.and(touched);
            w.emit(Update::Notice(Notice::Store { op: StoreOp::Prefs, error }));
            return;
        }
        Err(Missing) => {
            w.writing.dirty = w.writing.dirty.and(touched);
            w.emit(Update::Notice(Notice::PartMissing));
            return;
        }
    }
    write_next(w);
}

#[cfg(test)]
#[path = "prefs_tests.rs"]
mod tests;
