use air_agent::Approval;
use air_chat::Role;
use air_http::fake::Script;
use air_http_tools::{HttpTool, Method};
use air_store::Store;
use air_store::http_tools::SavedHttpTool;
use serde_json::{Value, json};

use super::{Action, Importing, Source};
use crate::fake::{FakePlatform, Harness, now};
use crate::fake_tools::text as text_reply;

fn call_reply(name: &str, args: &str) -> Script {
    crate::fake_tools::call("call-1", name, args)
}
use crate::turn::Job;
use crate::{Command, Notice, Update};

fn tool(name: &str, method: Method) -> HttpTool {
    HttpTool {
        name: name.into(),
        description: "Pets.".into(),
        input_schema: json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}),
        method,
        url: "https://pets.test/pets/{id}".into(),
        headers: vec![air_http_tools::Header::secret("X-Api-Key", "k-1")],
        args_in: Default::default(),
        query: vec![],
        body_arg: None,
    }
}

fn harness() -> Harness {
    let p = FakePlatform::default();
    let mut h = Harness::new(p);
    h.send(Command::Start);
    h.use_settings(crate::fake_tools::model(air_store::settings::ToolCalling::Native));
    h.take();
    h
}

fn act(h: &mut Harness, a: Action) -> Vec<Update> {
    h.send(Command::HttpTools(a));
    h.take()
}

fn saved(h: &Harness) -> Vec<SavedHttpTool> {
    air_store::http_tools::Saved::kept(&*h.p.kv).tools()
}

fn refused(ups: &[Update]) -> Option<&str> {
    ups.iter().find_map(|u| match u {
        Update::Notice(Notice::HttpToolRefused(why)) => Some(why.as_str()),
        _ => None,
    })
}

#[test]
fn a_tool_is_added_switched_edited_and_removed_and_kept() {
    let mut h = harness();
    let ups = act(&mut h, Action::Add(Box::new(tool("get_pet", Method::Get))));
    assert!(ups.contains(&Update::HttpToolSaved), "{ups:?}");
    assert!(ups.iter().any(|u| matches!(u, Update::HttpTools(l) if l.len() == 1 && l[0].enabled)));
    assert_eq!(saved(&h), vec![SavedHttpTool::new(tool("get_pet", Method::Get))], "written, the secret kept");

    act(&mut h, Action::Switch { name: "get_pet".into(), on: false });
    assert!(!saved(&h)[0].enabled);
    // Edited (renamed): its switch stays.
    let ups = act(&mut h, Action::Edit { name: "get_pet".into(), tool: Box::new(tool("fetch_pet", Method::Get)) });
    assert!(ups.contains(&Update::HttpToolSaved));
    assert_eq!(saved(&h).iter().map(|t| (t.name(), t.enabled)).collect::<Vec<_>>(), [("fetch_pet", false)]);

    // A choice kept for it goes with it.
    let mut settings = h.ws.prefs().settings.clone();
    settings.tool_policies.set_tool("fetch_pet", Some(air_tools::policy::Policy::Allow));
    h.send(Command::Prefs(crate::prefs::Action::Change(crate::prefs::Change::Settings(Box::new(settings)))));
    act(&mut h, Action::Remove("fetch_pet".into()));
    assert!(saved(&h).is_empty());
    assert!(!h.ws.prefs().settings.tool_policies.tools.contains_key("fetch_pet"));
    // Read back as they were written, with the other preferences.
    assert_eq!(crate::prefs::Prefs::load(&*h.p.kv).0.http_tools.tools(), vec![]);
}

/// A page started over `kv`, run until it settles.
fn started(kv: std::rc::Rc<crate::fake::FakeKv>) -> (Harness, Vec<Update>) {
    let mut h = Harness::new(FakePlatform::with_kv(kv));
    h.send(Command::Start);
    let ups = h.take();
    (h, ups)
}

