//! An HTTP tool's definition as the user saves it, and its checks.

use std::fmt;

use air_tools::{Annotations, ToolDef, ToolSource};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::url::{self, UrlError};

/// Providers accept `^[a-zA-Z0-9_-]{1,64}$` as a function name.
pub const MAX_NAME: usize = 64;

/// A request method an HTTP tool may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Method {
    Get,
    Head,
    Post,
    Put,
    Patch,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }

    /// The method named `s`, in any case (`get`, as OpenAPI writes it).
    pub fn parse(s: &str) -> Option<Method> {
        [Method::Get, Method::Head, Method::Post, Method::Put, Method::Patch, Method::Delete].into_iter().find(|m| m.as_str().eq_ignore_ascii_case(s))
    }

    /// GET and HEAD change nothing (RFC 9110 §9.2.1: "safe").
    pub fn read_only(self) -> bool {
        matches!(self, Method::Get | Method::Head)
    }

    /// DELETE removes what it names.
    pub fn destructive(self) -> bool {
        self == Method::Delete
    }

    /// Sending it twice does what sending it once does (RFC 9110 §9.2.2).
    pub fn idempotent(self) -> bool {
        !matches!(self, Method::Post | Method::Patch)
    }

    /// Whether a request of this method may carry a body (`fetch` refuses
    /// one on GET and HEAD).
    pub fn may_have_body(self) -> bool {
        !self.read_only()
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where the arguments go that are neither path parameters nor named in
/// [`HttpTool::query`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ArgsIn {
    /// A JSON body for POST, PUT and PATCH; the query string otherwise.
    #[default]
    Auto,
    /// A JSON object as the body.
    Body,
    /// The query string.
    Query,
}

/// A header every request of the tool carries. A secret one (an API key,
/// `Authorization`) is sent but never shown: `Debug` writes `<secret>`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    pub name: String,
    pub value: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub secret: bool,
}

impl Header {
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        Self { name: name.into(), value: value.into(), secret: false }
    }

    pub fn secret(name: impl Into<String>, value: impl Into<String>) -> Self {
        Self { name: name.into(), value: value.into(), secret: true }
    }
}

impl fmt::Debug for Header {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value: &dyn fmt::Debug = if self.secret { &"<secret>" } else { &self.value };
        f.debug_struct("Header").field("name", &self.name).field("value", value).field("secret", &self.secret).finish()
    }
}

/// A tool that is one HTTP request: what the model sees (name,
/// description, input schema) and how its arguments become the request.
/// Stored as camelCase JSON (localStorage, beside the MCP servers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpTool {
    /// What the model calls; `^[a-zA-Z0-9_-]{1,64}$`.
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// JSON Schema of the arguments: an object schema.
    pub input_schema: Value,
    pub method: Method,
    /// https (http only to this machine); `{name}` in the path or query
    /// stands for the argument `name`, percent-encoded.
    pub url: String,
    #[serde(default)]
    pub headers: Vec<Header>,
    #[serde(default, skip_serializing_if = "is_auto")]
    pub args_in: ArgsIn,
    /// Arguments that always go in the query string (an OpenAPI operation's
    /// query parameters beside a JSON body).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub query: Vec<String>,
    /// When set, the body is this argument's value (an array, say) rather
    /// than an object of the remaining arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_arg: Option<String>,
}

fn is_auto(a: &ArgsIn) -> bool {
    *a == ArgsIn::Auto
}

/// Why a definition cannot be saved or used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefError {
    /// Not `^[a-zA-Z0-9_-]{1,64}$`.
    Name(String),
    /// Two tools of one name.
    Duplicate(String),
    Url {
        url: String,
        why: UrlError,
    },
    /// The input schema is not an object schema; says what is wrong.
    Schema(&'static str),
    /// `{name}` in the URL, in `query` or `bodyArg` is not a property of
    /// the input schema.
    Unknown {
        name: String,
        role: &'static str,
    },
    /// A header the browser refuses to set, or that would break the
    /// request.
    Header {
        name: String,
        why: &'static str,
    },
    /// A JSON body asked of a method that has none.
    BodyOn(Method),
}

impl fmt::Display for DefError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DefError::Name(n) => write!(f, "the tool name \"{n}\" is not allowed: use 1 to {MAX_NAME} letters (a-z, A-Z), digits, _ or -"),
            DefError::Duplicate(n) => write!(f, "two tools are named \"{n}\"; each needs a name of its own"),
            DefError::Url { url, why } => write!(f, "the URL \"{url}\" cannot be used: {why}"),
            DefError::Schema(why) => write!(f, "the input schema must be a JSON Schema object ({why})"),
            DefError::Unknown { name, role } => {
                write!(f, "the {role} \"{name}\" is not a property of the input schema, so the model cannot give it")
            }
            DefError::Header { name, why } => write!(f, "the header \"{name}\" cannot be used: {why}"),
            DefError::BodyOn(m) => write!(f, "a {m} request has no body; send the arguments in the query instead"),
        }
    }
}

impl std::error::Error for DefError {}

