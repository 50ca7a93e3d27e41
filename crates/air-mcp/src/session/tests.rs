//! The session's decision tables.

use super::*;

fn modern() -> Session {
    let mut s = Session::new();
    s.discovered(&json!({"supportedVersions": [MODERN_VERSION], "serverInfo": {"name": "s"}}));
    s
}

fn with_session() -> Session {
    let mut s = Session::new();
    s.agreed(&json!({"protocolVersion": "2025-11-25", "serverInfo": {"name": "s"}}), Some("abc".into()), false).unwrap();
    s.initialized = true;
    s
}

/// Sends once and finishes with `outcome`.
fn round(a: &mut Attempt<'_>, s: &mut Session, outcome: Result<Outcome, McpError>) -> (Outgoing, Step) {
    let out = a.begin(s);
    let step = a.finish(s, &out, outcome);
    (out, step)
}

fn asking() -> Value {
    json!({"resultType": "input_required", "requestState": "st", "inputRequests": {"q": {"method": "elicitation/create", "params": {"message": "?"}}}})
}

#[test]
fn a_request_carries_its_id_meta_and_headers() {
    let mut s = with_session();
    let a = Attempt::new("tools/call", json!({"name": "t", "arguments": {}}), true, &[]);
    let out = a.begin(&mut s);
    assert_eq!(out.message, json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}, "_meta": {"progressToken": 1}}}));
    assert!(out.headers.is_empty() && out.had_session && !out.modern);
    assert_eq!(s.pending, vec![1]);
    assert_eq!(s.headers(false), vec![("Mcp-Session-Id", "abc".to_owned()), ("MCP-Protocol-Version", "2025-11-25".to_owned())]);
    assert_eq!(s.headers(true), vec![("Mcp-Session-Id", "abc".to_owned())]);
    // Unwatched, no empty `_meta`; the id is done with once finished.
    let mut a = Attempt::new("tools/list", json!({}), false, &[]);
    let (out, step) = round(&mut a, &mut s, Ok(Outcome::Result(json!({"tools": []}))));
    assert_eq!(out.message["params"], json!({}));
    assert_eq!(step, Step::Done(json!({"tools": []})));
    assert_eq!(s.pending, vec![1]);

    let mut s = modern();
    let extra = [("Mcp-Param-Region".to_owned(), "eu".to_owned())];
    let out = Attempt::new("tools/call", json!({"name": "t"}), false, &extra).begin(&mut s);
    assert_eq!(out.message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], MODERN_VERSION);
    let names: Vec<&str> = out.headers.iter().map(|(k, v)| if k == "Mcp-Method" { v.as_str() } else { k.as_str() }).collect();
    assert_eq!(names, ["tools/call", "Mcp-Name", "Mcp-Param-Region"]);
    assert!(!out.had_session);
}

#[test]
fn input_is_answered_at_most_eight_rounds() {
    let mut s = modern();
    let mut a = Attempt::new("tools/call", json!({"name": "t"}), true, &[]);
    for _ in 0..MAX_INPUT_ROUNDS {
        let (_, step) = round(&mut a, &mut s, Ok(Outcome::Result(asking())));
        assert_eq!(step, Step::Input(vec![("q".into(), "elicitation/create".into(), json!({"message": "?"}))]));
        a.answered(serde_json::Map::from_iter([("q".to_owned(), json!({"action": "accept"}))]));
    }
    let out = a.begin(&mut s);
    assert_eq!(out.message["params"]["inputResponses"], json!({"q": {"action": "accept"}}));
    assert_eq!(out.message["params"]["requestState"], "st");
    assert!(matches!(a.finish(&mut s, &out, Ok(Outcome::Result(asking()))), Step::Fail(McpError::Protocol(m)) if m.contains("8 rounds")));
    // Only a 2026-07-28 server asks so: elsewhere the result is the result.
    let mut s = with_session();
    let mut a = Attempt::new("tools/call", json!({}), true, &[]);
    assert_eq!(round(&mut a, &mut s, Ok(Outcome::Result(asking()))).1, Step::Done(asking()));
}

#[test]
fn an_expired_session_is_renewed_once() {
    let mut s = with_session();
    let mut a = Attempt::new("tools/list", json!({}), false, &[]);
    assert_eq!(round(&mut a, &mut s, Ok(Outcome::Expired)).1, Step::Reconnect);
    assert!(matches!(round(&mut a, &mut s, Ok(Outcome::Expired)).1, Step::Fail(McpError::Protocol(_))));
    // 2026-07-28 has no session to renew.
    let mut s = modern();
    let mut a = Attempt::new("tools/list", json!({}), false, &[]);
    assert!(matches!(round(&mut a, &mut s, Ok(Outcome::Expired)).1, Step::Fail(McpError::Protocol(_))));
}

