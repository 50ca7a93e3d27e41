//! Stored records. Field names are camelCase in storage and export.

use air_chat::{ChatError, ChatMessage, FinishReason, ImagePart, Lang, Role, ToolCall, Usage};
use air_tools::Content;
use serde::{Deserialize, Serialize};

/// Why an answer ended early, stored as data so it is shown in the
/// language of the moment.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerError {
    pub error: ChatError,
    /// The built-in local model seemed not to be running: say how to start it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub local_model_down: bool,
}

impl AnswerError {
    pub fn new(error: ChatError) -> Self {
        Self { error, local_model_down: false }
    }

    pub fn message(&self, lang: Lang) -> String {
        let mut text = self.error.message(lang);
        if self.local_model_down {
            text.push_str(match lang {
                Lang::En => " The built-in local model does not seem to be running: start it with `./dev serve`, or open Settings and choose a provider.",
                Lang::Zh => " 内置本地模型似乎没有运行：请用 `./dev serve` 启动，或在设置中选择其他服务商。",
            });
        }
        text
    }
}

impl<'de> Deserialize<'de> for AnswerError {
    /// Reads the structured form, and the plain text that schema version 1
    /// stored.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Structured {
            error: ChatError,
            #[serde(default)]
            local_model_down: bool,
        }
        // (Through a JSON value rather than an untagged enum: one reader,
        // not one per way of buffering it.)
        Ok(match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(text) => Self::new(ChatError::Other { text }),
            v => {
                let s: Structured = serde_json::from_value(v).map_err(serde::de::Error::custom)?;
                Self { error: s.error, local_model_down: s.local_model_down }
            }
        })
    }
}

/// What a message is, beyond its role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MessageKind {
    /// A Transitive Thinking chain, made before the answer it precedes.
    TransitiveThought,
    /// The turn stopped because it reached the most tool rounds allowed.
    RoundLimit,
    /// Written by a newer version of the app: shown, never sent.
    #[serde(other)]
    Unknown,
}

/// Where a tool call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolStatus {
    /// Waiting for the user to allow or deny it.
    AwaitingApproval,
    Running,
    Done,
    /// It ran and failed, or its arguments were invalid, or it is unknown.
    Error,
    /// The user (or a policy) refused it.
    Denied,
    /// The user pressed Stop while it ran.
    Stopped,
    /// It came in an import before it had finished, and did not run here
    /// (nothing runs again unless the user asks, and is asked first).
    Interrupted,
}

impl ToolStatus {
    /// Whether the call has a result the model can be given.
    pub fn is_final(self) -> bool {
        !matches!(self, ToolStatus::AwaitingApproval | ToolStatus::Running)
    }
}

/// A tool call and its result, as shown on its card. Kept on the `tool`
/// message that carries the result to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolRun {
    /// The tool's name as the model called it.
    pub name: String,
    /// The MCP server it belongs to; `None` for a built-in tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The arguments as the model wrote them.
    pub arguments: String,
    pub status: ToolStatus,
    /// The whole output (the model may have been given a shortened text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output: Vec<Content>,
    /// An MCP tool's `structuredContent`, for its View (MCP Apps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<serde_json::Value>,
    /// The text given to the model was cut from this many characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_chars: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// It came from an import: running it again always asks the user,
    /// whatever the tool's policy (the file, not the user, made the call).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub imported: bool,
    /// The tool is one the user defined as an HTTP request (the card says
    /// so; `server` is `None`, as for a built-in).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub http: bool,
}

impl ToolRun {
    /// A call of `name` (of `server`, for an MCP tool) with `arguments`,
    /// at `status`, with nothing else known yet.
    pub fn new(name: impl Into<String>, server: Option<String>, arguments: impl Into<String>, status: ToolStatus) -> Self {
        Self {
            name: name.into(),
            server,
            arguments: arguments.into(),
            status,
            output: Vec::new(),
            structured: None,
            full_chars: None,
            started_at: None,
            duration_ms: None,
            imported: false,
            http: false,
        }
    }

    /// The run with `text` as its whole output.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.output = vec![Content::Text { text: text.into() }];
        self
    }
}

/// Characters of the first user message used as an automatic title.
pub const TITLE_CHARS: usize = 30;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRecord {
    pub id: String,
    pub title: String,
    /// The user renamed the session: automatic titles no longer apply.
    #[serde(default)]
    pub title_edited: bool,
    /// When the title was last set, by the user or automatically (ms since
    /// the Unix epoch), so that of two devices' titles the newer can win.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title_at: Option<f64>,
    /// Milliseconds since the Unix epoch.
    pub created_at: f64,
    pub updated_at: f64,
    /// Where the conversation went on in more than one way, and which way
    /// is shown (see [`crate::branches`]).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub forks: crate::branches::Forks,
}

