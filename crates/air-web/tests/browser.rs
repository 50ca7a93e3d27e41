//! The edge adapters against the real browser APIs, in headless Chromium.

use air_store::settings::{self, Language, Settings, Theme};

const SETTINGS_KEY: &str = air_store::keys::SETTINGS.name;
use air_store::{KeyValue, MessageRecord, SessionRecord, Store};
use air_web::{IdbStore, LocalStorageKv};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn indexeddb_store_passes_conformance() {
    let name = "air-test-conformance";
    let _ = IdbStore::delete_database(name).await;
    let store = IdbStore::open(name).await.expect("open");
    air_store::conformance::run(&store).await;
    store.close();
}

/// A rebuild reads page after page; a write meanwhile is indexed once,
/// whether the rebuild has read it yet or not; merging after it changes
/// no result.
#[wasm_bindgen_test]
async fn a_rebuild_in_pages_with_writes_meanwhile_then_merged_finds_the_same() {
    let name = "air-test-rebuild-pages";
    let _ = IdbStore::delete_database(name).await;
    let store = IdbStore::open(name).await.expect("open");
    store.put_session(&SessionRecord::new("s", 1.0)).await.expect("session");
    let words = ["harbour", "lantern", "meadow", "quartz", "saffron"];
    let messages: Vec<MessageRecord> = (0..1_800).map(|i| MessageRecord::new(format!("m{i:04}"), "s", f64::from(i), air_chat::Role::User, format!("{} note {i}", words[i as usize % 5]))).collect();
    for page in messages.chunks(600) {
        store.put_batch(&air_store::batch::Batch { messages: page.to_vec(), ..Default::default() }).await.expect("batch");
    }
    let count = |q: &'static str| {
        let store = &store;
        async move { air_store::search::run(store, q, 2_000).await.expect("search").hits.len() }
    };
    assert_eq!(count("lantern").await, 360);
    // A write the rebuild has read (m0000) and one it has not (m1799),
    // both while it runs.
    let edits = async {
        air_web::sleep(5).await;
        store.put_message(&MessageRecord::new("m0000", "s", 0.0, air_chat::Role::User, "lantern again")).await.expect("edit first");
        store.put_message(&MessageRecord::new("m1799", "s", 1799.0, air_chat::Role::User, "a zeppelin")).await.expect("edit last");
    };
    let (rebuilt, ()) = futures_util::future::join(store.rebuild_index(), edits).await;
    rebuilt.expect("rebuild");
    let stats = store.index_stats().await.expect("stats").expect("an index");
    assert!(stats.complete && stats.rebuild.is_none() && stats.merge_pending, "{stats:?}");
    assert_eq!(stats.docs, 1_800, "every message once");
    let before = (count("lantern").await, count("quartz").await, count("zeppelin").await, count("harbour").await);
    assert_eq!(before, (361, 360, 1, 359), "m0000 went from harbour to lantern, m1799 from saffron to zeppelin");
    let mut steps = 0;
    while store.compact_index(4_096).await.expect("merge step") {
        steps += 1;
        assert!(steps < 5_000, "merging ends");
    }
    assert!(steps > 1);
    assert!(!store.index_stats().await.expect("stats").expect("an index").merge_pending);
    assert_eq!((count("lantern").await, count("quartz").await, count("zeppelin").await, count("harbour").await), before);
    store.close();
}

/// A hit is found in whichever block numbered it: near the start of a
/// block of 2,500 documents (found by a read of the keys near it), far
/// into it (by a cursor), and in a block of one written after it.
#[wasm_bindgen_test]
async fn hits_are_found_in_small_and_large_blocks() {
    let name = "air-test-hit-blocks";
    let _ = IdbStore::delete_database(name).await;
    let store = IdbStore::open(name).await.expect("open");
    store.put_session(&SessionRecord::new("s", 1.0)).await.expect("session");
    let word = |i: u32| match i {
        5 => "walrus",
        2_400 => "narwhal",
        _ => "plankton",
    };
    let messages: Vec<MessageRecord> = (0..2_500).map(|i| MessageRecord::new(format!("m{i:04}"), "s", f64::from(i), air_chat::Role::User, format!("{} {i}", word(i)))).collect();
    store.put_batch(&air_store::batch::Batch { messages, ..Default::default() }).await.expect("one batch");
    store.put_message(&MessageRecord::new("late", "s", 3_000.0, air_chat::Role::User, "a beluga")).await.expect("a write of its own");
    let hits = |q: &'static str| {
        let store = &store;
        async move { air_store::search::run(store, q, 10).await.expect("search").hits.into_iter().map(|h| (h.session_id, h.message_id)).collect::<Vec<_>>() }
    };
    for (q, id) in [("walrus", "m0005"), ("narwhal", "m2400"), ("beluga", "late")] {
        assert_eq!(hits(q).await, vec![("s".to_owned(), Some(id.to_owned()))], "{q}");
    }
    assert_eq!(air_store::search::run(&store, "plankton", 5_000).await.expect("search").hits.len(), 2_498);
    store.close();
}

