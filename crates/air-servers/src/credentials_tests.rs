use std::cell::Cell;

use air_http::fake::{Script, ScriptedHttp};
use air_http::{HttpError, Request, Response};
use air_oauth::flow::Settings;
use air_oauth::{AuthServer, Client, Discovery, Tokens};

use super::*;

const SERVER: &str = "https://mcp.test/mcp";

/// The scripted HTTP, answering only after yielding once, so that two
/// requests made together are both under way before either ends.
#[derive(Clone, Default)]
struct Slow(Rc<ScriptedHttp>);

impl HttpClient for Slow {
    type Body = <ScriptedHttp as HttpClient>::Body;
    async fn send(&self, request: Request, abort: &Abort) -> Result<Response<Self::Body>, HttpError> {
        let yielded = Cell::new(false);
        std::future::poll_fn(|cx| {
            if yielded.replace(true) {
                std::task::Poll::Ready(())
            } else {
                cx.waker().wake_by_ref();
                std::task::Poll::Pending
            }
        })
        .await;
        self.0.send(request, abort).await
    }
    async fn answers_without_cors(&self, url: &str) -> bool {
        self.0.answers_without_cors(url).await
    }
}

fn discovery() -> Discovery {
    let server = AuthServer {
        issuer: "https://as.test".into(),
        authorization_endpoint: "https://as.test/authorize".into(),
        token_endpoint: "https://as.test/token".into(),
        registration_endpoint: None,
        scopes_supported: vec![],
        token_endpoint_auth_methods_supported: vec![],
        client_id_metadata_document_supported: false,
        authorization_response_iss_parameter_supported: false,
    };
    Discovery { resource: SERVER.into(), server, scope: Some("read".into()) }
}

fn tokens(access: &str, refresh: Option<&str>, expires_at: Option<u64>) -> Tokens {
    Tokens { access_token: access.into(), token_type: "Bearer".into(), refresh_token: refresh.map(str::to_owned), expires_at, scope: Some("read".into()), obtained_at: Some(0) }
}

/// A vault holding a grant for [`SERVER`] from a known client.
fn vault(t: Tokens) -> Rc<MemoryVault> {
    let v = MemoryVault::default();
    let mut vault = Vault::default();
    vault.clients.insert("https://as.test".into(), Client { client_id: "c1".into(), client_secret: None, auth_method: "none".into() });
    vault.put_grant(SERVER, discovery(), t);
    v.save(&vault);
    Rc::new(v)
}

struct Fixture {
    http: Slow,
    vault: Rc<MemoryVault>,
    asked: Rc<RefCell<Vec<(String, Asked)>>>,
    spawned: Rc<Cell<usize>>,
    creds: Rc<Credentials<Slow>>,
}

fn fixture(t: Tokens, now: u64) -> Fixture {
    let http = Slow::default();
    let vault = vault(t);
    let asked: Rc<RefCell<Vec<(String, Asked)>>> = Rc::default();
    let spawned: Rc<Cell<usize>> = Rc::default();
    let log = asked.clone();
    let count = spawned.clone();
    let creds = Credentials::new(
        OAuth::new(http.clone(), Settings::default()),
        vault.clone(),
        Rc::new(move || now),
        Rc::new(move |_| count.set(count.get() + 1)),
        OnRefused::Ask(Rc::new(move |url, a| log.borrow_mut().push((url.to_owned(), a)))),
    );
    Fixture { http, vault, asked, spawned, creds }
}

const REFRESHED: &str = r#"{"access_token":"a2","token_type":"Bearer","refresh_token":"r2","expires_in":3600}"#;

#[test]
fn a_token_goes_in_the_header_and_one_near_its_end_is_refreshed_in_the_background() {
    let f = fixture(tokens("a1", Some("r1"), Some(1_000_000)), 0);
    let auth = f.creds.authorizer(SERVER);
    assert_eq!(auth.header().as_deref(), Some("Bearer a1"));
    assert_eq!(f.spawned.get(), 0, "far from its end: no refresh");
    let late = fixture(tokens("a1", Some("r1"), Some(1_000_000)), 1_000_000 - REFRESH_MARGIN_MS / 2);
    assert_eq!(late.creds.authorizer(SERVER).header().as_deref(), Some("Bearer a1"), "still sent while it lasts");
    assert_eq!(late.spawned.get(), 1, "refreshed for what follows");
    assert!(f.creds.signed_in(SERVER));
    f.creds.forget(SERVER);
    assert!(!f.creds.signed_in(SERVER) && auth.header().is_none());
    assert!(f.vault.load().clients.contains_key("https://as.test"), "the client stays for the next sign-in");
}

#[test]
fn two_refusals_at_once_make_one_refresh_and_both_send_again() {
    let f = fixture(tokens("a1", Some("r1"), Some(10)), 100);
    f.http.0.push(Script::status(200, REFRESHED));
    let auth = f.creds.authorizer(SERVER);
    let (a, b) = pollster::block_on(futures_util::future::join(auth.refused(401, None), auth.refused(401, None)));
    assert!(a && b, "both send again");
    let tokens_asked = f.http.0.requests().iter().filter(|r| r.url == "https://as.test/token").count();
    assert_eq!(tokens_asked, 1, "a refresh token may be good for one use only");
    assert_eq!(auth.header().as_deref(), Some("Bearer a2"));
    assert!(f.asked.borrow().is_empty());
}

