//! The MCP servers the user added, kept in localStorage under
//! [`MCP_SERVERS_KEY`] (seeds 000 and 004): name, URL, headers, enabled, and
//! the definitions of their tools as listed when the server was added, so
//! a chat does not have to connect just to know the tools.

use air_tools::Annotations;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::settings::KeyValue;

pub const MCP_SERVERS_KEY: &str = "air-agent-mcp-servers";

/// One server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServer {
    /// Unique; tools are named `mcp_{name}_{tool}`.
    pub name: String,
    pub url: String,
    /// Sent only to this server (API key, `Authorization`).
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    #[serde(default = "yes")]
    pub enabled: bool,
    /// The tools as the server listed them.
    #[serde(default)]
    pub tools: Vec<SavedTool>,
    /// Tools the server offers that the user left out (a re-sync does not
    /// add them back).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded: Vec<String>,
    /// The protocol revision it spoke last, so the next connection starts
    /// in the right era without asking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
}

fn yes() -> bool {
    true
}

/// A tool's definition as the server gave it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedTool {
    /// The tool's name on its server.
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default = "object_schema")]
    pub input_schema: Value,
    #[serde(default)]
    pub annotations: Annotations,
    /// The schema its `structuredContent` follows, if it declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// The `ui://` resource of its View (MCP Apps `_meta.ui.resourceUri`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ui: Option<String>,
    /// Who may call it (`_meta.ui.visibility`: `model`, `app`); `None`
    /// is both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<String>>,
    /// The server no longer offers it (seen at the last re-sync): kept so
    /// the user sees what went, not offered to the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gone: bool,
}

/// What a re-sync changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SyncCounts {
    pub updated: usize,
    pub added: usize,
    pub gone: usize,
    pub unchanged: usize,
}

/// Merges what the server lists now into what was saved: a saved tool
/// still listed is updated (and no longer gone), a new one is added unless
/// the user left it out, and a saved one no longer listed is kept, marked
/// gone. Order: the saved tools first, then the new ones in the server's
/// order.
pub fn resync(saved: &[SavedTool], excluded: &[String], listed: &[SavedTool]) -> (Vec<SavedTool>, SyncCounts) {
    let mut counts = SyncCounts::default();
    let mut out = Vec::with_capacity(saved.len() + listed.len());
    for old in saved {
        match listed.iter().find(|t| t.name == old.name) {
            Some(new) => {
                let same = new.description == old.description
                    && new.input_schema == old.input_schema
                    && new.annotations == old.annotations
                    && new.output_schema == old.output_schema
                    && !old.gone;
                if same { counts.unchanged += 1 } else { counts.updated += 1 }
                out.push(SavedTool { gone: false, ..new.clone() });
            }
            None => {
                if !old.gone {
                    counts.gone += 1;
                }
                out.push(SavedTool { gone: true, ..old.clone() });
            }
        }
    }
    for new in listed {
        if !saved.iter().any(|t| t.name == new.name) && !excluded.contains(&new.name) {
            counts.added += 1;
            out.push(SavedTool { gone: false, ..new.clone() });
        }
    }
    (out, counts)
}

/// `server` pointed at `new_url`. On another origin the server is someone
/// else: what was given to the old one (its headers, an `Authorization`
/// among them) is not sent to the new one. Returns whether the origin
/// changed (the caller then also forgets the old one's sign-in and the
/// tools' policies).
pub fn moved(server: &mut McpServer, new_url: &str) -> bool {
    let other = crate::settings::origin(&server.url) != crate::settings::origin(new_url);
    server.url = new_url.trim().to_owned();
    if other {
        server.headers.clear();
        server.protocol = None;
    }
    other
}

/// Clears the user's choices about the tools of server `name` (`tools`
/// named as the registry names them) and about the server itself, so a
/// server that comes later under the same name starts from the defaults.
pub fn forget_policies(policies: &mut air_tools::policy::Policies, name: &str, registry_names: &[String]) {
    policies.set_server(name, None);
    for n in registry_names {
        policies.set_tool(n, None);
    }
}

fn object_schema() -> Value {
    serde_json::json!({"type": "object"})
}

