//! IndexedDB (through rexie) as an [`air_store::Store`].
//!
//! Schema (version [`air_store::DB_VERSION`]):
//! * `sessions`, key path `id`, indexes `by_updated` on `updatedAt` and
//!   `by_activity` on `[updatedAt, id]` (the list's pages);
//! * `messages`, key path `id`, index `by_session` on `[sessionId, seq]`;
//! * `meta`, out-of-line keys: the record format under `recordFormat`,
//!   documents (JSON text) under `doc:{key}`, and the search index's
//!   totals under `searchIndex`, its dead numbers under `searchDead` and
//!   its keys to merge under `searchWork/…`;
//! * `files`, key path `id`, index `by_session` on `sessionId`: attached
//!   files, each `{id, sessionId, type, blob}` with the bytes as a Blob;
//! * `segs`, key path `[k, i]`, and `searchDocs`, key path `n` (index
//!   `by_id`, multi-entry, on `ids`): the search index in batched segments
//!   ([`segments`]), written in the same transaction as the message or
//!   title it describes (version 6 dropped the older `terms`: rexie deletes
//!   the stores a version no longer declares);
//! * `journal`, key path `seq`, index `by_record` on `[kind, id]`: the
//!   change feed ([`air_store::journal`]), one entry per record, written in
//!   the same transaction as the write it records (the last sequence
//!   number in `meta` under `journalSeq`).
//!
//! Upgrades: rexie creates what a version adds (stores, indexes) when the
//! database opens; then [`IdbStore::migrate`] (run by [`IdbStore::open`],
//! or by the page in a part of its own when [`IdbStore::needs_migration`])
//! rewrites records stored in an older format, once, and records the
//! format in `meta`.
//!
//! A message is its own record, so a checkpoint rewrites one small record
//! and two tabs never overwrite each other's messages.

