//! Revisions (`N-hash`) and a document's revision tree: the history every
//! peer keeps so that edits made apart can be joined, and the same winner
//! picked everywhere without talking.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::Error;

/// How many revisions of each path a tree keeps by default (CouchDB's
/// `revs_limit`).
pub const REVS_LIMIT: usize = 1000;

/// One revision of a document: its depth in the tree (`pos`, from 1) and
/// a hash naming the edit. Ordered by `pos`, then `hash` as bytes, which
/// is the winner's tie-break.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rev {
    pub pos: u64,
    pub hash: String,
}

impl Rev {
    pub fn new(pos: u64, hash: impl Into<String>) -> Self {
        Self { pos, hash: hash.into() }
    }

    /// Reads `"N-hash"` (N ≥ 1, decimal digits; the hash is everything
    /// after the first `-` and may not be empty).
    pub fn parse(s: &str) -> Result<Rev, Error> {
        let bad = |why: &str| Error::Malformed(format!("bad revision {s:?}: {why}"));
        let (pos, hash) = s.split_once('-').ok_or_else(|| bad("no '-'"))?;
        if pos.is_empty() || !pos.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad("the part before '-' is not a number"));
        }
        let pos: u64 = pos.parse().map_err(|_| bad("the number is too large"))?;
        if pos == 0 {
            return Err(bad("revisions count from 1"));
        }
        if hash.is_empty() {
            return Err(bad("no hash"));
        }
        Ok(Rev { pos, hash: hash.to_owned() })
    }

    /// The revision a local edit makes: one deeper than `parent` (or the
    /// first, `1-…`), named by `hash` (the caller's content hash).
    pub fn new_child(parent: Option<&Rev>, hash: impl Into<String>) -> Rev {
        Rev { pos: parent.map_or(1, |p| p.pos + 1), hash: hash.into() }
    }
}

impl fmt::Display for Rev {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.pos, self.hash)
    }
}

impl FromStr for Rev {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Rev::parse(s)
    }
}

impl Serialize for Rev {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Rev {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Rev::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// A revision with its ancestry, as CouchDB writes it in `_revisions`:
/// `ids[0]` is the hash of revision `start`, `ids[1]` of its parent, and
/// so on back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revisions {
    pub start: u64,
    pub ids: Vec<String>,
}

impl Revisions {
    /// The revisions named, newest first (stopping before position 0 if
    /// `start` is too small, see [`Revisions::check`]).
    pub fn revs(&self) -> impl Iterator<Item = Rev> + '_ {
        let pos = |i: usize| self.start.checked_sub(i as u64).filter(|p| *p > 0);
        self.ids.iter().enumerate().map_while(move |(i, h)| Some(Rev::new(pos(i)?, h.clone())))
    }

    /// The newest revision (the one the ancestry is of).
    pub fn leaf(&self) -> Option<Rev> {
        self.ids.first().map(|h| Rev::new(self.start, h.clone()))
    }

    /// Not empty, no position below 1, no empty hash.
    pub fn check(&self) -> Result<(), Error> {
        if self.ids.is_empty() {
            return Err(Error::Malformed("_revisions has no ids".into()));
        }
        if (self.ids.len() as u64) > self.start {
            return Err(Error::Malformed(format!("_revisions starts at {} but has {} ids", self.start, self.ids.len())));
        }
        if self.ids.iter().any(String::is_empty) {
            return Err(Error::Malformed("_revisions has an empty id".into()));
        }
        Ok(())
    }
}

/// A leaf of a revision tree: a revision nothing was written on top of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leaf {
    pub rev: Rev,
    pub deleted: bool,
}

/// What the tree knows of one revision. Whether it was a deletion matters
/// only while it is a leaf, and is cleared once it has a child, so that
/// two trees holding the same revisions are equal however they were built.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Node {
    /// The parent's hash (its position is one less), when known. The
    /// parent itself may have been stemmed away.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    parent: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    deleted: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Every revision of one document the database knows, linked to its
/// parent. Paths that share revisions share nodes, so a tree is the union
/// of every history merged into it, minus what stemming dropped.
/// Serialized as `{"N-hash": {"parent": "hash", "deleted": true}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RevTree {
    nodes: BTreeMap<Rev, Node>,
}

