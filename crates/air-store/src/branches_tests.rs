use super::*;
use air_chat::Role;

/// Message `id` after `parent` (`""`: none), on the path `branch`.
fn msg(id: &str, seq: f64, parent: &str, branch: &[(&str, u32)]) -> MessageRecord {
    let mut m = MessageRecord::new(id, "s", seq, Role::User, id);
    m.branch = path(branch);
    m.parent = (!parent.is_empty()).then(|| parent.to_owned());
    m
}

fn path(steps: &[(&str, u32)]) -> Vec<Step> {
    steps.iter().map(|(f, a)| Step { fork: (*f).into(), alt: *a }).collect()
}

/// The paths of `all` as sets (sorted), by id.
fn paths(all: &[MessageRecord]) -> BTreeMap<String, Vec<(String, u32)>> {
    all.iter()
        .map(|m| {
            let mut p: Vec<_> = m.branch.iter().map(|s| (s.fork.clone(), s.alt)).collect();
            p.sort();
            (m.id.clone(), p)
        })
        .collect()
}

/// The links agree with the paths and forks made by `fork_at` and `tip`:
/// from the links alone (paths cleared, the shown numbers kept), [`derive`]
/// makes the same paths (as sets: their order is only the order the steps
/// were added) and forks; on the records as they are it changes nothing;
/// and with the links removed, [`link`] finds them again.
fn agrees(all: &[MessageRecord], forks: &Forks) {
    let mut bare = all.to_vec();
    bare.iter_mut().for_each(|m| m.branch.clear());
    let mut derived = forks.clone();
    derive(&mut bare, &mut derived);
    assert_eq!(paths(&bare), paths(all), "paths from links");
    assert_eq!(&derived, forks, "forks from links");
    let (mut same, mut again) = (all.to_vec(), forks.clone());
    assert_eq!(derive(&mut same, &mut again), Vec::<usize>::new(), "nothing to store again");
    assert_eq!((same.as_slice(), &again), (all, forks));
    let mut unlinked = all.to_vec();
    unlinked.iter_mut().for_each(|m| m.parent = None);
    link(&mut unlinked);
    let parents = |l: &[MessageRecord]| l.iter().map(|m| (m.id.clone(), m.parent.clone())).collect::<Vec<_>>();
    assert_eq!(parents(&unlinked), parents(all), "links from paths (migration)");
}

fn ids(list: &[MessageRecord]) -> Vec<&str> {
    list.iter().map(|m| m.id.as_str()).collect()
}

