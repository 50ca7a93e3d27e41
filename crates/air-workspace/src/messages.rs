//! Reading stored messages: a page of a session's, or one. The records'
//! reader is heavy, so the platform runs [`read`] in a part fetched with
//! the first conversation opened (`Platform::read_messages`), and a first
//! visit does not carry it; `chat` asks for what it shows.

use air_store::{MessageRecord, Store};

/// What is read.
#[derive(Debug, Clone, PartialEq)]
pub enum Read {
    /// The last `limit` messages of `session` before `before`.
    Page {
        session: String,
        before: Option<f64>,
        limit: usize,
    },
    /// The first `limit` messages of `session` after `after`.
    After {
        session: String,
        after: f64,
        limit: usize,
    },
    /// Message `message` of `session` with up to `limit` messages on each
    /// side (the last `2 * limit` when it is not there any more).
    Around {
        session: String,
        message: String,
        limit: usize,
    },
    One(String),
}

/// What was read.
#[derive(Debug)]
pub enum Got {
    Page(Vec<MessageRecord>),
    /// Messages around one, and whether more exist before and after them.
    Around {
        list: Vec<MessageRecord>,
        older: bool,
        newer: bool,
    },
    One(Option<MessageRecord>),
}

/// Reads `what` (the platform's part).
pub async fn read<S: Store>(store: &S, what: Read) -> Result<Got, air_store::StoreError> {
    match what {
        Read::Page { session, before, limit } => store.messages_page(&session, before, limit).await.map(Got::Page),
        Read::After { session, after, limit } => store.messages_after(&session, after, limit).await.map(Got::Page),
        Read::Around { session, message, limit } => around(store, &session, &message, limit).await,
        Read::One(id) => store.get_message(&id).await.map(Got::One),
    }
}

async fn around<S: Store>(store: &S, session: &str, message: &str, limit: usize) -> Result<Got, air_store::StoreError> {
    let Some(at) = store.get_message(message).await?.filter(|m| m.session_id == session) else {
        let list = store.messages_page(session, None, 2 * limit).await?;
        return Ok(Got::Around { older: list.len() == 2 * limit, list, newer: false });
    };
    let mut list = store.messages_page(session, Some(at.seq), limit).await?;
    let after = store.messages_after(session, at.seq, limit).await?;
    let (older, newer) = (list.len() == limit, after.len() == limit);
    list.push(at);
    list.extend(after);
    Ok(Got::Around { list, older, newer })
}
