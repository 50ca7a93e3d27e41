//! Where every saved tool goes: its registry name (given once, clashes
//! numbered in one order), its definition, and who may see it (the model,
//! an MCP App's View). The turn's registry, dynamic loading, the Apps host
//! and the policy rows all read this one list, so they never disagree on a
//! name.

use air_mcp::names::tool_name;
use air_store::mcp::{McpServer, SavedTool};
use air_tools::ToolDef;

/// One offered tool of an enabled server.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The server's name (as in the saved list).
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    /// Its definition, named as in the registry.
    pub def: ToolDef,
    /// Offered to the model (in its registry).
    pub for_model: bool,
    /// Callable by a View of the server.
    pub for_app: bool,
    /// The View it shows its results in (`ui://…`).
    pub ui: Option<String>,
}

impl Entry {
    /// The registry name.
    pub fn name(&self) -> &str {
        &self.def.name
    }
}

/// The tools of the enabled servers, in the saved order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Registration {
    entries: Vec<Entry>,
}

impl Registration {
    /// Every offered tool (not gone, not waiting for the user) of every
    /// enabled server. Tools the model sees are named in order, each clash
    /// numbered; the others (only a View calls them) get their plain name.
    pub fn of(servers: &[McpServer]) -> Self {
        let mut entries: Vec<Entry> = Vec::new();
        for server in servers.iter().filter(|s| s.enabled) {
            for tool in server.tools.iter().filter(|t| t.offered()) {
                let (for_model, for_app) = air_apps::visibility(tool.visibility.as_deref());
                let name = if for_model { tool_name(&server.name, &tool.name, |n| entries.iter().any(|e| e.for_model && e.def.name == n)) } else { tool_name(&server.name, &tool.name, |_| false) };
                entries.push(entry(server, tool, name, for_model, for_app));
            }
        }
        Self { entries }
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The tools the model is offered from the servers `uses` accepts.
    pub fn for_model<'a>(&'a self, uses: impl Fn(&str) -> bool + 'a) -> impl Iterator<Item = &'a Entry> + 'a {
        self.entries.iter().filter(move |e| e.for_model && uses(&e.server))
    }

    /// The tool a model's call of `name` on `server` ran, when it shows its
    /// results in a View.
    pub fn app_of(&self, server: &str, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.for_model && e.server == server && e.def.name == name).filter(|e| e.ui.is_some())
    }

    /// `server`'s tool named `tool` there, if it is offered.
    pub fn find(&self, server: &str, tool: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.server == server && e.tool == tool)
    }
}

fn entry(server: &McpServer, tool: &SavedTool, name: String, for_model: bool, for_app: bool) -> Entry {
    Entry { server: server.name.clone(), tool: tool.name.clone(), def: tool.def(server, name), for_model, for_app, ui: tool.ui.clone() }
}

/// Every saved tool of every server (offered or not), named as the
/// registry names it (a choice saved by registry name before tools had a
/// place names it so; see `Policies::adopt`).
pub fn every_def(servers: &[McpServer]) -> Vec<ToolDef> {
    servers.iter().flat_map(|s| s.tools.iter().map(move |t| t.def(s, tool_name(&s.name, &t.name, |_| false)))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str) -> SavedTool {
        crate::list::saved_tool(&serde_json::json!({"name": name, "description": format!("{name} things")})).expect("a tool")
    }

    fn server(name: &str, tools: Vec<SavedTool>) -> McpServer {
        McpServer {
            id: format!("id-{name}"),
            name: name.into(),
            url: format!("https://{name}.test/mcp"),
            headers: Vec::new(),
            enabled: true,
            tools,
            excluded: Vec::new(),
            protocol: None,
            trust_hints: false,
        }
    }

    #[test]
    fn names_are_given_once_in_order_and_clashes_numbered() {
        // The same pair twice (two servers of one name) is numbered.
        let servers = vec![server("fs", vec![tool("read"), tool("write")]), server("fs", vec![tool("read")]), server("git", vec![tool("log")])];
        let r = Registration::of(&servers);
        let names: Vec<&str> = r.entries().iter().map(Entry::name).collect();
        assert_eq!(names.len(), 4);
        assert_eq!(names[0], "mcp_fs_read");
        assert_eq!(names[1], "mcp_fs_write");
        assert_ne!(names[2], "mcp_fs_read", "a clash is numbered");
        assert!(names[2].starts_with("mcp_fs_read"), "{}", names[2]);
        assert_eq!(names[3], "mcp_git_log");
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len());
        assert_eq!(r.entries()[3].def.mcp.as_ref().map(|m| m.server_id.as_str()), Some("id-git"));
    }

    #[test]
    fn only_offered_tools_of_enabled_servers_are_registered() {
        let mut gone = tool("old");
        gone.gone = true;
        let mut waiting = tool("new");
        waiting.pending = true;
        let mut off = server("off", vec![tool("x")]);
        off.enabled = false;
        let r = Registration::of(&[server("s", vec![tool("kept"), gone, waiting]), off]);
        let names: Vec<&str> = r.entries().iter().map(Entry::name).collect();
        assert_eq!(names, ["mcp_s_kept"]);
    }

    #[test]
    fn visibility_decides_who_sees_a_tool_and_app_of_agrees_with_the_registry() {
        let mut app_only = tool("refresh");
        app_only.visibility = Some(vec!["app".into()]);
        app_only.ui = Some("ui://chart".into());
        let mut shown = tool("chart");
        shown.ui = Some("ui://chart".into());
        let mut model_only = tool("plain");
        model_only.visibility = Some(vec!["model".into()]);
        // Another server whose tool takes the plain name first.
        let servers = vec![server("viz", vec![tool("chart")]), server("viz", vec![app_only, shown, model_only])];
        let r = Registration::of(&servers);
        let for_model: Vec<&str> = r.for_model(|_| true).map(Entry::name).collect();
        assert_eq!(for_model.len(), 3, "{for_model:?}");
        assert!(!for_model.contains(&"mcp_viz_refresh"), "a tool only a View calls is not offered to the model");
        let refresh = r.find("viz", "refresh").map(|e| (e.for_model, e.for_app, e.name().to_owned()));
        assert_eq!(refresh, Some((false, true, "mcp_viz_refresh".to_owned())));
        assert!(!r.find("viz", "plain").is_some_and(|e| e.for_app));
        // For every tool the model is offered, app_of finds the same entry
        // by the registry name the call was made under.
        for e in r.for_model(|_| true) {
            assert_eq!(r.app_of(&e.server, e.name()).is_some(), e.ui.is_some(), "{}", e.name());
        }
        let chart = r.entries().iter().filter(|e| e.tool == "chart" && e.ui.is_some()).collect::<Vec<_>>();
        assert_eq!(chart.len(), 1);
        assert_ne!(chart[0].name(), "mcp_viz_chart", "the second chart is numbered");
        assert_eq!(r.app_of("viz", chart[0].name()).map(|e| e.tool.as_str()), Some("chart"));
        assert_eq!(r.app_of("viz", "mcp_viz_chart"), None, "the first chart has no View");
        assert_eq!(r.for_model(|s| s != "viz").count(), 0);
    }

    #[test]
    fn every_saved_tool_has_a_definition_for_old_choices() {
        let mut gone = tool("old");
        gone.gone = true;
        let defs = every_def(&[server("s", vec![tool("a"), gone])]);
        assert_eq!(defs.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(), ["mcp_s_a", "mcp_s_old"]);
    }
}
