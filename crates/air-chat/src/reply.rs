//! The assistant answer being assembled from [`StreamEvent`]s.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{ProviderError, StreamEvent, ToolCallDelta};

/// A complete (or partially streamed) tool call.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The arguments as JSON text, exactly as the model wrote them.
    pub arguments: String,
    /// Provider data that must go back with the call (Gemini's signature).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extra: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
}

impl Usage {
    /// Reads the `usage` object of a chunk; `null` or a non-object is `None`.
    pub fn from_wire(v: &Value) -> Option<Self> {
        let obj = v.as_object()?;
        let n = |key: &str| obj.get(key).and_then(Value::as_u64);
        let nested = |outer: &str, key: &str| obj.get(outer).and_then(|o| o.get(key)).and_then(Value::as_u64);
        let prompt = n("prompt_tokens").unwrap_or(0);
        let completion = n("completion_tokens").unwrap_or(0);
        Some(Self {
            prompt_tokens: prompt,
            completion_tokens: completion,
            total_tokens: n("total_tokens").unwrap_or(prompt.saturating_add(completion)),
            reasoning_tokens: nested("completion_tokens_details", "reasoning_tokens").or_else(|| n("reasoning_tokens")),
            cached_tokens: nested("prompt_tokens_details", "cached_tokens").or_else(|| n("prompt_cache_hit_tokens")),
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    Stop,
    Length,
    ToolCalls,
    ContentFilter,
    Other(String),
}

impl FinishReason {
    pub fn from_wire(s: &str) -> Self {
        match s {
            "stop" | "end_turn" | "eos" => Self::Stop,
            "length" | "max_tokens" => Self::Length,
            "tool_calls" | "function_call" | "tool_use" => Self::ToolCalls,
            "content_filter" => Self::ContentFilter,
            other => Self::Other(other.to_owned()),
        }
    }
}

/// Appends `s`, growing `into` by half its size when it is full, not by
/// doubling: the buffers a long answer leaves behind as it grows add up,
/// after a few steps, to more than its next size, so the allocator can
/// reuse them (doubling leaves every one of them too small).
fn push_growing(into: &mut String, s: &str) {
    if into.len() + s.len() > into.capacity() {
        into.reserve_exact(s.len().max(into.capacity() / 2));
    }
    into.push_str(s);
}

/// Everything known so far about one streamed answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reply {
    pub model: Option<String>,
    pub content: String,
    pub reasoning: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Option<Usage>,
    pub finish: Option<FinishReason>,
    /// A provider error that ended the stream.
    pub error: Option<ProviderError>,
    /// Chunks that could not be understood (skipped).
    pub malformed: Vec<String>,
    /// `[DONE]` arrived.
    pub done: bool,
}

impl Reply {
    pub fn apply(&mut self, event: StreamEvent) {
        match event {
            StreamEvent::Model(m) => self.model = Some(m),
            StreamEvent::Text(t) => push_growing(&mut self.content, &t),
            StreamEvent::Reasoning(r) => push_growing(&mut self.reasoning, &r),
            StreamEvent::ToolCall(delta) => self.tool_call(delta),
            StreamEvent::Usage(u) => self.usage = Some(u),
            StreamEvent::Finish(f) => self.finish = Some(f),
            StreamEvent::Error(e) => self.error = Some(e),
            StreamEvent::Malformed(m) => self.malformed.push(m),
            StreamEvent::Done => self.done = true,
        }
    }

    fn tool_call(&mut self, d: ToolCallDelta) {
        if self.tool_calls.len() <= d.slot {
            self.tool_calls.resize_with(d.slot + 1, ToolCall::default);
        }
        let call = &mut self.tool_calls[d.slot];
        if let Some(id) = d.id
            && call.id.is_empty()
        {
            call.id = id;
        }
        if let Some(name) = d.name
            && call.name.is_empty()
        {
            call.name = name;
        }
        call.arguments.push_str(&d.arguments);
        if d.extra.is_some() {
            call.extra = d.extra;
        }
    }

    /// Whether the model asked for tools. Decided by the calls that arrived,
    /// not by `finish_reason` (some providers say `stop` after tool calls).
    pub fn is_tool_turn(&self) -> bool {
        !self.tool_calls.is_empty()
    }

    /// The tool calls ready to run or store: a missing id gets a stable one,
    /// empty arguments become `{}`.
    pub fn finished_tool_calls(&self) -> Vec<ToolCall> {
        self.tool_calls
            .iter()
            .enumerate()
            .map(|(i, c)| ToolCall {
                id: if c.id.is_empty() { format!("call_{i}") } else { c.id.clone() },
                name: c.name.clone(),
                arguments: if c.arguments.trim().is_empty() { "{}".into() } else { c.arguments.clone() },
                extra: c.extra.clone(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_answer_grows_by_half_not_by_doubling() {
        let mut reply = Reply::default();
        let piece = "x".repeat(100);
        let mut sizes = vec![];
        for _ in 0..20_000 {
            reply.apply(StreamEvent::Text(piece.clone()));
            if sizes.last() != Some(&reply.content.capacity()) {
                sizes.push(reply.content.capacity());
            }
        }
        assert_eq!(reply.content.len(), 2_000_000);
        // Each buffer is at most half again the one before (or the piece).
        for w in sizes.windows(2) {
            assert!(w[1] <= w[0] + (w[0] / 2).max(100), "{} after {}", w[1], w[0]);
        }
        assert!(reply.content.capacity() < 3_000_000, "{}", reply.content.capacity());
        // Yet it grows geometrically: few copies for 20,000 pieces.
        assert!(sizes.len() < 40, "{} buffers", sizes.len());
    }
}
