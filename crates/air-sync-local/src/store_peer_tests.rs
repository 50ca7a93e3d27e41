//! Two devices and a server in memory: what each writes reaches the other
//! through the server, sealed; nothing is sent back that came from there;
//! versions written apart end as their rule says, the same on both.

use std::cell::Cell;

use air_sync::{MemoryPeer, Options, Peer, replicate};
use pollster::block_on as run;
use serde_json::{Value, json};

use crate::envelope::new_config;
use crate::memory::MemoryRecords;
use crate::records::{Kinds, RevEntry, Rule};
use crate::soft::{SoftCrypto, SoftKeys};
use crate::store_peer::{StorePeer, Tally};
use std::collections::BTreeMap;

/// The app's shape in small: messages keep every text, sessions take the
/// newest title; `local` fields stay on the device; the event log stays.
struct TestKinds;

impl Kinds for TestKinds {
    fn syncs(&self, kind: &str, id: &str) -> bool {
        kind != "doc" || id != "event-log"
    }
    fn to_wire(&self, _: &str, _: &str, record: &Value) -> Value {
        let mut v = record.clone();
        if let Some(o) = v.as_object_mut() {
            o.remove("local");
        }
        v
    }
    fn from_wire(&self, _: &str, _: &str, wire: &Value, local: Option<&Value>) -> Value {
        let mut v = wire.clone();
        if let (Some(o), Some(l)) = (v.as_object_mut(), local.and_then(|l| l.get("local"))) {
            o.insert("local".into(), l.clone());
        }
        v
    }
    fn rule(&self, kind: &str) -> Rule {
        if kind == "message" { Rule::KeepBoth } else { Rule::Newest }
    }
    fn edited_at(&self, _: &str, record: &Value) -> Option<f64> {
        record.get("at").and_then(Value::as_f64)
    }
    fn sibling(&self, _: &str, id: &str, winner: &Value, other: &Value, tag: &str) -> Option<(String, Value)> {
        let (w, o) = (winner["text"].as_str().unwrap_or(""), other["text"].as_str().unwrap_or(""));
        (!w.contains(o)).then(|| (format!("{id}~{tag}"), other.clone()))
    }
}

struct Device {
    name: &'static str,
    records: MemoryRecords,
    keys: SoftKeys,
    clock: Cell<f64>,
}

impl Device {
    fn new(name: &'static str, passphrase: &str, config: &crate::envelope::Config) -> Self {
        let keys = run(crate::envelope::unlock(&SoftCrypto::default(), config, Some(passphrase))).unwrap();
        Self { name, records: MemoryRecords::default(), keys, clock: Cell::new(1_000.0) }
    }

    fn peer(&self) -> StorePeer<'_, MemoryRecords, SoftKeys, TestKinds> {
        StorePeer::new(&self.records, &self.keys, &TestKinds, self.name, || self.clock.get())
    }

    /// Pushes, then pulls; returns what was written each way.
    fn sync(&self, server: &MemoryPeer) -> (u64, u64) {
        let o = Options { batch_size: 3, ..Options::default() };
        let up = run(replicate(&self.peer(), server, &o)).unwrap();
        let down = run(replicate(server, &self.peer(), &o)).unwrap();
        (up.docs_written, down.docs_written)
    }

    fn text(&self, kind: &str, id: &str) -> Option<String> {
        self.records.get(kind, id).and_then(|v| v.get("text").or(v.get("title")).and_then(Value::as_str).map(str::to_owned))
    }
}

fn setup() -> (MemoryPeer, Device, Device) {
    let (config, _) = run(new_config(&SoftCrypto::seeded(1), Some("pass"), 1_000)).unwrap();
    (MemoryPeer::new("server"), Device::new("laptop", "pass", &config), Device::new("phone", "pass", &config))
}

fn entry(d: &Device, kind: &str, id: &str) -> RevEntry {
    d.records.rev_entry_of(kind, id).unwrap()
}

