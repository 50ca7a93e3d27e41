//! A small local search engine, without IO and without dependencies. One
//! crate used twice: the MCP tool catalog of dynamic loading
//! (`air-dynamic`'s `Finder`), and full-text search over conversations
//! (`air-store`'s `search`, whose index is kept in batched segments).
//!
//! - [`tokenize`]: text to terms. Latin letters and digits make words,
//!   lower-cased, split at `snake_case`, `kebab-case`, `dot.case` and
//!   `camelCase` boundaries (tool names are identifiers; a split word is
//!   also kept whole, so "GitHub" meets "github"), with a light English
//!   stemmer (plurals, -ing, -ed, a final e) and a few stop words left out.
//!   Han, kana and Hangul make overlapping bigrams plus single characters
//!   at a lower weight (common ones left out), so Chinese is searchable
//!   without a dictionary.
//! - [`Index`]: documents of weighted fields in an inverted index, ranked
//!   with BM25 (k1 1.2, b 0.75; term frequency counted per field weight,
//!   BM25F-style), ties broken by id. Documents are added, replaced and
//!   removed one at a time.
//!
//! Searching a 300-tool catalog is measured by
//! `cargo run --release -p air-search --example bench` (figures in
//! `docs/BENCHMARKS.md`).

use std::collections::{BTreeMap, HashMap};

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;
/// BM25's length normalisation.
const B: f32 = 0.75;
/// A single CJK character counts for less than a pair.
const CJK_UNIGRAM: f32 = 0.4;

const STOP: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of", "on", "or", "that", "the", "this", "to", "with", "me", "my", "i", "you", "your", "please", "can", "could",
    "would", "some", "what", "which", "how",
];

/// Chinese characters too common to mean anything alone.
const CJK_STOP: &[char] = &['的', '了', '是', '在', '和', '与', '或', '把', '被', '我', '你', '他', '她', '它', '们', '这', '那', '个', '一', '请', '吗', '呢', '吧'];

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // kana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified
        | 0xAC00..=0xD7AF    // Hangul
        | 0xF900..=0xFAFF    // compatibility
        | 0x20000..=0x2FA1F) // extensions B…
}

/// A term and how much one occurrence of it counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    pub text: String,
    pub weight: f32,
}

/// The terms of `text`, in order (see the crate docs).
pub fn tokenize(text: &str) -> Vec<Term> {
    let mut out = Vec::new();
    each_term(text, |text, weight| out.push(Term { text: text.to_owned(), weight }));
    out
}

/// The terms one word stands for (see the crate docs).
fn word_terms(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    let parts = split_identifier(word);
    // `GitHub` is also `github`, `listPullRequests` also the whole.
    if parts.len() > 1 {
        out.push(stem(&word.to_lowercase()));
    }
    for part in parts {
        let lower = part.to_lowercase();
        if !STOP.contains(&lower.as_str()) {
            out.push(stem(&lower));
        }
    }
    out
}

/// Each word met so far: its terms, and how many times it was met.
type Words = HashMap<String, (Vec<String>, u32)>;

/// Calls `f` with each term of `text` and its weight, in order, without
/// collecting them (a long text has hundreds of thousands). A word met
/// again is not split and stemmed again.
pub fn each_term(text: &str, mut f: impl FnMut(&str, f32)) {
    let mut words = Words::new();
    scan(text, |part| match part {
        Part::Word(word) => met(&mut words, word, |(terms, _)| terms.iter().for_each(|t| f(t, 1.0))),
        Part::Cjk(term, weight) => f(term, weight),
    });
}

/// What [`each_term`] gives, summed: each term once with its weight, and
/// the sum of all weights (in the same order, so the same sums). A word
/// met again is counted, not looked up term by term: a long text is
/// indexed in about half the time.
pub fn term_weights(text: &str) -> (BTreeMap<String, f32>, f32) {
    let mut words = Words::new();
    let mut weights = BTreeMap::new();
    let mut len = 0.0f32;
    scan(text, |part| match part {
        Part::Word(word) => met(&mut words, word, |(terms, count)| {
            *count += 1;
            terms.iter().for_each(|_| len += 1.0);
        }),
        Part::Cjk(term, weight) => {
            add(&mut weights, term, weight);
            len += weight;
        }
    });
    for (terms, count) in words.values() {
        for term in terms {
            // Whole numbers: the same however they are added.
            add(&mut weights, term, *count as f32);
        }
    }
    (weights, len)
}

