//! Whatever a file offered for import holds, reading it does not panic, a
//! file that is not an export changes nothing, and an import writes only
//! records of its own.

use air_store::export::{Export, import};
use air_store::{MemoryStore, Store};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Any JSON value, with the keys an export carries turning up often.
fn json_value() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("format".to_owned()),
        Just("version".to_owned()),
        Just("sessions".to_owned()),
        Just("messages".to_owned()),
        Just("id".to_owned()),
        Just("sessionId".to_owned()),
        Just("role".to_owned()),
        Just("tool".to_owned()),
        Just("status".to_owned()),
        Just("files".to_owned()),
        ".{0,8}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        prop_oneof![Just("air-agent-export".to_owned()), Just("user".to_owned()), Just("awaitingApproval".to_owned()), ".{0,20}"].prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..7).prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn run<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

proptest! {
    #[test]
    fn any_bytes_and_any_json_are_read_without_panic(bytes in prop::collection::vec(any::<u8>(), 0..256), v in json_value()) {
        let _ = Export::parse(&String::from_utf8_lossy(&bytes));
        let _ = Export::parse(&v.to_string());
        // Shaped like an export, with anything inside.
        let doc = json!({"format": "air-agent-export", "version": 2, "exportedAt": 0, "sessions": [v]});
        if let Ok(export) = Export::parse(&doc.to_string()) {
            let store = MemoryStore::new();
            run(async {
                let mut n = 0;
                let written = import(&store, &export, &mut || { n += 1; format!("id-{n}") }).await;
                prop_assert!(written.is_ok(), "{written:?}");
                // Nothing it wrote is left to run.
                for s in store.list_sessions().await.unwrap_or_default() {
                    for m in store.messages(&s.id).await.unwrap_or_default() {
                        if let Some(t) = &m.tool {
                            prop_assert!(t.status.is_final() && t.imported, "{m:?}");
                        }
                    }
                }
                Ok(())
            })?;
        }
    }

    #[test]
    fn a_file_that_is_not_an_export_changes_nothing(text in ".{0,200}") {
        let store = MemoryStore::new();
        if Export::parse(&text).is_err() {
            prop_assert!(run(store.list_sessions()).unwrap_or_default().is_empty());
        }
    }
}
