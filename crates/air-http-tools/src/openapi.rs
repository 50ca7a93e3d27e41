//! OpenAPI 3 (JSON) → candidate HTTP tools, one per operation, for the
//! user to pick from (as an MCP server's tools are picked). What cannot
//! become a tool is listed with the reason, never silently dropped.

mod caution;
mod input;
mod refs;

use std::fmt;

use serde_json::Value;

pub use caution::Caution;
pub use refs::{BUDGET, RefError};

use crate::tool::{ArgsIn, DefError, HttpTool, MAX_NAME, Method, clean_name};
use crate::url::{self, UrlError};

/// What a document offers.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// `info.title`.
    pub title: Option<String>,
    /// The base URL the tools' URLs start with (`servers[0]`, its
    /// variables at their defaults, resolved against the document's URL).
    pub base_url: String,
    pub tools: Vec<Candidate>,
    pub skipped: Vec<Skipped>,
    /// The credentials the operations ask for (`security`), once each, for
    /// the user to give as (secret) headers.
    pub auth: Vec<Auth>,
}

/// One operation as a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// `GET /pets/{petId}`.
    pub operation: String,
    pub tool: HttpTool,
    /// What the tool does not carry over from the operation.
    pub notes: Vec<Note>,
    /// Why it is not one to pick without a look: it goes elsewhere than
    /// the API's other operations, or to this computer or a local network.
    pub caution: Option<Caution>,
}

/// One operation that cannot be a tool, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    pub operation: String,
    pub reason: SkipReason,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SkipReason {
    Ref(RefError),
    /// Its body is only of these media types (a form, a file upload).
    Body(Vec<String>),
    /// OPTIONS or TRACE.
    Method(String),
    /// Two parameters of one name (in the path and the query, say).
    Clash(String),
    /// Its own `servers` entry cannot be used.
    Server(ImportError),
    /// The tool it makes is not valid.
    Invalid(DefError),
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::Ref(e) => write!(f, "{e}"),
            SkipReason::Body(types) => write!(f, "it takes a {} body; HTTP tools send JSON bodies only", if types.is_empty() { "non-JSON".to_owned() } else { types.join(" or ") }),
            SkipReason::Method(m) => write!(f, "{m} requests are not offered as tools"),
            SkipReason::Clash(n) => write!(f, "two of its parameters are named \"{n}\""),
            SkipReason::Server(e) => write!(f, "its own server: {e}"),
            SkipReason::Invalid(e) => write!(f, "{e}"),
        }
    }
}

/// Something of an operation a tool leaves out or treats its own way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// A header parameter: give it as one of the tool's headers.
    HeaderParam {
        name: String,
        required: bool,
    },
    /// A cookie parameter: a page cannot set cookies.
    CookieParam {
        name: String,
    },
    /// A query parameter of another style than repeated keys (`explode:
    /// false`, `deepObject`…): sent as repeated keys all the same.
    QueryStyle {
        name: String,
    },
    /// A GET or HEAD with a request body, which `fetch` cannot send.
    BodyIgnored,
    /// A schema that contains itself, cut where it does.
    Recursive(String),
    Deprecated,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::HeaderParam { name, required: true } => write!(f, "needs the header \"{name}\": add it to the tool's headers"),
            Note::HeaderParam { name, required: false } => write!(f, "the optional header \"{name}\" is not sent"),
            Note::CookieParam { name } => write!(f, "the cookie \"{name}\" is not sent (a page cannot set cookies)"),
            Note::QueryStyle { name } => write!(f, "\"{name}\" is sent as repeated keys (name=a&name=b), not in the style the API describes"),
            Note::BodyIgnored => f.write_str("its request body is not sent (a GET or HEAD request has none)"),
            Note::Recursive(name) => write!(f, "{name} contains itself; the inner one is described as any value"),
            Note::Deprecated => f.write_str("the API marks it deprecated"),
        }
    }
}

