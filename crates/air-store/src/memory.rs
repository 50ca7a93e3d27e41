//! An in-memory [`Store`], for host tests and as a fallback when the
//! browser refuses IndexedDB (private windows of some browsers).

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::journal::{Change, Entry, Journal, Kind, Seq};
use crate::segments::{DocNo, IndexDoc};
use crate::{MessageRecord, Result, SessionRecord, Store, search};

#[derive(Debug, Default)]
pub struct MemoryStore {
    sessions: RefCell<BTreeMap<String, SessionRecord>>,
    messages: RefCell<BTreeMap<String, MessageRecord>>,
    docs: RefCell<BTreeMap<String, String>>,
    files: RefCell<BTreeMap<String, crate::FileRecord>>,
    index: RefCell<crate::segments::MemSegments>,
    journal: RefCell<Journal>,
    /// Sync's bookkeeping ([`crate::sync_meta`]).
    pub(crate) sync: RefCell<BTreeMap<String, String>>,
    /// Writes of documents fail as a full quota does (tests of what is
    /// kept for the next write).
    pub refuse_docs: std::cell::Cell<bool>,
    /// The index's entries cannot be read (as an entry the codec refuses)
    /// until it is built again.
    pub index_unreadable: std::cell::Cell<bool>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn journal(&self, change: Change) {
        self.journal.borrow_mut().record(change);
    }

    pub(crate) fn journal_change(&self, change: Change) {
        self.journal(change);
    }

    pub(crate) fn journal_last_seq(&self) -> Seq {
        self.journal.borrow().last_seq()
    }

    /// A document of the index changed from `old` to `new` terms.
    fn index(&self, id: &str, session: &str, at: f64, old: Option<search::DocTerms>, new: Option<search::DocTerms>) -> Result<()> {
        if old == new {
            return Ok(());
        }
        let mut index = self.index.borrow_mut();
        match &new {
            Some(terms) => index.put_live(IndexDoc { id, session, at, terms: Some(terms) })?,
            None => {
                index.remove(id);
            }
        }
        Ok(())
    }

    /// Rewrites the messages in the current record format, as
    /// `IdbStore::migrate` does when a database written by an older
    /// version opens ([`crate::migrate`]); like it, adds no journal entry.
    /// (The app's memory store starts empty; this is for tests that store
    /// records as an older version wrote them.)
    pub fn migrate(&self) {
        let mut messages = self.messages.borrow_mut();
        let all = std::mem::take(&mut *messages).into_values().collect();
        *messages = crate::migrate::messages(all).into_iter().map(|m| (m.id.clone(), m)).collect();
    }
}

impl Store for MemoryStore {
    async fn list_sessions(&self) -> Result<Vec<SessionRecord>> {
        let mut all: Vec<_> = self.sessions.borrow().values().cloned().collect();
        crate::sort_by_activity(&mut all);
        Ok(all)
    }

    async fn sessions_page(&self, after: Option<&crate::SessionCursor>, limit: usize) -> Result<Vec<SessionRecord>> {
        let mut all: Vec<_> = self.sessions.borrow().values().filter(|s| after.is_none_or(|c| c.is_before(s))).cloned().collect();
        crate::sort_by_activity(&mut all);
        all.truncate(limit);
        Ok(all)
    }

    async fn get_session(&self, id: &str) -> Result<Option<SessionRecord>> {
        Ok(self.sessions.borrow().get(id).cloned())
    }

    async fn put_session(&self, session: &SessionRecord) -> Result<()> {
        let old = self.sessions.borrow_mut().insert(session.id.clone(), session.clone());
        let old = old.as_ref().and_then(search::title_terms);
        let new = search::title_terms(session);
        self.index(&search::title_doc(&session.id), &session.id, session.updated_at, old, new)?;
        self.journal(Change::put(Kind::Session, &session.id));
        Ok(())
    }

    async fn touch_session(&self, id: &str, at: f64) -> Result<Option<SessionRecord>> {
        let Some(mut session) = self.sessions.borrow().get(id).cloned() else { return Ok(None) };
        session.updated_at = at;
        self.put_session(&session).await?;
        Ok(Some(session))
    }

