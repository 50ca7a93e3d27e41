//! LobeChat files shaped as its versions wrote them, with their quirks.

use serde_json::json;

use super::*;
use crate::testing::{converts_every_broken, imported_once};
use air_store::branches;

/// What a conversation shows, in order.
fn shown(s: &ExportedSession) -> Vec<String> {
    branches::shown(s.messages.clone(), &s.session.forks).into_iter().map(|m| m.content).collect()
}

fn session<'a>(export: &'a Export, id: &str) -> &'a ExportedSession {
    export.sessions.iter().find(|s| s.session.id == id).unwrap_or_else(|| panic!("no session {id}"))
}

fn message<'a>(s: &'a ExportedSession, id: &str) -> &'a air_store::MessageRecord {
    s.messages.iter().find(|m| m.id == id).unwrap_or_else(|| panic!("no message {id}"))
}

/// Version 8 (lists): a topic with a plugin call, its result and the
/// answer; a system message; a session's messages without a topic; the
/// inbox; an orphan (its session and topic gone) with an error; a file;
/// settings with a key.
fn version_8() -> Value {
    let m = |id: &str, role: &str, content: &str, session: &str, topic: Option<&str>, at: Value| json!({"id": id, "role": role, "content": content, "sessionId": session, "topicId": topic, "createdAt": at, "updatedAt": at});
    let mut call = m("a1", "assistant", "", "s1", Some("t1"), json!(1_715_395_810_016_u64));
    call["fromModel"] = json!("gpt-4o");
    call["parentId"] = json!("u1");
    call["tools"] = json!([{"id": "call_1", "identifier": "realtime-weather", "apiName": "fetchCurrentWeather", "arguments": "{\"city\":\"杭州\"}", "type": "default"}]);
    let mut result = m("r1", "tool", "[{\"city\":\"杭州市\"}]", "s1", Some("t1"), json!(1_715_395_810_026_u64));
    result["plugin"] = json!({"identifier": "realtime-weather", "apiName": "fetchCurrentWeather", "arguments": "{\"city\":\"杭州\"}", "type": "default"});
    result["tool_call_id"] = json!("call_1");
    result["fromModel"] = json!("gpt-4o");
    let mut answer = m("a2", "assistant", "今天有中雨。", "s1", Some("t1"), json!("2024-05-11T02:50:22.125Z"));
    answer["fromModel"] = json!("gpt-4o");
    answer["reasoning"] = json!({"content": "Check the cast.", "duration": 1200});
    let mut hello = m("d2", "assistant", "Hi!", "s1", None, json!(1_715_390_001_000_u64));
    hello["fromModel"] = json!("claude-3-5-sonnet");
    hello["error"] = Value::Null;
    let mut inbox = m("i1", "user", "Just chatting", "inbox", None, json!(1_715_380_000_000_u64));
    inbox["files"] = json!(["file_1", "file_2"]);
    let mut failed = m("o2", "assistant", "", "gone", Some("lost"), json!(1_715_370_001_000_u64));
    failed["error"] = json!({"type": "InvalidProviderAPIKey", "body": {}});
    json!({"exportType": "all", "version": 8, "state": {
        "sessions": [{"id": "s1", "type": "agent", "meta": {"title": "天气助手 🌦"}, "config": {"systemRole": "", "model": "gpt-4o"}, "group": "default", "createdAt": 1_715_394_818_440_u64}],
        "sessionGroups": [],
        "topics": [{"id": "t1", "title": "杭州天气查询", "sessionId": "s1", "createdAt": "2024-05-11T02:40:35.099Z", "updatedAt": 1_715_394_838_061_u64, "favorite": false}],
        "messages": [
            m("u1", "user", "杭州天气如何？", "s1", Some("t1"), json!(1_715_394_828_164_u64)),
            call, result, answer,
            m("sys", "system", "You are a weather bot", "s1", Some("t1"), json!(1_715_394_828_000_u64)),
            m("d1", "user", "Hello 👋 مرحبا", "s1", None, json!(1_715_390_000_000_u64)),
            hello, inbox,
            m("o1", "user", "Where did my topic go?", "gone", Some("lost"), json!(1_715_370_000_000_u64)),
            failed,
        ],
        "settings": {"keyVaults": {"openai": {"apiKey": "sk-lobe-SECRET-42"}}, "languageModel": {"openai": {"enabled": true}}, "hotkey": {"search": "mod+k"}}
    }})
}

