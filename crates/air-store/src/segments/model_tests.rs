//! [`MemSegments`] against a naive model over random writes, deletes and
//! merge steps; and the host's figures for 200,000 messages (`--ignored`).

use std::collections::HashMap;

use proptest::prelude::*;

use super::*;
use super::{DocTerms, doc_terms};

/// A document as the model keeps it: (session, time, terms, order).
type Doc = (String, f64, DocTerms, u64);

const WORDS: &[&str] = &["garden", "weather", "tomato", "river", "rust", "kernel", "violin", "博物馆", "花园", "天气", "gardens", "rivers"];

/// What the index should hold: each live document's terms, and the order
/// it was (re)indexed in (the document numbers' order).
#[derive(Default)]
struct Model {
    docs: HashMap<String, Doc>,
    seq: u64,
}

impl Model {
    fn terms(&self, id: &str) -> Option<&DocTerms> {
        self.docs.get(id).map(|d| &d.2)
    }

    fn put(&mut self, d: &IndexDoc<'_>) {
        self.docs.remove(d.id);
        if let Some(t) = d.terms.filter(|t| !t.terms.is_empty()) {
            self.seq += 1;
            self.docs.insert(d.id.to_owned(), (d.session.to_owned(), d.at, t.clone(), self.seq));
        }
    }

    /// A term's entries as (document, session, time, count, length), most recent first.
    fn recent(&self, term: &str, max: usize) -> Vec<(String, String, u64, u32, u32)> {
        let mut list: Vec<(&String, &Doc)> = self.docs.iter().filter(|(_, d)| d.2.terms.contains_key(term)).collect();
        list.sort_by(|a, b| b.1.1.total_cmp(&a.1.1).then_with(|| b.1.3.cmp(&a.1.3)));
        let row = |(id, d): (&String, &Doc)| (id.clone(), d.0.clone(), d.1.to_bits(), quantize(d.2.terms[term]).to_bits(), quantize(d.2.len).to_bits());
        list.into_iter().take(max).map(row).collect()
    }
}

#[derive(Debug, Clone)]
enum Op {
    Live(u8, Vec<u8>, u16),
    Batch(Vec<(u8, Vec<u8>, u16)>),
    Delete(u8),
    Step(usize),
    Sweep(usize),
    Compact,
}

fn text(words: &[u8]) -> String {
    words.iter().map(|w| WORDS[*w as usize % WORDS.len()]).collect::<Vec<_>>().join(" ")
}

/// Times with ties, and now and then a fraction (raw times in a block).
fn time(t: u16) -> f64 {
    if t.is_multiple_of(7) { f64::from(t / 3) + 0.5 } else { f64::from(t / 3) }
}

fn op() -> impl Strategy<Value = Op> {
    let doc = (0u8..30, proptest::collection::vec(0u8..12, 0..6), any::<u16>());
    prop_oneof![
        4 => doc.clone().prop_map(|(id, w, t)| Op::Live(id, w, t)),
        2 => proptest::collection::vec(doc, 1..12).prop_map(Op::Batch),
        2 => (0u8..30).prop_map(Op::Delete),
        3 => (1usize..20).prop_map(Op::Step),
        2 => (1usize..20).prop_map(Op::Sweep),
        1 => Just(Op::Compact),
    ]
}

/// Applies a write to both, as a store does: only documents whose terms
/// change reach the index.
fn apply(index: &mut MemSegments, model: &mut Model, op: &Op) {
    let id = |n: u8| format!("m{n}");
    let session = |n: u8| format!("s{}", n % 4);
    let result = match op {
        Op::Live(n, words, t) => {
            let (id, session, terms) = (id(*n), session(*n), Some(doc_terms(&text(words))).filter(|d| !d.terms.is_empty()));
            let doc = IndexDoc { id: &id, session: &session, at: time(*t), terms: terms.as_ref() };
            if model.terms(&id) == terms.as_ref() {
                return;
            }
            model.put(&doc);
            index.put_live(doc)
        }
        Op::Batch(list) => {
            let owned: Vec<(String, String, f64, Option<DocTerms>)> = list.iter().map(|(n, w, t)| (id(*n), session(*n), time(*t), Some(doc_terms(&text(w))).filter(|d| !d.terms.is_empty()))).collect();
            // The later of a document twice; then only those that change.
            let mut last: HashMap<&str, usize> = HashMap::new();
            owned.iter().enumerate().for_each(|(i, d)| {
                last.insert(&d.0, i);
            });
            let docs: Vec<IndexDoc<'_>> = owned
                .iter()
                .enumerate()
                .filter(|(i, d)| last.get(d.0.as_str()) == Some(i) && model.terms(&d.0) != d.3.as_ref())
                .map(|(_, d)| IndexDoc { id: &d.0, session: &d.1, at: d.2, terms: d.3.as_ref() })
                .collect();
            docs.iter().for_each(|d| model.put(d));
            index.put_batch(&docs)
        }
        Op::Delete(n) => {
            let id = id(*n);
            let was = model.docs.remove(&id).is_some();
            assert_eq!(index.remove(&id), was, "removing {id}");
            Ok(())
        }
        Op::Step(budget) => index.compact_step(*budget).map(|_| ()),
        Op::Sweep(budget) => index.sweep_step(*budget).map(|_| ()),
        Op::Compact => index.compact(),
    };
    assert_eq!(result, Ok(()), "{op:?}");
}

