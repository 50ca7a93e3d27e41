use air_store::KeyValue;
use air_store::assistants::Assistant;
use air_store::mcp::{McpServer, NEW_CHAT};
use air_store::settings::ToolCalling;

use crate::fake::{FakePlatform, Harness};
use crate::prefs::{Change, Prefs};
use crate::{Command, Notice, StoreOp, Update};

fn harness(p: FakePlatform) -> Harness {
    let mut h = Harness::new(p);
    h.send(Command::Start);
    h
}

#[test]
fn unreadable_prefs_are_said_at_start_and_defaults_used() {
    let p = FakePlatform::default();
    let _ = p.kv.set(air_store::settings::KEY.name, "{not json");
    let _ = p.kv.set(air_store::mcp::SERVERS_KEY.name, "[oops");
    let mut h = harness(p);
    let said: Vec<_> = h
        .take()
        .into_iter()
        .filter_map(|u| match u {
            Update::Notice(Notice::PrefsUnreadable(why)) => Some(why),
            _ => None,
        })
        .collect();
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(said[0].contains("settings") && said[1].contains("MCP servers"), "{said:?}");
    assert_eq!(h.ws.prefs().settings, air_store::Settings::default());
    assert!(h.ws.prefs().servers.is_empty());
}

#[test]
fn a_change_is_saved_and_shown() {
    let mut h = harness(FakePlatform::default());
    h.take();
    let mut settings = h.ws.prefs().settings.clone();
    settings.model = "qwen".into();
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::Settings(Box::new(settings.clone())))));
    assert!(h.take().contains(&Update::Settings(Box::new(settings.clone()))));
    let (kept, unreadable) = Prefs::load(&*h.p.kv);
    assert!(unreadable.is_empty());
    assert_eq!(kept.settings, settings);
    // An assistant, picked for the new chat with a model of its own.
    let a = Assistant::new("a1", "Translator");
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::PutAssistant(Box::new(a)))));
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::PickAssistant { chat: NEW_CHAT.into(), id: Some("a1".into()) })));
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::PickModel { chat: NEW_CHAT.into(), model: Some("tiny".into()) })));
    let (kept, _) = Prefs::load(&*h.p.kv);
    assert_eq!(kept.assistants.of_chat(NEW_CHAT).map(|a| a.name.as_str()), Some("Translator"));
    assert_eq!(h.ws.prefs().turn_settings(NEW_CHAT).model, "tiny");
    // Picking the usual model again is no pick: the chat follows the
    // settings when they change.
    let usual = h.ws.prefs().settings.model.clone();
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::PickModel { chat: NEW_CHAT.into(), model: Some(format!(" {usual} ")) })));
    assert_eq!(h.ws.prefs().assistants.model_of(NEW_CHAT), None);
    assert!(h.take().iter().any(|u| matches!(u, Update::Assistants(all) if all.model_of(NEW_CHAT) == Some("tiny"))));
}

#[test]
fn a_language_never_picked_follows_the_browser_and_is_not_saved_until_picked() {
    use air_store::settings::Language;
    let mut h = harness(FakePlatform::default());
    h.take();
    // What the page read at start, in a Chinese browser; the drawer saves
    // another setting.
    let mut settings = h.ws.prefs().settings.clone();
    settings.language.follow(&["zh-CN", "en"]);
    settings.model = "qwen".into();
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::Settings(Box::new(settings.clone())))));
    assert!(h.take().iter().any(|u| matches!(u, Update::Settings(s) if s.language.current() == Language::Chinese)));
    assert_eq!(h.ws.prefs().settings.language.current(), Language::Chinese);
    let raw = h.p.kv.get(air_store::settings::KEY.name).unwrap_or_default();
    assert!(raw.contains("qwen") && !raw.contains("language"), "{raw}");
    // Picked: saved, and kept whatever the browser says next time.
    settings.language.choose(Language::English);
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::Settings(Box::new(settings)))));
    let (mut kept, _) = Prefs::load(&*h.p.kv);
    kept.settings.language.follow(&["zh-CN"]);
    assert_eq!(kept.settings.language.choice(), Some(Language::English));
}

