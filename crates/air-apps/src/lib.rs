//! MCP Apps on the host side (extension `io.modelcontextprotocol/ui`,
//! revision 2026-01-26), without IO. `air_servers::apps` hosts a View with
//! it; the page frames it in `sandbox.html`.
//!
//! - [`tool_ui`]: which tool has a UI (`_meta.ui.resourceUri`, only `ui://`)
//!   and who may call it (`_meta.ui.visibility`: the model, the app, or
//!   both, both by default).
//! - [`ui_resource`]: the `resources/read` answer as a `UiResource`, the
//!   View's HTML (text or base64 blob of `text/html;profile=mcp-app`) with
//!   its declared CSP domains and permissions (its `_meta.ui` or the
//!   listing's), each domain checked.
//! - [`Csp`]: `Csp::from_meta` keeps only plain origins from the declared
//!   `connectDomains`/`resourceDomains`/`frameDomains`/`baseUriDomains`
//!   (keywords, `*`, quotes and other schemes are refused and shown);
//!   [`Csp::policy`] is `default-src 'none'` plus inline script and style,
//!   the declared domains in their directives and nothing else
//!   (`connect-src`, `frame-src` and `base-uri` are `'none'` when nothing is
//!   declared). [`with_policy`] puts it in a `<meta>` as the document's
//!   first element (after a doctype), where the parser always puts it in
//!   `<head>` and nothing later can widen it. [`Permissions::allow`] is the
//!   frame's `allow` attribute.
//! - [`preview_document`]: the document a code block's Preview shows, under
//!   the policy of a View that declared nothing (no network, frames or form
//!   posts).
//! - [`Bridge`] (module `bridge`, with `HostContext`, `Ask`, `Out` and
//!   `MessageGate`): the host end of the View's JSON-RPC over `postMessage`,
//!   as a state machine: messages in, [`Out`]s (messages to post, and what
//!   the View asks the host to do) out. It answers `ui/initialize` (host
//!   info, capabilities, `HostContext`: theme, CSS variables, locale,
//!   display modes, container size, the tool), holds every notification
//!   until `ui/notifications/initialized`, sends the tool's input then its
//!   result or cancellation, refuses `tools/call` of a tool not visible to
//!   the app, answers `tools/list` and `ping`, and hands the rest to the
//!   host as `Ask`s (`tools/call`, `resources/read`, `ui/message`,
//!   `ui/open-link` for http(s) only, `ui/update-model-context`,
//!   `ui/request-display-mode`) or `Out`s (resize, log, ready, close).
//!   `ui/resource-teardown` is a request whose answer (`Out::Closed`) lets
//!   the frame go; nothing is sent after it.

use air_tools::Content;
use serde_json::{Value, json};

mod bridge;

pub use bridge::{Ask, Bridge, HostContext, INVALID_PARAMS, MESSAGE_GAP_MS, METHOD_NOT_FOUND, MessageGate, Out};

/// The extension's name in client capabilities.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of a View.
pub const MIME: &str = "text/html;profile=mcp-app";
/// The revision of the bridge this host speaks.
pub const PROTOCOL_VERSION: &str = "2026-01-26";

/// What this client declares under `extensions` in its capabilities.
pub fn client_extension() -> Value {
    json!({ "mimeTypes": [MIME] })
}

/// What a tool says about its UI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolUi {
    /// The `ui://` resource of its View.
    pub resource_uri: Option<String>,
    /// The model may see and call it.
    pub model: bool,
    /// A View of the same server may call it.
    pub app: bool,
}

/// Reads `_meta.ui` of a `tools/list` entry (and the older flat
/// `_meta["ui/resourceUri"]`). Visibility defaults to both; only `ui://`
/// URIs count.
pub fn tool_ui(tool: &Value) -> ToolUi {
    let meta = tool.get("_meta");
    let uri = meta.and_then(|m| m.pointer("/ui/resourceUri")).or_else(|| meta.and_then(|m| m.get("ui/resourceUri"))).and_then(Value::as_str).filter(|u| u.starts_with("ui://")).map(str::to_owned);
    let listed: Option<Vec<String>> = meta.and_then(|m| m.pointer("/ui/visibility")).and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect());
    let (model, app) = visibility(listed.as_deref());
    ToolUi { resource_uri: uri, model, app }
}

/// Who may call a tool with this `visibility` list: (model, app). No list
/// means both.
pub fn visibility(listed: Option<&[String]>) -> (bool, bool) {
    match listed {
        None => (true, true),
        Some(l) => (l.iter().any(|v| v == "model"), l.iter().any(|v| v == "app")),
    }
}

/// The origins a View declared it needs (`_meta.ui.csp`), each checked to
/// be a plain CSP source (scheme, host with an optional `*.` wildcard, an
/// optional port and path). What was refused is kept to be shown.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Csp {
    pub connect: Vec<String>,
    pub resource: Vec<String>,
    pub frame: Vec<String>,
    pub base_uri: Vec<String>,
    /// Declared values that are not plain origins (keywords, `*`, quotes,
    /// other schemes), left out of the policy.
    pub refused: Vec<String>,
}

