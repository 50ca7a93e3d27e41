use air_store::{KeyValue, SessionRecord, Store, StoreError};

use super::*;
use crate::fake::{FakePlatform, Harness, now};

fn session(id: &str, at: f64) -> SessionRecord {
    let mut s = SessionRecord::new(id, at);
    s.auto_title(&format!("About {id}"), 0.0);
    s
}

/// A harness whose store holds `n` sessions (`s0` oldest), started.
fn started(n: usize) -> Harness {
    let p = FakePlatform::default();
    p.now.set(1_000_000.0);
    for i in 0..n {
        pollster_lite(p.store.put_session(&session(&format!("s{i}"), i as f64))).expect("stored");
    }
    let mut h = Harness::new(p);
    h.send(Command::Start);
    h
}

/// Runs a future the memory store answers at once.
fn pollster_lite<T>(f: impl std::future::Future<Output = T>) -> T {
    let mut f = std::pin::pin!(f);
    match f.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop())) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => panic!("the memory store answers at once"),
    }
}

fn ids(h: &Harness) -> Vec<String> {
    h.ws.sessions().iter().map(|s| s.id.clone()).collect()
}

fn last_list(updates: &[Update]) -> Option<(Vec<String>, bool)> {
    updates.iter().rev().find_map(|u| match u {
        Update::Sessions { list, has_more } => Some((list.iter().map(|s| s.id.clone()).collect(), *has_more)),
        _ => None,
    })
}

#[test]
fn start_opens_the_store_reads_one_page_and_opens_the_newest() {
    let mut h = started(150);
    let updates = h.take();
    assert_eq!(updates[..2], [Update::StoreReady, Update::WarmChatView], "sessions found: the view is fetched before the list shows");
    let (list, more) = last_list(&updates).expect("a list");
    assert_eq!((list.len(), more), (SESSION_PAGE, true), "one page, however many are stored");
    assert_eq!(list[0], "s149");
    assert_eq!(updates.last(), Some(&Update::Started { first: Some("s149".into()) }));
    assert!(HAS_SESSIONS.get(&*h.p.kv), "remembered for the next start");
    // The next page, once; asking again while it is read does nothing.
    h.ws.handle(Command::Sessions(crate::sessions::Action::LoadMore));
    h.ws.handle(Command::Sessions(crate::sessions::Action::LoadMore));
    h.run();
    assert_eq!(ids(&h).len(), 150);
    assert_eq!(last_list(&h.take()), Some((ids(&h), false)));
}

#[test]
fn an_empty_store_starts_on_the_creator_and_forgets_the_hint() {
    let p = FakePlatform::default();
    HAS_SESSIONS.set(&*p.kv, &true).unwrap();
    let mut h = Harness::new(p);
    h.send(Command::Start);
    let updates = h.take();
    assert_eq!(updates[0], Update::WarmChatView, "the hint fetches the view at once");
    assert_eq!(updates.last(), Some(&Update::Started { first: None }));
    assert!(!HAS_SESSIONS.get(&*h.p.kv));
    assert_eq!(h.p.kv.get("air-agent.has-sessions"), None);
}

#[test]
fn a_store_that_cannot_open_is_said_and_memory_used() {
    let p = FakePlatform::default();
    *p.refuse_store.borrow_mut() = Some("IndexedDB is disabled".into());
    let mut h = Harness::new(p);
    h.send(Command::Start);
    let updates = h.take();
    assert_eq!(updates[0], Update::Notice(Notice::StoreFellBack("IndexedDB is disabled".into())));
    assert_eq!(updates.last(), Some(&Update::Started { first: None }));
}

#[test]
fn a_page_asked_before_the_list_started_again_is_dropped() {
    let mut h = started(150);
    h.take();
    // The next page is asked; before it is read, another tab changes the list.
    h.ws.handle(Command::Sessions(crate::sessions::Action::LoadMore));
    let stale = h.ws.poll_task().expect("a page");
    h.send(Command::Sessions(crate::sessions::Action::Reload));
    assert_eq!(ids(&h).len(), SESSION_PAGE);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let mut stale = stale;
    let std::task::Poll::Ready(Some(cmd)) = stale.0.as_mut().poll(&mut cx) else { panic!("answered") };
    h.send(cmd);
    assert_eq!(ids(&h).len(), SESSION_PAGE, "the old page's answer is dropped");
}

