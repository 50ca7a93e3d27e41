use air_chat::Role;
use air_store::{MessageRecord, SessionRecord, Store};

use super::*;
use crate::fake::{FakePlatform, Harness, now};

/// A started harness: sessions `a` (newest, `n` messages) and `b` (2).
fn two_sessions(n: usize) -> Harness {
    let p = FakePlatform::default();
    now(p.store.put_session(&SessionRecord::new("b", 1.0))).expect("b");
    now(p.store.put_session(&SessionRecord::new("a", 2.0))).expect("a");
    for i in 0..n {
        now(p.store.put_message(&MessageRecord::new(format!("a{i}"), "a", i as f64, Role::User, "hi"))).expect("a's");
    }
    for i in 0..2 {
        now(p.store.put_message(&MessageRecord::new(format!("b{i}"), "b", i as f64, Role::User, "hi"))).expect("b's");
    }
    let mut h = Harness::new(p);
    h.send(Command::Start);
    // A provider elsewhere: nothing is read ahead.
    h.use_settings(crate::fake_tools::model(air_store::settings::ToolCalling::Native));
    h.send(Command::Chat(crate::chat::Action::Open("a".into())));
    h
}

/// What the page shows after these updates, and whether it has older
/// messages to read.
fn shown(updates: &[Update], list: Vec<String>) -> (Vec<String>, bool) {
    let (list, older, _) = shown_both(updates, list);
    (list, older)
}

/// What the page shows after these updates, and whether it has older and
/// later messages to read.
fn shown_both(updates: &[Update], mut list: Vec<String>) -> (Vec<String>, bool, bool) {
    let (mut older, mut newer) = (false, false);
    for u in updates {
        match u {
            Update::Messages { list: l, has_older, has_newer } => {
                list = l.iter().map(|m| m.id.clone()).collect();
                (older, newer) = (*has_older, *has_newer);
            }
            Update::MessagesAppended { list: l, has_newer } => {
                list.extend(l.iter().map(|m| m.id.clone()));
                newer = *has_newer;
            }
            Update::MessagesPrepended { list: l, has_older } => {
                let mut l: Vec<String> = l.iter().map(|m| m.id.clone()).collect();
                l.append(&mut list);
                list = l;
                older = *has_older;
            }
            _ => {}
        }
    }
    (list, older, newer)
}

fn ids(from: usize, to: usize) -> Vec<String> {
    (from..to).map(|i| format!("a{i}")).collect()
}

#[test]
fn a_long_session_opens_on_its_last_page_and_older_pages_come_on_demand() {
    let n = PAGE * 3 / 2;
    let mut h = two_sessions(n);
    let (list, older) = shown(&h.take(), Vec::new());
    assert_eq!((list, older), (ids(n - PAGE, n), true));
    h.ws.handle(Command::Chat(crate::chat::Action::Older));
    h.ws.handle(Command::Chat(crate::chat::Action::Older));
    h.run();
    let (list, older) = shown(&h.take(), ids(n - PAGE, n));
    assert_eq!((list, older), (ids(0, n), false), "read once, before those shown");
}

#[test]
fn an_answer_for_a_session_no_longer_open_is_dropped() {
    let mut h = two_sessions(3);
    h.take();
    h.ws.handle(Command::Chat(crate::chat::Action::Open("b".into())));
    let late = h.ws.poll_task().expect("b's page");
    h.send(Command::Chat(crate::chat::Action::Open("a".into())));
    let mut late = late;
    let std::task::Poll::Ready(Some(answer)) = late.0.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop())) else { panic!("answered") };
    h.send(answer);
    let updates = h.take();
    assert_eq!(shown(&updates, Vec::new()).0, ["a0", "a1", "a2"], "b's page came too late");
    assert_eq!(h.ws.active(), Some("a"));
}

#[test]
fn a_search_hit_is_read_with_the_messages_around_it_then_later_pages_on_demand() {
    let mut h = two_sessions(250);
    h.send(Command::Chat(crate::chat::Action::New));
    h.take();
    h.send(Command::Chat(crate::chat::Action::OpenAt { session: "a".into(), message: Some("a100".into()) }));
    let updates = h.take();
    assert_eq!(updates.last(), Some(&Update::Focus(Some("a100".into()))));
    let half = PAGE / 2;
    let stretch = ids(100 - half, 101 + half);
    assert_eq!(shown_both(&updates, Vec::new()), (stretch.clone(), true, true), "half a page each side, read once");
    assert_eq!(updates.iter().filter(|u| matches!(u, Update::Messages { list, .. } if !list.is_empty())).count(), 1);
    // Later pages, read on from there, to the end.
    h.ws.handle(Command::Chat(crate::chat::Action::Newer));
    h.ws.handle(Command::Chat(crate::chat::Action::Newer));
    h.run();
    let (mut list, _, mut newer) = shown_both(&h.take(), stretch);
    assert_eq!((list.clone(), newer), (ids(100 - half, 101 + half + PAGE), true), "read once, after those shown");
    for _ in 0..10 {
        if !newer {
            break;
        }
        h.send(Command::Chat(crate::chat::Action::Newer));
        (list, _, newer) = shown_both(&h.take(), list);
    }
    assert_eq!((list.clone(), newer), (ids(100 - half, 250), false));
    h.send(Command::Chat(crate::chat::Action::Newer));
    assert!(h.take().is_empty(), "nothing later");
    let mut older = true;
    for _ in 0..10 {
        if !older {
            break;
        }
        h.send(Command::Chat(crate::chat::Action::Older));
        (list, older) = shown(&h.take(), list);
    }
    assert_eq!((list, older), (ids(0, 250), false));
}

