//! The protocol state of the session with one server, without IO: what
//! an outgoing request carries (its id, `_meta`, the headers of its
//! revision), what its outcome means ([`Step`]: done, again with answers,
//! reconnect, open pages, cancel, fail), the version the server agreed,
//! where a message from the server goes (a watched call's inbox by its
//! `progressToken`, or handled), the results kept for their `ttlMs`, and
//! the resources subscribed to. The transports do the sending; the client
//! acts on the decisions.

use std::collections::{BTreeSet, HashMap, VecDeque};

use air_tools::Progress;
use serde_json::{Value, json};

use crate::error::McpError;
use crate::host::Notice;
use crate::jsonrpc;
use crate::requests::{self, Cancelled, ListPrompts, ListResourceTemplates, ListResources, ListTools, Paged, ReadResource, Request};
use crate::{LEGACY_VERSION, MODERN_VERSION, SUPPORTED_VERSIONS};

/// Rounds of input a 2026-07-28 request may ask for before giving up.
pub(crate) const MAX_INPUT_ROUNDS: u32 = 8;
/// The longest a result is kept fresh, whatever `ttlMs` says.
const MAX_TTL_MS: u64 = 24 * 60 * 60 * 1000;

#[derive(Debug, Default)]
pub(crate) struct Session {
    pub(crate) session_id: Option<String>,
    pub(crate) version: Option<String>,
    next_id: u64,
    pub(crate) initialized: bool,
    pub(crate) server_info: Option<Value>,
    pub(crate) capabilities: Option<Value>,
    /// Ids of requests sent and not yet answered.
    pub(crate) pending: Vec<u64>,
    /// Calls in flight that someone watches (progress, questions).
    pub(crate) watched: usize,
    /// Server requests and progress that came on the session's own stream,
    /// for a watched call to take.
    inbox: VecDeque<Value>,
    /// [`McpClient::listen`](crate::McpClient::listen) is running.
    pub(crate) listening: bool,
    /// Its GET has been sent and not yet answered.
    pub(crate) stream_opening: bool,
    /// The server speaks 2026-07-28: every request stands alone.
    pub(crate) modern: bool,
    /// Which era the server is of was found out (it is asked first when
    /// connecting again).
    pub(crate) era_known: bool,
    /// Results the server said stay fresh a while (`ttlMs`), by method and
    /// resource URI ("" for lists), with the time they go stale.
    cache: HashMap<(String, String), (Value, u64)>,
    /// Resources whose changes the user wants to hear of.
    pub(crate) subscribed: BTreeSet<String>,
    /// Bumped when `subscribed` changes: a 2026-07-28 listen stream is
    /// opened again with the new set.
    pub(crate) subscriptions_rev: u64,
}

/// What a request came back with.
#[derive(Debug, PartialEq)]
pub(crate) enum Outcome {
    Result(Value),
    /// The session is gone (404, or 400 after a session id was sent).
    Expired,
}

/// What asking `server/discover` found.
#[derive(Debug, PartialEq)]
pub(crate) enum Discovered {
    /// A 2026-07-28 server.
    Yes,
    /// An older one (or the page may not ask: CORS).
    No,
    /// A 2026-07-28 server that refused the first try's version: ask again.
    Again,
}

/// What a notification from the server comes to.
#[derive(Debug, PartialEq)]
pub(crate) enum Heard {
    /// Progress of a request in flight, for the call that watches it.
    Progress(Progress),
    /// Something to tell the host (kept results it outdates are forgotten).
    Notice(Notice),
    Nothing,
}

impl Session {
    pub(crate) fn new() -> Self {
        Self { next_id: 1, ..Self::default() }
    }

