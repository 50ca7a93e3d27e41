//! Signing in to MCP servers, for the page and the command line alike:
//! one [`sign_in`] (discovery, step-up scope, the client kept per
//! authorization server unless the user entered one, the user's step, the
//! tokens) and one [`Credentials`] (the vault, each server's token in its
//! requests, one refresh at a time per server). Where they differ is the
//! user's step ([`Authorize`]: a popup or the whole page in the browser, a
//! GET whose redirect is read on the command line) and what a refusal
//! does ([`OnRefused`]: say a sign-in is needed, or sign in at once).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use air_http::{Abort, HttpClient};
use air_mcp::Authorizer;
use air_oauth::challenge::bearer;
use air_oauth::flow::step_up_scope;
use air_oauth::single::SingleFlight;
use air_oauth::{OAuth, OAuthError, Pending, Vault};
use futures_util::future::LocalBoxFuture;

/// Tokens this close to their end are refreshed before use.
pub const REFRESH_MARGIN_MS: u64 = 60_000;

/// Where the vault is kept (localStorage in the page, memory on the
/// command line).
pub trait VaultStore {
    fn load(&self) -> Vault;
    fn save(&self, vault: &Vault);
}

/// A vault in memory.
#[derive(Debug, Default)]
pub struct MemoryVault(pub RefCell<Vault>);

impl VaultStore for MemoryVault {
    fn load(&self) -> Vault {
        self.0.borrow().clone()
    }
    fn save(&self, vault: &Vault) {
        *self.0.borrow_mut() = vault.clone();
    }
}

/// Why a sign-in did not happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignInError {
    /// The whole page went to the authorization server; the sign-in ends
    /// when it comes back.
    Redirected,
    /// The user closed the sign-in window.
    Closed,
    /// The sign-in window could not be opened, or gave no answer.
    NoWindow,
    /// There is no source of random numbers.
    NoRandom,
    /// An endpoint the sign-in needs answers, but not to this page (CORS).
    NoCors {
        url: String,
    },
    OAuth(OAuthError),
    /// The user's step failed otherwise.
    Other(String),
}

impl std::fmt::Display for SignInError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SignInError::Redirected => f.write_str("the sign-in continues in this window"),
            SignInError::Closed => f.write_str("the sign-in window was closed"),
            SignInError::NoWindow => f.write_str("the sign-in window could not be opened or gave no answer"),
            SignInError::NoRandom => f.write_str("no random numbers to sign in with"),
            SignInError::NoCors { url } => write!(f, "{url} does not allow this page to read its answers (CORS)"),
            SignInError::OAuth(e) => e.fmt(f),
            SignInError::Other(e) => f.write_str(e),
        }
    }
}

/// The user's step: `pending.authorize_url` is visited; the answer is the
/// URL the authorization server sent the user back to.
pub trait Authorize {
    fn authorize<'a>(&'a self, pending: &'a Pending) -> LocalBoxFuture<'a, Result<String, SignInError>>;
}

/// What the server said when it refused.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Asked {
    /// Its `WWW-Authenticate` header.
    pub challenge: Option<String>,
    /// It wants more scope than the token has.
    pub more_scope: bool,
}

impl Asked {
    pub fn of(www_authenticate: Option<String>) -> Self {
        let more_scope = www_authenticate.as_deref().and_then(bearer).is_some_and(|c| c.insufficient_scope());
        Self { challenge: www_authenticate, more_scope }
    }
}

