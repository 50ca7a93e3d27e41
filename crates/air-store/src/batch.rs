//! Many records written or read at once ([`crate::Store::put_batch`],
//! [`crate::Store::get_batch`]): what a first sync and an import do
//! thousands of times. A store that can (IndexedDB) does each in one
//! transaction; the rest do them one record at a time ([`put_each`],
//! [`get_each`]), which means the same.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::{FileRecord, MessageRecord, Result, SessionRecord, Store};

/// Records to write, or records read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Batch {
    pub sessions: Vec<SessionRecord>,
    pub files: Vec<FileRecord>,
    pub messages: Vec<MessageRecord>,
    /// What sync pulled from a database, as it was there: its mark, which
    /// the records' journal entries carry ([`crate::journal::Change::from`]).
    pub from: Option<String>,
}

impl Batch {
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty() && self.files.is_empty() && self.messages.is_empty()
    }

    pub fn len(&self) -> usize {
        self.sessions.len() + self.files.len() + self.messages.len()
    }

    /// The batch with each record once: where an id comes twice, the
    /// later one (as writing them one after another would leave). Copied
    /// only when an id does come twice.
    pub fn once(&self) -> Cow<'_, Self> {
        fn repeats<T>(list: &[T], id: impl Fn(&T) -> &str) -> bool {
            let mut seen = HashSet::new();
            !list.iter().all(|r| seen.insert(id(r)))
        }
        fn dedupe<T>(list: &mut Vec<T>, id: impl Fn(&T) -> &str) {
            let mut seen = HashSet::new();
            let mut keep: Vec<bool> = list.iter().rev().map(|r| seen.insert(id(r).to_owned())).collect();
            keep.reverse();
            let mut flags = keep.into_iter();
            list.retain(|_| flags.next().unwrap_or(true));
        }
        if !repeats(&self.sessions, |s| &s.id) && !repeats(&self.files, |f| &f.id) && !repeats(&self.messages, |m| &m.id) {
            return Cow::Borrowed(self);
        }
        let mut out = self.clone();
        dedupe(&mut out.sessions, |s| &s.id);
        dedupe(&mut out.files, |f| &f.id);
        dedupe(&mut out.messages, |m| &m.id);
        Cow::Owned(out)
    }
}

/// The ids of records to read at once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ids {
    pub sessions: Vec<String>,
    pub files: Vec<String>,
    pub messages: Vec<String>,
}

impl Ids {
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty() && self.files.is_empty() && self.messages.is_empty()
    }
}

/// [`Store::put_batch`] one record at a time: sessions, then files, then
/// messages (what a message names is there before it). The journal
/// entries are not marked (a push then looks at them as at any other).
pub async fn put_each<S: Store + ?Sized>(store: &S, batch: &Batch) -> Result<()> {
    for s in &batch.sessions {
        store.put_session(s).await?;
    }
    for f in &batch.files {
        store.put_file(f).await?;
    }
    for m in &batch.messages {
        store.put_message(m).await?;
    }
    Ok(())
}

/// [`Store::get_batch`] one record at a time.
pub async fn get_each<S: Store + ?Sized>(store: &S, ids: &Ids) -> Result<Batch> {
    let mut out = Batch::default();
    for id in &ids.sessions {
        out.sessions.extend(store.get_session(id).await?);
    }
    for id in &ids.files {
        out.files.extend(store.get_file(id).await?);
    }
    for id in &ids.messages {
        out.messages.extend(store.get_message(id).await?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use air_chat::Role;

    #[test]
    fn the_later_of_two_records_with_one_id_is_kept_in_its_place() {
        let m = |id: &str, text: &str| MessageRecord::new(id, "s", 1.0, Role::User, text);
        let written = Batch { messages: vec![m("a", "first"), m("b", "b"), m("a", "second"), m("c", "c")], ..Batch::default() };
        let batch = written.once();
        assert!(matches!(batch, Cow::Owned(_)), "copied: an id came twice");
        let kept: Vec<(&str, &str)> = batch.messages.iter().map(|m| (m.id.as_str(), m.content.as_str())).collect();
        assert_eq!(kept, [("b", "b"), ("a", "second"), ("c", "c")]);
        assert_eq!(batch.len(), 3);
        assert!(matches!(Batch { messages: vec![m("a", "x")], ..Batch::default() }.once(), Cow::Borrowed(_)), "not copied otherwise");
    }
}