impl Csp {
    /// Reads `_meta.ui.csp` of a resource.
    pub fn from_meta(csp: Option<&Value>) -> Self {
        let mut out = Csp::default();
        let mut list = |key: &str| -> Vec<String> {
            let mut kept = Vec::new();
            for v in csp.and_then(|c| c.get(key)).and_then(Value::as_array).into_iter().flatten() {
                match v.as_str() {
                    Some(s) if source_ok(s) => kept.push(s.to_owned()),
                    Some(s) => out.refused.push(s.to_owned()),
                    None => out.refused.push(v.to_string()),
                }
            }
            kept
        };
        let connect = list("connectDomains");
        let resource = list("resourceDomains");
        let frame = list("frameDomains");
        let base_uri = list("baseUriDomains");
        Csp { connect, resource, frame, base_uri, refused: out.refused }
    }

    /// The View's policy: nothing from the network unless declared. Inline
    /// scripts and styles are allowed (a View is one HTML document); eval,
    /// plugins and form posts are not.
    pub fn policy(&self) -> String {
        let join = |l: &[String], none: &str| if l.is_empty() { none.to_owned() } else { l.join(" ") };
        let with = |base: &str, l: &[String]| if l.is_empty() { base.to_owned() } else { format!("{base} {}", l.join(" ")) };
        [
            "default-src 'none'".to_owned(),
            format!("script-src {}", with("'unsafe-inline'", &self.resource)),
            format!("style-src {}", with("'unsafe-inline'", &self.resource)),
            format!("img-src {}", with("data: blob:", &self.resource)),
            format!("font-src {}", with("data:", &self.resource)),
            format!("media-src {}", with("data: blob:", &self.resource)),
            format!("connect-src {}", join(&self.connect, "'none'")),
            format!("frame-src {}", join(&self.frame, "'none'")),
            format!("base-uri {}", join(&self.base_uri, "'none'")),
            "object-src 'none'".to_owned(),
            "form-action 'none'".to_owned(),
        ]
        .join("; ")
    }
}

/// A CSP source a View may declare: `http(s)` or `ws(s)`, a host (an
/// optional leading `*.`), an optional port (or `*`), an optional path;
/// nothing that could end the directive or add a keyword.
fn source_ok(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once("://") else { return false };
    if !matches!(scheme, "http" | "https" | "ws" | "wss") {
        return false;
    }
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (authority, None),
    };
    let host = host.strip_prefix("*.").unwrap_or(host);
    let host_ok = !host.is_empty() && host.split('.').all(|label| !label.is_empty() && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
    let port_ok = port.is_none_or(|p| p == "*" || (!p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit())));
    let path_ok = path.bytes().all(|b| b.is_ascii_graphic() && !matches!(b, b';' | b',' | b'\'' | b'"' | b'<' | b'>' | b'\\'));
    host_ok && port_ok && path_ok
}

/// Browser features a View asked for (`_meta.ui.permissions`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Permissions {
    pub camera: bool,
    pub microphone: bool,
    pub geolocation: bool,
    pub clipboard_write: bool,
}

impl Permissions {
    pub fn from_meta(p: Option<&Value>) -> Self {
        let has = |k: &str| p.and_then(|p| p.get(k)).is_some_and(|v| !v.is_null() && v != &Value::Bool(false));
        Permissions { camera: has("camera"), microphone: has("microphone"), geolocation: has("geolocation"), clipboard_write: has("clipboardWrite") }
    }

    /// Whether the View asks for any feature at all (the user is asked
    /// before it gets one).
    pub fn any(&self) -> bool {
        self.camera || self.microphone || self.geolocation || self.clipboard_write
    }

    /// The frame's `allow` attribute once the user answered: what the View
    /// asked for if they granted it, nothing otherwise. A server's word
    /// alone never gives a View a device.
    pub fn allow_if(&self, granted: bool) -> String {
        if granted { self.allow() } else { String::new() }
    }

    /// The frame's `allow` attribute (Permissions Policy) for everything
    /// asked; also the names shown when the user is asked.
    pub fn allow(&self) -> String {
        let mut out = Vec::new();
        for (on, feature) in [(self.camera, "camera"), (self.microphone, "microphone"), (self.geolocation, "geolocation"), (self.clipboard_write, "clipboard-write")] {
            if on {
                out.push(feature);
            }
        }
        out.join("; ")
    }
}

/// A View, ready to be framed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UiResource {
    pub uri: String,
    pub html: String,
    pub csp: Csp,
    pub permissions: Permissions,
    /// The View would like a visible border (`None`: the host decides).
    pub prefers_border: Option<bool>,
}