/// Signs in to the server at `url`. `oauth`'s settings say who this client
/// is (an id the user entered takes the place of the one kept for the
/// authorization server: `entered`).
#[allow(clippy::too_many_arguments, reason = "the sign-in's inputs (the client, the vault, what was asked, the user's window, the time, the randomness), each injected by the caller")]
pub async fn sign_in<H: HttpClient>(
    oauth: &OAuth<H>,
    vault: &dyn VaultStore,
    url: &str,
    asked: &Asked,
    entered: bool,
    user: &dyn Authorize,
    now_ms: u64,
    random: Option<[u8; 48]>,
) -> Result<(), SignInError> {
    let abort = Abort::new();
    let challenge = asked.challenge.as_deref().and_then(bearer);
    let mut discovery = oauth.discover(url, challenge.as_ref(), &abort).await?;
    if asked.more_scope {
        // Step up: what is held and what is asked for.
        let held = vault.load().grant(url).and_then(|g| g.tokens.scope.clone().or_else(|| g.discovery.scope.clone()));
        discovery.scope = step_up_scope(held.as_deref(), challenge.as_ref().and_then(|c| c.scope()));
    }
    let kept = vault.load().clients.get(&discovery.server.issuer).cloned().filter(|_| !entered);
    let client = match kept {
        Some(c) => c,
        None => {
            let c = oauth.client(&discovery, &abort).await?;
            let mut v = vault.load();
            v.clients.insert(discovery.server.issuer.clone(), c.clone());
            vault.save(&v);
            c
        }
    };
    let pending = oauth.begin(&discovery, &client, &random.ok_or(SignInError::NoRandom)?);
    let callback = user.authorize(&pending).await?;
    finish(oauth, vault, url, &pending, &callback, now_ms).await
}

/// The sign-in's last step, with the URL the user came back with (also
/// after the whole page went and came back).
pub async fn finish<H: HttpClient>(oauth: &OAuth<H>, vault: &dyn VaultStore, url: &str, pending: &Pending, callback: &str, now_ms: u64) -> Result<(), SignInError> {
    let tokens = oauth.finish(pending, callback, now_ms, &Abort::new()).await?;
    let mut v = vault.load();
    v.put_grant(url, pending.discovery.clone(), tokens);
    vault.save(&v);
    Ok(())
}

/// An OAuth error said precisely: an endpoint the page could not reach is
/// asked again without CORS, and one that answers is named.
pub async fn explain<H: HttpClient>(http: &H, e: SignInError) -> SignInError {
    match e {
        SignInError::OAuth(OAuthError::Network { url, detail }) => {
            if http.answers_without_cors(&url).await {
                SignInError::NoCors { url }
            } else {
                SignInError::OAuth(OAuthError::Network { url, detail })
            }
        }
        other => other,
    }
}

impl From<OAuthError> for SignInError {
    fn from(e: OAuthError) -> Self {
        SignInError::OAuth(e)
    }
}

/// Tells the user server `url` asks for a sign-in.
pub type AskUser = Rc<dyn Fn(&str, Asked)>;

/// Random bytes for a sign-in's verifier and state (`None`: none to be had).
pub type Random = Rc<dyn Fn() -> Option<[u8; 48]>>;

/// What a server's refusal does.
pub enum OnRefused {
    /// Tell the user a sign-in is needed (the page: the button shows).
    Ask(AskUser),
    /// Sign in at once (the command line), reporting failures.
    SignIn { user: Rc<dyn Authorize>, random: Random, report: Rc<dyn Fn(&SignInError)> },
}

