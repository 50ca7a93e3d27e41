//! The little URL handling HTTP tools need: a tool's URL checked (https,
//! or http on this machine), its `{name}` placeholders, percent-encoding,
//! and a server URL resolved against the document that named it. No `url`
//! crate: its IDNA tables would cost the page more than all of this (as in
//! `air-oauth`).

use std::fmt;

/// An absolute `http(s)` URL taken apart, as written (no decoding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parts<'a> {
    /// `http` or `https`, in lower case.
    pub scheme: &'static str,
    /// The host as written: a name, an IPv4 address or `[v6]`.
    pub host: &'a str,
    pub port: Option<&'a str>,
    /// From the first `/` after the host (empty when there is none) to the
    /// query.
    pub path: &'a str,
    /// After `?`, without it.
    pub query: Option<&'a str>,
}

/// Why a URL cannot be a tool's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlError {
    /// Empty, or holds a space or a control character.
    Blank,
    /// No `scheme://` in front.
    NotAbsolute,
    /// A scheme other than http and https.
    Scheme(String),
    NoHost,
    /// `user:password@` before the host.
    Credentials,
    BadHost,
    BadPort,
    /// A `#fragment`, which is never sent.
    Fragment,
    /// Plain http to another machine.
    Insecure,
    /// A `{placeholder}` in the host or port: the model would choose where
    /// the request goes.
    ParamInHost,
    /// A `{` without its `}`, a `}` alone, or `{}`.
    Braces,
}

impl fmt::Display for UrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UrlError::Blank => f.write_str("the URL is empty or holds a space or a control character"),
            UrlError::NotAbsolute => f.write_str("the URL must be absolute, starting with https://"),
            UrlError::Scheme(s) => write!(f, "the URL must start with https:// (not {s}:)"),
            UrlError::NoHost => f.write_str("the URL names no host"),
            UrlError::Credentials => f.write_str("the URL may not hold a user name or password; send credentials as a header"),
            UrlError::BadHost => f.write_str("the URL's host is not a valid host name or address"),
            UrlError::BadPort => f.write_str("the URL's port is not a number"),
            UrlError::Fragment => f.write_str("the URL may not have a #fragment (it is never sent)"),
            UrlError::Insecure => f.write_str("plain http is allowed only for localhost, 127.0.0.1 and [::1]; use https for any other host"),
            UrlError::ParamInHost => f.write_str("a {parameter} may stand in the path or the query, not in the host or port"),
            UrlError::Braces => f.write_str("the URL has an unmatched or empty { } placeholder"),
        }
    }
}

impl std::error::Error for UrlError {}

/// Takes an absolute `http(s)` URL apart. A fragment is refused, not
/// dropped: a tool's URL is sent as written.
pub fn split(url: &str) -> Result<Parts<'_>, UrlError> {
    if url.is_empty() || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(UrlError::Blank);
    }
    let (scheme, rest) = url.split_once("://").ok_or(UrlError::NotAbsolute)?;
    let scheme = match scheme.to_ascii_lowercase().as_str() {
        "https" => "https",
        "http" => "http",
        _ if scheme.is_empty() || scheme.contains(['/', '?', '#']) => return Err(UrlError::NotAbsolute),
        _ => return Err(UrlError::Scheme(scheme.to_owned())),
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, after) = rest.split_at(end);
    if authority.contains(['{', '}']) {
        return Err(UrlError::ParamInHost);
    }
    if authority.contains('@') {
        return Err(UrlError::Credentials);
    }
    let (host, port) = host_and_port(authority)?;
    if after.contains('#') {
        return Err(UrlError::Fragment);
    }
    let (path, query) = match after.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (after, None),
    };
    Ok(Parts { scheme, host, port, path, query })
}

