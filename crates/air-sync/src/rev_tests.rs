use super::*;

fn rev(s: &str) -> Rev {
    Rev::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn revs(list: &[&str]) -> Vec<Rev> {
    list.iter().map(|s| rev(s)).collect()
}

/// The path `ids` (newest first) ending at position `start`.
fn path(start: u64, ids: &[&str]) -> Revisions {
    Revisions { start, ids: ids.iter().map(|s| s.to_string()).collect() }
}

fn merged(paths: &[(u64, &[&str], bool)]) -> RevTree {
    let mut t = RevTree::new();
    for (start, ids, deleted) in paths {
        t.merge(&path(*start, ids), *deleted, REVS_LIMIT).unwrap_or_else(|e| panic!("{e}"));
    }
    t
}

fn leaf_strings(t: &RevTree) -> Vec<String> {
    t.leaves().iter().map(|l| format!("{}{}", l.rev, if l.deleted { " (deleted)" } else { "" })).collect()
}

#[test]
fn revisions_parse_and_print_as_n_dash_hash() {
    let r = rev("3-967a00dff5e02add41819138abb3284d");
    assert_eq!((r.pos, r.hash.as_str()), (3, "967a00dff5e02add41819138abb3284d"));
    assert_eq!(r.to_string(), "3-967a00dff5e02add41819138abb3284d");
    assert_eq!(rev("12-a-b").hash, "a-b", "the hash is everything after the first dash");
    assert_eq!("1-x".parse::<Rev>(), Ok(Rev::new(1, "x")));
    for bad in ["", "abc", "0-a", "-a", "1-", "x-a", "+1-a", " 1-a", "18446744073709551616-a", "0-1"] {
        let e = Rev::parse(bad);
        assert!(matches!(&e, Err(Error::Malformed(m)) if m.contains("bad revision")), "{bad:?}: {e:?}");
    }
    assert_eq!(serde_json::to_string(&r).ok().as_deref(), Some("\"3-967a00dff5e02add41819138abb3284d\""));
    assert!(serde_json::from_str::<Rev>("\"nope\"").is_err());
    assert_eq!(Rev::new_child(None, "a"), rev("1-a"));
    assert_eq!(Rev::new_child(Some(&rev("4-x")), "b"), rev("5-b"));
}

#[test]
fn revisions_name_their_ancestry_newest_first() {
    let p = path(3, &["c", "b", "a"]);
    assert_eq!(p.revs().collect::<Vec<_>>(), revs(&["3-c", "2-b", "1-a"]));
    assert_eq!(p.leaf(), Some(rev("3-c")));
    assert_eq!(p.check(), Ok(()));
    assert!(path(2, &["c", "b", "a"]).check().is_err(), "would reach position 0");
    assert_eq!(path(2, &["c", "b", "a"]).revs().count(), 2, "never a position 0");
    assert!(path(2, &[]).check().is_err());
    assert!(path(2, &["c", ""]).check().is_err());
}

#[test]
fn merging_a_path_twice_adds_nothing_and_extending_it_does() {
    let mut t = RevTree::new();
    assert_eq!(t.merge(&path(2, &["b", "a"]), false, REVS_LIMIT), Ok(true));
    assert_eq!(t.merge(&path(2, &["b", "a"]), false, REVS_LIMIT), Ok(false));
    assert_eq!(t.merge(&path(1, &["a"]), false, REVS_LIMIT), Ok(false), "an ancestor it holds");
    assert_eq!(t.merge(&path(3, &["c", "b", "a"]), false, REVS_LIMIT), Ok(true));
    assert_eq!(t.merge(&path(3, &["c"]), false, REVS_LIMIT), Ok(false));
    assert_eq!((t.len(), leaf_strings(&t)), (3, vec!["3-c".to_owned()]));
    assert!(t.contains(&rev("1-a")) && !t.contains(&rev("1-b")));
    assert!(t.merge(&path(0, &["x"]), false, REVS_LIMIT).is_err());
}

#[test]
fn paths_that_share_ancestors_join() {
    let t = merged(&[(3, &["c1", "b", "a"], false), (3, &["c2", "b", "a"], false), (2, &["b2", "a"], false)]);
    assert_eq!(t.len(), 5, "1-a and 2-b are held once");
    assert_eq!(leaf_strings(&t), ["3-c2", "3-c1", "2-b2"]);
    assert_eq!(t.revisions(&rev("3-c1")), Some(path(3, &["c1", "b", "a"])));
    assert_eq!(t.revisions(&rev("2-b2")), Some(path(2, &["b2", "a"])));
    assert_eq!(t.revisions(&rev("9-zz")), None);
    assert!(t.is_leaf(&rev("2-b2")) && !t.is_leaf(&rev("2-b")) && !t.is_leaf(&rev("2-zz")));
    assert_eq!(t.latest(&rev("2-b")).iter().map(|l| l.rev.to_string()).collect::<Vec<_>>(), ["3-c2", "3-c1"]);
    assert_eq!(t.latest(&rev("1-a")).len(), 3);
    assert_eq!(t.latest(&rev("3-c1")).len(), 1);
    assert!(t.latest(&rev("2-zz")).is_empty());
}

#[test]
fn a_partial_history_joins_when_the_rest_arrives() {
    let mut t = merged(&[(3, &["c", "b"], false)]);
    assert_eq!(t.revisions(&rev("3-c")), Some(path(3, &["c", "b"])));
    assert_eq!(t.merge(&path(3, &["c", "b", "a"]), false, REVS_LIMIT), Ok(true));
    assert_eq!(t.revisions(&rev("3-c")), Some(path(3, &["c", "b", "a"])));
    // 2-b arrived without its parent, and learns it.
    let mut t = merged(&[(2, &["b"], false), (3, &["c", "b"], false)]);
    assert_eq!(t.merge(&path(2, &["b", "a"]), false, REVS_LIMIT), Ok(true));
    assert_eq!(t.revisions(&rev("3-c")), Some(path(3, &["c", "b", "a"])));
}

/// The example of CouchDB's documentation ("Replication and conflict
/// model"): three edits of 1-… ; `GET /db/test?conflicts=true` shows
/// `2-b91b…` with `_conflicts` `["2-65db…", "2-5bc3…"]`.
#[test]
fn the_winner_of_couchdbs_documented_conflict() {
    let t = merged(&[
        (2, &["5bc3c6319edf62d4c624277fdd0ae191", "967a00dff5e02add41819138abb3284d"], false),
        (2, &["b91bb807b4685080c6a651115ff558f5", "967a00dff5e02add41819138abb3284d"], false),
        (2, &["65db2a11b5172bf928e3bcf59f728970", "967a00dff5e02add41819138abb3284d"], false),
    ]);
    assert_eq!(t.winner().map(|w| w.rev), Some(rev("2-b91bb807b4685080c6a651115ff558f5")));
    assert_eq!(t.conflicts(), revs(&["2-65db2a11b5172bf928e3bcf59f728970", "2-5bc3c6319edf62d4c624277fdd0ae191"]));
}

/// The documentation's resolution: r5a written on r4a, r3b and r3c
/// deleted. The deleted leaves stay in the tree but are no conflicts.
#[test]
fn a_conflict_resolved_by_deleting_the_losers() {
    let t = merged(&[(5, &["r5a", "r4a", "r3a", "r2a", "r1"], false), (4, &["r4b", "r3b", "r2b", "r1"], true), (4, &["r4c", "r3c", "r2c", "r1"], true)]);
    assert_eq!(leaf_strings(&t), ["5-r5a", "4-r4c (deleted)", "4-r4b (deleted)"]);
    assert_eq!(t.winner().map(|w| w.rev), Some(rev("5-r5a")));
    assert_eq!(t.conflicts(), Vec::<Rev>::new());
}

#[test]
fn not_deleted_beats_deeper_then_deeper_beats_greater() {
    let t = merged(&[(3, &["zzz", "b", "a"], true), (2, &["c", "a"], false)]);
    assert_eq!(t.winner(), Some(Leaf { rev: rev("2-c"), deleted: false }), "a live leaf beats a deeper deletion");
    assert_eq!(t.conflicts(), Vec::<Rev>::new(), "a deleted leaf is no conflict");
    let t = merged(&[(3, &["a3", "b", "a"], false), (2, &["zz", "a"], false)]);
    assert_eq!(t.winner().map(|w| w.rev), Some(rev("3-a3")), "deeper beats a greater hash");
    assert_eq!(t.conflicts(), revs(&["2-zz"]));
    let t = merged(&[(2, &["x", "a"], true), (2, &["y", "a"], true)]);
    assert_eq!(t.winner(), Some(Leaf { rev: rev("2-y"), deleted: true }), "all deleted: the document is deleted");
    assert_eq!(t.conflicts(), Vec::<Rev>::new());
    assert_eq!(RevTree::new().winner(), None);
}

#[test]
fn a_deletion_flag_counts_only_on_leaves() {
    // Deleted, then written again on top of the tombstone.
    let a = merged(&[(2, &["del", "a"], true), (3, &["again", "del", "a"], false)]);
    let b = merged(&[(3, &["again", "del", "a"], false)]);
    assert_eq!(a, b, "however the tree was built");
    assert_eq!(a.winner(), Some(Leaf { rev: rev("3-again"), deleted: false }));
    let json = serde_json::to_value(&a).unwrap_or_default();
    assert_eq!(json, serde_json::json!({"1-a": {}, "2-del": {"parent": "a"}, "3-again": {"parent": "del"}}));
    assert_eq!(serde_json::from_value::<RevTree>(json).ok(), Some(a));
}

#[test]
fn missing_revisions_and_possible_ancestors() {
    let t = merged(&[(3, &["c", "b", "a"], false), (2, &["x", "a"], false)]);
    let asked = revs(&["2-b", "4-d", "3-y", "4-d", "1-a"]);
    assert_eq!(t.missing(&asked), revs(&["4-d", "3-y"]), "each once, in the order asked");
    assert_eq!(t.possible_ancestors(&revs(&["4-d", "3-y"])), revs(&["3-c", "2-x"]), "leaves below the highest missing");
    assert_eq!(t.possible_ancestors(&revs(&["3-y"])), revs(&["2-x"]));
    assert_eq!(t.possible_ancestors(&[]), Vec::<Rev>::new());
    assert_eq!(RevTree::new().missing(&revs(&["1-a"])), revs(&["1-a"]));
}

#[test]
fn stemming_keeps_the_newest_revisions_of_each_path() {
    let ids: Vec<String> = (1..=10).rev().map(|i| format!("h{i}")).collect();
    let long = Revisions { start: 10, ids };
    let mut t = RevTree::new();
    assert_eq!(t.merge(&long, false, 4), Ok(true));
    assert_eq!(t.len(), 4);
    assert!(t.contains(&rev("7-h7")) && !t.contains(&rev("6-h6")));
    assert_eq!(t.revisions(&rev("10-h10")), Some(path(10, &["h10", "h9", "h8", "h7"])));
    assert_eq!(t.merge(&long, false, 4), Ok(false), "stemmed revisions coming back add nothing");
    // A branch off 8-h8 keeps its own newest revisions.
    assert_eq!(t.merge(&path(9, &["b9", "h8", "h7", "h6"]), false, 4), Ok(true));
    assert_eq!(leaf_strings(&t), ["10-h10", "9-b9"]);
    assert_eq!(t.len(), 6, "h7..h10 and b9 and h6, which b9's path still reaches");
    t.stem(2);
    assert_eq!(t.len(), 4);
    assert_eq!(t.revisions(&rev("9-b9")), Some(path(9, &["b9", "h8"])));
    // Stemming never drops a leaf.
    let mut one = merged(&[(3, &["c", "b", "a"], false)]);
    one.stem(0);
    assert_eq!(leaf_strings(&one), ["3-c"]);
}

#[test]
fn a_branch_off_a_stemmed_revision_is_its_own_root() {
    let mut t = RevTree::new();
    assert_eq!(t.merge(&path(5, &["e", "d", "c", "b", "a"]), false, 2), Ok(true));
    assert_eq!(t.merge(&path(2, &["b2", "a"]), false, 2), Ok(true), "1-a was stemmed: 2-b2 comes back with it");
    assert_eq!(leaf_strings(&t), ["5-e", "2-b2"]);
    assert_eq!(t.conflicts(), revs(&["2-b2"]));
}

/// Every peer merges the same revisions in its own order: the tree, and so
/// the winner, must not depend on it.
#[test]
fn the_order_of_merges_does_not_matter() {
    let paths: [(u64, &[&str], bool); 5] = [(3, &["c", "b", "a"], false), (2, &["b2", "a"], true), (4, &["d", "c", "b", "a"], false), (3, &["again", "b2", "a"], false), (2, &["b"], false)];
    let reference = merged(&paths);
    assert_eq!(leaf_strings(&reference), ["4-d", "3-again"]);
    let mut order: Vec<usize> = (0..paths.len()).collect();
    // Every permutation (Heap's algorithm).
    fn permute(k: usize, order: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if k == 1 {
            out.push(order.clone());
            return;
        }
        for i in 0..k {
            permute(k - 1, order, out);
            order.swap(if k.is_multiple_of(2) { i } else { 0 }, k - 1);
        }
    }
    let mut all = Vec::new();
    permute(order.len(), &mut order, &mut all);
    assert_eq!(all.len(), 120);
    for o in all {
        let t = merged(&o.iter().map(|&i| paths[i]).collect::<Vec<_>>());
        assert_eq!(t, reference, "order {o:?}");
    }
}
