//! Signing in to MCP servers that ask for it (OAuth 2.1, `air-oauth`),
//! entirely in the page.
//!
//! Each server's client carries an [`AppAuth`]: it sends the server's own
//! token (never another's), refreshes it when the server refuses it, and
//! otherwise marks the server as needing a sign-in. Signing in starts from
//! the user's click ([`sign_in`]): a popup opens at once, goes to the
//! authorization page once discovery and registration are done, and the
//! app's callback page (`oauth-callback.html`) posts the answer back. Where
//! popups are blocked the whole page goes, and [`resume`] finishes on the
//! way back.
//!
//! Stored in localStorage under `air-agent-mcp-oauth`: clients by issuer,
//! and each server's grant (discovery and tokens) by its URL. Export leaves
//! them out; [`forget`] removes a server's grant.

use std::rc::Rc;

use air_http::Abort;
use air_mcp::Authorizer;
use air_oauth::challenge::bearer;
use air_oauth::flow::{Settings as OAuthSettings, step_up_scope};
use air_oauth::{OAuth, Pending, Vault};
use air_store::kv::{Key, Raw};
use air_web::LocalStorageKv;
use futures_util::future::LocalBoxFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::env;
use crate::state::AppState;

/// The vault: clients and tokens by server.
const VAULT: Key<String, Raw> = Key::new("air-agent-mcp-oauth");
/// A sign-in that left the page (no popup), to finish on the way back.
const PENDING: Key<String, Raw> = Key::new("air-agent-mcp-oauth-pending");
/// Where the callback page leaves the answer when there was no popup.
const RETURN: Key<String, Raw> = Key::new("air-agent-oauth-return");
/// What the callback page posts to the window that opened it.
const MESSAGE: &str = "air-oauth-callback";
/// Tokens this close to their end are refreshed before use.
const REFRESH_MARGIN_MS: u64 = 60_000;

thread_local! {
    /// Each server's refresh gate (one refresh at a time: air_oauth's
    /// single flight, as the command line's sign-in).
    static REFRESHING: std::cell::RefCell<std::collections::HashMap<String, std::rc::Rc<air_oauth::single::SingleFlight>>> = Default::default();
}

fn load() -> Vault {
    Vault::from_json(VAULT.get_opt(&LocalStorageKv).as_deref())
}

fn save(vault: &Vault) {
    let _ = VAULT.set(&LocalStorageKv, &vault.to_json());
}

fn settings() -> OAuthSettings {
    OAuthSettings {
        redirect_uri: air_web::popup::resolve("oauth-callback.html").unwrap_or_default(),
        client_name: "Air Agent".into(),
        ..OAuthSettings::default()
    }
}

/// The file a deployment may serve as this client's Client ID Metadata
/// Document (`./dev build` writes it when given the public URL).
const METADATA_DOCUMENT: &str = "oauth-client-metadata.json";

/// The URL of this deployment's Client ID Metadata Document, if it serves
/// one that names itself (its `client_id` is the URL it is served at, and
/// it allows this page's callback); otherwise `None`.
async fn metadata_document() -> Option<String> {
    let url = air_web::popup::resolve(METADATA_DOCUMENT)?;
    let (status, text) = env::get_text(&url).await?;
    if !(200..300).contains(&status) {
        return None;
    }
    let doc: serde_json::Value = serde_json::from_str(&text).ok()?;
    let callback = settings().redirect_uri;
    let allows_callback = doc.get("redirect_uris").and_then(serde_json::Value::as_array).is_some_and(|l| l.iter().any(|u| u.as_str() == Some(callback.as_str())));
    (doc.get("client_id").and_then(serde_json::Value::as_str) == Some(url.as_str()) && allows_callback).then_some(url)
}

fn oauth() -> OAuth<env::Http> {
    OAuth::new(env::Http::default(), settings())
}

fn now() -> u64 {
    env::now_ms() as u64
}

/// Forgets the server's tokens.
pub fn forget(url: &str) {
    let mut v = load();
    v.forget(url);
    save(&v);
}

/// This browser holds a sign-in for the server at `url`.
pub fn signed_in(url: &str) -> bool {
    load().grant(url).is_some()
}

/// Forgets the server's tokens (sign out); its next request asks for a
/// sign-in again, and the settings say so at once.
pub fn sign_out(state: AppState, url: &str) {
    forget(url);
    state.prefs.mcp_sign_in.update(|m| {
        m.insert(url.to_owned(), SignInNeeded { challenge: None, more_scope: false });
    });
}

/// One server's authorization, given to its client.
pub struct AppAuth {
    state: AppState,
    url: String,
}

pub fn authorizer(state: AppState, url: &str) -> Rc<dyn Authorizer> {
    Rc::new(AppAuth {
        state,
        url: url.trim().to_owned(),
    })
}

