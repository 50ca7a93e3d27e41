//! Conversations shaped as Claude.ai exports them, with their quirks.

use serde_json::json;

use super::*;
use crate::testing::{Importer, converts_every_broken, imported_once};
use air_store::MessageRecord;
use air_store::branches;
use air_store::records::ToolStatus;

fn msg(uuid: &str, sender: &str, parent: &str, at: &str, content: Value) -> Value {
    json!({"uuid": uuid, "text": "", "content": content, "sender": sender, "created_at": at, "updated_at": at, "attachments": [], "files": [], "parent_message_uuid": parent})
}

fn text(t: &str) -> Value {
    json!({"start_timestamp": null, "stop_timestamp": null, "type": "text", "text": t, "citations": []})
}

/// A question with an attachment and a file; an answer with thinking
/// (its `text` a placeholder); a question only in `text`; an answer with
/// an MCP tool that failed and an artifact; then, newest, the first
/// answer retried: thinking only summarised, a web search and its
/// result, text split where a citation is.
fn sample() -> Value {
    let mut q1 = msg("q1", "human", ROOT, "2024-05-01T10:00:01.500000Z", json!([text("Weather in Lyon?")]));
    q1["attachments"] = json!([{"file_name": "trip.txt", "file_size": 12, "file_type": "text/plain", "extracted_content": "Lyon, 3 days"}]);
    q1["files"] = json!([{"file_uuid": "f1", "file_name": "map.png"}]);
    let mut a1 = msg(
        "a1",
        "assistant",
        "q1",
        "2024-05-01T10:00:05Z",
        json!([{"type": "thinking", "thinking": "User wants weather.", "summaries": [{"summary": "Thinking about weather"}], "cut_off": false}, text("I can't browse.")]),
    );
    a1["text"] = json!("```\nThis block is not supported on your current device yet.\n```\n\nI can't browse.");
    let mut q2 = msg("q2", "human", "a1", "2024-05-01T10:00:10Z", json!([]));
    q2["text"] = json!("Please search");
    let a2 = msg(
        "a2",
        "assistant",
        "q2",
        "2024-05-01T10:00:12Z",
        json!([
            text("Searching."),
            {"type": "tool_use", "id": "toolu_2", "name": "lookup", "input": {"city": "Lyon"}, "message": "Looking up", "integration_name": "Cities", "mcp_server_url": "https://mcp.example/mcp"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "timeout", "uuid": "r2"}], "is_error": true},
            {"type": "tool_use", "id": "toolu_3", "name": "artifacts", "input": {"id": "x", "language": "python", "content": "print(1)\nprint(2)"}, "mcp_server_url": null},
        ]),
    );
    let a1b = msg(
        "a1b",
        "assistant",
        "q1",
        "2024-05-01T12:30:00+02:00",
        json!([
            {"type": "thinking", "thinking": "", "summaries": [{"summary": "Planning a search"}]},
            {"type": "tool_use", "id": "toolu_1", "name": "web_search", "input": {"query": "Lyon weather"}, "message": "Searching the web", "display_content": {"type": "text", "text": "Searching"}},
            {"type": "tool_result", "tool_use_id": "toolu_1", "name": "web_search", "content": [{"type": "knowledge", "title": "Météo Lyon", "url": "https://meteo.example/lyon", "text": "Sunny, 24°C", "is_missing": false}], "is_error": false},
            text("It is "),
            {"type": "text", "text": "sunny", "citations": [{"uuid": "c", "start_index": 0, "end_index": 5, "details": {"type": "web_search_citation", "url": "https://meteo.example/lyon"}}]},
            text(" today."),
        ]),
    );
    json!([{"uuid": "c1", "name": "Weather in Lyon", "summary": "", "created_at": "2024-05-01T10:00:00.123456Z", "updated_at": "2024-05-01T10:30:00Z", "account": {"uuid": "acc"}, "chat_messages": [q1, a1, q2, a2, a1b]}])
}

fn shown(s: &ExportedSession) -> Vec<MessageRecord> {
    branches::shown(s.messages.clone(), &s.session.forks)
}

