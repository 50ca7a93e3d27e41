//! [`MemoryPeer`]: a CouchDB-like database in memory, the reference model
//! of [`Peer`] for tests and the shape a browser-store-backed peer
//! follows (a revision tree and the leaves' bodies per document, one
//! update sequence, a changes feed holding each document once).

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::peer::{Change, ChangesBatch, DbInfo, DocMeta, Missing, Peer, Seq, content};
use crate::rev::{REVS_LIMIT, Rev, RevTree, Revisions};

/// One document: every revision known, the content of each leaf (older
/// bodies are dropped, as CouchDB's compaction does), and the update
/// sequence of its latest change.
#[derive(Debug, Clone, Default, PartialEq)]
struct Doc {
    tree: RevTree,
    bodies: BTreeMap<Rev, Map<String, Value>>,
    seq: u64,
}

#[derive(Debug)]
struct Db {
    docs: BTreeMap<String, Doc>,
    /// The changes feed: each document under its latest sequence.
    by_seq: BTreeMap<u64, String>,
    seq: u64,
    local: BTreeMap<String, Value>,
    revs_limit: usize,
    read_only: bool,
}

/// A database in memory that behaves as CouchDB does for replication.
#[derive(Debug)]
pub struct MemoryPeer {
    name: String,
    db: RefCell<Db>,
}

impl MemoryPeer {
    /// An empty database; `name` is its [`Peer::id`].
    pub fn new(name: impl Into<String>) -> Self {
        let db = Db { docs: BTreeMap::new(), by_seq: BTreeMap::new(), seq: 0, local: BTreeMap::new(), revs_limit: REVS_LIMIT, read_only: false };
        Self { name: name.into(), db: RefCell::new(db) }
    }

    /// Keeps at most `limit` revisions per path from now on.
    pub fn with_revs_limit(self, limit: usize) -> Self {
        self.db.borrow_mut().revs_limit = limit;
        self
    }

    /// A database the user may read but not write: every write is
    /// [`Error::Unauthorized`].
    pub fn set_read_only(&self, read_only: bool) {
        self.db.borrow_mut().read_only = read_only;
    }

    /// Writes a document as an edit (`PUT /db/{id}`): a new revision on top
    /// of `_rev`, which must be one of its leaves (a conflict is resolved by
    /// writing on the winner and deleting the others). Without `_rev` the
    /// document must not exist, or be deleted. `_deleted: true` deletes.
    pub fn put(&self, doc: Value) -> Result<Rev, Error> {
        let id = doc.get("_id").and_then(Value::as_str).ok_or_else(|| Error::Invalid("a document to write needs an _id".into()))?.to_owned();
        if id.starts_with("_local/") {
            return Err(Error::Invalid(format!("{id} is a local document: use put_local")));
        }
        let prev = match doc.get("_rev") {
            None | Some(Value::Null) => None,
            Some(r) => Some(r.as_str().and_then(|r| Rev::parse(r).ok()).ok_or_else(|| Error::Invalid(format!("_rev {r} is not a revision")))?),
        };
        let deleted = doc.get("_deleted").and_then(Value::as_bool).unwrap_or(false);
        let body = content(&doc);
        let mut db = self.db.borrow_mut();
        db.writable()?;
        let tree = db.docs.get(&id).map(|d| d.tree.clone()).unwrap_or_default();
        let parent = edit_parent(&tree, &id, prev)?;
        let rev = Rev::new_child(parent.as_ref(), content_hash(parent.as_ref(), deleted, &body));
        let mut ids = vec![rev.hash.clone()];
        ids.extend(parent.and_then(|p| tree.revisions(&p)).map(|r| r.ids).unwrap_or_default());
        db.apply(&id, &Revisions { start: rev.pos, ids }, deleted, body)?;
        Ok(rev)
    }

    /// Deletes the leaf `rev` of `id` (a tombstone on top of it).
    pub fn delete(&self, id: &str, rev: &Rev) -> Result<Rev, Error> {
        self.put(json!({"_id": id, "_rev": rev.to_string(), "_deleted": true}))
    }

