//! The session with one MCP server over Streamable HTTP (revisions
//! 2025-03-26 to 2025-11-25).

use std::cell::RefCell;

use air_http::{Abort, Body, HttpClient, HttpError, Request, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{LATEST_VERSION, SUPPORTED_VERSIONS};

/// Where a server is and what to send it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerConfig {
    /// The name the user gave it (tools are named after it).
    pub name: String,
    pub url: String,
    /// Extra headers (an API key, `Authorization: Bearer …`), sent only to
    /// this server.
    #[serde(default)]
    pub headers: Vec<(String, String)>,
}

/// Why a request to a server failed.
#[derive(Debug, Clone, PartialEq)]
pub enum McpError {
    /// Nothing answered, or the browser hid the answer (CORS).
    Network(String),
    /// The server answered with an HTTP error.
    Http { status: u16, body: String },
    /// The server answered with a JSON-RPC error.
    Rpc { code: i64, message: String },
    /// The server speaks no revision this client knows.
    UnsupportedVersion(String),
    /// The answer is not what the protocol says.
    Protocol(String),
    Aborted,
}

impl std::fmt::Display for McpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            McpError::Network(d) => write!(f, "the MCP server could not be reached (down, wrong address, or no CORS for this page): {d}"),
            McpError::Http { status, body } if body.trim().is_empty() => write!(f, "the MCP server answered HTTP {status}"),
            McpError::Http { status, body } => write!(f, "the MCP server answered HTTP {status}: {}", short(body)),
            McpError::Rpc { code, message } => write!(f, "the MCP server reported an error ({code}): {message}"),
            McpError::UnsupportedVersion(v) => write!(f, "the MCP server speaks protocol version {v}, which this app does not know"),
            McpError::Protocol(d) => write!(f, "the MCP server's answer was not understood: {d}"),
            McpError::Aborted => f.write_str("stopped"),
        }
    }
}

impl std::error::Error for McpError {}

fn short(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() > 300 { format!("{}…", s.chars().take(300).collect::<String>()) } else { s.to_owned() }
}

impl From<HttpError> for McpError {
    fn from(e: HttpError) -> Self {
        match e {
            HttpError::Aborted => McpError::Aborted,
            HttpError::Network(d) => McpError::Network(d),
            HttpError::Other(d) => McpError::Network(d),
        }
    }
}

#[derive(Debug, Default)]
struct State {
    session_id: Option<String>,
    version: Option<String>,
    next_id: u64,
    initialized: bool,
    server_info: Option<Value>,
}

/// What a request came back with.
enum Outcome {
    Result(Value),
    /// The session is gone (404, or 400 after a session id was sent).
    Expired,
}

/// The session with one server. Single-threaded; one request at a time
/// per call, several calls may be in flight.
pub struct McpClient<H> {
    http: H,
    config: ServerConfig,
    state: RefCell<State>,
}

impl<H: HttpClient> McpClient<H> {
    pub fn new(http: H, config: ServerConfig) -> Self {
        Self { http, config, state: RefCell::new(State { next_id: 1, ..State::default() }) }
    }

    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// The HTTP client it sends with.
    pub fn http(&self) -> &H {
        &self.http
    }

    /// `Mcp-Session-Id`, once initialised (servers in stateless mode give none).
    pub fn session_id(&self) -> Option<String> {
        self.state.borrow().session_id.clone()
    }

    /// The revision agreed in `initialize`.
    pub fn protocol_version(&self) -> Option<String> {
        self.state.borrow().version.clone()
    }

    /// What the server said about itself (`serverInfo`).
    pub fn server_info(&self) -> Option<Value> {
        self.state.borrow().server_info.clone()
    }

    fn next_id(&self) -> u64 {
        let mut s = self.state.borrow_mut();
        let id = s.next_id;
        s.next_id += 1;
        id
    }

