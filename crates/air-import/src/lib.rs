//! Conversations exported by other chat apps, made this app's
//! [`air_store::export::Export`] without IO, which `air_store::import` then
//! writes as it writes its own (never over anything, tool calls never
//! runnable).
//!
//! Every id is made from the file's own (`chatgpt-{conversation}-{node}`),
//! so importing the same file twice adds nothing the second time. A
//! [`Summary`] says what came in: messages, hidden ones left out, parts kept
//! as a line of text, conversations skipped with why, and `keys_left_out`
//! (the file held keys, which were not read).
//!
//! * [`chatgpt`]: `conversations.json` (a list, `{conversations}`, or one
//!   conversation; several split files at once, a conversation in two
//!   counted once). The tree is read from `parent` only (slim exports have
//!   no `children`; a cycle ends a walk). Nodes without a message, system
//!   prompts, weight-0 and hidden context are left out, their children
//!   hanging from the nearest message kept; `thoughts` and
//!   `reasoning_recap` become the next answer's reasoning; text per content
//!   type (`parts`, `code` as a fenced block, `execution_output`, the tool's
//!   name above its output), an image without its bytes or a browsing
//!   display as a line saying so; NULs taken out. Citation marks (`【…】`
//!   with `citations`, the private-use `\u{e200}cite…\u{e201}` with
//!   `content_references`) become Markdown links to their pages (`cite`),
//!   else their title and domain as text. An untitled conversation is titled
//!   from its first question's text. At each fork the branch leading to
//!   `current_node` is shown.
//! * [`claude`]: Claude.ai's `conversations.json` (a list, or one). Each
//!   message hangs from its `parent_message_uuid` (the all-zero uuid: none;
//!   without the field, as older exports, it follows the one before).
//!   Claude keeps no current branch: the one ending at the newest message
//!   (by time, then file order) is shown. Text comes from the content blocks
//!   (`text` holds placeholders), thinking becomes reasoning. An MCP tool's
//!   call and result (the call names its server: `integration_name`, else
//!   `mcp_server_url`) become this app's call and tool message, the card
//!   naming the server and marked imported (an answer that called tools is
//!   split where each result came; a call without a result is answered as
//!   interrupted); other tools' calls and results, attachments without their
//!   text and files without bytes become fenced or one-line text. An
//!   attachment's extracted text becomes a file of the message
//!   (`text/plain`: a chip in the chat, given to the model as a text file
//!   attached here is). ISO 8601 dates are read by hand.
//! * [`openwebui`]: Open WebUI's `chat-export-<ms>.json` (a list, or one):
//!   the `chat.history.messages` tree by `parentId`, or the legacy
//!   `chat.messages` list in order. Multi-model answers are sibling branches
//!   with their models; the branch ending at `currentId` (else the newest)
//!   is shown. Its inline `<details>` are taken apart: `reasoning` becomes
//!   reasoning (`output[]`'s when present), tool calls and code runs
//!   readable fenced text; images and files a line each; system prompts
//!   hidden. Times in s, ms, µs or ns.
//! * [`lobechat`]: LobeChat/LobeHub exports of both eras: the `state` file
//!   (v1–v8: lists or id-keyed maps, ms or ISO dates) and the database
//!   `data` tables (camelCase or snake_case columns), read into one model of
//!   sessions, topics, threads and messages. A topic is a conversation;
//!   messages without one are their session's default conversation (the
//!   inbox's named by its first message), orphans come in under a name that
//!   says so. Messages follow each other in time (LobeChat's `parentId` says
//!   what a message answers, not what it follows); threads branch from their
//!   source message. Plugin calls and results become readable text.
//!   Settings are never read, only searched for key-like values. Its date
//!   and fence helpers serve `nextchat` too.
//! * [`nextchat`]: NextChat's backup: each `chat-next-web-store` session (an
//!   object, `{state}`, or the localStorage string) is a list of messages,
//!   ids from the file or by position; mask context and `memoryPrompt`
//!   hidden; images and tool calls a line of text; locale date strings read
//!   in many locales, the user's UTC offset recovered from `lastUpdate`.
//!   `access-control` and the other settings stores are never imported,
//!   only searched for keys.
//! * [`tree`]: what every format's conversation becomes a session by: kept
//!   messages with parents, numbered parents first (siblings by time),
//!   linked, branches made by `branches::derive`, the branch ending at the
//!   format's current message shown; a cycle's messages come in as first
//!   messages.
//! * [`zip`]: the export ZIPs of ChatGPT and Claude, never held whole: the
//!   page reads the last `TAIL` bytes (`directory`; a further range when it
//!   says `NeedRange`), and `plan` (`zip/pick.rs`) picks the conversations
//!   files (`wanted`: by the last part of each name, never a path, so
//!   `../conversations.json` is read as `Export/conversations.json` is;
//!   split `conversations-NNN.json` in order, `__MACOSX` skipped), names
//!   what looks like one but is left out, and refuses the ZIP from its
//!   directory alone: more than `LIMIT` (1 GiB) unzipped in all, two entries
//!   naming the same bytes (as a hostile ZIP's can), or an entry `check`
//!   refuses. The page reads each one's `local_span` with `Blob.slice` for
//!   `extract` (stored or deflate through `miniz_oxide`, size and CRC-32
//!   checked, output capped: a ZIP bomb is refused before it is inflated).
//!   ZIP64 and data descriptors are read; encryption, split archives and
//!   other methods are refused with a sentence.
//! * [`read`]: which app a file is from, by its shape (ChatGPT, Claude, Open
//!   WebUI, LobeChat, NextChat, in that order), and its export with a
//!   `Summary` (a file of another app chosen with them is named among the
//!   skipped). `Collected` gathers each format's conversations, each once
//!   and counted once however many parts it is met in.
//! * `testing` (tests only): what the formats' tests share: every value of
//!   a sample replaced by each wrong type (`each_broken`,
//!   `converts_every_broken`: none may panic) and imports into a store in
//!   memory (`Importer`, `imported_once`).
//!
//! In the page, Data → Import takes several files at once (the parts of a
//! split export) and ZIPs (the binding's `read_exports`, in a part fetched
//! on first use), then `air_workspace::data::import_text` writes them
//! conversation by conversation (`air_store::import::import_with`), saying
//! how far it is; the summary says from which app, how many conversations
//! and messages, what was hidden, kept as text or skipped, that keys were
//! left out, and what a ZIP held that was not read.
//!
//! Host tests per format on samples with their quirks, imports twice
//! through the memory store, ZIP fixtures from Python's `zipfile` and a
//! writer in the tests, and every truncation and mutation of a ZIP (none
//! panics).

use std::collections::HashSet;

use air_store::export::{Export, ExportedSession};
use serde_json::Value;

pub mod chatgpt;
pub mod claude;
pub mod lobechat;
pub mod nextchat;
pub mod openwebui;
pub mod picked;
pub mod skipped;
pub use skipped::Skipped;
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
    pub skipped: Vec<Skipped>,
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
    pub(crate) fn add(&mut self, read: Result<ExportedSession, Skipped>, counts: Summary) {
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
pub(crate) fn convert_each(files: &[Value], now_ms: f64, list: fn(&Value) -> Option<Vec<&Value>>, read: fn(&Value, &mut Summary) -> Result<ExportedSession, Skipped>) -> (Export, Summary) {
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
            summary.skipped.push(Skipped::OtherApp { file: i + 1, app: source });
        }
    }
    Some((source, export, summary))
}
