//! The session with one MCP server over Streamable HTTP (revisions
//! 2025-03-26 to 2025-11-25), 2026-07-28 or the legacy HTTP+SSE
//! transport: [`McpClient`], the façade. It connects (finding out which
//! era the server is of), sends each request as the session decides
//! (`session`) over the transport the server speaks (`transport`), and
//! acts on what the session makes of the outcome.

use std::rc::Rc;

use air_http::{Abort, HttpClient, Request as HttpRequest, Response};
use air_tools::{CallHost, ElicitAnswer, Elicitation};
use serde_json::{Value, json};

use crate::elicit;
use crate::host::Immediate;
use crate::jsonrpc;
use crate::requests::{
    self, CallTool, Complete, GetPrompt, Initialize, Initialized, ListPrompts, ListResourceTemplates, ListResources, ListTools, Paged, ReadResource, Request, Subscribe, Unsubscribe,
};
use crate::session::{Attempt, Outcome, Outgoing, Step};
use crate::transport::legacy::Legacy;
use crate::transport::{self, Listening, Wire, stateless};

pub use crate::auth::Authorizer;
pub use crate::error::McpError;
pub use crate::host::{ClientHost, Connection, Notice};
pub use crate::requests::param_headers;
pub use crate::transport::ServerConfig;

/// The session with one server. Single-threaded; several requests may be
/// in flight at once.
pub struct McpClient<H: HttpClient> {
    wire: Wire<H>,
    /// Time allowed for `tools/call` and for other requests (none: no limit).
    timeouts: (Option<u64>, Option<u64>),
    /// The legacy HTTP+SSE transport, when the server speaks only that.
    legacy: Legacy<H::Body>,
}

impl<H: HttpClient> McpClient<H> {
    pub fn new(http: H, config: ServerConfig) -> Self {
        Self { wire: Wire::new(http, config, Rc::new(Immediate)), timeouts: (None, None), legacy: Legacy::new() }
    }

    /// The server spoke `version` before: a revision with sessions (or the
    /// legacy transport) starts with `initialize` at once, without asking
    /// whether it speaks 2026-07-28.
    pub fn with_known_version(self, version: Option<&str>) -> Self {
        if version.is_some_and(|v| v != crate::MODERN_VERSION) {
            self.wire.session.borrow_mut().era_known = true;
        }
        self
    }

    /// Signs in where the server asks for it.
    pub fn with_authorizer(mut self, authorizer: Rc<dyn Authorizer>) -> Self {
        self.wire.authorizer = Some(authorizer);
        self
    }

    /// Runs with this timer and hears the server's announcements.
    pub fn with_host(mut self, host: Rc<dyn ClientHost>) -> Self {
        self.wire.host = host;
        self
    }

    /// Gives up on (and cancels) a `tools/call` after `call_ms`, any other
    /// request after `request_ms`. Needs a host with a timer.
    pub fn with_timeouts(mut self, call_ms: Option<u64>, request_ms: Option<u64>) -> Self {
        self.timeouts = (call_ms, request_ms);
        self
    }

    pub fn config(&self) -> &ServerConfig {
        &self.wire.config
    }

    /// The HTTP client it sends with.
    pub fn http(&self) -> &H {
        &self.wire.http
    }

    /// `Mcp-Session-Id`, once initialised (servers in stateless mode give none).
    pub fn session_id(&self) -> Option<String> {
        self.wire.session.borrow().session_id.clone()
    }

    /// The revision agreed in `initialize`.
    pub fn protocol_version(&self) -> Option<String> {
        self.wire.session.borrow().version.clone()
    }

    /// What the server said about itself (`serverInfo`).
    pub fn server_info(&self) -> Option<Value> {
        self.wire.session.borrow().server_info.clone()
    }

    /// What the server offers (`capabilities` of its initialize answer).
    pub fn server_capabilities(&self) -> Option<Value> {
        self.wire.session.borrow().capabilities.clone()
    }

