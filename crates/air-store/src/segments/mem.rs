//! The whole index in memory, as the IndexedDB store keeps it (segments
//! by key and id, document blocks, tombstones, counters): the reference
//! its IO mirrors, step for step, and what the memory store can use.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::DocTerms;
use super::build::{BatchDoc, DocBlock, DocRef, build, live_entries, tail_append};
use super::merge::{Filtered, Merge, Progress, Tombstones, count_dead, filter_dead, plan, seg_info};
use super::{DocNo, Entry, Key, Layout, Malformed, Result, SegId, SegInfo, TAIL, View, recent};

/// The index's totals, for BM25.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    pub docs: u64,
    pub total_len: f64,
}

/// What [`MemSegments::footprint`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    pub segments: usize,
    pub segment_bytes: usize,
    pub blocks: usize,
    pub block_bytes: usize,
}

/// A document to index: `terms` `None` (or empty) means not indexed.
#[derive(Debug, Clone, Copy)]
pub struct IndexDoc<'a> {
    pub id: &'a str,
    pub session: &'a str,
    pub at: f64,
    pub terms: Option<&'a DocTerms>,
}

/// A merge under way and what it replaces.
#[derive(Debug)]
struct Work {
    inputs: Vec<SegId>,
    merge: Merge,
}

/// The index in memory (see the module's docs).
#[derive(Debug)]
pub struct MemSegments {
    layout: Layout,
    segs: BTreeMap<Key, BTreeMap<SegId, Vec<u8>>>,
    /// Document blocks by their first number.
    blocks: BTreeMap<DocNo, DocBlock>,
    /// A live document's block (IndexedDB: the multiEntry index on `ids`).
    ids: HashMap<String, DocNo>,
    tombs: Tombstones,
    next_doc: DocNo,
    next_seg: SegId,
    pub totals: Totals,
    /// Keys given sealed segments since their merge was last planned.
    dirty: BTreeSet<Key>,
    work: Option<Work>,
    /// A sweeping pass: the last key it visited (`Some(None)`: none yet).
    pass: Option<Option<Key>>,
}

impl Default for MemSegments {
    fn default() -> Self {
        Self::new(Layout::default())
    }
}