    /// A POST of one JSON-RPC message with the headers every request
    /// carries: the user's, the session id and the protocol version.
    fn post(&self, message: &Value) -> Request {
        let mut r = Request::post_json(&self.config.url, message.to_string()).header("Accept", "application/json, text/event-stream");
        for (k, v) in &self.config.headers {
            r = r.header(k, v);
        }
        let s = self.state.borrow();
        if let Some(id) = &s.session_id {
            r = r.header("Mcp-Session-Id", id);
        }
        if let Some(v) = &s.version {
            r = r.header("MCP-Protocol-Version", v);
        }
        r
    }

    /// Starts the session: `initialize` with the newest revision, checks
    /// the one the server picked, keeps the session id, then
    /// `notifications/initialized`. Returns the server's `serverInfo`.
    pub async fn connect(&self, abort: &Abort) -> Result<Value, McpError> {
        {
            let mut s = self.state.borrow_mut();
            s.session_id = None;
            s.version = None;
            s.initialized = false;
        }
        let id = self.next_id();
        let message = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "initialize",
            "params": {
                "protocolVersion": LATEST_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "air-agent", "title": "Air Agent", "version": env!("CARGO_PKG_VERSION")}
            }
        });
        let response = self.http.send(self.post(&message), abort).await?;
        let session = response.header("mcp-session-id").map(str::to_owned);
        let result = match self.answer(id, response, false, abort).await? {
            Outcome::Result(r) => r,
            Outcome::Expired => return Err(McpError::Protocol("initialize was refused as an expired session".into())),
        };
        let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or_default().to_owned();
        if !SUPPORTED_VERSIONS.contains(&version.as_str()) {
            return Err(McpError::UnsupportedVersion(version));
        }
        {
            let mut s = self.state.borrow_mut();
            s.session_id = session;
            s.version = Some(version);
            s.server_info = result.get("serverInfo").cloned();
        }
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let r = self.http.send(self.post(&note), abort).await?;
        if !r.ok() {
            let status = r.status;
            let body = r.body.text().await.unwrap_or_default();
            return Err(McpError::Http { status, body });
        }
        self.state.borrow_mut().initialized = true;
        Ok(result.get("serverInfo").cloned().unwrap_or(Value::Null))
    }

    /// Sends a request and returns its result. Connects first if needed;
    /// an expired session is initialised again, once, and the request sent
    /// again.
    pub async fn request(&self, method: &str, params: Value, abort: &Abort) -> Result<Value, McpError> {
        if !self.state.borrow().initialized {
            self.connect(abort).await?;
        }
        for attempt in 0..2 {
            let id = self.next_id();
            let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            let had_session = self.state.borrow().session_id.is_some();
            let response = self.http.send(self.post(&message), abort).await?;
            match self.answer(id, response, had_session, abort).await? {
                Outcome::Result(r) => return Ok(r),
                Outcome::Expired if attempt == 0 => {
                    self.connect(abort).await?;
                }
                Outcome::Expired => break,
            }
        }
        Err(McpError::Protocol("the session expired again right after it was renewed".into()))
    }

    /// Every tool the server offers (all pages).
    pub async fn list_tools(&self, abort: &Abort) -> Result<Vec<Value>, McpError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        // A server that never stops paging is cut off.
        for _ in 0..100 {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let result = self.request("tools/list", params, abort).await?;
            match result.get("tools") {
                Some(Value::Array(page)) => tools.extend(page.iter().cloned()),
                _ => return Err(McpError::Protocol("tools/list answered without a tools list".into())),
            }
            cursor = result.get("nextCursor").and_then(Value::as_str).map(str::to_owned);
            if cursor.is_none() {
                break;
            }
        }
        Ok(tools)
    }

    /// Calls a tool; the result as the server sent it (`content`,
    /// `isError`, `structuredContent`).
    pub async fn call_tool(&self, name: &str, arguments: Value, abort: &Abort) -> Result<Value, McpError> {
        self.request("tools/call", json!({"name": name, "arguments": arguments}), abort).await
    }

    /// Ends the session (DELETE with its id). Failures are ignored: the
    /// server forgets it in time anyway, and 405 is allowed.
    pub async fn close(&self) {
        let Some(id) = self.state.borrow_mut().session_id.take() else { return };
        let mut r = Request { method: "DELETE".into(), url: self.config.url.clone(), headers: Vec::new(), body: None };
        for (k, v) in &self.config.headers {
            r = r.header(k, v);
        }
        r = r.header("Mcp-Session-Id", id);
        let _ = self.http.send(r, &Abort::new()).await;
        self.state.borrow_mut().initialized = false;
    }

    /// Reads the answer to request `id`: a JSON body, or an SSE stream on
    /// which server requests and notifications may come first.
    async fn answer(&self, id: u64, response: Response<H::Body>, had_session: bool, abort: &Abort) -> Result<Outcome, McpError> {
        let status = response.status;
        if status == 404 || (status == 400 && had_session) {
            // The npm reference server says 400 "No valid session ID" where
            // the spec says 404.
            let body = response.body.text().await.unwrap_or_default();
            if status == 404 || body.to_ascii_lowercase().contains("session") {
                return Ok(Outcome::Expired);
            }
            return Err(McpError::Http { status, body });
        }
        if !(200..300).contains(&status) {
            let body = response.body.text().await.unwrap_or_default();
            return Err(rpc_error_in(&body).unwrap_or(McpError::Http { status, body }));
        }
        let sse = response.header("content-type").is_some_and(|t| t.to_ascii_lowercase().starts_with("text/event-stream"));
        let mut body = response.body;
        if !sse {
            let text = body.text().await?;
            let message: Value = serde_json::from_str(&text).map_err(|e| McpError::Protocol(format!("not JSON ({e})")))?;
            return match self.handle(id, message, abort).await? {
                Some(result) => result.map(Outcome::Result),
                None => Err(McpError::Protocol("the answer is not the response to the request".into())),
            };
        }
        let mut decoder = air_sse::Decoder::new();
        loop {
            let chunk = body.chunk().await?;
            let frames = match &chunk {
                Some(bytes) => decoder.feed(bytes),
                None => decoder.finish(),
            };
            for frame in frames {
                let air_sse::Frame::Event(event) = frame else { continue };
                // A priming event carries only an id.
                if event.data.trim().is_empty() {
                    continue;
                }
                let Ok(message) = serde_json::from_str::<Value>(&event.data) else { continue };
                if let Some(result) = self.handle(id, message, abort).await? {
                    return result.map(Outcome::Result);
                }
            }
            if chunk.is_none() {
                return Err(McpError::Protocol("the stream ended before the response".into()));
            }
        }
    }

    /// One message from the server: the response to `id` (returned), a
    /// server request (answered), or a notification (skipped for now).
    async fn handle(&self, id: u64, message: Value, abort: &Abort) -> Result<Option<Result<Value, McpError>>, McpError> {
        let method = message.get("method").and_then(Value::as_str).map(str::to_owned);
        match (method, message.get("id")) {
            (Some(method), Some(request_id)) => {
                let reply = if method == "ping" {
                    json!({"jsonrpc": "2.0", "id": request_id, "result": {}})
                } else {
                    json!({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": format!("method not supported: {method}")}})
                };
                let r = self.http.send(self.post(&reply), abort).await?;
                let _ = r.body.text().await;
                Ok(None)
            }
            (Some(_), None) => Ok(None),
            (None, Some(got)) if got.as_u64() == Some(id) => {
                if let Some(e) = message.get("error") {
                    return Ok(Some(Err(rpc_error(e))));
                }
                Ok(Some(message.get("result").cloned().ok_or_else(|| McpError::Protocol("a response with neither result nor error".into()))))
            }
            _ => Ok(None),
        }
    }
}

fn rpc_error(e: &Value) -> McpError {
    McpError::Rpc {
        code: e.get("code").and_then(Value::as_i64).unwrap_or(0),
        message: e.get("message").and_then(Value::as_str).unwrap_or("unknown error").to_owned(),
    }
}

/// A JSON-RPC error inside an HTTP error body.
fn rpc_error_in(body: &str) -> Option<McpError> {
    let v: Value = serde_json::from_str(body).ok()?;
    v.get("error").filter(|e| e.is_object()).map(rpc_error)
}
