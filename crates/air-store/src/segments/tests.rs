use std::collections::BTreeMap;

use proptest::prelude::*;

use super::doc_terms;
use super::wire::{Reader, put_varint, put_weight};
use super::*;

fn e(doc: DocNo, at: f64) -> Entry {
    Entry { doc, at, tf: 1.0, len: 4.0 }
}

fn seg(lists: &[(&str, Vec<Entry>)]) -> Vec<u8> {
    Segment::from_lists(lists.iter().map(|(t, l)| ((*t).to_owned(), l.clone())).collect()).encode()
}

fn docs(list: &[Entry]) -> Vec<DocNo> {
    list.iter().map(|e| e.doc).collect()
}

fn bits(list: &[Entry]) -> Vec<(DocNo, u64, u32, u32)> {
    list.iter().map(|e| (e.doc, e.at.to_bits(), e.tf.to_bits(), e.len.to_bits())).collect()
}

#[test]
fn varints_round_trip_and_refuse_overflow_and_cuts() {
    for v in [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX - 1, u64::MAX] {
        let mut out = Vec::new();
        put_varint(&mut out, v);
        assert_eq!(Reader::new(&out).varint(), Ok(v));
        assert!(Reader::new(&out[..out.len() - 1]).varint().is_err(), "cut: {v}");
    }
    assert!(Reader::new(&[0xff; 10]).varint().is_err(), "eleven groups");
    assert!(Reader::new(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]).varint().is_err(), "past 64 bits");
    assert!(Reader::new(&[]).byte().is_err());
    assert!(Reader::new(&[1, 2]).take(usize::MAX).is_err(), "a length that overflows is an error");
}

#[test]
fn weights_round_trip_exactly_and_the_tokenizers_take_a_byte_or_two() {
    let cases = [0.0f32, -0.0, 0.4, 1.0, 1.2, 2.8, 0.1, 1e-40, -1.0, 3e9, f32::INFINITY, f32::NAN, 107.0, 1234.6];
    for x in cases {
        let mut out = Vec::new();
        put_weight(&mut out, x);
        let back = Reader::new(&out).weight();
        assert_eq!(back.map(f32::to_bits), Ok(x.to_bits()), "{x}");
    }
    let size = |x: f32| {
        let mut out = Vec::new();
        put_weight(&mut out, x);
        out.len()
    };
    assert_eq!((size(1.0), size(0.4), size(2.8), size(3.2)), (1, 1, 1, 2));
    assert_eq!(size(300.4), 2, "a long message's length");
    assert_eq!(size(-0.0), 5, "not a twentieth: raw");
    // An odd tag other than 1 is not a weight.
    assert!(Reader::new(&[3]).weight().is_err());
}

#[test]
fn entries_keep_weights_to_the_twentieth() {
    let sum = [1.0f32, 0.4, 0.4, 1.0, 0.4, 1.0, 0.4, 0.4].iter().sum::<f32>();
    let q = Entry::new(1, 0.0, sum, 1e12).tf;
    assert_eq!(q, 5.0);
    let mut out = Vec::new();
    put_weight(&mut out, q);
    assert_eq!(out.len(), 2, "not five");
    assert_eq!((quantize(1e12), quantize(-1.0), quantize(0.31)), (1e12, -1.0, 0.3), "out of range: unchanged");
    assert!(quantize(f32::NAN).is_nan());
}

