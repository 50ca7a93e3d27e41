//! The client against recorded answers of a real server (npm
//! `server-everything`, see `fixtures/README.md`) and the variations other
//! servers produce (JSON answers, pages, expired sessions, server requests
//! on the stream, errors).

use std::cell::RefCell;
use std::rc::Rc;

use air_http::fake::{Script, ScriptedHttp, Step};
use air_http::{Abort, Request};
use air_mcp::tool::{McpTool, callable, checked_output, def_from, output_from};
use air_mcp::{ClientHost, Connection, McpClient, McpError, Notice, ServerConfig, elicit};
use air_tools::{CallContext, CallHost, Content, ElicitAnswer, Elicitation, Progress, Tool, ToolSource, Unattended};
use futures_util::future::LocalBoxFuture;
use serde_json::{Value, json};

const SESSION: &str = "c4d8f111-9175-4f55-be8d-57a4f68e4518";

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A recorded SSE answer, delivered in pieces of 7 bytes.
fn recorded(name: &str, session: bool) -> Script {
    let body = fixture(name);
    let steps = body.as_bytes().chunks(7).map(|c| Step::Chunk(c.to_vec())).collect();
    let mut headers = vec![("content-type".to_owned(), "text/event-stream".to_owned())];
    if session {
        headers.push(("mcp-session-id".to_owned(), SESSION.to_owned()));
    }
    Script::Respond { status: 200, headers, steps }
}

fn accepted() -> Script {
    Script::Respond { status: 202, headers: Vec::new(), steps: Vec::new() }
}

fn json_answer(v: Value) -> Script {
    Script::status(200, &v.to_string())
}

fn config() -> ServerConfig {
    ServerConfig { name: "everything".into(), url: "http://127.0.0.1:3001/mcp".into(), headers: vec![("X-Api-Key".into(), "k1".into())] }
}

fn header<'a>(r: &'a Request, name: &str) -> Option<&'a str> {
    r.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

fn body(r: &Request) -> Value {
    serde_json::from_str(r.body.as_deref().unwrap_or("null")).unwrap()
}

/// A server of the revisions before 2026-07-28: it refuses the client's
/// first question, `server/discover`, as the reference server does
/// (recorded 2026-11-22).
fn older() -> ScriptedHttp {
    let http = ScriptedHttp::new();
    http.push(Script::status(400, r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}"#));
    http
}

fn run<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

#[test]
fn a_session_with_the_reference_server() {
    let http = older();
    http.push(recorded("everything-init.sse", true));
    http.push(accepted());
    http.push(recorded("everything-list.sse", true));
    http.push(recorded("everything-call.sse", true));
    let client = McpClient::new(http, config());
    let abort = Abort::new();
    let tools = run(client.list_tools(&abort)).unwrap();
    assert_eq!(tools.len(), 13);
    assert_eq!(tools[0]["name"], "echo");
    assert_eq!(client.session_id().as_deref(), Some(SESSION));
    assert_eq!(client.protocol_version().as_deref(), Some("2025-11-25"));
    assert_eq!(client.server_info().unwrap()["name"], "mcp-servers/everything");

    // The call's id is the one the recorded answer carries (3).
    let result = run(client.call_tool("echo", json!({"message": "hi"}), &abort)).unwrap();
    assert_eq!(output_from(&result).model_text(), "Echo: hi");

    // What was sent: initialize, initialized, tools/list, tools/call.
    let http_sent = client_requests(&client);
    let methods: Vec<String> = http_sent.iter().map(|r| body(r)["method"].as_str().unwrap_or_default().to_owned()).collect();
    assert_eq!(methods, ["server/discover", "initialize", "notifications/initialized", "tools/list", "tools/call"]);
    let init = body(&http_sent[1]);
    assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["params"]["clientInfo"]["name"], "air-agent");
    assert_eq!(header(&http_sent[1], "Mcp-Session-Id"), None);
    for r in &http_sent {
        assert_eq!(header(r, "Accept"), Some("application/json, text/event-stream"));
        assert_eq!(header(r, "X-Api-Key"), Some("k1"), "the server's own headers go with every request");
    }
    for r in &http_sent[2..] {
        assert_eq!(header(r, "Mcp-Session-Id"), Some(SESSION));
        assert_eq!(header(r, "MCP-Protocol-Version"), Some("2025-11-25"));
    }
    assert_eq!(body(&http_sent[2]).get("id"), None, "a notification has no id");
}

/// The scripted client inside the McpClient (tests only).
fn client_requests(client: &McpClient<ScriptedHttp>) -> Vec<Request> {
    client.http().requests()
}

#[test]
fn json_answers_pages_and_an_expired_session() {
    let http = older();
    // Python's SDK in JSON mode: plain application/json answers.
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "py"}}})).with_header("Mcp-Session-Id", "s1"));
    http.push(accepted());
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "a"}], "nextCursor": "p2"}})));
    // The session is gone: 404. The client starts a new one and asks again.
    http.push(Script::status(404, ""));
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 4, "result": {"protocolVersion": "2025-06-18", "capabilities": {}}})).with_header("Mcp-Session-Id", "s2"));
    http.push(accepted());
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 5, "result": {"tools": [{"name": "b"}]}})));
    let client = McpClient::new(http, config());
    let tools = run(client.list_tools(&Abort::new())).unwrap();
    assert_eq!(tools.iter().map(|t| t["name"].as_str().unwrap()).collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(client.session_id().as_deref(), Some("s2"));
    let sent = client.http().requests();
    assert_eq!(body(&sent[4])["params"]["cursor"], "p2");
    assert_eq!(header(&sent[4], "Mcp-Session-Id"), Some("s1"));
    assert_eq!(body(&sent[5])["method"], "initialize");
    assert_eq!(header(&sent[5], "Mcp-Session-Id"), None, "a new session starts without the old id");
    assert_eq!(body(&sent[7])["params"]["cursor"], "p2", "the same page is asked again");
    assert_eq!(header(&sent[7], "MCP-Protocol-Version"), Some("2025-06-18"));
}

