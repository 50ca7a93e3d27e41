//! A device for the sync tests: its store and key/value store, the keys of
//! one database, a clock; one pass as the app makes it.

use std::cell::Cell;

use air_store::kv::MemoryKv;
use air_store::mcp::{self, McpServer};
use air_store::settings;
use air_store::{MemoryStore, Settings};
use air_sync::{MemoryPeer, Options, replicate};
use air_sync_local::StorePeer;
use air_sync_local::crypto::Keys;
use air_sync_local::envelope::{Config, new_config, unlock};
use air_sync_local::soft::{SoftCrypto, SoftKeys};
use air_sync_local::store_peer::Tally;
use pollster::block_on as run;

use crate::sync::prefs::{Secrets, notice};
use crate::sync::store::{AppKinds, StoreRecords};

pub(crate) struct Device {
    pub name: &'static str,
    pub store: MemoryStore,
    pub kv: MemoryKv,
    pub keys: SoftKeys,
    pub clock: Cell<f64>,
}

/// What one pass did.
pub(crate) struct Pass {
    pub up: u64,
    pub down: u64,
    /// A preference pulled was written.
    pub prefs: bool,
    pub moved: Tally,
}

impl Device {
    pub fn new(name: &'static str, config: &Config) -> Self {
        let keys = run(unlock(&SoftCrypto::default(), config, Some("pass"))).unwrap();
        Self { name, store: MemoryStore::new(), kv: MemoryKv::default(), keys, clock: Cell::new(1_000.0) }
    }

    /// One pass as the app makes it: the preferences noticed (`prefs`:
    /// they travel), up, down.
    pub fn pass(&self, server: &MemoryPeer, prefs: bool) -> Pass {
        self.clock.set(self.clock.get() + 1_000.0);
        let joining = run(air_sync::Peer::info(server)).unwrap().doc_count.is_some_and(|n| n > 0);
        if prefs {
            run(notice(&self.store, &self.kv, self.clock.get(), joining)).unwrap();
        }
        let records = StoreRecords::new(&self.store, Some(&self.kv));
        let kinds = AppKinds { prefs, secrets: Secrets::of(&self.settings()) };
        let peer = StorePeer::new(&records, &self.keys, &kinds, self.name, || self.clock.get());
        let up = run(replicate(&peer, server, &Options::default())).unwrap();
        let down = run(replicate(server, &peer, &Options::default())).unwrap();
        Pass { up: up.docs_written, down: down.docs_written, prefs: records.prefs_written.get(), moved: peer.tally() }
    }

    /// (sent, received, preferences written) of a pass with preferences.
    pub fn sync(&self, server: &MemoryPeer) -> (u64, u64, bool) {
        self.sync_with(server, true)
    }

    pub fn sync_with(&self, server: &MemoryPeer, prefs: bool) -> (u64, u64, bool) {
        let p = self.pass(server, prefs);
        (p.up, p.down, p.prefs)
    }

    /// One pass of the records alone (no preferences), what is pulled
    /// marked as the server's: (sent, received).
    pub fn sync_records(&self, server: &MemoryPeer) -> (u64, u64) {
        let records = StoreRecords::new(&self.store, None).marked("server".into());
        let kinds = AppKinds { prefs: self.keys.seals(), ..AppKinds::default() };
        let peer = StorePeer::new(&records, &self.keys, &kinds, self.name, || self.clock.get());
        let up = run(replicate(&peer, server, &Options::default())).unwrap();
        let down = run(replicate(server, &peer, &Options::default())).unwrap();
        (up.docs_written, down.docs_written)
    }

    /// Message `id` of `session`, written here.
    pub fn message(&self, id: &str, session: &str, seq: f64, role: air_chat::Role, text: &str, parent: Option<&str>) -> air_store::MessageRecord {
        let mut m = air_store::MessageRecord::new(id, session, seq, role, text);
        m.parent = parent.map(str::to_owned);
        run(air_store::Store::put_message(&self.store, &m)).unwrap();
        m
    }

    /// The conversation as shown: (id, content) of each message on screen.
    pub fn shown(&self, session: &str) -> Vec<(String, String)> {
        let s = run(air_store::Store::get_session(&self.store, session)).unwrap().unwrap();
        let all = run(air_store::Store::messages(&self.store, session)).unwrap();
        air_store::branches::shown(all, &s.forks).into_iter().map(|m| (m.id, m.content)).collect()
    }

    pub fn settings(&self) -> Settings {
        settings::load(&self.kv).settings
    }

    pub fn edit_settings(&self, f: impl FnOnce(&mut Settings)) {
        let mut s = self.settings();
        f(&mut s);
        settings::save(&self.kv, &s).unwrap();
    }

    pub fn servers(&self) -> Vec<McpServer> {
        mcp::load(&self.kv).0
    }
}

/// A server in memory and two devices of one database on it.
pub(crate) fn two_devices() -> (MemoryPeer, Device, Device) {
    let (config, _) = run(new_config(&SoftCrypto::seeded(1), Some("pass"), 1_000)).unwrap();
    (MemoryPeer::new("server"), Device::new("laptop", &config), Device::new("phone", &config))
}
