//! The HTTP+SSE transport of revision 2024-11-05: one event stream (a GET)
//! carries every answer; messages are POSTed to the endpoint it names.

use std::cell::RefCell;
use std::collections::HashMap;
use std::pin::pin;
use std::task::{Poll, Waker};

use air_http::{Abort, Body, HttpClient, Request, Response};
use air_tools::CallHost;
use futures_util::future::{Either, select};
use serde_json::Value;

use super::{Wire, is_sse};
use crate::error::McpError;
use crate::jsonrpc;
use crate::requests::{Initialize, Request as _};
use crate::session::Outcome;

/// The legacy transport, once a server turned out to speak only that.
pub(crate) struct Legacy<B> {
    stream: RefCell<Option<Stream<B>>>,
}

/// The one event stream and what was read from it.
struct Stream<B> {
    /// The stream, while nobody is reading it.
    body: Option<B>,
    decoder: air_sse::Decoder,
    /// Answers read for requests that have not picked them up yet.
    answers: HashMap<u64, Result<Value, McpError>>,
    /// The server closed the stream (the session is over).
    closed: bool,
    wakers: Vec<Waker>,
    /// Messages that arrived with the endpoint, not yet handled.
    early: Vec<Value>,
}

/// Where a request waiting for its answer stands.
enum Claim<B> {
    /// It may read the stream.
    Stream(B),
    /// Its answer was read by another.
    Answered(Result<Value, McpError>),
    /// The stream is over.
    Closed,
}

impl<B: Body> Legacy<B> {
    pub(crate) fn new() -> Self {
        Self { stream: RefCell::new(None) }
    }

    /// Forgets the transport (a new session starts over).
    pub(crate) fn clear<H: HttpClient<Body = B>>(&self, wire: &Wire<H>) {
        *self.stream.borrow_mut() = None;
        *wire.endpoint.borrow_mut() = None;
    }

    /// `initialize` was refused (`refused`, 400/404/405): perhaps a server
    /// of this transport. Opens its stream and initialises over it with
    /// `params`; the first refusal is the error when it offers none.
    pub(crate) async fn initialize<H: HttpClient<Body = B>>(&self, wire: &Wire<H>, refused: Response<B>, params: Value, abort: &Abort) -> Result<Value, McpError> {
        let status = refused.status;
        let body = refused.body.text().await.unwrap_or_default();
        let refused = jsonrpc::rpc_error_in(&body).unwrap_or(McpError::Http { status, body });
        if !self.open(wire, abort).await? {
            return Err(refused);
        }
        let id = wire.next_id();
        let message = jsonrpc::request(id, Initialize::METHOD, params);
        let response = wire.send(wire.post(&message), abort).await?;
        match self.answer(wire, id, response, abort, None).await? {
            Outcome::Result(r) => Ok(r),
            Outcome::Expired => Err(McpError::Protocol("the server closed its event stream".into())),
        }
    }

