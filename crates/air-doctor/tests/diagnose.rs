//! The doctor's questions against scripted answers: each finding, from
//! the answers a browser gives for that misconfiguration (a refused
//! preflight is a network error, and so is a refused origin).

use air_doctor::{Finding, Target, diagnose};
use air_http::fake::{Script, ScriptedHttp};
use air_http::{Abort, HttpError};

fn target(url: &str, page: Option<&str>) -> Target {
    Target {
        url: url.into(),
        page_origin: page.map(str::to_owned),
        headers: vec![("MCP-Protocol-Version".into(), "2025-11-25".into()), ("Mcp-Session-Id".into(), "probe".into())],
        body: r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#.into(),
        mcp: true,
    }
}

fn cors_error() -> Script {
    Script::Fail(HttpError::Network("Failed to fetch".into()))
}

fn run(http: &ScriptedHttp, t: &Target) -> Finding {
    pollster::block_on(diagnose(http, t, &Abort::new()))
}

#[test]
fn mixed_content_is_said_before_anything_is_sent() {
    let http = ScriptedHttp::new();
    assert_eq!(run(&http, &target("http://mcp.example.com/mcp", Some("https://app.example"))), Finding::MixedContent);
    assert!(http.requests().is_empty());
    // This machine is allowed from an https page.
    http.push(Script::status(405, ""));
    http.push(Script::status(200, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#).with_header("mcp-session-id", "s"));
    http.push(Script::status(200, ""));
    http.push(Script::status(200, ""));
    assert_eq!(run(&http, &target("http://127.0.0.1:3000/mcp", Some("https://app.example"))), Finding::Fine);
}

#[test]
fn nothing_answering_an_origin_refused_and_a_private_network() {
    let http = ScriptedHttp::new();
    http.push(cors_error());
    assert!(matches!(run(&http, &target("https://mcp.example.com/mcp", Some("https://app.example"))), Finding::Unreachable { .. }));
    // Up, but not for this origin: the no-cors probe gets an answer.
    http.set_answers_without_cors(true);
    http.push(cors_error());
    assert_eq!(run(&http, &target("https://mcp.example.com/mcp", Some("https://app.example"))), Finding::OriginRefused);
    http.set_answers_without_cors(false);
    http.push(cors_error());
    assert_eq!(run(&http, &target("http://192.168.1.20:8000/mcp", Some("http://app.example"))), Finding::PrivateNetwork);
}

#[test]
fn the_preflight_then_each_header() {
    let http = ScriptedHttp::new();
    http.push(Script::status(405, ""));
    http.push(cors_error());
    let t = target("https://mcp.example.com/mcp", Some("https://app.example"));
    assert_eq!(run(&http, &t), Finding::PreflightRefused);

    let http = ScriptedHttp::new();
    http.push(Script::status(405, ""));
    http.push(Script::status(200, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#).with_header("mcp-session-id", "s"));
    http.push(Script::status(200, ""));
    http.push(cors_error());
    assert_eq!(run(&http, &t), Finding::HeaderNotAllowed("Mcp-Session-Id".into()));
    let sent = http.requests();
    assert_eq!(sent.len(), 4);
    assert!(sent[3].headers.iter().any(|(k, _)| k == "Mcp-Session-Id"));
    assert!(!sent[2].headers.iter().any(|(k, _)| k == "Mcp-Session-Id"), "one header at a time");
}

#[test]
fn hidden_response_headers() {
    let t = target("https://mcp.example.com/mcp", Some("https://app.example"));
    // A 401 whose challenge the page cannot read.
    let http = ScriptedHttp::new();
    http.push(Script::status(405, ""));
    http.push(Script::status(401, ""));
    http.push(Script::status(401, ""));
    http.push(Script::status(401, ""));
    assert_eq!(run(&http, &t), Finding::HeaderNotExposed("WWW-Authenticate".into()));
    // A session the page cannot see: the next request is refused for it.
    let http = ScriptedHttp::new();
    http.push(Script::status(405, ""));
    http.push(Script::status(200, r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}"#));
    http.push(Script::status(200, ""));
    http.push(Script::status(200, ""));
    http.push(Script::status(400, r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Missing session ID"},"id":null}"#));
    assert_eq!(run(&http, &t), Finding::HeaderNotExposed("Mcp-Session-Id".into()));
    // A server without sessions answers the second request too.
    let http = ScriptedHttp::new();
    http.push(Script::status(405, ""));
    http.push(Script::status(200, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
    http.push(Script::status(200, ""));
    http.push(Script::status(200, ""));
    http.push(Script::status(200, r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}"#));
    assert_eq!(run(&http, &t), Finding::Fine);
}

#[test]
fn a_model_provider_is_probed_without_the_mcp_checks() {
    // Its 401 for a probe key needs no challenge, and nothing asks for a session.
    let http = ScriptedHttp::new();
    http.push(Script::status(404, ""));
    http.push(Script::status(401, r#"{"error":{"message":"Incorrect API key"}}"#));
    http.push(Script::status(401, ""));
    let t = Target {
        url: "https://api.example.com/v1/chat/completions".into(),
        page_origin: Some("https://app.example".into()),
        headers: vec![("Authorization".into(), "Bearer probe".into())],
        body: r#"{"model":"m","messages":[],"max_tokens":1}"#.into(),
        mcp: false,
    };
    assert_eq!(run(&http, &t), Finding::Fine);
    assert_eq!(http.requests().len(), 3);
    // A refused header, with snippets that expose what a chat client reads.
    let http = ScriptedHttp::new();
    http.push(Script::status(404, ""));
    http.push(Script::status(200, "{}"));
    http.push(cors_error());
    let found = run(&http, &t);
    assert_eq!(found, Finding::HeaderNotAllowed("Authorization".into()));
    let fix = found.fix_exposing("https://app.example", &["Authorization".into()], &["Retry-After"]);
    assert!(fix[0].1.contains(r#"allow_headers=["content-type", "authorization"]"#), "{}", fix[0].1);
    assert!(fix[0].1.contains(r#"expose_headers=["Retry-After"]"#), "{}", fix[0].1);
    assert!(!fix.iter().any(|(_, code)| code.contains("Mcp-Session-Id")));
}