#[test]
fn a_change_that_cannot_be_saved_is_said_and_still_used() {
    let mut h = harness(FakePlatform::default());
    h.take();
    h.p.kv.full.set(true);
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::ChatServer { chat: "s1".into(), server: "docs".into(), on: false })));
    let ups = h.take();
    assert!(ups.iter().any(|u| matches!(u, Update::Notice(Notice::Store { op: StoreOp::Prefs, error: air_store::StoreError::QuotaExceeded(_) }))), "{ups:?}");
    assert!(ups.iter().any(|u| matches!(u, Update::ChatServers(c) if !c.uses("s1", "docs"))));
    assert!(!h.ws.prefs().chat_servers.uses("s1", "docs"));
}

#[test]
fn what_was_learnt_of_a_model_is_kept() {
    let mut h = harness(FakePlatform::default());
    h.send(Command::Turn(crate::turn::Action::Event(air_agent::Event::ToolCallingLearnt { key: "custom|m".into(), calling: ToolCalling::Prompt })));
    h.send(Command::Turn(crate::turn::Action::Event(air_agent::Event::VisionLearnt { key: "custom|m".into(), vision: false })));
    let (kept, _) = Prefs::load(&*h.p.kv);
    assert_eq!(kept.settings.probed_tool_calling.get("custom|m"), Some(&ToolCalling::Prompt));
    assert_eq!(kept.settings.vision.get("custom|m"), Some(&false));
}

#[test]
fn a_session_deleted_for_good_takes_its_choices_with_it() {
    let p = FakePlatform::default();
    crate::fake::now(air_store::Store::put_session(&*p.store, &air_store::SessionRecord::new("s1", 1.0))).expect("stored");
    let mut h = harness(p);
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::ChatServer { chat: "s1".into(), server: "docs".into(), on: false })));
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::PutAssistant(Box::new(Assistant::new("a1", "Translator"))))));
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::PickAssistant { chat: "s1".into(), id: Some("a1".into()) })));
    h.send(Command::Sessions(crate::sessions::Action::Delete("s1".into())));
    assert!(!h.ws.prefs().chat_servers.uses("s1", "docs"), "kept while it can be undone");
    h.advance(crate::sessions::UNDO_MS);
    let (kept, _) = Prefs::load(&*h.p.kv);
    assert!(kept.chat_servers.uses("s1", "docs") && kept.assistants.of_chat("s1").is_none());
    assert_eq!(kept.assistants.get("a1").map(|a| a.name.as_str()), Some("Translator"), "the assistant itself stays");
}

#[test]
fn one_write_at_a_time_and_what_changed_meanwhile_is_written_after() {
    let mut h = harness(FakePlatform::default());
    h.take();
    h.p.hold(crate::platform::Part::Prefs);
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::ChatServer { chat: "s1".into(), server: "docs".into(), on: false })));
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::PickProfile { chat: "s1".into(), id: Some("work".into()) })));
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::PickModel { chat: "s1".into(), model: Some("tiny".into()) })));
    // Shown at once, written once the first write is done.
    assert!(!h.ws.prefs().chat_servers.uses("s1", "docs"));
    assert_eq!(h.p.asked(crate::platform::Part::Prefs, None), 1);
    assert!(h.p.kv.written.borrow().is_empty(), "held: nothing written yet");
    h.p.release(crate::platform::Part::Prefs);
    h.run();
    assert_eq!(h.p.asked(crate::platform::Part::Prefs, None), 2, "the two later changes in one write");
    let written = h.p.kv.written.borrow().clone();
    let (chats, assistants) = (air_store::keys::MCP_CHAT.name, air_store::keys::ASSISTANTS.name);
    assert_eq!(written, [chats, assistants], "the chat's servers first, then its assistant's choices, each written once");
    let (kept, _) = Prefs::load(&*h.p.kv);
    assert_eq!((kept.assistants.model_of("s1"), kept.assistants.profile_of("s1")), (Some("tiny"), Some("work")));
    assert!(!h.take().contains(&Update::PrefsSaved), "no settings among them");
}

fn saved(name: &str) -> McpServer {
    serde_json::from_value(serde_json::json!({"id": name, "name": name, "url": format!("http://127.0.0.1:9/{name}")})).expect("a server")
}

