//! Reading stored messages: a page of a session's, or one. The records'
//! reader is heavy, so the platform runs [`read`] in a part fetched with
//! the first conversation opened (`Platform::read_messages`), and a first
//! visit does not carry it; `chat` asks for what it shows.

use air_store::{MessageRecord, Store};

/// What is read.
#[derive(Debug, Clone, PartialEq)]
pub enum Read {
    /// The last `limit` messages of `session` before `before`.
    Page { session: String, before: Option<f64>, limit: usize },
    One(String),
}

/// What was read.
#[derive(Debug)]
pub enum Got {
    Page(Vec<MessageRecord>),
    One(Option<MessageRecord>),
}

/// Reads `what` (the platform's part).
pub async fn read<S: Store>(store: &S, what: Read) -> Result<Got, air_store::StoreError> {
    match what {
        Read::Page { session, before, limit } => store.messages_page(&session, before, limit).await.map(Got::Page),
        Read::One(id) => store.get_message(&id).await.map(Got::One),
    }
}
