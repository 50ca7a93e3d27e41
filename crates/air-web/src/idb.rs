//! IndexedDB (through rexie) as an [`air_store::Store`].
//!
//! Schema (version [`air_store::DB_VERSION`]):
//! * `sessions`, key path `id`, index `by_updated` on `updatedAt`;
//! * `messages`, key path `id`, index `by_session` on `[sessionId, seq]`;
//! * `meta`, out-of-line keys: the record format under `recordFormat`, and
//!   documents (JSON text) under `doc:{key}`.
//!
//! Upgrades: rexie creates what a version adds (stores, indexes) when the
//! database opens; then [`IdbStore::open`] rewrites records stored in an
//! older format, once, and records the format in `meta`.
//!
//! A message is its own record, so a checkpoint rewrites one small record
//! and two tabs never overwrite each other's messages.

use air_store::{
    BY_SESSION, BY_UPDATED, DB_NAME, DB_VERSION, FORMAT_KEY, MESSAGES, META, MessageRecord, RECORD_FORMAT, SESSIONS,
    SessionRecord, Store, StoreError,
};
use rexie::{Index, KeyRange, ObjectStore, Rexie, TransactionMode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::JsValue;

pub struct IdbStore {
    db: Rexie,
}

fn err(e: rexie::Error) -> StoreError {
    let text = match &e {
        rexie::Error::IdbError(inner) => inner.to_string(),
        other => other.to_string(),
    };
    if text.contains("Quota") {
        StoreError::QuotaExceeded(text)
    } else {
        StoreError::Other(text)
    }
}

fn to_js<T: Serialize>(value: &T) -> air_store::Result<JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| StoreError::Other(e.to_string()))
}

