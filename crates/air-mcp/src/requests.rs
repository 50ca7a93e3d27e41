//! The MCP methods this client sends, serves and hears, each named once
//! here: requests as types (their method, their params in the order they
//! are sent, what their result means), notifications, the methods a server
//! may send, and what a request carries besides its params (the client's
//! capabilities, the 2026-07-28 `_meta`, `Mcp-Name` and `Mcp-Param-*`
//! headers, which time limit it runs under).

use serde_json::{Value, json};

use crate::error::McpError;
use crate::{LATEST_VERSION, MODERN_VERSION};

/// A request this client sends.
pub(crate) trait Request {
    const METHOD: &'static str;
    /// What the result is read as.
    type Output;
    fn params(&self) -> Value;
    fn parse(result: Value) -> Result<Self::Output, McpError>;
}

/// A notification this client sends.
pub(crate) trait Notification {
    const METHOD: &'static str;
    fn params(&self) -> Option<Value>;
}

/// A list the server gives page by page, and the key of its items.
pub(crate) trait Paged {
    const METHOD: &'static str;
    const KEY: &'static str;
}

/// Methods a server sends: requests it asks the client to answer, and
/// notifications.
pub(crate) const PING: &str = "ping";
pub(crate) const ELICITATION_CREATE: &str = "elicitation/create";
pub(crate) const PROGRESS: &str = "notifications/progress";
pub(crate) const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
pub(crate) const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
pub(crate) const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
pub(crate) const RESOURCES_UPDATED: &str = "notifications/resources/updated";
pub(crate) const LOG_MESSAGE: &str = "notifications/message";

/// What this client can do for a server: answer elicitations (forms and
/// URLs), and show MCP Apps (the `io.modelcontextprotocol/ui` extension).
pub(crate) fn client_capabilities() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}, "extensions": {(air_apps::EXTENSION): air_apps::client_extension()}})
}

fn client_info() -> Value {
    json!({"name": "air-agent", "title": "Air Agent", "version": env!("CARGO_PKG_VERSION")})
}

/// What a 2026-07-28 request carries in `_meta` instead of a session.
pub(crate) fn modern_meta() -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert("io.modelcontextprotocol/protocolVersion".into(), json!(MODERN_VERSION));
    m.insert("io.modelcontextprotocol/clientCapabilities".into(), client_capabilities());
    m.insert("io.modelcontextprotocol/clientInfo".into(), client_info());
    m
}

/// `initialize`: the newest revision, the client's capabilities and info.
pub(crate) struct Initialize;

impl Request for Initialize {
    const METHOD: &'static str = "initialize";
    type Output = Value;
    fn params(&self) -> Value {
        json!({
            "protocolVersion": LATEST_VERSION,
            "capabilities": client_capabilities(),
            "clientInfo": client_info()
        })
    }
    fn parse(result: Value) -> Result<Value, McpError> {
        Ok(result)
    }
}

/// `notifications/initialized`, after the server's `initialize` answer.
pub(crate) struct Initialized;

impl Notification for Initialized {
    const METHOD: &'static str = "notifications/initialized";
    fn params(&self) -> Option<Value> {
        None
    }
}

/// `notifications/cancelled`: the client stopped waiting for `request_id`.
#[derive(Debug, PartialEq)]
pub(crate) struct Cancelled {
    pub request_id: u64,
    pub reason: &'static str,
}

impl Notification for Cancelled {
    const METHOD: &'static str = "notifications/cancelled";
    fn params(&self) -> Option<Value> {
        Some(json!({"requestId": self.request_id, "reason": self.reason}))
    }
}

/// `server/discover` (2026-07-28): whether the server speaks that revision.
pub(crate) struct Discover;

impl Request for Discover {
    const METHOD: &'static str = "server/discover";
    /// The discovery result, when it names 2026-07-28.
    type Output = Option<Value>;
    fn params(&self) -> Value {
        let mut params = serde_json::Map::new();
        params.insert("_meta".into(), Value::Object(modern_meta()));
        Value::Object(params)
    }
    fn parse(result: Value) -> Result<Option<Value>, McpError> {
        let speaks = result.get("supportedVersions").and_then(Value::as_array).is_some_and(|v| v.iter().any(|v| v.as_str() == Some(MODERN_VERSION)));
        Ok(speaks.then_some(result))
    }
}

/// `subscriptions/listen` (2026-07-28): list changes, and changes to
/// these resources.
pub(crate) struct SubscriptionsListen {
    pub resources: Vec<String>,
}

impl Request for SubscriptionsListen {
    const METHOD: &'static str = "subscriptions/listen";
    type Output = Value;
    fn params(&self) -> Value {
        let mut wanted = json!({"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true});
        if !self.resources.is_empty() {
            wanted["resourceSubscriptions"] = json!(self.resources);
        }
        let mut params = serde_json::Map::new();
        params.insert("notifications".into(), wanted);
        params.insert("_meta".into(), Value::Object(modern_meta()));
        Value::Object(params)
    }
    fn parse(result: Value) -> Result<Value, McpError> {
        Ok(result)
    }
}

pub(crate) struct ListTools;
pub(crate) struct ListPrompts;
pub(crate) struct ListResources;
pub(crate) struct ListResourceTemplates;

impl Paged for ListTools {
    const METHOD: &'static str = "tools/list";
    const KEY: &'static str = "tools";
}

impl Paged for ListPrompts {
    const METHOD: &'static str = "prompts/list";
    const KEY: &'static str = "prompts";
}

impl Paged for ListResources {
    const METHOD: &'static str = "resources/list";
    const KEY: &'static str = "resources";
}

impl Paged for ListResourceTemplates {
    const METHOD: &'static str = "resources/templates/list";
    const KEY: &'static str = "resourceTemplates";
}

/// The params of one page of a list: from `cursor`, or the first.
pub(crate) fn page_params(cursor: Option<&str>) -> Value {
    match cursor {
        Some(c) => json!({"cursor": c}),
        None => json!({}),
    }
}

/// One page of list `method`: its `key` items, and the cursor of the next
/// page (none when it is the last).
pub(crate) fn page_of<'a>(method: &str, key: &str, result: &'a Value) -> Result<(&'a [Value], Option<String>), McpError> {
    let Some(Value::Array(items)) = result.get(key) else { return Err(McpError::Protocol(format!("{method} answered without a {key} list"))) };
    let cursor = result.get("nextCursor").and_then(Value::as_str).filter(|c| !c.is_empty()).map(str::to_owned);
    Ok((items, cursor))
}

/// How long a result may be kept (`ttlMs`, 2026-07-28).
pub(crate) fn ttl_of(result: &Value) -> Option<u64> {
    result.get("ttlMs").and_then(Value::as_u64)
}

/// `resources/read`.
pub(crate) struct ReadResource<'a> {
    pub uri: &'a str,
}

