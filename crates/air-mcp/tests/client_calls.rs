//! Tools of an MCP server as registry entries, and their calls: results
//! and output schemas, progress, questions to the user and list changes
//! heard during a call, tools whose headers cannot be sent, headers taken
//! from arguments, pages the server needs opened, and refused tokens
//! replaced.

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use air_http::Abort;
use air_http::fake::{Script, ScriptedHttp};
use air_mcp::tool::{McpTool, callable, checked_output, def_from, output_from};
use air_mcp::{McpClient, McpError, Notice, ServerConfig};
use air_tools::{CallContext, CallHost, Content, ElicitAnswer, Elicitation, Progress, Tool, ToolSource, Unattended};
use futures_util::future::LocalBoxFuture;
use serde_json::{Value, json};

use common::{Host, Watcher, accepted, body, config, fixture, header, initialized, json_answer, older, recorded, run};

#[test]
fn tools_become_registry_entries() {
    let list: Value = serde_json::from_str(fixture("everything-list.sse").lines().find_map(|l| l.strip_prefix("data: {")).map(|rest| format!("{{{rest}")).as_deref().unwrap()).unwrap();
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
    assert_eq!(body(&sent[1])["params"]["capabilities"], json!({"elicitation": {"form": {}, "url": {}}, "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}));
    assert_eq!(body(&sent[3])["params"]["_meta"]["progressToken"], 2);
    assert_eq!(body(&sent[4]), json!({"jsonrpc": "2.0", "id": 0, "result": {"action": "accept", "content": {"name": "John Doe", "age": 30, "verified": true}}}));
    assert_eq!(*host.notices.borrow(), [Notice::ToolsChanged, Notice::Log { level: "info".into(), logger: None, data: json!("hello") }]);
    assert!(client.pending().is_empty());
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
    let refused: Vec<String> = host
        .notices
        .borrow()
        .iter()
        .filter_map(|n| match n {
            Notice::ToolRefused { tool, .. } => Some(tool.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(refused, ["spaced", "number"], "each named, with why");
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
        [("Mcp-Param-Tenant".to_owned(), "acme".to_owned()), ("Mcp-Param-Region".to_owned(), "=?base64?w7xuw68gY8O0ZGU=?=".to_owned()), ("Mcp-Param-Count".to_owned(), "3".to_owned()),]
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