#[test]
fn the_reference_servers_400_for_an_unknown_session_also_renews_it() {
    let http = older();
    http.push(recorded("everything-init.sse", true));
    http.push(accepted());
    http.push(Script::status(400, r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}"#));
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 3, "result": {"protocolVersion": "2025-11-25", "capabilities": {}}})).with_header("Mcp-Session-Id", "new"));
    http.push(accepted());
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 4, "result": {"content": [{"type": "text", "text": "ok"}]}})));
    let client = McpClient::new(http, config());
    let r = run(client.call_tool("echo", json!({"message": "x"}), &Abort::new())).unwrap();
    assert_eq!(output_from(&r).model_text(), "ok");
    let sent = client.http().requests();
    assert_eq!(header(&sent[6], "Mcp-Session-Id"), Some("new"));
    assert_eq!(body(&sent[6])["method"], "tools/call");
}

#[test]
fn server_requests_on_the_stream_are_answered() {
    let http = older();
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {}}})));
    http.push(accepted());
    let stream = [
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1, "total": 2}}),
        json!({"jsonrpc": "2.0", "id": "s-1", "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": "s-2", "method": "sampling/createMessage", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "done"}]}}),
    ];
    http.push(Script::sse(stream.iter().map(Value::to_string)));
    // The answers to the two server requests.
    http.push(accepted());
    http.push(accepted());
    let client = McpClient::new(http, config());
    let r = run(client.call_tool("long", json!({}), &Abort::new())).unwrap();
    assert_eq!(output_from(&r).model_text(), "done");
    let sent = client.http().requests();
    assert_eq!(body(&sent[4]), json!({"jsonrpc": "2.0", "id": "s-1", "result": {}}));
    assert_eq!(body(&sent[5])["error"]["code"], -32601);
    assert_eq!(body(&sent[5])["id"], "s-2");
}

#[test]
fn errors_say_what_happened() {
    let http = older();
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "1999-01-01", "capabilities": {}}})));
    let client = McpClient::new(http, config());
    assert_eq!(run(client.list_tools(&Abort::new())), Err(McpError::UnsupportedVersion("1999-01-01".into())));

    let http = older();
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {}}})));
    http.push(accepted());
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Unknown tool: nope"}})));
    let client = McpClient::new(http, config());
    let e = run(client.call_tool("nope", json!({}), &Abort::new())).unwrap_err();
    assert_eq!(e, McpError::Rpc { code: -32602, message: "Unknown tool: nope".into() });
    assert_eq!(e.to_string(), "the MCP server reported an error (-32602): Unknown tool: nope");

    let http = older();
    http.push(Script::Fail(air_http::HttpError::Network("Failed to fetch".into())));
    let client = McpClient::new(http, config());
    let e = run(client.list_tools(&Abort::new())).unwrap_err();
    assert!(e.to_string().contains("no CORS for this page"), "{e}");

    let http = older();
    http.push(Script::status(401, "Unauthorized"));
    let client = McpClient::new(http, config());
    assert_eq!(run(client.list_tools(&Abort::new())), Err(McpError::Http { status: 401, body: "Unauthorized".into() }));

    // A stream that ends before the answer.
    let http = older();
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {}}})));
    http.push(accepted());
    http.push(Script::sse(["{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}"]));
    let client = McpClient::new(http, config());
    assert!(matches!(run(client.list_tools(&Abort::new())), Err(McpError::Protocol(_))));
}

#[test]
fn closing_deletes_the_session() {
    let http = older();
    http.push(recorded("everything-init.sse", true));
    http.push(accepted());
    http.push(Script::status(200, ""));
    let client = McpClient::new(http, config());
    run(client.connect(&Abort::new())).unwrap();
    run(client.close());
    let sent = client.http().requests();
    assert_eq!(sent[3].method, "DELETE");
    assert_eq!(header(&sent[3], "Mcp-Session-Id"), Some(SESSION));
    assert_eq!(header(&sent[3], "MCP-Protocol-Version"), Some("2025-11-25"), "as on every request after initialization");
    assert_eq!(client.session_id(), None);
}

#[test]
fn a_listen_given_up_half_way_does_not_keep_the_next_one_from_opening() {
    let http = older();
    http.push(recorded("everything-init.sse", true));
    http.push(accepted());
    let open = || Script::Respond { status: 200, headers: vec![("content-type".into(), "text/event-stream".into())], steps: vec![Step::Hang] };
    http.push(open());
    http.push(open());
    let client = McpClient::new(http, config());
    run(client.connect(&Abort::new())).unwrap();
    // The stream opens, then its reader is dropped (the page navigates
    // away from a chat, a command ends) without aborting it.
    for _ in 0..2 {
        let abort = Abort::new();
        let stayed_open = matches!(run(futures_util::future::select(Box::pin(client.listen(&abort)), std::future::ready(()))), futures_util::future::Either::Right(_));
        assert!(stayed_open);
    }
    let gets = client.http().requests().iter().filter(|r| r.method == "GET").count();
    assert_eq!(gets, 2, "each listen opens the stream");
}