impl Request for ReadResource<'_> {
    const METHOD: &'static str = "resources/read";
    type Output = Value;
    fn params(&self) -> Value {
        json!({"uri": self.uri})
    }
    fn parse(result: Value) -> Result<Value, McpError> {
        Ok(result)
    }
}

/// `resources/subscribe`.
pub(crate) struct Subscribe<'a> {
    pub uri: &'a str,
}

impl Request for Subscribe<'_> {
    const METHOD: &'static str = "resources/subscribe";
    type Output = Value;
    fn params(&self) -> Value {
        json!({"uri": self.uri})
    }
    fn parse(result: Value) -> Result<Value, McpError> {
        Ok(result)
    }
}

/// `resources/unsubscribe`.
pub(crate) struct Unsubscribe<'a> {
    pub uri: &'a str,
}

impl Request for Unsubscribe<'_> {
    const METHOD: &'static str = "resources/unsubscribe";
    type Output = Value;
    fn params(&self) -> Value {
        json!({"uri": self.uri})
    }
    fn parse(result: Value) -> Result<Value, McpError> {
        Ok(result)
    }
}

/// `prompts/get`: a prompt's messages for these arguments.
pub(crate) struct GetPrompt<'a> {
    pub name: &'a str,
    pub arguments: &'a serde_json::Map<String, Value>,
}

impl Request for GetPrompt<'_> {
    const METHOD: &'static str = "prompts/get";
    type Output = Value;
    fn params(&self) -> Value {
        json!({"name": self.name, "arguments": self.arguments})
    }
    fn parse(result: Value) -> Result<Value, McpError> {
        Ok(result)
    }
}

/// `completion/complete` for a prompt's argument, given what is typed so
/// far and the other arguments.
pub(crate) struct Complete<'a> {
    pub prompt: &'a str,
    pub argument: &'a str,
    pub value: &'a str,
    pub others: &'a serde_json::Map<String, Value>,
}

impl Request for Complete<'_> {
    const METHOD: &'static str = "completion/complete";
    /// The values suggested.
    type Output = Vec<String>;
    fn params(&self) -> Value {
        let mut params = json!({"ref": {"type": "ref/prompt", "name": self.prompt}, "argument": {"name": self.argument, "value": self.value}});
        if !self.others.is_empty() {
            params["context"] = json!({"arguments": self.others});
        }
        params
    }
    fn parse(result: Value) -> Result<Vec<String>, McpError> {
        Ok(crate::prompts::completions(&result))
    }
}

/// `tools/call`.
pub(crate) struct CallTool<'a> {
    pub name: &'a str,
    pub arguments: Value,
}

impl Request for CallTool<'_> {
    const METHOD: &'static str = "tools/call";
    type Output = Value;
    fn params(&self) -> Value {
        json!({"name": self.name, "arguments": self.arguments})
    }
    fn parse(result: Value) -> Result<Value, McpError> {
        Ok(result)
    }
}

/// The time allowed for request `method`: `tools/call` has its own limit,
/// every other request the other.
pub(crate) fn time_limit(method: &str, call_ms: Option<u64>, request_ms: Option<u64>) -> Option<u64> {
    if method == CallTool::METHOD { call_ms } else { request_ms }
}

/// The `Mcp-Name` of a request: the tool or prompt name, or the resource URI.
pub(crate) fn routing_name<'a>(method: &str, params: &'a Value) -> Option<&'a str> {
    match method {
        CallTool::METHOD | GetPrompt::METHOD => params.get("name").and_then(Value::as_str),
        ReadResource::METHOD => params.get("uri").and_then(Value::as_str),
        _ => None,
    }
}

/// The `Mcp-Param-*` headers a 2026-07-28 call carries: each argument whose
/// schema property is marked `x-mcp-header` (values that are not plain
/// visible ASCII are sent as `=?base64?…?=`).
pub fn param_headers(input_schema: &Value, arguments: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (name, prop) in input_schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
        let Some(header) = prop.get("x-mcp-header").and_then(Value::as_str) else { continue };
        let Some(value) = arguments.get(name) else { continue };
        let text = match value {
            Value::String(s) => s.clone(),
            Value::Null => continue,
            other => other.to_string(),
        };
        let safe = !text.is_empty() && text.bytes().all(|b| (0x20..0x7f).contains(&b)) && text.trim() == text;
        let text = if safe { text } else { format!("=?base64?{}?=", base64(text.as_bytes())) };
        out.push((format!("Mcp-Param-{header}"), text));
    }
    out
}

fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= c.len() {
                out.push(char::from(T[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}
