use air_servers::add::Draft;
use air_servers::credentials::{Asked, SignInError};
use air_store::keys::{MCP_ADD_DRAFT, OAUTH_PENDING, OAUTH_RETURN};
use air_store::mcp::McpServer;

use super::*;
use crate::fake::{FakePlatform, Harness};
use crate::prefs::{self, Prefs};
use crate::{Command, Notice, Update};

const URL: &str = "http://127.0.0.1:9/mcp";

fn asked() -> Asked {
    Asked { challenge: Some(r#"Bearer resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource""#.into()), more_scope: false }
}

/// A started harness with server `docs` (at [`URL`]) saved and enabled.
fn harness(p: FakePlatform) -> Harness {
    let server: McpServer = serde_json::from_value(serde_json::json!({"id": "docs", "name": "docs", "url": URL})).expect("a server");
    let prefs = Prefs { servers: vec![server], ..Prefs::default() };
    prefs::write(&*p.kv, &prefs, prefs::Touched { servers: true, ..prefs::Touched::default() }).expect("written");
    let mut h = Harness::new(p);
    h.send(Command::Start);
    h.take();
    h
}

fn act(h: &mut Harness, a: Action) -> Vec<Update> {
    h.send(Command::SignIn(a));
    h.take()
}

/// The user clicks Sign in for the server at [`URL`].
fn click(h: &mut Harness) -> Vec<Update> {
    act(h, Action::Start { url: URL.into(), client_id: None, form: None })
}

fn sign_ins(ups: &[Update]) -> SignIns {
    ups.iter()
        .rev()
        .find_map(|u| match u {
            Update::SignIns(s) => Some((**s).clone()),
            _ => None,
        })
        .expect("the sign-ins are shown")
}

#[test]
fn a_refused_server_waits_for_a_sign_in_and_connects_again_after_it() {
    let p = FakePlatform::default();
    p.sign_in_results.borrow_mut().push_back(Ok(()));
    let mut h = harness(p);
    let ups = act(&mut h, Action::Asked { url: URL.into(), asked: asked() });
    assert!(sign_ins(&ups).needed(URL));
    assert!(sign_ins(&ups).needed(&format!(" {URL} ")), "read by the URL as saved, spaces aside");

    let connects = h.p.connects.borrow().len();
    let ups = act(&mut h, Action::Start { url: format!("{URL} "), client_id: Some("  ".into()), form: None });
    assert_eq!(*h.p.sign_ins.borrow(), vec![(URL.to_owned(), None, asked())], "what the server said goes with it; a blank client id is none");
    let now = sign_ins(&ups);
    assert!(!now.needed(URL));
    assert_eq!(now.outcome(URL), Some(&Outcome::Done));
    assert_eq!(h.p.connects.borrow().len(), connects + 1, "the servers connect again");
    assert_eq!(h.p.connects.borrow().last().cloned(), Some(vec!["docs".to_owned()]));
}

#[test]
fn one_sign_in_per_server_at_a_time_and_a_closed_window_is_said() {
    let mut h = harness(FakePlatform::default());
    act(&mut h, Action::Asked { url: URL.into(), asked: asked() });
    // Nothing scripted: the sign-in waits for the user.
    let ups = act(&mut h, Action::Start { url: URL.into(), client_id: Some(" my-client ".into()), form: None });
    assert!(sign_ins(&ups).running(URL));
    click(&mut h);
    assert_eq!(h.p.sign_ins.borrow().len(), 1, "a second click while one runs starts nothing");
    assert_eq!(h.p.sign_ins.borrow()[0].1.as_deref(), Some("my-client"));

    let ups = act(&mut h, Action::Ended { url: URL.into(), form: None, result: Ok(Err(SignInError::Closed)) });
    let now = sign_ins(&ups);
    assert_eq!(now.outcome(URL), Some(&Outcome::Failed(SignInError::Closed)));
    assert!(now.needed(URL), "still waiting for a sign-in");
    // Another click tries again.
    click(&mut h);
    assert_eq!(h.p.sign_ins.borrow().len(), 2);
}

#[test]
fn the_add_form_is_kept_while_signing_in_and_connects_again_after() {
    let p = FakePlatform::default();
    p.sign_in_results.borrow_mut().push_back(Ok(()));
    let mut h = harness(p);
    let draft = Draft { name: "new".into(), url: "http://127.0.0.1:7/mcp".into(), auth: String::new(), ..Draft::default() };
    h.ws.handle(Command::SignIn(Action::Start { url: draft.url.clone(), client_id: None, form: Some(draft.clone()) }));
    assert_eq!(MCP_ADD_DRAFT.get(&*h.p.kv), Some(("new".into(), draft.url.clone(), String::new())), "kept before the page may go");
    h.run();
    assert_eq!(MCP_ADD_DRAFT.get(&*h.p.kv), None, "forgotten once it ended here");
    assert_eq!(h.p.listed.borrow().last(), Some(&draft.url), "the form connects again");
}

#[test]
fn a_sign_in_that_took_the_whole_page_is_finished_on_the_way_back() {
    let p = FakePlatform::default();
    p.sign_in_results.borrow_mut().push_back(Err(SignInError::Redirected));
    let mut h = harness(p);
    let draft = Draft { name: "new".into(), url: URL.into(), auth: "Bearer x".into(), ..Draft::default() };
    let ups = act(&mut h, Action::Start { url: URL.into(), client_id: None, form: Some(draft.clone()) });
    assert!(sign_ins(&ups).running(URL), "the page is leaving: nothing is said");
    assert!(MCP_ADD_DRAFT.is_set(&*h.p.kv), "the form is kept for the way back");

    // The page comes back from the authorization server.
    let kv = h.p.kv.clone();
    OAUTH_RETURN.set(&*kv, &"http://air.test/oauth-callback.html?code=c&state=s".to_owned()).expect("set");
    let p = FakePlatform::with_kv(kv.clone());
    p.sign_in_results.borrow_mut().push_back(Ok(()));
    let mut h = Harness::new(p);
    h.send(Command::Start);
    let ups = h.take();
    assert_eq!(*h.p.finished.borrow(), vec![(URL.to_owned(), "http://air.test/oauth-callback.html?code=c&state=s".to_owned())]);
    assert!(!OAUTH_PENDING.is_set(&*kv) && !OAUTH_RETURN.is_set(&*kv), "finished once");
    assert!(!MCP_ADD_DRAFT.is_set(&*kv));
    assert_eq!(sign_ins(&ups).outcome(URL), Some(&Outcome::Done));
    let back = ups.iter().position(|u| *u == Update::AddFormBack(draft.clone())).expect("the form comes back");
    let open = ups.iter().position(|u| *u == Update::OpenSettings).expect("the settings open on it");
    assert!(back < open);
    assert!(h.p.connects.borrow().len() >= 2, "the servers connect again");

    // A second start has nothing to finish.
    let mut again = Harness::new(FakePlatform::with_kv(kv));
    again.send(Command::Start);
    assert!(again.p.finished.borrow().is_empty());
}

#[test]
fn a_whole_page_sign_in_that_failed_is_said_and_the_form_comes_back_closed() {
    let p = FakePlatform::default();
    OAUTH_PENDING.set(&*p.kv, &URL.to_owned()).expect("set");
    OAUTH_RETURN.set(&*p.kv, &"http://air.test/oauth-callback.html?error=access_denied".to_owned()).expect("set");
    MCP_ADD_DRAFT.set(&*p.kv, &Some(("new".into(), URL.into(), String::new()))).expect("set");
    p.sign_in_results.borrow_mut().push_back(Err(SignInError::Other("access_denied".into())));
    let mut h = Harness::new(p);
    h.send(Command::Start);
    let ups = h.take();
    assert!(ups.contains(&Update::Notice(Notice::SignInFailed(SignInError::Other("access_denied".into())))));
    assert!(ups.iter().any(|u| matches!(u, Update::AddFormBack(d) if d.name == "new")));
    assert!(!ups.contains(&Update::OpenSettings), "the notice says it; the settings stay closed");
}

#[test]
fn signing_out_forgets_the_tokens_and_the_server_waits_for_a_sign_in() {
    let p = FakePlatform::default();
    p.sign_in_results.borrow_mut().push_back(Ok(()));
    let mut h = harness(p);
    click(&mut h);
    let ups = act(&mut h, Action::SignOut(format!(" {URL}")));
    assert_eq!(*h.p.signed_out.borrow(), vec![URL.to_owned()]);
    let now = sign_ins(&ups);
    assert!(now.needed(URL));
    assert_eq!(now.outcome(URL), None, "what was said of the last sign-in goes");
}

#[test]
fn a_sign_in_whose_part_is_missing_says_so_and_can_be_tried_again() {
    let p = FakePlatform::default();
    p.parts_missing.set(true);
    let mut h = harness(p);
    let ups = click(&mut h);
    assert!(ups.contains(&Update::Notice(Notice::PartMissing)));
    assert_eq!(sign_ins(&ups).outcome(URL), None);
    h.p.parts_missing.set(false);
    click(&mut h);
    assert_eq!(h.p.sign_ins.borrow().len(), 2);
}
