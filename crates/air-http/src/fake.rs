//! A scripted [`HttpClient`] for tests: responses are queued in order and
//! every request is recorded.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::Poll;

use crate::{Abort, Body, HttpClient, HttpError, Request, Response};

/// One step of a scripted body.
#[derive(Debug, Clone)]
pub enum Step {
    /// These bytes arrive.
    Chunk(Vec<u8>),
    /// Nothing more arrives until the request is aborted.
    Hang,
    /// Nothing arrives until `gate` is triggered (a test's [`Abort`] used as
    /// a gate), then the next steps do; or the request is aborted.
    Until(Abort),
    /// The connection fails.
    Fail(HttpError),
    /// The user presses Stop: the request's [`Abort`] is triggered here.
    Abort,
}

/// What the next request gets.
#[derive(Debug, Clone)]
pub enum Script {
    Respond {
        status: u16,
        headers: Vec<(String, String)>,
        steps: Vec<Step>,
    },
    /// `fetch` itself fails.
    Fail(HttpError),
}

impl Script {
    /// A 200 `text/event-stream` with one `data:` event per item.
    pub fn sse<S: AsRef<str>>(events: impl IntoIterator<Item = S>) -> Self {
        let steps = events.into_iter().map(|e| Step::Chunk(format!("data: {}\n\n", e.as_ref()).into_bytes())).collect();
        Script::Respond { status: 200, headers: vec![("content-type".into(), "text/event-stream".into())], steps }
    }

    /// A response with `status` and a whole body.
    pub fn status(status: u16, body: &str) -> Self {
        Script::Respond { status, headers: vec![("content-type".into(), "application/json".into())], steps: vec![Step::Chunk(body.as_bytes().to_vec())] }
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        if let Script::Respond { headers, .. } = &mut self {
            headers.push((name.to_ascii_lowercase(), value.to_owned()));
        }
        self
    }

    /// Adds a step at the end of the body.
    pub fn then(mut self, step: Step) -> Self {
        if let Script::Respond { steps, .. } = &mut self {
            steps.push(step);
        }
        self
    }
}

/// Answers requests from a queue of [`Script`]s, in order, and records them.
#[derive(Default)]
pub struct ScriptedHttp {
    queue: RefCell<VecDeque<Script>>,
    requests: RefCell<Vec<Request>>,
    cors: Cell<bool>,
    /// Body chunks handed out, over every response.
    read: Rc<Cell<usize>>,
}

impl ScriptedHttp {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&self, script: Script) {
        self.queue.borrow_mut().push_back(script);
    }

    /// Every request sent so far.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.borrow().clone()
    }

    /// How many body chunks the responses handed out so far (how far
    /// their bodies were read).
    pub fn chunks_read(&self) -> usize {
        self.read.get()
    }

    /// Scripts not used yet.
    pub fn pending(&self) -> usize {
        self.queue.borrow().len()
    }

    /// What [`HttpClient::answers_without_cors`] says (a CORS failure).
    pub fn set_answers_without_cors(&self, yes: bool) {
        self.cors.set(yes);
    }
}

pub struct ScriptedBody {
    steps: VecDeque<Step>,
    abort: Abort,
    read: Rc<Cell<usize>>,
}

impl Body for ScriptedBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, HttpError> {
        loop {
            if self.abort.is_aborted() {
                return Err(HttpError::Aborted);
            }
            match self.steps.pop_front() {
                None => return Ok(None),
                Some(Step::Chunk(b)) => {
                    self.read.set(self.read.get() + 1);
                    return Ok(Some(b));
                }
                Some(Step::Fail(e)) => return Err(e),
                Some(Step::Abort) => self.abort.abort(),
                Some(Step::Hang) => {
                    self.abort.aborted().await;
                    return Err(HttpError::Aborted);
                }
                Some(Step::Until(gate)) => {
                    let (mut opened, mut stopped) = (gate.aborted(), self.abort.aborted());
                    std::future::poll_fn(|cx| match (Pin::new(&mut opened).poll(cx), Pin::new(&mut stopped).poll(cx)) {
                        (Poll::Pending, Poll::Pending) => Poll::Pending,
                        _ => Poll::Ready(()),
                    })
                    .await;
                }
            }
        }
    }
}

impl HttpClient for ScriptedHttp {
    type Body = ScriptedBody;

    async fn send(&self, request: Request, abort: &Abort) -> Result<Response<ScriptedBody>, HttpError> {
        let request_redirect = request.redirect();
        self.requests.borrow_mut().push(request);
        if abort.is_aborted() {
            return Err(HttpError::Aborted);
        }
        let script = self.queue.borrow_mut().pop_front();
        match script {
            None => Ok(Response {
                status: 500,
                headers: Vec::new(),
                body: ScriptedBody { steps: [Step::Chunk(b"no scripted response left".to_vec())].into(), abort: abort.clone(), read: self.read.clone() },
            }),
            Some(Script::Fail(e)) => Err(e),
            // As the page's `fetch` does: a request carrying a key follows
            // no redirect (`Request::redirect`).
            Some(Script::Respond { status: 301 | 302 | 303 | 307 | 308, .. }) if request_redirect == crate::Redirect::Manual => Err(HttpError::Other(crate::REDIRECT_REFUSED.into())),
            Some(Script::Respond { status, headers, steps }) => Ok(Response { status, headers, body: ScriptedBody { steps: steps.into(), abort: abort.clone(), read: self.read.clone() } }),
        }
    }

    async fn answers_without_cors(&self, _url: &str) -> bool {
        self.cors.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_answer_in_order_and_requests_are_recorded() {
        pollster::block_on(async {
            let http = ScriptedHttp::new();
            http.push(Script::sse(["{\"a\":1}", "[DONE]"]));
            http.push(Script::status(429, "{}").with_header("Retry-After", "2"));
            let abort = Abort::new();
            let r = http.send(Request::post_json("http://x/v1", "{}"), &abort).await.unwrap();
            assert!(r.ok());
            assert_eq!(r.body.text().await.unwrap(), "data: {\"a\":1}\n\ndata: [DONE]\n\n");
            let r = http.send(Request::get("http://x/v2"), &abort).await.unwrap();
            assert_eq!((r.status, r.header("retry-after")), (429, Some("2")));
            assert_eq!(http.requests().iter().map(|r| r.url.as_str()).collect::<Vec<_>>(), ["http://x/v1", "http://x/v2"]);
        });
    }

    #[test]
    fn a_redirect_is_not_followed_with_a_key() {
        pollster::block_on(async {
            let http = ScriptedHttp::new();
            let moved = || Script::status(307, "").with_header("Location", "https://elsewhere.example/");
            http.push(moved());
            http.push(moved());
            let abort = Abort::new();
            let keyed = Request::get("https://api.example/").header("x-api-key", "k");
            assert_eq!(http.send(keyed, &abort).await.map(|r| r.status).err(), Some(HttpError::Other(crate::REDIRECT_REFUSED.into())));
            assert_eq!(http.send(Request::get("https://api.example/"), &abort).await.map(|r| r.status).ok(), Some(307));
        });
    }

    #[test]
    fn a_hanging_body_ends_when_aborted() {
        pollster::block_on(async {
            let http = ScriptedHttp::new();
            http.push(Script::sse(["1"]).then(Step::Abort).then(Step::Hang));
            let abort = Abort::new();
            let mut r = http.send(Request::get("u"), &abort).await.unwrap();
            assert!(r.body.chunk().await.unwrap().is_some());
            assert_eq!(r.body.chunk().await, Err(HttpError::Aborted));
            assert!(abort.is_aborted());
        });
    }
}
