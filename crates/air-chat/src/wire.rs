//! Wire shapes of `POST {base}/chat/completions`.
//!
//! Requests are typed exactly; streamed chunks are parsed leniently (every
//! field optional, `null` accepted everywhere) because real providers
//! disagree on nearly every field (see the decoder's tests).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::reply::ToolCall;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// One message of the conversation as sent to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatMessage {
    pub role: Role,
    /// `null` is sent for an assistant message that only calls tools.
    pub content: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<WireToolCall>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl ChatMessage {
    pub fn text(role: Role, content: impl Into<String>) -> Self {
        Self { role, content: Some(content.into()), tool_calls: Vec::new(), tool_call_id: None, name: None }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WireToolCall {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: WireFunction,
    /// Sent back verbatim (Gemini requires its `thought_signature`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extra_content: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WireFunction {
    pub name: String,
    pub arguments: String,
}

impl From<&ToolCall> for WireToolCall {
    fn from(call: &ToolCall) -> Self {
        Self {
            id: call.id.clone(),
            kind: "function",
            function: WireFunction { name: call.name.clone(), arguments: call.arguments.clone() },
            extra_content: call.extra.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StreamOptions {
    pub include_usage: bool,
}

/// The request body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<ChatMessage>,
    pub stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// llama.cpp's `repeat_penalty` (sent only to the local model's server,
    /// which accepts it; other providers refuse unknown fields).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeat_penalty: Option<f32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Value>,
}

impl ChatRequest {
    /// A streaming request that asks for usage in the last chunk.
    pub fn streaming(model: impl Into<String>, messages: Vec<ChatMessage>) -> Self {
        Self {
            model: model.into(),
            messages,
            stream: true,
            stream_options: Some(StreamOptions { include_usage: true }),
            temperature: None,
            max_tokens: None,
            repeat_penalty: None,
            tools: Vec::new(),
        }
    }

    pub fn to_json(&self) -> String {
        // Serialising these types cannot fail: no maps with non-string keys.
        serde_json::to_string(self).unwrap_or_default()
    }
}

// ---- streamed chunks -------------------------------------------------------

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Chunk {
    pub model: Option<String>,
    pub object: Option<String>,
    pub choices: Option<Vec<Choice>>,
    pub usage: Option<Value>,
    /// Groq puts usage in its own object (`x_groq.usage`) instead.
    pub x_groq: Option<Value>,
    pub error: Option<Value>,
    pub message: Option<Value>,
    pub code: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Choice {
    pub delta: Option<Delta>,
    /// Some gateways send a whole `message` instead of a `delta`.
    pub message: Option<Delta>,
    pub finish_reason: Option<String>,
    pub error: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Delta {
    pub content: Option<Value>,
    pub reasoning_content: Option<String>,
    pub reasoning: Option<String>,
    pub tool_calls: Option<Vec<ToolCallChunk>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ToolCallChunk {
    pub index: Option<u64>,
    pub id: Option<String>,
    pub function: Option<FunctionChunk>,
    pub extra_content: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct FunctionChunk {
    pub name: Option<String>,
    /// Usually a string fragment; some servers send an object.
    pub arguments: Option<Value>,
}
