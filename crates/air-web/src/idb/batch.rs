//! Many records in one transaction ([`air_store::Store::put_batch`],
//! [`air_store::Store::get_batch`]): a first sync or an import writes
//! hundreds at a time. Every request of the transaction is made at once
//! and awaited together; the search index's totals and the journal's
//! sequence are read and written once per batch, not once per record.

use air_store::batch::{Batch, Ids};
use air_store::journal::{Change, Kind};
use air_store::search;
use air_store::segments::IndexDoc;
use air_store::{FILES, JOURNAL, MESSAGES, META, MessageRecord, SEARCH_DOCS, SEGS, SESSIONS, SessionRecord};
use futures_util::future::join_all;
use rexie::TransactionMode;
use wasm_bindgen::JsValue;

use super::files::file_value;
use super::segments::{self, Change as DocChange, Index};
use super::{IdbStore, err, from_js, read, to_js};

/// The records `ids` of one store, read at once in `tx` (absent: `None`).
async fn get_all(tx: &rexie::Transaction, store: &str, ids: impl Iterator<Item = &str>) -> air_store::Result<Vec<Option<JsValue>>> {
    let store = tx.store(store).map_err(err)?;
    let got = join_all(ids.map(|id| store.get(JsValue::from_str(id)))).await;
    got.into_iter().map(|v| v.map(|v| v.filter(|v| !v.is_undefined())).map_err(err)).collect()
}

/// Of a stored message, whether it was still streaming (the only field
/// read: the others are left in JavaScript).
#[derive(serde::Deserialize)]
struct Streamed {
    #[serde(default)]
    incomplete: bool,
}

/// What a message was indexed as: nothing while it was streaming (its
/// text is not read then).
pub(super) fn indexed(old: Option<JsValue>) -> Option<MessageRecord> {
    match read::<Streamed>(old.clone()) {
        Some(Streamed { incomplete: true }) => None,
        _ => read(old),
    }
}

impl IdbStore {
    pub(super) async fn put_batch_at_once(&self, batch: &Batch) -> air_store::Result<()> {
        let batch = batch.once();
        if batch.is_empty() {
            return Ok(());
        }
        let sessions = batch.sessions.iter().map(|s| Ok((to_js(s)?, None))).collect::<air_store::Result<Vec<_>>>()?;
        let files = batch.files.iter().map(|f| Ok((file_value(f, self.files_as_blobs())?, None))).collect::<air_store::Result<Vec<_>>>()?;
        let messages = batch.messages.iter().map(|m| Ok((to_js(m)?, None))).collect::<air_store::Result<Vec<_>>>()?;
        let batch = &*batch;
        self.write(&[SESSIONS, MESSAGES, SEGS, SEARCH_DOCS, META, FILES, JOURNAL], |tx| async move {
            // Before anything is written: the index (or whether a new
            // database starts one), and what each record replaces.
            let index = segments::open(&tx).await?;
            let old_sessions = get_all(&tx, SESSIONS, batch.sessions.iter().map(|s| s.id.as_str())).await?;
            let old_messages = get_all(&tx, MESSAGES, batch.messages.iter().map(|m| m.id.as_str())).await?;
            tx.store(SESSIONS).map_err(err)?.put_all(sessions.into_iter()).await.map_err(err)?;
            tx.store(FILES).map_err(err)?.put_all(files.into_iter()).await.map_err(err)?;
            tx.store(MESSAGES).map_err(err)?.put_all(messages.into_iter()).await.map_err(err)?;
            if !batch.sessions.is_empty() {
                let format = JsValue::from_f64(f64::from(air_store::RECORD_FORMAT));
                tx.store(META).map_err(err)?.put(&format, Some(&JsValue::from_str(air_store::FORMAT_KEY))).await.map_err(err)?;
            }
            if let Some(mut index) = index {
                index_batch(&tx, &mut index, batch, old_sessions, old_messages).await?;
                segments::close(&tx, &index).await?;
            }
            let mark = batch.from.as_deref();
            let changes = (batch.sessions.iter().map(|s| Change::put(Kind::Session, &s.id).from(mark)))
                .chain(batch.files.iter().map(|f| Change::put(Kind::File, &f.id).from(mark)))
                .chain(batch.messages.iter().map(|m| Change::put(Kind::Message, &m.id).from(mark)))
                .collect::<Vec<_>>();
            super::journal::record_at_once(&tx, &changes).await?;
            Ok(tx)
        })
        .await
    }

