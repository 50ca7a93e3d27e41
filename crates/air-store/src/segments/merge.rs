//! Deleting and merging: dead document numbers, which segments of a key
//! to merge, and the merge itself in steps of bounded work.

use std::collections::BinaryHeap;
use std::ops::Range;

use super::wire::{Reader, put_varint};
use super::{BlockCursor, BlockWriter, DocNo, Entry, FORMAT, Head, Key, Layout, Malformed, Result, SegId, Segment, TAIL, View, assemble};

/// Dead document numbers: skipped when read, dropped from segments when
/// merged. Retired by sweeping passes: a pass takes the numbers dead so
/// far (`sweeping`), rewrites every segment holding one, and at its end
/// forgets them; numbers that die meanwhile wait for the next pass.
/// (No segment made after a number died can hold it: numbers are never
/// given again.)
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tombstones {
    sweeping: Vec<DocNo>,
    recent: Vec<DocNo>,
}

impl Tombstones {
    pub fn contains(&self, n: DocNo) -> bool {
        self.sweeping.binary_search(&n).is_ok() || self.recent.binary_search(&n).is_ok()
    }

    pub fn kill(&mut self, n: DocNo) {
        if !self.contains(n)
            && let Err(i) = self.recent.binary_search(&n)
        {
            self.recent.insert(i, n);
        }
    }

    /// Many at once (a session's messages).
    pub fn kill_all(&mut self, ns: impl IntoIterator<Item = DocNo>) {
        let sweeping = &self.sweeping;
        self.recent.extend(ns.into_iter().filter(|n| sweeping.binary_search(n).is_err()));
        self.recent.sort_unstable();
        self.recent.dedup();
    }

    pub fn len(&self) -> usize {
        self.sweeping.len() + self.recent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A sweeping pass is under way.
    pub fn sweeping(&self) -> bool {
        !self.sweeping.is_empty()
    }

    /// Enough numbers died for a pass to be worth its reading every
    /// segment once (of an index of `docs` documents).
    pub fn wants_pass(&self, docs: u64) -> bool {
        self.recent.len() as u64 >= (docs / 16).max(256)
    }

    /// Starts a pass over the numbers dead so far: false when one is
    /// under way already or nothing is dead.
    pub fn begin_pass(&mut self) -> bool {
        if self.sweeping.is_empty() && !self.recent.is_empty() {
            std::mem::swap(&mut self.sweeping, &mut self.recent);
            return true;
        }
        false
    }

    /// The pass rewrote every segment: its numbers are in none any more.
    pub fn end_pass(&mut self) {
        self.sweeping.clear();
    }

    /// As stored: the format byte, then each list as its length and its
    /// increasing numbers as varint deltas.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![FORMAT];
        for list in [&self.sweeping, &self.recent] {
            put_varint(&mut out, list.len() as u64);
            let mut prev = 0u64;
            for (i, n) in list.iter().enumerate() {
                let n = u64::from(*n);
                put_varint(&mut out, if i == 0 { n } else { n - prev });
                prev = n;
            }
        }
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        if r.byte()? != FORMAT {
            return Err(Malformed("unknown tombstone format"));
        }
        let mut lists = [Vec::new(), Vec::new()];
        for list in &mut lists {
            let len = r.size(r.left())?;
            list.reserve(len);
            let mut prev: Option<u64> = None;
            for _ in 0..len {
                let d = r.varint()?;
                let n = match prev {
                    None => d,
                    Some(_) if d == 0 => return Err(Malformed("tombstones out of order")),
                    Some(p) => p.checked_add(d).ok_or(Malformed("tombstone out of range"))?,
                };
                list.push(DocNo::try_from(n).map_err(|_| Malformed("tombstone out of range"))?);
                prev = Some(n);
            }
        }
        if r.left() != 0 {
            return Err(Malformed("bytes after the tombstones"));
        }
        let [sweeping, recent] = lists;
        Ok(Self { sweeping, recent })
    }
}

/// What merging needs to know of a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegInfo {
    pub id: SegId,
    pub entries: usize,
    pub bytes: usize,
}

/// A stored segment's [`SegInfo`] (its directory only is read).
pub fn seg_info(id: SegId, bytes: &[u8]) -> Result<SegInfo> {
    Ok(SegInfo { id, entries: View::parse(bytes)?.entries(), bytes: bytes.len() })
}

