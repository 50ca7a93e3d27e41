//! Signing in to a server that asks for it, on the command line: the
//! shared sign-in of `air-servers` (the page's too), with the user's step
//! done by a plain GET of the authorization URL whose redirect is read,
//! not followed (an authorization server that asks a person to log in
//! stops there, with a message saying to open the URL). Tokens live in
//! memory for the one run.

use std::io::Read;
use std::rc::Rc;

use air_http::{Abort, Body, HttpClient};
use air_mcp::Authorizer;
use air_oauth::flow::Settings;
use air_oauth::{OAuth, Pending};
use air_servers::credentials::{Authorize, Credentials, MemoryVault, OnRefused, SignInError};
use futures_util::future::LocalBoxFuture;

/// Where the authorization server is asked to send the user back. The CLI
/// listens nowhere: it reads the redirect itself.
pub const REDIRECT_URI: &str = "http://127.0.0.1:8976/callback";

/// The authorization for the server at `url`: signs in at once when it
/// is refused (after trying a refresh). `user` makes the user's step.
pub fn authorizer<H: HttpClient + 'static>(http: H, user: H, url: &str, settings: Settings) -> Rc<dyn Authorizer> {
    let user = Rc::new(Redirect(user));
    let creds = Credentials::new(
        OAuth::new(http, settings),
        Rc::new(MemoryVault::default()),
        Rc::new(now_ms),
        // No background refresh: a refused request refreshes.
        Rc::new(|_| {}),
        OnRefused::SignIn { user, random: Rc::new(|| Some(random())), report: Rc::new(|e| eprintln!("sign-in: {e}")) },
    );
    creds.authorizer(url)
}

/// The user's step as a GET whose redirect is read.
struct Redirect<H>(H);

impl<H: HttpClient> Authorize for Redirect<H> {
    fn authorize<'a>(&'a self, pending: &'a Pending) -> LocalBoxFuture<'a, Result<String, SignInError>> {
        Box::pin(async move {
            let response = self.0.send(air_http::Request::get(&pending.authorize_url), &Abort::new()).await.map_err(|e| SignInError::Other(e.to_string()))?;
            let location = response.header("location").map(str::to_owned);
            let _ = response.body.text().await;
            location
                .filter(|l| l.starts_with(REDIRECT_URI))
                .ok_or_else(|| SignInError::Other(format!("sign in by opening {} in a browser (this command cannot log in for you)", pending.authorize_url)))
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
