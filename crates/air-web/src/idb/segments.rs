//! The search index's part of a write, and its reading, in IndexedDB:
//! posting lists in batched segments (`air_store::segments`,
//! `docs/SEARCH-SEGMENTS.md`).
//!
//! * `segs`, key `[k, i]`, record `{k, i, b}`: a term (string) or bucket
//!   (number), a segment id (0: the bucket's growing segment), the
//!   segment's bytes;
//! * `searchDocs`, key `n`: a [`DocBlock`] (numbers to ids), found by id
//!   through the multi-entry index `by_id`;
//! * `meta`: the totals and counters ([`IndexStats`]), the dead numbers
//!   ([`Tombstones`], bytes) and one `searchWork/…` entry per key whose
//!   segments may need merging.

use air_store::batch::Batch;
use air_store::search::{self, DocTerms, IndexStats};
use air_store::segments::{self, BatchDoc, DocBlock, DocNo, Entry, IndexDoc, Key, Layout, SegId, TAIL, Tombstones};
use air_store::{BY_ID, DEAD_KEY, INDEX_KEY, MESSAGES, META, MessageRecord, SEARCH_DOCS, SEGS, SESSIONS, SessionRecord, StoreError, WORK_KEY};
use futures_util::future::join_all;
use js_sys::{Array, Reflect, Uint8Array};
use rexie::{Direction, KeyRange, Rexie, TransactionMode};
use wasm_bindgen::{JsCast, JsValue};

use super::{err, from_js, to_js};

fn js_err(e: JsValue) -> StoreError {
    StoreError::Other(format!("{e:?}"))
}

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

/// The dead document numbers.
pub(super) async fn read_dead(tx: &rexie::Transaction) -> air_store::Result<Tombstones> {
    let v = tx.store(META).map_err(err)?.get(JsValue::from_str(DEAD_KEY)).await.map_err(err)?;
    match v.filter(|v| !v.is_undefined()) {
        Some(v) => Ok(Tombstones::decode(&v.dyn_into::<Uint8Array>().map_err(|_| StoreError::Corrupt("the dead list is not bytes".into()))?.to_vec())?),
        None => Ok(Tombstones::default()),
    }
}

/// What a write of the index reads first and writes back last.
pub(super) struct Index {
    pub stats: IndexStats,
    pub dead: Tombstones,
    dead_changed: bool,
}

impl Index {
    pub fn new(stats: IndexStats, dead: Tombstones) -> Self {
        Self { stats, dead, dead_changed: false }
    }
}

/// The index a write in `tx` (which holds `messages` and `meta`) updates;
/// `None`: there is none to update (a store from before it, not rebuilt
/// yet). A new database starts its index with its first write.
pub(super) async fn open(tx: &rexie::Transaction) -> air_store::Result<Option<Index>> {
    let stats = match read_stats(tx).await? {
        Some(stats) => stats,
        None if tx.store(MESSAGES).map_err(err)?.count(None).await.map_err(err)? == 0 => IndexStats::default(),
        None => return Ok(None),
    };
    Ok(Some(Index::new(stats, read_dead(tx).await?)))
}

/// Writes back what the write changed of the index's state.
pub(super) async fn close(tx: &rexie::Transaction, index: &Index) -> air_store::Result<()> {
    write_stats(tx, &index.stats).await?;
    if index.dead_changed {
        let bytes = Uint8Array::from(index.dead.encode().as_slice());
        tx.store(META).map_err(err)?.put(&bytes.into(), Some(&JsValue::from_str(DEAD_KEY))).await.map_err(err)?;
    }
    Ok(())
}

pub(super) fn key_js(k: &Key) -> JsValue {
    match k {
        Key::Bucket(b) => JsValue::from_f64(f64::from(*b)),
        Key::Term(t) => JsValue::from_str(t),
    }
}

pub(super) fn key_of(v: &JsValue) -> Option<Key> {
    match v.as_f64() {
        Some(n) if (0.0..4_294_967_296.0).contains(&n) && n.fract() == 0.0 => Some(Key::Bucket(n as u32)),
        Some(_) => None,
        None => v.as_string().map(Key::Term),
    }
}

pub(super) fn seg_key(k: &Key, id: SegId) -> JsValue {
    Array::of2(&key_js(k), &JsValue::from_f64(f64::from(id))).into()
}