    /// Opens the event stream (a GET of the server's URL) and reads the
    /// `endpoint` event that says where to POST. `false` if the server
    /// offers no such stream.
    async fn open<H: HttpClient<Body = B>>(&self, wire: &Wire<H>, abort: &Abort) -> Result<bool, McpError> {
        let mut get = Request::get(&wire.config.url).header("Accept", "text/event-stream");
        for (k, v) in &wire.config.headers {
            get = get.header(k, v);
        }
        let response = wire.send(get, abort).await?;
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
                    Some("endpoint") if endpoint.is_none() => endpoint = Some(resolve(&wire.config.url, e.data.trim())),
                    None | Some("message") if endpoint.is_some() => early.extend(serde_json::from_str::<Value>(&e.data).ok()),
                    _ => {}
                }
            }
            if let Some(endpoint) = endpoint {
                // The configured headers and sign-in go where the endpoint
                // is: only to the server the user named.
                if origin_of(&endpoint) != origin_of(&wire.config.url) {
                    return Err(McpError::Protocol(format!("the server's event stream names an endpoint on another origin ({endpoint}); nothing is sent there")));
                }
                *wire.endpoint.borrow_mut() = Some(endpoint);
                *self.stream.borrow_mut() = Some(Stream { body: Some(body), decoder, answers: HashMap::new(), closed: false, wakers: Vec::new(), early });
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The answer to request `id`: the POST is only accepted; the answer
    /// comes on the event stream, which whoever waits reads (one at a
    /// time), keeping answers for the others.
    pub(crate) async fn answer<H: HttpClient<Body = B>>(&self, wire: &Wire<H>, id: u64, response: Response<B>, abort: &Abort, call: Option<&dyn CallHost>) -> Result<Outcome, McpError> {
        let status = response.status;
        let text = response.body.text().await.unwrap_or_default();
        if status == 404 {
            return Ok(Outcome::Expired);
        }
        if !(200..300).contains(&status) {
            return Err(jsonrpc::rpc_error_in(&text).unwrap_or(McpError::Http { status, body: text }));
        }
        loop {
            let body = match self.claim(id).await {
                Claim::Stream(b) => b,
                Claim::Answered(answer) => return answer.map(Outcome::Result),
                Claim::Closed => return Ok(Outcome::Expired),
            };
            let early = self.stream.borrow_mut().as_mut().map(|l| std::mem::take(&mut l.early)).unwrap_or_default();
            if !early.is_empty() {
                let mine = self.dispatch(wire, id, early, abort, call).await;
                self.put_back(Some(body));
                if let Some(answer) = mine {
                    return answer.map(Outcome::Result);
                }
                continue;
            }
            if let Some(answer) = self.read(wire, id, body, abort, call).await? {
                return answer.map(Outcome::Result);
            }
        }
    }

    /// Waits until request `id` is answered already, or the stream is free
    /// to read, or over.
    async fn claim(&self, id: u64) -> Claim<B> {
        std::future::poll_fn(|cx| {
            let mut guard = self.stream.borrow_mut();
            let Some(l) = guard.as_mut() else { return Poll::Ready(Claim::Answered(Err(McpError::Protocol("the legacy stream is gone".into())))) };
            if let Some(answer) = l.answers.remove(&id) {
                return Poll::Ready(Claim::Answered(answer));
            }
            if l.closed {
                return Poll::Ready(Claim::Closed);
            }
            match l.body.take() {
                Some(b) => Poll::Ready(Claim::Stream(b)),
                None => {
                    l.wakers.push(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await
    }

    /// Reads one piece of the stream for request `id`, handling what it
    /// brings; the answer if it came. The stream is put back for others.
    async fn read<H: HttpClient<Body = B>>(&self, wire: &Wire<H>, id: u64, mut body: B, abort: &Abort, call: Option<&dyn CallHost>) -> Result<Option<Result<Value, McpError>>, McpError> {
        let read = match select(pin!(body.chunk()), pin!(abort.aborted())).await {
            Either::Left((c, _)) => Some(c),
            Either::Right(_) => None,
        };
        let Some(chunk) = read else {
            self.put_back(Some(body));
            return Err(McpError::Aborted);
        };
        let (frames, body) = {
            let mut guard = self.stream.borrow_mut();
            let Some(l) = guard.as_mut() else { return Err(McpError::Protocol("the legacy stream is gone".into())) };
            match chunk {
                Ok(Some(bytes)) => (l.decoder.feed(&bytes), Some(body)),
                _ => (l.decoder.finish(), None),
            }
        };
        let ended = body.is_none();
        let messages = frames.into_iter().filter_map(|frame| {
            let air_sse::Frame::Event(e) = frame else { return None };
            if !matches!(e.event.as_deref(), None | Some("message")) || e.data.trim().is_empty() {
                return None;
            }
            serde_json::from_str::<Value>(&e.data).ok()
        });
        let mine = self.dispatch(wire, id, messages.collect(), abort, call).await;
        if ended {
            if let Some(l) = self.stream.borrow_mut().as_mut() {
                l.closed = true;
            }
            // The session is over: the next request starts another.
            wire.session.borrow_mut().initialized = false;
        }
        self.put_back(body);
        Ok(mine)
    }

    /// Handles messages of the stream in turn; the answer to `id` among
    /// them (the last, should it come twice).
    async fn dispatch<H: HttpClient<Body = B>>(&self, wire: &Wire<H>, id: u64, messages: Vec<Value>, abort: &Abort, call: Option<&dyn CallHost>) -> Option<Result<Value, McpError>> {
        let mut mine = None;
        for message in messages {
            if let Some(answer) = self.message(wire, id, message, abort, call).await {
                mine = Some(answer);
            }
        }
        mine
    }

    /// One message of the stream: the answer to `id` (returned), another
    /// request's answer (kept for it), or a server request or notification
    /// (handled).
    async fn message<H: HttpClient<Body = B>>(&self, wire: &Wire<H>, id: u64, message: Value, abort: &Abort, call: Option<&dyn CallHost>) -> Option<Result<Value, McpError>> {
        let is_response = message.get("method").is_none();
        match (is_response, message.get("id").and_then(Value::as_u64)) {
            (true, Some(got)) if got == id => Some(jsonrpc::response_of(&message)),
            (true, Some(got)) => {
                if let Some(l) = self.stream.borrow_mut().as_mut() {
                    l.answers.insert(got, jsonrpc::response_of(&message));
                }
                None
            }
            _ => {
                let _ = wire.handle(0, message, abort, call).await;
                None
            }
        }
    }

    /// Returns the stream for others to read, and wakes them.
    fn put_back(&self, body: Option<B>) {
        let wakers = {
            let mut guard = self.stream.borrow_mut();
            let Some(l) = guard.as_mut() else { return };
            if body.is_some() {
                l.body = body;
            }
            std::mem::take(&mut l.wakers)
        };
        wakers.into_iter().for_each(Waker::wake);
    }
}

/// `reference` (absolute, rooted or relative) against `base`.
fn resolve(base: &str, reference: &str) -> String {
    if air_http::url::is_http(reference) {
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
