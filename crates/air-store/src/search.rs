//! Full-text search over every message and session title, as an inverted
//! index the store keeps beside them ([`crate::segments`]: posting lists
//! in batched segments), updated in the same transaction as the message
//! it describes, so every tab's writes are indexed as they happen.
//!
//! This module is the index's logic without IO: what a document
//! contributes ([`doc_terms`], with `air-search`'s tokenizer: English words
//! stemmed, Chinese as character pairs), how the query's entries are
//! ranked (BM25, rare terms first, [`rank`]) and the highlighted snippet
//! of a hit ([`snippet`]).

use std::collections::BTreeMap;

use futures_util::future::try_join_all;

use serde::{Deserialize, Serialize};

use crate::segments::{DocNo, Entry};
use crate::{MessageRecord, SessionRecord};

/// The index format. A stored index of another format, or one that
/// cannot be read, is rebuilt.
pub const INDEX_VERSION: u32 = 2;

/// Postings read per query term at most: a term in more documents than
/// this says little about which document is meant, and only its most
/// recent documents are read.
pub const MAX_POSTINGS: usize = 20_000;

/// The id under which a session's title is indexed.
pub fn title_doc(session_id: &str) -> String {
    format!("title:{session_id}")
}

/// A document id is a title's ([`title_doc`]), not a message's.
pub fn is_title_doc(doc: &str) -> bool {
    doc.starts_with("title:")
}

pub use crate::segments::DocTerms;

pub use crate::segments::doc_terms;

/// The terms of a message, if it is indexed: finished messages with text
/// (an answer still streaming is indexed once it is saved complete).
pub fn message_terms(m: &MessageRecord) -> Option<DocTerms> {
    text_terms(&searched_text(m), m.incomplete)
}

/// What of a message is searched (and shown around a hit): its text, and
/// for a tool's result the arguments it was called with (the code a
/// model ran) after it.
pub fn searched_text(m: &MessageRecord) -> std::borrow::Cow<'_, str> {
    with_arguments(&m.content, m.tool.as_ref().map(|t| t.arguments.as_str()))
}

/// [`searched_text`] of a message's text and its tool's arguments.
pub fn with_arguments<'a>(content: &'a str, arguments: Option<&str>) -> std::borrow::Cow<'a, str> {
    match arguments.map(str::trim).filter(|a| !a.is_empty() && *a != "{}") {
        // The code is read as the model wrote it, not as JSON escapes.
        Some(args) => {
            let code = code_argument(args).unwrap_or_else(|| args.to_owned());
            std::borrow::Cow::Owned(format!("{content}\n{code}"))
        }
        None => std::borrow::Cow::Borrowed(content),
    }
}

/// The `code` argument of a call, if it has one as a string.
fn code_argument(args: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(args).ok()?;
    Some(v.get("code")?.as_str()?.to_owned())
}

/// [`message_terms`] of a message's text (a rebuild reads only that).
pub fn text_terms(content: &str, incomplete: bool) -> Option<DocTerms> {
    if incomplete || content.trim().is_empty() {
        return None;
    }
    Some(doc_terms(content)).filter(|d| !d.terms.is_empty())
}

/// The terms of a session's title.
pub fn title_terms(s: &SessionRecord) -> Option<DocTerms> {
    title_text_terms(&s.title)
}

/// [`title_terms`] of a title's text.
pub fn title_text_terms(title: &str) -> Option<DocTerms> {
    Some(doc_terms(title)).filter(|d| !d.terms.is_empty())
}

/// Where a rebuild has got to: the titles are done, and the last
/// message id indexed (the messages after it are read later; a write to
/// one of them meanwhile is left for the rebuild to index).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RebuildCursor {
    pub titles_done: bool,
    pub after: Option<String>,
}

impl RebuildCursor {
    /// The rebuild has read this message (or title) already, so a write
    /// to it must be indexed now.
    pub fn passed(&self, doc: &str) -> bool {
        // IndexedDB's order of keys: by UTF-16 code units.
        let read = |id: &str| self.after.as_deref().is_some_and(|after| id.encode_utf16().cmp(after.encode_utf16()).is_le());
        match (doc.strip_prefix("title:"), self.titles_done) {
            (Some(_), true) => true,
            (Some(session), false) => read(session),
            (None, false) => false,
            (None, true) => read(doc),
        }
    }
}