pub(super) fn seg_value(k: &Key, id: SegId, bytes: &[u8]) -> air_store::Result<JsValue> {
    let o = js_sys::Object::new();
    for (name, v) in [("k", key_js(k)), ("i", JsValue::from_f64(f64::from(id))), ("b", Uint8Array::from(bytes).into())] {
        Reflect::set(&o, &JsValue::from_str(name), &v).map_err(js_err)?;
    }
    Ok(o.into())
}

/// Every segment of a key.
pub(super) fn seg_range(k: &Key) -> air_store::Result<KeyRange> {
    KeyRange::bound(&seg_key(k, 0), &seg_key(k, SegId::MAX), None, None).map_err(|e| StoreError::Other(e.to_string()))
}

/// A stored segment's id and bytes.
pub(super) fn seg_bytes(v: &JsValue) -> air_store::Result<(SegId, Vec<u8>)> {
    let bad = || StoreError::Corrupt("a search segment cannot be read".into());
    let id = Reflect::get(v, &JsValue::from_str("i")).ok().and_then(|i| i.as_f64()).filter(|i| *i >= 0.0 && *i <= f64::from(SegId::MAX)).ok_or_else(bad)?;
    let bytes = Reflect::get(v, &JsValue::from_str("b")).map_err(|_| bad())?.dyn_into::<Uint8Array>().map_err(|_| bad())?;
    Ok((id as SegId, bytes.to_vec()))
}

/// The keys of `meta` under `prefix/` (`0` follows `/`).
pub(super) fn prefix_range(prefix: &str) -> air_store::Result<KeyRange> {
    let from = JsValue::from_str(&format!("{prefix}/"));
    let to = JsValue::from_str(&format!("{prefix}0"));
    KeyRange::bound(&from, &to, None, Some(true)).map_err(|e| StoreError::Other(e.to_string()))
}

/// Where the marks of keys to merge are in `meta`.
pub(super) fn work_range() -> air_store::Result<KeyRange> {
    prefix_range(WORK_KEY)
}

/// Marks keys whose segments may need merging now.
pub(super) async fn mark_dirty<'a>(tx: &rexie::Transaction, keys: impl Iterator<Item = &'a Key>) -> air_store::Result<()> {
    let marks = keys.map(|k| {
        let name = match k {
            Key::Bucket(b) => format!("{WORK_KEY}/b{b}"),
            Key::Term(t) => format!("{WORK_KEY}/t{t}"),
        };
        (key_js(k), Some(JsValue::from_str(&name)))
    });
    tx.store(META).map_err(err)?.put_all(marks).await.map_err(err)
}

/// Takes documents out of the index (changed or deleted): each number
/// becomes a tombstone, its block forgets it, the totals go down.
pub(super) async fn kill(tx: &rexie::Transaction, index: &mut Index, ids: &[&str]) -> air_store::Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let docs = tx.store(SEARCH_DOCS).map_err(err)?;
    let by_id = docs.index(BY_ID).map_err(err)?;
    let found = join_all(ids.iter().map(|id| by_id.get(JsValue::from_str(id)))).await;
    let mut blocks: std::collections::BTreeMap<DocNo, DocBlock> = std::collections::BTreeMap::new();
    for (id, v) in ids.iter().zip(found) {
        let Some(v) = v.map_err(err)?.filter(|v| !v.is_undefined()) else { continue };
        let read: DocBlock = from_js(v)?;
        read.check()?;
        let block = blocks.entry(read.n).or_insert(read);
        if let Some((n, len)) = block.kill(id) {
            index.dead.kill(n);
            index.dead_changed = true;
            index.stats.docs = index.stats.docs.saturating_sub(1);
            index.stats.total_len = (index.stats.total_len - f64::from(len)).max(0.0);
        }
    }
    let mut puts = Vec::new();
    let mut gone = Vec::new();
    for (n, block) in blocks {
        if block.is_dead() {
            gone.push(docs.delete(JsValue::from_f64(f64::from(n))));
        } else {
            puts.push((to_js(&block)?, None));
        }
    }
    for done in join_all(gone).await {
        done.map_err(err)?;
    }
    docs.put_all(puts.into_iter()).await.map_err(err)
}

