//! The client replays exchanges recorded from real servers of every
//! revision (`fixtures/replay/*.jsonl`, made by
//! `tests/support/record-mcp-fixtures.sh` with the CLI's `AIR_MCP_TRACE`).
//!
//! Each cassette holds the commands a script ran, every request the client
//! sent and every answer, piece by piece, in the order they happened, and
//! what each command returned. Here the same commands run against a
//! replaying HTTP client: each request must be one the client sent to the
//! real server (same method, URL, headers and body), and is answered as the
//! server answered it. A piece of an answer is given only once the client
//! has sent every request that came before it in the recording (a
//! notification for a call comes after the call), and a stopped command is
//! stopped where it was stopped. Every command must return what it
//! returned against the real server, and every request the real server
//! got must have been sent again.
#![allow(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use air_http::{Abort, Body, HttpClient, HttpError, Request, Response};
use air_mcp::{ClientHost, McpClient, ServerConfig, elicit};
use air_tools::{CallHost, ElicitAnswer, Elicitation, Progress};
use futures_util::future::{Either, LocalBoxFuture, select};
use serde_json::{Value, json};

/// One event of an answer: a piece of the body, or its end.
#[derive(Clone)]
struct Piece {
    /// Where it is in the recording.
    at: usize,
    /// Requests sent before it in the recording.
    after_sends: usize,
    what: What,
}

#[derive(Clone)]
enum What {
    Chunk(String),
    End,
    /// The connection broke.
    Error(String),
}

struct Exchange {
    send: Value,
    /// The request itself failed (nothing listened).
    failed: Option<String>,
    status: u16,
    headers: Vec<(String, String)>,
    pieces: Vec<Piece>,
    used: bool,
}

struct Cassette {
    exchanges: Vec<Exchange>,
    commands: Vec<Command>,
}

#[derive(Clone)]
struct Command {
    line: String,
    /// Where it starts in the recording.
    at: usize,
    /// Where the recording stopped it (if it did), with the requests sent
    /// before that.
    stopped: Option<(usize, usize)>,
    /// What it returned.
    result: Value,
}