proptest! {
    #[test]
    fn any_weight_round_trips(b in any::<u32>()) {
        let x = f32::from_bits(b);
        let mut out = Vec::new();
        put_weight(&mut out, x);
        prop_assert_eq!(Reader::new(&out).weight().map(f32::to_bits), Ok(b));
    }

    #[test]
    fn segments_round_trip(lists in lists_strategy()) {
        let s = Segment::from_lists(lists);
        let bytes = s.encode();
        let back = Segment::decode(&bytes);
        prop_assert!(back.is_ok(), "{:?}", back);
        let back = back.unwrap_or_default();
        for ((t1, l1), (t2, l2)) in s.lists().iter().zip(back.lists()) {
            prop_assert_eq!(t1, t2);
            prop_assert_eq!(bits(l1), bits(l2));
        }
        prop_assert_eq!(s.lists().len(), back.lists().len());
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200), lead in 0u8..3) {
        let mut bytes = bytes;
        if let Some(b) = bytes.first_mut() { *b = lead; }
        let _ = Segment::decode(&bytes);
        let _ = recent("a", &[&bytes], |_| false, 10);
        let _ = Tombstones::decode(&bytes);
        let _ = count_dead(&bytes, |_| true);
        if let Ok(m) = Merge::new(&Layout::default(), Key::Bucket(0), vec![bytes.clone()], Tombstones::default()) {
            let _ = m.finish();
        }
        let _ = tail_append(&Layout::default(), Some(&bytes), &[("a".into(), e(1, 1.0))], |_| false);
    }
}

/// Lists of a few terms (Chinese too), times integral or not, repeated or not.
fn lists_strategy() -> impl Strategy<Value = BTreeMap<String, Vec<Entry>>> {
    let entry = (0u32..50, 0u32..40, any::<bool>(), 0u32..100, 1u32..400).prop_map(|(doc, at, frac, tf, len)| Entry {
        doc: doc * 1000,
        at: if frac { f64::from(at) + 0.25 } else { 1.7e12 + f64::from(at) * 1000.0 },
        tf: tf as f32 / 5.0,
        len: len as f32 * 0.4,
    });
    let term = prop_oneof![Just("rust".to_owned()), Just("river".to_owned()), Just("博物".to_owned()), "[a-z]{1,6}"];
    proptest::collection::btree_map(term, proptest::collection::vec(entry, 0..30), 0..6)
}

#[test]
fn integer_times_take_a_few_bytes_an_entry() {
    let list: Vec<Entry> = (0..1000).map(|i| Entry { doc: i, at: 1.7e12 + f64::from(i) * 60_000.0, tf: 1.0, len: 12.0 }).collect();
    let bytes = seg(&[("garden", list.clone())]);
    assert!(bytes.len() < 1000 * 8, "{} bytes", bytes.len());
    let mut frac = list;
    frac[3].at += 0.5;
    let raw = seg(&[("garden", frac)]);
    assert!(raw.len() > 1000 * 8, "raw times: {}", raw.len());
    assert_eq!(Segment::decode(&raw).map(|s| s.entries()), Ok(1000));
}