fn from_js<T: DeserializeOwned>(value: JsValue) -> air_store::Result<T> {
    serde_wasm_bindgen::from_value(value).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// All keys `[session_id, *]` of the `by_session` index.
fn session_range(session_id: &str) -> air_store::Result<KeyRange> {
    let sid = JsValue::from_str(session_id);
    let lower = js_sys::Array::of2(&sid, &JsValue::from_f64(f64::NEG_INFINITY));
    let upper = js_sys::Array::of2(&sid, &JsValue::from_f64(f64::INFINITY));
    KeyRange::bound(&lower, &upper, None, None).map_err(|e| StoreError::Other(e.to_string()))
}

impl IdbStore {
    /// Opens (creating or upgrading) the database named `name`.
    pub async fn open(name: &str) -> air_store::Result<Self> {
        let db = Rexie::builder(name)
            .version(DB_VERSION)
            .add_object_store(ObjectStore::new(SESSIONS).key_path("id").add_index(Index::new(BY_UPDATED, "updatedAt")))
            .add_object_store(
                ObjectStore::new(MESSAGES).key_path("id").add_index(Index::new_array(BY_SESSION, ["sessionId", "seq"])),
            )
            .add_object_store(ObjectStore::new(META))
            .build()
            .await
            .map_err(|e| StoreError::Unavailable(err(e).to_string()))?;
        let store = Self { db };
        store.migrate().await?;
        Ok(store)
    }

    /// The record format the stored records are in (1 before `meta` existed).
    pub async fn record_format(&self) -> air_store::Result<u32> {
        let tx = self.db.transaction(&[META], TransactionMode::ReadOnly).map_err(err)?;
        let v = tx.store(META).map_err(err)?.get(JsValue::from_str(FORMAT_KEY)).await.map_err(err)?;
        Ok(v.and_then(|v| v.as_f64()).map_or(1, |f| f as u32))
    }

    /// Rewrites records stored in an older format in the current one, in
    /// one transaction (all or nothing), then records the format. A record
    /// that cannot be read is left as it is (reading it reports it).
    async fn migrate(&self) -> air_store::Result<()> {
        if self.record_format().await? >= RECORD_FORMAT {
            return Ok(());
        }
        // A new database has nothing to migrate, and writes nothing: its
        // records are written in the current format from the start, and
        // the marker comes with the first migration that has work to do.
        let tx = self.db.transaction(&[MESSAGES], TransactionMode::ReadOnly).map_err(err)?;
        if tx.store(MESSAGES).map_err(err)?.count(None).await.map_err(err)? == 0 {
            return Ok(());
        }
        self.write(&[MESSAGES, META], |tx| async move {
            let messages = tx.store(MESSAGES).map_err(err)?;
            for v in messages.get_all(None, None).await.map_err(err)? {
                if let Ok(record) = from_js::<MessageRecord>(v) {
                    messages.put(&to_js(&record)?, None).await.map_err(err)?;
                }
            }
            let format = JsValue::from_f64(f64::from(RECORD_FORMAT));
            tx.store(META).map_err(err)?.put(&format, Some(&JsValue::from_str(FORMAT_KEY))).await.map_err(err)?;
            Ok(tx)
        })
        .await
    }

    /// A stored record as it is on disk, as JSON (for tests and diagnosis).
    pub async fn raw(&self, store: &str, key: &str) -> air_store::Result<Option<serde_json::Value>> {
        let tx = self.db.transaction(&[store], TransactionMode::ReadOnly).map_err(err)?;
        match tx.store(store).map_err(err)?.get(JsValue::from_str(key)).await.map_err(err)? {
            Some(v) if !v.is_undefined() => Ok(Some(from_js(v)?)),
            _ => Ok(None),
        }
    }

    /// Opens the app's database.
    pub async fn open_default() -> air_store::Result<Self> {
        Self::open(DB_NAME).await
    }

    /// Deletes a whole database (tests).
    pub async fn delete_database(name: &str) -> air_store::Result<()> {
        Rexie::delete(name).await.map_err(err)
    }

    pub fn close(self) {
        self.db.close();
    }

    async fn write<F, Fut>(&self, stores: &[&str], f: F) -> air_store::Result<()>
    where
        F: FnOnce(rexie::Transaction) -> Fut,
        Fut: std::future::Future<Output = air_store::Result<rexie::Transaction>>,
    {
        let tx = self.db.transaction(stores, TransactionMode::ReadWrite).map_err(err)?;
        let tx = f(tx).await?;
        let result = tx.done().await.map_err(err)?;
        if result.is_committed() {
            return Ok(());
        }
        // A full quota shows up only as an aborted transaction (the put
        // itself succeeds; the commit fails), and rexie does not pass on the
        // transaction's error. These writes are never aborted by the app and
        // the schema has no unique index that a put could violate, so an
        // abort here means the browser refused to store more.
        Err(StoreError::QuotaExceeded("the browser refused to store more data".into()))
    }
}

impl Store for IdbStore {
    async fn list_sessions(&self) -> air_store::Result<Vec<SessionRecord>> {
        let tx = self.db.transaction(&[SESSIONS], TransactionMode::ReadOnly).map_err(err)?;
        let store = tx.store(SESSIONS).map_err(err)?;
        let values = store.get_all(None, None).await.map_err(err)?;
        let mut out = Vec::with_capacity(values.len());
        for v in values {
            out.push(from_js::<SessionRecord>(v)?);
        }
        out.sort_by(|a, b| b.updated_at.total_cmp(&a.updated_at).then_with(|| a.id.cmp(&b.id)));
        Ok(out)
    }

    async fn get_session(&self, id: &str) -> air_store::Result<Option<SessionRecord>> {
        let tx = self.db.transaction(&[SESSIONS], TransactionMode::ReadOnly).map_err(err)?;
        let store = tx.store(SESSIONS).map_err(err)?;
        match store.get(JsValue::from_str(id)).await.map_err(err)? {
            Some(v) if !v.is_undefined() => Ok(Some(from_js(v)?)),
            _ => Ok(None),
        }
    }

    async fn put_session(&self, session: &SessionRecord) -> air_store::Result<()> {
        let value = to_js(session)?;
        self.write(&[SESSIONS], |tx| async move {
            tx.store(SESSIONS).map_err(err)?.put(&value, None).await.map_err(err)?;
            Ok(tx)
        })
        .await
    }

    async fn delete_session(&self, id: &str) -> air_store::Result<()> {
        let range = session_range(id)?;
        self.write(&[SESSIONS, MESSAGES], |tx| async move {
            tx.store(SESSIONS).map_err(err)?.delete(JsValue::from_str(id)).await.map_err(err)?;
            let messages = tx.store(MESSAGES).map_err(err)?;
            let keys = messages.index(BY_SESSION).map_err(err)?.get_all_keys(Some(range), None).await.map_err(err)?;
            for key in keys {
                messages.delete(key).await.map_err(err)?;
            }
            Ok(tx)
        })
        .await
    }

    async fn messages(&self, session_id: &str) -> air_store::Result<Vec<MessageRecord>> {
        let tx = self.db.transaction(&[MESSAGES], TransactionMode::ReadOnly).map_err(err)?;
        let index = tx.store(MESSAGES).map_err(err)?.index(BY_SESSION).map_err(err)?;
        let values = index.get_all(Some(session_range(session_id)?), None).await.map_err(err)?;
        let mut out = Vec::with_capacity(values.len());
        for v in values {
            out.push(from_js::<MessageRecord>(v)?);
        }
        // The index orders by seq; ties (two tabs, same ms) by id, as the
        // memory store does.
        out.sort_by(|a, b| a.seq.total_cmp(&b.seq).then_with(|| a.id.cmp(&b.id)));
        Ok(out)
    }

    async fn messages_page(
        &self,
        session_id: &str,
        before: Option<f64>,
        limit: usize,
    ) -> air_store::Result<Vec<MessageRecord>> {
        let sid = JsValue::from_str(session_id);
        let lower = js_sys::Array::of2(&sid, &JsValue::from_f64(f64::NEG_INFINITY));
        let upper = js_sys::Array::of2(&sid, &JsValue::from_f64(before.unwrap_or(f64::INFINITY)));
        let range = KeyRange::bound(&lower, &upper, None, Some(before.is_some())).map_err(|e| StoreError::Other(e.to_string()))?;
        let tx = self.db.transaction(&[MESSAGES], TransactionMode::ReadOnly).map_err(err)?;
        let index = tx.store(MESSAGES).map_err(err)?.index(BY_SESSION).map_err(err)?;
        // Walk the index backwards from `before`, so only one page is read.
        let pairs = index
            .scan(Some(range), Some(limit.min(u32::MAX as usize) as u32), None, Some(rexie::Direction::Prev))
            .await
            .map_err(err)?;
        let mut out = Vec::with_capacity(pairs.len());
        for (_, v) in pairs {
            out.push(from_js::<MessageRecord>(v)?);
        }
        out.sort_by(|a, b| a.seq.total_cmp(&b.seq).then_with(|| a.id.cmp(&b.id)));
        Ok(out)
    }

    async fn put_message(&self, message: &MessageRecord) -> air_store::Result<()> {
        let value = to_js(message)?;
        self.write(&[MESSAGES], |tx| async move {
            tx.store(MESSAGES).map_err(err)?.put(&value, None).await.map_err(err)?;
            Ok(tx)
        })
        .await
    }

    async fn delete_message(&self, id: &str) -> air_store::Result<()> {
        self.write(&[MESSAGES], |tx| async move {
            tx.store(MESSAGES).map_err(err)?.delete(JsValue::from_str(id)).await.map_err(err)?;
            Ok(tx)
        })
        .await
    }

    async fn get_doc(&self, key: &str) -> air_store::Result<Option<String>> {
        let tx = self.db.transaction(&[META], TransactionMode::ReadOnly).map_err(err)?;
        let v = tx.store(META).map_err(err)?.get(JsValue::from_str(&doc_key(key))).await.map_err(err)?;
        Ok(v.and_then(|v| v.as_string()))
    }

    async fn put_doc(&self, key: &str, json: &str) -> air_store::Result<()> {
        let (key, value) = (JsValue::from_str(&doc_key(key)), JsValue::from_str(json));
        self.write(&[META], |tx| async move {
            tx.store(META).map_err(err)?.put(&value, Some(&key)).await.map_err(err)?;
            Ok(tx)
        })
        .await
    }

    async fn delete_doc(&self, key: &str) -> air_store::Result<()> {
        let key = JsValue::from_str(&doc_key(key));
        self.write(&[META], |tx| async move {
            tx.store(META).map_err(err)?.delete(key).await.map_err(err)?;
            Ok(tx)
        })
        .await
    }
}

/// Documents live in `meta` beside the record format, under `doc:`.
fn doc_key(key: &str) -> String {
    format!("doc:{key}")
}
