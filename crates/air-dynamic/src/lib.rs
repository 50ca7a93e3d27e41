//! MCP dynamic loading (seed 001), without IO.
//!
//! With many servers, the model is not given every tool schema. It gets a
//! one-line catalog entry per server and two loaders; what it loads joins
//! the tools of the next request, per conversation, for as long as it
//! stays valid.
//!
//! - [`enabled`]: the switches (global, per assistant).
//! - [`Catalog`]: per server a summary, an epoch and the last refresh; per
//!   tool a summary, keywords, the hash of its input schema and the epoch
//!   it was seen in. Rebuilt from the saved servers with
//!   [`Catalog::refresh`], which moves a server's epoch on when its tools
//!   changed.
//! - [`Loaded`]: the tools a conversation loaded, with their status;
//!   [`Loaded::gate`] checks each against the catalog before every request.
//! - [`Finder`]: the catalog on an `air_search::Index`, answering
//!   `load_mcp_server` and `load_mcp_tool` locally.
//! - [`docs`]: where all of that is kept in the store.

pub mod docs;

use std::collections::BTreeMap;

use air_search::Index;
use air_store::mcp::McpServer;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The loader tools' names.
pub const LOAD_SERVER: &str = "load_mcp_server";
pub const LOAD_TOOL: &str = "load_mcp_tool";

