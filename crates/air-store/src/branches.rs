//! Branches of a conversation: answers kept as alternatives when one is
//! regenerated, and questions kept when one is edited.
//!
//! A conversation stays one list of messages ordered by `seq`. A *fork* is
//! a message after which the conversation went on in more than one way
//! (its id; [`ROOT`] when the first message itself was edited). Each way is
//! an *alternative*, numbered from 0 in the order they were made. A message
//! carries its *path*: the (fork, alternative) of every fork above it, in
//! order. The session records, per fork, how many alternatives there are
//! and which one is shown. A message is on screen, and in the history the
//! model is sent, when every step of its path is the one shown. Nothing
//! is deleted, so branches survive reloads and exports as the records do,
//! and another tab sees a switch as a change of the session record.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::MessageRecord;

/// The fork before the first message.
pub const ROOT: &str = "";

/// One step of a message's path: after fork `fork`, alternative `alt`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    #[serde(rename = "f")]
    pub fork: String,
    #[serde(rename = "a")]
    pub alt: u32,
}

/// The alternatives after one fork.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fork {
    /// How many there are (at least 2).
    pub count: u32,
    /// The one shown.
    pub shown: u32,
}

/// A session's forks, by the id of the message they follow.
pub type Forks = BTreeMap<String, Fork>;

/// Whether `m` is on the branch shown.
pub fn is_shown(m: &MessageRecord, forks: &Forks) -> bool {
    m.branch.iter().all(|s| forks.get(&s.fork).is_none_or(|f| f.shown == s.alt))
}

/// The messages of the branch shown, in order.
pub fn shown(all: Vec<MessageRecord>, forks: &Forks) -> Vec<MessageRecord> {
    if forks.is_empty() {
        return all;
    }
    all.into_iter().filter(|m| is_shown(m, forks)).collect()
}

/// The path of a message added after the shown messages `shown` (the last
/// one's path, and, if that message is a fork whose shown alternative has
/// no message yet, the step into it).
pub fn tip(shown: &[MessageRecord], forks: &Forks) -> Vec<Step> {
    let (mut path, after) = match shown.last() {
        Some(last) => (last.branch.clone(), last.id.as_str()),
        None => (Vec::new(), ROOT),
    };
    if let Some(f) = forks.get(after) {
        path.push(Step { fork: after.to_owned(), alt: f.shown });
    }
    path
}

/// A new alternative after `after` (a message, or `None` for the start of
/// the conversation), among `all` the session's messages. The first time,
/// every message below `after` (its way on, and the alternatives of forks
/// further down) becomes part of alternative 0: those get the step, to be
/// stored again. Returns their indexes in `all` and the number of the new
/// alternative, which is now the one shown.
pub fn fork_at(forks: &mut Forks, after: Option<&MessageRecord>, all: &mut [MessageRecord]) -> (Vec<usize>, u32) {
    let key = after.map_or(ROOT, |m| m.id.as_str()).to_owned();
    if let Some(f) = forks.get_mut(&key) {
        f.count += 1;
        f.shown = f.count - 1;
        return (Vec::new(), f.shown);
    }
    let mut changed = Vec::new();
    for (i, m) in all.iter_mut().enumerate() {
        let below = match after {
            None => true,
            // Later on the same branch: every step of `after`'s path is in its path.
            Some(a) => m.seq > a.seq && m.id != a.id && a.branch.iter().all(|s| m.branch.contains(s)),
        };
        if below {
            // (A path is read as a set: the order of its steps is the
            // order they were added in.)
            m.branch.push(Step { fork: key.clone(), alt: 0 });
            changed.push(i);
        }
    }
    forks.insert(key, Fork { count: 2, shown: 1 });
    (changed, 1)
}

/// Shows the branch `m` is on. Returns whether anything changed.
pub fn reveal(forks: &mut Forks, m: &MessageRecord) -> bool {
    let mut changed = false;
    for s in &m.branch {
        if let Some(f) = forks.get_mut(&s.fork)
            && f.shown != s.alt
            && s.alt < f.count
        {
            f.shown = s.alt;
            changed = true;
        }
    }
    changed
}

