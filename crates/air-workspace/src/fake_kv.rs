//! localStorage in memory, for the fake platform.

use std::cell::{Cell, RefCell};

use air_store::kv::MemoryKv;

/// localStorage in memory; it can be full.
#[derive(Debug, Default)]
pub struct FakeKv {
    pub mem: MemoryKv,
    /// Writes fail as a full quota does.
    pub full: Cell<bool>,
    /// The keys written, in order.
    pub written: RefCell<Vec<String>>,
}

impl air_store::KeyValue for FakeKv {
    fn get(&self, key: &str) -> Option<String> {
        self.mem.get(key)
    }
    fn set(&self, key: &str, value: &str) -> air_store::Result<()> {
        if self.full.get() {
            return Err(air_store::StoreError::QuotaExceeded("the quota is full".into()));
        }
        self.written.borrow_mut().push(key.to_owned());
        self.mem.set(key, value)
    }
    fn remove(&self, key: &str) -> air_store::Result<()> {
        self.mem.remove(key)
    }
}