/// A new database indexes its first message (no rebuild needed), and a
/// title renamed to nothing searchable and then replaced by a batch (a
/// sync's pull) is in the index once, as the batch has it.
#[wasm_bindgen_test]
async fn a_new_database_indexes_its_first_words_and_a_title_is_indexed_once() {
    let name = "air-test-first-words";
    let _ = IdbStore::delete_database(name).await;
    let store = IdbStore::open(name).await.expect("open");
    let mut s = SessionRecord::new("s", 1.0);
    s.rename("Rust lifetimes", 1.0);
    store.put_session(&s).await.expect("session");
    store.put_message(&MessageRecord::new("m1", "s", 2.0, air_chat::Role::User, "a kumquat tree")).await.expect("message");
    let hits = |q: &'static str| {
        let store = &store;
        async move { air_store::search::run(store, q, 10).await.expect("search").hits.into_iter().map(|h| (h.session_id, h.message_id)).collect::<Vec<_>>() }
    };
    assert_eq!(hits("kumquat").await, vec![("s".to_owned(), Some("m1".to_owned()))], "found without a rebuild");
    assert_eq!(hits("lifetimes").await, vec![("s".to_owned(), None)]);
    s.rename("…", 2.0);
    store.put_session(&s).await.expect("renamed to nothing searchable");
    let mut pulled = s.clone();
    pulled.rename("Go channels", 3.0);
    store.put_batch(&air_store::batch::Batch { sessions: vec![pulled], ..Default::default() }).await.expect("a pull");
    assert_eq!(hits("channels").await, vec![("s".to_owned(), None)], "once");
    assert_eq!(hits("lifetimes").await, vec![], "the old title is gone");
    let stats = store.index_stats().await.expect("stats").expect("an index");
    assert_eq!(stats.docs, 2, "the message and one title");
    store.close();
}

#[wasm_bindgen_test]
async fn indexeddb_data_survives_reopen() {
    let name = "air-test-reopen";
    let _ = IdbStore::delete_database(name).await;
    let store = IdbStore::open(name).await.expect("open");
    let mut session = SessionRecord::new("s1", 10.0);
    session.auto_title("Does this survive a reload?", 1.0);
    store.put_session(&session).await.expect("put session");
    let mut m = MessageRecord::new("m1", "s1", 11.0, air_chat::Role::Assistant, "partial answer");
    m.incomplete = true;
    store.put_message(&m).await.expect("put message");
    store.close();

    let again = IdbStore::open(name).await.expect("reopen");
    assert_eq!(again.list_sessions().await.expect("list"), vec![session]);
    assert_eq!(again.messages("s1").await.expect("messages"), vec![m]);
    again.close();
}

/// An answer still streaming is saved from its pieces (joined by the
/// browser); once finished, from its pieces too, and then indexed.
#[wasm_bindgen_test]
async fn a_message_saved_in_pieces_reads_back_whole() {
    let name = "air-test-pieces";
    let _ = IdbStore::delete_database(name).await;
    let store = IdbStore::open(name).await.expect("open");
    store.put_session(&SessionRecord::new("s1", 10.0)).await.expect("put session");
    let question = MessageRecord::new("m0", "s1", 10.5, air_chat::Role::User, "What stands in the water?");
    store.put_message(&question).await.expect("the question");
    let mut m = MessageRecord::new("m1", "s1", 11.0, air_chat::Role::Assistant, "");
    m.incomplete = true;
    let parts = ["A heron ", "stands in ", "the 河 shallows, ", "still."];
    store.put_message_parts(&m, &parts[..3]).await.expect("in pieces");
    let read = store.get_message("m1").await.expect("read").expect("stored");
    assert_eq!((read.content.as_str(), read.incomplete), ("A heron stands in the 河 shallows, ", true));
    assert!(air_store::search::run(&store, "heron", 5).await.expect("search").hits.is_empty(), "not indexed while it streams");
    m.incomplete = false;
    store.put_message_parts(&m, &parts).await.expect("finished, in pieces");

    assert_eq!(store.get_message("m1").await.expect("read").map(|m| m.content), Some(parts.concat()));
    assert_eq!(air_store::search::run(&store, "heron", 5).await.expect("search").hits.len(), 1, "indexed once finished");
    store.close();
}