    async fn delete_session(&self, id: &str) -> Result<()> {
        if self.sessions.borrow_mut().remove(id).is_some() {
            self.index.borrow_mut().remove(&search::title_doc(id));
        }
        self.journal(Change::deleted(Kind::Session, id));
        let gone: Vec<MessageRecord> = self.messages.borrow().values().filter(|m| m.session_id == id).cloned().collect();
        for m in gone {
            self.messages.borrow_mut().remove(&m.id);
            self.index.borrow_mut().remove(&m.id);
            self.journal(Change::deleted(Kind::Message, &m.id));
        }
        let files: Vec<String> = self.files.borrow().values().filter(|f| f.session_id == id).map(|f| f.id.clone()).collect();
        for f in files {
            self.files.borrow_mut().remove(&f);
            self.journal(Change::deleted(Kind::File, &f));
        }
        Ok(())
    }

    async fn messages(&self, session_id: &str) -> Result<Vec<MessageRecord>> {
        let mut list: Vec<_> = self.messages.borrow().values().filter(|m| m.session_id == session_id).cloned().collect();
        list.sort_by(|a, b| a.seq.total_cmp(&b.seq).then_with(|| a.id.cmp(&b.id)));
        Ok(list)
    }

    async fn messages_page(&self, session_id: &str, before: Option<f64>, limit: usize) -> Result<Vec<MessageRecord>> {
        let mut list = self.messages(session_id).await?;
        if let Some(before) = before {
            list.retain(|m| m.seq < before);
        }
        let skip = list.len().saturating_sub(limit);
        Ok(list.split_off(skip))
    }

    async fn messages_after(&self, session_id: &str, after: f64, limit: usize) -> Result<Vec<MessageRecord>> {
        let mut list = self.messages(session_id).await?;
        list.retain(|m| m.seq > after);
        list.truncate(limit);
        Ok(list)
    }

    async fn get_message(&self, id: &str) -> Result<Option<MessageRecord>> {
        Ok(self.messages.borrow().get(id).cloned())
    }

    async fn put_message(&self, message: &MessageRecord) -> Result<()> {
        let old = self.messages.borrow_mut().insert(message.id.clone(), message.clone());
        let old = old.as_ref().and_then(search::message_terms);
        let new = search::message_terms(message);
        self.index(&message.id, &message.session_id, message.timestamp, old, new)?;
        self.journal(Change::put(Kind::Message, &message.id));
        Ok(())
    }

    async fn delete_message(&self, id: &str) -> Result<()> {
        let removed = self.messages.borrow_mut().remove(id);
        if let Some(old) = removed {
            self.index.borrow_mut().remove(id);
            // A file another message of the session names stays (an
            // edited and resent message names the same files).
            let named = |file: &str| self.messages.borrow().values().any(|m| m.session_id == old.session_id && m.attachments.iter().any(|a| a.id == file));
            for a in old.attachments.iter().filter(|a| !named(&a.id)) {
                self.files.borrow_mut().remove(&a.id);
                self.journal(Change::deleted(Kind::File, &a.id));
            }
        }
        self.journal(Change::deleted(Kind::Message, id));
        Ok(())
    }

    async fn put_file(&self, file: &crate::FileRecord) -> Result<()> {
        self.files.borrow_mut().insert(file.id.clone(), file.clone());
        self.journal(Change::put(Kind::File, &file.id));
        Ok(())
    }

    async fn get_file(&self, id: &str) -> Result<Option<crate::FileRecord>> {
        Ok(self.files.borrow().get(id).cloned())
    }

    async fn get_doc(&self, key: &str) -> Result<Option<String>> {
        Ok(self.docs.borrow().get(key).cloned())
    }

    async fn put_doc(&self, key: &str, json: &str) -> Result<()> {
        if self.refuse_docs.get() {
            return Err(crate::StoreError::QuotaExceeded("the quota is full".into()));
        }
        self.docs.borrow_mut().insert(key.to_owned(), json.to_owned());
        self.journal(Change::put(Kind::Doc, key));
        Ok(())
    }

    async fn delete_doc(&self, key: &str) -> Result<()> {
        self.docs.borrow_mut().remove(key);
        self.journal(Change::deleted(Kind::Doc, key));
        Ok(())
    }

    async fn doc_keys(&self, prefix: &str) -> Result<Vec<String>> {
        Ok(self.docs.borrow().range(prefix.to_owned()..).map(|(k, _)| k).take_while(|k| k.starts_with(prefix)).cloned().collect())
    }

