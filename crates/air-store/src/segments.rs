//! The search index as batched segments (a log-structured inverted
//! index), without IO: `docs/SEARCH-SEGMENTS.md` says how IndexedDB
//! keeps it. Here is what every store shares and the host can test:
//!
//! * a segment's bytes ([`Segment`], [`View`], [`BlockCursor`]): for each
//!   of its terms, a list of [`Entry`]s (document number, time, weighted
//!   count, document length), most recent first, delta- and
//!   varint-encoded; malformed bytes are an error ([`Malformed`]), never a
//!   panic;
//! * where a term's entries live ([`Key`]): a term with many entries in a
//!   write has a segment of its own; the rest share one of [`Layout::buckets`]
//!   buckets, so a write of 500 documents makes a few hundred records, not
//!   one per term (nor one per term and document);
//! * writing ([`build`]: a batch's segments; [`tail_append`]: one
//!   document into the small segments still growing, sealed when full);
//! * deleting ([`Tombstones`]: dead document numbers, skipped when read,
//!   dropped from segments when merged; [`DocBlock`]: numbers to ids);
//! * merging ([`plan`], [`Merge`]: bounded work per [`Merge::step`]);
//! * reading ([`recent`]: a term's most recent entries across segments);
//! * [`MemSegments`]: all of it in memory, the reference the IndexedDB
//!   store mirrors and the memory store can use.

use std::cmp::Ordering;
use std::collections::BTreeMap;

mod build;
mod mem;
mod merge;
pub(crate) mod wire;

pub use build::{BatchDoc, DocBlock, DocRef, TailOutcome, build, live_entries, tail_append};
pub use mem::{Footprint, IndexDoc, MemSegments, Totals};
pub use merge::{Filtered, Merge, Progress, SegInfo, Tombstones, count_dead, filter_dead, plan, seg_info};

/// What one document contributes: each term's weighted count, and the
/// document's weighted length (`search::doc_terms` makes it).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DocTerms {
    pub terms: BTreeMap<String, f32>,
    pub len: f32,
}

/// The terms of a text.
pub fn doc_terms(text: &str) -> DocTerms {
    let (terms, len) = air_search::term_weights(text);
    DocTerms { terms, len }
}

/// A document's number in the index: given once, in order, never again
/// (a changed document gets a new one; the old one is a tombstone).
pub type DocNo = u32;
/// A segment's number under its key; [`TAIL`] is the one still growing.
pub type SegId = u32;
/// Batches of fewer documents go to the growing segments, as single
/// writes do (a conversation imported or synced at a time would otherwise
/// make a segment per bucket each).
pub const SMALL_BATCH: usize = 64;
/// The id of a key's growing segment (sealed ones count from 1).
pub const TAIL: SegId = 0;
/// The first byte of a segment and of a tombstone list.
const FORMAT: u8 = 1;
/// A block's flag: its times are raw `f64`s (else integer deltas).
const RAW_AT: u8 = 1;
/// Integers an `f64` holds exactly.
const MAX_SAFE: f64 = 9_007_199_254_740_992.0;
/// Least bytes an entry takes (document, time, count, length).
const MIN_ENTRY: usize = 4;

/// A segment's or list's bytes cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("malformed search index record: {0}")]
pub struct Malformed(pub &'static str);

impl From<Malformed> for crate::StoreError {
    fn from(e: Malformed) -> Self {
        crate::StoreError::Corrupt(e.to_string())
    }
}

pub type Result<T, E = Malformed> = std::result::Result<T, E>;

/// Sizes of the layout. [`Layout::default`] is the stored format's (part
/// of the index version: a change means a rebuild); tests use small ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Buckets that terms with few entries in a write share.
    pub buckets: u32,
    /// Entries a term needs in one write (or merge) for a segment of its own.
    pub own_min: usize,
    /// Entries at which a growing segment is sealed.
    pub seal_entries: usize,
    /// Segments of one size tier that are merged into one.
    pub fanout: usize,
    /// Sealed segments a key may have before its smallest are merged.
    pub max_segments: usize,
    /// Bytes a merge may make at most. A segment past half of it is full
    /// and merged no more: browsers keep a record past 64 KiB as a file
    /// of its own, several times slower to read than many small ones.
    pub max_bytes: usize,
}

impl Default for Layout {
    fn default() -> Self {
        Self { buckets: 256, own_min: 64, seal_entries: 256, fanout: 8, max_segments: 16, max_bytes: 56 * 1024 }
    }
}

/// Where entries are kept: a term's own segments, or a bucket's, shared
/// by terms with few entries. (In IndexedDB the key's first part: a
/// number for a bucket, which sorts before every string.)
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key {
    Bucket(u32),
    Term(String),
}