impl SessionRecord {
    pub fn new(id: impl Into<String>, now_ms: f64) -> Self {
        Self { id: id.into(), title: String::new(), title_edited: false, title_at: None, created_at: now_ms, updated_at: now_ms, forks: Default::default() }
    }

    /// Sets an automatic title from the first user message, at `now_ms`,
    /// unless the user named the session or it already has a title.
    /// Returns whether it changed.
    pub fn auto_title(&mut self, first_user_text: &str, now_ms: f64) -> bool {
        if self.title_edited || !self.title.is_empty() {
            return false;
        }
        let title = title_from(first_user_text);
        let changed = title != self.title;
        if changed {
            self.title = title;
            self.title_at = Some(now_ms);
        }
        changed
    }

    /// The user names the session, at `now_ms`: automatic titles no longer
    /// apply.
    pub fn rename(&mut self, title: &str, now_ms: f64) {
        self.title = title.trim().to_owned();
        self.title_edited = true;
        self.title_at = Some(now_ms);
    }
}

/// The first [`TITLE_CHARS`] characters of the text, on one line.
pub fn title_from(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    one_line.chars().take(TITLE_CHARS).collect()
}

/// One message: a record of its own, keyed by id and ordered by `seq`
/// within its session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageRecord {
    pub id: String,
    pub session_id: String,
    /// Order within the session. Callers make it strictly increasing
    /// (e.g. `max(now_ms, last + 1)`), so two tabs interleave by time
    /// instead of overwriting each other.
    pub seq: f64,
    pub role: Role,
    #[serde(default)]
    pub content: String,
    /// Milliseconds since the Unix epoch.
    pub timestamp: f64,
    /// Special kinds, e.g. `transitive-thought`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<MessageKind>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// The model that wrote an assistant message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The answer was still streaming when it was last saved.
    #[serde(default)]
    pub incomplete: bool,
    /// Why the answer ended early (shown in the chat, never sent to the model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<AnswerError>,
    /// The user stopped the answer.
    #[serde(default)]
    pub stopped: bool,
    /// Why the provider ended the answer (e.g. `length`: the token limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish: Option<FinishReason>,
    /// Goes up by one each time the record is saved, so a view keyed on
    /// (id, rev) re-renders a changed record and leaves the rest alone.
    #[serde(default)]
    pub rev: u32,
    /// On a `tool` message: the call and its result, for the card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolRun>,
    /// Files attached to a user message (images); their bytes are
    /// [`FileRecord`]s of their own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
    /// The alternatives this message belongs to (see [`crate::branches`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub branch: Vec<crate::branches::Step>,
    /// The message this one follows on its branch (`None`: it starts the
    /// conversation). Set when the message is made and never changed: two
    /// messages with the same parent are alternatives, whichever device
    /// made them, and `branch` can be derived from these links
    /// ([`crate::branches::derive`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

/// A file attached to a message. Its bytes are stored apart, as a
/// [`FileRecord`] with the same id, so message records stay small.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachment {
    pub id: String,
    pub name: String,
    /// The media type, e.g. `image/png`.
    #[serde(rename = "type")]
    pub mime: String,
    /// In bytes.
    pub size: u64,
}

impl Attachment {
    pub fn is_image(&self) -> bool {
        self.mime.starts_with("image/")
    }
}

/// The image types the page shows a stored file as.
const SHOWN_IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp", "image/x-icon", "image/vnd.microsoft.icon"];

/// The media type a stored file is shown under (a thumbnail, an image
/// shown large or opened on its own): `mime` when it is an image type that
/// runs nothing, else `image/png`. A `blob:` URL has the app's origin, so
/// a file an import or another device typed `text/html` or
/// `image/svg+xml` would, opened on its own, run its scripts as the app;
/// as `image/png` it is at worst an image that does not show.
pub fn shown_image_type(mime: &str) -> &'static str {
    // (Compared byte by byte: no lower-case copy.)
    let bare = mime.as_bytes().split(|b| *b == b';').next().unwrap_or_default().trim_ascii();
    if bare.eq_ignore_ascii_case(b"image/jpg") {
        return "image/jpeg";
    }
    SHOWN_IMAGE_TYPES.iter().find(|t| t.as_bytes().eq_ignore_ascii_case(bare)).copied().unwrap_or("image/png")
}

