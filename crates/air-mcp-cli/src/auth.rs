//! Signing in to a server that asks for it, on the command line: the
//! OAuth steps of `air-oauth`, with the user's step done by a plain GET
//! of the authorization URL whose redirect is read, not followed (an
//! authorization server that asks a person to log in stops there, with a
//! message saying to open the URL).

use std::cell::RefCell;
use std::io::Read;

use air_http::{Abort, Body, HttpClient};
use air_mcp::Authorizer;
use air_oauth::challenge::bearer;
use air_oauth::flow::{Settings, step_up_scope};
use air_oauth::single::SingleFlight;
use air_oauth::{Client, Discovery, OAuth, Tokens};
use futures_util::future::LocalBoxFuture;

/// Where the authorization server is asked to send the user back. The CLI
/// listens nowhere: it reads the redirect itself.
pub const REDIRECT_URI: &str = "http://127.0.0.1:8976/callback";

struct Signed {
    discovery: Discovery,
    client: Client,
    tokens: Tokens,
}

pub struct SignIn<H: HttpClient> {
    oauth: OAuth<H>,
    server_url: String,
    signed: RefCell<Option<Signed>>,
    /// One sign-in at a time: requests refused meanwhile wait for it.
    flight: SingleFlight,
}

impl<H: HttpClient> SignIn<H> {
    pub fn new(http: H, server_url: &str, settings: Settings) -> Self {
        Self { oauth: OAuth::new(http, settings), server_url: server_url.to_owned(), signed: RefCell::new(None), flight: SingleFlight::new() }
    }

    async fn sign_in(&self, status: u16, www_authenticate: Option<String>) -> Result<(), String> {
        let abort = Abort::new();
        let challenge = www_authenticate.as_deref().and_then(bearer);
        let held = self.signed.borrow().as_ref().map(|s| (s.discovery.clone(), s.client.clone(), s.tokens.clone()));
        // An expired token is refreshed first, where the server gave a way.
        if let (401, Some((discovery, client, tokens))) = (status, &held)
            && tokens.refresh_token.is_some()
            && let Ok(tokens) = self.oauth.refresh(discovery, client, tokens, now_ms(), &abort).await
        {
            *self.signed.borrow_mut() = Some(Signed { discovery: discovery.clone(), client: client.clone(), tokens });
            return Ok(());
        }
        let mut discovery = self.oauth.discover(&self.server_url, challenge.as_ref(), &abort).await.map_err(|e| e.to_string())?;
        if challenge.as_ref().is_some_and(|c| c.insufficient_scope()) {
            // Step up: what was held and what is asked for.
            let held_scope = held.as_ref().and_then(|(_, _, t)| t.scope.clone().or_else(|| held.as_ref().and_then(|(d, _, _)| d.scope.clone())));
            discovery.scope = step_up_scope(held_scope.as_deref(), challenge.as_ref().and_then(|c| c.scope()));
        }
        // The same authorization server keeps the client it knows.
        let client = match held {
            Some((d, c, _)) if d.server.issuer == discovery.server.issuer => c,
            _ => self.oauth.client(&discovery, &abort).await.map_err(|e| e.to_string())?,
        };
        let pending = self.oauth.begin(&discovery, &client, &random());
        let response = self.oauth.http().send(air_http::Request::get(&pending.authorize_url), &abort).await.map_err(|e| e.to_string())?;
        let location = response.header("location").map(str::to_owned);
        let _ = response.body.text().await;
        let Some(callback) = location.filter(|l| l.starts_with(REDIRECT_URI)) else {
            return Err(format!("sign in by opening {} in a browser (this command cannot log in for you)", pending.authorize_url));
        };
        let tokens = self.oauth.finish(&pending, &callback, now_ms(), &abort).await.map_err(|e| e.to_string())?;
        *self.signed.borrow_mut() = Some(Signed { discovery, client, tokens });
        Ok(())
    }
}

impl<H: HttpClient> Authorizer for SignIn<H> {
    fn header(&self) -> Option<String> {
        self.signed.borrow().as_ref().map(|s| s.tokens.header())
    }

    fn refused(&self, status: u16, www_authenticate: Option<String>) -> LocalBoxFuture<'_, bool> {
        Box::pin(async move {
            match self.flight.run(|| self.sign_in(status, www_authenticate)).await {
                Some(Ok(())) => true,
                Some(Err(e)) => {
                    eprintln!("sign-in: {e}");
                    false
                }
                // Another request's sign-in ran meanwhile: send again with it.
                None => self.signed.borrow().is_some(),
            }
        })
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// 48 bytes from the system's random source (the PKCE verifier and state).
fn random() -> [u8; 48] {
    let mut bytes = [0u8; 48];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        let _ = f.read_exact(&mut bytes);
    }
    bytes
}
