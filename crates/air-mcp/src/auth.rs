//! Authorization: the [`Authorizer`] a server's sign-in goes through, and
//! a request sent with it, again after a refused token.

use std::rc::Rc;

use air_http::{Abort, Body, HttpClient, HttpError, Request, Response};
use futures_util::future::LocalBoxFuture;

/// Authorization for a server that asks for it (OAuth, in `air-oauth`):
/// the header to send, and what to do when the server refuses.
pub trait Authorizer {
    /// The `Authorization` value to send now, if any.
    fn header(&self) -> Option<String>;
    /// The server refused a request: 401, or 403 with `insufficient_scope`,
    /// with its `WWW-Authenticate` value. Get a token (refresh it, sign in,
    /// or ask for more scope); `true` sends the request again.
    fn refused(&self, status: u16, www_authenticate: Option<String>) -> LocalBoxFuture<'_, bool>;
}

/// How many times one request is sent again after the server refused its
/// token (a sign-in, then a step-up of the scope).
const MAX_AUTH_RETRIES: usize = 2;

/// Sends a request with the authorization the server wants: when it
/// refuses the token (401, or 403 `insufficient_scope`), the authorizer
/// gets one and the request goes again, a bounded number of times.
/// Without an authorizer the refusal is the answer.
pub(crate) async fn send<H: HttpClient>(http: &H, authorizer: Option<&Rc<dyn Authorizer>>, request: Request, abort: &Abort) -> Result<Response<H::Body>, HttpError> {
    let Some(auth) = authorizer.cloned() else { return http.send(request, abort).await };
    let mut tries = 0;
    loop {
        let mut r = request.clone();
        let sent = auth.header();
        if let Some(h) = &sent {
            r = r.header("Authorization", h);
        }
        let response = http.send(r, abort).await?;
        let challenge = response.header("www-authenticate").map(str::to_owned);
        let refused = response.status == 401 || (response.status == 403 && challenge.as_deref().is_some_and(|c| c.contains("insufficient_scope")));
        if !refused || tries >= MAX_AUTH_RETRIES {
            return Ok(response);
        }
        tries += 1;
        let _ = response.body.text().await;
        let status = response.status;
        // Another request got a new token while this one was out:
        // send again with it rather than sign in once more.
        if response.status == 401 && auth.header().is_some_and(|now| sent.as_deref() != Some(now.as_str())) {
            continue;
        }
        if !auth.refused(status, challenge).await {
            // Nothing better to send: ask once more so the caller gets
            // the server's own refusal to report.
            let mut r = request.clone();
            if let Some(h) = auth.header() {
                r = r.header("Authorization", h);
            }
            return http.send(r, abort).await;
        }
    }
}
