use super::*;
use crate::{MemoryStore, Store};

fn entry(at: f64, text: &str) -> Entry {
    Entry::new(at, Level::Info, Kind::ToolCalled, text)
}

#[test]
fn the_ring_keeps_the_newest_thousand() {
    let mut log = EventLog::default();
    for i in 0..MAX_ENTRIES + 5 {
        log.push(entry(i as f64, &format!("call {i}")));
    }
    assert_eq!(log.entries.len(), MAX_ENTRIES);
    assert_eq!(log.entries.front().map(|e| e.text.as_str()), Some("call 5"), "the five oldest went");
    assert_eq!(log.newest_first().next().map(|e| e.text.as_str()), Some("call 1004"));
}

#[test]
fn a_log_read_back_goes_before_what_came_since_and_the_bound_holds() {
    let mut older = EventLog::default();
    for i in 0..MAX_ENTRIES {
        older.push(entry(i as f64, &format!("old {i}")));
    }
    let mut log = EventLog::default();
    log.push(entry(5_000.0, "new"));
    log.merge_older(older);
    assert_eq!(log.entries.len(), MAX_ENTRIES);
    assert_eq!(log.entries.back().map(|e| e.text.as_str()), Some("new"));
    assert_eq!(log.entries.front().map(|e| e.text.as_str()), Some("old 1"));
}

#[test]
fn api_keys_and_bearer_tokens_and_authorization_headers_are_hidden() {
    let cases = [
        ("key sk-proj-AbCdEf0123456789 used", "key sk-*** used"),
        ("Authorization: Bearer abc.def-ghi", "Authorization: ***"),
        ("authorization: Basic dXNlcjpwYXNz\nnext line", "authorization: ***\nnext line"),
        ("sent with Bearer eyJhbGciOi.x.y, then", "sent with Bearer ***, then"),
        ("short sk-1 stays", "short sk-1 stays"),
    ];
    for (text, want) in cases {
        assert_eq!(redact(text), want, "{text}");
    }
}

#[test]
fn secret_values_in_json_and_urls_are_hidden_and_the_rest_kept() {
    let cases = [
        (r#"{"api_key": "abc123", "path": "/tmp"}"#, r#"{"api_key": "***", "path": "/tmp"}"#),
        (r#"{"Token":"a\"b","max_tokens":100}"#, r#"{"Token":"***","max_tokens":100}"#),
        (r#"{'password': 'hunter2', 'user': 'ann'}"#, r#"{'password': '***', 'user': 'ann'}"#),
        (r#"{"client_secret": 12345}"#, r#"{"client_secret": ***}"#),
        (r#"{"args": "{\"access_token\": \"xyz\"}"}"#, r#"{"args": "{\"access_token\": \"***\"}"}"#),
        ("GET https://mcp.test/sse?access_token=abc&x=1#top", "GET https://mcp.test/sse?access_token=***&x=1#top"),
        ("https://api.test/v1?key=AIzaSy123&q=rust", "https://api.test/v1?key=***&q=rust"),
        ("x-api-key: k-42 then", "x-api-key: *** then"),
        ("the token was refused", "the token was refused"),
    ];
    for (text, want) in cases {
        assert_eq!(redact(text), want, "{text}");
    }
}

#[test]
fn redaction_is_kept_through_a_cut_and_a_second_pass() {
    // Cut first, the key's first characters would be left, too short to look like one.
    let long = format!("{} sk-abcdefghijklmnop {}", "x".repeat(MAX_TEXT - 8), "y".repeat(20));
    let e = entry(1.0, &long);
    assert!(!e.text.contains("abcd"), "redacted before it is cut: {}", e.text);
    assert!(e.text.chars().count() <= MAX_TEXT + 1 && e.text.ends_with('…'));
    let once = redact(r#"{"token": "t", "u": "v"} ?secret=s Bearer x sk-abcdefghijk Authorization: y"#);
    assert_eq!(once, r#"{"token": "***", "u": "v"} ?secret=*** Bearer *** sk-*** Authorization: ***"#);
    assert_eq!(redact(&once), once);
    // A stored entry read back is redacted again as it joins the ring.
    let mut log = EventLog::default();
    log.push(Entry { at: 1.0, level: Level::Warn, kind: Kind::McpError, text: "Bearer leaked".into() });
    assert_eq!(log.entries[0].text, "Bearer ***");
}

#[test]
fn the_log_is_kept_as_one_document_and_exported_as_json_lines() {
    pollster::block_on(async {
        let store = MemoryStore::default();
        let mut log = EventLog::default();
        log.push(Entry::new(1.0, Level::Info, Kind::TurnStarted, "turn"));
        log.push(Entry::new(2.0, Level::Warn, Kind::ToolDenied, "no"));
        LOG.write(&store, &log).await.expect("written");
        assert_eq!(LOG.read(&store).await, log);
        let text = log.to_jsonl();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines, [r#"{"at":1.0,"level":"info","kind":"turn_started","text":"turn"}"#, r#"{"at":2.0,"level":"warn","kind":"tool_denied","text":"no"}"#]);
        // A kind a later version wrote is read, not the whole log lost.
        store.put_doc(LOG.key(), r#"{"entries":[{"at":3.0,"level":"debug","kind":"from_the_future","text":"?"}]}"#).await.expect("put");
        assert_eq!(LOG.read(&store).await.entries[0].kind, Kind::Other);
    });
}
