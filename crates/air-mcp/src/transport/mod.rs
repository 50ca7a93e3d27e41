//! What the transports share: the [`Wire`] to one server (its HTTP
//! client, configuration, sign-in, the session's state), the requests
//! built for it, an SSE stream read as JSON-RPC messages, the handling of
//! what a server sends (its requests answered, its notifications passed
//! on, the session stream's inbox for watched calls), and a request raced
//! against its time limit.
//!
//! Each transport adds to [`Wire`] in its own module: `streamable`
//! (2025-03-26 … 2025-11-25), `stateless` (2026-07-28, reading answers as
//! `streamable` does) and `legacy` (2024-11-05 HTTP+SSE).

pub(crate) mod legacy;
pub(crate) mod stateless;
pub(crate) mod streamable;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Poll, Waker};

use air_http::{Abort, Body, HttpClient, HttpError, Request, Response};
use air_tools::{CallHost, ElicitAnswer};
use futures_util::future::{Either, select};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::auth::{self, Authorizer};
use crate::elicit;
use crate::error::McpError;
use crate::host::ClientHost;
use crate::jsonrpc::{self, Message};
use crate::requests::{self, Notification};
use crate::session::{Heard, Outcome, Session};

/// How long to wait before reconnecting to a stream whose server named no
/// `retry:` delay.
const DEFAULT_RETRY_MS: u64 = 1_000;
/// How long a watched call waits for the session's stream to open.
const STREAM_OPEN_WAIT_MS: u64 = 3_000;
/// Reconnections to one answer's stream in a row that bring nothing new.
pub(crate) const MAX_RESUMES: u32 = 5;

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

/// The way to one server, shared by its transports.
pub(crate) struct Wire<H: HttpClient> {
    pub(crate) http: H,
    pub(crate) config: ServerConfig,
    pub(crate) host: Rc<dyn ClientHost>,
    pub(crate) authorizer: Option<Rc<dyn Authorizer>>,
    pub(crate) session: RefCell<Session>,
    /// Where messages are POSTed over the legacy transport (none: to the
    /// server's URL).
    pub(crate) endpoint: RefCell<Option<String>>,
    /// Whoever waits for the inbox, for the stream to open or for the
    /// subscriptions to change.
    wakers: RefCell<Vec<Waker>>,
}

impl<H: HttpClient> Wire<H> {
    pub(crate) fn new(http: H, config: ServerConfig, host: Rc<dyn ClientHost>) -> Self {
        Self { http, config, host, authorizer: None, session: RefCell::new(Session::new()), endpoint: RefCell::new(None), wakers: RefCell::new(Vec::new()) }
    }

    /// Sends with the server's sign-in ([`auth::send`]).
    pub(crate) async fn send(&self, request: Request, abort: &Abort) -> Result<Response<H::Body>, HttpError> {
        auth::send(&self.http, self.authorizer.as_ref(), request, abort).await
    }

    pub(crate) fn next_id(&self) -> u64 {
        self.session.borrow_mut().next_id()
    }

    /// Whether the server is spoken to over the legacy HTTP+SSE transport.
    pub(crate) fn is_legacy(&self) -> bool {
        self.endpoint.borrow().is_some()
    }

    /// The headers every request carries: the user's, the session id and
    /// the protocol version.
    pub(crate) fn with_headers(&self, mut r: Request) -> Request {
        for (k, v) in &self.config.headers {
            r = r.header(k, v);
        }
        for (k, v) in self.session.borrow().headers(self.is_legacy()) {
            r = r.header(k, v);
        }
        r
    }

    /// A POST of one JSON-RPC message.
    pub(crate) fn post(&self, message: &Value) -> Request {
        let url = self.endpoint.borrow().clone().unwrap_or_else(|| self.config.url.clone());
        self.with_headers(Request::post_json(url, message.to_string()).header("Accept", "application/json, text/event-stream"))
    }