/// What the index holds in total, kept with it, and its counters
/// ([`crate::segments`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct IndexStats {
    pub version: u32,
    pub docs: u64,
    pub total_len: f64,
    /// Every stored message is in the index (false while it is rebuilt).
    pub complete: bool,
    /// The next document number to give.
    pub next_doc: u32,
    /// The next sealed segment id to give.
    pub next_seg: u32,
    /// A rebuild under way.
    pub rebuild: Option<RebuildCursor>,
    /// Keys have segments that may need merging ([`crate::Store::compact_index`]).
    pub merge_pending: bool,
}

impl Default for IndexStats {
    fn default() -> Self {
        Self { version: INDEX_VERSION, docs: 0, total_len: 0.0, complete: true, next_doc: 0, next_seg: crate::segments::TAIL + 1, rebuild: None, merge_pending: false }
    }
}

impl IndexStats {
    /// The stored stats can be trusted (this format, consistent numbers).
    pub fn usable(&self) -> bool {
        self.version == INDEX_VERSION && self.total_len.is_finite() && self.total_len >= 0.0 && self.next_seg > crate::segments::TAIL
    }

    /// A write to `doc` is indexed now (not left to a rebuild under way).
    pub fn indexes(&self, doc: &str) -> bool {
        self.rebuild.as_ref().is_none_or(|c| c.passed(doc))
    }

    /// A new segment id.
    pub fn new_seg(&mut self) -> crate::segments::Result<crate::segments::SegId> {
        let id = self.next_seg;
        self.next_seg = id.checked_add(1).ok_or(crate::segments::Malformed("segment numbers used up"))?;
        Ok(id)
    }
}

/// The query's terms, each once with its weight.
pub fn query_terms(query: &str) -> Vec<(String, f32)> {
    let mut terms: BTreeMap<String, f32> = BTreeMap::new();
    for t in air_search::tokenize(query) {
        let w = terms.entry(t.text).or_default();
        *w = w.max(t.weight);
    }
    terms.into_iter().collect()
}

/// A ranked document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub doc: DocNo,
    pub score: f32,
    /// How many of the query's terms it has.
    pub matched: usize,
}

/// Hashes document numbers for [`rank`]'s tally (tens of thousands a
/// query): one multiplication, not SipHash (the numbers are ours, not an
/// attacker's).
#[derive(Default, Clone, Copy)]
struct BuildDocHasher;

#[derive(Default)]
struct DocHasher(u64);

impl std::hash::Hasher for DocHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl std::hash::BuildHasher for BuildDocHasher {
    type Hasher = DocHasher;
    fn build_hasher(&self) -> DocHasher {
        DocHasher::default()
    }
}

/// Ranks the documents in the entries of the query's terms with BM25:
/// documents with more of the query's terms first, then by score, then by
/// recency (then the later indexed). `postings` holds, per query term,
/// what the index has for it.
pub fn rank(query: &[(String, f32)], postings: &BTreeMap<String, Vec<Entry>>, stats: &IndexStats, limit: usize) -> Vec<Hit> {
    let n = (stats.docs as f32).max(1.0);
    let avg = if stats.docs == 0 { 1.0 } else { (stats.total_len / stats.docs as f64).max(1e-6) as f32 };
    // Word terms must all match when there are several (a phrase-like
    // search); single CJK characters only add to the score.
    let required = query.iter().filter(|(_, w)| *w >= 1.0).count();
    let mut scores: std::collections::HashMap<DocNo, (f32, usize, f64), BuildDocHasher> = std::collections::HashMap::default();
    for (term, qw) in query {
        let Some(list) = postings.get(term) else { continue };
        let df = list.len() as f32;
        scores.reserve(list.len());
        for p in list {
            let s = qw * air_search::bm25(n, avg, df, p.tf, p.len);
            let e = scores.entry(p.doc).or_insert((0.0, 0, p.at));
            e.0 += s;
            if *qw >= 1.0 {
                e.1 += 1;
            }
        }
    }
    let mut hits: Vec<(Hit, f64)> =
        scores.into_iter().filter(|(_, (_, matched, _))| required == 0 || *matched == required).map(|(doc, (score, matched, at))| (Hit { doc, score, matched }, at)).collect();
    hits.sort_by(|(a, at_a), (b, at_b)| b.score.total_cmp(&a.score).then_with(|| at_b.total_cmp(at_a)).then_with(|| b.doc.cmp(&a.doc)));
    hits.truncate(limit);
    hits.into_iter().map(|(h, _)| h).collect()
}