    /// Ids of the requests waiting for an answer.
    pub fn pending(&self) -> Vec<u64> {
        self.wire.session.borrow().pending.clone()
    }

    /// Whether the server is spoken to over the legacy HTTP+SSE transport.
    pub fn is_legacy(&self) -> bool {
        self.wire.is_legacy()
    }

    /// What this client can do for a server: answer elicitations (forms
    /// and URLs), and show MCP Apps (the `io.modelcontextprotocol/ui`
    /// extension).
    pub fn capabilities() -> Value {
        requests::client_capabilities()
    }

    /// Starts the session: `initialize` with the newest revision, checks
    /// the one the server picked, keeps the session id, then
    /// `notifications/initialized`. Returns the server's `serverInfo`.
    pub async fn connect(&self, abort: &Abort) -> Result<Value, McpError> {
        let again = self.wire.session.borrow_mut().restart();
        self.wire.host.connection(if again { Connection::Reconnecting } else { Connection::Connecting });
        let result = self.start_session(abort).await;
        match &result {
            Ok(_) => self.wire.host.connection(Connection::Connected { version: self.protocol_version().unwrap_or_default() }),
            Err(McpError::Aborted) => {}
            Err(e) => self.wire.host.connection(Connection::Failed { reason: e.to_string() }),
        }
        result
    }

    async fn start_session(&self, abort: &Abort) -> Result<Value, McpError> {
        // The era found before is asked first (cached for this server).
        let modern_before = std::mem::take(&mut self.wire.session.borrow_mut().modern);
        let era_known = self.wire.session.borrow().era_known;
        if (modern_before || !era_known) && self.wire.discover(abort).await? {
            self.wire.session.borrow_mut().era_known = true;
            self.wire.host.connected();
            return Ok(self.server_info().unwrap_or(Value::Null));
        }
        let (result, session_id) = self.initialize(abort).await?;
        self.wire.session.borrow_mut().agreed(&result, session_id, self.is_legacy())?;
        self.wire.notify(&Initialized, abort).await?;
        {
            let mut s = self.wire.session.borrow_mut();
            s.initialized = true;
            s.era_known = true;
        }
        self.resubscribe(abort).await?;
        self.wire.host.connected();
        Ok(result.get("serverInfo").cloned().unwrap_or(Value::Null))
    }

