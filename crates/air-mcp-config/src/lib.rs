//! The MCP server configurations people already have, read and written
//! without IO (host tests per dialect and for hostile input). Settings →
//! MCP servers → "Import or export a configuration" builds on it
//! (`app/src/view/mcp_import.rs`, in the settings part): every entry is
//! shown before anything is saved, Connect fills the add form and connects,
//! Export shows the saved servers to copy.
//!
//! * [`parse`]: the JSON of Claude Desktop, Cursor, Windsurf and Claude
//!   Code (`mcpServers`, also each project's in `~/.claude.json`), VS Code
//!   (`servers` and `inputs`; [`jsonc`] makes its comments and trailing
//!   commas plain JSON, keeping line and column), Zed (`context_servers`,
//!   its three shapes), a bare map of entries, or one entry alone, into
//!   [`Entry`]s to preview: `Remote` (`url` or Windsurf's `serverUrl`, the
//!   `type` as a `Transport`, headers), `Stdio` (command, args, env: numbers
//!   as written, VS Code's `null` unset; cwd) or `Unusable` with the reason
//!   (not http(s), no command, wrong types), the others going on. What
//!   cannot be a configuration is an error and nothing else: over 1 MB,
//!   over 500 entries, nested too deeply (serde_json's limit), not an
//!   object, no servers.
//! * [`placeholders`]: the `${…}` of every dialect (`env:`, `input:`,
//!   `file:`, `${NAME:-default}`, `userHome`, `workspaceFolder`), each to be
//!   asked of the user (`Placeholder::asked`); `fill` gives nothing unless
//!   every one is answered, so no placeholder is ever sent as written.
//! * [`bridge`]: the one line that serves a stdio entry for this page:
//!   `uvx mcp-proxy@0.13.0 --port P --allow-origin ORIGIN -e NAME VALUE --
//!   command args` (binds 127.0.0.1, CORS for this origin only, stateful),
//!   or `supergateway@4.0.0` through `npx` with its warning (it listens on
//!   every interface; offered for POSIX shells only, as it hands its command
//!   to cmd.exe on Windows, whose quoting no line can promise). Quoted for
//!   POSIX shells and PowerShell (`--`, a leading `@` or `--%` quoted there,
//!   and every quote character PowerShell knows, typographic ones too,
//!   doubled); in PowerShell the environment is set with `$env:NAME='…'`
//!   (mcp-proxy then `--pass-environment`). A line Windows would not run as
//!   shown is refused, saying which word and why (the entry is unusable in
//!   that shell): a `"`, an empty word, or a trailing `\` in a word with a
//!   blank, in a word PowerShell hands a program (Windows PowerShell 5.1,
//!   and 7.2, pass them on unescaped), and cmd.exe's `&|<>^%!` or a line
//!   break in the words of a server Windows starts through cmd.exe (every
//!   command but a known `.exe`: `uvx`, `node`, `docker`…; all of
//!   supergateway's, as npx starts it). An environment variable's name must
//!   be a name (it is written into the line as it is). The line copied has
//!   the secrets; the line shown masks them (`line_hiding`: environment
//!   values, arguments after a flag naming a secret or looking like one, as
//!   `Authorization: Bearer …`, and an answer typed in a password field;
//!   only a run of characters plain in every shell is masked, so a value
//!   with blanks, quotes, shell or cmd.exe characters or controls is shown
//!   whole). `command_shown` writes a command with each word quoted as sh
//!   takes it. `relay`: for a server already on this computer over HTTP
//!   without CORS (`http://localhost`, `127.0.0.1`, `[::1]` only, whatever
//!   user info the address carries), mcp-proxy's client side
//!   (`--transport streamablehttp URL`) run behind its server side: the
//!   doctor's line, with a note that such servers usually run over stdio.
//! * [`plan`]: an entry with the user's answers (VS Code inputs' defaults
//!   first; an empty answer is none) and the bridge, shell and port chosen:
//!   `Connect` (address, transport, headers filled), `Bridge` (the line,
//!   then its address), `Ask` (what is still unanswered) or `Unusable` (also
//!   a nameless `${}`). Ports offered count up from 8100.
//! * [`secret`]: names (`…KEY`, `…TOKEN`, `Authorization`…) and values
//!   (`sk-`, `ghp_`, `Bearer `…, long mixed letters and digits) that look
//!   like secrets: shown as their first four characters and length
//!   (`secret::shown`).
//! * [`export`]: saved servers as `{"mcpServers": {name: {"type": "http",
//!   "url", "headers"}}}`, secret headers only when asked for; it reads back
//!   through `parse` as the same servers.
//!
//! `tests/e2e/mcp-import.test.mjs` runs both lines as shown (PyPI mcp-proxy
//! before npm server-memory, and before a Python server without CORS) and
//! saves the servers through them.

