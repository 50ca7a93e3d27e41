//! A conversation shaped as ChatGPT exports them, with their quirks.

use serde_json::json;

use super::*;
use crate::testing::Importer;
use air_store::branches;

fn node(id: &str, parent: Option<&str>, message: Value) -> (String, Value) {
    (id.to_owned(), json!({"id": id, "message": message, "parent": parent}))
}

fn msg(role: &str, time: Option<f64>, content: Value) -> Value {
    json!({"id": "x", "author": {"role": role, "name": null}, "create_time": time, "content": content, "weight": 1.0, "metadata": {}})
}

fn text(t: &str) -> Value {
    json!({"content_type": "text", "parts": [t]})
}

/// Root without a message; a hidden system prompt; a question; two
/// answers (the first regenerated: `current_node` is on the older one);
/// thinking before an answer; an image; python and its output.
fn sample() -> Value {
    let mapping: serde_json::Map<String, Value> = [
        node("root", None, Value::Null),
        node("sys", Some("root"), json!({"id": "sys", "author": {"role": "system"}, "content": text("You are ChatGPT"), "weight": 0.0, "metadata": {"is_visually_hidden_from_conversation": true}})),
        node("q1", Some("sys"), msg("user", Some(1_700_000_000.0), json!({"content_type": "multimodal_text", "parts": [{"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-abc"}, "What is in this photo?"]}))),
        node("think", Some("q1"), msg("assistant", Some(1_700_000_001.0), json!({"content_type": "thoughts", "thoughts": [{"summary": "Looking", "content": "A harbour at dusk."}]}))),
        node("a1", Some("think"), msg("assistant", Some(1_700_000_002.0), text("A harbour at dusk 【3†source】with boats."))),
        node("a1b", Some("q1"), msg("assistant", Some(1_700_000_050.0), text("Boats in a harbour."))),
        node("q2", Some("a1"), msg("user", None, text("Count them with code"))),
        node("code", Some("q2"), msg("assistant", Some(1_700_000_060.0), json!({"content_type": "code", "language": "python", "text": "print(3)"}))),
        node("out", Some("code"), json!({"id": "out", "author": {"role": "tool", "name": "python"}, "create_time": 1_700_000_061.0, "content": {"content_type": "execution_output", "text": "3"}, "metadata": {}})),
        node("web", Some("out"), msg("assistant", Some(1_700_000_062.0), json!({"content_type": "tether_browsing_display", "summary": "x"}))),
    ]
    .into_iter()
    .collect();
    json!([{"id": "c1", "title": "Harbour photo", "create_time": 1_700_000_000.0, "update_time": 1_700_000_070.0, "mapping": mapping, "current_node": "web", "default_model_slug": "gpt-4o"}])
}

#[test]
fn a_conversation_becomes_branches_with_the_one_chatgpt_showed_shown() {
    let (export, summary) = convert(&[sample()], 5.0);
    assert_eq!(summary.conversations, 1);
    assert_eq!(summary.hidden, 1, "the system prompt");
    assert_eq!(summary.as_text, 2, "the image and the browsing display");
    let s = &export.sessions[0];
    assert_eq!(s.session.id, "chatgpt-c1");
    assert_eq!(s.session.title, "Harbour photo");
    let shown: Vec<String> = branches::shown(s.messages.clone(), &s.session.forks).into_iter().map(|m| m.content).collect();
    assert_eq!(shown, [
        "[An image: its file is not in the ChatGPT export]\n\nWhat is in this photo?",
        "A harbour at dusk with boats.",
        "Count them with code",
        "```python\nprint(3)\n```",
        "**python**\n\nOutput:\n```\n3\n```",
        "[tether_browsing_display: not carried over from ChatGPT]",
    ]);
    let all = &s.messages;
    assert_eq!(all.len(), 7, "both answers kept");
    let a1 = all.iter().find(|m| m.id == "chatgpt-c1-a1").expect("a1");
    assert_eq!(a1.parent.as_deref(), Some("chatgpt-c1-q1"), "over the thinking");
    assert_eq!(a1.reasoning.as_deref(), Some("A harbour at dusk."));
    assert_eq!(a1.model.as_deref(), Some("gpt-4o"));
    assert_eq!(a1.timestamp, 1_700_000_002_000.0);
    let q1 = all.iter().find(|m| m.id == "chatgpt-c1-q1").expect("q1");
    assert_eq!((q1.parent.as_deref(), q1.role, q1.model.as_deref()), (None, Role::User, None), "the hidden root is no parent");
    assert_eq!(s.session.forks.get("chatgpt-c1-q1").map(|f| f.count), Some(2));
}

#[test]
fn the_newer_answer_is_shown_when_chatgpt_showed_it() {
    let mut v = sample();
    v[0]["current_node"] = json!("a1b");
    let (export, _) = convert(&[v], 5.0);
    let s = &export.sessions[0];
    let shown: Vec<String> = branches::shown(s.messages.clone(), &s.session.forks).into_iter().map(|m| m.id).collect();
    assert_eq!(shown, ["chatgpt-c1-q1", "chatgpt-c1-a1b"]);
}

#[test]
fn split_files_wrapped_lists_and_quirks_are_read_and_a_bad_conversation_is_skipped_alone() {
    let one = sample();
    let wrapped = json!({"conversations": [{"id": "c2", "title": null, "mapping": {
        "n1": {"id": "n1", "message": msg("user", None, text("Bonjour \u{0}à tous 😀")), "parent": null},
        "n2": {"id": "n2", "message": msg("assistant", None, text("Salut")), "parent": "n1"},
        "loop1": {"id": "loop1", "message": null, "parent": "loop2"},
        "loop2": {"id": "loop2", "message": null, "parent": "loop1"},
        "n3": {"id": "n3", "message": msg("user", None, text("orphan in a cycle")), "parent": "loop1"}
    }}, {"id": "c3", "title": "no mapping"}]});
    let (export, summary) = convert(&[one.clone(), wrapped, one], 5.0);
    assert_eq!(summary.conversations, 2, "a conversation in two files counts once");
    assert_eq!(summary.skipped, ["\"no mapping\": no messages (mapping)"]);
    let c2 = &export.sessions[1];
    assert_eq!(c2.session.title, "Bonjour à tous 😀", "titled from its first question");
    let orphan = c2.messages.iter().find(|m| m.content == "orphan in a cycle").expect("kept");
    assert_eq!(orphan.parent, None);
    assert!(c2.messages.iter().all(|m| !m.content.contains('\u{0}')));
}

#[test]
fn the_same_file_imported_twice_adds_nothing_the_second_time() {
    let mut store = Importer::default();
    let (export, _) = convert(&[sample()], 5.0);
    let first = store.import(&export);
    let second = store.import(&export);
    assert_eq!((first, second), ((1, 7), (0, 0)));
}

#[test]
fn other_files_are_not_chatgpt() {
    assert!(conversations(&json!({"format": "air-agent-export"})).is_none());
    assert!(conversations(&json!([{"uuid": "x", "chat_messages": []}])).is_none());
    assert!(conversations(&json!("text")).is_none());
}
