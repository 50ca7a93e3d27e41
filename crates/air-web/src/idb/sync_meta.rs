//! Sync's bookkeeping ([`air_store::SyncMeta`]) in `meta`, under
//! `sync:` keys, written without a journal entry; and records noted in the
//! journal again.

use air_store::journal::{Change, Seq};
use air_store::sync_meta::SYNC_PREFIX;
use air_store::{JOURNAL, JOURNAL_SEQ_KEY, META, StoreError, SyncMeta};
use rexie::TransactionMode;
use wasm_bindgen::JsValue;

use super::{IdbStore, err};

fn key(k: &str) -> air_store::Result<JsValue> {
    if !k.starts_with(SYNC_PREFIX) {
        return Err(StoreError::Other(format!("not a sync key: {k}")));
    }
    Ok(JsValue::from_str(k))
}

impl SyncMeta for IdbStore {
    async fn sync_get(&self, keys: &[String]) -> air_store::Result<Vec<Option<String>>> {
        let keys = keys.iter().map(|k| key(k)).collect::<air_store::Result<Vec<_>>>()?;
        let tx = self.db.transaction(&[META], TransactionMode::ReadOnly).map_err(err)?;
        let meta = tx.store(META).map_err(err)?;
        // Asked at once, answered in order.
        let got = futures_util::future::join_all(keys.into_iter().map(|k| meta.get(k))).await;
        got.into_iter().map(|v| v.map(|v| v.and_then(|v| v.as_string())).map_err(err)).collect()
    }

    async fn sync_put(&self, items: &[(String, String)]) -> air_store::Result<()> {
        let items: Vec<(JsValue, Option<JsValue>)> = items.iter().map(|(k, v)| Ok((JsValue::from_str(v), Some(key(k)?)))).collect::<air_store::Result<_>>()?;
        self.write(&[META], |tx| async move {
            tx.store(META).map_err(err)?.put_all(items.into_iter()).await.map_err(err)?;
            Ok(tx)
        })
        .await
    }

    async fn rejournal(&self, changes: &[Change]) -> air_store::Result<()> {
        let changes = changes.to_vec();
        self.journaled(&[], |tx| async move { Ok((tx, changes)) }).await
    }

    async fn journal_count(&self, after: Seq) -> air_store::Result<u64> {
        let tx = self.db.transaction(&[JOURNAL], TransactionMode::ReadOnly).map_err(err)?;
        let range = rexie::KeyRange::lower_bound(&JsValue::from_f64(after as f64), Some(true)).map_err(|e| StoreError::Other(e.to_string()))?;
        Ok(u64::from(tx.store(JOURNAL).map_err(err)?.count(Some(range)).await.map_err(err)?))
    }

    async fn journal_last(&self) -> air_store::Result<Seq> {
        let tx = self.db.transaction(&[META, JOURNAL], TransactionMode::ReadOnly).map_err(err)?;
        let v = tx.store(META).map_err(err)?.get(JsValue::from_str(JOURNAL_SEQ_KEY)).await.map_err(err)?;
        Ok(v.and_then(|v| v.as_f64()).map_or(0, |f| f as Seq))
    }
}