/// Dynamic behaviour only when the global switch is on and the assistant
/// does not turn it off (its override is on by default).
pub fn enabled(global: bool, assistant_override: Option<bool>) -> bool {
    global && assistant_override.unwrap_or(true)
}

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
    let end = text.char_indices().find(|(i, c)| matches!(c, '.' | '。' | '\n' | '！' | '？') && (*c != '.' || text[i + 1..].starts_with([' ', '\n']) || i + 1 == text.len())).map(|(i, c)| i + c.len_utf8());
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
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolEntry {
    pub server: String,
    /// Its name on the server.
    pub name: String,
    pub summary: String,
    pub keywords: Vec<String>,
    pub schema_hash: String,
    /// The server's epoch when this tool last changed.
    pub epoch: u64,
    #[serde(default)]
    pub summarized: bool,
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
    /// (summaries, epochs): a server whose tools were added, removed or
    /// changed moves to the next epoch, and so do its changed tools.
    pub fn refresh(&self, servers: &[McpServer], now_ms: f64) -> Catalog {
        let mut out = Catalog::default();
        for server in servers {
            let old = self.servers.iter().find(|s| s.name == server.name);
            let old_tools: BTreeMap<&str, &ToolEntry> = self.tools.iter().filter(|t| t.server == server.name).map(|t| (t.name.as_str(), t)).collect();
            let mut tools: Vec<ToolEntry> = Vec::new();
            let mut changed = old.is_none();
            for t in model_tools(server) {
                let hash = schema_hash(&t.input_schema);
                match old_tools.get(t.name.as_str()) {
                    Some(prev) if prev.schema_hash == hash => {
                        let mut kept = (*prev).clone();
                        if !prev.summarized {
                            kept.summary = first_sentence(&t.description, 120);
                            kept.keywords = keywords(&t.name, &t.description);
                        }
                        tools.push(kept);
                    }
                    _ => {
                        changed = true;
                        tools.push(ToolEntry {
                            server: server.name.clone(),
                            name: t.name.clone(),
                            summary: first_sentence(&t.description, 120),
                            keywords: keywords(&t.name, &t.description),
                            schema_hash: hash,
                            epoch: 0,
                            summarized: false,
                        });
                    }
                }
            }
            changed |= old_tools.keys().any(|n| !tools.iter().any(|t| t.name == *n));
            let epoch = match old {
                Some(o) if !changed => o.epoch,
                Some(o) => o.epoch + 1,
                None => 1,
            };
            for t in tools.iter_mut().filter(|t| t.epoch == 0) {
                t.epoch = epoch;
            }
            let fallback = || {
                let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).take(8).collect();
                format!("{} tools: {}{}", tools.len(), names.join(", "), if tools.len() > 8 { ", …" } else { "" })
            };
            let (summary, summarized) = match old {
                Some(o) if o.summarized && !changed => (o.summary.clone(), true),
                _ => (fallback(), false),
            };
            out.servers.push(ServerEntry {
                name: server.name.clone(),
                summary,
                epoch,
                refreshed_at: if changed { now_ms } else { old.map_or(now_ms, |o| o.refreshed_at) },
                enabled: server.enabled,
                summarized,
            });
            out.tools.extend(tools);
        }
        out
    }

    /// The summarizer's summaries, for the epoch they were written for
    /// (a summary of tools that changed since is dropped).
    pub fn summarized(&mut self, server: &str, epoch: u64, server_summary: &str, tools: &[(String, String)]) -> bool {
        let Some(s) = self.servers.iter_mut().find(|s| s.name == server && s.epoch == epoch) else { return false };
        if !server_summary.trim().is_empty() {
            s.summary = server_summary.trim().to_owned();
            s.summarized = true;
        }
        for (name, summary) in tools {
            if let Some(t) = self.tools.iter_mut().find(|t| t.server == server && &t.name == name && !summary.trim().is_empty()) {
                t.summary = summary.trim().to_owned();
                t.summarized = true;
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
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadedTool {
    pub server: String,
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

/// What dynamic loading did, and what it saved (NFR-3), per conversation
/// and added up over all of them.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Metrics {
    /// Requests sent with dynamic loading.
    pub requests: u64,
    /// Names asked of `load_mcp_tool`, and how many found a tool.
    pub asked: u64,
    pub found: u64,
    /// Calls of tools that were not loaded (refused, or loaded on the spot).
    pub unloaded_calls: u64,
    /// Loaded tools that became invalid.
    pub invalidations: u64,
    /// Loader calls: each costs the model one more step.
    pub extra_steps: u64,
    /// Estimated tokens of tool context sent, and what every tool would
    /// have cost.
    pub context_tokens: u64,
    pub context_tokens_without: u64,
}

impl Metrics {
    /// The share of asked names that found a tool.
    pub fn hit_rate(&self) -> Option<f64> {
        (self.asked > 0).then(|| self.found as f64 / self.asked as f64)
    }

    pub fn add(&mut self, o: &Metrics) {
        self.requests += o.requests;
        self.asked += o.asked;
        self.found += o.found;
        self.unloaded_calls += o.unloaded_calls;
        self.invalidations += o.invalidations;
        self.extra_steps += o.extra_steps;
        self.context_tokens += o.context_tokens;
        self.context_tokens_without += o.context_tokens_without;
    }

    /// What happened since `earlier`.
    pub fn since(&self, earlier: &Metrics) -> Metrics {
        Metrics {
            requests: self.requests.saturating_sub(earlier.requests),
            asked: self.asked.saturating_sub(earlier.asked),
            found: self.found.saturating_sub(earlier.found),
            unloaded_calls: self.unloaded_calls.saturating_sub(earlier.unloaded_calls),
            invalidations: self.invalidations.saturating_sub(earlier.invalidations),
            extra_steps: self.extra_steps.saturating_sub(earlier.extra_steps),
            context_tokens: self.context_tokens.saturating_sub(earlier.context_tokens),
            context_tokens_without: self.context_tokens_without.saturating_sub(earlier.context_tokens_without),
        }
    }
}

/// A rough token count for the page, which ships no tokenizer: a token per
/// four characters (the benchmark counts real ones).
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

impl Loaded {
    /// Loads `server`/`tool` as the catalog has it now (again, if it was
    /// loaded before). False if the catalog does not know it.
    pub fn load(&mut self, catalog: &Catalog, server: &str, tool: &str, source: Source, now_ms: f64) -> bool {
        let Some(entry) = catalog.tool(server, tool) else { return false };
        let epoch = catalog.server(server).map_or(entry.epoch, |s| s.epoch);
        let fresh = LoadedTool {
            server: server.to_owned(),
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
    /// re-sync or a toggle: each loaded tool still exists, is enabled, its
    /// server is enabled, and its schema is the one loaded. Returns whether
    /// anything changed (to be saved).
    pub fn gate(&mut self, catalog: &Catalog, servers: &[McpServer], now_ms: f64) -> bool {
        let mut changed = false;
        let mut invalidated = 0;
        for t in &mut self.tools {
            let server = servers.iter().find(|s| s.name == t.server);
            let saved = server.and_then(|s| s.tools.iter().find(|x| x.name == t.tool));
            let (status, reason) = match (server, saved, catalog.tool(&t.server, &t.tool)) {
                (None, ..) => (Status::InvalidDeleted, format!("the server {} was removed", t.server)),
                (Some(s), ..) if !s.enabled => (Status::InvalidServerDisabled, format!("the server {} is switched off", t.server)),
                (Some(_), None, _) | (Some(_), Some(_), None) if renamed(catalog, t) => {
                    (Status::InvalidRenamed, format!("{} is no longer offered under that name; load it again", t.tool))
                }
                (Some(_), None, _) => (Status::InvalidDeleted, format!("{} is no longer offered by {}", t.tool, t.server)),
                (Some(s), Some(x), _) if x.gone || s.excluded.contains(&x.name) => {
                    (Status::InvalidDisabled, format!("{} was switched off", t.tool))
                }
                (Some(_), Some(_), None) => (Status::InvalidDisabled, format!("{} is not offered to the model", t.tool)),
                (Some(_), Some(_), Some(entry)) if entry.schema_hash != t.schema_hash => {
                    (Status::InvalidChanged, format!("the parameters of {} changed; load it again", t.tool))
                }
                _ => (Status::Valid, String::new()),
            };
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

/// A loaded tool gone from its server while a tool with its schema (and a
/// new name) appeared there: renamed, most likely.
fn renamed(catalog: &Catalog, t: &LoadedTool) -> bool {
    catalog.tool(&t.server, &t.tool).is_none() && catalog.tools.iter().any(|x| x.server == t.server && x.schema_hash == t.schema_hash)
}

/// The catalog on a search index: servers and tools, found by what they
/// do, in English or Chinese.
#[derive(Debug, Default)]
pub struct Finder {
    servers: Index,
    tools: Index,
}

fn tool_key(server: &str, tool: &str) -> String {
    format!("{server}\u{1f}{tool}")
}

impl Finder {
    pub fn new(catalog: &Catalog) -> Self {
        let mut f = Finder::default();
        f.update(catalog);
        f
    }

    /// Brings the index in line with `catalog` (incrementally: only what
    /// changed is re-indexed).
    pub fn update(&mut self, catalog: &Catalog) {
        let servers: Vec<&ServerEntry> = catalog.servers.iter().filter(|s| s.enabled).collect();
        for s in &servers {
            let tools: Vec<&ToolEntry> = catalog.tools.iter().filter(|t| t.server == s.name).collect();
            let names = tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(" ");
            let summaries = tools.iter().map(|t| t.summary.as_str()).collect::<Vec<_>>().join(" ");
            self.servers.upsert(&s.name, &[(&s.name, 3.0), (&s.summary, 1.5), (&names, 1.0), (&summaries, 0.7)]);
        }
        let gone: Vec<String> = catalog.servers.iter().filter(|s| !s.enabled).map(|s| s.name.clone()).collect();
        for name in gone {
            self.servers.remove(&name);
        }
        let mut live = std::collections::HashSet::new();
        for t in catalog.tools.iter().filter(|t| servers.iter().any(|s| s.name == t.server)) {
            let key = tool_key(&t.server, &t.name);
            let keywords = t.keywords.join(" ");
            self.tools.upsert(&key, &[(&t.name, 3.0), (&t.summary, 1.5), (&keywords, 1.0), (&t.server, 0.5)]);
            live.insert(key);
        }
        // Tools no longer in the catalog: the index forgets them.
        let stale: Vec<String> = self.tool_keys().into_iter().filter(|k| !live.contains(k)).collect();
        for k in stale {
            self.tools.remove(&k);
        }
    }

    fn tool_keys(&self) -> Vec<String> {
        self.tools.ids().map(str::to_owned).collect()
    }

    /// Servers for a need or a name, best first.
    pub fn servers(&self, query: &str, limit: usize) -> Vec<String> {
        self.servers.search(query, limit).into_iter().map(|h| h.id).collect()
    }

    /// Tools for a need or a name (optionally within one server), best
    /// first, as (server, tool).
    pub fn tools(&self, query: &str, server: Option<&str>, limit: usize) -> Vec<(String, String)> {
        self.tools
            .search(query, if server.is_some() { limit * 20 } else { limit })
            .into_iter()
            .filter_map(|h| h.id.split_once('\u{1f}').map(|(s, t)| (s.to_owned(), t.to_owned())))
            .filter(|(s, _)| server.is_none_or(|want| want == s))
            .take(limit)
            .collect()
    }
}

/// The loader tools, as the model sees them.
pub fn loader_defs() -> Vec<air_tools::ToolDef> {
    use air_tools::{Annotations, ToolDef, ToolSource};
    let read_only = Annotations { read_only_hint: Some(true), ..Annotations::default() };
    vec![
        ToolDef {
            name: LOAD_SERVER.into(),
            description: "Show what one MCP server offers: its summary and a one-line summary of each of its tools. Give the server's name, or words for what you need.".into(),
            input_schema: json!({"type": "object", "properties": {"name": {"type": "string", "description": "A server name, or words for what you need"}}, "required": ["name"]}),
            annotations: read_only.clone(),
            source: ToolSource::BuiltIn,
            mcp: None,
        },
        ToolDef {
            name: LOAD_TOOL.into(),
            description: "Load MCP tools so you can call them from your next step: gives their full parameters. Give tool names, or words for what each should do.".into(),
            input_schema: json!({"type": "object", "properties": {
                "names": {"type": "array", "items": {"type": "string"}, "description": "Tool names, or words for what each should do"},
                "server_name": {"type": "string", "description": "Only look in this server"}
            }, "required": ["names"]}),
            annotations: read_only,
            source: ToolSource::BuiltIn,
            mcp: None,
        },
    ]
}

/// The system prompt's section on loading tools, with the catalog.
pub fn prompt_section(catalog: &Catalog) -> String {
    format!(
        "MCP servers are connected, but their tools are not loaded yet. To use one: call `{LOAD_SERVER}` to see what a server offers, then `{LOAD_TOOL}` with the tools you need; loaded tools can be called from your next step. Do not call a tool before loading it.\nServers:\n{}",
        catalog.context_lines()
    )
}

/// `load_mcp_server`'s answer: the best server for `name` with its tools'
/// summaries, or what there is when nothing matches.
pub fn answer_load_server(catalog: &Catalog, finder: &Finder, name: &str) -> Value {
    let exact = catalog.servers.iter().find(|s| s.enabled && s.name.eq_ignore_ascii_case(name.trim()));
    let found = exact.map(|s| s.name.clone()).or_else(|| finder.servers(name, 1).into_iter().next());
    match found.and_then(|n| catalog.server(&n)) {
        Some(s) => json!({
            "server": s.name,
            "summary": s.summary,
            "tools": catalog.tools.iter().filter(|t| t.server == s.name).map(|t| json!({"name": t.name, "summary": t.summary})).collect::<Vec<_>>(),
            "next": format!("Call {LOAD_TOOL} with the names of the tools you need."),
        }),
        None => json!({
            "error": format!("No MCP server matches \"{name}\"."),
            "servers": catalog.servers.iter().filter(|s| s.enabled).map(|s| json!({"name": s.name, "summary": s.summary})).collect::<Vec<_>>(),
        }),
    }
}

/// `load_mcp_tool`'s answer, and what it loaded: for each name, the exact
/// tool of that name (in `server_name` if given), else the best match;
/// each with the name to call it by (`call_name`) and its full schema
/// (from the saved `servers`).
pub fn answer_load_tools(
    catalog: &Catalog,
    finder: &Finder,
    servers: &[McpServer],
    names: &[String],
    server: Option<&str>,
    call_name: impl Fn(&str, &str) -> String,
) -> (Value, Vec<(String, String)>) {
    let mut loaded: Vec<(String, String)> = Vec::new();
    let mut missing = Vec::new();
    for want in names {
        let want = want.trim();
        let exact = catalog
            .tools
            .iter()
            .filter(|t| server.is_none_or(|s| s == t.server) && catalog.server(&t.server).is_some_and(|s| s.enabled))
            .find(|t| t.name == want || format!("{}/{}", t.server, t.name) == want)
            .map(|t| (t.server.clone(), t.name.clone()));
        match exact.or_else(|| finder.tools(want, server, 1).into_iter().next()) {
            Some(pair) if !loaded.contains(&pair) => loaded.push(pair),
            Some(_) => {}
            None => missing.push(want.to_owned()),
        }
    }
    let schema = |s: &str, t: &str| {
        servers.iter().find(|x| x.name == s).and_then(|x| x.tools.iter().find(|y| y.name == t)).map(|y| (y.description.clone(), y.input_schema.clone()))
    };
    let mut answer = json!({
        "loaded": loaded.iter().map(|(s, t)| {
            let (description, parameters) = schema(s, t).unwrap_or_else(|| (String::new(), json!({"type": "object"})));
            json!({"name": call_name(s, t), "server": s, "description": description, "parameters": parameters})
        }).collect::<Vec<_>>(),
    });
    if !loaded.is_empty() {
        answer["next"] = json!("These tools can be called from your next step.");
    }
    if !missing.is_empty() {
        answer["not_found"] = json!(missing);
    }
    (answer, loaded)
}

/// What a call of a tool that is not loaded gets back.
pub fn not_loaded_error(tool: &str) -> String {
    format!("The tool {tool} is not loaded. Call {LOAD_TOOL} with its name first, then call it.")
}

/// One conversation's dynamic loading for a turn: the catalog, its index,
/// the saved servers, the conversation's loaded set, and the registry
/// names of the MCP tools. Offers the built-in tools, the loaders and the
/// valid loaded tools ([`air_tools::offer::Offer`]); the loaders are
/// [`Session::loaders`].
pub struct Session {
    catalog: Catalog,
    finder: Finder,
    servers: Vec<McpServer>,
    loaded: std::cell::RefCell<Loaded>,
    /// (server, tool) → the name the model calls.
    names: Vec<(String, String, String)>,
    auto_load: bool,
    now: Box<dyn Fn() -> f64>,
    /// Told each time the loaded set changes (to be saved).
    on_change: Box<dyn Fn(&Loaded)>,
}

impl Session {
    /// `names`: (server, tool, registry name) of the MCP tools registered;
    /// `auto_load`: a call of a tool that is not loaded loads it and runs.
    pub fn new(
        catalog: Catalog,
        servers: Vec<McpServer>,
        loaded: Loaded,
        names: Vec<(String, String, String)>,
        auto_load: bool,
        now: Box<dyn Fn() -> f64>,
        on_change: Box<dyn Fn(&Loaded)>,
    ) -> std::rc::Rc<Self> {
        let finder = Finder::new(&catalog);
        std::rc::Rc::new(Session { catalog, finder, servers, loaded: std::cell::RefCell::new(loaded), names, auto_load, now, on_change })
    }

    /// The two loader tools, to register with the turn's tools.
    pub fn loaders(self: &std::rc::Rc<Self>) -> Vec<std::rc::Rc<dyn air_tools::Tool>> {
        loader_defs()
            .into_iter()
            .map(|def| std::rc::Rc::new(Loader { def, session: self.clone() }) as std::rc::Rc<dyn air_tools::Tool>)
            .collect()
    }

    /// The conversation's loaded set as it stands.
    pub fn loaded(&self) -> Loaded {
        self.loaded.borrow().clone()
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    fn registry_name(&self, server: &str, tool: &str) -> String {
        self.names.iter().find(|(s, t, _)| s == server && t == tool).map_or_else(|| tool.to_owned(), |(_, _, n)| n.clone())
    }

    fn mcp_tool_of(&self, name: &str) -> Option<(&str, &str)> {
        self.names.iter().find(|(_, _, n)| n == name).map(|(s, t, _)| (s.as_str(), t.as_str()))
    }

    fn changed(&self) {
        let loaded = self.loaded.borrow().clone();
        (self.on_change)(&loaded);
    }
}

impl air_tools::offer::Offer for Session {
    fn offered<'a>(&self, all: &'a air_tools::Registry) -> Vec<&'a air_tools::ToolDef> {
        // The validity gate, before every request.
        let changed = self.loaded.borrow_mut().gate(&self.catalog, &self.servers, (self.now)());
        if changed {
            self.changed();
        }
        let offered: Vec<&air_tools::ToolDef> = {
            let loaded = self.loaded.borrow();
            all.definitions()
                .filter(|d| match &d.source {
                    air_tools::ToolSource::BuiltIn => true,
                    air_tools::ToolSource::Mcp { .. } => self.mcp_tool_of(&d.name).is_some_and(|(s, t)| loaded.is_loaded(s, t)),
                })
                .collect()
        };
        offered
    }

    fn note_request(&self, all: &air_tools::Registry, offered: &[&air_tools::ToolDef]) {
        // What this request's tool context costs, and what every tool
        // (without the loaders) would have.
        let json = |defs: &mut dyn Iterator<Item = &air_tools::ToolDef>| defs.map(|d| d.to_openai().to_string()).collect::<Vec<_>>().join(",");
        let with = estimate_tokens(&json(&mut offered.iter().copied())) + estimate_tokens(&prompt_section(&self.catalog));
        let without = estimate_tokens(&json(&mut all.definitions().filter(|d| d.name != LOAD_SERVER && d.name != LOAD_TOOL)));
        {
            let mut l = self.loaded.borrow_mut();
            l.metrics.requests += 1;
            l.metrics.context_tokens += with;
            l.metrics.context_tokens_without += without;
        }
        self.changed();
    }

    fn prompt(&self) -> Option<String> {
        Some(prompt_section(&self.catalog))
    }

    fn admit(&self, name: &str) -> Result<(), String> {
        let Some((server, tool)) = self.mcp_tool_of(name) else { return Ok(()) };
        if self.loaded.borrow().is_loaded(server, tool) {
            return Ok(());
        }
        self.loaded.borrow_mut().metrics.unloaded_calls += 1;
        let usable = self.catalog.tool(server, tool).is_some() && self.catalog.server(server).is_some_and(|s| s.enabled);
        if self.auto_load && usable && self.loaded.borrow_mut().load(&self.catalog, server, tool, Source::Auto, (self.now)()) {
            self.changed();
            return Ok(());
        }
        self.changed();
        Err(not_loaded_error(name))
    }
}

/// `load_mcp_server` or `load_mcp_tool`.
struct Loader {
    def: air_tools::ToolDef,
    session: std::rc::Rc<Session>,
}

impl air_tools::Tool for Loader {
    fn def(&self) -> &air_tools::ToolDef {
        &self.def
    }

    fn call<'a>(&'a self, args: Value, _ctx: air_tools::CallContext<'a>) -> futures_util::future::LocalBoxFuture<'a, air_tools::ToolOutput> {
        let s = &self.session;
        s.loaded.borrow_mut().metrics.extra_steps += 1;
        let answer = if self.def.name == LOAD_SERVER {
            answer_load_server(&s.catalog, &s.finder, args.get("name").and_then(Value::as_str).unwrap_or_default())
        } else {
            let names: Vec<String> = match args.get("names") {
                Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
                Some(Value::String(one)) => vec![one.clone()],
                _ => Vec::new(),
            };
            let server = args.get("server_name").and_then(Value::as_str).filter(|v| !v.trim().is_empty());
            let (answer, pairs) = answer_load_tools(&s.catalog, &s.finder, &s.servers, &names, server, |sv, t| s.registry_name(sv, t));
            {
                let mut l = s.loaded.borrow_mut();
                l.metrics.asked += names.len() as u64;
                l.metrics.found += names.len().saturating_sub(answer.get("not_found").and_then(Value::as_array).map_or(0, Vec::len)) as u64;
            }
            if !pairs.is_empty() {
                let now = (s.now)();
                {
                    let mut loaded = s.loaded.borrow_mut();
                    for (sv, t) in &pairs {
                        loaded.load(&s.catalog, sv, t, Source::Manual, now);
                    }
                }
                s.changed();
            }
            answer
        };
        if self.def.name == LOAD_SERVER {
            s.changed();
        }
        let text = serde_json::to_string_pretty(&answer).unwrap_or_default();
        Box::pin(std::future::ready(air_tools::ToolOutput::text(text)))
    }
}

/// What a turn needs for dynamic loading, only when it is on (both
/// switches): the loaders are added to `registry` and the session is the
/// turn's offer. Off, nothing is touched and the turn is as it always was.
pub fn prepare(
    global: bool,
    assistant: Option<bool>,
    registry: &mut air_tools::Registry,
    session: impl FnOnce() -> std::rc::Rc<Session>,
) -> Option<std::rc::Rc<dyn air_tools::offer::Offer>> {
    if !enabled(global, assistant) {
        return None;
    }
    let session = session();
    for loader in session.loaders() {
        registry.register(loader);
    }
    Some(session)
}

/// The summarizer's fixed instructions.
pub const SUMMARIZER_PROMPT: &str = "You write the catalog of an AI assistant's tools. Given an MCP server and its tools, answer with JSON only, no prose: {\"server\": \"one short sentence (at most 15 words) on what the server is for\", \"tools\": {\"TOOL_NAME\": \"one short phrase (at most 12 words) on what the tool does\"}}. Write in the language of the descriptions. Keep names exactly as given.";

/// The summarizer's request for one server of the catalog: the user
/// message listing its tools (name and description, from the saved
/// server). `None` if the catalog does not know the server.
pub fn summarizer_input(catalog: &Catalog, server: &McpServer) -> Option<String> {
    catalog.server(&server.name)?;
    let mut text = format!("Server: {}\nTools:\n", server.name);
    for t in catalog.tools.iter().filter(|t| t.server == server.name) {
        let description = server.tools.iter().find(|x| x.name == t.name).map_or("", |x| x.description.as_str());
        let short: String = description.chars().take(400).collect();
        text.push_str(&format!("- {}: {}\n", t.name, short.replace('\n', " ")));
    }
    Some(text)
}

/// The summarizer's answer: the server's summary and (tool, summary)
/// pairs. Reads JSON even inside a code fence or after some words; `None`
/// when there is none.
pub fn parse_summaries(answer: &str) -> Option<(String, Vec<(String, String)>)> {
    let start = answer.find('{')?;
    let end = answer.rfind('}')?;
    let v: Value = serde_json::from_str(answer.get(start..=end)?).ok()?;
    let server = v.get("server").and_then(Value::as_str).unwrap_or_default().trim().to_owned();
    let tools = v
        .get("tools")
        .and_then(Value::as_object)
        .map(|m| m.iter().filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.trim().chars().take(160).collect()))).collect())
        .unwrap_or_default();
    Some((server.chars().take(200).collect(), tools))
}

/// The servers whose summaries the summarizer has not written for their
/// current epoch.
pub fn unsummarized(catalog: &Catalog) -> Vec<(String, u64)> {
    catalog.servers.iter().filter(|s| s.enabled && !s.summarized).map(|s| (s.name.clone(), s.epoch)).collect()
}

/// Asks the summarizer about one server of the catalog (`ask` sends the
/// user message with [`SUMMARIZER_PROMPT`]; `None` is a failure or a
/// timeout) and returns what to apply with [`Catalog::summarized`]: the
/// epoch asked about, the server's summary and the tools'. `None` when the
/// summarizer failed or said nothing usable: the descriptions stay.
pub async fn summarize_one<F, Fut>(catalog: &Catalog, server: &McpServer, ask: F) -> Option<(u64, String, Vec<(String, String)>)>
where
    F: FnOnce(String) -> Fut,
    Fut: std::future::Future<Output = Option<String>>,
{
    let epoch = catalog.server(&server.name)?.epoch;
    let answer = ask(summarizer_input(catalog, server)?).await?;
    let (summary, tools) = parse_summaries(&answer)?;
    (!summary.is_empty() || !tools.is_empty()).then_some((epoch, summary, tools))
}
