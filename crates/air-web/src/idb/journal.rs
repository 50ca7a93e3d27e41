//! The journal's part of a write ([`air_store::journal`]): the next
//! sequence numbers, read and written in the write's own transaction (so
//! two tabs, whose transactions IndexedDB runs one after the other, never
//! share one), and each record's entry in place of its earlier one.

use air_store::journal::{Change, Entry, Seq};
use air_store::{BY_RECORD, JOURNAL, JOURNAL_SEQ_KEY, META, StoreError};
use futures_util::future::join_all;
use rexie::KeyRange;
use wasm_bindgen::JsValue;

use super::{err, from_js, to_js};

/// Records `changes` in `tx` (which holds `journal` and `meta`).
pub(super) async fn record(tx: &rexie::Transaction, changes: &[Change]) -> air_store::Result<()> {
    if changes.is_empty() {
        return Ok(());
    }
    let (meta, mut seq) = last(tx).await?;
    let journal = tx.store(JOURNAL).map_err(err)?;
    let by_record = journal.index(BY_RECORD).map_err(err)?;
    for change in changes {
        seq += 1;
        for old in by_record.get_all_keys(Some(only(change)?), None).await.map_err(err)? {
            journal.delete(old).await.map_err(err)?;
        }
        journal.put(&to_js(&change.clone().at(seq))?, None).await.map_err(err)?;
    }
    meta.put(&JsValue::from_f64(seq as f64), Some(&JsValue::from_str(JOURNAL_SEQ_KEY))).await.map_err(err)?;
    Ok(())
}

/// `meta`, and the last sequence number given out.
async fn last(tx: &rexie::Transaction) -> air_store::Result<(rexie::Store, Seq)> {
    let meta = tx.store(META).map_err(err)?;
    let seq = meta.get(JsValue::from_str(JOURNAL_SEQ_KEY)).await.map_err(err)?.and_then(|v| v.as_f64()).map_or(0, |f| f as Seq);
    Ok((meta, seq))
}

/// The journal's entries of `change`'s record.
fn only(change: &Change) -> air_store::Result<KeyRange> {
    let record = js_sys::Array::of2(&JsValue::from_str(change.kind.as_str()), &JsValue::from_str(&change.id));
    KeyRange::only(&record).map_err(|e| StoreError::Other(e.to_string()))
}

/// [`record`] for a batch ([`super::batch`]): each record once, at its
/// last change, and every request made at once and awaited together.
pub(super) async fn record_at_once(tx: &rexie::Transaction, changes: &[Change]) -> air_store::Result<()> {
    let mut seen = std::collections::BTreeSet::new();
    let mut unique: Vec<&Change> = changes.iter().rev().filter(|c| seen.insert((c.kind, c.id.as_str()))).collect();
    unique.reverse();
    if unique.is_empty() {
        return Ok(());
    }
    let (meta, mut seq) = last(tx).await?;
    let journal = tx.store(JOURNAL).map_err(err)?;
    let by_record = journal.index(BY_RECORD).map_err(err)?;
    let ranges = unique.iter().map(|c| only(c)).collect::<air_store::Result<Vec<_>>>()?;
    let olds = join_all(ranges.into_iter().map(|r| by_record.get_all_keys(Some(r), None))).await;
    let olds = olds.into_iter().collect::<Result<Vec<_>, _>>().map_err(err)?;
    let deleted = join_all(olds.into_iter().flatten().map(|old| journal.delete(old))).await;
    deleted.into_iter().collect::<Result<Vec<()>, _>>().map_err(err)?;
    let mut entries = Vec::with_capacity(unique.len());
    for change in unique {
        seq += 1;
        entries.push((to_js(&change.clone().at(seq))?, None));
    }
    journal.put_all(entries.into_iter()).await.map_err(err)?;
    meta.put(&JsValue::from_f64(seq as f64), Some(&JsValue::from_str(JOURNAL_SEQ_KEY))).await.map_err(err)?;
    Ok(())
}

/// The entries after `after`, oldest first, at most `limit`.
pub(super) async fn since(db: &rexie::Rexie, after: Seq, limit: usize) -> air_store::Result<Vec<Entry>> {
    let tx = db.transaction(&[JOURNAL], rexie::TransactionMode::ReadOnly).map_err(err)?;
    let range = KeyRange::lower_bound(&JsValue::from_f64(after as f64), Some(true)).map_err(|e| StoreError::Other(e.to_string()))?;
    let limit = u32::try_from(limit).unwrap_or(u32::MAX);
    let values = tx.store(JOURNAL).map_err(err)?.get_all(Some(range), Some(limit)).await.map_err(err)?;
    values.into_iter().map(from_js::<Entry>).collect()
}
