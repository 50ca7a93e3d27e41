use air_chat::Role;
use air_store::{KeyValue, MessageRecord, SessionRecord, Store};

use super::*;
use crate::fake::{FakePlatform, Harness};

fn now<T>(f: impl std::future::Future<Output = T>) -> T {
    let mut f = std::pin::pin!(f);
    match f.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop())) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => panic!("the memory store answers at once"),
    }
}

fn started() -> Harness {
    let p = FakePlatform::default();
    let mut s = SessionRecord::new("s", 1.0);
    s.auto_title("Rust lifetimes", 0.0);
    now(p.store.put_session(&s)).expect("s");
    now(p.store.put_message(&MessageRecord::new("m", "s", 1.0, Role::User, "What is a lifetime?"))).expect("m");
    let mut h = Harness::new(p);
    h.send(Command::Start);
    h.take();
    h
}

#[test]
fn an_export_is_named_by_the_day_and_carries_the_settings_only_when_whole() {
    let mut h = started();
    let settings = air_store::Settings { api_key: "sk-secret".into(), ..air_store::Settings::default() };
    h.send(Command::Prefs(crate::prefs::Action::Change(crate::prefs::Change::Settings(Box::new(settings)))));
    h.send(Command::Data(crate::data::Action::Export { only: None, format: Format::All { secrets: false } }));
    h.send(Command::Data(crate::data::Action::Export { only: Some("s".into()), format: Format::One }));
    h.send(Command::Data(crate::data::Action::Export { only: Some("s".into()), format: Format::Markdown }));
    let files = h.p.downloads.borrow().clone();
    let names: Vec<&str> = files.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(names, ["air-agent-export-2026-11-25.json", "air-agent-conversation-2026-11-25.json", "air-agent-conversation-2026-11-25.md"]);
    assert!(files[0].2.contains("\"settings\"") && !files[0].2.contains("sk-secret"), "settings without the key unless asked");
    assert!(!files[1].2.contains("\"settings\""), "one conversation carries no settings");
    assert!(files[2].2.contains("What is a lifetime?") && files[2].1 == "text/markdown");
    h.p.refuse_downloads.set(true);
    h.send(Command::Data(crate::data::Action::Export { only: None, format: Format::All { secrets: true } }));
    assert_eq!(h.take().last(), Some(&Update::Notice(Notice::DownloadFailed("downloads are blocked".into()))));
}

#[test]
fn an_import_says_what_came_in_and_shows_it_here_and_in_the_other_tabs() {
    let mut h = started();
    h.send(Command::Data(crate::data::Action::Export { only: None, format: Format::All { secrets: false } }));
    let text = h.p.downloads.borrow()[0].2.clone();
    // The same export again changes nothing; a fresh store gets it all.
    h.send(Command::Data(crate::data::Action::Import { texts: vec![text.clone()], left_out: Vec::new() }));
    let updates = h.take();
    assert_eq!(updates[0], Update::Import(ImportOutcome::Done(Imported::default())));
    assert!(updates.contains(&Update::SessionsChanged));
    let mut fresh = Harness::new(FakePlatform::default());
    fresh.send(Command::Start);
    fresh.take();
    fresh.send(Command::Data(crate::data::Action::Import { texts: vec![text], left_out: Vec::new() }));
    let updates = fresh.take();
    assert_eq!(updates[0], Update::Import(ImportOutcome::Done(Imported { sessions: 1, messages: 1, ..Imported::default() })));
    assert!(updates.iter().any(|u| matches!(u, Update::Sessions { list, .. } if list.len() == 1)), "the list shows it");
    assert!(updates.iter().any(|u| matches!(u, Update::Storage(_))), "and how much is stored now");
}

#[test]
fn a_file_that_is_not_an_export_is_refused_and_a_full_store_said_so() {
    let mut h = started();
    h.send(Command::Data(crate::data::Action::Import { texts: vec!["{\"format\":\"something else\"}".into()], left_out: Vec::new() }));
    assert!(matches!(h.take().as_slice(), [Update::Import(ImportOutcome::Failed(_))]));
    h.send(Command::Data(crate::data::Action::Imported(Ok(Err(ImportFailure::Store(air_store::StoreError::QuotaExceeded("full".into())))))));
    assert_eq!(h.take(), vec![Update::Import(ImportOutcome::StorageFull)]);
    assert!(h.p.kv.get("air-agent-settings").is_none(), "nothing else written");
}

#[test]
fn another_apps_export_says_which_app_and_what_it_held_and_its_split_parts_come_in_together() {
    let conversation = |id: &str, text: &str| {
        format!(
            r#"{{"id":"{id}","title":"T {id}","create_time":1700000000,"mapping":{{"r":{{"id":"r","message":null,"parent":null}},"s":{{"id":"s","parent":"r","message":{{"author":{{"role":"system"}},"content":{{"content_type":"text","parts":["sys"]}},"weight":0}}}},"u":{{"id":"u","parent":"s","message":{{"author":{{"role":"user"}},"create_time":1700000001,"content":{{"content_type":"text","parts":["{text}"]}}}}}}}},"current_node":"u"}}"#
        )
    };
    let mut h = started();
    h.send(Command::Data(crate::data::Action::Import { texts: vec![format!("[{}]", conversation("a", "first part")), format!("[{}]", conversation("b", "second part"))], left_out: Vec::new() }));
    let updates = h.take();
    let Update::Import(ImportOutcome::Done(done)) = &updates[0] else { panic!("{updates:?}") };
    assert_eq!((done.sessions, done.messages), (2, 2));
    let (source, summary) = done.from.clone().expect("another app's");
    assert_eq!(source, air_import::Source::ChatGpt);
    assert_eq!((summary.conversations, summary.hidden), (2, 2));
    h.send(Command::Data(crate::data::Action::Import { texts: vec![format!("[{}]", conversation("c", "third")), r#"{"chat-next-web-store": {"sessions": []}}"#.into()], left_out: Vec::new() }));
    let updates = h.take();
    let Update::Import(ImportOutcome::Done(done)) = &updates[0] else { panic!("{updates:?}") };
    let skipped = done.from.as_ref().map(|(_, s)| s.skipped.clone()).unwrap_or_default();
    assert_eq!(skipped, [air_import::Skipped::OtherApp { file: 2, app: air_import::Source::ChatGpt }], "another app's file is said, not passed over");
    h.send(Command::Data(crate::data::Action::Import { texts: vec!["[1]".into(), "{}".into()], left_out: Vec::new() }));
    assert!(matches!(h.take().as_slice(), [Update::Import(ImportOutcome::Failed(_))]), "parts of nothing known");
}

#[test]
fn what_a_zip_left_out_is_said_with_what_came_in() {
    let mut h = started();
    h.send(Command::Data(crate::data::Action::Export { only: None, format: Format::All { secrets: false } }));
    let text = h.p.downloads.borrow()[0].2.clone();
    let mut fresh = Harness::new(FakePlatform::default());
    fresh.send(Command::Start);
    fresh.take();
    let left_out = vec!["“__MACOSX/conversations.json” (a copy of a file's details macOS makes, not the file)".to_owned()];
    fresh.send(Command::Data(crate::data::Action::Import { texts: vec![text], left_out: left_out.clone() }));
    let updates = fresh.take();
    assert_eq!(updates[0], Update::Import(ImportOutcome::Done(Imported { sessions: 1, messages: 1, from: None, left_out })));
}