use air_store::journal::{Change, Entry, Kind, Seq};
use air_store::search::{self, IndexStats};
use air_store::{
    BY_ACTIVITY, BY_ID, BY_RECORD, BY_SESSION, BY_UPDATED, DB_NAME, DB_VERSION, FILES, FileRecord, JOURNAL, MESSAGES, META, MessageRecord, SEARCH_DOCS, SEGS, SESSIONS, SessionRecord, Store,
    StoreError,
};
use rexie::{Index, KeyRange, ObjectStore, Rexie, TransactionMode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::JsValue;

mod batch;
mod files;
mod index_work;
mod journal;
mod migrate;
mod segments;
mod shared;
mod sync_meta;

use air_store::segments::IndexDoc;
use segments::read_stats;

pub struct IdbStore {
    db: Rexie,
    /// A merge of the search index's segments under way.
    work: std::cell::RefCell<Option<index_work::Work>>,
    /// Files are written as Blobs (until the browser refuses one, see `files`).
    blobs: std::cell::Cell<bool>,
}

fn err(e: rexie::Error) -> StoreError {
    let text = match &e {
        rexie::Error::IdbError(inner) => inner.to_string(),
        other => other.to_string(),
    };
    if text.contains("Quota") { StoreError::QuotaExceeded(text) } else { StoreError::Other(text) }
}

fn to_js<T: Serialize>(value: &T) -> air_store::Result<JsValue> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| StoreError::Other(e.to_string()))
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
    /// Writes `value`, the record of `message`, and its terms in the index.
    async fn put_message_value(&self, message: &MessageRecord, value: JsValue) -> air_store::Result<()> {
        self.journaled(&[MESSAGES, SEGS, SEARCH_DOCS, META], |tx| async move {
            let messages = tx.store(MESSAGES).map_err(err)?;
            // A record still streaming was not indexed: its text is not
            // read (a streaming checkpoint costs one read of a flag).
            let old = batch::indexed(messages.get(JsValue::from_str(&message.id)).await.map_err(err)?);
            let (old, new) = (old.as_ref().and_then(search::message_terms), search::message_terms(message));
            // The index is opened before the message is written: a new
            // database starts it with its first message.
            let index = if old != new { segments::open(&tx).await? } else { None };
            messages.put(&value, None).await.map_err(err)?;
            if let Some(index) = index {
                let doc = IndexDoc { id: &message.id, session: &message.session_id, at: message.timestamp, terms: new.as_ref() };
                segments::index_one(&tx, index, doc, old.is_some()).await?;
            }
            Ok((tx, vec![Change::put(Kind::Message, &message.id)]))
        })
        .await
    }

    /// Opens (creating or upgrading) the database named `name`, its
    /// records rewritten in the current format ([`IdbStore::migrate`]).
    pub async fn open(name: &str) -> air_store::Result<Self> {
        let store = Self::open_unmigrated(name).await?;
        store.migrate().await?;
        Ok(store)
    }

    /// Opens the database named `name` as [`IdbStore::open`] does, but
    /// leaves the records' migration to the caller: when
    /// [`IdbStore::needs_migration`], [`IdbStore::migrate`] must run before
    /// anything is read (the page runs it in a part fetched only then).
    pub async fn open_unmigrated(name: &str) -> air_store::Result<Self> {
        let db = Rexie::builder(name)
            .version(DB_VERSION)
            .add_object_store(ObjectStore::new(SESSIONS).key_path("id").add_index(Index::new(BY_UPDATED, "updatedAt")).add_index(Index::new_array(BY_ACTIVITY, ["updatedAt", "id"])))
            .add_object_store(ObjectStore::new(MESSAGES).key_path("id").add_index(Index::new_array(BY_SESSION, ["sessionId", "seq"])))
            .add_object_store(ObjectStore::new(META))
            .add_object_store(ObjectStore::new(FILES).key_path("id").add_index(Index::new(BY_SESSION, "sessionId")))
            .add_object_store(ObjectStore::new(SEGS).key_path_array(["k", "i"]))
            .add_object_store(ObjectStore::new(SEARCH_DOCS).key_path("n").add_index(Index::new(BY_ID, "ids").multi_entry(true)))
            .add_object_store(ObjectStore::new(JOURNAL).key_path("seq").add_index(Index::new_array(BY_RECORD, ["kind", "id"])))
            .build()
            .await
            .map_err(|e| StoreError::Unavailable(err(e).to_string()))?;
        Ok(Self { db, work: Default::default(), blobs: std::cell::Cell::new(true) })
    }

    /// A stored record as it is on disk, as JSON (for tests and diagnosis).
    pub async fn raw(&self, store: &str, key: &str) -> air_store::Result<Option<serde_json::Value>> {
        let tx = self.db.transaction(&[store], TransactionMode::ReadOnly).map_err(err)?;
        match tx.store(store).map_err(err)?.get(JsValue::from_str(key)).await.map_err(err)? {
            Some(v) if !v.is_undefined() => Ok(Some(from_js(v)?)),
            _ => Ok(None),
        }
    }

    /// Opens the app's database, unmigrated ([`IdbStore::open_unmigrated`]).
    pub async fn open_default_unmigrated() -> air_store::Result<Self> {
        Self::open_unmigrated(DB_NAME).await
    }

    /// Deletes a whole database (tests).
    pub async fn delete_database(name: &str) -> air_store::Result<()> {
        Rexie::delete(name).await.map_err(err)
    }

    pub fn close(self) {
        self.db.close();
    }

    /// A stored file's record as stored (`{id, sessionId, type, blob}`).
    async fn file_value(&self, id: &str) -> air_store::Result<Option<JsValue>> {
        let tx = self.db.transaction(&[FILES], TransactionMode::ReadOnly).map_err(err)?;
        match tx.store(FILES).map_err(err)?.get(JsValue::from_str(id)).await.map_err(err)? {
            Some(v) if v.is_object() => Ok(Some(v)),
            _ => Ok(None),
        }
    }

    /// A stored file as a Blob, without copying its bytes into wasm (for
    /// an `<img>`'s object URL).
    pub async fn file_blob(&self, id: &str) -> air_store::Result<Option<web_sys::Blob>> {
        Ok(self.file_value(id).await?.as_ref().and_then(files::stored_blob))
    }

    /// A stored file, whole or its first `max` bytes (only those are read).
    async fn read_file(&self, id: &str, max: Option<usize>) -> air_store::Result<Option<FileRecord>> {
        let Some(v) = self.file_value(id).await? else { return Ok(None) };
        let field = |k: &str| js_sys::Reflect::get(&v, &JsValue::from_str(k)).ok().and_then(|x| x.as_string()).unwrap_or_default();
        let bytes = files::stored_bytes(&v, max).await?.ok_or_else(|| StoreError::Corrupt(format!("file {id} has no bytes")))?;
        Ok(Some(FileRecord { id: field("id"), session_id: field("sessionId"), mime: field("type"), bytes }))
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

    /// A write the journal records: `f` makes it in the transaction and
    /// says which records it put or removed; their entries are written in
    /// the same transaction.
    async fn journaled<F, Fut>(&self, stores: &[&str], f: F) -> air_store::Result<()>
    where
        F: FnOnce(rexie::Transaction) -> Fut,
        Fut: std::future::Future<Output = air_store::Result<(rexie::Transaction, Vec<Change>)>>,
    {
        let mut all = stores.to_vec();
        for s in [JOURNAL, META] {
            if !all.contains(&s) {
                all.push(s);
            }
        }
        self.write(&all, |tx| async move {
            let (tx, changes) = f(tx).await?;
            journal::record(&tx, &changes).await?;
            Ok(tx)
        })
        .await
    }

    /// Up to `limit` messages of the session index's `range`, read in
    /// `direction`, returned in order.
    async fn scan_messages(&self, range: KeyRange, limit: usize, direction: Option<rexie::Direction>) -> air_store::Result<Vec<MessageRecord>> {
        let tx = self.db.transaction(&[MESSAGES], TransactionMode::ReadOnly).map_err(err)?;
        let index = tx.store(MESSAGES).map_err(err)?.index(BY_SESSION).map_err(err)?;
        let pairs = index.scan(Some(range), Some(limit.min(u32::MAX as usize) as u32), None, direction).await.map_err(err)?;
        let mut out = Vec::with_capacity(pairs.len());
        for (_, v) in pairs {
            out.push(from_js::<MessageRecord>(v)?);
        }
        out.sort_by(|a, b| a.seq.total_cmp(&b.seq).then_with(|| a.id.cmp(&b.id)));
        Ok(out)
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
        air_store::sort_by_activity(&mut out);
        Ok(out)
    }

    async fn sessions_page(&self, after: Option<&air_store::SessionCursor>, limit: usize) -> air_store::Result<Vec<SessionRecord>> {
        let tx = self.db.transaction(&[SESSIONS], TransactionMode::ReadOnly).map_err(err)?;
        let index = tx.store(SESSIONS).map_err(err)?.index(BY_ACTIVITY).map_err(err)?;
        // Walk `[updatedAt, id]` backwards from the cursor (excluded).
        let range = match after {
            Some(c) => {
                let upper = js_sys::Array::of2(&JsValue::from_f64(c.updated_at), &JsValue::from_str(&c.id));
                Some(KeyRange::upper_bound(&upper, Some(true)).map_err(|e| StoreError::Other(e.to_string()))?)
            }
            None => None,
        };
        let pairs = index.scan(range, Some(limit.min(u32::MAX as usize) as u32), None, Some(rexie::Direction::Prev)).await.map_err(err)?;
        let mut out = Vec::with_capacity(pairs.len());
        for (_, v) in pairs {
            out.push(from_js::<SessionRecord>(v)?);
        }
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
        self.journaled(&[SESSIONS, META], |tx| async move {
            let sessions = tx.store(SESSIONS).map_err(err)?;
            let old: Option<SessionRecord> = read(sessions.get(JsValue::from_str(&session.id)).await.map_err(err)?);
            sessions.put(&value, None).await.map_err(err)?;
            // Whatever this database held is in the current format by now
            // (an older one was migrated when it opened): said, so that a
            // later start need not look.
            let format = JsValue::from_f64(f64::from(air_store::RECORD_FORMAT));
            tx.store(META).map_err(err)?.put(&format, Some(&JsValue::from_str(air_store::FORMAT_KEY))).await.map_err(err)?;
            // Saved on every message; the index changes only with the title.
            let (old, new) = (old.as_ref().and_then(search::title_terms), search::title_terms(session));
            // Indexed when next searched (`index_pending`): the first page
            // renames and switches branches without the index's code.
            if old != new {
                let mark = JsValue::from_str(&format!("{}/{}", air_store::TITLE_KEY, session.id));
                tx.store(META).map_err(err)?.put(&JsValue::from_str(&session.id), Some(&mark)).await.map_err(err)?;
            }
            Ok((tx, vec![Change::put(Kind::Session, &session.id)]))
        })
        .await
    }

    async fn touch_session(&self, id: &str, at: f64) -> air_store::Result<Option<SessionRecord>> {
        let touched = std::cell::RefCell::new(None);
        let out = &touched;
        self.journaled(&[SESSIONS], |tx| async move {
            let sessions = tx.store(SESSIONS).map_err(err)?;
            let mut changes = Vec::new();
            if let Some(mut session) = read::<SessionRecord>(sessions.get(JsValue::from_str(id)).await.map_err(err)?) {
                session.updated_at = at;
                sessions.put(&to_js(&session)?, None).await.map_err(err)?;
                *out.borrow_mut() = Some(session);
                changes.push(Change::put(Kind::Session, id));
            }
            Ok((tx, changes))
        })
        .await?;
        Ok(touched.into_inner())
    }

    async fn delete_session(&self, id: &str) -> air_store::Result<()> {
        let range = session_range(id)?;
        self.journaled(&[SESSIONS, MESSAGES, SEGS, SEARCH_DOCS, META, FILES], |tx| async move {
            let mut changes = vec![Change::deleted(Kind::Session, id)];
            let files = tx.store(FILES).map_err(err)?;
            let only = KeyRange::only(&JsValue::from_str(id)).map_err(|e| StoreError::Other(e.to_string()))?;
            for key in files.index(BY_SESSION).map_err(err)?.get_all_keys(Some(only), None).await.map_err(err)? {
                changes.extend(key.as_string().map(|f| Change::deleted(Kind::File, &f)));
                files.delete(key).await.map_err(err)?;
            }
            let sessions = tx.store(SESSIONS).map_err(err)?;
            sessions.delete(JsValue::from_str(id)).await.map_err(err)?;
            let mut gone = vec![search::title_doc(id)];
            let messages = tx.store(MESSAGES).map_err(err)?;
            for v in messages.index(BY_SESSION).map_err(err)?.get_all(Some(range), None).await.map_err(err)? {
                let Some(mid) = js_sys::Reflect::get(&v, &JsValue::from_str("id")).ok().and_then(|id| id.as_string()) else { continue };
                messages.delete(JsValue::from_str(&mid)).await.map_err(err)?;
                changes.push(Change::deleted(Kind::Message, &mid));
                gone.push(mid);
            }
            segments::remove(&tx, &gone.iter().map(String::as_str).collect::<Vec<_>>()).await?;
            Ok((tx, changes))
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

    async fn messages_page(&self, session_id: &str, before: Option<f64>, limit: usize) -> air_store::Result<Vec<MessageRecord>> {
        let sid = JsValue::from_str(session_id);
        let lower = js_sys::Array::of2(&sid, &JsValue::from_f64(f64::NEG_INFINITY));
        let upper = js_sys::Array::of2(&sid, &JsValue::from_f64(before.unwrap_or(f64::INFINITY)));
        let range = KeyRange::bound(&lower, &upper, None, Some(before.is_some())).map_err(|e| StoreError::Other(e.to_string()))?;
        // Walk the index backwards from `before`, so only one page is read.
        self.scan_messages(range, limit, Some(rexie::Direction::Prev)).await
    }

    async fn messages_after(&self, session_id: &str, after: f64, limit: usize) -> air_store::Result<Vec<MessageRecord>> {
        let sid = JsValue::from_str(session_id);
        let lower = js_sys::Array::of2(&sid, &JsValue::from_f64(after));
        let upper = js_sys::Array::of2(&sid, &JsValue::from_f64(f64::INFINITY));
        let range = KeyRange::bound(&lower, &upper, Some(true), None).map_err(|e| StoreError::Other(e.to_string()))?;
        self.scan_messages(range, limit, None).await
    }

    async fn get_message(&self, id: &str) -> air_store::Result<Option<MessageRecord>> {
        let tx = self.db.transaction(&[MESSAGES], TransactionMode::ReadOnly).map_err(err)?;
        match tx.store(MESSAGES).map_err(err)?.get(JsValue::from_str(id)).await.map_err(err)? {
            Some(v) if !v.is_undefined() => Ok(Some(from_js(v)?)),
            _ => Ok(None),
        }
    }

    async fn put_message(&self, message: &MessageRecord) -> air_store::Result<()> {
        self.put_message_value(message, to_js(message)?).await
    }

    /// A message still streaming is stored with its text joined by the
    /// browser, as JavaScript strings, not in wasm memory (it is not
    /// indexed yet, so its text is not read here).
    async fn put_message_parts(&self, message: &MessageRecord, parts: &[&str]) -> air_store::Result<()> {
        if !message.incomplete {
            return self.put_message(&message.with_text(parts)).await;
        }
        let value = to_js(message)?;
        let text = parts.iter().fold(js_sys::JsString::from(""), |all, part| all.concat(&JsValue::from_str(part)));
        js_sys::Reflect::set(&value, &JsValue::from_str("content"), &text).map_err(|e| StoreError::Other(format!("{e:?}")))?;
        self.put_message_value(message, value).await
    }

    async fn delete_message(&self, id: &str) -> air_store::Result<()> {
        self.journaled(&[MESSAGES, SEGS, SEARCH_DOCS, META, FILES], |tx| async move {
            let messages = tx.store(MESSAGES).map_err(err)?;
            let old: Option<MessageRecord> = read(messages.get(JsValue::from_str(id)).await.map_err(err)?);
            messages.delete(JsValue::from_str(id)).await.map_err(err)?;
            let mut changes = Vec::new();
            let files = tx.store(FILES).map_err(err)?;
            // Files another message of the session names stay (edit and resend).
            let named = match old.as_ref().filter(|m| !m.attachments.is_empty()) {
                Some(m) => shared::named(&tx, &m.session_id).await?,
                None => Default::default(),
            };
            for a in old.iter().flat_map(|m| &m.attachments).filter(|a| !named.contains(&a.id)) {
                files.delete(JsValue::from_str(&a.id)).await.map_err(err)?;
                changes.push(Change::deleted(Kind::File, &a.id));
            }
            changes.push(Change::deleted(Kind::Message, id));
            if old.as_ref().is_some_and(|m| !m.incomplete) {
                segments::remove(&tx, &[id]).await?;
            }
            Ok((tx, changes))
        })
        .await
    }

    async fn put_file(&self, file: &FileRecord) -> air_store::Result<()> {
        self.put_file_kept(file, |value| {
            self.journaled(&[FILES], move |tx| async move {
                tx.store(FILES).map_err(err)?.put(&value, None).await.map_err(err)?;
                Ok((tx, vec![Change::put(Kind::File, &file.id)]))
            })
        })
        .await
    }

    async fn get_file(&self, id: &str) -> air_store::Result<Option<FileRecord>> {
        self.read_file(id, None).await
    }

    async fn get_file_head(&self, id: &str, max: usize) -> air_store::Result<Option<FileRecord>> {
        self.read_file(id, Some(max)).await
    }

    async fn get_doc(&self, key: &str) -> air_store::Result<Option<String>> {
        let tx = self.db.transaction(&[META], TransactionMode::ReadOnly).map_err(err)?;
        let v = tx.store(META).map_err(err)?.get(JsValue::from_str(&doc_key(key))).await.map_err(err)?;
        Ok(v.and_then(|v| v.as_string()))
    }

    async fn put_doc(&self, key: &str, json: &str) -> air_store::Result<()> {
        let (stored, value) = (JsValue::from_str(&doc_key(key)), JsValue::from_str(json));
        self.journaled(&[META], |tx| async move {
            tx.store(META).map_err(err)?.put(&value, Some(&stored)).await.map_err(err)?;
            Ok((tx, vec![Change::put(Kind::Doc, key)]))
        })
        .await
    }

    async fn doc_keys(&self, prefix: &str) -> air_store::Result<Vec<String>> {
        // Every key from `doc:{prefix}` up to, not including, the next
        // string after all those that begin with it.
        let lower = doc_key(prefix);
        let range = KeyRange::bound(&JsValue::from_str(&lower), &JsValue::from_str(&format!("{lower}\u{10FFFF}")), None, None).map_err(|e| StoreError::Other(e.to_string()))?;
        let tx = self.db.transaction(&[META], TransactionMode::ReadOnly).map_err(err)?;
        let keys = tx.store(META).map_err(err)?.get_all_keys(Some(range), None).await.map_err(err)?;
        Ok(keys.into_iter().filter_map(|k| k.as_string()).filter_map(|k| k.strip_prefix("doc:").map(str::to_owned)).filter(|k| k.starts_with(prefix)).collect())
    }

    async fn delete_doc(&self, key: &str) -> air_store::Result<()> {
        let stored = JsValue::from_str(&doc_key(key));
        self.journaled(&[META], |tx| async move {
            tx.store(META).map_err(err)?.delete(stored).await.map_err(err)?;
            Ok((tx, vec![Change::deleted(Kind::Doc, key)]))
        })
        .await
    }

    async fn index_stats(&self) -> air_store::Result<Option<IndexStats>> {
        let tx = self.db.transaction(&[META], TransactionMode::ReadOnly).map_err(err)?;
        read_stats(&tx).await
    }

    async fn postings(&self, term: &str, max: usize) -> air_store::Result<Vec<air_store::segments::Entry>> {
        segments::postings(&self.db, term, max).await
    }

    async fn index_docs(&self, docs: &[air_store::segments::DocNo]) -> air_store::Result<Vec<Option<(String, String)>>> {
        segments::docs(&self.db, docs).await
    }

    async fn index_hits(&self, docs: &[air_store::segments::DocNo]) -> air_store::Result<(Vec<Option<(String, String)>>, air_store::batch::Batch)> {
        segments::hits(&self.db, docs).await
    }

    async fn index_pending(&self) -> air_store::Result<bool> {
        self.index_titles().await
    }

    async fn compact_index(&self, budget: usize) -> air_store::Result<bool> {
        self.compact_step(budget).await
    }

    async fn journal_since(&self, after: Seq, limit: usize) -> air_store::Result<Vec<Entry>> {
        journal::since(&self.db, after, limit).await
    }

    async fn put_batch(&self, batch: &air_store::batch::Batch) -> air_store::Result<()> {
        self.put_batch_at_once(batch).await
    }

    async fn get_batch(&self, ids: &air_store::batch::Ids) -> air_store::Result<air_store::batch::Batch> {
        self.get_batch_at_once(ids).await
    }

    async fn rebuild_index(&self) -> air_store::Result<()> {
        self.rebuild_segments().await
    }
}

/// A record read in a transaction, if it is there and readable.
fn read<T: DeserializeOwned>(v: Option<JsValue>) -> Option<T> {
    v.filter(|v| !v.is_undefined()).and_then(|v| from_js(v).ok())
}

/// Documents live in `meta` beside the record format, under `doc:`.
fn doc_key(key: &str) -> String {
    format!("doc:{key}")
}