#[test]
fn a_refusal_without_a_way_to_refresh_asks_the_user_with_what_the_server_said() {
    let f = fixture(tokens("a1", None, Some(10)), 100);
    let auth = f.creds.authorizer(SERVER);
    let challenge = r#"Bearer error="insufficient_scope", scope="read write""#;
    assert!(!pollster::block_on(auth.refused(403, Some(challenge.into()))));
    assert!(f.http.0.requests().is_empty(), "a 403 is not answered by a refresh");
    let asked = f.asked.borrow();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].0, SERVER);
    assert!(asked[0].1.more_scope);
    assert_eq!(asked[0].1.challenge.as_deref(), Some(challenge));
}

#[test]
fn a_failed_refresh_asks_the_user() {
    let f = fixture(tokens("a1", Some("r1"), Some(10)), 100);
    f.http.0.push(Script::status(400, r#"{"error":"invalid_grant"}"#));
    let auth = f.creds.authorizer(SERVER);
    assert!(!pollster::block_on(auth.refused(401, Some("Bearer".into()))));
    assert_eq!(f.asked.borrow().len(), 1);
    assert_eq!(auth.header().as_deref(), Some("Bearer a1"), "the old token is not thrown away by a failed refresh");
}

/// The user's step, answered from a script.
struct User(RefCell<Vec<Result<String, SignInError>>>, RefCell<Vec<String>>);

impl Authorize for User {
    fn authorize<'a>(&'a self, pending: &'a Pending) -> LocalBoxFuture<'a, Result<String, SignInError>> {
        self.1.borrow_mut().push(pending.authorize_url.clone());
        let next = self.0.borrow_mut().pop().unwrap_or(Err(SignInError::Closed));
        let state = pending.state.clone();
        Box::pin(async move { next.map(|u| format!("{u}&state={state}")) })
    }
}

/// Metadata for [`SERVER`], its authorization server, and (`then`) the
/// token endpoint's answer.
fn script_discovery(http: &ScriptedHttp) {
    http.push(Script::status(200, r#"{"resource":"https://mcp.test/mcp","authorization_servers":["https://as.test"],"scopes_supported":["read"]}"#));
    http.push(Script::status(
        200,
        r#"{"issuer":"https://as.test","authorization_endpoint":"https://as.test/authorize","token_endpoint":"https://as.test/token","code_challenge_methods_supported":["S256"]}"#,
    ));
}

#[test]
fn a_sign_in_keeps_the_client_it_knows_for_the_authorization_server_and_stores_the_tokens() {
    let http = ScriptedHttp::new();
    script_discovery(&http);
    http.push(Script::status(200, r#"{"access_token":"new","token_type":"Bearer","expires_in":60}"#));
    let oauth = OAuth::new(http, Settings { redirect_uri: "https://app.test/cb".into(), ..Settings::default() });
    let vault = vault(tokens("old", None, Some(10)));
    let user = User(RefCell::new(vec![Ok("https://app.test/cb?code=c".into())]), RefCell::default());
    let asked = Asked::of(Some(r#"Bearer resource_metadata="https://mcp.test/.well-known/oauth-protected-resource/mcp""#.into()));
    let r = pollster::block_on(sign_in(&oauth, &*vault, SERVER, &asked, false, &user, 0, Some([7; 48])));
    assert_eq!(r, Ok(()));
    assert!(user.1.borrow()[0].contains("client_id=c1"), "the kept client: {}", user.1.borrow()[0]);
    assert_eq!(vault.load().grant(SERVER).map(|g| g.tokens.access_token.clone()).as_deref(), Some("new"));
    assert!(!oauth.http().requests().iter().any(|r| r.url.contains("register")), "no second registration");
}

#[test]
fn a_sign_in_says_why_it_stopped() {
    let http = ScriptedHttp::new();
    script_discovery(&http);
    let oauth = OAuth::new(http, Settings { redirect_uri: "https://app.test/cb".into(), ..Settings::default() });
    let vault = vault(tokens("old", None, Some(10)));
    let user = User(RefCell::new(vec![Err(SignInError::Redirected)]), RefCell::default());
    let r = pollster::block_on(sign_in(&oauth, &*vault, SERVER, &Asked::default(), false, &user, 0, Some([7; 48])));
    assert_eq!(r, Err(SignInError::Redirected), "the whole page went: typed, not a sentence to compare");
    assert_eq!(vault.load().grant(SERVER).map(|g| g.tokens.access_token.clone()).as_deref(), Some("old"));
    let none = pollster::block_on(sign_in(&oauth, &*vault, SERVER, &Asked::default(), false, &user, 0, None));
    assert!(matches!(none, Err(SignInError::OAuth(_)) | Err(SignInError::NoRandom)), "{none:?}");
}

#[test]
fn an_endpoint_that_answers_without_cors_is_named() {
    let http = ScriptedHttp::new();
    http.set_answers_without_cors(true);
    let e = SignInError::OAuth(OAuthError::Network { url: "https://as.test/token".into(), detail: "failed".into() });
    assert_eq!(pollster::block_on(explain(&http, e)), SignInError::NoCors { url: "https://as.test/token".into() });
    let quiet = ScriptedHttp::new();
    let e = SignInError::OAuth(OAuthError::Network { url: "https://as.test/token".into(), detail: "failed".into() });
    assert!(matches!(pollster::block_on(explain(&quiet, e)), SignInError::OAuth(OAuthError::Network { .. })));
}
