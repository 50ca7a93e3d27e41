//! The session with one MCP server over Streamable HTTP (revisions
//! 2025-03-26 to 2025-11-25).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Poll, Waker};

use air_http::{Abort, Body, HttpClient, HttpError, Request, Response};
use air_tools::{CallHost, ElicitAnswer, Elicitation, Progress};
use futures_util::future::{Either, select};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::auth;
use crate::elicit;
use crate::error::short;
use crate::host::Immediate;
use crate::jsonrpc::{response_of, rpc_error, rpc_error_in};
use crate::{LATEST_VERSION, LEGACY_VERSION, MODERN_VERSION, SUPPORTED_VERSIONS};

pub use crate::auth::Authorizer;
pub use crate::error::McpError;
pub use crate::host::{ClientHost, Connection, Notice};

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

/// Ends [`McpClient::listen`]'s claim on the session's stream, however it ends.
struct Listening<'a, H: HttpClient>(&'a McpClient<H>);

impl<H: HttpClient> Drop for Listening<'_, H> {
    fn drop(&mut self) {
        {
            let mut s = self.0.state.borrow_mut();
            s.listening = false;
            s.stream_opening = false;
        }
        self.0.wake_all();
    }
}

/// How long to wait before reconnecting to a stream whose server named no
/// `retry:` delay.
const DEFAULT_RETRY_MS: u64 = 1_000;
/// Rounds of input a 2026-07-28 request may ask for before giving up.
const MAX_INPUT_ROUNDS: u32 = 8;
/// How long a watched call waits for the session's stream to open.
const STREAM_OPEN_WAIT_MS: u64 = 3_000;
/// Reconnections to one answer's stream in a row that bring nothing new.
const MAX_RESUMES: u32 = 5;
/// The longest a result is kept fresh, whatever `ttlMs` says.
const MAX_TTL_MS: u64 = 24 * 60 * 60 * 1000;

#[derive(Debug, Default)]
struct State {
    session_id: Option<String>,
    version: Option<String>,
    next_id: u64,
    initialized: bool,
    server_info: Option<Value>,
    capabilities: Option<Value>,
    /// Ids of requests sent and not yet answered.
    pending: Vec<u64>,
    /// Calls in flight that someone watches (progress, questions).
    watched: usize,
    /// Server requests and progress that came on the session's own stream,
    /// for a watched call to take.
    inbox: VecDeque<Value>,
    inbox_wakers: Vec<Waker>,
    /// [`McpClient::listen`] is running.
    listening: bool,
    /// Its GET has been sent and not yet answered.
    stream_opening: bool,
    /// The server speaks 2026-07-28: every request stands alone.
    modern: bool,
    /// Which era the server is of was found out (it is asked first when
    /// connecting again).
    era_known: bool,
    /// Results the server said stay fresh a while (`ttlMs`), by method and
    /// resource URI ("" for lists), with the time they go stale.
    cache: std::collections::HashMap<(String, String), (Value, u64)>,
    /// Resources whose changes the user wants to hear of.
    subscribed: std::collections::BTreeSet<String>,
    /// Bumped when `subscribed` changes: a 2026-07-28 listen stream is
    /// opened again with the new set.
    subscriptions_rev: u64,
}

/// What a request came back with.
enum Outcome {
    Result(Value),
    /// The session is gone (404, or 400 after a session id was sent).
    Expired,
}

/// How reading one SSE stream ended.
enum StreamEnd {
    Answered(Result<Value, McpError>),
    /// It closed before the answer: resume from `last_id` after `retry_ms`.
    Closed { last_id: Option<String>, retry_ms: Option<u64>, progressed: bool },
}

/// Reads the JSON-RPC messages of one SSE stream: priming events (an id,
/// no data) and comments are skipped, `retry:` and the last event id kept.
struct Messages<B> {
    body: B,
    decoder: air_sse::Decoder,
    queued: VecDeque<Value>,
    retry_ms: Option<u64>,
    /// A message came (the stream was of use, whatever happens next).
    progressed: bool,
    ended: bool,
}

impl<B: Body> Messages<B> {
    fn new(body: B) -> Self {
        Self { body, decoder: air_sse::Decoder::new(), queued: VecDeque::new(), retry_ms: None, progressed: false, ended: false }
    }

