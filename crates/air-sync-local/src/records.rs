//! What the local peer needs of the device's store ([`Records`]), and the
//! sync bookkeeping it keeps there per record ([`RevEntry`]).
//!
//! Records are JSON values named by a kind (`session`, `message`, …) and
//! an id. The store's journal says which were written or removed, in
//! order; [`Kinds`] says which sync, what of each travels (local-only
//! fields stay home) and how two versions written apart end.

use std::collections::BTreeMap;

use air_sync::RevTree;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One journal entry: record `kind`/`id` was written (or removed) at `seq`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub seq: u64,
    pub kind: String,
    pub id: String,
    pub deleted: bool,
    /// Written with what the database being synced with had, and not
    /// since: it has all of it, so the feed passes it by. Records that
    /// carry something it lacks are journaled again without this
    /// ([`Write::Touch`]).
    pub pulled: bool,
}

/// A write the peer asks of the store, for what it pulled.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    Put {
        kind: String,
        id: String,
        value: Value,
    },
    Delete {
        kind: String,
        id: String,
    },
    /// Journals the record again without changing it, after the other
    /// writes: its revisions grew here (an edit made a revision, a
    /// conflict settled, a branch made) and must be sent.
    Touch {
        kind: String,
        id: String,
    },
}

/// What the peer keeps per synced record, beside it in the store (never in
/// the journal: writing it is not an edit).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RevEntry {
    /// The document id on the server.
    pub wire: String,
    pub kind: String,
    pub id: String,
    pub tree: RevTree,
    /// The content hash of the winner as last synced or made here
    /// (`""`: a deletion): a record whose content still hashes to it has
    /// no edit to send.
    pub hash: String,
    /// When the winner was written (milliseconds since the epoch).
    pub at: f64,
    /// The device that wrote it.
    #[serde(default)]
    pub dev: String,
    /// The bodies of other leaves, by revision, until a conflict is
    /// settled.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub leaves: BTreeMap<String, Leaf>,
    /// Versions an edit made apart lost to a newer one ([`Rule::Newest`]):
    /// shown to the user until dismissed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub superseded: Vec<Leaf>,
}

/// A version's body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Leaf {
    pub v: Value,
    pub at: f64,
    #[serde(default)]
    pub dev: String,
}

/// Why the device's store could not do what the local peer asked: the
/// store's words, said to the user as they are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocalError {
    /// The store refused or failed (its own message).
    #[error("{0}")]
    Store(String),
    /// A record could not be written or read as JSON.
    #[error("a record is not valid JSON: {0}")]
    Json(String),
}

impl From<serde_json::Error> for LocalError {
    fn from(e: serde_json::Error) -> Self {
        Self::Json(e.to_string())
    }
}

/// The device's store, as the local peer uses it.
#[allow(async_fn_in_trait)]
pub trait Records {
    /// Journal entries after `after`, oldest first, at most `limit`.
    async fn journal(&self, after: u64, limit: usize) -> Result<Vec<Entry>, LocalError>;
    /// The last sequence number the journal gave out.
    async fn last_seq(&self) -> Result<u64, LocalError>;
    /// About how many entries follow `after` (a first sync's progress).
    async fn pending(&self, _after: u64) -> Option<u64> {
        None
    }
    /// The record, if it exists.
    async fn read(&self, kind: &str, id: &str) -> Result<Option<Value>, LocalError>;
    /// The records `wanted` (kind, id), in order, as [`Records::read`]
    /// gives each; a store that can reads them at once.
    async fn read_many(&self, wanted: &[(String, String)]) -> Result<Vec<Option<Value>>, LocalError> {
        let mut out = Vec::with_capacity(wanted.len());
        for (kind, id) in wanted {
            out.push(self.read(kind, id).await?);
        }
        Ok(out)
    }
    /// Writes what was pulled (each write journaled as the store journals
    /// any other).
    async fn apply(&self, writes: &[Write]) -> Result<(), LocalError>;
    /// The bookkeeping of these documents, in order (`None`: never synced).
    async fn rev_entries(&self, wire: &[String]) -> Result<Vec<Option<RevEntry>>, LocalError>;
    async fn put_rev_entries(&self, entries: &[RevEntry]) -> Result<(), LocalError>;
    /// A local (never replicated) document: checkpoints.
    async fn local_doc(&self, id: &str) -> Result<Option<Value>, LocalError>;
    async fn put_local_doc(&self, id: &str, doc: &Value) -> Result<(), LocalError>;
}

/// How two versions of a record written apart end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Words: every text stays. A version the winner does not contain
    /// becomes a record of its own beside it ([`Kinds::sibling`]), and the
    /// version is then closed.
    KeepBoth,
    /// Settings-like: the versions are merged ([`Kinds::merge`]; by
    /// default the one edited last wins), the result written as the winner
    /// if the revision tree chose another, and what the user would miss of
    /// the others kept to see.
    Newest,
}

/// What versions of one record written apart become.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    pub value: Value,
    /// When the merged version was edited.
    pub at: f64,
    /// Versions the user would miss something of (shown until dismissed).
    pub superseded: Vec<Leaf>,
}

/// What syncs and how, per kind of record.
pub trait Kinds {
    /// Whether record `kind`/`id` travels.
    fn syncs(&self, kind: &str, id: &str) -> bool;
    /// What of record `kind`/`id` travels (local-only fields left out).
    fn to_wire(&self, kind: &str, id: &str, record: &Value) -> Value;
    /// The record to store for `wire`, keeping what only this device has
    /// of `local` (its version before).
    #[allow(clippy::wrong_self_convention, reason = "the app's kinds make a stored record from a wire one: not a constructor of the kinds")]
    fn from_wire(&self, kind: &str, id: &str, wire: &Value, local: Option<&Value>) -> Value;
    fn rule(&self, kind: &str) -> Rule;
    /// When the user last edited `record` (for [`Rule::Newest`]), if it says.
    fn edited_at(&self, kind: &str, record: &Value) -> Option<f64>;
    /// For [`Rule::Newest`]: what `versions` (the winner first, then the
    /// others in the tree's order) become. By default the one edited last,
    /// the others kept where they differ from it.
    fn merge(&self, _kind: &str, versions: &[Leaf]) -> Merged {
        newest(versions)
    }
    /// For [`Rule::KeepBoth`]: the record that keeps a version the winner
    /// lacks (`id` and value), from that version and a tag unique to it;
    /// `None` when the winner already holds all of it.
    fn sibling(&self, kind: &str, id: &str, winner: &Value, other: &Value, tag: &str) -> Option<(String, Value)>;
    /// What record `kind`/`id` is to the user, for counting what a pass
    /// moved ([`crate::store_peer::Tally`]). By default its kind.
    fn subject(&self, kind: &str, _id: &str) -> String {
        kind.to_owned()
    }
}

/// The version of `versions` edited last (the first of equals), the others
/// kept where they differ from it: [`Kinds::merge`]'s default.
pub fn newest(versions: &[Leaf]) -> Merged {
    let Some(mut pick) = versions.first() else { return Merged { value: Value::Null, at: 0.0, superseded: Vec::new() } };
    for v in versions {
        if v.at > pick.at {
            pick = v;
        }
    }
    let superseded = versions.iter().filter(|v| v.v != pick.v).cloned().collect();
    Merged { value: pick.v.clone(), at: pick.at, superseded }
}
