//! Which calls run without asking: allow, ask or deny, per tool and per
//! MCP server, with defaults from the tool's annotations.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{ToolDef, ToolSource};

/// What happens when the model calls a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Policy {
    /// The call runs.
    Allow,
    /// The user is asked, call by call.
    Ask,
    /// The call is refused, and the model is told so.
    Deny,
}

/// The user's choices. A tool's own setting wins over its server's, which
/// wins over [`default_policy`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Policies {
    pub tools: BTreeMap<String, Policy>,
    pub servers: BTreeMap<String, Policy>,
}

impl Policies {
    /// The policy for a call of `def`: the tool's own setting, else its MCP
    /// server's, else [`default_policy`].
    pub fn decide(&self, def: &ToolDef) -> Policy {
        if let Some(p) = self.tools.get(&def.name) {
            return *p;
        }
        if let ToolSource::Mcp { server } = &def.source
            && let Some(p) = self.servers.get(server)
        {
            return *p;
        }
        default_policy(def)
    }

    /// Sets (or with `None` clears) a tool's own policy.
    pub fn set_tool(&mut self, name: &str, policy: Option<Policy>) {
        match policy {
            Some(p) => self.tools.insert(name.to_owned(), p),
            None => self.tools.remove(name),
        };
    }

    /// Sets (or with `None` clears) a server's policy.
    pub fn set_server(&mut self, server: &str, policy: Option<Policy>) {
        match policy {
            Some(p) => self.servers.insert(server.to_owned(), p),
            None => self.servers.remove(server),
        };
    }
}

/// Built-ins and read-only tools run; a tool that may change things
/// (`destructiveHint` true, or not said) asks first.
pub fn default_policy(def: &ToolDef) -> Policy {
    let a = &def.annotations;
    if def.source == ToolSource::BuiltIn || a.read_only_hint == Some(true) || a.destructive_hint == Some(false) {
        Policy::Allow
    } else {
        Policy::Ask
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Annotations;
    use serde_json::json;

    fn def(name: &str, source: ToolSource, annotations: Annotations) -> ToolDef {
        ToolDef { name: name.into(), description: String::new(), input_schema: json!({}), annotations, source }
    }

    fn mcp(server: &str) -> ToolSource {
        ToolSource::Mcp { server: server.into() }
    }

    fn hints(read_only: Option<bool>, destructive: Option<bool>) -> Annotations {
        Annotations { read_only_hint: read_only, destructive_hint: destructive, ..Default::default() }
    }

    #[test]
    fn defaults_follow_the_annotations() {
        let table = [
            // Built-ins run, whatever they say.
            (ToolSource::BuiltIn, hints(None, None), Policy::Allow),
            (ToolSource::BuiltIn, hints(Some(false), Some(true)), Policy::Allow),
            // No hints: the tool may change things.
            (mcp("s"), hints(None, None), Policy::Ask),
            (mcp("s"), hints(Some(true), None), Policy::Allow),
            // Read-only wins over a destructive hint (which only means
            // something for tools that write).
            (mcp("s"), hints(Some(true), Some(true)), Policy::Allow),
            (mcp("s"), hints(Some(false), None), Policy::Ask),
            (mcp("s"), hints(None, Some(true)), Policy::Ask),
            (mcp("s"), hints(Some(false), Some(true)), Policy::Ask),
            (mcp("s"), hints(None, Some(false)), Policy::Allow),
            (mcp("s"), hints(Some(false), Some(false)), Policy::Allow),
        ];
        for (source, annotations, want) in table {
            let d = def("t", source, annotations);
            assert_eq!(default_policy(&d), want, "{d:?}");
            assert_eq!(Policies::default().decide(&d), want, "no choices: the default");
        }
    }

    #[test]
    fn a_tools_choice_wins_over_its_servers() {
        let writer = def("delete_file", mcp("files"), hints(None, Some(true)));
        let reader = def("read_file", mcp("files"), hints(Some(true), None));
        let other = def("search", mcp("web"), hints(None, None));
        let calc = def("calculator", ToolSource::BuiltIn, hints(Some(true), None));
        let mut p = Policies::default();

        p.set_server("files", Some(Policy::Deny));
        assert_eq!(p.decide(&writer), Policy::Deny);
        assert_eq!(p.decide(&reader), Policy::Deny, "the server's choice covers its read-only tools too");
        assert_eq!(p.decide(&other), Policy::Ask, "another server is not affected");

        p.set_tool("read_file", Some(Policy::Allow));
        assert_eq!(p.decide(&reader), Policy::Allow, "the tool's own choice wins");
        assert_eq!(p.decide(&writer), Policy::Deny);

        p.set_tool("calculator", Some(Policy::Ask));
        assert_eq!(p.decide(&calc), Policy::Ask, "built-ins can be made to ask");
        p.set_server("calculator", Some(Policy::Deny));
        assert_eq!(p.decide(&calc), Policy::Ask, "a server named like a built-in does not touch it");

        p.set_server("files", Some(Policy::Allow));
        assert_eq!(p.decide(&writer), Policy::Allow, "setting again replaces");
        p.set_server("files", None);
        p.set_tool("read_file", None);
        p.set_tool("missing", None);
        assert_eq!(p.decide(&writer), Policy::Ask, "cleared: back to the default");
        assert_eq!(p.decide(&reader), Policy::Allow);
        assert_eq!(p.tools.len(), 1);
        assert!(!p.servers.contains_key("files"));
    }

    #[test]
    fn stored_as_the_settings_expect() {
        let mut p = Policies::default();
        p.set_tool("calculator", Some(Policy::Ask));
        p.set_server("files", Some(Policy::Deny));
        p.set_server("web", Some(Policy::Allow));
        let stored = serde_json::to_value(&p).unwrap();
        assert_eq!(stored, json!({"tools": {"calculator": "ask"}, "servers": {"files": "deny", "web": "allow"}}));
        assert_eq!(serde_json::from_value::<Policies>(stored).unwrap(), p);
        // Older settings without one of the maps, or without both.
        let partial: Policies = serde_json::from_value(json!({"tools": {"calculator": "allow"}})).unwrap();
        assert_eq!(partial.tools.get("calculator"), Some(&Policy::Allow));
        assert!(partial.servers.is_empty());
        assert_eq!(serde_json::from_value::<Policies>(json!({})).unwrap(), Policies::default());
        assert!(serde_json::from_value::<Policies>(json!({"tools": {"x": "maybe"}})).is_err());
    }
}
