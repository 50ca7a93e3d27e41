//! The search index's long work: a rebuild, page by page (each page one
//! transaction, its size kept to a short task), and merging segments in
//! the background, a bounded step at a time.

use std::cell::Cell;
use std::collections::BTreeSet;

use air_store::search::{self, DocTerms, IndexStats, RebuildCursor};
use air_store::segments::{IndexDoc, Key, Layout, Merge, Progress, SegId, seg_info};
use air_store::{DEAD_KEY, MESSAGES, META, SEARCH_DOCS, SEGS, SESSIONS, StoreError};
use rexie::{KeyRange, TransactionMode};
use serde::Deserialize;
use wasm_bindgen::JsValue;

use super::segments::{Index, batch, close, key_of, mark_dirty, prefix_range, read_dead, read_stats, seg_bytes, seg_key, seg_range, work_range, write_stats};
use super::{IdbStore, err};

/// A merge under way (between its steps) and the segments it replaces.
pub(crate) struct Work {
    inputs: Vec<SegId>,
    merge: Merge,
}

/// Of a stored message, what the index reads.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MessageText {
    id: String,
    session_id: String,
    timestamp: f64,
    #[serde(default)]
    content: String,
    #[serde(default)]
    incomplete: bool,
    #[serde(default)]
    tool: Option<ToolArguments>,
}

/// Of a stored tool run, what the index reads.
#[derive(Deserialize)]
struct ToolArguments {
    #[serde(default)]
    arguments: String,
}

/// Of a stored session, what the index reads.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TitleText {
    id: String,
    #[serde(default)]
    title: String,
    updated_at: f64,
}

/// A page's documents: id, session, time, terms.
type Docs = Vec<(String, String, f64, Option<DocTerms>)>;

fn read_page(values: Vec<JsValue>, titles: bool) -> Docs {
    // A record that cannot be read is left out of the index, not a reason
    // to stop (reading it shows the error where it is).
    if titles {
        values.into_iter().filter_map(|v| serde_wasm_bindgen::from_value::<TitleText>(v).ok()).map(|t| (search::title_doc(&t.id), t.id, t.updated_at, search::title_text_terms(&t.title))).collect()
    } else {
        values
            .into_iter()
            .filter_map(|v| serde_wasm_bindgen::from_value::<MessageText>(v).ok())
            .map(|m| {
                let text = search::with_arguments(&m.content, m.tool.as_ref().map(|t| t.arguments.as_str()));
                let terms = search::text_terms(&text, m.incomplete);
                (m.id, m.session_id, m.timestamp, terms)
            })
            .collect()
    }
}

/// Milliseconds of a page's work to aim at (a task well under 50 ms).
const PAGE_MS: f64 = 25.0;

impl IdbStore {
    /// Empties the index and marks it as being rebuilt; then fills it a page
    /// per transaction, so the tabs' own writes go on meanwhile.
    pub(super) async fn rebuild_segments(&self) -> air_store::Result<()> {
        self.write(&[SEGS, SEARCH_DOCS, META], |tx| async move {
            // The counters go on (a merge planned before still sees its
            // segments gone, never others under their ids).
            let old = read_stats(&tx).await?.unwrap_or_default();
            tx.store(SEGS).map_err(err)?.clear().await.map_err(err)?;
            tx.store(SEARCH_DOCS).map_err(err)?.clear().await.map_err(err)?;
            let meta = tx.store(META).map_err(err)?;
            meta.delete(JsValue::from_str(DEAD_KEY)).await.map_err(err)?;
            let range: web_sys::IdbKeyRange = work_range()?.into();
            meta.delete(range.into()).await.map_err(err)?;
            let stats = IndexStats { complete: false, rebuild: Some(RebuildCursor::default()), next_doc: old.next_doc, next_seg: old.next_seg, ..IndexStats::default() };
            write_stats(&tx, &stats).await?;
            Ok(tx)
        })
        .await?;
        let mut size = 250u32;
        loop {
            let Some(took) = self.rebuild_page(size).await? else { return Ok(()) };
            let next = f64::from(size) * PAGE_MS / took.max(1.0);
            size = next.clamp(100.0, 500.0) as u32;
        }
    }

