//! The preferences as records of sync (kind `pref`): the settings, each
//! MCP server, each assistant and each HTTP tool, one record each, so an
//! edit of one on a device and of another elsewhere both hold.
//!
//! They live in the key/value store, which keeps no journal: [`notice`]
//! compares them with what it saw last (kept in sync's meta) and journals
//! what changed, before each pass and while sync waits ([`moved`]).
//!
//! They travel only to an encrypted database: whoever can write to a
//! plain one could add a server or allow a tool. API keys (and the HTTP
//! tools' secret headers) and the MCP servers' headers travel only when
//! the settings say so ([`Secrets`], themselves synced, so every device
//! sends the same); otherwise each device keeps its own.
//!
//! Each record carries `editedAt`, when a device saw it change: the
//! newest edit wins, the other kept for the user to see. A device that
//! joins a database already in use dates what it had before as 0, so the
//! database's preferences win over its defaults.

use std::collections::BTreeMap;

use air_store::assistants::{Assistant, Assistants};
use air_store::http_tools::{self, SavedHttpTool};
use air_store::journal::{Change, Kind};
use air_store::mcp::{self, McpServer};
use air_store::sync_meta::SYNC_PREFIX;
use air_store::{KeyValue, Settings, SyncMeta};
use air_sync_local::records::LocalError;
use serde_json::{Value, json};

/// The field that dates a record.
pub const AT: &str = "editedAt";

/// What the app learned of each model (how it calls tools, whether it
/// takes images): not a user's edit.
pub const LEARNED: [&str; 2] = ["probedToolCalling", "vision"];

/// What a user set in a record as it travels: without its date and what
/// the app learned.
fn as_set(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        for f in LEARNED.iter().chain([&AT, &"apiKey"]) {
            o.remove(*f);
        }
    }
    v
}

/// Whether version `old` of a record, which lost to `now`, holds
/// something a user set: it differs in more than what the app learned,
/// and is not the settings' defaults (a device that joined untouched).
pub fn worth_keeping(old: &Value, now: &Value) -> bool {
    let old = as_set(old);
    old != as_set(now) && old != as_set(&to_wire("settings", &serde_json::to_value(Settings::default()).unwrap_or_default(), Secrets::default()))
}

/// What secrets travel (the settings' `sync_keys`, `sync_headers`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Secrets {
    pub keys: bool,
    pub headers: bool,
}

impl Secrets {
    pub fn of(s: &Settings) -> Self {
        Self { keys: s.sync_keys, headers: s.sync_headers }
    }
}

/// A `&dyn KeyValue` as a [`KeyValue`].
pub struct Kv<'a>(pub &'a dyn KeyValue);

impl KeyValue for Kv<'_> {
    fn get(&self, key: &str) -> Option<String> {
        self.0.get(key)
    }
    fn set(&self, key: &str, value: &str) -> air_store::Result<()> {
        self.0.set(key, value)
    }
    fn remove(&self, key: &str) -> air_store::Result<()> {
        self.0.remove(key)
    }
}

/// What was last seen of the preferences: the text of their keys (a
/// hash), and each record's hash and date, and the hash of what a user
/// set of it ([`as_set`]).
#[derive(Debug, Default)]
struct Seen {
    raw: u64,
    init: bool,
    recs: BTreeMap<String, (u64, f64)>,
    set: BTreeMap<String, u64>,
}

impl Seen {
    /// As kept: `{"raw": "…", "recs": {"id": ["hash", at]}}` (hashes as
    /// text: JSON numbers are doubles).
    fn read(text: &str) -> Self {
        let Ok(v) = serde_json::from_str::<Value>(text) else { return Self::default() };
        let num = |v: &Value| v.as_str().and_then(|t| t.parse::<u64>().ok());
        let recs = v.get("recs").and_then(Value::as_object).into_iter().flatten();
        let recs = recs.filter_map(|(id, r)| Some((id.clone(), (num(r.get(0)?)?, r.get(1)?.as_f64()?)))).collect();
        let set = v.get("set").and_then(Value::as_object).into_iter().flatten().filter_map(|(id, h)| Some((id.clone(), num(h)?))).collect();
        Self { raw: v.get("raw").and_then(num).unwrap_or(0), init: v.get("raw").is_some(), recs, set }
    }

