//! OAuth 2.1 for MCP servers (the 2025-11-25 and 2026-07-28 authorization
//! specs), with no IO of its own: requests go through
//! [`air_http::HttpClient`], randomness comes from the caller, and the one
//! step that needs a user (opening the authorization page and coming back
//! to the redirect URI) is left to the host.
//!
//! * [`challenge`]: the `WWW-Authenticate` header of a 401 or 403.
//! * [`discovery`]: where the metadata lives (RFC 9728 protected-resource
//!   metadata at the path, then at the root; RFC 8414 with path insertion,
//!   then the OpenID variants) and what it says.
//! * [`pkce`]: the S256 code challenge.
//! * [`flow`]: the steps, in order: [`flow::OAuth::discover`],
//!   [`flow::OAuth::client`] (an id the user entered, a Client ID Metadata
//!   Document, or dynamic registration), [`flow::OAuth::begin`] (the
//!   authorization URL, with `state`, PKCE and `resource`),
//!   [`flow::OAuth::finish`] (the callback checked: `state`, `iss`, then
//!   the code exchanged), [`flow::OAuth::refresh`], and
//!   [`flow::step_up_scope`] for 403 `insufficient_scope`.

pub mod challenge;
pub mod discovery;
pub mod flow;
pub mod pkce;
pub mod single;
pub mod url;
pub mod vault;

pub use challenge::Challenge;
pub use discovery::{AuthServer, ProtectedResource};
pub use flow::{Client, Discovery, OAuth, OAuthError, Pending, Tokens};
pub use vault::{Grant, Vault};
