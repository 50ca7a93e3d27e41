//! A call's arguments → the HTTP request it sends.

use std::fmt;

use air_http::Request;
use serde_json::{Map, Value};

use crate::tool::{DefError, HttpTool};
use crate::url;

/// The request a call sends. Its `Debug` writes `<secret>` for the values
/// of the tool's secret headers (`air_http::Request`'s derived `Debug`
/// would print them).
#[derive(Clone, PartialEq, Eq)]
pub struct Built {
    request: Request,
    /// Names of the headers whose values are secret.
    secret: Vec<String>,
}

impl Built {
    pub fn request(&self) -> &Request {
        &self.request
    }

    /// The request to send (secrets included).
    pub fn into_request(self) -> Request {
        self.request
    }
}

impl fmt::Debug for Built {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &str)> = self.request.headers.iter().map(|(n, v)| (n.as_str(), if self.secret.iter().any(|s| s.eq_ignore_ascii_case(n)) { "<secret>" } else { v.as_str() })).collect();
        f.debug_struct("Request").field("method", &self.request.method).field("url", &self.request.url).field("headers", &headers).field("body", &self.request.body).finish()
    }
}

/// Why a call's arguments make no request. Worded for the model, which
/// reads it as the tool's error and may try again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgError {
    /// The arguments are not a JSON object.
    NotObject,
    /// A `{name}` of the URL has no argument.
    MissingPath(String),
    /// A `{name}` of the URL has an argument that cannot stand there.
    PathValue { name: String, why: &'static str },
    /// Arguments the request has no place for.
    Unexpected(Vec<String>),
    /// The tool's own definition is wrong (the user must fix it).
    Tool(DefError),
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgError::NotObject => f.write_str("the arguments must be a JSON object"),
            ArgError::MissingPath(n) => write!(f, "the argument \"{n}\" is required: it is part of the URL"),
            ArgError::PathValue { name, why } => write!(f, "the argument \"{name}\" {why}"),
            ArgError::Unexpected(names) => {
                let list: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
                write!(f, "this tool takes no argument {}; leave it out", list.join(", "))
            }
            ArgError::Tool(e) => write!(f, "the tool is not set up right: {e}"),
        }
    }
}

impl std::error::Error for ArgError {}

/// The request a call of `tool` with `args` sends: `{name}`s of the URL
/// filled in (percent-encoded; required), the query string (arrays as a
/// repeated key, `null`s left out), the rest as a JSON object body or in
/// the query (as the tool says), then the tool's headers (a
/// `Content-Type: application/json` for a body unless they give one).
pub fn build_request(tool: &HttpTool, args: &Value) -> Result<Built, ArgError> {
    tool.validate().map_err(ArgError::Tool)?;
    let empty = Map::new();
    let args = match args {
        Value::Object(m) => m,
        Value::Null => &empty,
        _ => return Err(ArgError::NotObject),
    };
    let params = tool.path_params();
    let mut target = fill(&tool.url, args)?;
    let in_body = tool.rest_in_body();
    let (mut query, mut rest, mut unexpected) = (Vec::new(), Map::new(), Vec::new());
    for (name, value) in args {
        if params.contains(&name.as_str()) || tool.body_arg.as_ref() == Some(name) {
            continue;
        }
        if tool.query.contains(name) || (!in_body && tool.body_arg.is_none()) {
            push_query(&mut query, name, value);
        } else if tool.body_arg.is_some() {
            unexpected.push(name.clone());
        } else {
            rest.insert(name.clone(), value.clone());
        }
    }
    if !unexpected.is_empty() {
        return Err(ArgError::Unexpected(unexpected));
    }
    if !query.is_empty() {
        if !(target.ends_with('?') || target.ends_with('&')) {
            target.push(if target.contains('?') { '&' } else { '?' });
        }
        target.push_str(&query.join("&"));
    }
    let body = match &tool.body_arg {
        Some(b) if tool.method.may_have_body() => args.get(b).map(Value::to_string),
        Some(_) => None,
        None => in_body.then(|| Value::Object(rest).to_string()),
    };
    let mut headers: Vec<(String, String)> = tool.headers.iter().map(|h| (h.name.clone(), h.value.clone())).collect();
    if body.is_some() && !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("content-type")) {
        headers.push(("Content-Type".into(), "application/json".into()));
    }
    let secret = tool.headers.iter().filter(|h| h.secret).map(|h| h.name.clone()).collect();
    let request = Request { method: tool.method.as_str().into(), url: target, headers, body };
    Ok(Built { request, secret })
}

/// The URL template with each `{name}` replaced by its argument,
/// percent-encoded.
fn fill(template: &str, args: &Map<String, Value>) -> Result<String, ArgError> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return Ok(out);
        };
        let name = &after[..close];
        let text = match args.get(name) {
            None | Some(Value::Null) => return Err(ArgError::MissingPath(name.to_owned())),
            Some(Value::String(s)) => s.clone(),
            Some(v @ (Value::Number(_) | Value::Bool(_))) => v.to_string(),
            Some(_) => return Err(ArgError::PathValue { name: name.to_owned(), why: "must be a string or a number" }),
        };
        // `.` and `..` would be read as "this" and "the parent" segment,
        // encoded or not (the URL standard decodes `%2e`), and reach
        // another endpoint.
        let why = match text.as_str() {
            "" => Some("must not be empty"),
            "." | ".." => Some("may not be \".\" or \"..\""),
            _ => None,
        };
        if let Some(why) = why {
            return Err(ArgError::PathValue { name: name.to_owned(), why });
        }
        out.push_str(&url::encode(&text));
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `name=value` pairs of one argument: an array as the key repeated, an
/// object as its JSON text, `null` left out.
fn push_query(out: &mut Vec<String>, name: &str, value: &Value) {
    let items: Vec<&Value> = match value {
        Value::Array(a) => a.iter().collect(),
        v => vec![v],
    };
    for item in items {
        let text = match item {
            Value::Null => continue,
            Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        out.push(format!("{}={}", url::encode(name), url::encode(&text)));
    }
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
