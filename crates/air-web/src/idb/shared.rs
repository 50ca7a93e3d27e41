//! Files more than one message names: an edited and resent message names
//! the same files as the one it replaces, so deleting one message must not
//! delete a file the other still shows.

use std::collections::HashSet;

use air_store::{BY_SESSION, MESSAGES};

use super::{err, from_js, session_range};

/// Of a stored message, only the ids of the files it names (the rest is
/// left in JavaScript).
#[derive(serde::Deserialize)]
struct Named {
    #[serde(default)]
    attachments: Vec<FileId>,
}

#[derive(serde::Deserialize)]
struct FileId {
    id: String,
}

/// The ids of the files the stored messages of `session_id` name, read in
/// `tx` (which must hold `messages`).
pub(super) async fn named(tx: &rexie::Transaction, session_id: &str) -> air_store::Result<HashSet<String>> {
    let index = tx.store(MESSAGES).map_err(err)?.index(BY_SESSION).map_err(err)?;
    let mut ids = HashSet::new();
    for v in index.get_all(Some(session_range(session_id)?), None).await.map_err(err)? {
        // A record that cannot be read is passed over (reading it reports it).
        if let Ok(m) = from_js::<Named>(v) {
            ids.extend(m.attachments.into_iter().map(|a| a.id));
        }
    }
    Ok(ids)
}
