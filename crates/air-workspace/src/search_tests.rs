use air_chat::Role;
use air_store::{MessageRecord, SessionRecord, Store};

use super::*;
use crate::fake::{FakePlatform, Harness};

fn ready(_p: &FakePlatform, f: impl std::future::Future<Output = air_store::Result<()>>) {
    crate::fake::now(f).expect("stored");
}

/// A started harness whose store holds one session with `text` in it.
fn with_message(text: &str) -> Harness {
    let p = FakePlatform::default();
    ready(&p, p.store.put_session(&SessionRecord::new("s", 1.0)));
    let mut m = MessageRecord::new("m", "s", 1.0, Role::User, text);
    m.timestamp = 1.0;
    ready(&p, p.store.put_message(&m));
    let mut h = Harness::new(p);
    h.send(Command::Start);
    h.take();
    h
}

fn hits(updates: &[Update]) -> Option<Vec<Option<String>>> {
    updates.iter().rev().find_map(|u| match u {
        Update::SearchResults(Some(r)) => Some(r.hits.iter().map(|h| h.message_id.clone()).collect()),
        _ => None,
    })
}

#[test]
fn a_query_runs_after_a_pause_in_typing_and_only_the_latest_counts() {
    let mut h = with_message("ownership and borrowing in Rust");
    h.send(Command::Search(crate::search::Action::Query("own".into())));
    h.advance(100);
    h.send(Command::Search(crate::search::Action::Query("borrowing".into())));
    h.advance(100);
    assert_eq!(h.p.asked(crate::platform::Part::Search, None), 0, "still typing");
    h.advance(SEARCH_DELAY_MS);
    assert_eq!(h.p.asked(crate::platform::Part::Search, None), 1, "one search, the latest query's");
    let updates = h.take();
    assert!(updates.contains(&Update::SearchStarted));
    assert_eq!(hits(&updates), Some(vec![Some("m".to_owned())]));
    h.send(Command::Search(crate::search::Action::Query("  ".into())));
    assert_eq!(h.take(), vec![Update::SearchResults(None)], "an empty query clears the results at once");
}

#[test]
fn an_answer_to_an_older_query_is_dropped() {
    let mut h = with_message("ownership");
    h.send(Command::Search(crate::search::Action::Query("ownership".into())));
    h.p.now.set(h.p.now.get() + SEARCH_DELAY_MS as f64);
    h.ws.handle_timeout(h.p.now.get());
    let asked = h.ws.poll_task().expect("the search");
    h.send(Command::Search(crate::search::Action::Query("something else".into())));
    let mut asked = asked;
    let std::task::Poll::Ready(Some(answer)) = asked.0.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop())) else { panic!("answered") };
    h.take();
    h.send(answer);
    assert_eq!(hits(&h.take()), None, "not shown under the new query");
}

#[test]
fn an_index_that_cannot_be_read_is_built_again_and_the_search_asked_again() {
    let mut h = with_message("ownership");
    h.p.store.index_unreadable.set(true);
    h.send(Command::Search(crate::search::Action::Query("ownership".into())));
    h.advance(SEARCH_DELAY_MS);
    let updates = h.take();
    assert_eq!(updates.iter().filter(|u| matches!(u, Update::Indexing(_))).count(), 2, "{updates:?}");
    h.advance(SEARCH_DELAY_MS);
    assert_eq!(hits(&h.take()), Some(vec![Some("m".to_owned())]), "asked again once built");
    assert_eq!(h.p.asked(crate::platform::Part::Search, None), 2);
}

#[test]
fn start_up_looks_at_the_index_once_the_first_screen_is_drawn() {
    let mut h = with_message("ownership");
    assert_eq!(h.ws.poll_timeout(), Some(h.p.now.get() + INDEX_CHECK_DELAY_MS as f64));
    h.advance(INDEX_CHECK_DELAY_MS);
    assert!(!h.take().contains(&Update::Indexing(true)), "a complete index is left alone");
    assert_eq!(h.ws.poll_timeout(), None);
}

#[test]
fn a_part_that_cannot_be_fetched_is_said() {
    let mut h = with_message("ownership");
    h.p.parts_missing.set(true);
    h.send(Command::Search(crate::search::Action::Query("ownership".into())));
    h.advance(SEARCH_DELAY_MS);
    assert!(h.take().contains(&Update::Notice(Notice::PartMissing)));
}

#[test]
fn the_best_hits_are_shown_first_and_the_rest_follow() {
    let p = FakePlatform::default();
    ready(&p, p.store.put_session(&SessionRecord::new("s", 1.0)));
    for i in 0..30 {
        let mut m = MessageRecord::new(format!("m{i:02}"), "s", f64::from(i), Role::User, format!("a lighthouse, note {i}"));
        m.timestamp = f64::from(i);
        ready(&p, p.store.put_message(&m));
    }
    let mut h = Harness::new(p);
    h.send(Command::Start);
    h.take();
    h.send(Command::Search(crate::search::Action::Query("lighthouse".into())));
    h.advance(SEARCH_DELAY_MS);
    assert_eq!(h.p.asked(crate::platform::Part::Search, None), 1);
    h.advance(MORE_HITS_DELAY_MS);
    let shown: Vec<Vec<Option<String>>> = h
        .take()
        .into_iter()
        .filter_map(|u| match u {
            Update::SearchResults(Some(r)) => Some(r.hits.into_iter().map(|h| h.message_id).collect()),
            _ => None,
        })
        .collect();
    assert_eq!(shown.iter().map(Vec::len).collect::<Vec<_>>(), [FIRST_HITS, 30], "a screenful, then all");
    assert_eq!(shown[0][..], shown[1][..FIRST_HITS], "the first stay as they were");
    assert_eq!(h.p.asked(crate::platform::Part::Search, None), 2);
    // Fewer than a screenful: one query.
    h.send(Command::Search(crate::search::Action::Query("note 7".into())));
    h.advance(SEARCH_DELAY_MS + MORE_HITS_DELAY_MS);
    assert_eq!(h.p.asked(crate::platform::Part::Search, None), 3);
    // A newer query before the rest is asked for: the older's rest is not.
    h.send(Command::Search(crate::search::Action::Query("lighthouse".into())));
    h.advance(SEARCH_DELAY_MS);
    h.send(Command::Search(crate::search::Action::Query("lighthouse note".into())));
    h.advance(SEARCH_DELAY_MS);
    h.advance(MORE_HITS_DELAY_MS);
    assert_eq!(h.p.asked(crate::platform::Part::Search, None), 6, "lighthouse's first, then lighthouse note's first and rest");
}
