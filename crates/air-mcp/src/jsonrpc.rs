//! JSON-RPC 2.0 as MCP frames it: requests, notifications and replies
//! built in the order their fields are sent, a server's message told apart
//! (request, notification, response), and JSON-RPC errors as [`McpError`].

use serde_json::{Value, json};

use crate::error::McpError;

/// A request: `{"jsonrpc", "id", "method", "params"}`.
pub(crate) fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A notification (no id; `params` only when there are some).
pub(crate) fn notification(method: &str, params: Option<Value>) -> Value {
    let mut note = json!({"jsonrpc": "2.0", "method": method});
    if let Some(p) = params {
        note["params"] = p;
    }
    note
}

/// The reply to a server's request `id`: its result, or an error.
pub(crate) fn reply(id: &Value, answer: Result<Value, (i64, String)>) -> Value {
    match answer {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err((code, text)) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": text}}),
    }
}

/// What a message from the server is.
#[derive(Debug, PartialEq)]
pub(crate) enum Message<'a> {
    /// A request of the server's own: to be answered.
    Request {
        id: &'a Value,
        method: &'a str,
        params: &'a Value,
    },
    Notification {
        method: &'a str,
        params: &'a Value,
    },
    /// A response (its result or error: [`response_of`]).
    Response {
        id: &'a Value,
    },
    /// Neither a method nor an id.
    Other,
}

const NO_PARAMS: &Value = &Value::Null;

/// Tells a server's message apart by its `method` (a string) and `id`.
pub(crate) fn classify(message: &Value) -> Message<'_> {
    let params = message.get("params").unwrap_or(NO_PARAMS);
    match (message.get("method").and_then(Value::as_str), message.get("id")) {
        (Some(method), Some(id)) => Message::Request { id, method, params },
        (Some(method), None) => Message::Notification { method, params },
        (None, Some(id)) => Message::Response { id },
        (None, None) => Message::Other,
    }
}

/// The result or error of a JSON-RPC response.
pub(crate) fn response_of(message: &Value) -> Result<Value, McpError> {
    if let Some(e) = message.get("error") {
        return Err(rpc_error(e));
    }
    message.get("result").cloned().ok_or_else(|| McpError::Protocol("a response with neither result nor error".into()))
}

/// The error a JSON-RPC `error` object stands for: -32042 (pages to
/// open) and -32022 (versions the server speaks) are told apart.
pub(crate) fn rpc_error(e: &Value) -> McpError {
    let code = e.get("code").and_then(Value::as_i64).unwrap_or(0);
    if code == -32042 {
        let pages: Vec<(String, String)> = e
            .pointer("/data/elicitations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|x| Some((x.get("url")?.as_str()?.to_owned(), x.get("message").and_then(Value::as_str).unwrap_or_default().to_owned())))
            .collect();
        if !pages.is_empty() {
            return McpError::UrlRequired { message: e.get("message").and_then(Value::as_str).unwrap_or_default().to_owned(), pages };
        }
    }
    if code == -32022 {
        let supported = e.pointer("/data/supported").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect();
        return McpError::VersionRefused { supported };
    }
    McpError::Rpc { code: e.get("code").and_then(Value::as_i64).unwrap_or(0), message: e.get("message").and_then(Value::as_str).unwrap_or("unknown error").to_owned() }
}

/// A JSON-RPC error inside an HTTP error body.
pub(crate) fn rpc_error_in(body: &str) -> Option<McpError> {
    let v: Value = serde_json::from_str(body).ok()?;
    v.get("error").filter(|e| e.is_object()).map(rpc_error)
}