/// Numbers the documents with terms in one new block (to put).
fn number<'a>(index: &mut Index, docs: &[IndexDoc<'a>]) -> air_store::Result<(Option<DocBlock>, Vec<BatchDoc<'a>>)> {
    let mut block = DocBlock::new(index.stats.next_doc);
    let mut out = Vec::new();
    for d in docs {
        let Some(terms) = d.terms.filter(|t| !t.terms.is_empty()) else { continue };
        let doc = block.push(d.id, d.session, terms.len)?;
        index.stats.docs += 1;
        index.stats.total_len += f64::from(terms.len);
        out.push(BatchDoc { doc, at: d.at, terms });
    }
    if out.is_empty() {
        return Ok((None, out));
    }
    index.stats.next_doc = u32::try_from(block.end()).map_err(|_| segments::Malformed("document numbers used up"))?;
    Ok((Some(block), out))
}

async fn put_block(tx: &rexie::Transaction, block: Option<DocBlock>) -> air_store::Result<()> {
    if let Some(block) = block {
        tx.store(SEARCH_DOCS).map_err(err)?.put(&to_js(&block)?, None).await.map_err(err)?;
    }
    Ok(())
}

/// One document written (a message saved or edited, a title): its old
/// entries die (`was_indexed`), its new ones go to the growing segments of
/// their buckets, sealed when full. Left alone while a rebuild has yet to
/// read it.
pub(super) async fn live(tx: &rexie::Transaction, index: &mut Index, doc: IndexDoc<'_>, was_indexed: bool) -> air_store::Result<()> {
    if !index.stats.indexes(doc.id) {
        return Ok(());
    }
    if was_indexed {
        kill(tx, index, &[doc.id]).await?;
    }
    let (block, numbered) = number(index, &[doc])?;
    put_block(tx, block).await?;
    append_tails(tx, index, &numbered).await
}

