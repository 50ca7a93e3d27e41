//! A blocking HTTP/1.1 client for programs on this machine (the command
//! line tools that run the app's cores against real servers): one thread
//! per request, so a request and a stream that stays open are read at the
//! same time. No TLS: it talks to servers on this machine.

use std::io::Read;
use std::path::PathBuf;
use std::pin::pin;

use futures_channel::{mpsc, oneshot};
use futures_util::StreamExt;
use futures_util::future::{Either, select};
use serde_json::{Value, json};

use crate::{Abort, Body, HttpClient, HttpError, Request, Response};

/// Blocking HTTP/1.1, one thread per request so that a call and the
/// session's own stream are read at the same time.
pub struct ThreadedHttp {
    agent: ureq::Agent,
    /// The last request sent (a benchmark replays it raw).
    last: std::cell::RefCell<Option<Request>>,
    /// Requests sent so far (numbers the exchanges in the trace).
    sent: std::cell::Cell<usize>,
    trace: Option<PathBuf>,
}

impl ThreadedHttp {
    /// Redirects are not followed; statuses are answers, not errors.
    /// With `trace`, every exchange is appended to that file (see [`trace`]).
    pub fn new(trace: Option<PathBuf>) -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).max_redirects(0).build().into();
        Self { agent, last: Default::default(), sent: Default::default(), trace }
    }

    /// The last request sent.
    pub fn last(&self) -> Option<Request> {
        self.last.borrow().clone()
    }
}

type Head = (u16, Vec<(String, String)>);

pub struct StreamedBody {
    chunks: mpsc::UnboundedReceiver<Result<Vec<u8>, HttpError>>,
    abort: Abort,
}

impl Body for StreamedBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, HttpError> {
        match select(self.chunks.next(), pin!(self.abort.aborted())).await {
            Either::Left((Some(chunk), _)) => chunk.map(Some),
            Either::Left((None, _)) => Ok(None),
            Either::Right(_) => Err(HttpError::Aborted),
        }
    }
}

/// Appends `line` to the trace file `path`, if any: every exchange as JSON
/// lines that a host test can replay: `{"n", "send": {method, url, headers,
/// body}}` when a request goes out, `{"n", "status", "headers"}` when its
/// answer starts (`{"n", "failed"}` if it never does), `{"n", "chunk"}`
/// for each piece of its body, then `{"n", "end"}` or `{"n", "error"}`, where `n`
/// numbers the exchanges in the order they were sent.
pub fn trace(path: Option<&std::path::Path>, line: Value) {
    if let Some(path) = path {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
            // One write per line: several threads append to the same file.
            let _ = f.write_all(format!("{line}\n").as_bytes());
        }
    }
}

/// Sends `request` and streams its body into `chunks`, on this thread.
fn exchange(n: usize, agent: &ureq::Agent, trace_to: Option<PathBuf>, request: Request, head: oneshot::Sender<Result<Head, HttpError>>, chunks: mpsc::UnboundedSender<Result<Vec<u8>, HttpError>>) {
    let mut builder = ureq::http::Request::builder().method(request.method.as_str()).uri(&request.url);
    for (k, v) in &request.headers {
        builder = builder.header(k, v);
    }
    let req = match builder.body(request.body.unwrap_or_default().into_bytes()) {
        Ok(r) => r,
        Err(e) => {
            let _ = head.send(Err(HttpError::Other(e.to_string())));
            return;
        }
    };
    let response = match agent.run(req) {
        Ok(r) => r,
        Err(e) => {
            trace(trace_to.as_deref(), json!({"n": n, "failed": e.to_string()}));
            let _ = head.send(Err(HttpError::Network(e.to_string())));
            return;
        }
    };
    let status = response.status().as_u16();
    let headers = response.headers().iter().map(|(k, v)| (k.as_str().to_ascii_lowercase(), String::from_utf8_lossy(v.as_bytes()).into_owned())).collect();
    trace(trace_to.as_deref(), json!({"n": n, "status": status, "headers": headers}));
    if head.send(Ok((status, headers))).is_err() {
        return;
    }
    let mut reader = response.into_body().into_reader();
    let mut buf = vec![0; 16 * 1024];
    loop {
        let sent = match reader.read(&mut buf) {
            Ok(0) => {
                trace(trace_to.as_deref(), json!({"n": n, "end": true}));
                return;
            }
            Ok(read) => {
                trace(trace_to.as_deref(), json!({"n": n, "chunk": String::from_utf8_lossy(&buf[..read])}));
                chunks.unbounded_send(Ok(buf[..read].to_vec()))
            }
            Err(e) => {
                trace(trace_to.as_deref(), json!({"n": n, "error": e.to_string()}));
                let _ = chunks.unbounded_send(Err(HttpError::Network(e.to_string())));
                return;
            }
        };
        // Nobody reads any more.
        if sent.is_err() {
            return;
        }
    }
}

impl HttpClient for ThreadedHttp {
    type Body = StreamedBody;

    async fn send(&self, request: Request, abort: &Abort) -> Result<Response<StreamedBody>, HttpError> {
        if abort.is_aborted() {
            return Err(HttpError::Aborted);
        }
        let n = self.sent.get();
        self.sent.set(n + 1);
        trace(self.trace.as_deref(), json!({"n": n, "send": {"method": request.method.as_str(), "url": request.url, "headers": request.headers, "body": request.body}}));
        *self.last.borrow_mut() = Some(request.clone());
        let (head_tx, head_rx) = oneshot::channel();
        let (chunks_tx, chunks_rx) = mpsc::unbounded();
        let agent = self.agent.clone();
        let trace_to = self.trace.clone();
        std::thread::spawn(move || exchange(n, &agent, trace_to, request, head_tx, chunks_tx));
        let (status, headers) = match select(head_rx, pin!(abort.aborted())).await {
            Either::Left((Ok(head), _)) => head?,
            Either::Left((Err(_), _)) => return Err(HttpError::Network("the request's thread ended".into())),
            Either::Right(_) => return Err(HttpError::Aborted),
        };
        Ok(Response { status, headers, body: StreamedBody { chunks: chunks_rx, abort: abort.clone() } })
    }
}