#[test]
fn a_turn_runs_with_its_chats_settings_and_servers() {
    let mut p = Prefs { servers: vec![saved("docs"), saved("mail"), McpServer { enabled: false, ..saved("off") }], ..Prefs::default() };
    p.settings.model = "usual".into();
    p.settings.dynamic_mcp_loading = true;
    p.chat_servers.set("s1", "mail", false);
    let plain = p.turn_inputs("s1");
    assert_eq!(plain.settings.model, "usual");
    assert!(plain.dynamic, "the settings' switch, no assistant to turn it off");
    let names = |i: &crate::prefs::Inputs| i.servers.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&plain), ["docs", "mail"], "with dynamic loading, every enabled server (through the loaders)");

    // An assistant with its own model, one server, and no dynamic loading.
    let mut a = Assistant::new("a1", "Writer");
    a.model = "writer-model".into();
    a.servers = Some(vec!["docs".into(), "mail".into()]);
    a.dynamic_loading = false;
    p.assistants.put(a);
    p.assistants.pick("s1", Some("a1"));
    let with = p.turn_inputs("s1");
    assert_eq!(with.settings.model, "writer-model");
    assert!(!with.dynamic);
    assert_eq!(names(&with), ["docs"], "the chat left mail out; the assistant's list cannot bring it back");
    assert_eq!(names(&p.turn_inputs("s2")), ["docs", "mail"], "another chat: dynamic, every enabled one");
    p.assistants.pick_model("s1", Some("picked"));
    assert_eq!(p.turn_inputs("s1").settings.model, "picked", "the top bar's pick wins");
}

#[test]
fn a_turn_preloads_what_its_assistant_preloads_only_with_dynamic_loading() {
    let mut prefs = Prefs::default();
    let a = Assistant { preload: vec![("docs".into(), "search".into())], ..Assistant::new("a1", "Researcher") };
    prefs.assistants.put(a);
    prefs.assistants.pick(NEW_CHAT, Some("a1"));
    assert!(prefs.turn_inputs(NEW_CHAT).preload.is_empty(), "dynamic loading is off");
    prefs.settings.dynamic_mcp_loading = true;
    assert_eq!(prefs.turn_inputs(NEW_CHAT).preload, [("docs".to_owned(), "search".to_owned())]);
    // Its own switch off: nothing preloaded.
    let mut off = prefs.assistants.of_chat(NEW_CHAT).cloned().expect("picked");
    off.dynamic_loading = false;
    prefs.assistants.put(off);
    assert!(prefs.turn_inputs(NEW_CHAT).preload.is_empty());
}

#[test]
fn an_open_drawer_follows_what_changed_behind_it_and_keeps_what_the_user_typed() {
    use air_store::Settings;
    let base = Settings { system_prompt: "old".into(), model: "m1".into(), ..Settings::default() };
    let draft = Settings { model: "typed".into(), ..base.clone() };
    let now = Settings { system_prompt: "pulled".into(), model: "m2".into(), ..base.clone() };
    let out = super::rebase(&draft, &base, &now);
    assert_eq!(out.system_prompt, "pulled", "untouched: follows");
    assert_eq!(out.model, "typed", "typed: stays");
}

#[test]
fn a_policy_accepted_behind_the_drawer_and_one_changed_in_it_both_stay() {
    use air_store::Settings;
    use air_tools::policy::Policy;
    let base = Settings::default();
    let mut draft = base.clone();
    draft.tool_policies.tools.insert("calculator".into(), Policy::Deny);
    let mut now = base.clone();
    now.tool_policies.tools.insert("time".into(), Policy::Allow);
    now.system_prompt = "pulled".into();
    let out = super::rebase(&draft, &base, &now);
    assert_eq!(out.tool_policies.tools.get("calculator"), Some(&Policy::Deny), "the user's change stays");
    assert_eq!(out.tool_policies.tools.get("time"), Some(&Policy::Allow), "the change behind it follows");
    assert_eq!(out.system_prompt, "pulled");
    // Changed on both sides: the user's wins.
    let mut theirs = base.clone();
    theirs.tool_policies.tools.insert("calculator".into(), Policy::Allow);
    assert_eq!(super::rebase(&draft, &base, &theirs).tool_policies.tools.get("calculator"), Some(&Policy::Deny));
    // Removed behind it and untouched here: gone.
    let with = Settings { tool_policies: now.tool_policies.clone(), ..base.clone() };
    assert!(super::rebase(&with, &with, &base).tool_policies.tools.is_empty());
}
