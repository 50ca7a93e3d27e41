use super::*;
use crate::export::{Export, collect};
use crate::{MemoryStore, SessionRecord};
use air_chat::ToolCall;

fn run<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

fn ids() -> impl FnMut() -> String {
    let mut n = 0;
    move || {
        n += 1;
        format!("new-{n}")
    }
}

/// Session `s` whose question `q` has two alternatives, `shown` on screen.
fn forked(shown: u32) -> SessionRecord {
    let mut s = SessionRecord::new("s", 1.0);
    s.forks.insert("q".into(), crate::branches::Fork { count: 2, shown });
    s
}

/// Message `id` of session `s`, on alternative `alt` after `q`.
fn after_q(id: &str, seq: f64, alt: u32, role: Role, text: &str) -> MessageRecord {
    let mut m = MessageRecord::new(id, "s", seq, role, text);
    m.branch = vec![crate::branches::Step { fork: "q".into(), alt }];
    m
}

/// An export whose last answer asks for two tools: one waiting for
/// approval, one with no result at all.
fn hostile() -> Export {
    let json = serde_json::json!({
        "format": "air-agent-export", "version": 2, "exportedAt": 0,
        "sessions": [{"id": "s1", "title": "Looks harmless", "createdAt": 0, "updatedAt": 0, "messages": [
            {"id": "u1", "sessionId": "s1", "seq": 1, "role": "user", "content": "hi", "timestamp": 1},
            {"id": "a1", "sessionId": "s1", "seq": 2, "role": "assistant", "content": "", "timestamp": 2,
             "toolCalls": [{"id": "c1", "name": "mcp_files_delete", "arguments": "{\"path\":\"/\"}"}, {"id": "c2", "name": "mcp_mail_send", "arguments": "{}"}]},
            {"id": "t1", "sessionId": "s1", "seq": 3, "role": "tool", "content": "", "timestamp": 3, "toolCallId": "c1", "name": "mcp_files_delete",
             "tool": {"name": "mcp_files_delete", "arguments": "{\"path\":\"/\"}", "status": "awaitingApproval"}}
        ]}]
    });
    Export::parse(&json.to_string()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn unfinished_calls_come_in_finished_and_marked() {
    run(async {
        let store = MemoryStore::new();
        assert_eq!(import(&store, &hostile(), &mut ids()).await, Ok((1, 4)));
        let messages = store.messages("s1").await.unwrap_or_default();
        let mut tools: Vec<_> = messages.iter().filter_map(|m| m.tool.as_ref().map(|t| (m.tool_call_id.clone(), t.status, t.imported))).collect();
        tools.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(tools, [(Some("c1".into()), ToolStatus::Interrupted, true), (Some("c2".into()), ToolStatus::Interrupted, true)], "the waiting call and the one with no result are both interrupted");
        assert!(messages.iter().filter(|m| m.role == Role::Tool).all(|m| m.content == INTERRUPTED));
        assert!(messages.windows(2).all(|w| w[0].seq < w[1].seq), "the added result sits after its answer");
        let added = messages.iter().find(|m| m.id == "a1-interrupted-0").map(|m| m.seq);
        assert!(added.is_some_and(|seq| seq > 2.0 && seq < 3.0), "{added:?}");
    });
}

#[test]
fn an_import_never_replaces_what_is_there() {
    run(async {
        let store = MemoryStore::new();
        // The user's own conversation, under ids the file also uses.
        let mut mine = SessionRecord::new("s1", 5.0);
        mine.rename("Mine", 5.0);
        store.put_session(&mine).await.ok();
        store.put_message(&MessageRecord::new("u1", "s1", 1.0, Role::User, "my own words")).await.ok();
        assert_eq!(import(&store, &hostile(), &mut ids()).await, Ok((1, 4)));
        assert_eq!(store.get_session("s1").await.ok().flatten().map(|s| s.title), Some("Mine".into()));
        assert_eq!(store.get_message("u1").await.ok().flatten().map(|m| m.content), Some("my own words".into()));
        // The file's conversation is a copy with ids of its own.
        let copy = store.get_session("new-5").await.ok().flatten();
        assert_eq!(copy.map(|s| s.title), Some("Looks harmless".into()));
        let copied = store.messages("new-5").await.unwrap_or_default();
        assert_eq!(copied.len(), 4);
        assert!(copied.iter().all(|m| m.id.starts_with("new-") && m.session_id == "new-5"), "{copied:?}");
    });
}

#[test]
fn importing_the_same_file_twice_keeps_one_copy() {
    run(async {
        let store = MemoryStore::new();
        assert_eq!(import(&store, &hostile(), &mut ids()).await, Ok((1, 4)));
        let before = collect(&store, None).await.unwrap_or_default();
        assert_eq!(import(&store, &hostile(), &mut ids()).await, Ok((0, 0)), "already here as it is: nothing written");
        assert_eq!(collect(&store, None).await.unwrap_or_default(), before);
    });
}

#[test]
fn a_copy_keeps_its_branches_and_files_together() {
    run(async {
        let store = MemoryStore::new();
        let s = forked(1);
        let mut q = MessageRecord::new("q", "s", 1.0, Role::User, "question");
        q.attachments = vec![crate::Attachment { id: "f".into(), name: "a.png".into(), mime: "image/png".into(), size: 1 }];
        let a0 = after_q("a0", 2.0, 0, Role::Assistant, "first");
        let a1 = after_q("a1", 3.0, 1, Role::Assistant, "second");
        let doc = Export::new(
            vec![crate::export::ExportedSession {
                session: s.clone(),
                messages: vec![q, a0, a1],
                files: vec![crate::export::ExportedFile { id: "f".into(), mime: "image/png".into(), data: vec![1] }],
            }],
            0.0,
        );
        // Something else already holds the session's id.
        store.put_session(&SessionRecord::new("s", 9.0)).await.ok();
        assert_eq!(import(&store, &doc, &mut ids()).await, Ok((1, 3)));
        let copy = store.list_sessions().await.unwrap_or_default().into_iter().find(|x| x.id != "s").unwrap_or_else(|| panic!("no copy"));
        let messages = store.messages(&copy.id).await.unwrap_or_default();
        let q = &messages[0];
        assert_eq!(copy.forks.keys().collect::<Vec<_>>(), [&q.id], "the fork follows its message");
        assert!(messages[1..].iter().all(|m| m.branch[0].fork == q.id));
        assert_eq!(store.get_file(&q.attachments[0].id).await.ok().flatten().map(|f| f.bytes), Some(vec![1]), "the file follows its message");
        let _ = ToolCall { id: String::new(), name: String::new(), arguments: String::new(), extra: None };
    });
}

#[test]
fn the_files_references_stay_inside_it() {
    run(async {
        let store = MemoryStore::new();
        // A file of the user's own conversation.
        store.put_session(&SessionRecord::new("mine", 1.0)).await.ok();
        store.put_file(&FileRecord { id: "secret".into(), session_id: "mine".into(), mime: "text/plain".into(), bytes: b"keys".to_vec() }).await.ok();
        let mut first = MessageRecord::new("m", "s", 1.0, Role::User, "first");
        first.attachments = vec![crate::Attachment { id: "secret".into(), name: "a.txt".into(), mime: "text/plain".into(), size: 4 }];
        let second = MessageRecord::new("m", "s", 2.0, Role::User, "second, same id");
        let doc = Export::new(vec![crate::export::ExportedSession { session: SessionRecord::new("s", 1.0), messages: vec![first, second], files: vec![] }], 0.0);
        assert_eq!(import(&store, &doc, &mut ids()).await, Ok((1, 2)));
        let messages = store.messages("s").await.unwrap_or_default();
        let texts: Vec<(&str, &str)> = messages.iter().map(|m| (m.id.as_str(), m.content.as_str())).collect();
        assert_eq!(texts, [("m", "first"), ("new-1", "second, same id")], "both kept, the second under a new id");
        let named = &messages[0].attachments[0].id;
        assert_eq!(named, "missing:secret", "not the user's file");
        assert_eq!(store.get_file(named).await.ok().flatten(), None);
        // Importing it again changes nothing.
        assert_eq!(import(&store, &doc, &mut ids()).await.map(|(s, _)| s), Ok(0));
    });
}

#[test]
fn a_result_on_another_branch_does_not_answer_a_call() {
    run(async {
        let store = MemoryStore::new();
        let s = forked(0);
        let q = MessageRecord::new("q", "s", 1.0, Role::User, "question");
        let mut a0 = after_q("a0", 2.0, 0, Role::Assistant, "");
        a0.tool_calls = vec![ToolCall { id: "c1".into(), name: "mcp_files_delete".into(), arguments: "{}".into(), extra: None }];
        // Its only result sits on the other branch, done.
        let mut r = after_q("r", 3.0, 1, Role::Tool, "deleted");
        r.tool_call_id = Some("c1".into());
        r.tool = Some(ToolRun::new("mcp_files_delete", None, "{}", ToolStatus::Done));
        let doc = Export::new(vec![crate::export::ExportedSession { session: s, messages: vec![q, a0, r], files: vec![] }], 0.0);
        assert_eq!(import(&store, &doc, &mut ids()).await, Ok((1, 4)));
        let messages = store.messages("s").await.unwrap_or_default();
        let on_its_branch = messages.iter().find(|m| m.tool_call_id.as_deref() == Some("c1") && m.branch[0].alt == 0);
        let status = on_its_branch.and_then(|m| m.tool.as_ref()).map(|t| (t.status, t.imported));
        assert_eq!(status, Some((ToolStatus::Interrupted, true)), "{messages:?}");
    });
}

#[test]
fn a_call_with_no_result_is_answered_on_a_card_naming_its_server() {
    run(async {
        let store = MemoryStore::new();
        let q = MessageRecord::new("q", "s", 1.0, Role::User, "question");
        let call = |id: &str, seq: f64| {
            let mut a = MessageRecord::new(format!("a-{id}"), "s", seq, Role::Assistant, "");
            a.tool_calls = vec![ToolCall { id: id.into(), name: "mcp_files_read".into(), arguments: "{}".into(), extra: None }];
            a
        };
        let mut done = MessageRecord::new("r", "s", 3.0, Role::Tool, "read");
        done.tool_call_id = Some("c1".into());
        done.tool = Some(ToolRun::new("mcp_files_read", Some("files".into()), "{}", ToolStatus::Done));
        let doc = Export::new(vec![crate::export::ExportedSession { session: SessionRecord::new("s", 1.0), messages: vec![q, call("c1", 2.0), done, call("c2", 4.0)], files: vec![] }], 0.0);
        assert_eq!(import(&store, &doc, &mut ids()).await, Ok((1, 5)));
        let messages = store.messages("s").await.unwrap_or_default();
        let added = messages.iter().find(|m| m.tool_call_id.as_deref() == Some("c2")).and_then(|m| m.tool.as_ref()).map(|t| (t.server.as_deref(), t.status));
        assert_eq!(added, Some((Some("files"), ToolStatus::Interrupted)), "not a built-in's: {messages:?}");
    });
}

#[test]
fn an_old_export_gets_links_and_added_results_stay_on_the_line() {
    run(async {
        let store = MemoryStore::new();
        // The file has no parent links (made before they existed).
        assert_eq!(import(&store, &hostile(), &mut ids()).await, Ok((1, 4)));
        let mut messages = store.messages("s1").await.unwrap_or_default();
        let parents: Vec<(&str, Option<&str>)> = messages.iter().map(|m| (m.id.as_str(), m.parent.as_deref())).collect();
        assert_eq!(
            parents,
            [("u1", None), ("a1", Some("u1")), ("a1-interrupted-0", Some("a1")), ("t1", Some("a1-interrupted-0"))],
            "one line: the added result between the answer and what followed it"
        );
        let mut forks = crate::branches::Forks::new();
        assert_eq!(crate::branches::derive(&mut messages, &mut forks), Vec::<usize>::new());
        assert!(forks.is_empty(), "no alternatives: {forks:?}");
    });
}

#[test]
fn links_follow_new_ids_and_never_leave_the_file() {
    run(async {
        let store = MemoryStore::new();
        let q = MessageRecord::new("q", "s", 1.0, Role::User, "question");
        let mut a0 = after_q("a0", 2.0, 0, Role::Assistant, "first");
        a0.parent = Some("q".into());
        // A link to a message of another conversation: dropped, and the
        // path gives the link instead.
        let mut a1 = after_q("a1", 3.0, 1, Role::Assistant, "second");
        a1.parent = Some("someone-elses".into());
        let doc = Export::new(vec![crate::export::ExportedSession { session: forked(1), messages: vec![q, a0, a1], files: vec![] }], 0.0);
        store.put_session(&SessionRecord::new("s", 9.0)).await.ok();
        assert_eq!(import(&store, &doc, &mut ids()).await, Ok((1, 3)));
        let copy = store.list_sessions().await.unwrap_or_default().into_iter().find(|x| x.id != "s").unwrap_or_else(|| panic!("no copy"));
        let messages = store.messages(&copy.id).await.unwrap_or_default();
        let q = messages[0].id.clone();
        assert!(messages[1..].iter().all(|m| m.parent.as_deref() == Some(q.as_str())), "both answers follow the copied question: {messages:?}");
    });
}

#[test]
fn a_file_holding_a_conversation_twice_keeps_one_and_a_clash_in_it_gets_new_ids() {
    run(async {
        let store = MemoryStore::new();
        let once = hostile();
        let mut twice = once.clone();
        twice.sessions.push(once.sessions[0].clone());
        let mut other = once.sessions[0].clone();
        other.session.title = "Another conversation, same ids".into();
        twice.sessions.push(other);
        let mut said = Vec::new();
        let written = import_with(&store, &twice, &mut ids(), &mut |done, total| said.push((done, total))).await;
        assert_eq!(written, Ok((2, 8)), "the repeat left out, the clash copied");
        assert_eq!(said, vec![(0, 3), (1, 3), (2, 3)], "every conversation counted");
        let titles: Vec<String> = store.list_sessions().await.unwrap_or_default().into_iter().map(|s| s.title).collect();
        assert!(titles.contains(&"Looks harmless".to_owned()) && titles.contains(&"Another conversation, same ids".to_owned()), "{titles:?}");
        assert_eq!(store.messages("s1").await.map(|m| m.len()), Ok(4), "the first kept as it was");
    });
}

#[test]
fn many_conversations_are_written_in_groups_and_all_found() {
    run(async {
        let store = MemoryStore::new();
        let one = hostile();
        let mut many = one.clone();
        many.sessions = (0..300)
            .map(|i| {
                let mut s = one.sessions[0].clone();
                s.session.id = format!("s{i}");
                for m in &mut s.messages {
                    m.id = format!("{}-{i}", m.id);
                    m.session_id = s.session.id.clone();
                    m.parent = m.parent.as_ref().map(|p| format!("{p}-{i}"));
                }
                s
            })
            .collect();
        assert_eq!(import(&store, &many, &mut ids()).await, Ok((300, 1_200)));
        assert_eq!(store.list_sessions().await.map(|l| l.len()), Ok(300));
        assert_eq!(import(&store, &many, &mut ids()).await, Ok((0, 0)), "a second time: nothing");
    });
}