#[test]
fn every_cut_and_every_changed_byte_is_an_error_or_readable_never_a_panic() {
    let bytes = seg(&[("river", (0..20).map(|i| e(i, f64::from(i * 7))).collect()), ("花园", vec![e(3, -5.0), e(9, 0.5)])]);
    for cut in 0..bytes.len() {
        assert!(Segment::decode(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    for i in 0..bytes.len() {
        for v in [0u8, 1, 0x7f, 0x80, 0xff, bytes[i].wrapping_add(1)] {
            let mut b = bytes.clone();
            b[i] = v;
            if let Ok(s) = Segment::decode(&b) {
                assert_eq!(Segment::decode(&s.encode()).as_ref(), Ok(&s), "what reads back writes back");
            }
            let _ = recent("river", &[&b], |_| false, 100);
        }
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Segment::decode(&longer).is_err(), "bytes after the last block");
}

#[test]
fn malformed_segments_say_why() {
    let mut out = vec![9];
    assert_eq!(Segment::decode(&out), Err(Malformed("unknown segment format")));
    // A count far beyond the bytes is refused before anything is allocated.
    out = vec![1, 1, 1, b'a'];
    put_varint(&mut out, u64::MAX >> 2);
    put_varint(&mut out, 5);
    assert!(Segment::decode(&out).is_err());
    // Terms out of order.
    let b = seg(&[("b", vec![e(1, 1.0)])]);
    let a = seg(&[("a", vec![e(1, 1.0)])]);
    let mut swapped = vec![1, 2];
    swapped.extend_from_slice(&b[2..6]);
    swapped.extend_from_slice(&a[2..6]);
    swapped.extend_from_slice(&b[6..]);
    swapped.extend_from_slice(&a[6..]);
    assert_eq!(Segment::decode(&swapped), Err(Malformed("terms out of order")));
    // Entries out of order: the same document twice at one time.
    let mut w = BlockWriter::new(false);
    assert_eq!(w.push(&e(5, 10.0)), Ok(()));
    let mut block = w.finish().1;
    let weights = block[3..].to_vec();
    block.extend_from_slice(&[0, 0]);
    block.extend_from_slice(&weights);
    let twice = assemble(&[("a", 2, &block)]);
    assert_eq!(Segment::decode(&twice), Err(Malformed("entries out of order")));
    // A document number past u32.
    let mut big = vec![0u8];
    put_varint(&mut big, super::wire::zigzag(i64::from(u32::MAX) + 1));
    big.extend_from_slice(&[0, 20, 20]);
    assert_eq!(Segment::decode(&assemble(&[("a", 1, &big)])), Err(Malformed("document out of range")));
    // Unknown block flags.
    assert_eq!(Segment::decode(&assemble(&[("a", 1, &[4, 0, 0, 20, 20])])), Err(Malformed("unknown block flags")));
}

#[test]
fn a_writer_refuses_what_it_cannot_write() {
    let mut w = BlockWriter::new(false);
    assert_eq!(w.push(&e(1, 10.5)), Err(Malformed("a fractional time in an integer block")));
    assert_eq!(w.push(&e(1, 10.0)), Ok(()));
    assert_eq!(w.push(&e(2, 11.0)), Err(Malformed("entries out of order")), "older after newer only");
    assert_eq!(w.push(&e(0, 10.0)), Ok(()), "a tie: the lower document after");
    assert_eq!(w.count(), 2);
}

#[test]
fn the_most_recent_entries_across_segments_without_the_dead() {
    let a = seg(&[("rust", vec![e(1, 10.0), e(4, 40.0), e(6, 60.0)]), ("zebra", vec![e(1, 10.0)])]);
    let b = seg(&[("rust", vec![e(2, 20.0), e(3, 30.0), e(5, 40.0)])]);
    let c = seg(&[("other", vec![e(7, 70.0)])]);
    let all = recent("rust", &[&a, &b, &c], |_| false, 100);
    assert_eq!(all.as_deref().map(docs), Ok(vec![6, 5, 4, 3, 2, 1]), "a tie at 40: the later document first");
    assert_eq!(recent("rust", &[&a, &b, &c], |_| false, 2).as_deref().map(docs), Ok(vec![6, 5]));
    assert_eq!(recent("rust", &[&a, &b], |d| d % 2 == 0, 2).as_deref().map(docs), Ok(vec![5, 3]), "the dead do not count");
    assert_eq!(recent("nothing", &[&a, &b], |_| false, 5), Ok(vec![]));
    assert_eq!(recent("rust", &[&a], |_| false, 0), Ok(vec![]));
    // A document in two segments (never written so) comes once.
    assert_eq!(recent("rust", &[&a, &a], |_| false, 10).as_deref().map(docs), Ok(vec![6, 4, 1]));
    assert!(recent("rust", &[&a, &[1, 1]], |_| false, 10).is_err(), "one unreadable segment: the term cannot be trusted");
}

#[test]
fn a_batch_makes_one_segment_per_key_big_terms_on_their_own() {
    let layout = Layout { buckets: 4, own_min: 3, ..Layout::default() };
    let texts = ["garden weather", "garden river", "garden 博物馆", "river"];
    let terms: Vec<_> = texts.iter().map(|t| doc_terms(t)).collect();
    let segs = build(&layout, terms.iter().enumerate().map(|(i, t)| BatchDoc { doc: i as DocNo + 10, at: i as f64, terms: t }));
    let keys: Vec<&Key> = segs.iter().map(|(k, _)| k).collect();
    assert!(keys.contains(&&Key::Term("garden".into())), "{keys:?}");
    assert!(!keys.contains(&&Key::Term("river".into())), "two entries share a bucket");
    let mut sorted = keys.clone();
    sorted.dedup();
    assert_eq!(sorted.len(), keys.len(), "one segment per key");
    let total: usize = segs.iter().map(|(_, s)| s.entries()).sum();
    assert_eq!(total, terms.iter().map(|t| t.terms.len()).sum::<usize>(), "every entry once");
    let garden = segs.iter().find(|(k, _)| *k == Key::Term("garden".into())).map(|(_, s)| docs(&s.lists()["garden"]));
    assert_eq!(garden, Some(vec![12, 11, 10]));
    for (k, s) in &segs {
        if let Key::Bucket(b) = k {
            assert!(s.lists().keys().all(|t| layout.bucket(t) == *b));
        }
    }
}

#[test]
fn a_growing_segment_is_sealed_when_full_without_its_dead() {
    let layout = Layout { buckets: 1, own_min: 3, seal_entries: 6, ..Layout::default() };
    let mut tail: Option<Vec<u8>> = None;
    for i in 0..5u32 {
        let term = if i < 3 { "rust" } else { "tea" };
        let out = tail_append(&layout, tail.as_deref(), &[(term.into(), e(i, f64::from(i)))], |_| false);
        assert!(out.as_ref().is_ok_and(|o| o.sealed.is_empty() && o.tail.is_some()), "{out:?}");
        tail = out.ok().and_then(|o| o.tail);
    }
    let out = tail_append(&layout, tail.as_deref(), &[("tea".into(), e(5, 5.0))], |d| d == 4);
    let Ok(TailOutcome { tail: None, sealed }) = out else { panic!("sealed: {out:?}") };
    let keys: Vec<&Key> = sealed.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, [&Key::Bucket(0), &Key::Term("rust".into())]);
    let tea = sealed.first().map(|(_, b)| Segment::decode(b).map(|s| docs(&s.lists()["tea"])));
    assert_eq!(tea, Some(Ok(vec![5, 3])), "document 4 was dead");
}

#[test]
fn tiers_decide_what_merges() {
    let layout = Layout { fanout: 4, max_segments: 6, ..Layout::default() };
    let info = |id: SegId, entries: usize| SegInfo { id, entries, bytes: entries * 5 };
    assert_eq!(plan(&layout, &[info(1, 10)]), None);
    assert_eq!(plan(&layout, &[info(1, 5), info(2, 6), info(3, 7)]), None, "three of a tier");
    assert_eq!(plan(&layout, &[info(1, 5), info(2, 6), info(3, 7), info(4, 200), info(5, 4)]), Some(vec![5, 1, 2, 3]));
    assert_eq!(plan(&layout, &[info(TAIL, 5), info(2, 6), info(3, 7), info(4, 4)]), None, "the growing one is not merged");
    let spread = [info(1, 1), info(2, 5), info(3, 20), info(4, 70), info(5, 300), info(6, 1100), info(7, 5000), info(8, 20000)];
    assert_eq!(plan(&layout, &spread), Some(vec![1, 2]), "past the most segments: the smallest (8 is full)");
    let many: Vec<SegInfo> = (1..100).map(|i| info(i, 20)).collect();
    assert_eq!(plan(&layout, &many).map(|ids| ids.len()), Some(16), "a bounded merge");
    // Never more than the most bytes a merge may make; full ones stay.
    let big: Vec<SegInfo> = (1..20).map(|i| info(i, 2_000)).collect();
    assert_eq!(plan(&layout, &big).map(|ids| ids.len()), Some(5), "5 of 10,000 bytes fit in 56 KiB");
    let full: Vec<SegInfo> = (1..40).map(|i| info(i, 6_000)).collect();
    assert_eq!(plan(&layout, &full), None, "30,000 bytes each: full");
}

fn merged(layout: &Layout, key: Key, inputs: &[Vec<u8>], dead: &Tombstones, budget: usize) -> (Vec<(Key, Vec<u8>)>, usize) {
    let mut m = match Merge::new(layout, key, inputs.to_vec(), dead.clone()) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    };
    let mut steps = 0;
    loop {
        let before = m.read();
        let p = m.step(budget);
        assert!(m.read() - before <= budget.max(1), "a step reads at most its budget");
        steps += 1;
        match p {
            Ok(Progress::Done) => break,
            Ok(Progress::More) => {}
            Err(e) => panic!("{e}"),
        }
    }
    (m.finish().unwrap_or_default(), steps)
}

#[test]
fn a_merge_drops_the_dead_and_moves_big_terms_out_of_their_bucket() {
    let layout = Layout { own_min: 3, ..Layout::default() };
    let a = seg(&[("rust", vec![e(1, 1.0), e(3, 3.0)]), ("tea", vec![e(1, 1.0)])]);
    let b = seg(&[("rust", vec![e(2, 2.0), e(4, 4.0)]), ("tea", vec![e(2, 2.0)])]);
    let mut dead = Tombstones::default();
    dead.kill(2);
    let (out, steps) = merged(&layout, Key::Bucket(0), &[a.clone(), b.clone()], &dead, 2);
    assert!(steps >= 3, "{steps}");
    let keys: Vec<&Key> = out.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, [&Key::Bucket(0), &Key::Term("rust".into())]);
    let read = |i: usize, t: &str| out.get(i).and_then(|(_, b)| Segment::decode(b).ok()).map(|s| docs(&s.lists()[t]));
    assert_eq!(read(1, "rust"), Some(vec![4, 3, 1]));
    assert_eq!(read(0, "tea"), Some(vec![1]));
    // All dead: nothing comes out.
    dead.kill_all([1, 3, 4]);
    assert_eq!(merged(&layout, Key::Bucket(0), &[a, b], &dead, 100).0, vec![]);
}

