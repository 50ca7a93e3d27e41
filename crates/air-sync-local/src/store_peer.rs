//! The device's store as one side of a replication ([`StorePeer`]).
//!
//! Pushing: the store's journal is the changes feed. A record whose
//! content no longer hashes to what was last synced was edited here: a
//! revision is made for it then (a child of the winner, named by
//! [`envelope::rev_hash`], so the same edit on two devices is the same
//! revision), so fifty checkpoints of a streaming answer between two
//! pushes make one revision. Everything leaves sealed ([`envelope`]).
//!
//! Pulling: revisions are merged into the record's tree. When the winner
//! moves, the record is written with the new content and its hash kept,
//! so the journal entry that write makes is not taken for an edit and
//! sent back. An edit made here and not yet sent is made a revision first,
//! so it meets what arrives as a conflict and is not overwritten.
//! Conflicts end by the record's [`Rule`] (see [`crate::settle`]).

use std::collections::BTreeMap;

use futures_util::future::join_all;

use air_sync::{Change, ChangesBatch, DbInfo, DocMeta, Error, Missing, Peer, REVS_LIMIT, Rev, RevTree, Revisions, Seq};
use serde_json::Value;

use crate::crypto::{Keys, hex};
use crate::envelope::{self, Body, CONFIG_ID, EnvelopeError};
use crate::records::{Entry, Kinds, Leaf, Records, RevEntry};

/// The record as stored here: as it is, and as it travels.
pub(crate) struct Local {
    pub record: Option<Value>,
    pub wire: Option<Value>,
    pub hash: String,
}

/// The fewest journal entries read at a time by the changes feed.
const JOURNAL_PAGE: usize = 1_000;

/// Pulled revisions of one document, each with its body (`None`: a
/// deletion).
type Pulled = Vec<(DocMeta, Option<Body>)>;

/// The local side of a replication over `records`, sealing with `keys`.
pub struct StorePeer<'a, R: Records, K: Keys, N: Kinds> {
    pub(crate) records: &'a R,
    pub(crate) keys: &'a K,
    pub(crate) kinds: &'a N,
    /// This device (in replication ids, and on what it writes).
    pub(crate) dev: String,
    pub(crate) now: Box<dyn Fn() -> f64 + 'a>,
    refused: std::cell::Cell<u64>,
    tally: std::cell::RefCell<Tally>,
}

/// What a replication through a [`StorePeer`] moved, counted by what each
/// record is to the user ([`Kinds::subject`]): revisions sent from here,
/// and revisions taken in (the database's own configuration is neither).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub sent: BTreeMap<String, u64>,
    pub taken: BTreeMap<String, u64>,
}

impl Tally {
    /// `other` counted in too.
    pub fn add(&mut self, other: &Tally) {
        for (into, from) in [(&mut self.sent, &other.sent), (&mut self.taken, &other.taken)] {
            for (k, n) in from {
                *into.entry(k.clone()).or_default() += n;
            }
        }
    }
}

fn count(into: &mut BTreeMap<String, u64>, subject: String) {
    *into.entry(subject).or_default() += 1;
}

pub(crate) fn store(e: crate::records::LocalError) -> Error {
    Error::Invalid(format!("the local store: {e}"))
}

pub(crate) fn sealed(e: EnvelopeError) -> Error {
    match e {
        EnvelopeError::Malformed(m) => Error::Malformed(m),
        other => Error::Invalid(other.to_string()),
    }
}

impl<'a, R: Records, K: Keys, N: Kinds> StorePeer<'a, R, K, N> {
    pub fn new(records: &'a R, keys: &'a K, kinds: &'a N, dev: &str, now: impl Fn() -> f64 + 'a) -> Self {
        Self { records, keys, kinds, dev: dev.to_owned(), now: Box::new(now), refused: std::cell::Cell::new(0), tally: Default::default() }
    }

    /// What was sent from here and taken in so far.
    pub fn tally(&self) -> Tally {
        self.tally.borrow().clone()
    }