#[test]
fn a_hit_near_the_start_is_read_with_what_there_is_before_it() {
    let mut h = two_sessions(250);
    h.take();
    h.send(Command::Chat(crate::chat::Action::OpenAt { session: "a".into(), message: Some("a10".into()) }));
    assert_eq!(shown_both(&h.take(), Vec::new()), (ids(0, 11 + PAGE / 2), false, true));
    // A hit that is not there any more: the last page.
    h.send(Command::Chat(crate::chat::Action::New));
    h.send(Command::Chat(crate::chat::Action::OpenAt { session: "a".into(), message: Some("gone".into()) }));
    let updates = h.take();
    assert_eq!(shown_both(&updates, Vec::new()), (ids(250 - PAGE, 250), true, false));
    assert_eq!(updates.last(), Some(&Update::Focus(Some("gone".into()))), "looked for once, not again");
}

#[test]
fn a_message_sent_while_a_stretch_from_the_middle_is_shown_shows_the_end() {
    let mut h = two_sessions(250);
    h.send(Command::Chat(crate::chat::Action::OpenAt { session: "a".into(), message: Some("a100".into()) }));
    h.take();
    // Another tab's change is not read again over the stretch.
    h.send(Command::Chat(crate::chat::Action::Changed("a".into())));
    assert!(!h.take().iter().any(|u| matches!(u, Update::Messages { .. })));
    // A message in the stretch goes in its place.
    h.send(Command::Chat(crate::chat::Action::Saved(MessageRecord::new("a100", "a", 100.0, Role::User, "edited"))));
    assert!(matches!(h.take().as_slice(), [Update::MessageSaved(m)] if m.id == "a100"));
    // One after it: the end is read, with it.
    now(h.p.store.put_message(&MessageRecord::new("new", "a", 300.0, Role::User, "hello"))).expect("saved");
    h.send(Command::Chat(crate::chat::Action::Saved(MessageRecord::new("new", "a", 300.0, Role::User, "hello"))));
    let (list, older, newer) = shown_both(&h.take(), Vec::new());
    assert_eq!((list.len(), list.last().map(String::as_str), older, newer), (PAGE, Some("new"), true, false));
}

#[test]
fn a_search_hit_in_the_chat_open_already_is_marked_or_read_towards() {
    let mut h = two_sessions(250);
    let updates = h.take();
    let (list, _) = shown(&updates, Vec::new());
    h.send(Command::Chat(crate::chat::Action::OpenAt { session: "a".into(), message: Some("a240".into()) }));
    assert_eq!(h.take().last(), Some(&Update::Focus(Some("a240".into()))), "shown already: marked");
    h.send(Command::Chat(crate::chat::Action::OpenAt { session: "a".into(), message: Some("a10".into()) }));
    let updates = h.take();
    assert_eq!(updates.last(), Some(&Update::Focus(Some("a10".into()))), "far back: read around");
    assert_eq!(shown_both(&updates, list), (ids(0, 11 + PAGE / 2), false, true));
}

#[test]
fn a_search_hit_left_for_another_chat_is_not_looked_for_again() {
    let mut h = two_sessions(250);
    h.take();
    // The hit's chat is asked for, then another is opened before it is read.
    h.ws.handle(Command::Chat(crate::chat::Action::OpenAt { session: "a".into(), message: Some("a10".into()) }));
    h.ws.handle(Command::Chat(crate::chat::Action::Open("b".into())));
    h.run();
    h.send(Command::Chat(crate::chat::Action::Open("a".into())));
    let updates = h.take();
    assert!(!updates.iter().any(|u| matches!(u, Update::Focus(Some(_)))), "no old hit marked: {updates:?}");
    assert_eq!(shown(&updates, Vec::new()).0.len(), PAGE, "the last page only");
}

