//! JSON-RPC 2.0 as MCP frames it: responses and JSON-RPC errors as
//! [`McpError`].

use serde_json::Value;

use crate::error::McpError;

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
    McpError::Rpc {
        code: e.get("code").and_then(Value::as_i64).unwrap_or(0),
        message: e.get("message").and_then(Value::as_str).unwrap_or("unknown error").to_owned(),
    }
}

/// A JSON-RPC error inside an HTTP error body.
pub(crate) fn rpc_error_in(body: &str) -> Option<McpError> {
    let v: Value = serde_json::from_str(body).ok()?;
    v.get("error").filter(|e| e.is_object()).map(rpc_error)
}
