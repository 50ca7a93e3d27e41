//! The app's store as the local side of sync: [`StoreRecords`] gives
//! `air_sync_local` the journal, the records as JSON and a place for its
//! bookkeeping; [`AppKinds`] says what syncs and how versions written
//! apart end.
//!
//! What syncs: sessions, messages (their tool calls, results and
//! branches) and attached files; with encryption, the preferences too
//! (`crate::sync::prefs`). What stays: the documents (the event
//! log, dynamic loading's catalog, loaded sets and metrics: derived or this
//! device's own), a message's place among the branches on screen
//! (`branch`, `rev`: made again from the parent links after a pull) and a
//! session's choice of shown branches (`forks`).

use std::collections::BTreeSet;

use air_store::batch::{Batch, Ids};
use air_store::journal::{Change, Kind};
use air_store::sync_meta::SYNC_PREFIX;
use air_store::{FileRecord, MessageRecord, SessionRecord, Store, SyncMeta, branches};
use air_sync_local::records::{Entry, Kinds, Leaf, LocalError, Merged, Records, RevEntry, Rule, Write, newest};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use serde_json::{Value, json};

fn kind_of(name: &str) -> Option<Kind> {
    [Kind::Session, Kind::Message, Kind::File, Kind::Doc, Kind::Pref].into_iter().find(|k| k.as_str() == name)
}

/// The store's words for what went wrong.
fn text(e: impl std::fmt::Display) -> LocalError {
    LocalError::Store(e.to_string())
}

/// The store, as sync reads and writes it (and the key/value store,
/// where the preferences are).
pub struct StoreRecords<'a, S> {
    pub store: &'a S,
    pub kv: Option<&'a dyn air_store::KeyValue>,
    /// A pulled preference was written.
    pub prefs_written: std::cell::Cell<bool>,
    /// The database synced with ([`mark`]): what is pulled from it is
    /// journaled with this mark, and passed by when pushing to it.
    pub mark: Option<String>,
}

impl<'a, S> StoreRecords<'a, S> {
    pub fn new(store: &'a S, kv: Option<&'a dyn air_store::KeyValue>) -> Self {
        Self { store, kv, prefs_written: std::cell::Cell::new(false), mark: None }
    }

    pub fn marked(self, mark: String) -> Self {
        Self { mark: Some(mark), ..self }
    }
}

/// A short name of database `url`, for the journal entries of what was
/// pulled from it (FNV-1a, 64 bits: not a secret, only told apart from
/// the other databases this device syncs with).
pub fn mark(url: &str) -> String {
    let hash = url.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3));
    format!("{hash:016x}")
}

impl<S: Store + SyncMeta> StoreRecords<'_, S> {
    /// Adds a pulled record to `batch`, or writes it (a preference). One
    /// this version cannot read (written by a newer one, or damaged) is
    /// left out: the rest go on.
    async fn put(&self, kind: &str, id: &str, value: &Value, batch: &mut Batch) -> Result<(), LocalError> {
        match kind {
            "session" => batch.sessions.extend(serde_json::from_value::<SessionRecord>(value.clone()).ok()),
            "message" => batch.messages.extend(serde_json::from_value::<MessageRecord>(value.clone()).ok()),
            "file" => batch.files.extend(file_from(value)),
            "pref" => return self.pref(id, Some(value)).await,
            _ => {}
        }
        Ok(())
    }

    /// A preference pulled (`Some`), or deleted on another device.
    async fn pref(&self, id: &str, value: Option<&Value>) -> Result<(), LocalError> {
        let Some(kv) = self.kv else { return Ok(()) };
        let written = match value {
            Some(v) => crate::sync::prefs::put(self.store, kv, id, v).await?,
            None => crate::sync::prefs::remove(self.store, kv, id).await?,
        };
        self.prefs_written.set(self.prefs_written.get() || written);
        Ok(())
    }

    async fn delete(&self, kind: &str, id: &str) -> Result<(), LocalError> {
        match kind {
            "pref" => self.pref(id, None).await,
            "session" => self.store.delete_session(id).await.map_err(text),
            "message" => self.store.delete_message(id).await.map_err(text),
            // A file goes with its message or session.
            _ => Ok(()),
        }
    }

    /// Writes what `batch` gathered, noting the sessions its messages
    /// came to.
    async fn flush(&self, batch: &mut Batch, sessions: &mut BTreeSet<String>) -> Result<(), LocalError> {
        sessions.extend(batch.messages.iter().map(|m| m.session_id.clone()));
        batch.from.clone_from(&self.mark);
        let result = self.store.put_batch(batch).await.map_err(text);
        *batch = Batch::default();
        result
    }

    async fn rederive(&self, session: &str) -> Result<(), LocalError> {
        let Some(mut s) = self.store.get_session(session).await.map_err(text)? else { return Ok(()) };
        let mut all = self.store.messages(session).await.map_err(text)?;
        let before = s.forks.clone();
        let mut batch = Batch::default();
        for i in branches::derive(&mut all, &mut s.forks) {
            all[i].rev += 1;
            batch.messages.push(all[i].clone());
        }
        if s.forks != before {
            batch.sessions.push(s);
        }
        self.store.put_batch(&batch).await.map_err(text)
    }
}

