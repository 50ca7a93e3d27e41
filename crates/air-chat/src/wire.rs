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

/// A message as it goes on the wire (see [`ChatMessage`]).
#[derive(Serialize)]
struct MessageWire<'a> {
    role: Role,
    content: Content<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_content: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    tool_calls: &'a [WireToolCall],
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
}

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

impl Serialize for ChatMessage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.wire(None).serialize(serializer)
    }
}

impl ChatMessage {
    /// The message on the wire, with `reasoning` as its `reasoning_content`.
    fn wire<'a>(&'a self, reasoning: Option<&'a str>) -> MessageWire<'a> {
        let text = self.content.as_deref();
        let content = if self.images.is_empty() {
            Content::Text(text)
        } else {
            let mut parts: Vec<Part<'_>> = text.filter(|t| !t.is_empty()).map(|text| Part::Text { text }).into_iter().collect();
            parts.extend(self.images.iter().filter_map(|i| i.url.as_deref()).map(|url| Part::ImageUrl { image_url: Url { url } }));
            if parts.is_empty() { Content::Text(Some("")) } else { Content::Parts(parts) }
        };
        MessageWire { role: self.role, content, reasoning_content: reasoning, tool_calls: &self.tool_calls, tool_call_id: self.tool_call_id.as_deref(), name: self.name.as_deref() }
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
        Self { id: call.id.clone(), kind: "function", function: WireFunction { name: call.name.clone(), arguments: call.arguments.clone() }, extra_content: call.extra.clone() }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StreamOptions {
    pub include_usage: bool,
}

/// The request body.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<ChatMessage>,
    pub stream: bool,
    pub stream_options: Option<StreamOptions>,
    pub temperature: Option<f32>,
    pub max_tokens: Option<u32>,
    /// llama.cpp's `repeat_penalty` (sent only to the local model's server,
    /// which accepts it; other providers refuse unknown fields).
    pub repeat_penalty: Option<f32>,
    pub tools: Vec<Value>,
    /// Reasoning sent back as `reasoning_content` with the last assistant
    /// messages that call tools (see [`CallReasoning`]); none by default.
    pub reasoning: Vec<CallReasoning>,
}

/// The reasoning of an assistant message that called tools, sent back
/// with it as its `reasoning_content`: DeepSeek's thinking mode refuses a
/// request in which a tool-calling message of the turn in progress lacks
/// it (others ignore the field).
///
/// It is kept on the request, not on [`ChatMessage`], because which
/// messages carry it is the request builder's choice (only those of the
/// turn in progress, to save tokens), and messages are made from stored
/// records one at a time. The entries are matched from the end: the last
/// entry to the last assistant message with tool calls, and so on back,
/// each only if its message's first call has `first_call` as id (ids can
/// repeat across rounds: `call_0` for a provider that sends none).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CallReasoning {
    /// The id of the message's first tool call.
    pub first_call: String,
    /// Empty: nothing is sent (the entry still holds its message's place).
    pub text: String,
}

impl Serialize for ChatRequest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Wire<'a> {
            model: &'a str,
            messages: Messages<'a>,
            stream: bool,
            #[serde(skip_serializing_if = "Option::is_none")]
            stream_options: Option<&'a StreamOptions>,
            #[serde(skip_serializing_if = "Option::is_none")]
            temperature: Option<f32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            max_tokens: Option<u32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            repeat_penalty: Option<f32>,
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            tools: &'a [Value],
        }
        Wire {
            model: &self.model,
            messages: Messages { messages: &self.messages, reasoning: &self.reasoning },
            stream: self.stream,
            stream_options: self.stream_options.as_ref(),
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            repeat_penalty: self.repeat_penalty,
            tools: &self.tools,
        }
        .serialize(serializer)
    }
}

/// The messages of a request, each tool-calling one with its reasoning.
struct Messages<'a> {
    messages: &'a [ChatMessage],
    reasoning: &'a [CallReasoning],
}

impl Messages<'_> {
    /// The reasoning to send with each message, by index (see
    /// [`CallReasoning`] for the matching).
    fn reasoning_of(&self) -> Vec<Option<&str>> {
        let mut out = vec![None; self.messages.len()];
        let mut entries = self.reasoning.iter().rev();
        let calling = self.messages.iter().enumerate().rev().filter(|(_, m)| m.role == Role::Assistant);
        for (i, first) in calling.filter_map(|(i, m)| Some((i, m.tool_calls.first()?))) {
            let Some(entry) = entries.next() else { break };
            if entry.first_call == first.id && !entry.text.is_empty() {
                out[i] = Some(entry.text.as_str());
            }
        }
        out
    }
}