    pub(crate) fn next_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// The headers every request carries besides the user's: the session
    /// id and the protocol version (not over the legacy transport).
    pub(crate) fn headers(&self, legacy: bool) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(id) = &self.session_id {
            out.push(("Mcp-Session-Id", id.clone()));
        }
        if let Some(v) = self.version.as_ref().filter(|_| !legacy) {
            out.push(("MCP-Protocol-Version", v.clone()));
        }
        out
    }

    /// Forgets the session before connecting; whether there was one
    /// (connecting again, not for the first time).
    pub(crate) fn restart(&mut self) -> bool {
        self.session_id = None;
        self.version = None;
        // A new session may see other lists.
        self.cache.clear();
        std::mem::replace(&mut self.initialized, false) || self.server_info.is_some()
    }

    /// The server answered `server/discover` naming 2026-07-28.
    pub(crate) fn discovered(&mut self, result: &Value) {
        self.modern = true;
        self.version = Some(MODERN_VERSION.to_owned());
        self.server_info = result.pointer("/_meta/io.modelcontextprotocol~1serverInfo").cloned().or_else(|| result.get("serverInfo").cloned());
        self.capabilities = result.get("capabilities").cloned();
        self.initialized = true;
    }

    /// The server's `initialize` answer: the revision it picked must be one
    /// this client speaks (over the legacy transport, that one's); the
    /// session id, revision and what the server said of itself are kept.
    pub(crate) fn agreed(&mut self, result: &Value, session_id: Option<String>, legacy: bool) -> Result<(), McpError> {
        let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or_default().to_owned();
        let known = SUPPORTED_VERSIONS.contains(&version.as_str()) || (legacy && version == LEGACY_VERSION);
        if !known {
            return Err(McpError::UnsupportedVersion(version));
        }
        self.session_id = session_id;
        self.version = Some(version);
        self.server_info = result.get("serverInfo").cloned();
        self.capabilities = result.get("capabilities").cloned();
        Ok(())
    }

    /// A fresh result kept for `method` and `key`, at time `now` (none
    /// without a clock: nothing is kept).
    pub(crate) fn cached(&self, now: Option<u64>, method: &str, key: &str) -> Option<Value> {
        let now = now?;
        self.cache.get(&(method.to_owned(), key.to_owned())).filter(|(_, until)| now < *until).map(|(v, _)| v.clone())
    }

    /// Keeps `value` for `ttl` milliseconds from `now` (none or 0: not kept).
    pub(crate) fn keep(&mut self, now: Option<u64>, method: &str, key: &str, ttl: Option<u64>, value: &Value) {
        let (Some(now), Some(ttl)) = (now, ttl.filter(|t| *t > 0)) else { return };
        self.cache.insert((method.to_owned(), key.to_owned()), (value.clone(), now.saturating_add(ttl.min(MAX_TTL_MS))));
    }

    /// Forgets a kept result.
    pub(crate) fn forget(&mut self, method: &str, key: &str) {
        self.cache.remove(&(method.to_owned(), key.to_owned()));
    }

    /// Adds `uri` to the resources subscribed to.
    pub(crate) fn subscribe(&mut self, uri: &str) {
        self.subscribed.insert(uri.to_owned());
        self.subscriptions_rev += 1;
    }

    /// Removes `uri`; whether it was subscribed to.
    pub(crate) fn unsubscribe(&mut self, uri: &str) -> bool {
        let was = self.subscribed.remove(uri);
        self.subscriptions_rev += u64::from(was);
        was
    }

    /// A notification from the server: progress of a request in flight,
    /// or something for the host (a changed list or resource forgets what
    /// was kept of it).
    pub(crate) fn heard(&mut self, method: &str, params: &Value) -> Heard {
        let s = |k: &str| params.get(k).and_then(Value::as_str).map(str::to_owned);
        let notice = match method {
            requests::PROGRESS => {
                let ours = params.get("progressToken").and_then(Value::as_u64).is_some_and(|t| self.pending.contains(&t));
                return match (ours, params.get("progress").and_then(Value::as_f64)) {
                    (true, Some(progress)) => Heard::Progress(Progress { progress, total: params.get("total").and_then(Value::as_f64), message: s("message") }),
                    _ => Heard::Nothing,
                };
            }
            requests::TOOLS_LIST_CHANGED => {
                self.forget(ListTools::METHOD, "");
                Notice::ToolsChanged
            }
            requests::PROMPTS_LIST_CHANGED => {
                self.forget(ListPrompts::METHOD, "");
                Notice::PromptsChanged
            }
            requests::RESOURCES_LIST_CHANGED => {
                self.forget(ListResources::METHOD, "");
                self.forget(ListResourceTemplates::METHOD, "");
                Notice::ResourcesChanged
            }
            requests::RESOURCES_UPDATED => {
                let uri = s("uri").unwrap_or_default();
                self.forget(ReadResource::METHOD, &uri);
                Notice::ResourceUpdated { uri }
            }
            requests::LOG_MESSAGE => Notice::Log { level: s("level").unwrap_or_else(|| "info".into()), logger: s("logger"), data: params.get("data").cloned().unwrap_or(Value::Null) },
            _ => return Heard::Nothing,
        };
        Heard::Notice(notice)
    }

    /// A message on the session's own stream: kept in the inbox when a
    /// watched call is in flight and it is a question or progress (`None`),
    /// else handed back to be handled.
    pub(crate) fn on_stream(&mut self, message: Value) -> Option<Value> {
        let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
        let for_a_call = message.get("id").is_some() || method == requests::PROGRESS;
        if for_a_call && !method.is_empty() && self.watched > 0 {
            self.inbox.push_back(message);
            return None;
        }
        Some(message)
    }

    /// The first message the session's stream left for call `id`: its
    /// progress (the token is the request's id), or, unless
    /// `progress_only`, a question from the server (which names no call:
    /// any watched call may answer it).
    pub(crate) fn take_inbox(&mut self, id: u64, progress_only: bool) -> Option<Value> {
        let at = self.inbox.iter().position(|m| match m.pointer("/params/progressToken") {
            Some(token) => m.get("method").and_then(Value::as_str) == Some(requests::PROGRESS) && token.as_u64() == Some(id),
            None => !progress_only && m.get("id").is_some(),
        })?;
        self.inbox.remove(at)
    }
}