#[test]
fn tools_become_registry_entries() {
    let list: Value = serde_json::from_str(
        fixture("everything-list.sse").lines().find_map(|l| l.strip_prefix("data: {")).map(|rest| format!("{{{rest}")).as_deref().unwrap(),
    )
    .unwrap();
    let echo = &list["result"]["tools"][0];
    let def = def_from("everything", "mcp_everything_echo".into(), echo).unwrap();
    assert_eq!(def.name, "mcp_everything_echo");
    assert_eq!(def.description, "Echoes back the input string");
    assert_eq!(def.source, ToolSource::Mcp { server: "everything".into() });
    assert_eq!(def.annotations.read_only_hint, Some(true));
    assert_eq!(def.input_schema["required"], json!(["message"]));
    assert!(def_from("s", "x".into(), &json!({"description": "no name"})).is_none());
    assert!(callable(echo));
    assert!(!callable(&json!({"name": "research", "execution": {"taskSupport": "required"}})));
    assert!(callable(&json!({"name": "maybe", "execution": {"taskSupport": "optional"}})));

    let out = output_from(&json!({"content": [
        {"type": "text", "text": "a"},
        {"type": "image", "data": "iVBOR", "mimeType": "image/png"},
        {"type": "resource_link", "uri": "https://example.com/r", "name": "r"},
        {"type": "resource", "resource": {"uri": "test://1", "text": "embedded"}},
        {"type": "audio", "data": "x", "mimeType": "audio/wav"}
    ], "isError": true}));
    assert!(out.is_error);
    assert_eq!(out.content[1], Content::Image { mime: "image/png".into(), data: "iVBOR".into() });
    assert_eq!(out.model_text(), "a\n[image: image/png]\n[r](https://example.com/r)\nembedded\n[audio: audio/wav]");
    assert_eq!(output_from(&json!({"structuredContent": {"sum": 3}})).model_text(), r#"{"sum":3}"#);

    // Structured results are checked against the output schema.
    let schema = json!({"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]});
    let good = json!({"content": [{"type": "text", "text": "3"}], "structuredContent": {"sum": 3}});
    assert!(!checked_output(&good, Some(&schema)).is_error);
    let bad = json!({"content": [{"type": "text", "text": "?"}], "structuredContent": {"sum": "three"}});
    let out = checked_output(&bad, Some(&schema));
    assert!(out.is_error);
    assert!(out.model_text().contains("does not match the tool's output schema"), "{}", out.model_text());
    assert!(!checked_output(&bad, None).is_error);

    // Called through the registry's interface.
    let http = older();
    http.push(recorded("everything-init.sse", true));
    http.push(accepted());
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "Echo: yo"}]}})));
    let client = Rc::new(McpClient::new(http, config()));
    let tool = McpTool::new(def, "echo", client.clone());
    let abort = Abort::new();
    assert_eq!(run(tool.call(json!({"message": "yo"}), CallContext { abort: &abort, host: &Unattended })).model_text(), "Echo: yo");
    assert_eq!(body(&client.http().requests()[3])["params"], json!({"name": "echo", "arguments": {"message": "yo"}, "_meta": {"progressToken": 2}}));
}

/// Watches a call: keeps its progress, answers its questions by accepting
/// the form's defaults.
#[derive(Default)]
struct Watcher {
    progress: RefCell<Vec<Progress>>,
    asked: RefCell<Vec<Elicitation>>,
}

impl CallHost for Watcher {
    fn progress(&self, progress: Progress) {
        self.progress.borrow_mut().push(progress);
    }
    fn elicit(&self, request: Elicitation) -> LocalBoxFuture<'_, ElicitAnswer> {
        self.asked.borrow_mut().push(request.clone());
        Box::pin(async move {
            match request {
                Elicitation::Form { schema, .. } => {
                    ElicitAnswer::Accept { content: Value::Object(elicit::with_defaults(&elicit::fields(&schema), Default::default())) }
                }
                Elicitation::Url { .. } => ElicitAnswer::Decline,
            }
        })
    }
}

/// A timer that does not wait but remembers, and a notice board.
#[derive(Default, Clone)]
struct Host {
    slept: Rc<RefCell<Vec<u64>>>,
    notices: Rc<RefCell<Vec<Notice>>>,
    states: Rc<RefCell<Vec<Connection>>>,
    now: Rc<std::cell::Cell<u64>>,
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

#[test]
fn the_connection_state_is_reported_through_a_restart_and_a_failure() {
    let http = older();
    initialized(&http);
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}})));
    // The server restarted: it does not know the session.
    http.push(Script::status(404, ""));
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 4, "result": {"protocolVersion": "2025-06-18", "capabilities": {}}})).with_header("Mcp-Session-Id", "s2"));
    http.push(accepted());
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 5, "result": {"tools": []}})));
    // Then it went away.
    http.push(Script::Fail(air_http::HttpError::Network("connection refused".into())));
    let host = Host::default();
    let client = McpClient::new(http, config()).with_host(Rc::new(host.clone()));
    let abort = Abort::new();
    run(client.list_tools(&abort)).unwrap();
    run(client.list_tools(&abort)).unwrap();
    assert!(run(client.list_tools(&abort)).is_err());
    let failed = "the MCP server could not be reached (down, wrong address, or no CORS for this page): connection refused".to_owned();
    assert_eq!(
        *host.states.borrow(),
        [
            Connection::Connecting,
            Connection::Connected { version: "2025-11-25".into() },
            Connection::Reconnecting,
            Connection::Connected { version: "2025-06-18".into() },
            Connection::Failed { reason: failed },
        ]
    );
}

fn initialized(http: &ScriptedHttp) {
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": true}}}})).with_header("Mcp-Session-Id", "s1"));
    http.push(accepted());
}

fn raw_sse(text: &str) -> Script {
    Script::Respond { status: 200, headers: vec![("content-type".into(), "text/event-stream".into())], steps: vec![Step::Chunk(text.as_bytes().to_vec())] }
}

