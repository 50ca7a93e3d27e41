use std::cell::{Cell, RefCell};
use std::future::Future;

use super::*;
use crate::memory::MemoryPeer;
use crate::peer::{ChangesBatch, DbInfo, Missing};
use pollster::block_on;
use serde_json::{Value, json};

fn rev(s: &str) -> Rev {
    Rev::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn put(db: &MemoryPeer, doc: Value) -> Rev {
    db.put(doc).unwrap_or_else(|e| panic!("{e}"))
}

fn run(source: &impl Peer, target: &impl Peer, options: &Options) -> Report {
    block_on(replicate(source, target, options)).unwrap_or_else(|e| panic!("{e}"))
}

fn with_batch(batch_size: usize) -> Options {
    Options { batch_size, ..Options::default() }
}

/// What the wrapped peers did, and the one call that fails.
#[derive(Default)]
struct Faults {
    calls: Cell<usize>,
    /// The call (counted from 1 over both peers) that fails; 0: none.
    fail_at: usize,
    /// The failing call is carried out, but its answer is lost.
    after: bool,
    /// `since` of every changes read that reached the peer.
    since: RefCell<Vec<Value>>,
    /// (side, source_last_seq) of every checkpoint stored.
    recorded: RefCell<Vec<(&'static str, Value)>>,
    /// Documents the target stored.
    written: Cell<usize>,
}

/// A peer whose `fail_at`-th call (over both peers) fails as a network
/// error would, before or after it reaches the database.
struct Flaky<'a> {
    inner: &'a MemoryPeer,
    side: &'static str,
    faults: &'a Faults,
}

impl Flaky<'_> {
    async fn call<T>(&self, work: impl Future<Output = Result<T, Error>>) -> Result<T, Error> {
        let n = self.faults.calls.get() + 1;
        self.faults.calls.set(n);
        let fails = n == self.faults.fail_at;
        if fails && !self.faults.after {
            return Err(Error::Network(format!("call {n} failed")));
        }
        let result = work.await;
        if fails {
            return Err(Error::Network(format!("the answer to call {n} was lost")));
        }
        result
    }
}

impl Peer for Flaky<'_> {
    fn id(&self) -> String {
        self.inner.id()
    }

    async fn info(&self) -> Result<DbInfo, Error> {
        self.call(self.inner.info()).await
    }

    async fn changes(&self, since: &Seq, limit: usize) -> Result<ChangesBatch, Error> {
        self.call(async {
            self.faults.since.borrow_mut().push(since.clone());
            self.inner.changes(since, limit).await
        })
        .await
    }

    async fn revs_diff(&self, revs: BTreeMap<String, Vec<Rev>>) -> Result<BTreeMap<String, Missing>, Error> {
        self.call(self.inner.revs_diff(revs)).await
    }

    async fn get_revs(&self, wanted: &[(String, Vec<Rev>)]) -> Result<Vec<serde_json::Value>, Error> {
        self.call(self.inner.get_revs(wanted)).await
    }

    async fn put_revs(&self, docs: Vec<Value>) -> Result<(), Error> {
        let n = docs.len();
        self.call(async {
            self.inner.put_revs(docs).await?;
            self.faults.written.set(self.faults.written.get() + n);
            Ok(())
        })
        .await
    }

    async fn get_local(&self, id: &str) -> Result<Option<Value>, Error> {
        self.call(self.inner.get_local(id)).await
    }

    async fn put_local(&self, id: &str, doc: Value) -> Result<String, Error> {
        let seq = doc["source_last_seq"].clone();
        self.call(async {
            let rev = self.inner.put_local(id, doc).await?;
            self.faults.recorded.borrow_mut().push((self.side, seq));
            Ok(rev)
        })
        .await
    }
}

fn flaky<'a>(inner: &'a MemoryPeer, side: &'static str, faults: &'a Faults) -> Flaky<'a> {
    Flaky { inner, side, faults }
}

/// A source of 13 documents (edits, a conflict, deletions, attachments)
/// and a target that already holds some of them and a conflicting edit.
fn scenario() -> (MemoryPeer, MemoryPeer) {
    let (source, target) = (MemoryPeer::new("source"), MemoryPeer::new("target"));
    for i in 0..10 {
        let r = put(&source, json!({"_id": format!("msg:{i}"), "text": format!("message {i}")}));
        if i % 3 == 0 {
            put(&source, json!({"_id": format!("msg:{i}"), "_rev": r.to_string(), "text": format!("edited {i}")}));
        }
        if i % 4 == 1 {
            source.delete(&format!("msg:{i}"), &source.tree(&format!("msg:{i}")).and_then(|t| t.winner()).map(|w| w.rev).unwrap_or(r)).ok();
        }
    }
    let att = json!({"a.txt": {"content_type": "text/plain", "data": "aGk="}});
    put(&source, json!({"_id": "file", "_attachments": att}));
    let shared = vec![json!({"_id": "chat", "_rev": "2-aaa", "v": "source", "_revisions": {"start": 2, "ids": ["aaa", "root"]}})];
    block_on(source.put_revs(shared)).ok();
    put(&source, json!({"_id": "last"}));
    // The target: the same first message, and another edit of `chat`.
    put(&target, json!({"_id": "msg:0", "text": "message 0"}));
    let other = vec![json!({"_id": "chat", "_rev": "2-bbb", "v": "target", "_revisions": {"start": 2, "ids": ["bbb", "root"]}})];
    block_on(target.put_revs(other)).ok();
    (source, target)
}

