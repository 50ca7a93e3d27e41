//! MCP Apps on the host side (extension `io.modelcontextprotocol/ui`,
//! revision 2026-01-26), without IO.
//!
//! - [`tool_ui`]: which tool has a UI (`_meta.ui.resourceUri`) and who may
//!   call it (`_meta.ui.visibility`: the model, the app, or both).
//! - [`ui_resource`]: the `resources/read` answer as the View's HTML with
//!   its declared CSP domains and permissions, each domain checked.
//! - [`Csp::policy`], [`with_policy`] and [`Permissions::allow`]: the frame's
//!   Content-Security-Policy (strict unless domains were declared), put at
//!   the top of the document, and its `allow` attribute.
//! - [`Bridge`]: the host end of the View's JSON-RPC over `postMessage`,
//!   as a state machine: messages in, [`Out`]s (messages to post, and what
//!   the View asks the host to do) out. Nothing is posted to the View
//!   before it says `ui/notifications/initialized`.

use air_tools::Content;
use serde_json::{Map, Value, json};

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
    let uri = meta
        .and_then(|m| m.pointer("/ui/resourceUri"))
        .or_else(|| meta.and_then(|m| m.get("ui/resourceUri")))
        .and_then(Value::as_str)
        .filter(|u| u.starts_with("ui://"))
        .map(str::to_owned);
    let listed: Option<Vec<String>> = meta
        .and_then(|m| m.pointer("/ui/visibility"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect());
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
    let host_ok = !host.is_empty()
        && host.split('.').all(|label| !label.is_empty() && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
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
        "svg" => format!(
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>html,body{{margin:0}}svg{{max-width:100%;height:auto}}</style></head><body>{code}</body></html>"
        ),
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

/// The host's side of the environment a View is told about.
#[derive(Debug, Clone, PartialEq)]
pub struct HostContext {
    /// `light` or `dark`.
    pub theme: String,
    /// BCP 47.
    pub locale: String,
    pub time_zone: Option<String>,
    pub display_mode: String,
    pub available_display_modes: Vec<String>,
    pub max_height: u32,
    pub width: Option<u32>,
    /// CSS variables (`--color-background-primary` …).
    pub variables: Vec<(String, String)>,
    /// The call that made the View: its JSON-RPC id, and the tool.
    pub tool: Option<(Value, Value)>,
}

impl HostContext {
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        if let Some((id, tool)) = &self.tool {
            // `id` is optional, and must be a JSON-RPC id when present.
            let info = if id.is_string() || id.is_number() { json!({"id": id, "tool": tool}) } else { json!({"tool": tool}) };
            m.insert("toolInfo".into(), info);
        }
        m.insert("theme".into(), json!(self.theme));
        let vars: Map<String, Value> = self.variables.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        m.insert("styles".into(), json!({"variables": vars}));
        m.insert("displayMode".into(), json!(self.display_mode));
        m.insert("availableDisplayModes".into(), json!(self.available_display_modes));
        let mut dims = json!({"maxHeight": self.max_height});
        match self.width {
            Some(w) => dims["width"] = json!(w),
            None => dims["maxWidth"] = Value::Null,
        }
        if let Some(o) = dims.as_object_mut() {
            o.retain(|_, v| !v.is_null());
        }
        m.insert("containerDimensions".into(), dims);
        m.insert("locale".into(), json!(self.locale));
        if let Some(tz) = &self.time_zone {
            m.insert("timeZone".into(), json!(tz));
        }
        m.insert("platform".into(), json!("web"));
        Value::Object(m)
    }
}

/// What the View asks the host to do; the host answers with
/// [`Bridge::reply`].
#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    /// `tools/call` of a tool the app may call (checked).
    CallTool { name: String, arguments: Value },
    /// `resources/read` on the same server.
    ReadResource { uri: String },
    /// `ui/message`: a user message for the conversation (its text blocks
    /// joined).
    Message { text: String },
    /// `ui/open-link` of an `http(s)` URL: only after the user agrees.
    OpenLink { url: String },
    /// `ui/update-model-context`: replaces what this View last gave.
    UpdateContext { text: String, structured: Option<Value> },
    /// `ui/request-display-mode`.
    DisplayMode { mode: String },
}

/// How often a View may put a message in the composer (`ui/message`): a
/// View cannot flood it, nor overwrite what the user is typing.
#[derive(Debug, Default)]
pub struct MessageGate {
    last_ms: Option<u64>,
}

/// The least time between two messages a View puts in the composer.
pub const MESSAGE_GAP_MS: u64 = 3_000;

