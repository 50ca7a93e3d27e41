//! Chats shaped as Open WebUI exports them, with their quirks.

use serde_json::json;

use super::*;
use crate::testing::{converts_every_broken, imported_once};
use air_store::MessageRecord;
use air_store::branches;

/// A tool call as Open WebUI writes it: arguments and result JSON in
/// escaped attributes.
const TOOL: &str = r#"<details type="tool_calls" done="true" id="call_1" name="get_weather" arguments="&quot;{\&quot;city\&quot;: \&quot;Paris\&quot;}&quot;" result="&quot;Paris: 18C, rain&quot;" files="" embeds="&quot;&quot;">
<summary>Tool Executed</summary>
</details>
It rains in Paris."#;

/// A hidden system prompt; a question with an image part and an image
/// file; two models answering it (siblings; the first with thinking);
/// a question with a file after the first answer; an answer calling a
/// tool, its time in milliseconds. `currentId` is on the older answer's
/// branch.
fn sample() -> Value {
    let messages = json!({
        "sys": {"id": "sys", "parentId": null, "childrenIds": ["u1"], "role": "system", "content": "You are helpful", "timestamp": 1_699_999_999},
        "u1": {"id": "u1", "parentId": "sys", "childrenIds": ["a1", "a2"], "role": "user", "models": ["llama3.1:8b", "qwen2.5:7b"], "timestamp": 1_700_000_000,
            "content": [{"type": "text", "text": "What is in this picture?"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}],
            "files": [{"type": "image", "url": "data:image/png;base64,AAAA"}]},
        "a1": {"id": "a1", "parentId": "u1", "childrenIds": ["u2"], "role": "assistant", "model": "llama3.1:8b", "modelName": "Llama", "modelIdx": 0, "timestamp": 1_700_000_010, "done": true,
            "content": "<details type=\"reasoning\" done=\"true\" duration=\"2\">\n<summary>Thought for 2 seconds</summary>\n&gt; A cat &amp; a dog.\n&gt; Sitting.\n</details>\nA cat and a dog."},
        "a2": {"id": "a2", "parentId": "u1", "childrenIds": [], "role": "assistant", "model": "qwen2.5:7b", "modelIdx": 1, "timestamp": 1_700_000_011, "content": "Two pets."},
        "u2": {"id": "u2", "parentId": "a1", "childrenIds": ["a3"], "role": "user", "timestamp": 1_700_000_020, "content": "What's the weather where they live?",
            "files": [{"type": "file", "file": {"id": "f", "filename": "f_notes.pdf", "meta": {"name": "notes.pdf"}}, "id": "f", "url": "/api/v1/files/f", "status": "uploaded"}]},
        "a3": {"id": "a3", "parentId": "u2", "childrenIds": [], "role": "assistant", "modelIdx": 0, "timestamp": 1_700_000_030_000u64, "content": TOOL}
    });
    let chat = json!({"id": "", "title": "Compare answers", "models": ["llama3.1:8b", "qwen2.5:7b"], "params": {}, "timestamp": 1_700_000_000_000u64,
        "messages": [{"id": "u1", "role": "user", "content": "stale linear copy"}],
        "history": {"currentId": "a3", "messages": messages}});
    json!([{
        "id": "w1", "user_id": "u", "title": "Compare answers", "created_at": 1_700_000_000, "updated_at": 1_700_000_100,
        "archived": false, "pinned": true, "folder_id": null, "meta": {"tags": []}, "share_id": null, "chat": chat
    }])
}

fn shown(s: &ExportedSession) -> Vec<MessageRecord> {
    branches::shown(s.messages.clone(), &s.session.forks)
}

fn shown_ids(v: Value) -> Vec<String> {
    let (export, _) = convert(&[v], 5.0);
    export.sessions.first().map(|s| shown(s).into_iter().map(|m| m.id).collect()).unwrap_or_default()
}

fn by_id<'a>(s: &'a ExportedSession, id: &str) -> &'a MessageRecord {
    s.messages.iter().find(|m| m.id == id).unwrap_or_else(|| panic!("{id} kept"))
}