/// The bytes of an attached file (in the browser, a Blob in a store of its
/// own). It belongs to a session and goes when the session does, or when
/// the last message of the session that names it is deleted (an edited
/// and resent message names the same files as the one it replaces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRecord {
    pub id: String,
    pub session_id: String,
    pub mime: String,
    pub bytes: Vec<u8>,
}

impl FileRecord {
    /// The file as a `data:` URL (what an `image_url` part carries).
    pub fn data_url(&self) -> String {
        use base64::Engine;
        let mut url = format!("data:{};base64,", self.mime);
        base64::engine::general_purpose::STANDARD.encode_string(&self.bytes, &mut url);
        url
    }
}

impl MessageRecord {
    /// This record with `parts`, one after another, as its text (what a
    /// store that cannot keep a text in pieces saves).
    pub fn with_text(&self, parts: &[&str]) -> Self {
        Self { content: parts.concat(), ..self.clone() }
    }

    pub fn new(id: impl Into<String>, session_id: impl Into<String>, seq: f64, role: Role, content: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            session_id: session_id.into(),
            seq,
            role,
            content: content.into(),
            timestamp: seq,
            kind: None,
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
            reasoning: None,
            usage: None,
            model: None,
            incomplete: false,
            error: None,
            stopped: false,
            finish: None,
            rev: 0,
            tool: None,
            attachments: Vec::new(),
            branch: Vec::new(),
            parent: None,
        }
    }

    pub fn is_thought(&self) -> bool {
        self.kind == Some(MessageKind::TransitiveThought)
    }

    /// The message as the model should see it in the history, or `None` if
    /// it is not part of the conversation (failed answers with no text,
    /// transitive thoughts, system notes).
    pub fn to_chat(&self) -> Option<ChatMessage> {
        if self.kind.is_some() || self.role == Role::System {
            return None;
        }
        if self.role == Role::Assistant && self.content.is_empty() && self.tool_calls.is_empty() {
            return None;
        }
        if self.role == Role::Tool && self.tool.as_ref().is_some_and(|t| !t.status.is_final()) {
            // No result yet (waiting for approval, or interrupted): the
            // request builder answers the call instead.
            return None;
        }
        Some(ChatMessage {
            role: self.role,
            content: if self.content.is_empty() && !self.tool_calls.is_empty() { None } else { Some(self.content.clone()) },
            // A tool's files are told of in its text (a tool message carries no image).
            images: self.attachments.iter().filter(|a| a.is_image() && self.role != Role::Tool).map(|a| ImagePart { id: a.id.clone(), url: None }).collect(),
            tool_calls: self.tool_calls.iter().map(Into::into).collect(),
            tool_call_id: self.tool_call_id.clone(),
            name: self.name.clone(),
        })
    }
}