#[test]
fn a_call_reports_progress_asks_the_user_and_hears_list_changes() {
    let http = older();
    initialized(&http);
    let stream = [
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 2, "progress": 1, "total": 4, "message": "step 1"}}),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 77, "progress": 3}}),
        json!({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": {"message": "Defaults?", "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"}, "age": {"type": "integer", "default": 30}, "verified": {"type": "boolean", "default": true}}}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hello"}}),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "done"}]}}),
    ];
    http.push(Script::sse(stream.iter().map(Value::to_string)));
    http.push(accepted());
    let host = Host::default();
    let client = McpClient::new(http, config()).with_host(Rc::new(host.clone()));
    let watcher = Watcher::default();
    let r = run(client.call_tool_with("long", json!({}), &Abort::new(), &watcher)).unwrap();
    assert_eq!(output_from(&r).model_text(), "done");
    assert_eq!(*watcher.progress.borrow(), [Progress { progress: 1.0, total: Some(4.0), message: Some("step 1".into()) }], "progress of other requests is not ours");
    assert_eq!(watcher.asked.borrow()[0].message(), "Defaults?");
    let sent = client.http().requests();
    assert_eq!(
        body(&sent[1])["params"]["capabilities"],
        json!({"elicitation": {"form": {}, "url": {}}, "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
    );
    assert_eq!(body(&sent[3])["params"]["_meta"]["progressToken"], 2);
    assert_eq!(body(&sent[4]), json!({"jsonrpc": "2.0", "id": 0, "result": {"action": "accept", "content": {"name": "John Doe", "age": 30, "verified": true}}}));
    assert_eq!(*host.notices.borrow(), [Notice::ToolsChanged, Notice::Log { level: "info".into(), logger: None, data: json!("hello") }]);
    assert!(client.pending().is_empty());
}

#[test]
fn a_stream_closed_before_the_answer_is_resumed_after_the_retry_delay() {
    let http = older();
    initialized(&http);
    // The conformance suite's sse-retry server: a priming event with an id
    // and `retry: 500`, then the stream closes.
    http.push(raw_sse("id: event-1\nretry: 500\ndata: \n\n"));
    http.push(raw_sse(&format!("id: event-2\ndata: \n\nid: event-3\ndata: {}\n\n", json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "back"}]}}))));
    let host = Host::default();
    let client = McpClient::new(http, config()).with_host(Rc::new(host.clone()));
    let r = run(client.call_tool("test_reconnection", json!({}), &Abort::new())).unwrap();
    assert_eq!(output_from(&r).model_text(), "back");
    assert_eq!(*host.slept.borrow(), [500]);
    let sent = client.http().requests();
    assert_eq!(sent[4].method, "GET");
    assert_eq!(header(&sent[4], "Last-Event-ID"), Some("event-1"));
    assert_eq!(header(&sent[4], "Mcp-Session-Id"), Some("s1"));
    assert_eq!(header(&sent[4], "Accept"), Some("text/event-stream"));

    // A stream without event ids cannot be resumed; one that keeps
    // closing is given up.
    let http = older();
    initialized(&http);
    http.push(raw_sse("id: e\ndata: \n\n"));
    for _ in 0..6 {
        http.push(raw_sse("id: e\ndata: \n\n"));
    }
    let client = McpClient::new(http, config());
    let e = run(client.call_tool("x", json!({}), &Abort::new())).unwrap_err();
    assert!(e.to_string().contains("kept closing"), "{e}");
}

#[test]
fn a_stopped_or_timed_out_call_is_cancelled_on_the_server() {
    let http = older();
    initialized(&http);
    http.push(raw_sse("id: 1\ndata: \n\n").then(Step::Abort).then(Step::Hang));
    http.push(accepted());
    let client = McpClient::new(http, config());
    assert_eq!(run(client.call_tool("slow", json!({}), &Abort::new())), Err(McpError::Aborted));
    let sent = client.http().requests();
    assert_eq!(body(&sent[4]), json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "stopped by the user"}}));

    let http = older();
    initialized(&http);
    http.push(raw_sse("id: 1\ndata: \n\n").then(Step::Hang));
    http.push(accepted());
    let client = McpClient::new(http, config()).with_timeouts(Some(60_000), None);
    let e = run(client.call_tool("slow", json!({}), &Abort::new())).unwrap_err();
    assert_eq!(e, McpError::Timeout { ms: 60_000 });
    assert_eq!(e.to_string(), "the MCP server did not answer within 60 s");
    assert_eq!(body(&client.http().requests()[4])["params"]["reason"], "timed out");
}

#[test]
fn a_server_of_the_legacy_http_sse_transport_is_spoken_to_over_its_event_stream() {
    // As the reference server answers in `sse` mode (recorded 2026-11-22):
    // POST to the stream's URL is 404; the GET stream names the endpoint.
    let http = older();
    http.push(Script::status(404, "<pre>Cannot POST /sse</pre>"));
    let stream = format!(
        "event: endpoint\ndata: /message?sessionId=f1fe\n\nevent: message\ndata: {}\n\nevent: message\ndata: {}\n\nevent: message\ndata: {}\n\n",
        json!({"jsonrpc": "2.0", "id": 2, "result": {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}}, "serverInfo": {"name": "legacy"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}}),
        json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "Echo: legacy hi"}]}}),
    );
    http.push(raw_sse(&stream).then(Step::Hang));
    http.push(Script::status(202, "Accepted"));
    http.push(Script::status(202, "Accepted"));
    http.push(Script::status(202, "Accepted"));
    let host = Host::default();
    let config = ServerConfig { name: "old".into(), url: "http://127.0.0.1:3918/sse".into(), headers: vec![] };
    let client = McpClient::new(http, config).with_host(Rc::new(host.clone()));
    let r = run(client.call_tool("echo", json!({"message": "legacy hi"}), &Abort::new())).unwrap();
    assert_eq!(output_from(&r).model_text(), "Echo: legacy hi");
    assert!(client.is_legacy());
    assert_eq!(client.protocol_version().as_deref(), Some("2024-11-05"));
    let sent = client.http().requests();
    let line: Vec<String> = sent.iter().map(|r| format!("{} {} {}", r.method, r.url, r.body.as_deref().map(|_| body(r)["method"].as_str().unwrap_or("").to_owned()).unwrap_or_default())).collect();
    assert_eq!(
        line,
        [
            "POST http://127.0.0.1:3918/sse server/discover",
            "POST http://127.0.0.1:3918/sse initialize",
            "GET http://127.0.0.1:3918/sse ",
            "POST http://127.0.0.1:3918/message?sessionId=f1fe initialize",
            "POST http://127.0.0.1:3918/message?sessionId=f1fe notifications/initialized",
            "POST http://127.0.0.1:3918/message?sessionId=f1fe tools/call",
        ]
    );
    assert_eq!(header(&sent[5], "MCP-Protocol-Version"), None, "2024-11-05 has no version header");
    assert_eq!(host.notices.borrow().len(), 1);
}