#[test]
fn a_chat_becomes_branches_with_the_one_open_webui_showed_shown() {
    let (export, summary) = convert(&[sample()], 5.0);
    assert_eq!((summary.conversations, summary.messages, summary.hidden), (1, 5, 1), "the system prompt left out");
    assert_eq!(summary.as_text, 4, "two images, a file, a tool call");
    let s = &export.sessions[0];
    assert_eq!((s.session.id.as_str(), s.session.title.as_str()), ("openwebui-w1", "Compare answers"));
    assert_eq!((s.session.created_at, s.session.updated_at), (1_700_000_000_000.0, 1_700_000_030_000.0));
    let on_screen: Vec<(Role, String, Option<String>)> = shown(s).into_iter().map(|m| (m.role, m.content, m.model)).collect();
    let llama = Some("llama3.1:8b".to_owned());
    assert_eq!(
        on_screen,
        [
            (Role::User, format!("What is in this picture?\n\n{IMAGE}\n\n{IMAGE}"), None),
            (Role::Assistant, "A cat and a dog.".to_owned(), llama.clone()),
            (Role::User, "What's the weather where they live?\n\n[A file: notes.pdf (its content is not in the Open WebUI export)]".to_owned(), None),
            (Role::Assistant, "**Tool call: get_weather**\n\n```json\n{\n  \"city\": \"Paris\"\n}\n```\n\nResult:\n```\nParis: 18C, rain\n```\n\nIt rains in Paris.".to_owned(), llama),
        ]
    );
    let a1 = by_id(s, "openwebui-w1-a1");
    assert_eq!((a1.reasoning.as_deref(), a1.timestamp), (Some("A cat & a dog.\nSitting."), 1_700_000_010_000.0));
    let a2 = by_id(s, "openwebui-w1-a2");
    assert_eq!((a2.model.as_deref(), a2.parent.as_deref(), a2.content.as_str()), (Some("qwen2.5:7b"), Some("openwebui-w1-u1"), "Two pets."));
    assert_eq!(by_id(s, "openwebui-w1-u1").parent, None, "the system prompt is no parent");
    assert_eq!(by_id(s, "openwebui-w1-a3").timestamp, 1_700_000_030_000.0, "milliseconds read as such");
    assert_eq!(s.session.forks.get("openwebui-w1-u1").map(|f| (f.count, f.shown)), Some((2, 0)), "the older answer shown");
    assert!(s.messages.iter().all(|m| m.tool_calls.is_empty() && m.tool.is_none()), "nothing runnable");
}

#[test]
fn the_branch_shown_ends_at_current_id_wherever_it_is_else_at_the_newest() {
    let mut v = sample();
    v[0]["chat"]["history"]["currentId"] = json!("a2");
    assert_eq!(shown_ids(v.clone()), ["openwebui-w1-u1", "openwebui-w1-a2"]);
    v[0]["chat"]["history"]["currentId"] = json!("u2");
    assert_eq!(shown_ids(v.clone()), ["openwebui-w1-u1", "openwebui-w1-a1", "openwebui-w1-u2", "openwebui-w1-a3"], "mid-tree");
    v[0]["chat"]["history"]["currentId"] = json!("sys");
    v[0]["chat"]["history"]["messages"]["a2"]["timestamp"] = json!(1_700_000_050);
    assert_eq!(shown_ids(v.clone()), ["openwebui-w1-u1", "openwebui-w1-a2"], "not kept: the newest message");
    v[0]["chat"]["history"]["currentId"] = json!(null);
    assert_eq!(shown_ids(v), ["openwebui-w1-u1", "openwebui-w1-a2"]);
}

