use std::rc::Rc;

use air_dynamic::{Loaded, LoadedTool, Source, Status};
use air_http::fake::Script;
use air_tools::{CallContext, Tool, ToolDef, ToolOutput};
use futures_util::future::LocalBoxFuture;
use serde_json::{Value, json};

use super::*;
use crate::fake::{FakePlatform, Harness, now};
use crate::fake_tools::{chunk, text as text_reply};

fn calls_reply(calls: &[(&str, &str)]) -> Script {
    let ids: Vec<String> = (0..calls.len()).map(|i| format!("c{i}")).collect();
    crate::fake_tools::calls(&calls.iter().zip(&ids).map(|((n, a), id)| (id.as_str(), *n, *a)).collect::<Vec<_>>())
}

fn started() -> Harness {
    let mut h = Harness::new(FakePlatform::default());
    h.send(Command::Start);
    h.take();
    h
}

/// The log as the page is shown it, newest first.
fn shown(h: &mut Harness) -> Vec<Entry> {
    h.send(Command::Log(Action::Want));
    h.take().into_iter().rev().find_map(|u| if let Update::Log(list) = u { Some(list) } else { None }).expect("the log is shown")
}

fn texts(list: &[Entry]) -> Vec<&str> {
    list.iter().map(|e| e.text.as_str()).collect()
}

fn stored_texts(h: &Harness) -> Vec<String> {
    now(stored(&*h.p.store)).entries.into_iter().map(|e| e.text).collect()
}

fn note_cmd(text: &str) -> Command {
    Command::Log(Action::Note { level: Level::Warn, kind: Kind::McpRetry, text: text.into() })
}

#[test]
fn entries_are_written_in_a_batch_after_a_while_not_each_at_once() {
    let mut h = started();
    h.send(note_cmd("one"));
    h.send(note_cmd("two"));
    assert!(stored_texts(&h).is_empty(), "nothing written yet");
    h.advance(FLUSH_MS - 1);
    assert!(stored_texts(&h).is_empty(), "not before the batch's time");
    h.advance(1);
    assert_eq!(stored_texts(&h), ["one", "two"]);
    // Shown newest first.
    assert_eq!(texts(&shown(&mut h)), ["two", "one"]);
}

#[test]
fn a_failed_write_keeps_its_entries_for_the_next() {
    let mut h = started();
    h.p.store.refuse_docs.set(true);
    h.send(note_cmd("kept"));
    h.advance(FLUSH_MS);
    assert!(stored_texts(&h).is_empty(), "the write failed");
    h.p.store.refuse_docs.set(false);
    h.send(note_cmd("later"));
    // The failed write armed the next batch: it takes both.
    h.advance(FLUSH_MS);
    assert_eq!(stored_texts(&h), ["kept", "later"]);
}

#[test]
fn entries_wait_in_the_core_while_the_work_cannot_be_fetched() {
    let mut h = started();
    h.p.parts_missing.set(true);
    h.send(note_cmd("first"));
    h.advance(FLUSH_MS);
    assert!(stored_texts(&h).is_empty());
    h.p.parts_missing.set(false);
    h.send(note_cmd("second token=abc123"));
    h.advance(FLUSH_MS);
    assert_eq!(stored_texts(&h), ["first", "second token=***"], "none lost, and redacted on the way");
}

#[test]
fn the_stored_log_is_read_back_at_start_and_kept_before_what_comes() {
    let p = FakePlatform::default();
    let mut old = EventLog::default();
    old.push(Entry::new(1.0, Level::Info, Kind::TurnStarted, "from before"));
    now(LOG.write(&*p.store, &old)).expect("stored");
    let mut h = Harness::new(p);
    h.send(Command::Start);
    h.send(note_cmd("now"));
    h.advance(FLUSH_MS);
    assert_eq!(stored_texts(&h), ["from before", "now"], "not written over");
    assert_eq!(texts(&shown(&mut h)), ["now", "from before"]);
}