    /// Indexes the next `size` titles or messages, in one transaction;
    /// `None` when the rebuild is over, else the milliseconds of work.
    async fn rebuild_page(&self, size: u32) -> air_store::Result<Option<f64>> {
        let took = Cell::new(None);
        let took_ref = &took;
        self.write(&[SESSIONS, MESSAGES, SEGS, SEARCH_DOCS, META], |tx| async move {
            let Some(stats) = read_stats(&tx).await? else { return Ok(tx) };
            let Some(cursor) = stats.rebuild.clone() else { return Ok(tx) };
            let titles = !cursor.titles_done;
            let store = tx.store(if titles { SESSIONS } else { MESSAGES }).map_err(err)?;
            // After the last record read (one range each: a request takes its own).
            let after = || cursor.after.as_ref().map(|id| KeyRange::lower_bound(&JsValue::from_str(id), Some(true)).map_err(|e| StoreError::Other(e.to_string()))).transpose();
            let (keys, values) = futures_util::future::join(store.get_all_keys(after()?, Some(size)), store.get_all(after()?, Some(size))).await;
            let (keys, values) = (keys.map_err(err)?, values.map_err(err)?);
            let dead = read_dead(&tx).await?;
            // The page's own work (reading the records, tokenizing,
            // building), which its size is fitted to.
            let start = js_sys::Date::now();
            let docs = read_page(values, titles);
            let list: Vec<IndexDoc<'_>> = docs.iter().map(|(id, session, at, terms)| IndexDoc { id, session, at: *at, terms: terms.as_ref() }).collect();
            let read = js_sys::Date::now() - start;
            let mut index = Index::new(stats, dead);
            let built = batch(&tx, &mut index, &list, &[]).await?;
            let next = match keys.last().and_then(JsValue::as_string) {
                Some(last) if keys.len() as u32 >= size => Some(RebuildCursor { titles_done: !titles, after: Some(last) }),
                _ if titles => Some(RebuildCursor { titles_done: true, after: None }),
                _ => None,
            };
            index.stats.complete = next.is_none();
            index.stats.rebuild = next;
            let more = index.stats.rebuild.is_some();
            close(&tx, &index).await?;
            if more {
                took_ref.set(Some(read + built));
            }
            Ok(tx)
        })
        .await?;
        Ok(took.get())
    }

    /// Indexes the titles written since the last search (`put_session`
    /// leaves a mark in `meta`), in one transaction.
    /// True when titles were found waiting (and are now indexed).
    pub(super) async fn index_titles(&self) -> air_store::Result<bool> {
        // Most searches find no title waiting: looked at without taking
        // the stores for writing.
        let tx = self.db.transaction(&[META], TransactionMode::ReadOnly).map_err(err)?;
        if tx.store(META).map_err(err)?.get_all_keys(Some(prefix_range(air_store::TITLE_KEY)?), Some(1)).await.map_err(err)?.is_empty() {
            return Ok(false);
        }
        self.write(&[SESSIONS, MESSAGES, SEGS, SEARCH_DOCS, META], |tx| async move {
            let meta = tx.store(META).map_err(err)?;
            let range = || prefix_range(air_store::TITLE_KEY);
            let ids: Vec<String> = meta.get_all(Some(range()?), None).await.map_err(err)?.iter().filter_map(JsValue::as_string).collect();
            if ids.is_empty() {
                return Ok(tx);
            }
            let range: web_sys::IdbKeyRange = range()?.into();
            meta.delete(range.into()).await.map_err(err)?;
            let Some(mut index) = super::segments::open(&tx).await? else { return Ok(tx) };
            let sessions = tx.store(SESSIONS).map_err(err)?;
            for id in &ids {
                let v = sessions.get(JsValue::from_str(id)).await.map_err(err)?;
                let title = v.and_then(|v| serde_wasm_bindgen::from_value::<TitleText>(v).ok());
                let terms = title.as_ref().and_then(|t| search::title_text_terms(&t.title));
                let doc = search::title_doc(id);
                let at = title.as_ref().map_or(0.0, |t| t.updated_at);
                // Whatever was indexed of the title before goes first.
                if index.stats.indexes(&doc) {
                    super::segments::kill(&tx, &mut index, &[doc.as_str()]).await?;
                }
                super::segments::live(&tx, &mut index, IndexDoc { id: &doc, session: id, at, terms: terms.as_ref() }, false).await?;
            }
            close(&tx, &index).await?;
            Ok(tx)
        })
        .await
        .map(|()| true)
    }