#[test]
fn tools_with_headers_that_cannot_be_sent_are_left_out_when_listed() {
    let http = older();
    initialized(&http);
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [
        {"name": "good", "inputSchema": {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}},
        {"name": "spaced", "inputSchema": {"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "Bad Name"}}}},
        {"name": "number", "inputSchema": {"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "N"}}}},
        {"name": "plain", "inputSchema": {"type": "object"}}
    ]}})));
    let host = Host::default();
    let client = McpClient::new(http, config()).with_host(Rc::new(host.clone()));
    let tools = run(client.list_tools(&Abort::new())).unwrap();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["good", "plain"]);
    let refused: Vec<String> = host.notices.borrow().iter().filter_map(|n| match n {
        Notice::ToolRefused { tool, .. } => Some(tool.clone()),
        _ => None,
    }).collect();
    assert_eq!(refused, ["spaced", "number"], "each named, with why");
}

#[test]
fn an_endless_message_is_not_held() {
    let http = older();
    initialized(&http);
    // 20 MB of one data line, in 1 MB chunks, and more after it.
    let steps = (0..20).map(|i| Step::Chunk(if i == 0 { b"data: ".iter().copied().chain(vec![b'x'; 1 << 20]).collect() } else { vec![b'x'; 1 << 20] })).collect();
    http.push(Script::Respond { status: 200, headers: vec![("content-type".into(), "text/event-stream".into())], steps });
    http.push(accepted());
    let client = McpClient::new(http, config());
    let e = run(client.call_tool("flood", json!({}), &Abort::new())).unwrap_err();
    assert!(matches!(&e, McpError::Protocol(m) if m.contains("over 16 MB")), "{e:?}");
}

#[test]
fn a_legacy_endpoint_on_another_origin_gets_nothing() {
    for named in ["https://collector.example/steal", "http://127.0.0.1:3919/message", "http://user@127.0.0.1:3918/message"] {
        let http = older();
        http.push(Script::status(404, "<pre>Cannot POST /sse</pre>"));
        http.push(raw_sse(&format!("event: endpoint\ndata: {named}\n\n")).then(Step::Hang));
        let config = ServerConfig { name: "old".into(), url: "http://127.0.0.1:3918/sse".into(), headers: vec![("Authorization".into(), "Bearer secret".into())] };
        let client = McpClient::new(http, config);
        let e = run(client.call_tool("echo", json!({}), &Abort::new())).unwrap_err();
        assert!(matches!(&e, McpError::Protocol(m) if m.contains("another origin")), "{named}: {e:?}");
        let sent = client.http().requests();
        assert!(sent.iter().all(|r| r.url.starts_with("http://127.0.0.1:3918/sse")), "{named}: {:?}", sent.iter().map(|r| &r.url).collect::<Vec<_>>());
    }
}

fn py_answer(name: &str) -> Script {
    Script::Respond { status: 200, headers: vec![("content-type".into(), "application/json".into())], steps: vec![Step::Chunk(fixture(name).into_bytes())] }
}