#[test]
fn a_deleted_session_can_be_brought_back_until_its_window_closes() {
    let mut h = started(3);
    h.take();
    h.send(Command::Sessions(crate::sessions::Action::Delete("s1".into())));
    assert_eq!(ids(&h), ["s2", "s0"]);
    let updates = h.take();
    assert!(updates.contains(&Update::Removed("s1".into())));
    assert!(matches!(updates.last(), Some(Update::PendingDelete(Some(s))) if s.id == "s1"));
    h.advance(UNDO_MS - 1);
    h.send(Command::Sessions(crate::sessions::Action::UndoDelete));
    assert_eq!(ids(&h), ["s2", "s1", "s0"], "back in its place");
    h.advance(10);
    assert!(pollster_lite(h.p.store.get_session("s1")).unwrap().is_some(), "never deleted");
    assert!(!h.take().iter().any(|u| matches!(u, Update::Deleted(_))));
}

#[test]
fn a_deleted_session_goes_for_good_when_its_window_closes_and_a_second_delete_finishes_the_first() {
    let mut h = started(3);
    h.send(Command::Sessions(crate::sessions::Action::Delete("s1".into())));
    h.advance(1000);
    h.send(Command::Sessions(crate::sessions::Action::Delete("s2".into())));
    assert!(pollster_lite(h.p.store.get_session("s1")).unwrap().is_none(), "the first goes at once");
    assert!(h.take().contains(&Update::Deleted("s1".into())));
    h.advance(UNDO_MS - 1001);
    assert!(pollster_lite(h.p.store.get_session("s2")).unwrap().is_some(), "its window is still open");
    h.advance(1001);
    assert!(pollster_lite(h.p.store.get_session("s2")).unwrap().is_none());
    let updates = h.take();
    assert!(updates.contains(&Update::PendingDelete(None)) && updates.contains(&Update::Deleted("s2".into())));
    assert_eq!(h.ws.poll_timeout(), None, "no timer left");
    // Saved meanwhile by a turn: a session waiting for deletion stays out.
    h.send(Command::Sessions(crate::sessions::Action::Delete("s0".into())));
    h.send(Command::Sessions(crate::sessions::Action::Saved(session("s0", 5.0))));
    assert_eq!(ids(&h), Vec::<String>::new());
}

/// The page is closed (a reload) and opened again over the same storage.
fn reloaded(h: &Harness) -> Harness {
    let mut h = Harness::new(FakePlatform::reloaded(&h.p));
    h.send(Command::Start);
    h
}

#[test]
fn a_deletion_holds_when_the_page_closes_in_its_undo_window_or_while_the_store_deletes() {
    let mut h = started(3);
    h.send(Command::Sessions(crate::sessions::Action::Delete("s1".into())));
    h.advance(1000);
    assert!(pollster_lite(h.p.store.get_session("s1")).unwrap().is_some(), "its window is open");
    // A reload in the undo window: the session stays deleted, and goes for good.
    let h = reloaded(&h);
    assert_eq!(ids(&h), ["s2", "s0"], "a deleted session does not come back");
    assert!(pollster_lite(h.p.store.get_session("s1")).unwrap().is_none(), "finished at the start");
    assert!(!air_store::keys::DELETING.is_set(&*h.p.kv), "nothing left to finish");
    // Its window closed, and the page went before the store had deleted it
    // (a slow IndexedDB deletion): the next start finishes it.
    air_store::keys::DELETING.set(&*h.p.kv, &"s2".to_owned()).expect("kept");
    let mut h = reloaded(&h);
    assert_eq!(ids(&h), ["s0"]);
    assert!(pollster_lite(h.p.store.get_session("s2")).unwrap().is_none());
    // Brought back in its window: it stays, after a reload too.
    h.send(Command::Sessions(crate::sessions::Action::Delete("s0".into())));
    h.send(Command::Sessions(crate::sessions::Action::UndoDelete));
    let h = reloaded(&h);
    assert_eq!(ids(&h), ["s0"]);
}