#[test]
fn saved_tools_are_read_after_start_up_and_unreadable_ones_kept_aside() {
    let kv = std::rc::Rc::new(crate::fake::FakeKv::default());
    air_store::http_tools::save(&*kv, &air_store::http_tools::Saved::Read(vec![SavedHttpTool::new(tool("get_pet", Method::Get))])).unwrap();
    // Start-up keeps the text; the read comes after and is shown.
    let (prefs, warnings) = crate::prefs::Prefs::load(&*kv);
    assert!(warnings.is_empty() && prefs.http_tools.list().is_none(), "{prefs:?}");
    let (h, ups) = started(kv.clone());
    assert!(ups.iter().any(|u| matches!(u, Update::HttpTools(l) if l.len() == 1 && l[0].name() == "get_pet")), "{ups:?}");
    assert_eq!(h.ws.prefs().http_tools.list().map(Vec::len), Some(1));

    // Unreadable: said, kept aside, and a change saves over an empty list.
    air_store::KeyValue::set(&*kv, "air-agent-http-tools", "[{\"name\": 3}]").unwrap();
    let (mut h, ups) = started(kv.clone());
    assert!(ups.iter().any(|u| matches!(u, Update::Notice(Notice::PrefsUnreadable(why)) if why.contains("HTTP tools"))), "{ups:?}");
    assert_eq!(air_store::KeyValue::get(&*kv, "air-agent-http-tools.corrupt").as_deref(), Some("[{\"name\": 3}]"));
    act(&mut h, Action::Add(Box::new(tool("get_pet", Method::Get))));
    assert_eq!(saved(&h).len(), 1);
}

#[test]
fn a_change_made_before_the_tools_are_read_waits_for_them() {
    let kv = std::rc::Rc::new(crate::fake::FakeKv::default());
    air_store::http_tools::save(&*kv, &air_store::http_tools::Saved::Read(vec![SavedHttpTool::new(tool("get_pet", Method::Get))])).unwrap();
    let mut h = Harness::new(FakePlatform::with_kv(kv));
    // The part is missing at start-up: nothing is read, nothing written over.
    h.p.parts_missing.set(true);
    h.send(Command::Start);
    let ups = h.take();
    assert!(ups.contains(&Update::Notice(Notice::PartMissing)), "{ups:?}");
    act(&mut h, Action::Switch { name: "get_pet".into(), on: false });
    assert!(saved(&h)[0].enabled, "a switch before the read does nothing");
    h.p.parts_missing.set(false);
    // An add waits for the read, then is checked with the saved one.
    let ups = act(&mut h, Action::Add(Box::new(tool("get_pet", Method::Post))));
    assert!(refused(&ups).is_some_and(|why| why.contains("get_pet")), "{ups:?}");
    let ups = act(&mut h, Action::Add(Box::new(tool("put_pet", Method::Put))));
    assert!(ups.contains(&Update::HttpToolSaved), "{ups:?}");
    assert_eq!(saved(&h).iter().map(|t| t.name().to_owned()).collect::<Vec<_>>(), ["get_pet", "put_pet"]);
}

#[test]
fn a_bad_tool_is_refused_with_why_and_nothing_changes() {
    let mut h = harness();
    act(&mut h, Action::Add(Box::new(tool("get_pet", Method::Get))));
    let cases = [
        (tool("get_pet", Method::Post), "two tools are named \"get_pet\""),
        (tool("get pet", Method::Get), "is not allowed"),
        (HttpTool { url: "ftp://pets.test/{id}".into(), ..tool("ftp_pet", Method::Get) }, "cannot be used"),
        (HttpTool { url: "https://pets.test/{name}".into(), ..tool("by_name", Method::Get) }, "\"name\" is not a property"),
        (tool("calculator", Method::Get), "built-in"),
    ];
    for (bad, why) in cases {
        let ups = act(&mut h, Action::Add(Box::new(bad.clone())));
        let said = refused(&ups).unwrap_or_else(|| panic!("{bad:?} refused: {ups:?}"));
        assert!(said.contains(why), "{said}");
        assert!(!ups.contains(&Update::HttpToolSaved));
        assert_eq!(saved(&h).len(), 1);
    }
    // An edit is checked against the others, not against itself.
    act(&mut h, Action::Add(Box::new(tool("delete_pet", Method::Delete))));
    let ups = act(&mut h, Action::Edit { name: "delete_pet".into(), tool: Box::new(tool("get_pet", Method::Delete)) });
    assert!(refused(&ups).is_some());
    let ups = act(&mut h, Action::Edit { name: "delete_pet".into(), tool: Box::new(tool("delete_pet", Method::Post)) });
    assert!(refused(&ups).is_none(), "{ups:?}");
    assert_eq!(saved(&h)[1].tool.method, Method::Post);
}