#[test]
fn a_2026_07_28_server_refusing_the_first_version_is_asked_again() {
    // As the conformance scenario `request-metadata` answers the first POST.
    let refused = || Script::status(400, &json!({"jsonrpc": "2.0", "id": 0, "error": {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2026-07-28"], "requested": "2026-07-28"}}}).to_string());
    let http = ScriptedHttp::new();
    http.push(refused());
    let discovered = fixture("py-discover.json").replacen("\"id\": 0", "\"id\": 1", 1);
    http.push(Script::Respond { status: 200, headers: vec![("content-type".into(), "application/json".into())], steps: vec![Step::Chunk(discovered.into_bytes())] });
    // A request refused the same way is sent once more too.
    http.push(refused());
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": []}})));
    let client = McpClient::new(http, config());
    assert_eq!(run(client.list_tools(&Abort::new())), Ok(vec![]));
    assert_eq!(client.protocol_version().as_deref(), Some("2026-07-28"), "not taken for an older server");
    let sent = client.http().requests();
    let methods: Vec<String> = sent.iter().map(|r| body(r)["method"].as_str().unwrap_or("").to_owned()).collect();
    assert_eq!(methods, ["server/discover", "server/discover", "tools/list", "tools/list"], "no initialize");
    assert_ne!(body(&sent[0])["id"], body(&sent[1])["id"], "a new id for the retry");
    assert_ne!(body(&sent[2])["id"], body(&sent[3])["id"]);
    for r in &sent {
        assert_eq!(header(r, "MCP-Protocol-Version").map(str::to_owned), body(r)["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str().map(str::to_owned));
        assert!(body(r)["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"].is_object());
    }
}

#[test]
fn a_2026_07_28_server_gets_self_contained_requests_and_its_input_requests_answered() {
    let http = ScriptedHttp::new();
    http.push(py_answer("py-discover.json"));
    http.push(py_answer("py-call-input-required.json"));
    http.push(py_answer("py-call-complete.json"));
    let client = McpClient::new(http, config());
    let watcher = Watcher::default();
    let r = run(client.call_tool_with("favourite", json!({}), &Abort::new(), &watcher)).unwrap();
    assert_eq!(output_from(&r).model_text(), "favourite colour: green");
    assert_eq!(client.protocol_version().as_deref(), Some("2026-07-28"));
    assert_eq!(client.session_id(), None);
    assert_eq!(client.server_info().unwrap()["name"], "py-test-server");
    assert_eq!(watcher.asked.borrow()[0].message(), "What is your favourite colour?");

    let sent = client.http().requests();
    assert_eq!(sent.len(), 3, "no initialize, no initialized notification, no GET stream");
    for (r, method) in sent.iter().zip(["server/discover", "tools/call", "tools/call"]) {
        assert_eq!(header(r, "MCP-Protocol-Version"), Some("2026-07-28"));
        assert_eq!(header(r, "Mcp-Method"), Some(method));
        assert_eq!(header(r, "Mcp-Session-Id"), None);
        let meta = &body(r)["params"]["_meta"];
        assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
        assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "air-agent");
        assert_eq!(meta["io.modelcontextprotocol/clientCapabilities"]["elicitation"], json!({"form": {}, "url": {}}));
    }
    assert_eq!(header(&sent[1], "Mcp-Name"), Some("favourite"));
    let first: Value = serde_json::from_str(&fixture("py-call-input-required.json")).unwrap();
    let retry = body(&sent[2]);
    assert_ne!(retry["id"], body(&sent[1])["id"], "a new id for the retry");
    assert_eq!(retry["params"]["requestState"], first["result"]["requestState"], "the state goes back unchanged");
    assert_eq!(retry["params"]["inputResponses"], json!({"__main__:ask_colour": {"action": "accept", "content": {"colour": "green"}}}));
    assert_eq!(retry["params"]["arguments"], json!({}));
}

#[test]
fn a_2026_07_28_call_is_cancelled_by_closing_its_stream_and_errors_are_not_expiry() {
    let http = ScriptedHttp::new();
    http.push(py_answer("py-discover.json"));
    http.push(raw_sse(": ping\n\n").then(Step::Abort).then(Step::Hang));
    http.push(Script::status(404, r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}"#));
    let client = McpClient::new(http, config());
    assert_eq!(run(client.call_tool("slow", json!({}), &Abort::new())), Err(McpError::Aborted));
    // No notifications/cancelled: the closed stream was the cancellation.
    assert_eq!(client.http().requests().len(), 2);
    let e = run(client.request("nope/nothing", json!({}), &Abort::new())).unwrap_err();
    assert_eq!(e, McpError::Rpc { code: -32601, message: "Method not found".into() });
    assert_eq!(client.http().requests().len(), 3, "a 404 is an answer here, not a lost session");
}

#[test]
fn x_mcp_header_arguments_are_mirrored_as_headers() {
    let schema = json!({"type": "object", "properties": {
        "tenant": {"type": "string", "x-mcp-header": "Tenant"},
        "region": {"type": "string", "x-mcp-header": "Region"},
        "n": {"type": "integer", "x-mcp-header": "Count"},
        "plain": {"type": "string"}
    }});
    let headers = air_mcp::client::param_headers(&schema, &json!({"tenant": "acme", "region": "ünï côde", "n": 3, "plain": "x"}));
    assert_eq!(
        headers,
        [
            ("Mcp-Param-Tenant".to_owned(), "acme".to_owned()),
            ("Mcp-Param-Region".to_owned(), "=?base64?w7xuw68gY8O0ZGU=?=".to_owned()),
            ("Mcp-Param-Count".to_owned(), "3".to_owned()),
        ]
    );
}

/// Opens every page it is asked to.
struct Opener(RefCell<Vec<String>>);

impl CallHost for Opener {
    fn progress(&self, _progress: Progress) {}
    fn elicit(&self, request: Elicitation) -> LocalBoxFuture<'_, ElicitAnswer> {
        if let Elicitation::Url { url, .. } = request {
            self.0.borrow_mut().push(url);
        }
        Box::pin(async { ElicitAnswer::Accept { content: json!({}) } })
    }
}

#[test]
fn pages_the_server_needs_opened_are_offered_and_the_call_tried_again() {
    // As the reference server's trigger-url-elicitation answers with
    // errorPath (recorded 2026-11-22).
    let needs = |id: u64| {
        json_answer(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32042, "message": "This request requires browser-based authorization.",
            "data": {"elicitations": [{"mode": "url", "elicitationId": "e1", "url": "https://example.com/approve", "message": "Please open the link."}]}}}))
    };
    let http = older();
    initialized(&http);
    http.push(needs(2));
    let client = McpClient::new(http, config());
    let e = run(client.call_tool_with("gated", json!({}), &Abort::new(), &Watcher::default())).unwrap_err();
    assert!(matches!(&e, McpError::UrlRequired { pages, .. } if pages[0].0 == "https://example.com/approve"), "{e:?}");
    assert_eq!(client.http().requests().len(), 4, "declined: not tried again");

    let http = older();
    initialized(&http);
    http.push(needs(2));
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "authorized"}]}})));
    let client = McpClient::new(http, config());
    let opener = Opener(RefCell::new(Vec::new()));
    let r = run(client.call_tool_with("gated", json!({}), &Abort::new(), &opener)).unwrap();
    assert_eq!(output_from(&r).model_text(), "authorized");
    assert_eq!(*opener.0.borrow(), ["https://example.com/approve"]);
}

#[test]
fn a_server_known_to_speak_sessions_is_not_asked_about_2026_07_28() {
    let http = ScriptedHttp::new();
    initialized(&http);
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}})));
    let client = McpClient::new(http, config()).with_known_version(Some("2025-11-25"));
    run(client.list_tools(&Abort::new())).unwrap();
    let methods: Vec<Value> = client.http().requests().iter().map(|r| body(r)["method"].clone()).collect();
    assert_eq!(methods, [json!("initialize"), json!("notifications/initialized"), json!("tools/list")]);
}