fn by_id<'a>(s: &'a ExportedSession, id: &str) -> &'a MessageRecord {
    s.messages.iter().find(|m| m.id == id).unwrap_or_else(|| panic!("{id} kept"))
}

#[test]
fn a_conversation_becomes_branches_with_the_newest_shown() {
    let (export, summary) = convert(&[sample()], 5.0);
    assert_eq!((summary.conversations, summary.messages, summary.hidden), (1, 7, 0), "the answer that called an MCP tool in three");
    assert_eq!(summary.as_text, 4, "a file, two calls of tools not MCP's, a result");
    assert!(summary.skipped.is_empty() && !summary.keys_left_out);
    let s = &export.sessions[0];
    assert_eq!((s.session.id.as_str(), s.session.title.as_str()), ("claude-c1", "Weather in Lyon"));
    assert!((s.session.created_at - 1_714_557_600_123.456).abs() < 0.01, "{}", s.session.created_at);
    let on_screen: Vec<(Role, String)> = shown(s).into_iter().map(|m| (m.role, m.content)).collect();
    assert_eq!(on_screen, [
        (Role::User, "Weather in Lyon?\n\n[A file: map.png (its bytes are not in the Claude export)]".to_owned()),
        (Role::Assistant, "**Tool call: web_search**\n\n```json\n{\n  \"query\": \"Lyon weather\"\n}\n```\n\n**Tool result: web_search**\n\n```\nMétéo Lyon <https://meteo.example/lyon>\n```\n\nIt is sunny today.".to_owned()),
    ]);
    let a1b = by_id(s, "claude-c1-a1b");
    assert_eq!((a1b.reasoning.as_deref(), a1b.model.as_deref()), (Some("Planning a search"), None), "no model in Claude's file");
    assert_eq!(a1b.timestamp, 1_714_559_400_000.0, "12:30 at +02:00");
    assert!(a1b.tool_calls.is_empty() && a1b.tool.is_none(), "nothing runnable");
    assert_eq!(s.session.forks.get("claude-c1-q1").map(|f| (f.count, f.shown)), Some((2, 1)));
    let a1 = by_id(s, "claude-c1-a1");
    assert_eq!((a1.content.as_str(), a1.reasoning.as_deref(), a1.parent.as_deref()), ("I can't browse.", Some("User wants weather."), Some("claude-c1-q1")), "blocks over the placeholder text");
    let q1 = by_id(s, "claude-c1-q1");
    assert_eq!((q1.parent.as_deref(), q1.timestamp, q1.reasoning.as_deref()), (None, 1_714_557_601_500.0, None));
    assert_eq!(by_id(s, "claude-c1-q2").content, "Please search", "read from `text` when the blocks have none");
    assert_eq!(by_id(s, "claude-c1-a2").content, "**Tool call: artifacts**\n\n```json\n{\n  \"id\": \"x\",\n  \"language\": \"python\"\n}\n```\n\ncontent:\n```python\nprint(1)\nprint(2)\n```");
}

#[test]
fn the_older_branch_is_shown_when_its_end_is_the_newest_message() {
    let mut v = sample();
    v[0]["chat_messages"][4]["created_at"] = json!("2024-05-01T08:00:00Z");
    let (export, _) = convert(&[v], 5.0);
    let ids: Vec<String> = shown(&export.sessions[0]).into_iter().map(|m| m.id).collect();
    assert_eq!(ids, ["claude-c1-q1", "claude-c1-a1", "claude-c1-q2", "claude-c1-a2~0", "claude-c1-a2~1", "claude-c1-a2"]);
}