/// The next `seq` after `last`: the current time, or just after `last` if
/// the clock has not moved on (or went back).
pub fn next_seq(last: Option<f64>, now_ms: f64) -> f64 {
    match last {
        Some(last) if last >= now_ms => last + 1.0,
        _ => now_ms,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_stored_file_is_shown_as_an_image_whatever_its_type_says() {
        use super::shown_image_type;
        for (given, shown) in [("image/png", "image/png"), ("IMAGE/JPEG", "image/jpeg"), ("image/jpg", "image/jpeg"), ("image/webp; q=1", "image/webp"), ("image/gif", "image/gif")] {
            assert_eq!(shown_image_type(given), shown, "{given}");
        }
        for script in ["text/html", "image/svg+xml", "application/xhtml+xml", "text/xml", "", "image/png,text/html", "text/html; image/png"] {
            assert_eq!(shown_image_type(script), "image/png", "{script}");
        }
    }

    use super::*;

    #[test]
    fn auto_title_takes_30_chars_on_one_line() {
        let mut s = SessionRecord::new("s", 0.0);
        assert!(s.auto_title("  What is   the\nweather like in Paris today, and tomorrow?", 7.0));
        assert_eq!(s.title, "What is the weather like in Pa");
        assert_eq!(s.title_at, Some(7.0), "when it was set");
        assert_eq!(s.title.chars().count(), TITLE_CHARS);
        // Only the first message titles the session.
        assert!(!s.auto_title("something else", 8.0));
        assert_eq!(s.title_at, Some(7.0), "unchanged");
        let mut cjk = SessionRecord::new("c", 0.0);
        cjk.auto_title(&"你好".repeat(40), 0.0);
        assert_eq!(cjk.title.chars().count(), 30);
    }

    #[test]
    fn renamed_sessions_keep_their_title() {
        let mut s = SessionRecord::new("s", 0.0);
        s.rename("  Trip plans ", 9.0);
        assert!(!s.auto_title("hello", 10.0));
        assert_eq!((s.title.as_str(), s.title_at), ("Trip plans", Some(9.0)));
    }

    #[test]
    fn seq_is_strictly_increasing() {
        assert_eq!(next_seq(None, 100.0), 100.0);
        assert_eq!(next_seq(Some(50.0), 100.0), 100.0);
        assert_eq!(next_seq(Some(100.0), 100.0), 101.0);
        assert_eq!(next_seq(Some(200.0), 100.0), 201.0);
    }

    #[test]
    fn failed_and_special_messages_are_not_sent_to_the_model() {
        let mut failed = MessageRecord::new("a", "s", 1.0, Role::Assistant, "");
        failed.error = Some(AnswerError::new(ChatError::Other { text: "HTTP 500".into() }));
        assert_eq!(failed.to_chat(), None);
        let mut thought = MessageRecord::new("t", "s", 2.0, Role::Assistant, "chain");
        thought.kind = Some(MessageKind::TransitiveThought);
        assert_eq!(thought.to_chat(), None);
        let user = MessageRecord::new("u", "s", 3.0, Role::User, "hi");
        assert_eq!(user.to_chat(), Some(ChatMessage::text(Role::User, "hi")));
    }

    #[test]
    fn gemini_thought_signature_travels_from_storage_back_to_the_wire() {
        let mut m = MessageRecord::new("a", "s", 1.0, Role::Assistant, "");
        m.tool_calls = vec![ToolCall { id: "call_0".into(), name: "get_weather".into(), arguments: "{}".into(), extra: Some(serde_json::json!({"google": {"thought_signature": "c2ln"}})) }];
        // Through storage (JSON) and back into a request message.
        let stored: MessageRecord = serde_json::from_str(&serde_json::to_string(&m).unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"));
        let wire = serde_json::to_value(stored.to_chat()).unwrap_or_default();
        assert_eq!(wire["tool_calls"][0]["extra_content"]["google"]["thought_signature"], "c2ln");
        assert_eq!(wire["content"], serde_json::Value::Null, "a tool-only turn sends content null");
    }

    #[test]
    fn errors_written_by_version_1_are_read_as_text() {
        let v1 = r#"{"id":"a","sessionId":"s","seq":1,"role":"assistant","timestamp":1,"content":"x","error":"HTTP 500: boom","type":"transitive-thought"}"#;
        let m: MessageRecord = serde_json::from_str(v1).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.error.as_ref().map(|e| e.message(Lang::Zh)), Some("HTTP 500: boom".to_owned()));
        assert_eq!(m.kind, Some(MessageKind::TransitiveThought));
        let later = r#"{"id":"a","sessionId":"s","seq":1,"role":"assistant","timestamp":1,"type":"something-new"}"#;
        let m: MessageRecord = serde_json::from_str(later).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.kind, Some(MessageKind::Unknown));
        assert_eq!(m.to_chat(), None, "unknown kinds are never sent");
        // The structured form, in both languages, with the local hint.
        let mut e = AnswerError::new(ChatError::Interrupted { detail: None });
        e.local_model_down = true;
        let back: AnswerError = serde_json::from_str(&serde_json::to_string(&e).unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, e);
        assert!(back.message(Lang::En).ends_with("choose a provider."));
        assert!(back.message(Lang::Zh).starts_with("回答完成前连接中断"));
    }

    #[test]
    fn records_survive_json_and_tolerate_missing_fields() {
        let mut m = MessageRecord::new("m", "s", 5.0, Role::Assistant, "x");
        m.usage = Some(Usage { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, ..Usage::default() });
        m.incomplete = true;
        let json = serde_json::to_string(&m).unwrap_or_default();
        assert!(json.contains("\"sessionId\":\"s\""), "{json}");
        assert!(!json.contains("parent"), "no parent, no field: {json}");
        assert_eq!(serde_json::from_str::<MessageRecord>(&json).ok(), Some(m.clone()));
        m.parent = Some("q".into());
        let json = serde_json::to_string(&m).unwrap_or_default();
        assert!(json.contains("\"parent\":\"q\""), "{json}");
        assert_eq!(serde_json::from_str::<MessageRecord>(&json).ok(), Some(m));
        // An older record without the newer fields still reads.
        let old = r#"{"id":"o","sessionId":"s","seq":1,"role":"user","timestamp":1}"#;
        let parsed: MessageRecord = serde_json::from_str(old).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((parsed.content.as_str(), parsed.incomplete), ("", false));
    }
}
