//! Two devices with the app's own store, through a server in memory:
//! conversations, their branches and files arrive whole, and what was
//! written apart ends the same on both.

use std::cell::Cell;

use air_chat::Role;
use air_store::{Attachment, FileRecord, MemoryStore, MessageRecord, SessionRecord, Store};
use air_sync::{MemoryPeer, Peer};
use air_sync_local::StorePeer;
use air_sync_local::crypto::Keys;
use air_sync_local::envelope::{new_config, unlock};
use air_sync_local::soft::SoftCrypto;
use pollster::block_on as run;

use super::*;

use crate::sync::device_tests::{Device, two_devices as setup};

#[test]
fn answers_written_apart_in_one_conversation_become_branches_on_both_devices() {
    let (server, a, b) = setup();
    run(a.store.put_session(&SessionRecord::new("s1", 1.0))).unwrap();
    a.message("q1", "s1", 1.0, Role::User, "Plan a day in Kyoto", None);
    a.message("a1", "s1", 2.0, Role::Assistant, "Start at Fushimi Inari.", Some("q1"));
    assert_eq!(a.sync_records(&server), (3, 0));
    assert_eq!(b.sync_records(&server), (0, 3));
    assert_eq!(b.shown("s1"), a.shown("s1"));
    // Both offline, each goes on from a1.
    a.message("q2", "s1", 3.0, Role::User, "And the evening?", Some("a1"));
    a.message("a2", "s1", 4.0, Role::Assistant, "Gion at dusk.", Some("q2"));
    b.message("q2b", "s1", 3.5, Role::User, "Where to eat?", Some("a1"));
    b.message("a2b", "s1", 4.5, Role::Assistant, "Nishiki Market.", Some("q2b"));
    a.sync_records(&server);
    b.sync_records(&server);
    a.sync_records(&server);
    for d in [&a, &b] {
        let s = run(d.store.get_session("s1")).unwrap().unwrap();
        assert_eq!(s.forks.get("a1").map(|f| f.count), Some(2), "{}: a fork after a1", d.name);
        assert_eq!(run(d.store.messages("s1")).unwrap().len(), 6, "{}: nothing lost", d.name);
        // A clean line on screen: one of the two ways on, whole.
        let shown: Vec<String> = d.shown("s1").into_iter().map(|(id, _)| id).collect();
        assert!(shown == ["q1", "a1", "q2", "a2"] || shown == ["q1", "a1", "q2b", "a2b"], "{}: {shown:?}", d.name);
    }
    assert_eq!(a.shown("s1"), b.shown("s1"));
    // Nothing goes back and forth any more.
    assert_eq!((a.sync_records(&server), b.sync_records(&server)), ((0, 0), (0, 0)));
}

#[test]
fn an_answer_continued_on_both_keeps_both_texts_and_titles_take_the_newer_rename() {
    let (server, a, b) = setup();
    let mut s = SessionRecord::new("s1", 1.0);
    run(a.store.put_session(&s)).unwrap();
    a.message("q1", "s1", 1.0, Role::User, "Write a haiku", None);
    let a1 = a.message("a1", "s1", 2.0, Role::Assistant, "Old pond", Some("q1"));
    a.sync_records(&server);
    b.sync_records(&server);
    run(a.store.put_message(&MessageRecord { content: "Old pond, a frog jumps in".into(), ..a1.clone() })).unwrap();
    run(b.store.put_message(&MessageRecord { content: "Old pond, still water".into(), ..a1.clone() })).unwrap();
    s.rename("Haiku", 10.0);
    run(a.store.put_session(&s)).unwrap();
    s.rename("Poems", 20.0);
    run(b.store.put_session(&s)).unwrap();
    a.sync_records(&server);
    b.sync_records(&server);
    a.sync_records(&server);
    for d in [&a, &b] {
        let texts: Vec<String> = run(d.store.messages("s1")).unwrap().into_iter().map(|m| m.content).collect();
        assert!(texts.contains(&"Old pond, a frog jumps in".to_owned()) && texts.contains(&"Old pond, still water".to_owned()), "{}: {texts:?}", d.name);
        let s = run(d.store.get_session("s1")).unwrap().unwrap();
        assert_eq!(s.title, "Poems", "{}", d.name);
        assert_eq!(s.forks.get("q1").map(|f| f.count), Some(2), "{}: the two answers are alternatives", d.name);
    }
    assert_eq!(run(a.store.messages("s1")).unwrap().len(), run(b.store.messages("s1")).unwrap().len());
    // Each settled the conflicts the same way while pulling: what A sends
    // of that (the closed versions, the kept text as a message of its
    // own), B has made already, and the two meet without a new conflict.
    assert_eq!(a.sync_records(&server), (3, 0));
    assert_eq!(b.sync_records(&server), (0, 0));
    assert_eq!((a.sync_records(&server), b.sync_records(&server)), ((0, 0), (0, 0)));
}

