//! Sync's work, run in a part of its own (`Platform::run_sync`): one pass
//! (this device's changes up, the server's down) and the wait between
//! passes (the server's long-poll, this device's journal). The core
//! ([`crate::sync`]) decides when.

use std::pin::pin;

use air_http::{Abort, HttpClient};
use air_store::sync_meta::SyncSettings;
use air_store::{KeyValue, Store, SyncMeta};
use air_sync::{Auth, CouchPeer, Error, Options, Peer, replicate_watching};
use air_sync_local::StorePeer;
use air_sync_local::crypto::Crypto;
use air_sync_local::envelope::{self, CONFIG_ID, EnvelopeError, ITERATIONS};
use air_sync_local::records::Kinds;
use futures_util::future::{Either, LocalBoxFuture, select};
use serde_json::Value;

use crate::sync::store::{AppKinds, StoreRecords, mark};
use crate::sync::{Failure, Passed, Wake};

/// The keys of the database last opened, and what they were made from.
pub type KeysCache<K> = std::cell::RefCell<Option<(String, std::rc::Rc<K>)>>;

/// What a pass needs besides the store and the network.
pub struct Tools<'a, C: Crypto> {
    pub crypto: &'a C,
    /// The keys of the database last opened, and what they were made from.
    pub keys: &'a KeysCache<C::Keys>,
    pub now: &'a dyn Fn() -> f64,
    pub sleep: &'a dyn Fn(u64) -> LocalBoxFuture<'static, ()>,
    /// Told the documents sent and received so far.
    pub progress: &'a dyn Fn(u64, u64, Option<u64>),
    /// PBKDF2's cost for a new database.
    pub iterations: u32,
    /// The page's origin: the doctor says why a server that is up does not
    /// answer this page.
    pub origin: Option<String>,
}

impl<C: Crypto> Tools<'_, C> {
    pub fn cost(&self) -> u32 {
        if self.iterations == 0 { ITERATIONS } else { self.iterations }
    }
}

pub(crate) fn failure(e: Error) -> Failure {
    match e {
        Error::Unauthorized(_) => Failure::Unauthorized,
        Error::Network(m) => Failure::Unreachable(m),
        Error::Server { status, reason } => Failure::Server(format!("{status} {reason}")),
        // Another pass wrote a checkpoint first (another tab of this
        // browser): the next pass reads it and goes on.
        Error::Conflict(m) => Failure::Server(format!("409 {m}")),
        Error::Invalid(m) if m.starts_with("the local store") => Failure::Store(m),
        other => Failure::Other(other.to_string()),
    }
}

fn envelope_failure(e: EnvelopeError) -> Failure {
    match e {
        EnvelopeError::WrongPassphrase => Failure::WrongPassphrase,
        EnvelopeError::PassphraseNeeded => Failure::PassphraseNeeded,
        EnvelopeError::NotEncrypted => Failure::NotEncrypted,
        other => Failure::Other(other.to_string()),
    }
}

/// The sync settings kept (`text`), with this device's id: made with
/// `new_id` and kept in `kv` the first time, the same ever after.
pub fn with_device(kv: &impl KeyValue, text: &str, new_id: impl FnOnce() -> String) -> SyncSettings {
    let mut s = SyncSettings::read(text);
    if s.device.is_empty() {
        s.device = new_id();
        let _ = air_store::sync_meta::SETTINGS_KEY.set(kv, &s.text());
    }
    s
}

/// The remote database of `settings`: a user and password written in its
/// URL (settings saved before the form took them out) are sent as the
/// fields' are, never in the URL (a browser refuses such a request, and
/// its error repeats the password).
pub fn remote<H: HttpClient>(http: H, settings: &SyncSettings) -> Result<CouchPeer<H>, Failure> {
    let (url, written) = crate::sync::form::split_credentials(&settings.url);
    let (user, password) = match written {
        Some(w) if settings.user.is_empty() => w,
        _ => (settings.user.clone(), settings.password.clone()),
    };
    let auth = if user.is_empty() { Auth::None } else { Auth::Basic { user, password } };
    CouchPeer::new(http, &url, auth).map_err(|e| Failure::Other(e.to_string()))
}

