//! The preferences kept in the small key/value store: one rule for every
//! change (write it under its key, then show it; a write that fails is
//! said and the change still shows for this page), and what each change
//! means for the rest.

use air_store::assistants::Assistants;
use air_store::keys::{ASSISTANTS, MCP_CHAT, MCP_SERVERS, SETTINGS, SIDEBAR_COLLAPSED};
use air_store::kv::Key;
use air_store::mcp::{ChatServers, McpServer};
use air_store::Settings;

use crate::{Command, Notice, Platform, StoreOp, Update, Workspace};

/// The preferences as saved.
#[derive(Debug, Default)]
pub struct Prefs {
    pub settings: Settings,
    pub servers: Vec<McpServer>,
    pub chat: ChatServers,
    pub assistants: Assistants,
}

/// Reads the preferences at start.
pub(crate) fn load<P: Platform>(w: &mut Workspace<P>) {
    let kv = w.p.kv();
    w.prefs = Prefs { settings: SETTINGS.get(kv), servers: MCP_SERVERS.get(kv), chat: MCP_CHAT.get(kv), assistants: ASSISTANTS.get(kv) };
}

/// A changed preference.
#[derive(Debug, Clone, PartialEq)]
pub enum Pref {
    Settings(Settings),
    Servers(Vec<McpServer>),
    ChatServers(ChatServers),
    Assistants(Assistants),
    /// The sidebar folded away.
    Sidebar(bool),
}

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, cmd: Command) {
    let Command::SavePref(pref) = cmd else { return };
    let written = match &pref {
        Pref::Settings(s) => write(w, SETTINGS, s),
        Pref::Servers(l) => write(w, MCP_SERVERS, l),
        Pref::ChatServers(c) => write(w, MCP_CHAT, c),
        Pref::Assistants(a) => write(w, ASSISTANTS, a),
        // Where the sidebar is matters little: not worth a notice.
        Pref::Sidebar(on) => {
            let _ = SIDEBAR_COLLAPSED.set(w.p.kv(), &Some(*on));
            true
        }
    };
    // A settings change that could be saved clears what was said before
    // (a settings problem, most likely).
    if written && matches!(pref, Pref::Settings(_)) {
        w.emit(Update::ClearNotice);
    }
    match &pref {
        Pref::Settings(s) => w.prefs.settings = s.clone(),
        Pref::Servers(l) => w.prefs.servers = l.clone(),
        Pref::ChatServers(c) => w.prefs.chat = c.clone(),
        Pref::Assistants(a) => w.prefs.assistants = a.clone(),
        Pref::Sidebar(_) => {}
    }
    w.emit(Update::Pref(pref));
}

/// Writes `value` under `key`; a failure is said (the value still holds
/// for this page).
fn write<P: Platform, T>(w: &mut Workspace<P>, key: Key<T>, value: &T) -> bool
where
    air_store::kv::Json: air_store::kv::Codec<T>,
{
    match key.set(w.p.kv(), value) {
        Ok(()) => true,
        Err(error) => {
            w.emit(Update::Notice(Notice::Store { op: StoreOp::SaveSettings, error }));
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake::{FakePlatform, Harness};
    use air_store::KeyValue;

    #[test]
    fn a_change_is_written_under_its_key_then_shown() {
        let mut h = Harness::new(FakePlatform::default());
        let settings = Settings { model: "gpt-test".into(), ..Settings::default() };
        h.send(Command::SavePref(Pref::Settings(settings.clone())));
        assert_eq!(h.take(), vec![Update::ClearNotice, Update::Pref(Pref::Settings(settings.clone()))]);
        assert_eq!(SETTINGS.get(h.p.kv()), settings);
        h.send(Command::SavePref(Pref::Sidebar(true)));
        assert_eq!(h.p.kv.get("air-agent-sidebar-collapsed").as_deref(), Some("true"));
        let mut chat = ChatServers::default();
        chat.forget("s");
        h.send(Command::SavePref(Pref::ChatServers(chat.clone())));
        assert_eq!(MCP_CHAT.get(h.p.kv()), chat);
    }

    #[test]
    fn a_write_that_fails_is_said_and_the_change_still_shows() {
        let mut h = Harness::new(FakePlatform::default());
        h.p.kv.refuse_writes.set(true);
        let servers: Vec<McpServer> = Vec::new();
        h.send(Command::SavePref(Pref::Servers(servers.clone())));
        let updates = h.take();
        assert!(matches!(&updates[0], Update::Notice(Notice::Store { op: StoreOp::SaveSettings, .. })), "{updates:?}");
        assert_eq!(updates[1], Update::Pref(Pref::Servers(servers)));
        h.send(Command::SavePref(Pref::Settings(Settings::default())));
        assert!(!h.take().contains(&Update::ClearNotice), "a settings write that failed clears nothing");
    }
}
