//! Turns that go back over a conversation: continue and regenerate, an
//! edited question starting a branch, requests following the branch
//! shown, and the next request unchanged after a reload.
//! Compared with golden files in `transcripts/` (`UPDATE_EXPECT=1 cargo
//! test -p air-agent` rewrites them after a deliberate change; read the
//! diff).

mod common;

use air_agent::Env;
use air_agent::conversation::build_request;
use air_http::Abort;
use air_http::fake::{Script, Step};
use air_store::{MessageRecord, Store};
use expect_test::expect_file;
use serde_json::{Value, json};

use common::{Setup, calls_reply, chunk, run, setup, text_reply};

#[test]
fn continue_and_regenerate() {
    let s = setup();
    s.world.http.push(Script::sse([chunk(json!({"content": "The answer is"}), None)]).then(Step::Abort).then(Step::Hang));
    let session = run(s.turn().send(None, "Question")).unwrap();
    let cut = run(s.stored(&session)).last().unwrap().id.clone();
    // A fresh turn (a new Stop handle), as after the user presses Continue.
    let s2 = Setup { abort: Abort::new(), ..s };
    s2.world.http.push(text_reply(" 42."));
    run(s2.turn().continue_answer(&session, &cut)).unwrap();
    s2.world.http.push(text_reply("Forty-two."));
    run(s2.turn().regenerate(&session, &cut)).unwrap();
    // The earlier answer is kept, as the first alternative.
    let all = run(s2.stored(&session));
    assert_eq!(all.iter().map(|m| m.content.as_str()).collect::<Vec<_>>(), ["Question", "The answer is 42.", "Forty-two."]);
    assert_eq!(texts(&run(s2.shown(&session))), ["Question", "Forty-two."]);
    s2.check(expect_file!["transcripts/continue_regenerate.txt"]);
}

#[test]
fn edit_and_resend_starts_a_branch_and_requests_follow_the_one_shown() {
    let s = setup();
    s.world.http.push(text_reply("Paris."));
    let session = run(s.turn().send(None, "Capital of France?")).unwrap();
    let first = run(s.stored(&session))[0].id.clone();
    s.world.http.push(text_reply("Rome."));
    run(s.turn().edit_and_resend(&session, &first, "Capital of Italy?")).unwrap();
    assert_eq!(texts(&run(s.shown(&session))), ["Capital of Italy?", "Rome."]);
    assert_eq!(run(s.stored(&session)).len(), 4, "the first question and its answer are kept");

    // Back to the first question (as ‹ does): the conversation goes on
    // from there, and the request follows the branch shown.
    let mut record = run(s.world.store.get_session(&session)).unwrap().unwrap();
    assert_eq!(record.forks.get(air_store::branches::ROOT), Some(&air_store::branches::Fork { count: 2, shown: 1 }));
    record.forks.insert(air_store::branches::ROOT.into(), air_store::branches::Fork { count: 2, shown: 0 });
    run(s.world.store.put_session(&record)).unwrap();
    assert_eq!(texts(&run(s.shown(&session))), ["Capital of France?", "Paris."]);
    s.world.http.push(text_reply("Madrid."));
    run(s.turn().send(Some(session.clone()), "And Spain?")).unwrap();
    assert_eq!(texts(&run(s.shown(&session))), ["Capital of France?", "Paris.", "And Spain?", "Madrid."]);
    let last = s.world.http.requests().last().and_then(|r| r.body.clone()).unwrap_or_default();
    let body: Value = serde_json::from_str(&last).unwrap_or(Value::Null);
    let sent: Vec<&str> = body["messages"].as_array().unwrap().iter().filter_map(|m| m["content"].as_str()).collect();
    assert_eq!(sent, ["Capital of France?", "Paris.", "And Spain?"]);

    // A regenerated answer on that branch makes a fork inside it; the
    // other branch is untouched.
    let madrid = run(s.shown(&session)).last().unwrap().id.clone();
    s.world.http.push(text_reply("Madrid, of course."));
    run(s.turn().regenerate(&session, &madrid)).unwrap();
    assert_eq!(texts(&run(s.shown(&session))), ["Capital of France?", "Paris.", "And Spain?", "Madrid, of course."]);
    let mut record = run(s.world.store.get_session(&session)).unwrap().unwrap();
    record.forks.insert(air_store::branches::ROOT.into(), air_store::branches::Fork { count: 2, shown: 1 });
    run(s.world.store.put_session(&record)).unwrap();
    assert_eq!(texts(&run(s.shown(&session))), ["Capital of Italy?", "Rome."]);
    s.check(expect_file!["transcripts/branches.txt"]);
}

