use std::rc::Rc;

use air_agent::{Approval, Event};
use air_chat::Role;
use air_http::fake::{Script, Step};
use air_store::{MessageRecord, SessionRecord, Settings, Store};
use air_tools::{CallContext, Tool, ToolDef, ToolOutput};
use futures_util::future::LocalBoxFuture;
use serde_json::{Value, json};

use crate::fake::{FakePlatform, Harness, now};
use crate::fake_tools::{call as call_reply, chunk, text as text_reply};
use crate::turn::Job;
use crate::{Command, Notice, Update};

/// An MCP tool with no policy of the user's: it asks first.
struct Remove(ToolDef);

impl Tool for Remove {
    fn def(&self) -> &ToolDef {
        &self.0
    }
    fn call<'a>(&'a self, args: Value, _ctx: CallContext<'a>) -> LocalBoxFuture<'a, ToolOutput> {
        Box::pin(async move { ToolOutput::text(format!("removed {args}")) })
    }
}

fn settings() -> Settings {
    Settings {
        provider: "custom".into(),
        base_url: "http://model.test/v1".into(),
        model: "scripted".into(),
        api_key: "sk-test".into(),
        tool_calling: air_store::settings::ToolCalling::Native,
        ..Settings::default()
    }
}

/// The server `files`, whose `remove_file` says it is destructive.
fn files_server() -> air_store::mcp::McpServer {
    let remove =
        json!({"name": "remove_file", "description": "Removes a file.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}, "annotations": {"destructiveHint": true}});
    crate::fake_tools::server("files", "http://127.0.0.1:9/files", &[remove])
}

/// A workspace whose turns have a model and the tool `remove_file` of
/// the server `files` (named `mcp_files_remove_file` for the model).
fn harness() -> Harness {
    let mut h = Harness::new(FakePlatform::default());
    h.send(Command::Start);
    h.use_settings(settings());
    h.add_server(files_server(), |def| Rc::new(Remove(def)));
    h.take();
    h
}

fn send(text: &str) -> Command {
    Command::Turn(crate::turn::Action::Start(Job::Send(text.into())))
}

fn stored(h: &Harness) -> Vec<MessageRecord> {
    let session = h.ws.active().expect("a session is open").to_owned();
    now(h.p.store.messages(&session)).expect("messages")
}

#[test]
fn a_message_is_sent_answered_and_shown_in_a_new_session() {
    let mut h = harness();
    // The new chat does without the server `files`.
    h.send(Command::Prefs(crate::prefs::Action::Change(crate::prefs::Change::ChatServer { chat: air_store::mcp::NEW_CHAT.into(), server: "files".into(), on: false })));
    h.take();
    h.p.http.push(text_reply("Hello there."));
    // Sent without the spaces around it.
    h.send(send("  Hi \n"));
    let ups = h.take();
    assert_eq!(ups[..2], [Update::Busy(true), Update::Sending]);
    let sent = ups.iter().position(|u| *u == Update::Sent);
    assert!(sent.is_some() && sent > ups.iter().position(|u| *u == Update::Busy(false)), "{ups:?}");
    assert!(ups.contains(&Update::Busy(false)));
    // The new session opened and joined the list.
    let id = h.ws.active().expect("opened").to_owned();
    // Its choice is the session's now (kept, and shown).
    assert!(!air_store::mcp::ChatServers::load(&*h.p.kv).uses(&id, "files"));
    assert!(ups.iter().any(|u| matches!(u, Update::ChatServers(c) if !c.uses(&id, "files") && c.uses(air_store::mcp::NEW_CHAT, "files"))));
    assert!(ups.contains(&Update::Active(Some(id.clone()))));
    assert_eq!(h.ws.sessions()[0].id, id);
    // The answer streamed live, then its record took its place.
    assert!(h.p.live.borrow().iter().any(|e| matches!(e, Event::StreamStarted { .. })));
    assert!(ups.contains(&Update::MessagesRemoved(
        vec![h.p.live.borrow().iter().find_map(|e| match e { Event::StreamStarted { message_id, .. } => Some(message_id.clone()), _ => None }).unwrap_or_default()]
    )));
    let saved: Vec<&str> = ups
        .iter()
        .filter_map(|u| match u {
            Update::MessageSaved(m) if !m.incomplete => Some(m.content.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(saved.last(), Some(&"Hello there."));
    let all = stored(&h);
    assert_eq!(all.iter().map(|m| (m.role, m.content.as_str())).collect::<Vec<_>>(), [(Role::User, "Hi"), (Role::Assistant, "Hello there.")]);
    assert!(!h.ws.busy());
}

#[test]
fn a_second_send_while_one_runs_starts_nothing_and_stop_ends_it() {
    let mut h = harness();
    h.p.http.push(Script::sse([chunk(json!({"role": "assistant", "content": "Once upon"}), None)]).then(Step::Hang));
    h.send(send("Tell a story"));
    assert!(h.ws.busy());
    h.take();
    h.send(send("Tell a story"));
    h.send(send("Another"));
    assert_eq!(h.p.asked(crate::platform::Part::Turn, None), 1, "one turn runs");
    assert!(h.take().is_empty(), "a refused send changes nothing");
    h.send(Command::Turn(crate::turn::Action::Stop));
    let ups = h.take();
    assert!(ups.contains(&Update::Busy(false)), "{ups:?}");
    assert!(!h.ws.busy());
    // What arrived is kept.
    let all = stored(&h);
    assert_eq!(all.len(), 2);
    assert_eq!(all[1].content, "Once upon");
    assert_eq!(h.p.http.requests().len(), 1);
    // And the next message is sent.
    h.p.http.push(text_reply("The end."));
    h.send(send("Go on"));
    assert_eq!(h.p.asked(crate::platform::Part::Turn, None), 2);
    assert!(h.take().contains(&Update::Sent));
}

#[test]
fn nothing_to_send_or_no_open_chat_starts_nothing() {
    let mut h = harness();
    h.send(send("   "));
    h.send(Command::Turn(crate::turn::Action::Start(Job::Regenerate("m".into()))));
    h.send(Command::Turn(crate::turn::Action::Start(Job::Resume)));
    assert_eq!(h.p.asked(crate::platform::Part::Turn, None), 0);
    assert!(h.take().is_empty());
}

#[test]
fn a_message_whose_turn_could_not_be_fetched_goes_back_to_the_composer() {
    let mut h = harness();
    h.p.parts_missing.set(true);
    h.send(send("Keep me"));
    let ups = h.take();
    assert_eq!(ups, [Update::Busy(true), Update::Sending, Update::Busy(false), Update::Notice(Notice::PartMissing), Update::NotSent("Keep me".into())]);
}

#[test]
fn regenerate_answers_again_in_place_of_the_answer_shown() {
    let mut h = harness();
    h.p.http.push(text_reply("One."));
    h.send(send("Count"));
    let answer = stored(&h).last().expect("answered").id.clone();
    h.take();
    // A message that is not there: nothing is asked.
    h.send(Command::Turn(crate::turn::Action::Start(Job::Regenerate("no-such-message".into()))));
    assert_eq!(h.p.http.requests().len(), 1);
    assert!(!h.ws.busy());
    h.take();
    h.p.http.push(text_reply("Two."));
    h.send(Command::Turn(crate::turn::Action::Start(Job::Regenerate(answer.clone()))));
    let ups = h.take();
    assert!(!ups.iter().any(|u| matches!(u, Update::NotSent(_) | Update::Sent | Update::Notice(_))), "{ups:?}");
    assert!(ups.iter().any(|u| matches!(u, Update::MessageSaved(m) if m.content == "Two.")));
    assert_eq!(h.p.http.requests().len(), 2);
    // The old answer is kept as an alternative.
    assert!(stored(&h).iter().any(|m| m.id == answer));
}

/// The model asks to call `remove_file` (then answers `then`, if given).
fn asked_to_remove(then: Option<&str>) -> Harness {
    let mut h = harness();
    h.p.http.push(call_reply("a", "mcp_files_remove_file", r#"{"path":"/tmp/x"}"#));
    if let Some(text) = then {
        h.p.http.push(text_reply(text));
    }
    h.send(send("Remove /tmp/x"));
    h
}

#[test]
fn a_call_waits_for_approval_and_runs_once_allowed() {
    let mut h = asked_to_remove(Some("Removed."));
    let ups = h.take();
    let Some(Update::Approvals { awaiting, changes }) = ups.iter().rev().find(|u| matches!(u, Update::Approvals { .. })) else { panic!("{ups:?}") };
    assert_eq!(awaiting.len(), 1);
    assert!(changes.is_empty(), "never accepted: nothing changed");
    assert!(h.ws.busy(), "the turn waits");
    let record = awaiting[0].clone();
    // An answer for another card changes nothing.
    h.send(Command::Turn(crate::turn::Action::Approve { record: "other".into(), approval: Approval::Once }));
    assert!(h.take().is_empty());
    h.send(Command::Turn(crate::turn::Action::Approve { record: record.clone(), approval: Approval::Once }));
    let ups = h.take();
    assert!(ups.contains(&Update::Approvals { awaiting: vec![], changes: vec![] }));
    assert!(ups.contains(&Update::Sent));
    let all = stored(&h);
    let tool = all.iter().find(|m| m.id == record).expect("the call's record");
    assert!(tool.content.contains("removed"), "{tool:?}");
    assert_eq!(all.last().map(|m| m.content.as_str()), Some("Removed."));
}

#[test]
fn stop_denies_the_calls_waiting_for_approval() {
    let mut h = asked_to_remove(None);
    assert!(h.take().iter().any(|u| matches!(u, Update::Approvals { awaiting, .. } if awaiting.len() == 1)));
    h.send(Command::Turn(crate::turn::Action::Stop));
    let ups = h.take();
    assert!(ups.contains(&Update::Approvals { awaiting: vec![], changes: vec![] }));
    assert!(ups.contains(&Update::Busy(false)));
    // Nothing ran and no second request was made.
    assert_eq!(h.p.http.requests().len(), 1);
    assert!(!stored(&h).iter().any(|m| m.content.contains("removed")));
}

#[test]
fn always_is_remembered_through_the_page() {
    let mut h = asked_to_remove(Some("Removed."));
    let record = h.awaiting().expect("asked");
    h.send(Command::Turn(crate::turn::Action::Approve { record, approval: Approval::Always }));
    let ups = h.take();
    assert!(ups.contains(&Update::Sent));
    // The policy is saved, and the page shows it.
    let kept = air_store::settings::load(&*h.p.kv).settings;
    assert_eq!(kept.tool_policies.mcp.get("files").and_then(|t| t.get("remove_file")).map(|b| b.policy), Some(air_tools::policy::Policy::Allow), "kept by the server's id and the tool's name there");
    assert_eq!(h.ws.prefs().settings, kept);
    assert!(ups.iter().any(|u| matches!(u, Update::Settings(settings) if **settings == kept)));
}

/// A session with a question and an answer another tab is still writing.
fn with_remote_answer(h: &mut Harness) -> String {
    let session = SessionRecord::new("s1", 1.0);
    let question = MessageRecord::new("q", "s1", 1.0, Role::User, "What is up?");
    let mut partial = MessageRecord::new("r", "s1", 2.0, Role::Assistant, "Half of a remote answer");
    partial.incomplete = true;
    now(h.p.store.put_session(&session)).expect("session");
    now(h.p.store.put_message(&question)).expect("question");
    now(h.p.store.put_message(&partial)).expect("partial");
    h.send(Command::Sessions(crate::sessions::Action::Reload));
    h.send(Command::Chat(crate::chat::Action::Open("s1".into())));
    h.take();
    "s1".into()
}

fn last_request_text(h: &Harness) -> String {
    let requests = h.p.http.requests();
    requests.last().and_then(|r| r.body.clone()).unwrap_or_default()
}

#[test]
fn an_answer_another_tab_is_streaming_is_left_out_of_the_request() {
    let mut h = harness();
    with_remote_answer(&mut h);
    h.send(Command::OtherTab(air_store::sync::SyncEvent::Streaming { session_id: "s1".into(), message_id: "r".into(), active: true }));
    h.p.http.push(text_reply("Fine."));
    h.send(send("And now?"));
    let body = last_request_text(&h);
    assert!(body.contains("What is up?") && body.contains("And now?"), "{body}");
    assert!(!body.contains("Half of a remote answer"), "{body}");

    // Once it stopped streaming there, a cut-off answer shown here is part of it.
    let mut h = harness();
    with_remote_answer(&mut h);
    h.p.http.push(text_reply("Fine."));
    h.send(send("And now?"));
    assert!(last_request_text(&h).contains("Half of a remote answer"));
}

/// A session whose last tool round a closed tab left waiting for approval.
fn left_waiting(h: &mut Harness) {
    use air_store::records::{ToolRun, ToolStatus};
    now(h.p.store.put_session(&SessionRecord::new("s1", 1.0))).expect("session");
    now(h.p.store.put_message(&MessageRecord::new("q", "s1", 1.0, Role::User, "Remove /tmp/x"))).expect("q");
    let mut answer = MessageRecord::new("a", "s1", 2.0, Role::Assistant, "");
    answer.tool_calls = vec![air_chat::ToolCall { id: "c1".into(), name: "mcp_files_remove_file".into(), arguments: r#"{"path":"/tmp/x"}"#.into(), extra: None }];
    now(h.p.store.put_message(&answer)).expect("a");
    let mut call = MessageRecord::new("t", "s1", 3.0, Role::Tool, "");
    call.tool_call_id = Some("c1".into());
    call.tool = Some(ToolRun::new("mcp_files_remove_file", Some("files".into()), r#"{"path":"/tmp/x"}"#, ToolStatus::AwaitingApproval));
    now(h.p.store.put_message(&call)).expect("t");
    h.send(Command::Sessions(crate::sessions::Action::Reload));
}

#[test]
fn a_round_a_closed_tab_left_is_asked_again_once() {
    let mut h = harness();
    left_waiting(&mut h);
    h.send(Command::Chat(crate::chat::Action::Open("s1".into())));
    let ups = h.take();
    assert_eq!(h.p.asked(crate::platform::Part::Turn, None), 1, "picked up on opening");
    assert!(ups.iter().any(|u| matches!(u, Update::Approvals { awaiting, .. } if awaiting == &["t".to_owned()])), "{ups:?}");
    // The user goes away without answering; back again, it is not asked twice.
    h.send(Command::Turn(crate::turn::Action::Stop));
    h.send(Command::Chat(crate::chat::Action::New));
    h.send(Command::Chat(crate::chat::Action::Open("s1".into())));
    assert_eq!(h.p.asked(crate::platform::Part::Turn, None), 1);
}

#[test]
fn a_round_another_tab_still_streams_is_left_to_it_until_that_tab_goes_quiet() {
    let mut h = harness();
    left_waiting(&mut h);
    h.send(Command::OtherTab(air_store::sync::SyncEvent::Streaming { session_id: "s1".into(), message_id: "t".into(), active: true }));
    h.send(Command::Chat(crate::chat::Action::Open("s1".into())));
    assert_eq!(h.p.asked(crate::platform::Part::Turn, None), 0, "the other tab asks its own question");
    h.advance(crate::tabs::REMOTE_STALE_MS);
    assert_eq!(h.p.asked(crate::platform::Part::Turn, None), 1, "picked up once that tab is gone");
}

#[test]
fn an_edited_message_is_sent_in_place_and_the_old_one_kept_as_an_alternative() {
    let mut h = harness();
    h.p.http.push(text_reply("Paris."));
    h.send(send("Capital of France?"));
    let question = stored(&h)[0].id.clone();
    h.take();
    // An empty edit changes nothing.
    h.send(Command::Turn(crate::turn::Action::Start(Job::Edit { message: question.clone(), text: "  ".into() })));
    assert_eq!(h.p.asked(crate::platform::Part::Turn, None), 1);
    h.p.http.push(text_reply("Rome."));
    h.send(Command::Turn(crate::turn::Action::Start(Job::Edit { message: question.clone(), text: "Capital of Italy?".into() })));
    let ups = h.take();
    assert!(!ups.iter().any(|u| matches!(u, Update::Notice(_) | Update::NotSent(_))), "{ups:?}");
    assert!(last_request_text(&h).contains("Capital of Italy?"));
    assert!(!last_request_text(&h).contains("Capital of France?"), "the old branch is not sent");
    let all = stored(&h);
    assert!(all.iter().any(|m| m.id == question), "kept as an alternative");
    assert!(all.iter().any(|m| m.content == "Rome."));
}

#[test]
fn a_stopped_answer_continues_where_it_was_cut() {
    let mut h = harness();
    h.p.http.push(Script::sse([chunk(json!({"role": "assistant", "content": "Once upon"}), None)]).then(Step::Hang));
    h.send(send("Tell a story"));
    h.send(Command::Turn(crate::turn::Action::Stop));
    let cut = stored(&h).last().expect("kept").clone();
    assert_eq!(cut.content, "Once upon");
    h.take();
    h.p.http.push(text_reply(" a time."));
    h.send(Command::Turn(crate::turn::Action::Start(Job::Continue(cut.id.clone()))));
    let all = stored(&h);
    let done = all.iter().find(|m| m.id == cut.id).expect("the same message");
    assert_eq!(done.content, "Once upon a time.");
    assert!(h.p.live.borrow().iter().any(|e| matches!(e, Event::StreamStarted { message_id, text, .. } if *message_id == cut.id && text == "Once upon")));
}

#[test]
fn a_session_deleted_while_its_answer_streams_is_not_brought_back_by_the_turn() {
    let mut h = harness();
    h.p.http.push(Script::sse([chunk(json!({"role": "assistant", "content": "Half"}), None)]).then(Step::Hang));
    h.send(send("Write something long"));
    let id = h.ws.active().expect("a new session").to_owned();
    h.take();
    h.send(Command::Sessions(crate::sessions::Action::Delete(id.clone())));
    assert!(h.take().contains(&Update::Removed(id.clone())), "the page leaves the chat");
    assert!(!h.ws.busy(), "the turn stopped");
    // Deleted for good while the answer still streams; then it stops.
    h.advance(crate::sessions::UNDO_MS);
    assert!(h.take().contains(&Update::Deleted(id.clone())));
    h.send(Command::Turn(crate::turn::Action::Stop));
    assert_eq!(now(h.p.store.get_session(&id)).expect("read"), None, "the turn's last writes did not bring it back");
    assert!(!h.ws.sessions().iter().any(|s| s.id == id));
}

#[test]
fn a_session_waiting_for_its_undo_is_not_touched_by_the_turn() {
    let mut h = harness();
    h.p.http.push(Script::sse([chunk(json!({"role": "assistant", "content": "Half"}), None)]).then(Step::Hang));
    h.send(send("Write something long"));
    let id = h.ws.active().expect("a new session").to_owned();
    let before = now(h.p.store.get_session(&id)).expect("read").expect("stored").updated_at;
    h.send(Command::Sessions(crate::sessions::Action::Delete(id.clone())));
    h.advance(1_000);
    // The turn ends inside the undo window: it does not mark the session active.
    h.send(Command::Turn(crate::turn::Action::Stop));
    h.send(Command::Sessions(crate::sessions::Action::UndoDelete));
    let after = now(h.p.store.get_session(&id)).expect("read").expect("still there");
    assert_eq!(after.updated_at, before);
    assert_eq!(h.ws.sessions()[0].updated_at, before);
}

/// A model in this page keeps what it read: when the app opens, a chat is
/// opened and a new message is begun, the request it will make is read ahead, shown
/// nowhere; one read-ahead at a time, and a message sent meanwhile goes at
/// once. Another provider is never sent one.
#[test]
fn a_model_in_this_page_reads_the_next_request_ahead_and_no_other_does() {
    use air_store::settings::{BROWSER_BASE_URL, BROWSER_PRESET};
    // Native calls: no probe of whether the model calls tools goes first.
    let in_browser =
        || Settings { provider: BROWSER_PRESET.into(), base_url: BROWSER_BASE_URL.into(), model: "tiny.gguf".into(), tool_calling: air_store::settings::ToolCalling::Native, ..Settings::default() };
    let p = FakePlatform::default();
    p.http.push(text_reply(""));
    let mut h = Harness::new(p);
    h.ws.prefs.settings = in_browser();
    h.send(Command::Start);
    let ups = h.take();
    let requests = h.p.http.requests();
    assert_eq!(requests.len(), 1, "read ahead when the app opens");
    let ahead: Value = serde_json::from_str(requests[0].body.as_deref().unwrap_or_default()).unwrap_or_default();
    assert_eq!((ahead["max_tokens"].as_u64(), ahead["messages"].clone()), (Some(0), json!([{"role": "user", "content": ""}])));
    assert!(!ups.iter().any(|u| matches!(u, Update::Busy(_) | Update::MessageSaved(_))), "{ups:?}");
    // A new message begun, while the model still reads: one at a time.
    let reading = air_http::Abort::new();
    h.p.http.push(Script::sse(Vec::<String>::new()).then(Step::Until(reading.clone())));
    h.send(Command::Turn(crate::turn::Action::Start(Job::Warm)));
    h.send(Command::Turn(crate::turn::Action::Start(Job::Warm)));
    assert_eq!(h.p.http.requests().len(), 2);
    // The message is sent at once all the same.
    h.p.http.push(text_reply("Hello."));
    h.send(send("Hi"));
    assert!(h.take().contains(&Update::Sent));
    assert_eq!(stored(&h).last().map(|m| m.content.clone()), Some("Hello.".into()));

    // A chat opened: its conversation is read ahead, then an empty message.
    let session = h.ws.active().map(str::to_owned).unwrap_or_default();
    // The read-ahead asked for while one ran runs once that one is done.
    h.p.http.push(text_reply(""));
    reading.abort();
    h.run();
    assert_eq!(h.p.http.requests().len(), 4, "the one asked for meanwhile, after it");
    assert_eq!(h.ws.turn.warming.get(), super::Warming::Idle);
    h.send(Command::Chat(crate::chat::Action::New));
    h.p.http.push(text_reply(""));
    h.send(Command::Chat(crate::chat::Action::Open(session)));
    let ahead: Value = serde_json::from_str(h.p.http.requests().last().and_then(|r| r.body.as_deref()).unwrap_or_default()).unwrap_or_default();
    let said: Vec<_> = ahead["messages"].as_array().map(|m| m.iter().map(|m| m["content"].clone()).collect()).unwrap_or_default();
    assert_eq!((ahead["max_tokens"].as_u64(), said), (Some(0), vec![json!("Hi"), json!("Hello."), json!("")]));

    let mut other = harness();
    other.send(Command::Turn(crate::turn::Action::Start(Job::Warm)));
    assert!(other.p.http.requests().is_empty() && other.take().is_empty());
}
