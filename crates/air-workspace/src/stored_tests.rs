//! What an earlier version of the app kept opens in this one, unchanged:
//! each fixture is what the app as built then wrote after everyday use
//! (`tests/support/make-store-fixture.mjs`), its localStorage and its
//! IndexedDB records as read from the browser.

use std::rc::Rc;

use air_store::{KeyValue, MessageRecord, SessionRecord, Store};
use serde_json::Value;

use crate::fake::{FakeKv, FakePlatform, Harness, now};
use crate::prefs::Prefs;
use crate::{Command, Update};

/// (the version that wrote it, what it wrote).
const FIXTURES: &[(&str, &str)] = &[("2026-11", include_str!("../fixtures/stored-2026-11.json"))];

struct Stored {
    local: Vec<(String, String)>,
    sessions: Vec<Value>,
    messages: Vec<Value>,
}

fn read(name: &str, text: &str) -> Stored {
    let doc: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let local = doc["local"].as_object().map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned())).collect()).unwrap_or_default();
    let records = |store: &str| -> Vec<Value> { doc["stores"][store].as_array().map(|a| a.iter().map(|kv| kv[1].clone()).collect()).unwrap_or_default() };
    Stored { local, sessions: records("sessions"), messages: records("messages") }
}

/// A JSON value with every number as JavaScript keeps it (a double).
fn numbers_as_js(v: Value) -> Value {
    match v {
        Value::Number(n) => n.as_f64().and_then(serde_json::Number::from_f64).map_or(Value::Null, Value::Number),
        Value::Array(a) => Value::Array(a.into_iter().map(numbers_as_js).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, numbers_as_js(v))).collect()),
        other => other,
    }
}

/// Each record reads, and writes back as it was kept.
macro_rules! records {
    ($name:expr, $kept:expr, $t:ty) => {
        $kept
            .iter()
            .map(|v| {
                let r: $t = serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{}: {e} in {v}", $name));
                assert_eq!(numbers_as_js(serde_json::to_value(&r).unwrap_or_default()), numbers_as_js(v.clone()), "{}: written back as it was", $name);
                r
            })
            .collect::<Vec<$t>>()
    };
}

#[test]
fn what_an_earlier_version_kept_opens_unchanged() {
    for (name, text) in FIXTURES {
        let stored = read(name, text);
        assert!(stored.sessions.len() >= 2 && stored.messages.len() >= 6, "{name}: a fixture of everyday use");
        let kv = Rc::new(FakeKv::default());
        for (k, v) in &stored.local {
            kv.set(k, v).expect("kept");
        }
        // The preferences read with no warning, as they were set.
        let (prefs, warnings) = Prefs::load(&*kv);
        assert!(warnings.is_empty(), "{name}: {warnings:?}");
        let settings: Value = stored.local.iter().find(|(k, _)| k == "air-agent-settings").and_then(|(_, v)| serde_json::from_str(v).ok()).unwrap_or_default();
        assert_eq!(Some(prefs.settings.base_url.as_str()), settings["baseUrl"].as_str(), "{name}");
        assert_eq!(Some(prefs.settings.model.as_str()), settings["model"].as_str(), "{name}");
        // The language it named (it always named one) is kept as picked,
        // whatever the browser prefers.
        let mut language = prefs.settings.language;
        language.follow(&["zh-CN"]);
        assert_eq!(serde_json::to_value(language.current()).ok(), Some(settings["language"].clone()), "{name}");
        assert!(language.choice().is_some(), "{name}");
        // Written again, they read the same.
        crate::prefs::write(&*kv, &prefs, crate::prefs::Touched { settings: true, servers: true, chat_servers: true, assistants: true, http_tools: true }).expect("written");
        let mut again = Prefs::load(&*kv).0;
        // (The HTTP tools are kept as text until they are read.)
        again.http_tools = air_store::http_tools::Saved::Read(again.http_tools.tools());
        assert_eq!(again, prefs, "{name}");

        let sessions = records!(name, stored.sessions, SessionRecord);
        let messages = records!(name, stored.messages, MessageRecord);
        let p = FakePlatform::with_kv(kv);
        for s in &sessions {
            now(p.store.put_session(s)).expect("stored");
        }
        for m in &messages {
            now(p.store.put_message(m)).expect("stored");
        }
        let mut h = Harness::new(p);
        h.send(Command::Start);
        let updates = h.take();
        // Every conversation is listed, the newest first and opened.
        let mut newest_first = sessions.clone();
        newest_first.sort_by(|a, b| b.updated_at.total_cmp(&a.updated_at));
        let listed: Vec<&str> = h.ws.sessions().iter().map(|s| s.id.as_str()).collect();
        assert_eq!(listed, newest_first.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), "{name}");
        assert!(updates.contains(&Update::Started { first: Some(newest_first[0].id.clone()) }), "{name}");
        // Each opens with its messages as kept.
        for s in &newest_first {
            h.send(Command::Chat(crate::chat::Action::Open(s.id.clone())));
            let shown = h.take().into_iter().rev().find_map(|u| match u {
                Update::Messages { list, .. } => Some(list),
                _ => None,
            });
            let mut kept: Vec<&MessageRecord> = messages.iter().filter(|m| m.session_id == s.id).collect();
            kept.sort_by(|a, b| a.timestamp.total_cmp(&b.timestamp));
            let shown = shown.unwrap_or_else(|| panic!("{name}: {} opened", s.id));
            assert_eq!(shown.iter().collect::<Vec<_>>(), kept, "{name}: {}", s.id);
        }
    }
}
