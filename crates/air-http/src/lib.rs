//! HTTP as an interface, so that everything that talks to a server (the
//! chat turn, MCP, OAuth, sync, the HTTP tools) is written once and tested
//! on the host.
//!
//! * [`HttpClient`]: send a [`Request`] with an [`Abort`], get a
//!   [`Response`] whose body is read chunk by chunk as the network delivers
//!   it ([`Body`]). The browser implements it with `fetch` (in `air-web`);
//!   tests use [`fake::ScriptedHttp`] (feature `test-support`), which
//!   answers from a queue of scripts (SSE events, statuses, hangs, failures,
//!   a Stop at a given point) and records the requests. A body read whole
//!   (`Body::text`) holds at most [`MAX_TEXT_BYTES`] (32 MB): a longer one
//!   is an error.
//! * [`Abort`] ([`abort`]): a shared, single-threaded cancellation handle:
//!   `abort()`, [`Abort::aborted`] as a future to race against work that has
//!   no abort of its own, and `on_abort` hooks (the browser client calls
//!   `AbortController.abort()` from one).
//! * [`retry`]: when to try again and how long to wait (`RetryPolicy`: rate
//!   limits and server errors are retried, honouring `Retry-After` up to
//!   60 s, otherwise 1-2-4 s backoff, at most 4 attempts).
//! * `Request::redirect`: a request carrying a key (any header but the
//!   protocols' own, so an `Authorization`, an `x-api-key`, an HTTP tool's
//!   or an MCP server's headers) or a form (an OAuth token request, whose
//!   body a 307 or 308 would post again) follows no redirect, since `fetch`
//!   would send those to wherever the server points. It ends with
//!   [`REDIRECT_REFUSED`] (`air-web` sets `redirect: "manual"`, and
//!   `ScriptedHttp` answers a scripted redirect the same way).
//! * [`url`]: the URL rules everything shares: `is_http`, `host_of`, and
//!   `is_loopback_host` / `is_loopback_url`, the one answer to "is this host
//!   this machine?" (`localhost` and names under it, 127.0.0.0/8, `::1`;
//!   `localhost.evil.example` is not). The HTTP tools' plain-http rule,
//!   OAuth's secure redirect and client type, the bridge line, the doctor
//!   and the page's own origin all ask it.
//! * [`native`] (feature `native`, host only): `ThreadedHttp`, a blocking
//!   HTTP/1.1 client over `ureq`, one thread per request so a call and a
//!   stream that stays open are read at once, with a replayable trace of
//!   every exchange (`native::trace`). The `air-mcp` and `air-sync` commands
//!   use it.
//!
//! No IO, no clock, no dependencies but the `native` feature's.

pub mod abort;
#[cfg(any(test, feature = "test-support"))]
pub mod fake;
#[cfg(feature = "native")]
pub mod native;
pub mod retry;
pub mod url;

pub use abort::Abort;
pub use retry::RetryPolicy;

/// An HTTP request. The body, when present, is text (JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

impl Request {
    pub fn get(url: impl Into<String>) -> Self {
        Self { method: "GET".into(), url: url.into(), headers: Vec::new(), body: None }
    }

    /// A POST with a JSON body (`Content-Type: application/json`).
    pub fn post_json(url: impl Into<String>, body: impl Into<String>) -> Self {
        Self { method: "POST".into(), url: url.into(), headers: vec![("Content-Type".into(), "application/json".into())], body: Some(body.into()) }
    }

    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Whether a redirect may be followed. A request carrying a key (any
    /// header but the protocols' own: `Authorization`, `x-api-key`, an
    /// HTTP tool's or an MCP server's headers) is not: the browser would
    /// send those headers (all but `Authorization`) to wherever the server
    /// points, another origin too. Nor is a form (an OAuth token request:
    /// its body holds a code and its verifier, a refresh token, a client
    /// secret), which a 307 or 308 would post again wherever it points.
    /// Such a redirect ends the request with [`REDIRECT_REFUSED`].
    pub fn redirect(&self) -> Redirect {
        let plain = |name: &str, value: &str| {
            let name = name.to_ascii_lowercase();
            let form = name == "content-type" && value.trim_start().to_ascii_lowercase().starts_with("application/x-www-form-urlencoded");
            !form && (PLAIN_HEADERS.contains(&name.as_str()) || name.starts_with("mcp-param-"))
        };
        if self.headers.iter().all(|(name, value)| plain(name, value)) { Redirect::Follow } else { Redirect::Manual }
    }
}

/// The headers of the protocols themselves (HTTP, Server-Sent Events,
/// MCP), which carry no key of the user's.
const PLAIN_HEADERS: &[&str] = &["accept", "content-type", "last-event-id", "mcp-protocol-version", "mcp-session-id", "mcp-method", "mcp-name"];

/// What to do with a redirect (`fetch`'s `redirect`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redirect {
    /// Followed.
    Follow,
    /// Not followed: the request ends with [`REDIRECT_REFUSED`].
    Manual,
}