/// One search result: a message (or a session's title) and its snippet.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    pub session_id: String,
    /// The session's title.
    pub title: String,
    /// The matching message (`None`: the session's title matched).
    pub message_id: Option<String>,
    /// Its `seq`, to open the session there.
    pub seq: Option<f64>,
    pub snippet: Vec<(String, bool)>,
    pub score: f32,
}

/// What a search found, and whether the index was whole.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SearchResults {
    pub hits: Vec<SearchHit>,
    /// The index is being rebuilt: some messages may be missing.
    pub partial: bool,
    /// As many documents ranked as were asked for: there may be more
    /// (whatever of them was removed meanwhile, and left out).
    pub more: bool,
}

/// Searches the index of `store` for `query`: the best `limit` messages
/// and titles, with snippets.
pub async fn run<S: crate::Store>(store: &S, query: &str, limit: usize) -> crate::Result<SearchResults> {
    let terms = query_terms(query);
    if terms.is_empty() {
        return Ok(SearchResults::default());
    }
    // With words or character pairs to match, single Chinese characters
    // would only add to the score of documents that have those anyway;
    // they are the most common terms of all, so their entries are not read.
    let words = terms.iter().any(|(_, w)| *w >= 1.0);
    // Each term's entries are read at once (IndexedDB answers one request
    // while the page decodes another's), then each hit's session and
    // message.
    let read: Vec<&String> = terms.iter().filter(|(_, w)| !words || *w >= 1.0).map(|(t, _)| t).collect();
    // The totals with them: IndexedDB answers the requests together.
    let read_all = || futures_util::future::try_join(store.index_stats(), try_join_all(read.iter().map(|t| store.postings(t, MAX_POSTINGS))));
    // Titles waiting to be indexed are looked for meanwhile (there are
    // seldom any); when some were indexed, the index is read again.
    let (indexed, (stats, lists)) = futures_util::future::try_join(store.index_pending(), read_all()).await?;
    let (stats, lists) = if indexed { read_all().await? } else { (stats, lists) };
    let stats = stats.unwrap_or_default();
    let postings: BTreeMap<String, Vec<Entry>> = read.into_iter().cloned().zip(lists).collect();
    let ranked = rank(&terms, &postings, &stats, limit);
    let more = ranked.len() >= limit;
    // The best hits' ids and sessions (one removed meanwhile: not a hit),
    // with their sessions and messages.
    let (refs, read) = store.index_hits(&ranked.iter().map(|h| h.doc).collect::<Vec<_>>()).await?;
    let ranked: Vec<(String, String, f32)> = ranked.iter().zip(refs).filter_map(|(h, r)| r.map(|(doc, session)| (doc, session, h.score))).collect();
    // A session deleted meanwhile is not a result (nor its messages).
    let titles: BTreeMap<&str, &str> = read.sessions.iter().map(|s| (s.id.as_str(), s.title.as_str())).collect();
    let by_id: BTreeMap<&str, &MessageRecord> = read.messages.iter().map(|m| (m.id.as_str(), m)).collect();
    let mut hits = Vec::new();
    for (doc, session, score) in &ranked {
        let Some(title) = titles.get(session.as_str()) else { continue };
        if is_title_doc(doc) {
            hits.push(SearchHit { session_id: session.clone(), snippet: snippet(title, query, 120), title: (*title).to_owned(), message_id: None, seq: None, score: *score });
        } else if let Some(m) = by_id.get(doc.as_str()) {
            hits.push(SearchHit {
                session_id: m.session_id.clone(),
                title: (*title).to_owned(),
                message_id: Some(m.id.clone()),
                seq: Some(m.seq),
                snippet: snippet(&searched_text(m), query, 120),
                score: *score,
            });
        }
    }
    Ok(SearchResults { hits, partial: !stats.complete, more })
}