    /// `initialize` over Streamable HTTP, or over the legacy transport when
    /// the POST is refused and the server offers that: the answer, and the
    /// session id.
    async fn initialize(&self, abort: &Abort) -> Result<(Value, Option<String>), McpError> {
        let id = self.wire.next_id();
        let message = jsonrpc::request(id, Initialize::METHOD, Initialize.params());
        self.legacy.clear(&self.wire);
        let response = self.wire.send(self.wire.post(&message), abort).await?;
        let session = response.header("mcp-session-id").map(str::to_owned);
        let result = if matches!(response.status, 400 | 404 | 405) {
            // Perhaps a server of the legacy HTTP+SSE transport.
            self.legacy.initialize(&self.wire, response, message["params"].clone(), abort).await?
        } else {
            self.wire.initialize_answer(id, response, abort).await?
        };
        Ok((result, session))
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

    /// A typed request.
    async fn ask<R: Request>(&self, request: R, abort: &Abort) -> Result<R::Output, McpError> {
        R::parse(self.request(R::METHOD, request.params(), abort).await?)
    }

    /// [`McpClient::request_with`], plus headers for this request alone
    /// (2026-07-28 `Mcp-Param-*`): sent, and sent again, as the session
    /// decides from each outcome.
    async fn request_full(&self, method: &str, params: Value, abort: &Abort, call: Option<&dyn CallHost>, extra: &[(String, String)]) -> Result<Value, McpError> {
        if !self.wire.session.borrow().initialized {
            self.connect(abort).await?;
        }
        let limit = requests::time_limit(method, self.timeouts.0, self.timeouts.1);
        let mut attempt = Attempt::new(method, params, call.is_some(), extra);
        loop {
            let out = attempt.begin(&mut self.wire.session.borrow_mut());
            let outcome = self.send_once(&out, abort, call, limit).await;
            let step = attempt.finish(&mut self.wire.session.borrow_mut(), &out, outcome);
            match step {
                Step::Done(result) => return Ok(result),
                Step::Fail(e) => return Err(e),
                Step::Input(asked) => attempt.answered(self.inputs(asked, call).await?),
                Step::Reconnect => {
                    self.connect(abort).await?;
                }
                Step::Again => {}
                Step::OpenPages { message, pages } => self.open_pages(message, pages, call).await?,
                Step::Cancel { notice, error } => {
                    if let Some(note) = notice {
                        let _ = self.wire.notify(&note, &Abort::new()).await;
                    }
                    return Err(error);
                }
                Step::Unreachable(e) => {
                    self.wire.host.connection(Connection::Failed { reason: e.to_string() });
                    return Err(e);
                }
            }
        }
    }

    /// One exchange of `out`, stopped by `abort` or after `limit`; a
    /// watched call also serves what reaches it on the session's stream.
    async fn send_once(&self, out: &Outgoing, abort: &Abort, call: Option<&dyn CallHost>, limit: Option<u64>) -> Result<Outcome, McpError> {
        let mut request = self.wire.post(&out.message);
        for (k, v) in &out.headers {
            request = request.header(k, v);
        }
        // Stopped by the caller or by the timeout.
        let inner = Abort::new();
        abort.on_abort({
            let inner = inner.clone();
            move || inner.abort()
        });
        let exchange = self.exchange(out, request, &inner, call);
        self.wire.timed(self.wire.watched(out.id, exchange, &inner, call), limit, &inner).await
    }

    /// Sends `request` and reads its answer as the server's transport gives it.
    async fn exchange(&self, out: &Outgoing, request: HttpRequest, abort: &Abort, call: Option<&dyn CallHost>) -> Result<Outcome, McpError> {
        let response = self.wire.send(request, abort).await?;
        if self.is_legacy() {
            return self.legacy.answer(&self.wire, out.id, response, abort, call).await;
        }
        if out.modern && !response.ok() {
            return Err(stateless::refused(response).await);
        }
        self.wire.answer(out.id, response, out.had_session, abort, call).await
    }

    /// Answers a 2026-07-28 server's input requests (key, method, params).
    async fn inputs(&self, asked: Vec<(String, String, Value)>, call: Option<&dyn CallHost>) -> Result<serde_json::Map<String, Value>, McpError> {
        let mut responses = serde_json::Map::new();
        for (key, method, params) in asked {
            let answer = match transport::serve(&method, &params, call).await {
                Ok(result) => result,
                Err((code, message)) => return Err(McpError::Rpc { code, message: format!("the server asked for {method}: {message}") }),
            };
            responses.insert(key, answer);
        }
        Ok(responses)
    }

    /// Offers the user the pages the server needs opened (-32042); an error
    /// unless every one was opened.
    async fn open_pages(&self, message: String, pages: Vec<(String, String)>, call: Option<&dyn CallHost>) -> Result<(), McpError> {
        let Some(host) = call else { return Ok(()) };
        for (url, text) in &pages {
            let Ok(Elicitation::Url { message: m, url }) = elicit::request_from(&json!({"mode": "url", "url": url, "message": text})) else {
                return Err(McpError::UrlRequired { message, pages });
            };
            if !matches!(host.elicit(Elicitation::Url { message: m, url }).await, ElicitAnswer::Accept { .. }) {
                return Err(McpError::UrlRequired { message, pages });
            }
        }
        Ok(())
    }

    /// Keeps the session's own stream open (a GET): server requests and
    /// notifications that belong to no request arrive there (some servers
    /// send a call's questions there too). Returns when the server offers
    /// no such stream (405, or the session is gone), or when `abort` fires.
    /// A closed stream is resumed with `Last-Event-ID` after the `retry:`
    /// delay. One at a time: a second call returns at once.
    pub async fn listen(&self, abort: &Abort) -> Result<(), McpError> {
        {
            let mut s = self.wire.session.borrow_mut();
            if std::mem::replace(&mut s.listening, true) {
                return Ok(());
            }
            s.stream_opening = true;
        }
        // Also when this future is dropped half-way: the next listen opens
        // a stream again, and no call waits for this one.
        let _listening = Listening(&self.wire);
        let result = self.listen_loop(abort).await;
        match result {
            Err(McpError::Aborted) => Ok(()),
            other => other,
        }
    }

    async fn listen_loop(&self, abort: &Abort) -> Result<(), McpError> {
        if !self.wire.session.borrow().initialized {
            self.connect(abort).await?;
        }
        if self.is_legacy() {
            // The legacy stream is read by the requests themselves.
            return Ok(());
        }
        if self.wire.session.borrow().modern {
            self.wire.session.borrow_mut().stream_opening = false;
            self.wire.wake_all();
            return self.wire.subscriptions_listen(abort).await;
        }
        self.wire.listen_get(abort).await
    }

    /// Every prompt the server offers (all pages).
    pub async fn list_prompts(&self, abort: &Abort) -> Result<Vec<Value>, McpError> {
        self.list_all(ListPrompts::METHOD, ListPrompts::KEY, abort).await
    }

    /// Every resource the server lists (all pages).
    pub async fn list_resources(&self, abort: &Abort) -> Result<Vec<Value>, McpError> {
        self.list_all(ListResources::METHOD, ListResources::KEY, abort).await
    }

    /// Every resource template the server lists (all pages).
    pub async fn list_resource_templates(&self, abort: &Abort) -> Result<Vec<Value>, McpError> {
        self.list_all(ListResourceTemplates::METHOD, ListResourceTemplates::KEY, abort).await
    }

    /// A resource's contents (kept as long as the server's `ttlMs` says, or
    /// until it announces a change).
    pub async fn read_resource(&self, uri: &str, abort: &Abort) -> Result<Value, McpError> {
        if let Some(hit) = self.cached(ReadResource::METHOD, uri) {
            return Ok(hit);
        }
        let result = self.ask(ReadResource { uri }, abort).await?;
        self.keep(ReadResource::METHOD, uri, requests::ttl_of(&result), &result);
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
        if !self.wire.session.borrow().initialized {
            self.connect(abort).await?;
        }
        if !self.offers_subscriptions() {
            return Ok(false);
        }
        if self.wire.session.borrow().subscribed.contains(uri) {
            return Ok(true);
        }
        if !self.wire.session.borrow().modern {
            self.ask(Subscribe { uri }, abort).await?;
        }
        self.wire.session.borrow_mut().subscribe(uri);
        self.wire.wake_all();
        Ok(true)
    }

    /// No longer hear of `uri`'s changes.
    pub async fn unsubscribe_resource(&self, uri: &str, abort: &Abort) -> Result<(), McpError> {
        let (was, modern) = {
            let mut s = self.wire.session.borrow_mut();
            let was = s.unsubscribe(uri);
            (was, s.modern)
        };
        self.wire.wake_all();
        if was && !modern && self.wire.session.borrow().initialized {
            self.ask(Unsubscribe { uri }, abort).await?;
        }
        Ok(())
    }

    /// The resources subscribed to.
    pub fn subscriptions(&self) -> Vec<String> {
        self.wire.session.borrow().subscribed.iter().cloned().collect()
    }

    /// Subscribes the renewed session to what the old one was subscribed
    /// to (2026-07-28 asks for them on its listen stream instead).
    async fn resubscribe(&self, abort: &Abort) -> Result<(), McpError> {
        let uris = self.subscriptions();
        for uri in uris {
            let id = self.wire.next_id();
            let message = jsonrpc::request(id, Subscribe::METHOD, Subscribe { uri: &uri }.params());
            let response = self.wire.send(self.wire.post(&message), abort).await?;
            let outcome = self.answer(id, response, abort).await;
            if let Err(McpError::Aborted) = outcome {
                return Err(McpError::Aborted);
            }
        }
        Ok(())
    }

    /// The answer to a request of the session (`resubscribe`), over the
    /// transport it is spoken on.
    async fn answer(&self, id: u64, response: Response<H::Body>, abort: &Abort) -> Result<Outcome, McpError> {
        if self.is_legacy() { self.legacy.answer(&self.wire, id, response, abort, None).await } else { self.wire.answer(id, response, true, abort, None).await }
    }

    /// A fresh result kept for `method` and `key`.
    fn cached(&self, method: &str, key: &str) -> Option<Value> {
        let now = self.wire.host.now_ms();
        self.wire.session.borrow().cached(now, method, key)
    }

    /// Keeps `value` for `ttl` milliseconds (none or 0: not kept).
    fn keep(&self, method: &str, key: &str, ttl: Option<u64>, value: &Value) {
        let now = self.wire.host.now_ms();
        self.wire.session.borrow_mut().keep(now, method, key, ttl, value);
    }

    /// A prompt's messages for these arguments.
    pub async fn get_prompt(&self, name: &str, arguments: &serde_json::Map<String, Value>, abort: &Abort) -> Result<Value, McpError> {
        self.ask(GetPrompt { name, arguments }, abort).await
    }

    /// Values the server suggests for argument `argument` of prompt
    /// `prompt`, given what is typed so far and the other arguments.
    /// A server that said what it offers without `completions` is not
    /// asked (it suggests nothing).
    pub async fn complete_prompt_argument(&self, prompt: &str, argument: &str, value: &str, others: &serde_json::Map<String, Value>, abort: &Abort) -> Result<Vec<String>, McpError> {
        if self.server_capabilities().is_some_and(|c| c.get("completions").is_none()) {
            return Ok(Vec::new());
        }
        self.ask(Complete { prompt, argument, value, others }, abort).await
    }

    /// Every tool the server offers (all pages).
    pub async fn list_tools(&self, abort: &Abort) -> Result<Vec<Value>, McpError> {
        let mut tools = self.list_all(ListTools::METHOD, ListTools::KEY, abort).await?;
        // A tool whose headers could not be sent is left out, with why.
        tools.retain(|t| match crate::header_check::invalid_headers(t) {
            Some(reason) => {
                let tool = t.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
                self.wire.host.notice(Notice::ToolRefused { tool, reason });
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
            let result = self.request(method, requests::page_params(cursor.as_deref()), abort).await?;
            ttl = ttl.zip(requests::ttl_of(&result)).map(|(a, b)| a.min(b));
            let (page, next) = requests::page_of(method, key, &result)?;
            items.extend(page.iter().cloned());
            cursor = next;
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
        self.ask(CallTool { name, arguments }, abort).await
    }

    /// [`McpClient::call_tool`] reporting to `call` (progress, questions).
    pub async fn call_tool_with(&self, name: &str, arguments: Value, abort: &Abort, call: &dyn CallHost) -> Result<Value, McpError> {
        self.request_with(CallTool::METHOD, CallTool { name, arguments }.params(), abort, Some(call)).await
    }

    /// [`McpClient::call_tool_with`] for a tool with this input schema, whose
    /// `x-mcp-header` arguments a 2026-07-28 server also gets as headers.
    pub async fn call_tool_for(&self, name: &str, schema: &Value, arguments: Value, abort: &Abort, call: &dyn CallHost) -> Result<Value, McpError> {
        let headers = param_headers(schema, &arguments);
        self.request_full(CallTool::METHOD, CallTool { name, arguments }.params(), abort, Some(call), &headers).await
    }

    /// Ends the session (DELETE with its id). Failures are ignored: the
    /// server forgets it in time anyway, and 405 is allowed.
    pub async fn close(&self) {
        self.wire.delete_session().await;
    }
}