#[wasm_bindgen_test]
async fn a_new_database_is_marked_current_by_its_first_session_and_never_asks_for_a_migration() {
    let name = "air-test-unmigrated";
    let _ = IdbStore::delete_database(name).await;
    let store = IdbStore::open_unmigrated(name).await.expect("open");
    assert!(!store.needs_migration().await.expect("asked"), "nothing to migrate");
    assert_eq!(store.record_format().await.expect("format"), 1, "opening writes nothing");
    store.put_session(&SessionRecord::new("s1", 1.0)).await.expect("put session");
    assert_eq!(store.record_format().await.expect("format"), air_store::RECORD_FORMAT, "marked by the first session written");
    store.put_message(&MessageRecord::new("m1", "s1", 1.0, air_chat::Role::User, "Hi")).await.expect("put");
    store.close();
    // With messages now, a later start still finds nothing to do.
    let again = IdbStore::open_unmigrated(name).await.expect("reopen");
    assert!(!again.needs_migration().await.expect("asked"));
    again.close();
}

/// What a first run's language follows: the browser's languages, most
/// preferred first.
#[wasm_bindgen_test]
fn the_browsers_languages_are_read_most_preferred_first() {
    let languages = air_web::languages();
    assert!(!languages.is_empty(), "Chromium names at least one");
    assert_eq!(languages.first().cloned(), web_sys::window().and_then(|w| w.navigator().language()));
}

#[wasm_bindgen_test]
fn local_storage_settings_round_trip() {
    let kv = LocalStorageKv;
    let _ = kv.remove(SETTINGS_KEY);
    assert_eq!(settings::load(&kv).settings, Settings::default(), "first run gives defaults");

    let mut s = Settings { base_url: "https://api.example.com/v1".into(), api_key: "sk-secret".into(), model: "gpt-4o-mini".into(), theme: Theme::Dark, ..Settings::default() };
    s.language.choose(Language::Chinese);
    settings::save(&kv, &s).expect("save");
    // What is in localStorage is the JSON record under the documented key.
    let raw = kv.get(SETTINGS_KEY).expect("stored");
    assert!(raw.contains("\"baseUrl\":\"https://api.example.com/v1\""), "{raw}");
    assert_eq!(settings::load(&kv).settings, s);

    kv.set(SETTINGS_KEY, "{broken").expect("set");
    let loaded = settings::load(&kv);
    assert_eq!(loaded.settings, Settings::default());
    assert!(loaded.warning.is_some());
    assert_eq!(kv.get("air-agent-settings.corrupt").as_deref(), Some("{broken"));
    let _ = kv.remove(SETTINGS_KEY);
}