/// The saved servers; unreadable storage gives none and a warning (the
/// text is kept aside under `…corrupt`, never lost).
pub fn load(kv: &impl KeyValue) -> (Vec<McpServer>, Option<String>) {
    let Some(raw) = kv.get(MCP_SERVERS_KEY) else { return (Vec::new(), None) };
    match serde_json::from_str(&raw) {
        Ok(list) => (list, None),
        Err(e) => {
            let _ = kv.set(&format!("{MCP_SERVERS_KEY}.corrupt"), &raw);
            (Vec::new(), Some(format!("The saved MCP servers could not be read ({e}); they were kept aside.")))
        }
    }
}

pub fn save(kv: &impl KeyValue, servers: &[McpServer]) -> crate::Result<()> {
    let text = serde_json::to_string(servers).map_err(|e| crate::StoreError::Other(e.to_string()))?;
    kv.set(MCP_SERVERS_KEY, &text)
}

/// localStorage key of which servers each chat uses.
pub const MCP_CHAT_KEY: &str = "air-agent-mcp-chat-settings";

/// The key that stands for a chat not started yet (the new-chat screen);
/// its choice moves to the session once it exists.
pub const NEW_CHAT: &str = "";

/// Which MCP servers each chat uses (the McpToggle above the composer). A
/// chat uses every enabled server unless switched off here, so servers
/// added later are on in old chats too.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatServers {
    /// Session id → servers switched off in it.
    #[serde(default)]
    off: std::collections::BTreeMap<String, Vec<String>>,
}

impl ChatServers {
    /// Whether chat `session` uses `server`.
    pub fn uses(&self, session: &str, server: &str) -> bool {
        !self.off.get(session).is_some_and(|o| o.iter().any(|s| s == server))
    }

    pub fn set(&mut self, session: &str, server: &str, on: bool) {
        let off = self.off.entry(session.to_owned()).or_default();
        off.retain(|s| s != server);
        if !on {
            off.push(server.to_owned());
        }
        if off.is_empty() {
            self.off.remove(session);
        }
    }

    /// The new chat became `session`: it keeps the choice made before.
    pub fn started(&mut self, session: &str) {
        if let Some(off) = self.off.remove(NEW_CHAT) {
            self.off.insert(session.to_owned(), off);
        }
    }

    /// A chat was deleted.
    pub fn forget(&mut self, session: &str) {
        self.off.remove(session);
    }

    /// A server was removed or renamed away: no chat refers to it.
    pub fn forget_server(&mut self, server: &str) {
        for off in self.off.values_mut() {
            off.retain(|s| s != server);
        }
        self.off.retain(|_, off| !off.is_empty());
    }

    /// Reads the saved choice; unreadable data is kept aside and every
    /// chat uses every server.
    pub fn load(kv: &impl KeyValue) -> Self {
        crate::settings::load_json(kv, MCP_CHAT_KEY)
    }