#[test]
fn what_one_device_writes_reaches_the_other_sealed_and_nothing_comes_back() {
    let (server, a, b) = setup();
    a.records.put("session", "s1", json!({"title": "Trip to Kyoto", "at": 1.0, "local": {"forks": 1}}));
    a.records.put("message", "m1", json!({"text": "Where should we stay in Kyoto?", "session": "s1"}));
    a.records.put("doc", "event-log", json!({"entries": ["turn started"]}));
    assert_eq!(a.sync(&server), (2, 0));
    // The server holds two documents and no readable word of them.
    let stored = format!("{:?}", server.contents());
    assert_eq!(server.contents().len(), 2);
    for word in ["Kyoto", "s1", "m1", "session", "event", "laptop"] {
        assert!(!stored.contains(word), "{word} on the server");
    }
    assert_eq!(b.sync(&server), (0, 2));
    assert_eq!(b.text("message", "m1").as_deref(), Some("Where should we stay in Kyoto?"));
    assert_eq!(b.records.get("session", "s1"), Some(json!({"title": "Trip to Kyoto", "at": 1.0})), "local fields stay home");
    assert_eq!(b.records.get("doc", "event-log"), None);
    // No echo: what came from the server is not sent back, nor pulled again.
    let seq = server.update_seq();
    assert_eq!(b.sync(&server), (0, 0));
    assert_eq!(a.sync(&server), (0, 0));
    assert_eq!(server.update_seq(), seq);
    // An edit goes as one revision on top, whatever was written meanwhile.
    b.records.put("message", "m1", json!({"text": "Where should we stay in Kyoto? Near the station.", "session": "s1"}));
    b.records.put("message", "m1", json!({"text": "Where should we stay in Kyoto? Near the station, quiet.", "session": "s1"}));
    assert_eq!(b.sync(&server), (1, 0));
    assert_eq!(a.sync(&server), (0, 1));
    assert_eq!(a.text("message", "m1").as_deref(), Some("Where should we stay in Kyoto? Near the station, quiet."));
    assert_eq!(entry(&a, "message", "m1").tree, entry(&b, "message", "m1").tree);
    assert_eq!(entry(&a, "message", "m1").tree.winner().map(|w| w.rev.pos), Some(2));
    // A's own field stays where it was.
    a.records.put("session", "s1", json!({"title": "Trip to Kyoto", "at": 1.0, "local": {"forks": 2}}));
    assert_eq!(a.sync(&server), (0, 0), "a change of what stays home is no edit");
}

#[test]
fn a_pass_counts_what_it_sent_and_took_by_kind_and_the_databases_configuration_is_neither() {
    let (server, a, b) = setup();
    // As a first device does: the configuration is written, then a pass.
    server.put(json!({"_id": crate::envelope::CONFIG_ID, "v": 2})).unwrap();
    a.records.put("session", "s1", json!({"title": "Trip", "at": 1.0}));
    a.records.put("message", "m1", json!({"text": "Where to stay?", "session": "s1"}));
    a.records.put("message", "m2", json!({"text": "Near the station.", "session": "s1"}));
    let peer = a.peer();
    let o = Options::default();
    let up = run(replicate(&peer, &server, &o)).unwrap();
    let down = run(replicate(&server, &peer, &o)).unwrap();
    assert_eq!((up.docs_written, down.docs_written), (3, 0), "the configuration is not received");
    let sent = BTreeMap::from([("message".to_owned(), 2), ("session".to_owned(), 1)]);
    assert_eq!(peer.tally(), Tally { sent: sent.clone(), taken: BTreeMap::new() });
    let other = b.peer();
    let down = run(replicate(&server, &other, &o)).unwrap();
    assert_eq!(down.docs_written, 3);
    assert_eq!(other.tally(), Tally { sent: BTreeMap::new(), taken: sent });
}

#[test]
fn texts_written_apart_are_all_kept_the_same_on_both() {
    let (server, a, b) = setup();
    a.records.put("message", "m1", json!({"text": "Hello"}));
    a.sync(&server);
    b.sync(&server);
    // Offline, each continues the same answer its own way.
    a.records.put("message", "m1", json!({"text": "Hello from the laptop"}));
    b.records.put("message", "m1", json!({"text": "Hello from the phone"}));
    a.sync(&server);
    b.sync(&server);
    a.sync(&server);
    b.sync(&server);
    let (ma, mb) = (a.records.all("message"), b.records.all("message"));
    assert_eq!(ma, mb, "the same on both");
    assert_eq!(ma.len(), 2, "{ma:?}");
    let texts: Vec<&str> = ma.values().filter_map(|v| v["text"].as_str()).collect();
    assert!(texts.contains(&"Hello from the laptop") && texts.contains(&"Hello from the phone"), "{texts:?}");
    // The kept one is a sibling named after its version; no conflict is left.
    assert!(ma.keys().any(|k| k.starts_with("m1~")), "{:?}", ma.keys());
    for d in [&a, &b] {
        assert!(entry(d, "message", "m1").tree.conflicts().is_empty());
        assert!(entry(d, "message", "m1").leaves.is_empty());
    }
    assert_eq!(entry(&a, "message", "m1").tree, entry(&b, "message", "m1").tree);
    assert_eq!(a.sync(&server), (0, 0));
    assert_eq!(b.sync(&server), (0, 0));
    // A version the winner already holds makes no sibling.
    a.records.put("message", "m2", json!({"text": "Short"}));
    a.sync(&server);
    b.sync(&server);
    a.records.put("message", "m2", json!({"text": "Short"}));
    b.records.put("message", "m2", json!({"text": "Short, and longer"}));
    b.sync(&server);
    a.sync(&server);
    b.sync(&server);
    assert_eq!(a.records.all("message").keys().filter(|k| k.starts_with("m2")).count(), 1);
    assert_eq!(a.text("message", "m2"), b.text("message", "m2"));
}