/// Credentials a security scheme asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    /// An API key in this header.
    Header { scheme: String, name: String },
    /// An API key in this query parameter (add it to the URL).
    Query { scheme: String, name: String },
    /// `Authorization: Bearer …`.
    Bearer { scheme: String },
    /// `Authorization: Basic …`.
    Basic { scheme: String },
    /// OAuth 2 or OpenID Connect: HTTP tools do not sign in; a token can be
    /// given as `Authorization: Bearer …`.
    OAuth { scheme: String },
    /// Something else (an API key in a cookie, mutual TLS…).
    Other { scheme: String, kind: String },
}

/// Why a document cannot be imported at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportError {
    /// Not JSON (the parser's message).
    Json(String),
    /// YAML, which is not read.
    Yaml,
    NotObject,
    Swagger2,
    /// No `openapi` field.
    NotOpenApi,
    /// An `openapi` version other than 3.0 or 3.1.
    Version(String),
    /// A relative server URL (or none) and no document URL to resolve it
    /// against.
    RelativeServer(String),
    /// A server variable without a default.
    ServerVariable(String),
    Server {
        url: String,
        why: UrlError,
    },
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Json(e) => write!(f, "the document is not valid JSON: {e}"),
            ImportError::Yaml => f.write_str("the document looks like YAML; only JSON is read: convert it to JSON first (for example with `yq -o=json`, or Swagger Editor's File → Save as JSON)"),
            ImportError::NotObject => f.write_str("the document is not a JSON object"),
            ImportError::Swagger2 => {
                f.write_str("this is a Swagger 2.0 document; only OpenAPI 3 is read: convert it first (for example with swagger2openapi, or Swagger Editor's Edit → Convert to OpenAPI 3)")
            }
            ImportError::NotOpenApi => f.write_str("the document has no \"openapi\" field, so it is not an OpenAPI 3 document"),
            ImportError::Version(v) => write!(f, "OpenAPI {v} is not read; only 3.0 and 3.1 are"),
            ImportError::RelativeServer(u) => {
                write!(f, "the API's server URL \"{u}\" is relative to where the document was loaded from, which is not known: import it from its URL, or put an absolute URL in servers")
            }
            ImportError::ServerVariable(v) => write!(f, "the server variable \"{v}\" has no default value"),
            ImportError::Server { url, why } => write!(f, "the API's server URL \"{url}\" cannot be used: {why}"),
        }
    }
}

impl std::error::Error for ImportError {}

/// The tools a document offers. Relative server URLs cannot be resolved:
/// see [`import_at`].
pub fn import(doc: &Value) -> Result<Imported, ImportError> {
    import_at(doc, None)
}

/// [`import`], text first: JSON only (YAML is recognised and refused with
/// a way to convert it).
pub fn import_text(text: &str, document_url: Option<&str>) -> Result<Imported, ImportError> {
    let text = text.trim_start_matches('\u{feff}');
    let doc: Value = serde_json::from_str(text).map_err(|e| if looks_like_yaml(text) { ImportError::Yaml } else { ImportError::Json(e.to_string()) })?;
    import_at(&doc, document_url)
}

/// Not JSON, and a line names the version as YAML would (`openapi: 3.0.0`,
/// `"swagger": "2.0"`), or a YAML document marker opens it.
fn looks_like_yaml(text: &str) -> bool {
    let start = text.trim_start();
    let unquoted = |s: &str| s.trim_start_matches(['"', '\'']).to_owned();
    let names_version = |line: &str| {
        let line = unquoted(line);
        ["openapi", "swagger"].iter().any(|k| line.strip_prefix(k).is_some_and(|rest| unquoted(rest).trim_start().starts_with(':')))
    };
    !start.starts_with(['{', '[']) && (start.starts_with("---") || start.lines().any(names_version))
}

