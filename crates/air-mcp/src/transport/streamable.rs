//! Streamable HTTP (2025-03-26 … 2025-11-25): a POST answered as JSON or
//! as an SSE stream (resumed with a GET and `Last-Event-ID` when it closes
//! before the answer), the session's own GET stream, DELETE on close.

use air_http::{Abort, Body, HttpClient, Request, Response};
use air_tools::CallHost;
use serde_json::Value;

use super::{MAX_RESUMES, Messages, Wire, is_sse};
use crate::error::{McpError, short};
use crate::jsonrpc;
use crate::session::Outcome;

/// How reading one SSE stream ended.
enum StreamEnd {
    Answered(Result<Value, McpError>),
    /// It closed before the answer: resume from `last_id` after `retry_ms`.
    Closed {
        last_id: Option<String>,
        retry_ms: Option<u64>,
        progressed: bool,
    },
}

impl<H: HttpClient> Wire<H> {
    /// Reads the answer to request `id`: a JSON body, or an SSE stream on
    /// which server requests and notifications may come first. A stream
    /// that closes before the answer is resumed with a GET and
    /// `Last-Event-ID`, after the server's `retry:` delay.
    pub(crate) async fn answer(&self, id: u64, response: Response<H::Body>, had_session: bool, abort: &Abort, call: Option<&dyn CallHost>) -> Result<Outcome, McpError> {
        let status = response.status;
        if status == 404 || (status == 400 && had_session) {
            // The npm reference server says 400 "No valid session ID" where
            // the spec says 404.
            let body = response.body.text().await.unwrap_or_default();
            if status == 404 || body.to_ascii_lowercase().contains("session") {
                return Ok(Outcome::Expired);
            }
            return Err(McpError::Http { status, body });
        }
        if !(200..300).contains(&status) {
            let body = response.body.text().await.unwrap_or_default();
            return Err(jsonrpc::rpc_error_in(&body).unwrap_or(McpError::Http { status, body }));
        }
        if !is_sse(&response) {
            let text = response.body.text().await?;
            let message: Value = serde_json::from_str(&text).map_err(|e| McpError::Protocol(format!("not JSON ({e})")))?;
            return match self.handle(id, message, abort, call).await? {
                Some(result) => result.map(Outcome::Result),
                None => Err(McpError::Protocol("the answer is not the response to the request".into())),
            };
        }
        let mut body = response.body;
        let mut resumes = 0;
        loop {
            let (last_id, retry_ms, progressed) = match self.read_stream(id, body, abort, call).await? {
                StreamEnd::Answered(result) => return result.map(Outcome::Result),
                StreamEnd::Closed { last_id, retry_ms, progressed } => (last_id, retry_ms, progressed),
            };
            // Without an event id the server cannot resume it.
            let Some(last_id) = last_id else {
                return Err(McpError::Protocol("the stream ended before the response".into()));
            };
            resumes = if progressed { 1 } else { resumes + 1 };
            if resumes > MAX_RESUMES {
                return Err(McpError::Protocol(format!("the stream kept closing before the response ({MAX_RESUMES} reconnections)")));
            }
            self.wait_to_reopen(retry_ms, abort).await?;
            let get = self.with_headers(Request::get(&self.config.url).header("Accept", "text/event-stream").header("Last-Event-ID", &last_id));
            let response = self.send(get, abort).await?;
            if !response.ok() || !is_sse(&response) {
                let status = response.status;
                let text = response.body.text().await.unwrap_or_default();
                return Err(McpError::Protocol(format!("the stream ended before the response, and resuming it was answered HTTP {status} {}", short(&text))));
            }
            body = response.body;
        }
    }

    /// Reads one SSE stream until the response to `id` or its end.
    async fn read_stream(&self, id: u64, body: H::Body, abort: &Abort, call: Option<&dyn CallHost>) -> Result<StreamEnd, McpError> {
        let mut messages = Messages::new(body);
        while let Some(message) = messages.next().await? {
            if let Some(result) = self.handle(id, message, abort, call).await? {
                return Ok(StreamEnd::Answered(result));
            }
        }
        Ok(StreamEnd::Closed { last_id: messages.last_id(), retry_ms: messages.retry_ms, progressed: messages.progressed })
    }

    /// The server's answer to `initialize` (request `id`).
    pub(crate) async fn initialize_answer(&self, id: u64, response: Response<H::Body>, abort: &Abort) -> Result<Value, McpError> {
        match self.answer(id, response, false, abort, None).await? {
            Outcome::Result(r) => Ok(r),
            Outcome::Expired => Err(McpError::Protocol("initialize was refused as an expired session".into())),
        }
    }

    /// Keeps the session's own stream open (a GET), handing what comes to
    /// [`Wire::on_session_stream`]. Returns when the server offers no such
    /// stream (405, or the session is gone). A closed stream is resumed
    /// with `Last-Event-ID` after the `retry:` delay.
    pub(crate) async fn listen_get(&self, abort: &Abort) -> Result<(), McpError> {
        let mut last_id: Option<String> = None;
        let mut idle = 0;
        loop {
            let mut get = self.with_headers(Request::get(&self.config.url).header("Accept", "text/event-stream"));
            if let Some(id) = &last_id {
                get = get.header("Last-Event-ID", id);
            }
            self.session.borrow_mut().stream_opening = true;
            let response = self.send(get, abort).await;
            self.session.borrow_mut().stream_opening = false;
            self.wake_all();
            let response = response?;
            if matches!(response.status, 400 | 404 | 405 | 409) {
                // Not offered, or the session ended (the next request
                // renews it), or the server holds another stream of this
                // session open (409, Python's SDK: a connection it has not
                // yet seen closed).
                return Ok(());
            }
            if !response.ok() || !is_sse(&response) {
                let status = response.status;
                let body = response.body.text().await.unwrap_or_default();
                return Err(McpError::Http { status, body });
            }
            let mut messages = Messages::new(response.body);
            loop {
                match messages.next().await {
                    Ok(Some(message)) => self.on_session_stream(message, abort).await?,
                    // A broken connection is resumed like a closed one.
                    Ok(None) | Err(McpError::Network(_)) => break,
                    Err(e) => return Err(e),
                }
            }
            last_id = messages.last_id().or(last_id);
            idle = if messages.progressed { 0 } else { idle + 1 };
            if idle > MAX_RESUMES {
                return Err(McpError::Protocol(format!("the session's stream kept closing ({MAX_RESUMES} reconnections)")));
            }
            self.wait_to_reopen(messages.retry_ms, abort).await?;
        }
    }

    /// Ends the session (DELETE with its id). Failures are ignored: the
    /// server forgets it in time anyway, and 405 is allowed.
    pub(crate) async fn delete_session(&self) {
        let Some(id) = self.session.borrow_mut().session_id.take() else { return };
        let version = self.session.borrow().version.clone();
        let mut r = Request { method: "DELETE".into(), url: self.config.url.clone(), headers: Vec::new(), body: None };
        for (k, v) in &self.config.headers {
            r = r.header(k, v);
        }
        r = r.header("Mcp-Session-Id", id);
        // As on every request after initialization.
        if let Some(v) = version {
            r = r.header("MCP-Protocol-Version", v);
        }
        let _ = self.send(r, &Abort::new()).await;
        self.session.borrow_mut().initialized = false;
    }
}
