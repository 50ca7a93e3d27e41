//! Whatever a file offered for import holds, reading it does not panic,
//! an import writes only records of its own, and what was there stays as
//! it was.

use air_store::export::Export;
use air_store::import::import;
use air_store::{MemoryStore, Store};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Any JSON value, with the keys an export carries turning up often.
fn json_value() -> impl Strategy<Value = Value> {
    air_testgen::json(&["format", "version", "sessions", "messages", "id", "sessionId", "role", "tool", "status", "files"], &["air-agent-export", "user", "awaitingApproval"])
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
    fn an_import_leaves_what_is_there_as_it_was(
        sessions in prop::collection::vec(
            (prop_oneof![Just("s1"), Just("s2")], prop::collection::vec((prop_oneof![Just("m1"), Just("m2"), Just("f1")], ".{0,6}"), 0..4)),
            0..4,
        ),
        files in prop::collection::vec(prop_oneof![Just("f1"), Just("m1"), Just("x")], 0..3),
    ) {
        use air_chat::Role;
        use air_store::{FileRecord, MessageRecord, SessionRecord};
        // The user's own conversation, with a file, under ids the file may use too.
        let store = MemoryStore::new();
        let mine = SessionRecord::new("s1", 1.0);
        let mut said = MessageRecord::new("m1", "s1", 1.0, Role::User, "mine");
        said.attachments = vec![air_store::Attachment { id: "f1".into(), name: "a.txt".into(), mime: "text/plain".into(), size: 1 }];
        let file = FileRecord { id: "f1".into(), session_id: "s1".into(), mime: "text/plain".into(), bytes: vec![7] };
        run(async {
            store.put_session(&mine).await.ok();
            store.put_message(&said).await.ok();
            store.put_file(&file).await.ok();
        });
        let doc = json!({"format": "air-agent-export", "version": 2, "exportedAt": 0, "sessions": sessions.iter().map(|(id, messages)| json!({
            "id": id, "title": "theirs", "createdAt": 0, "updatedAt": 0,
            "messages": messages.iter().enumerate().map(|(i, (mid, text))| json!({
                "id": mid, "sessionId": id, "seq": i, "role": "user", "content": text, "timestamp": 0,
                "attachments": [{"id": "f1", "name": "b", "type": "text/plain", "size": 1}]
            })).collect::<Vec<_>>(),
            "files": files.iter().map(|f| json!({"id": f, "type": "text/plain", "data": "AA=="})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>()});
        let export = Export::parse(&doc.to_string());
        prop_assert!(export.is_ok(), "{export:?}");
        run(async {
            let mut n = 0;
            let written = import(&store, &export.unwrap_or_else(|_| unreachable!()), &mut || { n += 1; format!("id-{n}") }).await;
            prop_assert!(written.is_ok(), "{written:?}");
            prop_assert_eq!(store.get_session("s1").await.ok().flatten(), Some(mine.clone()));
            let here = store.get_message("m1").await.ok().flatten().map(|m| (m.session_id, m.content, m.attachments));
            prop_assert_eq!(here, Some(("s1".to_owned(), "mine".to_owned(), said.attachments.clone())));
            prop_assert_eq!(store.get_file("f1").await.ok().flatten(), Some(file.clone()));
            // No imported message names the user's file.
            for s in store.list_sessions().await.unwrap_or_default().into_iter().filter(|s| s.id != "s1") {
                for m in store.messages(&s.id).await.unwrap_or_default() {
                    prop_assert!(m.attachments.iter().all(|a| a.id != "f1"), "{m:?}");
                }
            }
            Ok(())
        })?;
    }
}