fn load(name: &str) -> Cassette {
    let path = format!("{}/tests/fixtures/replay/{name}.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut exchanges: Vec<Exchange> = Vec::new();
    let mut commands = Vec::new();
    let mut sends = 0;
    let mut by_n: Vec<usize> = Vec::new();
    let mut command: Option<Command> = None;
    for (at, line) in text.lines().enumerate() {
        let r: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{path}:{}: {e}", at + 1));
        let n = r["n"].as_u64().map(|n| n as usize);
        if let Some(send) = r.get("send") {
            let n = n.unwrap();
            if by_n.len() <= n {
                by_n.resize(n + 1, usize::MAX);
            }
            by_n[n] = exchanges.len();
            exchanges.push(Exchange { send: send.clone(), failed: None, status: 0, headers: Vec::new(), pieces: Vec::new(), used: false });
            sends += 1;
        } else if let Some(status) = r.get("status") {
            let e = &mut exchanges[by_n[n.unwrap()]];
            e.status = status.as_u64().unwrap() as u16;
            e.headers = serde_json::from_value(r["headers"].clone()).unwrap();
        } else if let Some(failed) = r.get("failed") {
            exchanges[by_n[n.unwrap()]].failed = Some(failed.as_str().unwrap().to_owned());
        } else if let Some(chunk) = r.get("chunk") {
            exchanges[by_n[n.unwrap()]].pieces.push(Piece { at, after_sends: sends, what: What::Chunk(chunk.as_str().unwrap().to_owned()) });
        } else if r.get("end").is_some() {
            exchanges[by_n[n.unwrap()]].pieces.push(Piece { at, after_sends: sends, what: What::End });
        } else if let Some(e) = r.get("error") {
            exchanges[by_n[n.unwrap()]].pieces.push(Piece { at, after_sends: sends, what: What::Error(e.as_str().unwrap().to_owned()) });
        } else if let Some(c) = r.get("command") {
            command = Some(Command { line: c.as_str().unwrap().to_owned(), at, stopped: None, result: Value::Null });
        } else if r.get("aborted").is_some() {
            command.as_mut().unwrap().stopped = Some((at, sends));
        } else if let Some(result) = r.get("result") {
            commands.push(Command { result: result.clone(), ..command.take().unwrap() });
        }
    }
    Cassette { exchanges, commands }
}

/// The body with the client's version and declared extensions left out (a
/// new version of the client sends the same exchanges; none of the
/// recorded servers offers an extension, so declaring one changes nothing
/// they answer).
fn comparable(body: Option<&str>) -> Value {
    let Some(mut v) = body.and_then(|b| serde_json::from_str::<Value>(b).ok()) else { return Value::Null };
    for p in ["/params/clientInfo/version", "/params/_meta/io.modelcontextprotocol~1clientInfo/version"] {
        if let Some(x) = v.pointer_mut(p) {
            *x = json!("*");
        }
    }
    for p in ["/params/capabilities", "/params/_meta/io.modelcontextprotocol~1clientCapabilities"] {
        if let Some(Value::Object(caps)) = v.pointer_mut(p) {
            caps.remove("extensions");
        }
    }
    v
}

fn same(recorded: &Value, r: &Request) -> bool {
    let headers: Vec<(String, String)> = serde_json::from_value(recorded["headers"].clone()).unwrap_or_default();
    let sorted = |mut h: Vec<(String, String)>| {
        h.iter_mut().for_each(|(k, _)| k.make_ascii_lowercase());
        h.sort();
        h
    };
    recorded["method"] == r.method.as_str()
        && recorded["url"] == r.url.as_str()
        && sorted(headers) == sorted(r.headers.clone())
        && comparable(recorded["body"].as_str()) == comparable(r.body.as_deref())
}

/// What the replay has come to, shared by the client and the bodies.
#[derive(Default)]
struct Progressing {
    sends: Cell<usize>,
    /// The current command's stop: where the recording stopped it, the
    /// requests sent before that, and its [`Abort`].
    stop: RefCell<Option<(usize, usize, Abort)>>,
    /// The bodies being read, waiting for their next piece: where it is. (A
    /// body nobody waits on, such as the legacy transport's stream between
    /// requests, holds nothing up.)
    reading: RefCell<std::collections::BTreeMap<u64, usize>>,
    bodies: Cell<u64>,
    wakers: RefCell<Vec<Waker>>,
}

impl Progressing {
    fn changed(&self) {
        for w in self.wakers.borrow_mut().drain(..) {
            w.wake();
        }
    }

    /// Stops the current command where the recording did: once every
    /// request sent before the stop has been sent here too, and every
    /// piece before it given.
    fn stop_if_due(&self, next: Option<usize>) -> bool {
        let due = matches!(&*self.stop.borrow(), Some((stop_at, sends, _))
            if self.sends.get() >= *sends && self.reading.borrow().values().chain(next.as_ref()).all(|next| next > stop_at));
        if due {
            if let Some((at, _, abort)) = self.stop.borrow_mut().take() {
                eprintln!("  stopped: line {}", at + 1);
                abort.abort();
            }
            self.changed();
        }
        due
    }
}

struct Replay {
    cassette: RefCell<Cassette>,
    state: Rc<Progressing>,
    /// Requests that were not in the recording.
    unrecorded: RefCell<Vec<Request>>,
}

struct ReplayBody {
    id: u64,
    pieces: std::collections::VecDeque<Piece>,
    state: Rc<Progressing>,
    abort: Abort,
}

struct Next<'a>(&'a mut ReplayBody);

impl Future for Next<'_> {
    type Output = Result<Option<Vec<u8>>, HttpError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let body = &mut self.get_mut().0;
        // (Back in the list below if it waits again.)
        body.state.reading.borrow_mut().remove(&body.id);
        body.state.stop_if_due(body.pieces.front().map(|p| p.at));
        match body.pieces.front() {
            Some(p) => {
                if body.abort.is_aborted() {
                    return Poll::Ready(Err(HttpError::Aborted));
                }
                // Every request before it sent, and every piece before it
                // (of a body still read) given.
                let earlier = body.state.reading.borrow().iter().any(|(id, at)| *id != body.id && *at < p.at);
                if body.state.sends.get() >= p.after_sends && !earlier {
                    let p = body.pieces.pop_front().unwrap();
                    // (Shown when a test fails.)
                    eprintln!("  given: line {}", p.at + 1);
                    body.state.changed();
                    return Poll::Ready(match p.what {
                        What::Chunk(c) => Ok(Some(c.into_bytes())),
                        What::End => Ok(None),
                        What::Error(e) => Err(HttpError::Network(e)),
                    });
                }
            }
            // Cut off by the recording's end: open until stopped.
            None if body.abort.is_aborted() => return Poll::Ready(Err(HttpError::Aborted)),
            None => {}
        }
        eprintln!("  waiting: {:?} sends {}", body.pieces.front().map(|p| (p.at + 1, p.after_sends)), body.state.sends.get());
        body.state.reading.borrow_mut().insert(body.id, body.pieces.front().map_or(usize::MAX, |p| p.at));
        body.state.wakers.borrow_mut().push(cx.waker().clone());
        Poll::Pending
    }
}

