//! Which calls run without asking: allow, ask or deny, per tool and per
//! MCP server, with defaults from the tool's annotations.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{ToolDef, ToolSource};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Policy {
    Allow,
    Ask,
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
    pub fn decide(&self, def: &ToolDef) -> Policy {
        if let Some(p) = self.tools.get(&def.name) {
            return *p;
        }
        if let ToolSource::Mcp { server } = &def.source {
            if let Some(p) = self.servers.get(server) {
                return *p;
            }
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

    fn def(source: ToolSource, annotations: Annotations) -> ToolDef {
        ToolDef { name: "t".into(), description: String::new(), input_schema: serde_json::json!({}), annotations, source }
    }

    #[test]
    fn defaults_follow_annotations_and_choices_override_them() {
        let mcp = || ToolSource::Mcp { server: "s".into() };
        assert_eq!(default_policy(&def(ToolSource::BuiltIn, Annotations::default())), Policy::Allow);
        assert_eq!(default_policy(&def(mcp(), Annotations::default())), Policy::Ask, "no hints: may change things");
        let ro = Annotations { read_only_hint: Some(true), ..Default::default() };
        assert_eq!(default_policy(&def(mcp(), ro)), Policy::Allow);
        let destructive = Annotations { destructive_hint: Some(true), ..Default::default() };
        assert_eq!(default_policy(&def(mcp(), destructive.clone())), Policy::Ask);
        let harmless = Annotations { destructive_hint: Some(false), ..Default::default() };
        assert_eq!(default_policy(&def(mcp(), harmless)), Policy::Allow);

        let d = def(mcp(), destructive);
        let mut p = Policies::default();
        p.set_server("s", Some(Policy::Deny));
        assert_eq!(p.decide(&d), Policy::Deny);
        p.set_tool("t", Some(Policy::Allow));
        assert_eq!(p.decide(&d), Policy::Allow, "the tool's own choice wins");
        p.set_tool("t", None);
        p.set_server("s", None);
        assert_eq!(p.decide(&d), Policy::Ask);
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<Policies>(&json).unwrap(), p);
    }
}
