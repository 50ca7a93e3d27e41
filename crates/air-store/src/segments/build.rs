//! Writing: a batch's segments, one document into the growing segments,
//! and the blocks that give document numbers their ids.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::DocTerms;
use super::{DocNo, Entry, Key, Layout, Malformed, Result, Segment};

/// A document of a write: its number, time and terms.
#[derive(Debug, Clone, Copy)]
pub struct BatchDoc<'a> {
    pub doc: DocNo,
    pub at: f64,
    pub terms: &'a DocTerms,
}

/// A batch's segments (import, sync, a rebuild's page): per key, the
/// segment to put under the batch's one new segment id. A term with at
/// least [`Layout::own_min`] entries has its own; the others go to their
/// bucket's, one per bucket the batch touches.
pub fn build<'a>(layout: &Layout, docs: impl IntoIterator<Item = BatchDoc<'a>>) -> Vec<(Key, Segment)> {
    let mut lists: HashMap<&'a str, Vec<Entry>> = HashMap::new();
    for d in docs {
        for (term, tf) in &d.terms.terms {
            let e = Entry::new(d.doc, d.at, *tf, d.terms.len);
            match lists.get_mut(term.as_str()) {
                Some(list) => list.push(e),
                None => {
                    lists.insert(term.as_str(), vec![e]);
                }
            }
        }
    }
    split(layout, lists.into_iter().map(|(t, l)| (t.to_owned(), l)))
}

/// Lists grouped by where they go (see [`build`]), in key order.
pub(crate) fn split(layout: &Layout, lists: impl IntoIterator<Item = (String, Vec<Entry>)>) -> Vec<(Key, Segment)> {
    let mut buckets: BTreeMap<u32, BTreeMap<String, Vec<Entry>>> = BTreeMap::new();
    let mut out = Vec::new();
    for (term, list) in lists {
        if list.is_empty() {
            continue;
        }
        if list.len() >= layout.own_min {
            let key = Key::Term(term.clone());
            out.push((key, Segment::from_lists(BTreeMap::from([(term, list)]))));
        } else {
            buckets.entry(layout.bucket(&term)).or_default().insert(term, list);
        }
    }
    out.extend(buckets.into_iter().map(|(b, lists)| (Key::Bucket(b), Segment::from_lists(lists))));
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// One document's entries for the growing segments: per bucket, what to
/// add to its growing segment (a single write touches only buckets).
pub fn live_entries(layout: &Layout, doc: DocNo, at: f64, terms: &DocTerms) -> BTreeMap<u32, Vec<(String, Entry)>> {
    let mut out: BTreeMap<u32, Vec<(String, Entry)>> = BTreeMap::new();
    for (term, tf) in &terms.terms {
        let e = Entry::new(doc, at, *tf, terms.len);
        out.entry(layout.bucket(term)).or_default().push((term.clone(), e));
    }
    out
}

/// What became of a growing segment after [`tail_append`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TailOutcome {
    /// The growing segment to put (`None`: delete it; it was sealed).
    pub tail: Option<Vec<u8>>,
    /// Segments sealed out of it, to put under one new segment id (its
    /// terms with many entries under their own keys, the rest under the
    /// bucket's).
    pub sealed: Vec<(Key, Vec<u8>)>,
}

/// Adds entries to a bucket's growing segment (`tail`, as stored, if
/// any). Once it holds [`Layout::seal_entries`] it is sealed: its live
/// entries (not `dead`) become sealed segments and the growing one starts
/// again empty.
pub fn tail_append(layout: &Layout, tail: Option<&[u8]>, adds: &[(String, Entry)], dead: impl Fn(DocNo) -> bool) -> Result<TailOutcome> {
    let mut seg = match tail {
        Some(bytes) => Segment::decode(bytes)?,
        None => Segment::default(),
    };
    for (term, e) in adds {
        seg.add(term, *e);
    }
    if seg.entries() < layout.seal_entries.max(1) {
        return Ok(TailOutcome { tail: Some(seg.encode()), sealed: Vec::new() });
    }
    seg.retain_live(dead);
    let sealed = split(layout, seg.into_lists()).into_iter().map(|(k, s)| (k, s.encode())).collect();
    Ok(TailOutcome { tail: None, sealed })
}

/// A document's id, session and length, by its number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DocRef<'a> {
    pub doc: &'a str,
    pub session: &'a str,
    pub len: f32,
}

/// The documents a write numbered, from `n` on, as one record (IndexedDB:
/// store `searchDocs`, key `n`, a multiEntry index on `ids` to find a
/// document's number by its id). A dead document's id is `None`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DocBlock {
    pub n: DocNo,
    pub ids: Vec<Option<String>>,
    /// Each document's session.
    pub s: Vec<String>,
    /// Each document's weighted length (for the totals when it goes).
    pub l: Vec<f32>,
}

impl DocBlock {
    pub fn new(n: DocNo) -> Self {
        Self { n, ..Self::default() }
    }

    /// Numbers the next document of the block.
    pub fn push(&mut self, doc: &str, session: &str, len: f32) -> Result<DocNo> {
        let n = u32::try_from(self.ids.len()).ok().and_then(|i| self.n.checked_add(i)).ok_or(Malformed("document numbers used up"))?;
        self.ids.push(Some(doc.to_owned()));
        self.s.push(session.to_owned());
        self.l.push(len);
        Ok(n)
    }

    /// A block read back can be used (its lists agree, its numbers fit).
    pub fn check(&self) -> Result<()> {
        let fits = u32::try_from(self.ids.len()).ok().and_then(|k| self.n.checked_add(k.saturating_sub(1))).is_some();
        if self.ids.len() != self.s.len() || self.ids.len() != self.l.len() || !fits {
            return Err(Malformed("a document block's lists disagree"));
        }
        Ok(())
    }

    /// The numbers after the block's last.
    pub fn end(&self) -> u64 {
        u64::from(self.n) + self.ids.len() as u64
    }

    /// The live document numbered `n`, if the block holds it.
    pub fn get(&self, n: DocNo) -> Option<DocRef<'_>> {
        let i = usize::try_from(n.checked_sub(self.n)?).ok()?;
        let doc = self.ids.get(i)?.as_deref()?;
        Some(DocRef { doc, session: self.s.get(i)?, len: *self.l.get(i)? })
    }

    /// The number of a live document of the block.
    pub fn find(&self, doc: &str) -> Option<DocNo> {
        let i = self.ids.iter().position(|d| d.as_deref() == Some(doc))?;
        self.n.checked_add(u32::try_from(i).ok()?)
    }

    /// Marks a document dead: its number and length.
    pub fn kill(&mut self, doc: &str) -> Option<(DocNo, f32)> {
        let i = self.ids.iter().position(|d| d.as_deref() == Some(doc))?;
        let n = self.n.checked_add(u32::try_from(i).ok()?)?;
        if let Some(id) = self.ids.get_mut(i) {
            *id = None;
        }
        if let Some(s) = self.s.get_mut(i) {
            s.clear();
        }
        Some((n, self.l.get(i).copied().unwrap_or(0.0)))
    }

    /// No document of the block is live (the record can go).
    pub fn is_dead(&self) -> bool {
        self.ids.iter().all(Option::is_none)
    }
}