impl ReplayBody {
    fn new(pieces: Vec<Piece>, state: Rc<Progressing>, abort: Abort) -> Self {
        let id = state.bodies.get();
        state.bodies.set(id + 1);
        ReplayBody { id, pieces: pieces.into(), state, abort }
    }
}

impl Drop for ReplayBody {
    fn drop(&mut self) {
        self.state.reading.borrow_mut().remove(&self.id);
        self.state.changed();
    }
}

impl Body for ReplayBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, HttpError> {
        Next(self).await
    }
}

impl Replay {
    fn new(cassette: Cassette) -> Self {
        Replay { cassette: RefCell::new(cassette), state: Rc::default(), unrecorded: RefCell::default() }
    }
}

impl HttpClient for Replay {
    type Body = ReplayBody;

    async fn send(&self, request: Request, abort: &Abort) -> Result<Response<ReplayBody>, HttpError> {
        let found = {
            let mut cassette = self.cassette.borrow_mut();
            cassette.exchanges.iter_mut().find(|e| !e.used && same(&e.send, &request)).map(|e| {
                e.used = true;
                (e.failed.clone(), e.status, e.headers.clone(), e.pieces.clone())
            })
        };
        let body = |pieces: Vec<Piece>| ReplayBody::new(pieces, self.state.clone(), abort.clone());
        eprintln!("sent: {} {} -> {}", request.method.as_str(), request.body.as_deref().unwrap_or("").chars().take(80).collect::<String>(), if found.is_some() { "recorded" } else { "NOT RECORDED" });
        let response = match found {
            Some((Some(failed), ..)) => Err(HttpError::Network(failed)),
            Some((None, status, headers, pieces)) => Ok(Response { status, headers, body: body(pieces) }),
            // A stream opened again more often than in the recording: it
            // stays open, silent.
            None if request.method.as_str() == "GET" => Ok(Response { status: 200, headers: vec![("content-type".into(), "text/event-stream".into())], body: body(Vec::new()) }),
            None => {
                self.unrecorded.borrow_mut().push(request);
                Err(HttpError::Network("not in the recording".into()))
            }
        };
        self.state.sends.set(self.state.sends.get() + 1);
        self.state.changed();
        response
    }
}

/// Waits are not waited; the clock stands still (so what the server said
/// may be kept is kept, as it was while recording).
struct Host;

impl ClientHost for Host {
    fn sleep(&self, _ms: u64) -> LocalBoxFuture<'static, ()> {
        Box::pin(async {})
    }

    fn now_ms(&self) -> Option<u64> {
        Some(1_800_000_000_000)
    }
}

/// Answers questions with the defaults offered, as the recording did
/// (`--accept-defaults`), and counts progress.
#[derive(Default)]
struct Watcher {
    progress: Cell<usize>,
    questions: RefCell<Vec<String>>,
}

impl CallHost for Watcher {
    fn progress(&self, _p: Progress) {
        self.progress.set(self.progress.get() + 1);
    }

    fn elicit(&self, request: Elicitation) -> LocalBoxFuture<'_, ElicitAnswer> {
        self.questions.borrow_mut().push(request.message().to_owned());
        let answer = match request {
            Elicitation::Form { schema, .. } => ElicitAnswer::Accept { content: Value::Object(elicit::with_defaults(&elicit::fields(&schema), Default::default())) },
            _ => ElicitAnswer::Decline,
        };
        Box::pin(async move { answer })
    }
}

/// Runs one recorded command as the CLI does.
async fn run(client: &McpClient<Replay>, line: &str, watcher: &Watcher, stop: &Abort) -> Value {
    let line = line.split_once(' ').filter(|(w, _)| *w == "abort").map_or(line, |(_, rest)| rest.split_once(' ').map_or(rest, |(_, c)| c));
    let words: Vec<&str> = line.splitn(3, ' ').collect();
    let out = match words.as_slice() {
        ["tools"] => client.list_tools(stop).await.map(Value::Array),
        ["resources"] => client.list_resources(stop).await.map(Value::Array),
        ["request", method, params] => client.request(method, serde_json::from_str(params).unwrap(), stop).await,
        ["call", tool, arguments] => match client.list_tools(stop).await {
            Ok(listed) => {
                let schema = listed.iter().find(|t| t["name"] == *tool).map(|t| t["inputSchema"].clone()).unwrap_or(Value::Null);
                client.call_tool_for(tool, &schema, serde_json::from_str(arguments).unwrap(), stop, watcher).await
            }
            Err(e) => Err(e),
        },
        _ => panic!("not a command: {line}"),
    };
    out.unwrap_or_else(|e| json!({"error": e.to_string()}))
}