/// Refreshes the token of the server at `url`, one refresh at a time per
/// server: a refresh token may be good for one use only, so a second
/// caller waits for the refresh under way and takes its outcome.
async fn refresh(url: &str) -> bool {
    let gate = REFRESHING.with(|r| r.borrow_mut().entry(url.to_owned()).or_default().clone());
    match gate.run(|| refresh_now(url)).await {
        Some(ok) => ok,
        // Another caller's refresh ran: its outcome is in the vault.
        None => load().grant(url).is_some_and(|g| !g.tokens.expires_within(now(), 0)),
    }
}

async fn refresh_now(url: &str) -> bool {
    let vault = load();
    let Some((grant, client)) = vault.grant_and_client(url) else {
        return false;
    };
    if grant.tokens.refresh_token.is_none() {
        return false;
    }
    match oauth()
        .refresh(
            &grant.discovery,
            client,
            &grant.tokens,
            now(),
            &Abort::new(),
        )
        .await
    {
        Ok(tokens) => {
            let mut v = load();
            v.put_grant(url, grant.discovery.clone(), tokens);
            save(&v);
            true
        }
        Err(_) => false,
    }
}

impl Authorizer for AppAuth {
    fn header(&self) -> Option<String> {
        let grant = load().grant(&self.url).cloned()?;
        // About to expire: refreshed in the background for what follows.
        // (One refresh at a time per server, however many requests.)
        if grant.tokens.due_for_refresh(now(), REFRESH_MARGIN_MS)
            && grant.tokens.refresh_token.is_some()
            && !REFRESHING.with(|r| r.borrow().get(&self.url).is_some_and(|g| g.running()))
        {
            let url = self.url.clone();
            spawn_local(async move {
                refresh(&url).await;
            });
        }
        Some(grant.tokens.header())
    }

    fn refused(&self, status: u16, www_authenticate: Option<String>) -> LocalBoxFuture<'_, bool> {
        Box::pin(async move {
            let more_scope = www_authenticate
                .as_deref()
                .and_then(bearer)
                .is_some_and(|c| c.insufficient_scope());
            if status == 401 && refresh(&self.url).await {
                return true;
            }
            // The user has to sign in (or consent to more): say so.
            let url = self.url.clone();
            self.state.prefs.mcp_sign_in.update(|m| {
                m.insert(
                    url,
                    SignInNeeded {
                        challenge: www_authenticate,
                        more_scope,
                    },
                );
            });
            false
        })
    }
}

/// A server that asked for a sign-in, and its challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignInNeeded {
    pub challenge: Option<String>,
    pub more_scope: bool,
}

/// Signs in to the server at `url`; call it from the user's click. `done`
/// gets the outcome.
/// `client_id`: one the user entered for this server (it then takes the
/// place of any other).
pub fn sign_in(state: AppState, url: String, client_id: Option<String>, done: impl Fn(Result<(), String>) + 'static) {
    let url = url.trim().to_owned();
    let client_id = client_id.map(|c| c.trim().to_owned()).filter(|c| !c.is_empty());
    let popup = air_web::popup::open("air-agent-sign-in");
    spawn_local(async move {
        match sign_in_flow(state, url, client_id, popup).await {
            Ok(flow) => done(flow.await),
            Err(missing) => done(Err(missing.message().to_owned())),
        }
    });
}

/// The sign-in itself, with OAuth's code: fetched on the first sign-in
/// (the popup is opened before, while the click still counts).
#[crate::lazy::split(sign_in, wasm_split_path = ::leptos::wasm_split, fallible)]
fn sign_in_flow(state: AppState, url: String, client_id: Option<String>, popup: Option<air_web::popup::Popup>) -> Result<LocalBoxFuture<'static, Result<(), String>>, crate::lazy::Missing> {
    Ok(Box::pin(async move {
        let result = run_sign_in(state, &url, client_id, popup.as_ref()).await;
        match (&result, &popup) {
            (Err(_), Some(p)) => p.close(),
            (Ok(()), _) => state.prefs.mcp_sign_in.update(|m| {
                m.remove(&url);
            }),
            _ => {}
        }
        result
    }))
}