/// Why a View cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UiError {
    /// The answer holds no content for the URI.
    Missing,
    /// The content is not `text/html;profile=mcp-app`.
    NotAnApp { mime: String },
    /// A `blob` that is not base64 of UTF-8 text.
    BadBlob,
}

impl std::fmt::Display for UiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UiError::Missing => write!(f, "the server returned no content for the app's resource"),
            UiError::NotAnApp { mime } => write!(f, "the app's resource is {mime}, not {MIME}"),
            UiError::BadBlob => write!(f, "the app's resource is not valid base64 UTF-8"),
        }
    }
}

/// The `resources/read` answer for `uri` as a View. `listed` is the
/// resource's `_meta` from `resources/list`, used where the content item
/// declares no `_meta.ui` of its own.
pub fn ui_resource(result: &Value, uri: &str, listed: Option<&Value>) -> Result<UiResource, UiError> {
    let contents = result.get("contents").and_then(Value::as_array).ok_or(UiError::Missing)?;
    let item = contents.iter().find(|c| c.get("uri").and_then(Value::as_str) == Some(uri)).or(contents.first()).ok_or(UiError::Missing)?;
    let mime = item.get("mimeType").and_then(Value::as_str).unwrap_or_default();
    if !is_app_mime(mime) {
        return Err(UiError::NotAnApp { mime: if mime.is_empty() { "untyped".into() } else { mime.to_owned() } });
    }
    let html = match (item.get("text").and_then(Value::as_str), item.get("blob").and_then(Value::as_str)) {
        (Some(t), _) => t.to_owned(),
        (None, Some(b)) => base64_decode(b).and_then(|bytes| String::from_utf8(bytes).ok()).ok_or(UiError::BadBlob)?,
        (None, None) => return Err(UiError::Missing),
    };
    let ui = item.pointer("/_meta/ui").or_else(|| listed.and_then(|m| m.get("ui")));
    Ok(UiResource {
        uri: uri.to_owned(),
        html,
        csp: Csp::from_meta(ui.and_then(|u| u.get("csp"))),
        permissions: Permissions::from_meta(ui.and_then(|u| u.get("permissions"))),
        prefers_border: ui.and_then(|u| u.get("prefersBorder")).and_then(Value::as_bool),
    })
}

fn is_app_mime(mime: &str) -> bool {
    let squashed: String = mime.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
    squashed == MIME
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in s.bytes().filter(|b| !b.is_ascii_whitespace()) {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// `html` with a `<meta http-equiv="Content-Security-Policy">` holding
/// `policy` as its first element (right after a doctype, so the document
/// keeps its mode). The parser puts it in `<head>` whatever follows, and a
/// policy in the View's own markup can only narrow it.
pub fn with_policy(html: &str, policy: &str) -> String {
    let meta = format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">", policy.replace('&', "&amp;").replace('"', "&quot;"));
    let start = html.len() - html.trim_start_matches(['\u{feff}', ' ', '\t', '\n', '\r', '\u{c}']).len();
    let rest = &html[start..];
    // Bytes, not a str slice: a server's document may have a character
    // across its ninth byte.
    let at = if rest.as_bytes().get(..9).is_some_and(|b| b.eq_ignore_ascii_case(b"<!doctype")) { rest.find('>').map_or(html.len(), |i| start + i + 1) } else { start };
    format!("{}{meta}{}", &html[..at], &html[at..])
}

/// The document that previews an HTML or SVG code block (the Preview
/// button of a code block), for the same sandboxed frame as a View: the
/// code as it is (an SVG on a bare page), under the policy of a View that
/// declared nothing (inline script and style, `data:` and `blob:` images,
/// no network, no frames, no form posts). `None` for other languages.
pub fn preview_document(lang: &str, code: &str) -> Option<String> {
    let lang = lang.to_ascii_lowercase();
    let page = match lang.as_str() {
        "html" | "htm" | "xhtml" => code.to_owned(),
        "svg" => format!("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>html,body{{margin:0}}svg{{max-width:100%;height:auto}}</style></head><body>{code}</body></html>"),
        _ => return None,
    };
    Some(with_policy(&page, &Csp::default().policy()))
}

/// A tool's output as the `CallToolResult` a View is sent.
pub fn call_result(content: &[Content], structured: Option<&Value>, is_error: bool) -> Value {
    let blocks: Vec<Value> = content
        .iter()
        .map(|c| match c {
            Content::Text { text } => json!({"type": "text", "text": text}),
            Content::Image { mime, data } => json!({"type": "image", "mimeType": mime, "data": data}),
            Content::Audio { mime, data } => json!({"type": "audio", "mimeType": mime, "data": data}),
            Content::Link { uri, name } => json!({"type": "resource_link", "uri": uri, "name": name.clone().unwrap_or_else(|| uri.clone())}),
        })
        .collect();
    let mut out = json!({"content": blocks});
    if let Some(s) = structured {
        out["structuredContent"] = s.clone();
    }
    if is_error {
        out["isError"] = json!(true);
    }
    out
}
