//! Signing in to MCP servers that ask for it (OAuth 2.1, `air-oauth`),
//! entirely in the page: the platform's side of `air_workspace::signin`.
//!
//! Each server's client carries its authorization from the shared
//! [`Credentials`] (`air-servers`, the command line's too): it sends the
//! server's own token (never another's), refreshes it when the server
//! refuses it, and otherwise tells the core the server needs a sign-in
//! ([`OnRefused::Ask`]). A sign-in starts from the user's click
//! ([`sign_in`]): a popup opens at once, goes to the authorization page
//! once discovery and registration are done, and the app's callback page
//! (`oauth-callback.html`) posts the answer back. Where popups are blocked
//! the whole page goes, and [`finish_redirect`] ends it on the way back.
//!
//! Stored in localStorage under `air-agent-mcp-oauth`: clients by issuer,
//! and each server's grant (discovery and tokens) by its URL. Export leaves
//! them out; [`forget`] removes a server's grant.

use std::rc::Rc;

use air_mcp::Authorizer;
use air_oauth::flow::Settings as OAuthSettings;
use air_oauth::{OAuth, Pending, Vault};
use air_servers::credentials::{self as creds, Asked, Authorize, Credentials, OnRefused, SignInError, VaultStore};
use air_store::kv::{Key, Raw};
use air_web::LocalStorageKv;
use futures_util::future::LocalBoxFuture;
use leptos::task::spawn_local;

use air_store::keys::OAUTH_PENDING;
use air_workspace::signin::Action;

use super::env;
use super::state::AppState;

/// The vault: clients and tokens by server.
const VAULT: Key<String, Raw> = Key::new("air-agent-mcp-oauth");
/// What the callback page posts to the window that opened it.
const MESSAGE: &str = "air-oauth-callback";

/// The vault in localStorage.
struct LocalVault;

impl VaultStore for LocalVault {
    fn load(&self) -> Vault {
        Vault::from_json(VAULT.get_opt(&LocalStorageKv).as_deref())
    }
    fn save(&self, vault: &Vault) {
        let _ = VAULT.set(&LocalStorageKv, &vault.to_json());
    }
}

thread_local! {
    /// The page's credentials (made with the first server that needs them).
    static CREDENTIALS: std::cell::OnceCell<Rc<Credentials<env::Http>>> = const { std::cell::OnceCell::new() };
    /// What each server said when it last refused its client, by URL.
    static REFUSED: std::cell::RefCell<std::collections::HashMap<String, Asked>> = std::cell::RefCell::new(Default::default());
}

fn settings() -> OAuthSettings {
    OAuthSettings { redirect_uri: air_web::popup::resolve("oauth-callback.html").unwrap_or_default(), client_name: "Air Agent".into(), ..OAuthSettings::default() }
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
    let mut v = LocalVault.load();
    v.forget(url);
    LocalVault.save(&v);
}

/// This browser holds a sign-in for the server at `url`.
pub fn signed_in(url: &str) -> bool {
    LocalVault.load().grant(url.trim()).is_some()
}

/// The server at `url` refused its last request with a 401 whose
/// challenge the page could not read (CORS may hide it).
pub(crate) fn hidden_challenge(url: &str) -> bool {
    REFUSED.with(|r| r.borrow().get(url).is_some_and(|a| a.challenge.is_none()))
}

/// The authorization of the server at `url`, given to its client: a
/// refusal it cannot refresh its way past marks the server as needing a
/// sign-in.
pub fn authorizer(state: AppState, url: &str) -> Rc<dyn Authorizer> {
    let creds = CREDENTIALS.with(|c| {
        c.get_or_init(|| {
            let ask = move |url: &str, asked: Asked| {
                REFUSED.with(|r| r.borrow_mut().insert(url.to_owned(), asked.clone()));
                state.dispatch(air_workspace::Command::SignIn(Action::Asked { url: url.to_owned(), asked }));
            };
            Credentials::new(oauth(), Rc::new(LocalVault), Rc::new(now), Rc::new(spawn_local), OnRefused::Ask(Rc::new(ask)))
        })
        .clone()
    });
    creds.authorizer(url)
}