fn check(index: &MemSegments, model: &Model) {
    let mut terms: Vec<String> = WORDS.iter().flat_map(|w| doc_terms(w).terms.into_keys()).collect();
    terms.push("absent".into());
    for term in &terms {
        for max in [1, 3, 1000] {
            let got = index.recent(term, max);
            let Ok(got) = got else { panic!("{term}: {got:?}") };
            let rows: Vec<(String, String, u64, u32, u32)> = got
                .iter()
                .map(|e| {
                    let Some(r) = index.resolve(e.doc) else { panic!("{term}: document {} has no id", e.doc) };
                    (r.doc.to_owned(), r.session.to_owned(), e.at.to_bits(), e.tf.to_bits(), e.len.to_bits())
                })
                .collect();
            assert_eq!(rows, model.recent(term, max), "{term}, at most {max}");
        }
    }
    assert_eq!(index.totals.docs, model.docs.len() as u64);
    let len: f64 = model.docs.values().map(|d| f64::from(d.2.len)).sum();
    assert!((index.totals.total_len - len).abs() < 1e-3, "{} against {len}", index.totals.total_len);
    assert_eq!(index.check(), Ok(()));
}

fn run(layout: Layout, ops: &[Op]) {
    let mut index = MemSegments::new(layout);
    let mut model = Model::default();
    for op in ops {
        apply(&mut index, &mut model, op);
        check(&index, &model);
    }
    assert_eq!(index.compact(), Ok(()));
    check(&index, &model);
    assert!(index.tombstones().is_empty(), "a full pass forgets every tombstone");
    assert!(index.most_segments() <= layout.max_segments.max(layout.fanout), "{} segments under one key", index.most_segments());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn the_index_matches_a_naive_model_with_tiny_sizes(ops in proptest::collection::vec(op(), 1..60)) {
        // Every path taken often: own keys, buckets, seals, merges, passes.
        run(Layout { buckets: 3, own_min: 3, seal_entries: 5, fanout: 2, max_segments: 3, ..Layout::default() }, &ops);
    }

    #[test]
    fn the_index_matches_a_naive_model_with_the_stored_sizes(ops in proptest::collection::vec(op(), 1..60)) {
        run(Layout::default(), &ops);
    }
}

#[test]
fn deleting_a_document_that_was_never_indexed_changes_nothing() {
    let mut index = MemSegments::default();
    assert!(!index.remove("nobody"));
    let terms = doc_terms("rust");
    assert_eq!(index.put_batch(&[IndexDoc { id: "a", session: "s", at: 1.0, terms: Some(&terms) }, IndexDoc { id: "b", session: "s", at: 2.0, terms: None }]), Ok(()));
    assert_eq!(index.totals.docs, 1);
    assert_eq!(index.recent("rust", 10).map(|l| l.len()), Ok(1));
    assert!(index.resolve(1).is_none(), "b was not numbered");
}

/// The bench's messages (`tests/bench/run.mjs`): 12 of 28 words each.
fn bench_texts(n: usize) -> Vec<String> {
    let words = [
        "garden",
        "weather",
        "tomato",
        "river",
        "engine",
        "python",
        "rust",
        "kernel",
        "violin",
        "recipe",
        "bread",
        "planet",
        "orbit",
        "museum",
        "harbor",
        "winter",
        "market",
        "ledger",
        "pixel",
        "canvas",
        "花园",
        "天气",
        "河流",
        "面包",
        "行星",
        "博物馆",
        "港口",
        "冬天",
    ];
    let mut seed: u64 = 7;
    let mut pick = || {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
        words[(seed % words.len() as u64) as usize]
    };
    (0..n).map(|_| (0..12).map(|_| pick()).collect::<Vec<_>>().join(" ")).collect()
}

