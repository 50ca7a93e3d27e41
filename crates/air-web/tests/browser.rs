//! The edge adapters against the real browser APIs, in headless Chromium.

use air_store::settings::{self, Language, SETTINGS_KEY, Settings, Theme};
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

#[wasm_bindgen_test]
async fn indexeddb_data_survives_reopen() {
    let name = "air-test-reopen";
    let _ = IdbStore::delete_database(name).await;
    let store = IdbStore::open(name).await.expect("open");
    let mut session = SessionRecord::new("s1", 10.0);
    session.auto_title("Does this survive a reload?");
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

#[wasm_bindgen_test]
fn local_storage_settings_round_trip() {
    let kv = LocalStorageKv;
    kv.remove(SETTINGS_KEY);
    assert_eq!(settings::load(&kv).settings, Settings::default(), "first run gives defaults");

    let mut s = Settings::default();
    s.base_url = "https://api.example.com/v1".into();
    s.api_key = "sk-secret".into();
    s.model = "gpt-4o-mini".into();
    s.theme = Theme::Dark;
    s.language = Language::Chinese;
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
    kv.remove(SETTINGS_KEY);
}
