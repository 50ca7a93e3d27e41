use air_store::settings::ToolCalling;
use serde_json::{Value, json};

use crate::fake::{FakePlatform, Harness};
use crate::fake_tools::{model, server, text};
use crate::platform::Part;
use crate::turn::Job;
use crate::{Command, Notice, Update};

fn docs() -> air_store::mcp::McpServer {
    server("docs", "http://127.0.0.1:9/docs", &[json!({"name": "search", "description": "Searches the docs.", "inputSchema": {"type": "object"}})])
}

/// A started workspace with the scripted model, the server `docs`, and
/// dynamic loading as `dynamic` says.
fn harness(dynamic: bool) -> Harness {
    let mut h = Harness::new(FakePlatform::default());
    h.send(Command::Start);
    h.use_settings(air_store::Settings { dynamic_mcp_loading: dynamic, ..model(ToolCalling::Native) });
    h.add_answering_server(docs(), "3 pages");
    h.take();
    h
}

/// The names of the tools the model was offered in request `i`.
fn offered(h: &Harness, i: usize) -> Vec<String> {
    let body: Value = serde_json::from_str(h.p.http.requests()[i].body.as_deref().expect("a body")).expect("JSON");
    let mut names: Vec<String> = body["tools"].as_array().into_iter().flatten().filter_map(|t| t["function"]["name"].as_str()).map(str::to_owned).collect();
    names.sort();
    names
}

fn send(h: &mut Harness, text_: &str) -> Vec<Update> {
    h.p.http.push(text("Done."));
    h.send(Command::Turn(crate::turn::Action::Start(Job::Send(text_.into()))));
    h.take()
}

#[test]
fn a_turn_offers_the_built_ins_and_its_servers_tools() {
    let mut h = harness(false);
    let ups = send(&mut h, "Find it");
    assert_eq!(offered(&h, 0), ["calculator", "get_current_time", "mcp_docs_search", "run_javascript", "run_python"]);
    assert!(!ups.contains(&Update::Notice(Notice::PartMissing)), "{ups:?}");
}

#[test]
fn the_mcp_part_missing_leaves_the_built_ins_turns_dynamic_loading_off_and_says_so() {
    for dynamic in [false, true] {
        let mut h = harness(dynamic);
        h.p.missing.borrow_mut().push(Part::Mcp);
        let ups = send(&mut h, "Find it");
        assert_eq!(offered(&h, 0), ["calculator", "get_current_time", "run_javascript", "run_python"], "dynamic loading {dynamic}: no server's tool, no loader");
        assert!(ups.contains(&Update::Notice(Notice::PartMissing)), "the user is told: {ups:?}");
        assert!(!h.ws.busy(), "the turn answered");
    }
}

#[test]
fn dynamic_loading_offers_its_loaders_and_without_its_part_the_tools_as_they_are() {
    let mut h = harness(true);
    send(&mut h, "Find it");
    let first = offered(&h, 0);
    assert!(first.iter().any(|n| n.starts_with("load_mcp")) && !first.contains(&"mcp_docs_search".to_owned()), "loaders, the server's tool not loaded: {first:?}");

    let mut h = harness(true);
    h.p.missing.borrow_mut().push(Part::DynamicLoading);
    let ups = send(&mut h, "Find it");
    assert_eq!(offered(&h, 0), ["calculator", "get_current_time", "mcp_docs_search", "run_javascript", "run_python"], "no loader: every tool as it is");
    assert!(ups.contains(&Update::Notice(Notice::PartMissing)), "{ups:?}");
}

#[test]
fn the_turn_runs_with_the_preferences_it_started_with() {
    let mut h = harness(false);
    // The chat does not use `docs`: its tool is not offered, though saved.
    h.send(Command::Prefs(crate::prefs::Action::Change(crate::prefs::Change::ChatServer { chat: air_store::mcp::NEW_CHAT.into(), server: "docs".into(), on: false })));
    send(&mut h, "Find it");
    assert_eq!(offered(&h, 0), ["calculator", "get_current_time", "run_javascript", "run_python"]);
}

#[test]
fn the_policy_list_is_what_the_kinds_could_offer_http_tools_included() {
    let mut h = harness(false);
    let pet = air_http_tools::HttpTool {
        name: "get_pet".into(),
        description: "A pet.".into(),
        input_schema: json!({"type": "object"}),
        method: air_http_tools::Method::Get,
        url: "https://pets.test/pet".into(),
        headers: vec![],
        args_in: Default::default(),
        query: vec![],
        body_arg: None,
    };
    h.send(Command::HttpTools(crate::http_tools::Action::Add(Box::new(pet))));
    let names: Vec<String> = h.ws.policy_defs().into_iter().map(|d| d.name).collect();
    assert_eq!(names, ["calculator", "get_current_time", "get_pet", "mcp_docs_search", "run_javascript", "run_python"]);
}