pub mod bridge;
pub mod export;
pub mod jsonc;
pub mod placeholders;
pub mod plan;
pub mod secret;
pub mod unusable;

pub use unusable::Unusable;

use serde_json::{Map, Value};

/// A file larger than this is not a configuration (they are a few KB).
pub const MAX_BYTES: usize = 1 << 20;
/// More entries than this is not a configuration either.
pub const MAX_ENTRIES: usize = 500;

/// Which client's form the text was in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// `mcpServers` (Claude Desktop, Cursor, Windsurf, Claude Code).
    McpServers,
    /// VS Code's `servers`, with `inputs`.
    VsCode,
    /// Zed's `context_servers`.
    Zed,
    /// Entries by name, without a key around them.
    Bare,
    /// One entry.
    Single,
}

/// A remote server's transport, as the entry says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Not said: tried as Streamable HTTP, then the older SSE.
    Auto,
    StreamableHttp,
    Sse,
}

/// A local server: a program the client starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stdio {
    pub command: String,
    pub args: Vec<String>,
    /// Variables set for it, in the file's order.
    pub env: Vec<(String, String)>,
    pub cwd: Option<String>,
}

/// What an entry is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Server {
    Remote {
        url: String,
        transport: Transport,
        headers: Vec<(String, String)>,
    },
    Stdio(Stdio),
    /// Cannot be used from a page, and why.
    Unusable(Unusable),
}

/// One server of the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub server: Server,
    /// Turned off in the file (`disabled: true`, `enabled: false`).
    pub disabled: bool,
}

impl Entry {
    /// The entry's placeholders, each once, in order.
    pub fn placeholders(&self) -> Vec<placeholders::Placeholder> {
        let texts: Vec<&str> = match &self.server {
            Server::Remote { url, headers, .. } => std::iter::once(url.as_str()).chain(headers.iter().map(|(_, v)| v.as_str())).collect(),
            Server::Stdio(s) => std::iter::once(s.command.as_str()).chain(s.args.iter().map(String::as_str)).chain(s.env.iter().map(|(_, v)| v.as_str())).chain(s.cwd.as_deref()).collect(),
            Server::Unusable(_) => Vec::new(),
        };
        let mut out: Vec<placeholders::Placeholder> = Vec::new();
        for p in texts.into_iter().flat_map(placeholders::find) {
            if !out.iter().any(|o| o.key == p.key) {
                out.push(p);
            }
        }
        out
    }
}

/// A VS Code input: a value asked of the user when a server starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub id: String,
    pub description: String,
    pub password: bool,
    pub default: Option<String>,
}

/// A configuration, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub dialect: Dialect,
    pub entries: Vec<Entry>,
    pub inputs: Vec<Input>,
}