struct Replayed {
    /// The requests sent, in order.
    sent: Vec<Value>,
    progress: usize,
    questions: Vec<String>,
}

/// Replays cassette `name` against `url`; panics where the client does
/// anything the recording did not show, or waits for what never comes.
fn replay(name: &'static str, url: &'static str) -> Replayed {
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(replay_here(name, url));
    });
    match rx.recv_timeout(std::time::Duration::from_secs(30)) {
        Ok(r) => r,
        // The worker panicked: its message is the failure.
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => std::panic::resume_unwind(worker.join().err().unwrap_or_else(|| Box::new("no result"))),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{name}: the replay is stuck, waiting for something the recording does not give"),
    }
}

fn replay_here(name: &str, url: &str) -> Replayed {
    let cassette = load(name);
    let commands = cassette.commands.clone();
    assert!(!commands.is_empty(), "{name}: no commands");
    let replay = Replay::new(cassette);
    let state = replay.state.clone();
    let client = McpClient::new(replay, ServerConfig { name: "cli".into(), url: url.into(), headers: Vec::new() }).with_host(Rc::new(Host));
    let watcher = Watcher::default();
    pollster::block_on(async {
        client.connect(&Abort::new()).await.unwrap_or_else(|e| panic!("{name}: connect: {e}"));
        let script = pin!(async {
            for Command { line, at, stopped, result } in &commands {
                // What came before the command in the recording comes
                // before it here.
                std::future::poll_fn(|cx| {
                    if state.reading.borrow().values().all(|next| next > at) {
                        Poll::Ready(())
                    } else {
                        state.wakers.borrow_mut().push(cx.waker().clone());
                        Poll::Pending
                    }
                })
                .await;
                let stop = Abort::new();
                if let Some((at, sends)) = stopped {
                    *state.stop.borrow_mut() = Some((*at, *sends, stop.clone()));
                }
                let got = run(&client, line, &watcher, &stop).await;
                assert_eq!(&got, result, "{name}: `{line}` returned something else than against the real server");
                assert!(state.stop.borrow().is_none(), "{name}: `{line}` was stopped in the recording, not here");
            }
        });
        // As in the CLI: the session's stream open all along.
        let listener = Abort::new();
        match select(pin!(client.listen(&listener)), script).await {
            Either::Right(((), _)) => {}
            Either::Left((listened, script)) => {
                eprintln!("listen ended: {listened:?}");
                script.await
            }
        }
        listener.abort();
        client.close().await;
    });
    let replay = client.http();
    let unrecorded: Vec<String> = replay.unrecorded.borrow().iter().map(|r| format!("{} {}", r.method.as_str(), r.body.as_deref().unwrap_or(""))).collect();
    assert!(unrecorded.is_empty(), "{name}: sent what the real server never got: {unrecorded:#?}");
    let cassette = replay.cassette.borrow();
    let missing: Vec<&Value> = cassette.exchanges.iter().filter(|e| !e.used && e.send["method"] != "GET").map(|e| &e.send).collect();
    assert!(missing.is_empty(), "{name}: did not send what the real server got: {missing:#?}");
    let sent = cassette.exchanges.iter().filter(|e| e.used).map(|e| e.send.clone()).collect();
    Replayed { sent, progress: watcher.progress.get(), questions: watcher.questions.borrow().clone() }
}

/// The JSON-RPC methods of the requests, in the order of the recording.
fn methods(r: &Replayed) -> Vec<String> {
    r.sent.iter().map(|s| comparable(s["body"].as_str())["method"].as_str().map_or_else(|| s["method"].as_str().unwrap_or("").to_owned(), str::to_owned)).collect()
}

fn header<'a>(send: &'a Value, name: &str) -> Option<&'a str> {
    send["headers"].as_array()?.iter().find(|h| h[0].as_str().is_some_and(|k| k.eq_ignore_ascii_case(name)))?[1].as_str()
}

