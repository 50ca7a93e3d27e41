//! What the client tests share: recorded and scripted answers (read from
//! `fixtures/`), the server's configuration, what the client sent, and
//! hosts that watch a call or the connection.
#![allow(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]
// Shared by several test binaries; each uses only some of these helpers.
#![allow(dead_code)]

use std::cell::RefCell;
use std::rc::Rc;

use air_http::Request;
use air_http::fake::{Script, ScriptedHttp, Step};
use air_mcp::{ClientHost, Connection, McpClient, Notice, ServerConfig, elicit};
use air_tools::{CallHost, ElicitAnswer, Elicitation, Progress};
use futures_util::future::LocalBoxFuture;
use serde_json::{Value, json};

pub(crate) const SESSION: &str = "c4d8f111-9175-4f55-be8d-57a4f68e4518";

pub(crate) fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A recorded SSE answer, delivered in pieces of 7 bytes.
pub(crate) fn recorded(name: &str, session: bool) -> Script {
    let body = fixture(name);
    let steps = body.as_bytes().chunks(7).map(|c| Step::Chunk(c.to_vec())).collect();
    let mut headers = vec![("content-type".to_owned(), "text/event-stream".to_owned())];
    if session {
        headers.push(("mcp-session-id".to_owned(), SESSION.to_owned()));
    }
    Script::Respond { status: 200, headers, steps }
}

pub(crate) fn accepted() -> Script {
    Script::Respond { status: 202, headers: Vec::new(), steps: Vec::new() }
}

pub(crate) fn json_answer(v: Value) -> Script {
    Script::status(200, &v.to_string())
}

pub(crate) fn config() -> ServerConfig {
    ServerConfig { name: "everything".into(), url: "http://127.0.0.1:3001/mcp".into(), headers: vec![("X-Api-Key".into(), "k1".into())] }
}

pub(crate) fn header<'a>(r: &'a Request, name: &str) -> Option<&'a str> {
    r.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

pub(crate) fn body(r: &Request) -> Value {
    serde_json::from_str(r.body.as_deref().unwrap_or("null")).unwrap()
}

/// A server of the revisions before 2026-07-28: it refuses the client's
/// first question, `server/discover`, as the reference server does
/// (recorded 2026-11-22).
pub(crate) fn older() -> ScriptedHttp {
    let http = ScriptedHttp::new();
    http.push(Script::status(400, r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}"#));
    http
}

pub(crate) fn run<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

/// Watches a call: keeps its progress, answers its questions by accepting
/// the form's defaults.
#[derive(Default)]
pub(crate) struct Watcher {
    pub(crate) progress: RefCell<Vec<Progress>>,
    pub(crate) asked: RefCell<Vec<Elicitation>>,
}

impl CallHost for Watcher {
    fn progress(&self, progress: Progress) {
        self.progress.borrow_mut().push(progress);
    }
    fn elicit(&self, request: Elicitation) -> LocalBoxFuture<'_, ElicitAnswer> {
        self.asked.borrow_mut().push(request.clone());
        Box::pin(async move {
            match request {
                Elicitation::Form { schema, .. } => ElicitAnswer::Accept { content: Value::Object(elicit::with_defaults(&elicit::fields(&schema), Default::default())) },
                Elicitation::Url { .. } => ElicitAnswer::Decline,
            }
        })
    }
}

/// A timer that does not wait but remembers, and a notice board.
#[derive(Default, Clone)]
pub(crate) struct Host {
    pub(crate) slept: Rc<RefCell<Vec<u64>>>,
    pub(crate) notices: Rc<RefCell<Vec<Notice>>>,
    pub(crate) states: Rc<RefCell<Vec<Connection>>>,
    pub(crate) now: Rc<std::cell::Cell<u64>>,
}

impl ClientHost for Host {
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        self.slept.borrow_mut().push(ms);
        Box::pin(async {})
    }
    fn notice(&self, notice: Notice) {
        self.notices.borrow_mut().push(notice);
    }
    fn connection(&self, state: Connection) {
        self.states.borrow_mut().push(state);
    }
    fn now_ms(&self) -> Option<u64> {
        Some(self.now.get())
    }
}

pub(crate) fn initialized(http: &ScriptedHttp) {
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": true}}}})).with_header("Mcp-Session-Id", "s1"));
    http.push(accepted());
}

pub(crate) fn raw_sse(text: &str) -> Script {
    Script::Respond { status: 200, headers: vec![("content-type".into(), "text/event-stream".into())], steps: vec![Step::Chunk(text.as_bytes().to_vec())] }
}

pub(crate) fn py_answer(name: &str) -> Script {
    Script::Respond { status: 200, headers: vec![("content-type".into(), "application/json".into())], steps: vec![Step::Chunk(fixture(name).into_bytes())] }
}

pub(crate) fn methods(client: &McpClient<ScriptedHttp>) -> Vec<String> {
    client.http().requests().iter().map(|r| body(r)["method"].as_str().unwrap_or_default().to_owned()).collect()
}