/// The vault and the sign-ins of every server.
pub struct Credentials<H: HttpClient> {
    oauth: OAuth<H>,
    vault: Rc<dyn VaultStore>,
    now_ms: Rc<dyn Fn() -> u64>,
    /// Runs a background refresh (the page spawns it; elsewhere it may do
    /// nothing, and a refusal refreshes instead).
    spawn: Rc<dyn Fn(LocalBoxFuture<'static, ()>)>,
    on_refused: OnRefused,
    flights: RefCell<HashMap<String, Rc<SingleFlight>>>,
}

impl<H: HttpClient + 'static> Credentials<H> {
    pub fn new(oauth: OAuth<H>, vault: Rc<dyn VaultStore>, now_ms: Rc<dyn Fn() -> u64>, spawn: Rc<dyn Fn(LocalBoxFuture<'static, ()>)>, on_refused: OnRefused) -> Rc<Self> {
        Rc::new(Self { oauth, vault, now_ms, spawn, on_refused, flights: RefCell::default() })
    }

    /// The server's authorization, given to its client.
    pub fn authorizer(self: &Rc<Self>, url: &str) -> Rc<dyn Authorizer> {
        Rc::new(ServerAuth { creds: self.clone(), url: url.trim().to_owned() })
    }

    /// This vault holds a sign-in for the server at `url`.
    pub fn signed_in(&self, url: &str) -> bool {
        self.vault.load().grant(url).is_some()
    }

    /// Forgets the server's tokens.
    pub fn forget(&self, url: &str) {
        let mut v = self.vault.load();
        v.forget(url);
        self.vault.save(&v);
    }

    fn flight(&self, url: &str) -> Rc<SingleFlight> {
        self.flights.borrow_mut().entry(url.to_owned()).or_default().clone()
    }

    /// Refreshes the server's token, one refresh (or sign-in) at a time
    /// per server: a refresh token may be good for one use only, so a
    /// second caller waits for the one under way and takes its outcome.
    pub async fn refresh(&self, url: &str) -> bool {
        match self.flight(url).run(|| self.refresh_now(url)).await {
            Some(ok) => ok,
            None => self.vault.load().grant(url).is_some_and(|g| !g.tokens.expires_within((self.now_ms)(), 0)),
        }
    }

    async fn refresh_now(&self, url: &str) -> bool {
        let vault = self.vault.load();
        let Some((grant, client)) = vault.grant_and_client(url) else { return false };
        if grant.tokens.refresh_token.is_none() {
            return false;
        }
        match self.oauth.refresh(&grant.discovery, client, &grant.tokens, (self.now_ms)(), &Abort::new()).await {
            Ok(tokens) => {
                let mut v = self.vault.load();
                v.put_grant(url, grant.discovery.clone(), tokens);
                self.vault.save(&v);
                true
            }
            Err(_) => false,
        }
    }

    /// A refusal of the server at `url`: a 401 is answered by a refresh
    /// first; then the user is asked, or signed in at once. True: send again.
    async fn refused(&self, url: &str, status: u16, www_authenticate: Option<String>) -> bool {
        if status == 401 && self.refresh(url).await {
            return true;
        }
        let asked = Asked::of(www_authenticate);
        match &self.on_refused {
            OnRefused::Ask(ask) => {
                ask(url, asked);
                false
            }
            OnRefused::SignIn { user, random, report } => {
                // (A client id given on the command line is the OAuth settings'.)
                let run = || sign_in(&self.oauth, &*self.vault, url, &asked, false, &**user, (self.now_ms)(), random());
                match self.flight(url).run(run).await {
                    Some(Ok(())) => true,
                    Some(Err(e)) => {
                        report(&explain(self.oauth.http(), e).await);
                        false
                    }
                    // Another request's sign-in ran meanwhile: send again with it.
                    None => self.signed_in(url),
                }
            }
        }
    }
}

/// One server's authorization.
struct ServerAuth<H: HttpClient> {
    creds: Rc<Credentials<H>>,
    url: String,
}

impl<H: HttpClient + 'static> Authorizer for ServerAuth<H> {
    fn header(&self) -> Option<String> {
        let grant = self.creds.vault.load().grant(&self.url).cloned()?;
        // About to expire: refreshed in the background for what follows.
        let now = (self.creds.now_ms)();
        if grant.tokens.due_for_refresh(now, REFRESH_MARGIN_MS) && grant.tokens.refresh_token.is_some() && !self.creds.flight(&self.url).running() {
            let (creds, url) = (self.creds.clone(), self.url.clone());
            (self.creds.spawn)(Box::pin(async move {
                creds.refresh(&url).await;
            }));
        }
        Some(grant.tokens.header())
    }

    fn refused(&self, status: u16, www_authenticate: Option<String>) -> LocalBoxFuture<'_, bool> {
        Box::pin(self.creds.refused(&self.url, status, www_authenticate))
    }
}

#[cfg(test)]
#[path = "credentials_tests.rs"]
mod tests;