    /// Revisions pulled that could not be opened or were not made by a
    /// device of this database: set aside, not applied.
    pub fn refused(&self) -> u64 {
        self.refused.get()
    }

    /// The content hash of a record's travelling form (`""`: deleted).
    pub(crate) async fn hash_of(&self, v: Option<&Value>) -> Result<String, Error> {
        let Some(v) = v else { return Ok(String::new()) };
        let text = format!("content\0{}", envelope::canonical(v));
        Ok(hex(&self.keys.mac(text.as_bytes()).await.map_err(|e| sealed(e.into()))?[..16]))
    }

    /// Adds a revision made here: `v` (`None`: deleted) as a child of
    /// `parent` (the winner, if any).
    pub(crate) async fn grow(&self, en: &mut RevEntry, parent: Option<Rev>, v: Option<&Value>) -> Result<Rev, Error> {
        let deleted = v.is_none();
        let parent_text = parent.as_ref().map(Rev::to_string);
        let hash = envelope::rev_hash(self.keys, &en.wire, &en.kind, parent_text.as_deref(), deleted, v.unwrap_or(&Value::Null)).await.map_err(sealed)?;
        let rev = Rev::new_child(parent.as_ref(), hash);
        let mut ids = vec![rev.hash.clone()];
        if let Some(p) = parent.as_ref().and_then(|p| en.tree.revisions(p)) {
            ids.extend(p.ids);
        }
        en.tree.merge(&Revisions { start: rev.pos, ids }, deleted, REVS_LIMIT)?;
        Ok(rev)
    }

    /// The entry of a record edited here since it was last synced, with a
    /// revision for that edit (the caller keeps it before reporting it).
    async fn mint(&self, en: Option<RevEntry>, e: &Entry, wire: String, v: Option<&Value>, hash: String) -> Result<RevEntry, Error> {
        let mut en = en.unwrap_or_else(|| RevEntry {
            wire,
            kind: e.kind.clone(),
            id: e.id.clone(),
            tree: RevTree::new(),
            hash: String::new(),
            at: 0.0,
            dev: String::new(),
            leaves: BTreeMap::new(),
            superseded: Vec::new(),
        });
        let parent = en.tree.winner().map(|l| l.rev);
        self.grow(&mut en, parent, v).await?;
        en.hash = hash;
        en.at = v.and_then(|v| self.kinds.edited_at(&e.kind, v)).unwrap_or_else(|| (self.now)());
        en.dev.clone_from(&self.dev);
        Ok(en)
    }

    /// Records (kind, id) as stored now, read at once, with their
    /// travelling forms and those forms' hashes (made at once).
    pub(crate) async fn currents(&self, wanted: &[(String, String)]) -> Result<Vec<Local>, Error> {
        let records = self.records.read_many(wanted).await.map_err(store)?;
        let wires: Vec<Option<Value>> = wanted.iter().zip(&records).map(|((kind, id), r)| r.as_ref().map(|r| self.kinds.to_wire(kind, id, r))).collect();
        let hashes = join_all(wires.iter().map(|v| self.hash_of(v.as_ref()))).await.into_iter().collect::<Result<Vec<_>, _>>()?;
        Ok(records.into_iter().zip(wires).zip(hashes).map(|((record, wire), hash)| Local { record, wire, hash }).collect())
    }