#[test]
fn every_deletion_the_store_has_not_finished_holds_across_a_reload() {
    let mut h = started(3);
    // The part that deletes cannot load (offline, not cached): the first
    // deletion fails when its window closes, and a second one follows.
    h.p.parts_missing.set(true);
    h.send(Command::Sessions(crate::sessions::Action::Delete("s1".into())));
    h.advance(UNDO_MS);
    h.send(Command::Sessions(crate::sessions::Action::Delete("s2".into())));
    assert!(pollster_lite(h.p.store.get_session("s1")).unwrap().is_some(), "not deleted yet");
    let h = reloaded(&h);
    assert_eq!(ids(&h), ["s0"], "neither comes back");
    for id in ["s1", "s2"] {
        assert!(pollster_lite(h.p.store.get_session(id)).unwrap().is_none(), "{id} finished at the start");
    }
    assert!(!air_store::keys::DELETING.is_set(&*h.p.kv), "nothing left to finish");
}

#[test]
fn a_session_saved_elsewhere_joins_the_list_in_its_place() {
    let mut h = started(2);
    h.send(Command::Sessions(crate::sessions::Action::Saved(session("new", 10.0))));
    h.send(Command::Sessions(crate::sessions::Action::Saved(session("s0", 20.0))));
    assert_eq!(ids(&h), ["s0", "new", "s1"]);
    h.send(Command::Sessions(crate::sessions::Action::Gone("new".into())));
    assert_eq!(ids(&h), ["s0", "s1"]);
    assert!(h.take().contains(&Update::Removed("new".into())));
}

#[test]
fn a_rename_is_stored_and_the_list_shows_the_session_as_stored() {
    let mut h = started(2);
    h.take();
    h.send(Command::Sessions(crate::sessions::Action::Rename { id: "s1".into(), title: "  ".into() }));
    h.send(Command::Sessions(crate::sessions::Action::Rename { id: "s1".into(), title: "About s1".into() }));
    assert!(h.take().is_empty(), "an empty or unchanged title changes nothing");
    h.send(Command::Sessions(crate::sessions::Action::Rename { id: "s1".into(), title: "Lifetimes".into() }));
    let stored = pollster_lite(h.p.store.get_session("s1")).unwrap().expect("stored");
    assert_eq!((stored.title.as_str(), stored.title_edited, stored.title_at), ("Lifetimes", true, Some(1_000_000.0)), "renamed now");
    assert_eq!(h.ws.sessions()[0].title, "Lifetimes");
    assert_eq!(h.take().last(), Some(&Update::Renamed("s1".into())));
}

#[test]
fn a_store_failure_is_a_notice_with_what_was_being_done() {
    let mut h = started(1);
    h.take();
    let e = StoreError::QuotaExceeded("full".into());
    h.send(Command::Sessions(crate::sessions::Action::Renamed { id: "s0".into(), result: Err(e.clone()) }));
    assert_eq!(h.take(), vec![Update::Notice(Notice::Store { op: StoreOp::Rename, error: e })]);
}

#[test]
fn a_delete_whose_part_cannot_be_fetched_says_so() {
    let p = FakePlatform::default();
    now(p.store.put_session(&SessionRecord::new("s1", 1.0))).expect("s1");
    let mut h = Harness::new(p);
    h.send(Command::Start);
    h.p.parts_missing.set(true);
    h.send(Command::Sessions(crate::sessions::Action::Delete("s1".into())));
    h.advance(UNDO_MS);
    let updates = h.take();
    assert!(updates.contains(&Update::Notice(Notice::PartMissing)), "{updates:?}");
    assert!(!updates.iter().any(|u| matches!(u, Update::Deleted(_))));
    assert!(now(h.p.store.get_session("s1")).expect("read").is_some(), "nothing was deleted");
}
