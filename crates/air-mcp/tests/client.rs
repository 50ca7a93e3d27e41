//! The client against recorded answers of a real server (npm
//! `server-everything`, see `fixtures/README.md`) and the variations other
//! servers produce (JSON answers, pages, expired sessions, server requests
//! on the stream, errors).

use std::rc::Rc;

use air_http::fake::{Script, ScriptedHttp, Step};
use air_http::{Abort, Request};
use air_mcp::tool::{McpTool, def_from, output_from};
use air_mcp::{McpClient, McpError, ServerConfig};
use air_tools::{Content, Tool, ToolSource};
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

fn run<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

#[test]
fn a_session_with_the_reference_server() {
    let http = ScriptedHttp::new();
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
    assert_eq!(methods, ["initialize", "notifications/initialized", "tools/list", "tools/call"]);
    let init = body(&http_sent[0]);
    assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["params"]["clientInfo"]["name"], "air-agent");
    assert_eq!(header(&http_sent[0], "Mcp-Session-Id"), None);
    for r in &http_sent {
        assert_eq!(header(r, "Accept"), Some("application/json, text/event-stream"));
        assert_eq!(header(r, "X-Api-Key"), Some("k1"), "the server's own headers go with every request");
    }
    for r in &http_sent[1..] {
        assert_eq!(header(r, "Mcp-Session-Id"), Some(SESSION));
        assert_eq!(header(r, "MCP-Protocol-Version"), Some("2025-11-25"));
    }
    assert_eq!(body(&http_sent[1]).get("id"), None, "a notification has no id");
}

/// The scripted client inside the McpClient (tests only).
fn client_requests(client: &McpClient<ScriptedHttp>) -> Vec<Request> {
    client.http().requests()
}

#[test]
fn json_answers_pages_and_an_expired_session() {
    let http = ScriptedHttp::new();
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
    assert_eq!(body(&sent[3])["params"]["cursor"], "p2");
    assert_eq!(header(&sent[3], "Mcp-Session-Id"), Some("s1"));
    assert_eq!(body(&sent[4])["method"], "initialize");
    assert_eq!(header(&sent[4], "Mcp-Session-Id"), None, "a new session starts without the old id");
    assert_eq!(body(&sent[6])["params"]["cursor"], "p2", "the same page is asked again");
    assert_eq!(header(&sent[6], "MCP-Protocol-Version"), Some("2025-06-18"));
}

#[test]
fn the_reference_servers_400_for_an_unknown_session_also_renews_it() {
    let http = ScriptedHttp::new();
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
    assert_eq!(header(&sent[5], "Mcp-Session-Id"), Some("new"));
    assert_eq!(body(&sent[5])["method"], "tools/call");
}

#[test]
fn server_requests_on_the_stream_are_answered() {
    let http = ScriptedHttp::new();
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
    assert_eq!(body(&sent[3]), json!({"jsonrpc": "2.0", "id": "s-1", "result": {}}));
    assert_eq!(body(&sent[4])["error"]["code"], -32601);
    assert_eq!(body(&sent[4])["id"], "s-2");
}

#[test]
fn errors_say_what_happened() {
    let http = ScriptedHttp::new();
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "1999-01-01", "capabilities": {}}})));
    let client = McpClient::new(http, config());
    assert_eq!(run(client.list_tools(&Abort::new())), Err(McpError::UnsupportedVersion("1999-01-01".into())));

    let http = ScriptedHttp::new();
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {}}})));
    http.push(accepted());
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Unknown tool: nope"}})));
    let client = McpClient::new(http, config());
    let e = run(client.call_tool("nope", json!({}), &Abort::new())).unwrap_err();
    assert_eq!(e, McpError::Rpc { code: -32602, message: "Unknown tool: nope".into() });
    assert_eq!(e.to_string(), "the MCP server reported an error (-32602): Unknown tool: nope");

    let http = ScriptedHttp::new();
    http.push(Script::Fail(air_http::HttpError::Network("Failed to fetch".into())));
    let client = McpClient::new(http, config());
    let e = run(client.list_tools(&Abort::new())).unwrap_err();
    assert!(e.to_string().contains("no CORS for this page"), "{e}");

    let http = ScriptedHttp::new();
    http.push(Script::status(401, "Unauthorized"));
    let client = McpClient::new(http, config());
    assert_eq!(run(client.list_tools(&Abort::new())), Err(McpError::Http { status: 401, body: "Unauthorized".into() }));

    // A stream that ends before the answer.
    let http = ScriptedHttp::new();
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {}}})));
    http.push(accepted());
    http.push(Script::sse(["{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}"]));
    let client = McpClient::new(http, config());
    assert!(matches!(run(client.list_tools(&Abort::new())), Err(McpError::Protocol(_))));
}

#[test]
fn closing_deletes_the_session() {
    let http = ScriptedHttp::new();
    http.push(recorded("everything-init.sse", true));
    http.push(accepted());
    http.push(Script::status(200, ""));
    let client = McpClient::new(http, config());
    run(client.connect(&Abort::new())).unwrap();
    run(client.close());
    let sent = client.http().requests();
    assert_eq!(sent[2].method, "DELETE");
    assert_eq!(header(&sent[2], "Mcp-Session-Id"), Some(SESSION));
    assert_eq!(client.session_id(), None);
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

    // Called through the registry's interface.
    let http = ScriptedHttp::new();
    http.push(recorded("everything-init.sse", true));
    http.push(accepted());
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "Echo: yo"}]}})));
    let client = Rc::new(McpClient::new(http, config()));
    let tool = McpTool::new(def, "echo", client.clone());
    assert_eq!(run(tool.call(json!({"message": "yo"}))).model_text(), "Echo: yo");
    assert_eq!(body(&client.http().requests()[2])["params"], json!({"name": "echo", "arguments": {"message": "yo"}}));
}