#[test]
fn files_travel_with_their_message_and_a_deleted_conversation_goes_on_both() {
    let (server, a, b) = setup();
    run(a.store.put_session(&SessionRecord::new("s1", 1.0))).unwrap();
    // Large enough to travel as an attachment (what a document body could not hold at 8 MB).
    let bytes: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    run(a.store.put_file(&FileRecord { id: "f1".into(), session_id: "s1".into(), mime: "image/png".into(), bytes: bytes.clone() })).unwrap();
    let mut q = MessageRecord::new("q1", "s1", 1.0, Role::User, "What is in this picture?");
    q.attachments.push(Attachment { id: "f1".into(), name: "p.png".into(), mime: "image/png".into(), size: 256 });
    run(a.store.put_message(&q)).unwrap();
    a.sync_records(&server);
    b.sync_records(&server);
    assert_eq!(run(b.store.get_file("f1")).unwrap().map(|f| (f.mime, f.bytes)), Some(("image/png".into(), bytes)));
    assert_eq!(run(b.store.get_message("q1")).unwrap().map(|m| m.attachments.len()), Some(1));
    run(a.store.delete_session("s1")).unwrap();
    a.sync_records(&server);
    b.sync_records(&server);
    assert_eq!(run(b.store.get_session("s1")).unwrap(), None);
    assert!(run(b.store.messages("s1")).unwrap().is_empty());
    assert_eq!((a.sync_records(&server), b.sync_records(&server)), ((0, 0), (0, 0)));
}

/// What the push feed of `d` offers a database: the one it syncs with
/// (marked `server`, as `sync` marks it), or another.
fn feed(d: &Device, mark: &str) -> Vec<String> {
    let records = StoreRecords::new(&d.store, None).marked(mark.into());
    let kinds = AppKinds { prefs: d.keys.seals(), ..AppKinds::default() };
    let peer = StorePeer::new(&records, &d.keys, &kinds, d.name, || 0.0);
    run(peer.changes(&serde_json::Value::from(0), 100)).unwrap().results.into_iter().map(|c| c.id).collect()
}

#[test]
fn what_was_pulled_is_passed_by_when_pushing_to_its_database_and_an_edit_of_it_is_not() {
    let (server, a, b) = setup();
    run(a.store.put_session(&SessionRecord::new("s1", 1.0))).unwrap();
    a.message("q1", "s1", 1.0, Role::User, "Plan a day in Kyoto", None);
    a.message("a1", "s1", 2.0, Role::Assistant, "Start at Fushimi Inari.", Some("q1"));
    a.sync_records(&server);
    assert_eq!(b.sync_records(&server), (0, 3));
    // The database it came from has all of it; another has none of it.
    assert_eq!(feed(&b, "server"), Vec::<String>::new());
    assert_eq!(feed(&b, "another").len(), 3);
    b.message("q1", "s1", 1.0, Role::User, "Plan two days in Kyoto", None);
    assert_eq!(feed(&b, "server").len(), 1, "an edit here is sent");
    assert_eq!(b.sync_records(&server), (1, 0));
    assert_eq!(a.sync_records(&server), (0, 1));
    assert_eq!(a.shown("s1"), b.shown("s1"));
}

#[test]
fn a_tool_call_pulled_from_a_database_without_a_passphrase_always_asks_before_it_runs_again() {
    use air_store::records::{ToolRun, ToolStatus};
    let call = |d: &Device| {
        let mut m = MessageRecord::new("t1", "s1", 2.0, Role::Assistant, "");
        m.tool = Some(ToolRun::new("delete_file", Some("files".into()), r#"{"path":"notes.txt"}"#, ToolStatus::Done));
        run(d.store.put_message(&m)).unwrap();
    };
    let imported = |d: &Device| run(d.store.messages("s1")).unwrap().iter().find(|m| m.id == "t1").and_then(|m| m.tool.as_ref()).map(|t| t.imported);
    for pass in [None, Some("pass")] {
        let (config, _) = run(new_config(&SoftCrypto::seeded(1), pass, 1_000)).unwrap();
        let device = |name| Device { name, store: MemoryStore::new(), keys: run(unlock(&SoftCrypto::default(), &config, pass)).unwrap(), kv: Default::default(), clock: Cell::new(100.0) };
        let (server, a, b) = (MemoryPeer::new("server"), device("laptop"), device("phone"));
        run(a.store.put_session(&SessionRecord::new("s1", 1.0))).unwrap();
        call(&a);
        a.sync_records(&server);
        b.sync_records(&server);
        // Anyone able to write to a plain database could have written the call.
        assert_eq!(imported(&b), Some(pass.is_none()), "{pass:?}");
        assert_eq!(imported(&a), Some(false), "the device that made it trusts it");
        // The mark is this device's: nothing is sent back for it.
        assert_eq!((b.sync_records(&server), a.sync_records(&server)), ((0, 0), (0, 0)), "{pass:?}");
    }
}
