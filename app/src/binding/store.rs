//! The store the app runs on: IndexedDB, or memory when the browser refuses
//! IndexedDB (the user is warned that nothing will be kept).

use std::rc::Rc;

use air_store::{MemoryStore, MessageRecord, Result, SessionRecord, Store};
use air_web::IdbStore;
use futures_util::future::LocalBoxFuture;

pub enum AnyStore {
    Idb(IdbStore),
    Memory(Rc<dyn InMemory>),
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
    async fn postings(&self, term: &str, max: usize) -> Result<Vec<air_store::segments::Entry>> {
        delegate!(self, s => s.postings(term, max))
    }
    async fn index_docs(&self, docs: &[air_store::segments::DocNo]) -> Result<Vec<Option<(String, String)>>> {
        delegate!(self, s => s.index_docs(docs))
    }
    async fn compact_index(&self, budget: usize) -> Result<bool> {
        delegate!(self, s => s.compact_index(budget))
    }
    async fn index_pending(&self) -> Result<bool> {
        match self {
            AnyStore::Idb(s) => s.index_pending().await,
            AnyStore::Memory(_) => Ok(false),
        }
    }
    async fn index_hits(&self, docs: &[air_store::segments::DocNo]) -> Result<(Vec<Option<(String, String)>>, air_store::batch::Batch)> {
        match self {
            AnyStore::Idb(s) => s.index_hits(docs).await,
            AnyStore::Memory(_) => {
                let refs = self.index_docs(docs).await?;
                let read = self.get_batch(&air_store::search::hit_ids(&refs)).await?;
                Ok((refs, read))
            }
        }
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
    async fn messages_after(&self, session_id: &str, after: f64, limit: usize) -> Result<Vec<MessageRecord>> {
        delegate!(self, s => s.messages_after(session_id, after, limit))
    }
    async fn put_file(&self, file: &air_store::FileRecord) -> Result<()> {
        delegate!(self, s => s.put_file(file))
    }
    async fn get_file(&self, id: &str) -> Result<Option<air_store::FileRecord>> {
        delegate!(self, s => s.get_file(id))
    }
    async fn get_file_head(&self, id: &str, max: usize) -> Result<Option<air_store::FileRecord>> {
        match self {
            AnyStore::Idb(s) => s.get_file_head(id, max).await,
            AnyStore::Memory(s) => Ok(s.get_file(id).await?.map(|mut f| {
                f.bytes.truncate(max);
                f
            })),
        }
    }
    async fn put_message(&self, message: &MessageRecord) -> Result<()> {
        delegate!(self, s => s.put_message(message))
    }
    async fn put_message_parts(&self, message: &MessageRecord, parts: &[&str]) -> Result<()> {
        match self {
            AnyStore::Idb(s) => s.put_message_parts(message, parts).await,
            AnyStore::Memory(s) => s.put_message(&message.with_text(parts)).await,
        }
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
    async fn doc_keys(&self, prefix: &str) -> Result<Vec<String>> {
        delegate!(self, s => s.doc_keys(prefix))
    }
    async fn put_batch(&self, batch: &air_store::batch::Batch) -> Result<()> {
        match self {
            AnyStore::Idb(s) => s.put_batch(batch).await,
            AnyStore::Memory(_) => air_store::batch::put_each(self, batch).await,
        }
    }
    async fn get_batch(&self, ids: &air_store::batch::Ids) -> Result<air_store::batch::Batch> {
        match self {
            AnyStore::Idb(s) => s.get_batch(ids).await,
            AnyStore::Memory(_) => air_store::batch::get_each(self, ids).await,
        }
    }
}

/// Sync keeps its bookkeeping in IndexedDB; a store in memory keeps
/// nothing, so there is nothing to sync.
impl air_store::SyncMeta for AnyStore {
    async fn sync_get(&self, keys: &[String]) -> Result<Vec<Option<String>>> {
        self.syncing()?.sync_get(keys).await
    }
    async fn sync_put(&self, items: &[(String, String)]) -> Result<()> {
        self.syncing()?.sync_put(items).await
    }
    async fn rejournal(&self, changes: &[air_store::journal::Change]) -> Result<()> {
        self.syncing()?.rejournal(changes).await
    }
    async fn journal_last(&self) -> Result<air_store::journal::Seq> {
        self.syncing()?.journal_last().await
    }
    async fn journal_count(&self, after: air_store::journal::Seq) -> Result<u64> {
        self.syncing()?.journal_count(after).await
    }
}

impl AnyStore {
    fn syncing(&self) -> Result<&IdbStore> {
        match self {
            AnyStore::Idb(s) => Ok(s),
            AnyStore::Memory(_) => Err(air_store::StoreError::Unavailable("this browser keeps nothing here (a private window?), so there is nothing to sync".into())),
        }
    }

    /// An object URL showing a stored file (an image), or `None` when it
    /// is not stored.
    pub async fn file_url(&self, id: &str) -> Option<String> {
        // Shown as an image whatever type the file was stored with.
        air_web::image_url(&self.file_blob(id).await?)
    }

    /// A stored file as a Blob, or `None` when it is not stored.
    /// IndexedDB hands the Blob over without a copy.
    pub async fn file_blob(&self, id: &str) -> Option<leptos::web_sys::Blob> {
        match self {
            AnyStore::Idb(s) => s.file_blob(id).await.ok().flatten(),
            AnyStore::Memory(s) => {
                let f = s.get_file(id).await.ok().flatten()?;
                air_web::bytes_blob(&f.bytes, &f.mime).ok()
            }
        }
    }
}

/// What the store in memory answers, boxed.
type Kept<'a, T> = LocalBoxFuture<'a, Result<T>>;

/// The store in memory, reached through a vtable made in the part that
/// makes it (`memory_store`): its code is fetched only when the browser
/// refuses IndexedDB.
pub trait InMemory {
    fn list_sessions(&self) -> Kept<'_, Vec<SessionRecord>>;
    fn sessions_page<'a>(&'a self, after: Option<&'a air_store::SessionCursor>, limit: usize) -> Kept<'a, Vec<SessionRecord>>;
    fn get_session<'a>(&'a self, id: &'a str) -> Kept<'a, Option<SessionRecord>>;
    fn put_session<'a>(&'a self, session: &'a SessionRecord) -> Kept<'a, ()>;
    fn touch_session<'a>(&'a self, id: &'a str, at: f64) -> Kept<'a, Option<SessionRecord>>;
    fn delete_session<'a>(&'a self, id: &'a str) -> Kept<'a, ()>;
    fn messages<'a>(&'a self, session_id: &'a str) -> Kept<'a, Vec<MessageRecord>>;
    fn messages_page<'a>(&'a self, session_id: &'a str, before: Option<f64>, limit: usize) -> Kept<'a, Vec<MessageRecord>>;
    fn messages_after<'a>(&'a self, session_id: &'a str, after: f64, limit: usize) -> Kept<'a, Vec<MessageRecord>>;
    fn get_message<'a>(&'a self, id: &'a str) -> Kept<'a, Option<MessageRecord>>;
    fn put_message<'a>(&'a self, message: &'a MessageRecord) -> Kept<'a, ()>;
    fn delete_message<'a>(&'a self, id: &'a str) -> Kept<'a, ()>;
    fn put_file<'a>(&'a self, file: &'a air_store::FileRecord) -> Kept<'a, ()>;
    fn get_file<'a>(&'a self, id: &'a str) -> Kept<'a, Option<air_store::FileRecord>>;
    fn get_doc<'a>(&'a self, key: &'a str) -> Kept<'a, Option<String>>;
    fn put_doc<'a>(&'a self, key: &'a str, json: &'a str) -> Kept<'a, ()>;
    fn delete_doc<'a>(&'a self, key: &'a str) -> Kept<'a, ()>;
    fn doc_keys<'a>(&'a self, prefix: &'a str) -> Kept<'a, Vec<String>>;
    fn index_stats(&self) -> Kept<'_, Option<air_store::search::IndexStats>>;
    fn postings<'a>(&'a self, term: &'a str, max: usize) -> Kept<'a, Vec<air_store::segments::Entry>>;
    fn index_docs<'a>(&'a self, docs: &'a [air_store::segments::DocNo]) -> Kept<'a, Vec<Option<(String, String)>>>;
    fn compact_index(&self, budget: usize) -> Kept<'_, bool>;
    fn rebuild_index(&self) -> Kept<'_, ()>;
    fn journal_since(&self, after: air_store::journal::Seq, limit: usize) -> Kept<'_, Vec<air_store::journal::Entry>>;
}

impl InMemory for MemoryStore {
    fn list_sessions(&self) -> Kept<'_, Vec<SessionRecord>> {
        Box::pin(Store::list_sessions(self))
    }
    fn sessions_page<'a>(&'a self, after: Option<&'a air_store::SessionCursor>, limit: usize) -> Kept<'a, Vec<SessionRecord>> {
        Box::pin(Store::sessions_page(self, after, limit))
    }
    fn get_session<'a>(&'a self, id: &'a str) -> Kept<'a, Option<SessionRecord>> {
        Box::pin(Store::get_session(self, id))
    }
    fn put_session<'a>(&'a self, session: &'a SessionRecord) -> Kept<'a, ()> {
        Box::pin(Store::put_session(self, session))
    }
    fn touch_session<'a>(&'a self, id: &'a str, at: f64) -> Kept<'a, Option<SessionRecord>> {
        Box::pin(Store::touch_session(self, id, at))
    }
    fn delete_session<'a>(&'a self, id: &'a str) -> Kept<'a, ()> {
        Box::pin(Store::delete_session(self, id))
    }
    fn messages<'a>(&'a self, session_id: &'a str) -> Kept<'a, Vec<MessageRecord>> {
        Box::pin(Store::messages(self, session_id))
    }
    fn messages_page<'a>(&'a self, session_id: &'a str, before: Option<f64>, limit: usize) -> Kept<'a, Vec<MessageRecord>> {
        Box::pin(Store::messages_page(self, session_id, before, limit))
    }
    fn messages_after<'a>(&'a self, session_id: &'a str, after: f64, limit: usize) -> Kept<'a, Vec<MessageRecord>> {
        Box::pin(Store::messages_after(self, session_id, after, limit))
    }
    fn get_message<'a>(&'a self, id: &'a str) -> Kept<'a, Option<MessageRecord>> {
        Box::pin(Store::get_message(self, id))
    }
    fn put_message<'a>(&'a self, message: &'a MessageRecord) -> Kept<'a, ()> {
        Box::pin(Store::put_message(self, message))
    }
    fn delete_message<'a>(&'a self, id: &'a str) -> Kept<'a, ()> {
        Box::pin(Store::delete_message(self, id))
    }
    fn put_file<'a>(&'a self, file: &'a air_store::FileRecord) -> Kept<'a, ()> {
        Box::pin(Store::put_file(self, file))
    }
    fn get_file<'a>(&'a self, id: &'a str) -> Kept<'a, Option<air_store::FileRecord>> {
        Box::pin(Store::get_file(self, id))
    }
    fn get_doc<'a>(&'a self, key: &'a str) -> Kept<'a, Option<String>> {
        Box::pin(Store::get_doc(self, key))
    }
    fn put_doc<'a>(&'a self, key: &'a str, json: &'a str) -> Kept<'a, ()> {
        Box::pin(Store::put_doc(self, key, json))
    }
    fn delete_doc<'a>(&'a self, key: &'a str) -> Kept<'a, ()> {
        Box::pin(Store::delete_doc(self, key))
    }
    fn doc_keys<'a>(&'a self, prefix: &'a str) -> Kept<'a, Vec<String>> {
        Box::pin(Store::doc_keys(self, prefix))
    }
    fn index_stats(&self) -> Kept<'_, Option<air_store::search::IndexStats>> {
        Box::pin(Store::index_stats(self))
    }
    fn postings<'a>(&'a self, term: &'a str, max: usize) -> Kept<'a, Vec<air_store::segments::Entry>> {
        Box::pin(Store::postings(self, term, max))
    }
    fn index_docs<'a>(&'a self, docs: &'a [air_store::segments::DocNo]) -> Kept<'a, Vec<Option<(String, String)>>> {
        Box::pin(Store::index_docs(self, docs))
    }
    fn compact_index(&self, budget: usize) -> Kept<'_, bool> {
        Box::pin(Store::compact_index(self, budget))
    }
    fn rebuild_index(&self) -> Kept<'_, ()> {
        Box::pin(Store::rebuild_index(self))
    }
    fn journal_since(&self, after: air_store::journal::Seq, limit: usize) -> Kept<'_, Vec<air_store::journal::Entry>> {
        Box::pin(Store::journal_since(self, after, limit))
    }
}