/// `writes` put preference `id`.
fn written_pref(writes: &[Write], id: &str) -> bool {
    writes.iter().any(|w| matches!(w, Write::Put { kind, id: i, .. } if kind == "pref" && i == id))
}

/// A file as it travels: its bytes in base64.
fn file_to(f: &FileRecord) -> Value {
    json!({"id": f.id, "sessionId": f.session_id, "mime": f.mime, "data": B64.encode(&f.bytes)})
}

fn file_from(v: &Value) -> Option<FileRecord> {
    let field = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    Some(FileRecord { id: field("id")?, session_id: field("sessionId")?, mime: field("mime")?, bytes: B64.decode(field("data")?).ok()? })
}

/// Where the list of records with versions kept for the user is
/// (`crate::sync::conflicts`).
pub(crate) fn conflicts_key() -> String {
    format!("{SYNC_PREFIX}conflicts")
}

pub(crate) fn conflicts_read(text: Option<&String>) -> BTreeSet<String> {
    text.and_then(|t| serde_json::from_str(t).ok()).unwrap_or_default()
}

/// The list's new text, if `entries` (about to be kept) change it.
async fn conflicts_note<S: SyncMeta>(store: &S, entries: &[RevEntry]) -> Result<Option<(String, String)>, LocalError> {
    let kept = store.sync_get(&[conflicts_key()]).await.map_err(text)?;
    let mut set = conflicts_read(kept.first().and_then(Option::as_ref));
    let mut changed = false;
    for e in entries {
        changed |= if e.superseded.is_empty() { set.remove(&e.wire) } else { set.insert(e.wire.clone()) };
    }
    Ok(changed.then(|| (conflicts_key(), serde_json::to_string(&set).unwrap_or_default())))
}

fn rev_key(wire: &str) -> String {
    format!("{SYNC_PREFIX}rev:{wire}")
}

fn local_key(id: &str) -> String {
    format!("{SYNC_PREFIX}local:{id}")
}

