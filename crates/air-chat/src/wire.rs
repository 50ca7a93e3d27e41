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
#[derive(Debug, Clone, PartialEq)]
pub struct ChatMessage {
    pub role: Role,
    /// `null` is sent for an assistant message that only calls tools.
    pub content: Option<String>,
    /// Images of a user message. With any, `content` is sent as parts: the
    /// text, then one `image_url` part per image that has its data.
    pub images: Vec<ImagePart>,
    pub tool_calls: Vec<WireToolCall>,
    pub tool_call_id: Option<String>,
    pub name: Option<String>,
}

/// An image of a message: the stored file's id, and its `data:` URL once
/// the file has been read (an image whose file is gone is left out).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ImagePart {
    pub id: String,
    pub url: Option<String>,
}

impl Serialize for ChatMessage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(untagged)]
        enum Content<'a> {
            Text(Option<&'a str>),
            Parts(Vec<Part<'a>>),
        }
        #[derive(Serialize)]
        #[serde(tag = "type", rename_all = "snake_case")]
        enum Part<'a> {
            Text { text: &'a str },
            ImageUrl { image_url: Url<'a> },
        }
        #[derive(Serialize)]
        struct Url<'a> {
            url: &'a str,
        }
        #[derive(Serialize)]
        struct Wire<'a> {
            role: Role,
            content: Content<'a>,
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            tool_calls: &'a [WireToolCall],
            #[serde(skip_serializing_if = "Option::is_none")]
            tool_call_id: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            name: Option<&'a str>,
        }
        let text = self.content.as_deref();
        let content = if self.images.is_empty() {
            Content::Text(text)
        } else {
            let mut parts: Vec<Part<'_>> = text.filter(|t| !t.is_empty()).map(|text| Part::Text { text }).into_iter().collect();
            parts.extend(self.images.iter().filter_map(|i| i.url.as_deref()).map(|url| Part::ImageUrl { image_url: Url { url } }));
            if parts.is_empty() { Content::Text(Some("")) } else { Content::Parts(parts) }
        };
        Wire {
            role: self.role,
            content,
            tool_calls: &self.tool_calls,
            tool_call_id: self.tool_call_id.as_deref(),
            name: self.name.as_deref(),
        }
        .serialize(serializer)
    }
}

impl ChatMessage {
    pub fn text(role: Role, content: impl Into<String>) -> Self {
        Self { role, content: Some(content.into()), images: Vec::new(), tool_calls: Vec::new(), tool_call_id: None, name: None }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_with_images_is_sent_as_parts() {
        let plain = serde_json::to_value(ChatMessage::text(Role::User, "hi")).unwrap_or_default();
        assert_eq!(plain, serde_json::json!({"role": "user", "content": "hi"}));
        let mut m = ChatMessage::text(Role::User, "what is this?");
        m.images = vec![
            ImagePart { id: "a".into(), url: Some("data:image/png;base64,AAAA".into()) },
            // Its file is gone: left out.
            ImagePart { id: "b".into(), url: None },
        ];
        let v = serde_json::to_value(&m).unwrap_or_default();
        assert_eq!(
            v,
            serde_json::json!({"role": "user", "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
            ]})
        );
        // An image alone: no empty text part; nothing at all: an empty text.
        m.content = Some(String::new());
        let v = serde_json::to_value(&m).unwrap_or_default();
        assert_eq!(v["content"].as_array().map(Vec::len), Some(1));
        m.images.truncate(0);
        m.images.push(ImagePart { id: "b".into(), url: None });
        assert_eq!(serde_json::to_value(&m).unwrap_or_default()["content"], "");
    }
}