    /// Sends a notification (answered 202, no body).
    pub(crate) async fn notify<N: Notification>(&self, note: &N, abort: &Abort) -> Result<(), McpError> {
        let note = jsonrpc::notification(N::METHOD, note.params());
        let r = self.send(self.post(&note), abort).await?;
        if !r.ok() {
            let status = r.status;
            let body = r.body.text().await.unwrap_or_default();
            return Err(McpError::Http { status, body });
        }
        Ok(())
    }

    /// Waits the server's `retry:` delay (or the default) before a stream is
    /// opened again; Stop ends the wait.
    pub(crate) async fn wait_to_reopen(&self, retry_ms: Option<u64>, abort: &Abort) -> Result<(), McpError> {
        let wait = pin!(self.host.sleep(retry_ms.unwrap_or(DEFAULT_RETRY_MS)));
        match select(wait, abort.aborted()).await {
            Either::Left(_) => Ok(()),
            Either::Right(_) => Err(McpError::Aborted),
        }
    }

    /// One message from the server: the response to `id` (returned), a
    /// server request (answered), or a notification (passed on).
    pub(crate) async fn handle(&self, id: u64, message: Value, abort: &Abort, call: Option<&dyn CallHost>) -> Result<Option<Result<Value, McpError>>, McpError> {
        match jsonrpc::classify(&message) {
            Message::Request { id: request_id, method, params } => {
                let reply = jsonrpc::reply(request_id, serve(method, params, call).await);
                let r = self.send(self.post(&reply), abort).await?;
                let _ = r.body.text().await;
                Ok(None)
            }
            Message::Notification { method, params } => {
                self.notified(method, params, call);
                Ok(None)
            }
            Message::Response { id: got } if got.as_u64() == Some(id) => Ok(Some(jsonrpc::response_of(&message))),
            _ => Ok(None),
        }
    }

    /// A notification from the server.
    pub(crate) fn notified(&self, method: &str, params: &Value, call: Option<&dyn CallHost>) {
        let heard = self.session.borrow_mut().heard(method, params);
        match heard {
            Heard::Progress(p) => {
                if let Some(host) = call {
                    host.progress(p);
                }
            }
            Heard::Notice(n) => self.host.notice(n),
            Heard::Nothing => {}
        }
    }

    /// Wakes whoever waits for the inbox or for the stream to open.
    pub(crate) fn wake_all(&self) {
        let wakers = std::mem::take(&mut *self.wakers.borrow_mut());
        wakers.into_iter().for_each(Waker::wake);
    }

