use air_chat::Role;
use air_store::sync::SyncEvent;
use air_store::{MessageRecord, SessionRecord, Store};

use super::REMOTE_STALE_MS;
use crate::fake::{FakePlatform, Harness, now};
use crate::{Command, Update};

/// Session `s` open, with one message.
fn open() -> Harness {
    let p = FakePlatform::default();
    now(p.store.put_session(&SessionRecord::new("s", 1.0))).expect("s");
    now(p.store.put_message(&MessageRecord::new("m0", "s", 0.0, Role::User, "hello"))).expect("m0");
    let mut h = Harness::new(p);
    h.send(Command::Start);
    h.send(Command::Chat(crate::chat::Action::Open("s".into())));
    h.take();
    h
}

fn streaming(message: &str, active: bool) -> Command {
    Command::OtherTab(SyncEvent::Streaming { session_id: "s".into(), message_id: message.into(), active })
}

fn remote(ups: &[Update]) -> Option<Vec<String>> {
    ups.iter().rev().find_map(|u| match u {
        Update::RemoteStreams(list) => Some(list.clone()),
        _ => None,
    })
}

#[test]
fn an_answer_streaming_elsewhere_is_live_until_it_ends() {
    let mut h = open();
    now(h.p.store.put_message(&MessageRecord::new("r", "s", 1.0, Role::Assistant, "checkpoint"))).expect("r");
    h.send(streaming("r", true));
    let ups = h.take();
    assert_eq!(remote(&ups), Some(vec!["r".to_owned()]));
    // Its checkpoint is read where the session is shown.
    assert!(ups.iter().any(|u| matches!(u, Update::Messages { list, .. } if list.iter().any(|m| m.id == "r"))), "{ups:?}");
    h.send(streaming("r", false));
    assert_eq!(remote(&h.take()), Some(vec![]));
}

#[test]
fn a_tab_that_goes_quiet_for_ten_seconds_stops_streaming_here() {
    let mut h = open();
    h.send(streaming("r", true));
    h.advance(6_000);
    // A heartbeat: another ten seconds from now.
    h.send(streaming("r", true));
    h.take();
    h.advance(6_000);
    assert_eq!(remote(&h.take()), None, "the first beat's deadline is stale");
    h.advance(REMOTE_STALE_MS - 6_000);
    assert_eq!(remote(&h.take()), Some(vec![]));
}

#[test]
fn a_deleted_session_leaves_and_an_import_is_read_again_between_turns() {
    let mut h = open();
    h.send(Command::OtherTab(SyncEvent::SessionDeleted { session_id: "s".into() }));
    let ups = h.take();
    assert!(ups.contains(&Update::Removed("s".into())));
    assert!(h.ws.sessions().is_empty());

    let mut h = open();
    now(h.p.store.put_session(&SessionRecord::new("t", 5.0))).expect("t");
    h.send(Command::OtherTab(SyncEvent::SessionsChanged));
    let ups = h.take();
    assert_eq!(h.ws.sessions().len(), 2);
    assert!(ups.iter().any(|u| matches!(u, Update::Messages { .. })), "the open chat read again");
}