#[test]
fn a_version_8_file_becomes_its_topics_and_default_conversations() {
    let (export, summary) = convert(&[version_8()], 5.0);
    assert_eq!((summary.conversations, summary.messages), (4, 9));
    assert_eq!(summary.hidden, 1, "the system message");
    assert_eq!(summary.as_text, 4, "the call, its result, the files, the error");
    assert!(summary.skipped.is_empty(), "{:?}", summary.skipped);
    assert!(summary.keys_left_out);
    assert!(!export.to_json().contains("sk-lobe-SECRET-42"), "no key in the output");
    let ids: Vec<&str> = export.sessions.iter().map(|s| s.session.id.as_str()).collect();
    assert_eq!(ids, ["lobechat-lost", "lobechat-inbox-i1", "lobechat-s1-default", "lobechat-t1"], "oldest first");
    let titles: Vec<&str> = export.sessions.iter().map(|s| s.session.title.as_str()).collect();
    assert_eq!(titles, ["Orphan messages", "Default topic", "天气助手 🌦", "杭州天气查询"]);

    let t1 = session(&export, "lobechat-t1");
    assert_eq!(
        shown(t1),
        [
            "杭州天气如何？",
            "**Tool realtime-weather.fetchCurrentWeather** called with\n```json\n{\"city\":\"杭州\"}\n```",
            "**Tool realtime-weather.fetchCurrentWeather** returned:\n\n```json\n[{\"city\":\"杭州市\"}]\n```",
            "今天有中雨。",
        ]
    );
    assert_eq!(t1.session.created_at, 1_715_395_235_099.0, "the topic's ISO date");
    let roles: Vec<Role> = t1.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::Assistant, Role::Assistant], "results are text, never tool records");
    assert!(t1.messages.iter().all(|m| m.tool_calls.is_empty() && m.tool.is_none() && m.tool_call_id.is_none()));
    let a2 = message(t1, "lobechat-t1-a2");
    assert_eq!((a2.model.as_deref(), a2.reasoning.as_deref()), (Some("gpt-4o"), Some("Check the cast.")));
    assert_eq!(a2.timestamp, 1_715_395_822_125.0);
    assert_eq!(a2.parent.as_deref(), Some("lobechat-t1-r1"));
    let u1 = message(t1, "lobechat-t1-u1");
    assert_eq!((u1.model.as_deref(), u1.parent.as_deref(), u1.timestamp), (None, None, 1_715_394_828_164.0), "the hidden system message is no parent");

    let default = session(&export, "lobechat-s1-default");
    assert_eq!(shown(default), ["Hello 👋 مرحبا", "Hi!"]);
    assert_eq!(message(default, "lobechat-s1-default-d2").model.as_deref(), Some("claude-3-5-sonnet"));
    assert_eq!(shown(session(&export, "lobechat-inbox-i1")), ["Just chatting\n\n[2 attached file(s): not in the LobeChat export]"]);
    assert_eq!(shown(session(&export, "lobechat-lost")), ["Where did my topic go?", "[LobeChat showed an error here: InvalidProviderAPIKey]"]);
}

