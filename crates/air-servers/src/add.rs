//! Adding a server, as a state machine: the form's draft is checked and
//! connected to; the listing is offered for the user to pick from (every
//! tool picked at first, the server's read-only hints not trusted); a
//! failure that the page cannot explain starts the connectivity doctor;
//! saving gives the server and the tools picked.

use air_mcp::McpError;
use air_store::mcp::{McpServer, SavedTool};

/// What the form holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Draft {
    pub name: String,
    pub url: String,
    /// An `Authorization` header value, if the user gave one.
    pub auth: String,
    /// Other headers (an imported configuration's), sent as they are.
    pub headers: Vec<(String, String)>,
}

impl Draft {
    /// The headers the server is sent.
    /// The `Authorization` the form gives replaces one among the others.
    pub fn headers(&self) -> Vec<(String, String)> {
        let auth = self.auth.trim();
        let mut out = if auth.is_empty() { Vec::new() } else { vec![("Authorization".to_owned(), auth.to_owned())] };
        out.extend(self.headers.iter().filter(|(k, _)| auth.is_empty() || !k.eq_ignore_ascii_case("authorization")).cloned());
        out
    }

    /// The server to connect to (with `id`), or `None` when the form lacks
    /// a name or an http(s) URL.
    pub fn server(&self, id: String) -> Option<McpServer> {
        let (name, url) = (self.name.trim(), self.url.trim());
        (!name.is_empty() && is_http(url)).then(|| McpServer {
            id,
            name: name.to_owned(),
            url: url.to_owned(),
            headers: self.headers(),
            enabled: true,
            tools: Vec::new(),
            excluded: Vec::new(),
            protocol: None,
            trust_hints: false,
        })
    }
}

/// `http://` or `https://` (spaces around aside): the only URLs a server
/// may have.
pub fn is_http(url: &str) -> bool {
    air_http::url::is_http(url.trim())
}

/// A server as listed, before anything is saved.
#[derive(Debug, Clone, PartialEq)]
pub struct Preview {
    pub server: McpServer,
    /// Every tool it offers; the user picks which to keep.
    pub tools: Vec<SavedTool>,
}

/// Why connecting failed, and whether the doctor may say more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub text: String,
    pub worth_diagnosing: bool,
}

impl Failure {
    /// Nothing answered, the answers look like CORS hid something, or a
    /// 401 came whose challenge the page could not read (`hidden_challenge`).
    pub fn of(e: &McpError, hidden_challenge: bool) -> Self {
        let worth_diagnosing = match e {
            McpError::Network(_) | McpError::Http { status: 400 | 404, .. } => true,
            McpError::Http { status: 401, .. } => hidden_challenge,
            _ => false,
        };
        Self { text: e.to_string(), worth_diagnosing }
    }
}

/// Where adding stands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Stage {
    #[default]
    Idle,
    Connecting,
    /// Connected: the user picks the tools to keep.
    Picking,
    /// Saved as `name`, with `kept` tools.
    Added {
        name: String,
        kept: usize,
    },
    /// The form lacks a name or an http(s) URL.
    Incomplete,
    Failed(String),
}

/// What the connectivity doctor found for the server being added.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Doctor {
    #[default]
    Idle,
    Probing,
    Found(air_doctor::Finding),
}

/// The add form's flow.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AddFlow {
    pub stage: Stage,
    pub doctor: Doctor,
    preview: Option<Preview>,
    /// The tools picked (all of them at first).
    pub picked: Vec<String>,
    /// Whether the server's read-only hints decide (off unless chosen).
    pub trust_hints: bool,
    /// Bumped with each attempt: an answer to an older one is dropped.
    attempt: u64,
}

impl AddFlow {
    /// Starts connecting to `draft` (as server `id`): the server to list,
    /// and the attempt its answer must name; `None` when the draft is
    /// incomplete (the stage says so).
    pub fn connect(&mut self, draft: &Draft, id: String) -> Option<(McpServer, u64)> {
        self.preview = None;
        self.doctor = Doctor::Idle;
        self.attempt += 1;
        let Some(server) = draft.server(id) else {
            self.stage = Stage::Incomplete;
            return None;
        };
        self.stage = Stage::Connecting;
        Some((server, self.attempt))
    }