    pub(super) async fn get_batch_at_once(&self, ids: &Ids) -> air_store::Result<Batch> {
        let mut out = Batch::default();
        if !ids.sessions.is_empty() || !ids.messages.is_empty() {
            let tx = self.db.transaction(&[SESSIONS, MESSAGES], TransactionMode::ReadOnly).map_err(err)?;
            for v in get_all(&tx, SESSIONS, ids.sessions.iter().map(String::as_str)).await?.into_iter().flatten() {
                out.sessions.push(from_js::<SessionRecord>(v)?);
            }
            for v in get_all(&tx, MESSAGES, ids.messages.iter().map(String::as_str)).await?.into_iter().flatten() {
                out.messages.push(from_js::<MessageRecord>(v)?);
            }
        }
        // Files are few and their bytes are read from Blobs after their
        // transaction: one at a time.
        for id in &ids.files {
            out.files.extend(air_store::Store::get_file(self, id).await?);
        }
        Ok(out)
    }
}

/// The batch's titles and messages into the search index (what each
/// replaced out of it), as one batch of the index.
async fn index_batch(tx: &rexie::Transaction, index: &mut Index, batch: &Batch, old_sessions: Vec<Option<JsValue>>, old_messages: Vec<Option<JsValue>>) -> air_store::Result<()> {
    let titles: Vec<String> = batch.sessions.iter().map(|s| search::title_doc(&s.id)).collect();
    // A title renamed since it was indexed (its mark still in `meta`) is
    // indexed anew here, whatever the record held, and its mark goes.
    let meta = tx.store(META).map_err(err)?;
    let marks: Vec<JsValue> = batch.sessions.iter().map(|s| JsValue::from_str(&format!("{}/{}", air_store::TITLE_KEY, s.id))).collect();
    let found = join_all(marks.iter().map(|k| meta.get(k.clone()))).await;
    let mut marked = Vec::with_capacity(marks.len());
    for (key, got) in marks.into_iter().zip(found) {
        let here = got.map_err(err)?.is_some_and(|v| !v.is_undefined());
        if here {
            meta.delete(key).await.map_err(err)?;
        }
        marked.push(here);
    }
    let mut terms = Vec::with_capacity(batch.sessions.len() + batch.messages.len());
    for (s, old) in batch.sessions.iter().zip(old_sessions) {
        terms.push((read::<SessionRecord>(old).as_ref().and_then(search::title_terms), search::title_terms(s)));
    }
    for (m, old) in batch.messages.iter().zip(old_messages) {
        terms.push((indexed(old).as_ref().and_then(search::message_terms), search::message_terms(m)));
    }
    let docs =
        (batch.sessions.iter().zip(&titles).map(|(s, doc)| (doc.as_str(), s.id.as_str(), s.updated_at))).chain(batch.messages.iter().map(|m| (m.id.as_str(), m.session_id.as_str(), m.timestamp)));
    let forced = marked.into_iter().chain(std::iter::repeat(false));
    let changes: Vec<DocChange<'_>> =
        docs.zip(&terms).zip(forced).map(|(((id, session, at), (old, new)), forced)| DocChange { doc: IndexDoc { id, session, at, terms: new.as_ref() }, old: old.as_ref(), forced }).collect();
    let (docs, killed) = segments::changed(index, &changes);
    segments::batch(tx, index, &docs, &killed).await.map(|_| ())
}