#[test]
fn older_files_with_maps_of_messages_and_version_1_are_read() {
    // Version 3: messages in a map keyed by id (one without `id`), a
    // `function` message holding the call and its result.
    let v3 = json!({"exportType": "sessions", "version": 3, "state": {
        "sessions": [{"id": "s2", "meta": {"title": "Crawler"}}],
        "topics": {"tp": {"id": "tp", "title": "Node packages", "sessionId": "s2", "createdAt": 1_700_065_700_000_u64}},
        "messages": {
            "m1": {"role": "user", "content": "Read this page", "sessionId": "s2", "topicId": "tp", "createdAt": 1_700_065_743_000_u64},
            "m2": {"id": "m2", "role": "function", "content": "bbbbb", "parentId": "m1", "sessionId": "s2", "topicId": "tp", "createdAt": 1_700_065_743_405_u64, "fromModel": "gpt-3.5-turbo-16k",
                   "plugin": {"apiName": "getWebsiteContent", "arguments": "{\"url\":\"https://nodejs.org\"}", "identifier": "website-crawler", "type": "default"}},
            "m3": {"id": "m3", "role": "assistant", "content": "It explains dual packages.", "sessionId": "s2", "topicId": "tp", "createdAt": 1_700_065_751_861_u64}
        }
    }});
    // Version 1: sessions in a map, each with its own chats and topics,
    // `createAt`, `extra.fromModel`, `function_call`.
    let v1 = json!({"exportType": "sessions", "version": 1, "state": {"sessions": {"06cc": {
        "id": "06cc", "meta": {"title": "Postgresql 指南"}, "config": {"systemRole": "你是一名 Postgresql 的数据库专家"},
        "topics": {"T1": {"id": "T1", "title": "启动 pgAdmin", "createAt": 1_698_463_911_747_u64}},
        "chats": {
            "c1": {"id": "c1", "role": "user", "content": "如何启动 pgadmin", "createAt": 1_698_755_749_886_u64, "topicId": "T1"},
            "c2": {"id": "c2", "role": "assistant", "content": "docker run dpage/pgadmin4", "createAt": 1_698_755_749_889_u64, "parentId": "c1", "topicId": "T1", "extra": {"fromModel": "gpt-3.5-turbo"}},
            "f1": {"id": "f1", "role": "function", "content": "abcabc", "createAt": 1_690_650_544_852_u64, "name": "websiteCrawler", "function_call": {"name": "websiteCrawler", "arguments": "{\"url\":\"x\"}"}}
        }
    }}}});
    let (export, summary) = convert(&[v3, v1], 5.0);
    assert_eq!((summary.conversations, summary.messages, summary.as_text, summary.hidden), (3, 6, 2, 0));
    assert!(!summary.keys_left_out);
    let tp = session(&export, "lobechat-tp");
    assert_eq!(tp.session.title, "Node packages");
    assert_eq!(
        shown(tp),
        ["Read this page", "**Tool website-crawler.getWebsiteContent** called with\n```json\n{\"url\":\"https://nodejs.org\"}\n```\n\nIt returned:\n\nbbbbb", "It explains dual packages.",]
    );
    assert_eq!(tp.messages[0].id, "lobechat-tp-m1", "the map's key is the id");
    assert_eq!(message(tp, "lobechat-tp-m2").model.as_deref(), Some("gpt-3.5-turbo-16k"));
    let t1 = session(&export, "lobechat-T1");
    assert_eq!((t1.session.title.as_str(), t1.session.created_at), ("启动 pgAdmin", 1_698_463_911_747.0));
    assert_eq!(shown(t1), ["如何启动 pgadmin", "docker run dpage/pgadmin4"]);
    let c2 = message(t1, "lobechat-T1-c2");
    assert_eq!((c2.model.as_deref(), c2.timestamp), (Some("gpt-3.5-turbo"), 1_698_755_749_889.0));
    let default = session(&export, "lobechat-06cc-default");
    assert_eq!(default.session.title, "Postgresql 指南");
    assert_eq!(shown(default), ["**Tool websiteCrawler** called with\n```json\n{\"url\":\"x\"}\n```\n\nIt returned:\n\nabcabc"]);
}