#[test]
fn a_2026_07_28_server_announces_list_changes_on_a_subscription_stream() {
    let http = ScriptedHttp::new();
    http.push(py_answer("py-discover.json"));
    let stream = [
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {"notifications": {"toolsListChanged": true}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 1}}}),
    ];
    http.push(Script::sse(stream.iter().map(Value::to_string)));
    // Closed, opened again: this time the server says no.
    http.push(Script::status(405, ""));
    let host = Host::default();
    let client = McpClient::new(http, config()).with_host(Rc::new(host.clone()));
    run(client.listen(&Abort::new())).unwrap();
    assert_eq!(*host.notices.borrow(), [Notice::ToolsChanged]);
    let sent = client.http().requests();
    assert_eq!(body(&sent[1])["method"], "subscriptions/listen");
    assert_eq!(body(&sent[1])["params"]["notifications"]["toolsListChanged"], true);
    assert_eq!(header(&sent[1], "Mcp-Method"), Some("subscriptions/listen"));
    assert_eq!(body(&sent[2])["method"], "subscriptions/listen", "opened again after it closed");
}

fn methods(client: &McpClient<ScriptedHttp>) -> Vec<String> {
    client.http().requests().iter().map(|r| body(r)["method"].as_str().unwrap_or_default().to_owned()).collect()
}

#[test]
fn results_are_kept_for_their_ttl_and_forgotten_when_the_server_says_they_changed() {
    let http = ScriptedHttp::new();
    http.push(py_answer("py-discover.json"));
    let tools = |id: u64, name: &str| json_answer(json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [{"name": name, "inputSchema": {"type": "object"}}], "ttlMs": 60000, "cacheScope": "private", "resultType": "complete"}}));
    http.push(tools(1, "a"));
    http.push(tools(2, "b"));
    let stream = [
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
        json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [], "resultType": "complete"}}),
    ];
    http.push(Script::sse(stream.iter().map(Value::to_string)));
    http.push(tools(4, "c"));
    // A read without ttlMs is not kept.
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 5, "result": {"contents": [{"uri": "note://a", "text": "1"}], "resultType": "complete"}})));
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 6, "result": {"contents": [{"uri": "note://a", "text": "2"}], "resultType": "complete"}})));
    let host = Host::default();
    host.now.set(1_000_000);
    let client = McpClient::new(http, config()).with_host(Rc::new(host.clone()));
    let abort = Abort::new();
    let names = |list: Vec<Value>| list.iter().map(|t| t["name"].as_str().unwrap_or_default().to_owned()).collect::<Vec<_>>();
    assert_eq!(names(run(client.list_tools(&abort)).unwrap()), ["a"]);
    host.now.set(1_059_999);
    assert_eq!(names(run(client.list_tools(&abort)).unwrap()), ["a"], "fresh for 60 s: not asked again");
    host.now.set(1_060_000);
    assert_eq!(names(run(client.list_tools(&abort)).unwrap()), ["b"], "stale: asked again");
    run(client.call_tool("x", json!({}), &abort)).unwrap();
    assert_eq!(names(run(client.list_tools(&abort)).unwrap()), ["c"], "the server said the list changed");
    assert_eq!(run(client.read_resource("note://a", &abort)).unwrap()["contents"][0]["text"], "1");
    assert_eq!(run(client.read_resource("note://a", &abort)).unwrap()["contents"][0]["text"], "2");
    assert_eq!(methods(&client), ["server/discover", "tools/list", "tools/list", "tools/call", "tools/list", "resources/read", "resources/read"]);

    // Without a clock nothing is kept.
    let http = ScriptedHttp::new();
    http.push(py_answer("py-discover.json"));
    http.push(tools(1, "a"));
    http.push(tools(2, "b"));
    let client = McpClient::new(http, config());
    run(client.list_tools(&abort)).unwrap();
    assert_eq!(names(run(client.list_tools(&abort)).unwrap()), ["b"]);
}

#[test]
fn a_server_that_refuses_2026_07_28_is_spoken_to_in_a_revision_it_names() {
    // -32022 as the Python SDK words it, with the revisions it speaks.
    let refused = |supported: Value| Script::status(400, &json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": supported}}}).to_string());
    let http = ScriptedHttp::new();
    http.push(py_answer("py-discover.json"));
    http.push(refused(json!(["2025-06-18", "2025-11-25"])));
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 2, "result": {"protocolVersion": "2025-06-18", "capabilities": {}}})).with_header("Mcp-Session-Id", "s1"));
    http.push(accepted());
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "ok"}]}})));
    let host = Host::default();
    let client = McpClient::new(http, config()).with_host(Rc::new(host.clone()));
    let r = run(client.call_tool("x", json!({}), &Abort::new())).unwrap();
    assert_eq!(output_from(&r).model_text(), "ok");
    assert_eq!(methods(&client), ["server/discover", "tools/call", "initialize", "notifications/initialized", "tools/call"]);
    assert_eq!(client.protocol_version().as_deref(), Some("2025-06-18"));
    assert_eq!(header(&client.http().requests()[4], "Mcp-Session-Id"), Some("s1"));
    assert_eq!(host.states.borrow().last(), Some(&Connection::Connected { version: "2025-06-18".into() }));

    // Only revisions this client does not know: said so, nothing more sent.
    let http = ScriptedHttp::new();
    http.push(py_answer("py-discover.json"));
    http.push(refused(json!(["2031-01-01"])));
    let client = McpClient::new(http, config());
    let e = run(client.call_tool("x", json!({}), &Abort::new())).unwrap_err();
    assert_eq!(e, McpError::UnsupportedVersion("2031-01-01".into()));
    assert_eq!(client.http().requests().len(), 2);
}