    /// The listing of attempt `attempt` came back. Returns true when the
    /// doctor should be asked why it failed (the doctor is then probing).
    pub fn previewed(&mut self, attempt: u64, result: Result<Preview, Failure>) -> bool {
        if attempt != self.attempt || self.stage != Stage::Connecting {
            return false;
        }
        match result {
            Ok(p) => {
                self.picked = p.tools.iter().map(|t| t.name.clone()).collect();
                self.trust_hints = false;
                self.preview = Some(p);
                self.stage = Stage::Picking;
                false
            }
            Err(f) => {
                self.stage = Stage::Failed(f.text);
                if f.worth_diagnosing {
                    self.doctor = Doctor::Probing;
                }
                f.worth_diagnosing
            }
        }
    }

    /// The doctor's finding for attempt `attempt`.
    pub fn diagnosed(&mut self, attempt: u64, finding: air_doctor::Finding) {
        if attempt == self.attempt && self.doctor == Doctor::Probing {
            self.doctor = Doctor::Found(finding);
        }
    }

    /// The tools offered, with their descriptions, while picking.
    pub fn offered(&self) -> Vec<(String, String)> {
        self.preview.iter().flat_map(|p| p.tools.iter().map(|t| (t.name.clone(), t.description.clone()))).collect()
    }

    pub fn pick(&mut self, tool: &str, on: bool) {
        self.picked.retain(|t| t != tool);
        if on && self.preview.as_ref().is_some_and(|p| p.tools.iter().any(|t| t.name == tool)) {
            self.picked.push(tool.to_owned());
        }
    }

    /// The user saves: the server (with the trust chosen), the tools it
    /// offered, and those picked. The caller saves them and reports the
    /// count with [`AddFlow::added`].
    pub fn save(&mut self) -> Option<(McpServer, Vec<SavedTool>, Vec<String>)> {
        let p = self.preview.take()?;
        let server = McpServer { trust_hints: self.trust_hints, ..p.server };
        Some((server, p.tools, std::mem::take(&mut self.picked)))
    }

    pub fn added(&mut self, name: String, kept: usize) {
        self.stage = Stage::Added { name, kept };
    }

    pub fn cancel(&mut self) {
        self.preview = None;
        self.attempt += 1;
        self.stage = Stage::Idle;
    }
}

/// A saved server's headers as the user edits them: one `Name: value` a
/// line.
pub fn headers_text(headers: &[(String, String)]) -> String {
    headers.iter().map(|(n, v)| format!("{n}: {v}")).collect::<Vec<_>>().join("\n")
}

/// A line of [`headers_text`]'s form that is not a header (`Name: value`),
/// by its number from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("line {line} is not a header (Name: value)")]
pub struct NotAHeader {
    pub line: usize,
}

/// Reads [`headers_text`]'s form back (blank lines skipped); a line that is
/// not a header is refused with its number (the saved ones stay).
pub fn parse_headers(text: &str) -> Result<Vec<(String, String)>, NotAHeader> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let (name, value) = line.split_once(':').map(|(n, v)| (n.trim(), v.trim())).unwrap_or_default();
        let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        if name.is_empty() || !name.chars().all(token) || value.chars().any(|c| c.is_control()) {
            return Err(NotAHeader { line: i + 1 });
        }
        out.push((name.to_owned(), value.to_owned()));
    }
    Ok(out)
}

/// What the doctor probes for an MCP server at `url`: the request this
/// client sends first, with the headers it sends (probe values) and
/// `headers` (the user's).
pub fn doctor_target(url: &str, headers: Vec<(String, String)>, page_origin: Option<String>) -> air_doctor::Target {
    let mut sent: Vec<(String, String)> = vec![
        ("MCP-Protocol-Version".into(), air_mcp::LATEST_VERSION.into()),
        ("Mcp-Session-Id".into(), "probe".into()),
        ("Last-Event-ID".into(), "probe".into()),
        ("Mcp-Method".into(), "tools/list".into()),
        ("Mcp-Name".into(), "probe".into()),
    ];
    sent.extend(headers);
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": air_mcp::LATEST_VERSION, "capabilities": {}, "clientInfo": {"name": "air-agent", "version": "doctor"}}});
    air_doctor::Target { url: url.trim().to_owned(), page_origin, headers: sent, body: body.to_string(), mcp: true }
}

#[cfg(test)]
#[path = "add_tests.rs"]
mod tests;
