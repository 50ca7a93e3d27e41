//! Tool rounds within a turn: calls run (in parallel, at most sixteen),
//! invalid and repeated calls, progress and questions from a running call,
//! Stop during a call, the round limit, tool parameters as sent, and tools
//! described in the prompt (prompt mode, and the probe of auto mode).
//! Compared with golden files in `transcripts/` (`UPDATE_EXPECT=1 cargo
//! test -p air-agent` rewrites them after a deliberate change; read the
//! diff).

mod common;

use std::cell::Cell;
use std::rc::Rc;

use air_agent::ToolMode;
use air_http::fake::Script;
use air_tools::{Annotations, ToolDef, ToolSource};
use expect_test::expect_file;
use serde_json::{Value, json};

use common::{Echo, bodies, calls_reply, chunk, def, run, setup, text_reply};

#[test]
fn calculator_style_tool_round_then_final_answer() {
    let s = setup();
    s.world.http.push(calls_reply(&[("call_1", "echo", r#"{"text":"ping"}"#)]));
    s.world.http.push(text_reply("The tool said ping."));
    run(s.turn().send(None, "Use echo")).unwrap();
    s.check(expect_file!["transcripts/tool_round.txt"]);
}

#[test]
fn parallel_calls_run_together_and_answer_in_call_order() {
    let s = setup();
    s.world.http.push(calls_reply(&[("a", "echo", r#"{"text":"one"}"#), ("b", "echo", r#"{"text":"two"}"#)]));
    s.world.http.push(text_reply("Both done."));
    run(s.turn().send(None, "Two at once")).unwrap();
    assert_eq!(s.most_parallel.get(), 2, "both calls were running at the same time");
    s.check(expect_file!["transcripts/parallel.txt"]);
}

#[test]
fn at_most_sixteen_calls_of_one_answer_run() {
    let s = setup();
    let ids: Vec<String> = (0..20).map(|i| format!("c{i}")).collect();
    let args: Vec<String> = (0..20).map(|i| format!(r#"{{"text":"n{i}"}}"#)).collect();
    let calls: Vec<(&str, &str, &str)> = ids.iter().zip(&args).map(|(id, a)| (id.as_str(), "echo", a.as_str())).collect();
    s.world.http.push(calls_reply(&calls));
    s.world.http.push(text_reply("Done."));
    let session = run(s.turn().send(None, "Twenty at once")).unwrap();
    let all = run(s.stored(&session));
    let statuses: Vec<_> = all.iter().filter_map(|m| m.tool.as_ref().map(|t| t.status)).collect();
    assert_eq!(statuses.len(), 20, "every call is answered");
    assert_eq!(statuses.iter().filter(|s| **s == air_store::records::ToolStatus::Done).count(), 16);
    assert!(all.iter().filter(|m| m.tool.is_some()).skip(16).all(|m| m.content.starts_with("Not run: at most 16")));
    assert!(s.most_parallel.get() <= 16);
}

#[test]
fn invalid_and_unknown_calls_go_back_to_the_model_which_corrects_itself() {
    let s = setup();
    s.world.http.push(calls_reply(&[("a", "echo", r#"{"txt": 5,}"#), ("b", "nope", "{}")]));
    s.world.http.push(calls_reply(&[("c", "echo", r#"{'text': 'fixed',}"#)]));
    s.world.http.push(text_reply("Fixed."));
    run(s.turn().send(None, "Try")).unwrap();
    s.check(expect_file!["transcripts/invalid_call.txt"]);
}

#[test]
fn a_running_call_reports_progress_and_asks_the_user() {
    let s = setup();
    s.world.http.push(calls_reply(&[("a", "survey", "{}")]));
    s.world.http.push(text_reply("Hello Ada."));
    run(s.turn().send(None, "Ask me")).unwrap();
    s.check(expect_file!["transcripts/progress_and_question.txt"]);
}

#[test]
fn stop_lets_a_call_cancel_its_work_before_it_is_marked_stopped() {
    let s = setup();
    s.world.http.push(calls_reply(&[("a", "remote", "{}")]));
    run(s.turn().send(None, "Go")).unwrap();
    assert!(s.cancelled.get(), "the call saw the Stop and cancelled its work");
    let stored = run(s.stored("id1"));
    let tool = stored.iter().find_map(|m| m.tool.as_ref()).unwrap();
    assert_eq!(tool.status, air_store::records::ToolStatus::Stopped);
}

/// A call whose server restarted: its session is gone, and the call is
/// waiting for the server to be connected to again when the user presses
/// Stop. Connecting ends at once, with an error of its own ("stopped.").
struct Reconnecting {
    def: ToolDef,
    abort: air_http::Abort,
}

impl air_tools::Tool for Reconnecting {
    fn def(&self) -> &ToolDef {
        &self.def
    }
    fn call<'a>(&'a self, _args: Value, ctx: air_tools::CallContext<'a>) -> futures_util::future::LocalBoxFuture<'a, air_tools::ToolOutput> {
        Box::pin(async move {
            self.abort.abort();
            ctx.abort.aborted().await;
            air_tools::ToolOutput::error("stopped.")
        })
    }
}

#[test]
fn stop_while_a_call_reconnects_ends_it_as_stopped_not_as_an_error() {
    let mut s = setup();
    let read_only = Annotations { read_only_hint: Some(true), ..Default::default() };
    s.tools.register(Rc::new(Reconnecting { def: def("restarted", json!({"type": "object"}), read_only), abort: s.abort.clone() }));
    s.world.http.push(calls_reply(&[("a", "restarted", "{}")]));
    run(s.turn().send(None, "Go")).unwrap();
    let stored = run(s.stored("id1"));
    let (tool, text) = stored.iter().find_map(|m| m.tool.as_ref().map(|t| (t, m.content.as_str()))).unwrap();
    assert_eq!((tool.status, text), (air_store::records::ToolStatus::Stopped, "Stopped by the user before it finished."));
}

#[test]
fn a_repeated_identical_call_is_not_run_again() {
    let s = setup();
    s.world.http.push(calls_reply(&[("a", "echo", r#"{"text":"x"}"#)]));
    s.world.http.push(calls_reply(&[("b", "echo", r#"{ "text" : "x" }"#)]));
    s.world.http.push(text_reply("OK."));
    run(s.turn().send(None, "Loop")).unwrap();
    s.check(expect_file!["transcripts/repeat.txt"]);
}

#[test]
fn the_round_limit_stops_the_loop_and_says_so() {
    let mut s = setup();
    s.settings.max_tool_rounds = 1;
    s.world.http.push(calls_reply(&[("a", "echo", r#"{"text":"1"}"#)]));
    s.world.http.push(calls_reply(&[("b", "echo", r#"{"text":"2"}"#)]));
    run(s.turn().send(None, "Go")).unwrap();
    assert_eq!(s.world.http.pending(), 0);
    assert_eq!(s.world.http.requests().len(), 2, "no third request");
    s.check(expect_file!["transcripts/round_limit.txt"]);
}

#[test]
fn stop_during_a_tool_call_ends_the_turn() {
    let s = setup();
    s.world.http.push(calls_reply(&[("a", "slow", "{}")]));
    run(s.turn().send(None, "Slow one")).unwrap();
    assert_eq!(s.world.http.requests().len(), 1, "the model is not asked again after Stop");
    s.check(expect_file!["transcripts/stop_mid_tool.txt"]);
}

/// An MCP server may describe a tool's input as `{}` or with `properties`
/// alone: the request gives its parameters `type: "object"`, and leaves a
/// schema with a type as it is.
#[test]
fn tool_parameters_without_a_type_are_sent_as_objects() {
    let mut s = setup();
    let echo = |name: &str, schema: Value| {
        let def = ToolDef { source: ToolSource::Mcp { server: "files".into() }, ..def(name, schema, Annotations::default()) };
        Rc::new(Echo { def, running: Rc::new(Cell::new(0)), most: Rc::new(Cell::new(0)) })
    };
    s.tools.register(echo("bare", json!({})));
    s.tools.register(echo("untyped", json!({"properties": {"q": {"type": "string"}}, "required": ["q"]})));
    s.world.http.push(text_reply("Hi."));
    run(s.turn().send(None, "Hello")).unwrap();
    let body: Value = serde_json::from_str(&bodies(&s)[0]).unwrap_or(Value::Null);
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    let parameters = |name: &str| {
        let tool = tools.iter().find(|t| t["function"]["name"] == name);
        tool.map(|t| t["function"]["parameters"].clone()).unwrap_or(Value::Null)
    };
    assert_eq!(parameters("bare"), json!({"type": "object", "properties": {}}));
    assert_eq!(parameters("untyped"), json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}));
    assert_eq!(parameters("slow"), json!({"type": "object"}), "a typed schema is not changed");
    assert_eq!(parameters("echo"), json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}));
    assert!(tools.iter().all(|t| t["function"]["parameters"]["type"] == "object"));
}

/// Prompt mode: the tools are in the system prompt, the call is read out of
/// the streamed text (and not shown), the result goes back as a user
/// message, and the model answers.
#[test]
fn prompt_mode_reads_calls_from_the_text() {
    let s = setup();
    s.world.http.push(Script::sse([
        chunk(json!({"content": "Let me echo that.\n<tool_"}), None),
        chunk(json!({"content": "call>{\"name\": \"echo\", \"arguments\": {\"text\": \"hi\"}}</tool_call>"}), None),
        chunk(json!({}), Some("stop")),
        "[DONE]".to_owned(),
    ]));
    s.world.http.push(text_reply("It said hi."));
    let turn = s.turn().with_mode(ToolMode::Prompt);
    let session = run(turn.send(None, "Echo hi")).unwrap();
    let all = run(s.stored(&session));
    assert_eq!(all[1].content, "Let me echo that.\n", "the call is not part of the text");
    assert_eq!(all[1].tool_calls[0].name, "echo");
    assert_eq!(all[2].content, "echo {\"text\":\"hi\"}");
    let second: Value = serde_json::from_str(s.world.http.requests()[1].body.as_deref().unwrap()).unwrap();
    assert!(second.get("tools").is_none(), "no native tools in prompt mode");
    assert!(second["messages"][0]["content"].as_str().unwrap().contains("## echo"));
    s.check(expect_file!["transcripts/prompt_mode.txt"]);
}

/// Auto: one probe finds the model answers tools in text only; that is
/// said (to be remembered) and the turn goes on in prompt mode.
#[test]
fn auto_mode_probes_once_and_says_what_it_found() {
    let s = setup();
    s.world.http.push(Script::status(200, r#"{"choices":[{"message":{"role":"assistant","content":"I cannot call tools."}}]}"#));
    s.world.http.push(text_reply("Hello."));
    run(s.turn().with_mode(ToolMode::Auto).send(None, "Hi")).unwrap();
    let reqs = s.world.http.requests();
    assert_eq!(reqs.len(), 2);
    let main: Value = serde_json::from_str(reqs[1].body.as_deref().unwrap()).unwrap();
    assert!(main.get("tools").is_none() && main["messages"][0]["content"].as_str().unwrap().starts_with("# Tools"));
    // Once known, no probe.
    let mut known = setup();
    known.settings.probed_tool_calling.insert(known.settings.tool_calling_key(), air_store::settings::ToolCalling::Native);
    known.world.http.push(text_reply("Hello."));
    run(known.turn().with_mode(ToolMode::Auto).send(None, "Hi")).unwrap();
    assert_eq!(known.world.http.requests().len(), 1);
    s.check(expect_file!["transcripts/auto_probe.txt"]);
}

/// Reading ahead (a model in this page keeps what it read): the probe runs
/// first if the way of calling tools is not known, then the request the
/// next message will make, with that message empty and nothing to
/// generate; nothing else is saved or shown. The message sent next makes the
/// same request up to its own text.
#[test]
fn reading_ahead_sends_the_next_request_with_an_empty_message_and_keeps_nothing() {
    let s = setup();
    s.world.http.push(Script::status(200, r#"{"choices":[{"message":{"role":"assistant","content":"I cannot call tools."}}]}"#));
    s.world.http.push(text_reply(""));
    run(s.turn().with_mode(ToolMode::Auto).warm(None));
    let reqs = s.world.http.requests();
    assert_eq!(reqs.len(), 2, "the probe, then the read-ahead");
    let ahead: Value = serde_json::from_str(reqs[1].body.as_deref().unwrap()).unwrap();
    assert_eq!(ahead["max_tokens"], 0);
    let messages = ahead["messages"].as_array().unwrap();
    assert!(messages[0]["content"].as_str().unwrap().starts_with("# Tools"), "prompt mode, as the probe found");
    assert_eq!((messages.len(), messages[1]["role"].as_str(), messages[1]["content"].as_str()), (2, Some("user"), Some("")));
    // Only what the probe learnt is said (to be remembered); nothing is saved or shown.
    assert_eq!(s.world.transcript().trim(), "learnt: http://model.test/v1 scripted calls tools Prompt");
    // The next message: the same system prompt, its own text after it.
    let mut known = setup();
    known.settings.probed_tool_calling.insert(known.settings.tool_calling_key(), air_store::settings::ToolCalling::Prompt);
    known.world.http.push(text_reply(""));
    known.world.http.push(text_reply("Hello."));
    run(known.turn().with_mode(ToolMode::Auto).warm(None));
    run(known.turn().with_mode(ToolMode::Auto).send(None, "Hi")).unwrap();
    let bodies: Vec<Value> = bodies(&known).iter().map(|b| serde_json::from_str(b).unwrap()).collect();
    assert_eq!(bodies.len(), 2, "no probe once known");
    assert_eq!(bodies[0]["messages"][0], bodies[1]["messages"][0]);
    assert_eq!(bodies[1]["messages"][1]["content"], "Hi");
}