    /// What the feed says of journal entries `entries`: each record's
    /// leaves, after making a revision of an edit not yet made one (kept
    /// before they are reported). A record removed before it was ever
    /// synced says nothing.
    async fn changes_of(&self, entries: &[Entry]) -> Result<Vec<Change>, Error> {
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        let wires = join_all(entries.iter().map(|e| envelope::wire_id(self.keys, &e.kind, &e.id))).await;
        let wires = wires.into_iter().collect::<Result<Vec<_>, _>>().map_err(sealed)?;
        let kept = self.records.rev_entries(&wires).await.map_err(store)?;
        let currents = self.currents(&entries.iter().map(|e| (e.kind.clone(), e.id.clone())).collect::<Vec<_>>()).await?;
        let mut minting = Vec::new();
        let mut ens = Vec::new();
        for (((e, wire), en), Local { wire: v, hash, .. }) in entries.iter().zip(wires).zip(kept).zip(currents) {
            match en {
                None if v.is_none() => {}
                Some(en) if en.hash == hash => ens.push((e.seq, en)),
                en => minting.push(async move { Ok::<_, Error>((e.seq, self.mint(en, e, wire, v.as_ref(), hash).await?)) }),
            }
        }
        let minted = join_all(minting).await.into_iter().collect::<Result<Vec<_>, _>>()?;
        let fresh: Vec<RevEntry> = minted.iter().map(|(_, en)| en.clone()).collect();
        self.records.put_rev_entries(&fresh).await.map_err(store)?;
        ens.extend(minted);
        ens.sort_by_key(|(seq, _)| *seq);
        Ok(ens
            .into_iter()
            .map(|(seq, en)| {
                let leaves = en.tree.leaves();
                let deleted = leaves.first().is_some_and(|l| l.deleted);
                Change { id: en.wire, seq: Value::from(seq), revs: leaves.into_iter().map(|l| l.rev).collect(), deleted }
            })
            .collect())
    }

    /// Revision `rev` of `en` as a sealed document, if its content is
    /// here: the winner's is the record's (unless it was edited since: that
    /// edit goes in a later change), another leaf's is kept in the entry; a
    /// deletion is sealed too (its kind and id), so it counts only in its
    /// own document.
    async fn document(&self, en: &RevEntry, rev: &Rev, deleted: bool, current: Option<&Value>, hash: &str) -> Result<Option<Value>, Error> {
        let revisions = en.tree.revisions(rev).ok_or_else(|| Error::Invalid(format!("{rev} is not in its tree")))?;
        let winner = en.tree.winner().is_some_and(|w| &w.rev == rev);
        let body = match (deleted, winner, current) {
            (true, ..) => Body { k: en.kind.clone(), id: en.id.clone(), v: Value::Null, at: 0.0, dev: String::new() },
            (false, true, Some(v)) if hash == en.hash => Body { k: en.kind.clone(), id: en.id.clone(), v: v.clone(), at: en.at, dev: en.dev.clone() },
            _ => match en.leaves.get(&rev.to_string()) {
                Some(l) => Body { k: en.kind.clone(), id: en.id.clone(), v: l.v.clone(), at: l.at, dev: l.dev.clone() },
                None => return Ok(None),
            },
        };
        let mut doc = envelope::seal(self.keys, &body).await.map_err(sealed)?;
        if deleted {
            doc.insert("_deleted".into(), Value::Bool(true));
        }
        doc.insert(envelope::ANCESTRY.into(), envelope::ancestry_mark(self.keys, &en.wire, revisions.start, &revisions.ids).await.map_err(sealed)?);
        doc.insert("_rev".into(), Value::String(rev.to_string()));
        doc.insert("_revisions".into(), serde_json::to_value(revisions).map_err(|e| Error::Invalid(e.to_string()))?);
        Ok(Some(Value::Object(doc)))
    }
}

