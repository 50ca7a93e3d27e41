//! OAuth 2.1 for MCP servers (the 2025-11-25 and 2026-07-28 authorization
//! specs), with no IO of its own: requests go through
//! [`air_http::HttpClient`], randomness and the clock come from the caller,
//! and the one step that needs a user (opening the authorization page and
//! coming back to the redirect URI) is left to the host.
//!
//! * [`challenge`]: the `WWW-Authenticate` header of a 401 or 403
//!   (`resource_metadata`, `scope`, `error`).
//! * [`discovery`]: where the metadata lives (RFC 9728 protected-resource
//!   metadata at the path, then at the root; RFC 8414 with path insertion,
//!   then OpenID with path insertion, then appended) and what it says (the
//!   issuer checked, S256 or stop).
//! * [`pkce`]: the S256 code challenge.
//! * [`flow`]: the steps, in order: [`flow::OAuth::discover`] (a 2025-03-26
//!   server without metadata gets the default endpoints at its origin),
//!   [`flow::OAuth::client`] (an id the user entered, else the app's Client
//!   ID Metadata Document where the server takes one, else dynamic
//!   registration as a public client: `native` when it is sent back to this
//!   machine, `web` otherwise), [`flow::OAuth::begin`] (the authorization
//!   URL, with `state`, PKCE and `resource`; the `Pending` state
//!   serialises, so a full-page redirect can resume),
//!   [`flow::OAuth::finish`] (the callback checked: `state`, `iss` by
//!   RFC 9207, then the code exchanged), [`flow::OAuth::refresh`], and
//!   [`flow::step_up_scope`] for 403 `insufficient_scope`.
//! * [`single`]: `SingleFlight` makes a sign-in (the command line's) or a
//!   refresh (the page's) one at a time per server: requests refused
//!   meanwhile wait and send again with its token.
//! * [`vault`]: clients by issuer and grants by server URL, kept between
//!   visits, never exported.
//! * [`url`]: the little URL handling needed, without the `url` crate (its
//!   IDNA tables would cost the page more than all of this), and
//!   `resource_covers`.
//!
//! Secrets go only to https endpoints or this machine, and metadata naming
//! any other endpoint is refused. The protected resource must be the
//! server's own URL or a parent path on its origin at a `/` boundary
//! (`url::resource_covers`); issuers are compared exactly (RFC 8414 §3.3,
//! RFC 9207).

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
