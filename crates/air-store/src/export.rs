//! Export and import of conversations as one JSON document.
//!
//! The format is the stored records themselves, so a round trip is
//! lossless. Settings travel only when asked for, and the API key only when
//! the user explicitly includes secrets.

use serde::{Deserialize, Serialize};

use crate::{MessageRecord, Result, SessionRecord, Settings, Store};

pub const FORMAT: &str = "air-agent-export";
/// 2: sessions carry their attached files. Version 1 exports (no files)
/// are read as they are.
pub const VERSION: u32 = 2;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedSession {
    #[serde(flatten)]
    pub session: SessionRecord,
    pub messages: Vec<MessageRecord>,
    /// The files its messages name, every byte (base64 in the JSON).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<ExportedFile>,
}

/// An attached file in an export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportedFile {
    pub id: String,
    #[serde(rename = "type")]
    pub mime: String,
    #[serde(with = "base64_bytes")]
    pub data: Vec<u8>,
}

mod base64_bytes {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        STANDARD.decode(text.trim()).map_err(|e| serde::de::Error::custom(format!("a file is not base64 ({e})")))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Export {
    pub format: String,
    pub version: u32,
    /// Milliseconds since the Unix epoch.
    pub exported_at: f64,
    pub sessions: Vec<ExportedSession>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Settings>,
    /// The saved HTTP tools (with the settings; their secret headers'
    /// values only when the user includes secrets).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub http_tools: Vec<crate::http_tools::SavedHttpTool>,
}

impl Export {
    pub fn new(sessions: Vec<ExportedSession>, exported_at: f64) -> Self {
        Self { format: FORMAT.into(), version: VERSION, exported_at, sessions, settings: None, http_tools: Vec::new() }
    }

    /// Adds settings; the API key is left out unless `include_secrets`.
    pub fn with_settings(mut self, settings: &Settings, include_secrets: bool) -> Self {
        let mut s = settings.clone();
        if !include_secrets {
            s.api_key.clear();
            for p in &mut s.profiles {
                p.api_key.clear();
            }
        }
        self.settings = Some(s);
        self
    }

    /// Adds the HTTP tools; secret header values are emptied unless
    /// `include_secrets`.
    pub fn with_http_tools(mut self, tools: &[crate::http_tools::SavedHttpTool], include_secrets: bool) -> Self {
        self.http_tools = if include_secrets { tools.to_vec() } else { crate::http_tools::without_secrets(tools) };
        self
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads an export, with a message a person can act on when it is not one.
    pub fn parse(json: &str) -> Result<Self, NotAnExport> {
        let value: serde_json::Value = serde_json::from_str(json).map_err(|e| NotAnExport::NotJson(e.to_string()))?;
        if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(NotAnExport::OtherFormat);
        }
        let version = value.get("version").and_then(|v| v.as_u64()).unwrap_or(0);
        if version > u64::from(VERSION) {
            return Err(NotAnExport::Newer(version));
        }
        let export: Export = serde_json::from_value(value).map_err(|e| NotAnExport::Damaged(e.to_string()))?;
        for s in &export.sessions {
            if let Some(m) = s.messages.iter().find(|m| m.session_id != s.session.id) {
                return Err(NotAnExport::Damaged(format!("message {} is filed under session {} but belongs to {}", m.id, s.session.id, m.session_id)));
            }
        }
        Ok(export)
    }
}

/// Why a text is not an export this version reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotAnExport {
    #[error("not JSON ({0})")]
    NotJson(String),
    #[error("not an Air Agent export (no \"format\": \"air-agent-export\")")]
    OtherFormat,
    #[error("made by a newer version (format {0}); update the app to import it")]
    Newer(u64),
    #[error("damaged export: {0}")]
    Damaged(String),
}

