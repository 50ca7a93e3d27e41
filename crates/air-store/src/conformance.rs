//! The behaviour every [`Store`] must have, as one async check that any
//! implementation can run (the memory store on the host, IndexedDB in a
//! real browser). Panics with a message on the first difference.

use air_chat::{Role, ToolCall, Usage};

use crate::{MessageRecord, SessionRecord, Store};

fn msg(id: &str, session: &str, seq: f64, role: Role, text: &str) -> MessageRecord {
    MessageRecord::new(id, session, seq, role, text)
}

/// Runs the whole suite against an empty store.
pub async fn run<S: Store>(store: &S) {
    let ok = |r: crate::Result<()>, what: &str| {
        if let Err(e) = r {
            panic!("{what}: {e}");
        }
    };

    assert_eq!(store.list_sessions().await.ok(), Some(vec![]), "a new store is empty");

    // Documents: absent, written, replaced; kept apart from the records.
    assert_eq!(store.get_doc("mcp-catalog").await.ok(), Some(None), "no document yet");
    ok(store.put_doc("mcp-catalog", r#"{"servers":[]}"#).await, "put a document");
    ok(store.put_doc("mcp-loaded/sess-a", "{\"tools\":[\"天气\"]}").await, "put another");
    ok(store.put_doc("mcp-catalog", r#"{"servers":[1]}"#).await, "replace it");
    assert_eq!(store.get_doc("mcp-catalog").await.ok().flatten().as_deref(), Some(r#"{"servers":[1]}"#));
    assert_eq!(store.get_doc("mcp-loaded/sess-a").await.ok().flatten().as_deref(), Some("{\"tools\":[\"天气\"]}"));
    assert_eq!(store.list_sessions().await.ok(), Some(vec![]), "documents are not sessions");
    ok(store.delete_doc("mcp-loaded/sess-a").await, "delete a document");
    ok(store.delete_doc("never-written").await, "deleting what is not there is fine");
    assert_eq!(store.get_doc("mcp-loaded/sess-a").await.ok(), Some(None), "deleted");
    assert!(store.get_doc("mcp-catalog").await.ok().flatten().is_some(), "the other document stays");

    let mut a = SessionRecord::new("sess-a", 1_000.0);
    a.auto_title("First question about Rust lifetimes please");
    let b = SessionRecord::new("sess-b", 2_000.0);
    ok(store.put_session(&a).await, "put a");
    ok(store.put_session(&b).await, "put b");
    let ids = |list: Vec<SessionRecord>| list.into_iter().map(|s| s.id).collect::<Vec<_>>();
    assert_eq!(store.list_sessions().await.map(ids).ok(), Some(vec!["sess-b".into(), "sess-a".into()]), "newest first");

    // Touching a makes it the newest.
    a.updated_at = 3_000.0;
    ok(store.put_session(&a).await, "update a");
    let listed = store.list_sessions().await.ok().unwrap_or_default();
    assert_eq!(listed.first(), Some(&a), "updated session first, all fields kept");

    // Messages: stored out of order, read in seq order; every field survives.
    let mut answer = msg("m2", "sess-a", 20.0, Role::Assistant, "Lifetimes name regions 🦀");
    answer.reasoning = Some("think".into());
    answer.usage = Some(Usage { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, reasoning_tokens: Some(1), cached_tokens: None });
    answer.model = Some("SmolLM2".into());
    answer.incomplete = true;
    answer.tool_calls = vec![ToolCall { id: "c1".into(), name: "calc".into(), arguments: "{\"x\":1}".into(), extra: None }];
    answer.kind = Some(crate::records::MessageKind::TransitiveThought);
    answer.finish = Some(air_chat::FinishReason::Length);
    ok(store.put_message(&answer).await, "put m2");
    ok(store.put_message(&msg("m1", "sess-a", 10.0, Role::User, "First question")).await, "put m1");
    ok(store.put_message(&msg("m3", "sess-b", 5.0, Role::User, "other session")).await, "put m3");
    let got = store.messages("sess-a").await.ok().unwrap_or_default();
    assert_eq!(got.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), ["m1", "m2"], "seq order, own session only");
    assert_eq!(got.get(1), Some(&answer), "all message fields round-trip");

    // Checkpointing rewrites one record in place.
    answer.content.push_str(" and more");
    answer.incomplete = false;
    ok(store.put_message(&answer).await, "rewrite m2");
    let got = store.messages("sess-a").await.ok().unwrap_or_default();
    assert_eq!(got.len(), 2, "a rewrite does not duplicate");
    assert_eq!(got.get(1).map(|m| m.content.as_str()), Some("Lifetimes name regions 🦀 and more"));

    // Two writers with the same seq (two tabs) both keep their message.
    ok(store.put_message(&msg("m4x", "sess-a", 30.0, Role::User, "tab one")).await, "tab one");
    ok(store.put_message(&msg("m4y", "sess-a", 30.0, Role::User, "tab two")).await, "tab two");
    let got = store.messages("sess-a").await.ok().unwrap_or_default();
    assert_eq!(got.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), ["m1", "m2", "m4x", "m4y"]);

    // Pages come from the end, in order.
    let page = |v: crate::Result<Vec<MessageRecord>>| v.map(|l| l.into_iter().map(|m| m.id).collect::<Vec<_>>()).ok();
    assert_eq!(page(store.messages_page("sess-a", None, 2).await), Some(vec!["m4x".into(), "m4y".into()]));
    assert_eq!(page(store.messages_page("sess-a", Some(30.0), 2).await), Some(vec!["m1".into(), "m2".into()]));
    assert_eq!(page(store.messages_page("sess-a", Some(20.0), 5).await), Some(vec!["m1".into()]));
    assert_eq!(page(store.messages_page("sess-a", Some(10.0), 5).await), Some(vec![]));

    ok(store.delete_message("m4y").await, "delete message");
    assert_eq!(store.messages("sess-a").await.map(|m| m.len()).ok(), Some(3));

    // Deleting a session deletes its messages and nothing else.
    ok(store.delete_session("sess-a").await, "delete a");
    assert_eq!(store.get_session("sess-a").await.ok(), Some(None));
    assert_eq!(store.messages("sess-a").await.map(|m| m.len()).ok(), Some(0));
    assert_eq!(store.messages("sess-b").await.map(|m| m.len()).ok(), Some(1));
    assert_eq!(store.list_sessions().await.map(ids).ok(), Some(vec!["sess-b".into()]));
}
