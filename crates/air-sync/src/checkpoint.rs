//! The replication checkpoint: a `_local/<replication id>` document on
//! both sides recording how far the source's changes have been copied,
//! with a history of sessions, so that the next pass can find the last
//! point both sides recorded and start there.
//!
//! Why both sides: either database may have been deleted and recreated
//! (or restored from a backup) since; its checkpoint went with it, the
//! histories no longer meet, and the pass starts from the beginning
//! (safe, as `_revs_diff` skips what the target has).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::peer::Seq;

/// How many sessions a checkpoint remembers (as CouchDB).
pub const HISTORY_LIMIT: usize = 50;

/// What one session (one replication pass) recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub session_id: String,
    /// The source's changes up to here are on the target.
    pub recorded_seq: Seq,
    #[serde(default)]
    pub start_last_seq: Seq,
    #[serde(default)]
    pub docs_read: u64,
    #[serde(default)]
    pub docs_written: u64,
}

/// One side's checkpoint: its `_rev` (to write the next one over it) and
/// its history, newest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checkpoint {
    pub rev: Option<String>,
    pub history: Vec<Entry>,
}

impl Checkpoint {
    /// Reads a checkpoint document. Anything unreadable in it counts as no
    /// history (the pass starts over, which is safe), but its `_rev` is
    /// kept so that it can be overwritten.
    pub fn read(doc: Option<&Value>) -> Self {
        let Some(doc) = doc else { return Self::default() };
        let rev = doc.get("_rev").and_then(Value::as_str).map(str::to_owned);
        let history = doc
            .get("history")
            .and_then(Value::as_array)
            .map(|h| h.iter().filter_map(|e| serde_json::from_value::<Entry>(e.clone()).ok()).filter(|e| !e.recorded_seq.is_null()).collect())
            .unwrap_or_default();
        Self { rev, history }
    }

    /// Puts `entry` at the head of the history, in place of what its
    /// session recorded before.
    pub fn record(&mut self, entry: Entry) {
        self.history.retain(|e| e.session_id != entry.session_id);
        self.history.insert(0, entry);
        self.history.truncate(HISTORY_LIMIT);
    }

    /// The document to write (CouchDB's replicator's field names).
    pub fn doc(&self) -> Value {
        let head = self.history.first();
        let mut doc = json!({
            "session_id": head.map(|e| e.session_id.clone()),
            "source_last_seq": head.map(|e| e.recorded_seq.clone()),
            "history": self.history,
            "replicator": "air-sync",
            "version": 1,
        });
        if let (Some(rev), Some(obj)) = (&self.rev, doc.as_object_mut()) {
            obj.insert("_rev".into(), rev.clone().into());
        }
        doc
    }
}

/// Where to resume: what the source recorded for its newest session that
/// the target also recorded. The target is written first, so it holds at
/// least what the source recorded for the same session. `None`: the
/// histories do not meet, start from the beginning.
pub fn start_seq(source: &Checkpoint, target: &Checkpoint) -> Option<Seq> {
    source.history.iter().find(|s| target.history.iter().any(|t| t.session_id == s.session_id)).map(|s| s.recorded_seq.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(session: &str, seq: u64) -> Entry {
        Entry { session_id: session.into(), recorded_seq: seq.into(), start_last_seq: 0.into(), docs_read: 0, docs_written: 0 }
    }

    fn side(entries: &[(&str, u64)]) -> Checkpoint {
        Checkpoint { rev: Some("0-1".into()), history: entries.iter().map(|(s, n)| entry(s, *n)).collect() }
    }

    #[test]
    fn resume_from_the_newest_session_both_sides_recorded() {
        assert_eq!(start_seq(&side(&[("c", 30), ("b", 20)]), &side(&[("c", 35), ("b", 20)])), Some(30.into()), "the source's own record");
        assert_eq!(start_seq(&side(&[("b", 20), ("a", 10)]), &side(&[("c", 35), ("b", 20)])), Some(20.into()), "the source missed the last session");
        assert_eq!(start_seq(&side(&[("x", 9)]), &side(&[("c", 35)])), None, "a side was recreated");
        assert_eq!(start_seq(&Checkpoint::default(), &side(&[("c", 35)])), None);
    }

    #[test]
    fn a_session_has_one_entry_at_the_head_and_history_is_bounded() {
        let mut c = side(&[("a", 1)]);
        c.record(entry("b", 2));
        c.record(entry("b", 3));
        assert_eq!(c.history, [entry("b", 3), entry("a", 1)]);
        let doc = c.doc();
        assert_eq!((doc["_rev"].as_str(), doc["session_id"].as_str(), doc["source_last_seq"].as_u64()), (Some("0-1"), Some("b"), Some(3)));
        assert_eq!(Checkpoint::read(Some(&doc)), c);
        for i in 0..60 {
            c.record(entry(&format!("s{i}"), i));
        }
        assert_eq!(c.history.len(), HISTORY_LIMIT);
        assert_eq!(c.history[0].session_id, "s59");
    }

    #[test]
    fn an_unreadable_checkpoint_is_no_history_but_keeps_its_rev() {
        let c = Checkpoint::read(Some(&json!({"_rev": "0-7", "history": [{"session_id": 5}, {"session_id": "ok", "recorded_seq": "3-g1"}]})));
        assert_eq!(c.rev.as_deref(), Some("0-7"));
        assert_eq!(c.history.iter().map(|e| e.session_id.as_str()).collect::<Vec<_>>(), ["ok"]);
        assert_eq!(Checkpoint::read(Some(&json!("nonsense"))), Checkpoint::default());
    }
}
