//! The search index's part of a write: its terms and totals, in the
//! write's own transaction.

use air_store::search::{self, DocTerms, IndexStats, TermRecord};
use air_store::{INDEX_KEY, MESSAGES, META, StoreError, TERMS};
use wasm_bindgen::JsValue;

use super::{err, to_js};

/// The search index's totals (`None`: no index, or one that cannot be
/// trusted: another format, or unreadable).
pub(super) async fn read_stats(tx: &rexie::Transaction) -> air_store::Result<Option<IndexStats>> {
    let v = tx.store(META).map_err(err)?.get(JsValue::from_str(INDEX_KEY)).await.map_err(err)?;
    Ok(v.and_then(|v| v.as_string()).and_then(|t| serde_json::from_str::<IndexStats>(&t).ok()).filter(IndexStats::usable))
}

pub(super) async fn write_stats(tx: &rexie::Transaction, stats: &IndexStats) -> air_store::Result<()> {
    let text = serde_json::to_string(stats).map_err(|e| StoreError::Other(e.to_string()))?;
    tx.store(META).map_err(err)?.put(&JsValue::from_str(&text), Some(&JsValue::from_str(INDEX_KEY))).await.map_err(err)?;
    Ok(())
}

/// A document of the index changing from `old` to `new` terms (`None`: not
/// indexed before, or no longer).
pub(super) struct DocChange<'a> {
    pub doc: &'a str,
    pub session: &'a str,
    pub at: f64,
    pub old: Option<&'a DocTerms>,
    pub new: Option<&'a DocTerms>,
}

/// Writes a document's change from `old` to `new` into the search index,
/// in `tx` (which holds `messages`, `terms` and `meta`). Without an index (a store
/// from before it, not rebuilt yet) nothing is written.
pub(super) async fn index_doc(tx: &rexie::Transaction, change: DocChange<'_>) -> air_store::Result<()> {
    let mut stats = match read_stats(tx).await? {
        Some(stats) => stats,
        // A new database starts its index with its first write (it writes
        // nothing before: opening it must not use storage).
        None if tx.store(MESSAGES).map_err(err)?.count(None).await.map_err(err)? == 0 => IndexStats::default(),
        None => return Ok(()),
    };
    index_terms(tx, &mut stats, change).await?;
    write_stats(tx, &stats).await
}

/// [`index_doc`] with the totals kept by the caller. The new entries are
/// put at once (IndexedDB runs them in order; the last one's answer
/// means all are done).
pub(super) async fn index_terms(tx: &rexie::Transaction, stats: &mut IndexStats, change: DocChange<'_>) -> air_store::Result<()> {
    let DocChange { doc, session, at, old, new } = change;
    let terms = tx.store(TERMS).map_err(err)?;
    let mut puts = Vec::new();
    for (term, tf) in search::diff(old, new) {
        match (tf, new) {
            (Some(tf), Some(n)) => puts.push((to_js(&TermRecord::new(&term, doc, session, tf, n.len, at))?, None)),
            _ => {
                let key = js_sys::Array::of2(&JsValue::from_str(&term), &JsValue::from_str(doc));
                terms.delete(key.into()).await.map_err(err)?;
            }
        }
    }
    terms.put_all(puts.into_iter()).await.map_err(err)?;
    stats.apply(old, new);
    Ok(())
}