proptest! {
    #[test]
    fn a_merge_does_not_depend_on_its_budget(inputs in proptest::collection::vec(lists_strategy(), 1..5), dead in proptest::collection::vec(0u32..50, 0..10), budget in 1usize..9) {
        let layout = Layout { own_min: 6, ..Layout::default() };
        // Each document once across inputs, as the index writes them.
        let mut seen = std::collections::HashSet::new();
        let inputs: Vec<Vec<u8>> = inputs.into_iter().map(|mut lists| {
            for list in lists.values_mut() {
                list.retain(|e| seen.insert((e.doc, e.at.to_bits())));
            }
            Segment::from_lists(lists).encode()
        }).collect();
        let mut tombs = Tombstones::default();
        tombs.kill_all(dead.iter().map(|d| d * 1000));
        let (stepped, _) = merged(&layout, Key::Bucket(1), &inputs, &tombs, budget);
        let (whole, steps) = merged(&layout, Key::Bucket(1), &inputs, &tombs, usize::MAX);
        prop_assert_eq!(steps, 1);
        prop_assert_eq!(&stepped, &whole);
        // The same as reading every input's live entries, term by term.
        let sources: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
        let outs: Vec<&[u8]> = whole.iter().map(|(_, b)| b.as_slice()).collect();
        for t in ["rust", "river", "博物"] {
            let before = recent(t, &sources, |d| tombs.contains(d), usize::MAX);
            let after = recent(t, &outs, |_| false, usize::MAX);
            prop_assert_eq!(before.map(|l| bits(&l)), after.map(|l| bits(&l)));
        }
    }
}