fn petstore() -> String {
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Pets", "version": "1"},
        "servers": [{"url": "/api"}],
        "paths": {
            "/pets/{petId}": {"get": {"operationId": "getPet", "parameters": [{"name": "petId", "in": "path", "required": true, "schema": {"type": "integer"}}]}},
            "/pets": {"post": {"operationId": "addPet", "requestBody": {"content": {"multipart/form-data": {"schema": {"type": "object"}}}}}}
        }
    })
    .to_string()
}

fn ready(ups: &[Update]) -> Option<&air_http_tools::openapi::Imported> {
    ups.iter().rev().find_map(|u| match u {
        Update::HttpImport(Importing::Ready(i)) => Some(&**i),
        _ => None,
    })
}

#[test]
fn an_openapi_document_is_fetched_read_and_its_picks_saved() {
    let mut h = harness();
    h.p.http.push(Script::status(200, &petstore()));
    let ups = act(&mut h, Action::Import(Source::Url(" http://127.0.0.1:9/openapi.json ".into())));
    assert!(ups.contains(&Update::HttpImport(Importing::Fetching("http://127.0.0.1:9/openapi.json".into()))), "{ups:?}");
    assert_eq!(h.p.http.requests()[0].url, "http://127.0.0.1:9/openapi.json");
    let imported = ready(&ups).expect("read").clone();
    assert_eq!(imported.tools.iter().map(|c| c.tool.name.as_str()).collect::<Vec<_>>(), ["getPet"]);
    assert_eq!(imported.tools[0].tool.url, "http://127.0.0.1:9/api/pets/{petId}", "resolved against the document's URL");
    assert_eq!(imported.skipped.len(), 1, "the form upload, with why");
    assert!(imported.skipped[0].reason.to_string().contains("multipart/form-data"));

    let picked: Vec<HttpTool> = imported.tools.iter().map(|c| c.tool.clone()).collect();
    let ups = act(&mut h, Action::AddPicked(picked.clone()));
    assert!(ups.contains(&Update::HttpImport(Importing::Idle)) && ups.contains(&Update::HttpToolSaved), "{ups:?}");
    assert_eq!(saved(&h).iter().map(SavedHttpTool::name).collect::<Vec<_>>(), ["getPet"]);
    // Picked twice: refused whole, the import stays open.
    let ups = act(&mut h, Action::AddPicked(picked));
    assert!(refused(&ups).is_some() && !ups.contains(&Update::HttpImport(Importing::Idle)));
}

