//! Servers of other revisions: 2026-07-28 (no session, self-contained
//! requests, input requests, subscription streams, results kept for their
//! ttl, a fall back to a revision the server names) and the legacy HTTP+SSE
//! transport of 2024-11-05.

mod common;

use std::rc::Rc;

use air_http::Abort;
use air_http::fake::{Script, ScriptedHttp, Step};
use air_mcp::tool::output_from;
use air_mcp::{Connection, McpClient, McpError, Notice, ServerConfig};
use serde_json::{Value, json};

use common::{Host, Watcher, accepted, body, config, fixture, header, initialized, json_answer, methods, older, py_answer, raw_sse, run};

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

#[test]
fn a_2026_07_28_server_refusing_the_first_version_is_asked_again() {
    // As the conformance scenario `request-metadata` answers the first POST.
    let refused = || {
        Script::status(
            400,
            &json!({"jsonrpc": "2.0", "id": 0, "error": {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2026-07-28"], "requested": "2026-07-28"}}}).to_string(),
        )
    };
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

#[test]
fn results_are_kept_for_their_ttl_and_forgotten_when_the_server_says_they_changed() {
    let http = ScriptedHttp::new();
    http.push(py_answer("py-discover.json"));
    let tools = |id: u64, name: &str| {
        json_answer(json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [{"name": name, "inputSchema": {"type": "object"}}], "ttlMs": 60000, "cacheScope": "private", "resultType": "complete"}}))
    };
    http.push(tools(1, "a"));
    http.push(tools(2, "b"));
    let stream = [json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}), json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [], "resultType": "complete"}})];
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
    let refused =
        |supported: Value| Script::status(400, &json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": supported}}}).to_string());
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