    /// Resolves once the session's stream is not being opened.
    async fn stream_settled(&self) {
        std::future::poll_fn(|cx| {
            if self.session.borrow().stream_opening {
                self.wakers.borrow_mut().push(cx.waker().clone());
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        })
        .await
    }

    /// Resolves once the subscribed resources differ from revision `rev`.
    pub(crate) async fn subscriptions_changed(&self, rev: u64) {
        std::future::poll_fn(|cx| {
            if self.session.borrow().subscriptions_rev == rev {
                self.wakers.borrow_mut().push(cx.waker().clone());
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
            let message = std::future::poll_fn(|cx| match self.session.borrow_mut().take_inbox(id, false) {
                Some(m) => Poll::Ready(m),
                None => {
                    self.wakers.borrow_mut().push(cx.waker().clone());
                    Poll::Pending
                }
            })
            .await;
            let _ = self.handle(0, message, abort, Some(call)).await;
        }
    }

    /// A message on the session's stream: for a watched call if one is in
    /// flight and it is a question or progress; otherwise handled here.
    pub(crate) async fn on_session_stream(&self, message: Value, abort: &Abort) -> Result<(), McpError> {
        let routed = self.session.borrow_mut().on_stream(message);
        let Some(message) = routed else {
            self.wake_all();
            return Ok(());
        };
        self.handle(0, message, abort, None).await.map(|_| ())
    }

    /// `exchange` of request `id`; a watched call also takes what the server
    /// sends it on the session's own stream.
    pub(crate) async fn watched<F>(&self, id: u64, exchange: F, abort: &Abort, call: Option<&dyn CallHost>) -> Result<Outcome, McpError>
    where
        F: Future<Output = Result<Outcome, McpError>>,
    {
        let Some(host) = call else { return exchange.await };
        // Questions sent before that stream is open would be lost (a
        // server that holds back the stream's headers is not waited for
        // long).
        let _ = select(pin!(self.stream_settled()), self.host.sleep(STREAM_OPEN_WAIT_MS)).await;
        self.session.borrow_mut().watched += 1;
        let outcome = match select(pin!(exchange), pin!(self.serve_inbox(host, id, abort))).await {
            Either::Left((outcome, _)) => outcome,
            Either::Right((never, _)) => match never {},
        };
        // Progress that came on the other stream before the answer, and
        // was not yet shown.
        loop {
            let taken = self.session.borrow_mut().take_inbox(id, true);
            let Some(m) = taken else { break };
            let _ = self.handle(0, m, abort, Some(host)).await;
        }
        self.session.borrow_mut().watched -= 1;
        outcome
    }

    /// `exchange`, given up after `limit` milliseconds (`abort` is then
    /// fired).
    pub(crate) async fn timed<F>(&self, exchange: F, limit: Option<u64>, abort: &Abort) -> Result<Outcome, McpError>
    where
        F: Future<Output = Result<Outcome, McpError>>,
    {
        let exchange = pin!(exchange);
        match limit {
            None => exchange.await,
            Some(ms) => match select(exchange, self.host.sleep(ms)).await {
                Either::Left((outcome, _)) => outcome,
                Either::Right(_) => {
                    abort.abort();
                    Err(McpError::Timeout { ms })
                }
            },
        }
    }
}

/// Answers a request from the server: `ping`, and `elicitation/create`
/// (asked of the user through `call`; declined when nobody watches).
pub(crate) async fn serve(method: &str, params: &Value, call: Option<&dyn CallHost>) -> Result<Value, (i64, String)> {
    match method {
        requests::PING => Ok(json!({})),
        requests::ELICITATION_CREATE => {
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

/// Ends [`McpClient::listen`](crate::McpClient::listen)'s claim on the
/// session's stream, however it ends.
pub(crate) struct Listening<'a, H: HttpClient>(pub(crate) &'a Wire<H>);

impl<H: HttpClient> Drop for Listening<'_, H> {
    fn drop(&mut self) {
        {
            let mut s = self.0.session.borrow_mut();
            s.listening = false;
            s.stream_opening = false;
        }
        self.0.wake_all();
    }
}

pub(crate) fn is_sse<B>(response: &Response<B>) -> bool {
    response.header("content-type").is_some_and(|t| t.to_ascii_lowercase().starts_with("text/event-stream"))
}

/// Reads the JSON-RPC messages of one SSE stream: priming events (an id,
/// no data) and comments are skipped, `retry:` and the last event id kept.
pub(crate) struct Messages<B> {
    body: B,
    decoder: air_sse::Decoder,
    queued: VecDeque<Value>,
    pub(crate) retry_ms: Option<u64>,
    /// A message came (the stream was of use, whatever happens next).
    pub(crate) progressed: bool,
    ended: bool,
}

impl<B: Body> Messages<B> {
    pub(crate) fn new(body: B) -> Self {
        Self { body, decoder: air_sse::Decoder::new(), queued: VecDeque::new(), retry_ms: None, progressed: false, ended: false }
    }

    /// The next message, or `None` once the stream has ended. A connection
    /// that breaks ends the stream like a close when it can be resumed
    /// (it had an event id), and is an error otherwise.
    pub(crate) async fn next(&mut self) -> Result<Option<Value>, McpError> {
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

    pub(crate) fn last_id(&self) -> Option<String> {
        self.decoder.last_event_id().map(str::to_owned)
    }
}