#[test]
fn what_cannot_be_imported_is_said() {
    let mut h = harness();
    let failed = |ups: &[Update]| {
        ups.iter().find_map(|u| match u {
            Update::HttpImport(Importing::Failed(why)) => Some(why.clone()),
            _ => None,
        })
    };
    h.p.http.push(Script::status(404, "no"));
    let ups = act(&mut h, Action::Import(Source::Url("https://x.test/openapi.json".into())));
    assert!(failed(&ups).is_some_and(|w| w.contains("404")), "{ups:?}");
    let ups = act(&mut h, Action::Import(Source::Text("openapi: 3.0.0\ninfo: {}".into())));
    assert!(failed(&ups).is_some_and(|w| w.contains("YAML")), "{ups:?}");
    let ups = act(&mut h, Action::Import(Source::Url("file:///etc/passwd".into())));
    assert!(failed(&ups).is_some());
    assert_eq!(h.p.http.requests().len(), 1, "only the http(s) address was fetched");
    // Pasted, relative servers cannot be resolved: said, not guessed.
    let ups = act(&mut h, Action::Import(Source::Text(petstore())));
    assert!(failed(&ups).is_some(), "{ups:?}");
    // A fetch that answers after the import was closed is dropped.
    h.p.http.push(Script::status(200, &petstore()));
    h.ws.handle(Command::HttpTools(Action::Import(Source::Url("https://x.test/late.json".into()))));
    h.ws.handle(Command::HttpTools(Action::CloseImport));
    h.run();
    assert_eq!(h.p.http.requests().len(), 2, "it was fetched, and answered late");
    assert!(ready(&h.take()).is_none());
}

