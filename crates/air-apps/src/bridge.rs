//! The host end of a View's JSON-RPC over `postMessage` ([`Bridge`]), the
//! context a View is told about ([`HostContext`]), what it may ask
//! ([`Ask`]) and how often it may write in the composer ([`MessageGate`]).

use serde_json::{Map, Value, json};

use crate::PROTOCOL_VERSION;

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
            "ui/update-model-context" => ask(Ask::UpdateContext { text: text_of(params.get("content")), structured: params.get("structuredContent").filter(|v| !v.is_null()).cloned() }),
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
    let texts: Vec<&str> =
        content.and_then(Value::as_array).into_iter().flatten().filter(|b| b.get("type").and_then(Value::as_str) == Some("text")).filter_map(|b| b.get("text").and_then(Value::as_str)).collect();
    texts.join("\n\n")
}
