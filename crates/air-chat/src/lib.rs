//! OpenAI-compatible chat completions, without IO.
//!
//! * [`wire`]: the request body (`ChatRequest`, `ChatMessage`) and the
//!   streamed chunk shapes as real providers send them (lenient: every field
//!   optional, `null` accepted). A message with images is sent as content
//!   parts (its text, then an `image_url` part per image whose data was
//!   read); any other as a plain string.
//! * [`decode::ChunkDecoder`]: turns SSE frames into provider-neutral
//!   [`StreamEvent`]s (Model, Text, Reasoning, ToolCall, Usage, Finish,
//!   Error, Malformed, Done), merging tool-call deltas by `index`, else by
//!   id, else by name.
//! * [`reply::Reply`]: folds events into the assistant message being built
//!   (text, reasoning, tool calls, usage, finish, error). "Tool turn" is
//!   decided by the calls that arrived, not by `finish_reason`.
//! * [`ReplyStream`]: the three above glued together for a caller that only
//!   has bytes.
//! * [`error`]: `classify_http` turns status, body and `Retry-After` into a
//!   `ChatError` with a message a person can act on (context overflow, bad
//!   key, wrong URL or model, rate limit, server error, network or CORS).
//!   `ChatError` is serialisable: answers store it, and it is worded in the
//!   language of the moment. A model without vision refusing images
//!   (llama.cpp's 500 "image input is not supported … mmproj", OpenAI's 400,
//!   DeepSeek's 422 "unknown variant `image_url`", all recorded) is
//!   `ImagesRefused`: not retried, and the message says it is kept. Retry
//!   timing is `air_http::RetryPolicy`'s.
//! * [`prompt_calls`] and [`prompt_tools`]: tool calling for models without
//!   native tool calls. `PromptCallParser` finds calls in streamed text
//!   (Hermes/Qwen `<tool_call>`, also unterminated or holding arrays;
//!   Qwen3-Coder's `<function=…><parameter=…>`; fenced JSON; bare call
//!   objects in several dialects; Llama's `<|python_tag|>` and
//!   `<function=…>`; Mistral's `[TOOL_CALLS]` and `NAME[ARGS]`;
//!   `functools[…]`), reading sloppy JSON (single quotes, trailing commas,
//!   Python literals), and holding back only what may still become a call,
//!   so prose and code stream as usual. `tools_system_prompt` describes the
//!   tools (parameters with type, required or optional, enum values,
//!   defaults, hints) and the calling format; `tool_call_text` and
//!   `tool_results_message` write calls and results back into the history.
//!   A corpus of real outputs (`tests/prompt_calls/`, with recordings of the
//!   local SmolLM2) is checked whole, split at every character, and char by
//!   char.
//!
//! Why two readers are written by hand: serde derives an adjacently tagged
//! enum's reader twice, once per order of its two keys, and every stored
//! answer is read on page load, so the derived reader of `ChatError` cost
//! the first load about 22 KB. Its reader takes the detail's fields from a
//! JSON value instead (`air_tools::Content` is read by hand for the same
//! reason).
//!
//! Architecture invariant: malformed chunks are data (`Malformed`, `Error`
//! events), never panics; nothing here reads a clock or does IO. Each
//! provider quirk has a recorded fixture in `tests/fixtures/`.

pub mod decode;
pub mod error;
pub mod prompt_calls;
pub mod prompt_tools;
pub mod reply;
pub mod wire;

pub use decode::ChunkDecoder;
pub use error::{ChatError, HttpErrorKind, Lang};
pub use prompt_calls::{PromptCall, PromptCallParser, PromptEvent};
pub use prompt_tools::PromptTool;
pub use reply::{FinishReason, Reply, ToolCall, Usage};
pub use wire::{CallReasoning, ChatMessage, ChatRequest, ImagePart, Role};

/// One provider-neutral thing that happened in a streamed answer.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// The model that answers, as the provider names it (sent once, and
    /// again if it changes).
    Model(String),
    /// A piece of the answer text.
    Text(String),
    /// A piece of the reasoning ("thinking") text.
    Reasoning(String),
    /// A piece of a tool call. `slot` is the call's position in this answer,
    /// already resolved from the provider's `index`, id or name.
    ToolCall(ToolCallDelta),
    /// Token usage; a later value replaces an earlier one.
    Usage(Usage),
    /// The provider said why the answer ended.
    Finish(FinishReason),
    /// The provider reported an error inside the stream. The answer ends.
    Error(ProviderError),
    /// A chunk that could not be understood. Reported, then skipped.
    Malformed(String),
    /// `data: [DONE]`.
    Done,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolCallDelta {
    pub slot: usize,
    pub id: Option<String>,
    pub name: Option<String>,
    pub arguments: String,
    /// Provider data that must travel back with the call on the next request
    /// (Gemini's `extra_content.google.thought_signature`).
    pub extra: Option<serde_json::Value>,
}

/// An error the provider sent inside a 200 stream.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProviderError {
    pub code: Option<String>,
    pub message: String,
}

impl std::fmt::Display for ProviderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.code {
            Some(code) => write!(f, "{} ({code})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// How many bytes [`ReplyStream::feed`] decodes at a time.
const FEED_PART: usize = 16 * 1024;

/// Bytes in, [`Reply`] out: SSE framing, chunk decoding and accumulation in
/// one value, for callers that read a body chunk by chunk.
#[derive(Debug, Default)]
pub struct ReplyStream {
    sse: air_sse::Decoder,
    chunks: ChunkDecoder,
    reply: Reply,
}

impl ReplyStream {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one piece of the body; returns how many events it produced
    /// (0 means nothing visible changed).
    /// A large piece is decoded a part at a time, so that the frames and
    /// events waiting to be applied stay few.
    pub fn feed(&mut self, bytes: &[u8]) -> usize {
        let mut n = 0;
        for part in bytes.chunks(FEED_PART) {
            let frames = self.sse.feed(part);
            n += self.apply_frames(frames);
        }
        n
    }

    /// The body ended (or was cut): flushes a last unterminated event.
    pub fn finish(&mut self) -> usize {
        let frames = self.sse.finish();
        self.apply_frames(frames)
    }

    fn apply_frames(&mut self, frames: Vec<air_sse::Frame>) -> usize {
        let mut n = 0;
        for frame in &frames {
            for event in self.chunks.frame(frame) {
                self.reply.apply(event);
                n += 1;
            }
        }
        n
    }

    pub fn reply(&self) -> &Reply {
        &self.reply
    }

    /// The answer so far, to lend its text out (for example to a record
    /// being saved) and take it back, without copying it.
    pub fn reply_mut(&mut self) -> &mut Reply {
        &mut self.reply
    }

    pub fn into_reply(self) -> Reply {
        self.reply
    }
}