    async fn index_stats(&self) -> Result<Option<search::IndexStats>> {
        let totals = self.index.borrow().totals.clone();
        Ok(Some(search::IndexStats { docs: totals.docs, total_len: totals.total_len, ..search::IndexStats::default() }))
    }

    async fn postings(&self, term: &str, max: usize) -> Result<Vec<crate::segments::Entry>> {
        if self.index_unreadable.get() {
            return Err(crate::StoreError::Corrupt("an index entry cannot be read".into()));
        }
        Ok(self.index.borrow().recent(term, max)?)
    }

    async fn index_docs(&self, docs: &[DocNo]) -> Result<Vec<Option<(String, String)>>> {
        let index = self.index.borrow();
        Ok(docs.iter().map(|n| index.resolve(*n).map(|r| (r.doc.to_owned(), r.session.to_owned()))).collect())
    }

    async fn compact_index(&self, budget: usize) -> Result<bool> {
        Ok(self.index.borrow_mut().compact_step(budget)?)
    }

    async fn journal_since(&self, after: Seq, limit: usize) -> Result<Vec<Entry>> {
        Ok(self.journal.borrow().since(after, limit))
    }

    /// The records, then their titles and messages indexed as one
    /// batch, each journaled with the batch's `from`, as IndexedDB does.
    async fn put_batch(&self, batch: &crate::batch::Batch) -> Result<()> {
        let batch = batch.once();
        let mark = batch.from.as_deref();
        let mut docs: Vec<(String, &str, f64, Option<search::DocTerms>)> = Vec::new();
        for s in &batch.sessions {
            let old = self.sessions.borrow_mut().insert(s.id.clone(), s.clone());
            let (old, new) = (old.as_ref().and_then(search::title_terms), search::title_terms(s));
            if old != new {
                docs.push((search::title_doc(&s.id), &s.id, s.updated_at, new));
            }
            self.journal(Change::put(Kind::Session, &s.id).from(mark));
        }
        for f in &batch.files {
            self.files.borrow_mut().insert(f.id.clone(), f.clone());
            self.journal(Change::put(Kind::File, &f.id).from(mark));
        }
        for m in &batch.messages {
            let old = self.messages.borrow_mut().insert(m.id.clone(), m.clone());
            let (old, new) = (old.as_ref().and_then(search::message_terms), search::message_terms(m));
            if old != new {
                docs.push((m.id.clone(), &m.session_id, m.timestamp, new));
            }
            self.journal(Change::put(Kind::Message, &m.id).from(mark));
        }
        let docs: Vec<IndexDoc<'_>> = docs.iter().map(|(id, session, at, terms)| IndexDoc { id, session, at: *at, terms: terms.as_ref() }).collect();
        self.index.borrow_mut().put_batch(&docs)?;
        Ok(())
    }

    async fn rebuild_index(&self) -> Result<()> {
        self.index_unreadable.set(false);
        // As a rebuild of IndexedDB does: titles, then messages by id, a
        // page per batch.
        let mut index = crate::segments::MemSegments::default();
        let sessions = self.sessions.borrow();
        let titles: Vec<(String, &SessionRecord, Option<search::DocTerms>)> = sessions.values().map(|s| (search::title_doc(&s.id), s, search::title_terms(s))).collect();
        let docs: Vec<IndexDoc<'_>> = titles.iter().map(|(doc, s, t)| IndexDoc { id: doc, session: &s.id, at: s.updated_at, terms: t.as_ref() }).collect();
        index.put_batch(&docs)?;
        let messages = self.messages.borrow();
        let terms: Vec<(&MessageRecord, Option<search::DocTerms>)> = messages.values().map(|m| (m, search::message_terms(m))).collect();
        for page in terms.chunks(500) {
            let docs: Vec<IndexDoc<'_>> = page.iter().map(|(m, t)| IndexDoc { id: &m.id, session: &m.session_id, at: m.timestamp, terms: t.as_ref() }).collect();
            index.put_batch(&docs)?;
        }
        *self.index.borrow_mut() = index;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn memory_store_passes_conformance() {
        pollster::block_on(crate::conformance::run(&super::MemoryStore::new()));
    }
}
