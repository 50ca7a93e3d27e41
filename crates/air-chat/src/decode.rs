//! SSE frames → provider-neutral [`StreamEvent`]s.

use air_sse::Frame;
use serde_json::Value;

use crate::reply::{FinishReason, Usage};
use crate::wire::{Chunk, Delta, ToolCallChunk};
use crate::{ProviderError, StreamEvent, ToolCallDelta};

/// Longest excerpt of a bad chunk quoted in a [`StreamEvent::Malformed`].
const EXCERPT: usize = 120;

/// Stateful decoder of `chat.completion.chunk` events.
///
/// The state is what providers leave implicit: which tool call a delta
/// without `index` belongs to, and which model was last announced.
#[derive(Debug, Default)]
pub struct ChunkDecoder {
    /// One entry per call seen so far, in slot order.
    calls: Vec<CallKey>,
    model: Option<String>,
    /// An error event was emitted; a trailing `finish_reason: "error"` must
    /// not produce a second one.
    errored: bool,
}

#[derive(Debug)]
struct CallKey {
    index: Option<u64>,
    id: Option<String>,
    has_name: bool,
}

impl ChunkDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Decodes one SSE frame. Comments and `retry:` produce nothing.
    pub fn frame(&mut self, frame: &Frame) -> Vec<StreamEvent> {
        match frame {
            Frame::Event(ev) if ev.event.as_deref() == Some("error") => {
                self.errored = true;
                vec![StreamEvent::Error(error_from_data(&ev.data))]
            }
            Frame::Event(ev) => self.data(&ev.data),
            Frame::TooLong { limit } => vec![StreamEvent::Malformed(format!("a streamed chunk over {} MB was dropped", limit / (1024 * 1024)))],
            Frame::Comment(_) | Frame::Retry(_) => Vec::new(),
        }
    }

    /// Decodes the `data:` of one event.
    pub fn data(&mut self, data: &str) -> Vec<StreamEvent> {
        let data = data.trim();
        if data.is_empty() {
            return Vec::new();
        }
        if data == "[DONE]" {
            return vec![StreamEvent::Done];
        }
        let chunk: Chunk = match serde_json::from_str(data) {
            Ok(chunk) => chunk,
            Err(e) => return vec![StreamEvent::Malformed(format!("{e}: {}", excerpt(data)))],
        };
        let mut out = Vec::new();

        if let Some(err) = chunk.error.as_ref().filter(|e| !e.is_null()) {
            self.errored = true;
            out.push(StreamEvent::Error(provider_error(err)));
        } else if chunk.object.as_deref() == Some("error") {
            self.errored = true;
            let message = chunk.message.as_ref().map(value_text).unwrap_or_else(|| excerpt(data));
            let code = chunk.code.as_ref().map(value_text);
            out.push(StreamEvent::Error(ProviderError { code, message }));
        }

        if let Some(model) = chunk.model.filter(|m| !m.is_empty())
            && self.model.as_deref() != Some(model.as_str())
        {
            self.model = Some(model.clone());
            out.push(StreamEvent::Model(model));
        }

        for choice in chunk.choices.unwrap_or_default() {
            if let Some(delta) = choice.delta.or(choice.message) {
                self.delta(delta, &mut out);
            }
            match choice.finish_reason.as_deref() {
                None | Some("") => {}
                Some("error") => {
                    if !self.errored {
                        self.errored = true;
                        let message = choice.error.as_ref().map(|e| provider_error(e).message).unwrap_or_else(|| "the provider ended the answer with an error".into());
                        out.push(StreamEvent::Error(ProviderError { code: None, message }));
                    }
                }
                Some(reason) => out.push(StreamEvent::Finish(FinishReason::from_wire(reason))),
            }
        }

        let usage = chunk.usage.as_ref().and_then(Usage::from_wire).or_else(|| chunk.x_groq.as_ref().and_then(|g| g.get("usage")).and_then(Usage::from_wire));
        if let Some(usage) = usage {
            out.push(StreamEvent::Usage(usage));
        }
        out
    }

    fn delta(&mut self, delta: Delta, out: &mut Vec<StreamEvent>) {
        if let Some(r) = delta.reasoning_content.or(delta.reasoning).filter(|r| !r.is_empty()) {
            out.push(StreamEvent::Reasoning(r));
        }
        if let Some(text) = delta.content.as_ref().map(content_text).filter(|t| !t.is_empty()) {
            out.push(StreamEvent::Text(text));
        }
        for call in delta.tool_calls.unwrap_or_default() {
            out.push(StreamEvent::ToolCall(self.tool_call(call)));
        }
    }

    /// Resolves the slot of a tool-call delta. Rule: merge by `index`;
    /// without one, a new id (or a new name) starts a new call, anything
    /// else continues the last call.
    fn tool_call(&mut self, call: ToolCallChunk) -> ToolCallDelta {
        let id = call.id.filter(|s| !s.is_empty());
        let (name, arguments) = match call.function {
            Some(f) => (f.name.filter(|s| !s.is_empty()), f.arguments.map(arguments_text).unwrap_or_default()),
            None => (None, String::new()),
        };
        let slot = match call.index {
            Some(index) => self.calls.iter().position(|c| c.index == Some(index)),
            None => match &id {
                Some(id) => self.calls.iter().position(|c| c.id.as_deref() == Some(id)),
                None if name.is_some() => self.calls.last().filter(|c| !c.has_name).map(|_| self.calls.len() - 1),
                None => self.calls.len().checked_sub(1),
            },
        };
        let slot = match slot {
            Some(slot) => slot,
            None => {
                self.calls.push(CallKey { index: call.index, id: None, has_name: false });
                self.calls.len() - 1
            }
        };
        let key = &mut self.calls[slot];
        if key.id.is_none() {
            key.id = id.clone();
        }
        key.has_name |= name.is_some();
        ToolCallDelta { slot, id, name, arguments, extra: call.extra_content.filter(|v| !v.is_null()) }
    }
}

/// `content` is a string, or (some gateways) an array of `{type:"text",text}` parts.
fn content_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str).or_else(|| p.as_str())).collect(),
        _ => String::new(),
    }
}

/// Argument fragments are strings; a whole object (re-serialised by some
/// servers) is turned back into JSON text.
fn arguments_text(v: Value) -> String {
    match v {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn provider_error(err: &Value) -> ProviderError {
    match err {
        Value::Object(map) => {
            ProviderError { code: map.get("code").or_else(|| map.get("type")).filter(|c| !c.is_null()).map(value_text), message: map.get("message").map(value_text).unwrap_or_else(|| err.to_string()) }
        }
        other => ProviderError { code: None, message: value_text(other) },
    }
}

/// The data of an `event: error` frame: JSON with an `error` or `message`, or plain text.
fn error_from_data(data: &str) -> ProviderError {
    match serde_json::from_str::<Value>(data) {
        Ok(v) => match v.get("error") {
            Some(inner) => provider_error(inner),
            None => provider_error(&v),
        },
        Err(_) => ProviderError { code: None, message: data.trim().to_owned() },
    }
}

fn excerpt(s: &str) -> String {
    match s.char_indices().nth(EXCERPT) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}
