//! What a pulled revision does to a record: merged into its tree, and, when
//! two versions were written apart, settled by the record's [`Rule`].
//!
//! Settling is a function of the tree and the versions' bodies only, and
//! every revision it makes is named by its content
//! ([`crate::envelope::rev_hash`]): two devices that settle the same
//! conflict make the same revisions, and meet without a new conflict.
//!
//! - [`Rule::KeepBoth`] (words): each version the winner does not hold
//!   becomes a record of its own (a sibling the conversation shows as a
//!   branch), and its leaf is closed.
//! - [`Rule::Newest`] (settings-like): the version edited last becomes the
//!   winner (a revision on top of the tree's winner, if that was another),
//!   the others are closed and kept as `superseded` for the user to see.

use air_sync::{DocMeta, Error, REVS_LIMIT, Rev, RevTree};

use crate::crypto::Keys;
use crate::envelope::Body;
use crate::records::{Kinds, Leaf, Records, RevEntry, Rule, Write};
use crate::store_peer::{Local, StorePeer, leaf_of};

impl<R: Records, K: Keys, N: Kinds> StorePeer<'_, R, K, N> {
    /// The entry pulled revisions `revs` of one document go into: the
    /// record's (`en`), or a new one. `None`: a deletion of what was never
    /// here, or a kind this version does not keep.
    pub(crate) fn begin(&self, en: Option<RevEntry>, revs: &[(DocMeta, Option<Body>)]) -> Option<RevEntry> {
        let first_body = revs.iter().find_map(|(_, b)| b.as_ref());
        match (en, first_body) {
            (Some(en), _) => Some(en),
            (None, Some(b)) if self.kinds.syncs(&b.k, &b.id) => Some(RevEntry {
                wire: revs[0].0.id.clone(),
                kind: b.k.clone(),
                id: b.id.clone(),
                tree: RevTree::new(),
                hash: String::new(),
                at: 0.0,
                dev: String::new(),
                leaves: Default::default(),
                superseded: Vec::new(),
            }),
            _ => None,
        }
    }

    /// The revisions `revs` of one document (each with its body, unless
    /// a deletion) into `en` ([`Self::begin`]), the record being `local`,
    /// then settled once. Returns the entry to keep, after adding to
    /// `writes` what the record becomes.
    pub(crate) async fn take(&self, mut en: RevEntry, local: Local, revs: &[(DocMeta, Option<Body>)], writes: &mut Vec<Write>) -> Result<RevEntry, Error> {
        // An edit made here and not sent yet becomes a revision first, to
        // meet what arrives as a conflict rather than be overwritten.
        if local.hash != en.hash {
            let parent = en.tree.winner().map(|l| l.rev);
            self.grow(&mut en, parent, local.wire.as_ref()).await?;
            en.hash.clone_from(&local.hash);
            en.at = local.wire.as_ref().and_then(|v| self.kinds.edited_at(&en.kind, v)).unwrap_or_else(|| (self.now)());
            en.dev.clone_from(&self.dev);
        }
        let before = en.tree.winner();
        let mut changed = false;
        for (meta, body) in revs {
            if body.as_ref().is_some_and(|b| b.k != en.kind || b.id != en.id) {
                continue;
            }
            changed |= en.tree.merge(&meta.revisions, meta.deleted, REVS_LIMIT)?;
            if let Some(b) = body
                && en.tree.is_leaf(&meta.rev)
            {
                en.leaves.insert(meta.rev.to_string(), leaf_of(b));
            }
        }
        if !changed {
            return Ok(en);
        }
        // The version that was shown here, if it is now one of several.
        if let (Some(b), Some(v)) = (&before, &local.wire)
            && !b.deleted
            && en.tree.is_leaf(&b.rev)
        {
            en.leaves.entry(b.rev.to_string()).or_insert_with(|| Leaf { v: v.clone(), at: en.at, dev: en.dev.clone() });
        }
        self.settle(&mut en, &local, writes).await?;
        Ok(en)
    }

    /// The body of leaf `rev` (kept in the entry, or the record's).
    fn body(en: &RevEntry, rev: &Rev, local: &Local) -> Option<Leaf> {
        en.leaves.get(&rev.to_string()).cloned().or_else(|| local.wire.clone().map(|v| Leaf { v, at: en.at, dev: en.dev.clone() }))
    }

    /// Ends the conflicts of `en` by its rule, then writes the record as
    /// the winner has it.
    async fn settle(&self, en: &mut RevEntry, local: &Local, writes: &mut Vec<Write>) -> Result<(), Error> {
        let Some(winner) = en.tree.winner() else { return Ok(()) };
        let losers: Vec<(Rev, Leaf)> = en.tree.leaves().into_iter().skip(1).filter(|l| !l.deleted).filter_map(|l| en.leaves.get(&l.rev.to_string()).cloned().map(|b| (l.rev, b))).collect();
        let mut grew = false;
        let mut shown = if winner.deleted { None } else { Self::body(en, &winner.rev, local) };
        match self.kinds.rule(&en.kind) {
            Rule::KeepBoth => {
                for (rev, body) in &losers {
                    let tag = &rev.hash[..rev.hash.len().min(12)];
                    if let Some((id, v)) = shown.as_ref().and_then(|w| self.kinds.sibling(&en.kind, &en.id, &w.v, &body.v, tag)) {
                        // Made here: the database may not have it yet.
                        writes.push(Write::Put { kind: en.kind.clone(), id: id.clone(), value: v });
                        writes.push(Write::Touch { kind: en.kind.clone(), id });
                    }
                }
            }
            Rule::Newest => {
                if let (Some(w), false) = (shown.clone(), losers.is_empty()) {
                    let versions: Vec<Leaf> = std::iter::once(w.clone()).chain(losers.iter().map(|(_, b)| b.clone())).collect();
                    let merged = self.kinds.merge(&en.kind, &versions);
                    if merged.value != w.v {
                        self.grow(en, Some(winner.rev.clone()), Some(&merged.value)).await?;
                        grew = true;
                    }
                    for s in merged.superseded {
                        if !en.superseded.contains(&s) {
                            en.superseded.push(s);
                        }
                    }
                    shown = Some(Leaf { v: merged.value, at: merged.at, dev: w.dev });
                }
            }
        }
        for (rev, _) in &losers {
            self.grow(en, Some(rev.clone()), None).await?;
            en.leaves.remove(&rev.to_string());
            grew = true;
        }
        self.show(en, shown, local, grew, writes).await
    }

    /// Writes the record as `shown` (the winner's body; `None`: deleted)
    /// when that differs from what is stored, and remembers its hash; a
    /// record whose revisions grew here is journaled again ([`Write::Touch`],
    /// after any write of it), so they are sent.
    async fn show(&self, en: &mut RevEntry, shown: Option<Leaf>, local: &Local, grew: bool, writes: &mut Vec<Write>) -> Result<(), Error> {
        if let Some(w) = en.tree.winner() {
            en.leaves.remove(&w.rev.to_string());
        }
        let hash = self.hash_of(shown.as_ref().map(|s| &s.v)).await?;
        let (kind, id) = (en.kind.clone(), en.id.clone());
        match &shown {
            _ if hash == local.hash => {
                if grew {
                    writes.push(Write::Touch { kind, id });
                }
            }
            None => writes.push(Write::Delete { kind, id }),
            Some(s) => {
                writes.push(Write::Put { value: self.kinds.from_wire(&kind, &id, &s.v, local.record.as_ref()), kind: kind.clone(), id: id.clone() });
                // Revisions made here: journaled again (after the write),
                // so they are sent.
                if grew {
                    writes.push(Write::Touch { kind, id });
                }
            }
        }
        en.hash = hash;
        if let Some(s) = shown {
            en.at = s.at;
            en.dev = s.dev;
        }
        Ok(())
    }
}
