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
    harness_with(|s| s.mcp_summarizer_model = model.into())
}

/// [`harness`], with the settings as `set` makes them.
fn harness_with(set: impl FnOnce(&mut air_store::Settings)) -> Harness {
    let p = FakePlatform::default();
    let mut prefs = Prefs { servers: vec![server("docs", &["search", "fetch"])], ..Prefs::default() };
    prefs.settings.dynamic_mcp_loading = true;
    set(&mut prefs.settings);
    prefs::write(&*p.kv, &prefs, prefs::Touched { servers: true, settings: true, ..prefs::Touched::default() }).expect("written");
    now(p.store.put_session(&SessionRecord::new("s1", 1.0))).expect("stored");
    let mut h = Harness::new(p);
    h.send(Command::Start);
    h.send(Command::Chat(crate::chat::Action::Open("s1".into())));
    h.take();
    h
}

fn gained(requests: u64) -> Metrics {
    Metrics { requests, ..Metrics::default() }
}

fn loaded_tool(server: &str, tool: &str) -> LoadedTool {
    LoadedTool {
        server: server.into(),
        server_id: String::new(),
        tool: tool.into(),
        schema_hash: "h".into(),
        epoch: 0,
        status: Status::Valid,
        reason: None,
        source: Source::Manual,
        loaded_at: 1.0,
        updated_at: 1.0,
    }
}

fn jobs(h: &Harness, kind: &str) -> usize {
    h.p.asked(crate::platform::Part::Catalog, Some(kind))
}

#[test]
fn the_overall_metrics_are_written_one_at_a_time_and_none_is_lost() {
    let mut h = harness("");
    h.p.hold(crate::platform::Part::Catalog);
    h.send(Command::Dynamic(Action::Loaded { list: Loaded::default(), gained: gained(1) }));
    h.send(Command::Dynamic(Action::Loaded { list: Loaded::default(), gained: gained(2) }));
    h.send(Command::Dynamic(Action::Loaded { list: Loaded::default(), gained: Metrics::default() }));
    assert_eq!(jobs(&h, "AddMetrics"), 1, "a second write waits for the first");
    h.p.release(crate::platform::Part::Catalog);
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
    h.send(Command::Chat(crate::chat::Action::New));
    assert!(h.take().contains(&Update::LoadedTools(Loaded::default())), "the new chat has none");
    h.send(Command::Chat(crate::chat::Action::Open("s1".into())));
    let shown = h.take().into_iter().rev().find_map(|u| if let Update::LoadedTools(l) = u { Some(l) } else { None }).expect("shown");
    assert_eq!(shown.tools[0].status, Status::InvalidDeleted);
    assert_eq!(now(docs::loaded("s1").read(&*h.p.store)).tools[0].status, Status::InvalidDeleted, "what the check changed is saved");

    // Switched off, dynamic loading reads nothing.
    let mut settings = h.ws.prefs().settings.clone();
    settings.dynamic_mcp_loading = false;
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::Settings(Box::new(settings)))));
    h.send(Command::Chat(crate::chat::Action::New));
    h.take();
    let gates = jobs(&h, "Gate");
    h.send(Command::Chat(crate::chat::Action::Open("s1".into())));
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
fn after_a_refresh_every_conversations_loaded_tools_are_checked_not_only_the_open_ones() {
    let mut h = harness("");
    h.send(Command::Servers(crate::servers::Action::SetEnabled { name: "docs".into(), on: true }));
    h.take();
    // Loaded and valid in the open conversation and in two others.
    let hash = now(docs::CATALOG.read(&*h.p.store)).tools.iter().find(|t| t.name == "search").map(|t| t.schema_hash.clone()).expect("catalogued");
    let valid = Loaded { tools: vec![LoadedTool { schema_hash: hash, ..loaded_tool("docs", "search") }], metrics: Metrics::default() };
    for s in ["s1", "s2", "s3"] {
        now(docs::loaded(s).write(&*h.p.store, &valid)).expect("stored");
    }
    // The server is switched off: each is marked, though only s1 is open.
    h.send(Command::Servers(crate::servers::Action::SetEnabled { name: "docs".into(), on: false }));
    h.run();
    for s in ["s1", "s2", "s3"] {
        assert_eq!(now(docs::loaded(s).read(&*h.p.store)).tools[0].status, Status::InvalidServerDisabled, "{s}");
    }
    // And the two others are said in the event log, once each (the open
    // one was last seen with none: its tools were written here, behind
    // the core's back).
    h.send(Command::Log(crate::log::Action::Want));
    let logged = h.take().into_iter().rev().find_map(|u| if let Update::Log(l) = u { Some(l) } else { None }).expect("the log is shown");
    let said = logged.iter().filter(|e| e.text.contains("docs/search no longer offered")).count();
    assert_eq!(said, 2, "{logged:?}");
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
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::Settings(Box::new(settings)))));
    assert_eq!(h.p.http.requests().len(), asked + 1);
}

/// A chat completion whose answer is `content`.
fn completion(content: &str) -> air_http::fake::Script {
    air_http::fake::Script::status(200, &serde_json::json!({"choices": [{"message": {"role": "assistant", "content": content}}]}).to_string())
}

