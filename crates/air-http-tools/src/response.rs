//! An HTTP answer → what the model reads.

use air_tools::ToolOutput;
use serde_json::Value;

/// JSON is pretty-printed only while that stays within this many bytes;
/// past it, it is written compactly (indentation can double a large body).
pub const PRETTY_LIMIT: usize = 64 * 1024;

/// The most of a body given as the result; the rest is cut with a note.
/// (`air-agent` cuts again, shorter, for the model, and keeps this whole
/// for the card.)
pub const MAX_OUTPUT: usize = 256 * 1024;

/// The most of an error's body quoted after its status.
pub const EXCERPT: usize = 500;

/// What the model reads of an answer: for 2xx, JSON pretty-printed (bounded),
/// other text as it is, a binary body as a note, an empty one as its
/// status; for any other status an error with the status and the start of
/// the body.
pub fn read_response(status: u16, content_type: Option<&str>, body: &str) -> ToolOutput {
    let mime = content_type.and_then(|c| c.split(';').next()).map(|m| m.trim().to_ascii_lowercase()).unwrap_or_default();
    let status_line = match reason(status) {
        Some(r) => format!("HTTP {status} {r}"),
        None => format!("HTTP {status}"),
    };
    if !(200..300).contains(&status) {
        return ToolOutput::error(error_text(status, &status_line, &mime, body));
    }
    if body.trim().is_empty() {
        return ToolOutput::text(format!("{status_line}: no content"));
    }
    if is_binary(&mime) {
        return ToolOutput::text(format!("{status_line}: a {mime} body of about {} bytes, not shown", body.len()));
    }
    let json = if is_json(&mime) || mime.is_empty() { serde_json::from_str::<Value>(body).ok() } else { None };
    let text = match json {
        Some(v) => serde_json::to_string_pretty(&v).ok().filter(|p| p.len() <= PRETTY_LIMIT).unwrap_or_else(|| v.to_string()),
        None => body.to_owned(),
    };
    ToolOutput::text(bounded(text, MAX_OUTPUT))
}

fn error_text(status: u16, status_line: &str, mime: &str, body: &str) -> String {
    let compact = if is_json(mime) || mime.is_empty() { serde_json::from_str::<Value>(body).ok().map(|v| v.to_string()) } else { None };
    let text = compact.unwrap_or_else(|| body.split_whitespace().collect::<Vec<_>>().join(" "));
    let mut out = status_line.to_owned();
    if text.is_empty() || is_binary(mime) {
        out.push_str(" (no readable body)");
    } else {
        out.push_str(": ");
        out.push_str(&excerpt(&text, EXCERPT));
    }
    match status {
        401 | 403 => out.push_str("\nThe API refused the request's credentials: the tool's headers may need a valid key."),
        404 => out.push_str("\nNothing was found at that address: check the arguments that are part of the URL."),
        429 => out.push_str("\nThe API is limiting requests: wait before trying again."),
        _ => {}
    }
    out
}

fn is_json(mime: &str) -> bool {
    mime == "application/json" || mime == "text/json" || mime.ends_with("+json")
}

fn is_binary(mime: &str) -> bool {
    let kinds = ["image/", "audio/", "video/", "font/"];
    let apps = ["application/octet-stream", "application/pdf", "application/zip", "application/gzip", "application/x-protobuf"];
    (kinds.iter().any(|k| mime.starts_with(k)) && mime != "image/svg+xml") || apps.contains(&mime)
}

/// At most `max` bytes of `s` (cut at a character), with `…` when cut.
fn excerpt(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    format!("{}…", &s[..floor(s, max)])
}

/// `text` cut to at most `max` bytes, with a note saying how much was left
/// out.
fn bounded(mut text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let total = text.len();
    text.truncate(floor(&text, max));
    text.push_str(&format!("\n[… cut: the answer has {total} bytes; the first {} are shown]", text.len()));
    text
}

/// The largest character boundary of `s` at or before `i`.
fn floor(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn reason(status: u16) -> Option<&'static str> {
    Some(match status {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        410 => "Gone",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Content",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => return None,
    })
}

#[cfg(test)]
#[path = "response_tests.rs"]
mod tests;