/// Where the shown alternatives change: for a shown message that is the
/// first of its alternative, the fork it follows, its alternative and how
/// many there are (for ‹ 2 / 3 ›).
pub fn switch_at(shown: &[MessageRecord], i: usize, forks: &Forks) -> Option<(String, Fork)> {
    let m = shown.get(i)?;
    let before = if i == 0 { ROOT } else { shown[i - 1].id.as_str() };
    let f = forks.get(before)?;
    m.branch.iter().any(|s| s.fork == before).then(|| (before.to_owned(), *f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use air_chat::Role;

    fn msg(id: &str, seq: f64, branch: &[(&str, u32)]) -> MessageRecord {
        let mut m = MessageRecord::new(id, "s", seq, Role::User, id);
        m.branch = branch.iter().map(|(f, a)| Step { fork: (*f).into(), alt: *a }).collect();
        m
    }

    fn ids(list: &[MessageRecord]) -> Vec<&str> {
        list.iter().map(|m| m.id.as_str()).collect()
    }

    #[test]
    fn regenerating_twice_then_switching_back_and_a_fork_inside_a_fork() {
        let mut forks = Forks::new();
        // q → a; regenerate a: a is kept as alternative 0 after q.
        let mut all = vec![msg("q", 1.0, &[]), msg("a", 2.0, &[])];
        let q = all[0].clone();
        let (changed, alt) = fork_at(&mut forks, Some(&q), &mut all);
        assert_eq!((changed, alt), (vec![1], 1));
        assert_eq!(tip(&all[..1], &forks), vec![Step { fork: "q".into(), alt: 1 }]);
        all.push(msg("b", 3.0, &[("q", 1)]));
        assert_eq!(ids(&shown(all.clone(), &forks)), ["q", "b"]);
        // Again: a third alternative; nothing is written again.
        let (changed, alt) = fork_at(&mut forks, Some(&q), &mut all);
        assert_eq!((changed.len(), alt), (0, 2));
        all.push(msg("c", 4.0, &[("q", 2)]));
        assert_eq!(ids(&shown(all.clone(), &forks)), ["q", "c"]);
        assert_eq!(switch_at(&shown(all.clone(), &forks), 1, &forks), Some(("q".into(), Fork { count: 3, shown: 2 })));
        assert_eq!(switch_at(&shown(all.clone(), &forks), 0, &forks), None, "nothing to switch at the question");
        // Back to the first: the conversation goes on from there.
        forks.insert("q".into(), Fork { count: 3, shown: 0 });
        let on = shown(all.clone(), &forks);
        assert_eq!(ids(&on), ["q", "a"]);
        assert_eq!(tip(&on, &forks), vec![Step { fork: "q".into(), alt: 0 }]);
        all.push(msg("q2", 5.0, &[("q", 0)]));
        all.push(msg("a2", 6.0, &[("q", 0)]));
        // A fork inside alternative 0 (q2's answer regenerated).
        let q2 = all[4].clone();
        let (changed, _) = fork_at(&mut forks, Some(&q2), &mut all);
        assert_eq!(changed, vec![5], "only what is below q2");
        all.push(msg("a2b", 7.0, &[("q", 0), ("q2", 1)]));
        assert_eq!(ids(&shown(all.clone(), &forks)), ["q", "a", "q2", "a2b"]);
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
    }

    #[test]
    fn editing_the_first_message_forks_at_the_root() {
        let mut forks = Forks::new();
        // q → a, a regenerated as b (a hidden), then q edited as q'.
        let mut all = vec![msg("q", 1.0, &[]), msg("a", 2.0, &[])];
        let q = all[0].clone();
        fork_at(&mut forks, Some(&q), &mut all);
        all.push(msg("b", 3.0, &[("q", 1)]));
        let (changed, _) = fork_at(&mut forks, None, &mut all);
        assert_eq!(changed, vec![0, 1, 2], "the hidden answer goes with its question");
        assert_eq!(tip(&[], &forks), vec![Step { fork: ROOT.into(), alt: 1 }]);
        all.push(msg("q'", 4.0, &[(ROOT, 1)]));
        let on = shown(all.clone(), &forks);
        assert_eq!(ids(&on), ["q'"]);
        assert_eq!(switch_at(&on, 0, &forks), Some((ROOT.into(), Fork { count: 2, shown: 1 })));
        // Back: the question and the answer shown before.
        forks.insert(ROOT.into(), Fork { count: 2, shown: 0 });
        assert_eq!(ids(&shown(all.clone(), &forks)), ["q", "b"]);
    }
}