impl RevTree {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// How many revisions the tree holds.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn contains(&self, rev: &Rev) -> bool {
        self.nodes.contains_key(rev)
    }

    /// Adds `path` (a revision and its ancestry), the newest revision a
    /// deletion when `deleted`, then keeps at most `limit` revisions of
    /// every path. Returns whether the tree changed: merging a path it
    /// already holds does nothing.
    pub fn merge(&mut self, path: &Revisions, deleted: bool, limit: usize) -> Result<bool, Error> {
        path.check()?;
        let revs: Vec<Rev> = path.revs().collect();
        let (mut added, mut joined) = (Vec::new(), false);
        for (i, rev) in revs.iter().enumerate() {
            let parent = revs.get(i + 1).map(|p| p.hash.clone());
            match self.nodes.get_mut(rev) {
                Some(node) => {
                    if node.parent.is_none() && parent.is_some() {
                        node.parent = parent;
                        joined = true;
                    }
                }
                None => {
                    self.nodes.insert(rev.clone(), Node { parent, deleted: i == 0 && deleted });
                    added.push(rev.clone());
                }
            }
        }
        for rev in self.inner() {
            if let Some(node) = self.nodes.get_mut(&rev) {
                node.deleted = false;
            }
        }
        self.stem(limit);
        Ok(joined || added.iter().any(|r| self.nodes.contains_key(r)))
    }

    /// Keeps, for every leaf, only its newest `limit` revisions (at least
    /// one); older ones no leaf reaches within `limit` are dropped.
    pub fn stem(&mut self, limit: usize) {
        let limit = limit.max(1);
        let mut keep = BTreeSet::new();
        for leaf in self.leaf_revs() {
            let mut at = Some(leaf);
            for _ in 0..limit {
                let Some(rev) = at else { break };
                at = self.parent_of(&rev);
                keep.insert(rev);
            }
        }
        if keep.len() < self.nodes.len() {
            self.nodes.retain(|r, _| keep.contains(r));
        }
    }

    /// Revisions that have a child in the tree.
    fn inner(&self) -> BTreeSet<Rev> {
        self.nodes.iter().filter_map(|(r, n)| Some(Rev::new(r.pos.checked_sub(1)?, n.parent.clone()?))).collect()
    }

    fn leaf_revs(&self) -> Vec<Rev> {
        let inner = self.inner();
        self.nodes.keys().filter(|r| !inner.contains(r)).cloned().collect()
    }

    /// The parent of `rev`, when the tree still holds it.
    fn parent_of(&self, rev: &Rev) -> Option<Rev> {
        let parent = Rev::new(rev.pos.checked_sub(1)?, self.nodes.get(rev)?.parent.clone()?);
        self.nodes.contains_key(&parent).then_some(parent)
    }

    /// The leaves, the winner first, then in the order that decides the
    /// winner: not deleted before deleted, then highest position, then
    /// greatest hash.
    pub fn leaves(&self) -> Vec<Leaf> {
        let mut leaves: Vec<Leaf> = self.leaf_revs().into_iter().map(|rev| Leaf { deleted: self.nodes[&rev].deleted, rev }).collect();
        leaves.sort_by(|a, b| (!b.deleted, &b.rev).cmp(&(!a.deleted, &a.rev)));
        leaves
    }

    pub fn is_leaf(&self, rev: &Rev) -> bool {
        self.contains(rev) && !self.inner().contains(rev)
    }

    /// The revision every peer shows for this document (CouchDB's and
    /// PouchDB's rule, see [`RevTree::leaves`]).
    pub fn winner(&self) -> Option<Leaf> {
        self.leaves().into_iter().next()
    }

    /// The leaves that are not deleted, other than the winner: what
    /// `_conflicts` lists, in the same order.
    pub fn conflicts(&self) -> Vec<Rev> {
        self.leaves().into_iter().skip(1).filter(|l| !l.deleted).map(|l| l.rev).collect()
    }

    /// Those of `revs` the tree does not hold (each once, in the order
    /// given): what `_revs_diff` answers as `missing`.
    pub fn missing(&self, revs: &[Rev]) -> Vec<Rev> {
        let mut out: Vec<Rev> = Vec::new();
        for r in revs {
            if !self.contains(r) && !out.contains(r) {
                out.push(r.clone());
            }
        }
        out
    }

    /// The leaves that may be ancestors of the `missing` revisions: those
    /// lower than the highest of them (CouchDB's `possible_ancestors`).
    pub fn possible_ancestors(&self, missing: &[Rev]) -> Vec<Rev> {
        let Some(max) = missing.iter().map(|r| r.pos).max() else { return Vec::new() };
        self.leaves().into_iter().filter(|l| l.rev.pos < max).map(|l| l.rev).collect()
    }

    /// The ancestry of `rev` to send with it (`_revisions`), as far back as
    /// the tree holds it.
    pub fn revisions(&self, rev: &Rev) -> Option<Revisions> {
        self.nodes.get(rev)?;
        let mut ids = vec![rev.hash.clone()];
        let mut at = rev.clone();
        while let Some(parent) = self.parent_of(&at) {
            ids.push(parent.hash.clone());
            at = parent;
        }
        Some(Revisions { start: rev.pos, ids })
    }

    /// The leaves that descend from `rev` (itself when it is a leaf): what a
    /// read with `latest=true` returns for it.
    pub fn latest(&self, rev: &Rev) -> Vec<Leaf> {
        if !self.contains(rev) {
            return Vec::new();
        }
        let descends = |leaf: &Rev| {
            let mut at = Some(leaf.clone());
            while let Some(r) = at.filter(|r| r.pos >= rev.pos) {
                if &r == rev {
                    return true;
                }
                at = self.parent_of(&r);
            }
            false
        };
        self.leaves().into_iter().filter(|l| descends(&l.rev)).collect()
    }
}

#[cfg(test)]
#[path = "rev_tests.rs"]
mod tests;