const SUMMARIES: &str = "```json\n{\"server\": \"Searches and fetches docs\", \"tools\": {\"search\": \"Finds pages\", \"fetch\": \"Reads a page\"}}\n```";

/// The failures shown last.
fn failures(h: &mut Harness) -> Option<Vec<Failed>> {
    h.take().into_iter().rev().find_map(|u| if let Update::SummaryFailures(l) = u { Some(l) } else { None })
}

fn request_json(h: &Harness, i: usize) -> serde_json::Value {
    let sent = h.p.http.requests();
    serde_json::from_str(sent[i].body.as_deref().unwrap_or_default()).unwrap_or_default()
}

#[test]
fn after_a_refresh_the_summarizer_is_asked_with_the_built_in_prompt_and_its_summaries_are_dated() {
    let mut h = harness("summarizer-model");
    h.p.http.push(completion(SUMMARIES));
    h.p.now.set(1_234.0);
    h.send(Command::Dynamic(Action::Refresh));
    let sent = h.p.http.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].url, air_store::Settings::default().chat_url(), "the main provider");
    let body = request_json(&h, 0);
    assert_eq!(body["model"], "summarizer-model");
    assert_eq!(body["messages"][0]["content"], air_dynamic::SUMMARIZER_PROMPT);
    assert_eq!(body["messages"][1]["content"], "Server: docs\nTools:\n- search: Does search.\n- fetch: Does fetch.\n");
    let catalog = now(docs::CATALOG.read(&*h.p.store));
    let entry = catalog.server("docs").map(|s| (s.summary.as_str(), s.summarized, s.summary_generated_at));
    assert_eq!(entry, Some(("Searches and fetches docs", true, Some(1_234.0))));
    assert_eq!(catalog.tool("docs", "fetch").map(|t| (t.summary.as_str(), t.summary_generated_at)), Some(("Reads a page", Some(1_234.0))));
    assert_eq!(failures(&mut h), None, "nothing failed, nothing shown");

    // Nothing changed: not asked again. A tool switched off moves the
    // server's epoch: the summarizer writes its summary again.
    h.send(Command::Dynamic(Action::Refresh));
    assert_eq!(h.p.http.requests().len(), 1);
    h.p.http.push(completion("{\"server\": \"Searches docs\", \"tools\": {\"search\": \"Finds pages\"}}"));
    h.p.now.set(5_000.0);
    h.send(Command::Servers(crate::servers::Action::SetToolEnabled { server: "docs".into(), tool: "fetch".into(), on: false }));
    assert_eq!(h.p.http.requests().len(), 2, "asked after the refresh");
    assert_eq!(request_json(&h, 1)["messages"][1]["content"], "Server: docs\nTools:\n- search: Does search.\n");
    let catalog = now(docs::CATALOG.read(&*h.p.store));
    assert_eq!(catalog.server("docs").map(|s| (s.epoch, s.summary.as_str(), s.summary_generated_at)), Some((2, "Searches docs", Some(5_000.0))));
}

#[test]
fn a_failure_is_shown_with_its_reason_and_retry_asks_again() {
    let mut h = harness("summarizer-model");
    let key = format!("{} summarizer-model", air_store::settings::LOCAL_BASE_URL);
    h.p.http.push(air_http::fake::Script::status(503, "busy"));
    h.send(Command::Dynamic(Action::Refresh));
    let failed = Failed { server: "docs".into(), epoch: 1, summarizer: key.clone(), why: air_dynamic::SummaryFailure::Status(503) };
    assert_eq!(failures(&mut h), Some(vec![failed.clone()]));
    let catalog = now(docs::CATALOG.read(&*h.p.store));
    assert_eq!(catalog.server("docs").map(|s| (s.summary.as_str(), s.summarized)), Some(("2 tools: search, fetch", false)), "the descriptions stay");

    // Not asked again by itself; the user's Retry asks again.
    h.send(Command::Dynamic(Action::Refresh));
    assert_eq!(h.p.http.requests().len(), 1);
    h.p.http.push(completion(SUMMARIES));
    h.send(Command::Dynamic(Action::Retry("docs".into())));
    assert_eq!(h.p.http.requests().len(), 2);
    assert_eq!(failures(&mut h), Some(Vec::new()), "the failure is no longer shown");
    assert_eq!(now(docs::CATALOG.read(&*h.p.store)).server("docs").map(|s| s.summarized), Some(true));
}

