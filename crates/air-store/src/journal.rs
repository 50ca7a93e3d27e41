//! The store's change feed. Every write leaves, for each record it put or
//! removed, one [`Entry`]: a local sequence number, strictly increasing on
//! this device (allocated inside the write's own transaction, so two tabs
//! never share one), and which record it was. A record keeps only its
//! latest entry, so the journal holds at most one entry per record and
//! removed record (a tombstone), never the history of a streaming answer.
//!
//! It records ids, not contents: a reader ([`crate::Store::journal_since`])
//! reads the records themselves. The search index is derived from the
//! records and is not journaled.

use serde::{Deserialize, Serialize};

/// A position in the journal; 0 is before the first entry.
pub type Seq = u64;

/// What kind of record an entry is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Session,
    Message,
    File,
    Doc,
    /// A preference (settings, a server, an assistant, an HTTP tool), kept
    /// in the key/value store: journaled by sync when it sees it changed.
    Pref,
}

impl Kind {
    /// As stored (`by_record`'s first part).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Session => "session",
            Kind::Message => "message",
            Kind::File => "file",
            Kind::Doc => "doc",
            Kind::Pref => "pref",
        }
    }
}

/// What a write did to one record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub kind: Kind,
    /// The record's id (a document's key).
    pub id: String,
    /// The record is gone: a tombstone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deleted: bool,
    /// Written by sync with what a database had (that database's mark,
    /// [`crate::batch::Batch::from`]): a push to it passes the entry by.
    /// Any later write of the record (an edit here) replaces the entry,
    /// without the mark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

impl Change {
    pub fn put(kind: Kind, id: &str) -> Self {
        Self { kind, id: id.to_owned(), deleted: false, from: None }
    }

    /// The change, marked as written with what database `mark` had.
    pub fn from(self, mark: Option<&str>) -> Self {
        Self { from: mark.map(str::to_owned), ..self }
    }

    pub fn deleted(kind: Kind, id: &str) -> Self {
        Self { kind, id: id.to_owned(), deleted: true, from: None }
    }

    pub fn at(self, seq: Seq) -> Entry {
        Entry { seq, change: self }
    }
}

/// One entry of the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub seq: Seq,
    #[serde(flatten)]
    pub change: Change,
}

/// The journal kept in memory (the memory store's, a fallback and a test
/// double: a list is enough; IndexedDB keeps the same in its own object
/// store).
#[derive(Debug, Default)]
pub struct Journal {
    last: Seq,
    /// Oldest first.
    entries: Vec<Entry>,
}

impl Journal {
    /// Records a change with the next sequence number, in place of the
    /// record's earlier entry.
    pub fn record(&mut self, change: Change) -> Seq {
        self.last += 1;
        self.entries.retain(|e| e.change.kind != change.kind || e.change.id != change.id);
        self.entries.push(change.at(self.last));
        self.last
    }

    /// The entries after `after`, oldest first, at most `limit`.
    pub fn since(&self, after: Seq, limit: usize) -> Vec<Entry> {
        self.entries.iter().filter(|e| e.seq > after).take(limit).cloned().collect()
    }

    /// The last sequence number given out (0: none yet).
    pub fn last_seq(&self) -> Seq {
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_keeps_only_its_latest_entry() {
        let mut j = Journal::default();
        assert_eq!(j.record(Change::put(Kind::Message, "m1")), 1);
        assert_eq!(j.record(Change::put(Kind::Session, "s1")), 2);
        assert_eq!(j.record(Change::put(Kind::Message, "m1")), 3);
        assert_eq!(j.record(Change::deleted(Kind::Session, "s1")), 4);
        assert_eq!(j.since(0, 10), vec![Change::put(Kind::Message, "m1").at(3), Change::deleted(Kind::Session, "s1").at(4)]);
        assert_eq!(j.since(3, 10), vec![Change::deleted(Kind::Session, "s1").at(4)]);
        assert_eq!(j.since(0, 1).len(), 1);
        assert_eq!(j.last_seq(), 4);
    }

    #[test]
    fn an_entry_is_stored_flat() {
        let e = Change::deleted(Kind::Doc, "mcp-catalog").at(7);
        assert_eq!(serde_json::to_string(&e).unwrap(), r#"{"seq":7,"kind":"doc","id":"mcp-catalog","deleted":true}"#);
        let back: Entry = serde_json::from_str(r#"{"seq":2,"kind":"message","id":"m"}"#).unwrap();
        for k in [Kind::Session, Kind::Message, Kind::File, Kind::Doc, Kind::Pref] {
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
        }
        assert_eq!(back, Change::put(Kind::Message, "m").at(2));
    }
}