/// A sign-in's failure in words.
pub fn failure_text(state: AppState, e: &SignInError) -> String {
    let t = state.t();
    match e {
        SignInError::Redirected => t.mcp_sign_in_redirect.to_owned(),
        SignInError::Closed => t.mcp_sign_in_closed.to_owned(),
        SignInError::NoCors { url } => t.mcp_oauth_no_cors.replace("{url}", url),
        other => other.to_string(),
    }
}

/// Signs in to the server at `url` (`asked`: what it said when it
/// refused); call it within the user's click: the popup opens now, the
/// code that signs in is fetched meanwhile (the platform awaits both).
/// `client_id`: one the user entered for this server (it then takes the
/// place of any other).
pub fn sign_in(url: String, client_id: Option<String>, asked: Asked) -> impl std::future::Future<Output = Result<LocalBoxFuture<'static, Result<(), SignInError>>, super::lazy::NotFetched>> {
    let popup = air_web::popup::open("air-agent-sign-in");
    sign_in_flow(url, client_id, asked, popup)
}

/// The user's step in the page: the popup opened in the click goes to the
/// authorization page, and the callback page posts the answer back; with
/// no popup, the whole page goes (and [`resume`] finishes).
struct Page {
    url: String,
    popup: Option<air_web::popup::Popup>,
}

impl Authorize for Page {
    fn authorize<'a>(&'a self, pending: &'a Pending) -> LocalBoxFuture<'a, Result<String, SignInError>> {
        Box::pin(async move {
            let Some(popup) = &self.popup else {
                let text = serde_json::to_string(&(&self.url, pending)).map_err(|e| SignInError::Other(e.to_string()))?;
                OAUTH_PENDING.set(&LocalStorageKv, &text).map_err(|e| SignInError::Other(e.to_string()))?;
                air_web::popup::go(&pending.authorize_url);
                return Err(SignInError::Redirected);
            };
            if !popup.go(&pending.authorize_url) {
                return Err(SignInError::NoWindow);
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
                futures_util::future::Either::Left((None, _)) => return Err(SignInError::NoWindow),
                futures_util::future::Either::Right(_) => return Err(SignInError::Closed),
            };
            popup.close();
            Ok(callback)
        })
    }
}

/// The sign-in itself, with OAuth's code: fetched on the first sign-in
/// (the popup is opened before, while the click still counts).
#[super::lazy::split(sign_in, wasm_split_path = ::leptos::wasm_split, fallible)]
fn sign_in_flow(url: String, client_id: Option<String>, asked: Asked, popup: Option<air_web::popup::Popup>) -> Result<LocalBoxFuture<'static, Result<(), SignInError>>, super::lazy::NotFetched> {
    Ok(Box::pin(async move {
        // Who this client is: the id the user entered, else this deployment's
        // metadata document (where the server takes one), else registration.
        let entered = client_id.is_some();
        let o = OAuth::new(env::Http::default(), OAuthSettings { client_id, metadata_document: metadata_document().await, ..settings() });
        let user = Page { url: url.clone(), popup };
        let random = air_web::popup::random_bytes::<48>();
        let result = creds::sign_in(&o, &LocalVault, &url, &asked, entered, &user, now(), random).await;
        let result = match result {
            Err(e) => Err(creds::explain(o.http(), e).await),
            ok => ok,
        };
        if let (Err(_), Some(p)) = (&result, &user.popup) {
            p.close();
        }
        result
    }))
}

/// OAuth's code is fetched when a sign-in comes back, not with the page.
/// None: the saved sign-in could not be read.
#[super::lazy::split(sign_in_return, wasm_split_path = ::leptos::wasm_split, fallible)]
pub fn finish_redirect(pending: String, callback: String) -> Result<LocalBoxFuture<'static, Option<air_workspace::signin::SignInReturn>>, super::lazy::NotFetched> {
    Ok(Box::pin(async move {
        let (url, pending) = serde_json::from_str::<(String, Pending)>(&pending).ok()?;
        let o = oauth();
        let r = match creds::finish(&o, &LocalVault, &url, &pending, &callback, now()).await {
            Err(e) => Err(creds::explain(o.http(), e).await),
            ok => ok,
        };
        Some((url, r))
    }))
}