impl Layout {
    /// The bucket of a term: FNV-1a of its UTF-8 bytes (stable across
    /// versions and platforms, unlike `std`'s hasher).
    pub fn bucket(&self, term: &str) -> u32 {
        let mut h: u32 = 0x811c_9dc5;
        for b in term.bytes() {
            h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
        h % self.buckets.max(1)
    }

    /// The two keys a term's entries may be under (both are read).
    pub fn keys(&self, term: &str) -> [Key; 2] {
        [Key::Term(term.to_owned()), Key::Bucket(self.bucket(term))]
    }
}

/// One term's entry for one document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entry {
    pub doc: DocNo,
    /// When the document was written.
    pub at: f64,
    /// The term's weighted count in the document.
    pub tf: f32,
    /// The document's weighted length.
    pub len: f32,
}

impl Entry {
    /// A term's entry for a document, its weights to the twentieth (the
    /// tokenizer's weights are multiples of 0.2, but their `f32` sums are
    /// not exactly: so stored, each weight takes a byte or two, not five).
    pub fn new(doc: DocNo, at: f64, tf: f32, len: f32) -> Self {
        Self { doc, at, tf: quantize(tf), len: quantize(len) }
    }
}

/// A weight to the nearest twentieth (unchanged when out of range).
pub fn quantize(x: f32) -> f32 {
    let k = (x * 20.0).round();
    if (0.0..2_147_483_648.0).contains(&k) { (k as u32) as f32 / 20.0 } else { x }
}

/// The order of a list: most recent first, then the later document first.
pub fn recency(a: &Entry, b: &Entry) -> Ordering {
    b.at.total_cmp(&a.at).then_with(|| b.doc.cmp(&a.doc))
}

use wire::{Reader, put_varint, put_weight, unzigzag, zigzag};

/// A time kept as an integer delta (exact, and not `-0.0`).
fn int_at(at: f64) -> bool {
    at.is_finite() && at.fract() == 0.0 && at.abs() <= MAX_SAFE && !(at == 0.0 && at.is_sign_negative())
}

/// Writes one term's entries, in order, as a block: a flags byte, then
/// per entry the document (zigzag delta), the time (integer delta, or
/// raw), the count and the length.
#[derive(Debug, Clone)]
pub struct BlockWriter {
    out: Vec<u8>,
    raw_at: bool,
    count: usize,
    prev: Option<Entry>,
}

impl BlockWriter {
    /// `raw_at`: some time of the block is not an exact integer.
    pub fn new(raw_at: bool) -> Self {
        Self { out: vec![if raw_at { RAW_AT } else { 0 }], raw_at, count: 0, prev: None }
    }

    /// The writer for `entries` (in any order: they are written sorted).
    pub fn for_entries(entries: &[Entry]) -> Self {
        Self::new(!entries.iter().all(|e| int_at(e.at)))
    }

    /// Adds the next entry: it must come after the previous one in
    /// [`recency`] order, and be an integer time in an integer block.
    pub fn push(&mut self, e: &Entry) -> Result<()> {
        if self.prev.is_some_and(|p| recency(&p, e) != Ordering::Less) {
            return Err(Malformed("entries out of order"));
        }
        if !self.raw_at && !int_at(e.at) {
            return Err(Malformed("a fractional time in an integer block"));
        }
        let prev_doc = self.prev.map_or(0, |p| i64::from(p.doc));
        put_varint(&mut self.out, zigzag(i64::from(e.doc) - prev_doc));
        match (self.raw_at, self.prev) {
            (true, _) => self.out.extend_from_slice(&e.at.to_le_bytes()),
            (false, None) => put_varint(&mut self.out, zigzag(e.at as i64)),
            (false, Some(p)) => put_varint(&mut self.out, (p.at as i64 - e.at as i64) as u64),
        }
        put_weight(&mut self.out, e.tf);
        put_weight(&mut self.out, e.len);
        self.prev = Some(*e);
        self.count += 1;
        Ok(())
    }

    pub fn count(&self) -> usize {
        self.count
    }

    /// The entries written and the block's bytes.
    pub fn finish(self) -> (usize, Vec<u8>) {
        (self.count, self.out)
    }
}

/// Where the next entry of a block is: kept apart from the bytes, so a
/// merge can hold it between steps.
#[derive(Debug, Clone)]
pub struct BlockCursor {
    pos: usize,
    left: usize,
    raw_at: bool,
    prev: Option<Entry>,
}