#[test]
fn an_mcp_tools_call_and_result_become_a_call_and_its_card_naming_the_server() {
    let (export, summary) = convert(&[sample()], 5.0);
    let s = &export.sessions[0];
    let call = by_id(s, "claude-c1-a2~0");
    assert_eq!((call.role, call.content.as_str(), call.parent.as_deref()), (Role::Assistant, "Searching.", Some("claude-c1-q2")));
    let called: Vec<(&str, &str, &str)> = call.tool_calls.iter().map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str())).collect();
    assert_eq!(called, [("toolu_2", "lookup", r#"{"city":"Lyon"}"#)]);
    let result = by_id(s, "claude-c1-a2~1");
    assert_eq!((result.role, result.content.as_str(), result.tool_call_id.as_deref(), result.parent.as_deref()), (Role::Tool, "timeout", Some("toolu_2"), Some("claude-c1-a2~0")));
    let run = result.tool.as_ref().unwrap_or_else(|| panic!("a card"));
    assert_eq!((run.name.as_str(), run.server.as_deref(), run.status, run.imported), ("lookup", Some("Cities"), ToolStatus::Error, true));
    assert_eq!(run.output, [air_store::records::ToolRun::new("", None, "", ToolStatus::Done).with_text("timeout").output].concat());
    assert_eq!(by_id(s, "claude-c1-a2").parent.as_deref(), Some("claude-c1-a2~1"), "the rest of the answer after the result");
    assert!(summary.as_text > 0 && !by_id(s, "claude-c1-a2").content.contains("lookup"));
    // Without a result, it came unfinished: answered so, naming its
    // server by its address when it has no integration's name.
    let mut v = sample();
    v[0]["chat_messages"][3]["content"] = json!([{"type": "tool_use", "id": "toolu_9", "name": "find", "input": null, "mcp_server_url": "https://mcp.example/mcp"}, text("Waiting.")]);
    let (export, _) = convert(&[v], 5.0);
    let s = &export.sessions[0];
    let answer = by_id(s, "claude-c1-a2~0");
    assert_eq!((answer.content.as_str(), answer.tool_calls.len()), ("Waiting.", 1));
    let open = by_id(s, "claude-c1-a2");
    let run = open.tool.as_ref().unwrap_or_else(|| panic!("a card"));
    assert_eq!((open.tool_call_id.as_deref(), run.server.as_deref(), run.status, run.arguments.as_str()), (Some("toolu_9"), Some("https://mcp.example/mcp"), ToolStatus::Interrupted, "{}"));
    assert_eq!(open.content, air_store::import::INTERRUPTED);
}

#[test]
fn an_attachments_text_becomes_a_file_of_the_message() {
    let (export, _) = convert(&[sample()], 5.0);
    let s = &export.sessions[0];
    let q1 = by_id(s, "claude-c1-q1");
    assert_eq!(q1.attachments, [air_store::Attachment { id: "claude-c1-q1-file-0".into(), name: "trip.txt".into(), mime: "text/plain".into(), size: 12 }]);
    assert!(!q1.content.contains("Lyon, 3 days") && !q1.content.contains("Attached"), "{}", q1.content);
    assert_eq!(s.files, [air_store::export::ExportedFile { id: "claude-c1-q1-file-0".into(), mime: "text/plain".into(), data: b"Lyon, 3 days".to_vec() }]);
    let mut store = Importer::default();
    assert_eq!(store.import(&export), (1, 7));
    let stored = pollster::block_on(air_store::Store::get_file(store.store(), "claude-c1-q1-file-0")).ok().flatten().map(|f| f.bytes);
    assert_eq!(stored.as_deref(), Some(&b"Lyon, 3 days"[..]), "its text stored as the file");
}

#[test]
fn without_dates_the_last_message_in_the_file_ends_the_branch_shown() {
    let mut v = sample();
    for m in v[0]["chat_messages"].as_array_mut().into_iter().flatten() {
        m["created_at"] = Value::Null;
    }
    v[0]["created_at"] = json!("yesterday");
    let (export, _) = convert(&[v.clone()], 5.0);
    let ids: Vec<String> = shown(&export.sessions[0]).into_iter().map(|m| m.id).collect();
    assert_eq!(ids, ["claude-c1-q1", "claude-c1-a1b"]);
    assert!(export.sessions[0].messages.iter().all(|m| m.timestamp == 0.0));
    v[0]["chat_messages"].as_array_mut().into_iter().for_each(|l| l.swap(3, 4));
    let (export, _) = convert(&[v], 5.0);
    let ids: Vec<String> = shown(&export.sessions[0]).into_iter().map(|m| m.id).collect();
    assert_eq!(ids, ["claude-c1-q1", "claude-c1-a1", "claude-c1-q2", "claude-c1-a2~0", "claude-c1-a2~1", "claude-c1-a2"]);
}

#[test]
fn messages_without_parents_follow_each_other_as_older_exports_did() {
    let v = json!([{"uuid": "old", "name": "Old", "created_at": "2023-01-01T00:00:00Z", "chat_messages": [
        {"uuid": "m1", "text": "Hi", "sender": "human", "created_at": "2023-01-01T00:00:01Z"},
        {"uuid": "m2", "text": "Hello", "sender": "assistant", "created_at": "2023-01-01T00:00:02Z"},
        {"uuid": "m3", "text": "Bye", "sender": "human", "created_at": "2023-01-01T00:00:03Z"}
    ]}]);
    let (export, summary) = convert(&[v], 5.0);
    assert_eq!(summary.messages, 3);
    let parents: Vec<Option<String>> = export.sessions[0].messages.iter().map(|m| m.parent.clone()).collect();
    assert_eq!(parents, [None, Some("claude-old-m1".to_owned()), Some("claude-old-m2".to_owned())]);
    assert!(export.sessions[0].session.forks.is_empty());
}

/// Wrong types everywhere, missing fields, a message its own parent, a
/// cycle, a uuid used twice, NUL, right-to-left text, CJK and emoji.
fn hostile() -> Value {
    json!([
        {"uuid": "c2", "name": 42, "created_at": "not a date", "chat_messages": [
            {"uuid": "h1", "sender": "human", "text": "مرحبا \u{0}你好 😀", "parent_message_uuid": 7, "attachments": "none", "files": [3, {"file_name": 9}]},
            {"uuid": "h2", "sender": "assistant", "content": "not blocks", "text": 5},
            {"uuid": "h3", "sender": "assistant", "content": [1, null, {"type": 3}, {"type": "tool_use"}, {"type": "tool_result", "content": {"odd": true}}, {"type": "thinking"}], "parent_message_uuid": "h2", "created_at": 17},
            {"uuid": "self", "sender": "human", "text": "me", "parent_message_uuid": "self"},
            {"uuid": "x1", "sender": "human", "text": "loop a", "parent_message_uuid": "x2"},
            {"uuid": "x2", "sender": "assistant", "text": "loop b", "parent_message_uuid": "x1"},
            {"uuid": "h1", "sender": "human", "text": "same uuid", "parent_message_uuid": "h1", "created_at": "2024-13-01T00:00:00Z"},
            "a message that is a string",
            {"sender": "system", "text": "You are Claude"},
            {"sender": "human", "content": [{"type": "image", "source": "x"}], "attachments": [{"file_name": "a.pdf", "extracted_content": null}]}
        ]},
        {"name": "No id here", "chat_messages": []},
        {"uuid": "c4", "name": "Broken", "chat_messages": "nope"},
        {"uuid": "c5", "name": "Empty", "chat_messages": []},
        "a conversation that is a string",
        null
    ])
}

#[test]
fn hostile_input_is_read_without_panicking_and_a_bad_conversation_is_skipped_alone() {
    let (export, summary) = convert(&[sample(), hostile(), sample()], 5.0);
    assert_eq!(summary.conversations, 2, "the conversation in two files counts once");
    assert_eq!(export.sessions.len(), 2);
    use crate::Skipped::{NoId, NoMessages};
    let no_id = |title: &str| NoId { title: title.into(), field: "uuid" };
    assert_eq!(summary.skipped, [no_id("No id here"), NoMessages { title: "Broken".into(), field: "chat_messages" }, no_id(""), no_id("")]);
    assert_eq!(summary.hidden, 3, "the empty answer, the string, the system prompt");
    assert_eq!(summary.as_text, 4 + 6, "the sample once; then a file, four blocks, an attachment");
    let s = &export.sessions[1];
    assert_eq!(s.session.title, "مرحبا 你好 😀", "titled from its first question's text, NUL taken out");
    assert!(s.messages.iter().all(|m| !m.content.contains('\u{0}')));
    assert_eq!(by_id(s, "claude-c2-h1").content, "مرحبا 你好 😀\n\n[A file: a file (its bytes are not in the Claude export)]");
    let h3 = by_id(s, "claude-c2-h3");
    assert_eq!(h3.parent.as_deref(), Some("claude-c2-h1"), "over the empty answer");
    assert_eq!(h3.content, "[a block: not carried over from Claude]\n\n**Tool call: a tool**\n\n**Tool result: a tool**\n\n```\n{\n  \"odd\": true\n}\n```");
    assert_eq!(by_id(s, "claude-c2-self").parent, None);
    assert_eq!(by_id(s, "claude-c2-h1#6").content, "same uuid");
    assert_eq!(by_id(s, "claude-c2-h1#6").parent.as_deref(), Some("claude-c2-h1"));
    let loop_a = by_id(s, "claude-c2-x1");
    assert!(loop_a.parent.is_none() || by_id(s, "claude-c2-x2").parent.is_none(), "a cycle is broken");
    assert_eq!(by_id(s, "claude-c2-message-9").content, "[image: not carried over from Claude]\n\n[Attached: a.pdf (its content is not in the Claude export)]");
    assert_eq!(s.messages.len(), 7);
}

#[test]
fn iso_dates_are_read_by_hand() {
    assert_eq!(iso_ms("2023-11-14T22:13:20Z"), 1_700_000_000_000.0);
    assert_eq!(iso_ms("2023-11-14T22:13:20.250000Z"), 1_700_000_000_250.0);
    assert_eq!(iso_ms("2023-11-15T00:13:20+02:00"), 1_700_000_000_000.0);
    assert_eq!(iso_ms("2023-11-14T17:13:20-0500"), 1_700_000_000_000.0);
    assert_eq!(iso_ms("2023-11-14T23:13:20+01"), 1_700_000_000_000.0);
    assert_eq!(iso_ms("2023-11-14 22:13:20"), 1_700_000_000_000.0, "no offset: UTC");
    assert_eq!(iso_ms("2023-11-14T22:13Z"), 1_699_999_980_000.0);
    assert_eq!(iso_ms(" 2024-02-29 "), 1_709_164_800_000.0);
    assert_eq!(iso_ms("2000-03-01T00:00:00Z"), 951_868_800_000.0);
    for bad in [
        "",
        "2023",
        "2023-02-29T00:00:00Z",
        "2024-13-01",
        "2024-00-10",
        "2024-01-01T24:00:00Z",
        "2024-01-01T10:00:00.Z",
        "2024-01-01T10:00:00Zjunk",
        "2024-01-01T10:00:00+25:00",
        "1969-12-31T00:00:00Z",
        "２０２４-01-01",
        "2024-01-01T1٠:00:00Z",
    ] {
        assert_eq!(iso_ms(bad), 0.0, "{bad}");
    }
}

#[test]
fn any_field_of_any_type_anywhere_panics_nothing() {
    let runs = converts_every_broken(&[sample()], convert, &|_, s| assert!(s.conversations <= 1));
    assert!(runs > 300, "{runs}");
}

#[test]
fn the_same_file_imported_twice_adds_nothing_the_second_time() {
    assert_eq!(imported_once(&[sample(), hostile()], convert), (2, 14));
}

#[test]
fn only_claude_files_are_claude() {
    assert!(detect(&sample()));
    assert!(detect(&json!({"uuid": "one", "chat_messages": []})), "one conversation");
    assert!(detect(&json!([{"uuid": "broken"}, {"uuid": "ok", "chat_messages": []}])), "a bad first conversation");
    assert!(!detect(&json!([{"id": "c", "mapping": {}}])), "ChatGPT");
    assert!(!detect(&json!([{"id": "c", "chat": {"history": {"messages": {}}}}])), "Open WebUI");
    assert!(!detect(&json!({"format": "air-agent-export"})));
    assert!(!detect(&json!([])));
    assert!(!detect(&json!("text")));
    assert_eq!(convert(&[json!({"format": "x"})], 5.0).1, Summary::default());
}