impl MemSegments {
    pub fn new(layout: Layout) -> Self {
        Self {
            layout,
            segs: BTreeMap::new(),
            blocks: BTreeMap::new(),
            ids: HashMap::new(),
            tombs: Tombstones::default(),
            next_doc: 0,
            next_seg: TAIL + 1,
            totals: Totals::default(),
            dirty: BTreeSet::new(),
            work: None,
            pass: None,
        }
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    fn new_seg(&mut self) -> Result<SegId> {
        let id = self.next_seg;
        self.next_seg = id.checked_add(1).ok_or(Malformed("segment numbers used up"))?;
        Ok(id)
    }

    /// Takes a document out of the index (it was changed or deleted):
    /// its number becomes a tombstone. False if it was not in it.
    pub fn remove(&mut self, doc: &str) -> bool {
        let Some(base) = self.ids.remove(doc) else { return false };
        let Some(block) = self.blocks.get_mut(&base) else { return false };
        let Some((n, len)) = block.kill(doc) else { return false };
        if block.is_dead() {
            self.blocks.remove(&base);
        }
        self.tombs.kill(n);
        self.totals.docs = self.totals.docs.saturating_sub(1);
        self.totals.total_len = (self.totals.total_len - f64::from(len)).max(0.0);
        true
    }

    /// Numbers `docs` (those with terms) in one new block.
    fn number(&mut self, docs: &[IndexDoc<'_>]) -> Result<Vec<(DocNo, f64, DocTerms)>> {
        let mut block = DocBlock::new(self.next_doc);
        let mut out = Vec::new();
        for d in docs {
            let Some(terms) = d.terms.filter(|t| !t.terms.is_empty()) else { continue };
            let n = block.push(d.id, d.session, terms.len)?;
            self.ids.insert(d.id.to_owned(), block.n);
            self.totals.docs += 1;
            self.totals.total_len += f64::from(terms.len);
            out.push((n, d.at, terms.clone()));
        }
        if !out.is_empty() {
            self.next_doc = u32::try_from(block.end()).map_err(|_| Malformed("document numbers used up"))?;
            self.blocks.insert(block.n, block);
        }
        Ok(out)
    }

    /// One document written (a message saved, edited; a title): its old
    /// entries die, its new ones go to the growing segments of their
    /// buckets (sealed when full). The caller leaves out writes that do
    /// not change the document's terms.
    pub fn put_live(&mut self, doc: IndexDoc<'_>) -> Result<()> {
        self.remove(doc.id);
        let numbered = self.number(&[doc])?;
        self.append_tails(&numbered)
    }

    /// Documents' entries into their buckets' growing segments (sealed
    /// when full).
    fn append_tails(&mut self, numbered: &[(DocNo, f64, DocTerms)]) -> Result<()> {
        let mut adds: BTreeMap<u32, Vec<(String, Entry)>> = BTreeMap::new();
        for (n, at, terms) in numbered {
            for (bucket, list) in live_entries(&self.layout, *n, *at, terms) {
                adds.entry(bucket).or_default().extend(list);
            }
        }
        let mut sealed = Vec::new();
        for (bucket, add) in adds {
            let key = Key::Bucket(bucket);
            let tail = self.segs.get(&key).and_then(|m| m.get(&TAIL));
            let tombs = &self.tombs;
            let out = tail_append(&self.layout, tail.map(Vec::as_slice), &add, |d| tombs.contains(d))?;
            match out.tail {
                Some(bytes) => self.put(key, TAIL, bytes),
                None => self.delete(&key, TAIL),
            }
            sealed.extend(out.sealed);
        }
        if !sealed.is_empty() {
            let id = self.new_seg()?;
            for (k, bytes) in sealed {
                self.dirty.insert(k.clone());
                self.put(k, id, bytes);
            }
        }
        Ok(())
    }

    /// Many documents written at once (an import's or sync's batch, a
    /// rebuild's page): one block, one segment per key under one new id.
    /// A document twice: the later.
    pub fn put_batch(&mut self, docs: &[IndexDoc<'_>]) -> Result<()> {
        let mut seen = std::collections::HashSet::new();
        let mut once: Vec<IndexDoc<'_>> = docs.iter().rev().filter(|d| seen.insert(d.id)).copied().collect();
        once.reverse();
        for d in &once {
            self.remove(d.id);
        }
        let numbered = self.number(&once)?;
        if numbered.is_empty() {
            return Ok(());
        }
        if numbered.len() < super::SMALL_BATCH {
            return self.append_tails(&numbered);
        }
        let segs = build(&self.layout, numbered.iter().map(|(doc, at, terms)| BatchDoc { doc: *doc, at: *at, terms }));
        let id = self.new_seg()?;
        for (key, seg) in segs {
            self.dirty.insert(key.clone());
            self.put(key, id, seg.encode());
        }
        Ok(())
    }

    fn put(&mut self, key: Key, id: SegId, bytes: Vec<u8>) {
        self.segs.entry(key).or_default().insert(id, bytes);
    }

    fn delete(&mut self, key: &Key, id: SegId) {
        if let Some(m) = self.segs.get_mut(key) {
            m.remove(&id);
            if m.is_empty() {
                self.segs.remove(key);
            }
        }
    }

    /// A term's `max` most recent live entries.
    pub fn recent(&self, term: &str, max: usize) -> Result<Vec<Entry>> {
        let sources: Vec<&[u8]> = self.layout.keys(term).iter().filter_map(|k| self.segs.get(k)).flat_map(|m| m.values().map(Vec::as_slice)).collect();
        recent(term, &sources, |d| self.tombs.contains(d), max)
    }

    /// A live document's id and session, by number.
    pub fn resolve(&self, n: DocNo) -> Option<DocRef<'_>> {
        self.blocks.range(..=n).next_back().and_then(|(_, b)| b.get(n))
    }

    /// One step of background work, at most `budget` entries merged:
    /// a merge under way goes on (and is committed when done); else a
    /// sweeping pass visits its next key (when enough died); else a key
    /// that got segments is planned. False when there was nothing to do.
    pub fn compact_step(&mut self, budget: usize) -> Result<bool> {
        self.step(budget, false)
    }

    /// [`MemSegments::compact_step`], starting a sweeping pass whenever
    /// anything is dead (not only once enough is).
    pub fn sweep_step(&mut self, budget: usize) -> Result<bool> {
        self.step(budget, true)
    }

    /// Background work until none is left, tombstones swept too.
    pub fn compact(&mut self) -> Result<()> {
        while self.step(1 << 16, true)? {}
        Ok(())
    }

    fn step(&mut self, budget: usize, sweep_all: bool) -> Result<bool> {
        if let Some(work) = self.work.as_mut() {
            if work.merge.step(budget)? == Progress::Done {
                self.commit()?;
            }
            return Ok(true);
        }
        let wants = sweep_all && !self.tombs.is_empty() || self.tombs.wants_pass(self.totals.docs);
        if self.pass.is_none() && wants && self.tombs.begin_pass() {
            self.pass = Some(None);
        }
        if let Some(after) = self.pass.clone() {
            self.sweep(after)?;
            return Ok(true);
        }
        while let Some(key) = self.dirty.pop_first() {
            let infos = self.infos(&key)?;
            if let Some(ids) = plan(&self.layout, &infos) {
                self.start(key, ids)?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn infos(&self, key: &Key) -> Result<Vec<SegInfo>> {
        self.segs.get(key).map_or(Ok(Vec::new()), |m| m.iter().map(|(id, b)| seg_info(*id, b)).collect())
    }

    fn start(&mut self, key: Key, ids: Vec<SegId>) -> Result<()> {
        let stored = self.segs.get(&key);
        let inputs: Vec<Vec<u8>> = ids.iter().filter_map(|id| stored.and_then(|m| m.get(id)).cloned()).collect();
        let merge = Merge::new(&self.layout, key, inputs, self.tombs.clone())?;
        self.work = Some(Work { inputs: ids, merge });
        Ok(())
    }

    /// Replaces a finished merge's inputs by its outputs, if they are all
    /// still there (IndexedDB: checked in the transaction that writes).
    fn commit(&mut self) -> Result<()> {
        let Some(Work { inputs, merge }) = self.work.take() else { return Ok(()) };
        let key = merge.key().clone();
        let there = self.segs.get(&key).is_some_and(|m| inputs.iter().all(|id| m.contains_key(id)));
        if !there {
            return Ok(());
        }
        let outputs = merge.finish()?;
        for id in &inputs {
            self.delete(&key, *id);
        }
        let id = self.new_seg()?;
        for (k, bytes) in outputs {
            self.dirty.insert(k.clone());
            self.put(k, id, bytes);
        }
        self.dirty.insert(key);
        Ok(())
    }

    /// A sweeping pass's visit of the key after `after`: its growing
    /// segment filtered at once, its sealed ones with dead entries merged.
    fn sweep(&mut self, after: Option<Key>) -> Result<()> {
        let next = match &after {
            Some(k) => self.segs.range((std::ops::Bound::Excluded(k.clone()), std::ops::Bound::Unbounded)).next(),
            None => self.segs.iter().next(),
        };
        let Some((key, stored)) = next else {
            self.tombs.end_pass();
            self.pass = None;
            return Ok(());
        };
        let key = key.clone();
        let tombs = &self.tombs;
        let tail = stored.get(&TAIL).map(|b| filter_dead(b, |d| tombs.contains(d))).transpose()?;
        let mut dead_ids = Vec::new();
        for (id, bytes) in stored.iter().filter(|(id, _)| **id != TAIL) {
            if count_dead(bytes, |d| tombs.contains(d))? > 0 {
                dead_ids.push(*id);
            }
        }
        match tail {
            Some(Filtered::Kept(bytes)) => self.put(key.clone(), TAIL, bytes),
            Some(Filtered::Empty) => self.delete(&key, TAIL),
            _ => {}
        }
        self.pass = Some(Some(key.clone()));
        if !dead_ids.is_empty() {
            self.start(key, dead_ids)?;
        }
        Ok(())
    }

    pub fn tombstones(&self) -> &Tombstones {
        &self.tombs
    }

    /// Records and bytes stored (for the design note's estimates; a
    /// block's bytes as JSON would be).
    pub fn footprint(&self) -> Footprint {
        let segs = self.segs.values().flat_map(|m| m.values());
        let (segments, segment_bytes) = segs.fold((0, 0), |(n, b), s| (n + 1, b + s.len()));
        let text = |s: &str| s.len() + 3;
        let block_bytes = self.blocks.values().map(|b| 20 + b.ids.iter().map(|i| i.as_deref().map_or(5, text)).sum::<usize>() + b.s.iter().map(|s| text(s)).sum::<usize>() + 6 * b.l.len()).sum();
        Footprint { segments, segment_bytes, blocks: self.blocks.len(), block_bytes }
    }

    /// The most sealed segments any key has.
    pub fn most_segments(&self) -> usize {
        self.segs.values().map(|m| m.keys().filter(|id| **id != TAIL).count()).max().unwrap_or(0)
    }

    /// Every stored segment can be read, and each live document's
    /// number leads back to it.
    pub fn check(&self) -> Result<()> {
        for stored in self.segs.values() {
            for bytes in stored.values() {
                for t in View::parse(bytes)?.terms {
                    t.entries()?;
                }
            }
        }
        for (doc, base) in &self.ids {
            let found = self.blocks.get(base).and_then(|b| b.find(doc));
            if found.is_none() {
                return Err(Malformed("a document's block does not name it"));
            }
        }
        Ok(())
    }
}