impl BlockCursor {
    /// A cursor at the start of `block`, which holds `count` entries.
    pub fn open(block: &[u8], count: usize) -> Result<Self> {
        let flags = *block.first().ok_or(Malformed("empty block"))?;
        if flags & !RAW_AT != 0 {
            return Err(Malformed("unknown block flags"));
        }
        Ok(Self { pos: 1, left: count, raw_at: flags & RAW_AT != 0, prev: None })
    }

    /// The block's times are all integers.
    pub fn int_times(&self) -> bool {
        !self.raw_at
    }

    /// The next entry of `block` (the one the cursor was opened on), or
    /// `None` after the last (which must end the block exactly).
    pub fn next(&mut self, block: &[u8]) -> Result<Option<Entry>> {
        let mut r = Reader { bytes: block, pos: self.pos };
        if self.left == 0 {
            return if r.left() == 0 { Ok(None) } else { Err(Malformed("bytes after the last entry")) };
        }
        let prev_doc = self.prev.map_or(0, |p| i64::from(p.doc));
        let doc = prev_doc.checked_add(unzigzag(r.varint()?)).and_then(|d| DocNo::try_from(d).ok()).ok_or(Malformed("document out of range"))?;
        let at = match (self.raw_at, self.prev) {
            (true, _) => r.f64()?,
            (false, None) => unzigzag(r.varint()?) as f64,
            (false, Some(p)) => {
                let delta = i64::try_from(r.varint()?).map_err(|_| Malformed("time out of range"))?;
                (p.at as i64).checked_sub(delta).ok_or(Malformed("time out of range"))? as f64
            }
        };
        if !self.raw_at && !int_at(at) {
            return Err(Malformed("time out of range"));
        }
        let (tf, len) = (r.weight()?, r.weight()?);
        let e = Entry { doc, at, tf, len };
        if self.prev.is_some_and(|p| recency(&p, &e) != Ordering::Less) {
            return Err(Malformed("entries out of order"));
        }
        self.prev = Some(e);
        self.pos = r.pos;
        self.left -= 1;
        Ok(Some(e))
    }
}

/// One term of a segment: its entries' count and block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TermBlock<'a> {
    pub term: &'a str,
    pub count: usize,
    pub block: &'a [u8],
    /// Where the block starts in the segment's bytes.
    pub start: usize,
}

impl<'a> TermBlock<'a> {
    /// Every entry, read and checked.
    pub fn entries(&self) -> Result<Vec<Entry>> {
        let mut c = BlockCursor::open(self.block, self.count)?;
        let mut out = Vec::with_capacity(self.count);
        while let Some(e) = c.next(self.block)? {
            out.push(e);
        }
        Ok(out)
    }
}

/// A segment's directory, read without decoding its entries: the format
/// byte, the number of terms, per term (in order) its UTF-8 text, entry
/// count and block length, then the blocks.
#[derive(Debug, Clone, PartialEq)]
pub struct View<'a> {
    pub terms: Vec<TermBlock<'a>>,
}

impl<'a> View<'a> {
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        if r.byte()? != FORMAT {
            return Err(Malformed("unknown segment format"));
        }
        let n = r.size(r.left() / 3)?;
        let mut dir = Vec::with_capacity(n);
        for _ in 0..n {
            let len = r.size(r.left())?;
            let term = std::str::from_utf8(r.take(len)?).map_err(|_| Malformed("a term is not UTF-8"))?;
            let count = r.size(r.left())?;
            let block = r.size(r.left())?;
            if count == 0 || count > block.saturating_sub(1) / MIN_ENTRY {
                return Err(Malformed("entry count out of range"));
            }
            dir.push((term, count, block));
        }
        let mut terms = Vec::with_capacity(n);
        for (term, count, block) in dir {
            if terms.last().is_some_and(|t: &TermBlock<'_>| t.term >= term) {
                return Err(Malformed("terms out of order"));
            }
            let start = r.pos;
            terms.push(TermBlock { term, count, block: r.take(block)?, start });
        }
        if r.left() != 0 {
            return Err(Malformed("bytes after the last block"));
        }
        Ok(Self { terms })
    }

    pub fn get(&self, term: &str) -> Option<&TermBlock<'a>> {
        self.terms.binary_search_by(|t| t.term.cmp(term)).ok().and_then(|i| self.terms.get(i))
    }

    /// Entries of all terms.
    pub fn entries(&self) -> usize {
        self.terms.iter().map(|t| t.count).sum()
    }
}