/// The database export: camelCase and snake_case columns, ISO dates, a
/// session named by its agent, a thread from an answer, a plugin row, a
/// file row, the inbox (no session), a vault in the user's settings.
fn database() -> Value {
    let m = |id: &str, role: &str, content: &str, topic: Option<&str>, at: &str| json!({"id": id, "role": role, "content": content, "session_id": "ss1", "topic_id": topic, "created_at": at, "updated_at": at});
    let mut answer = m("a1", "assistant", "A lifetime.", Some("tpc"), "2024-06-01T12:00:05.500+02:00");
    answer["model"] = json!("gpt-4o-mini");
    answer["reasoning"] = json!({"content": "Think about borrows", "duration": 900});
    answer["parent_id"] = json!("q1");
    let mut thread = m("t1", "user", "Explain it differently", Some("tpc"), "2024-06-01T10:05:00Z");
    thread["thread_id"] = json!("th1");
    let mut thread_answer = m("t2", "assistant", "Think of scopes.", Some("tpc"), "2024-06-01T10:05:03Z");
    thread_answer["threadId"] = json!("th1");
    thread_answer["model"] = json!("gpt-4o");
    let mut inbox = m("inb", "user", "Inbox note", None, "2024-05-31T09:00:00Z");
    inbox["session_id"] = Value::Null;
    json!({"mode": "pglite", "schemaHash": "0f3c", "data": {
        "users": [{"id": "u", "email": "me@example.com"}],
        "userSettings": [{"id": "u", "keyVaults": "v1:encrypted:abcdef", "general": {"fontSize": 14}}],
        "sessions": [{"id": "ss1", "slug": "rust", "title": null, "created_at": "2024-06-01T09:00:00Z"}],
        "agents": [{"id": "ag1", "title": "Rust tutor 🦀", "system_role": "You teach Rust"}],
        "agentsToSessions": [{"agentId": "ag1", "sessionId": "ss1"}],
        "topics": [{"id": "tpc", "title": "Lifetimes", "session_id": "ss1", "created_at": "2024-06-01 10:00:00.000+00"}],
        "threads": [{"id": "th1", "topic_id": "tpc", "source_message_id": "a1", "type": "continuation"}],
        "messages": [
            m("q1", "user", "What is 'a?", Some("tpc"), "2024-06-01T10:00:01.000Z"),
            answer, thread, thread_answer,
            m("q2", "user", "Thanks", Some("tpc"), "2024-06-01T10:06:00Z"),
            m("tool", "tool", "42", Some("tpc"), "2024-06-01T10:06:30Z"),
            m("d", "user", "Hi tutor", None, "2024-06-01T09:30:00Z"),
            inbox,
        ],
        "messagePlugins": [{"id": "tool", "tool_call_id": "c1", "api_name": "answer", "identifier": "oracle", "arguments": "{}", "type": "default"}],
        "messagesFiles": [{"fileId": "f1", "messageId": "q2"}]
    }})
}