#[test]
fn regenerating_twice_then_switching_back_and_a_fork_inside_a_fork() {
    let mut forks = Forks::new();
    // q → a; regenerate a: a is kept as alternative 0 after q.
    let mut all = vec![msg("q", 1.0, "", &[]), msg("a", 2.0, "q", &[])];
    let q = all[0].clone();
    let (changed, alt) = fork_at(&mut forks, Some(&q), &mut all);
    assert_eq!((changed, alt), (vec![1], 1));
    assert_eq!(tip(&all[..1], &forks), vec![Step { fork: "q".into(), alt: 1 }]);
    all.push(msg("b", 3.0, "q", &[("q", 1)]));
    assert_eq!(ids(&shown(all.clone(), &forks)), ["q", "b"]);
    agrees(&all, &forks);
    // Again: a third alternative; nothing is written again.
    let (changed, alt) = fork_at(&mut forks, Some(&q), &mut all);
    assert_eq!((changed.len(), alt), (0, 2));
    all.push(msg("c", 4.0, "q", &[("q", 2)]));
    assert_eq!(ids(&shown(all.clone(), &forks)), ["q", "c"]);
    assert_eq!(switch_at(&shown(all.clone(), &forks), 1, &forks), Some(("q".into(), Fork { count: 3, shown: 2 })));
    assert_eq!(switch_at(&shown(all.clone(), &forks), 0, &forks), None, "nothing to switch at the question");
    agrees(&all, &forks);
    // Back to the first: the conversation goes on from there.
    forks.insert("q".into(), Fork { count: 3, shown: 0 });
    let on = shown(all.clone(), &forks);
    assert_eq!(ids(&on), ["q", "a"]);
    assert_eq!(tip(&on, &forks), vec![Step { fork: "q".into(), alt: 0 }]);
    all.push(msg("q2", 5.0, "a", &[("q", 0)]));
    all.push(msg("a2", 6.0, "q2", &[("q", 0)]));
    // A fork inside alternative 0 (q2's answer regenerated).
    let q2 = all[4].clone();
    let (changed, _) = fork_at(&mut forks, Some(&q2), &mut all);
    assert_eq!(changed, vec![5], "only what is below q2");
    all.push(msg("a2b", 7.0, "q2", &[("q", 0), ("q2", 1)]));
    assert_eq!(ids(&shown(all.clone(), &forks)), ["q", "a", "q2", "a2b"]);
    agrees(&all, &forks);
    // Switching the outer fork hides the inner one's messages too, and
    // coming back shows the inner alternative that was shown.
    forks.insert("q".into(), Fork { count: 3, shown: 2 });
    assert_eq!(ids(&shown(all.clone(), &forks)), ["q", "c"]);
    forks.insert("q".into(), Fork { count: 3, shown: 0 });
    assert_eq!(ids(&shown(all.clone(), &forks)), ["q", "a", "q2", "a2b"]);
    // A search hit on a hidden message shows its branch.
    assert!(reveal(&mut forks, &all[5]));
    assert_eq!(ids(&shown(all.clone(), &forks)), ["q", "a", "q2", "a2"]);
    assert!(!reveal(&mut forks, &all[5]), "already shown");
    agrees(&all, &forks);
}

#[test]
fn editing_the_first_message_forks_at_the_root() {
    let mut forks = Forks::new();
    // q → a, a regenerated as b (a hidden), then q edited as q'.
    let mut all = vec![msg("q", 1.0, "", &[]), msg("a", 2.0, "q", &[])];
    let q = all[0].clone();
    fork_at(&mut forks, Some(&q), &mut all);
    all.push(msg("b", 3.0, "q", &[("q", 1)]));
    let (changed, _) = fork_at(&mut forks, None, &mut all);
    assert_eq!(changed, vec![0, 1, 2], "the hidden answer goes with its question");
    assert_eq!(tip(&[], &forks), vec![Step { fork: ROOT.into(), alt: 1 }]);
    all.push(msg("q'", 4.0, "", &[(ROOT, 1)]));
    let on = shown(all.clone(), &forks);
    assert_eq!(ids(&on), ["q'"]);
    assert_eq!(switch_at(&on, 0, &forks), Some((ROOT.into(), Fork { count: 2, shown: 1 })));
    // Back: the question and the answer shown before.
    agrees(&all, &forks);
    forks.insert(ROOT.into(), Fork { count: 2, shown: 0 });
    assert_eq!(ids(&shown(all.clone(), &forks)), ["q", "b"]);
    agrees(&all, &forks);
}

/// A conversation made as the app makes one: a new message goes on the
/// branch shown, after its last message (`tip`); a regenerated answer or
/// an edited question replaces shown messages by a new alternative
/// (`fork_at`), after the message the replaced one followed.
#[derive(Clone, Default)]
struct Conv {
    all: Vec<MessageRecord>,
    forks: Forks,
    seq: f64,
}

impl Conv {
    fn shown(&self) -> Vec<MessageRecord> {
        shown(self.all.clone(), &self.forks)
    }

    /// A new message `id` after `shown` (the messages it comes after).
    fn push(&mut self, id: &str, shown: &[MessageRecord]) {
        self.seq += 1.0;
        let mut m = MessageRecord::new(id, "s", self.seq, Role::User, id);
        m.branch = tip(shown, &self.forks);
        m.parent = shown.last().map(|p| p.id.clone());
        self.all.push(m);
    }

    /// Sends (or answers) `id`.
    fn add(&mut self, id: &str) {
        let shown = self.shown();
        self.push(id, &shown);
    }