#[test]
fn an_edited_question_is_a_sibling_of_the_one_it_replaces_and_shares_its_files() {
    use air_agent::NewFile;
    let s = setup();
    s.world.http.push(text_reply("Hello."));
    let session = run(s.turn().send(None, "Hi")).unwrap();
    s.world.http.push(text_reply("A dot."));
    let dot = NewFile { name: "dot.png".into(), mime: "image/png".into(), bytes: vec![0x89, b'P', b'N', b'G'] };
    run(s.turn().send_with_files(Some(session.clone()), "What is this?", "", vec![dot])).unwrap();
    let before = run(s.stored(&session));
    let asked = before.iter().find(|m| m.content == "What is this?").unwrap().clone();
    assert_eq!(asked.parent.as_deref(), Some(before[1].id.as_str()), "it follows the first answer");
    s.world.http.push(text_reply("Un point."));
    run(s.turn().edit_and_resend(&session, &asked.id, "What is this, in French?")).unwrap();
    let all = run(s.stored(&session));
    let edited = all.iter().find(|m| m.content == "What is this, in French?").unwrap();
    assert_eq!(edited.parent, asked.parent, "siblings: the same parent");
    assert_eq!(edited.attachments, asked.attachments, "the same file");
    let answer = all.last().unwrap();
    assert_eq!((answer.content.as_str(), answer.parent.as_deref()), ("Un point.", Some(edited.id.as_str())));
    run(s.links_agree());
    // The old branch's question deleted (as a sync tombstone would): the
    // edited one still shows its file.
    run(s.world.store.inner.delete_message(&asked.id)).unwrap();
    let file = run(s.world.store.inner.get_file(&asked.attachments[0].id)).unwrap();
    assert_eq!(file.map(|f| f.bytes), Some(vec![0x89, b'P', b'N', b'G']));
}

fn texts(list: &[MessageRecord]) -> Vec<&str> {
    list.iter().map(|m| m.content.as_str()).collect()
}

/// Seed 000: after a reload (every record read back from storage), the
/// next request is byte for byte the one that would have been sent.
#[test]
fn the_next_request_is_the_same_after_a_reload() {
    let s = setup();
    s.world.http.push(calls_reply(&[("a", "echo", r#"{"text":"one"}"#), ("b", "nope", "{}")]));
    s.world.http.push(text_reply("Done."));
    let session = run(s.turn().send(None, "Tools please")).unwrap();
    let before = run(s.stored(&session));
    // Storage keeps JSON: round-trip every record.
    let reloaded: Vec<MessageRecord> = before.iter().map(|m| serde_json::from_str(&serde_json::to_string(m).unwrap()).unwrap()).collect();
    assert_eq!(reloaded, before);
    let vars = s.world.template_vars();
    let a = build_request(&s.settings, &before, &vars).to_json();
    let b = build_request(&s.settings, &reloaded, &vars).to_json();
    assert_eq!(a, b);
    // And it is what the model was sent last, plus the final answer.
    let sent = s.world.http.requests().last().unwrap().body.clone().unwrap();
    let without_last: Vec<MessageRecord> = before[..before.len() - 1].to_vec();
    let mut again = build_request(&s.settings, &without_last, &vars);
    again.tools = s.tools.definitions().map(air_agent::conversation::tool_entry).collect();
    assert_eq!(again.to_json(), sent);
}
