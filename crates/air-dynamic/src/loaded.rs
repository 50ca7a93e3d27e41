//! The tools a conversation loaded, and the validity gate that checks
//! them against the catalog.

use air_store::mcp::McpServer;
use serde::{Deserialize, Serialize};

use crate::{Catalog, Metrics};

/// Why a loaded tool is no longer offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Valid,
    InvalidChanged,
    InvalidDeleted,
    InvalidDisabled,
    InvalidServerDisabled,
    InvalidRenamed,
}

/// How it came to be loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The model called a loader.
    Manual,
    /// It called the tool unloaded, and "auto-load once" loaded it.
    Auto,
    /// The conversation's assistant preloads it.
    PolicyPreload,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadedTool {
    pub server: String,
    /// The stable id of the server it was loaded from: a server removed
    /// and another added under its name does not inherit what was loaded
    /// (empty in a set stored before ids were kept).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub server_id: String,
    pub tool: String,
    pub schema_hash: String,
    pub epoch: u64,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub source: Source,
    pub loaded_at: f64,
    pub updated_at: f64,
}

/// The tools one conversation loaded.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Loaded {
    pub tools: Vec<LoadedTool>,
    /// How dynamic loading has done in this conversation.
    #[serde(default)]
    pub metrics: Metrics,
}

impl Loaded {
    /// Loads `server`/`tool` as the catalog has it now (again, if it was
    /// loaded before). False if the catalog does not know it.
    pub fn load(&mut self, catalog: &Catalog, server: &str, tool: &str, source: Source, now_ms: f64) -> bool {
        let Some(entry) = catalog.tool(server, tool) else { return false };
        let epoch = catalog.server(server).map_or(entry.epoch, |s| s.epoch);
        let fresh = LoadedTool {
            server: server.to_owned(),
            server_id: entry.server_id.clone(),
            tool: tool.to_owned(),
            schema_hash: entry.schema_hash.clone(),
            epoch,
            status: Status::Valid,
            reason: None,
            source,
            loaded_at: now_ms,
            updated_at: now_ms,
        };
        match self.tools.iter_mut().find(|t| t.server == server && t.tool == tool) {
            Some(t) => *t = LoadedTool { loaded_at: t.loaded_at, ..fresh },
            None => self.tools.push(fresh),
        }
        true
    }

    /// The validity gate, before every request and after a refresh, a
    /// re-sync or a toggle: each loaded tool still exists, is switched on,
    /// its server is switched on, and its schema is the one loaded. A tool
    /// found valid at a later epoch of its server is valid at that epoch
    /// (so every valid tool's epoch is its server's). Returns whether
    /// anything changed (to be saved).
    pub fn gate(&mut self, catalog: &Catalog, servers: &[McpServer], now_ms: f64) -> bool {
        let mut changed = false;
        let mut invalidated = 0;
        for t in &mut self.tools {
            let (status, reason) = check(catalog, servers, t);
            let epoch = catalog.server(&t.server).map_or(t.epoch, |s| s.epoch);
            if status == Status::Valid && t.status == Status::Valid && epoch != t.epoch {
                t.epoch = epoch;
                t.updated_at = now_ms;
                changed = true;
            }
            if status != t.status {
                if t.status == Status::Valid {
                    invalidated += 1;
                }
                t.status = status;
                t.reason = (status != Status::Valid).then_some(reason);
                t.updated_at = now_ms;
                changed = true;
            }
        }
        self.metrics.invalidations += invalidated;
        changed
    }

    /// The valid tools, as (server, tool).
    pub fn valid(&self) -> impl Iterator<Item = (&str, &str)> {
        self.tools.iter().filter(|t| t.status == Status::Valid).map(|t| (t.server.as_str(), t.tool.as_str()))
    }

    pub fn is_loaded(&self, server: &str, tool: &str) -> bool {
        self.valid().any(|(s, t)| s == server && t == tool)
    }
}

/// Where loaded tool `t` stands now, and why (in English; the page says
/// it in the UI language from the status).
fn check(catalog: &Catalog, servers: &[McpServer], t: &LoadedTool) -> (Status, String) {
    let Some(server) = servers.iter().find(|s| s.name == t.server) else {
        return (Status::InvalidDeleted, format!("the server {} was removed", t.server));
    };
    if !t.server_id.is_empty() && !server.id.is_empty() && server.id != t.server_id {
        return (Status::InvalidDeleted, format!("the server {} was removed (the one now under that name is another)", t.server));
    }
    if !server.enabled {
        return (Status::InvalidServerDisabled, format!("the server {} is switched off", t.server));
    }
    let saved = server.tools.iter().find(|x| x.name == t.tool);
    // Switched off by the user: kept switched off, or left out when the
    // server was added again.
    if saved.is_some_and(|x| x.disabled && !x.gone) || (saved.is_none() && server.excluded.contains(&t.tool)) {
        return (Status::InvalidDisabled, format!("{} was switched off", t.tool));
    }
    let gone = saved.is_none_or(|x| x.gone);
    if gone && renamed(catalog, t) {
        return (Status::InvalidRenamed, format!("{} is no longer offered under that name; load it again", t.tool));
    }
    if gone {
        return (Status::InvalidDeleted, format!("{} is no longer offered by {}", t.tool, t.server));
    }
    match catalog.tool(&t.server, &t.tool) {
        // Listed, but not for the model: new or changed and waiting for
        // the user, or for a View only.
        None => (Status::InvalidDisabled, format!("{} is not offered to the model", t.tool)),
        Some(entry) if entry.schema_hash != t.schema_hash => (Status::InvalidChanged, format!("the parameters of {} changed; load it again", t.tool)),
        Some(_) => (Status::Valid, String::new()),
    }
}

/// A loaded tool gone from its server while a tool with its schema (and a
/// new name) appeared there: renamed, most likely.
/// (One tool of that schema, new since it was loaded: two tools that
/// take the same parameters say nothing of which one it became.)
fn renamed(catalog: &Catalog, t: &LoadedTool) -> bool {
    let mut same = catalog.tools.iter().filter(|x| x.server == t.server && x.schema_hash == t.schema_hash && x.name != t.tool);
    catalog.tool(&t.server, &t.tool).is_none() && same.next().is_some_and(|x| x.epoch > t.epoch) && same.next().is_none()
}