fn host_and_port(authority: &str) -> Result<(&str, Option<&str>), UrlError> {
    if authority.is_empty() {
        return Err(UrlError::NoHost);
    }
    let (host, port) = if authority.starts_with('[') {
        let close = authority.find(']').ok_or(UrlError::BadHost)? + 1;
        let (host, rest) = authority.split_at(close);
        let v6 = &host[1..host.len() - 1];
        if v6.is_empty() || !v6.chars().all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.') {
            return Err(UrlError::BadHost);
        }
        match rest {
            "" => (host, None),
            _ => (host, Some(rest.strip_prefix(':').ok_or(UrlError::BadHost)?)),
        }
    } else {
        match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return Err(UrlError::NoHost);
    }
    let name_ok = |c: char| c.is_alphanumeric() || matches!(c, '-' | '.' | '_');
    if !host.starts_with('[') && !host.chars().all(name_ok) {
        return Err(UrlError::BadHost);
    }
    if let Some(p) = port
        && (p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(UrlError::BadPort);
    }
    Ok((host, port))
}

/// Whether `url` may be a tool's: absolute, https (http only to this
/// machine), with a host and no credentials or fragment.
pub fn check(url: &str) -> Result<Parts<'_>, UrlError> {
    let parts = split(url)?;
    if parts.scheme == "http" && !air_http::url::is_loopback_host(parts.host) {
        return Err(UrlError::Insecure);
    }
    Ok(parts)
}

/// The `{name}` placeholders of a URL template, in order (a name may come
/// more than once).
pub fn placeholders(template: &str) -> Result<Vec<&str>, UrlError> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            return Err(UrlError::Braces);
        }
        let after = &rest[open + 1..];
        let close = after.find(['{', '}']).filter(|&i| after[i..].starts_with('}')).ok_or(UrlError::Braces)?;
        let name = &after[..close];
        if name.is_empty() || name.contains(['/', '?', '#', '&', '=']) {
            return Err(UrlError::Braces);
        }
        out.push(name);
        rest = &after[close + 1..];
    }
    Ok(out)
}

/// `s` percent-encoded for a path segment or a query key or value:
/// everything but the unreserved characters (`A-Z a-z 0-9 - . _ ~`), so a
/// value can never add a segment (`/`), a parameter (`&`, `=`) or a
/// fragment (`#`).
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
    out
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// `reference` (a server URL from a document) resolved against `base`
/// (where the document was loaded from), as RFC 3986 §5.2 does for the
/// forms documents use: absolute, `//host/…`, `/path`, `path` and `./`,
/// `../`. `None` when `base` is not an absolute http(s) URL.
pub fn resolve(base: &str, reference: &str) -> Option<String> {
    let reference = reference.trim();
    if let Some((scheme, _)) = reference.split_once("://")
        && !scheme.is_empty()
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return Some(reference.to_owned());
    }
    let base = base.split('#').next().unwrap_or(base);
    let base = base.split('?').next().unwrap_or(base);
    let (scheme, rest) = base.split_once("://")?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return None;
    }
    let end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    if authority.is_empty() {
        return None;
    }
    if let Some(other) = reference.strip_prefix("//") {
        return Some(format!("{scheme}://{other}"));
    }
    let (ref_path, ref_query) = match reference.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (reference, None),
    };
    let merged = if ref_path.starts_with('/') {
        ref_path.to_owned()
    } else if ref_path.is_empty() {
        if path.is_empty() { "/".to_owned() } else { path.to_owned() }
    } else {
        let dir = path.rfind('/').map_or("/", |i| &path[..=i]);
        format!("{dir}{ref_path}")
    };
    let mut out = format!("{scheme}://{authority}{}", without_dots(&merged));
    if let Some(q) = ref_query {
        out.push('?');
        out.push_str(q);
    }
    Some(out)
}

/// A path with its `.` and `..` segments applied (RFC 3986 §5.2.4).
fn without_dots(path: &str) -> String {
    let mut kept: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *seg {
            "." | ".." => {
                if *seg == ".." {
                    kept.pop();
                }
                if last {
                    kept.push("");
                }
            }
            s => kept.push(s),
        }
    }
    format!("/{}", kept.join("/"))
}

#[cfg(test)]
#[path = "url_tests.rs"]
mod tests;