/// Why nothing in a pasted configuration can be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("This is {kb} KB; an MCP configuration is a few KB. Paste the part with the servers.")]
    TooBig { kb: usize },
    #[error("Nested too deeply to be a configuration.")]
    TooDeep,
    #[error("Not JSON: {0}.")]
    NotJson(String),
    #[error("This cannot be read: {0}.")]
    Unreadable(String),
    #[error("Not a configuration: expected a JSON object with mcpServers, servers or context_servers.")]
    NotAnObject,
    #[error("No MCP servers in this: expected mcpServers (Claude Desktop, Cursor, Windsurf, Claude Code), servers (VS Code) or context_servers (Zed).")]
    NoServersKey,
    #[error("{0} servers: more than {MAX_ENTRIES} is not a configuration.")]
    TooMany(usize),
    #[error("The configuration lists no servers.")]
    NoServers,
}

/// Reads a configuration. An error means nothing in it can be used (not
/// JSON, no servers, too large); an entry that cannot be used is kept as
/// [`Server::Unusable`], with the reason.
pub fn parse(text: &str) -> Result<Parsed, ParseError> {
    if text.len() > MAX_BYTES {
        return Err(ParseError::TooBig { kb: text.len() / 1024 });
    }
    let plain = jsonc::strip(text);
    let value: Value = serde_json::from_str(&plain).map_err(|e| match e.classify() {
        _ if e.to_string().contains("recursion limit") => ParseError::TooDeep,
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => ParseError::NotJson(e.to_string()),
        _ => ParseError::Unreadable(e.to_string()),
    })?;
    let Some(top) = value.as_object() else { return Err(ParseError::NotAnObject) };
    let (dialect, servers) = servers_of(&value, top).ok_or(ParseError::NoServersKey)?;
    if servers.len() > MAX_ENTRIES {
        return Err(ParseError::TooMany(servers.len()));
    }
    let mut entries: Vec<Entry> = Vec::new();
    for (i, (name, v)) in servers.into_iter().enumerate() {
        let name = Some(name.trim()).filter(|n| !n.is_empty()).map_or_else(|| format!("server {}", i + 1), str::to_owned);
        let disabled = v.get("disabled").and_then(Value::as_bool) == Some(true) || v.get("enabled").and_then(Value::as_bool) == Some(false);
        entries.push(Entry { name, server: server_of(v), disabled });
    }
    if entries.is_empty() {
        return Err(ParseError::NoServers);
    }
    let inputs = top.get("inputs").and_then(Value::as_array).map(|a| a.iter().filter_map(input_of).collect()).unwrap_or_default();
    Ok(Parsed { dialect, entries, inputs })
}

/// The entries of an object of entries, by name.
fn named(v: &Value) -> Option<Vec<(String, &Value)>> {
    v.as_object().map(|o| o.iter().map(|(k, v)| (k.clone(), v)).collect())
}

/// The servers by name, and the dialect that put them there.
fn servers_of<'a>(value: &'a Value, top: &'a Map<String, Value>) -> Option<(Dialect, Vec<(String, &'a Value)>)> {
    if let Some(s) = top.get("mcpServers").and_then(named) {
        return Some((Dialect::McpServers, s));
    }
    // Claude Code's ~/.claude.json: the servers of each project.
    if let Some(projects) = top.get("projects").and_then(Value::as_object) {
        let all: Vec<(String, &Value)> = projects.values().filter_map(|p| p.get("mcpServers").and_then(named)).flatten().collect();
        if !all.is_empty() {
            return Some((Dialect::McpServers, all));
        }
    }
    if let Some(s) = top.get("servers").and_then(named) {
        return Some((Dialect::VsCode, s));
    }
    if let Some(s) = top.get("context_servers").and_then(named) {
        return Some((Dialect::Zed, s));
    }
    if is_entry(top) {
        let name = top.get("name").and_then(Value::as_str).unwrap_or("server").to_owned();
        return Some((Dialect::Single, vec![(name, value)]));
    }
    let entries: Vec<(String, &Value)> = top.iter().map(|(k, v)| (k.clone(), v)).collect();
    let all_entries = !entries.is_empty() && entries.iter().all(|(_, v)| v.as_object().is_some_and(is_entry));
    all_entries.then_some((Dialect::Bare, entries))
}