#[test]
fn secrets_are_not_kept_nor_exported() {
    let mut h = started();
    h.send(note_cmd(r#"GET https://x.test/mcp?token=abc123 with {"api_key": "sk-abcdefghijkl"} Authorization: Bearer zzz"#));
    h.send(Command::Log(Action::Export));
    let files = h.p.downloads.borrow().clone();
    assert_eq!(files.len(), 1);
    let (name, mime, text) = &files[0];
    assert_eq!((name.as_str(), mime.as_str()), ("air-agent-log-2026-11-25.jsonl", "application/jsonl"));
    for secret in ["abc123", "sk-abcdefghijkl", "zzz"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    let line: Value = serde_json::from_str(text.lines().next().unwrap_or_default()).expect("one JSON line");
    assert_eq!(line["kind"], "mcp_retry");
    assert_eq!(line["level"], "warn");
}

/// A built-in tool that answers with its arguments.
struct Echo(ToolDef);

impl Tool for Echo {
    fn def(&self) -> &ToolDef {
        &self.0
    }
    fn call<'a>(&'a self, args: Value, _ctx: CallContext<'a>) -> LocalBoxFuture<'a, ToolOutput> {
        Box::pin(async move { ToolOutput::text(format!("echo {args}")) })
    }
}

fn with_echo() -> Harness {
    with_echo_in(air_store::settings::ToolCalling::Native)
}

fn with_echo_in(tool_calling: air_store::settings::ToolCalling) -> Harness {
    let mut h = Harness::new(FakePlatform::default());
    h.send(Command::Start);
    let mut settings = crate::fake_tools::model(tool_calling);
    settings.tool_policies.set_server("t", Some(air_tools::policy::Policy::Allow));
    h.use_settings(settings);
    let echo = json!({"name": "echo", "description": "Echoes.", "inputSchema": {"type": "object"}});
    h.add_server(crate::fake_tools::server("t", "http://127.0.0.1:9/t", &[echo]), |def| Rc::new(Echo(def)));
    h.take();
    h
}

#[test]
fn a_turn_with_tool_calls_is_traced_and_written_when_it_ends() {
    let mut h = with_echo();
    h.p.http.push(calls_reply(&[("mcp_t_echo", r#"{"text": "hi", "password": "hunter2"}"#), ("delete_all", "{}")]));
    h.p.http.push(text_reply("Done."));
    h.send(Command::Turn(crate::turn::Action::Start(crate::turn::Job::Send("Echo hi".into()))));
    assert!(h.take().contains(&Update::Sent));
    // Written when the turn ended, without waiting for the batch.
    let stored = stored_texts(&h);
    assert!(stored.last().is_some_and(|t| t == "Turn ended"), "{stored:?}");
    let list = shown(&mut h);
    let mut kinds: Vec<Kind> = list.iter().rev().map(|e| e.kind).collect();
    kinds.dedup();
    assert_eq!(kinds[..3], [Kind::TurnStarted, Kind::ToolsOffered, Kind::ToolCalled], "{list:#?}");
    assert_eq!(kinds.last(), Some(&Kind::TurnEnded));
    let find = |kind: Kind| list.iter().find(|e| e.kind == kind).map(|e| e.text.clone()).unwrap_or_default();
    assert_eq!(find(Kind::TurnStarted), "Turn started: Send(\"Echo hi\") in a new chat");
    let offered = find(Kind::ToolsOffered);
    assert!(offered.starts_with("5 tools offered (Native): ") && offered.contains("mcp_t_echo"), "{offered}");
    let called = find(Kind::ToolCalled);
    assert!(called.starts_with("t/mcp_t_echo called with") && called.contains("\"hi\"") && !called.contains("hunter2"), "{called}");
    let done = find(Kind::ToolDone);
    let ms = done.strip_prefix("t/mcp_t_echo answered in ").and_then(|r| r.strip_suffix(" ms"));
    assert!(ms.is_some_and(|n| n.parse::<u64>().is_ok()), "the call's duration is logged: {done}");
    let refused = find(Kind::ToolRefused);
    assert!(refused.starts_with("delete_all not run: Unknown tool"), "{refused}");
    assert_eq!(list.iter().find(|e| e.kind == Kind::ToolRefused).map(|e| e.level), Some(Level::Warn));
    // Each status once, though a running call is saved more than once.
    assert_eq!(list.iter().filter(|e| e.kind == Kind::ToolCalled).count(), 1);
}

/// Prompt mode (seed 003's debug logs): what was offered in the system
/// prompt, each call the parser found in the text, and how it ended.
#[test]
fn a_call_found_in_prompt_mode_text_is_traced() {
    let mut h = with_echo_in(air_store::settings::ToolCalling::Prompt);
    h.p.http.push(Script::sse([
        chunk(json!({"role": "assistant", "content": "Echoing.\n<tool_call>{\"name\": \"mcp_t_echo\", \"arguments\": {\"text\": \"hi\"}}</tool_call>"}), None),
        chunk(json!({}), Some("stop")),
        "[DONE]".to_owned(),
    ]));
    h.p.http.push(text_reply("It said hi."));
    h.send(Command::Turn(crate::turn::Action::Start(crate::turn::Job::Send("Echo hi".into()))));
    let list = shown(&mut h);
    let got: Vec<(Kind, &str)> = list.iter().rev().map(|e| (e.kind, e.text.as_str())).filter(|(k, _)| *k != Kind::TurnStarted && *k != Kind::TurnEnded).collect();
    assert_eq!(got.len(), 3, "{got:#?}");
    assert!(got[0].0 == Kind::ToolsOffered && got[0].1.starts_with("5 tools offered (Prompt): ") && got[0].1.contains("mcp_t_echo"), "{got:#?}");
    assert_eq!(got[1].0, Kind::ToolCalled);
    assert!(got[1].1.starts_with("t/mcp_t_echo called with") && got[1].1.contains("\"hi\""), "{got:#?}");
    assert_eq!(got[2].0, Kind::ToolDone);
    assert!(got[2].1.starts_with("t/mcp_t_echo answered in "), "{got:#?}");
}

#[test]
fn server_sessions_and_listings_are_traced() {
    let mut h = started();
    let status = |name: &str, status| Command::Servers(crate::servers::Action::Status { name: name.into(), status });
    h.send(status("files", air_mcp::Connection::Connected { version: "2025-06-18".into() }));
    h.send(status("files", air_mcp::Connection::Reconnecting));
    h.send(status("files", air_mcp::Connection::Failed { reason: "HTTP 401 for Bearer abc".into() }));
    h.send(Command::Servers(crate::servers::Action::Resync { name: "files".into(), url: "ftp://files.test".into(), headers: None }));
    let list = shown(&mut h);
    let got: Vec<(Level, Kind, &str)> = list.iter().rev().map(|e| (e.level, e.kind, e.text.as_str())).collect();
    assert_eq!(
        got,
        [
            (Level::Info, Kind::McpConnect, "files: connected (MCP 2025-06-18)"),
            (Level::Warn, Kind::McpRetry, "files: the session ended; connecting again"),
            (Level::Error, Kind::McpError, "files: HTTP 401 for Bearer ***"),
            (Level::Error, Kind::McpError, "files: tools not listed again: NotHttp"),
        ]
    );
}

fn tool(name: &str, status: Status, at: f64) -> LoadedTool {
    let reason = (status != Status::Valid).then(|| format!("{name} was switched off"));
    LoadedTool { server: "gh".into(), server_id: String::new(), tool: name.into(), schema_hash: "h".into(), epoch: 1, status, reason, source: Source::Manual, loaded_at: 1.0, updated_at: at }
}

#[test]
fn tools_loaded_and_invalidated_are_traced_against_what_was_seen() {
    let mut h = started();
    h.p.now.set(100_000.0);
    let gated = |tools: Vec<LoadedTool>| Command::Dynamic(crate::dynamic::Action::Gated { session: Some("s".into()), result: Ok((Loaded { tools, ..Loaded::default() }, true)), kept: Ok(()) });
    // Seen first: long loaded, nothing new.
    h.send(gated(vec![tool("issues", Status::Valid, 1.0)]));
    assert!(shown(&mut h).is_empty());
    let at = h.p.now.get();
    h.send(gated(vec![tool("issues", Status::InvalidDisabled, at), tool("pulls", Status::Valid, 1.0)]));
    h.send(gated(vec![tool("issues", Status::InvalidDisabled, at), tool("pulls", Status::Valid, 1.0)]));
    let list = shown(&mut h);
    let got: Vec<(Kind, &str)> = list.iter().rev().map(|e| (e.kind, e.text.as_str())).collect();
    assert_eq!(got, [(Kind::ToolInvalidated, "gh/issues no longer offered: issues was switched off"), (Kind::ToolLoaded, "gh/pulls loaded (Manual)")]);
    // A conversation not seen before: what changed just now is new.
    let fresh = LoadedTool { loaded_at: at, ..tool("labels", Status::Valid, at) };
    let other = Command::Dynamic(crate::dynamic::Action::Gated {
        session: Some("t".into()),
        result: Ok((Loaded { tools: vec![fresh, tool("old", Status::Valid, 1.0)], ..Loaded::default() }, true)),
        kept: Ok(()),
    });
    h.send(other);
    assert_eq!(texts(&shown(&mut h))[0..2], ["gh/labels loaded (Manual)", "gh/pulls loaded (Manual)"]);
}