    fn text(&self) -> String {
        let recs: serde_json::Map<String, Value> = self.recs.iter().map(|(id, (h, at))| (id.clone(), json!([h.to_string(), at]))).collect();
        let set: serde_json::Map<String, Value> = self.set.iter().map(|(id, h)| (id.clone(), json!(h.to_string()))).collect();
        json!({"raw": self.raw.to_string(), "recs": recs, "set": set}).to_string()
    }
}

fn seen_key() -> String {
    format!("{SYNC_PREFIX}prefs")
}

/// FNV-1a, of a record's canonical text: only to see a change.
fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// What secrets travel, as the settings kept say.
fn secrets(kv: &dyn KeyValue) -> Secrets {
    settings(kv).map(|s| Secrets::of(&s)).unwrap_or_default()
}

/// What is compared of record `id`: what travels of it, so a change of
/// what secrets travel is a change too.
fn mark(secrets: Secrets, id: &str, v: &Value) -> u64 {
    hash(&air_sync_local::envelope::canonical(&to_wire(id, v, secrets)))
}

/// What is compared of record `id` to tell a user's edit from what the
/// app learned.
fn set_mark(secrets: Secrets, id: &str, v: &Value) -> u64 {
    hash(&air_sync_local::envelope::canonical(&as_set(&to_wire(id, v, secrets))))
}

const KEYS: [&str; 4] = [air_store::settings::KEY.name, mcp::SERVERS_KEY.name, air_store::assistants::KEY.name, http_tools::KEY.name];

/// The text of the preferences' keys, as a hash: unchanged, nothing to
/// look at.
fn raw(kv: &dyn KeyValue) -> u64 {
    hash(&KEYS.iter().map(|k| kv.get(k).unwrap_or_default()).collect::<Vec<_>>().join("\u{0}"))
}

// The preferences are read here through `serde_json::Value`, not the
// typed keys: the first load's reader stays its own (inlined once), and
// this part carries its own. `None`: kept, but unreadable (left alone).

fn json(kv: &dyn KeyValue, name: &str) -> Option<Option<Value>> {
    match kv.get(name) {
        None => Some(None),
        Some(text) => serde_json::from_str(&text).ok().map(Some),
    }
}

/// The settings kept (the defaults if none).
pub fn settings(kv: &dyn KeyValue) -> Option<Settings> {
    json(kv, air_store::settings::KEY.name)?.map_or_else(|| Some(Settings::default()), |v| serde_json::from_value(v).ok())
}

fn servers(kv: &dyn KeyValue) -> Option<Vec<McpServer>> {
    let mut list: Vec<McpServer> = json(kv, mcp::SERVERS_KEY.name)?.map_or_else(|| Some(Vec::new()), |v| serde_json::from_value(v).ok())?;
    // Saved before servers had ids: the name was the key (as `mcp::load`).
    for s in list.iter_mut().filter(|s| s.id.is_empty()) {
        s.id = s.name.clone();
    }
    Some(list)
}

fn assistants(kv: &dyn KeyValue) -> Option<Assistants> {
    json(kv, air_store::assistants::KEY.name)?.map_or_else(|| Some(Assistants::default()), |v| serde_json::from_value(v).ok())
}

fn http(kv: &dyn KeyValue) -> Option<Vec<SavedHttpTool>> {
    json(kv, http_tools::KEY.name)?.map_or_else(|| Some(Vec::new()), |v| serde_json::from_value(v).ok())
}

/// Whether record `id` missing now means the user removed it: not while
/// its key cannot be read, nor once an unreadable value of it was kept
/// aside (`{key}.corrupt`: the list was lost here, not emptied by the
/// user, and the other devices keep theirs).
fn may_go(kv: &dyn KeyValue, id: &str) -> bool {
    let (key, readable) = if id.starts_with("server:") {
        (mcp::SERVERS_KEY.name, servers(kv).is_some())
    } else if id.starts_with("assistant:") {
        (air_store::assistants::KEY.name, assistants(kv).is_some())
    } else if id.starts_with("http:") {
        (http_tools::KEY.name, http(kv).is_some())
    } else {
        return false;
    };
    readable && kv.get(&format!("{key}.corrupt")).is_none()
}