#[test]
fn titles_changed_apart_take_the_newest_and_keep_the_other_to_see() {
    let (server, a, b) = setup();
    a.records.put("session", "s1", json!({"title": "New chat", "at": 1.0}));
    a.sync(&server);
    b.sync(&server);
    a.records.put("session", "s1", json!({"title": "Kyoto", "at": 10.0}));
    b.records.put("session", "s1", json!({"title": "Japan trip", "at": 20.0}));
    b.sync(&server);
    a.sync(&server);
    b.sync(&server);
    a.sync(&server);
    for d in [&a, &b] {
        assert_eq!(d.text("session", "s1").as_deref(), Some("Japan trip"), "{}", d.name);
        let en = entry(d, "session", "s1");
        assert_eq!(en.superseded.iter().map(|l| l.v["title"].clone()).collect::<Vec<_>>(), [json!("Kyoto")], "{}", d.name);
        assert!(en.tree.conflicts().is_empty());
    }
    assert_eq!(entry(&a, "session", "s1").tree, entry(&b, "session", "s1").tree);
    assert_eq!((a.sync(&server), b.sync(&server)), ((0, 0), (0, 0)));
}

#[test]
fn a_deletion_reaches_the_other_device_but_an_edit_made_apart_outlives_it() {
    let (server, a, b) = setup();
    for id in ["m1", "m2"] {
        a.records.put("message", id, json!({"text": id}));
    }
    a.sync(&server);
    b.sync(&server);
    // A deletes both while B is away; B edits one of them.
    a.records.delete("message", "m1");
    a.records.delete("message", "m2");
    b.records.put("message", "m2", json!({"text": "m2, edited on the phone"}));
    a.sync(&server);
    b.sync(&server);
    a.sync(&server);
    assert_eq!(b.records.get("message", "m1"), None, "deleted on both");
    assert_eq!(a.records.get("message", "m1"), None);
    for d in [&a, &b] {
        assert_eq!(d.text("message", "m2").as_deref(), Some("m2, edited on the phone"), "{}", d.name);
    }
    assert_eq!(server.get(&entry(&a, "message", "m1").wire), None);
}

#[test]
fn a_device_with_another_passphrase_reads_nothing_and_writes_nothing() {
    let (server, a, _) = setup();
    a.records.put("message", "m1", json!({"text": "secret plans"}));
    a.sync(&server);
    let (other, _) = run(new_config(&SoftCrypto::seeded(9), Some("other"), 1_000)).unwrap();
    let c = Device::new("tablet", "other", &other);
    let peer = c.peer();
    run(replicate(&server, &peer, &Options::default())).unwrap();
    assert_eq!(peer.refused(), 1, "set aside, and counted");
    assert!(c.records.all("message").is_empty());
    assert_eq!(run(c.peer().get_local("x")).unwrap(), None);
}

#[test]
fn a_store_that_fails_is_an_error_and_the_next_pass_loses_nothing() {
    let (server, a, b) = setup();
    for i in 0..7 {
        a.records.put("message", &format!("m{i}"), json!({"text": format!("message {i}")}));
    }
    a.sync(&server);
    *b.records.broken.borrow_mut() = Some("quota exceeded".into());
    let err = run(replicate(&server, &b.peer(), &Options::default())).unwrap_err();
    assert!(err.to_string().contains("quota exceeded"), "{err}");
    *b.records.broken.borrow_mut() = None;
    assert_eq!(b.sync(&server), (0, 7));
    assert_eq!(b.records.all("message"), a.records.all("message"));
}

