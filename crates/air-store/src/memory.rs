//! An in-memory [`Store`], for host tests and as a fallback when the
//! browser refuses IndexedDB (private windows of some browsers).

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::{MessageRecord, Result, SessionRecord, Store};

#[derive(Debug, Default)]
pub struct MemoryStore {
    sessions: RefCell<BTreeMap<String, SessionRecord>>,
    messages: RefCell<BTreeMap<String, MessageRecord>>,
    docs: RefCell<BTreeMap<String, String>>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Store for MemoryStore {
    async fn list_sessions(&self) -> Result<Vec<SessionRecord>> {
        let mut all: Vec<_> = self.sessions.borrow().values().cloned().collect();
        all.sort_by(|a, b| b.updated_at.total_cmp(&a.updated_at).then_with(|| a.id.cmp(&b.id)));
        Ok(all)
    }

    async fn get_session(&self, id: &str) -> Result<Option<SessionRecord>> {
        Ok(self.sessions.borrow().get(id).cloned())
    }

    async fn put_session(&self, session: &SessionRecord) -> Result<()> {
        self.sessions.borrow_mut().insert(session.id.clone(), session.clone());
        Ok(())
    }

    async fn delete_session(&self, id: &str) -> Result<()> {
        self.sessions.borrow_mut().remove(id);
        self.messages.borrow_mut().retain(|_, m| m.session_id != id);
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

    async fn put_message(&self, message: &MessageRecord) -> Result<()> {
        self.messages.borrow_mut().insert(message.id.clone(), message.clone());
        Ok(())
    }

    async fn delete_message(&self, id: &str) -> Result<()> {
        self.messages.borrow_mut().remove(id);
        Ok(())
    }

    async fn get_doc(&self, key: &str) -> Result<Option<String>> {
        Ok(self.docs.borrow().get(key).cloned())
    }

    async fn put_doc(&self, key: &str, json: &str) -> Result<()> {
        self.docs.borrow_mut().insert(key.to_owned(), json.to_owned());
        Ok(())
    }

    async fn delete_doc(&self, key: &str) -> Result<()> {
        self.docs.borrow_mut().remove(key);
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
