//! MCP tools loaded dynamically within turns: nothing changes with the
//! feature off, the loaders and the catalog are offered when on, loaded
//! tools are offered and run, unloaded ones are refused or loaded once,
//! and prompt mode describes the loaders.
//! Compared with golden files in `transcripts/` (`UPDATE_EXPECT=1 cargo
//! test -p air-agent` rewrites them after a deliberate change; read the
//! diff).

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use air_agent::{Approval, ToolMode};
use expect_test::expect_file;
use serde_json::{Value, json};

use common::{Setup, bodies, calls_reply, run, setup, text_reply};

/// The saved server behind the setup's one MCP tool (`delete_file` of
/// `files`), and a second one not registered, to be found.
fn dynamic_servers() -> Vec<air_store::mcp::McpServer> {
    let saved = |name: &str, description: &str| air_store::mcp::SavedTool::new(name, description, json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}));
    vec![air_store::mcp::McpServer {
        id: "files".into(),
        name: "files".into(),
        url: "https://files.test/mcp".into(),
        headers: Vec::new(),
        enabled: true,
        tools: vec![saved("delete_file", "Deletes a file for good.")],
        excluded: Vec::new(),
        protocol: None,
        trust_hints: false,
    }]
}

/// A dynamic-loading session over the setup's tools, whose loaded set is
/// written to `saved` on each change.
fn dynamic_session(auto_load: bool, saved: Rc<RefCell<Vec<air_dynamic::Loaded>>>) -> Rc<air_dynamic::Session> {
    let servers = dynamic_servers();
    let catalog = air_dynamic::Catalog::default().refresh(&servers, 0.0);
    air_dynamic::Session::new(
        catalog,
        servers,
        air_dynamic::Loaded::default(),
        vec![("files".into(), "delete_file".into(), "delete_file".into())],
        auto_load,
        Box::new(|| 5_000.0),
        Box::new(move |l| saved.borrow_mut().push(l.clone())),
    )
}

