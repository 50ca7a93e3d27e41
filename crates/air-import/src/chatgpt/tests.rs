//! A conversation shaped as ChatGPT exports them, with their quirks.

use serde_json::json;

use super::*;
use crate::testing::imported_once;
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
        node(
            "q1",
            Some("sys"),
            msg(
                "user",
                Some(1_700_000_000.0),
                json!({"content_type": "multimodal_text", "parts": [{"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-abc"}, "What is in this photo?"]}),
            ),
        ),
        node("think", Some("q1"), msg("assistant", Some(1_700_000_001.0), json!({"content_type": "thoughts", "thoughts": [{"summary": "Looking", "content": "A harbour at dusk."}]}))),
        node("a1", Some("think"), msg("assistant", Some(1_700_000_002.0), text("A harbour at dusk 【3†source】with boats."))),
        node("a1b", Some("q1"), msg("assistant", Some(1_700_000_050.0), text("Boats in a harbour."))),
        node("q2", Some("a1"), msg("user", None, text("Count them with code"))),
        node("code", Some("q2"), msg("assistant", Some(1_700_000_060.0), json!({"content_type": "code", "language": "python", "text": "print(3)"}))),
        node(
            "out",
            Some("code"),
            json!({"id": "out", "author": {"role": "tool", "name": "python"}, "create_time": 1_700_000_061.0, "content": {"content_type": "execution_output", "text": "3"}, "metadata": {}}),
        ),
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
    assert_eq!(
        shown,
        [
            "[An image: its file is not in the ChatGPT export]\n\nWhat is in this photo?",
            "A harbour at dusk with boats.",
            "Count them with code",
            "```python\nprint(3)\n```",
            "**python**\n\nOutput:\n```\n3\n```",
            "[tether_browsing_display: not carried over from ChatGPT]",
        ]
    );
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
    assert_eq!(summary.skipped, [crate::Skipped::NoMessages { title: "no mapping".into(), field: "mapping" }]);
    assert_eq!(summary.skipped[0].to_string(), "\"no mapping\": no messages (mapping)");
    let c2 = &export.sessions[1];
    assert_eq!(c2.session.title, "Bonjour à tous 😀", "titled from its first question");
    let orphan = c2.messages.iter().find(|m| m.content == "orphan in a cycle").expect("kept");
    assert_eq!(orphan.parent, None);
    assert!(c2.messages.iter().all(|m| !m.content.contains('\u{0}')));
}

#[test]
fn the_same_file_imported_twice_adds_nothing_the_second_time() {
    assert_eq!(imported_once(&[sample()], convert), (1, 7));
}

#[test]
fn other_files_are_not_chatgpt() {
    assert!(conversations(&json!({"format": "air-agent-export"})).is_none());
    assert!(conversations(&json!([{"uuid": "x", "chat_messages": []}])).is_none());
    assert!(conversations(&json!("text")).is_none());
}

#[test]
fn an_untitled_conversation_is_titled_from_its_first_questions_text() {
    let mut v = sample();
    v[0]["title"] = Value::Null;
    let (export, _) = convert(&[v], 5.0);
    assert_eq!(export.sessions[0].session.title, "What is in this photo?", "not the line saying the image is missing");
    // A first question with nothing but an image: the next one's text.
    let mut v = sample();
    v[0]["title"] = Value::Null;
    v[0]["mapping"]["q1"]["message"]["content"]["parts"] = json!([{"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-abc"}]);
    let (export, _) = convert(&[v], 5.0);
    assert_eq!(export.sessions[0].session.title, "Count them with code");
    let long = "  Which of the Rust books explains lifetimes best, and why?  ";
    let mut v = sample();
    v[0]["title"] = Value::Null;
    v[0]["mapping"]["q1"]["message"]["content"] = text(long);
    let (export, _) = convert(&[v], 5.0);
    assert_eq!(export.sessions[0].session.title, "Which of the Rust books explai", "trimmed, at most 30 characters");
}

/// An answer citing as ChatGPT's exports do: old marks with
/// `citations`, new private-use ones with `content_references`.
fn cited_answer(text_of: &str, metadata: Value) -> String {
    let mut v = sample();
    let mut answer = msg("assistant", Some(1_700_000_002.0), text(text_of));
    answer["metadata"] = metadata;
    v[0]["mapping"]["a1"]["message"] = answer;
    let (export, _) = convert(&[v], 5.0);
    export.sessions[0].messages.iter().find(|m| m.id == "chatgpt-c1-a1").map(|m| m.content.clone()).unwrap_or_default()
}

#[test]
fn citation_marks_become_links_to_their_pages() {
    let old = "See 【0†Rust Book†doc.rust-lang.org】.";
    let meta = json!({"citations": [{"start_ix": 4, "end_ix": 35, "citation_format_type": "tether_og", "metadata": {"type": "webpage", "title": "The Rust Programming Language", "url": "https://doc.rust-lang.org/book/", "text": ""}}]});
    assert_eq!(cited_answer(old, meta), "See [The Rust Programming Language](https://doc.rust-lang.org/book/).");
    assert_eq!(cited_answer(old, json!({})), "See Rust Book (doc.rust-lang.org).", "no address: its title and domain");
    let new = "Lifetimes are checked at compile time\u{e200}cite\u{e202}turn0search0\u{e202}turn0search3\u{e201}. \u{e203}Borrowing\u{e204} is \u{e200}entity\u{e202}[\"concept\",\"the borrow checker\",\"\"]\u{e201}'s work\u{e200}cite\u{e202}turn1news2\u{e201}.";
    let meta = json!({"content_references": [
        {"matched_text": "\u{e200}cite\u{e202}turn0search0\u{e202}turn0search3\u{e201}", "start_idx": 37, "end_idx": 66, "type": "grouped_webpages", "alt": "([Rust](https://doc.rust-lang.org/))", "items": [
            {"title": "Validating References with Lifetimes", "url": "https://doc.rust-lang.org/book/ch10-03-lifetime-syntax.html", "attribution": "doc.rust-lang.org"},
            {"title": "Lifetimes [Rust By Example]", "url": "https://doc.rust-lang.org/rust-by-example/scope/lifetime.html", "attribution": "doc.rust-lang.org"}]},
        {"matched_text": "\u{e200}cite\u{e202}turn1news2\u{e201}", "type": "grouped_webpages", "alt": "([Rust Blog](https://blog.rust-lang.org/))", "items": []}
    ]});
    assert_eq!(
        cited_answer(new, meta),
        "Lifetimes are checked at compile time ([Validating References with Lifetimes](https://doc.rust-lang.org/book/ch10-03-lifetime-syntax.html), [Lifetimes \\[Rust By Example\\]](https://doc.rust-lang.org/rust-by-example/scope/lifetime.html)). Borrowing is the borrow checker's work ([Rust Blog](https://blog.rust-lang.org/))."
    );
    assert_eq!(cited_answer("A fact\u{e200}cite\u{e202}turn0search0\u{e201}.", json!({})), "A fact.", "nothing known of it: gone");
    assert_eq!(cited_answer("Left open \u{e200}cite", json!({})), "Left open \u{e200}cite");
}