#[test]
fn output_items_give_the_reasoning_and_the_text_when_the_content_has_none() {
    let reasoning = json!({"type": "reasoning", "id": "r", "status": "completed", "content": [{"type": "output_text", "text": "15 * 17 = 150 + 105 = 255"}], "summary": null, "duration": 3});
    let answer = json!({"type": "message", "id": "m", "role": "assistant", "content": [{"type": "output_text", "text": "255"}]});
    let v = json!([{"id": "r1", "title": "Chat with reasoning", "created_at": 1_700_000_000, "chat": {"models": ["deepseek-r1"], "history": {"currentId": "b", "messages": {
        "q": {"id": "q", "parentId": null, "childrenIds": ["a", "b"], "role": "user", "content": "What is 15 * 17?", "timestamp": 1_700_000_000},
        "a": {"id": "a", "parentId": "q", "role": "assistant", "timestamp": 1_700_000_010,
            "content": "<details type=\"reasoning\" done=\"true\" duration=\"3\"><summary>Thought for 3 seconds</summary>&gt; Let me break this down...</details>255", "output": [reasoning, answer]},
        "b": {"id": "b", "parentId": "q", "role": "assistant", "timestamp": 1_700_000_020, "content": "", "output": [answer], "error": {"content": "Rate limited"}}
    }}}}]);
    let (export, summary) = convert(&[v], 5.0);
    assert_eq!((summary.messages, summary.hidden, summary.as_text), (3, 0, 0));
    let s = &export.sessions[0];
    let a = by_id(s, "openwebui-r1-a");
    assert_eq!((a.content.as_str(), a.reasoning.as_deref(), a.model.as_deref()), ("255", Some("15 * 17 = 150 + 105 = 255"), Some("deepseek-r1")));
    assert_eq!(by_id(s, "openwebui-r1-b").content, "255\n\n[Error: Rate limited]");
}

#[test]
fn a_chat_from_before_the_tree_is_its_list_of_messages_in_order() {
    let v = json!([{"id": "old", "title": "", "created_at": "1700000000", "chat": {"models": ["gpt-4o"], "messages": [
        {"id": "m1", "role": "system", "content": "Be brief"},
        {"id": "m2", "role": "user", "content": "Hi", "timestamp": 1_700_000_001},
        {"id": "m3", "role": "assistant", "content": "Hello", "timestamp": "1700000005"},
        {"id": "m2", "role": "user", "content": "Again", "timestamp": 1_700_000_010},
        {"role": "assistant", "content": [{"type": "text", "text": "No id"}], "model": "gpt-4o-mini"}
    ]}}]);
    let (export, summary) = convert(&[v], 5.0);
    assert_eq!((summary.messages, summary.hidden), (4, 1));
    let s = &export.sessions[0];
    assert_eq!(s.session.title, "Hi", "titled from its first question");
    let rows: Vec<(String, Option<String>, Option<String>, f64)> = s.messages.iter().map(|m| (m.content.clone(), m.parent.clone(), m.model.clone(), m.timestamp)).collect();
    assert_eq!(
        rows,
        [
            ("Hi".to_owned(), None, None, 1_700_000_001_000.0),
            ("Hello".to_owned(), Some("openwebui-old-m2".to_owned()), Some("gpt-4o".to_owned()), 1_700_000_005_000.0),
            ("Again".to_owned(), Some("openwebui-old-m3".to_owned()), None, 1_700_000_010_000.0),
            ("No id".to_owned(), Some("openwebui-old-m2#3".to_owned()), Some("gpt-4o-mini".to_owned()), 1_700_000_000_000.0),
        ],
        "the last without a time: the chat's, still after its parent"
    );
    assert!(s.session.forks.is_empty());
}