#[test]
fn a_refused_version_falls_back_once() {
    let refused = |v: &[&str]| Err(McpError::VersionRefused { supported: v.iter().map(|s| s.to_string()).collect() });
    // Another revision: connect again in it, as an era that is known.
    let mut s = modern();
    let mut a = Attempt::new("tools/list", json!({}), false, &[]);
    assert_eq!(round(&mut a, &mut s, refused(&["2025-06-18"])).1, Step::Reconnect);
    assert!(!s.modern && s.era_known);
    // Still 2026-07-28: the same request again, once.
    let mut s = modern();
    let mut a = Attempt::new("tools/list", json!({}), false, &[]);
    assert_eq!(round(&mut a, &mut s, refused(&[MODERN_VERSION])).1, Step::Again);
    assert!(s.modern);
    assert_eq!(round(&mut a, &mut s, refused(&[MODERN_VERSION])).1, Step::Fail(McpError::VersionRefused { supported: vec![MODERN_VERSION.into()] }));
    // None this client speaks.
    let mut a = Attempt::new("tools/list", json!({}), false, &[]);
    assert_eq!(round(&mut a, &mut s, refused(&["1999-01-01", "2000-01-01"])).1, Step::Fail(McpError::UnsupportedVersion("1999-01-01, 2000-01-01".into())));
    // Only 2026-07-28 falls back.
    let mut s = with_session();
    let mut a = Attempt::new("tools/list", json!({}), false, &[]);
    assert!(matches!(round(&mut a, &mut s, refused(&["2025-06-18"])).1, Step::Fail(McpError::VersionRefused { .. })));
    // Discovery: asked again only on the first try.
    let body = json!({"error": {"code": -32022, "message": "v", "data": {"supported": [MODERN_VERSION]}}}).to_string();
    assert_eq!(discovery_refused(0, &body), Discovered::Again);
    assert_eq!(discovery_refused(7, &body), Discovered::No);
    assert_eq!(discovery_refused(0, "Not Found"), Discovered::No);
}

#[test]
fn pages_are_asked_for_once_and_only_by_a_watched_call() {
    let needs = || Err(McpError::UrlRequired { message: "sign in".into(), pages: vec![("https://a.example/".into(), "open".into())] });
    let mut s = with_session();
    let mut a = Attempt::new("tools/call", json!({}), true, &[]);
    assert!(matches!(round(&mut a, &mut s, needs()).1, Step::OpenPages { message, pages } if message == "sign in" && pages.len() == 1));
    assert!(matches!(round(&mut a, &mut s, needs()).1, Step::Fail(McpError::UrlRequired { .. })));
    let mut a = Attempt::new("tools/call", json!({}), false, &[]);
    assert!(matches!(round(&mut a, &mut s, needs()).1, Step::Fail(McpError::UrlRequired { .. })));
}

#[test]
fn a_stop_or_a_timeout_cancels_and_a_lost_server_is_said() {
    let mut s = with_session();
    let mut a = Attempt::new("tools/call", json!({}), false, &[]);
    let (out, step) = round(&mut a, &mut s, Err(McpError::Aborted));
    assert_eq!(step, Step::Cancel { notice: Some(Cancelled { request_id: out.id, reason: "stopped by the user" }), error: McpError::Aborted });
    let (out, step) = round(&mut a, &mut s, Err(McpError::Timeout { ms: 5 }));
    assert_eq!(step, Step::Cancel { notice: Some(Cancelled { request_id: out.id, reason: "timed out" }), error: McpError::Timeout { ms: 5 } });
    assert!(s.pending.is_empty());
    // In 2026-07-28 closing the stream is the cancellation.
    let mut s = modern();
    assert_eq!(round(&mut a, &mut s, Err(McpError::Aborted)).1, Step::Cancel { notice: None, error: McpError::Aborted });
    assert_eq!(round(&mut a, &mut s, Err(McpError::Network("x".into()))).1, Step::Unreachable(McpError::Network("x".into())));
    assert_eq!(round(&mut a, &mut s, Err(McpError::Rpc { code: 1, message: "m".into() })).1, Step::Fail(McpError::Rpc { code: 1, message: "m".into() }));
}

