//! The catalog: what is known of every server and tool (summaries,
//! keywords, schema hashes, epochs), without their schemas.

use std::collections::BTreeMap;

use air_store::mcp::McpServer;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The hash of a schema's canonical JSON (keys sorted): 16 hex digits of
/// FNV-1a 64.
pub fn schema_hash(schema: &Value) -> String {
    let text = air_tools::args::canonical_json(schema);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Words worth searching a tool by: its name's parts and its description's
/// words, each once, in order.
pub fn keywords(name: &str, description: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in air_search::tokenize(name).into_iter().chain(air_search::tokenize(description)) {
        if t.weight >= 1.0 && t.text.chars().count() > 1 && !out.contains(&t.text) {
            out.push(t.text);
        }
        if out.len() >= 12 {
            break;
        }
    }
    out
}

/// The first sentence of a description, at most `max` characters: the
/// summary until the summarizer writes a better one.
pub fn first_sentence(text: &str, max: usize) -> String {
    let text = text.trim();
    let end =
        text.char_indices().find(|(i, c)| matches!(c, '.' | '。' | '\n' | '！' | '？') && (*c != '.' || text[i + 1..].starts_with([' ', '\n']) || i + 1 == text.len())).map(|(i, c)| i + c.len_utf8());
    let s = end.map_or(text, |e| &text[..e]);
    if s.chars().count() <= max {
        s.trim().to_owned()
    } else {
        let cut: String = s.chars().take(max.saturating_sub(1)).collect();
        format!("{}…", cut.trim_end())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerEntry {
    /// The saved server's stable id (`McpServer::id`): a server added
    /// later under the same name is another server, with its own epochs
    /// (empty in a catalog stored before ids were kept).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    pub name: String,
    pub summary: String,
    /// Moves on each time the server's tools change.
    pub epoch: u64,
    /// Milliseconds since the epoch.
    pub refreshed_at: f64,
    pub enabled: bool,
    /// The summary was written by the summarizer model (not the fallback).
    #[serde(default)]
    pub summarized: bool,
    /// When the summarizer wrote the summary (milliseconds since the
    /// epoch; `None`: the fallback is in use).
    #[serde(default)]
    pub summary_generated_at: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolEntry {
    pub server: String,
    /// Its server's stable id (see [`ServerEntry::id`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub server_id: String,
    /// Its name on the server.
    pub name: String,
    pub summary: String,
    pub keywords: Vec<String>,
    pub schema_hash: String,
    /// The server's epoch when this tool last changed.
    pub epoch: u64,
    /// When this tool last changed: it appeared, or its schema did
    /// (milliseconds since the epoch; 0 in a catalog stored before).
    #[serde(default)]
    pub updated_at: f64,
    #[serde(default)]
    pub summarized: bool,
    /// When the summarizer wrote the summary (milliseconds since the
    /// epoch; `None`: the description's first sentence is in use).
    #[serde(default)]
    pub summary_generated_at: Option<f64>,
}

/// What is known of every server and tool, without their schemas.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Catalog {
    pub servers: Vec<ServerEntry>,
    pub tools: Vec<ToolEntry>,
}

/// The tools the model may see of a server: offered (not gone, not
/// waiting for the user), visible to it.
fn model_tools(server: &McpServer) -> impl Iterator<Item = &air_store::mcp::SavedTool> {
    server.tools.iter().filter(|t| t.offered() && t.visibility.as_ref().is_none_or(|v| v.iter().any(|x| x == "model")))
}

impl Catalog {
    /// The catalog for `servers` as saved now, keeping what `self` knew
    /// (summaries, epochs): a server whose tools (as the model may see
    /// them) were added, removed, changed or switched off or on, or which
    /// was itself switched, moves to the next epoch, and so do its changed
    /// tools. A refresh that finds everything as it was keeps the epoch
    /// (and the summaries written for it).
    pub fn refresh(&self, servers: &[McpServer], now_ms: f64) -> Catalog {
        let mut out = Catalog::default();
        for server in servers {
            let same_name = self.servers.iter().find(|s| s.name == server.name);
            // Another server under a known name starts afresh (after the
            // epochs its predecessor reached, so no epoch means two things).
            let old = same_name.filter(|s| s.id.is_empty() || s.id == server.id);
            let old_tools: BTreeMap<&str, &ToolEntry> = match old {
                Some(_) => self.tools.iter().filter(|t| t.server == server.name).map(|t| (t.name.as_str(), t)).collect(),
                None => BTreeMap::new(),
            };
            let mut tools: Vec<ToolEntry> = Vec::new();
            let mut changed = old.is_none();
            for t in model_tools(server) {
                // What the model is told of it: the face the user accepted.
                let face = t.told();
                let hash = schema_hash(&face.input_schema);
                match old_tools.get(t.name.as_str()) {
                    Some(prev) if prev.schema_hash == hash => {
                        let mut kept = (*prev).clone();
                        kept.server_id.clone_from(&server.id);
                        if !prev.summarized {
                            kept.summary = first_sentence(&face.description, 120);
                            kept.keywords = keywords(&t.name, &face.description);
                        }
                        tools.push(kept);
                    }
                    _ => {
                        changed = true;
                        tools.push(ToolEntry {
                            server: server.name.clone(),
                            server_id: server.id.clone(),
                            name: t.name.clone(),
                            summary: first_sentence(&face.description, 120),
                            keywords: keywords(&t.name, &face.description),
                            schema_hash: hash,
                            epoch: 0,
                            updated_at: now_ms,
                            summarized: false,
                            summary_generated_at: None,
                        });
                    }
                }
            }
            changed |= old_tools.keys().any(|n| !tools.iter().any(|t| t.name == *n));
            // Switching the server off or on moves its epoch too.
            changed |= old.is_some_and(|o| o.enabled != server.enabled);
            let epoch = match (old, same_name) {
                (Some(o), _) if !changed => o.epoch,
                (Some(o), _) | (None, Some(o)) => o.epoch + 1,
                (None, None) => 1,
            };
            for t in tools.iter_mut().filter(|t| t.epoch == 0) {
                t.epoch = epoch;
            }
            let fallback = || {
                let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).take(8).collect();
                format!("{} tools: {}{}", tools.len(), names.join(", "), if tools.len() > 8 { ", …" } else { "" })
            };
            let (summary, summarized, summary_generated_at) = match old {
                Some(o) if o.summarized && !changed => (o.summary.clone(), true, o.summary_generated_at),
                _ => (fallback(), false, None),
            };
            out.servers.push(ServerEntry {
                id: server.id.clone(),
                name: server.name.clone(),
                summary,
                epoch,
                refreshed_at: if changed { now_ms } else { old.map_or(now_ms, |o| o.refreshed_at) },
                enabled: server.enabled,
                summarized,
                summary_generated_at,
            });
            out.tools.extend(tools);
        }
        out
    }

    /// The summarizer's summaries, written at `now_ms`, for the epoch
    /// they were written for (a summary of tools that changed since is
    /// dropped).
    pub fn summarized(&mut self, server: &str, epoch: u64, server_summary: &str, tools: &[(String, String)], now_ms: f64) -> bool {
        let Some(s) = self.servers.iter_mut().find(|s| s.name == server && s.epoch == epoch) else { return false };
        if !server_summary.trim().is_empty() {
            s.summary = server_summary.trim().to_owned();
            s.summarized = true;
            s.summary_generated_at = Some(now_ms);
        }
        for (name, summary) in tools {
            if let Some(t) = self.tools.iter_mut().find(|t| t.server == server && &t.name == name && !summary.trim().is_empty()) {
                t.summary = summary.trim().to_owned();
                t.summarized = true;
                t.summary_generated_at = Some(now_ms);
            }
        }
        true
    }

    pub fn server(&self, name: &str) -> Option<&ServerEntry> {
        self.servers.iter().find(|s| s.name == name)
    }

    pub fn tool(&self, server: &str, name: &str) -> Option<&ToolEntry> {
        self.tools.iter().find(|t| t.server == server && t.name == name)
    }

    /// The initial context: one line per enabled server.
    pub fn context_lines(&self) -> String {
        self.servers.iter().filter(|s| s.enabled).map(|s| format!("- {}: {}", s.name, s.summary)).collect::<Vec<_>>().join("\n")
    }
}
