use air_dynamic::docs::{self, METRICS};
use air_dynamic::{Loaded, LoadedTool, Metrics, Source, Status};
use air_store::mcp::McpServer;
use air_store::{SessionRecord, Store};

use super::*;
use crate::fake::{FakePlatform, Harness, now};
use crate::prefs::{self, Change, Prefs};
use crate::{Command, Notice, Update};

fn server(name: &str, tools: &[&str]) -> McpServer {
    let tools: Vec<_> = tools.iter().map(|t| serde_json::json!({"name": t, "description": format!("Does {t}."), "inputSchema": {"type": "object"}})).collect();
    let mut s: McpServer = serde_json::from_value(serde_json::json!({"id": name, "name": name, "url": format!("http://127.0.0.1:9/{name}")})).expect("a server");
    s.tools = air_servers::list::saved_tools(&tools);
    s
}

/// A started harness with dynamic loading on (a summarizer if `model`),
/// server `docs` saved, and session `s1` stored and open.
fn harness(model: &str) -> Harness {
    let p = FakePlatform::default();
    let mut prefs = Prefs { servers: vec![server("docs", &["search", "fetch"])], ..Prefs::default() };
    prefs.settings.dynamic_mcp_loading = true;
    prefs.settings.mcp_summarizer_model = model.into();
    prefs::write(&*p.kv, &prefs, prefs::Touched { servers: true, settings: true, ..prefs::Touched::default() }).expect("written");
    now(p.store.put_session(&SessionRecord::new("s1", 1.0))).expect("stored");
    let mut h = Harness::new(p);
    h.send(Command::Start);
    h.send(Command::Open("s1".into()));
    h.take();
    h
}

fn gained(requests: u64) -> Metrics {
    Metrics { requests, ..Metrics::default() }
}

fn loaded_tool(server: &str, tool: &str) -> LoadedTool {
    LoadedTool { server: server.into(), tool: tool.into(), schema_hash: "h".into(), epoch: 0, status: Status::Valid, reason: None, source: Source::Manual, loaded_at: 1.0, updated_at: 1.0 }
}

fn jobs(h: &Harness, kind: &str) -> usize {
    h.p.dynamic_jobs.borrow().iter().filter(|j| *j == kind).count()
}

#[test]
fn the_overall_metrics_are_written_one_at_a_time_and_none_is_lost() {
    let mut h = harness("");
    h.p.hold_dynamic.set(true);
    h.send(Command::Dynamic(Action::Loaded { list: Loaded::default(), gained: gained(1) }));
    h.send(Command::Dynamic(Action::Loaded { list: Loaded::default(), gained: gained(2) }));
    h.send(Command::Dynamic(Action::Loaded { list: Loaded::default(), gained: Metrics::default() }));
    assert_eq!(jobs(&h, "AddMetrics"), 1, "a second write waits for the first");
    h.p.hold_dynamic.set(false);
    h.run();
    assert_eq!(jobs(&h, "AddMetrics"), 2, "what came meanwhile is written after, in one write");
    assert_eq!(now(METRICS.read(&*h.p.store)).requests, 3);
    let shown = h.take().into_iter().filter_map(|u| if let Update::Metrics(m) = u { Some(m.requests) } else { None }).collect::<Vec<_>>();
    assert_eq!(shown.last(), Some(&3));
}

#[test]
fn gains_whose_write_could_not_run_are_written_with_the_next() {
    let mut h = harness("");
    h.p.parts_missing.set(true);
    h.send(Command::Dynamic(Action::Loaded { list: Loaded::default(), gained: gained(4) }));
    assert!(h.take().contains(&Update::Notice(Notice::PartMissing)));
    h.p.parts_missing.set(false);
    h.send(Command::Dynamic(Action::Loaded { list: Loaded::default(), gained: gained(1) }));
    assert_eq!(now(METRICS.read(&*h.p.store)).requests, 5);
}

#[test]
fn a_conversation_opened_shows_its_loaded_tools_checked_against_the_servers() {
    let mut h = harness("");
    // Loaded from a server since removed.
    let list = Loaded { tools: vec![loaded_tool("gone", "search")], metrics: Metrics::default() };
    now(docs::loaded("s1").write(&*h.p.store, &list)).expect("stored");
    h.send(Command::NewChat);
    assert!(h.take().contains(&Update::LoadedTools(Loaded::default())), "the new chat has none");
    h.send(Command::Open("s1".into()));
    let shown = h.take().into_iter().rev().find_map(|u| if let Update::LoadedTools(l) = u { Some(l) } else { None }).expect("shown");
    assert_eq!(shown.tools[0].status, Status::InvalidDeleted);
    assert_eq!(now(docs::loaded("s1").read(&*h.p.store)).tools[0].status, Status::InvalidDeleted, "what the check changed is saved");

    // Switched off, dynamic loading reads nothing.
    let mut settings = h.ws.prefs().settings.clone();
    settings.dynamic_mcp_loading = false;
    h.send(Command::Prefs(Change::Settings(Box::new(settings))));
    h.send(Command::NewChat);
    h.take();
    let gates = jobs(&h, "Gate");
    h.send(Command::Open("s1".into()));
    assert_eq!(jobs(&h, "Gate"), gates);
    assert!(h.take().contains(&Update::LoadedTools(Loaded::default())));
}

#[test]
fn the_catalog_follows_the_servers_and_the_open_chat_is_checked_again() {
    let mut h = harness("");
    let gates = jobs(&h, "Gate");
    h.send(Command::Servers(crate::servers::Action::SetEnabled { name: "docs".into(), on: false }));
    assert_eq!(jobs(&h, "Gate"), gates + 1);
    let catalog = now(docs::CATALOG.read(&*h.p.store));
    assert!(catalog.servers.iter().any(|s| s.name == "docs" && !s.enabled), "the catalog says the server is off");
}

#[test]
fn the_summarizer_is_not_asked_again_about_what_it_failed_on() {
    let mut h = harness("summarizer-model");
    // Opening ran nothing of the summarizer; a change of the servers does.
    h.send(Command::Dynamic(Action::Refresh));
    let asked = h.p.http.requests().len();
    assert_eq!(asked, 1, "one server without a summary: one ask (no answer scripted: it fails)");
    h.send(Command::Dynamic(Action::Refresh));
    h.send(Command::Dynamic(Action::Summarize));
    assert_eq!(h.p.http.requests().len(), asked, "not asked again this page life");
    assert_eq!(jobs(&h, "Summarize"), 3, "each asks, and the skip list holds it back");

    // Another model is another question.
    let mut settings = h.ws.prefs().settings.clone();
    settings.mcp_summarizer_model = "other-model".into();
    h.send(Command::Prefs(Change::Settings(Box::new(settings))));
    assert_eq!(h.p.http.requests().len(), asked + 1);
}

#[test]
fn a_conversation_deleted_for_good_takes_its_loaded_tools_with_it() {
    let mut h = harness("");
    let list = Loaded { tools: vec![loaded_tool("docs", "search")], metrics: gained(2) };
    now(docs::loaded("s1").write(&*h.p.store, &list)).expect("stored");
    h.send(Command::Delete("s1".into()));
    // Within the undo window it is kept; once the window closes it goes.
    assert_eq!(now(docs::loaded("s1").read(&*h.p.store)), list);
    h.advance(crate::sessions::UNDO_MS + 1);
    assert_eq!(now(docs::loaded("s1").read(&*h.p.store)), Loaded::default());
}