/// Every preference record now, by id, undated (what cannot be read is
/// left out).
pub fn all(kv: &dyn KeyValue) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    if let Some(s) = settings(kv) {
        out.insert("settings".to_owned(), serde_json::to_value(s).unwrap_or_default());
    }
    for s in servers(kv).unwrap_or_default() {
        out.insert(format!("server:{}", s.id), serde_json::to_value(&s).unwrap_or_default());
    }
    for a in assistants(kv).map(|a| a.list).unwrap_or_default() {
        out.insert(format!("assistant:{}", a.id), serde_json::to_value(&a).unwrap_or_default());
    }
    for t in http(kv).unwrap_or_default() {
        out.insert(format!("http:{}", t.name()), serde_json::to_value(&t).unwrap_or_default());
    }
    out
}

async fn load_seen<S: SyncMeta>(store: &S) -> Result<Seen, LocalError> {
    let kept = store.sync_get(&[seen_key()]).await.map_err(|e| LocalError::Store(e.to_string()))?;
    Ok(kept.into_iter().next().flatten().map(|t| Seen::read(&t)).unwrap_or_default())
}

async fn save_seen<S: SyncMeta>(store: &S, seen: &Seen) -> Result<(), LocalError> {
    store.sync_put(&[(seen_key(), seen.text())]).await.map_err(|e| LocalError::Store(e.to_string()))
}

/// [`notice`] has looked before (the device's first look needs to know
/// whether it joins a database in use).
pub async fn started<S: SyncMeta>(store: &S) -> bool {
    load_seen(store).await.is_ok_and(|seen| seen.init)
}

/// The preferences changed since [`notice`] last looked.
pub async fn moved<S: SyncMeta>(store: &S, kv: &dyn KeyValue) -> bool {
    load_seen(store).await.is_ok_and(|seen| !seen.init || seen.raw != raw(kv))
}

/// Journals the preference records that changed (or went) since the last
/// look, dated `now` (0 the first time on a device joining a database in
/// use). Returns how many.
pub async fn notice<S: SyncMeta>(store: &S, kv: &dyn KeyValue, now: f64, joining: bool) -> Result<usize, LocalError> {
    let mut seen = load_seen(store).await?;
    let raw = raw(kv);
    if seen.init && seen.raw == raw {
        return Ok(0);
    }
    let at = if !seen.init && joining { 0.0 } else { now };
    let now_all = all(kv);
    // The settings are read once for every record, not once each.
    let secrets = secrets(kv);
    let mut changes = Vec::new();
    for (id, v) in &now_all {
        let h = mark(secrets, id, v);
        if seen.recs.get(id).is_none_or(|(old, _)| *old != h) {
            // Only what the app learned changed: the user's last edit keeps its date.
            let set = set_mark(secrets, id, v);
            let at = seen.recs.get(id).filter(|_| seen.set.get(id) == Some(&set)).map_or(at, |(_, was)| *was);
            seen.recs.insert(id.clone(), (h, at));
            seen.set.insert(id.clone(), set);
            changes.push(Change::put(Kind::Pref, id));
        }
    }
    let gone: Vec<String> = seen.recs.keys().filter(|id| !now_all.contains_key(*id) && may_go(kv, id)).cloned().collect();
    for id in gone {
        seen.recs.remove(&id);
        seen.set.remove(&id);
        changes.push(Change::deleted(Kind::Pref, &id));
    }
    (seen.raw, seen.init) = (raw, true);
    store.rejournal(&changes).await.map_err(|e| LocalError::Store(e.to_string()))?;
    save_seen(store, &seen).await?;
    Ok(changes.len())
}

/// Record `id` as sync reads it: dated.
pub async fn read<S: SyncMeta>(store: &S, kv: &dyn KeyValue, id: &str) -> Result<Option<Value>, LocalError> {
    let Some(mut v) = all(kv).remove(id) else { return Ok(None) };
    let seen = load_seen(store).await?;
    let at = seen.recs.get(id).filter(|(h, _)| *h == mark(secrets(kv), id, &v)).map_or(0.0, |(_, at)| *at);
    if let Some(o) = v.as_object_mut() {
        o.insert(AT.into(), json!(at));
    }
    Ok(Some(v))
}