/// Why a request carrying a key ended at a redirect.
pub const REDIRECT_REFUSED: &str = "the server redirected to another address; a request carrying a key is not followed";

/// Why a request got no response (a non-2xx status is a response, not an error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpError {
    /// Nothing answered, or the browser hid the answer (CORS).
    Network(String),
    /// Cancelled through its [`Abort`].
    Aborted,
    /// The request could not be made at all (bad URL, bad header…).
    Other(String),
}

impl std::fmt::Display for HttpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HttpError::Network(d) => write!(f, "network error: {d}"),
            HttpError::Aborted => f.write_str("aborted"),
            HttpError::Other(d) => f.write_str(d),
        }
    }
}

impl std::error::Error for HttpError {}

/// A response body, read as it arrives.
#[allow(async_fn_in_trait)]
pub trait Body {
    /// The next chunk, or `None` at the end of the body.
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, HttpError>;

    /// The whole body as text (invalid UTF-8 replaced), at most
    /// [`MAX_TEXT_BYTES`]: a longer body is an error, not a tab that runs
    /// out of memory.
    async fn text(self) -> Result<String, HttpError>
    where
        Self: Sized,
    {
        Ok(String::from_utf8_lossy(&self.bytes(MAX_TEXT_BYTES).await?).into_owned())
    }

    /// The whole body, at most `max` bytes: a longer body is an error.
    async fn bytes(mut self, max: usize) -> Result<Vec<u8>, HttpError>
    where
        Self: Sized,
    {
        let mut bytes = Vec::new();
        while let Some(chunk) = self.chunk().await? {
            if bytes.len() + chunk.len() > max {
                return Err(HttpError::Other(format!("the answer is over {} MB and was not read", max / (1024 * 1024))));
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes)
    }
}

/// The most a body read whole ([`Body::text`]) may hold. Streams are read
/// chunk by chunk instead (and their events are bounded by `air-sse`).
pub const MAX_TEXT_BYTES: usize = 32 * 1024 * 1024;

/// A response: status and headers now, the body when read.
#[derive(Debug)]
pub struct Response<B> {
    pub status: u16,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: B,
}

impl<B> Response<B> {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// A header's value (names compare case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Sends requests. Implementations: `fetch` in the browser, scripted in tests.
#[allow(async_fn_in_trait)]
pub trait HttpClient {
    type Body: Body;

    /// Sends `request`. Aborting `abort` ends the wait (and any later read
    /// of the body) with [`HttpError::Aborted`].
    async fn send(&self, request: Request, abort: &Abort) -> Result<Response<Self::Body>, HttpError>;

    /// After a [`HttpError::Network`]: whether anything answers at `url` when
    /// the answer is not needed (a `no-cors` probe in the browser). `true`
    /// means the server is up and CORS hid its answer.
    async fn answers_without_cors(&self, _url: &str) -> bool {
        false
    }
}

#[cfg(test)]
mod text_tests {
    use super::*;

    /// A body of `n` chunks of 1 MB.
    struct Endless(usize);

    impl Body for Endless {
        async fn chunk(&mut self) -> Result<Option<Vec<u8>>, HttpError> {
            if self.0 == 0 {
                return Ok(None);
            }
            self.0 -= 1;
            Ok(Some(vec![b'x'; 1 << 20]))
        }
    }

    #[test]
    fn a_body_read_whole_is_bounded() {
        assert_eq!(pollster::block_on(Endless(2).text()).map(|t| t.len()), Ok(2 << 20));
        let e = pollster::block_on(Endless(1000).text());
        assert!(matches!(&e, Err(HttpError::Other(m)) if m.contains("over 32 MB")), "{e:?}");
    }
}

#[cfg(test)]
mod redirect_tests {
    use super::*;

    #[test]
    fn a_request_carrying_a_key_follows_no_redirect() {
        let mcp = Request::post_json("https://mcp.example/mcp", "{}")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-11-25")
            .header("Mcp-Session-Id", "s1")
            .header("Mcp-Method", "tools/call")
            .header("Mcp-Name", "echo")
            .header("Mcp-Param-Region", "eu")
            .header("Last-Event-ID", "7");
        assert_eq!(mcp.redirect(), Redirect::Follow, "the protocol's own headers carry no key");
        assert_eq!(Request::get("https://a.example/").redirect(), Redirect::Follow);
        for (name, value) in [("x-api-key", "sk-ant"), ("Authorization", "Bearer t"), ("X-Token", "an HTTP tool's"), ("CF-Access-Client-Secret", "an MCP server's")] {
            assert_eq!(mcp.clone().header(name, value).redirect(), Redirect::Manual, "{name}");
        }
        assert!(REDIRECT_REFUSED.contains("redirected") && REDIRECT_REFUSED.contains("key"));
        // A form (an OAuth token request) either: a 307 would post its secrets again.
        let token = Request { method: "POST".into(), url: "https://auth.example/token".into(), headers: Vec::new(), body: Some("code=c&code_verifier=v".into()) }
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json");
        assert_eq!(token.redirect(), Redirect::Manual);
    }
}