/// Whether `name` fits what providers accept as a function name.
pub fn valid_name(name: &str) -> bool {
    (1..=MAX_NAME).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `raw` made a valid name: other characters become `_` (runs of them
/// one), no `_` at either end, at most [`MAX_NAME`] long; `tool` when
/// nothing is left.
pub fn clean_name(raw: &str) -> String {
    let mut out = String::new();
    for c in raw.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' };
        if !(c == '_' && (out.is_empty() || out.ends_with('_'))) {
            out.push(c);
        }
    }
    let mut out = out.trim_end_matches('_').to_owned();
    out.truncate(MAX_NAME);
    let out = out.trim_end_matches('_').to_owned();
    if out.is_empty() { "tool".to_owned() } else { out }
}

impl HttpTool {
    /// The `{name}`s of the URL (checked by [`HttpTool::validate`]; empty
    /// when the URL is malformed).
    pub fn path_params(&self) -> Vec<&str> {
        url::placeholders(&self.url).unwrap_or_default()
    }

    /// Whether the remaining arguments go in a JSON body.
    pub fn rest_in_body(&self) -> bool {
        match self.args_in {
            ArgsIn::Auto => matches!(self.method, Method::Post | Method::Put | Method::Patch),
            ArgsIn::Body => self.method.may_have_body(),
            ArgsIn::Query => false,
        }
    }

    /// GET and HEAD.
    pub fn read_only(&self) -> bool {
        self.method.read_only()
    }

    /// DELETE.
    pub fn destructive(&self) -> bool {
        self.method.destructive()
    }

    /// The hints its method gives, as MCP annotations (hints, not
    /// guarantees: the API decides what a request does).
    pub fn annotations(&self) -> Annotations {
        Annotations { title: None, read_only_hint: Some(self.read_only()), destructive_hint: Some(self.destructive()), idempotent_hint: Some(self.method.idempotent()), open_world_hint: Some(true) }
    }

    /// What the model is told about it: an HTTP tool
    /// (`ToolSource::Http`), whose method's hints decide whether a call
    /// asks first (`air_tools::policy::default_policy`).
    pub fn def(&self) -> ToolDef {
        ToolDef { name: self.name.clone(), description: self.description.clone(), input_schema: self.input_schema.clone(), annotations: self.annotations(), source: ToolSource::Http, mcp: None }
    }

    /// Checks everything that can be checked before a call: the name, the
    /// URL, the schema, that every argument the request places is a
    /// property of the schema, and the headers.
    pub fn validate(&self) -> Result<(), DefError> {
        if !valid_name(&self.name) {
            return Err(DefError::Name(self.name.clone()));
        }
        let bad_url = |why| DefError::Url { url: self.url.clone(), why };
        url::check(&self.url).map_err(bad_url)?;
        let params = url::placeholders(&self.url).map_err(bad_url)?;
        let props = schema_properties(&self.input_schema)?;
        let known = |n: &str| props.is_some_and(|p| p.contains_key(n));
        let placed = params.iter().map(|p| (*p, "URL parameter")).chain(self.query.iter().map(|q| (q.as_str(), "query argument")));
        for (name, role) in placed.chain(self.body_arg.iter().map(|b| (b.as_str(), "body argument"))) {
            if !known(name) {
                return Err(DefError::Unknown { name: name.to_owned(), role });
            }
        }
        let wants_body = self.args_in == ArgsIn::Body || self.body_arg.is_some();
        if wants_body && !self.method.may_have_body() {
            return Err(DefError::BodyOn(self.method));
        }
        self.headers.iter().try_for_each(check_header)
    }
}

/// Checks each tool and that no two share a name.
pub fn validate_set(tools: &[HttpTool]) -> Result<(), DefError> {
    let mut seen = std::collections::BTreeSet::new();
    for t in tools {
        t.validate()?;
        if !seen.insert(t.name.as_str()) {
            return Err(DefError::Duplicate(t.name.clone()));
        }
    }
    Ok(())
}

/// The schema's `properties` (`None` when it has none), once it is known to
/// be an object schema.
fn schema_properties(schema: &Value) -> Result<Option<&serde_json::Map<String, Value>>, DefError> {
    let Some(obj) = schema.as_object() else { return Err(DefError::Schema("it is not a JSON object")) };
    if obj.get("type").and_then(Value::as_str) != Some("object") {
        return Err(DefError::Schema("its \"type\" must be \"object\""));
    }
    let props = match obj.get("properties") {
        None => None,
        Some(Value::Object(p)) => Some(p),
        Some(_) => return Err(DefError::Schema("\"properties\" must be an object")),
    };
    match obj.get("required") {
        None => {}
        Some(Value::Array(r)) if r.iter().all(Value::is_string) => {}
        Some(_) => return Err(DefError::Schema("\"required\" must be a list of property names")),
    }
    Ok(props)
}

/// Headers a page may not set (the Fetch standard's forbidden request
/// headers: the browser would drop them without a word) or that the
/// request sets itself.
const FORBIDDEN: &[&str] = &[
    "accept-charset",
    "accept-encoding",
    "access-control-request-headers",
    "access-control-request-method",
    "connection",
    "content-length",
    "cookie",
    "cookie2",
    "date",
    "dnt",
    "expect",
    "host",
    "keep-alive",
    "origin",
    "referer",
    "set-cookie",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "via",
];

fn check_header(h: &Header) -> Result<(), DefError> {
    let bad = |why| Err(DefError::Header { name: h.name.clone(), why });
    let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if h.name.is_empty() || !h.name.bytes().all(token) {
        return bad("a header name is letters, digits and !#$%&'*+-.^_`|~ only");
    }
    let lower = h.name.to_ascii_lowercase();
    if FORBIDDEN.contains(&lower.as_str()) || lower.starts_with("proxy-") || lower.starts_with("sec-") {
        return bad("the browser does not let a page set it");
    }
    if h.value.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
        return bad("its value may not hold a line break");
    }
    Ok(())
}

#[cfg(test)]
#[path = "tool_tests.rs"]
mod tests;
