//! An MCP client for a page: Streamable HTTP over [`air_http::HttpClient`]
//! (so `fetch` in the browser, `ScriptedHttp` in tests, and blocking HTTP in
//! `air-mcp-cli`).
//!
//! * [`client::McpClient`]: the session with one server, in whichever era
//!   the server speaks, found out on connecting and remembered for the
//!   server (`with_known_version`):
//!   * 2026-07-28 (asked first, with `server/discover`): no session; every
//!     request carries `_meta` (protocol version, client capabilities,
//!     client info) and the headers `MCP-Protocol-Version`, `Mcp-Method`,
//!     `Mcp-Name` (tool or prompt name, resource URI), plus `Mcp-Param-*`
//!     for arguments whose schema property has `x-mcp-header`
//!     (`param_headers`; base64 `=?base64?…?=` for values that are not
//!     plain ASCII). An `input_required` result is answered (its
//!     elicitations asked of the call's `CallHost`) and the request sent
//!     again with a new id, `inputResponses` and the unchanged
//!     `requestState` (bounded rounds). Stop closes the stream, which is the
//!     cancellation. Errors are errors (a 404 is not a lost session).
//!     `listen` holds a `subscriptions/listen` stream open for list changes.
//!     A 4xx whose body is -32022 naming 2026-07-28 is this era refusing the
//!     first try: the same request goes again with a new id. Tools whose
//!     `x-mcp-header` could not be sent ([`header_check`]: not an RFC 9110
//!     token, named twice, on a number or object, or reached other than
//!     through `properties`) are left out when listed, each with a
//!     `Notice::ToolRefused`.
//!   * 2025-03-26 … 2025-11-25 (anything but a discovery result falls back
//!     to this): `initialize` with the newest revision and the client's
//!     capabilities (elicitation, form and URL), the server's choice checked,
//!     `Mcp-Session-Id` kept and sent, `MCP-Protocol-Version` sent,
//!     `notifications/initialized`. Every request is answered either as
//!     JSON or as an SSE stream on which server requests (`ping`;
//!     `elicitation/create`, asked of the call's `CallHost`; -32601 to the
//!     rest) and notifications (progress for the request's own
//!     `progressToken`; `list_changed`, resource updates and log messages to
//!     the `ClientHost`) may come first. Priming events are skipped; a
//!     stream that closes before its answer is resumed with a GET and
//!     `Last-Event-ID` after the server's `retry:` delay (bounded). An
//!     expired session (404, or the reference server's 400 after a session
//!     id was sent) is initialised again once and the request sent again.
//!     Stop or a timeout (`with_timeouts`) aborts the request and sends
//!     `notifications/cancelled`. `listen` keeps the session's own GET
//!     stream open (resumed the same way); what arrives there for a call in
//!     flight (a question, progress) is handed to that call; watched calls
//!     wait (at most 3 s) for that stream to open, or the server's questions
//!     would be lost.
//!   * 2024-11-05, HTTP+SSE (when a POST of `initialize` is refused with
//!     400/404/405 and a GET gives an event stream): the stream's `endpoint`
//!     event says where to POST; answers arrive on the one stream, read by
//!     whichever request is waiting, which keeps the others' answers for
//!     them.
//!
//!   The client reports its `Connection` (connecting, connected,
//!   reconnecting, failed with the reason) to the `ClientHost`, which also
//!   gives it a timer and hears announcements. Lists over all pages
//!   (`tools/list`, `prompts/list`, `resources/list`,
//!   `resources/templates/list`), `tools/call`, `prompts/get`,
//!   `resources/read`, `completion/complete` for prompt arguments, DELETE on
//!   close. Every request carries the server's own headers (an API key or
//!   `Authorization`), and only to that server.
//! * `Authorizer` (module `auth`, given with `with_authorizer`): the
//!   `Authorization` header each request carries, and, when the server
//!   refuses it (401, or 403 `insufficient_scope`), a new token (refresh,
//!   sign-in, step-up) and the request sent again, at most twice; without
//!   one, the refusal is the answer.
//! * [`elicit`]: an `elicitation/create` request → `Elicitation` (URL mode
//!   only for http(s) URLs), the requested schema → form `Field`s (text with
//!   formats, number, integer, boolean, single and multi-select with labels,
//!   in the server's order) with their defaults (SEP-1034), user input
//!   parsed and checked per field, and the answer as sent.
//! * [`prompts`]: a listed prompt and its arguments, a `prompts/get` result
//!   as text for the composer, the values of a completion.
//! * [`resources`]: listed resources and templates (RFC 6570 `{var}` forms
//!   expanded with percent-encoding), and what `resources/read` returned as
//!   `<resource uri=…>` context blocks (binary contents by their size).
//! * [`names::tool_name`]: `mcp_{server}_{tool}`, cleaned to what providers
//!   accept, at most 64 characters (a long name keeps its end behind a
//!   short hash), and numbered on a clash.
//! * [`page_url`]: the page a server asks the user to open: the host the
//!   browser will really go to, or why the link is refused.
//! * [`tool`]: `callable` (not a tool that must run as a task, which this
//!   client does not offer), `def_from` (a `tools/list` entry → `ToolDef`,
//!   annotations kept), `output_from` (text, image, audio, resource links,
//!   embedded resources, `structuredContent`, `isError`) and [`tool::McpTool`],
//!   a server's tool as an [`air_tools::Tool`].
//!
//! The client is cut in layers; a module uses only those below it:
//!
//! 1. `error` ([`McpError`]), `host` ([`ClientHost`], [`Notice`],
//!    [`Connection`]), `auth` ([`Authorizer`], the retried authorized
//!    send): leaves.
//! 2. `jsonrpc`: message framing, a server's message told apart, JSON-RPC
//!    errors.
//! 3. `requests`: every MCP method name (spelled nowhere else: tidy's
//!    `mcp_method_strings_only_in_requests`), requests as types, the
//!    client's capabilities and 2026-07-28 `_meta`, `Mcp-Name`,
//!    `Mcp-Param-*`, routing and the `tools/call` time limit.
//! 4. `session`: the protocol state without IO: an `Attempt` builds each
//!    send of a request and turns its outcome into a `Step` (done, input
//!    round, reconnect, again, pages to open, cancel, unreachable, fail);
//!    the agreed version, the TTL cache, subscriptions, the session
//!    stream's inbox. Unit-tested as decision tables.
//! 5. `transport`: what the transports share (`mod.rs`, the `Wire`), then
//!    `legacy` (HTTP+SSE) and `streamable` (POST answered as JSON or SSE,
//!    the GET stream, DELETE), then `stateless` (2026-07-28, reading answers
//!    as `streamable` does).
//! 6. `client`: the [`McpClient`] façade, on all of the above; `tool` on
//!    it.
//!
//! `elicit`, `prompts`, `resources`, `names`, `page_url` and
//! `header_check` read what servers send, on nothing of the client; the
//! layers may use them (`requests` reads completions with `prompts`, the
//! transports answer elicitations with `elicit`, `client` checks tools
//! with `header_check`).
//!
//! Tests: recorded answers of the reference server (`tests/fixtures/`, npm
//! `@modelcontextprotocol/server-everything`) and the variations other
//! servers produce; end to end against the real server in Chromium.
//! `tests/replay.rs` replays whole recorded scripts of every revision
//! (`tests/fixtures/replay/`: PyPI `mcp` 1.9 for 2025-03-26, 1.12 for
//! 2025-06-18 with and without sessions, 2.3 for 2026-07-28, the reference
//! server for 2025-11-25 and the legacy HTTP+SSE transport): every request
//! must be one the real server got, byte for byte, each answer arrives in
//! the order it did, a stopped call stops where it did, and each command
//! returns what it returned. `tests/support/record-mcp-fixtures.sh` (at the
//! repository's root) records them again.
//!
//! Why not `rmcp`'s `model` types: measured in a wasm probe (opt-level
//! "z", LTO, wasm-opt -Oz), parsing one `ServerJsonRpcMessage` with `rmcp`
//! 3.9 (default features off, `base64`) costs 506 KB raw / 180 KB gzip and
//! brings tokio, tracing, chrono and sha2 into the build; the client needs
//! a few fields of a few messages, read from `serde_json::Value`.

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