/// Reads sessions (all, or the one with `only`) with their messages.
pub async fn collect<S: Store>(store: &S, only: Option<&str>) -> Result<Vec<ExportedSession>> {
    let mut out = Vec::new();
    for session in store.list_sessions().await? {
        if only.is_some_and(|id| id != session.id) {
            continue;
        }
        let messages = store.messages(&session.id).await?;
        let mut files = Vec::new();
        let mut seen = std::collections::HashSet::new();
        // Once each, though two messages may name it (edit and resend).
        for a in messages.iter().flat_map(|m| &m.attachments).filter(|a| seen.insert(a.id.as_str())) {
            // A file that is gone is left out; its message still names it.
            if let Some(f) = store.get_file(&a.id).await? {
                files.push(ExportedFile { id: f.id, mime: f.mime, data: f.bytes });
            }
        }
        out.push(ExportedSession { session, messages, files });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::import;
    use crate::{FileRecord, MemoryStore};
    use air_chat::{Role, ToolCall, Usage};

    async fn sample(store: &MemoryStore) {
        let mut s = SessionRecord::new("s1", 1.0);
        s.rename("Export me", 1.0);
        store.put_session(&s).await.ok();
        store.put_session(&SessionRecord::new("s2", 2.0)).await.ok();
        let mut a = MessageRecord::new("m2", "s1", 2.0, Role::Assistant, "answer ✓ <b>");
        a.tool_calls = vec![ToolCall { id: "c".into(), name: "calc".into(), arguments: "{}".into(), extra: Some(serde_json::json!({"google": {"thought_signature": "x"}})) }];
        a.usage = Some(Usage { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, ..Usage::default() });
        a.reasoning = Some("why".into());
        a.incomplete = true;
        a.parent = Some("m1".into());
        let mut q = MessageRecord::new("m1", "s1", 1.0, Role::User, "question");
        q.attachments = vec![crate::Attachment { id: "f1".into(), name: "cat.png".into(), mime: "image/png".into(), size: 256 }];
        store.put_file(&FileRecord { id: "f1".into(), session_id: "s1".into(), mime: "image/png".into(), bytes: (0..=255u8).collect() }).await.ok();
        // Its result (a call with none would come in as interrupted).
        let mut r = MessageRecord::new("m2b", "s1", 2.5, Role::Tool, "4");
        r.tool_call_id = Some("c".into());
        r.parent = Some("m2".into());
        store.put_message(&q).await.ok();
        store.put_message(&a).await.ok();
        store.put_message(&r).await.ok();
        store.put_message(&MessageRecord::new("m3", "s2", 1.0, Role::User, "other")).await.ok();
    }

    #[test]
    fn export_delete_import_is_lossless() {
        pollster::block_on(async {
            let store = MemoryStore::new();
            sample(&store).await;
            let before = collect(&store, None).await.unwrap_or_default();
            let json = Export::new(before.clone(), 5.0).to_json();
            for s in &before {
                store.delete_session(&s.session.id).await.ok();
            }
            assert!(store.list_sessions().await.unwrap_or_default().is_empty());
            let parsed = Export::parse(&json).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(import(&store, &parsed, &mut || "unused".into()).await, Ok((2, 4)));
            assert_eq!(collect(&store, None).await.unwrap_or_default(), before);
            assert_eq!(store.get_file("f1").await.ok().flatten().map(|f| f.bytes), Some((0..=255u8).collect()), "every byte of the file");
            // Importing again changes nothing.
            assert_eq!(import(&store, &parsed, &mut || "unused".into()).await, Ok((0, 0)));
            assert_eq!(collect(&store, None).await.unwrap_or_default(), before);
        });
    }

    #[test]
    fn one_session_and_secrets_left_out_by_default() {
        pollster::block_on(async {
            let store = MemoryStore::new();
            sample(&store).await;
            let one = collect(&store, Some("s1")).await.unwrap_or_default();
            assert_eq!(one.len(), 1);
            let mut settings = Settings { api_key: "sk-secret".into(), ..Settings::default() };
            settings.profiles.push(crate::settings::Profile { id: "p".into(), api_key: "sk-profile".into(), ..Default::default() });
            let json = Export::new(one.clone(), 1.0).with_settings(&settings, false).to_json();
            assert!(!json.contains("sk-secret") && !json.contains("sk-profile"));
            let json = Export::new(one, 1.0).with_settings(&settings, true).to_json();
            assert!(json.contains("sk-secret") && json.contains("sk-profile"));
            // The HTTP tools' secret headers likewise; the rest of them travels.
            let tools = [crate::http_tools::tests::weather()];
            let json = Export::new(vec![], 1.0).with_http_tools(&tools, false).to_json();
            assert!(!json.contains("k-secret") && json.contains("X-Api-Key") && json.contains("api.example.com/weather"), "{json}");
            let back = Export::parse(&json).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(back.http_tools.len(), 1);
            assert!(Export::new(vec![], 1.0).with_http_tools(&tools, true).to_json().contains("k-secret"));
        });
    }

    #[test]
    fn bad_files_get_clear_messages() {
        assert!(Export::parse("nope").unwrap_err().to_string().starts_with("not JSON"));
        assert!(Export::parse("{}").unwrap_err().to_string().contains("not an Air Agent export"));
        assert!(Export::parse(r#"{"format":"air-agent-export","version":99,"exportedAt":0,"sessions":[]}"#).unwrap_err().to_string().contains("newer version"));
        let wrong_owner = r#"{"format":"air-agent-export","version":1,"exportedAt":0,"sessions":[{"id":"a","title":"","createdAt":0,"updatedAt":0,"messages":[{"id":"m","sessionId":"b","seq":1,"role":"user","timestamp":1}]}]}"#;
        assert!(Export::parse(wrong_owner).unwrap_err().to_string().contains("belongs to b"));
        let bad_file = r#"{"format":"air-agent-export","version":2,"exportedAt":0,"sessions":[{"id":"a","title":"","createdAt":0,"updatedAt":0,"messages":[],"files":[{"id":"f","type":"image/png","data":"%%%"}]}]}"#;
        assert!(Export::parse(bad_file).unwrap_err().to_string().contains("not base64"));
    }

    #[test]
    fn an_export_of_version_1_still_imports() {
        pollster::block_on(async {
            let old = r#"{"format":"air-agent-export","version":1,"exportedAt":0,"sessions":[{"id":"a","title":"Old","createdAt":0,"updatedAt":0,"messages":[{"id":"m","sessionId":"a","seq":1,"role":"user","content":"hello","timestamp":1}]}]}"#;
            let parsed = Export::parse(old).unwrap_or_else(|e| panic!("{e}"));
            let store = MemoryStore::new();
            assert_eq!(import(&store, &parsed, &mut || "unused".into()).await, Ok((1, 1)));
            assert_eq!(store.get_message("m").await.ok().flatten().map(|m| m.content), Some("hello".into()));
        });
    }
}

/// One conversation as Markdown, readable in any editor: its title, then
/// each message under who wrote it, and each tool call summarised in a
/// quote (the tool, its server, how it ended, its arguments and the start
/// of its result). Reasoning and Transitive Thinking chains are left out.
pub fn markdown(s: &ExportedSession) -> String {
    use crate::records::{MessageKind, ToolStatus};
    use air_chat::Role;
    let clip = |text: &str, max: usize| {
        let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if one.chars().count() > max { format!("{}…", one.chars().take(max).collect::<String>()) } else { one }
    };
    let title = if s.session.title.trim().is_empty() { "Conversation" } else { s.session.title.trim() };
    let mut out = format!("# {title}\n");
    // The branch shown (alternatives stay in the JSON export).
    for m in s.messages.iter().filter(|m| crate::branches::is_shown(m, &s.session.forks)) {
        if m.kind == Some(MessageKind::TransitiveThought) {
            continue;
        }
        if m.kind == Some(MessageKind::RoundLimit) {
            out.push_str(&format!("\n*{}*\n", m.content.trim()));
            continue;
        }
        match m.role {
            Role::User => {
                out.push_str(&format!("\n## You\n\n{}\n", m.content.trim()));
                for a in &m.attachments {
                    out.push_str(&format!("\n*[{}: {}, {}]*\n", if a.is_image() { "image" } else { "file" }, a.name, size_text(a.size)));
                }
            }
            Role::Assistant => {
                let who = m.model.as_deref().map_or_else(|| "Assistant".to_owned(), |model| format!("Assistant ({model})"));
                if !m.content.trim().is_empty() || m.error.is_some() {
                    out.push_str(&format!("\n## {who}\n\n"));
                    if !m.content.trim().is_empty() {
                        out.push_str(m.content.trim());
                        out.push('\n');
                    }
                }
                if let Some(e) = &m.error {
                    out.push_str(&format!("\n> ⚠ {}\n", clip(&e.message(air_chat::Lang::En), 300)));
                }
            }
            Role::Tool => {
                let Some(run) = &m.tool else { continue };
                let status = match run.status {
                    ToolStatus::Done => "done",
                    ToolStatus::Error => "error",
                    ToolStatus::Denied => "denied",
                    ToolStatus::Stopped => "stopped",
                    ToolStatus::Interrupted => "interrupted",
                    ToolStatus::Running | ToolStatus::AwaitingApproval => "unfinished",
                };
                let server = run.server.as_deref().map(|s| format!(" ({s})")).unwrap_or_default();
                out.push_str(&format!("\n> **Tool** `{}`{server}: {status}\n", run.name));
                out.push_str(&format!(">\n> Arguments: `{}`\n", clip(&run.arguments, 200).replace('`', "'")));
                if !m.content.trim().is_empty() {
                    out.push_str(&format!(">\n> Result: {}\n", clip(&m.content, 300)));
                }
            }
            Role::System => {}
        }
    }
    out
}

#[cfg(test)]
mod markdown_tests {
    use super::*;
    use crate::records::{MessageKind, ToolRun, ToolStatus};
    use air_chat::{Role, ToolCall};

    #[test]
    fn a_conversation_reads_as_markdown_with_tool_calls_summarised() {
        let mut session = SessionRecord::new("s1", 0.0);
        session.title = "Sums".into();
        let mut user = MessageRecord::new("u", "s1", 1.0, Role::User, "What is 23 * 17?");
        user.attachments = vec![crate::Attachment { id: "f".into(), name: "sum.jpg".into(), mime: "image/jpeg".into(), size: 48_213 }];
        let mut thought = MessageRecord::new("t", "s1", 1.5, Role::Assistant, "thinking aloud");
        thought.kind = Some(MessageKind::TransitiveThought);
        let mut call = MessageRecord::new("a", "s1", 2.0, Role::Assistant, "");
        call.model = Some("m1".into());
        call.tool_calls = vec![ToolCall { id: "c1".into(), name: "calculator".into(), arguments: r#"{"expression": "23*17"}"#.into(), extra: None }];
        let mut tool = MessageRecord::new("r", "s1", 3.0, Role::Tool, "391");
        tool.tool_call_id = Some("c1".into());
        tool.tool = Some(ToolRun::new("calculator", None, r#"{"expression": "23*17"}"#, ToolStatus::Done));
        let mut mcp = tool.clone();
        mcp.content = "x".repeat(400);
        mcp.tool = mcp.tool.map(|t| ToolRun { name: "mcp_files_read".into(), server: Some("files".into()), status: ToolStatus::Error, ..t });
        let mut answer = MessageRecord::new("b", "s1", 4.0, Role::Assistant, "23 × 17 = **391**.");
        answer.model = Some("m1".into());
        answer.reasoning = Some("hidden".into());
        let md = markdown(&ExportedSession { session, messages: vec![user, thought, call, tool, mcp, answer], files: Vec::new() });
        let expected_start = "# Sums\n\n## You\n\nWhat is 23 * 17?\n\n*[image: sum.jpg, 48.2 KB]*\n\n> **Tool** `calculator`: done\n>\n> Arguments: `{\"expression\": \"23*17\"}`\n>\n> Result: 391\n\n> **Tool** `mcp_files_read` (files): error\n";
        assert!(md.starts_with(expected_start), "{md}");
        assert!(md.contains(&format!("> Result: {}…\n", "x".repeat(300))), "long results are cut");
        assert!(md.ends_with("\n## Assistant (m1)\n\n23 × 17 = **391**.\n"), "{md}");
        assert!(!md.contains("thinking aloud") && !md.contains("hidden"), "chains and reasoning stay out");
    }
}

/// A size in bytes as a person reads it (`512 B`, `12.3 KB`, `4.0 MB`).
pub fn size_text(bytes: u64) -> String {
    match bytes {
        b if b < 1000 => format!("{b} B"),
        b if b < 1_000_000 => format!("{:.1} KB", b as f64 / 1000.0),
        b => format!("{:.1} MB", b as f64 / 1_000_000.0),
    }
}
