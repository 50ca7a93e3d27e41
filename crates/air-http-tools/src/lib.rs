//! HTTP tools: a tool the user defines as one HTTP request (a method, an
//! https URL with `{parameters}`, headers, an input schema), without IO.
//!
//! * [`tool`]: the definition ([`HttpTool`]) as it is stored, and its
//!   checks (name, URL, schema, headers); the hints its method gives.
//! * [`openapi`]: an OpenAPI 3 document (JSON) → candidate tools, one per
//!   operation, and the operations that cannot be tools with the reason.
//! * [`request`]: a call's arguments → the request ([`build_request`]).
//! * [`response`]: an answer → what the model reads ([`read_response`]).
//! * [`run`]: the tool as an `air_tools::Tool` over an
//!   `air_http::HttpClient`.
//! * [`url`]: the URL handling all of these need.
//!
//! Module order (each uses only those before it): `url`, `tool`,
//! `request`, `response`, `openapi`, `run`.

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