/// Text closer to real chats: 60 words from a Zipf-like vocabulary of 50,000.
fn zipf_texts(n: usize) -> Vec<String> {
    let mut seed: u64 = 11;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    (0..n)
        .map(|_| {
            (0..60)
                .map(|_| {
                    let u = (next() % 1_000_000) as f64 / 1_000_000.0;
                    zipf_word((50_000f64.powf(u)) as u64)
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// A word of letters only (digits would split it in two terms).
fn zipf_word(mut k: u64) -> String {
    let mut s = String::from("zq");
    loop {
        s.push(char::from(b'a' + (k % 26) as u8));
        k /= 26;
        if k == 0 {
            return s;
        }
    }
}

/// Reads each query term's 20,000 most recent entries, timed; then the
/// query of them all: the terms' entries read, scored (BM25) and the best
/// 50 documents' ids found, as `search::run` would before its IO.
fn reads(name: &str, when: &str, index: &MemSegments, queries: &[&str]) {
    for q in queries {
        let t = std::time::Instant::now();
        let got = index.recent(q, 20_000).map(|l| l.len());
        println!("{name}: read {q} {when}: {got:?} entries in {:?}", t.elapsed());
    }
    let t = std::time::Instant::now();
    let (n, avg) = (index.totals.docs as f32, (index.totals.total_len / index.totals.docs.max(1) as f64) as f32);
    let mut scores: HashMap<DocNo, (f32, f64)> = HashMap::new();
    for q in queries {
        let list = index.recent(q, 20_000).unwrap_or_default();
        let df = list.len() as f32;
        for e in &list {
            scores.entry(e.doc).or_insert((0.0, e.at)).0 += air_search::bm25(n, avg, df, e.tf, e.len);
        }
    }
    let mut hits: Vec<(DocNo, (f32, f64))> = scores.into_iter().collect();
    hits.sort_by(|a, b| b.1.0.total_cmp(&a.1.0).then_with(|| b.1.1.total_cmp(&a.1.1)));
    let found = hits.iter().take(50).filter_map(|(d, _)| index.resolve(*d)).count();
    println!("{name}: query {queries:?} {when}: {found} hits of {} in {:?}", hits.len(), t.elapsed());
}

fn bench(name: &str, texts: &[String], queries: &[&str]) {
    let t = std::time::Instant::now();
    let terms: Vec<DocTerms> = texts.iter().map(|t| doc_terms(t)).collect();
    let tokenize = t.elapsed();
    let ids: Vec<String> = (0..texts.len()).map(|i| format!("bench-{}-{}", i / 20, i % 20)).collect();
    let sessions: Vec<String> = (0..texts.len()).map(|i| format!("bench-{}", i / 20)).collect();
    let mut index = MemSegments::default();
    let t = std::time::Instant::now();
    for (c, chunk) in terms.chunks(500).enumerate() {
        let docs: Vec<IndexDoc<'_>> = chunk.iter().enumerate().map(|(i, t)| IndexDoc { id: &ids[c * 500 + i], session: &sessions[c * 500 + i], at: (c * 500 + i) as f64, terms: Some(t) }).collect();
        assert_eq!(index.put_batch(&docs), Ok(()));
    }
    let build = t.elapsed();
    let written = index.footprint();
    reads(name, "before merging", &index, queries);
    let t = std::time::Instant::now();
    assert_eq!(index.compact(), Ok(()));
    let compact = t.elapsed();
    let merged = index.footprint();
    reads(name, "after merging", &index, queries);
    let postings: usize = terms.iter().map(|t| t.terms.len()).sum();
    let batches = texts.len() as f64 / 500.0;
    println!("{name}: {} messages, {postings} postings; tokenize {tokenize:?}, build and encode segments {build:?}, merge all {compact:?}", texts.len());
    let mb = |b: usize| b as f64 / 1e6;
    println!(
        "{name}: written {} segments ({:.1} a batch of 500) / {:.1} MB and {} document blocks / {:.1} MB",
        written.segments,
        written.segments as f64 / batches,
        mb(written.segment_bytes),
        written.blocks,
        mb(written.block_bytes)
    );
    println!("{name}: merged {} segments / {:.1} MB, {:.2} bytes a posting", merged.segments, mb(merged.segment_bytes), merged.segment_bytes as f64 / postings as f64);
    // The live path: growing segments (buckets) a message's write touches.
    let layout = Layout::default();
    let touched: usize = terms.iter().take(10_000).map(|t| live_entries(&layout, 0, 0.0, t).len()).sum();
    let t = std::time::Instant::now();
    let mut live = MemSegments::default();
    for (i, terms) in terms.iter().take(10_000).enumerate() {
        assert_eq!(live.put_live(IndexDoc { id: &ids[i], session: &sessions[i], at: i as f64, terms: Some(terms) }), Ok(()));
    }
    println!("{name}: live writes: {:.1} growing segments a message; 10,000 messages one by one {:?}", touched as f64 / 10_000.0, t.elapsed());
}

#[test]
#[ignore = "a benchmark: cargo test -p air-store segments -- --ignored --nocapture"]
fn bench_200k_messages() {
    bench("bench corpus", &bench_texts(200_000), &["博物", "物馆", "garden"]);
    let (common, rare) = (zipf_word(3), zipf_word(20_000));
    bench("zipf corpus", &zipf_texts(200_000), &[&common, &rare]);
}