impl MessageGate {
    /// Whether a message may go into the composer at `now_ms`, which holds
    /// `draft` (only an empty composer takes one).
    pub fn admit(&mut self, now_ms: u64, draft: &str) -> bool {
        let soon = self.last_ms.is_some_and(|t| now_ms.saturating_sub(t) < MESSAGE_GAP_MS);
        if soon || !draft.trim().is_empty() {
            return false;
        }
        self.last_ms = Some(now_ms);
        true
    }
}

/// What the bridge wants done after a message.
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    /// Post this to the View.
    Post(Value),
    /// Do this and [`Bridge::reply`] with the same id.
    Ask { id: Value, ask: Ask },
    /// The View's content size (`ui/notifications/size-changed`).
    Resize { width: Option<f64>, height: Option<f64> },
    /// `notifications/message` from the View.
    Log { level: String, text: String },
    /// The View said `ui/notifications/initialized`.
    Ready,
    /// The View asked to be closed (`ui/notifications/request-teardown`).
    CloseRequested,
    /// The View answered `ui/resource-teardown`: the frame may go.
    Closed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Starting,
    Ready,
    Closing,
    Closed,
}

/// The host end of one View's bridge.
#[derive(Debug)]
pub struct Bridge {
    phase: Phase,
    /// Notifications held until the View is initialized.
    held: Vec<Value>,
    next_id: i64,
    teardown_id: Option<i64>,
    context: HostContext,
    host_version: String,
    /// Tools of the View's server that the app may call, as listed.
    app_tools: Vec<Value>,
}

/// JSON-RPC errors the bridge answers with.
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;

impl Bridge {
    /// `app_tools`: the `tools/list` entries of the same server whose
    /// visibility includes the app.
    pub fn new(context: HostContext, host_version: &str, app_tools: Vec<Value>) -> Self {
        Bridge { phase: Phase::Starting, held: Vec::new(), next_id: 1, teardown_id: None, context, host_version: host_version.to_owned(), app_tools }
    }

    /// The View has said `ui/notifications/initialized` and not been torn
    /// down.
    pub fn is_ready(&self) -> bool {
        self.phase == Phase::Ready
    }

    pub fn context(&self) -> &HostContext {
        &self.context
    }

    fn send(&mut self, message: Value) -> Vec<Value> {
        match self.phase {
            Phase::Starting => {
                self.held.push(message);
                Vec::new()
            }
            Phase::Ready => vec![message],
            Phase::Closing | Phase::Closed => Vec::new(),
        }
    }

