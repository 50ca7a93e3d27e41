//! What a turn needs from outside, and what it tells the outside.

use crate::conversation::TemplateVars;
use air_http::HttpClient;
use air_store::sync::SyncEvent;
use air_store::{MessageRecord, SessionRecord, Store, StoreError};
use air_tools::{ElicitAnswer, Elicitation, Progress, ToolDef};

/// A user's answer to "may this tool run?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    /// Run it this time.
    Once,
    /// Run it, and from now on without asking (the environment remembers).
    Always,
    Deny,
}

/// What the answer being streamed waits for.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// A rate limit or server error; the request is sent again after `wait_ms`.
    Retrying { message: String, wait_ms: u64, attempt: u32, max: u32 },
}

/// What happened, for the UI. Records in events are as stored.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A session was created by this turn (its first message).
    SessionCreated(SessionRecord),
    /// A session's record was saved (title, last activity).
    SessionSaved(SessionRecord),
    /// A message was saved: new, finished, or changed (see its `rev`).
    MessageSaved(MessageRecord),
    /// Messages were deleted (regenerate, edit and resend).
    MessagesRemoved { session_id: String, ids: Vec<String> },
    /// An answer (or a thinking chain) started streaming into `message_id`,
    /// after the text it already had.
    StreamStarted { session_id: String, message_id: String, model: String, thought: bool, text: String, reasoning: String },
    /// More of the streaming answer arrived.
    StreamDelta { text: String, reasoning: String },
    /// The provider named the model that answers.
    StreamModel(String),
    /// What the stream waits for, or `None` once it flows again.
    StreamStatus(Option<Status>),
    /// The streaming answer ended; its final record follows as `MessageSaved`
    /// (until then the live view may keep what it shows, not the text).
    StreamEnded { session_id: String, message_id: String },
    /// A running call reported how far it has come (not stored).
    ToolProgress { session_id: String, message_id: String, progress: Progress },
    /// Tell other tabs (a heartbeat too, while streaming).
    Broadcast(SyncEvent),
    /// Auto found out how this provider and model take tools: remember it
    /// under `key` ([`air_store::Settings::tool_calling_key`]).
    ToolCallingLearnt { key: String, calling: air_store::settings::ToolCalling },
    /// A request with images was answered (`true`) or the images refused
    /// (`false`): remember it under `key`.
    VisionLearnt { key: String, vision: bool },
    /// A write failed; the turn goes on where it can.
    StoreFailed { what: &'static str, error: StoreError },
}

/// The world a turn runs in. The browser provides `fetch`, IndexedDB,
/// `Date.now`, `crypto.randomUUID` and timers; tests provide fakes.
#[allow(async_fn_in_trait)]
pub trait Env {
    type Http: HttpClient;
    type Store: Store;

    fn http(&self) -> &Self::Http;
    fn store(&self) -> &Self::Store;
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> f64;
    fn new_id(&self) -> String;
    async fn sleep(&self, ms: u64);
    fn template_vars(&self) -> TemplateVars;
    fn emit(&self, event: Event);

    /// Whether a stored message belongs in the request. The browser leaves
    /// out answers another tab is still streaming.
    fn in_history(&self, _message: &MessageRecord) -> bool {
        true
    }

    /// Whether the session is being deleted (its activity is not touched).
    fn is_deleted(&self, _session_id: &str) -> bool {
        false
    }

    /// Asks the user whether the call in `record` may run. The record is
    /// saved (and shown) as awaiting approval before this is called.
    async fn approve(&self, _record: &MessageRecord, _tool: &ToolDef) -> Approval {
        Approval::Once
    }

    /// The answer to [`Env::approve`] was [`Approval::Always`]: remember it.
    fn always_allow(&self, _tool: &ToolDef) {}

    /// A running call (`record`, still `Running`) asks the user a question
    /// (MCP elicitation). Nobody to ask: declined.
    async fn elicit(&self, _record: &MessageRecord, _tool: &ToolDef, _request: Elicitation) -> ElicitAnswer {
        ElicitAnswer::Decline
    }
}
