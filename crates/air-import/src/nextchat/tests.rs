//! NextChat backups shaped as its versions wrote them, with their quirks.

use serde_json::json;

use super::*;
use crate::testing::{converts_every_broken, imported_once};
use air_store::branches;

fn shown(s: &ExportedSession) -> Vec<String> {
    branches::shown(s.messages.clone(), &s.session.forks).into_iter().map(|m| m.content).collect()
}

fn session<'a>(export: &'a Export, id: &str) -> &'a ExportedSession {
    export.sessions.iter().find(|s| s.session.id == id).unwrap_or_else(|| panic!("no session {id}"))
}

const KEY: &str = "sk-nextchat-SECRET-123";
/// 2024-05-03T14:22:05Z.
const LOCAL: f64 = 1_714_746_125_000.0;
const HOUR: f64 = 3_600_000.0;

/// A backup: a session with a mask (context, model), a memory prompt,
/// multimodal parts (a cached image, a data: image), a tool call, a
/// system message, Chinese dates written at UTC+8; an empty session; a
/// session with American dates written at UTC-4; access-control with a
/// key.
fn backup() -> Value {
    json!({
        "chat-next-web-store": {"currentSessionIndex": 0, "lastInput": "", "sessions": [
            {"id": "ns1", "topic": "Photo of a cat 🐱", "memoryPrompt": "The user asked about a cat photo.", "clearContextIndex": 2,
             "lastUpdate": LOCAL + 65_000.0 - 8.0 * HOUR + 250.0, "stat": {"tokenCount": 0},
             "mask": {"name": "Vision", "context": [{"id": "c1", "role": "system", "content": "You describe images", "date": ""}, {"id": "c2", "role": "user", "content": "Be brief", "date": ""}], "modelConfig": {"model": "gpt-4o", "max_tokens": 4000}},
             "messages": [
                {"id": "m1", "role": "user", "date": "2024/5/3 14:22:05", "content": [{"type": "text", "text": "What is this?"}, {"type": "image_url", "image_url": {"url": "/api/cache/abc.png"}}]},
                {"id": "m2", "role": "assistant", "date": "2024/5/3 14:22:09", "content": "A cat.", "model": "gpt-4o-mini", "streaming": false},
                {"id": "m3", "role": "user", "date": "2024/5/3 14:23:00", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}, {"type": "text", "text": "And this? مرحبا"}]},
                {"id": "m4", "role": "assistant", "date": "2024/5/3 14:23:05", "content": "", "tools": [{"id": "t1", "type": "function", "function": {"name": "search", "arguments": "{\"q\":\"cat\"}"}, "content": "3 results"}]},
                {"id": "m5", "role": "system", "date": "2024/5/3 14:23:06", "content": "hidden"},
                {"id": "m6", "role": "assistant", "date": "2024/5/3 14:23:10", "content": "Another cat.", "model": "gpt-4o"}
             ]},
            {"id": "ns2", "topic": "New Conversation", "memoryPrompt": "", "lastUpdate": LOCAL, "mask": {"context": [], "modelConfig": {"model": "gpt-3.5-turbo"}}, "messages": []},
            {"id": "ns3", "topic": "Meeting notes", "memoryPrompt": "", "lastUpdate": LOCAL + 4_000.0 + 4.0 * HOUR + 400.0, "mask": {"context": []},
             "messages": [
                {"id": "u", "role": "user", "date": "5/3/2024, 2:22:05 PM", "content": "Summarize"},
                {"id": "a", "role": "assistant", "date": "5/3/2024, 2:22:09 PM", "content": "Done.", "model": "claude-3-haiku", "isError": false}
             ]}
        ]},
        "access-control": {"accessCode": "", "openaiApiKey": KEY, "openaiUrl": "/api/openai", "provider": "OpenAI", "needCode": true, "hideUserApiKey": false},
        "app-config": {"modelConfig": {"model": "gpt-4o", "max_tokens": 4000}, "theme": "auto", "customModels": "", "lastUpdateTime": 1},
        "mask-store": {"masks": {}},
        "prompt-store": {"prompts": {}}
    })
}