    fn notify(&mut self, method: &str, params: Value) -> Vec<Value> {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// The call's arguments (`ui/notifications/tool-input`).
    pub fn tool_input(&mut self, arguments: Value) -> Vec<Value> {
        self.notify("ui/notifications/tool-input", json!({ "arguments": arguments }))
    }

    /// The call's result (`ui/notifications/tool-result`).
    pub fn tool_result(&mut self, result: Value) -> Vec<Value> {
        self.notify("ui/notifications/tool-result", result)
    }

    /// The call ended without a result (`ui/notifications/tool-cancelled`).
    pub fn tool_cancelled(&mut self, reason: &str) -> Vec<Value> {
        self.notify("ui/notifications/tool-cancelled", json!({ "reason": reason }))
    }

    /// Something of the host context changed (theme, size, display mode):
    /// only the changed fields are sent.
    pub fn context_changed(&mut self, new: HostContext) -> Vec<Value> {
        let (old, now) = (self.context.to_value(), new.to_value());
        self.context = new;
        let mut changed = Map::new();
        if let (Some(old), Some(now)) = (old.as_object(), now.as_object()) {
            for (k, v) in now {
                if old.get(k) != Some(v) {
                    changed.insert(k.clone(), v.clone());
                }
            }
        }
        if changed.is_empty() {
            return Vec::new();
        }
        self.notify("ui/notifications/host-context-changed", Value::Object(changed))
    }

    /// Asks the View to wind down before its frame goes
    /// (`ui/resource-teardown`). `None` when there is nobody to ask (it
    /// never initialized, or was already asked): the frame may go now.
    pub fn teardown(&mut self) -> Option<Value> {
        match self.phase {
            Phase::Ready => {
                let id = self.next_id;
                self.next_id += 1;
                self.teardown_id = Some(id);
                self.phase = Phase::Closing;
                Some(json!({"jsonrpc": "2.0", "id": id, "method": "ui/resource-teardown", "params": {}}))
            }
            _ => {
                self.phase = Phase::Closed;
                None
            }
        }
    }

    /// The answer to an [`Out::Ask`].
    pub fn reply(&self, id: &Value, result: Result<Value, String>) -> Value {
        match result {
            Ok(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
            Err(message) => error(id, -32000, &message),
        }
    }

    /// A message from the View.
    pub fn receive(&mut self, msg: &Value) -> Vec<Out> {
        if self.phase == Phase::Closed || msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Vec::new();
        }
        let method = msg.get("method").and_then(Value::as_str);
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        match (method, msg.get("id")) {
            (Some(method), Some(id)) if !id.is_null() => vec![self.request(id.clone(), method, &params)],
            (Some(method), _) => self.notification(method, &params),
            (None, Some(id)) => {
                if self.teardown_id.is_some() && id.as_i64() == self.teardown_id {
                    self.phase = Phase::Closed;
                    self.teardown_id = None;
                    vec![Out::Closed]
                } else {
                    Vec::new()
                }
            }
            (None, None) => Vec::new(),
        }
    }

    fn request(&mut self, id: Value, method: &str, params: &Value) -> Out {
        let s = |k: &str| params.get(k).and_then(Value::as_str).map(str::to_owned);
        let ask = |ask| Out::Ask { id: id.clone(), ask };
        match method {
            "ui/initialize" => Out::Post(json!({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": PROTOCOL_VERSION,
                "hostInfo": {"name": "air-agent", "title": "Air Agent", "version": self.host_version},
                "hostCapabilities": {
                    "openLinks": {},
                    "serverTools": {},
                    "serverResources": {},
                    "logging": {},
                    "message": {"text": {}},
                    "updateModelContext": {"text": {}},
                },
                "hostContext": self.context.to_value(),
            }})),
            "ping" => Out::Post(json!({"jsonrpc": "2.0", "id": id, "result": {}})),
            "tools/list" => Out::Post(json!({"jsonrpc": "2.0", "id": id, "result": {"tools": self.app_tools}})),
            "tools/call" => match s("name") {
                Some(name) if self.app_tools.iter().any(|t| t.get("name").and_then(Value::as_str) == Some(&name)) => {
                    ask(Ask::CallTool { name, arguments: params.get("arguments").cloned().unwrap_or_else(|| json!({})) })
                }
                Some(name) => Out::Post(error(&id, INVALID_PARAMS, &format!("The tool {name} is not available to this app"))),
                None => Out::Post(error(&id, INVALID_PARAMS, "tools/call needs a tool name")),
            },
            "resources/read" => match s("uri") {
                Some(uri) => ask(Ask::ReadResource { uri }),
                None => Out::Post(error(&id, INVALID_PARAMS, "resources/read needs a uri")),
            },
            "ui/message" => {
                let text = text_of(params.get("content"));
                if text.trim().is_empty() { Out::Post(error(&id, INVALID_PARAMS, "ui/message needs text content")) } else { ask(Ask::Message { text }) }
            }
            "ui/open-link" => match s("url") {
                Some(url) if air_http::url::is_http(&url) => ask(Ask::OpenLink { url }),
                _ => Out::Post(error(&id, INVALID_PARAMS, "ui/open-link needs an http or https URL")),
            },
            "ui/update-model-context" => {
                ask(Ask::UpdateContext { text: text_of(params.get("content")), structured: params.get("structuredContent").filter(|v| !v.is_null()).cloned() })
            }
            "ui/request-display-mode" => ask(Ask::DisplayMode { mode: s("mode").unwrap_or_default() }),
            _ => Out::Post(error(&id, METHOD_NOT_FOUND, &format!("Method not found: {method}"))),
        }
    }

    fn notification(&mut self, method: &str, params: &Value) -> Vec<Out> {
        match method {
            "ui/notifications/initialized" if self.phase == Phase::Starting => {
                self.phase = Phase::Ready;
                let mut out = vec![Out::Ready];
                out.extend(std::mem::take(&mut self.held).into_iter().map(Out::Post));
                out
            }
            "ui/notifications/size-changed" => {
                let n = |k: &str| params.get(k).and_then(Value::as_f64).filter(|v| v.is_finite() && *v >= 0.0);
                vec![Out::Resize { width: n("width"), height: n("height") }]
            }
            "notifications/message" => {
                let level = params.get("level").and_then(Value::as_str).unwrap_or("info").to_owned();
                let text = match params.get("data") {
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                    None => String::new(),
                };
                vec![Out::Log { level, text }]
            }
            "ui/notifications/request-teardown" => vec![Out::CloseRequested],
            _ => Vec::new(),
        }
    }
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The text blocks of a content list, joined by blank lines.
fn text_of(content: Option<&Value>) -> String {
    let texts: Vec<&str> = content
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    texts.join("\n\n")
}