/// `f` with the password and passphrase of `settings` never in its words.
fn hidden(f: Failure, settings: &SyncSettings) -> Failure {
    let (_, written) = crate::sync::form::split_credentials(&settings.url);
    let secrets: Vec<String> = [settings.password.clone(), settings.passphrase.clone()].into_iter().chain(written.map(|(_, p)| p)).filter(|s| !s.is_empty()).collect();
    let clean = |mut t: String| {
        for s in &secrets {
            t = t.replace(s.as_str(), "***");
        }
        t
    };
    match f {
        Failure::Unreachable(t) => Failure::Unreachable(clean(t)),
        Failure::Server(t) => Failure::Server(clean(t)),
        Failure::Store(t) => Failure::Store(clean(t)),
        Failure::Other(t) => Failure::Other(clean(t)),
        Failure::Refused { explain, fixes } => Failure::Refused { explain: clean(explain), fixes },
        other => other,
    }
}

/// A server that did not answer, looked at by the doctor: one that is up
/// but refuses this page is said, with the CouchDB settings to paste.
async fn diagnosed<H: HttpClient>(remote: &CouchPeer<H>, settings: &SyncSettings, origin: Option<&str>, abort: &Abort, detail: String) -> Failure {
    let Some(origin) = origin else { return Failure::Unreachable(detail) };
    // A JSON POST, as a pass makes (with credentials if any: a probe value).
    let headers = if settings.user.is_empty() { Vec::new() } else { vec![("Authorization".to_owned(), "Basic cHJvYmU6cHJvYmU=".to_owned())] };
    let url = format!("{}/_revs_diff", settings.url.trim().trim_end_matches('/'));
    let target = air_doctor::Target { url, page_origin: Some(origin.to_owned()), headers, body: "{}".into(), mcp: false };
    match air_doctor::diagnose(remote.http(), &target, abort).await {
        air_doctor::Finding::Unreachable { .. } | air_doctor::Finding::Fine => Failure::Unreachable(detail),
        f => Failure::Refused { explain: f.explain(), fixes: air_doctor::couchdb_fix(&f, origin).into_iter().map(|(w, t)| (w.to_owned(), t)).collect() },
    }
}

/// The database's keys: its configuration read (or written, by the first
/// device) and the passphrase checked against it before anything else.
/// The configuration is read every pass, so keys made for a database that
/// was since emptied or set up again are not used on it.
async fn keys<H: HttpClient, C: Crypto>(remote: &CouchPeer<H>, settings: &SyncSettings, tools: &Tools<'_, C>, docs: Option<u64>) -> Result<(std::rc::Rc<C::Keys>, String), Failure> {
    let pass = Some(settings.passphrase.as_str());
    let keys = match remote.get_doc(CONFIG_ID).await.map_err(failure)? {
        Some(doc) => {
            let config = envelope::read_config(&doc).map_err(envelope_failure)?;
            let made_from = format!("{}\n{}", serde_json::to_string(&config).unwrap_or_default(), settings.passphrase);
            let mark = database_mark(&settings.url, &config);
            if let Some((from, keys)) = tools.keys.borrow().as_ref()
                && *from == made_from
            {
                return Ok((keys.clone(), mark));
            }
            let keys = std::rc::Rc::new(envelope::unlock(tools.crypto, &config, pass).await.map_err(envelope_failure)?);
            *tools.keys.borrow_mut() = Some((made_from, keys.clone()));
            return Ok((keys, mark));
        }
        // Documents, but no configuration: not a database this app set up
        // (or its configuration was deleted). Nothing is written to it.
        None if docs.is_some_and(|n| n > 0) => return Err(Failure::Other("this database holds documents but no sync configuration: use a new, empty database".into())),
        // A new encrypted database: only with the passphrase typed twice.
        None if !settings.passphrase.is_empty() && !settings.confirmed => return Err(Failure::Unconfirmed),
        None => {
            let (config, keys) = envelope::new_config(tools.crypto, pass, tools.cost()).await.map_err(envelope_failure)?;
            let doc = serde_json::to_value(&config).map_err(|e| Failure::Other(e.to_string()))?;
            match remote.put_doc(CONFIG_ID, &doc).await {
                Ok(_) => (keys, database_mark(&settings.url, &config)),
                // Another device was first: its configuration holds.
                Err(Error::Conflict(_)) => {
                    let doc = remote.get_doc(CONFIG_ID).await.map_err(failure)?.ok_or_else(|| Failure::Other("the sync configuration went missing".into()))?;
                    let config = envelope::read_config(&doc).map_err(envelope_failure)?;
                    (envelope::unlock(tools.crypto, &config, pass).await.map_err(envelope_failure)?, database_mark(&settings.url, &config))
                }
                Err(e) => return Err(failure(e)),
            }
        }
    };
    Ok((std::rc::Rc::new(keys.0), keys.1))
}

