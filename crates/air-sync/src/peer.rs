//! What replication needs from either side, local or remote: the
//! [`Peer`] interface and the shapes it speaks in.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::error::Error;
use crate::rev::{Rev, Revisions};

/// A position in a database's changes feed. Opaque: CouchDB ≥ 2 writes
/// strings (`"12-g1AAAA…"`), PouchDB Server integers; the only thing to do
/// with one is to hand it back, or compare two for equality.
pub type Seq = Value;

/// The sequence before the first change.
pub fn seq_zero() -> Seq {
    Value::from(0)
}

/// A database that exists, and where its changes feed stands.
#[derive(Debug, Clone, PartialEq)]
pub struct DbInfo {
    pub update_seq: Seq,
    /// Documents whose winner is not deleted, when the database says.
    pub doc_count: Option<u64>,
}

/// One document in the changes feed: its leaves (`style=all_docs`, the
/// winner first) as of `seq`, each document once, at its latest change.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub id: String,
    pub seq: Seq,
    pub revs: Vec<Rev>,
    /// The winner is a deletion.
    pub deleted: bool,
}

/// A page of the changes feed; `last_seq` is where the next page starts.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangesBatch {
    pub results: Vec<Change>,
    pub last_seq: Seq,
    /// How many changes remain after this batch, where the source says
    /// (CouchDB does; a first sync's progress).
    pub pending: Option<u64>,
}

/// The answer of `_revs_diff` for one document: the revisions the database
/// lacks, and its leaves that may be their ancestors.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Missing {
    pub missing: Vec<Rev>,
    pub possible_ancestors: Vec<Rev>,
}

/// One side of a replication. `async fn`s without a `Send` bound, like
/// `air_http::HttpClient`: everything runs on one thread (the browser's).
///
/// Documents travel as JSON the way CouchDB writes them: `_id`, `_rev`,
/// `_revisions` (the ancestry), `_deleted: true` for a deletion, and
/// attachments inline (`_attachments: {name: {content_type, data}}`,
/// `data` in base64, passed through untouched).
#[allow(async_fn_in_trait)]
pub trait Peer {
    /// Names this database in replication ids: the same database must give
    /// the same id every time, two databases never the same one.
    fn id(&self) -> String;

    /// Checks that the database exists.
    async fn info(&self) -> Result<DbInfo, Error>;

    /// Up to `limit` changes after `since`.
    async fn changes(&self, since: &Seq, limit: usize) -> Result<ChangesBatch, Error>;

    /// Which of these revisions the database lacks; documents lacking
    /// nothing are left out of the answer.
    async fn revs_diff(&self, revs: BTreeMap<String, Vec<Rev>>) -> Result<BTreeMap<String, Missing>, Error>;

    /// These revisions in full, each with its ancestry (`_revisions`). A
    /// revision that has since been built on gives its newest descendants
    /// (`latest=true`); one the database does not have is left out.
    async fn get_revs(&self, wanted: &[(String, Vec<Rev>)]) -> Result<Vec<Value>, Error>;

    /// Stores revisions as given, with their ancestry (`new_edits: false`):
    /// nothing is refused as a conflict, concurrent edits become conflicts.
    async fn put_revs(&self, docs: Vec<Value>) -> Result<(), Error>;

    /// The local (never replicated) document `_local/{id}`, if any.
    async fn get_local(&self, id: &str) -> Result<Option<Value>, Error>;

    /// Writes `_local/{id}`. `doc` carries the `_rev` it was read with, if
    /// it existed; returns the new `_rev`.
    async fn put_local(&self, id: &str, doc: Value) -> Result<String, Error>;
}

/// What identifies one revision of a document, read from the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocMeta {
    pub id: String,
    pub rev: Rev,
    /// The ancestry: `_revisions`, or the revision alone when absent.
    pub revisions: Revisions,
    pub deleted: bool,
}

impl DocMeta {
    /// Reads `_id`, `_rev`, `_revisions` and `_deleted` of a document as
    /// `_bulk_get` or `_bulk_docs` carry it.
    pub fn of(doc: &Value) -> Result<DocMeta, Error> {
        let obj = doc.as_object().ok_or_else(|| Error::Malformed("a document is not a JSON object".into()))?;
        let id = obj.get("_id").and_then(Value::as_str).ok_or_else(|| Error::Malformed("a document has no _id".into()))?;
        let rev = obj.get("_rev").and_then(Value::as_str).ok_or_else(|| Error::Malformed(format!("document {id:?} has no _rev")))?;
        let rev = Rev::parse(rev)?;
        let revisions = match obj.get("_revisions") {
            None | Some(Value::Null) => Revisions { start: rev.pos, ids: vec![rev.hash.clone()] },
            Some(v) => serde_json::from_value::<Revisions>(v.clone()).map_err(|e| Error::Malformed(format!("document {id:?}: bad _revisions: {e}")))?,
        };
        revisions.check()?;
        if revisions.leaf().as_ref() != Some(&rev) {
            return Err(Error::Malformed(format!("document {id:?}: _revisions does not start at _rev {rev}")));
        }
        let deleted = obj.get("_deleted").and_then(Value::as_bool).unwrap_or(false);
        Ok(DocMeta { id: id.to_owned(), rev, revisions, deleted })
    }
}

/// The fields of a document that are its content: everything but the
/// revision bookkeeping (`_id`, `_rev`, `_revisions`, `_deleted`,
/// `_conflicts`). Attachments stay.
pub fn content(doc: &Value) -> Map<String, Value> {
    const META: [&str; 5] = ["_id", "_rev", "_revisions", "_deleted", "_conflicts"];
    let mut out = doc.as_object().cloned().unwrap_or_default();
    out.retain(|k, _| !META.contains(&k.as_str()));
    out
}