#[test]
fn a_backup_becomes_its_conversations_without_its_keys() {
    let (export, summary) = convert(&[backup()], 5.0);
    assert_eq!((summary.conversations, summary.messages), (2, 7), "the empty session brings nothing");
    assert_eq!(summary.hidden, 4, "two context messages, the memory prompt, a system message");
    assert_eq!(summary.as_text, 3, "two images, a tool call");
    assert!(summary.skipped.is_empty(), "{:?}", summary.skipped);
    assert!(summary.keys_left_out);
    assert!(!export.to_json().contains(KEY), "the key is nowhere in the output");
    assert!(!export.to_json().contains("You describe images"), "nor the mask's context");

    let s = session(&export, "nextchat-ns1");
    assert_eq!(s.session.title, "Photo of a cat 🐱");
    assert_eq!(
        shown(s),
        [
            "What is this?\n\n[An image: it was kept in NextChat's cache, not in the backup]",
            "A cat.",
            "[An image: not carried over from NextChat]\n\nAnd this? مرحبا",
            "**Tool search** called with\n```json\n{\"q\":\"cat\"}\n```\n\nIt returned:\n```\n3 results\n```",
            "Another cat.",
        ]
    );
    let ids: Vec<&str> = s.messages.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["nextchat-ns1-m1", "nextchat-ns1-m2", "nextchat-ns1-m3", "nextchat-ns1-m4", "nextchat-ns1-m6"]);
    let parents: Vec<Option<&str>> = s.messages.iter().map(|m| m.parent.as_deref()).collect();
    assert_eq!(parents, [None, Some("nextchat-ns1-m1"), Some("nextchat-ns1-m2"), Some("nextchat-ns1-m3"), Some("nextchat-ns1-m4")], "one list, over the system message");
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::User, Role::Assistant, Role::Assistant]);
    let models: Vec<Option<&str>> = s.messages.iter().map(|m| m.model.as_deref()).collect();
    assert_eq!(models, [None, Some("gpt-4o-mini"), None, Some("gpt-4o"), Some("gpt-4o")], "the mask's model when the message names none");
    assert!(s.messages.iter().all(|m| m.tool_calls.is_empty() && m.tool.is_none()));
    let times: Vec<f64> = s.messages.iter().map(|m| m.timestamp).collect();
    let utc = LOCAL - 8.0 * HOUR;
    assert_eq!(times, [utc, utc + 4_000.0, utc + 55_000.0, utc + 60_000.0, utc + 65_000.0], "local times at UTC+8, found from lastUpdate");
    assert_eq!(s.session.created_at, utc);

    let us = session(&export, "nextchat-ns3");
    assert_eq!(us.session.title, "Meeting notes");
    assert_eq!(shown(us), ["Summarize", "Done."]);
    assert_eq!(us.messages[0].timestamp, LOCAL + 4.0 * HOUR, "American dates at UTC-4");
    assert_eq!(us.messages[1].model.as_deref(), Some("claude-3-haiku"));
}

#[test]
fn locale_dates_are_read() {
    for s in [
        "2024/5/3 14:22:05",
        "5/3/2024, 2:22:05 PM",
        "03/05/2024, 14:22:05",
        "3.5.2024, 14:22:05",
        "2024. 5. 3. 오후 2:22:05",
        "2024/5/3 下午2:22:05",
        "2024/5/3 午後2:22:05",
        "٣\u{200f}/٥\u{200f}/٢٠٢٤، ٢:٢٢:٠٥ م",
        "3/5/2024, 2:22:05 pm",
        "2024-05-03T14:22:05.000Z",
        "  2024/05/03 14:22:05  ",
    ] {
        assert_eq!(local_ms(s), Some(LOCAL), "{s}");
    }
    let day = 24.0 * HOUR;
    assert_eq!(local_ms("13/5/2024, 14:22:05"), Some(LOCAL + 10.0 * day), "13 cannot be a month");
    assert_eq!(local_ms("5/13/2024, 14:22:05"), Some(LOCAL + 10.0 * day), "nor here");
    assert_eq!(local_ms("5/3/2024, 12:05:00 AM"), Some(LOCAL - 14.0 * HOUR - 17.0 * 60_000.0 - 5_000.0), "midnight");
    assert_eq!(local_ms("2024/5/3 14:22"), Some(LOCAL - 5_000.0), "no seconds");
    for bad in ["", "garbage", "14:22:05", "2024/5/3", "2567/5/3 14:22:05", "1403/2/14 14:22:05", "2024/2/30 10:00:00", "99999999999/1/1 1:1:1", "5/3/24, 2:22 PM"] {
        assert_eq!(local_ms(bad), None, "{bad}");
    }
}

