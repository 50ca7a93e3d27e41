//! HTTP tools (seed 002's `type: "http"` beside `"mcp"`): a tool the user
//! defines as one HTTP request (a method, an https URL with `{parameters}`,
//! headers, an input schema), without IO. `air-store` keeps the saved ones,
//! `air_workspace::http_tools` adds, imports, checks and registers them,
//! Settings → HTTP tools shows them.
//!
//! * [`tool`]: the definition ([`HttpTool`]: name, description, input
//!   schema, `Method`, a URL template whose `{name}`s are arguments,
//!   `Header`s each maybe secret, where the other arguments go: `ArgsIn`,
//!   the `query` list, `bodyArg`) as it is stored (camelCase JSON), and its
//!   checks. `validate` says what is wrong: a name providers refuse
//!   (`^[a-zA-Z0-9_-]{1,64}$`), a URL that is not https (plain http only to
//!   localhost, 127.0.0.1, [::1]), holds credentials or a fragment or puts a
//!   `{parameter}` in the host, a schema that is not an object schema, a
//!   placed argument the schema does not have, a header the browser would
//!   drop (forbidden request headers) or one with a line break, a body on
//!   GET/HEAD; `validate_set` adds duplicate names. Hints come from the
//!   method (GET/HEAD read-only, DELETE destructive; `def` gives them as
//!   `Annotations`). A secret header's value is in the request and in
//!   storage, never in `Debug` (written by hand).
//! * [`openapi`]: an OpenAPI 3.0/3.1 document (JSON only; YAML and Swagger
//!   2.0 are refused saying how to convert) → `Imported`: the base URL
//!   (`servers[0]`, variables at their defaults, a relative one resolved
//!   against the document's URL; an operation's or path item's own
//!   `servers` win), with a `Caution` (module `caution`) beside a candidate
//!   on another origin than the document's first server, or on this
//!   computer or a private network (loopback, RFC 1918, link-local, IPv6
//!   unique local, `.local`-like names) when the document was not loaded
//!   from that host; one `Candidate` per operation (name from `operationId`
//!   cleaned, else method and path, numbered on a clash; summary and
//!   description; the input schema from path and query parameters and the
//!   JSON body, an object body's properties merged at the top, `allOf`
//!   merged and read-only ones left out, unless one is named like a
//!   parameter, any other body under `body`); `Note`s of what is not
//!   carried over (header and cookie parameters, query styles, recursion);
//!   the `Skipped` operations with their reason (non-JSON bodies, OPTIONS
//!   and TRACE, clashing parameters, `$ref` trouble); and the credentials
//!   the `security` requirements ask for (`Auth`). `$ref`s are followed
//!   within the document only (module `refs`: JSON pointers unescaped;
//!   another document refused per operation; a chain of refs that only name
//!   each other is an error; a schema met inside itself is cut there;
//!   inlining visits at most `BUDGET` values per operation, so refs that fan
//!   out cannot blow up).
//! * [`request`]: [`build_request`]`(tool, args)`: `{name}`s filled in
//!   percent-encoded (missing, empty, `.` and `..` refused: the URL standard
//!   reads `%2e%2e` as `..` too), the query (arrays as repeated keys,
//!   `null`s left out), the rest as a JSON body or in the query, the tool's
//!   headers; the `Built` request's `Debug` hides secret values
//!   (`air_http::Request`'s derived one would not). `ArgError`s are worded
//!   for the model.
//! * [`response`]: [`read_response`]`(status, content type, body)` → a
//!   `ToolOutput`: JSON pretty-printed while that stays under
//!   `PRETTY_LIMIT`, text as it is, binary as a note, all cut at
//!   `MAX_OUTPUT`; any status but 2xx is an error with the status and the
//!   start of the body (`EXCERPT`), with a hint for 401/403, 404 and 429.
//! * [`run`]: `HttpCall`, the tool as an `air_tools::Tool` over an
//!   `air_http::HttpClient` (Stop through the call's `Abort`), its
//!   definition of source `ToolSource::Http`.
//! * [`url`]: the URL handling all of these need (split, check,
//!   placeholders, percent-encoding, RFC 3986 resolution), without the
//!   `url` crate.
//!
//! Module order (each uses only those before it): `url`, `tool`,
//! `request`, `response`, `openapi`, `run`. Host tests beside each module;
//! the OpenAPI fixtures follow the shapes of public documents (Petstore 3.0
//! and 3.1).

pub mod openapi;
pub mod request;
pub mod response;
pub mod run;
pub mod tool;
pub mod url;

pub use request::{ArgError, Built, build_request};
pub use response::read_response;
pub use run::HttpCall;
pub use tool::{ArgsIn, DefError, Header, HttpTool, Method, validate_set};
