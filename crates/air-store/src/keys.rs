//! Every key the app keeps in the small key/value store (localStorage),
//! typed ([`crate::kv::Key`]). Keys of a type of this crate live beside
//! it and are named here too.

use crate::kv::{Flag, Key, Raw};

pub use crate::assistants::KEY as ASSISTANTS;
pub use crate::http_tools::KEY as HTTP_TOOLS;
pub use crate::mcp::{CHAT_KEY as MCP_CHAT, SERVERS_KEY as MCP_SERVERS};
pub use crate::settings::KEY as SETTINGS;
pub use crate::sync_meta::SETTINGS_KEY as SYNC;

/// The sidebar folded away (`None`: never chosen; narrow screens fold it).
pub const SIDEBAR_COLLAPSED: Key<Option<bool>> = Key::new("air-agent-sidebar-collapsed");
/// Set while the store has sessions: the next start fetches the
/// conversation view while the store opens (a first visit, which starts on
/// the session creator, does not fetch it).
pub const HAS_SESSIONS: Key<bool, Flag> = Key::new("air-agent.has-sessions");
/// The sessions being deleted, until each is gone from the store (its undo
/// window is open, or the store is deleting it, or failed to): a page
/// closed meanwhile does not bring one back, the next start finishes them.
/// A JSON list of ids (an earlier version kept one id as it is).
pub const DELETING: Key<String, Raw> = Key::new("air-agent.deleting");
/// The add-server form while its sign-in is under way: (name, URL,
/// Authorization), so a sign-in that takes the whole page comes back to it.
pub const MCP_ADD_DRAFT: Key<Option<(String, String, String)>> = Key::new("air-agent-mcp-add-draft");
/// A sign-in that took the whole page (no window): what finishing it on
/// the way back needs.
pub const OAUTH_PENDING: Key<String, Raw> = Key::new("air-agent-mcp-oauth-pending");
/// The address the sign-in came back to, left by the callback page when
/// there was no window to post it to.
pub const OAUTH_RETURN: Key<String, Raw> = Key::new("air-agent-oauth-return");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kv::{KeyValue, MemoryKv, Read};

    #[test]
    fn values_written_before_typed_keys_read_the_same() {
        let kv = MemoryKv::default();
        kv.set("air-agent-sidebar-collapsed", "true").unwrap();
        kv.set("air-agent.has-sessions", "1").unwrap();
        kv.set("air-agent-mcp-add-draft", r#"["fs","https://x.test/mcp",""]"#).unwrap();
        assert_eq!(SIDEBAR_COLLAPSED.get(&kv), Some(true));
        assert!(HAS_SESSIONS.get(&kv));
        assert_eq!(MCP_ADD_DRAFT.get(&kv), Some(("fs".into(), "https://x.test/mcp".into(), String::new())));
        SIDEBAR_COLLAPSED.set(&kv, &Some(false)).unwrap();
        assert_eq!(kv.get("air-agent-sidebar-collapsed").as_deref(), Some("false"));
        HAS_SESSIONS.set(&kv, &false).unwrap();
        assert_eq!(kv.get("air-agent.has-sessions"), None);
        HAS_SESSIONS.set(&kv, &true).unwrap();
        assert_eq!(kv.get("air-agent.has-sessions").as_deref(), Some("1"));
    }

    #[test]
    fn unreadable_text_is_kept_aside_and_the_default_used() {
        let kv = MemoryKv::default();
        assert_eq!(SIDEBAR_COLLAPSED.read(&kv), Read { value: None, kept: None });
        kv.set("air-agent-sidebar-collapsed", "sideways").unwrap();
        let read = SIDEBAR_COLLAPSED.read(&kv);
        assert_eq!(read.value, None);
        let kept = read.kept.unwrap();
        assert_eq!((kept.key, kept.aside.as_deref()), ("air-agent-sidebar-collapsed", Some("air-agent-sidebar-collapsed.corrupt")));
        assert_eq!(kv.get("air-agent-sidebar-collapsed.corrupt").as_deref(), Some("sideways"));
        assert_eq!(SIDEBAR_COLLAPSED.get_opt(&kv), None);
        MCP_ADD_DRAFT.remove(&kv).unwrap();
        assert!(!MCP_ADD_DRAFT.is_set(&kv));
    }
}
