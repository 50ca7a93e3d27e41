//! The store the app runs on: IndexedDB, or memory when the browser refuses
//! IndexedDB (the user is warned that nothing will be kept).

use air_store::{MemoryStore, MessageRecord, Result, SessionRecord, Store};
use air_web::IdbStore;

pub enum AnyStore {
    Idb(IdbStore),
    Memory(MemoryStore),
}

macro_rules! delegate {
    ($self:ident, $s:ident => $call:expr) => {
        match $self {
            AnyStore::Idb($s) => $call.await,
            AnyStore::Memory($s) => $call.await,
        }
    };
}

impl Store for AnyStore {
    async fn list_sessions(&self) -> Result<Vec<SessionRecord>> {
        delegate!(self, s => s.list_sessions())
    }
    async fn touch_session(&self, id: &str, at: f64) -> Result<Option<SessionRecord>> {
        delegate!(self, s => s.touch_session(id, at))
    }
    async fn get_message(&self, id: &str) -> Result<Option<MessageRecord>> {
        delegate!(self, s => s.get_message(id))
    }
    async fn index_stats(&self) -> Result<Option<air_store::search::IndexStats>> {
        delegate!(self, s => s.index_stats())
    }
    async fn postings(&self, term: &str, max: usize) -> Result<Vec<air_store::search::Posting>> {
        delegate!(self, s => s.postings(term, max))
    }
    async fn rebuild_index(&self) -> Result<()> {
        delegate!(self, s => s.rebuild_index())
    }
    async fn journal_since(&self, after: air_store::journal::Seq, limit: usize) -> Result<Vec<air_store::journal::Entry>> {
        delegate!(self, s => s.journal_since(after, limit))
    }
    async fn sessions_page(&self, after: Option<&air_store::SessionCursor>, limit: usize) -> Result<Vec<SessionRecord>> {
        delegate!(self, s => s.sessions_page(after, limit))
    }
    async fn get_session(&self, id: &str) -> Result<Option<SessionRecord>> {
        delegate!(self, s => s.get_session(id))
    }
    async fn put_session(&self, session: &SessionRecord) -> Result<()> {
        delegate!(self, s => s.put_session(session))
    }
    async fn delete_session(&self, id: &str) -> Result<()> {
        delegate!(self, s => s.delete_session(id))
    }
    async fn messages(&self, session_id: &str) -> Result<Vec<MessageRecord>> {
        delegate!(self, s => s.messages(session_id))
    }
    async fn messages_page(&self, session_id: &str, before: Option<f64>, limit: usize) -> Result<Vec<MessageRecord>> {
        delegate!(self, s => s.messages_page(session_id, before, limit))
    }
    async fn put_file(&self, file: &air_store::FileRecord) -> Result<()> {
        delegate!(self, s => s.put_file(file))
    }
    async fn get_file(&self, id: &str) -> Result<Option<air_store::FileRecord>> {
        delegate!(self, s => s.get_file(id))
    }
    async fn put_message(&self, message: &MessageRecord) -> Result<()> {
        delegate!(self, s => s.put_message(message))
    }
    async fn delete_message(&self, id: &str) -> Result<()> {
        delegate!(self, s => s.delete_message(id))
    }
    async fn get_doc(&self, key: &str) -> Result<Option<String>> {
        delegate!(self, s => s.get_doc(key))
    }
    async fn put_doc(&self, key: &str, json: &str) -> Result<()> {
        delegate!(self, s => s.put_doc(key, json))
    }
    async fn delete_doc(&self, key: &str) -> Result<()> {
        delegate!(self, s => s.delete_doc(key))
    }
}

impl AnyStore {
    /// An object URL showing a stored file (an image), or `None` when it
    /// is not stored. IndexedDB hands the Blob over without a copy.
    pub async fn file_url(&self, id: &str) -> Option<String> {
        let blob = match self {
            AnyStore::Idb(s) => s.file_blob(id).await.ok().flatten()?,
            AnyStore::Memory(s) => {
                let f = s.get_file(id).await.ok().flatten()?;
                air_web::bytes_blob(&f.bytes, &f.mime).ok()?
            }
        };
        air_web::blob_url(&blob)
    }
}