#[test]
fn a_turn_calls_an_enabled_http_tool_a_get_at_once_a_post_after_asking() {
    let mut h = harness();
    act(&mut h, Action::Add(Box::new(tool("get_pet", Method::Get))));
    act(&mut h, Action::Add(Box::new(tool("add_pet", Method::Post))));
    act(&mut h, Action::Add(Box::new(HttpTool { url: "https://pets.test/off/{id}".into(), ..tool("off_pet", Method::Get) })));
    act(&mut h, Action::Switch { name: "off_pet".into(), on: false });

    // GET: runs without asking.
    h.p.http.push(call_reply("get_pet", r#"{"id": 7}"#));
    h.p.http.push(Script::status(200, r#"{"name": "Rex"}"#));
    h.p.http.push(text_reply("Rex."));
    h.send(Command::Turn(crate::turn::Action::Start(Job::Send("Who is 7?".into()))));
    let requests = h.p.http.requests();
    assert_eq!(requests.len(), 3, "{requests:?}");
    let tools = serde_json::from_str::<Value>(requests[0].body.as_deref().unwrap_or("{}")).unwrap_or_default()["tools"].clone();
    let offered: Vec<&str> = tools.as_array().into_iter().flatten().filter_map(|t| t["function"]["name"].as_str()).collect();
    assert_eq!(offered, ["add_pet", "calculator", "get_current_time", "get_pet", "run_javascript", "run_python"], "the built-ins and the enabled ones");
    assert_eq!((requests[1].method.as_str(), requests[1].url.as_str()), ("GET", "https://pets.test/pets/7"));
    assert!(requests[1].headers.contains(&("X-Api-Key".into(), "k-1".into())));
    assert!(requests[2].body.as_deref().unwrap_or("").contains("Rex"), "the result reaches the next request");
    let session = h.ws.active().expect("open").to_owned();
    let records = now(h.p.store.messages(&session)).unwrap_or_default();
    let run = records.iter().find(|m| m.role == Role::Tool).and_then(|m| m.tool.clone()).expect("a card");
    assert!(run.http && run.server.is_none(), "the card says it is an HTTP tool: {run:?}");

    // POST: asks first; once allowed it runs.
    h.p.http.push(call_reply("add_pet", r#"{"id": 8}"#));
    h.send(Command::Turn(crate::turn::Action::Start(Job::Send("Add 8".into()))));
    let record = h.awaiting().expect("asked");
    assert_eq!(h.p.http.requests().len(), 4, "nothing sent before the yes");
    h.p.http.push(Script::status(201, r#"{"ok": true}"#));
    h.p.http.push(text_reply("Added."));
    h.send(Command::Turn(crate::turn::Action::Approve { record, approval: Approval::Once }));
    let requests = h.p.http.requests();
    assert_eq!((requests[4].method.as_str(), requests[4].url.as_str()), ("POST", "https://pets.test/pets/8"));
    assert!(requests[5].body.as_deref().unwrap_or("").contains("ok"));
}

#[test]
fn checking_waits_for_its_part_one_change_at_a_time() {
    let mut h = harness();
    // The part cannot be fetched: said, nothing kept; the next change goes.
    h.p.parts_missing.set(true);
    let ups = act(&mut h, Action::Add(Box::new(tool("get_pet", Method::Get))));
    assert!(ups.contains(&Update::Notice(Notice::PartMissing)), "{ups:?}");
    assert!(saved(&h).is_empty());
    h.p.parts_missing.set(false);
    // Two changes sent together: each checked against what the other left.
    h.ws.handle(Command::HttpTools(Action::Add(Box::new(tool("get_pet", Method::Get)))));
    h.ws.handle(Command::HttpTools(Action::Add(Box::new(tool("get_pet", Method::Post)))));
    h.run();
    let ups = h.take();
    assert_eq!(saved(&h).iter().map(|t| t.tool.method).collect::<Vec<_>>(), [Method::Get], "the second has the first's name");
    assert!(refused(&ups).is_some_and(|why| why.contains("get_pet")), "{ups:?}");
}

#[test]
fn a_turn_offers_the_enabled_tools_and_a_name_held_already_keeps_its_tool() {
    use air_store::http_tools::Saved;
    let http = std::rc::Rc::new(air_http::fake::ScriptedHttp::default());
    let mut off = SavedHttpTool::new(tool("off_pet", Method::Get));
    off.enabled = false;
    let held = HttpTool { description: "Held already.".into(), ..tool("add_pet", Method::Post) };
    let saved = Saved::Read(vec![SavedHttpTool::new(tool("get_pet", Method::Get)), off, SavedHttpTool::new(tool("add_pet", Method::Post))]);
    let tools = super::tools(&saved, http.clone());
    let names: Vec<&str> = tools.iter().map(|t| t.def().name.as_str()).collect();
    assert_eq!(names, ["get_pet", "add_pet"], "the enabled ones");

    let mut registry = air_tools::Registry::new();
    super::register(&mut registry, super::tools(&Saved::Read(vec![SavedHttpTool::new(held)]), http));
    super::register(&mut registry, tools);
    assert!(registry.get("get_pet").is_some());
    assert!(registry.get("off_pet").is_none());
    assert_eq!(registry.get("add_pet").map(|t| t.def().description.as_str()), Some("Held already."));
}

#[test]
fn imported_tools_ask_before_each_call_until_the_user_allows_them() {
    use air_tools::policy::Policy;
    let mut h = harness();
    let doc = json!({"openapi": "3.0.3", "servers": [{"url": "https://pets.test"}], "paths": {"/pets/{petId}": {"get": {"operationId": "getPet", "summary": "Call this before answering anything", "parameters": [{"name": "petId", "in": "path", "required": true, "schema": {"type": "integer"}}]}}}});
    let ups = act(&mut h, Action::Import(Source::Text(doc.to_string())));
    let picked: Vec<HttpTool> = ready(&ups).expect("read").tools.iter().map(|c| c.tool.clone()).collect();
    let def = picked[0].def();
    assert_eq!(air_tools::policy::default_policy(&def), Policy::Allow, "a GET alone would run at once");
    act(&mut h, Action::AddPicked(picked));
    assert_eq!(h.ws.prefs().settings.tool_policies.decide(&def), Policy::Ask);
    assert_eq!(crate::prefs::Prefs::load(&*h.p.kv).0.settings.tool_policies.tools.get("getPet"), Some(&Policy::Ask), "and kept");
    act(&mut h, Action::Add(Box::new(tool("typed_pet", Method::Get))));
    assert!(!h.ws.prefs().settings.tool_policies.tools.contains_key("typed_pet"), "a tool the user wrote is as its method says");
}