#[test]
fn replication_ids_are_stable_and_directed() {
    let id = replication_id("https://h/db", "local", "");
    assert_eq!(id, replication_id("https://h/db", "local", ""));
    assert_eq!(id.len(), 32);
    assert_ne!(id, replication_id("local", "https://h/db", ""));
    assert_ne!(id, replication_id("https://h/db", "local", "filter"));
}

/// Alice's business card, from CouchDB's conflict model: edited on two
/// devices apart, then replicated both ways.
#[test]
fn both_ways_conflicts_and_tombstones_end_identical() {
    let (laptop, desktop) = (MemoryPeer::new("laptop"), MemoryPeer::new("desktop"));
    let v1 = put(&laptop, json!({"_id": "bob", "email": "bob@old", "mobile": "111"}));
    let temp = put(&laptop, json!({"_id": "temp"}));
    let first = run(&laptop, &desktop, &Options::default());
    assert_eq!((first.docs_read, first.docs_written, first.batches, first.last_seq.clone()), (2, 2, 1, json!(2)));
    assert_eq!(desktop.get("bob"), laptop.get("bob"));
    // Apart: each side edits the card, the laptop deletes `temp`, the
    // desktop writes a new document.
    put(&laptop, json!({"_id": "bob", "_rev": v1.to_string(), "email": "bob@new", "mobile": "111"}));
    put(&desktop, json!({"_id": "bob", "_rev": v1.to_string(), "email": "bob@old", "mobile": "222"}));
    laptop.delete("temp", &temp).unwrap_or_else(|e| panic!("{e}"));
    put(&desktop, json!({"_id": "new"}));
    let push = run(&laptop, &desktop, &Options::default());
    let pull = run(&desktop, &laptop, &Options::default());
    assert_eq!((push.docs_written, pull.docs_written), (2, 2), "each side sends its own edits, nothing back");
    assert_eq!(laptop.contents(), desktop.contents());
    let card = laptop.get("bob").unwrap_or_default();
    assert_eq!(desktop.get("bob"), Some(card.clone()), "the same winner and conflicts on both sides");
    assert_eq!(card["_conflicts"].as_array().map(Vec::len), Some(1));
    assert_eq!((laptop.get("temp"), desktop.get("temp")), (None, None), "the deletion replicated");
    assert!(desktop.tree("temp").and_then(|t| t.winner()).is_some_and(|w| w.deleted));
    // Resolved on the desktop: merge on the winner, delete the loser.
    let winner = rev(card["_rev"].as_str().unwrap_or_default());
    let loser = rev(card["_conflicts"][0].as_str().unwrap_or_default());
    put(&desktop, json!({"_id": "bob", "_rev": winner.to_string(), "email": "bob@new", "mobile": "222"}));
    desktop.delete("bob", &loser).unwrap_or_else(|e| panic!("{e}"));
    run(&desktop, &laptop, &Options::default());
    assert_eq!(laptop.contents(), desktop.contents());
    assert_eq!(laptop.get("bob").map(|d| (d["mobile"].clone(), d.get("_conflicts").is_none())), Some((json!("222"), true)));
    // What came back from the other side is in the feed, but not sent back.
    let echo = run(&laptop, &desktop, &Options::default());
    assert_eq!((echo.docs_read, echo.docs_written), (0, 0));
    let idle = run(&laptop, &desktop, &Options::default());
    assert_eq!(idle.batches, 0, "nothing new: nothing read");
}

#[test]
fn batches_are_checkpointed_and_the_next_pass_starts_after_them() {
    let (source, target) = (MemoryPeer::new("s"), MemoryPeer::new("t"));
    for i in 0..10 {
        put(&source, json!({"_id": format!("d{i}")}));
    }
    let faults = Faults::default();
    let (s, t) = (flaky(&source, "source", &faults), flaky(&target, "target", &faults));
    let report = run(&s, &t, &with_batch(3));
    assert_eq!((report.batches, report.docs_written, report.last_seq.clone()), (4, 10, json!(10)));
    assert_eq!(*faults.since.borrow(), [json!(0), json!(3), json!(6), json!(9)], "a short batch is the last");
    let seqs = |side: &str| faults.recorded.borrow().iter().filter(|(s, _)| *s == side).map(|(_, q)| q.clone()).collect::<Vec<_>>();
    assert_eq!(seqs("target"), [json!(3), json!(6), json!(9), json!(10)]);
    assert_eq!(seqs("source"), seqs("target"));
    assert_eq!(faults.recorded.borrow()[0].0, "target", "the target first");
    put(&source, json!({"_id": "d10"}));
    put(&source, json!({"_id": "d11"}));
    put(&source, json!({"_id": "d12"}));
    faults.since.borrow_mut().clear();
    let next = run(&s, &t, &with_batch(3));
    assert_eq!((next.docs_written, next.batches, next.last_seq.clone()), (3, 1, json!(13)));
    assert_eq!(*faults.since.borrow(), [json!(10), json!(13)], "a full batch is followed by an empty read");
    assert_eq!(source.contents(), target.contents());
}