impl<R: Records, K: Keys, N: Kinds> Peer for StorePeer<'_, R, K, N> {
    fn id(&self) -> String {
        format!("air-agent device {}", self.dev)
    }

    async fn info(&self) -> Result<DbInfo, Error> {
        Ok(DbInfo { update_seq: Value::from(self.records.last_seq().await.map_err(store)?), doc_count: None })
    }

    /// Reads on until `limit` syncing records are found or the journal
    /// ends, so a short batch means the end, as a database's does.
    async fn changes(&self, since: &Seq, limit: usize) -> Result<ChangesBatch, Error> {
        let mut after = since.as_u64().ok_or_else(|| Error::Invalid(format!("not a sequence of this device: {since}")))?;
        let limit = limit.max(1);
        let mut results = Vec::new();
        loop {
            // Read a page of at least `JOURNAL_PAGE`: what was pulled is
            // passed by without a look, and may be most of it.
            let want = limit - results.len();
            let page = want.max(JOURNAL_PAGE);
            let entries = self.records.journal(after, page).await.map_err(store)?;
            let mut end = entries.len() < page;
            let mut picked = Vec::new();
            for e in entries {
                if picked.len() == want {
                    end = false;
                    break;
                }
                after = e.seq;
                if !e.pulled && self.kinds.syncs(&e.kind, &e.id) {
                    picked.push(e);
                }
            }
            results.extend(self.changes_of(&picked).await?);
            if end {
                return Ok(ChangesBatch { results, last_seq: Value::from(after), pending: Some(0) });
            }
            if results.len() >= limit {
                let pending = self.records.pending(after).await;
                return Ok(ChangesBatch { results, last_seq: Value::from(after), pending });
            }
        }
    }

    async fn revs_diff(&self, revs: BTreeMap<String, Vec<Rev>>) -> Result<BTreeMap<String, Missing>, Error> {
        let ids: Vec<String> = revs.keys().cloned().collect();
        let entries = self.records.rev_entries(&ids).await.map_err(store)?;
        let mut out = BTreeMap::new();
        for ((id, asked), en) in revs.into_iter().zip(entries) {
            // Not records: never taken in, so never asked for.
            if not_a_record(&id) {
                continue;
            }
            let tree = en.map(|e| e.tree).unwrap_or_default();
            let missing = tree.missing(&asked);
            if !missing.is_empty() {
                out.insert(id, Missing { possible_ancestors: tree.possible_ancestors(&missing), missing });
            }
        }
        Ok(out)
    }

    async fn get_revs(&self, wanted: &[(String, Vec<Rev>)]) -> Result<Vec<Value>, Error> {
        let ids: Vec<String> = wanted.iter().map(|(id, _)| id.clone()).collect();
        let entries: Vec<RevEntry> = self.records.rev_entries(&ids).await.map_err(store)?.into_iter().flatten().collect();
        let currents = self.currents(&entries.iter().map(|en| (en.kind.clone(), en.id.clone())).collect::<Vec<_>>()).await?;
        let mut sealing = Vec::new();
        let by_wire: BTreeMap<&str, (&RevEntry, &Local)> = entries.iter().zip(&currents).map(|(en, c)| (en.wire.as_str(), (en, c))).collect();
        for (id, revs) in wanted {
            let Some(&(en, Local { wire: current, hash, .. })) = by_wire.get(id.as_str()) else { continue };
            let mut sent: Vec<Rev> = Vec::new();
            for leaf in revs.iter().flat_map(|r| en.tree.latest(r)) {
                if sent.contains(&leaf.rev) {
                    continue;
                }
                sent.push(leaf.rev.clone());
                sealing.push(async move {
                    let doc = self.document(en, &leaf.rev, leaf.deleted, current.as_ref(), hash).await;
                    if let Ok(Some(_)) = &doc {
                        count(&mut self.tally.borrow_mut().sent, self.kinds.subject(&en.kind, &en.id));
                    }
                    doc
                });
            }
        }
        Ok(join_all(sealing).await.into_iter().collect::<Result<Vec<_>, _>>()?.into_iter().flatten().collect())
    }

    /// Every revision is checked before it counts: sealed with these keys
    /// for its own document (a deletion too), named by its document, kind,
    /// parent and content ([`envelope::rev_hash`]), and its ancestry the one
    /// a device sent ([`envelope::vouched`]: only that much of it is
    /// merged), so neither the server nor anyone who can write to it can
    /// forge or move a deletion, graft a revision onto another branch, or
    /// pass an old body off as a new revision. A document that
    /// fails is set aside and counted ([`StorePeer::refused`]); the rest
    /// go on, so one bad document never stops sync.
    async fn put_revs(&self, docs: Vec<Value>) -> Result<(), Error> {
        let mut by_id: BTreeMap<String, Pulled> = BTreeMap::new();
        for checked in join_all(docs.iter().map(|doc| self.checked(doc))).await {
            match checked {
                Ok(Some((meta, body))) => by_id.entry(meta.id.clone()).or_default().push((meta, body)),
                Ok(None) => {}
                Err(_) => self.refused.set(self.refused.get() + 1),
            }
        }
        let ids: Vec<String> = by_id.keys().cloned().collect();
        let kept = self.records.rev_entries(&ids).await.map_err(store)?;
        let begun: Vec<(RevEntry, Pulled)> = kept.into_iter().zip(by_id.into_values()).filter_map(|(en, revs)| Some((self.begin(en, &revs)?, revs))).collect();
        let locals = self.currents(&begun.iter().map(|(en, _)| (en.kind.clone(), en.id.clone())).collect::<Vec<_>>()).await?;
        let mut writes = Vec::new();
        let mut entries = Vec::new();
        for ((en, revs), local) in begun.into_iter().zip(locals) {
            entries.push(self.take(en, local, &revs, &mut writes).await?);
        }
        // The records first: bookkeeping that ran ahead of them would take
        // the old content for an edit made here.
        self.records.apply(&writes).await.map_err(store)?;
        self.records.put_rev_entries(&entries).await.map_err(store)
    }

    async fn get_local(&self, id: &str) -> Result<Option<Value>, Error> {
        self.records.local_doc(id).await.map_err(store)
    }

    async fn put_local(&self, id: &str, mut doc: Value) -> Result<String, Error> {
        let n = doc.get("_rev").and_then(Value::as_str).and_then(|r| r.strip_prefix("0-")).and_then(|n| n.parse::<u64>().ok()).unwrap_or(0);
        let rev = format!("0-{}", n + 1);
        if let Some(o) = doc.as_object_mut() {
            o.insert("_rev".into(), Value::String(rev.clone()));
        }
        self.records.put_local_doc(id, &doc).await.map_err(store)?;
        Ok(rev)
    }
}

