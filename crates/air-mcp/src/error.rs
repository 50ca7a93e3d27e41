//! Why a request to a server failed.

use air_http::HttpError;

/// Why a request to a server failed.
#[derive(Debug, Clone, PartialEq)]
pub enum McpError {
    /// Nothing answered, or the browser hid the answer (CORS).
    Network(String),
    /// The server answered with an HTTP error.
    Http {
        status: u16,
        body: String,
    },
    /// The server answered with a JSON-RPC error.
    Rpc {
        code: i64,
        message: String,
    },
    /// The server speaks no revision this client knows.
    UnsupportedVersion(String),
    /// The answer is not what the protocol says.
    Protocol(String),
    /// No answer within the time allowed (the request was cancelled).
    Timeout {
        ms: u64,
    },
    /// The server needs the user to open pages first (-32042), each a URL
    /// with what to tell the user.
    UrlRequired {
        message: String,
        pages: Vec<(String, String)>,
    },
    /// The server does not speak the revision sent (-32022); it named the
    /// ones it does.
    VersionRefused {
        supported: Vec<String>,
    },
    Aborted,
}

impl std::fmt::Display for McpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // Reached, but it pointed elsewhere (`air_http::Request::redirect`).
            McpError::Network(d) if d == air_http::REDIRECT_REFUSED => write!(f, "the MCP server answered, but {d}"),
            McpError::Network(d) => write!(f, "the MCP server could not be reached (down, wrong address, or no CORS for this page): {d}"),
            McpError::Http { status: 401, .. } => f.write_str("the MCP server asks you to sign in (HTTP 401)"),
            McpError::Http { status: 403, body } if body.contains("insufficient_scope") || body.trim().is_empty() => f.write_str("the MCP server refused: this sign-in does not allow it (HTTP 403)"),
            McpError::Http { status, body } if body.trim().is_empty() => write!(f, "the MCP server answered HTTP {status}"),
            McpError::Http { status, body } => write!(f, "the MCP server answered HTTP {status}: {}", short(body)),
            McpError::Rpc { code, message } => write!(f, "the MCP server reported an error ({code}): {message}"),
            McpError::UrlRequired { message, .. } => write!(f, "the MCP server needs the user to open a page first: {message}"),
            McpError::UnsupportedVersion(v) => write!(f, "the MCP server speaks protocol version {v}, which this app does not know"),
            McpError::VersionRefused { supported } => write!(f, "the MCP server refused this protocol version; it speaks {}", supported.join(", ")),
            McpError::Protocol(d) => write!(f, "the MCP server's answer was not understood: {d}"),
            McpError::Timeout { ms } => write!(f, "the MCP server did not answer within {} s", ms / 1000),
            McpError::Aborted => f.write_str("stopped"),
        }
    }
}

impl std::error::Error for McpError {}

pub(crate) fn short(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() > 300 { format!("{}…", s.chars().take(300).collect::<String>()) } else { s.to_owned() }
}

impl From<HttpError> for McpError {
    fn from(e: HttpError) -> Self {
        match e {
            HttpError::Aborted => McpError::Aborted,
            HttpError::Network(d) => McpError::Network(d),
            HttpError::Other(d) => McpError::Network(d),
        }
    }
}
