//! The 2026-07-28 revision: no session, every request stands alone.
//! `server/discover` finds out whether a server speaks it; a refused
//! request is an error (never an expired session); `subscriptions/listen`
//! holds one long-lived stream for list and resource changes. Answers are
//! read as Streamable HTTP reads them.

use std::pin::pin;

use air_http::{Abort, Body, HttpClient, HttpError, Request, Response};
use futures_util::future::{Either, select};
use serde_json::Value;

use super::{MAX_RESUMES, Messages, Wire, is_sse};
use crate::MODERN_VERSION;
use crate::error::McpError;
use crate::jsonrpc;
use crate::requests::{Discover, Request as _, SubscriptionsListen};
use crate::session::{self, Discovered, Outcome};

/// What a refused 2026-07-28 request means: no session to lose, so an
/// error is an error.
pub(crate) async fn refused<B: Body>(response: Response<B>) -> McpError {
    let status = response.status;
    let body = response.body.text().await.unwrap_or_default();
    jsonrpc::rpc_error_in(&body).unwrap_or(McpError::Http { status, body })
}

impl<H: HttpClient> Wire<H> {
    /// 2026-07-28 first: `server/discover`. `Ok(false)` when the server
    /// does not speak it (it answered anything but a discovery result).
    pub(crate) async fn discover(&self, abort: &Abort) -> Result<bool, McpError> {
        // Id 0 is never used by requests: theirs start at 1.
        match self.discover_once(0, abort).await? {
            Discovered::Again => {
                // A 2026-07-28 server that refused the first try's version
                // but names 2026-07-28: once more, with a new id.
                let id = self.next_id();
                Ok(matches!(self.discover_once(id, abort).await?, Discovered::Yes))
            }
            d => Ok(d == Discovered::Yes),
        }
    }

    async fn discover_once(&self, id: u64, abort: &Abort) -> Result<Discovered, McpError> {
        let message = jsonrpc::request(id, Discover::METHOD, Discover.params());
        let mut request = Request::post_json(&self.config.url, message.to_string())
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", MODERN_VERSION)
            .header("Mcp-Method", Discover::METHOD);
        for (k, v) in &self.config.headers {
            request = request.header(k, v);
        }
        let response = match self.send(request, abort).await {
            Ok(r) => r,
            Err(HttpError::Aborted) => return Err(McpError::Aborted),
            // Perhaps only the new headers were refused (CORS): the older
            // handshake says more.
            Err(_) => return Ok(Discovered::No),
        };
        if !response.ok() {
            let text = response.body.text().await.unwrap_or_default();
            return Ok(session::discovery_refused(id, &text));
        }
        let Ok(Outcome::Result(result)) = self.answer(id, response, false, abort, None).await else { return Ok(Discovered::No) };
        let Ok(Some(result)) = Discover::parse(result) else { return Ok(Discovered::No) };
        self.session.borrow_mut().discovered(&result);
        Ok(Discovered::Yes)
    }

    /// 2026-07-28: `subscriptions/listen`, one long-lived POST stream for
    /// the list changes; opened again when the server closes it. Returns
    /// when the server does not offer it.
    pub(crate) async fn subscriptions_listen(&self, abort: &Abort) -> Result<(), McpError> {
        let mut idle = 0;
        loop {
            let id = self.next_id();
            let (rev, resources) = {
                let s = self.session.borrow();
                (s.subscriptions_rev, s.subscribed.iter().cloned().collect::<Vec<_>>())
            };
            let message = jsonrpc::request(id, SubscriptionsListen::METHOD, SubscriptionsListen { resources }.params());
            let request = self.post(&message).header("Mcp-Method", SubscriptionsListen::METHOD);
            let response = self.send(request, abort).await?;
            if !response.ok() || !is_sse(&response) {
                let _ = response.body.text().await;
                return Ok(());
            }
            let mut messages = Messages::new(response.body);
            loop {
                // A changed set of subscriptions closes this stream and
                // opens one that asks for the new set.
                let next = match select(pin!(messages.next()), pin!(self.subscriptions_changed(rev))).await {
                    Either::Left((next, _)) => next,
                    Either::Right(_) => break,
                };
                let message = match next {
                    Ok(Some(m)) => m,
                    Ok(None) | Err(McpError::Network(_)) => break,
                    Err(e) => return Err(e),
                };
                // The answer to the listen request itself ends it.
                let Some(method) = message.get("method").and_then(Value::as_str) else { return Ok(()) };
                self.notified(method, message.get("params").unwrap_or(&Value::Null), None);
            }
            if self.session.borrow().subscriptions_rev != rev {
                continue;
            }
            idle = if messages.progressed { 0 } else { idle + 1 };
            if idle > MAX_RESUMES {
                return Err(McpError::Protocol(format!("the subscription stream kept closing ({MAX_RESUMES} reconnections)")));
            }
            self.wait_to_reopen(messages.retry_ms, abort).await?;
        }
    }
}