/// The tools a document loaded from `document_url` offers (relative server
/// URLs are resolved against it).
pub fn import_at(doc: &Value, document_url: Option<&str>) -> Result<Imported, ImportError> {
    let obj = doc.as_object().ok_or(ImportError::NotObject)?;
    if obj.contains_key("swagger") {
        return Err(ImportError::Swagger2);
    }
    let version = obj.get("openapi").ok_or(ImportError::NotOpenApi)?;
    let version = version.as_str().map_or_else(|| version.to_string(), str::to_owned);
    if !(version.starts_with("3.0") || version.starts_with("3.1")) {
        return Err(ImportError::Version(version));
    }
    let base_url = server_url(obj.get("servers"), document_url)?;
    let mut out = Imported { title: doc.pointer("/info/title").and_then(Value::as_str).map(str::to_owned), base_url, tools: Vec::new(), skipped: Vec::new(), auth: Vec::new() };
    let resolver = refs::Resolver::new(doc);
    for (path, item) in obj.get("paths").and_then(Value::as_object).into_iter().flatten() {
        let item = match resolver.follow(item) {
            Ok(i) => i,
            Err(e) => {
                out.skipped.push(Skipped { operation: path.clone(), reason: SkipReason::Ref(e) });
                continue;
            }
        };
        for (key, op) in item.as_object().into_iter().flatten() {
            if !is_method(key) {
                continue;
            }
            let operation = format!("{} {path}", key.to_ascii_uppercase());
            let taken = |n: &str| out.tools.iter().any(|c| c.tool.name == n);
            let at = Place { doc, base: &out.base_url, document_url, path, item };
            match candidate(&at, key, op, &taken) {
                Ok((tool, notes)) => {
                    for a in auth_of(doc, op) {
                        if !out.auth.contains(&a) {
                            out.auth.push(a);
                        }
                    }
                    let caution = caution::caution(&tool.url, &out.base_url, document_url);
                    out.tools.push(Candidate { operation, tool, notes, caution });
                }
                Err(reason) => out.skipped.push(Skipped { operation, reason }),
            }
        }
    }
    Ok(out)
}

fn is_method(key: &str) -> bool {
    matches!(key, "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace")
}

/// Where an operation stands: its document, the document's base URL and
/// its path item.
struct Place<'a> {
    doc: &'a Value,
    base: &'a str,
    document_url: Option<&'a str>,
    path: &'a str,
    item: &'a Value,
}

/// One operation (`key` is its method, as the path item writes it) as a
/// tool, with its notes; `taken` says which names are used already.
fn candidate(at: &Place<'_>, key: &str, op: &Value, taken: &dyn Fn(&str) -> bool) -> Result<(HttpTool, Vec<Note>), SkipReason> {
    let (doc, path, item) = (at.doc, at.path, at.item);
    let Some(method) = Method::parse(key) else { return Err(SkipReason::Method(key.to_ascii_uppercase())) };
    // Each operation its own resolver: the budget is per operation.
    let r = refs::Resolver::new(doc);
    let own = op.get("servers").or_else(|| item.get("servers"));
    let base = match own {
        Some(s) if s.as_array().is_some_and(|a| !a.is_empty()) => server_url(Some(s), at.document_url).map_err(SkipReason::Server)?,
        _ => at.base.to_owned(),
    };
    let input = input::build(&r, path, method, item.get("parameters"), op)?;
    let mut notes = input.notes;
    notes.extend(r.recursive().into_iter().map(Note::Recursive));
    if op.get("deprecated").and_then(Value::as_bool) == Some(true) {
        notes.push(Note::Deprecated);
    }
    let text = |k: &str| op.get(k).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
    let description = match (text("summary"), text("description")) {
        (Some(s), Some(d)) if s != d => format!("{s}\n\n{d}"),
        (Some(s), _) => s.to_owned(),
        (None, Some(d)) => d.to_owned(),
        (None, None) => format!("{} {path}", method.as_str()),
    };
    let raw_name = text("operationId").map_or_else(|| format!("{key}_{path}"), str::to_owned);
    let tool = HttpTool {
        name: unique(clean_name(&raw_name), taken),
        description,
        input_schema: input.schema,
        method,
        url: format!("{}{path}", base.trim_end_matches('/')),
        headers: Vec::new(),
        args_in: if input.args_in == ArgsIn::Body { ArgsIn::Body } else { ArgsIn::Query },
        query: input.query,
        body_arg: input.body_arg,
    };
    tool.validate().map_err(SkipReason::Invalid)?;
    Ok((tool, notes))
}