#[test]
fn details_blocks_become_reasoning_or_readable_text() {
    let mut summary = Summary::default();
    let old = r#"Before<details type="tool_calls" done="true" content="[{&quot;id&quot;: &quot;c1&quot;, &quot;function&quot;: {&quot;name&quot;: &quot;search&quot;, &quot;arguments&quot;: &quot;{\&quot;q\&quot;: 1}&quot;}}]" results="[{&quot;tool_call_id&quot;: &quot;c1&quot;, &quot;content&quot;: &quot;found &lt;3&gt;&quot;}]">
<summary>Tool Executed</summary>
&gt; Executed search
</details>After"#;
    let (text, reasoning) = details(old, &mut summary);
    assert_eq!(text, "Before\n\n**Tool call: search**\n\n```json\n{\n  \"q\": 1\n}\n```\n\nResult:\n```\nfound <3>\n```\n\n```\n> Executed search\n```\n\nAfter");
    assert!(reasoning.is_empty());
    let code = "Let me run it.\n<details type=\"code_interpreter\" done=\"true\" output=\"{&quot;stdout&quot;: &quot;42\\n&quot;}\">\n<summary>Analyzed</summary>\n```python\nprint(42)\n```\n</details>\nDone.";
    assert_eq!(details(code, &mut summary).0, "Let me run it.\n\n**Code run**\n\n```python\nprint(42)\n```\n\nOutput:\n```\n42\n```\n\nDone.");
    let kept = "<details><summary>Spoiler</summary>Hidden by the user</details> and <details open>x</details>";
    assert_eq!(details(kept, &mut summary), (kept.to_owned(), Vec::new()), "the user's own details left as they are");
    let nested = "<details type=\"reasoning\">\n> outer\n<details type=\"tool_calls\" name=\"t\"></details>\n> end\n</details>Answer";
    assert_eq!(details(nested, &mut summary), ("Answer".to_owned(), vec!["outer\n<details type=\"tool_calls\" name=\"t\"></details>\nend".to_owned()]));
    let cut = "Partial <details type=\"reasoning\" done=\"false\">\n<summary>Thinking…</summary>\n> still thinking";
    assert_eq!(details(cut, &mut summary), ("Partial".to_owned(), vec!["still thinking".to_owned()]), "unclosed: the rest");
    assert_eq!(details("<details", &mut summary).0, "<details");
    assert_eq!(details("a <details type=\"tool_calls\"", &mut summary).0, "a <details type=\"tool_calls\"", "no end to the tag");
    assert_eq!(details("<detailsx>x</details>", &mut summary).0, "<detailsx>x</details>");
    assert_eq!(details("<details type=\"tool_calls\">", &mut summary).0, "**Tool call**");
    assert_eq!(summary.as_text, 3);
    assert_eq!(fence("", "a ```` b"), "`````\na ```` b\n`````", "a fence longer than what it holds");
}

/// Wrong types everywhere, a message its own parent, a cycle, NUL,
/// right-to-left text, CJK and emoji, a chat without an id or messages.
fn hostile() -> Value {
    json!([
        {"id": "h", "title": 7, "created_at": "soon", "chat": {"models": "one", "history": {"currentId": 5, "messages": {
            "q": {"parentId": 3, "role": "user", "content": "שלום \u{0}世界 🌍", "timestamp": "never", "files": "none"},
            "self": {"parentId": "self", "role": "user", "content": "me", "timestamp": -5},
            "x": {"parentId": "y", "role": "user", "content": "loop x"},
            "y": {"parentId": "x", "role": "assistant", "content": "loop y", "model": 4, "modelIdx": 99},
            "n": {"parentId": "q", "role": "assistant", "content": 12, "files": [{"type": "file"}, 3, {"type": "image", "url": 5}]},
            "e": {"parentId": "q", "role": "assistant", "content": "  \n "},
            "t": {"parentId": "q", "role": "tool", "content": "tool output"},
            "z": {"parentId": "q", "role": "assistant", "content": [null, 5, {"type": "image_url"}, {"text": 3}], "output": "x", "error": true},
            "s": "a message that is a string",
            "inf": {"parentId": "q", "role": "assistant", "content": "big", "timestamp": 1e300}
        }}}},
        {"title": "Untitled", "chat": {"history": {"messages": {}}}},
        {"id": "n1", "title": "No messages", "chat": {"history": 3}},
        {"id": "e1", "title": "Empty", "chat": {"history": {"currentId": null, "messages": {}}, "messages": []}},
        {"id": "arr", "title": "Array", "chat": {"history": {"messages": []}, "messages": "x"}},
        {"id": "nochat", "title": "No chat"},
        "a chat that is a string",
        null
    ])
}