impl<S: Store + SyncMeta> Records for StoreRecords<'_, S> {
    async fn journal(&self, after: u64, limit: usize) -> Result<Vec<Entry>, LocalError> {
        let entries = self.store.journal_since(after, limit).await.map_err(text)?;
        let pulled = |e: &air_store::journal::Entry| self.mark.is_some() && e.change.from == self.mark;
        Ok(entries.into_iter().map(|e| Entry { seq: e.seq, pulled: pulled(&e), kind: e.change.kind.as_str().to_owned(), id: e.change.id, deleted: e.change.deleted }).collect())
    }

    async fn last_seq(&self) -> Result<u64, LocalError> {
        self.store.journal_last().await.map_err(text)
    }

    async fn pending(&self, after: u64) -> Option<u64> {
        self.store.journal_count(after).await.ok()
    }

    async fn read(&self, kind: &str, id: &str) -> Result<Option<Value>, LocalError> {
        let v = match kind {
            "session" => self.store.get_session(id).await.map_err(text)?.map(|s| serde_json::to_value(s).map_err(text)).transpose()?,
            "message" => self.store.get_message(id).await.map_err(text)?.map(|m| serde_json::to_value(m).map_err(text)).transpose()?,
            "file" => self.store.get_file(id).await.map_err(text)?.map(|f| file_to(&f)),
            "pref" => match self.kv {
                Some(kv) => crate::sync::prefs::read(self.store, kv, id).await?,
                None => None,
            },
            _ => None,
        };
        Ok(v)
    }

    /// Sessions, messages and files in one read of the store.
    async fn read_many(&self, wanted: &[(String, String)]) -> Result<Vec<Option<Value>>, LocalError> {
        let mut ids = Ids::default();
        for (kind, id) in wanted {
            match kind.as_str() {
                "session" => ids.sessions.push(id.clone()),
                "message" => ids.messages.push(id.clone()),
                "file" => ids.files.push(id.clone()),
                _ => {}
            }
        }
        let found = self.store.get_batch(&ids).await.map_err(text)?;
        let mut by_id = std::collections::HashMap::new();
        for s in found.sessions {
            by_id.insert(("session", s.id.clone()), serde_json::to_value(s).map_err(text)?);
        }
        for m in found.messages {
            by_id.insert(("message", m.id.clone()), serde_json::to_value(m).map_err(text)?);
        }
        for f in found.files {
            by_id.insert(("file", f.id.clone()), file_to(&f));
        }
        let mut out = Vec::with_capacity(wanted.len());
        for (kind, id) in wanted {
            out.push(match kind.as_str() {
                "session" | "message" | "file" => by_id.get(&(kind.as_str(), id.clone())).cloned(),
                _ => self.read(kind, id).await?,
            });
        }
        Ok(out)
    }

    /// Sessions first, then files, then messages (what a message names is
    /// there before it); then the branches of every session a message
    /// came to.
    async fn apply(&self, writes: &[Write]) -> Result<(), LocalError> {
        let order = |w: &Write| match w {
            Write::Put { kind, .. } | Write::Delete { kind, .. } | Write::Touch { kind, .. } => ["session", "file", "message"].iter().position(|k| k == kind).unwrap_or(3),
        };
        let mut sorted: Vec<&Write> = writes.iter().collect();
        sorted.sort_by_key(|w| order(w));
        let mut sessions = BTreeSet::new();
        let mut touched = Vec::new();
        // Records written together; a deletion waits for what came before it.
        let mut batch = Batch::default();
        for w in sorted {
            match w {
                Write::Put { kind, id, value } => self.put(kind, id, value, &mut batch).await?,
                Write::Delete { kind, id } => {
                    self.flush(&mut batch, &mut sessions).await?;
                    self.delete(kind, id).await?;
                }
                // A preference written here is not journaled by its
                // write (it is not in the store), nor then by its touch.
                Write::Touch { kind, id } if kind == "pref" && written_pref(writes, id) => {}
                Write::Touch { kind, id } => {
                    if let Some(k) = kind_of(kind) {
                        touched.push(Change::put(k, id));
                    }
                }
            }
        }
        self.flush(&mut batch, &mut sessions).await?;
        self.store.rejournal(&touched).await.map_err(text)?;
        for s in sessions {
            self.rederive(&s).await?;
        }
        Ok(())
    }

    async fn rev_entries(&self, wire: &[String]) -> Result<Vec<Option<RevEntry>>, LocalError> {
        let keys: Vec<String> = wire.iter().map(|w| rev_key(w)).collect();
        let kept = self.store.sync_get(&keys).await.map_err(text)?;
        kept.into_iter().map(|v| v.map(|t| serde_json::from_str(&t).map_err(|e| LocalError::Store(format!("sync's record of a document is damaged: {e}")))).transpose()).collect()
    }

    async fn put_rev_entries(&self, entries: &[RevEntry]) -> Result<(), LocalError> {
        let mut items = entries.iter().map(|e| Ok((rev_key(&e.wire), serde_json::to_string(e).map_err(text)?))).collect::<Result<Vec<_>, LocalError>>()?;
        items.extend(conflicts_note(self.store, entries).await?);
        self.store.sync_put(&items).await.map_err(text)
    }

    async fn local_doc(&self, id: &str) -> Result<Option<Value>, LocalError> {
        let kept = self.store.sync_get(&[local_key(id)]).await.map_err(text)?;
        kept.into_iter().next().flatten().map(|t| serde_json::from_str(&t).map_err(text)).transpose()
    }

    async fn put_local_doc(&self, id: &str, doc: &Value) -> Result<(), LocalError> {
        self.store.sync_put(&[(local_key(id), doc.to_string())]).await.map_err(text)
    }
}

/// What of the app's records syncs, and how.
#[derive(Debug, Clone, Copy, Default)]
pub struct AppKinds {
    /// The database is encrypted: the preferences travel, and what is
    /// pulled was written by a device with the passphrase. Without one,
    /// anyone able to write to the database could have written it: a tool
    /// call pulled is marked imported ([`unvouched`]).
    pub prefs: bool,
    pub secrets: crate::sync::prefs::Secrets,
}

/// A message's tool call from a database without a passphrase (`plain`):
/// marked imported as it arrives (so running it again always asks), the
/// mark left out of what travels there (it is this device's doubt).
fn unvouched(kind: &str, v: &mut Value, plain: bool, arriving: bool) {
    if !plain || kind != "message" {
        return;
    }
    if let Some(t) = v.get_mut("tool").and_then(Value::as_object_mut) {
        if arriving {
            t.insert("imported".into(), Value::Bool(true));
        } else {
            t.remove("imported");
        }
    }
}

/// What record `kind`/`id` is to the user: its kind, or for a
/// preference what it keeps (`settings`, `server`, `assistant`, `http`).
pub(crate) fn subject(kind: &str, id: &str) -> String {
    match kind {
        "pref" => id.split(':').next().unwrap_or(id).to_owned(),
        other => other.to_owned(),
    }
}

/// Fields that stay on this device, per kind.
fn local_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "session" => &["forks"],
        "message" => &["branch", "rev"],
        _ => &[],
    }
}

