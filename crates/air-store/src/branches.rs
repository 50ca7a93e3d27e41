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
//!
//! Each message also names the message it follows (`parent`), which never
//! changes. Paths and forks can be made again from these links alone
//! ([`derive`]): two devices that each went on from the same message end
//! up with two alternatives, not one interleaved line. Records stored
//! before the links existed get them from their paths ([`link`]).

use std::collections::{BTreeMap, HashMap};

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

/// The indexes of `all` in `(seq, id)` order: the conversation's order.
fn in_order(all: &[MessageRecord]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by(|&a, &b| all[a].seq.total_cmp(&all[b].seq).then_with(|| all[a].id.cmp(&all[b].id)));
    order
}

/// The same steps, in any order (the order of a path is only the order its
/// steps were added in).
fn same_steps(a: &[Step], b: &[Step]) -> bool {
    a.len() == b.len() && a.iter().all(|s| b.contains(s))
}

/// Makes every message's path and the session's forks again from the
/// parent links of `all` (every message of one session) alone: what
/// another device's messages carry.
///
/// The children of a message (of [`ROOT`] for a message with no parent)
/// are ordered by `(seq, id)`; a message with two or more is a fork, its
/// alternatives numbered in that order, `count` the number of children. A
/// message's path is its parent's, plus the step into its alternative
/// when its parent is a fork.
///
/// What a fork shows is kept by message, not by number: the child whose
/// old path had the shown step stays shown, so an alternative arriving
/// before it in order does not switch what the user sees. When no child
/// has any step of a fork that `forks` had (paths were lost), its number
/// is kept if it still exists. Otherwise (a new fork, or the shown child
/// is gone) the newest child is shown, as [`fork_at`] does for an
/// alternative made here.
///
/// A parent that is not in `all` (deleted), or that does not come before
/// its child in `(seq, id)` order (damaged data; this also rules out
/// cycles), counts as [`ROOT`]: the message starts a branch of its own.
///
/// A path that only differs in the order of its steps is left as it is.
/// Returns the indexes of the messages whose path changed, ascending, to
/// be stored again.
pub fn derive(all: &mut [MessageRecord], forks: &mut Forks) -> Vec<usize> {
    let order = in_order(all);
    let mut rank = vec![0; all.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    let at: HashMap<&str, usize> = all.iter().enumerate().map(|(i, m)| (m.id.as_str(), i)).collect();
    let parent: Vec<Option<usize>> = all.iter().enumerate().map(|(i, m)| m.parent.as_deref().and_then(|p| at.get(p).copied()).filter(|&p| rank[p] < rank[i])).collect();
    // Each node's children, in order; and each message's place among its siblings.
    let mut children: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
    let mut alt = vec![0u32; all.len()];
    for &i in &order {
        let siblings = children.entry(parent[i]).or_default();
        alt[i] = siblings.len() as u32;
        siblings.push(i);
    }
    let key = |node: Option<usize>| node.map_or(ROOT, |p| all[p].id.as_str()).to_owned();
    let mut derived = Forks::new();
    for (&node, kids) in children.iter().filter(|(_, kids)| kids.len() >= 2) {
        let key = key(node);
        let shown = shown_child(forks.get(&key), &key, kids, all);
        derived.insert(key, Fork { count: kids.len() as u32, shown });
    }
    // Parents come first in order, so their paths are ready.
    let mut paths: Vec<Vec<Step>> = vec![Vec::new(); all.len()];
    for &i in &order {
        let mut path = parent[i].map(|p| paths[p].clone()).unwrap_or_default();
        let fork = key(parent[i]);
        if derived.contains_key(&fork) {
            path.push(Step { fork, alt: alt[i] });
        }
        paths[i] = path;
    }
    let mut changed = Vec::new();
    for (i, (m, path)) in all.iter_mut().zip(paths).enumerate() {
        if !same_steps(&m.branch, &path) {
            m.branch = path;
            changed.push(i);
        }
    }
    *forks = derived;
    changed
}

/// The alternative a fork keyed `key`, with children `kids` (indexes of
/// `all`, in order), shows: see [`derive`]. `old` is what the session
/// said of it before.
fn shown_child(old: Option<&Fork>, key: &str, kids: &[usize], all: &[MessageRecord]) -> u32 {
    let newest = kids.len() as u32 - 1;
    let Some(old) = old else { return newest };
    let was = Step { fork: key.to_owned(), alt: old.shown };
    if let Some(i) = kids.iter().position(|&c| all[c].branch.contains(&was)) {
        return i as u32;
    }
    let paths_lost = !kids.iter().any(|&c| all[c].branch.iter().any(|s| s.fork == key));
    if paths_lost && old.shown <= newest { old.shown } else { newest }
}

/// Gives every message of `all` (one session's) stored without a parent
/// link, as before links existed, the one its path implies: the latest
/// message before it in `(seq, id)` order every step of whose path is in
/// its own, or none. For a conversation made here that is the message it
/// followed, so [`derive`] then gives back the paths and forks stored.
/// Returns the indexes of the messages given a parent, ascending.
pub fn link(all: &mut [MessageRecord]) -> Vec<usize> {
    let order = in_order(all);
    let mut found = Vec::new();
    for (pos, &i) in order.iter().enumerate() {
        if all[i].parent.is_some() {
            continue;
        }
        let m = &all[i];
        let before = order[..pos].iter().rev().find(|&&p| all[p].branch.iter().all(|s| m.branch.contains(s)));
        if let Some(&p) = before {
            found.push((i, all[p].id.clone()));
        }
    }
    let mut linked: Vec<usize> = found
        .into_iter()
        .map(|(i, p)| {
            all[i].parent = Some(p);
            i
        })
        .collect();
    linked.sort_unstable();
    linked
}

#[cfg(test)]
#[path = "branches_tests.rs"]
mod tests;