/// Assembles a segment from its terms' finished blocks (in term order).
pub fn assemble(blocks: &[(&str, usize, &[u8])]) -> Vec<u8> {
    let size: usize = blocks.iter().map(|(t, _, b)| t.len() + b.len() + 12).sum();
    let mut out = Vec::with_capacity(size + 6);
    out.push(FORMAT);
    put_varint(&mut out, blocks.len() as u64);
    for (term, count, block) in blocks {
        put_varint(&mut out, term.len() as u64);
        out.extend_from_slice(term.as_bytes());
        put_varint(&mut out, *count as u64);
        put_varint(&mut out, block.len() as u64);
    }
    for (_, _, block) in blocks {
        out.extend_from_slice(block);
    }
    out
}

/// A segment decoded: each term's entries, most recent first, each
/// document once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Segment {
    lists: BTreeMap<String, Vec<Entry>>,
}

impl Segment {
    /// From lists in any order (sorted here; a document twice in a list:
    /// the first kept).
    pub fn from_lists(lists: BTreeMap<String, Vec<Entry>>) -> Self {
        let mut lists = lists;
        lists.retain(|_, l| !l.is_empty());
        for list in lists.values_mut() {
            list.sort_by(recency);
            list.dedup_by(|b, a| a.doc == b.doc && a.at.total_cmp(&b.at) == Ordering::Equal);
        }
        Self { lists }
    }

    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let view = View::parse(bytes)?;
        let mut lists = BTreeMap::new();
        for t in &view.terms {
            lists.insert(t.term.to_owned(), t.entries()?);
        }
        Ok(Self { lists })
    }

    pub fn encode(&self) -> Vec<u8> {
        let blocks: Vec<(&str, usize, Vec<u8>)> = self
            .lists
            .iter()
            .map(|(term, list)| {
                let mut w = BlockWriter::for_entries(list);
                // Sorted, each document once, times fitting the block: no error.
                list.iter().for_each(|e| w.push(e).unwrap_or(()));
                let (count, bytes) = w.finish();
                (term.as_str(), count, bytes)
            })
            .collect();
        assemble(&blocks.iter().map(|(t, c, b)| (*t, *c, b.as_slice())).collect::<Vec<_>>())
    }

    pub fn lists(&self) -> &BTreeMap<String, Vec<Entry>> {
        &self.lists
    }

    pub fn into_lists(self) -> BTreeMap<String, Vec<Entry>> {
        self.lists
    }

    pub fn entries(&self) -> usize {
        self.lists.values().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.lists.is_empty()
    }

    /// Adds entries (a growing segment's), keeping each list in order.
    pub fn add(&mut self, term: &str, e: Entry) {
        let list = self.lists.entry(term.to_owned()).or_default();
        match list.binary_search_by(|x| recency(x, &e)) {
            Ok(i) => list[i] = e,
            Err(i) => list.insert(i, e),
        }
    }

    /// Leaves out the entries of documents `dead` says are.
    pub fn retain_live(&mut self, dead: impl Fn(DocNo) -> bool) -> usize {
        let before = self.entries();
        for list in self.lists.values_mut() {
            list.retain(|e| !dead(e.doc));
        }
        self.lists.retain(|_, l| !l.is_empty());
        before - self.entries()
    }
}

/// The head of one source in a k-way merge, ordered so that a max-heap
/// gives the most recent entry first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Head {
    pub entry: Entry,
    pub src: usize,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Head {}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head {
    fn cmp(&self, other: &Self) -> Ordering {
        recency(&other.entry, &self.entry).then_with(|| other.src.cmp(&self.src))
    }
}

/// A term's `max` most recent entries across `segments` (every segment
/// of both its keys, in any order), without those `dead` says are dead;
/// each document once. Only what is needed is decoded.
pub fn recent(term: &str, segments: &[&[u8]], dead: impl Fn(DocNo) -> bool, max: usize) -> Result<Vec<Entry>> {
    let mut blocks = Vec::new();
    for bytes in segments {
        if let Some(t) = View::parse(bytes)?.get(term) {
            blocks.push((t.block, BlockCursor::open(t.block, t.count)?));
        }
    }
    let mut heap = std::collections::BinaryHeap::with_capacity(blocks.len());
    for (src, (block, cursor)) in blocks.iter_mut().enumerate() {
        if let Some(entry) = cursor.next(block)? {
            heap.push(Head { entry, src });
        }
    }
    let mut out: Vec<Entry> = Vec::with_capacity(max.min(4096));
    while out.len() < max {
        let Some(Head { entry, src }) = heap.pop() else { break };
        if let Some((block, cursor)) = blocks.get_mut(src)
            && let Some(next) = cursor.next(block)?
        {
            heap.push(Head { entry: next, src });
        }
        let repeated = out.last().is_some_and(|l| l.doc == entry.doc && l.at.total_cmp(&entry.at) == Ordering::Equal);
        if !repeated && !dead(entry.doc) {
            out.push(entry);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod model_tests;
#[cfg(test)]
mod tests;