#[test]
fn old_backups_with_missing_or_repeated_ids_strings_and_bad_sessions() {
    let chats = json!({"state": {"sessions": [
        {"id": 1_680_000_000_000_u64, "topic": "Old chat", "lastUpdate": 1_680_000_000_000_u64, "messages": [
            {"role": "user", "content": "first", "date": "garbage"},
            {"id": 7, "role": "assistant", "content": "second", "date": ""},
            {"id": 7, "role": "user", "content": "third \u{0}", "date": "nope"},
            {"role": "assistant", "content": "fourth"}
        ]},
        "not a session",
        {"id": "x", "topic": "Broken", "messages": "oops"},
        {"topic": "No id", "messages": [{"role": "user", "content": "hi", "date": "2024/5/3 14:22:05"}]}
    ]}, "version": 3.1});
    let file = json!({
        "chat-next-web-store": chats.to_string(),
        "access-control": json!({"state": {"openaiApiKey": "", "accessCode": "", "token": ""}}).to_string(),
        "app-config": {"customModels": "", "modelConfig": {"max_tokens": 4000}}
    });
    let (export, summary) = convert(&[file], 5.0);
    assert!(!summary.keys_left_out, "empty keys are no keys");
    assert_eq!(summary.skipped, [crate::Skipped::NotAnObject(2), crate::Skipped::NoMessages { title: "Broken".into(), field: "messages" }]);
    assert_eq!((summary.conversations, summary.messages), (2, 5));
    let old = session(&export, "nextchat-1680000000000");
    assert_eq!(old.session.title, "Old chat");
    let got: Vec<(&str, &str, Option<&str>, f64)> = old.messages.iter().map(|m| (m.id.as_str(), m.content.as_str(), m.parent.as_deref(), m.timestamp)).collect();
    let t = 1_680_000_000_000.0;
    assert_eq!(
        got,
        [
            ("nextchat-1680000000000-#0", "first", None, t),
            ("nextchat-1680000000000-7", "second", Some("nextchat-1680000000000-#0"), t),
            ("nextchat-1680000000000-7#2", "third ", Some("nextchat-1680000000000-7"), t),
            ("nextchat-1680000000000-#3", "fourth", Some("nextchat-1680000000000-7#2"), t),
        ],
        "order kept, unread dates are lastUpdate"
    );
    let no_id = session(&export, "nextchat-#3");
    assert_eq!(no_id.messages[0].timestamp, LOCAL, "no lastUpdate: the date as written");
}

#[test]
fn hostile_input_neither_panics_nor_loses_what_can_be_read() {
    let hostile = json!({"chat-next-web-store": {"sessions": [null, 5, {
        "id": {}, "topic": 5, "mask": "x", "memoryPrompt": 5, "lastUpdate": "x", "clearContextIndex": -1,
        "messages": [
            null, 1, {"role": ["user"]},
            {"role": "user", "date": 5, "content": [null, 5, {"type": 7}, {"type": "text", "text": 5}, {"type": "image_url"}, {"type": "text", "text": "שלום 😀 你好\u{0}"}]},
            {"id": "a", "role": "assistant", "content": "ok", "model": 5, "tools": [null, {"function": {"arguments": {"a": "```"}}}, {"isError": true, "errorMsg": 3}]},
            {"id": "a", "role": "assistant", "content": {"x": 1}, "date": "2024/5/3 25:61:61"},
        ]}]},
        "access-control": [1, {"nested": {"azureApiKey": "k"}}], "app-config": null, "mask-store": {"apiKey": "not a setting"}});
    let (export, summary) = convert(&[hostile.clone(), json!(null), json!({"chat-next-web-store": 5})], 5.0);
    assert!(summary.keys_left_out, "a key found anywhere in the settings");
    let said: Vec<String> = summary.skipped.iter().map(ToString::to_string).collect();
    assert_eq!(said, ["conversation 1: not an object", "conversation 2: not an object", "a file that is not a NextChat backup", "chat-next-web-store: no sessions"]);
    assert_eq!(summary.hidden, 4, "three unreadable messages, one with no text");
    let s = session(&export, "nextchat-#2");
    let texts = shown(s);
    assert_eq!(texts.len(), 2);
    assert!(texts[0].ends_with("[An image: it was kept in NextChat's cache, not in the backup]\n\nשלום 😀 你好"), "{}", texts[0]);
    assert!(texts[1].contains("````json\n{\"a\":\"```\"}\n````") && texts[1].contains("It failed: "), "{}", texts[1]);
    assert_eq!(s.messages[1].model, None, "a model that is no text");
    assert!(s.messages.iter().all(|m| !m.content.contains('\u{0}') && m.timestamp == 0.0));
    for v in [json!(null), json!([]), json!({}), json!({"chat-next-web-store": "{"}), json!({"chat-next-web-store": {"sessions": {}}}), hostile] {
        let _ = detect(&v);
        let _ = convert(&[v], 0.0);
    }
}

#[test]
fn any_field_of_any_type_anywhere_panics_nothing() {
    let runs = converts_every_broken(&[backup()], convert, &|e, _| assert!(!e.to_json().contains(KEY)));
    assert!(runs > 500, "{runs}");
}

#[test]
fn the_same_file_imported_twice_adds_nothing_the_second_time() {
    assert_eq!(imported_once(&[backup()], convert), (2, 7));
}

#[test]
fn only_nextchat_backups_are_nextchat() {
    assert!(detect(&backup()));
    assert!(detect(&json!({"chat-next-web-store": "{\"state\":{}}"})));
    assert!(!detect(&json!({"access-control": {}})));
    assert!(!detect(&json!({"exportType": "all", "state": {"sessions": []}, "version": 8})));
    assert!(!detect(&json!([{"id": "c", "mapping": {}}])));
    assert!(!detect(&json!({"chat-next-web-store": 5})));
}