#[test]
fn an_edit_not_sent_yet_is_not_overwritten_by_what_arrives() {
    let (server, a, b) = setup();
    a.records.put("message", "m1", json!({"text": "Draft"}));
    a.sync(&server);
    b.sync(&server);
    a.records.put("message", "m1", json!({"text": "Draft, finished on the laptop"}));
    a.sync(&server);
    // B edited too, and pulls before it pushes (the pull runs on its own).
    b.records.put("message", "m1", json!({"text": "Draft, finished on the phone"}));
    run(replicate(&server, &b.peer(), &Options::default())).unwrap();
    let texts: Vec<String> = b.records.all("message").values().filter_map(|v| v["text"].as_str().map(str::to_owned)).collect();
    assert!(texts.contains(&"Draft, finished on the phone".to_owned()), "{texts:?}");
    assert!(texts.contains(&"Draft, finished on the laptop".to_owned()), "{texts:?}");
    b.sync(&server);
    a.sync(&server);
    assert_eq!(a.records.all("message"), b.records.all("message"));
}

#[test]
fn a_new_device_pulling_a_conflict_in_one_batch_keeps_every_text() {
    let (server, a, b) = setup();
    a.records.put("message", "m1", json!({"text": "Hello"}));
    a.sync(&server);
    b.sync(&server);
    // Both push their own version; neither pulls: the server holds two leaves.
    a.records.put("message", "m1", json!({"text": "Hello from the laptop"}));
    b.records.put("message", "m1", json!({"text": "Hello from the phone"}));
    run(replicate(&a.peer(), &server, &Options::default())).unwrap();
    run(replicate(&b.peer(), &server, &Options::default())).unwrap();
    let wire = entry(&a, "message", "m1").wire;
    assert_eq!(server.tree(&wire).map(|t| t.conflicts().len()), Some(1));
    let (config, _) = run(new_config(&SoftCrypto::seeded(1), Some("pass"), 1_000)).unwrap();
    let c = Device::new("tablet", "pass", &config);
    c.sync(&server);
    let texts = |d: &Device| {
        let mut t: Vec<String> = d.records.all("message").values().filter_map(|v| v["text"].as_str().map(str::to_owned)).collect();
        t.sort();
        t
    };
    assert_eq!(texts(&c), ["Hello from the laptop", "Hello from the phone"]);
    for _ in 0..2 {
        for d in [&a, &b, &c] {
            d.sync(&server);
        }
    }
    assert_eq!(texts(&a), texts(&c));
    assert_eq!(texts(&b), texts(&c));
    assert!(server.tree(&wire).is_some_and(|t| t.conflicts().is_empty()));
}

#[test]
fn a_deletion_or_an_edit_the_devices_did_not_make_is_refused() {
    let (server, a, b) = setup();
    a.records.put("message", "m1", json!({"text": "keep me"}));
    a.records.put("message", "m2", json!({"text": "and me"}));
    a.sync(&server);
    b.sync(&server);
    // Someone with access to the server deletes m1 and rewrites m2 under
    // revisions of their own making (they have no key to name them).
    let (w1, w2) = (entry(&a, "message", "m1").wire, entry(&a, "message", "m2").wire);
    let parent = |w: &str| server.tree(w).and_then(|t| t.winner()).map(|l| l.rev).unwrap();
    let (p1, p2) = (parent(&w1), parent(&w2));
    let forged_delete = json!({"_id": w1, "_rev": format!("2-{}", "a".repeat(32)), "_revisions": {"start": 2, "ids": ["a".repeat(32), p1.hash]}, "_deleted": true});
    let old_body = server.get(&w2).unwrap();
    let mut replayed = old_body.clone();
    replayed["_rev"] = json!(format!("2-{}", "b".repeat(32)));
    replayed["_revisions"] = json!({"start": 2, "ids": ["b".repeat(32), p2.hash]});
    run(server.put_revs(vec![forged_delete, replayed])).unwrap();
    let peer = b.peer();
    run(replicate(&server, &peer, &Options::default())).unwrap();
    assert_eq!(peer.refused(), 2);
    assert_eq!(b.text("message", "m1").as_deref(), Some("keep me"));
    assert_eq!(b.text("message", "m2").as_deref(), Some("and me"));
    // A good document in the same batch still comes.
    a.records.put("message", "m3", json!({"text": "new"}));
    a.sync(&server);
    b.sync(&server);
    assert_eq!(b.text("message", "m3").as_deref(), Some("new"));
}

/// Leaf `deleted` (a deletion, or not) of document `wire` on `server`, in
/// full with its ancestry, as a writer to the database reads it.
fn leaf_doc(server: &MemoryPeer, wire: &str, deleted: bool) -> Value {
    let (_, leaves) = server.contents().remove(wire).unwrap();
    leaves.into_iter().find(|d| d.get("_deleted").is_some() == deleted).unwrap()
}