#[test]
fn the_database_export_is_read_the_same_way_its_threads_made_branches() {
    let (export, summary) = convert(&[database()], 5.0);
    assert_eq!((summary.conversations, summary.messages, summary.as_text, summary.hidden), (3, 8, 2, 0));
    assert!(summary.keys_left_out, "the user's key vault");
    assert!(!export.to_json().contains("abcdef"));
    let titles: Vec<&str> = export.sessions.iter().map(|s| s.session.title.as_str()).collect();
    assert_eq!(titles, ["Default topic", "Rust tutor 🦀", "Lifetimes"]);
    let tpc = session(&export, "lobechat-tpc");
    assert_eq!(tpc.session.created_at, 1_717_236_000_000.0, "Postgres' `+00`");
    assert_eq!(shown(tpc), ["What is 'a?", "A lifetime.", "Thanks\n\n[1 attached file(s): not in the LobeChat export]", "**Tool oracle.answer** returned:\n\n42"], "the main list shown");
    let a1 = message(tpc, "lobechat-tpc-a1");
    assert_eq!((a1.timestamp, a1.model.as_deref(), a1.reasoning.as_deref()), (1_717_236_005_500.0, Some("gpt-4o-mini"), Some("Think about borrows")));
    assert_eq!(tpc.session.forks.get("lobechat-tpc-a1").map(|f| f.count), Some(2), "the thread is a branch after its message");
    let t1 = message(tpc, "lobechat-tpc-t1");
    assert_eq!(t1.parent.as_deref(), Some("lobechat-tpc-a1"));
    assert_eq!(message(tpc, "lobechat-tpc-t2").parent.as_deref(), Some("lobechat-tpc-t1"));
    let mut forks = tpc.session.forks.clone();
    if let Some(f) = forks.get_mut("lobechat-tpc-a1") {
        f.shown = 1 - f.shown;
    }
    let other: Vec<String> = branches::shown(tpc.messages.clone(), &forks).into_iter().map(|m| m.content).collect();
    assert_eq!(other, ["What is 'a?", "A lifetime.", "Explain it differently", "Think of scopes."]);
    assert_eq!(shown(session(&export, "lobechat-ss1-default")), ["Hi tutor"]);
}

#[test]
fn hostile_input_neither_panics_nor_loses_what_can_be_read() {
    let hostile = json!({"exportType": 5, "version": "8", "state": {
        "sessions": [{"id": null, "meta": "x"}, 7, {"id": "s\u{0}9", "meta": {"title": ["no"]}}],
        "topics": "nope",
        "messages": [
            1, null, "text",
            {"role": 5, "content": "role is a number"},
            {"role": "user", "content": {"not": "text"}},
            {"id": {"x": 1}, "role": "user", "content": "\u{0}שלום 😀 你好", "createdAt": "garbage", "sessionId": ["s"]},
            {"id": "a", "role": "assistant", "content": "A", "parentId": "b", "topicId": "cyc", "createdAt": -5},
            {"id": "b", "role": "assistant", "content": "B", "parentId": "a", "topicId": "cyc", "threadId": "th", "createdAt": 1e300},
            {"id": "a", "role": "user", "content": "same id again", "topicId": "cyc", "createdAt": "2024-13-45T99:99:99Z"},
            {"id": "t", "role": "assistant", "content": "", "tools": [null, {"arguments": {"deep": [1, {"x": "```"}]}}], "topicId": "cyc"},
            {"id": "f", "role": "tool", "content": "```oops```", "plugin": "not an object", "topicId": "cyc", "error": ""}
        ],
        "settings": {"languageModel": {"openai": {"apiKey": ""}}, "keyVaults": {}, "maxTokens": 5}
    }});
    let (export, summary) = convert(&[hostile.clone(), json!(null), json!({"state": []}), json!({"data": {"messages": "x"}, "mode": "pglite"})], 5.0);
    assert!(!summary.keys_left_out, "empty keys are no keys");
    assert_eq!(summary.hidden, 2, "a number role, content that is no text");
    assert!(summary.skipped.contains(&crate::Skipped::NotRecords { what: "messages".into(), count: 3 }), "{:?}", summary.skipped);
    assert!(summary.skipped.contains(&crate::Skipped::NotAList("topics".into())));
    assert!(summary.skipped.iter().filter(|s| s.to_string() == "a file that is not a LobeChat export").count() == 2);
    let cyc = session(&export, "lobechat-cyc");
    assert_eq!(cyc.session.title, "Orphan messages");
    let ids: Vec<&str> = cyc.messages.iter().map(|m| m.id.as_str()).collect();
    assert!(ids.contains(&"lobechat-cyc-a") && ids.iter().any(|i| i.starts_with("lobechat-cyc-a#")), "a repeated id made unique: {ids:?}");
    let tools = cyc.messages.iter().find(|m| m.content.contains("\"deep\"")).expect("the calls as text");
    assert!(tools.content.contains("````json\n{\"deep\":[1,{\"x\":\"```\"}]}\n````"), "a longer fence: {}", tools.content);
    let all: Vec<&str> = export.sessions.iter().flat_map(|s| s.messages.iter().map(|m| m.content.as_str())).collect();
    assert!(all.contains(&"שלום 😀 你好"), "{all:?}");
    assert!(all.iter().all(|c| !c.contains('\u{0}')));
    assert_eq!(summary.messages, all.len());
    // Detection and conversion of anything at all.
    for v in [json!(null), json!(1), json!("x"), json!([]), json!({}), json!({"state": 1}), json!({"data": {"messages": []}}), hostile] {
        let _ = detect(&v);
        let _ = convert(&[v], 0.0);
    }
}