/// This database, as the journal marks what was pulled from it: its URL
/// and its configuration's random salt (a database deleted and set up
/// again under the same URL is another).
fn database_mark(url: &str, config: &envelope::Config) -> String {
    let salt = config.kdf.as_ref().map(|k| k.salt.as_str()).or(config.id_salt.as_deref()).unwrap_or_default();
    mark(&format!("{url}\n{salt}"))
}

/// One pass: what this device wrote goes up, then what the server has
/// comes down; both resume where the last pass stopped. Where the journal
/// and the server's feed stood is taken before the work, so what is
/// written meanwhile wakes the next wait.
pub async fn pass<S: Store + SyncMeta, H: HttpClient, C: Crypto>(store: &S, kv: &dyn KeyValue, http: H, settings: &SyncSettings, tools: &Tools<'_, C>, abort: &Abort) -> Result<Passed, Failure> {
    passing(store, kv, http, settings, tools, abort).await.map_err(|f| hidden(f, settings))
}

async fn passing<S: Store + SyncMeta, H: HttpClient, C: Crypto>(store: &S, kv: &dyn KeyValue, http: H, settings: &SyncSettings, tools: &Tools<'_, C>, abort: &Abort) -> Result<Passed, Failure> {
    let kinds = kinds(kv, settings);
    // Dated when a pass is tried, reached or not: an edit made offline is dated within a retry.
    if kinds.prefs && crate::sync::prefs::started(store).await {
        crate::sync::prefs::notice(store, kv, (tools.now)(), false).await.map_err(|e| Failure::Store(e.to_string()))?;
    }
    let remote = remote(http, settings)?.with_abort(abort.clone());
    let docs = match remote.info().await {
        Err(Error::NotFound(_)) => {
            remote.create().await.map_err(failure)?;
            Some(0)
        }
        Err(Error::Network(detail)) => return Err(diagnosed(&remote, settings, tools.origin.as_deref(), abort, detail).await),
        other => other.map_err(failure)?.doc_count,
    };
    let (keys, mark) = keys(&remote, settings, tools, docs).await?;
    if kinds.prefs {
        // A device whose first pass meets a database in use (more than its configuration) joins it.
        crate::sync::prefs::notice(store, kv, (tools.now)(), docs.is_some_and(|n| n > 1)).await.map_err(|e| Failure::Store(e.to_string()))?;
    }
    let local_seq = store.journal_last().await.map_err(|e| Failure::Store(e.to_string()))?;
    let records = StoreRecords::new(store, Some(kv)).marked(mark);
    let local = StorePeer::new(&records, &*keys, &kinds, &settings.device, tools.now);
    let options = Options { batch_size: 100, ..Options::default() };
    let up = replicate_watching(&local, &remote, &options, &mut |r| (tools.progress)(r.docs_written, 0, r.pending)).await.map_err(failure)?;
    let down = replicate_watching(&remote, &local, &options, &mut |r| (tools.progress)(up.docs_written, r.docs_written, r.pending)).await.map_err(failure)?;
    let conflicts = crate::sync::conflicts::list(&records, &settings.device).await.map_err(|e| Failure::Store(e.to_string()))?;
    Ok(Passed { up: up.docs_written, down: down.docs_written, remote_seq: down.last_seq, local_seq, refused: local.refused(), prefs: records.prefs_written.get(), conflicts, moved: local.tally() })
}

/// What syncs with `settings`: the preferences only to an encrypted
/// database, their secrets as the settings say.
fn kinds(kv: &dyn KeyValue, settings: &SyncSettings) -> AppKinds {
    let prefs = !settings.passphrase.is_empty();
    let secrets = if prefs { crate::sync::prefs::settings(kv).map(|s| crate::sync::prefs::Secrets::of(&s)).unwrap_or_default() } else { Default::default() };
    AppKinds { prefs, secrets }
}

/// The user has seen what document `wire` kept.
pub async fn dismiss<S: Store + SyncMeta>(store: &S, kv: &dyn KeyValue, wire: &str) {
    let records = StoreRecords::new(store, Some(kv));
    let _ = crate::sync::conflicts::dismiss(&records, wire).await;
}