async fn run_sign_in(
    state: AppState,
    url: &str,
    client_id: Option<String>,
    popup: Option<&air_web::popup::Popup>,
) -> Result<(), String> {
    let abort = Abort::new();
    let needed = state
        .prefs
        .mcp_sign_in
        .with_untracked(|m| m.get(url).cloned());
    let challenge = needed
        .as_ref()
        .and_then(|n| n.challenge.as_deref())
        .and_then(bearer);
    // Who this client is: the id the user entered, else this deployment's
    // metadata document (where the server takes one), else registration.
    let entered = client_id.is_some();
    let o = OAuth::new(env::Http::default(), OAuthSettings { client_id, metadata_document: metadata_document().await, ..settings() });
    let mut discovery = match o.discover(url, challenge.as_ref(), &abort).await {
        Ok(d) => d,
        Err(e) => return Err(why(state, e).await),
    };
    let vault = load();
    if needed.as_ref().is_some_and(|n| n.more_scope) {
        let held = vault.grant(url).and_then(|g| g.tokens.scope.clone());
        discovery.scope =
            step_up_scope(held.as_deref(), challenge.as_ref().and_then(|c| c.scope()));
    }
    let client = match vault.clients.get(&discovery.server.issuer).filter(|_| !entered) {
        Some(c) => c.clone(),
        None => {
            let c = match o.client(&discovery, &abort).await {
                Ok(c) => c,
                Err(e) => return Err(why(state, e).await),
            };
            let mut v = load();
            v.clients.insert(discovery.server.issuer.clone(), c.clone());
            save(&v);
            c
        }
    };
    let random = air_web::popup::random_bytes::<48>()
        .ok_or("this browser gives no random numbers (crypto.getRandomValues)")?;
    let pending = o.begin(&discovery, &client, &random);
    let Some(popup) = popup else {
        // No popup: the whole page goes, and comes back to `resume`.
        let text = serde_json::to_string(&(url, &pending)).map_err(|e| e.to_string())?;
        PENDING.set(&LocalStorageKv, &text).map_err(|e| e.to_string())?;
        air_web::popup::go(&pending.authorize_url);
        return Err(state.t().mcp_sign_in_redirect.to_owned());
    };
    if !popup.go(&pending.authorize_url) {
        return Err("the sign-in window could not be opened".into());
    }
    // The answer, unless the user closes the window first.
    let closed = async {
        while !popup.closed() {
            env::sleep(500).await;
        }
        // (The callback page closes itself right after posting: its
        // message is given time to arrive.)
        env::sleep(1_000).await;
    };
    let answer = std::pin::pin!(air_web::popup::next_message(MESSAGE));
    let callback = match futures_util::future::select(answer, std::pin::pin!(closed)).await {
        futures_util::future::Either::Left((Some(url), _)) => url,
        futures_util::future::Either::Left((None, _)) => return Err("the sign-in window gave no answer".into()),
        futures_util::future::Either::Right(_) => return Err(state.t().mcp_sign_in_closed.to_owned()),
    };
    popup.close();
    finish(state, url, &pending, &callback).await
}

/// What went wrong, said precisely: an endpoint the page could not reach
/// is probed, and one that answers without CORS for this page is named
/// (metadata, registration and token endpoints must allow it; the
/// authorization page need not).
async fn why(state: AppState, e: air_oauth::OAuthError) -> String {
    use air_http::HttpClient;
    if let air_oauth::OAuthError::Network { url, .. } = &e
        && env::Http::default().answers_without_cors(url).await
    {
        return state.t().mcp_oauth_no_cors.replace("{url}", url);
    }
    e.to_string()
}

async fn finish(state: AppState, url: &str, pending: &Pending, callback: &str) -> Result<(), String> {
    let tokens = match oauth().finish(pending, callback, now(), &Abort::new()).await {
        Ok(t) => t,
        Err(e) => return Err(why(state, e).await),
    };
    let mut v = load();
    v.put_grant(url, pending.discovery.clone(), tokens);
    save(&v);
    Ok(())
}

/// On start: finishes a sign-in that went through the whole page. `done`
/// gets the server's URL and the outcome.
pub fn resume(state: AppState, done: impl Fn(String, Result<(), String>) + 'static) {
    let (Some(pending), Some(callback)) = (
        PENDING.get_opt(&LocalStorageKv),
        RETURN.get_opt(&LocalStorageKv),
    ) else {
        return;
    };
    let _ = PENDING.remove(&LocalStorageKv);
    let _ = RETURN.remove(&LocalStorageKv);
    spawn_local(async move {
        match finish_redirect(state, pending, callback).await {
            Ok(finish) => {
                if let Some((url, r)) = finish.await {
                    done(url, r);
                }
            }
            Err(missing) => crate::lazy::report(state, missing),
        }
    });
}

/// OAuth's code is fetched when a sign-in comes back, not with the page.
/// None: the saved sign-in could not be read.
#[crate::lazy::split(sign_in_return, wasm_split_path = ::leptos::wasm_split, fallible)]
fn finish_redirect(state: AppState, pending: String, callback: String) -> Result<LocalBoxFuture<'static, Option<(String, Result<(), String>)>>, crate::lazy::Missing> {
    Ok(Box::pin(async move {
        let (url, pending) = serde_json::from_str::<(String, Pending)>(&pending).ok()?;
        let r = finish(state, &url, &pending, &callback).await;
        Some((url, r))
    }))
}
