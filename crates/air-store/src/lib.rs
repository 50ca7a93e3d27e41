//! The storage model, with no browser in sight.
//!
//! * [`records`]: what is stored: sessions and messages, as separate records.
//! * [`Store`]: the async interface a backing store provides (IndexedDB in
//!   the browser, [`MemoryStore`] here and in tests).
//! * [`settings`]: the settings record and the key/value interface it lives
//!   behind (localStorage in the browser); [`keys`]: every key kept there,
//!   typed; [`language`]: the UI language, the one picked or else the
//!   browser's.
//!
//! Architecture invariant: ids and timestamps are passed in, never made
//! here, so everything in this crate is deterministic.

pub mod assistants;
pub mod batch;
pub mod branches;
pub mod doc;
pub mod export;
pub mod files;
pub mod http_tools;
pub mod import;
pub mod journal;
pub mod keys;
pub mod kv;
pub mod language;
pub mod log;
pub mod mcp;
pub mod memory;
pub mod migrate;
pub mod providers;
pub mod records;
pub mod settings;
pub mod search;
pub mod segments;
pub mod sync;
pub mod sync_meta;
#[cfg(any(test, feature = "test-support"))]
pub mod conformance;

pub use memory::MemoryStore;
pub use records::{Attachment, FileRecord, MessageRecord, SessionRecord, TITLE_CHARS};
pub use kv::KeyValue;
pub use sync_meta::SyncMeta;
pub use settings::Settings;

/// Name and version of the database. Bump the version together with a
/// migration step in the browser store.
pub const DB_NAME: &str = "air-agent-db";
///
/// * 1: `sessions` and `messages` (index `by_session`).
/// * 2: adds `meta` (out-of-line keys) holding the record format in use
///   under [`FORMAT_KEY`], and the `by_updated` index of `sessions`; the
///   records are rewritten in the current format (errors as structured
///   values instead of text).
/// * 3: adds the `by_activity` index of `sessions`, on `[updatedAt, id]`,
///   which pages of the session list are read through, and the search
///   index: `terms` (key `[t, d]`: a term and a document, index
///   `by_term_at` on `[t, at]`) with its totals in `meta` under
///   [`INDEX_KEY`].
/// * 4: adds `files` (key `id`, index `by_session` on `sessionId`): the
///   bytes of attached files, as Blobs.
/// * 5: adds `journal` (key `seq`, index `by_record` on `[kind, id]`): the
///   change feed ([`journal`]), its last sequence number in `meta` under
///   [`JOURNAL_SEQ_KEY`]. Records written before it have no entry.
/// * 6: the search index in segments: `segs` and `searchDocs` (index
///   `by_id`) replace `terms` ([`segments`]); the index is rebuilt.
pub const DB_VERSION: u32 = 6;
/// The change feed's entries ([`journal::Entry`]).
pub const JOURNAL: &str = "journal";
/// Index of `journal` on `[kind, id]`: a record's entry.
pub const BY_RECORD: &str = "by_record";
/// Key in `meta` of the last sequence number the journal gave out.
pub const JOURNAL_SEQ_KEY: &str = "journalSeq";
/// Attached files' bytes ([`FileRecord`]s).
pub const FILES: &str = "files";
pub const SESSIONS: &str = "sessions";
pub const MESSAGES: &str = "messages";
pub const META: &str = "meta";
/// Index of `messages` on `[sessionId, seq]`.
pub const BY_SESSION: &str = "by_session";
/// Index of `sessions` on `updatedAt` (last activity).
pub const BY_UPDATED: &str = "by_updated";
/// Index of `sessions` on `[updatedAt, id]`: the list's order, exactly.
pub const BY_ACTIVITY: &str = "by_activity";
/// The search index's segments ([`segments`]), key `[k, i]`: a term or
/// bucket, and a segment id.
pub const SEGS: &str = "segs";
/// The search index's document blocks ([`segments::DocBlock`]), key `n`.
pub const SEARCH_DOCS: &str = "searchDocs";
/// Multi-entry index of `searchDocs` on `ids`: a document's block.
pub const BY_ID: &str = "by_id";
/// Key in `meta` of the numbers of documents no longer indexed
/// ([`segments::Tombstones`], as bytes).
pub const DEAD_KEY: &str = "searchDead";
/// Prefix of the keys in `meta` of the keys whose segments may need
/// merging, one entry each.
pub const WORK_KEY: &str = "searchWork";
/// Prefix of the keys in `meta` of the sessions whose title is yet to be
/// indexed ([`Store::index_pending`]), one entry each.
pub const TITLE_KEY: &str = "searchTitle";
/// Key in `meta` of the search index's totals ([`search::IndexStats`], as JSON).
pub const INDEX_KEY: &str = "searchIndex";
/// Key in `meta` of the record format the stored records are in.
pub const FORMAT_KEY: &str = "recordFormat";
/// The record format this version writes ([`migrate`] brings older
/// records up to it).
///
/// * 1: errors as text.
/// * 2: errors as structured values.
/// * 3: messages name the message they follow (`parent`).
pub const RECORD_FORMAT: u32 = 3;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StoreError {
    #[error("storage is not available: {0}")]
    Unavailable(String),
    #[error("storage is full: {0}")]
    QuotaExceeded(String),
    #[error("a stored record could not be read: {0}")]
    Corrupt(String),
    #[error("storage error: {0}")]
    Other(String),
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// A position in the session list: the list is ordered by last activity,
/// newest first, and among sessions of the same moment by id, larger
/// first ([`activity_order`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionCursor {
    pub updated_at: f64,
    pub id: String,
}

