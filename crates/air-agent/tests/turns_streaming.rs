//! Whole turns that stream an answer: a new session, retries with
//! backoff, errors and dropped streams, images, checkpoints while
//! streaming and Stop, a thinking chain streamed first, and a thinking
//! model's reasoning kept and sent back within its tool loop.
//! Compared with golden files in `transcripts/` (`UPDATE_EXPECT=1 cargo
//! test -p air-agent` rewrites them after a deliberate change; read the
//! diff).

mod common;

use air_http::HttpError;
use air_http::fake::{Script, Step};
use air_store::Store;
use expect_test::expect_file;
use serde_json::{Value, json};

use common::{bodies, chunk, run, setup, text_reply};

#[test]
fn send_streams_an_answer_into_a_new_session() {
    let s = setup();
    s.world.http.push(text_reply("Hello there!"));
    let id = run(s.turn().send(None, "  Hi  ")).unwrap();
    assert_eq!(id, "id1");
    s.check(expect_file!["transcripts/send.txt"]);
}

#[test]
fn rate_limits_and_server_errors_are_retried_with_backoff() {
    let s = setup();
    s.world.http.push(Script::status(429, r#"{"error":{"message":"slow down"}}"#).with_header("Retry-After", "2"));
    s.world.http.push(Script::status(503, "busy"));
    s.world.http.push(text_reply("Finally."));
    run(s.turn().send(None, "Hello")).unwrap();
    s.check(expect_file!["transcripts/retries.txt"]);
}

#[test]
fn errors_and_drops_keep_the_text() {
    let s = setup();
    s.world.http.push(Script::status(401, r#"{"error":{"message":"Invalid API Key"}}"#));
    let session = run(s.turn().send(None, "Hello")).unwrap();
    s.world.http.push(Script::sse([chunk(json!({"content": "Half an ans"}), None)]));
    run(s.turn().send(Some(session.clone()), "Again")).unwrap();
    s.world.http.push(Script::Fail(HttpError::Network("connection refused".into())));
    run(s.turn().send(Some(session), "Once more")).unwrap();
    s.check(expect_file!["transcripts/errors.txt"]);
}

#[test]
fn images_go_as_parts_and_a_model_without_vision_is_told_once() {
    use air_agent::NewFile;
    let s = setup();
    s.world.http.push(text_reply("A red dot."));
    let png = |b: u8| NewFile { name: "dot.png".into(), mime: "image/png".into(), bytes: vec![0x89, b'P', b'N', b'G', b] };
    let session = run(s.turn().send_with_files(None, "What is this?", "File `a.txt`:\n```txt\nhello\n```", vec![png(1), png(2)])).unwrap();
    // Recorded from llama.cpp's server with a model that has no mmproj.
    s.world
        .http
        .push(Script::status(500, r#"{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}"#));
    run(s.turn().send_with_files(Some(session.clone()), "", "", vec![png(3)])).unwrap();
    assert_eq!(s.world.http.requests().len(), 2, "a refusal of images is not retried");
    let stored = run(s.stored(&session));
    assert_eq!(stored.iter().filter(|m| m.attachments.len() == 2).count(), 1, "the first message keeps both images");
    assert_eq!(run(s.world.store.get_file("id3")).ok().flatten().map(|f| f.bytes), Some(vec![0x89, b'P', b'N', b'G', 1]));
    s.check(expect_file!["transcripts/images.txt"]);
}

#[test]
fn an_imported_text_file_goes_to_the_model_as_a_text_file_attached_here_does() {
    use air_store::export::{Export, ExportedFile, ExportedSession};
    use air_store::{Attachment, MessageRecord, SessionRecord};
    let s = setup();
    let mut question = MessageRecord::new("q", "imported", 1.0, air_chat::Role::User, "Weather in Lyon?");
    question.attachments = vec![
        Attachment { id: "f".into(), name: "trip.txt".into(), mime: "text/plain".into(), size: 1000 },
        Attachment { id: "gone".into(), name: "old.txt".into(), mime: "text/plain".into(), size: 3 },
    ];
    let file = ExportedFile { id: "f".into(), mime: "text/plain".into(), data: b"Lyon, 3 days".to_vec() };
    let export = Export::new(vec![ExportedSession { session: SessionRecord::new("imported", 1.0), messages: vec![question], files: vec![file] }], 1.0);
    let mut n = 0;
    run(air_store::import::import(&s.world.store.inner, &export, &mut || {
        n += 1;
        format!("new-{n}")
    }))
    .unwrap();
    s.world.http.push(text_reply("Sunny."));
    run(s.turn().answer("imported", None));
    let body: Value = serde_json::from_str(&bodies(&s)[0]).unwrap_or_default();
    let user: Vec<&Value> = body["messages"].as_array().into_iter().flatten().filter(|m| m["role"] == "user").collect();
    assert_eq!(user.len(), 1);
    assert_eq!(user[0]["content"], "Weather in Lyon?\n\nFile `trip.txt`:\n```txt\nLyon, 3 days\n```", "a file not carried is left out");
    let stored = run(s.stored("imported"));
    assert_eq!(stored[0].content, "Weather in Lyon?", "the record keeps the question alone");
}

#[test]
fn checkpoints_while_streaming_then_stop_keeps_what_arrived() {
    let s = setup();
    s.world.tick.set(300.0);
    let slow = Script::sse([chunk(json!({"content": "one "}), None), chunk(json!({"content": "two "}), None), chunk(json!({"content": "three "}), None), chunk(json!({"content": "four"}), None)])
        .then(Step::Abort)
        .then(Step::Hang);
    s.world.http.push(slow);
    run(s.turn().send(None, "Count")).unwrap();
    s.check(expect_file!["transcripts/checkpoint_stop.txt"]);
}

#[test]
fn transitive_thinking_streams_a_chain_first() {
    let mut s = setup();
    s.settings.transitive_thinking = true;
    s.world.http.push(text_reply("Think: 91 = 7 x 13."));
    s.world.http.push(text_reply("No, 91 is not prime."));
    run(s.turn().send(None, "Is 91 prime?")).unwrap();
    s.check(expect_file!["transcripts/transitive.txt"]);
}

/// An answer that thinks first (`field`: `reasoning_content` as DeepSeek
/// sends it, or `reasoning` as OpenRouter does), then calls tools or, with
/// none, says `text`.
fn thinking_reply(field: &str, reasoning: &str, calls: &[(&str, &str, &str)], text: &str) -> Script {
    let mid = reasoning.len() / 2;
    let mut events = vec![chunk(json!({"role": "assistant", "content": null}), None), chunk(json!({ field: &reasoning[..mid] }), None), chunk(json!({ field: &reasoning[mid..] }), None)];
    for (i, (id, name, args)) in calls.iter().enumerate() {
        events.push(chunk(json!({"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": args}}]}), None));
    }
    if !text.is_empty() {
        events.push(chunk(json!({"content": text}), None));
    }
    events.push(chunk(json!({}), Some(if calls.is_empty() { "stop" } else { "tool_calls" })));
    events.push("[DONE]".to_owned());
    Script::sse(events)
}

/// The `reasoning_content` sent with each assistant message of a request,
/// by the id of its first call (`-` for an answer without calls).
fn reasoning_sent(body: &str) -> Vec<(String, Option<String>)> {
    let body: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .map(|m| {
            let call = m["tool_calls"][0]["id"].as_str().unwrap_or("-").to_owned();
            (call, m.get("reasoning_content").and_then(Value::as_str).map(str::to_owned))
        })
        .collect()
}

/// A thinking model's tool loop (DeepSeek's thinking mode): the reasoning
/// of every round is kept with that round's answer, and every request of
/// the turn sends back the reasoning of the turn's answers that called
/// tools; once the user speaks again, none is sent.
#[test]
fn the_reasoning_of_every_round_is_kept_and_sent_back_within_the_turn() {
    let s = setup();
    s.world.http.push(thinking_reply("reasoning_content", "First I look up one.", &[("c1", "echo", r#"{"text":"one"}"#)], ""));
    s.world.http.push(thinking_reply("reasoning", "Then two.", &[("c2", "echo", r#"{"text":"two"}"#)], ""));
    s.world.http.push(thinking_reply("reasoning_content", "Both are in.", &[], "Done."));
    let session = run(s.turn().send(None, "Look twice")).unwrap();
    let answers: Vec<(String, Option<String>)> =
        run(s.stored(&session)).into_iter().filter(|m| m.role == air_chat::Role::Assistant).map(|m| (m.tool_calls.first().map_or("-".to_owned(), |c| c.id.clone()), m.reasoning)).collect();
    let some = |t: &str| Some(t.to_owned());
    let pair = |call: &str, r: Option<String>| (call.to_owned(), r);
    assert_eq!(answers, [pair("c1", some("First I look up one.")), pair("c2", some("Then two.")), pair("-", some("Both are in."))], "every round keeps its own reasoning");
    let sent: Vec<Vec<(String, Option<String>)>> = bodies(&s).iter().map(|b| reasoning_sent(b)).collect();
    assert_eq!(sent, [vec![], vec![pair("c1", some("First I look up one."))], vec![pair("c1", some("First I look up one.")), pair("c2", some("Then two."))],]);
    // The next turn: the finished one's messages go without their reasoning.
    s.world.http.push(text_reply("Sure."));
    run(s.turn().send(Some(session), "Thanks")).unwrap();
    let last = bodies(&s).last().cloned().unwrap_or_default();
    assert_eq!(reasoning_sent(&last), [pair("c1", None), pair("c2", None), pair("-", None)]);
    assert!(!last.contains("reasoning_content"));
}

/// A long answer is held in pieces while it streams: each checkpoint saves
/// the text so far from its pieces, and the answer saved at the end is the
/// whole text, in order.
#[test]
fn a_long_answer_is_held_in_pieces_and_saved_whole() {
    let s = setup();
    s.world.tick.set(100.0);
    let text: String = (0..1000).map(|i| format!("Paragraph {i} says {}.\n\n", "something ".repeat(90))).collect();
    assert!(text.len() > 3 * 256 * 1024, "{}", text.len());
    let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    events.extend(text.as_bytes().chunks(2_000).map(|c| chunk(json!({"content": std::str::from_utf8(c).unwrap_or_default()}), None)));
    events.push(chunk(json!({}), Some("stop")));
    events.push("[DONE]".into());
    s.world.http.push(Script::sse(events));
    let session = run(s.turn().send(None, "Write at length")).unwrap();
    let saved = run(s.stored(&session));
    assert_eq!(saved.last().map(|m| m.content.as_str()), Some(text.as_str()), "saved whole");
    assert!(!saved.last().is_some_and(|m| m.incomplete));
    let in_pieces = s.world.store.in_pieces.borrow();
    assert!(in_pieces.iter().any(|(n, _)| *n >= 3), "checkpoints in pieces: {:?}", in_pieces.iter().map(|(n, t)| (n, t.len())).collect::<Vec<_>>());
    for (_, so_far) in in_pieces.iter() {
        assert!(text.starts_with(so_far.as_str()) && so_far.len() > 256 * 1024, "a checkpoint is the text so far");
    }
}