/// How long a wait lasts before the core is told all is quiet (and waits
/// again), and how often this device's journal is looked at meanwhile.
const WAIT_MS: u64 = 25_000;
const LOOK_MS: u64 = 2_000;

/// Waits for a change: the server's (a long-poll from `remote_seq`), or
/// one made here (the journal past `local_seq`). `abort` ends it quietly.
pub async fn wait<S: Store + SyncMeta, H: HttpClient, C: Crypto>(store: &S, kv: &dyn KeyValue, http: H, settings: &SyncSettings, since: (Value, u64), tools: &Tools<'_, C>, abort: &Abort) -> Wake {
    let remote = match remote(http, settings) {
        Ok(r) => r,
        Err(f) => return Wake::Failed(hidden(f, settings)),
    };
    let kinds = kinds(kv, settings);
    let polling = Abort::new();
    let mut here = pin!(async {
        for _ in 0..WAIT_MS / LOOK_MS {
            (tools.sleep)(LOOK_MS).await;
            if abort.is_aborted() {
                return Wake::Quiet;
            }
            // An edit of something that syncs (the event log's writes do not count).
            let written = store.journal_since(since.1, 1000).await.unwrap_or_default();
            if written.iter().any(|e| kinds.syncs(e.change.kind.as_str(), &e.change.id)) || (kinds.prefs && crate::sync::prefs::moved(store, kv).await) {
                return Wake::Local;
            }
        }
        Wake::Quiet
    });
    let woke = loop {
        let server = pin!(remote.changes_longpoll(&since.0, 1, 10_000, &polling));
        match select(server, here.as_mut()).await {
            Either::Left((Ok(batch), _)) if !batch.results.is_empty() => break Wake::Remote,
            // A server that ends a quiet long-poll early (PouchDB Server
            // after 10 s): asked again, a moment later, while this device's
            // journal is still watched.
            Either::Left((Ok(_), _)) => {
                if let Either::Right((w, _)) = select((tools.sleep)(1_000), here.as_mut()).await {
                    break w;
                }
            }
            Either::Left((Err(Error::Aborted), _)) => break here.await,
            Either::Left((Err(e), _)) => break Wake::Failed(hidden(failure(e), settings)),
            Either::Right((w, _)) => break w,
        }
    };
    polling.abort();
    woke
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_gets_its_id_once_and_keeps_it() {
        let kv = air_store::kv::MemoryKv::default();
        let first = with_device(&kv, r#"{"url": "http://127.0.0.1:5984/db"}"#, || "dev-1".into());
        assert_eq!(first.device, "dev-1");
        let kept = air_store::sync_meta::SETTINGS_KEY.get(&kv);
        assert_eq!(with_device(&kv, &kept, || "dev-2".into()).device, "dev-1", "kept, not made again");
        assert_eq!(SyncSettings::read(&kept).url, first.url, "the rest kept as it was");
    }

    #[test]
    fn a_long_poll_the_server_ends_early_is_asked_again_so_a_change_arrives_within_seconds() {
        use air_http::fake::{Script, ScriptedHttp};
        let http = ScriptedHttp::new();
        // PouchDB Server ends a quiet long-poll after 10 s; the next one brings the change.
        http.push(Script::status(200, r#"{"results":[],"last_seq":5}"#));
        http.push(Script::status(200, r#"{"results":[{"seq":6,"id":"d1","changes":[{"rev":"1-0123456789abcdef0123456789abcdef"}]}],"last_seq":6}"#));
        let (store, kv) = (air_store::MemoryStore::new(), air_store::kv::MemoryKv::default());
        let crypto = air_sync_local::soft::SoftCrypto::default();
        let keys = std::cell::RefCell::new(None);
        let sleep = |_: u64| -> LocalBoxFuture<'static, ()> { Box::pin(async {}) };
        let tools = Tools { crypto: &crypto, keys: &keys, now: &|| 0.0, sleep: &sleep, progress: &|_, _, _| {}, iterations: 1_000, origin: None };
        let settings = SyncSettings { url: "https://couch.test/chats".into(), on: true, ..SyncSettings::default() };
        let woke = pollster::block_on(wait(&store, &kv, http, &settings, (serde_json::json!(5), 0), &tools, &Abort::new()));
        assert_eq!(woke, Wake::Remote);
    }

    fn tools_for_test<'a>(
        crypto: &'a air_sync_local::soft::SoftCrypto,
        keys: &'a std::cell::RefCell<Option<(String, std::rc::Rc<air_sync_local::soft::SoftKeys>)>>,
        sleep: &'a dyn Fn(u64) -> LocalBoxFuture<'static, ()>,
    ) -> Tools<'a, air_sync_local::soft::SoftCrypto> {
        Tools { crypto, keys, now: &|| 0.0, sleep, progress: &|_, _, _| {}, iterations: 1_000, origin: None }
    }

    #[test]
    fn a_new_encrypted_database_waits_for_the_passphrase_typed_twice() {
        use air_http::fake::{Script, ScriptedHttp};
        let (crypto, keys) = (air_sync_local::soft::SoftCrypto::default(), std::cell::RefCell::new(None));
        let sleep = |_: u64| -> LocalBoxFuture<'static, ()> { Box::pin(async {}) };
        let tools = tools_for_test(&crypto, &keys, &sleep);
        let mut settings = SyncSettings { url: "https://couch.test/chats".into(), passphrase: "correct horse".into(), on: true, ..SyncSettings::default() };
        let db = remote(ScriptedHttp::new(), &settings).unwrap();
        db.http().push(Script::status(404, r#"{"error":"not_found","reason":"missing"}"#));
        assert_eq!(pollster::block_on(keys_of(&db, &settings, &tools)).err(), Some(Failure::Unconfirmed));
        assert!(db.http().requests().iter().all(|r| r.method == "GET"), "nothing written: {:?}", db.http().requests());
        // Typed twice: the database is set up with it.
        settings.confirmed = true;
        db.http().push(Script::status(404, r#"{"error":"not_found","reason":"missing"}"#));
        db.http().push(Script::status(201, r#"{"ok":true,"id":"air-sync-config","rev":"1-a"}"#));
        assert!(pollster::block_on(keys_of(&db, &settings, &tools)).is_ok());
        assert_eq!(db.http().requests().last().map(|r| r.method.as_str()), Some("PUT"));
    }

    async fn keys_of<H: HttpClient>(db: &CouchPeer<H>, settings: &SyncSettings, tools: &Tools<'_, air_sync_local::soft::SoftCrypto>) -> Result<(), Failure> {
        keys(db, settings, tools, Some(0)).await.map(|_| ())
    }

    #[test]
    fn a_user_and_password_in_the_url_are_sent_as_a_header_and_never_said() {
        use air_http::fake::{Script, ScriptedHttp};
        let settings = SyncSettings { url: "http://admin:s3cret@couch.test/chats".into(), on: true, ..SyncSettings::default() };
        let db = remote(ScriptedHttp::new(), &settings).unwrap();
        db.http().push(Script::status(200, r#"{"db_name":"chats","doc_count":0,"update_seq":"0"}"#));
        pollster::block_on(db.info()).unwrap();
        let asked = &db.http().requests()[0];
        assert!(asked.url.starts_with("http://couch.test/chats") && !asked.url.contains("s3cret"), "{}", asked.url);
        assert!(asked.headers.iter().any(|(k, v)| k == "Authorization" && v.starts_with("Basic ")));
        let said = hidden(Failure::Unreachable("fetch failed for http://admin:s3cret@couch.test/chats".into()), &settings);
        assert_eq!(said, Failure::Unreachable("fetch failed for http://admin:***@couch.test/chats".into()));
        let typed = SyncSettings { password: "pw-typed".into(), passphrase: "words".into(), ..settings };
        assert_eq!(hidden(Failure::Other("pw-typed and words".into()), &typed), Failure::Other("*** and ***".into()));
    }

    #[test]
    fn what_may_pass_by_itself_is_tried_again_and_what_the_user_must_mend_is_not() {
        let again = |e: Error| failure(e).passes();
        assert!(again(Error::Network("offline".into())));
        assert!(again(Error::Server { status: 503, reason: "busy".into() }));
        assert!(again(Error::Conflict("checkpoint".into())), "another tab's checkpoint came first");
        assert!(!again(Error::Unauthorized("401".into())));
        assert!(!again(Error::Malformed("not JSON".into())));
        assert_eq!(failure(Error::Invalid("the local store: quota".into())), Failure::Store("the local store: quota".into()));
        for e in [EnvelopeError::WrongPassphrase, EnvelopeError::PassphraseNeeded, EnvelopeError::NotEncrypted] {
            assert!(!envelope_failure(e).passes());
        }
    }
}
