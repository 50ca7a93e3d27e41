use air_store::sync_meta::{ON_KEY, SETTINGS_KEY, SyncSettings};
use serde_json::json;

use super::*;
use crate::fake::{FakePlatform, Harness};

fn started() -> Harness {
    let mut h = Harness::new(FakePlatform::default());
    h.send(Command::Start);
    h.take();
    h
}

fn on() -> SyncSettings {
    SyncSettings { url: "https://couch.test/chats".into(), user: "ana".into(), password: "pw".into(), passphrase: "words".into(), confirmed: true, on: true, device: String::new() }
}

fn save(s: SyncSettings) -> Command {
    Command::Sync(Action::Save { on: s.ready(), settings: s.text() })
}

fn passed(up: u64, down: u64) -> Outcome {
    Outcome::Passed(Ok(Passed { up, down, remote_seq: json!(7), local_seq: 3, refused: 0, prefs: false, conflicts: Vec::new(), moved: Default::default() }))
}

fn states(h: &mut Harness) -> Vec<State> {
    h.take().into_iter().filter_map(|u| if let Update::Sync(s) = u { Some(s.state) } else { None }).collect()
}

fn kinds(h: &Harness) -> Vec<&'static str> {
    h.p.sync_jobs.borrow().iter().map(|j| if matches!(j, Job::Pass { .. }) { "pass" } else { "wait" }).collect()
}

#[test]
fn saved_settings_start_a_pass_then_waits_follow_each_other() {
    let mut h = started();
    h.p.sync_outcomes.borrow_mut().extend([passed(2, 5), Outcome::Woke(Wake::Quiet), Outcome::Woke(Wake::Local), passed(1, 0)]);
    h.send(save(on()));
    // Kept as they were saved, on this device.
    assert_eq!(SyncSettings::read(&SETTINGS_KEY.get(&*h.p.kv)), on());
    assert!(ON_KEY.get(&*h.p.kv));
    // Pass, wait (quiet), wait again, a local change: pass, then wait.
    assert_eq!(kinds(&h), ["pass", "wait", "wait", "pass", "wait"]);
    let updates = h.take();
    assert!(updates.contains(&Update::SessionsChanged), "what came down is shown");
    let last = updates.iter().rev().find_map(|u| if let Update::Sync(s) = u { Some(s.clone()) } else { None }).unwrap();
    assert_eq!((last.state, last.up, last.down), (State::Idle, 3, 5));
    assert!(last.last.is_some());
    // The wait goes on from where the pass left.
    let jobs = h.p.sync_jobs.borrow();
    let Job::Wait { since, .. } = &jobs[1] else { panic!() };
    assert_eq!(since, &(json!(7), 3));
    let Job::Pass { settings: s, .. } = &jobs[3] else { panic!() };
    assert_eq!(SyncSettings::read(s), on(), "the settings kept, every pass");
}

#[test]
fn a_server_that_cannot_be_reached_is_tried_again_later_and_later() {
    let mut h = started();
    let unreachable = || Outcome::Passed(Err(Failure::Unreachable("connection refused".into())));
    h.p.sync_outcomes.borrow_mut().extend([unreachable(), unreachable()]);
    h.send(save(on()));
    assert_eq!(states(&mut h).last(), Some(&State::Failed { failure: Failure::Unreachable("connection refused".into()), retry_s: Some(5) }));
    h.advance(4_000);
    assert_eq!(kinds(&h), ["pass"]);
    h.advance(1_000);
    assert_eq!(kinds(&h), ["pass", "pass"]);
    assert_eq!(states(&mut h).last(), Some(&State::Failed { failure: Failure::Unreachable("connection refused".into()), retry_s: Some(10) }));
    h.p.sync_outcomes.borrow_mut().push_back(passed(0, 0));
    h.advance(10_000);
    assert_eq!(states(&mut h).last(), Some(&State::Idle));
    assert_eq!(kinds(&h), ["pass", "pass", "pass", "wait"]);
}

#[test]
fn a_wrong_password_or_passphrase_waits_for_the_user() {
    let mut h = started();
    h.p.sync_outcomes.borrow_mut().push_back(Outcome::Passed(Err(Failure::WrongPassphrase)));
    h.send(save(on()));
    assert_eq!(states(&mut h).last(), Some(&State::Failed { failure: Failure::WrongPassphrase, retry_s: None }));
    h.advance(120_000);
    assert_eq!(kinds(&h), ["pass"], "not tried again by itself");
    // Mended: it runs again.
    h.p.sync_outcomes.borrow_mut().push_back(Outcome::Passed(Err(Failure::Unauthorized)));
    h.send(save(SyncSettings { passphrase: "right words".into(), ..on() }));
    assert_eq!(states(&mut h).last(), Some(&State::Failed { failure: Failure::Unauthorized, retry_s: None }));
}

#[test]
fn pause_ends_the_wait_and_a_late_answer_changes_nothing() {
    let mut h = started();
    h.p.sync_outcomes.borrow_mut().push_back(passed(0, 0));
    h.send(save(on()));
    let abort = match &h.p.sync_jobs.borrow()[1] {
        Job::Wait { abort, .. } => abort.clone(),
        j => panic!("{j:?}"),
    };
    assert!(!abort.is_aborted());
    h.send(Command::Sync(Action::Pause(true)));
    assert!(abort.is_aborted());
    assert_eq!(states(&mut h).last(), Some(&State::Paused));
    // The wait's answer, late: ignored.
    h.send(Command::Sync(Action::Done(1, Ok(Outcome::Woke(Wake::Remote)))));
    assert_eq!(kinds(&h), ["pass", "wait"]);
    assert!(states(&mut h).is_empty());
    h.send(Command::Sync(Action::Pause(false)));
    assert_eq!(kinds(&h), ["pass", "wait", "pass"]);
    // Switched off: nothing runs, and it says so.
    h.send(save(SyncSettings { on: false, ..on() }));
    assert_eq!(states(&mut h).last(), Some(&State::Off));
    h.send(Command::Sync(Action::Now));
    assert_eq!(kinds(&h).len(), 3);
}