/// The size tier of a segment of `entries`: `fanout`'s power below it.
fn tier(entries: usize, fanout: usize) -> u32 {
    let (mut x, mut t) = (entries.max(1), 0);
    while x >= fanout {
        x /= fanout;
        t += 1;
    }
    t
}

/// Which sealed segments of one key to merge, if any (tiered: the
/// lowest tier holding [`Layout::fanout`] segments, at most four times
/// that many of its smallest; else, past [`Layout::max_segments`], the
/// smallest ones), never more than [`Layout::max_bytes`] in all. The
/// growing segment, and full ones, are never merged.
pub fn plan(layout: &Layout, segs: &[SegInfo]) -> Option<Vec<SegId>> {
    let fanout = layout.fanout.max(2);
    let mut sealed: Vec<&SegInfo> = segs.iter().filter(|s| s.id != TAIL && s.bytes < layout.max_bytes / 2).collect();
    if sealed.len() < 2 {
        return None;
    }
    sealed.sort_by_key(|s| (s.entries, s.id));
    let mut tiers: std::collections::BTreeMap<u32, Vec<&SegInfo>> = std::collections::BTreeMap::new();
    for s in &sealed {
        tiers.entry(tier(s.entries, fanout)).or_default().push(s);
    }
    let fits = |list: &mut dyn Iterator<Item = &&SegInfo>, most: usize| -> Option<Vec<SegId>> {
        let mut bytes = 0;
        let ids: Vec<SegId> = list
            .take(most)
            .take_while(|s| {
                bytes += s.bytes;
                bytes <= layout.max_bytes
            })
            .map(|s| s.id)
            .collect();
        (ids.len() >= 2).then_some(ids)
    };
    if let Some(ids) = tiers.values().filter(|list| list.len() >= fanout).find_map(|list| fits(&mut list.iter(), fanout * 4)) {
        return Some(ids);
    }
    let over = sealed.len().checked_sub(layout.max_segments.max(1))?;
    if over == 0 {
        return None;
    }
    fits(&mut sealed.iter(), over + 1)
}

/// A segment without the entries of dead documents.
#[derive(Debug, Clone, PartialEq)]
pub enum Filtered {
    /// Nothing in it was dead.
    Unchanged,
    /// Everything was: delete it.
    Empty,
    Kept(Vec<u8>),
}

/// Drops dead entries from a segment (a small growing one; sealed ones
/// are rewritten by a [`Merge`]).
pub fn filter_dead(bytes: &[u8], dead: impl Fn(DocNo) -> bool) -> Result<Filtered> {
    let mut seg = Segment::decode(bytes)?;
    Ok(match seg.retain_live(dead) {
        0 => Filtered::Unchanged,
        _ if seg.is_empty() => Filtered::Empty,
        _ => Filtered::Kept(seg.encode()),
    })
}

/// How many entries of a segment are of dead documents (a sweeping pass
/// rewrites the segments that have any).
pub fn count_dead(bytes: &[u8], dead: impl Fn(DocNo) -> bool) -> Result<usize> {
    let mut n = 0;
    for t in View::parse(bytes)?.terms {
        n += t.entries()?.iter().filter(|e| dead(e.doc)).count();
    }
    Ok(n)
}

/// Whether a [`Merge`] has work left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    More,
    Done,
}

/// One term being merged: a cursor per input that has it.
#[derive(Debug)]
struct Current {
    cursors: Vec<(usize, Range<usize>, BlockCursor)>,
    heap: BinaryHeap<Head>,
    writer: BlockWriter,
    last: Option<Entry>,
}

/// Merges segments of one key into one (a bucket's: its terms that now
/// have [`Layout::own_min`] entries move to their own key), dropping the
/// entries of documents dead when it started. Its inputs are sealed, so
/// never change: they are read once, the work is done in
/// [`Merge::step`]s of bounded size (a task each), and the store then
/// replaces them by [`Merge::finish`]'s outputs at once, if they are all
/// still there.
#[derive(Debug)]
pub struct Merge {
    key: Key,
    layout: Layout,
    inputs: Vec<Vec<u8>>,
    /// Per input, its terms: text, count, block's place.
    dirs: Vec<Vec<(String, usize, Range<usize>)>>,
    /// Every input's terms, in order, each once.
    terms: Vec<String>,
    next: usize,
    current: Option<Current>,
    done: Vec<(String, usize, Vec<u8>)>,
    dead: Tombstones,
    read: usize,
}