#[test]
fn hostile_input_is_read_without_panicking_and_a_bad_chat_is_skipped_alone() {
    let (export, summary) = convert(&[sample(), hostile(), sample()], 5.0);
    assert_eq!(summary.conversations, 2, "the chat in two files counts once");
    use crate::Skipped::{NoId, NoMessages};
    let (no_id, empty) = (|t: &str| NoId { title: t.into(), field: "id" }, |t: &str| NoMessages { title: t.into(), field: "chat.history" });
    assert_eq!(summary.skipped, [no_id("Untitled"), empty("No messages"), empty("Array"), empty("No chat"), no_id(""), no_id("")]);
    assert_eq!(summary.hidden, 1 + 3, "the sample's; then the tool role, the string, the empty answer");
    assert_eq!(summary.as_text, 4 + 3, "the sample's; then two files and an image");
    let s = &export.sessions[1];
    assert_eq!(s.session.title, "שלום 世界 🌍", "titled from its first question, NUL taken out");
    assert!(s.messages.iter().all(|m| !m.content.contains('\u{0}')));
    assert_eq!(by_id(s, "openwebui-h-self").parent, None);
    assert!(by_id(s, "openwebui-h-x").parent.is_none() || by_id(s, "openwebui-h-y").parent.is_none(), "a cycle is broken");
    assert_eq!(by_id(s, "openwebui-h-y").model, None);
    let n = by_id(s, "openwebui-h-n");
    assert_eq!((n.content.as_str(), n.parent.as_deref()), (format!("[A file: a file (its content is not in the Open WebUI export)]\n\n{IMAGE}").as_str(), Some("openwebui-h-q")));
    assert_eq!(by_id(s, "openwebui-h-z").content, IMAGE);
    assert_eq!(by_id(s, "openwebui-h-inf").timestamp, 0.0, "an impossible time is none");
    assert_eq!(s.messages.len(), 7);
}

#[test]
fn times_in_seconds_milliseconds_or_finer_are_read_as_milliseconds() {
    for (v, ms) in [
        (json!(1_700_000_000), 1_700_000_000_000.0),
        (json!(1_700_000_000.5), 1_700_000_000_500.0),
        (json!(1_700_000_000_000u64), 1_700_000_000_000.0),
        (json!(1_700_000_000_000_000u64), 1_700_000_000_000.0),
        (json!(1_700_000_000_000_000_000u64), 1_700_000_000_000.0),
        (json!(" 1700000000 "), 1_700_000_000_000.0),
    ] {
        assert_eq!(millis(Some(&v)), Some(ms), "{v}");
    }
    for v in [json!(0), json!(-1), json!("x"), json!(null), json!([1]), json!(1e308)] {
        assert_eq!(millis(Some(&v)), None, "{v}");
    }
}

#[test]
fn any_field_of_any_type_anywhere_panics_nothing() {
    let runs = converts_every_broken(&[sample()], convert, &|_, s| assert!(s.conversations <= 1));
    assert!(runs > 300, "{runs}");
}

#[test]
fn the_same_file_imported_twice_adds_nothing_the_second_time() {
    assert_eq!(imported_once(&[sample(), hostile()], convert), (2, 12));
}

#[test]
fn only_open_webui_files_are_open_webui() {
    assert!(detect(&sample()));
    assert!(detect(&json!({"id": "one", "chat": {"messages": []}})), "one chat");
    assert!(detect(&json!([{"id": "bad"}, {"id": "ok", "chat": {"history": {}}}])), "a bad first chat");
    assert!(!detect(&json!([{"id": "c", "mapping": {}}])), "ChatGPT");
    assert!(!detect(&json!([{"uuid": "c", "chat_messages": []}])), "Claude");
    assert!(!detect(&json!({"exportType": "sessions", "state": {}})), "LobeChat");
    assert!(!detect(&json!([{"id": "x", "chat": "text"}])));
    assert!(!detect(&json!([])));
    assert!(!detect(&json!(3)));
    assert_eq!(convert(&[json!({"format": "x"})], 5.0).1, Summary::default());
}