    /// Regenerates or edits: the shown messages from `i` on are kept as an
    /// alternative, and `id` is the new one.
    fn replace(&mut self, i: usize, id: &str) {
        let shown = self.shown();
        let after = i.checked_sub(1).map(|k| shown[k].clone());
        fork_at(&mut self.forks, after.as_ref(), &mut self.all);
        self.push(id, &shown[..i]);
    }
}

#[test]
fn links_agree_with_paths_through_regenerates_edits_and_switches() {
    let mut c = Conv::default();
    for id in ["q", "a", "q2", "a2"] {
        c.add(id);
    }
    c.replace(3, "a2b"); // a2 regenerated
    c.replace(2, "q2b"); // q2 edited
    c.add("a2c");
    c.replace(0, "q0"); // the first question edited
    c.add("a0");
    agrees(&c.all, &c.forks);
    c.forks.insert(ROOT.into(), Fork { count: 2, shown: 0 });
    c.forks.insert("a".into(), Fork { count: 2, shown: 0 });
    assert_eq!(ids(&c.shown()), ["q", "a", "q2", "a2b"]);
    c.add("q3");
    c.replace(4, "q3b"); // a fork inside a fork inside a fork
    agrees(&c.all, &c.forks);
}

proptest::proptest! {
    /// Any sequence of sends, regenerates, edits and switches.
    #[test]
    fn links_agree_with_paths_whatever_the_user_does(ops in proptest::collection::vec((0u8..4, 0u8..=255), 1..40)) {
        let mut c = Conv::default();
        for (n, (op, arg)) in ops.into_iter().enumerate() {
            let id = format!("m{n}");
            let len = c.shown().len();
            match op {
                2 if len > 0 => c.replace(usize::from(arg) % len, &id),
                3 if !c.forks.is_empty() => {
                    if let Some((key, f)) = c.forks.iter().nth(usize::from(arg) % c.forks.len()).map(|(k, f)| (k.clone(), *f)) {
                        c.forks.insert(key, Fork { shown: u32::from(arg) % f.count, ..f });
                    }
                }
                _ => c.add(&id),
            }
        }
        agrees(&c.all, &c.forks);
    }
}

/// Two devices' records put together, as a sync would (one copy of each
/// record both have), then derived; `forks` are `a`'s.
fn merged(a: &Conv, b: &Conv) -> (Vec<MessageRecord>, Forks, Vec<usize>) {
    let mut all = a.all.clone();
    all.extend(b.all.iter().filter(|m| !a.all.iter().any(|x| x.id == m.id)).cloned());
    let mut forks = a.forks.clone();
    let changed = derive(&mut all, &mut forks);
    (all, forks, changed)
}

#[test]
fn two_devices_that_went_on_offline_end_with_two_alternatives() {
    let mut start = Conv::default();
    start.add("q");
    start.add("a");
    let (mut a, mut b) = (start.clone(), start);
    // Each sends a question and gets an answer, offline (the same seqs).
    a.add("q2-A");
    a.add("a2-A");
    b.add("q2-B");
    b.add("a2-B");
    let (mut all, mut forks, changed) = merged(&a, &b);
    assert_eq!(all.len(), 6, "nothing lost");
    assert_eq!(forks, Forks::from([("a".to_owned(), Fork { count: 2, shown: 1 })]), "a fork after a; the newest shown");
    let on = |all: &[MessageRecord], id: &str| all.iter().find(|m| m.id == id).map(|m| m.branch.clone()).unwrap_or_default();
    for (id, alt) in [("q2-A", 0), ("a2-A", 0), ("q2-B", 1), ("a2-B", 1)] {
        assert_eq!(on(&all, id), path(&[("a", alt)]), "{id}");
    }
    assert_eq!(changed.len(), 4, "the four new records get their paths");
    assert_eq!(ids(&shown(all.clone(), &forks)), ["q", "a", "q2-B", "a2-B"], "one clean line");
    forks.insert("a".into(), Fork { count: 2, shown: 0 });
    assert_eq!(ids(&shown(all.clone(), &forks)), ["q", "a", "q2-A", "a2-A"]);
    // Deriving again keeps the one shown and changes nothing.
    assert_eq!(derive(&mut all, &mut forks), Vec::<usize>::new());
    assert_eq!(forks["a"].shown, 0);
}