/// A database written by schema version 1 (errors as text, no `meta`)
/// opens in version 2: the records are read, rewritten in the current
/// format, and the new index and store exist.
#[wasm_bindgen_test]
async fn a_version_1_database_is_migrated() {
    use air_store::records::MessageKind;
    use rexie::{Index, ObjectStore, Rexie, TransactionMode};
    let name = "air-test-migrate-v1";
    let _ = IdbStore::delete_database(name).await;
    // Exactly what version 1 created and wrote.
    let v1 = Rexie::builder(name)
        .version(1)
        .add_object_store(ObjectStore::new("sessions").key_path("id"))
        .add_object_store(ObjectStore::new("messages").key_path("id").add_index(Index::new_array("by_session", ["sessionId", "seq"])))
        .build()
        .await
        .expect("open v1");
    // As the app stores records: plain objects, not Maps.
    let js = |v: serde_json::Value| {
        use serde::Serialize;
        v.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).expect("to js")
    };
    let tx = v1.transaction(&["sessions", "messages"], TransactionMode::ReadWrite).expect("tx");
    tx.store("sessions").expect("sessions").put(&js(serde_json::json!({"id": "s1", "title": "Old", "titleEdited": false, "createdAt": 1.0, "updatedAt": 2.0})), None).await.expect("put session");
    let messages = tx.store("messages").expect("messages");
    for m in [
        serde_json::json!({"id": "m1", "sessionId": "s1", "seq": 1.0, "role": "user", "content": "Hi", "timestamp": 1.0, "incomplete": false, "stopped": false}),
        serde_json::json!({"id": "m2", "sessionId": "s1", "seq": 2.0, "role": "assistant", "content": "", "timestamp": 2.0, "type": "transitive-thought", "error": "HTTP 500: boom", "incomplete": false, "stopped": false}),
    ] {
        messages.put(&js(m), None).await.expect("put message");
    }
    tx.done().await.expect("commit");
    v1.close();

    let store = IdbStore::open(name).await.expect("open v2");
    assert_eq!(store.record_format().await.expect("format"), air_store::RECORD_FORMAT);
    // Its messages were written before the search index: there is none
    // until it is rebuilt, and then they are found.
    assert_eq!(store.index_stats().await.expect("stats"), None);
    store.rebuild_index().await.expect("rebuild");
    let stats = store.index_stats().await.expect("stats").expect("an index");
    assert!(stats.complete && stats.docs == 2, "{stats:?}");
    let found = air_store::search::run(&store, "hi", 5).await.expect("search");
    assert_eq!(found.hits.iter().map(|h| h.message_id.clone()).collect::<Vec<_>>(), vec![Some("m1".to_owned())]);

    assert_eq!(store.list_sessions().await.expect("list")[0].title, "Old");
    let all = store.messages("s1").await.expect("messages");
    assert_eq!(all.len(), 2);
    assert_eq!(all[1].kind, Some(MessageKind::TransitiveThought));
    assert_eq!(all[1].error.as_ref().map(|e| e.message(air_chat::Lang::En)), Some("HTTP 500: boom".to_owned()));
    // On disk the error is now the structured value.
    let raw = store.raw("messages", "m2").await.expect("raw").expect("stored");
    assert_eq!(raw["error"]["error"]["kind"], "other", "{raw}");
    assert_eq!(raw["error"]["error"]["detail"]["text"], "HTTP 500: boom", "{raw}");
    // Format 3: each message names the one it follows, found from its path.
    assert_eq!((all[0].parent.as_deref(), all[1].parent.as_deref()), (None, Some("m1")));
    store.close();
    // Opening again finds nothing to do and changes nothing.
    let again = IdbStore::open(name).await.expect("reopen");
    assert_eq!(again.messages("s1").await.expect("messages"), all);
    again.close();

    // A search index entry that cannot be read is not trusted: searching
    // says so (the app then rebuilds the index), and a rebuild mends it.
    let raw = Rexie::builder(name).version(air_store::DB_VERSION).build().await.expect("open raw");
    assert!(!raw.store_names().contains(&"terms".to_owned()), "version 6 dropped the old index's store");
    let tx = raw.transaction(&["segs"], TransactionMode::ReadWrite).expect("tx");
    let bad = js_sys::Object::new();
    js_sys::Reflect::set(&bad, &"k".into(), &"hi".into()).expect("k");
    js_sys::Reflect::set(&bad, &"i".into(), &wasm_bindgen::JsValue::from_f64(99.0)).expect("i");
    js_sys::Reflect::set(&bad, &"b".into(), &js_sys::Uint8Array::from(&[9u8, 9, 9][..]).into()).expect("b");
    tx.store("segs").expect("segs").put(&bad.into(), None).await.expect("put a bad segment");
    tx.done().await.expect("commit");
    raw.close();
    let store = IdbStore::open(name).await.expect("reopen");
    assert!(air_store::search::run(&store, "hi", 5).await.is_err(), "an unreadable entry is an error");
    store.rebuild_index().await.expect("rebuild");
    let found = air_store::search::run(&store, "hi", 5).await.expect("search after the rebuild");
    assert_eq!(found.hits.len(), 1);
    store.close();
}