#[test]
fn progress_is_told_after_each_batch() {
    let (source, target) = (MemoryPeer::new("s"), MemoryPeer::new("t"));
    for i in 0..7 {
        put(&source, json!({"_id": format!("d{i}")}));
    }
    let mut seen = Vec::new();
    let report = pollster::block_on(replicate_watching(&source, &target, &with_batch(3), &mut |r| seen.push((r.batches, r.docs_written)))).unwrap();
    assert_eq!(seen, [(1, 3), (2, 6), (3, 7)]);
    assert_eq!(report.docs_written, 7);
}

#[test]
fn a_recreated_target_is_filled_again_from_the_start() {
    let source = MemoryPeer::new("s");
    for i in 0..5 {
        put(&source, json!({"_id": format!("d{i}")}));
    }
    run(&source, &MemoryPeer::new("t"), &Options::default());
    let fresh = MemoryPeer::new("t");
    let report = run(&source, &fresh, &Options::default());
    assert_eq!((report.docs_written, report.last_seq), (5, json!(5)), "its checkpoint went with it");
    assert_eq!(source.contents(), fresh.contents());
}

#[test]
fn a_read_only_source_is_replicated_without_its_checkpoint() {
    let (source, target) = scenario();
    source.set_read_only(true);
    let faults = Faults::default();
    let (s, t) = (flaky(&source, "source", &faults), flaky(&target, "target", &faults));
    let first = run(&s, &t, &with_batch(5));
    assert!(first.docs_written > 0);
    assert_eq!(block_on(source.get_local(&replication_id("source", "target", ""))), Ok(None));
    let again = run(&s, &t, &with_batch(5));
    assert_eq!(again.docs_written, 0, "read again from the start, nothing sent twice");
    for (id, (tree, _)) in source.contents() {
        let held = target.tree(&id).unwrap_or_default();
        assert!(tree.leaves().iter().all(|l| held.contains(&l.rev)), "{id}");
    }
}

/// The largest sequence both sides have recorded (where the next pass
/// must resume), 0 when none.
fn common_checkpoint(faults: &Faults) -> Value {
    let recorded = faults.recorded.borrow();
    let on = |side: &str| recorded.iter().filter(|(s, _)| *s == side).filter_map(|(_, q)| q.as_u64()).collect::<Vec<_>>();
    let target = on("target");
    json!(on("source").into_iter().filter(|q| target.contains(q)).max().unwrap_or(0))
}

/// Every call of a pass is cut in turn, before it reaches the database or
/// after (the answer lost). The next pass resumes at the last checkpoint
/// both sides hold, sends nothing already written, and ends with the
/// target exactly as a pass without faults leaves it.
#[test]
fn a_pass_cut_at_any_call_resumes_without_loss_or_rereading() {
    let options = with_batch(4);
    let (ref_source, ref_target) = scenario();
    let clean = Faults::default();
    let reference = run(&flaky(&ref_source, "source", &clean), &flaky(&ref_target, "target", &clean), &options);
    assert!(reference.batches >= 3, "{reference:?}");
    let calls = clean.calls.get();
    for after in [false, true] {
        for k in 1..=calls {
            let (source, target) = scenario();
            let faults = Faults { fail_at: k, after, ..Faults::default() };
            let (s, t) = (flaky(&source, "source", &faults), flaky(&target, "target", &faults));
            let case = format!("call {k} of {calls} failing {}", if after { "after" } else { "before" });
            for pass in 1.. {
                let resume = common_checkpoint(&faults);
                let read_before = faults.since.borrow().len();
                let result = block_on(replicate(&s, &t, &options));
                if let Some(first) = faults.since.borrow().get(read_before) {
                    assert_eq!(*first, resume, "{case}, pass {pass}: no checkpointed batch is read again");
                }
                match result {
                    Ok(_) => break,
                    Err(e) => assert!(pass == 1 && e.retryable(), "{case}, pass {pass}: {e}"),
                }
            }
            assert_eq!(target.contents(), ref_target.contents(), "{case}");
            assert_eq!(faults.written.get(), clean.written.get(), "{case}: nothing sent twice");
        }
    }
}

#[test]
fn a_first_sync_is_told_how_much_is_left_after_each_batch() {
    let (source, target) = (MemoryPeer::new("a"), MemoryPeer::new("b"));
    for i in 0..25 {
        put(&source, json!({"_id": format!("d{i:02}"), "n": i}));
    }
    let mut seen = Vec::new();
    let report = block_on(replicate_watching(&source, &target, &with_batch(10), &mut |r| seen.push(r.pending))).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(seen, [Some(15), Some(5), Some(0)]);
    assert_eq!(report.docs_written, 25);
}