/// Checks what every session revision shares: the session id on every
/// request after `initialize`, the revision in its header, a cancelled call
/// announced, and the expired session renewed (the recording restarted
/// the server before the last command).
fn sessions(r: &Replayed, version: &str) {
    let m = methods(r);
    assert_eq!(m[0], "server/discover", "the first question is whether it speaks 2026-07-28");
    assert_eq!(m[1], "initialize");
    let inits: Vec<usize> = m.iter().enumerate().filter(|(_, x)| *x == "initialize").map(|(i, _)| i).collect();
    assert_eq!(inits.len(), 2, "one session, then one more after the restart: {m:?}");
    for s in &r.sent[inits[0] + 1..] {
        if comparable(s["body"].as_str())["method"] != "initialize" {
            assert!(header(s, "Mcp-Session-Id").is_some(), "{s}");
            assert_eq!(header(s, "MCP-Protocol-Version"), Some(version), "{s}");
        }
    }
    let cancel = r.sent.iter().map(|s| comparable(s["body"].as_str())).find(|b| b["method"] == "notifications/cancelled").expect("the stopped call is cancelled");
    assert!(cancel["params"]["requestId"].is_u64());
    // After the restart: the old session is refused, a new one starts, and
    // the call goes through on it.
    let renewed = &r.sent[inits[1]];
    assert_eq!(header(renewed, "Mcp-Session-Id"), None);
    assert_eq!(m.last().map(String::as_str), Some("DELETE"), "the session is ended on close");
    assert!(r.progress >= 3, "progress reached the call: {}", r.progress);
}

#[test]
fn python_sdk_1_9_sessions_of_2025_03_26() {
    let r = replay("py-2025-03-26", "http://127.0.0.1:8631/mcp/");
    sessions(&r, "2025-03-26");
}

#[test]
fn python_sdk_1_12_sessions_of_2025_06_18_with_a_question_mid_call() {
    let r = replay("py-2025-06-18", "http://127.0.0.1:8631/mcp");
    sessions(&r, "2025-06-18");
    assert_eq!(r.questions, ["What is your favourite colour?"]);
}

#[test]
fn python_sdk_1_12_stateless_json_of_2025_06_18() {
    let r = replay("py-2025-06-18-stateless-json", "http://127.0.0.1:8631/mcp");
    let m = methods(&r);
    assert_eq!(m[..3], ["server/discover", "initialize", "notifications/initialized"]);
    assert!(r.sent.iter().all(|s| header(s, "Mcp-Session-Id").is_none()), "no session");
}

#[test]
fn python_sdk_2_3_stateless_2026_07_28() {
    let r = replay("py-2026-07-28", "http://127.0.0.1:8631/mcp");
    let m = methods(&r);
    assert!(!m.contains(&"initialize".to_owned()), "2026-07-28 needs no initialize: {m:?}");
    // The marked argument travels as a header too.
    let whoami = r.sent.iter().find(|s| comparable(s["body"].as_str())["params"]["name"] == "whoami").unwrap();
    assert_eq!(header(whoami, "Mcp-Param-Tenant"), Some("acme"));
    assert_eq!(header(whoami, "Mcp-Name"), Some("whoami"));
    // input_required: asked, answered, and the call sent again with the
    // answer and the server's state.
    assert_eq!(r.questions, ["What is your favourite colour?"]);
    let favourite: Vec<Value> = r.sent.iter().map(|s| comparable(s["body"].as_str())).filter(|b| b["params"]["name"] == "favourite").collect();
    assert_eq!(favourite.len(), 2);
    assert!(favourite[1]["params"]["inputResponses"].is_object());
    assert!(favourite[1]["params"]["requestState"].is_string());
    // tools/list came with a ttlMs of a minute: asked once per change of
    // the list (the start, then after `grow` announced one).
    assert_eq!(m.iter().filter(|x| *x == "tools/list").count(), 2, "{m:?}");
    assert!(r.progress >= 3);
}

#[test]
fn reference_server_sessions_of_2025_11_25() {
    let r = replay("everything-2025-11-25", "http://127.0.0.1:8631/mcp");
    sessions(&r, "2025-11-25");
}

#[test]
fn reference_server_over_the_legacy_sse_transport() {
    let r = replay("everything-2024-11-05", "http://127.0.0.1:8631/sse");
    let m = methods(&r);
    assert!(m.contains(&"GET".to_owned()), "the legacy transport's stream: {m:?}");
    // The stream names where to post: every message goes there.
    let posts: Vec<&str> = r.sent.iter().filter(|s| s["method"] == "POST" && comparable(s["body"].as_str())["method"] != "server/discover").map(|s| s["url"].as_str().unwrap()).collect();
    assert!(posts.iter().filter(|u| u.contains("/message?sessionId=")).count() >= 4, "{posts:?}");
}
