//! An MCP client for a page: Streamable HTTP over [`air_http::HttpClient`].
//!
//! * [`client::McpClient`]: the session with one server: `initialize`
//!   (version negotiation, `Mcp-Session-Id`, `MCP-Protocol-Version`),
//!   requests answered as JSON or as an SSE stream (server requests on
//!   that stream are answered: `ping`, and -32601 to the rest), an expired
//!   session initialised again once, `tools/list` with pagination,
//!   `tools/call`, and DELETE on close; 2026-07-28 (stateless) and the
//!   legacy HTTP+SSE transport too.
//! * [`names::tool_name`]: `mcp_{server}_{tool}`, as providers accept
//!   names, unique in the registry.
//! * [`tool::McpTool`]: a server's tool as an [`air_tools::Tool`].
//!
//! The client is cut in layers; a module uses only those below it:
//!
//! 1. `error` ([`McpError`]), `host` ([`ClientHost`], [`Notice`],
//!    [`Connection`]), `auth` ([`Authorizer`], the retried authorized
//!    send): leaves.
//! 2. `jsonrpc`: message framing, a server's message told apart, JSON-RPC
//!    errors.
//! 3. `requests`: every MCP method name, requests as types, the client's
//!    capabilities and 2026-07-28 `_meta`, routing and time-limit rules.
//! 4. `session`: the protocol state without IO: building a request,
//!    deciding what its outcome means, routing what the server sends, the
//!    TTL cache, subscriptions.
//! 5. `transport`: what the transports share (`mod.rs`), then `legacy`
//!    (HTTP+SSE) and `streamable` (POST answered as JSON or SSE, the GET
//!    stream, DELETE), then `stateless` (2026-07-28, reading answers as
//!    `streamable` does).
//! 6. `client`: the [`McpClient`] façade, on all of the above; `tool` on
//!    it.
//!
//! `elicit`, `prompts`, `resources`, `names`, `page_url` and
//! `header_check` read what servers send, on nothing of the client; the
//! layers may use them (`requests` reads completions with `prompts`, the
//! transports answer elicitations with `elicit`, `client` checks tools
//! with `header_check`).

mod auth;
pub mod client;
pub mod elicit;
mod error;
pub mod header_check;
mod host;
mod jsonrpc;
pub mod names;
pub mod page_url;
pub mod prompts;
mod requests;
pub mod resources;
mod session;
pub mod tool;
mod transport;

pub use client::{Authorizer, ClientHost, Connection, McpClient, McpError, Notice, ServerConfig};

/// The protocol revision asked for first.
pub const LATEST_VERSION: &str = "2025-11-25";

/// The stateless revision: no session, every request stands alone.
pub const MODERN_VERSION: &str = "2026-07-28";

/// The revision of the legacy HTTP+SSE transport, spoken only over it.
pub const LEGACY_VERSION: &str = "2024-11-05";

/// Revisions this client speaks (newest first).
pub const SUPPORTED_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// A string field of a JSON object, owned.
pub(crate) fn str_field(v: &serde_json::Value, key: &str) -> Option<String> {
    v.get(key).and_then(serde_json::Value::as_str).map(str::to_owned)
}