fn is_entry(o: &Map<String, Value>) -> bool {
    ["command", "url", "serverUrl"].iter().any(|k| o.contains_key(*k))
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Pairs of an object of texts (numbers and booleans as written; `null`,
/// which VS Code uses to unset a variable, left out).
fn pairs(v: Option<&Value>, not_object: Unusable, not_text: fn(String) -> Unusable) -> Result<Vec<(String, String)>, Unusable> {
    let Some(v) = v else { return Ok(Vec::new()) };
    let o = v.as_object().ok_or(not_object)?;
    let mut out = Vec::new();
    for (k, v) in o {
        match v {
            Value::Null => {}
            v => out.push((k.clone(), text_of(v).ok_or_else(|| not_text(k.clone()))?)),
        }
    }
    Ok(out)
}

fn server_of(v: &Value) -> Server {
    let Some(o) = v.as_object() else { return Server::Unusable(Unusable::NotAnObject) };
    match remote_or_stdio(o) {
        Ok(s) => s,
        Err(why) => Server::Unusable(why),
    }
}

fn remote_or_stdio(o: &Map<String, Value>) -> Result<Server, Unusable> {
    let kind = o.get("type").or(o.get("transport")).and_then(Value::as_str).unwrap_or_default();
    if let Some(url) = o.get("url").or(o.get("serverUrl")) {
        let url = url.as_str().ok_or(Unusable::UrlNotText)?.trim().to_owned();
        if !url.starts_with("${") && !url.starts_with("http://") && !url.starts_with("https://") {
            return Err(Unusable::NotHttp(url));
        }
        let transport = match kind {
            "sse" => Transport::Sse,
            "http" | "streamable-http" | "streamableHttp" | "streamable_http" => Transport::StreamableHttp,
            _ => Transport::Auto,
        };
        return Ok(Server::Remote { url, transport, headers: pairs(o.get("headers"), Unusable::HeadersNotAnObject, Unusable::HeaderNotText)? });
    }
    let (command, more) = match o.get("command") {
        Some(Value::String(c)) => (c.trim().to_owned(), o),
        // Zed's first form: {"command": {"path", "args", "env"}}.
        Some(Value::Object(c)) => (c.get("path").and_then(Value::as_str).ok_or(Unusable::CommandWithoutPath)?.to_owned(), c),
        Some(_) => return Err(Unusable::CommandNotText),
        None if kind == "stdio" => return Err(Unusable::StdioWithoutCommand),
        None => return Err(Unusable::NothingToRun),
    };
    if command.is_empty() {
        return Err(Unusable::EmptyCommand);
    }
    let args = match more.get("args") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.iter().map(|v| text_of(v).ok_or(Unusable::ArgumentNotText)).collect::<Result<_, _>>()?,
        Some(_) => return Err(Unusable::ArgsNotAList),
    };
    let cwd = o.get("cwd").and_then(Value::as_str).map(str::to_owned);
    let env = pairs(more.get("env"), Unusable::EnvNotAnObject, Unusable::EnvNotText)?;
    // A name is written into the line as it is: only a name a shell takes.
    if let Some((bad, _)) = env.iter().find(|(k, _)| !k.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')) {
        return Err(Unusable::BadVariableName(bad.clone()));
    }
    Ok(Server::Stdio(Stdio { command, args, env, cwd }))
}

fn input_of(v: &Value) -> Option<Input> {
    Some(Input {
        id: v.get("id")?.as_str()?.to_owned(),
        description: v.get("description").and_then(Value::as_str).unwrap_or_default().to_owned(),
        password: v.get("password").and_then(Value::as_bool).unwrap_or(false),
        default: v.get("default").and_then(text_of),
    })
}

#[cfg(test)]
mod tests;