/// A database of schema version 4 (before the journal) opens in version
/// 5: its records are all there, the journal starts empty, and two
/// handles on one database (two tabs) never share a sequence number.
#[wasm_bindgen_test]
async fn a_version_4_database_gains_a_journal() {
    use air_store::journal::{Change, Kind};
    use rexie::{Index, ObjectStore, Rexie, TransactionMode};
    let name = "air-test-migrate-v4";
    let _ = IdbStore::delete_database(name).await;
    // Exactly what version 4 created.
    let v4 = Rexie::builder(name)
        .version(4)
        .add_object_store(ObjectStore::new("sessions").key_path("id").add_index(Index::new("by_updated", "updatedAt")).add_index(Index::new_array("by_activity", ["updatedAt", "id"])))
        .add_object_store(ObjectStore::new("messages").key_path("id").add_index(Index::new_array("by_session", ["sessionId", "seq"])))
        .add_object_store(ObjectStore::new("meta"))
        .add_object_store(ObjectStore::new("files").key_path("id").add_index(Index::new("by_session", "sessionId")))
        .add_object_store(ObjectStore::new("terms").key_path_array(["t", "d"]).add_index(Index::new_array("by_term_at", ["t", "at"])))
        .build()
        .await
        .expect("open v4");
    let js = |v: serde_json::Value| {
        use serde::Serialize;
        v.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).expect("to js")
    };
    let tx = v4.transaction(&["sessions", "messages", "meta"], TransactionMode::ReadWrite).expect("tx");
    tx.store("sessions").expect("sessions").put(&js(serde_json::json!({"id": "s4", "title": "Kept", "titleEdited": false, "createdAt": 1.0, "updatedAt": 2.0})), None).await.expect("put session");
    let m = serde_json::json!({"id": "m4", "sessionId": "s4", "seq": 1.0, "role": "user", "content": "Still here", "timestamp": 1.0});
    tx.store("messages").expect("messages").put(&js(m), None).await.expect("put message");
    tx.store("meta").expect("meta").put(&wasm_bindgen::JsValue::from_f64(2.0), Some(&"recordFormat".into())).await.expect("format");
    tx.done().await.expect("commit");
    v4.close();

    let a = IdbStore::open(name).await.expect("open v5");
    assert_eq!(a.list_sessions().await.expect("list")[0].title, "Kept");
    assert_eq!(a.messages("s4").await.expect("messages")[0].content, "Still here");
    assert_eq!(a.journal_since(0, 100).await.expect("journal"), vec![], "records from before the journal have no entry");

    let b = IdbStore::open(name).await.expect("a second tab");
    a.put_message(&MessageRecord::new("m5", "s4", 2.0, air_chat::Role::Assistant, "one")).await.expect("a writes");
    b.put_message(&MessageRecord::new("m6", "s4", 3.0, air_chat::Role::User, "two")).await.expect("b writes");
    a.put_message(&MessageRecord::new("m5", "s4", 2.0, air_chat::Role::Assistant, "one, done")).await.expect("a again");
    b.delete_session("s4").await.expect("b deletes");
    let seen_by_a = a.journal_since(0, 100).await.expect("journal");
    assert_eq!(seen_by_a, b.journal_since(0, 100).await.expect("journal"), "one journal");
    let seqs: Vec<u64> = seen_by_a.iter().map(|e| e.seq).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    let mut changes: Vec<Change> = seen_by_a.into_iter().map(|e| e.change).collect();
    changes.sort_by(|x, y| (x.kind, &x.id).cmp(&(y.kind, &y.id)));
    assert_eq!(
        changes,
        vec![Change::deleted(Kind::Session, "s4"), Change::deleted(Kind::Message, "m4"), Change::deleted(Kind::Message, "m5"), Change::deleted(Kind::Message, "m6"),],
        "every record of the deleted session has its tombstone, once"
    );
    assert_eq!(*seqs.last().expect("entries"), 7, "seven writes of records, numbered on from one");
    a.close();
    b.close();
}