/// NFR-1: with dynamic loading off by either switch, every request is the
/// same, byte for byte, as without the feature, in native and prompt mode.
#[test]
fn dynamic_loading_off_changes_no_byte_of_any_request() {
    let scenario = |s: &Setup| {
        s.world.http.push(calls_reply(&[("c1", "echo", r#"{"text": "hi"}"#)]));
        s.world.http.push(text_reply("Done."));
    };
    for mode in [ToolMode::Native, ToolMode::Prompt] {
        let plain = setup();
        scenario(&plain);
        if mode == ToolMode::Prompt {
            plain.world.http.push(text_reply("Done."));
        }
        run(plain.turn().with_mode(mode).send(None, "Echo hi")).unwrap();
        let expected = bodies(&plain);
        assert!(expected.len() >= 2);
        for (global, assistant) in [(false, None), (false, Some(true)), (false, Some(false)), (true, Some(false))] {
            let mut s = setup();
            scenario(&s);
            if mode == ToolMode::Prompt {
                s.world.http.push(text_reply("Done."));
            }
            let saved = Rc::new(RefCell::new(Vec::new()));
            let offer = air_dynamic::prepare(global, assistant, &mut s.tools, || dynamic_session(false, saved.clone()));
            assert!(offer.is_none());
            run(s.turn().with_mode(mode).with_offer(offer).send(None, "Echo hi")).unwrap();
            assert_eq!(bodies(&s), expected, "{mode:?} global={global} assistant={assistant:?}");
            assert!(saved.borrow().is_empty());
        }
    }
}

/// On, with no server switched on: there is nothing to load, and the
/// loaders are not offered (the requests are those without the feature).
#[test]
fn dynamic_loading_with_no_server_offers_no_loaders() {
    let plain = setup();
    plain.world.http.push(calls_reply(&[("c1", "echo", r#"{"text": "hi"}"#)]));
    plain.world.http.push(text_reply("Done."));
    run(plain.turn().send(None, "Echo hi")).unwrap();
    for switched_off in [true, false] {
        let mut s = setup();
        s.world.http.push(calls_reply(&[("c1", "echo", r#"{"text": "hi"}"#)]));
        s.world.http.push(text_reply("Done."));
        let mut servers = dynamic_servers();
        if switched_off {
            servers[0].enabled = false;
        } else {
            servers.clear();
        }
        let catalog = air_dynamic::Catalog::default().refresh(&servers, 0.0);
        let offer =
            air_dynamic::prepare(true, None, &mut s.tools, || air_dynamic::Session::new(catalog, servers, air_dynamic::Loaded::default(), Vec::new(), false, Box::new(|| 1.0), Box::new(|_| {})));
        assert!(offer.is_none(), "switched off: {switched_off}");
        assert!(s.tools.get("load_mcp_tool").is_none() && s.tools.get("load_mcp_server").is_none());
        run(s.turn().with_offer(offer).send(None, "Echo hi")).unwrap();
        assert_eq!(bodies(&s), bodies(&plain));
    }
}

/// On: the first request offers the built-ins and the loaders with the
/// catalog in the system prompt; the model loads a tool, which is offered
/// from the next request and runs.
#[test]
fn dynamic_loading_offers_the_catalog_then_what_was_loaded() {
    let mut s = setup();
    let saved = Rc::new(RefCell::new(Vec::new()));
    let offer = air_dynamic::prepare(true, None, &mut s.tools, || dynamic_session(false, saved.clone()));
    assert!(offer.is_some());
    s.world.http.push(calls_reply(&[("l1", "load_mcp_tool", r#"{"names": ["delete a file"]}"#)]));
    s.world.http.push(calls_reply(&[("d1", "delete_file", r#"{"text": "old.txt"}"#)]));
    s.world.http.push(text_reply("Deleted."));
    s.world.approvals.borrow_mut().push_back(Approval::Once);
    let session = run(s.turn().with_offer(offer).send(None, "Delete old.txt")).unwrap();
    let requests: Vec<Value> = bodies(&s).iter().map(|b| serde_json::from_str(b).unwrap_or(Value::Null)).collect();
    let names = |r: &Value| r["tools"].as_array().map(|a| a.iter().filter_map(|t| t["function"]["name"].as_str().map(str::to_owned)).collect::<Vec<_>>()).unwrap_or_default();
    assert_eq!(names(&requests[0]), ["echo", "load_mcp_server", "load_mcp_tool", "remote", "slow", "survey"]);
    let system = requests[0]["messages"][0]["content"].as_str().unwrap_or_default();
    assert!(system.ends_with("Servers:\n- files: 1 tools: delete_file"), "{system}");
    assert_eq!(names(&requests[1]), ["delete_file", "echo", "load_mcp_server", "load_mcp_tool", "remote", "slow", "survey"]);
    let all = run(s.stored(&session));
    let loaded: Value = serde_json::from_str(&all[2].content).unwrap_or(Value::Null);
    assert_eq!(loaded["loaded"][0]["name"], "delete_file");
    assert_eq!(loaded["loaded"][0]["parameters"]["required"], json!(["text"]));
    assert_eq!(all[4].content, r#"echo {"text":"old.txt"}"#, "the loaded tool ran");
    let last = saved.borrow().last().cloned().unwrap_or_default();
    assert_eq!(last.tools.len(), 1);
    assert_eq!((last.tools[0].tool.as_str(), last.tools[0].status, last.tools[0].source), ("delete_file", air_dynamic::Status::Valid, air_dynamic::Source::Manual));
    // NFR-3: three requests, one extra step to load, the one name asked found.
    let m = last.metrics;
    assert_eq!((m.requests, m.extra_steps, m.asked, m.found, m.unloaded_calls, m.invalidations), (3, 1, 1, 1, 0, 0));
    assert_eq!(m.hit_rate(), Some(1.0));
    assert!(m.context_tokens > 0 && m.context_tokens_without > 0);
    // One turn; the provider counted the last request's prompt (10 tokens).
    assert_eq!((m.turns, m.measured_requests, m.prompt_tokens), (1, 1, 10));
    assert!(m.prompt_tokens_without > 0);
    assert_eq!(m.invalidation_rate(), Some(0.0));
    s.check(expect_file!["transcripts/dynamic_loading.txt"]);
}

/// A round that loads a tool and calls another is no extra round: the
/// model needed it anyway.
#[test]
fn only_rounds_that_just_load_are_extra() {
    let mut s = setup();
    let saved = Rc::new(RefCell::new(Vec::new()));
    let offer = air_dynamic::prepare(true, None, &mut s.tools, || dynamic_session(false, saved.clone()));
    s.world.http.push(calls_reply(&[("l1", "load_mcp_tool", r#"{"names": ["delete_file"]}"#), ("e1", "echo", r#"{"text": "hi"}"#)]));
    s.world.http.push(calls_reply(&[("l2", "load_mcp_server", r#"{"name": "files"}"#)]));
    s.world.http.push(text_reply("Done."));
    run(s.turn().with_offer(offer).send(None, "Echo and look")).unwrap();
    let m = saved.borrow().last().cloned().unwrap_or_default().metrics;
    assert_eq!((m.requests, m.turns, m.extra_steps), (3, 1, 1), "the second round only loaded");
}

/// A call of a tool that was not loaded is refused with what to do; with
/// "auto-load once" it is loaded and runs.
#[test]
fn a_tool_that_is_not_loaded_is_refused_or_auto_loaded() {
    for auto in [false, true] {
        let mut s = setup();
        let saved = Rc::new(RefCell::new(Vec::new()));
        let offer = air_dynamic::prepare(true, Some(true), &mut s.tools, || dynamic_session(auto, saved.clone()));
        s.world.http.push(calls_reply(&[("d1", "delete_file", r#"{"text": "old.txt"}"#)]));
        s.world.http.push(text_reply("OK."));
        s.world.approvals.borrow_mut().push_back(Approval::Once);
        let session = run(s.turn().with_offer(offer).send(None, "Delete old.txt")).unwrap();
        let all = run(s.stored(&session));
        if auto {
            assert_eq!(all[2].content, r#"echo {"text":"old.txt"}"#);
            assert_eq!(saved.borrow().last().map(|l| l.tools[0].source), Some(air_dynamic::Source::Auto));
        } else {
            assert_eq!(all[2].content, "The tool delete_file is not loaded. Call load_mcp_tool with its name first, then call it.");
            let last = saved.borrow().last().cloned().unwrap_or_default();
            assert!(last.tools.is_empty(), "nothing loaded");
            assert_eq!(last.metrics.unloaded_calls, 1);
        }
    }
}

/// Prompt mode: the tools section lists the built-ins and the loaders, and
/// the catalog follows; loaded tools reach the model through the
/// conversation (the loader's answer).
#[test]
fn dynamic_loading_in_prompt_mode() {
    let mut s = setup();
    let saved = Rc::new(RefCell::new(Vec::new()));
    let offer = air_dynamic::prepare(true, None, &mut s.tools, || dynamic_session(false, saved.clone()));
    s.world.http.push(text_reply("Hello."));
    run(s.turn().with_mode(ToolMode::Prompt).with_offer(offer).send(None, "Hi")).unwrap();
    let body: Value = serde_json::from_str(&bodies(&s)[0]).unwrap_or(Value::Null);
    assert!(body.get("tools").is_none());
    let system = body["messages"][0]["content"].as_str().unwrap_or_default();
    assert!(system.contains("## load_mcp_tool") && system.contains("## echo"), "{system}");
    assert!(!system.contains("## delete_file"), "not loaded, not described");
    assert!(system.ends_with("- files: 1 tools: delete_file"));
}
