use super::*;
use pollster::block_on;

fn rev(s: &str) -> Rev {
    Rev::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn put(db: &MemoryPeer, doc: Value) -> Rev {
    db.put(doc).unwrap_or_else(|e| panic!("{e}"))
}

fn changes(db: &MemoryPeer, since: u64, limit: usize) -> ChangesBatch {
    block_on(db.changes(&since.into(), limit)).unwrap_or_else(|e| panic!("{e}"))
}

fn ids(batch: &ChangesBatch) -> Vec<&str> {
    batch.results.iter().map(|c| c.id.as_str()).collect()
}

#[test]
fn edits_name_the_revision_they_change() {
    let db = MemoryPeer::new("a");
    let r1 = put(&db, json!({"_id": "chat", "title": "Hi"}));
    assert_eq!(r1.pos, 1);
    assert_eq!(r1.hash.len(), 32);
    assert!(matches!(db.put(json!({"_id": "chat", "title": "again"})), Err(Error::Conflict(_))), "exists: needs _rev");
    let r2 = put(&db, json!({"_id": "chat", "_rev": r1.to_string(), "title": "Hello"}));
    assert_eq!(r2.pos, 2);
    assert!(matches!(db.put(json!({"_id": "chat", "_rev": r1.to_string(), "title": "late"})), Err(Error::Conflict(_))), "a stale _rev");
    assert!(matches!(db.put(json!({"_id": "other", "_rev": "1-x"})), Err(Error::Conflict(_))), "_rev of a document that does not exist");
    assert_eq!(db.get("chat"), Some(json!({"_id": "chat", "_rev": r2.to_string(), "title": "Hello"})));
    assert!(matches!(db.put(json!({"title": "no id"})), Err(Error::Invalid(_))));
    assert!(matches!(db.put(json!({"_id": "x", "_rev": 5})), Err(Error::Invalid(_))));
    assert!(matches!(db.put(json!({"_id": "_local/x"})), Err(Error::Invalid(_))));
    // The same edit of the same revision is the same revision everywhere.
    let other = MemoryPeer::new("b");
    assert_eq!(put(&other, json!({"_id": "chat", "title": "Hi"})), r1);
}

#[test]
fn a_deletion_is_a_revision_and_a_recreation_builds_on_it() {
    let db = MemoryPeer::new("a");
    let r1 = put(&db, json!({"_id": "d", "v": 1}));
    let r2 = db.delete("d", &r1).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(db.get("d"), None);
    let tree = db.tree("d").unwrap_or_default();
    assert_eq!(tree.winner(), Some(crate::rev::Leaf { rev: r2.clone(), deleted: true }));
    let r3 = put(&db, json!({"_id": "d", "v": 2}));
    assert_eq!(r3.pos, 3, "on top of the tombstone");
    assert_eq!(db.get("d").map(|d| d["v"].clone()), Some(json!(2)));
    assert_eq!(changes(&db, 0, 10).results.len(), 1, "one document, once");
}

#[test]
fn the_changes_feed_holds_each_document_once_at_its_latest_change() {
    let db = MemoryPeer::new("a");
    let a = put(&db, json!({"_id": "a"}));
    put(&db, json!({"_id": "b"}));
    put(&db, json!({"_id": "c"}));
    put(&db, json!({"_id": "a", "_rev": a.to_string()}));
    block_on(db.put_local("cp", json!({"x": 1}))).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(db.update_seq(), 4, "a local document is not a change");
    let all = changes(&db, 0, 100);
    assert_eq!(ids(&all), ["b", "c", "a"]);
    assert_eq!(all.results.iter().map(|c| c.seq.clone()).collect::<Vec<_>>(), [json!(2), json!(3), json!(4)]);
    assert_eq!(all.last_seq, json!(4));
    assert_eq!(all.results[2].revs.len(), 1, "the leaf only");
    let page = changes(&db, 0, 2);
    assert_eq!((ids(&page), page.last_seq.clone()), (vec!["b", "c"], json!(3)));
    let rest = changes(&db, 3, 2);
    assert_eq!((ids(&rest), rest.last_seq.clone()), (vec!["a"], json!(4)));
    let none = changes(&db, 4, 2);
    assert_eq!((none.results.len(), none.last_seq), (0, json!(4)));
    assert_eq!(block_on(db.changes(&json!("2"), 10)).map(|b| b.results.len()), Ok(2), "a sequence in a string");
    assert!(matches!(block_on(db.changes(&json!("12-g1AAAA"), 10)), Err(Error::Invalid(_))));
}

/// Two revisions written apart both stay (`new_edits: false`); the winner
/// and `_conflicts` are CouchDB's.
#[test]
fn written_revisions_are_kept_with_their_conflicts() {
    let db = MemoryPeer::new("a");
    let docs = vec![
        json!({"_id": "x", "_rev": "2-aaa", "v": "a", "_revisions": {"start": 2, "ids": ["aaa", "root"]}}),
        json!({"_id": "x", "_rev": "2-bbb", "v": "b", "_revisions": {"start": 2, "ids": ["bbb", "root"]}}),
        json!({"_id": "y", "_rev": "1-yyy", "_deleted": true}),
    ];
    block_on(db.put_revs(docs.clone())).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(db.get("x"), Some(json!({"_id": "x", "_rev": "2-bbb", "v": "b", "_conflicts": ["2-aaa"]})));
    assert_eq!(db.get("y"), None);
    let seq = db.update_seq();
    block_on(db.put_revs(docs)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(db.update_seq(), seq, "written again: nothing new, no change");
    let feed = changes(&db, 0, 10);
    assert_eq!(feed.results[0].revs, vec![rev("2-bbb"), rev("2-aaa")], "all leaves, the winner first");
    assert!(feed.results[1].deleted);
    // Resolving: write on the winner, delete the loser.
    db.delete("x", &rev("2-aaa")).unwrap_or_else(|e| panic!("{e}"));
    let merged = put(&db, json!({"_id": "x", "_rev": "2-bbb", "v": "a+b"}));
    assert_eq!(db.get("x"), Some(json!({"_id": "x", "_rev": merged.to_string(), "v": "a+b"})));
}

#[test]
fn revs_diff_names_what_is_missing_and_its_possible_ancestors() {
    let db = MemoryPeer::new("a");
    let r1 = put(&db, json!({"_id": "x"}));
    let ask = BTreeMap::from([("x".to_owned(), vec![r1.clone(), rev("3-new")]), ("unknown".to_owned(), vec![rev("1-u"), rev("1-u")]), ("same".to_owned(), Vec::new())]);
    let diff = block_on(db.revs_diff(ask)).unwrap_or_default();
    assert_eq!(
        diff,
        BTreeMap::from([
            ("unknown".to_owned(), Missing { missing: vec![rev("1-u")], possible_ancestors: vec![] }),
            ("x".to_owned(), Missing { missing: vec![rev("3-new")], possible_ancestors: vec![r1] }),
        ])
    );
}

#[test]
fn revisions_are_read_in_full_with_their_ancestry() {
    let db = MemoryPeer::new("a");
    let att = json!({"note.txt": {"content_type": "text/plain", "data": "aGVsbG8="}});
    let r1 = put(&db, json!({"_id": "x", "v": 1, "_attachments": att}));
    let r2 = put(&db, json!({"_id": "x", "_rev": r1.to_string(), "v": 2, "_attachments": att}));
    let r3 = db.delete("x", &r2).unwrap_or_else(|e| panic!("{e}"));
    let got = block_on(db.get_revs(&[("x".into(), vec![r3.clone()]), ("nope".into(), vec![rev("1-a")])])).unwrap_or_default();
    let revisions = json!({"start": 3, "ids": [r3.hash, r2.hash, r1.hash]});
    assert_eq!(got, [json!({"_id": "x", "_rev": r3.to_string(), "_deleted": true, "_revisions": revisions})]);
    // An older revision gives the newest one built on it (`latest=true`),
    // once however often asked.
    let got = block_on(db.get_revs(&[("x".into(), vec![r1.clone(), r2.clone(), rev("9-gone")])])).unwrap_or_default();
    assert_eq!(got.iter().map(|d| d["_rev"].clone()).collect::<Vec<_>>(), [json!(r3.to_string())]);
    let live = MemoryPeer::new("b");
    let r = put(&live, json!({"_id": "y", "_attachments": att}));
    let got = block_on(live.get_revs(&[("y".into(), vec![r])])).unwrap_or_default();
    assert_eq!(got[0]["_attachments"], att, "attachments as they were, base64 untouched");
}

#[test]
fn local_documents_are_versioned_0_n_and_checked() {
    let db = MemoryPeer::new("a");
    assert_eq!(block_on(db.get_local("cp")), Ok(None));
    assert_eq!(block_on(db.put_local("cp", json!({"seq": 1}))), Ok("0-1".into()));
    let doc = block_on(db.get_local("cp")).ok().flatten().unwrap_or_default();
    assert_eq!(doc, json!({"_id": "_local/cp", "_rev": "0-1", "seq": 1}));
    assert!(matches!(block_on(db.put_local("cp", json!({"seq": 2}))), Err(Error::Conflict(_))), "without the _rev read");
    assert!(matches!(block_on(db.put_local("new", json!({"_rev": "0-4"}))), Err(Error::Conflict(_))));
    assert_eq!(block_on(db.put_local("cp", json!({"_rev": "0-1", "seq": 2}))), Ok("0-2".into()));
    assert_eq!(changes(&db, 0, 10).results.len(), 0);
}

#[test]
fn a_read_only_database_refuses_every_write() {
    let db = MemoryPeer::new("a");
    db.set_read_only(true);
    assert!(matches!(db.put(json!({"_id": "x"})), Err(Error::Unauthorized(_))));
    assert!(matches!(block_on(db.put_revs(vec![json!({"_id": "x", "_rev": "1-a"})])), Err(Error::Unauthorized(_))));
    assert!(matches!(block_on(db.put_local("cp", json!({}))), Err(Error::Unauthorized(_))));
    assert_eq!(block_on(db.info()).map(|i| i.update_seq), Ok(json!(0)));
}

#[test]
fn bad_documents_are_errors_not_panics() {
    let db = MemoryPeer::new("a");
    let bad = [
        json!("a string"),
        json!({"_rev": "1-a"}),
        json!({"_id": "x"}),
        json!({"_id": "x", "_rev": "one"}),
        json!({"_id": "x", "_rev": "2-b", "_revisions": {"start": 2, "ids": ["other", "a"]}}),
        json!({"_id": "x", "_rev": "2-b", "_revisions": {"start": 2, "ids": ["b", "a", "z"]}}),
        json!({"_id": "x", "_rev": "2-b", "_revisions": "no"}),
        json!({"_id": "_local/x", "_rev": "1-a"}),
    ];
    for doc in bad {
        let r = block_on(db.put_revs(vec![doc.clone()]));
        assert!(matches!(r, Err(Error::Malformed(_))), "{doc}: {r:?}");
    }
    assert!(db.contents().is_empty(), "nothing half-written");
}

#[test]
fn stemming_applies_to_written_revisions() {
    let db = MemoryPeer::new("a").with_revs_limit(3);
    let mut r = put(&db, json!({"_id": "x", "n": 0}));
    for n in 1..10 {
        r = put(&db, json!({"_id": "x", "_rev": r.to_string(), "n": n}));
    }
    let tree = db.tree("x").unwrap_or_default();
    assert_eq!((tree.len(), r.pos), (3, 10));
    assert_eq!(tree.revisions(&r).map(|p| p.ids.len()), Some(3));
    assert_eq!(db.get("x").map(|d| d["n"].clone()), Some(json!(9)));
}