impl Serialize for Messages<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let reasoning = self.reasoning_of();
        let mut seq = serializer.serialize_seq(Some(self.messages.len()))?;
        for (m, r) in self.messages.iter().zip(reasoning) {
            seq.serialize_element(&m.wire(r))?;
        }
        seq.end()
    }
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
            reasoning: Vec::new(),
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

    /// An assistant message calling tools, whose first call is `id`.
    fn calling(id: &str) -> ChatMessage {
        let call = ToolCall { id: id.into(), name: "calculator".into(), arguments: "{}".into(), extra: None };
        ChatMessage { content: None, tool_calls: vec![(&call).into()], ..ChatMessage::text(Role::Assistant, "") }
    }

    /// The `reasoning_content` of each message of the request's JSON.
    fn sent_reasoning(req: &ChatRequest) -> Vec<Option<String>> {
        let json = serde_json::to_value(req).unwrap_or_default();
        let messages = json["messages"].as_array().cloned().unwrap_or_default();
        messages.iter().map(|m| m.get("reasoning_content").and_then(Value::as_str).map(str::to_owned)).collect()
    }

    #[test]
    fn reasoning_goes_back_with_the_last_tool_calling_messages() {
        let entry = |first_call: &str, text: &str| CallReasoning { first_call: first_call.into(), text: text.into() };
        // An earlier turn's call and this turn's first call share an id.
        let messages = vec![
            ChatMessage::text(Role::User, "first"),
            calling("call_0"),
            ChatMessage { tool_call_id: Some("call_0".into()), ..ChatMessage::text(Role::Tool, "1") },
            ChatMessage::text(Role::Assistant, "done"),
            ChatMessage::text(Role::User, "second"),
            calling("call_0"),
            ChatMessage { tool_call_id: Some("call_0".into()), ..ChatMessage::text(Role::Tool, "2") },
            calling("b"),
            ChatMessage { tool_call_id: Some("b".into()), ..ChatMessage::text(Role::Tool, "3") },
            calling("c"),
            ChatMessage { tool_call_id: Some("c".into()), ..ChatMessage::text(Role::Tool, "4") },
        ];
        let mut req = ChatRequest::streaming("m", messages);
        assert_eq!(sent_reasoning(&req), vec![None; 11], "none unless asked for");
        assert!(!req.to_json().contains("reasoning_content"));
        req.reasoning = vec![entry("call_0", "think 1"), entry("b", ""), entry("c", "think 3")];
        let mut expected = vec![None; 11];
        expected[5] = Some("think 1".to_owned());
        expected[9] = Some("think 3".to_owned());
        assert_eq!(sent_reasoning(&req), expected, "the earlier turn's call_0 gets none; an empty text is not sent");
        // An entry whose id does not match its place is not sent.
        req.reasoning = vec![entry("call_0", "think 1"), entry("x", "wrong"), entry("c", "think 3")];
        expected[5] = Some("think 1".to_owned());
        assert_eq!(sent_reasoning(&req)[7], None);
        assert_eq!(sent_reasoning(&req), expected);
        // On the wire it sits after the content, as DeepSeek documents it.
        let json = req.to_json();
        assert!(json.contains(r#"{"role":"assistant","content":null,"reasoning_content":"think 3","tool_calls":[{"id":"c""#), "{json}");
    }

    #[test]
    fn the_request_body_keeps_its_fields_and_their_order() {
        let mut req = ChatRequest::streaming("m", vec![ChatMessage::text(Role::User, "hi")]);
        req.temperature = Some(0.5);
        req.max_tokens = Some(9);
        req.repeat_penalty = Some(1.5);
        req.tools = vec![serde_json::json!({"type": "function"})];
        assert_eq!(
            req.to_json(),
            r#"{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true},"temperature":0.5,"max_tokens":9,"repeat_penalty":1.5,"tools":[{"type":"function"}]}"#
        );
        let bare = ChatRequest { stream_options: None, ..ChatRequest::streaming("m", Vec::new()) };
        assert_eq!(bare.to_json(), r#"{"model":"m","messages":[],"stream":true}"#);
    }
}