#[test]
fn two_devices_that_regenerated_offline_end_with_three_alternatives() {
    let mut start = Conv::default();
    start.add("q");
    start.add("a");
    let (mut a, mut b) = (start.clone(), start);
    a.replace(1, "b-A");
    b.replace(1, "b-B");
    // Both counted "alternative 1"; the links say three children of q.
    let (all, forks, _) = merged(&a, &b);
    assert_eq!(forks, Forks::from([("q".to_owned(), Fork { count: 3, shown: 1 })]), "A's answer stays shown");
    let alts: Vec<(&str, Vec<Step>)> = all.iter().map(|m| (m.id.as_str(), m.branch.clone())).collect();
    assert_eq!(alts, [("q", vec![]), ("a", path(&[("q", 0)])), ("b-A", path(&[("q", 1)])), ("b-B", path(&[("q", 2)]))]);
    assert_eq!(ids(&shown(all.clone(), &forks)), ["q", "b-A"]);
}

#[test]
fn an_alternative_arriving_first_in_order_does_not_switch_what_is_shown() {
    let mut c = Conv::default();
    c.add("q");
    c.add("a");
    c.replace(1, "b");
    // Another device's answer to q, made between a and b.
    let mut other = msg("c", 1.5, "q", &[]);
    other.seq = c.all[1].seq + 0.5;
    c.all.push(other);
    let changed = derive(&mut c.all, &mut c.forks);
    assert_eq!(c.forks["q"], Fork { count: 3, shown: 2 }, "b, now third, is still shown");
    assert_eq!(ids(&c.shown()), ["q", "b"]);
    let renumbered: Vec<&str> = changed.iter().map(|&i| c.all[i].id.as_str()).collect();
    assert_eq!(renumbered, ["b", "c"], "b is now alternative 2; c is new");
}

#[test]
fn a_missing_or_later_parent_counts_as_the_start() {
    // q2's parent was deleted; x and y name each other (damaged).
    let mut all = vec![msg("q", 1.0, "", &[]), msg("q2", 2.0, "gone", &[]), msg("x", 3.0, "y", &[]), msg("y", 4.0, "x", &[])];
    let mut forks = Forks::new();
    derive(&mut all, &mut forks);
    assert_eq!(forks, Forks::from([(ROOT.to_owned(), Fork { count: 3, shown: 2 })]), "q, q2 and x start branches; y follows x");
    assert_eq!(paths(&all)["y"], [(ROOT.to_owned(), 2)]);
}

#[test]
fn stored_records_migrate_to_links_that_give_back_their_branches() {
    let mut c = Conv::default();
    for id in ["q", "a", "q2", "a2"] {
        c.add(id);
    }
    c.replace(1, "b");
    c.replace(0, "q'");
    pollster::block_on(async {
        use crate::Store;
        let store = crate::MemoryStore::new();
        for m in &c.all {
            let mut old = m.clone();
            old.parent = None;
            store.put_message(&old).await.ok();
        }
        // Another session's message is no candidate.
        store.put_message(&MessageRecord::new("other", "t", 1.5, Role::User, "x")).await.ok();
        store.migrate();
        let mut migrated = store.messages("s").await.unwrap_or_default();
        let parents = |l: &[MessageRecord]| l.iter().map(|m| (m.id.clone(), m.parent.clone())).collect::<BTreeMap<_, _>>();
        assert_eq!(parents(&migrated), parents(&c.all));
        let mut forks = c.forks.clone();
        migrated.iter_mut().for_each(|m| m.branch.clear());
        derive(&mut migrated, &mut forks);
        assert_eq!((paths(&migrated), forks), (paths(&c.all), c.forks.clone()));
    });
}