/// Writes a pulled record (one this version cannot read is left out),
/// and notes it as seen with its date, so it is not sent back.
pub async fn put<S: SyncMeta>(store: &S, kv: &dyn KeyValue, id: &str, v: &Value) -> Result<bool, LocalError> {
    let k = Kv(kv);
    let saved = if id == "settings" {
        serde_json::from_value::<Settings>(v.clone()).ok().map(|s| air_store::settings::save(&k, &s))
    } else if let Some(sid) = id.strip_prefix("server:") {
        serde_json::from_value::<McpServer>(v.clone()).ok().filter(|s| s.id == sid).zip(servers(kv)).map(|(s, mut list)| {
            replace(&mut list, s, |x| &x.id);
            unique_names(&mut list);
            mcp::save(&k, &list)
        })
    } else if let Some(aid) = id.strip_prefix("assistant:") {
        serde_json::from_value::<Assistant>(v.clone()).ok().filter(|a| a.id == aid).zip(assistants(kv)).map(|(a, mut all)| {
            all.put(a);
            all.save(&k)
        })
    } else if let Some(name) = id.strip_prefix("http:") {
        serde_json::from_value::<SavedHttpTool>(v.clone()).ok().filter(|t| t.name() == name).zip(http(kv)).map(|(t, mut list)| {
            replace(&mut list, t, |x| &x.tool.name);
            http_tools::KEY.set(&k, &list)
        })
    } else {
        None
    };
    let Some(saved) = saved else { return Ok(false) };
    saved.map_err(|e| LocalError::Store(e.to_string()))?;
    let mut seen = load_seen(store).await?;
    if let Some(now) = all(kv).get(id) {
        let secrets = secrets(kv);
        seen.recs.insert(id.to_owned(), (mark(secrets, id, now), v.get(AT).and_then(Value::as_f64).unwrap_or(0.0)));
        seen.set.insert(id.to_owned(), set_mark(secrets, id, now));
    }
    save_seen(store, &seen).await?;
    Ok(true)
}

fn replace<T>(list: &mut Vec<T>, item: T, key: impl Fn(&T) -> &String) {
    match list.iter().position(|x| key(x) == key(&item)) {
        Some(i) => list[i] = item,
        None => list.push(item),
    }
}

/// Two servers under one name (added apart on two devices): the one with
/// the greater id takes a free name, the same on every device.
fn unique_names(list: &mut [McpServer]) {
    let mut order: Vec<usize> = (0..list.len()).collect();
    order.sort_by(|a, b| list[*a].id.cmp(&list[*b].id));
    let mut taken = std::collections::BTreeSet::new();
    for i in order {
        let base = list[i].name.clone();
        let mut n = 1;
        while !taken.insert(list[i].name.clone()) {
            n += 1;
            list[i].name = format!("{base}-{n}");
        }
    }
}

/// Removes record `id` (deleted on another device).
pub async fn remove<S: SyncMeta>(store: &S, kv: &dyn KeyValue, id: &str) -> Result<bool, LocalError> {
    let k = Kv(kv);
    let done = if let (Some(sid), Some(mut list)) = (id.strip_prefix("server:"), servers(kv)) {
        list.retain(|s| s.id != sid);
        mcp::save(&k, &list)
    } else if let (Some(aid), Some(mut all)) = (id.strip_prefix("assistant:"), assistants(kv)) {
        all.delete(aid);
        all.save(&k)
    } else if let (Some(name), Some(mut list)) = (id.strip_prefix("http:"), http(kv)) {
        list.retain(|t| t.name() != name);
        http_tools::KEY.set(&k, &list)
    } else {
        // The settings are never deleted (and what cannot be read is left alone).
        return Ok(false);
    };
    done.map_err(|e| LocalError::Store(e.to_string()))?;
    let mut seen = load_seen(store).await?;
    seen.recs.remove(id);
    seen.set.remove(id);
    save_seen(store, &seen).await?;
    Ok(true)
}