/// What a `server/discover` refused with an HTTP error means: a
/// 2026-07-28 error (-32022) naming 2026-07-28 on the first try (id 0) is
/// a server of this era, to be asked again; anything else an older server.
pub(crate) fn discovery_refused(id: u64, body: &str) -> Discovered {
    match jsonrpc::rpc_error_in(body) {
        Some(McpError::VersionRefused { supported }) if supported.iter().any(|v| v == MODERN_VERSION) && id == 0 => Discovered::Again,
        _ => Discovered::No,
    }
}

/// One request, sent until its outcome is final: the input rounds it
/// answered, the reconnection it made, whether the pages it needs were
/// asked for.
pub(crate) struct Attempt<'a> {
    method: &'a str,
    params: Value,
    /// Someone watches it (progress, questions).
    watched: bool,
    /// Headers for this request alone (2026-07-28 `Mcp-Param-*`).
    extra: &'a [(String, String)],
    /// Reconnections (or a second try) made for it.
    again: u32,
    rounds: u32,
    url_retried: bool,
    /// The `requestState` of the last `input_required` result.
    request_state: Option<Value>,
}

/// A request as it goes out.
#[derive(Debug)]
pub(crate) struct Outgoing {
    pub(crate) id: u64,
    pub(crate) message: Value,
    /// Headers of this request alone, after the session's.
    pub(crate) headers: Vec<(String, String)>,
    /// Sent as 2026-07-28 (no session).
    pub(crate) modern: bool,
    /// A session id went with it (a 400 may then mean it expired).
    pub(crate) had_session: bool,
}

/// What to do after an exchange.
#[derive(Debug, PartialEq)]
pub(crate) enum Step {
    /// The result.
    Done(Value),
    Fail(McpError),
    /// 2026-07-28: the server needs answers first (key, method, params);
    /// serve them, give them to [`Attempt::answered`], send again.
    Input(Vec<(String, String, Value)>),
    /// Connect again, then send again.
    Reconnect,
    /// Send again (a new id).
    Again,
    /// Ask the user to open these pages (URL, what to tell); once all are
    /// opened, send again.
    OpenPages {
        message: String,
        pages: Vec<(String, String)>,
    },
    /// Stopped or timed out: tell the server (when there is something to
    /// tell), then fail.
    Cancel {
        notice: Option<Cancelled>,
        error: McpError,
    },
    /// The server could not be reached: say so, then fail.
    Unreachable(McpError),
}

impl<'a> Attempt<'a> {
    pub(crate) fn new(method: &'a str, params: Value, watched: bool, extra: &'a [(String, String)]) -> Self {
        Self { method, params, watched, extra, again: 0, rounds: 0, url_retried: false, request_state: None }
    }