/// Adds documents' entries to the growing segments of their buckets (each
/// read and written once), sealing those that are full.
async fn append_tails(tx: &rexie::Transaction, index: &mut Index, numbered: &[BatchDoc<'_>]) -> air_store::Result<()> {
    let layout = Layout::default();
    let segs = tx.store(SEGS).map_err(err)?;
    let mut adds: std::collections::BTreeMap<u32, Vec<(String, Entry)>> = std::collections::BTreeMap::new();
    for d in numbered {
        for (bucket, list) in segments::live_entries(&layout, d.doc, d.at, d.terms) {
            adds.entry(bucket).or_default().extend(list);
        }
    }
    let keys: Vec<Key> = adds.keys().map(|b| Key::Bucket(*b)).collect();
    let tails = join_all(keys.iter().map(|k| segs.get(seg_key(k, TAIL)))).await;
    let (mut puts, mut deletes, mut sealed) = (Vec::new(), Vec::new(), Vec::new());
    for ((key, add), tail) in keys.iter().zip(adds.values()).zip(tails) {
        let tail = tail.map_err(err)?.filter(|v| !v.is_undefined()).map(|v| seg_bytes(&v)).transpose()?;
        let dead = &index.dead;
        let out = segments::tail_append(&layout, tail.as_ref().map(|(_, b)| b.as_slice()), add, |d| dead.contains(d))?;
        match out.tail {
            Some(bytes) => puts.push((seg_value(key, TAIL, &bytes)?, None)),
            None => deletes.push(segs.delete(seg_key(key, TAIL))),
        }
        sealed.extend(out.sealed);
    }
    if !sealed.is_empty() {
        index.stats.merge_pending = true;
        let id = index.stats.new_seg()?;
        for (k, bytes) in &sealed {
            puts.push((seg_value(k, id, bytes)?, None));
        }
        mark_dirty(tx, sealed.iter().map(|(k, _)| k)).await?;
    }
    for done in join_all(deletes).await {
        done.map_err(err)?;
    }
    segs.put_all(puts.into_iter()).await.map_err(err)
}

/// Many documents written at once (an import's or sync's batch, a
/// rebuild's page): `killed` (indexed before) die, `docs` are numbered in
/// one block and make one segment per key, under one new segment id.
/// Returns the milliseconds of its own work (numbering, building and
/// encoding, between its requests).
pub(super) async fn batch(tx: &rexie::Transaction, index: &mut Index, docs: &[IndexDoc<'_>], killed: &[&str]) -> air_store::Result<f64> {
    kill(tx, index, killed).await?;
    let start = js_sys::Date::now();
    let (block, numbered) = number(index, docs)?;
    if numbered.is_empty() {
        return Ok(js_sys::Date::now() - start);
    }
    if numbered.len() < segments::SMALL_BATCH {
        let took = js_sys::Date::now() - start;
        put_block(tx, block).await?;
        append_tails(tx, index, &numbered).await?;
        return Ok(took);
    }
    let built = segments::build(&Layout::default(), numbered);
    let id = index.stats.new_seg()?;
    index.stats.merge_pending = true;
    let puts = built.iter().map(|(k, seg)| Ok((seg_value(k, id, &seg.encode())?, None))).collect::<air_store::Result<Vec<_>>>()?;
    let took = js_sys::Date::now() - start;
    put_block(tx, block).await?;
    tx.store(SEGS).map_err(err)?.put_all(puts.into_iter()).await.map_err(err)?;
    mark_dirty(tx, built.iter().map(|(k, _)| k)).await?;
    Ok(took)
}

/// A document's change as a write sees it: indexed now, and before.
pub(super) struct Change<'a> {
    pub doc: IndexDoc<'a>,
    pub old: Option<&'a DocTerms>,
    /// What the index holds of it may not be `old` (a title renamed since
    /// it was last indexed): taken out and indexed anew whatever it was.
    pub forced: bool,
}

/// The documents of a batch whose terms changed: those to index and
/// those that were indexed (both left alone while a rebuild has yet to
/// read them).
pub(super) fn changed<'a>(index: &Index, changes: &'a [Change<'a>]) -> (Vec<IndexDoc<'a>>, Vec<&'a str>) {
    let mut docs = Vec::new();
    let mut killed = Vec::new();
    for c in changes.iter().filter(|c| (c.forced || c.old != c.doc.terms) && index.stats.indexes(c.doc.id)) {
        if c.old.is_some() || c.forced {
            killed.push(c.doc.id);
        }
        docs.push(c.doc);
    }
    (docs, killed)
}

/// A term's `max` most recent live entries.
pub(super) async fn postings(db: &Rexie, term: &str, max: usize) -> air_store::Result<Vec<Entry>> {
    if max == 0 {
        return Ok(Vec::new());
    }
    let tx = db.transaction(&[SEGS, META], TransactionMode::ReadOnly).map_err(err)?;
    let segs = tx.store(SEGS).map_err(err)?;
    let keys = Layout::default().keys(term);
    let ranges = keys.iter().map(seg_range).collect::<air_store::Result<Vec<_>>>()?;
    let (dead, lists) = futures_util::future::join(read_dead(&tx), join_all(ranges.into_iter().map(|r| segs.get_all(Some(r), None)))).await;
    let dead = dead?;
    let mut bytes = Vec::new();
    for list in lists {
        for v in list.map_err(err)? {
            bytes.push(seg_bytes(&v)?.1);
        }
    }
    let refs: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
    Ok(segments::recent(term, &refs, |d| dead.contains(d), max)?)
}

/// A document's block is the one with the greatest key not above its
/// number. A message written on its own has a block of its own, under its
/// number; otherwise the block keys within this many numbers below it are
/// read (a block holds the documents one write numbered: a rebuild's page,
/// an import's group, seldom more). Plain reads, where a cursor reads two
/// blocks.
const BLOCK_WINDOW: u32 = 1024;

fn range_err(e: impl std::fmt::Display) -> StoreError {
    StoreError::Other(e.to_string())
}

/// The id and session of document `n` (`None`: no longer indexed).
async fn doc_ref(store: &rexie::Store, n: DocNo) -> air_store::Result<Option<(String, String)>> {
    let at = |n: DocNo| JsValue::from_f64(f64::from(n));
    let window = KeyRange::bound(&at(n.saturating_sub(BLOCK_WINDOW - 1)), &at(n), None, None).map_err(range_err)?;
    let block = match store.get(at(n)).await.map_err(err)?.filter(|v| !v.is_undefined()) {
        Some(v) => Some((at(n), v)),
        None => match store.get_all_keys(Some(window), None).await.map_err(err)?.pop() {
            Some(key) => store.get(key.clone()).await.map_err(err)?.map(|v| (key, v)),
            // A larger block (or none): found by a cursor.
            None => {
                let below = KeyRange::upper_bound(&at(n), None).map_err(range_err)?;
                store.scan(Some(below), Some(1), None, Some(Direction::Prev)).await.map_err(err)?.into_iter().next()
            }
        },
    };
    // Only the two strings wanted are read out of the block (it holds
    // hundreds).
    let field = |v: &JsValue, name: &str, i: u32| Reflect::get(v, &JsValue::from_str(name)).ok().filter(Array::is_array).map(|a| Array::from(&a).get(i));
    Ok(block.and_then(|(key, v)| {
        let i = n.checked_sub(key.as_f64().filter(|k| *k >= 0.0 && *k <= f64::from(DocNo::MAX))? as DocNo)?;
        Some((field(&v, "ids", i)?.as_string()?, field(&v, "s", i)?.as_string()?))
    }))
}

/// The id and session of documents, by number.
pub(super) async fn docs(db: &Rexie, ns: &[DocNo]) -> air_store::Result<Vec<Option<(String, String)>>> {
    if ns.is_empty() {
        return Ok(Vec::new());
    }
    let tx = db.transaction(&[SEARCH_DOCS], TransactionMode::ReadOnly).map_err(err)?;
    let store = tx.store(SEARCH_DOCS).map_err(err)?;
    join_all(ns.iter().map(|n| doc_ref(&store, *n))).await.into_iter().collect()
}

/// A search's hits ([`air_store::Store::index_hits`]) in one transaction:
/// each document's message and session are asked for as soon as its
/// block is read (each session once).
pub(super) async fn hits(db: &Rexie, ns: &[DocNo]) -> air_store::Result<(Vec<Option<(String, String)>>, Batch)> {
    if ns.is_empty() {
        return Ok((Vec::new(), Batch::default()));
    }
    let tx = db.transaction(&[SEARCH_DOCS, SESSIONS, MESSAGES], TransactionMode::ReadOnly).map_err(err)?;
    let (docs, sessions, messages) = (tx.store(SEARCH_DOCS).map_err(err)?, tx.store(SESSIONS).map_err(err)?, tx.store(MESSAGES).map_err(err)?);
    let asked = std::cell::RefCell::new(std::collections::BTreeSet::new());
    let one = |n: DocNo| {
        let (docs, sessions, messages, asked) = (&docs, &sessions, &messages, &asked);
        async move {
            let Some((doc, session)) = doc_ref(docs, n).await? else { return Ok((None, None, None)) };
            let message = async { if search::is_title_doc(&doc) { Ok(None) } else { messages.get(JsValue::from_str(&doc)).await } };
            let first = asked.borrow_mut().insert(session.clone());
            let record = async { if first { sessions.get(JsValue::from_str(&session)).await } else { Ok(None) } };
            let (message, record) = futures_util::future::join(message, record).await;
            let present = |v: Option<JsValue>| v.filter(|v| !v.is_undefined());
            Ok::<_, StoreError>((Some((doc, session)), present(message.map_err(err)?), present(record.map_err(err)?)))
        }
    };
    let mut refs = Vec::with_capacity(ns.len());
    let mut out = Batch::default();
    for got in join_all(ns.iter().map(|n| one(*n))).await {
        let (r, message, session) = got?;
        refs.push(r);
        out.messages.extend(message.map(from_js::<MessageRecord>).transpose()?);
        out.sessions.extend(session.map(from_js::<SessionRecord>).transpose()?);
    }
    Ok((refs, out))
}

/// A document's change in a write of its own (a message): indexed anew,
/// or taken out. The caller opened `index` and leaves out writes that do
/// not change the document's terms.
pub(super) async fn index_one(tx: &rexie::Transaction, mut index: Index, doc: IndexDoc<'_>, was_indexed: bool) -> air_store::Result<()> {
    if doc.terms.is_some() {
        live(tx, &mut index, doc, was_indexed).await?;
    } else if index.stats.indexes(doc.id) {
        kill(tx, &mut index, &[doc.id]).await?;
    }
    close(tx, &index).await
}

/// Documents deleted: taken out of the index (those it never had are
/// passed over).
pub(super) async fn remove(tx: &rexie::Transaction, ids: &[&str]) -> air_store::Result<()> {
    let Some(mut index) = open(tx).await? else { return Ok(()) };
    let ids: Vec<&str> = ids.iter().copied().filter(|id| index.stats.indexes(id)).collect();
    kill(tx, &mut index, &ids).await?;
    close(tx, &index).await
}