#[test]
fn a_summarizer_that_does_not_answer_never_holds_the_refresh_up() {
    use air_http::fake::{Script, Step};
    let mut h = harness("summarizer-model");
    h.p.clock_stopped.set(true);
    h.p.http.push(Script::status(200, "").then(Step::Hang));
    // A refresh, while the summarizer's answer waits.
    h.send(Command::Dynamic(Action::Refresh));
    let ups = h.take();
    assert_eq!(h.p.http.requests().len(), 1, "the summarizer was asked");
    assert!(ups.iter().any(|u| matches!(u, Update::LoadedTools(_))), "the open chat was checked meanwhile: {ups:?}");
    let catalog = now(docs::CATALOG.read(&*h.p.store));
    assert!(catalog.servers.iter().any(|s| s.name == "docs" && !s.summarized), "and the catalog stored, with the descriptions");
    assert_eq!(failures(&mut h), None, "nothing said of the summarizer yet");
    // Its time runs out: said, and the descriptions stay.
    h.p.clock_stopped.set(false);
    h.run();
    assert_eq!(failures(&mut h).and_then(|l| l.first().map(|f| f.why)), Some(air_dynamic::SummaryFailure::Timeout));
}

#[test]
fn a_timeout_an_unreadable_answer_and_an_unreachable_provider_are_told_apart() {
    use air_dynamic::SummaryFailure as Why;
    use air_http::fake::{Script, Step};
    let mut h = harness("summarizer-model");
    let why = |h: &mut Harness, script: Script| {
        h.p.http.push(script);
        h.send(Command::Dynamic(Action::Retry("docs".into())));
        failures(h).and_then(|l| l.first().map(|f| f.why))
    };
    assert_eq!(why(&mut h, Script::status(200, "").then(Step::Hang)), Some(Why::Timeout));
    assert_eq!(why(&mut h, completion("Sorry, I cannot.")), Some(Why::Unreadable));
    assert_eq!(why(&mut h, Script::status(200, "<html>")), Some(Why::Unreadable));
    assert_eq!(why(&mut h, Script::Fail(air_http::HttpError::Network("refused".into()))), Some(Why::Unreachable));
    assert_eq!(why(&mut h, Script::status(401, "{\"error\": {\"message\": \"bad key\"}}")), Some(Why::Status(401)));
    assert_eq!(h.p.http.requests().len(), 5, "each retry asked once");
}

#[test]
fn without_a_summarizer_the_catalog_holds_the_servers_descriptions() {
    let mut h = harness("");
    h.send(Command::Dynamic(Action::Refresh));
    h.send(Command::Dynamic(Action::Summarize));
    h.send(Command::Dynamic(Action::Retry("docs".into())));
    assert_eq!(jobs(&h, "Summarize"), 0);
    assert!(h.p.http.requests().is_empty(), "no model is asked");
    let catalog = now(docs::CATALOG.read(&*h.p.store));
    assert_eq!(catalog.server("docs").map(|s| (s.summary.as_str(), s.summarized, s.summary_generated_at)), Some(("2 tools: search, fetch", false, None)));
    assert_eq!(catalog.tool("docs", "search").map(|t| (t.summary.as_str(), t.summary_generated_at)), Some(("Does search.", None)));
    assert!(catalog.context_lines().contains("- docs: 2 tools: search, fetch"));
}

#[test]
fn a_summarizer_at_a_profile_runs_with_its_url_and_key() {
    let mut h = harness_with(|s| {
        s.api_key = "sk-main".into();
        s.profiles.push(air_store::settings::Profile { id: "p1".into(), name: "Cheap".into(), base_url: "https://cheap.test/v1".into(), api_key: "sk-cheap".into(), model: "small".into() });
        s.pick_summarizer(Some(("p1", "tiny")));
    });
    h.p.http.push(completion(SUMMARIES));
    h.send(Command::Dynamic(Action::Refresh));
    let sent = h.p.http.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].url, "https://cheap.test/v1/chat/completions");
    assert!(sent[0].headers.contains(&("Authorization".to_owned(), "Bearer sk-cheap".to_owned())), "{:?}", sent[0].headers);
    assert_eq!(request_json(&h, 0)["model"], "tiny");
}

#[test]
fn asked_for_while_it_runs_the_summarizer_runs_once_more_after() {
    let mut h = harness("summarizer-model");
    h.p.hold(crate::platform::Part::Catalog);
    h.send(Command::Dynamic(Action::Refresh));
    h.send(Command::Dynamic(Action::Refresh));
    assert_eq!(jobs(&h, "Summarize"), 1, "one at a time");
    h.p.http.push(air_http::fake::Script::status(500, "down"));
    h.p.release(crate::platform::Part::Catalog);
    h.run();
    assert_eq!(jobs(&h, "Summarize"), 2, "once more after");
    assert_eq!(h.p.http.requests().len(), 1, "what it failed on holds the second run back");
    assert_eq!(failures(&mut h).map(|l| l.len()), Some(1));
}

#[test]
fn a_conversation_deleted_for_good_takes_its_loaded_tools_with_it() {
    let mut h = harness("");
    let list = Loaded { tools: vec![loaded_tool("docs", "search")], metrics: gained(2) };
    now(docs::loaded("s1").write(&*h.p.store, &list)).expect("stored");
    h.send(Command::Sessions(crate::sessions::Action::Delete("s1".into())));
    // Within the undo window it is kept; once the window closes it goes.
    assert_eq!(now(docs::loaded("s1").read(&*h.p.store)), list);
    h.advance(crate::sessions::UNDO_MS + 1);
    assert_eq!(now(docs::loaded("s1").read(&*h.p.store)), Loaded::default());
}