impl<R: Records, K: Keys, N: Kinds> StorePeer<'_, R, K, N> {
    /// A pulled document, opened and checked (`None`: not a record: the
    /// configuration, a design document).
    async fn checked(&self, doc: &Value) -> Result<Option<(DocMeta, Option<Body>)>, Error> {
        let meta = DocMeta::of(doc)?;
        if not_a_record(&meta.id) {
            return Ok(None);
        }
        let mut meta = meta;
        let body = envelope::open(self.keys, doc).await.map_err(sealed)?;
        if meta.deleted != body.v.is_null() {
            return Err(Error::Malformed(format!("{}: revision {} is a deletion with content, or content without any", meta.id, meta.rev)));
        }
        let n = envelope::vouched(self.keys, doc, meta.revisions.start, &meta.revisions.ids).await.map_err(sealed)?;
        meta.revisions.ids.truncate(n);
        let parent = meta.revisions.ids.get(1).map(|h| format!("{}-{h}", meta.rev.pos - 1));
        if meta.rev.pos > 1 && parent.is_none() {
            return Err(Error::Malformed(format!("{}: revision {} without its parent", meta.id, meta.rev)));
        }
        let expected = envelope::rev_hash(self.keys, &meta.id, &body.k, parent.as_deref(), meta.deleted, &body.v).await.map_err(sealed)?;
        if expected != meta.rev.hash {
            return Err(Error::Malformed(format!("{}: revision {} was not made by a device of this database", meta.id, meta.rev)));
        }
        let deleted = meta.deleted;
        count(&mut self.tally.borrow_mut().taken, self.kinds.subject(&body.k, &body.id));
        Ok(Some((meta, (!deleted).then_some(body))))
    }
}

/// The database's configuration and design documents: not records.
fn not_a_record(id: &str) -> bool {
    id == CONFIG_ID || id.starts_with("_design/")
}

/// A kept version's body.
pub(crate) fn leaf_of(body: &Body) -> Leaf {
    Leaf { v: body.v.clone(), at: body.at, dev: body.dev.clone() }
}

#[cfg(test)]
#[path = "store_peer_tests.rs"]
mod tests;
