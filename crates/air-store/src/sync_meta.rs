//! What sync keeps beside the records ([`SyncMeta`]): each record's
//! revisions and the replication's checkpoints, as text under keys of its
//! own. Never journaled: keeping them is not an edit to send.

use serde::{Deserialize, Serialize};

use crate::journal::{Change, Seq};
use crate::kv::{Flag, Key, Raw};
use crate::{MemoryStore, Result};

/// Where sync's settings are kept, as JSON ([`SyncSettings`]; the
/// password and passphrase with them, as the API key is: on this device
/// only, never exported). The page's first module keeps them as text and
/// reads only [`ON_KEY`]: what reads them is fetched when sync runs.
pub const SETTINGS_KEY: Key<String, Raw> = Key::new("air-agent-sync");
/// Sync is on and set up (a database URL).
pub const ON_KEY: Key<bool, Flag> = Key::new("air-agent-sync.on");

/// Settings → Sync.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SyncSettings {
    /// The database's URL (`https://couch.example:5984/chats`).
    pub url: String,
    pub user: String,
    pub password: String,
    /// Encrypts what the server keeps (empty: plain).
    pub passphrase: String,
    /// The passphrase was typed twice: a device may create the encrypted
    /// database with it (one typed once only opens a database set up).
    pub confirmed: bool,
    /// Sync runs.
    pub on: bool,
    /// This device, in what it writes (made once).
    pub device: String,
}

/// Without the password and passphrase.
impl std::fmt::Debug for SyncSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hidden = |s: &str| if s.is_empty() { "" } else { "***" };
        f.debug_struct("SyncSettings")
            .field("url", &self.url)
            .field("user", &self.user)
            .field("password", &hidden(&self.password))
            .field("passphrase", &hidden(&self.passphrase))
            .field("confirmed", &self.confirmed)
            .field("on", &self.on)
            .field("device", &self.device)
            .finish()
    }
}

impl SyncSettings {
    /// Set up enough to run.
    pub fn ready(&self) -> bool {
        self.on && !self.url.trim().is_empty()
    }

    /// As kept ([`SETTINGS_KEY`]): none, or unreadable, are the defaults.
    pub fn read(text: &str) -> Self {
        serde_json::from_str(text).unwrap_or_default()
    }

    pub fn text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Prefix of sync's keys in the store's `meta` (IndexedDB); no document
/// key starts with it.
pub const SYNC_PREFIX: &str = "sync:";

#[allow(async_fn_in_trait)]
pub trait SyncMeta {
    /// The values under `keys`, in order.
    async fn sync_get(&self, keys: &[String]) -> Result<Vec<Option<String>>>;
    /// Writes `items` (key, value), all or none.
    async fn sync_put(&self, items: &[(String, String)]) -> Result<()>;
    /// Notes records in the journal again, unchanged: their revisions
    /// changed, and the next push must see them.
    async fn rejournal(&self, changes: &[Change]) -> Result<()>;
    /// The last sequence number the journal gave out.
    async fn journal_last(&self) -> Result<Seq>;
    /// How many journal entries follow `after`.
    async fn journal_count(&self, after: Seq) -> Result<u64>;
}

impl SyncMeta for MemoryStore {
    async fn sync_get(&self, keys: &[String]) -> Result<Vec<Option<String>>> {
        let kept = self.sync.borrow();
        Ok(keys.iter().map(|k| kept.get(k).cloned()).collect())
    }

    async fn sync_put(&self, items: &[(String, String)]) -> Result<()> {
        let mut kept = self.sync.borrow_mut();
        for (k, v) in items {
            kept.insert(k.clone(), v.clone());
        }
        Ok(())
    }

    async fn rejournal(&self, changes: &[Change]) -> Result<()> {
        for c in changes {
            self.journal_change(c.clone());
        }
        Ok(())
    }

    async fn journal_last(&self) -> Result<Seq> {
        Ok(self.journal_last_seq())
    }

    async fn journal_count(&self, after: Seq) -> Result<u64> {
        Ok(crate::Store::journal_since(self, after, usize::MAX).await?.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::Kind;
    use crate::{SessionRecord, Store};
    use pollster::block_on as run;

    #[test]
    fn sync_keeps_its_own_and_the_journal_only_what_it_is_told() {
        let store = MemoryStore::new();
        run(store.put_session(&SessionRecord::new("s1", 1.0))).unwrap();
        assert_eq!(run(store.journal_last()).unwrap(), 1);
        run(store.sync_put(&[("sync:rev:a".into(), "{}".into()), ("sync:local:x".into(), "1".into())])).unwrap();
        assert_eq!(run(store.journal_last()).unwrap(), 1, "keeping sync's own is no edit");
        assert_eq!(run(store.sync_get(&["sync:local:x".into(), "sync:rev:b".into()])).unwrap(), [Some("1".into()), None]);
        run(store.rejournal(&[Change::put(Kind::Session, "s1")])).unwrap();
        let entries = run(store.journal_since(0, 10)).unwrap();
        assert_eq!(entries, [Change::put(Kind::Session, "s1").at(2)]);
        assert_eq!(run(store.journal_last()).unwrap(), 2);
    }

    #[test]
    fn the_password_and_passphrase_are_never_printed() {
        let s = SyncSettings { url: "https://c.test/db".into(), user: "ana".into(), password: "hunter2".into(), passphrase: "open sesame".into(), confirmed: true, on: true, device: "d".into() };
        let printed = format!("{s:?}");
        assert!(printed.contains("ana") && printed.contains("***"), "{printed}");
        assert!(!printed.contains("hunter2") && !printed.contains("sesame"), "{printed}");
    }
}