/// Hands `f` `word`'s entry, made (split and stemmed) the first time the
/// word is met.
fn met(words: &mut Words, word: &str, f: impl FnOnce(&mut (Vec<String>, u32))) {
    match words.get_mut(word) {
        Some(entry) => f(entry),
        None => f(words.entry(word.to_owned()).or_insert_with(|| (word_terms(word), 0))),
    }
}

fn add(weights: &mut BTreeMap<String, f32>, term: &str, weight: f32) {
    match weights.get_mut(term) {
        Some(w) => *w += weight,
        None => {
            weights.insert(term.to_owned(), weight);
        }
    }
}

/// A piece of a text as [`scan`] hands it out: a word, or a CJK term and
/// its weight.
enum Part<'a> {
    Word(&'a str),
    Cjk(&'a str, f32),
}

/// Cuts `text` into words (letters and digits) and CJK unigrams and
/// bigrams, in order. ASCII, most of most texts, is read a byte at a time,
/// and a word is handed out as the slice of `text` it is.
fn scan(text: &str, mut f: impl FnMut(Part<'_>)) {
    let mut cjk: Vec<char> = Vec::new();
    let flush_cjk = |cjk: &mut Vec<char>, f: &mut dyn FnMut(Part<'_>)| {
        let mut buf = [0u8; 8];
        for (i, c) in cjk.iter().enumerate() {
            if !CJK_STOP.contains(c) {
                f(Part::Cjk(c.encode_utf8(&mut buf), CJK_UNIGRAM));
            }
            if let Some(next) = cjk.get(i + 1) {
                f(Part::Cjk(&format!("{c}{next}"), 1.0));
            }
        }
        cjk.clear();
    };
    // Where the word being read began.
    let mut word: Option<usize> = None;
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let here = at;
        let c = if bytes[at].is_ascii() {
            at += 1;
            char::from(bytes[here])
        } else {
            let Some(c) = text[at..].chars().next() else { break };
            at += c.len_utf8();
            c
        };
        if c.is_ascii_alphanumeric() || (!c.is_ascii() && !is_cjk(c) && c.is_alphanumeric()) {
            if !cjk.is_empty() {
                flush_cjk(&mut cjk, &mut f);
            }
            word.get_or_insert(here);
            continue;
        }
        if let Some(from) = word.take() {
            f(Part::Word(&text[from..here]));
        }
        if is_cjk(c) {
            cjk.push(c);
        } else {
            flush_cjk(&mut cjk, &mut f);
        }
    }
    if let Some(from) = word {
        f(Part::Word(&text[from..]));
    }
    flush_cjk(&mut cjk, &mut f);
}

/// `createIssue2` → `create`, `Issue`, `2`; `HTTPServer` → `HTTP`, `Server`.
fn split_identifier(word: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (at, c) = chars[i];
        let prev = chars[i - 1].1;
        let next_lower = chars.get(i + 1).is_some_and(|(_, n)| n.is_lowercase());
        let boundary = (prev.is_lowercase() && c.is_uppercase()) || (prev.is_uppercase() && c.is_uppercase() && next_lower) || (prev.is_alphabetic() != c.is_alphabetic());
        if boundary {
            parts.push(&word[start..at]);
            start = at;
        }
    }
    parts.push(&word[start..]);
    parts
}

/// A light English stemmer: plurals, common endings and a final "e", so
/// "issues", "searching" and "created" meet "issue", "search" and
/// "create".
fn stem(w: &str) -> String {
    if !w.is_ascii() || w.len() <= 3 {
        return w.to_owned();
    }
    let strip = |suffix: &str, keep: usize, add: &str| -> Option<String> { w.strip_suffix(suffix).filter(|base| base.len() >= keep).map(|base| format!("{base}{add}")) };
    let s = strip("sses", 2, "ss")
        .or_else(|| strip("ies", 3, "y"))
        .or_else(|| strip("ing", 4, ""))
        .or_else(|| strip("ed", 4, ""))
        .or_else(|| if w.ends_with("ss") || w.ends_with("us") { None } else { strip("s", 3, "") })
        .unwrap_or_else(|| w.to_owned());
    // "create", "created" and "creating" meet at "creat".
    match s.strip_suffix('e') {
        Some(base) if base.len() >= 4 => base.to_owned(),
        _ => s,
    }
}