    /// One step of merging: a merge under way goes on (`budget` entries),
    /// and is written when done; else the next key marked is planned.
    pub(super) async fn compact_step(&self, budget: usize) -> air_store::Result<bool> {
        let progress = match self.work.borrow_mut().as_mut() {
            Some(work) => Some(work.merge.step(budget)),
            None => None,
        };
        let progress = match progress {
            // A merge that cannot go on is dropped (its inputs stay).
            Some(Err(e)) => {
                self.work.borrow_mut().take();
                return Err(e.into());
            }
            Some(Ok(p)) => Some(p),
            None => None,
        };
        match progress {
            Some(Progress::More) => Ok(true),
            Some(Progress::Done) => {
                let work = self.work.borrow_mut().take();
                if let Some(work) = work {
                    self.commit_merge(work).await?;
                }
                Ok(true)
            }
            None => self.plan_merge().await,
        }
    }

    /// Takes the next key marked for merging and starts its merge, if it
    /// needs one. False when no key is marked.
    async fn plan_merge(&self) -> air_store::Result<bool> {
        let tx = self.db.transaction(&[SEGS, META], TransactionMode::ReadWrite).map_err(err)?;
        let meta = tx.store(META).map_err(err)?;
        // A rebuild under way makes segments faster than merging them
        // would be worth: merged once it is done (it asks for that).
        if read_stats(&tx).await?.is_some_and(|s| s.rebuild.is_some()) {
            tx.done().await.map_err(err)?;
            return Ok(false);
        }
        let Some(mark) = meta.get_all_keys(Some(work_range()?), Some(1)).await.map_err(err)?.into_iter().next() else {
            // Nothing is left to merge: said, so that a start need not look.
            if let Some(mut stats) = read_stats(&tx).await?.filter(|s| s.merge_pending) {
                stats.merge_pending = false;
                write_stats(&tx, &stats).await?;
            }
            tx.done().await.map_err(err)?;
            return Ok(false);
        };
        let key = meta.get(mark.clone()).await.map_err(err)?.as_ref().and_then(key_of);
        meta.delete(mark).await.map_err(err)?;
        if let Some(key) = key {
            let stored = tx.store(SEGS).map_err(err)?.get_all(Some(seg_range(&key)?), None).await.map_err(err)?;
            let segs = stored.iter().map(seg_bytes).collect::<air_store::Result<Vec<_>>>()?;
            let infos = segs.iter().map(|(id, b)| seg_info(*id, b)).collect::<Result<Vec<_>, _>>()?;
            let layout = Layout::default();
            if let Some(ids) = air_store::segments::plan(&layout, &infos) {
                let dead = read_dead(&tx).await?;
                let chosen: BTreeSet<SegId> = ids.iter().copied().collect();
                let inputs: Vec<Vec<u8>> = segs.into_iter().filter(|(id, _)| chosen.contains(id)).map(|(_, b)| b).collect();
                let merge = Merge::new(&layout, key, inputs, dead)?;
                *self.work.borrow_mut() = Some(Work { inputs: ids, merge });
            }
        }
        tx.done().await.map_err(err)?;
        Ok(true)
    }

    /// Replaces a merge's inputs by its outputs, if they are all still
    /// there (a rebuild meanwhile took them: the merge is dropped).
    async fn commit_merge(&self, work: Work) -> air_store::Result<()> {
        let Work { inputs, merge } = work;
        let key = merge.key().clone();
        let outputs = merge.finish()?;
        self.write(&[SEGS, META], |tx| async move {
            let Some(mut stats) = read_stats(&tx).await? else { return Ok(tx) };
            let segs = tx.store(SEGS).map_err(err)?;
            let there: BTreeSet<SegId> =
                segs.get_all_keys(Some(seg_range(&key)?), None).await.map_err(err)?.iter().filter_map(|k| js_sys::Array::from(k).get(1).as_f64()).map(|i| i as SegId).collect();
            if !inputs.iter().all(|i| there.contains(i)) {
                return Ok(tx);
            }
            for done in futures_util::future::join_all(inputs.iter().map(|i| segs.delete(seg_key(&key, *i)))).await {
                done.map_err(err)?;
            }
            let id = stats.new_seg()?;
            let mut puts = Vec::new();
            for (k, bytes) in &outputs {
                puts.push((super::segments::seg_value(k, id, bytes)?, None));
            }
            segs.put_all(puts.into_iter()).await.map_err(err)?;
            let mut marked: Vec<&Key> = outputs.iter().map(|(k, _)| k).collect();
            marked.push(&key);
            mark_dirty(&tx, marked.into_iter()).await?;
            stats.merge_pending = true;
            write_stats(&tx, &stats).await?;
            Ok(tx)
        })
        .await
    }
}
