//! The storage model, with no browser in sight.
//!
//! * [`records`]: what is stored: sessions and messages, as separate records.
//! * [`Store`]: the async interface a backing store provides (IndexedDB in
//!   the browser, [`MemoryStore`] here and in tests).
//! * [`settings`]: the settings record and the key/value interface it lives
//!   behind (localStorage in the browser).
//!
//! Architecture invariant: ids and timestamps are passed in, never made
//! here, so everything in this crate is deterministic.

pub mod conversation;
pub mod memory;
pub mod records;
pub mod settings;
#[cfg(any(test, feature = "test-support"))]
pub mod conformance;

pub use memory::MemoryStore;
pub use records::{MessageRecord, SessionRecord, TITLE_CHARS};
pub use settings::{KeyValue, Settings};

/// Name and version of the database. Bump the version together with a
/// migration step in the browser store.
pub const DB_NAME: &str = "air-agent-db";
pub const DB_VERSION: u32 = 1;
pub const SESSIONS: &str = "sessions";
pub const MESSAGES: &str = "messages";
/// Index of `messages` on `[sessionId, seq]`.
pub const BY_SESSION: &str = "by_session";

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

/// Where sessions and messages live.
///
/// Invariants every implementation keeps (checked by [`conformance`]):
/// sessions list newest `updated_at` first; messages of a session come in
/// `seq` order (ties by id); writing a message never touches another
/// message; deleting a session deletes its messages.
#[allow(async_fn_in_trait)]
pub trait Store {
    async fn list_sessions(&self) -> Result<Vec<SessionRecord>>;
    async fn get_session(&self, id: &str) -> Result<Option<SessionRecord>>;
    async fn put_session(&self, session: &SessionRecord) -> Result<()>;
    /// Deletes the session and all its messages.
    async fn delete_session(&self, id: &str) -> Result<()>;
    async fn messages(&self, session_id: &str) -> Result<Vec<MessageRecord>>;
    /// Inserts or replaces one message (by id).
    async fn put_message(&self, message: &MessageRecord) -> Result<()>;
    async fn delete_message(&self, id: &str) -> Result<()>;
}