#[wasm_bindgen_test]
async fn a_large_body_is_read_a_piece_at_a_time() {
    // 300 KB in one delivery (a Blob URL answers at once).
    let text: String = (0..30_000).map(|i| format!("{:09}\n", i)).collect();
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(&text));
    let blob = web_sys::Blob::new_with_str_sequence(&parts).expect("blob");
    let url = web_sys::Url::create_object_url_with_blob(&blob).expect("url");
    let response = air_web::http::send("GET", &url, &[], None, None).await.expect("fetch");
    let mut body = response.body().expect("body");
    let mut read = Vec::new();
    let mut pieces = 0;
    while let Some(piece) = body.next().await.expect("piece") {
        assert!(piece.len() <= 64 * 1024, "a piece of {} bytes", piece.len());
        read.extend_from_slice(&piece);
        pieces += 1;
    }
    assert!(pieces >= 5, "{pieces} pieces");
    assert_eq!(String::from_utf8(read).expect("utf-8"), text);
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// WebCrypto derives the same keys as the host's software cipher
/// (`air-sync-local`'s `the_derivation_matches_the_published_vector`
/// pins these two values), opens what that cipher sealed, and refuses a
/// wrong key.
#[wasm_bindgen_test]
async fn webcrypto_derives_seals_and_opens_as_the_host_cipher_does() {
    use air_sync_local::crypto::{Crypto, CryptoError, Keys, hex};
    use air_web::crypto::WebCrypto;
    let keys = WebCrypto.from_passphrase("password", b"salt", 1).await.expect("derive");
    assert_eq!(hex(&keys.mac(b"").await.expect("mac")), "a413783ed49b2b4a829821d3be29deddc85558feb56332e42008c5db63b3ed00");
    let from_host: Vec<u8> = (0..33).map(|i| u8::from_str_radix(&"0700000000000000080000005d74089713c28d651a0ef8efdf403d9da22487dbee"[2 * i..2 * i + 2], 16).expect("hex")).collect();
    assert_eq!(keys.open(b"aad", &from_host).await.expect("open"), b"hello");
    assert_eq!(keys.open(b"other aad", &from_host).await, Err(CryptoError::Open));
    let sealed = keys.seal(b"id", b"a secret").await.expect("seal");
    assert_eq!(sealed.len(), 12 + 8 + 16);
    assert_ne!(keys.seal(b"id", b"a secret").await.expect("seal"), sealed, "a fresh nonce each time");
    assert_eq!(keys.open(b"id", &sealed).await.expect("open"), b"a secret");
    let other = WebCrypto.from_passphrase("passw0rd", b"salt", 1).await.expect("derive");
    assert_eq!(other.open(b"id", &sealed).await, Err(CryptoError::Open));
    // Without a passphrase: ids only.
    let ids = WebCrypto.id_only(b"raw id key").await.expect("import");
    assert!(!ids.seals());
    assert_eq!(ids.seal(b"", b"x").await, Err(CryptoError::NoCipher));
    // The whole envelope over WebCrypto: a database set up here is opened
    // with its passphrase only.
    let (config, k) = air_sync_local::envelope::new_config(&WebCrypto, Some("pass"), 1_000).await.expect("config");
    assert!(air_sync_local::envelope::unlock(&WebCrypto, &config, Some("pass")).await.is_ok());
    assert_eq!(air_sync_local::envelope::unlock(&WebCrypto, &config, Some("pas")).await.err(), Some(air_sync_local::envelope::EnvelopeError::WrongPassphrase));
    drop(k);
}

/// Sync's bookkeeping is kept in IndexedDB without a journal entry; a
/// record noted again is journaled; only `sync:` keys are taken.
#[wasm_bindgen_test]
async fn indexeddb_keeps_syncs_bookkeeping_out_of_the_journal() {
    use air_store::SyncMeta;
    use air_store::journal::{Change, Kind};
    let name = "air-test-sync-meta";
    let _ = IdbStore::delete_database(name).await;
    let store = IdbStore::open(name).await.expect("open");
    store.put_session(&SessionRecord::new("s1", 1.0)).await.expect("put");
    assert_eq!(store.journal_last().await.expect("last"), 1);
    store.sync_put(&[("sync:rev:abc".into(), "{\"x\":1}".into()), ("sync:local:cp".into(), "{}".into())]).await.expect("sync put");
    assert_eq!(store.journal_last().await.expect("last"), 1, "no journal entry");
    assert_eq!(store.sync_get(&["sync:rev:abc".into(), "sync:rev:none".into()]).await.expect("get"), [Some("{\"x\":1}".to_owned()), None]);
    assert!(store.sync_put(&[("doc:mcp-catalog".into(), "{}".into())]).await.is_err(), "a document's key is not sync's");
    store.rejournal(&[Change::put(Kind::Session, "s1")]).await.expect("rejournal");
    let entries = store.journal_since(1, 10).await.expect("since");
    assert_eq!(entries, [Change::put(Kind::Session, "s1").at(2)]);
    store.close();
}