impl SessionCursor {
    pub fn of(session: &SessionRecord) -> Self {
        Self { updated_at: session.updated_at, id: session.id.clone() }
    }

    /// The session comes after this position in the list.
    pub fn is_before(&self, session: &SessionRecord) -> bool {
        activity_order(&self.updated_at, &self.id, &session.updated_at, &session.id) == std::cmp::Ordering::Less
    }
}

/// The session list's order: newest activity first, then larger id first.
pub fn activity_order(a_updated: &f64, a_id: &str, b_updated: &f64, b_id: &str) -> std::cmp::Ordering {
    b_updated.total_cmp(a_updated).then_with(|| b_id.cmp(a_id))
}

/// Sorts sessions into the list's order.
pub fn sort_by_activity(list: &mut [SessionRecord]) {
    list.sort_by(|a, b| activity_order(&a.updated_at, &a.id, &b.updated_at, &b.id));
}

/// Where sessions and messages live.
///
/// Invariants every implementation keeps (checked by [`conformance`]):
/// sessions list newest `updated_at` first (ties: larger id first), and a
/// page of them reads only that page; messages of a session come in
/// `seq` order (ties by id); writing a message never touches another
/// message; deleting a session deletes its messages; every record a write
/// puts or removes gets one journal entry with a sequence number above all
/// before it, in place of its earlier one.
#[allow(async_fn_in_trait)]
pub trait Store {
    async fn list_sessions(&self) -> Result<Vec<SessionRecord>>;
    /// The `limit` sessions that follow `after` in the list (from its
    /// start when `None`), in the list's order.
    async fn sessions_page(&self, after: Option<&SessionCursor>, limit: usize) -> Result<Vec<SessionRecord>>;
    async fn get_session(&self, id: &str) -> Result<Option<SessionRecord>>;
    async fn put_session(&self, session: &SessionRecord) -> Result<()>;
    /// Marks a session as active at `at`, changing nothing else of it
    /// (read and written at once, so a rename meanwhile is kept); returns
    /// it as stored (`None`: there is no such session).
    async fn touch_session(&self, id: &str, at: f64) -> Result<Option<SessionRecord>>;
    /// Deletes the session, all its messages and their files.
    async fn delete_session(&self, id: &str) -> Result<()>;
    async fn messages(&self, session_id: &str) -> Result<Vec<MessageRecord>>;
    /// The last `limit` messages of a session with `seq` below `before`
    /// (all, when `None`), in order: one page of a long session.
    async fn messages_page(&self, session_id: &str, before: Option<f64>, limit: usize) -> Result<Vec<MessageRecord>>;
    /// The first `limit` messages of a session with `seq` above `after`,
    /// in order: the page after those shown (reading on from a search hit).
    async fn messages_after(&self, session_id: &str, after: f64, limit: usize) -> Result<Vec<MessageRecord>>;
    async fn get_message(&self, id: &str) -> Result<Option<MessageRecord>>;
    /// Inserts or replaces one message (by id), and its terms in the
    /// search index (a session's title is, with `put_session` or, in a store
    /// that defers it, by `index_pending`).
    async fn put_message(&self, message: &MessageRecord) -> Result<()>;
    /// [`Store::put_message`] for a message whose text is `parts`, one after
    /// another (its `content` is not read): a long answer kept in pieces
    /// while it streams is saved without first being copied into one
    /// string. A store that cannot do better joins them.
    async fn put_message_parts(&self, message: &MessageRecord, parts: &[&str]) -> Result<()> {
        self.put_message(&message.with_text(parts)).await
    }
    /// Deletes one message, and the files it names that no other message
    /// of its session names.
    async fn delete_message(&self, id: &str) -> Result<()>;
    /// Inserts or replaces an attached file's bytes (by id).
    async fn put_file(&self, file: &FileRecord) -> Result<()>;
    async fn get_file(&self, id: &str) -> Result<Option<FileRecord>>;
    /// A small document kept beside the conversations, as JSON text, by
    /// key (the MCP tool catalog, a conversation's loaded tools).
    async fn get_doc(&self, key: &str) -> Result<Option<String>>;
    async fn put_doc(&self, key: &str, json: &str) -> Result<()>;
    async fn delete_doc(&self, key: &str) -> Result<()>;
    /// The keys of the documents whose key begins with `prefix`, in key
    /// order (every conversation's loaded tools: `mcp-loaded/`).
    async fn doc_keys(&self, prefix: &str) -> Result<Vec<String>>;
    /// The search index's totals (`None`: there is no index yet, or it
    /// cannot be read: it must be rebuilt).
    async fn index_stats(&self) -> Result<Option<search::IndexStats>>;
    /// The search index's entries for `term`, most recent first (ties:
    /// the later indexed first), at most `max`; those of documents no
    /// longer indexed are left out.
    async fn postings(&self, term: &str, max: usize) -> Result<Vec<segments::Entry>>;
    /// The id and session of indexed documents, by number (`None`: no
    /// longer indexed).
    async fn index_docs(&self, docs: &[segments::DocNo]) -> Result<Vec<Option<(String, String)>>>;
    /// The documents numbered `docs` as [`Store::index_docs`] finds them,
    /// with the sessions and messages they name: a search's hits, which a
    /// store may read together.
    async fn index_hits(&self, docs: &[segments::DocNo]) -> Result<(Vec<Option<(String, String)>>, batch::Batch)> {
        let refs = self.index_docs(docs).await?;
        let read = self.get_batch(&search::hit_ids(&refs)).await?;
        Ok((refs, read))
    }
    /// Indexes what a write left for the index to take in later (the
    /// IndexedDB store indexes titles so, sparing the first page load the
    /// index's code); [`search::run`] calls it as it reads, and reads
    /// again when it returns true (something was indexed).
    async fn index_pending(&self) -> Result<bool> {
        Ok(false)
    }
    /// Builds the search index again from every stored message and title.
    async fn rebuild_index(&self) -> Result<()>;
    /// One step of the search index's background work (merging its
    /// segments), about `budget` entries; false when none is left.
    async fn compact_index(&self, _budget: usize) -> Result<bool> {
        Ok(false)
    }
    /// The journal's entries after `after`, oldest first, at most `limit`:
    /// every record a write put or removed since, once, by its latest
    /// change ([`journal`]).
    async fn journal_since(&self, after: journal::Seq, limit: usize) -> Result<Vec<journal::Entry>>;
    /// Writes every record of `batch` as `put_session`, `put_file` and
    /// `put_message` would (in that order; an id twice: the later), at
    /// once where the store can.
    async fn put_batch(&self, batch: &batch::Batch) -> Result<()> {
        batch::put_each(self, batch).await
    }
    /// Reads the records named, at once where the store can; those that
    /// do not exist are left out.
    async fn get_batch(&self, ids: &batch::Ids) -> Result<batch::Batch> {
        batch::get_each(self, ids).await
    }
}

#[cfg(test)]
mod search_tests {
    use super::*;
    use air_chat::Role;

    #[test]
    fn search_matches_titles_and_message_text_case_insensitively() {
        pollster::block_on(async {
            let store = MemoryStore::new();
            let mut a = SessionRecord::new("a", 1.0);
            a.rename("Trip to Kyoto", 1.0);
            let b = SessionRecord::new("b", 2.0);
            let c = SessionRecord::new("c", 3.0);
            for s in [&a, &b, &c] {
                store.put_session(s).await.ok();
            }
            store.put_message(&MessageRecord::new("m1", "b", 1.0, Role::Assistant, "The KYOTO temples are old")).await.ok();
            store.put_message(&MessageRecord::new("m2", "c", 1.0, Role::User, "unrelated")).await.ok();
            let found = |q: &'static str| {
                let store = &store;
                async move { search::run(store, q, 10).await.ok().map(|r| r.hits.into_iter().map(|h| h.session_id).collect::<Vec<_>>()) }
            };
            // Both match once; the title is shorter, so it ranks first.
            assert_eq!(found("kyoto").await, Some(vec!["a".to_owned(), "b".to_owned()]));
            assert_eq!(found("nothing like this").await, Some(vec![]));
        });
    }
}
