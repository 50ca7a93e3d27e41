//! A store in memory with a journal, as the local peer sees one
//! ([`Records`]): the device of a host test.

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde_json::Value;

use crate::records::{Entry, LocalError, Records, RevEntry, Write};

#[derive(Debug, Default)]
pub struct MemoryRecords {
    pub records: RefCell<BTreeMap<(String, String), Value>>,
    journal: RefCell<Vec<Entry>>,
    last: RefCell<u64>,
    revs: RefCell<BTreeMap<String, RevEntry>>,
    locals: RefCell<BTreeMap<String, Value>>,
    /// Fails every call while set (a store that cannot be written).
    pub broken: RefCell<Option<String>>,
}

impl MemoryRecords {
    fn note(&self, kind: &str, id: &str, deleted: bool) {
        let mut last = self.last.borrow_mut();
        *last += 1;
        let mut j = self.journal.borrow_mut();
        j.retain(|e| e.kind != kind || e.id != id);
        j.push(Entry { seq: *last, kind: kind.into(), id: id.into(), deleted, pulled: false });
    }

    /// A write the user made here.
    pub fn put(&self, kind: &str, id: &str, value: Value) {
        self.records.borrow_mut().insert((kind.into(), id.into()), value);
        self.note(kind, id, false);
    }

    pub fn delete(&self, kind: &str, id: &str) {
        self.records.borrow_mut().remove(&(kind.to_owned(), id.to_owned()));
        self.note(kind, id, true);
    }

    pub fn get(&self, kind: &str, id: &str) -> Option<Value> {
        self.records.borrow().get(&(kind.to_owned(), id.to_owned())).cloned()
    }

    /// Every record of `kind`, by id.
    pub fn all(&self, kind: &str) -> BTreeMap<String, Value> {
        self.records.borrow().iter().filter(|((k, _), _)| k == kind).map(|((_, id), v)| (id.clone(), v.clone())).collect()
    }

    pub fn rev_entry_of(&self, kind: &str, id: &str) -> Option<RevEntry> {
        self.revs.borrow().values().find(|e| e.kind == kind && e.id == id).cloned()
    }

    fn check(&self) -> Result<(), LocalError> {
        self.broken.borrow().clone().map_or(Ok(()), |e| Err(LocalError::Store(e)))
    }
}

impl Records for MemoryRecords {
    async fn journal(&self, after: u64, limit: usize) -> Result<Vec<Entry>, LocalError> {
        self.check()?;
        Ok(self.journal.borrow().iter().filter(|e| e.seq > after).take(limit).cloned().collect())
    }

    async fn last_seq(&self) -> Result<u64, LocalError> {
        self.check()?;
        Ok(*self.last.borrow())
    }

    async fn read(&self, kind: &str, id: &str) -> Result<Option<Value>, LocalError> {
        self.check()?;
        Ok(self.get(kind, id))
    }

    async fn apply(&self, writes: &[Write]) -> Result<(), LocalError> {
        self.check()?;
        for w in writes {
            match w {
                Write::Put { kind, id, value } => self.put(kind, id, value.clone()),
                Write::Delete { kind, id } => self.delete(kind, id),
                Write::Touch { kind, id } => self.note(kind, id, self.get(kind, id).is_none()),
            }
        }
        Ok(())
    }

    async fn rev_entries(&self, wire: &[String]) -> Result<Vec<Option<RevEntry>>, LocalError> {
        self.check()?;
        let revs = self.revs.borrow();
        Ok(wire.iter().map(|w| revs.get(w).cloned()).collect())
    }

    async fn put_rev_entries(&self, entries: &[RevEntry]) -> Result<(), LocalError> {
        self.check()?;
        let mut revs = self.revs.borrow_mut();
        for e in entries {
            revs.insert(e.wire.clone(), e.clone());
        }
        Ok(())
    }

    async fn local_doc(&self, id: &str) -> Result<Option<Value>, LocalError> {
        self.check()?;
        Ok(self.locals.borrow().get(id).cloned())
    }

    async fn put_local_doc(&self, id: &str, doc: &Value) -> Result<(), LocalError> {
        self.check()?;
        self.locals.borrow_mut().insert(id.into(), doc.clone());
        Ok(())
    }
}