/// `name`, or `name_2`, `name_3`… when taken (cut to fit [`MAX_NAME`]).
fn unique(name: String, taken: &dyn Fn(&str) -> bool) -> String {
    if !taken(&name) {
        return name;
    }
    (2..)
        .map(|n| {
            let suffix = format!("_{n}");
            format!("{}{suffix}", &name[..name.len().min(MAX_NAME - suffix.len())])
        })
        .find(|n| !taken(n))
        .unwrap_or(name)
}

/// The URL of the first of `servers`, its `{variables}` at their defaults,
/// resolved against the document's URL, checked, without a trailing `/`.
/// No servers means `/` (OpenAPI's default: where the document is).
fn server_url(servers: Option<&Value>, document_url: Option<&str>) -> Result<String, ImportError> {
    let first = servers.and_then(Value::as_array).and_then(|a| a.first());
    let raw = first.and_then(|s| s.get("url")).and_then(Value::as_str).unwrap_or("/").trim();
    let mut filled = String::new();
    let mut rest = raw;
    while let Some(open) = rest.find('{') {
        filled.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after.find('}').ok_or_else(|| ImportError::Server { url: raw.to_owned(), why: UrlError::Braces })?;
        let name = &after[..close];
        let default = first.and_then(|s| s.pointer(&format!("/variables/{}", name.replace('~', "~0").replace('/', "~1"))));
        let default = default.and_then(|v| v.get("default")).and_then(Value::as_str);
        filled.push_str(default.ok_or_else(|| ImportError::ServerVariable(name.to_owned()))?);
        rest = &after[close + 1..];
    }
    filled.push_str(rest);
    let absolute =
        if url::split(&filled).is_ok() || filled.contains("://") { filled } else { document_url.and_then(|d| url::resolve(d, &filled)).ok_or_else(|| ImportError::RelativeServer(filled.clone()))? };
    match url::check(&absolute) {
        Ok(_) => Ok(absolute.trim_end_matches('/').to_owned()),
        Err(why) => Err(ImportError::Server { url: absolute, why }),
    }
}

/// The credentials an operation asks for: its own `security`, else the
/// document's.
fn auth_of(doc: &Value, op: &Value) -> Vec<Auth> {
    let needs = op.get("security").or_else(|| doc.get("security"));
    let mut out = Vec::new();
    for requirement in needs.and_then(Value::as_array).into_iter().flatten() {
        for scheme in requirement.as_object().into_iter().flatten().map(|(k, _)| k) {
            let pointer = format!("/components/securitySchemes/{}", scheme.replace('~', "~0").replace('/', "~1"));
            let Some(def) = doc.pointer(&pointer) else { continue };
            let def = refs::Resolver::new(doc).follow(def).unwrap_or(def);
            let field = |k: &str| def.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
            let scheme = scheme.clone();
            let auth = match (field("type").as_str(), field("in").as_str()) {
                ("apiKey", "header") => Auth::Header { scheme, name: field("name") },
                ("apiKey", "query") => Auth::Query { scheme, name: field("name") },
                ("http", _) if field("scheme").eq_ignore_ascii_case("bearer") => Auth::Bearer { scheme },
                ("http", _) if field("scheme").eq_ignore_ascii_case("basic") => Auth::Basic { scheme },
                ("oauth2" | "openIdConnect", _) => Auth::OAuth { scheme },
                (kind, _) => Auth::Other { scheme, kind: kind.to_owned() },
            };
            if !out.contains(&auth) {
                out.push(auth);
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "openapi_tests.rs"]
mod tests;