impl Kinds for AppKinds {
    fn syncs(&self, kind: &str, _id: &str) -> bool {
        matches!(kind, "session" | "message" | "file") || (kind == "pref" && self.prefs)
    }

    fn to_wire(&self, kind: &str, id: &str, record: &Value) -> Value {
        if kind == "pref" {
            return crate::sync::prefs::to_wire(id, record, self.secrets);
        }
        let mut v = record.clone();
        if let Some(o) = v.as_object_mut() {
            for f in local_fields(kind) {
                o.remove(*f);
            }
        }
        unvouched(kind, &mut v, !self.prefs, false);
        v
    }

    fn from_wire(&self, kind: &str, id: &str, wire: &Value, local: Option<&Value>) -> Value {
        if kind == "pref" {
            return crate::sync::prefs::from_wire(id, wire, local);
        }
        let mut v = wire.clone();
        unvouched(kind, &mut v, !self.prefs, true);
        if let (Some(o), Some(l)) = (v.as_object_mut(), local) {
            for f in local_fields(kind) {
                if let Some(x) = l.get(*f) {
                    o.insert((*f).to_owned(), x.clone());
                }
            }
            // A message seen again re-renders.
            if kind == "message" {
                o.insert("rev".into(), json!(l.get("rev").and_then(Value::as_u64).unwrap_or(0) + 1));
            }
        }
        v
    }

    fn rule(&self, kind: &str) -> Rule {
        if kind == "message" { Rule::KeepBoth } else { Rule::Newest }
    }

    fn subject(&self, kind: &str, id: &str) -> String {
        subject(kind, id)
    }

    fn edited_at(&self, kind: &str, record: &Value) -> Option<f64> {
        match kind {
            "session" => record.get("titleAt").or(record.get("updatedAt")).and_then(Value::as_f64),
            "message" => record.get("timestamp").and_then(Value::as_f64),
            "pref" => record.get(crate::sync::prefs::AT).and_then(Value::as_f64),
            _ => None,
        }
    }

    /// An answer or question whose text (or reasoning) the winner does
    /// not hold becomes a message of its own after the same message: one
    /// more alternative there.
    fn sibling(&self, kind: &str, id: &str, winner: &Value, other: &Value, tag: &str) -> Option<(String, Value)> {
        let holds = |field: &str| {
            let (w, o) = (winner.get(field).and_then(Value::as_str).unwrap_or(""), other.get(field).and_then(Value::as_str).unwrap_or(""));
            w.contains(o)
        };
        if holds("content") && holds("reasoning") && (winner.get("tool") == other.get("tool") || other.get("tool").is_none()) {
            return None;
        }
        let mut v = other.clone();
        unvouched(kind, &mut v, !self.prefs, true);
        let sid = format!("{id}~{tag}");
        if let Some(o) = v.as_object_mut() {
            o.insert("id".into(), json!(sid));
            // Just after the version it stands beside.
            o.insert("seq".into(), json!(other.get("seq").and_then(Value::as_f64).unwrap_or(0.0) + 0.001));
        }
        Some((sid, v))
    }

    /// A preference: the newest edit, the others kept where they hold
    /// something a user set ([`crate::sync::prefs::worth_keeping`]).
    /// A session: its title from the version renamed last (a title the
    /// user gave beats an automatic one), first made and last active over
    /// all; a title given on another device and not kept is shown to the
    /// user.
    fn merge(&self, kind: &str, versions: &[Leaf]) -> Merged {
        if kind == "pref" {
            let mut m = newest(versions);
            m.superseded.retain(|l| crate::sync::prefs::worth_keeping(&l.v, &m.value));
            return m;
        }
        if kind != "session" {
            return newest(versions);
        }
        let title_of = |l: &Leaf| (l.v.get("titleEdited").and_then(Value::as_bool).unwrap_or(false), l.v.get("titleAt").and_then(Value::as_f64).unwrap_or(0.0));
        let Some(mut pick) = versions.first().filter(|_| versions.iter().all(|l| l.v.is_object())) else { return newest(versions) };
        for l in versions {
            if title_of(l) > title_of(pick) {
                pick = l;
            }
        }
        let num = |l: &Leaf, f: &str| l.v.get(f).and_then(Value::as_f64).unwrap_or(0.0);
        let mut value = pick.v.clone();
        value["createdAt"] = json!(versions.iter().map(|l| num(l, "createdAt")).fold(f64::INFINITY, f64::min));
        value["updatedAt"] = json!(versions.iter().map(|l| num(l, "updatedAt")).fold(0.0, f64::max));
        let title = pick.v.get("title").cloned();
        let superseded = versions.iter().filter(|l| l.v.get("title") != title.as_ref() && l.v.get("titleEdited").and_then(Value::as_bool) == Some(true)).cloned().collect();
        Merged { value, at: pick.at, superseded }
    }
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