#[test]
fn tombstones_are_kept_until_a_pass_ends() {
    let mut t = Tombstones::default();
    assert!(!t.begin_pass(), "nothing dead");
    t.kill(7);
    t.kill_all([3, 9, 7]);
    assert_eq!(t.len(), 3);
    assert!(t.begin_pass() && t.sweeping());
    t.kill(12);
    t.kill(3);
    assert_eq!(t.len(), 4, "3 is being swept already");
    assert!(!t.begin_pass(), "one pass at a time");
    assert_eq!(Tombstones::decode(&t.encode()), Ok(t.clone()));
    t.end_pass();
    assert!(!t.contains(3) && t.contains(12) && !t.sweeping());
    assert!(!t.wants_pass(0) && Tombstones::decode(&[1, 0, 0]).is_ok_and(|t| t.is_empty()));
    assert_eq!(Tombstones::decode(&[1, 2, 5, 0, 0]), Err(Malformed("tombstones out of order")));
    assert!(Tombstones::decode(&[1, 1, 0xff, 0xff, 0xff, 0xff, 0x7f, 0]).is_err(), "past u32");
    assert!(Tombstones::decode(&[1, 0, 0, 0]).is_err(), "trailing bytes");
    let many: Vec<DocNo> = (0..300).collect();
    t.kill_all(many);
    assert!(t.wants_pass(1000));
}

