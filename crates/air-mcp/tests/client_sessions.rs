//! The client against recorded answers of a real server (npm
//! `server-everything`, see `fixtures/README.md`) and the variations other
//! servers of the revisions before 2026-07-28 produce: JSON answers, pages,
//! expired and renewed sessions, server requests on the stream, errors,
//! closing, the connection state, streams resumed or cancelled, and
//! resource subscriptions.

mod common;

use std::rc::Rc;

use air_http::fake::{Script, ScriptedHttp, Step};
use air_http::{Abort, Request};
use air_mcp::tool::output_from;
use air_mcp::{Connection, McpClient, McpError};
use serde_json::{Value, json};

use common::{Host, SESSION, accepted, body, config, header, initialized, json_answer, methods, older, raw_sse, recorded, run};

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

    // A server that points elsewhere: its key is not sent there, and the
    // error says why it stopped.
    for first in [true, false] {
        let http = if first { ScriptedHttp::new() } else { older() };
        for _ in 0..3 {
            http.push(Script::status(307, "").with_header("Location", "https://elsewhere.example/mcp"));
        }
        let client = McpClient::new(http, config());
        let e = run(client.list_tools(&Abort::new())).unwrap_err();
        assert_eq!(e.to_string(), format!("the MCP server answered, but {}", air_http::REDIRECT_REFUSED));
    }

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
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "resources/subscribe",
            "resources/list",
            "initialize",
            "notifications/initialized",
            "resources/subscribe",
            "resources/list",
            "resources/unsubscribe"
        ]
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
fn a_server_that_offers_no_completions_is_not_asked_for_them() {
    let http = older();
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {"prompts": {}}}})).with_header("Mcp-Session-Id", "s1"));
    http.push(accepted());
    http.push(json_answer(json!({"jsonrpc": "2.0", "id": 2, "result": {"prompts": []}})));
    let client = McpClient::new(http, config());
    let abort = Abort::new();
    run(client.list_prompts(&abort)).unwrap();
    assert_eq!(run(client.complete_prompt_argument("p", "a", "x", &serde_json::Map::new(), &abort)), Ok(vec![]));
    assert_eq!(methods(&client), ["server/discover", "initialize", "notifications/initialized", "prompts/list"]);
}