#[test]
fn any_field_of_any_type_anywhere_panics_nothing() {
    let runs = converts_every_broken(&[version_8(), database()], convert, &|_, _| {});
    assert!(runs > 1000, "{runs}");
}

#[test]
fn iso_dates_are_read_by_hand() {
    assert_eq!(iso_ms("2024-05-11T02:50:22.125Z"), Some(1_715_395_822_125.0));
    assert_eq!(iso_ms("2024-05-11T10:50:22.125+08:00"), Some(1_715_395_822_125.0));
    assert_eq!(iso_ms(" 2024-05-11 02:50:22.125+00 "), Some(1_715_395_822_125.0));
    assert_eq!(iso_ms("2024-05-10T21:50:22.125-0500"), Some(1_715_395_822_125.0));
    assert!(iso_ms("2024-05-11T02:50:22.125456789Z").is_some_and(|t| (t - 1_715_395_822_125.457).abs() < 0.01));
    assert_eq!(iso_ms("2024-06-01T10:00"), Some(1_717_236_000_000.0));
    assert_eq!(iso_ms("2024-06-01"), Some(1_717_200_000_000.0));
    assert_eq!(iso_ms("2024-02-29T00:00:00Z"), Some(1_709_164_800_000.0));
    assert_eq!(iso_ms("1970-01-01T00:00:00Z"), Some(0.0));
    for bad in ["2023-02-29", "2024-13-01", "2024-05-11T24:00:00Z", "2024-05-11T02:50:22+8", "2024-05-11T02:50:22 PST", "20240511", "", "２０２４-05-11", "2024-05-1１"] {
        assert_eq!(iso_ms(bad), None, "{bad}");
    }
}

#[test]
fn the_same_file_imported_twice_adds_nothing_the_second_time() {
    assert_eq!(imported_once(&[version_8()], convert), (4, 9));
    assert_eq!(imported_once(&[database()], convert), (3, 8));
}

#[test]
fn only_lobechat_files_are_lobechat() {
    assert!(detect(&version_8()));
    assert!(detect(&database()));
    assert!(detect(&json!({"exportType": "settings", "state": {"settings": {}}, "version": 7})));
    assert!(!detect(&json!({"format": "air-agent-export", "sessions": []})));
    assert!(!detect(&json!([{"id": "c", "mapping": {}}])));
    assert!(!detect(&json!({"chat-next-web-store": {"sessions": []}})));
    assert!(!detect(&json!({"state": {"sessions": []}})), "no version, no export type");
    assert!(!detect(&json!({"data": {"messages": []}})), "no mode, no schema hash");
}

#[test]
fn a_settings_file_brings_no_conversation_and_says_its_keys_stayed_out() {
    let settings = json!({"exportType": "settings", "version": 7, "state": {"settings": {"keyVaults": {"password": "213455", "bedrock": {"secretAccessKey": "s"}}}}});
    let (export, summary) = convert(&[settings], 5.0);
    assert!(export.sessions.is_empty());
    assert_eq!(summary, Summary { keys_left_out: true, ..Summary::default() });
}