#[test]
fn a_growing_segment_loses_its_dead_when_filtered() {
    let bytes = seg(&[("rust", vec![e(1, 1.0), e(2, 2.0)]), ("tea", vec![e(2, 2.0)])]);
    assert_eq!(filter_dead(&bytes, |_| false), Ok(Filtered::Unchanged));
    assert_eq!(filter_dead(&bytes, |_| true), Ok(Filtered::Empty));
    let Ok(Filtered::Kept(kept)) = filter_dead(&bytes, |d| d == 2) else { panic!("kept") };
    assert_eq!(Segment::decode(&kept).map(|s| s.entries()), Ok(1));
    assert_eq!(count_dead(&bytes, |d| d == 2), Ok(2));
}

#[test]
fn a_document_block_numbers_names_and_forgets() {
    let mut b = DocBlock::new(100);
    assert_eq!(b.push("m1", "s1", 4.0), Ok(100));
    assert_eq!(b.push("title:s1", "s1", 2.0), Ok(101));
    assert_eq!(b.check(), Ok(()));
    assert_eq!(b.get(101).map(|r| (r.doc, r.session, r.len)), Some(("title:s1", "s1", 2.0)));
    assert_eq!((b.get(99), b.get(102)), (None, None));
    assert_eq!(b.find("m1"), Some(100));
    assert_eq!(b.kill("m1"), Some((100, 4.0)));
    assert_eq!(b.get(100), None);
    assert_eq!((b.kill("m1"), b.is_dead()), (None, false));
    assert_eq!(b.kill("title:s1").map(|(n, _)| n), Some(101));
    assert!(b.is_dead());
    let json = serde_json::to_string(&DocBlock { n: 3, ids: vec![Some("a".into()), None], s: vec!["s".into(), String::new()], l: vec![1.0, 2.0] });
    assert_eq!(json.as_deref().ok(), Some(r#"{"n":3,"ids":["a",null],"s":["s",""],"l":[1.0,2.0]}"#));
    // Read back with lists that disagree: refused, and nothing panics.
    let bad = DocBlock { n: 0, ids: vec![Some("a".into())], s: vec![], l: vec![] };
    assert!(bad.check().is_err());
    assert_eq!(bad.get(0), None);
    let mut bad = bad;
    assert_eq!(bad.kill("a"), Some((0, 0.0)));
    assert!(DocBlock { n: u32::MAX, ids: vec![None, None], ..DocBlock::default() }.check().is_err());
    let mut full = DocBlock::new(u32::MAX);
    assert_eq!(full.push("a", "s", 1.0), Ok(u32::MAX));
    assert!(full.push("b", "s", 1.0).is_err(), "numbers used up");
}

#[test]
fn buckets_are_stable() {
    let layout = Layout::default();
    // FNV-1a: a change here is a change of the stored format.
    assert_eq!([layout.bucket(""), layout.bucket("rust"), layout.bucket("博物")], [197, 231, 214]);
    assert_eq!(layout.keys("rust"), [Key::Term("rust".into()), Key::Bucket(231)]);
    assert!(Key::Bucket(u32::MAX) < Key::Term(String::new()), "buckets sort first, as numbers before strings in IndexedDB");
}