    pub fn save(&self, kv: &impl KeyValue) -> crate::Result<()> {
        crate::settings::save_json(kv, MCP_CHAT_KEY, self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::HashMap;

    #[test]
    fn a_server_moved_to_another_origin_keeps_nothing_given_to_the_old_one() {
        let mut s = McpServer {
            name: "files".into(),
            url: "https://mcp.example.com/mcp".into(),
            headers: vec![("Authorization".into(), "Bearer old".into())],
            enabled: true,
            tools: vec![],
            excluded: vec![],
            protocol: Some("2025-11-25".into()),
        };
        assert!(!moved(&mut s, "https://MCP.example.com/v2/mcp "), "same origin: a new path");
        assert_eq!(s.headers.len(), 1);
        assert_eq!(s.url, "https://MCP.example.com/v2/mcp");
        assert!(moved(&mut s, "https://mcp.attacker.net/mcp"));
        assert!(s.headers.is_empty() && s.protocol.is_none());
    }

    #[test]
    fn a_removed_servers_choices_go_with_it() {
        use air_tools::policy::{Policies, Policy};
        let mut p = Policies::default();
        p.set_server("files", Some(Policy::Allow));
        p.set_tool("mcp_files_delete", Some(Policy::Allow));
        p.set_tool("calculator", Some(Policy::Ask));
        forget_policies(&mut p, "files", &["mcp_files_delete".into()]);
        assert!(p.servers.is_empty());
        assert_eq!(p.tools.len(), 1, "other tools keep theirs");
    }

    #[derive(Default)]
    struct Kv(RefCell<HashMap<String, String>>);

    impl KeyValue for Kv {
        fn get(&self, key: &str) -> Option<String> {
            self.0.borrow().get(key).cloned()
        }
        fn set(&self, key: &str, value: &str) -> crate::Result<()> {
            self.0.borrow_mut().insert(key.into(), value.into());
            Ok(())
        }
    }

    fn tool(name: &str, description: &str) -> SavedTool {
        SavedTool { name: name.into(), description: description.into(), input_schema: object_schema(), annotations: Annotations::default(), output_schema: None, ui: None, visibility: None, gone: false }
    }

    #[test]
    fn resync_updates_adds_and_keeps_what_went() {
        let saved = [tool("echo", "old text"), tool("sum", "adds"), tool("old", "was here")];
        let listed = [tool("echo", "new text"), tool("sum", "adds"), tool("fresh", "new one"), tool("env", "left out")];
        let (merged, counts) = resync(&saved, &["env".to_owned()], &listed);
        assert_eq!(counts, SyncCounts { updated: 1, added: 1, gone: 1, unchanged: 1 });
        let names: Vec<(&str, bool)> = merged.iter().map(|t| (t.name.as_str(), t.gone)).collect();
        assert_eq!(names, [("echo", false), ("sum", false), ("old", true), ("fresh", false)]);
        assert_eq!(merged[0].description, "new text");
        // Once gone, gone again is not counted again; back again is an update.
        let (again, counts) = resync(&merged, &[], &listed[..2]);
        assert_eq!(counts, SyncCounts { updated: 0, added: 0, gone: 1, unchanged: 2 });
        let (back, counts) = resync(&again, &[], &[tool("old", "was here")]);
        assert_eq!(counts.updated, 1, "{counts:?}");
        assert!(!back.iter().find(|t| t.name == "old").unwrap().gone);
    }

    #[test]
    fn servers_round_trip_and_bad_storage_is_kept_aside() {
        let kv = Kv::default();
        assert_eq!(load(&kv), (Vec::new(), None));
        let s = McpServer {
            name: "everything".into(),
            url: "http://127.0.0.1:3001/mcp".into(),
            headers: vec![("Authorization".into(), "Bearer t".into())],
            enabled: true,
            tools: vec![SavedTool { name: "echo".into(), description: "Echoes".into(), input_schema: object_schema(), annotations: Annotations::default(), output_schema: None, ui: None, visibility: None, gone: false }],
            excluded: Vec::new(),
            protocol: Some("2025-11-25".into()),
        };
        save(&kv, std::slice::from_ref(&s)).unwrap();
        assert_eq!(load(&kv).0, vec![s]);
        // Older or hand-written entries: only name and URL.
        kv.set(MCP_SERVERS_KEY, r#"[{"name":"a","url":"http://x/mcp"}]"#).unwrap();
        let (list, _) = load(&kv);
        assert!(list[0].enabled && list[0].tools.is_empty());
        kv.set(MCP_SERVERS_KEY, "{not json").unwrap();
        let (list, warning) = load(&kv);
        assert!(list.is_empty() && warning.is_some());
        assert_eq!(kv.get("air-agent-mcp-servers.corrupt").as_deref(), Some("{not json"));
    }

    #[test]
    fn chats_use_every_server_unless_switched_off() {
        let kv = Kv::default();
        let mut c = ChatServers::load(&kv);
        assert!(c.uses("s1", "files"));
        c.set(NEW_CHAT, "files", false);
        assert!(!c.uses(NEW_CHAT, "files") && c.uses(NEW_CHAT, "web"));
        c.started("s1");
        assert!(!c.uses("s1", "files") && c.uses(NEW_CHAT, "files"), "the choice moved to the new session");
        c.set("s2", "web", false);
        c.save(&kv).unwrap();
        let mut back = ChatServers::load(&kv);
        assert_eq!(back, c);
        back.set("s1", "files", true);
        assert!(back.uses("s1", "files"));
        back.forget_server("web");
        assert!(back.uses("s2", "web"));
        assert_eq!(back, ChatServers::default());
        kv.set(MCP_CHAT_KEY, "{nope").unwrap();
        assert_eq!(ChatServers::load(&kv), ChatServers::default());
        assert_eq!(kv.get(&format!("{MCP_CHAT_KEY}.corrupt")).as_deref(), Some("{nope"));
    }
}