#[test]
fn resources_are_subscribed_in_a_session_and_again_when_it_is_renewed() {
    let http = older();
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {"resources": {"subscribe": true}}}})).with_header("Mcp-Session-Id", "s1"));
    http.push(accepted());
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 2, "result": {}})));
    // The server restarted.
    http.push(Script::status(404, ""));
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 4, "result": {"protocolVersion": "2025-11-25", "capabilities": {"resources": {"subscribe": true}}}})).with_header("Mcp-Session-Id", "s2"));
    http.push(accepted());
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 5, "result": {}})));
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 6, "result": {"resources": []}})));
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 7, "result": {}})));
    let client = McpClient::new(http, config());
    let abort = Abort::new();
    assert_eq!(run(client.subscribe_resource("test://static/resource/1", &abort)), Ok(true));
    assert_eq!(run(client.subscribe_resource("test://static/resource/1", &abort)), Ok(true), "once is enough");
    run(client.list_resources(&abort)).unwrap();
    run(client.unsubscribe_resource("test://static/resource/1", &abort)).unwrap();
    assert!(client.subscriptions().is_empty());
    assert_eq!(
        methods(&client),
        ["server/discover", "initialize", "notifications/initialized", "resources/subscribe", "resources/list", "initialize", "notifications/initialized", "resources/subscribe", "resources/list", "resources/unsubscribe"]
    );
    let sent = client.http().requests();
    assert_eq!(body(&sent[3])["params"], json!({"uri": "test://static/resource/1"}));
    assert_eq!(header(&sent[7], "Mcp-Session-Id"), Some("s2"), "the renewed session subscribes");

    // A server that does not offer it: nothing is sent.
    let http = older();
    initialized(&http);
    let client = McpClient::new(http, config());
    assert_eq!(run(client.subscribe_resource("a://b", &abort)), Ok(false));
    assert_eq!(client.http().requests().len(), 3);
}

#[test]
fn a_2026_07_28_listen_stream_asks_for_subscribed_resources_and_reopens_when_they_change() {
    let http = ScriptedHttp::new();
    http.push(py_answer("py-discover.json"));
    let stream = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "note://a"}}).to_string();
    http.push(raw_sse(&format!("data: {stream}\n\n")).then(Step::Hang));
    http.push(Script::status(405, ""));
    let host = Host::default();
    let client = McpClient::new(http, config()).with_host(Rc::new(host.clone()));
    let abort = Abort::new();
    assert_eq!(run(client.subscribe_resource("note://a", &abort)), Ok(true));
    let (listened, subscribed) = run(futures_util::future::join(client.listen(&abort), async {
        // The listen stream is open (its first message read) when this runs.
        client.subscribe_resource("note://b", &abort).await
    }));
    listened.unwrap();
    assert_eq!(subscribed, Ok(true));
    assert_eq!(*host.notices.borrow(), [Notice::ResourceUpdated { uri: "note://a".into() }]);
    let sent = client.http().requests();
    assert_eq!(methods(&client), ["server/discover", "subscriptions/listen", "subscriptions/listen"], "no resources/subscribe in 2026-07-28");
    assert_eq!(body(&sent[1])["params"]["notifications"]["resourceSubscriptions"], json!(["note://a"]));
    assert_eq!(body(&sent[2])["params"]["notifications"]["resourceSubscriptions"], json!(["note://a", "note://b"]));
}

/// Signs in by handing out the next token of a list, and notes each refusal.
struct Tokens {
    next: RefCell<Vec<&'static str>>,
    current: RefCell<Option<String>>,
    refusals: RefCell<Vec<(u16, Option<String>)>>,
}

impl air_mcp::Authorizer for Tokens {
    fn header(&self) -> Option<String> {
        self.current.borrow().clone()
    }

    fn refused(&self, status: u16, www_authenticate: Option<String>) -> LocalBoxFuture<'_, bool> {
        self.refusals.borrow_mut().push((status, www_authenticate));
        let next = self.next.borrow_mut().pop();
        let got = next.is_some();
        *self.current.borrow_mut() = next.map(|t| format!("Bearer {t}"));
        Box::pin(async move { got })
    }
}

#[test]
fn a_refused_token_is_replaced_and_the_request_sent_again_a_bounded_number_of_times() {
    let http = ScriptedHttp::new();
    let challenge = r#"Bearer resource_metadata="http://127.0.0.1:3001/.well-known/oauth-protected-resource/mcp", scope="read""#;
    // server/discover: 401, then (signed in) the older server's refusal.
    http.push(Script::status(401, "").with_header("WWW-Authenticate", challenge));
    http.push(Script::status(400, r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request"},"id":null}"#));
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {}}})));
    http.push(accepted());
    // tools/call needs more scope: 403 insufficient_scope, then again, then
    // the bound is reached and the server's refusal is the answer.
    let more = r#"Bearer error="insufficient_scope", scope="read write""#;
    for _ in 0..3 {
        http.push(Script::status(403, "").with_header("WWW-Authenticate", more));
    }
    let tokens = Rc::new(Tokens { next: RefCell::new(vec!["t3", "t2", "t1"]), current: RefCell::new(None), refusals: RefCell::default() });
    let client = McpClient::new(http, ServerConfig { headers: Vec::new(), ..config() }).with_authorizer(tokens.clone());
    run(client.connect(&Abort::new())).unwrap();
    let err = run(client.call_tool("write", json!({}), &Abort::new())).unwrap_err();
    assert!(matches!(err, McpError::Http { status: 403, .. }), "{err}");
    let sent = client.http().requests();
    let auth: Vec<Option<&str>> = sent.iter().map(|r| header(r, "Authorization")).collect();
    assert_eq!(auth, [None, Some("Bearer t1"), Some("Bearer t1"), Some("Bearer t1"), Some("Bearer t1"), Some("Bearer t2"), Some("Bearer t3")]);
    let refusals = tokens.refusals.borrow();
    assert_eq!(refusals.len(), 3, "one sign-in, two step-ups, then no more");
    assert_eq!(refusals[0], (401, Some(challenge.to_owned())));
    assert_eq!(refusals[1], (403, Some(more.to_owned())));
}
