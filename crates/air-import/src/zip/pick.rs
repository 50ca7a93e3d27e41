//! Which entries of an export ZIP are read, and the limits on them, from
//! the central directory alone (before any entry is read).
//!
//! An entry's name is never a path here: nothing is written anywhere, so
//! `../conversations.json`, `/etc/conversations-002.json` and
//! `..\..\conversations-003.json` are read by their last part, as
//! `Export/conversations.json` is. What looks like a conversations file
//! but is not read is named in [`Plan::left_out`], with why.

use std::collections::HashMap;

use super::{Error, Item, check};

/// What an import reads of a ZIP at most: its conversations unzipped, in
/// all (the page's memory is the other limit).
pub const LIMIT: u64 = 1 << 30;

/// The entries to read, and those left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan<'a> {
    /// In order (see [`wanted`]).
    pub read: Vec<&'a Item>,
    /// Entries that look like conversations files but are not read, each
    /// as its name and why (`“__MACOSX/conversations.json” (…)`).
    pub left_out: Vec<String>,
}

/// What [`plan`] reads of `items`, with what it leaves out; refused (with
/// why) when nothing is to be read, when what is read is more than
/// `limit` bytes unzipped in all, when two entries name the same bytes,
/// or when one of them cannot be read ([`check`]).
pub fn plan(items: &[Item], limit: u64) -> Result<Plan<'_>, Error> {
    let read = wanted(items);
    if read.is_empty() {
        return Err(Error::NoConversations);
    }
    let size = read.iter().fold(0u64, |n, i| n.saturating_add(i.size.max(i.compressed)));
    if size > limit {
        return Err(Error::TooLargeInAll { size, limit });
    }
    let mut at: HashMap<u64, &str> = HashMap::new();
    for item in &read {
        if let Some(other) = at.insert(item.local_offset, &item.name) {
            return Err(Error::SameBytes { name: item.name.clone(), other: other.to_owned() });
        }
        check(item, usize::try_from(limit).unwrap_or(usize::MAX))?;
    }
    Ok(Plan { read, left_out: left_out(items) })
}

/// The parts of `name` (split at `/` and `\`), without empty ones and `.`.
fn parts(name: &str) -> impl DoubleEndedIterator<Item = &str> {
    name.split(['/', '\\']).filter(|p| !p.is_empty() && *p != ".")
}

/// macOS's `__MACOSX/` folder: copies of each file's details, not files.
fn in_macosx(item: &Item) -> bool {
    parts(&item.name).next() == Some("__MACOSX")
}

/// The entries an importer reads, in order: `conversations.json` (ChatGPT's
/// or Claude's) and ChatGPT's split `conversations-NNN.json` by number,
/// by the last part of their names, whatever folders (or `..`) come
/// before it; grouped by those, then by number. Folders, macOS's
/// `__MACOSX/` and everything else (`user.json`, `projects.json`, images)
/// are left.
pub fn wanted(items: &[Item]) -> Vec<&Item> {
    let mut found: Vec<(&str, Option<u64>, &Item)> = items
        .iter()
        .filter(|item| !item.is_dir() && !in_macosx(item))
        .filter_map(|item| {
            let file = parts(&item.name).next_back()?;
            let folder = item.name.strip_suffix(file).unwrap_or_default();
            part_number(file).map(|n| (folder, n, item))
        })
        .collect();
    found.sort_by_key(|&(folder, n, _)| (folder, n));
    found.into_iter().map(|(_, _, item)| item).collect()
}

/// The entries named like conversations files that [`wanted`] leaves out,
/// each with why.
fn left_out(items: &[Item]) -> Vec<String> {
    let mut out = Vec::new();
    for item in items.iter().filter(|i| !i.is_dir()) {
        let Some(file) = parts(&item.name).next_back() else { continue };
        let why = match part_number(file) {
            Some(_) if in_macosx(item) => "a copy of a file's details macOS makes, not the file",
            Some(_) => continue,
            None if file.starts_with("conversations") && file.ends_with(".json") => "not a name an export gives its conversations",
            None => continue,
        };
        out.push(format!("“{}” ({why})", item.name));
    }
    out
}

/// `conversations.json` → `Some(None)`, `conversations-007.json` →
/// `Some(Some(7))`, anything else → `None`.
fn part_number(file: &str) -> Option<Option<u64>> {
    let stem = file.strip_suffix(".json")?.strip_prefix("conversations")?;
    if stem.is_empty() {
        return Some(None);
    }
    let digits = stem.strip_prefix('-')?;
    let valid = !digits.is_empty() && digits.len() <= 9 && digits.bytes().all(|c| c.is_ascii_digit());
    valid.then(|| digits.parse().ok()).flatten().map(Some)
}