    /// The winning revision of `id` (`GET /db/{id}?conflicts=true`): its
    /// content with `_id`, `_rev` and, when there are any, `_conflicts`.
    /// `None` when missing or deleted.
    pub fn get(&self, id: &str) -> Option<Value> {
        let db = self.db.borrow();
        let doc = db.docs.get(id)?;
        let winner = doc.tree.winner().filter(|w| !w.deleted)?;
        let mut out = Map::new();
        out.insert("_id".into(), id.into());
        out.insert("_rev".into(), winner.rev.to_string().into());
        out.extend(doc.bodies.get(&winner.rev).cloned().unwrap_or_default());
        let conflicts = doc.tree.conflicts();
        if !conflicts.is_empty() {
            out.insert("_conflicts".into(), conflicts.iter().map(|r| Value::from(r.to_string())).collect());
        }
        Some(Value::Object(out))
    }

    /// The revision tree of `id`.
    pub fn tree(&self, id: &str) -> Option<RevTree> {
        self.db.borrow().docs.get(id).map(|d| d.tree.clone())
    }

    /// Every document (deleted ones too): its tree and its leaves in full,
    /// as [`Peer::get_revs`] gives them. Two databases that replicated
    /// both ways have equal contents.
    pub fn contents(&self) -> BTreeMap<String, (RevTree, Vec<Value>)> {
        let db = self.db.borrow();
        db.docs.iter().map(|(id, d)| (id.clone(), (d.tree.clone(), d.tree.leaves().iter().map(|l| d.full(id, &l.rev, l.deleted)).collect()))).collect()
    }

    /// The sequence of the latest change.
    pub fn update_seq(&self) -> u64 {
        self.db.borrow().seq
    }
}

/// The revision an edit of `id` goes on top of, from the `_rev` it named.
fn edit_parent(tree: &RevTree, id: &str, prev: Option<Rev>) -> Result<Option<Rev>, Error> {
    let winner = tree.winner();
    match (prev, winner) {
        (None, None) => Ok(None),
        (None, Some(w)) if w.deleted => Ok(Some(w.rev)),
        (None, Some(_)) => Err(Error::Conflict(format!("{id} exists: name the revision to change"))),
        (Some(r), _) if tree.is_leaf(&r) => Ok(Some(r)),
        (Some(r), _) => Err(Error::Conflict(format!("{r} is not a current revision of {id}"))),
    }
}