#[test]
fn sync_on_when_the_page_opens_starts_once_the_store_is_open() {
    let p = FakePlatform::default();
    SETTINGS_KEY.set(&*p.kv, &SyncSettings { device: "d1".into(), ..on() }.text()).unwrap();
    ON_KEY.set(&*p.kv, &true).unwrap();
    let mut h = Harness::new(p);
    h.send(Command::Start);
    assert_eq!(kinds(&h), ["pass"]);
    let Job::Pass { settings: s, .. } = &h.p.sync_jobs.borrow()[0] else { panic!() };
    assert_eq!(SyncSettings::read(s).device, "d1");
}

#[test]
fn one_pass_at_a_time_and_new_settings_abort_the_one_that_runs() {
    let mut h = started();
    // The first pass waits (nothing scripted).
    h.send(save(on()));
    assert_eq!(kinds(&h), ["pass"]);
    h.send(Command::Sync(Action::Now));
    h.send(Command::Sync(Action::Now));
    assert_eq!(kinds(&h), ["pass"], "not two passes at once");
    let abort = match &h.p.sync_jobs.borrow()[0] {
        Job::Pass { abort, .. } => abort.clone(),
        j => panic!("{j:?}"),
    };
    // New settings: the running pass is aborted, and the next one waits for it to end.
    h.send(save(SyncSettings { url: "https://other.test/chats".into(), ..on() }));
    assert!(abort.is_aborted());
    assert_eq!(kinds(&h), ["pass"]);
    h.p.sync_outcomes.borrow_mut().push_back(passed(0, 0));
    h.send(Command::Sync(Action::Done(1, Ok(Outcome::Passed(Err(Failure::Other("aborted".into())))))));
    let jobs = h.p.sync_jobs.borrow();
    assert_eq!(jobs.len(), 3, "{jobs:?}");
    let Job::Pass { settings, .. } = &jobs[1] else { panic!("{jobs:?}") };
    assert_eq!(SyncSettings::read(settings).url, "https://other.test/chats");
    assert!(matches!(jobs[2], Job::Wait { .. }));
}

#[test]
fn what_a_pass_brought_is_shown_when_another_pass_follows_it_at_once() {
    let mut h = started();
    // A pass runs (nothing scripted: it waits), and "Sync now" asks for another.
    h.send(save(on()));
    h.send(Command::Sync(Action::Now));
    h.take();
    // The first brings records down; the second finds nothing new.
    h.p.sync_outcomes.borrow_mut().push_back(passed(0, 0));
    h.send(Command::Sync(Action::Done(2, Ok(passed(0, 8)))));
    assert_eq!(kinds(&h), ["pass", "pass", "wait"]);
    let updates = h.take();
    assert!(updates.contains(&Update::SessionsChanged), "what came down in the first pass is shown");
    let last = updates.iter().rev().find_map(|u| if let Update::Sync(s) = u { Some(s.clone()) } else { None }).unwrap();
    assert_eq!((last.state, last.down), (State::Idle, 8), "and counted");
    // A pass whose answer comes after a pause: what it wrote is shown too.
    h.send(Command::Sync(Action::Now));
    h.send(Command::Sync(Action::Pause(true)));
    h.take();
    let ticket = h.p.sync_jobs.borrow().len() as u64;
    h.send(Command::Sync(Action::Done(ticket, Ok(passed(0, 2)))));
    let updates = h.take();
    assert!(updates.contains(&Update::SessionsChanged));
    assert!(!updates.iter().any(|u| matches!(u, Update::Sync(_))), "the pause stands: {updates:?}");
}

#[test]
fn a_tab_that_finds_another_syncing_says_so_and_takes_over_once_that_tab_is_gone() {
    let mut h = started();
    h.p.sync_outcomes.borrow_mut().extend([Outcome::Elsewhere, Outcome::Elsewhere, passed(0, 2)]);
    h.send(save(on()));
    assert_eq!(states(&mut h).last(), Some(&State::Elsewhere));
    h.advance(ELSEWHERE_MS - 1);
    assert_eq!(kinds(&h), ["pass"], "it leaves the work to the other tab meanwhile");
    h.advance(1);
    assert_eq!(states(&mut h).last(), Some(&State::Elsewhere));
    h.advance(ELSEWHERE_MS);
    assert_eq!(states(&mut h).last(), Some(&State::Idle));
    assert_eq!(kinds(&h), ["pass", "pass", "pass", "wait"]);
}

#[test]
fn documents_set_aside_are_counted_in_settings_and_said_as_they_come() {
    let mut h = started();
    let refusing = |n| {
        Outcome::Passed(Ok(Passed {
            refused: n,
            ..match passed(0, 1) {
                Outcome::Passed(Ok(p)) => p,
                _ => unreachable!(),
            }
        }))
    };
    h.p.sync_outcomes.borrow_mut().extend([refusing(2), Outcome::Woke(Wake::Remote), refusing(1)]);
    h.send(save(on()));
    let updates = h.take();
    assert!(updates.contains(&Update::Notice(crate::Notice::SyncRefused(2))));
    assert!(updates.contains(&Update::Notice(crate::Notice::SyncRefused(1))));
    let last = updates.iter().rev().find_map(|u| if let Update::Sync(s) = u { Some(s.clone()) } else { None }).unwrap();
    assert_eq!(last.refused, 3, "Settings → Sync says how many since the page opened");
}