impl Merge {
    /// A merge of `inputs` (stored segments of `key`); `dead` as it is now.
    pub fn new(layout: &Layout, key: Key, inputs: Vec<Vec<u8>>, dead: Tombstones) -> Result<Self> {
        let mut dirs = Vec::with_capacity(inputs.len());
        let mut terms: Vec<String> = Vec::new();
        for bytes in &inputs {
            let view = View::parse(bytes)?;
            let dir: Vec<(String, usize, Range<usize>)> = view.terms.iter().map(|t| (t.term.to_owned(), t.count, t.start..t.start + t.block.len())).collect();
            terms.extend(dir.iter().map(|(t, _, _)| t.clone()));
            dirs.push(dir);
        }
        terms.sort_unstable();
        terms.dedup();
        Ok(Self { key, layout: *layout, inputs, dirs, terms, next: 0, current: None, done: Vec::new(), dead, read: 0 })
    }

    /// Entries read so far (a step reads at most its budget).
    pub fn read(&self) -> usize {
        self.read
    }

    pub fn key(&self) -> &Key {
        &self.key
    }

    fn open(&self, term: &str) -> Result<Current> {
        let mut cursors = Vec::new();
        let mut heap = BinaryHeap::new();
        let mut int_times = true;
        for (i, dir) in self.dirs.iter().enumerate() {
            let Ok(at) = dir.binary_search_by(|(t, _, _)| t.as_str().cmp(term)) else { continue };
            let Some((_, count, range)) = dir.get(at) else { continue };
            let block = self.inputs.get(i).and_then(|b| b.get(range.clone())).ok_or(Malformed("block out of range"))?;
            let mut cursor = BlockCursor::open(block, *count)?;
            int_times &= cursor.int_times();
            if let Some(entry) = cursor.next(block)? {
                heap.push(Head { entry, src: cursors.len() });
            }
            cursors.push((i, range.clone(), cursor));
        }
        Ok(Current { cursors, heap, writer: BlockWriter::new(!int_times), last: None })
    }

    /// Merges at most `budget` more entries (at least one).
    pub fn step(&mut self, budget: usize) -> Result<Progress> {
        let mut left = budget.max(1);
        loop {
            if self.current.is_none() {
                let Some(term) = self.terms.get(self.next) else { return Ok(Progress::Done) };
                self.current = Some(self.open(term)?);
            }
            let Self { current, inputs, dead, read, .. } = self;
            let Some(cur) = current.as_mut() else { continue };
            while left > 0 {
                let Some(Head { entry, src }) = cur.heap.pop() else { break };
                if let Some((input, range, cursor)) = cur.cursors.get_mut(src) {
                    let block = inputs.get(*input).and_then(|b| b.get(range.clone())).ok_or(Malformed("block out of range"))?;
                    if let Some(next) = cursor.next(block)? {
                        cur.heap.push(Head { entry: next, src });
                    }
                }
                let repeated = cur.last.is_some_and(|l| l.doc == entry.doc && l.at.total_cmp(&entry.at).is_eq());
                if !repeated && !dead.contains(entry.doc) {
                    cur.writer.push(&entry)?;
                    cur.last = Some(entry);
                }
                left -= 1;
                *read += 1;
            }
            if cur.heap.is_empty() {
                self.finish_term();
            }
            if left == 0 {
                let done = self.current.is_none() && self.next >= self.terms.len();
                return Ok(if done { Progress::Done } else { Progress::More });
            }
        }
    }

    fn finish_term(&mut self) {
        if let Some(cur) = self.current.take() {
            let (count, bytes) = cur.writer.finish();
            if count > 0
                && let Some(term) = self.terms.get(self.next)
            {
                self.done.push((term.clone(), count, bytes));
            }
        }
        self.next += 1;
    }

    /// The merged segments, per key (none when every entry was dead).
    /// Work left is done first, unbounded: call it after [`Progress::Done`].
    pub fn finish(mut self) -> Result<Vec<(Key, Vec<u8>)>> {
        while self.step(usize::MAX)? == Progress::More {}
        let mut out = Vec::new();
        let mut rest: Vec<(&str, usize, &[u8])> = Vec::new();
        for (term, count, bytes) in &self.done {
            if matches!(self.key, Key::Bucket(_)) && *count >= self.layout.own_min {
                out.push((Key::Term(term.clone()), assemble(&[(term.as_str(), *count, bytes.as_slice())])));
            } else {
                rest.push((term.as_str(), *count, bytes.as_slice()));
            }
        }
        if !rest.is_empty() {
            out.push((self.key.clone(), assemble(&rest)));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }
}