#[test]
fn the_turn_s_messages_go_in_their_place_and_a_new_session_opens_from_the_creator() {
    let mut h = two_sessions(2);
    h.take();
    h.send(Command::Chat(crate::chat::Action::Saved(MessageRecord::new("mid", "a", 0.5, Role::Assistant, "x"))));
    h.send(Command::Chat(crate::chat::Action::Saved(MessageRecord::new("other", "b", 9.0, Role::Assistant, "x"))));
    let updates = h.take();
    assert_eq!(updates.len(), 1, "another session's message is not shown here");
    h.send(Command::Chat(crate::chat::Action::Created("c".into())));
    assert_eq!(h.ws.active(), Some("a"), "only from the session creator");
    h.send(Command::Chat(crate::chat::Action::New));
    h.send(Command::Chat(crate::chat::Action::Created("c".into())));
    assert_eq!(h.ws.active(), Some("c"));
}

/// A turn runs here: the model answers nothing until Stop.
fn busy(h: &mut Harness) {
    h.p.http.push(air_http::fake::Script::Respond { status: 200, headers: vec![("content-type".into(), "text/event-stream".into())], steps: vec![air_http::fake::Step::Hang] });
    h.send(Command::Turn(crate::turn::Action::Start(crate::turn::Job::Send("Hi".into()))));
    assert!(h.ws.busy());
    h.take();
}

#[test]
fn another_tab_s_change_is_read_again_unless_a_turn_runs_here() {
    let mut h = two_sessions(2);
    h.take();
    now(h.p.store.put_message(&MessageRecord::new("a2", "a", 2.0, Role::User, "from the other tab"))).expect("stored");
    busy(&mut h);
    h.send(Command::Chat(crate::chat::Action::Changed("a".into())));
    assert!(!h.take().iter().any(|u| matches!(u, Update::Messages { .. })), "not while a turn runs here");
    h.send(Command::Turn(crate::turn::Action::Stop));
    h.send(Command::Chat(crate::chat::Action::Changed("a".into())));
    assert!(shown(&h.take(), Vec::new()).0.contains(&"a2".to_owned()));
}

#[test]
fn a_branch_is_switched_only_between_turns_and_the_chat_read_again() {
    let mut h = two_sessions(2);
    let mut s = now(h.p.store.get_session("a")).unwrap().expect("a");
    s.forks.insert("a0".into(), air_store::branches::Fork { count: 2, shown: 0 });
    now(h.p.store.put_session(&s)).expect("stored");
    h.take();
    busy(&mut h);
    h.send(Command::Chat(crate::chat::Action::SwitchBranch { fork: "a0".into(), alt: 1 }));
    assert!(h.take().is_empty());
    h.send(Command::Turn(crate::turn::Action::Stop));
    h.take();
    h.send(Command::Chat(crate::chat::Action::SwitchBranch { fork: "a0".into(), alt: 5 }));
    let stored = now(h.p.store.get_session("a")).unwrap().expect("a");
    assert_eq!(stored.forks["a0"].shown, 1, "the last alternative at most");
    let updates = h.take();
    assert!(updates.contains(&Update::Changed("a".into())));
    assert!(updates.iter().any(|u| matches!(u, Update::Messages { .. })), "read again");
}

/// What the page shows after these updates: the pages, and the messages
/// saved into them one by one.
fn shown_saved(updates: &[Update]) -> Vec<(String, String)> {
    let mut list: Vec<MessageRecord> = Vec::new();
    for u in updates {
        match u {
            Update::Messages { list: l, .. } => list = l.clone(),
            Update::MessageSaved(m) => {
                list.retain(|x| x.id != m.id);
                let at = list.iter().position(|x| x.seq > m.seq).unwrap_or(list.len());
                list.insert(at, m.clone());
            }
            _ => {}
        }
    }
    list.into_iter().map(|m| (m.id, m.content)).collect()
}

#[test]
fn an_answer_saved_while_its_chat_is_read_again_is_shown() {
    let mut h = two_sessions(2);
    h.send(Command::Chat(crate::chat::Action::Open("b".into())));
    h.take();
    // Back to `a` while its turn answers: its page is read from the store…
    h.ws.handle(Command::Chat(crate::chat::Action::Open("a".into())));
    let mut read = h.ws.poll_task().expect("a's page");
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let std::task::Poll::Ready(Some(done)) = read.0.as_mut().poll(&mut cx) else { panic!("read at once") };
    // …and the answer is saved before that page is handled.
    let answer = MessageRecord::new("a2".to_owned(), "a", 2.0, Role::Assistant, "Only one answer.");
    now(h.p.store.put_message(&answer)).expect("saved");
    h.send(Command::Chat(crate::chat::Action::Saved(answer)));
    h.send(done);
    let shown = shown_saved(&h.take());
    assert_eq!(shown.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["a0", "a1", "a2"], "the answer stays, once");
    assert_eq!(shown[2].1, "Only one answer.");
    // Once that page is in, a later one is read as stored.
    h.send(Command::Chat(crate::chat::Action::Open("b".into())));
    h.send(Command::Chat(crate::chat::Action::Open("a".into())));
    assert_eq!(shown_saved(&h.take()).len(), 3);
}