/// What of record `id` travels: its secrets only as `secrets` says.
pub fn to_wire(id: &str, v: &Value, secrets: Secrets) -> Value {
    let mut v = v.clone();
    if id == "settings" && !secrets.keys {
        if let Some(o) = v.as_object_mut() {
            o.remove("apiKey");
        }
        for p in v.get_mut("profiles").and_then(Value::as_array_mut).into_iter().flatten() {
            p.as_object_mut().map(|o| o.remove("apiKey"));
        }
    } else if id.starts_with("server:") && !secrets.headers {
        v.as_object_mut().map(|o| o.remove("headers"));
    } else if id.starts_with("http:") && !secrets.keys {
        for h in v.get_mut("headers").and_then(Value::as_array_mut).into_iter().flatten() {
            if h.get("secret").and_then(Value::as_bool) == Some(true) {
                h["value"] = json!("");
            }
        }
    }
    v
}

/// The record to keep for `wire`: what it left out taken from this
/// device's own (`local`). A secret (an API key, a server's headers, an
/// HTTP tool's secret header) is kept only while the URL it goes with is
/// on the origin it has here: one moved to another origin on another
/// device gets none of this device's secrets, as a move made here drops
/// them.
pub fn from_wire(id: &str, wire: &Value, local: Option<&Value>) -> Value {
    let mut v = wire.clone();
    let Some(local) = local else { return v };
    if id == "settings" {
        keep(&mut v, local, "apiKey", "baseUrl");
        let theirs: Vec<Value> = local.get("profiles").and_then(Value::as_array).cloned().unwrap_or_default();
        for p in v.get_mut("profiles").and_then(Value::as_array_mut).into_iter().flatten() {
            if let Some(mine) = theirs.iter().find(|m| m.get("id").is_some() && m.get("id") == p.get("id")) {
                keep(p, mine, "apiKey", "baseUrl");
            }
        }
    } else if id.starts_with("server:") {
        keep(&mut v, local, "headers", "url");
    } else if id.starts_with("http:") {
        let mine: Vec<Value> = if same_origin(&v, local, "url") { local.get("headers").and_then(Value::as_array).cloned().unwrap_or_default() } else { Vec::new() };
        for h in v.get_mut("headers").and_then(Value::as_array_mut).into_iter().flatten() {
            let blank = h.get("secret").and_then(Value::as_bool) == Some(true) && h.get("value").and_then(Value::as_str) == Some("");
            if let Some(m) = mine.iter().find(|m| blank && m.get("name") == h.get("name")) {
                h["value"] = m.get("value").cloned().unwrap_or(json!(""));
            }
        }
    }
    v
}

/// `field` of `from` into `to`, where `to` lacks it and its `url` field
/// is on the same origin as `from`'s.
fn keep(to: &mut Value, from: &Value, field: &str, url: &str) {
    let same = same_origin(to, from, url);
    if let (Some(o), Some(x)) = (to.as_object_mut(), from.get(field))
        && !o.contains_key(field)
        && same
    {
        o.insert(field.to_owned(), x.clone());
    }
}

/// Whether field `url` of `a` and of `b` are on one origin.
fn same_origin(a: &Value, b: &Value, url: &str) -> bool {
    let at = |v: &Value| v.get(url).and_then(Value::as_str).map(air_store::settings::origin);
    at(a) == at(b)
}

/// The preferences kept changed behind this tab (sync wrote what it
/// pulled, or another tab wrote): read again, and shown. `pulled`: sync
/// here wrote them, and the other tabs are told.
pub(crate) fn reload<P: crate::Platform>(w: &mut crate::Workspace<P>, pulled: bool) {
    let (mut kept, _) = crate::prefs::Prefs::load(w.p.kv());
    let was_read = matches!(w.prefs.http_tools, air_store::http_tools::Saved::Read(_));
    let servers = kept.servers != w.prefs.servers;
    // Which chat uses what is this device's own (never synced).
    kept.chat_servers = std::mem::take(&mut w.prefs.chat_servers);
    w.prefs = kept;
    crate::prefs::show(w, crate::prefs::Touched { settings: true, servers: true, chat_servers: false, assistants: true, http_tools: false });
    if was_read {
        crate::http_tools::loading(w);
    }
    if servers {
        crate::servers::handle(w, crate::servers::Action::Connect);
        w.emit(crate::Update::ServersEdited);
        crate::dynamic::handle(w, crate::dynamic::Action::Refresh);
    }
    if pulled {
        w.emit(crate::Update::PrefsChanged);
    }
}

#[cfg(test)]
#[path = "prefs_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "moved_tests.rs"]
mod moved_tests;