#[test]
fn a_deletion_moved_to_another_document_or_grafted_onto_it_is_refused_and_counted() {
    let (server, a, b) = setup();
    // Two messages alike, and one that lives on.
    a.records.put("message", "m1", json!({"text": "ok"}));
    a.records.put("message", "m2", json!({"text": "ok"}));
    a.records.put("message", "m3", json!({"text": "keep me"}));
    a.records.put("message", "m5", json!({"text": "another's words"}));
    a.sync(&server);
    b.sync(&server);
    // A message written, edited, then deleted: a deletion three revisions deep.
    a.records.put("message", "m4", json!({"text": "draft"}));
    a.sync(&server);
    a.records.put("message", "m4", json!({"text": "draft 2"}));
    a.sync(&server);
    a.records.delete("message", "m4");
    a.records.delete("message", "m1");
    a.sync(&server);
    let wire = |id: &str| entry(&a, "message", id).wire;
    // Someone who can write to the database replays m1's deletion in m2 (the
    // same parent: the same content) ...
    let mut replayed = leaf_doc(&server, &wire("m1"), true);
    replayed["_id"] = json!(wire("m2"));
    // ... grafts m4's deletion onto m3, its invented ancestry running through m3's revision ...
    let mut grafted = leaf_doc(&server, &wire("m4"), true);
    let m3 = server.tree(&wire("m3")).and_then(|t| t.winner()).unwrap().rev;
    grafted["_id"] = json!(wire("m3"));
    grafted["_revisions"]["ids"][2] = json!(m3.hash);
    // ... and posts m5's text as a revision of m3.
    let mut moved = leaf_doc(&server, &wire("m5"), false);
    moved["_id"] = json!(wire("m3"));
    run(server.put_revs(vec![replayed, grafted, moved])).unwrap();
    let peer = b.peer();
    run(replicate(&server, &peer, &Options::default())).unwrap();
    assert_eq!(peer.refused(), 3, "each set aside, and counted");
    assert_eq!(b.text("message", "m2").as_deref(), Some("ok"));
    assert_eq!(b.text("message", "m3").as_deref(), Some("keep me"));
    // What the devices did themselves still comes.
    assert_eq!(b.records.get("message", "m1"), None);
    assert_eq!(b.records.get("message", "m4"), None);
}

#[test]
fn a_revision_grafted_onto_another_branch_is_refused_so_no_version_is_hidden() {
    let (server, a, b) = setup();
    a.records.put("message", "m1", json!({"text": "Draft"}));
    a.sync(&server);
    b.sync(&server);
    // The phone's version reaches the database; the laptop, never pulling,
    // edits on three times.
    b.records.put("message", "m1", json!({"text": "Draft, as the phone has it"}));
    run(replicate(&b.peer(), &server, &Options::default())).unwrap();
    let phone = entry(&b, "message", "m1").tree.winner().unwrap().rev;
    for text in ["Draft, laptop 1", "Draft, laptop 2", "Draft, laptop 3"] {
        a.records.put("message", "m1", json!({"text": text}));
        run(replicate(&a.peer(), &server, &Options::default())).unwrap();
    }
    // A hostile copy of the database says the laptop's second edit was made
    // on the phone's version: the phone's would no longer be a leaf.
    let wire = entry(&a, "message", "m1").wire;
    let (_, leaves) = server.contents().remove(&wire).unwrap();
    let mut grafted = leaves.into_iter().find(|d| d["_rev"].as_str().is_some_and(|r| r.starts_with("4-"))).unwrap();
    grafted["_revisions"]["ids"][2] = json!(phone.hash);
    let hostile = MemoryPeer::new("hostile");
    run(hostile.put_revs(vec![grafted])).unwrap();
    let peer = b.peer();
    run(replicate(&hostile, &peer, &Options::default())).unwrap();
    assert_eq!(peer.refused(), 1);
    assert_eq!(b.text("message", "m1").as_deref(), Some("Draft, as the phone has it"));
    // From the honest database, both versions are kept.
    b.sync(&server);
    let texts: Vec<String> = b.records.all("message").values().filter_map(|v| v["text"].as_str().map(str::to_owned)).collect();
    assert!(texts.contains(&"Draft, as the phone has it".to_owned()) && texts.contains(&"Draft, laptop 3".to_owned()), "{texts:?}");
}
