//! The behaviour every [`Store`] must have, as one async check that any
//! implementation can run (the memory store on the host, IndexedDB in a
//! real browser). Panics with a message on the first difference.

use air_chat::{Role, ToolCall, Usage};

use crate::{MessageRecord, SessionRecord, Store};

fn msg(id: &str, session: &str, seq: f64, role: Role, text: &str) -> MessageRecord {
    MessageRecord::new(id, session, seq, role, text)
}

/// Panics with `what` and the error if a write failed.
fn ok(r: crate::Result<()>, what: &str) {
    if let Err(e) = r {
        panic!("{what}: {e}");
    }
}

/// The ids of a list of sessions, in its order.
fn ids(list: Vec<SessionRecord>) -> Vec<String> {
    list.into_iter().map(|s| s.id).collect::<Vec<_>>()
}

/// Runs the whole suite against an empty store.
pub async fn run<S: Store>(store: &S) {
    assert_eq!(store.list_sessions().await.ok(), Some(vec![]), "a new store is empty");

    documents(store).await;
    sessions(store).await;
    messages(store).await;
    session_pages(store).await;
    search(store).await;
    postings(store).await;
    files(store).await;
    shared_files(store).await;
    journal(store).await;
    batch(store).await;
}

/// Documents: absent, written, replaced; kept apart from the records.
async fn documents<S: Store>(store: &S) {
    assert_eq!(store.get_doc("mcp-catalog").await.ok(), Some(None), "no document yet");
    ok(store.put_doc("mcp-catalog", r#"{"servers":[]}"#).await, "put a document");
    ok(store.put_doc("mcp-loaded/sess-a", "{\"tools\":[\"天气\"]}").await, "put another");
    ok(store.put_doc("mcp-catalog", r#"{"servers":[1]}"#).await, "replace it");
    assert_eq!(store.get_doc("mcp-catalog").await.ok().flatten().as_deref(), Some(r#"{"servers":[1]}"#));
    assert_eq!(store.get_doc("mcp-loaded/sess-a").await.ok().flatten().as_deref(), Some("{\"tools\":[\"天气\"]}"));
    assert_eq!(store.list_sessions().await.ok(), Some(vec![]), "documents are not sessions");
    ok(store.put_doc("mcp-loaded/sess-b", "{}").await, "put a third");
    ok(store.put_doc("mcp-loadedx", "{}").await, "put one whose key only begins alike");
    assert_eq!(store.doc_keys("mcp-loaded/").await.ok(), Some(vec!["mcp-loaded/sess-a".to_owned(), "mcp-loaded/sess-b".to_owned()]), "the keys with the prefix, in order");
    assert_eq!(store.doc_keys("nothing/").await.ok(), Some(vec![]));
    ok(store.delete_doc("mcp-loaded/sess-b").await, "delete the third");
    ok(store.delete_doc("mcp-loadedx").await, "delete the other");
    ok(store.delete_doc("mcp-loaded/sess-a").await, "delete a document");
    ok(store.delete_doc("never-written").await, "deleting what is not there is fine");
    assert_eq!(store.get_doc("mcp-loaded/sess-a").await.ok(), Some(None), "deleted");
    assert!(store.get_doc("mcp-catalog").await.ok().flatten().is_some(), "the other document stays");
}

/// Sessions: listed newest first, every field kept.
async fn sessions<S: Store>(store: &S) {
    let mut a = SessionRecord::new("sess-a", 1_000.0);
    a.auto_title("First question about Rust lifetimes please", 1_000.0);
    let b = SessionRecord::new("sess-b", 2_000.0);
    ok(store.put_session(&a).await, "put a");
    ok(store.put_session(&b).await, "put b");
    assert_eq!(store.list_sessions().await.map(ids).ok(), Some(vec!["sess-b".into(), "sess-a".into()]), "newest first");

    // Touching a makes it the newest.
    a.updated_at = 3_000.0;
    ok(store.put_session(&a).await, "update a");
    let listed = store.list_sessions().await.ok().unwrap_or_default();
    assert_eq!(listed.first(), Some(&a), "updated session first, all fields kept");
}

/// Messages: read in seq order, rewritten in place, paged from the end,
/// deleted alone or with their session.
async fn messages<S: Store>(store: &S) {
    // Messages: stored out of order, read in seq order; every field survives.
    let mut answer = msg("m2", "sess-a", 20.0, Role::Assistant, "Lifetimes name regions 🦀");
    answer.reasoning = Some("think".into());
    answer.usage = Some(Usage { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, reasoning_tokens: Some(1), cached_tokens: None });
    answer.model = Some("SmolLM2".into());
    answer.incomplete = true;
    answer.tool_calls = vec![ToolCall { id: "c1".into(), name: "calc".into(), arguments: "{\"x\":1}".into(), extra: None }];
    answer.kind = Some(crate::records::MessageKind::TransitiveThought);
    answer.finish = Some(air_chat::FinishReason::Length);
    ok(store.put_message(&answer).await, "put m2");
    ok(store.put_message(&msg("m1", "sess-a", 10.0, Role::User, "First question")).await, "put m1");
    ok(store.put_message(&msg("m3", "sess-b", 5.0, Role::User, "other session")).await, "put m3");
    let got = store.messages("sess-a").await.ok().unwrap_or_default();
    assert_eq!(got.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), ["m1", "m2"], "seq order, own session only");
    assert_eq!(got.get(1), Some(&answer), "all message fields round-trip");

    // Checkpointing rewrites one record in place.
    answer.content.push_str(" and more");
    answer.incomplete = false;
    ok(store.put_message(&answer).await, "rewrite m2");
    let got = store.messages("sess-a").await.ok().unwrap_or_default();
    assert_eq!(got.len(), 2, "a rewrite does not duplicate");
    assert_eq!(got.get(1).map(|m| m.content.as_str()), Some("Lifetimes name regions 🦀 and more"));

    // Two writers with the same seq (two tabs) both keep their message.
    ok(store.put_message(&msg("m4x", "sess-a", 30.0, Role::User, "tab one")).await, "tab one");
    ok(store.put_message(&msg("m4y", "sess-a", 30.0, Role::User, "tab two")).await, "tab two");
    let got = store.messages("sess-a").await.ok().unwrap_or_default();
    assert_eq!(got.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), ["m1", "m2", "m4x", "m4y"]);

    // Pages come from the end, in order.
    let page = |v: crate::Result<Vec<MessageRecord>>| v.map(|l| l.into_iter().map(|m| m.id).collect::<Vec<_>>()).ok();
    assert_eq!(page(store.messages_page("sess-a", None, 2).await), Some(vec!["m4x".into(), "m4y".into()]));
    assert_eq!(page(store.messages_page("sess-a", Some(30.0), 2).await), Some(vec!["m1".into(), "m2".into()]));
    assert_eq!(page(store.messages_page("sess-a", Some(20.0), 5).await), Some(vec!["m1".into()]));
    assert_eq!(page(store.messages_page("sess-a", Some(10.0), 5).await), Some(vec![]));
    // And forwards from a message, its own session only.
    assert_eq!(page(store.messages_after("sess-a", 10.0, 1).await), Some(vec!["m2".into()]));
    assert_eq!(page(store.messages_after("sess-a", 10.0, 5).await), Some(vec!["m2".into(), "m4x".into(), "m4y".into()]));
    assert_eq!(page(store.messages_after("sess-a", 0.0, 2).await), Some(vec!["m1".into(), "m2".into()]));
    assert_eq!(page(store.messages_after("sess-a", 30.0, 5).await), Some(vec![]));
    assert_eq!(page(store.messages_after("sess-b", 0.0, 5).await), Some(vec!["m3".into()]));

    ok(store.delete_message("m4y").await, "delete message");
    assert_eq!(store.messages("sess-a").await.map(|m| m.len()).ok(), Some(3));

    // Deleting a session deletes its messages and nothing else.
    ok(store.delete_session("sess-a").await, "delete a");
    assert_eq!(store.get_session("sess-a").await.ok(), Some(None));
    assert_eq!(store.messages("sess-a").await.map(|m| m.len()).ok(), Some(0));
    assert_eq!(store.messages("sess-b").await.map(|m| m.len()).ok(), Some(1));
    assert_eq!(store.list_sessions().await.map(ids).ok(), Some(vec!["sess-b".into()]));
}

/// The session list, read page by page.
async fn session_pages<S: Store>(store: &S) {
    // Pages of the session list: in its order (newest first, ties by larger
    // id first), each starting after the last of the one before, and
    // together the whole list exactly once.
    ok(store.delete_session("sess-b").await, "delete b");
    for (i, at) in [5.0, 9.0, 7.0, 7.0, 7.0, 1.0, 9.0].into_iter().enumerate() {
        ok(store.put_session(&SessionRecord::new(format!("p{i}"), at)).await, "put a paged session");
    }
    let whole = store.list_sessions().await.map(ids).ok();
    let expected: Vec<String> = ["p6", "p1", "p4", "p3", "p2", "p0", "p5"].map(String::from).to_vec();
    assert_eq!(whole, Some(expected.clone()), "the list's order");
    let mut paged = Vec::new();
    let mut after: Option<crate::SessionCursor> = None;
    loop {
        let page = store.sessions_page(after.as_ref(), 2).await.ok().unwrap_or_default();
        if page.is_empty() {
            break;
        }
        assert!(page.len() <= 2, "a page holds at most its limit");
        after = page.last().map(crate::SessionCursor::of);
        paged.extend(page.into_iter().map(|s| s.id));
    }
    assert_eq!(paged, expected, "the pages make the list");
    assert_eq!(store.sessions_page(None, 0).await.map(ids).ok(), Some(vec![]));
}

/// The search index follows every write.
async fn search<S: Store>(store: &S) {
    let found = |q: &'static str| async move { crate::search::run(store, q, 10).await.map(|r| r.hits.into_iter().map(|h| (h.session_id, h.message_id)).collect::<Vec<_>>()).ok() };
    let mut titled = SessionRecord::new("p1", 9.0);
    titled.rename("Holiday planning", 9.0);
    ok(store.put_session(&titled).await, "rename p1");
    // Touching keeps everything but the time.
    let touched = store.touch_session("p1", 9.5).await.ok().flatten();
    assert_eq!(touched.as_ref().map(|s| (s.title.as_str(), s.updated_at)), Some(("Holiday planning", 9.5)));
    assert_eq!(store.get_session("p1").await.ok().flatten(), touched, "as stored");
    assert_eq!(store.touch_session("nobody", 1.0).await.ok(), Some(None));
    ok(store.put_message(&msg("q1", "p1", 1.0, Role::User, "Which trains go from Lyon to Geneva?")).await, "put q1");
    ok(store.put_message(&msg("q2", "p2", 1.0, Role::Assistant, "我们明天去北京看长城")).await, "put q2");
    let mut streaming = msg("q3", "p3", 1.0, Role::Assistant, "trains still streaming");
    streaming.incomplete = true;
    ok(store.put_message(&streaming).await, "put q3");
    assert_eq!(found("trains Geneva").await, Some(vec![("p1".into(), Some("q1".into()))]), "every word, stemmed");
    assert_eq!(found("北京").await, Some(vec![("p2".into(), Some("q2".into()))]), "Chinese");
    assert_eq!(found("holiday").await, Some(vec![("p1".into(), None)]), "a title");
    let hit = crate::search::run(store, "geneva", 10).await.ok().and_then(|r| r.hits.into_iter().next());
    assert_eq!(hit.as_ref().and_then(|h| h.seq), Some(1.0));
    let marked: Vec<String> = hit.map(|h| h.snippet.into_iter().filter(|(_, m)| *m).map(|(t, _)| t).collect()).unwrap_or_default();
    assert_eq!(marked, vec!["Geneva".to_owned()], "the snippet marks the match");
    // Finished: now it is found; changed: its old words are gone.
    streaming.incomplete = false;
    ok(store.put_message(&streaming).await, "finish q3");
    assert_eq!(found("streaming").await, Some(vec![("p3".into(), Some("q3".into()))]));
    ok(store.put_message(&msg("q1", "p1", 1.0, Role::User, "Which buses go from Lyon to Turin?")).await, "edit q1");
    assert_eq!(found("geneva").await, Some(vec![]), "an edited message's old words");
    assert_eq!(found("turin").await, Some(vec![("p1".into(), Some("q1".into()))]));
    ok(store.delete_message("q3").await, "delete q3");
    assert_eq!(found("streaming").await, Some(vec![]), "a deleted message");
    ok(store.delete_session("p2").await, "delete p2");
    assert_eq!(found("北京").await, Some(vec![]), "a deleted session's messages");
    let stats = store.index_stats().await.ok().flatten();
    assert_eq!(stats.as_ref().map(|s| s.docs), Some(2), "q1 and p1's title");
    // A rebuild finds the same.
    ok(store.rebuild_index().await, "rebuild");
    assert_eq!(store.index_stats().await.ok().flatten().map(|s| (s.docs, s.complete)), Some((2, true)));
    assert_eq!(found("turin").await, Some(vec![("p1".into(), Some("q1".into()))]));
    assert_eq!(found("holiday").await, Some(vec![("p1".into(), None)]));
    // Background merging changes no result, and a write meanwhile is kept.
    for b in 0..10 {
        let messages = (0..70).map(|i| msg(&format!("r{}", b * 70 + i), "p1", 10.0 + f64::from(b * 70 + i), Role::User, &format!("turin tram number {i}"))).collect();
        ok(store.put_batch(&crate::batch::Batch { messages, ..crate::batch::Batch::default() }).await, "put a batch");
    }
    ok(store.put_message(&msg("r3", "p1", 13.0, Role::User, "a bus to milan")).await, "edit r3");
    let mut steps = 0;
    while matches!(store.compact_index(64).await, Ok(true)) && steps < 10_000 {
        steps += 1;
        if steps == 1 {
            ok(store.delete_message("r5").await, "delete r5 while merging");
        }
    }
    assert!(steps > 1, "ten batches' segments are merged");
    let turin = crate::search::run(store, "turin", 1_000).await.ok().map(|r| r.hits.len());
    assert_eq!(turin, Some(699), "q1 and 698 trams: r3 was edited, r5 deleted");
    assert_eq!(found("milan").await, Some(vec![("p1".into(), Some("r3".into()))]));
    assert_eq!(store.compact_index(64).await.ok(), Some(false), "nothing left to do");
}

/// A term's entries, most recent first (ties: the later indexed first), at
/// most as many as asked for; each leads back to its document.
async fn postings<S: Store>(store: &S) {
    for (id, at) in [("z1", 10.0), ("z2", 20.0), ("z3", 20.0), ("z4", 30.0), ("z5", 40.0)] {
        if let Err(e) = store.put_message(&msg(id, "pz", at, Role::User, "a zebra crossing")).await {
            panic!("put {id}: {e}");
        }
    }
    let docs = |max: usize| async move {
        let list = store.postings("zebra", max).await.ok()?;
        let ids = store.index_docs(&list.iter().map(|e| e.doc).collect::<Vec<_>>()).await.ok()?;
        Some(list.iter().zip(ids).map(|(e, id)| (id.map(|(d, _)| d).unwrap_or_default(), e.at)).collect::<Vec<_>>())
    };
    let all = vec![("z5".to_owned(), 40.0), ("z4".into(), 30.0), ("z3".into(), 20.0), ("z2".into(), 20.0), ("z1".into(), 10.0)];
    assert_eq!(docs(10).await, Some(all.clone()), "every entry, most recent first");
    assert_eq!(docs(5).await, Some(all.clone()), "exactly as many as there are");
    assert_eq!(docs(3).await, Some(all[..3].to_vec()), "a tie at the limit is cut as the order says");
    assert_eq!(docs(1).await, Some(all[..1].to_vec()));
    assert_eq!(docs(0).await, Some(Vec::new()));
    assert_eq!(store.postings("unicorn", 5).await.ok(), Some(Vec::new()), "a term nobody wrote");
    if let Err(e) = store.delete_session("pz").await {
        panic!("delete pz: {e}");
    }
}

/// Attached files: stored apart from the message, every byte kept, gone
/// with the message that names them or with their session.
async fn files<S: Store>(store: &S) {
    use crate::{Attachment, FileRecord};
    let file = |id: &str, session: &str, bytes: Vec<u8>| FileRecord { id: id.into(), session_id: session.into(), mime: "image/png".into(), bytes };
    let every_byte: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    assert_eq!(store.get_file("f1").await.ok(), Some(None), "no file yet");
    for (id, session) in [("f1", "fs"), ("f2", "fs"), ("f3", "ft")] {
        if let Err(e) = store.put_file(&file(id, session, every_byte.clone())).await {
            panic!("put {id}: {e}");
        }
    }
    assert_eq!(store.get_file("f1").await.ok().flatten(), Some(file("f1", "fs", every_byte.clone())), "every byte back");
    assert_eq!(store.get_file_head("f1", 300).await.ok().flatten(), Some(file("f1", "fs", every_byte[..300].to_vec())), "the first bytes");
    assert_eq!(store.get_file_head("f1", 1 << 20).await.ok().flatten().map(|f| f.bytes.len()), Some(every_byte.len()), "a head past the end is the whole file");
    assert_eq!(store.get_file_head("nope", 300).await.ok(), Some(None));
    let mut with = msg("m-files", "fs", 1.0, Role::User, "look");
    with.attachments = vec![Attachment { id: "f1".into(), name: "cat.png".into(), mime: "image/png".into(), size: 70_000 }];
    assert!(store.put_message(&with).await.is_ok());
    assert_eq!(store.get_message("m-files").await.ok().flatten().map(|m| m.attachments), Some(with.attachments.clone()));
    assert!(store.delete_message("m-files").await.is_ok());
    assert_eq!(store.get_file("f1").await.ok(), Some(None), "deleted with its message");
    assert!(store.get_file("f2").await.ok().flatten().is_some(), "another file stays");
    assert!(store.put_session(&SessionRecord::new("fs", 1.0)).await.is_ok());
    assert!(store.delete_session("fs").await.is_ok());
    assert_eq!(store.get_file("f2").await.ok(), Some(None), "deleted with its session");
    assert_eq!(store.get_file("f3").await.ok().flatten().map(|f| f.bytes.len()), Some(70_000), "another session's file stays");
}

/// A file two messages name (a question edited and resent names the same
/// files) stays until the last of them is deleted.
async fn shared_files<S: Store>(store: &S) {
    use crate::journal::{Change, Kind};
    use crate::{Attachment, FileRecord};
    ok(store.put_session(&SessionRecord::new("sf", 1.0)).await, "put session");
    ok(store.put_file(&FileRecord { id: "sf-1".into(), session_id: "sf".into(), mime: "image/png".into(), bytes: vec![7; 10] }).await, "put file");
    let mut asked = msg("sf-q", "sf", 1.0, Role::User, "what is this?");
    asked.attachments = vec![Attachment { id: "sf-1".into(), name: "a.png".into(), mime: "image/png".into(), size: 10 }];
    let mut edited = msg("sf-q2", "sf", 3.0, Role::User, "what is this, in French?");
    edited.attachments = asked.attachments.clone();
    ok(store.put_message(&asked).await, "put the question");
    ok(store.put_message(&edited).await, "put the edited question");
    let before = store.journal_since(0, usize::MAX).await.unwrap_or_default().last().map_or(0, |e| e.seq);
    ok(store.delete_message("sf-q").await, "delete the first question");
    assert_eq!(store.get_file("sf-1").await.ok().flatten().map(|f| f.bytes), Some(vec![7; 10]), "the other message still names it");
    let changes: Vec<Change> = store.journal_since(before, usize::MAX).await.unwrap_or_default().into_iter().map(|e| e.change).collect();
    assert_eq!(changes, vec![Change::deleted(Kind::Message, "sf-q")], "no tombstone for a file that stays");
    ok(store.delete_message("sf-q2").await, "delete the other");
    assert_eq!(store.get_file("sf-1").await.ok(), Some(None), "gone with the last message that named it");
    ok(store.delete_session("sf").await, "delete session");
}

/// The journal: every record a write put or removed, once, by its latest
/// change, in strictly increasing order; a tombstone for each record a
/// delete removed (a session's messages and files with it).
async fn journal<S: Store>(store: &S) {
    use crate::FileRecord;
    use crate::journal::{Change, Kind};
    let all = || async { store.journal_since(0, usize::MAX).await.unwrap_or_else(|e| panic!("journal: {e}")) };
    let so_far = all().await;
    assert!(so_far.windows(2).all(|w| w[0].seq < w[1].seq), "strictly increasing: {so_far:?}");
    let mut records: Vec<_> = so_far.iter().map(|e| (e.change.kind, e.change.id.clone())).collect();
    records.sort();
    assert!(records.windows(2).all(|w| w[0] != w[1]), "one entry per record: {so_far:?}");
    let start = so_far.last().map_or(0, |e| e.seq);
    let since = |after| async move { store.journal_since(after, usize::MAX).await.unwrap_or_else(|e| panic!("journal: {e}")).into_iter().map(|e| e.change).collect::<Vec<_>>() };
    let step = |r: crate::Result<()>, what: &str| r.unwrap_or_else(|e| panic!("{what}: {e}"));

    step(store.put_session(&SessionRecord::new("j-会话", 1.0)).await, "put session");
    step(store.put_message(&msg("jm1", "j-会话", 1.0, Role::User, "hello")).await, "put message");
    step(store.put_file(&FileRecord { id: "jf1".into(), session_id: "j-会话".into(), mime: "text/plain".into(), bytes: vec![1] }).await, "put file");
    step(store.put_message(&msg("jm1", "j-会话", 1.0, Role::User, "hello again")).await, "put message again");
    step(store.put_doc("jd", "{}").await, "put doc");
    step(store.delete_doc("jd").await, "delete doc");
    assert_eq!(
        since(start).await,
        vec![Change::put(Kind::Session, "j-会话"), Change::put(Kind::File, "jf1"), Change::put(Kind::Message, "jm1"), Change::deleted(Kind::Doc, "jd")],
        "each record once, at its latest change"
    );
    let page = store.journal_since(start, 2).await.unwrap_or_default();
    assert_eq!(page.len(), 2, "at most the limit");
    assert!(page[0].seq > start && page[0].seq < page[1].seq, "oldest first: {page:?}");

    let before_touch = all().await.last().map_or(0, |e| e.seq);
    assert!(store.touch_session("j-会话", 2.0).await.ok().flatten().is_some(), "touch");
    assert_eq!(since(before_touch).await, vec![Change::put(Kind::Session, "j-会话")], "a touch is a change of the session");

    let before_delete = all().await.last().map_or(0, |e| e.seq);
    step(store.delete_session("j-会话").await, "delete session");
    let mut gone = since(before_delete).await;
    gone.sort_by_key(|a| a.kind);
    assert_eq!(gone, vec![Change::deleted(Kind::Session, "j-会话"), Change::deleted(Kind::Message, "jm1"), Change::deleted(Kind::File, "jf1")], "a tombstone for the session and each of its records");
    let after = all().await;
    assert!(after.windows(2).all(|w| w[0].seq < w[1].seq) && after.last().map_or(0, |e| e.seq) > before_delete);
}

/// A batch: every record written as one at a time would, each journaled
/// once, its words indexed (a replaced message's old ones gone); a batch
/// read gives what exists.
async fn batch<S: Store>(store: &S) {
    use crate::FileRecord;
    use crate::batch::{Batch, Ids};
    use crate::journal::{Change, Kind};
    let last = || async { store.journal_since(0, usize::MAX).await.unwrap_or_default().last().map_or(0, |e| e.seq) };
    let found = |q: &'static str| async move { crate::search::run(store, q, 10).await.map(|r| r.hits.into_iter().filter_map(|h| h.message_id).collect::<Vec<_>>()).ok() };
    ok(store.put_message(&msg("bm1", "b-s", 1.0, Role::User, "pelican harbour")).await, "put bm1");
    let start = last().await;
    let mut session = SessionRecord::new("b-s", 3.0);
    session.rename("Batch voyage", 3.0);
    let file = FileRecord { id: "bf1".into(), session_id: "b-s".into(), mime: "text/plain".into(), bytes: vec![7, 8] };
    let batch = Batch {
        sessions: vec![session.clone()],
        files: vec![file.clone()],
        messages: vec![msg("bm2", "b-s", 2.0, Role::Assistant, "a draft"), msg("bm1", "b-s", 1.0, Role::User, "albatross lagoon"), msg("bm2", "b-s", 2.0, Role::Assistant, "walrus beach")],
        from: None,
    };
    ok(store.put_batch(&batch).await, "put a batch");
    let changes: Vec<Change> = store.journal_since(start, usize::MAX).await.unwrap_or_default().into_iter().map(|e| e.change).collect();
    assert_eq!(
        changes,
        vec![Change::put(Kind::Session, "b-s"), Change::put(Kind::File, "bf1"), Change::put(Kind::Message, "bm1"), Change::put(Kind::Message, "bm2")],
        "each record once, sessions, files, messages"
    );
    assert_eq!(found("albatross").await, Some(vec!["bm1".to_owned()]), "a replaced message's new words");
    assert_eq!(found("pelican").await, Some(vec![]), "and not its old ones");
    assert_eq!(found("walrus").await, Some(vec!["bm2".to_owned()]), "the later of two with one id");
    assert_eq!(found("draft").await, Some(vec![]), "not the earlier");
    let hits = crate::search::run(store, "voyage", 10).await.map(|r| r.hits.len()).ok();
    assert_eq!(hits, Some(1), "the session's title");
    let ids = Ids { sessions: vec!["b-s".into(), "b-none".into()], files: vec!["bf1".into()], messages: vec!["bm2".into(), "b-none".into(), "bm1".into()] };
    let read = store.get_batch(&ids).await.unwrap_or_else(|e| panic!("get a batch: {e}"));
    assert_eq!(read.sessions, vec![session], "the session");
    assert_eq!(read.files, vec![file], "the file");
    let texts: Vec<(&str, &str)> = read.messages.iter().map(|m| (m.id.as_str(), m.content.as_str())).collect();
    assert_eq!(texts, [("bm2", "walrus beach"), ("bm1", "albatross lagoon")], "what exists, in the order asked");
    let before = last().await;
    let pulled = Batch { messages: vec![msg("bm3", "b-s", 3.0, Role::User, "from elsewhere")], from: Some("db-1".into()), ..Batch::default() };
    ok(store.put_batch(&pulled).await, "a pulled batch");
    let marked = |after| async move { store.journal_since(after, usize::MAX).await.unwrap_or_default().into_iter().map(|e| e.change).collect::<Vec<_>>() };
    assert_eq!(marked(before).await, vec![Change::put(Kind::Message, "bm3").from(Some("db-1"))], "its entries carry the database's mark");
    ok(store.put_message(&msg("bm3", "b-s", 3.0, Role::User, "edited here")).await, "edit it here");
    assert_eq!(marked(before).await, vec![Change::put(Kind::Message, "bm3")], "an edit here replaces the entry, unmarked");
    ok(store.put_batch(&Batch::default()).await, "an empty batch");
    assert_eq!(store.get_batch(&Ids::default()).await.ok(), Some(Batch::default()));
    ok(store.delete_session("b-s").await, "delete");
}
