//! Changes to the saved servers, each with what it means for the user's
//! choices about them (policies kept by server id) and for their sign-in
//! (kept by URL): the caller saves the list and the policies, and forgets
//! the sign-ins named.

use air_mcp::tool::callable;
use air_store::mcp::{self as saved, McpServer, SavedTool, SyncCounts};
use air_tools::policy::Policies;
use serde_json::Value;

/// What a change also asks of the caller.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Effects {
    /// The policies changed: save them.
    pub policies: bool,
    /// Forget these servers' sign-ins (by URL).
    pub forget_sign_in: Vec<String>,
    /// A chat's choice of servers named this one: forget it there.
    pub forget_in_chats: Option<String>,
}

/// A tool as `tools/list` gave it, as saved; `None` for one this client
/// cannot call.
pub fn saved_tool(v: &Value) -> Option<SavedTool> {
    if !callable(v) {
        return None;
    }
    Some(SavedTool {
        name: v.get("name")?.as_str()?.to_owned(),
        description: v.get("description").or_else(|| v.get("title")).and_then(Value::as_str).unwrap_or_default().to_owned(),
        input_schema: v.get("inputSchema").filter(|s| s.is_object()).cloned().unwrap_or_else(|| serde_json::json!({"type": "object"})),
        annotations: v.get("annotations").and_then(|a| serde_json::from_value(a.clone()).ok()).unwrap_or_default(),
        output_schema: v.get("outputSchema").filter(|s| s.is_object()).cloned(),
        ui: air_apps::tool_ui(v).resource_uri,
        visibility: v.pointer("/_meta/ui/visibility").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect()),
        gone: false,
        accepted: None,
        pending: false,
        disabled: false,
    })
}

/// Every tool a listing offers that this client can call, as saved.
pub fn saved_tools(listed: &[Value]) -> Vec<SavedTool> {
    listed.iter().filter_map(saved_tool).collect()
}

/// Saves `server` with the tools the user `picked` of those it `offered`
/// (the others are remembered as left out). A server of the same name is
/// replaced: it is another server, and the user's choices about the old
/// one go with it. Returns how many tools were kept.
pub fn add(servers: &mut Vec<McpServer>, policies: &mut Policies, server: McpServer, offered: Vec<SavedTool>, picked: &[String]) -> (usize, Effects) {
    let (tools, left): (Vec<SavedTool>, Vec<SavedTool>) = offered.into_iter().partition(|t| picked.contains(&t.name));
    let kept = tools.len();
    let mut effects = Effects::default();
    for old in servers.iter().filter(|s| s.name == server.name) {
        effects.policies |= forget_policies(policies, old);
    }
    servers.retain(|s| s.name != server.name);
    servers.push(McpServer { tools, excluded: left.into_iter().map(|t| t.name).collect(), ..server });
    (kept, effects)
}

/// A re-sync of the saved server `name` at `url` (which may have changed):
/// the server to list, with the old one's headers left behind when `url`
/// is on another origin (another origin is someone else) unless the user
/// gave `headers` for it (which replace the saved ones); and the URL it
/// had, when it moved so.
pub fn resync_target(servers: &[McpServer], name: &str, url: &str, headers: Option<Vec<(String, String)>>) -> Option<(McpServer, Option<String>)> {
    let mut server = servers.iter().find(|s| s.name == name)?.clone();
    let old_url = server.url.clone();
    let moved = saved::moved(&mut server, url);
    if let Some(headers) = headers {
        server.headers = headers;
    }
    Some((server, moved.then_some(old_url)))
}

/// Merges what `target` (from [`resync_target`]) lists now into the saved
/// list: tools updated, new ones waiting for the user (unless left out),
/// ones no longer offered kept but marked gone. A server that moved to
/// another origin loses its sign-in and the user's choices about it.
pub fn resynced(servers: &mut [McpServer], policies: &mut Policies, mut target: McpServer, moved_from: Option<String>, listed: &[SavedTool], protocol: Option<String>) -> (SyncCounts, Effects) {
    let mut effects = Effects::default();
    if let Some(old_url) = moved_from {
        effects.forget_sign_in.push(old_url);
        effects.policies |= forget_policies(policies, &target);
    }
    target.protocol = protocol;
    let (tools, counts) = saved::resync(&target.tools, &target.excluded, listed);
    target.tools = tools;
    for s in servers.iter_mut().filter(|s| s.name == target.name) {
        *s = target.clone();
    }
    (counts, effects)
}

/// Switches server `name` on or off; whether anything changed.
pub fn set_enabled(servers: &mut [McpServer], name: &str, on: bool) -> bool {
    change(servers, name, |s| std::mem::replace(&mut s.enabled, on) != on)
}

/// Tool `tool` of server `name` switched on or off by the user (its
/// policy and definition stay). Whether that changed anything.
pub fn set_tool_enabled(servers: &mut [McpServer], name: &str, tool: &str, on: bool) -> bool {
    change(servers, name, |s| s.tools.iter_mut().filter(|t| t.name == tool).fold(false, |any, t| (std::mem::replace(&mut t.disabled, !on) == on) | any))
}

/// Whether the server's read-only hints decide that its tools run unasked.
pub fn set_trust_hints(servers: &mut [McpServer], name: &str, on: bool) -> bool {
    change(servers, name, |s| std::mem::replace(&mut s.trust_hints, on) != on)
}

/// The session at `name` speaks `version`: remembered for the next start.
pub fn connected(servers: &mut [McpServer], name: &str, version: &str) -> bool {
    change(servers, name, |s| {
        let new = s.protocol.as_deref() != Some(version);
        if new {
            s.protocol = Some(version.to_owned());
        }
        new
    })
}

/// The user accepts `tool` of server `name` as it is now (see
/// [`saved::accept`]).
pub fn accept(servers: &mut [McpServer], policies: &mut Policies, name: &str, tool: &str) -> bool {
    servers.iter_mut().find(|s| s.name == name).is_some_and(|s| saved::accept(s, tool, policies))
}

/// Removes server `name`: its sign-in, the user's choices about it and
/// every chat's mention of it go with it.
pub fn remove(servers: &mut Vec<McpServer>, policies: &mut Policies, name: &str) -> Effects {
    let mut effects = Effects { forget_in_chats: Some(name.to_owned()), ..Effects::default() };
    for s in servers.iter().filter(|s| s.name == name) {
        effects.forget_sign_in.push(s.url.clone());
        effects.policies |= forget_policies(policies, s);
    }
    servers.retain(|s| s.name != name);
    effects
}

/// Clears the user's choices about `server` and its tools; whether there
/// were any.
fn forget_policies(policies: &mut Policies, server: &McpServer) -> bool {
    let before = policies.clone();
    policies.forget_server(&server.id);
    *policies != before
}

fn change(servers: &mut [McpServer], name: &str, f: impl Fn(&mut McpServer) -> bool) -> bool {
    servers.iter_mut().filter(|s| s.name == name).fold(false, |any, s| f(s) | any)
}

#[cfg(test)]
#[path = "list_tests.rs"]
mod tests;