    /// The next message, or `None` once the stream has ended. A connection
    /// that breaks ends the stream like a close when it can be resumed
    /// (it had an event id), and is an error otherwise.
    async fn next(&mut self) -> Result<Option<Value>, McpError> {
        loop {
            if let Some(m) = self.queued.pop_front() {
                self.progressed = true;
                return Ok(Some(m));
            }
            if self.ended {
                return Ok(None);
            }
            let chunk = match self.body.chunk().await {
                Ok(c) => c,
                Err(HttpError::Network(_)) if self.decoder.last_event_id().is_some() => None,
                Err(e) => return Err(e.into()),
            };
            let frames = match &chunk {
                Some(bytes) => self.decoder.feed(bytes),
                None => {
                    self.ended = true;
                    self.decoder.finish()
                }
            };
            for frame in frames {
                match frame {
                    air_sse::Frame::Retry(ms) => self.retry_ms = Some(ms),
                    // A message too big to hold: the stream is given up
                    // (its answer cannot be read), with why.
                    air_sse::Frame::TooLong { limit } => {
                        self.ended = true;
                        return Err(McpError::Protocol(format!("the server sent a message over {} MB; it was not read", limit / (1024 * 1024))));
                    }
                    air_sse::Frame::Event(e) if !e.data.trim().is_empty() => {
                        if let Ok(m) = serde_json::from_str::<Value>(&e.data) {
                            self.queued.push_back(m);
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    fn last_id(&self) -> Option<String> {
        self.decoder.last_event_id().map(str::to_owned)
    }
}

/// The session with one server. Single-threaded; several requests may be
/// in flight at once.
pub struct McpClient<H: HttpClient> {
    http: H,
    config: ServerConfig,
    host: Rc<dyn ClientHost>,
    /// Time allowed for `tools/call` and for other requests (none: no limit).
    timeouts: (Option<u64>, Option<u64>),
    state: RefCell<State>,
    /// The legacy HTTP+SSE transport, when the server speaks only that.
    legacy: RefCell<Option<Legacy<H::Body>>>,
    authorizer: Option<Rc<dyn Authorizer>>,
}

/// The HTTP+SSE transport of revision 2024-11-05: one event stream (a GET)
/// carries every answer; messages are POSTed to the endpoint it names.
struct Legacy<B> {
    endpoint: String,
    /// The stream, while nobody is reading it.
    body: Option<B>,
    decoder: air_sse::Decoder,
    /// Answers read for requests that have not picked them up yet.
    answers: std::collections::HashMap<u64, Result<Value, McpError>>,
    /// The server closed the stream (the session is over).
    closed: bool,
    wakers: Vec<Waker>,
    /// Messages that arrived with the endpoint, not yet handled.
    early: Vec<Value>,
}

impl<H: HttpClient> McpClient<H> {
    pub fn new(http: H, config: ServerConfig) -> Self {
        Self {
            http,
            config,
            host: Rc::new(Immediate),
            timeouts: (None, None),
            state: RefCell::new(State { next_id: 1, ..State::default() }),
            legacy: RefCell::new(None),
            authorizer: None,
        }
    }

    /// The server spoke `version` before: a revision with sessions (or the
    /// legacy transport) starts with `initialize` at once, without asking
    /// whether it speaks 2026-07-28.
    pub fn with_known_version(self, version: Option<&str>) -> Self {
        if version.is_some_and(|v| v != crate::MODERN_VERSION) {
            self.state.borrow_mut().era_known = true;
        }
        self
    }

    /// Runs with this timer and hears the server's announcements.
    /// Signs in where the server asks for it.
    pub fn with_authorizer(mut self, authorizer: Rc<dyn Authorizer>) -> Self {
        self.authorizer = Some(authorizer);
        self
    }

    /// Sends with the server's sign-in ([`auth::send`]).
    async fn send(&self, request: Request, abort: &Abort) -> Result<Response<H::Body>, HttpError> {
        auth::send(&self.http, self.authorizer.as_ref(), request, abort).await
    }

    pub fn with_host(mut self, host: Rc<dyn ClientHost>) -> Self {
        self.host = host;
        self
    }

    /// Gives up on (and cancels) a `tools/call` after `call_ms`, any other
    /// request after `request_ms`. Needs a host with a timer.
    pub fn with_timeouts(mut self, call_ms: Option<u64>, request_ms: Option<u64>) -> Self {
        self.timeouts = (call_ms, request_ms);
        self
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

    /// What the server offers (`capabilities` of its initialize answer).
    pub fn server_capabilities(&self) -> Option<Value> {
        self.state.borrow().capabilities.clone()
    }

    /// Ids of the requests waiting for an answer.
    pub fn pending(&self) -> Vec<u64> {
        self.state.borrow().pending.clone()
    }

    fn next_id(&self) -> u64 {
        let mut s = self.state.borrow_mut();
        let id = s.next_id;
        s.next_id += 1;
        id
    }

    /// The headers every request carries: the user's, the session id and
    /// the protocol version.
    fn with_headers(&self, mut r: Request) -> Request {
        for (k, v) in &self.config.headers {
            r = r.header(k, v);
        }
        let s = self.state.borrow();
        if let Some(id) = &s.session_id {
            r = r.header("Mcp-Session-Id", id);
        }
        if let Some(v) = s.version.as_ref().filter(|_| !self.is_legacy()) {
            r = r.header("MCP-Protocol-Version", v);
        }
        r
    }

    /// Whether the server is spoken to over the legacy HTTP+SSE transport.
    pub fn is_legacy(&self) -> bool {
        self.legacy.borrow().is_some()
    }

    /// A POST of one JSON-RPC message.
    fn post(&self, message: &Value) -> Request {
        let url = self.legacy.borrow().as_ref().map_or_else(|| self.config.url.clone(), |l| l.endpoint.clone());
        self.with_headers(Request::post_json(url, message.to_string()).header("Accept", "application/json, text/event-stream"))
    }

    /// What this client can do for a server: answer elicitations (forms
    /// and URLs), and show MCP Apps (the `io.modelcontextprotocol/ui`
    /// extension).
    pub fn capabilities() -> Value {
        client_capabilities()
    }

    /// Starts the session: `initialize` with the newest revision, checks
    /// the one the server picked, keeps the session id, then
    /// `notifications/initialized`. Returns the server's `serverInfo`.
    pub async fn connect(&self, abort: &Abort) -> Result<Value, McpError> {
        let again = {
            let mut s = self.state.borrow_mut();
            s.session_id = None;
            s.version = None;
            // A new session may see other lists.
            s.cache.clear();
            std::mem::replace(&mut s.initialized, false) || s.server_info.is_some()
        };
        self.host.connection(if again { Connection::Reconnecting } else { Connection::Connecting });
        let result = self.start_session(abort).await;
        match &result {
            Ok(_) => self.host.connection(Connection::Connected { version: self.protocol_version().unwrap_or_default() }),
            Err(McpError::Aborted) => {}
            Err(e) => self.host.connection(Connection::Failed { reason: e.to_string() }),
        }
        result
    }

    /// 2026-07-28 first: `server/discover`. `Ok(false)` when the server
    /// does not speak it (it answered anything but a discovery result).
    async fn discover(&self, abort: &Abort) -> Result<bool, McpError> {
        // Id 0 is never used by requests: theirs start at 1.
        match self.discover_once(0, abort).await? {
            Discovered::Again => {
                // A 2026-07-28 server that refused the first try's version
                // but names 2026-07-28: once more, with a new id.
                let id = self.next_id();
                Ok(matches!(self.discover_once(id, abort).await?, Discovered::Yes))
            }
            d => Ok(d == Discovered::Yes),
        }
    }

    async fn discover_once(&self, id: u64, abort: &Abort) -> Result<Discovered, McpError> {
        let mut params = serde_json::Map::new();
        params.insert("_meta".into(), Value::Object(modern_meta()));
        let message = json!({"jsonrpc": "2.0", "id": id, "method": "server/discover", "params": params});
        let mut request = Request::post_json(&self.config.url, message.to_string())
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", MODERN_VERSION)
            .header("Mcp-Method", "server/discover");
        for (k, v) in &self.config.headers {
            request = request.header(k, v);
        }
        let response = match self.send(request, abort).await {
            Ok(r) => r,
            Err(HttpError::Aborted) => return Err(McpError::Aborted),
            // Perhaps only the new headers were refused (CORS): the older
            // handshake says more.
            Err(_) => return Ok(Discovered::No),
        };
        if !response.ok() {
            let text = response.body.text().await.unwrap_or_default();
            // A 2026-07-28 error (-32022) naming our version: a server of
            // this era, to be asked again. Any other 4xx: an older server.
            return Ok(match rpc_error_in(&text) {
                Some(McpError::VersionRefused { supported }) if supported.iter().any(|v| v == MODERN_VERSION) && id == 0 => Discovered::Again,
                _ => Discovered::No,
            });
        }
        let Ok(Outcome::Result(result)) = self.answer(id, response, false, abort, None).await else { return Ok(Discovered::No) };
        let speaks = result.get("supportedVersions").and_then(Value::as_array).is_some_and(|v| v.iter().any(|v| v.as_str() == Some(MODERN_VERSION)));
        if !speaks {
            return Ok(Discovered::No);
        }
        let mut s = self.state.borrow_mut();
        s.modern = true;
        s.version = Some(MODERN_VERSION.to_owned());
        s.server_info = result.pointer("/_meta/io.modelcontextprotocol~1serverInfo").cloned().or_else(|| result.get("serverInfo").cloned());
        s.capabilities = result.get("capabilities").cloned();
        s.initialized = true;
        Ok(Discovered::Yes)
    }

    async fn start_session(&self, abort: &Abort) -> Result<Value, McpError> {
        // The era found before is asked first (cached for this server).
        let modern_before = std::mem::take(&mut self.state.borrow_mut().modern);
        let era_known = self.state.borrow().era_known;
        if (modern_before || !era_known) && self.discover(abort).await? {
            self.state.borrow_mut().era_known = true;
            self.host.connected();
            return Ok(self.server_info().unwrap_or(Value::Null));
        }
        let id = self.next_id();
        let message = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "initialize",
            "params": {
                "protocolVersion": LATEST_VERSION,
                "capabilities": Self::capabilities(),
                "clientInfo": {"name": "air-agent", "title": "Air Agent", "version": env!("CARGO_PKG_VERSION")}
            }
        });
        *self.legacy.borrow_mut() = None;
        let response = self.send(self.post(&message), abort).await?;
        let session = response.header("mcp-session-id").map(str::to_owned);
        let result = if matches!(response.status, 400 | 404 | 405) {
            // Perhaps a server of the legacy HTTP+SSE transport.
            let status = response.status;
            let body = response.body.text().await.unwrap_or_default();
            let refused = rpc_error_in(&body).unwrap_or(McpError::Http { status, body });
            if !self.open_legacy(abort).await? {
                return Err(refused);
            }
            let id = self.next_id();
            let message = json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": message["params"].clone()});
            let response = self.send(self.post(&message), abort).await?;
            match self.legacy_answer(id, response, abort, None).await? {
                Outcome::Result(r) => r,
                Outcome::Expired => return Err(McpError::Protocol("the server closed its event stream".into())),
            }
        } else {
            match self.answer(id, response, false, abort, None).await? {
                Outcome::Result(r) => r,
                Outcome::Expired => return Err(McpError::Protocol("initialize was refused as an expired session".into())),
            }
        };
        let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or_default().to_owned();
        let known = SUPPORTED_VERSIONS.contains(&version.as_str()) || (self.is_legacy() && version == LEGACY_VERSION);
        if !known {
            return Err(McpError::UnsupportedVersion(version));
        }
        {
            let mut s = self.state.borrow_mut();
            s.session_id = session;
            s.version = Some(version);
            s.server_info = result.get("serverInfo").cloned();
            s.capabilities = result.get("capabilities").cloned();
        }
        self.notify("notifications/initialized", None, abort).await?;
        {
            let mut s = self.state.borrow_mut();
            s.initialized = true;
            s.era_known = true;
        }
        self.resubscribe(abort).await?;
        self.host.connected();
        Ok(result.get("serverInfo").cloned().unwrap_or(Value::Null))
    }

    /// Sends a notification (answered 202, no body).
    async fn notify(&self, method: &str, params: Option<Value>, abort: &Abort) -> Result<(), McpError> {
        let mut note = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            note["params"] = p;
        }
        let r = self.send(self.post(&note), abort).await?;
        if !r.ok() {
            let status = r.status;
            let body = r.body.text().await.unwrap_or_default();
            return Err(McpError::Http { status, body });
        }
        Ok(())
    }

    /// Sends a request and returns its result. Connects first if needed;
    /// an expired session is initialised again, once, and the request sent
    /// again.
    pub async fn request(&self, method: &str, params: Value, abort: &Abort) -> Result<Value, McpError> {
        self.request_with(method, params, abort, None).await
    }

    /// [`McpClient::request`], reporting progress to `call` and asking it
    /// the server's questions. Stopped by `abort` or the timeout, the
    /// request is cancelled on the server (`notifications/cancelled`).
    pub async fn request_with(&self, method: &str, params: Value, abort: &Abort, call: Option<&dyn CallHost>) -> Result<Value, McpError> {
        self.request_full(method, params, abort, call, &[]).await
    }

    /// [`McpClient::request_with`], plus headers for this request alone
    /// (2026-07-28 `Mcp-Param-*`).
    async fn request_full(&self, method: &str, mut params: Value, abort: &Abort, call: Option<&dyn CallHost>, extra: &[(String, String)]) -> Result<Value, McpError> {
        if !self.state.borrow().initialized {
            self.connect(abort).await?;
        }
        let mut attempt = 0;
        let mut rounds = 0;
        let mut url_retried = false;
        loop {
            let id = self.next_id();
            let modern = self.state.borrow().modern;
            let mut sent = params.clone();
            if let Some(p) = sent.as_object_mut() {
                let meta = p.entry("_meta").or_insert_with(|| json!({}));
                if let Some(m) = meta.as_object_mut() {
                    // Progress reports name the request they belong to.
                    if call.is_some() {
                        m.insert("progressToken".into(), json!(id));
                    }
                    if modern {
                        m.extend(modern_meta());
                    }
                }
                if p.get("_meta").is_some_and(|m| m.as_object().is_some_and(|m| m.is_empty())) {
                    p.remove("_meta");
                }
            }
            let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": sent});
            let mut request = self.post(&message);
            if modern {
                request = request.header("Mcp-Method", method);
                if let Some(name) = routing_name(method, &params) {
                    request = request.header("Mcp-Name", name);
                }
                for (k, v) in extra {
                    request = request.header(k, v);
                }
            }
            let had_session = self.state.borrow().session_id.is_some();
            self.state.borrow_mut().pending.push(id);
            // Stopped by the caller or by the timeout.
            let inner = Abort::new();
            abort.on_abort({
                let inner = inner.clone();
                move || inner.abort()
            });
            let outcome = {
                let exchange = async {
                    let response = self.send(request, &inner).await?;
                    if self.is_legacy() {
                        return self.legacy_answer(id, response, &inner, call).await;
                    }
                    if modern && !response.ok() {
                        // No session to lose: an error is an error.
                        let status = response.status;
                        let body = response.body.text().await.unwrap_or_default();
                        return Err(rpc_error_in(&body).unwrap_or(McpError::Http { status, body }));
                    }
                    self.answer(id, response, had_session, &inner, call).await
                };
                // A watched call also takes what the server sends it on the
                // session's own stream.
                let exchange = pin!(async {
                    let Some(host) = call else { return exchange.await };
                    // Questions sent before that stream is open would be lost
                    // (a server that holds back the stream's headers is not
                    // waited for long).
                    let _ = select(pin!(self.stream_settled()), self.host.sleep(STREAM_OPEN_WAIT_MS)).await;
                    self.state.borrow_mut().watched += 1;
                    let outcome = match select(pin!(exchange), pin!(self.serve_inbox(host, id, &inner))).await {
                        Either::Left((outcome, _)) => outcome,
                        Either::Right((never, _)) => match never {},
                    };
                    // Progress that came on the other stream before the
                    // answer, and was not yet shown.
                    while let Some(m) = self.take_inbox(id, true) {
                        let _ = self.handle(0, m, &inner, Some(host)).await;
                    }
                    self.state.borrow_mut().watched -= 1;
                    outcome
                });
                let limit = if method == "tools/call" { self.timeouts.0 } else { self.timeouts.1 };
                match limit {
                    None => exchange.await,
                    Some(ms) => match select(exchange, self.host.sleep(ms)).await {
                        Either::Left((outcome, _)) => outcome,
                        Either::Right(_) => {
                            inner.abort();
                            Err(McpError::Timeout { ms })
                        }
                    },
                }
            };
            self.state.borrow_mut().pending.retain(|p| *p != id);
            match outcome {
                // 2026-07-28: the server needs answers first (MRTR). Ask,
                // then send the same request again with them and the
                // unchanged request state.
                Ok(Outcome::Result(r)) if modern && r.get("resultType").and_then(Value::as_str) == Some("input_required") => {
                    rounds += 1;
                    if rounds > MAX_INPUT_ROUNDS {
                        return Err(McpError::Protocol(format!("the server kept asking for input ({MAX_INPUT_ROUNDS} rounds)")));
                    }
                    let mut responses = serde_json::Map::new();
                    for (key, req) in r.get("inputRequests").and_then(Value::as_object).into_iter().flatten() {
                        let asked = req.get("method").and_then(Value::as_str).unwrap_or_default();
                        let answer = match self.serve(asked, req.get("params").unwrap_or(&Value::Null), call).await {
                            Ok(result) => result,
                            Err((code, message)) => return Err(McpError::Rpc { code, message: format!("the server asked for {asked}: {message}") }),
                        };
                        responses.insert(key.clone(), answer);
                    }
                    if let Some(p) = params.as_object_mut() {
                        p.insert("inputResponses".into(), Value::Object(responses));
                        match r.get("requestState") {
                            Some(state) => p.insert("requestState".into(), state.clone()),
                            None => p.remove("requestState"),
                        };
                    }
                }
                Ok(Outcome::Result(r)) => return Ok(r),
                Ok(Outcome::Expired) if attempt == 0 && !modern => {
                    attempt += 1;
                    self.connect(abort).await?;
                }
                Ok(Outcome::Expired) => {
                    return Err(McpError::Protocol("the session expired again right after it was renewed".into()));
                }
                // The server no longer speaks 2026-07-28 (-32022): connect
                // again in a revision it names, then send the request again.
                // It still names 2026-07-28: the same request once more,
                // with a new id.
                Err(McpError::VersionRefused { supported }) if modern && attempt == 0 && supported.iter().any(|v| v == MODERN_VERSION) => {
                    attempt += 1;
                }
                Err(McpError::VersionRefused { supported }) if modern && attempt == 0 => {
                    let ours = |v: &String| SUPPORTED_VERSIONS.contains(&v.as_str());
                    if !supported.is_empty() && !supported.iter().any(ours) {
                        return Err(McpError::UnsupportedVersion(supported.join(", ")));
                    }
                    attempt += 1;
                    {
                        let mut s = self.state.borrow_mut();
                        s.modern = false;
                        s.era_known = true;
                    }
                    self.connect(abort).await?;
                }
                Err(e @ McpError::Network(_)) => {
                    self.host.connection(Connection::Failed { reason: e.to_string() });
                    return Err(e);
                }
                // The pages the server needs opened are offered to the user;
                // once opened, the same request is sent again (once).
                Err(McpError::UrlRequired { message, pages }) if call.is_some() && !url_retried => {
                    url_retried = true;
                    let Some(host) = call else { continue };
                    for (url, text) in &pages {
                        let Ok(Elicitation::Url { message: m, url }) = elicit::request_from(&json!({"mode": "url", "url": url, "message": text})) else {
                            return Err(McpError::UrlRequired { message, pages });
                        };
                        if !matches!(host.elicit(Elicitation::Url { message: m, url }).await, ElicitAnswer::Accept { .. }) {
                            return Err(McpError::UrlRequired { message, pages });
                        }
                    }
                }
                Err(e @ (McpError::Aborted | McpError::Timeout { .. })) => {
                    // A dropped stream is not a cancellation: say it (in
                    // 2026-07-28 closing the stream is the cancellation).
                    if !modern {
                        let reason = if matches!(e, McpError::Aborted) { "stopped by the user" } else { "timed out" };
                        let _ = self.notify("notifications/cancelled", Some(json!({"requestId": id, "reason": reason})), &Abort::new()).await;
                    }
                    return Err(e);
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Waits the server's `retry:` delay (or the default) before a stream is
    /// opened again; Stop ends the wait.
    async fn wait_to_reopen(&self, retry_ms: Option<u64>, abort: &Abort) -> Result<(), McpError> {
        let wait = pin!(self.host.sleep(retry_ms.unwrap_or(DEFAULT_RETRY_MS)));
        match select(wait, abort.aborted()).await {
            Either::Left(_) => Ok(()),
            Either::Right(_) => Err(McpError::Aborted),
        }
    }

    /// Wakes whoever waits for the inbox or for the stream to open.
    fn wake_all(&self) {
        let wakers = std::mem::take(&mut self.state.borrow_mut().inbox_wakers);
        wakers.into_iter().for_each(Waker::wake);
    }

    /// Resolves once the session's stream is not being opened.
    async fn stream_settled(&self) {
        std::future::poll_fn(|cx| {
            let mut s = self.state.borrow_mut();
            if s.stream_opening {
                s.inbox_wakers.push(cx.waker().clone());
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        })
        .await
    }

    /// Resolves once the subscribed resources differ from revision `rev`.
    async fn subscriptions_changed(&self, rev: u64) {
        std::future::poll_fn(|cx| {
            let mut s = self.state.borrow_mut();
            if s.subscriptions_rev == rev {
                s.inbox_wakers.push(cx.waker().clone());
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        })
        .await
    }

    /// Serves what the session's stream left for watched call `id`, forever.
    async fn serve_inbox(&self, call: &dyn CallHost, id: u64, abort: &Abort) -> std::convert::Infallible {
        loop {
            let message = std::future::poll_fn(|cx| match self.take_inbox(id, false) {
                Some(m) => Poll::Ready(m),
                None => {
                    self.state.borrow_mut().inbox_wakers.push(cx.waker().clone());
                    Poll::Pending
                }
            })
            .await;
            let _ = self.handle(0, message, abort, Some(call)).await;
        }
    }

    /// The first message the session's stream left for call `id`: its
    /// progress (the token is the request's id), or, unless
    /// `progress_only`, a question from the server (which names no call:
    /// any watched call may answer it).
    fn take_inbox(&self, id: u64, progress_only: bool) -> Option<Value> {
        let mut s = self.state.borrow_mut();
        let at = s.inbox.iter().position(|m| match m.pointer("/params/progressToken") {
            Some(token) => m.get("method").and_then(Value::as_str) == Some("notifications/progress") && token.as_u64() == Some(id),
            None => !progress_only && m.get("id").is_some(),
        })?;
        s.inbox.remove(at)
    }

    /// Keeps the session's own stream open (a GET): server requests and
    /// notifications that belong to no request arrive there (some servers
    /// send a call's questions there too). Returns when the server offers
    /// no such stream (405, or the session is gone), or when `abort` fires.
    /// A closed stream is resumed with `Last-Event-ID` after the `retry:`
    /// delay. One at a time: a second call returns at once.
    pub async fn listen(&self, abort: &Abort) -> Result<(), McpError> {
        {
            let mut s = self.state.borrow_mut();
            if std::mem::replace(&mut s.listening, true) {
                return Ok(());
            }
            s.stream_opening = true;
        }
        // Also when this future is dropped half-way: the next listen opens
        // a stream again, and no call waits for this one.
        let _listening = Listening(self);
        let result = self.listen_loop(abort).await;
        match result {
            Err(McpError::Aborted) => Ok(()),
            other => other,
        }
    }

    async fn listen_loop(&self, abort: &Abort) -> Result<(), McpError> {
        if !self.state.borrow().initialized {
            self.connect(abort).await?;
        }
        if self.is_legacy() {
            // The legacy stream is read by the requests themselves.
            return Ok(());
        }
        if self.state.borrow().modern {
            self.state.borrow_mut().stream_opening = false;
            self.wake_all();
            return self.subscriptions_listen(abort).await;
        }
        let mut last_id: Option<String> = None;
        let mut idle = 0;
        loop {
            let mut get = self.with_headers(Request::get(&self.config.url).header("Accept", "text/event-stream"));
            if let Some(id) = &last_id {
                get = get.header("Last-Event-ID", id);
            }
            self.state.borrow_mut().stream_opening = true;
            let response = self.send(get, abort).await;
            self.state.borrow_mut().stream_opening = false;
            self.wake_all();
            let response = response?;
            if matches!(response.status, 400 | 404 | 405 | 409) {
                // Not offered, or the session ended (the next request
                // renews it), or the server holds another stream of this
                // session open (409, Python's SDK: a connection it has not
                // yet seen closed).
                return Ok(());
            }
            if !response.ok() || !is_sse(&response) {
                let status = response.status;
                let body = response.body.text().await.unwrap_or_default();
                return Err(McpError::Http { status, body });
            }
            let mut messages = Messages::new(response.body);
            loop {
                match messages.next().await {
                    Ok(Some(message)) => self.on_session_stream(message, abort).await?,
                    // A broken connection is resumed like a closed one.
                    Ok(None) | Err(McpError::Network(_)) => break,
                    Err(e) => return Err(e),
                }
            }
            last_id = messages.last_id().or(last_id);
            idle = if messages.progressed { 0 } else { idle + 1 };
            if idle > MAX_RESUMES {
                return Err(McpError::Protocol(format!("the session's stream kept closing ({MAX_RESUMES} reconnections)")));
            }
            self.wait_to_reopen(messages.retry_ms, abort).await?;
        }
    }

    /// 2026-07-28: `subscriptions/listen`, one long-lived POST stream for
    /// the list changes; opened again when the server closes it. Returns
    /// when the server does not offer it.
    async fn subscriptions_listen(&self, abort: &Abort) -> Result<(), McpError> {
        let mut idle = 0;
        loop {
            let id = self.next_id();
            let (rev, uris) = {
                let s = self.state.borrow();
                (s.subscriptions_rev, s.subscribed.iter().cloned().collect::<Vec<_>>())
            };
            let mut wanted = json!({"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true});
            if !uris.is_empty() {
                wanted["resourceSubscriptions"] = json!(uris);
            }
            let mut params = serde_json::Map::new();
            params.insert("notifications".into(), wanted);
            params.insert("_meta".into(), Value::Object(modern_meta()));
            let message = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": params});
            let request = self.post(&message).header("Mcp-Method", "subscriptions/listen");
            let response = self.send(request, abort).await?;
            if !response.ok() || !is_sse(&response) {
                let _ = response.body.text().await;
                return Ok(());
            }
            let mut messages = Messages::new(response.body);
            loop {
                // A changed set of subscriptions closes this stream and
                // opens one that asks for the new set.
                let next = match select(pin!(messages.next()), pin!(self.subscriptions_changed(rev))).await {
                    Either::Left((next, _)) => next,
                    Either::Right(_) => break,
                };
                let message = match next {
                    Ok(Some(m)) => m,
                    Ok(None) | Err(McpError::Network(_)) => break,
                    Err(e) => return Err(e),
                };
                // The answer to the listen request itself ends it.
                let Some(method) = message.get("method").and_then(Value::as_str) else { return Ok(()) };
                self.notified(method, message.get("params").unwrap_or(&Value::Null), None);
            }
            if self.state.borrow().subscriptions_rev != rev {
                continue;
            }
            idle = if messages.progressed { 0 } else { idle + 1 };
            if idle > MAX_RESUMES {
                return Err(McpError::Protocol(format!("the subscription stream kept closing ({MAX_RESUMES} reconnections)")));
            }
            self.wait_to_reopen(messages.retry_ms, abort).await?;
        }
    }

    /// A message on the session's stream: for a watched call if one is in
    /// flight and it is a question or progress; otherwise handled here.
    async fn on_session_stream(&self, message: Value, abort: &Abort) -> Result<(), McpError> {
        let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
        let for_a_call = message.get("id").is_some() || method == "notifications/progress";
        if for_a_call && !method.is_empty() && self.state.borrow().watched > 0 {
            self.state.borrow_mut().inbox.push_back(message);
            self.wake_all();
            return Ok(());
        }
        self.handle(0, message, abort, None).await.map(|_| ())
    }

    /// Opens the legacy transport's event stream (a GET of the server's
    /// URL) and reads the `endpoint` event that says where to POST.
    /// `false` if the server offers no such stream.
    async fn open_legacy(&self, abort: &Abort) -> Result<bool, McpError> {
        let mut get = Request::get(&self.config.url).header("Accept", "text/event-stream");
        for (k, v) in &self.config.headers {
            get = get.header(k, v);
        }
        let response = self.send(get, abort).await?;
        if !response.ok() || !is_sse(&response) {
            return Ok(false);
        }
        let mut body = response.body;
        let mut decoder = air_sse::Decoder::new();
        // The endpoint comes first; a few other events may precede it.
        for _ in 0..64 {
            let Some(chunk) = body.chunk().await? else { return Ok(false) };
            let mut endpoint = None;
            let mut early = Vec::new();
            for frame in decoder.feed(&chunk) {
                let air_sse::Frame::Event(e) = frame else { continue };
                match e.event.as_deref() {
                    Some("endpoint") if endpoint.is_none() => endpoint = Some(resolve(&self.config.url, e.data.trim())),
                    None | Some("message") if endpoint.is_some() => early.extend(serde_json::from_str::<Value>(&e.data).ok()),
                    _ => {}
                }
            }
            if let Some(endpoint) = endpoint {
                // The configured headers and sign-in go where the endpoint
                // is: only to the server the user named.
                if origin_of(&endpoint) != origin_of(&self.config.url) {
                    return Err(McpError::Protocol(format!(
                        "the server's event stream names an endpoint on another origin ({endpoint}); nothing is sent there"
                    )));
                }
                *self.legacy.borrow_mut() = Some(Legacy {
                    endpoint,
                    body: Some(body),
                    decoder,
                    answers: Default::default(),
                    closed: false,
                    wakers: Vec::new(),
                    early,
                });
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The answer to request `id` over the legacy transport: the POST is
    /// only accepted; the answer comes on the event stream, which whoever
    /// waits reads (one at a time), keeping answers for the others.
    async fn legacy_answer(&self, id: u64, response: Response<H::Body>, abort: &Abort, call: Option<&dyn CallHost>) -> Result<Outcome, McpError> {
        let status = response.status;
        let text = response.body.text().await.unwrap_or_default();
        if status == 404 {
            return Ok(Outcome::Expired);
        }
        if !(200..300).contains(&status) {
            return Err(rpc_error_in(&text).unwrap_or(McpError::Http { status, body: text }));
        }
        loop {
            // Answered already, or the stream is free to read, or wait.
            let body = std::future::poll_fn(|cx| {
                let mut guard = self.legacy.borrow_mut();
                let Some(l) = guard.as_mut() else { return Poll::Ready(Err(Some(Err(McpError::Protocol("the legacy stream is gone".into()))))) };
                if let Some(answer) = l.answers.remove(&id) {
                    return Poll::Ready(Err(Some(answer)));
                }
                if l.closed {
                    return Poll::Ready(Err(None));
                }
                match l.body.take() {
                    Some(b) => Poll::Ready(Ok(b)),
                    None => {
                        l.wakers.push(cx.waker().clone());
                        Poll::Pending
                    }
                }
            });
            let mut body = match body.await {
                Ok(b) => b,
                Err(Some(answer)) => return answer.map(Outcome::Result),
                Err(None) => return Ok(Outcome::Expired),
            };
            let early = self.legacy.borrow_mut().as_mut().map(|l| std::mem::take(&mut l.early)).unwrap_or_default();
            if !early.is_empty() {
                let mut mine = None;
                for message in early {
                    if let Some(answer) = self.legacy_message(id, message, abort, call).await {
                        mine = Some(answer);
                    }
                }
                self.put_back(Some(body));
                if let Some(answer) = mine {
                    return answer.map(Outcome::Result);
                }
                continue;
            }
            let read = match select(pin!(body.chunk()), pin!(abort.aborted())).await {
                Either::Left((c, _)) => Some(c),
                Either::Right(_) => None,
            };
            let Some(chunk) = read else {
                self.put_back(Some(body));
                return Err(McpError::Aborted);
            };
            let (frames, body) = {
                let mut guard = self.legacy.borrow_mut();
                let Some(l) = guard.as_mut() else { return Err(McpError::Protocol("the legacy stream is gone".into())) };
                match chunk {
                    Ok(Some(bytes)) => (l.decoder.feed(&bytes), Some(body)),
                    _ => (l.decoder.finish(), None),
                }
            };
            let ended = body.is_none();
            let mut mine = None;
            for frame in frames {
                let air_sse::Frame::Event(e) = frame else { continue };
                if !matches!(e.event.as_deref(), None | Some("message")) || e.data.trim().is_empty() {
                    continue;
                }
                let Ok(message) = serde_json::from_str::<Value>(&e.data) else { continue };
                if let Some(answer) = self.legacy_message(id, message, abort, call).await {
                    mine = Some(answer);
                }
            }
            if ended {
                if let Some(l) = self.legacy.borrow_mut().as_mut() {
                    l.closed = true;
                }
                // The session is over: the next request starts another.
                self.state.borrow_mut().initialized = false;
            }
            self.put_back(body);
            if let Some(answer) = mine {
                return answer.map(Outcome::Result);
            }
        }
    }

    /// One message of the legacy stream: the answer to `id` (returned),
    /// another request's answer (kept for it), or a server request or
    /// notification (handled).
    async fn legacy_message(&self, id: u64, message: Value, abort: &Abort, call: Option<&dyn CallHost>) -> Option<Result<Value, McpError>> {
        let is_response = message.get("method").is_none();
        match (is_response, message.get("id").and_then(Value::as_u64)) {
            (true, Some(got)) if got == id => Some(response_of(&message)),
            (true, Some(got)) => {
                if let Some(l) = self.legacy.borrow_mut().as_mut() {
                    l.answers.insert(got, response_of(&message));
                }
                None
            }
            _ => {
                let _ = self.handle(0, message, abort, call).await;
                None
            }
        }
    }

    /// Returns the legacy stream for others to read, and wakes them.
    fn put_back(&self, body: Option<H::Body>) {
        let wakers = {
            let mut guard = self.legacy.borrow_mut();
            let Some(l) = guard.as_mut() else { return };
            if body.is_some() {
                l.body = body;
            }
            std::mem::take(&mut l.wakers)
        };
        wakers.into_iter().for_each(Waker::wake);
    }

    /// Every prompt the server offers (all pages).
    pub async fn list_prompts(&self, abort: &Abort) -> Result<Vec<Value>, McpError> {
        self.list_all("prompts/list", "prompts", abort).await
    }

    /// Every resource the server lists (all pages).
    pub async fn list_resources(&self, abort: &Abort) -> Result<Vec<Value>, McpError> {
        self.list_all("resources/list", "resources", abort).await
    }

    /// Every resource template the server lists (all pages).
    pub async fn list_resource_templates(&self, abort: &Abort) -> Result<Vec<Value>, McpError> {
        self.list_all("resources/templates/list", "resourceTemplates", abort).await
    }

    /// A resource's contents (kept as long as the server's `ttlMs` says, or
    /// until it announces a change).
    pub async fn read_resource(&self, uri: &str, abort: &Abort) -> Result<Value, McpError> {
        if let Some(hit) = self.cached("resources/read", uri) {
            return Ok(hit);
        }
        let result = self.request("resources/read", json!({"uri": uri}), abort).await?;
        self.keep("resources/read", uri, ttl_of(&result), &result);
        Ok(result)
    }

    /// Whether the server offers to announce changes to a resource.
    pub fn offers_subscriptions(&self) -> bool {
        self.server_capabilities().and_then(|c| c.pointer("/resources/subscribe").and_then(Value::as_bool)).unwrap_or(false)
    }

    /// Asks to hear when `uri` changes ([`Notice::ResourceUpdated`]):
    /// `resources/subscribe` in a session (again after it is renewed); in
    /// 2026-07-28 the listen stream is opened again with it. `Ok(false)`
    /// when the server does not offer it.
    pub async fn subscribe_resource(&self, uri: &str, abort: &Abort) -> Result<bool, McpError> {
        if !self.state.borrow().initialized {
            self.connect(abort).await?;
        }
        if !self.offers_subscriptions() {
            return Ok(false);
        }
        if self.state.borrow().subscribed.contains(uri) {
            return Ok(true);
        }
        if !self.state.borrow().modern {
            self.request("resources/subscribe", json!({"uri": uri}), abort).await?;
        }
        let mut s = self.state.borrow_mut();
        s.subscribed.insert(uri.to_owned());
        s.subscriptions_rev += 1;
        drop(s);
        self.wake_all();
        Ok(true)
    }

    /// No longer hear of `uri`'s changes.
    pub async fn unsubscribe_resource(&self, uri: &str, abort: &Abort) -> Result<(), McpError> {
        let (was, modern) = {
            let mut s = self.state.borrow_mut();
            let was = s.subscribed.remove(uri);
            s.subscriptions_rev += u64::from(was);
            (was, s.modern)
        };
        self.wake_all();
        if was && !modern && self.state.borrow().initialized {
            self.request("resources/unsubscribe", json!({"uri": uri}), abort).await?;
        }
        Ok(())
    }

    /// The resources subscribed to.
    pub fn subscriptions(&self) -> Vec<String> {
        self.state.borrow().subscribed.iter().cloned().collect()
    }

    /// Subscribes the renewed session to what the old one was subscribed
    /// to (2026-07-28 asks for them on its listen stream instead).
    async fn resubscribe(&self, abort: &Abort) -> Result<(), McpError> {
        let uris = self.subscriptions();
        for uri in uris {
            let id = self.next_id();
            let message = json!({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe", "params": {"uri": uri}});
            let response = self.send(self.post(&message), abort).await?;
            let outcome = if self.is_legacy() { self.legacy_answer(id, response, abort, None).await } else { self.answer(id, response, true, abort, None).await };
            if let Err(McpError::Aborted) = outcome {
                return Err(McpError::Aborted);
            }
        }
        Ok(())
    }

    /// A fresh result kept for `method` and `key`.
    fn cached(&self, method: &str, key: &str) -> Option<Value> {
        let now = self.host.now_ms()?;
        let s = self.state.borrow();
        s.cache.get(&(method.to_owned(), key.to_owned())).filter(|(_, until)| now < *until).map(|(v, _)| v.clone())
    }

    /// Keeps `value` for `ttl` milliseconds (none or 0: not kept).
    fn keep(&self, method: &str, key: &str, ttl: Option<u64>, value: &Value) {
        let (Some(now), Some(ttl)) = (self.host.now_ms(), ttl.filter(|t| *t > 0)) else { return };
        self.state.borrow_mut().cache.insert((method.to_owned(), key.to_owned()), (value.clone(), now.saturating_add(ttl.min(MAX_TTL_MS))));
    }

    /// Forgets a kept result.
    fn forget(&self, method: &str, key: &str) {
        self.state.borrow_mut().cache.remove(&(method.to_owned(), key.to_owned()));
    }

    /// A prompt's messages for these arguments.
    pub async fn get_prompt(&self, name: &str, arguments: &serde_json::Map<String, Value>, abort: &Abort) -> Result<Value, McpError> {
        self.request("prompts/get", json!({"name": name, "arguments": arguments}), abort).await
    }

    /// Values the server suggests for argument `argument` of prompt
    /// `prompt`, given what is typed so far and the other arguments.
    pub async fn complete_prompt_argument(&self, prompt: &str, argument: &str, value: &str, others: &serde_json::Map<String, Value>, abort: &Abort) -> Result<Vec<String>, McpError> {
        let mut params = json!({"ref": {"type": "ref/prompt", "name": prompt}, "argument": {"name": argument, "value": value}});
        if !others.is_empty() {
            params["context"] = json!({"arguments": others});
        }
        let result = self.request("completion/complete", params, abort).await?;
        Ok(crate::prompts::completions(&result))
    }

    /// Every tool the server offers (all pages).
    pub async fn list_tools(&self, abort: &Abort) -> Result<Vec<Value>, McpError> {
        let mut tools = self.list_all("tools/list", "tools", abort).await?;
        // A tool whose headers could not be sent is left out, with why.
        tools.retain(|t| match crate::header_check::invalid_headers(t) {
            Some(reason) => {
                let tool = t.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
                self.host.notice(Notice::ToolRefused { tool, reason });
                false
            }
            None => true,
        });
        Ok(tools)
    }

    /// Every item of a paged list (`tools`, `prompts`, `resources`, …),
    /// kept while every page's `ttlMs` says it is fresh, or until the
    /// server announces the list changed.
    pub async fn list_all(&self, method: &str, key: &str, abort: &Abort) -> Result<Vec<Value>, McpError> {
        if let Some(Value::Array(items)) = self.cached(method, "") {
            return Ok(items);
        }
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut ttl: Option<u64> = Some(u64::MAX);
        // A server that never stops paging is cut off.
        for _ in 0..100 {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let result = self.request(method, params, abort).await?;
            ttl = ttl.zip(ttl_of(&result)).map(|(a, b)| a.min(b));
            match result.get(key) {
                Some(Value::Array(page)) => items.extend(page.iter().cloned()),
                _ => return Err(McpError::Protocol(format!("{method} answered without a {key} list"))),
            }
            cursor = result.get("nextCursor").and_then(Value::as_str).filter(|c| !c.is_empty()).map(str::to_owned);
            if cursor.is_none() {
                break;
            }
        }
        self.keep(method, "", ttl, &Value::Array(items.clone()));
        Ok(items)
    }

    /// Calls a tool; the result as the server sent it (`content`,
    /// `isError`, `structuredContent`).
    pub async fn call_tool(&self, name: &str, arguments: Value, abort: &Abort) -> Result<Value, McpError> {
        self.request("tools/call", json!({"name": name, "arguments": arguments}), abort).await
    }

    /// [`McpClient::call_tool`] reporting to `call` (progress, questions).
    pub async fn call_tool_with(&self, name: &str, arguments: Value, abort: &Abort, call: &dyn CallHost) -> Result<Value, McpError> {
        self.request_with("tools/call", json!({"name": name, "arguments": arguments}), abort, Some(call)).await
    }

    /// [`McpClient::call_tool_with`] for a tool with this input schema, whose
    /// `x-mcp-header` arguments a 2026-07-28 server also gets as headers.
    pub async fn call_tool_for(&self, name: &str, schema: &Value, arguments: Value, abort: &Abort, call: &dyn CallHost) -> Result<Value, McpError> {
        let headers = param_headers(schema, &arguments);
        self.request_full("tools/call", json!({"name": name, "arguments": arguments}), abort, Some(call), &headers).await
    }

    /// Ends the session (DELETE with its id). Failures are ignored: the
    /// server forgets it in time anyway, and 405 is allowed.
    pub async fn close(&self) {
        let Some(id) = self.state.borrow_mut().session_id.take() else { return };
        let version = self.state.borrow().version.clone();
        let mut r = Request { method: "DELETE".into(), url: self.config.url.clone(), headers: Vec::new(), body: None };
        for (k, v) in &self.config.headers {
            r = r.header(k, v);
        }
        r = r.header("Mcp-Session-Id", id);
        // As on every request after initialization.
        if let Some(v) = version {
            r = r.header("MCP-Protocol-Version", v);
        }
        let _ = self.send(r, &Abort::new()).await;
        self.state.borrow_mut().initialized = false;
    }

    /// Reads the answer to request `id`: a JSON body, or an SSE stream on
    /// which server requests and notifications may come first. A stream
    /// that closes before the answer is resumed with a GET and
    /// `Last-Event-ID`, after the server's `retry:` delay.
    async fn answer(&self, id: u64, response: Response<H::Body>, had_session: bool, abort: &Abort, call: Option<&dyn CallHost>) -> Result<Outcome, McpError> {
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
        if !is_sse(&response) {
            let text = response.body.text().await?;
            let message: Value = serde_json::from_str(&text).map_err(|e| McpError::Protocol(format!("not JSON ({e})")))?;
            return match self.handle(id, message, abort, call).await? {
                Some(result) => result.map(Outcome::Result),
                None => Err(McpError::Protocol("the answer is not the response to the request".into())),
            };
        }
        let mut body = response.body;
        let mut resumes = 0;
        loop {
            let (last_id, retry_ms, progressed) = match self.read_stream(id, body, abort, call).await? {
                StreamEnd::Answered(result) => return result.map(Outcome::Result),
                StreamEnd::Closed { last_id, retry_ms, progressed } => (last_id, retry_ms, progressed),
            };
            // Without an event id the server cannot resume it.
            let Some(last_id) = last_id else {
                return Err(McpError::Protocol("the stream ended before the response".into()));
            };
            resumes = if progressed { 1 } else { resumes + 1 };
            if resumes > MAX_RESUMES {
                return Err(McpError::Protocol(format!("the stream kept closing before the response ({MAX_RESUMES} reconnections)")));
            }
            self.wait_to_reopen(retry_ms, abort).await?;
            let get = self.with_headers(Request::get(&self.config.url).header("Accept", "text/event-stream").header("Last-Event-ID", &last_id));
            let response = self.send(get, abort).await?;
            if !response.ok() || !is_sse(&response) {
                let status = response.status;
                let text = response.body.text().await.unwrap_or_default();
                return Err(McpError::Protocol(format!("the stream ended before the response, and resuming it was answered HTTP {status} {}", short(&text))));
            }
            body = response.body;
        }
    }

    /// Reads one SSE stream until the response to `id` or its end.
    async fn read_stream(&self, id: u64, body: H::Body, abort: &Abort, call: Option<&dyn CallHost>) -> Result<StreamEnd, McpError> {
        let mut messages = Messages::new(body);
        while let Some(message) = messages.next().await? {
            if let Some(result) = self.handle(id, message, abort, call).await? {
                return Ok(StreamEnd::Answered(result));
            }
        }
        Ok(StreamEnd::Closed { last_id: messages.last_id(), retry_ms: messages.retry_ms, progressed: messages.progressed })
    }

    /// One message from the server: the response to `id` (returned), a
    /// server request (answered), or a notification (passed on).
    async fn handle(&self, id: u64, message: Value, abort: &Abort, call: Option<&dyn CallHost>) -> Result<Option<Result<Value, McpError>>, McpError> {
        let method = message.get("method").and_then(Value::as_str).map(str::to_owned);
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        match (method, message.get("id")) {
            (Some(method), Some(request_id)) => {
                let reply = match self.serve(&method, &params, call).await {
                    Ok(result) => json!({"jsonrpc": "2.0", "id": request_id, "result": result}),
                    Err((code, text)) => json!({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}}),
                };
                let r = self.send(self.post(&reply), abort).await?;
                let _ = r.body.text().await;
                Ok(None)
            }
            (Some(method), None) => {
                self.notified(&method, &params, call);
                Ok(None)
            }
            (None, Some(got)) if got.as_u64() == Some(id) => {
                if let Some(e) = message.get("error") {
                    return Ok(Some(Err(rpc_error(e))));
                }
                Ok(Some(message.get("result").cloned().ok_or_else(|| McpError::Protocol("a response with neither result nor error".into()))))
            }
            _ => Ok(None),
        }
    }

    /// Answers a request from the server: `ping`, and `elicitation/create`
    /// (asked of the user through `call`; declined when nobody watches).
    async fn serve(&self, method: &str, params: &Value, call: Option<&dyn CallHost>) -> Result<Value, (i64, String)> {
        match method {
            "ping" => Ok(json!({})),
            "elicitation/create" => {
                let request = elicit::request_from(params).map_err(|e| (-32602, e))?;
                let answer = match call {
                    Some(host) => host.elicit(request).await,
                    None => ElicitAnswer::Decline,
                };
                Ok(elicit::answer_json(&answer))
            }
            _ => Err((-32601, format!("method not supported: {method}"))),
        }
    }

    /// A notification from the server.
    fn notified(&self, method: &str, params: &Value, call: Option<&dyn CallHost>) {
        let s = |k: &str| params.get(k).and_then(Value::as_str).map(str::to_owned);
        match method {
            "notifications/progress" => {
                let Some(host) = call else { return };
                let ours = params.get("progressToken").and_then(Value::as_u64).is_some_and(|t| self.state.borrow().pending.contains(&t));
                if let (true, Some(progress)) = (ours, params.get("progress").and_then(Value::as_f64)) {
                    host.progress(Progress { progress, total: params.get("total").and_then(Value::as_f64), message: s("message") });
                }
            }
            "notifications/tools/list_changed" => {
                self.forget("tools/list", "");
                self.host.notice(Notice::ToolsChanged);
            }
            "notifications/prompts/list_changed" => {
                self.forget("prompts/list", "");
                self.host.notice(Notice::PromptsChanged);
            }
            "notifications/resources/list_changed" => {
                self.forget("resources/list", "");
                self.forget("resources/templates/list", "");
                self.host.notice(Notice::ResourcesChanged);
            }
            "notifications/resources/updated" => {
                let uri = s("uri").unwrap_or_default();
                self.forget("resources/read", &uri);
                self.host.notice(Notice::ResourceUpdated { uri });
            }
            "notifications/message" => self.host.notice(Notice::Log {
                level: s("level").unwrap_or_else(|| "info".into()),
                logger: s("logger"),
                data: params.get("data").cloned().unwrap_or(Value::Null),
            }),
            _ => {}
        }
    }
}

fn client_capabilities() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}, "extensions": {(air_apps::EXTENSION): air_apps::client_extension()}})
}

/// What a 2026-07-28 request carries in `_meta` instead of a session.
fn modern_meta() -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert("io.modelcontextprotocol/protocolVersion".into(), json!(MODERN_VERSION));
    m.insert("io.modelcontextprotocol/clientCapabilities".into(), client_capabilities());
    m.insert("io.modelcontextprotocol/clientInfo".into(), json!({"name": "air-agent", "title": "Air Agent", "version": env!("CARGO_PKG_VERSION")}));
    m
}

/// The `Mcp-Name` of a request: the tool or prompt name, or the resource URI.
fn routing_name<'a>(method: &str, params: &'a Value) -> Option<&'a str> {
    match method {
        "tools/call" | "prompts/get" => params.get("name").and_then(Value::as_str),
        "resources/read" => params.get("uri").and_then(Value::as_str),
        _ => None,
    }
}

/// The `Mcp-Param-*` headers a 2026-07-28 call carries: each argument whose
/// schema property is marked `x-mcp-header` (values that are not plain
/// visible ASCII are sent as `=?base64?…?=`).
pub fn param_headers(input_schema: &Value, arguments: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (name, prop) in input_schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
        let Some(header) = prop.get("x-mcp-header").and_then(Value::as_str) else { continue };
        let Some(value) = arguments.get(name) else { continue };
        let text = match value {
            Value::String(s) => s.clone(),
            Value::Null => continue,
            other => other.to_string(),
        };
        let safe = !text.is_empty() && text.bytes().all(|b| (0x20..0x7f).contains(&b)) && text.trim() == text;
        let text = if safe { text } else { format!("=?base64?{}?=", base64(text.as_bytes())) };
        out.push((format!("Mcp-Param-{header}"), text));
    }
    out
}

fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= c.len() {
                out.push(char::from(T[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// How long a result may be kept (`ttlMs`, 2026-07-28).
fn ttl_of(result: &Value) -> Option<u64> {
    result.get("ttlMs").and_then(Value::as_u64)
}

/// `reference` (absolute, rooted or relative) against `base`.
fn resolve(base: &str, reference: &str) -> String {
    if reference.starts_with("http://") || reference.starts_with("https://") {
        return reference.to_owned();
    }
    let (scheme, rest) = base.split_once("://").unwrap_or(("http", base));
    let host_end = rest.find('/').unwrap_or(rest.len());
    let origin = format!("{scheme}://{}", &rest[..host_end]);
    if reference.starts_with('/') {
        return format!("{origin}{reference}");
    }
    let path = rest[host_end..].split(['?', '#']).next().unwrap_or("");
    let dir = path.rfind('/').map_or("/", |i| &path[..=i]);
    format!("{origin}{dir}{reference}")
}

/// `scheme://host:port` of an absolute URL, in lower case (`None` for
/// anything else).
fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    // Credentials in the authority would make the host something else.
    if authority.is_empty() || authority.contains(['@', '\\']) {
        return None;
    }
    Some(format!("{}://{}", scheme.to_ascii_lowercase(), authority.to_ascii_lowercase()))
}

/// What asking `server/discover` found.
#[derive(Debug, PartialEq)]
enum Discovered {
    /// A 2026-07-28 server.
    Yes,
    /// An older one (or the page may not ask: CORS).
    No,
    /// A 2026-07-28 server that refused the first try's version: ask again.
    Again,
}

fn is_sse<B>(response: &Response<B>) -> bool {
    response.header("content-type").is_some_and(|t| t.to_ascii_lowercase().starts_with("text/event-stream"))
}