#[test]
fn results_are_kept_for_their_ttl_and_forgotten_on_change() {
    let mut s = Session::new();
    let v = json!([1]);
    s.keep(Some(1_000), "tools/list", "", Some(500), &v);
    assert_eq!(s.cached(Some(1_499), "tools/list", ""), Some(v.clone()));
    assert_eq!(s.cached(Some(1_500), "tools/list", ""), None);
    assert_eq!(s.cached(None, "tools/list", ""), None);
    // No clock, no ttl or 0: not kept; a long ttl is cut to a day.
    s.keep(None, "prompts/list", "", Some(500), &v);
    s.keep(Some(0), "resources/list", "", Some(0), &v);
    s.keep(Some(0), "resources/read", "a", Some(u64::MAX), &v);
    assert_eq!(s.cached(Some(0), "prompts/list", ""), None);
    assert_eq!(s.cached(Some(0), "resources/list", ""), None);
    assert_eq!(s.cached(Some(MAX_TTL_MS - 1), "resources/read", "a"), Some(v.clone()));
    assert_eq!(s.cached(Some(MAX_TTL_MS), "resources/read", "a"), None);
    // Announced changes forget what they change.
    s.keep(Some(0), "tools/list", "", Some(500), &v);
    s.keep(Some(0), "resources/read", "a", Some(500), &v);
    assert_eq!(s.heard("notifications/tools/list_changed", &Value::Null), Heard::Notice(Notice::ToolsChanged));
    assert_eq!(s.heard("notifications/resources/updated", &json!({"uri": "a"})), Heard::Notice(Notice::ResourceUpdated { uri: "a".into() }));
    assert_eq!(s.cached(Some(1), "tools/list", ""), None);
    assert_eq!(s.cached(Some(1), "resources/read", "a"), None);
    // A new session starts with nothing kept.
    s.keep(Some(0), "tools/list", "", Some(500), &v);
    s.restart();
    assert_eq!(s.cached(Some(1), "tools/list", ""), None);
}

#[test]
fn the_session_stream_routes_by_progress_token() {
    let progress = |t: u64| json!({"method": "notifications/progress", "params": {"progressToken": t, "progress": 1}});
    let question = json!({"id": 9, "method": "elicitation/create", "params": {}});
    let mut s = Session::new();
    // Nobody watches: everything is handled at once.
    assert_eq!(s.on_stream(progress(1)), Some(progress(1)));
    s.watched = 1;
    assert_eq!(s.on_stream(progress(1)), None);
    assert_eq!(s.on_stream(progress(2)), None);
    assert_eq!(s.on_stream(question.clone()), None);
    // A notification for no call, or a response, is not kept.
    let log = json!({"method": "notifications/message", "params": {"level": "info", "data": "x"}});
    assert_eq!(s.on_stream(log.clone()), Some(log));
    assert_eq!(s.on_stream(json!({"id": 3, "result": {}})), Some(json!({"id": 3, "result": {}})));
    // Each call takes its own progress; any takes the question.
    assert_eq!(s.take_inbox(2, true), Some(progress(2)));
    assert_eq!(s.take_inbox(2, true), None);
    assert_eq!(s.take_inbox(2, false), Some(question));
    assert_eq!(s.take_inbox(1, false), Some(progress(1)));
    assert_eq!(s.take_inbox(1, false), None);
    // Progress goes to the call only while its request is pending.
    assert_eq!(s.heard("notifications/progress", &json!({"progressToken": 4, "progress": 1})), Heard::Nothing);
    s.pending.push(4);
    assert_eq!(s.heard("notifications/progress", &json!({"progressToken": 4, "progress": 1, "total": 2})), Heard::Progress(Progress { progress: 1.0, total: Some(2.0), message: None }));
}

#[test]
fn the_agreed_version_must_be_known() {
    let mut s = Session::new();
    assert_eq!(s.agreed(&json!({"protocolVersion": "1999-01-01"}), None, false), Err(McpError::UnsupportedVersion("1999-01-01".into())));
    assert_eq!(s.agreed(&json!({"protocolVersion": LEGACY_VERSION}), None, false), Err(McpError::UnsupportedVersion(LEGACY_VERSION.into())));
    assert_eq!(s.agreed(&json!({"protocolVersion": LEGACY_VERSION, "capabilities": {"tools": {}}}), None, true), Ok(()));
    assert_eq!(s.capabilities, Some(json!({"tools": {}})));
    assert!(s.headers(true).is_empty());
    assert!(!s.restart());
}