    /// The request to send now, with a new id: progress reports name it
    /// when someone watches; 2026-07-28 adds its `_meta` and headers. The
    /// id waits for an answer until [`Attempt::finish`].
    pub(crate) fn begin(&self, session: &mut Session) -> Outgoing {
        let id = session.next_id();
        let modern = session.modern;
        let mut sent = self.params.clone();
        if let Some(p) = sent.as_object_mut() {
            let meta = p.entry("_meta").or_insert_with(|| json!({}));
            if let Some(m) = meta.as_object_mut() {
                // Progress reports name the request they belong to.
                if self.watched {
                    m.insert("progressToken".into(), json!(id));
                }
                if modern {
                    m.extend(requests::modern_meta());
                }
            }
            if p.get("_meta").is_some_and(|m| m.as_object().is_some_and(|m| m.is_empty())) {
                p.remove("_meta");
            }
        }
        let message = jsonrpc::request(id, self.method, sent);
        let mut headers = Vec::new();
        if modern {
            headers.push(("Mcp-Method".to_owned(), self.method.to_owned()));
            if let Some(name) = requests::routing_name(self.method, &self.params) {
                headers.push(("Mcp-Name".to_owned(), name.to_owned()));
            }
            headers.extend(self.extra.iter().cloned());
        }
        let had_session = session.session_id.is_some();
        session.pending.push(id);
        Outgoing { id, message, headers, modern, had_session }
    }

    /// What the outcome of `out` means.
    pub(crate) fn finish(&mut self, session: &mut Session, out: &Outgoing, outcome: Result<Outcome, McpError>) -> Step {
        session.pending.retain(|p| *p != out.id);
        let modern = out.modern;
        match outcome {
            Ok(Outcome::Result(r)) if modern && r.get("resultType").and_then(Value::as_str) == Some("input_required") => self.input_required(&r),
            Ok(Outcome::Result(r)) => Step::Done(r),
            Ok(Outcome::Expired) if self.again == 0 && !modern => {
                self.again += 1;
                Step::Reconnect
            }
            Ok(Outcome::Expired) => Step::Fail(McpError::Protocol("the session expired again right after it was renewed".into())),
            Err(McpError::VersionRefused { supported }) if modern && self.again == 0 => self.version_refused(session, supported),
            Err(e @ McpError::Network(_)) => Step::Unreachable(e),
            // The pages the server needs opened are offered to the user;
            // once opened, the same request is sent again (once).
            Err(McpError::UrlRequired { message, pages }) if self.watched && !self.url_retried => {
                self.url_retried = true;
                Step::OpenPages { message, pages }
            }
            // A dropped stream is not a cancellation: say it (in
            // 2026-07-28 closing the stream is the cancellation).
            Err(e @ (McpError::Aborted | McpError::Timeout { .. })) => {
                let reason = if matches!(e, McpError::Aborted) { "stopped by the user" } else { "timed out" };
                Step::Cancel { notice: (!modern).then_some(Cancelled { request_id: out.id, reason }), error: e }
            }
            Err(e) => Step::Fail(e),
        }
    }

    /// 2026-07-28: the server needs answers first (MRTR): they are asked,
    /// then the same request goes again with them and the unchanged
    /// request state.
    fn input_required(&mut self, r: &Value) -> Step {
        self.rounds += 1;
        if self.rounds > MAX_INPUT_ROUNDS {
            return Step::Fail(McpError::Protocol(format!("the server kept asking for input ({MAX_INPUT_ROUNDS} rounds)")));
        }
        self.request_state = r.get("requestState").cloned();
        let asked = r.get("inputRequests").and_then(Value::as_object).into_iter().flatten();
        Step::Input(asked.map(|(key, req)| (key.clone(), req.get("method").and_then(Value::as_str).unwrap_or_default().to_owned(), req.get("params").cloned().unwrap_or(Value::Null))).collect())
    }

    /// The answers to [`Step::Input`], by key, for the next send.
    pub(crate) fn answered(&mut self, responses: serde_json::Map<String, Value>) {
        if let Some(p) = self.params.as_object_mut() {
            p.insert("inputResponses".into(), Value::Object(responses));
            match self.request_state.take() {
                Some(state) => p.insert("requestState".into(), state),
                None => p.remove("requestState"),
            };
        }
    }

    /// The server no longer speaks 2026-07-28 (-32022): connect again in a
    /// revision it names, then send the request again. It still names
    /// 2026-07-28: the same request once more, with a new id.
    fn version_refused(&mut self, session: &mut Session, supported: Vec<String>) -> Step {
        if supported.iter().any(|v| v == MODERN_VERSION) {
            self.again += 1;
            return Step::Again;
        }
        let ours = |v: &String| SUPPORTED_VERSIONS.contains(&v.as_str());
        if !supported.is_empty() && !supported.iter().any(ours) {
            return Step::Fail(McpError::UnsupportedVersion(supported.join(", ")));
        }
        self.again += 1;
        session.modern = false;
        session.era_known = true;
        Step::Reconnect
    }
}

#[cfg(test)]
mod tests;