/// One term's BM25 score in one document: `n` documents of average
/// length `avg`, `df` of them with the term, `tf` times in this one, of
/// length `len`.
pub fn bm25(n: f32, avg: f32, df: f32, tf: f32, len: f32) -> f32 {
    let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
    idf * (tf * (K1 + 1.0)) / (tf + K1 * (1.0 - B + B * len / avg))
}

#[derive(Debug, Clone)]
struct Doc {
    id: String,
    /// Weighted length.
    len: f32,
    terms: Vec<String>,
}

/// One result.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: String,
    pub score: f32,
}

/// An inverted index of documents made of weighted fields.
#[derive(Debug, Clone, Default)]
pub struct Index {
    docs: Vec<Option<Doc>>,
    free: Vec<u32>,
    ids: HashMap<String, u32>,
    /// Term → (document, weighted frequency).
    postings: HashMap<String, Vec<(u32, f32)>>,
    total_len: f64,
}

impl Index {
    pub fn new() -> Self {
        Self::default()
    }

    /// Documents in the index.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The ids of every document, in no order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.ids.keys().map(String::as_str)
    }

    pub fn contains(&self, id: &str) -> bool {
        self.ids.contains_key(id)
    }

    /// Adds `id`, or replaces what it held: `fields` are texts with how much
    /// each counts (a name more than a description, say).
    pub fn upsert(&mut self, id: &str, fields: &[(&str, f32)]) {
        self.remove(id);
        let mut freq: HashMap<String, f32> = HashMap::new();
        let mut len = 0.0;
        for (text, weight) in fields {
            for t in tokenize(text) {
                let w = t.weight * weight;
                len += w;
                *freq.entry(t.text).or_default() += w;
            }
        }
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.docs.push(None);
                (self.docs.len() - 1) as u32
            }
        };
        for (term, f) in &freq {
            self.postings.entry(term.clone()).or_default().push((slot, *f));
        }
        self.total_len += f64::from(len);
        self.docs[slot as usize] = Some(Doc { id: id.to_owned(), len, terms: freq.into_keys().collect() });
        self.ids.insert(id.to_owned(), slot);
    }

    /// Removes `id`; false if it was not there.
    pub fn remove(&mut self, id: &str) -> bool {
        let Some(slot) = self.ids.remove(id) else { return false };
        if let Some(doc) = self.docs[slot as usize].take() {
            self.total_len -= f64::from(doc.len);
            for term in &doc.terms {
                if let Some(list) = self.postings.get_mut(term) {
                    list.retain(|(d, _)| *d != slot);
                    if list.is_empty() {
                        self.postings.remove(term);
                    }
                }
            }
        }
        self.free.push(slot);
        true
    }

    /// The best `limit` documents for `query`, best first (ties by id, so
    /// results are stable). Documents that share no term are left out.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        let n = self.ids.len() as f32;
        if n == 0.0 {
            return Vec::new();
        }
        let avg = (self.total_len / f64::from(n)).max(1e-6) as f32;
        let mut query_terms: HashMap<String, f32> = HashMap::new();
        for t in tokenize(query) {
            let w = query_terms.entry(t.text).or_default();
            *w = w.max(t.weight);
        }
        let mut scores: HashMap<u32, f32> = HashMap::new();
        for (term, qw) in &query_terms {
            let Some(list) = self.postings.get(term) else { continue };
            let df = list.len() as f32;
            for (doc, tf) in list {
                let len = self.docs[*doc as usize].as_ref().map_or(avg, |d| d.len);
                let s = bm25(n, avg, df, *tf, len);
                *scores.entry(*doc).or_default() += qw * s;
            }
        }
        let mut hits: Vec<Hit> = scores.into_iter().filter_map(|(doc, score)| self.docs[doc as usize].as_ref().map(|d| Hit { id: d.id.clone(), score })).collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
        hits.truncate(limit);
        hits
    }
}