/// The sessions and messages that hits found by number name (each
/// session once; a title names no message).
pub fn hit_ids(refs: &[Option<(String, String)>]) -> crate::batch::Ids {
    let found = refs.iter().flatten();
    let sessions = found.clone().map(|(_, s)| s.clone()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    let messages = found.filter(|(doc, _)| !is_title_doc(doc)).map(|(doc, _)| doc.clone()).collect();
    crate::batch::Ids { sessions, messages, files: Vec::new() }
}

/// Part of `text` around the first place the query matches, as pieces,
/// the matching ones marked `true`: words of the query (as typed, or the
/// stem they share) and runs of its Chinese characters. At most `width`
/// characters, with "…" where the text was cut.
pub fn snippet(text: &str, query: &str, width: usize) -> Vec<(String, bool)> {
    let chars: Vec<char> = text.chars().collect();
    let lower: Vec<char> = text.to_lowercase().chars().collect();
    // Lower-casing may change the length (rare): then nothing is marked.
    let marks = if lower.len() == chars.len() { match_marks(&lower, query) } else { vec![false; chars.len()] };
    let first = marks.iter().position(|m| *m).unwrap_or(0);
    let start = first.saturating_sub(width / 3);
    let end = (start + width).min(chars.len());
    let start = end.saturating_sub(width).min(start);
    let mut out: Vec<(String, bool)> = Vec::new();
    if start > 0 {
        out.push(("…".into(), false));
    }
    for i in start..end {
        let c = if chars[i] == '\n' { ' ' } else { chars[i] };
        match out.last_mut() {
            Some((s, m)) if *m == marks[i] && !(s == "…" && !*m && i == start) => s.push(c),
            _ => out.push((c.to_string(), marks[i])),
        }
    }
    if end < chars.len() {
        out.push(("…".into(), false));
    }
    out
}

/// Which characters of `lower` (a lower-cased text) match the query.
fn match_marks(lower: &[char], query: &str) -> Vec<bool> {
    let mut marks = vec![false; lower.len()];
    let mut needles: Vec<Vec<char>> = Vec::new();
    let mut word = String::new();
    let push_word = |w: &mut String, needles: &mut Vec<Vec<char>>| {
        if !w.is_empty() {
            // "searching" also marks "search…"; short words only whole.
            let stemmed: String = if w.chars().count() > 4 { w.chars().take(w.chars().count().max(5) - 2).collect() } else { w.clone() };
            needles.push(stemmed.chars().collect());
            w.clear();
        }
    };
    for c in query.to_lowercase().chars() {
        if c.is_alphanumeric() && !is_cjk(c) {
            word.push(c);
        } else {
            push_word(&mut word, &mut needles);
            if is_cjk(c) {
                needles.push(vec![c]);
            }
        }
    }
    push_word(&mut word, &mut needles);
    for needle in needles.iter().filter(|n| !n.is_empty()) {
        let word_like = needle.iter().all(|c| !is_cjk(*c));
        let mut i = 0;
        while i + needle.len() <= lower.len() {
            // Words match at a word's start; Chinese anywhere.
            let at_start = !word_like || i == 0 || !lower[i - 1].is_alphanumeric();
            if at_start && lower[i..i + needle.len()] == needle[..] {
                let mut j = i + needle.len();
                if word_like {
                    // The rest of the word goes with it ("search" → "searching").
                    while j < lower.len() && lower[j].is_alphanumeric() && !is_cjk(lower[j]) {
                        j += 1;
                    }
                }
                marks[i..j].iter_mut().for_each(|m| *m = true);
                i = j;
            } else {
                i += 1;
            }
        }
    }
    marks
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(doc: DocNo, text: &str, term: &str, at: f64) -> Entry {
        let d = doc_terms(text);
        Entry::new(doc, at, d.terms[term], d.len)
    }

    #[test]
    fn streaming_and_empty_messages_are_not_indexed() {
        let mut m = MessageRecord::new("m1", "s1", 1.0, air_chat::Role::Assistant, "Half an answer");
        m.incomplete = true;
        assert_eq!(message_terms(&m), None);
        m.incomplete = false;
        assert!(message_terms(&m).is_some());
        m.content = "  ".into();
        assert_eq!(message_terms(&m), None);
    }

    #[test]
    fn a_tools_result_is_found_by_its_output_and_by_the_code_it_ran() {
        let mut m = MessageRecord::new("t1", "s1", 1.0, air_chat::Role::Tool, "stdout:\nmean 4.0");
        let run = |arguments: &str| crate::records::ToolRun {
            name: "run_python".into(),
            server: None,
            arguments: arguments.into(),
            status: crate::records::ToolStatus::Done,
            output: Vec::new(),
            structured: None,
            started_at: None,
            duration_ms: None,
            full_chars: None,
            imported: false,
            http: false,
        };
        m.tool = Some(run(r#"{"code": "import statistics\nstatistics.fmean(vals)"}"#));
        assert_eq!(searched_text(&m), "stdout:\nmean 4.0\nimport statistics\nstatistics.fmean(vals)", "the code as written, not as JSON");
        let terms = message_terms(&m).map(|d| d.terms).unwrap_or_default();
        assert!(terms.contains_key("mean") && terms.contains_key("statistic"), "{terms:?}");
        // Another tool's arguments are searched as they are; none add nothing.
        m.tool = Some(run(r#"{"expression": "23*17"}"#));
        assert!(searched_text(&m).ends_with(r#"{"expression": "23*17"}"#));
        m.tool = Some(run("{}"));
        assert_eq!(searched_text(&m), "stdout:\nmean 4.0");
    }

    #[test]
    fn ranking_needs_every_word_and_prefers_the_better_match() {
        let stats = IndexStats { docs: 3, total_len: 12.0, ..IndexStats::default() };
        let q = query_terms("rust lifetimes");
        let mut postings = BTreeMap::new();
        postings.insert("rust".to_owned(), vec![entry(1, "rust lifetimes explained", "rust", 1.0), entry(2, "rust only here", "rust", 2.0), entry(3, "rust lifetimes rust lifetimes", "rust", 3.0)]);
        postings.insert("lifetim".to_owned(), vec![entry(1, "rust lifetimes explained", "lifetim", 1.0), entry(3, "rust lifetimes rust lifetimes", "lifetim", 3.0)]);
        let hits = rank(&q, &postings, &stats, 10);
        let docs: Vec<DocNo> = hits.iter().map(|h| h.doc).collect();
        assert_eq!(docs, vec![3, 1], "2 lacks a word; 3 says it twice");
        assert_eq!(rank(&q, &postings, &stats, 1).len(), 1);
        assert_eq!(rank(&query_terms("nothing"), &postings, &stats, 10), vec![]);
    }

    #[test]
    fn chinese_queries_match_by_character_pairs() {
        let text = "我们明天去北京看长城";
        let d = doc_terms(text);
        let q = query_terms("北京");
        assert!(q.iter().any(|(t, w)| t == "北京" && *w >= 1.0), "{q:?}");
        let stats = IndexStats { docs: 1, total_len: f64::from(d.len), ..IndexStats::default() };
        let mut postings = BTreeMap::new();
        for (term, _) in &q {
            if let Some(tf) = d.terms.get(term) {
                postings.insert(term.clone(), vec![Entry::new(0, 0.0, *tf, d.len)]);
            }
        }
        assert_eq!(rank(&q, &postings, &stats, 5).len(), 1);
        let marked: Vec<String> = snippet(text, "北京", 40).into_iter().filter(|(_, m)| *m).map(|(s, _)| s).collect();
        assert_eq!(marked, vec!["北京".to_owned()]);
    }

    #[test]
    fn a_snippet_shows_the_match_in_context_marked() {
        let text = format!("{}The answer mentions searching the archive.{}", "x ".repeat(100), " y".repeat(100));
        let pieces = snippet(&text, "search", 60);
        assert_eq!(pieces.first().map(|(s, _)| s.as_str()), Some("…"));
        assert_eq!(pieces.last().map(|(s, _)| s.as_str()), Some("…"));
        let marked: Vec<&str> = pieces.iter().filter(|(_, m)| *m).map(|(s, _)| s.as_str()).collect();
        assert_eq!(marked, vec!["searching"]);
        let shown: usize = pieces.iter().map(|(s, _)| s.chars().count()).sum();
        assert!(shown <= 62, "{shown}");
        // Words match at their start only, and case does not matter.
        let p = snippet("Research and SEARCH", "search", 40);
        let marked: Vec<&str> = p.iter().filter(|(_, m)| *m).map(|(s, _)| s.as_str()).collect();
        assert_eq!(marked, vec!["SEARCH"]);
        // Markup in a message is just text.
        let p = snippet("<b>search</b>", "search", 40);
        assert_eq!(p.iter().map(|(s, _)| s.as_str()).collect::<String>(), "<b>search</b>");
    }
}
