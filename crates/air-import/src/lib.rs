//! Conversations exported by other chat apps, made this app's
//! [`air_store::export::Export`], which `air_store::import` then writes as
//! it writes its own (never over anything, tool calls never runnable).
//!
//! * [`chatgpt`]: ChatGPT's `conversations.json`: each conversation's
//!   message tree becomes branches, the one it showed (`current_node`)
//!   shown here.
//! * [`claude`], [`openwebui`], [`lobechat`], [`nextchat`]: the other
//!   apps' exports (keys and settings in them never read).
//! * [`tree`]: what every format's conversation becomes a session by
//!   (messages with parents → numbered, linked, branches, one shown).
//! * [`zip`]: the export ZIPs of ChatGPT and Claude, read by slices.
//! * [`read`]: which app a file is from, by its shape, and its export.
//!
//! Every id is made from the file's own (`chatgpt-…`), so importing the
//! same file twice adds nothing the second time.

use std::collections::HashSet;

use air_store::export::{Export, ExportedSession};
use serde_json::Value;

pub mod chatgpt;
pub mod claude;
pub mod lobechat;
pub mod nextchat;
pub mod openwebui;
#[cfg(test)]
mod testing;
pub mod tree;
pub mod zip;

/// What an import brought, to tell the user.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub conversations: usize,
    pub messages: usize,
    /// Hidden messages left out (system prompts, context the app kept
    /// from view).
    pub hidden: usize,
    /// Parts kept as a line of text instead (an image without its bytes,
    /// a tool's display).
    pub as_text: usize,
    /// Conversations that could not be read, with why.
    pub skipped: Vec<String>,
    /// The file held API keys or other credentials, left out.
    pub keys_left_out: bool,
}

/// The conversations of a file as they are read: each once (a
/// conversation in two parts of a split export, or in two files, comes in
/// once and is counted once), empty ones left out.
#[derive(Default)]
pub(crate) struct Collected {
    sessions: Vec<ExportedSession>,
    seen: HashSet<String>,
    pub(crate) summary: Summary,
}

impl Collected {
    /// Adds a conversation read, with what reading it counted (hidden
    /// messages, parts kept as text), or why it could not be read.
    pub(crate) fn add(&mut self, read: Result<ExportedSession, String>, counts: Summary) {
        match read {
            Ok(s) if s.messages.is_empty() || !self.seen.insert(s.session.id.clone()) => {}
            Ok(s) => {
                self.summary.conversations += 1;
                self.summary.messages += s.messages.len();
                self.summary.hidden += counts.hidden;
                self.summary.as_text += counts.as_text;
                self.sessions.push(s);
            }
            Err(why) => self.summary.skipped.push(why),
        }
    }

    pub(crate) fn done(self, now_ms: f64) -> (Export, Summary) {
        (Export::new(self.sessions, now_ms), self.summary)
    }
}

/// Every conversation `list` finds in `files`, read by `read` (which counts
/// what it leaves out) and gathered: the convert of a format whose file is
/// a list of conversations.
pub(crate) fn convert_each(files: &[Value], now_ms: f64, list: fn(&Value) -> Option<Vec<&Value>>, read: fn(&Value, &mut Summary) -> Result<ExportedSession, String>) -> (Export, Summary) {
    let mut all = Collected::default();
    for c in files.iter().filter_map(list).flatten() {
        let mut counts = Summary::default();
        let got = read(c, &mut counts);
        all.add(got, counts);
    }
    all.done(now_ms)
}

/// The app an export is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    ChatGpt,
    Claude,
    OpenWebUi,
    LobeChat,
    NextChat,
}

impl Source {
    /// Its name, as the app calls itself.
    pub fn name(self) -> &'static str {
        match self {
            Source::ChatGpt => "ChatGPT",
            Source::Claude => "Claude",
            Source::OpenWebUi => "Open WebUI",
            Source::LobeChat => "LobeChat",
            Source::NextChat => "NextChat",
        }
    }
}

/// The app `v` is from, by its shape.
fn source_of(v: &Value) -> Option<Source> {
    if chatgpt::conversations(v).is_some() {
        Some(Source::ChatGpt)
    } else if claude::detect(v) {
        Some(Source::Claude)
    } else if openwebui::detect(v) {
        Some(Source::OpenWebUi)
    } else if lobechat::detect(v) {
        Some(Source::LobeChat)
    } else if nextchat::detect(v) {
        Some(Source::NextChat)
    } else {
        None
    }
}

/// A format's conversion.
type Convert = fn(&[Value], f64) -> (Export, Summary);

/// The export of `files` (one file, or the parts of a split one, all from
/// one app), if their shape is one of the apps' this crate reads.
pub fn read(files: &[Value], now_ms: f64) -> Option<(Source, Export, Summary)> {
    let source = source_of(files.first()?)?;
    let convert: Convert = match source {
        Source::ChatGpt => chatgpt::convert,
        Source::Claude => claude::convert,
        Source::OpenWebUi => openwebui::convert,
        Source::LobeChat => lobechat::convert,
        Source::NextChat => nextchat::convert,
    };
    let (export, mut summary) = convert(files, now_ms);
    // A file of another app chosen with them is said, not passed over.
    for (i, f) in files.iter().enumerate().skip(1) {
        if source_of(f) != Some(source) {
            summary.skipped.push(format!("file {} is not from {}: import it on its own", i + 1, source.name()));
        }
    }
    Some((source, export, summary))
}