/// The hash naming an edit: the same edit of the same parent gives the
/// same revision on every device.
fn content_hash(parent: Option<&Rev>, deleted: bool, body: &Map<String, Value>) -> String {
    let parent = parent.map(Rev::to_string).unwrap_or_default();
    let body = serde_json::to_string(body).unwrap_or_default();
    let digest = Sha256::digest(format!("{parent}\n{deleted}\n{body}").as_bytes());
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

impl Doc {
    /// Revision `rev` in full, with its ancestry.
    fn full(&self, id: &str, rev: &Rev, deleted: bool) -> Value {
        let mut out = Map::new();
        out.insert("_id".into(), id.into());
        out.insert("_rev".into(), rev.to_string().into());
        if deleted {
            out.insert("_deleted".into(), true.into());
        }
        out.extend(self.bodies.get(rev).cloned().unwrap_or_default());
        let revisions = self.tree.revisions(rev).unwrap_or_else(|| Revisions { start: rev.pos, ids: vec![rev.hash.clone()] });
        out.insert("_revisions".into(), json!(revisions));
        Value::Object(out)
    }
}

impl Db {
    fn writable(&self) -> Result<(), Error> {
        if self.read_only { Err(Error::Unauthorized("this database is read-only".into())) } else { Ok(()) }
    }

    /// Merges a revision into `id`'s tree; when that added anything, keeps
    /// its body (if it is a leaf) and moves the document to the end of the
    /// changes feed.
    fn apply(&mut self, id: &str, path: &Revisions, deleted: bool, body: Map<String, Value>) -> Result<bool, Error> {
        let limit = self.revs_limit;
        let mut doc = self.docs.get(id).cloned().unwrap_or_default();
        if !doc.tree.merge(path, deleted, limit)? {
            return Ok(false);
        }
        if let Some(leaf) = path.leaf().filter(|l| doc.tree.is_leaf(l)) {
            doc.bodies.insert(leaf, body);
        }
        let leaves: Vec<Rev> = doc.tree.leaves().into_iter().map(|l| l.rev).collect();
        doc.bodies.retain(|r, _| leaves.contains(r));
        self.by_seq.remove(&doc.seq);
        self.seq += 1;
        doc.seq = self.seq;
        self.by_seq.insert(self.seq, id.to_owned());
        self.docs.insert(id.to_owned(), doc);
        Ok(true)
    }
}

/// A sequence this database gave out (a number, or a number in a string).
fn seq_number(seq: &Seq) -> Result<u64, Error> {
    seq.as_u64().or_else(|| seq.as_str().and_then(|s| s.parse().ok())).ok_or_else(|| Error::Invalid(format!("{seq} is not a sequence of this database")))
}

impl Peer for MemoryPeer {
    fn id(&self) -> String {
        self.name.clone()
    }

    async fn info(&self) -> Result<DbInfo, Error> {
        let db = self.db.borrow();
        let live = db.docs.values().filter(|d| d.tree.winner().is_some_and(|w| !w.deleted)).count();
        Ok(DbInfo { update_seq: db.seq.into(), doc_count: Some(live as u64) })
    }

    async fn changes(&self, since: &Seq, limit: usize) -> Result<ChangesBatch, Error> {
        let since = seq_number(since)?;
        let db = self.db.borrow();
        let mut results = Vec::new();
        for (seq, id) in db.by_seq.range(since + 1..).take(limit.max(1)) {
            let Some(doc) = db.docs.get(id) else { continue };
            let leaves = doc.tree.leaves();
            let deleted = leaves.first().is_some_and(|l| l.deleted);
            results.push(Change { id: id.clone(), seq: (*seq).into(), revs: leaves.into_iter().map(|l| l.rev).collect(), deleted });
        }
        let last_seq = results.last().map_or_else(|| db.seq.max(since).into(), |c| c.seq.clone());
        let after = seq_number(&last_seq)?;
        let pending = Some(db.by_seq.range(after + 1..).count() as u64);
        Ok(ChangesBatch { results, last_seq, pending })
    }

    async fn revs_diff(&self, revs: BTreeMap<String, Vec<Rev>>) -> Result<BTreeMap<String, Missing>, Error> {
        let db = self.db.borrow();
        let mut out = BTreeMap::new();
        for (id, revs) in revs {
            let tree = db.docs.get(&id).map(|d| &d.tree);
            let missing = tree.map_or_else(|| RevTree::new().missing(&revs), |t| t.missing(&revs));
            if !missing.is_empty() {
                let possible_ancestors = tree.map(|t| t.possible_ancestors(&missing)).unwrap_or_default();
                out.insert(id, Missing { missing, possible_ancestors });
            }
        }
        Ok(out)
    }

    async fn get_revs(&self, wanted: &[(String, Vec<Rev>)]) -> Result<Vec<Value>, Error> {
        let db = self.db.borrow();
        let mut out = Vec::new();
        let mut seen = Vec::new();
        for (id, revs) in wanted {
            let Some(doc) = db.docs.get(id) else { continue };
            for leaf in revs.iter().flat_map(|r| doc.tree.latest(r)) {
                if !seen.contains(&(id, leaf.rev.clone())) {
                    out.push(doc.full(id, &leaf.rev, leaf.deleted));
                    seen.push((id, leaf.rev));
                }
            }
        }
        Ok(out)
    }

    async fn put_revs(&self, docs: Vec<Value>) -> Result<(), Error> {
        let mut db = self.db.borrow_mut();
        db.writable()?;
        for doc in docs {
            let meta = DocMeta::of(&doc)?;
            if meta.id.starts_with("_local/") {
                return Err(Error::Malformed(format!("{} is a local document: it is never replicated", meta.id)));
            }
            db.apply(&meta.id, &meta.revisions, meta.deleted, content(&doc))?;
        }
        Ok(())
    }

    async fn get_local(&self, id: &str) -> Result<Option<Value>, Error> {
        Ok(self.db.borrow().local.get(id).cloned())
    }

    async fn put_local(&self, id: &str, doc: Value) -> Result<String, Error> {
        let mut db = self.db.borrow_mut();
        db.writable()?;
        let current = db.local.get(id).and_then(|d| d.get("_rev")).and_then(Value::as_str).map(str::to_owned);
        let given = doc.get("_rev").and_then(Value::as_str).map(str::to_owned);
        if given != current {
            return Err(Error::Conflict(format!("_local/{id} is at {current:?}, not {given:?}")));
        }
        let n = current.as_deref().and_then(|r| r.strip_prefix("0-")).and_then(|n| n.parse::<u64>().ok()).unwrap_or(0);
        let rev = format!("0-{}", n + 1);
        let mut stored = Map::new();
        stored.insert("_id".into(), format!("_local/{id}").into());
        stored.insert("_rev".into(), rev.clone().into());
        stored.extend(content(&doc));
        db.local.insert(id.to_owned(), Value::Object(stored));
        Ok(rev)
    }
}

#[cfg(test)]
#[path = "memory_tests.rs"]
mod tests;
