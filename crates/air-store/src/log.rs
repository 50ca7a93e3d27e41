//! The event log: the agent's key events (a turn, the tools it offered,
//! each call and what became of it, tools loaded and invalidated, the MCP
//! servers' sessions), so a person can trace why a tool was or was not
//! used. A bounded ring ([`MAX_ENTRIES`], the oldest go first) kept as one
//! document ([`LOG`]).
//!
//! Architecture invariant: no text is kept before [`redact`] has taken the
//! secrets out of it (API keys, `Bearer` tokens, `Authorization` headers,
//! values named like a key, token, password or secret, in JSON, in
//! `name=value` text and in URLs' query strings).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::doc::Doc;

/// The entries kept; past it, the oldest go.
pub const MAX_ENTRIES: usize = 1_000;

/// The characters of an entry's text kept (after redaction).
pub const MAX_TEXT: usize = 500;

/// What stands in for a secret.
pub const HIDDEN: &str = "***";

/// Where the log is kept.
pub const LOG: Doc<EventLog> = Doc::fixed("event-log");

/// How much an entry matters; ordered from the most to the least.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Error,
    Warn,
    Info,
    Debug,
}

impl Level {
    pub const ALL: [Level; 4] = [Level::Error, Level::Warn, Level::Info, Level::Debug];

    pub fn name(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warn => "warn",
            Level::Info => "info",
            Level::Debug => "debug",
        }
    }
}

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    TurnStarted,
    TurnEnded,
    /// The tools a turn offered the model (how many, which).
    ToolsOffered,
    /// A call asks the user first.
    ToolAsked,
    /// A call runs.
    ToolCalled,
    /// A call ran and gave its result.
    ToolDone,
    /// A call was not run: unknown tool, invalid arguments, a repeat.
    ToolRefused,
    /// The user or a policy said no.
    ToolDenied,
    /// A call ran and failed, or was stopped.
    ToolFailed,
    /// Dynamic loading loaded a tool into a conversation.
    ToolLoaded,
    /// A loaded tool is no longer offered, and why.
    ToolInvalidated,
    McpConnect,
    McpRetry,
    McpError,
    /// A server's tools were listed again (the counts).
    CapabilitiesSynced,
    /// Written by a later version of the app.
    #[serde(other)]
    Other,
}

impl Kind {
    /// Its name as stored (`tool_called`).
    pub fn name(self) -> String {
        serde_json::to_value(self).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
    }
}

/// One event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Milliseconds since the epoch.
    pub at: f64,
    pub level: Level,
    pub kind: Kind,
    pub text: String,
}

impl Entry {
    /// An entry whose text is redacted, then cut at [`MAX_TEXT`].
    pub fn new(at: f64, level: Level, kind: Kind, text: &str) -> Self {
        let mut text = redact(text);
        if let Some((cut, _)) = text.char_indices().nth(MAX_TEXT) {
            text.truncate(cut);
            text.push('…');
        }
        Self { at, level, kind, text }
    }
}

/// The ring, oldest first.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EventLog {
    #[serde(default)]
    pub entries: VecDeque<Entry>,
}

impl EventLog {
    /// Adds `entry` (its text redacted again: a stored log read back is
    /// taken through here too); the oldest go past [`MAX_ENTRIES`].
    pub fn push(&mut self, mut entry: Entry) {
        entry.text = redact(&entry.text);
        self.entries.push_back(entry);
        self.trim();
    }

    /// `older` (a log read back) goes before what is here.
    pub fn merge_older(&mut self, older: EventLog) {
        let newer = std::mem::take(&mut self.entries);
        for entry in older.entries.into_iter().chain(newer) {
            self.push(entry);
        }
    }

    /// The entries, newest first.
    pub fn newest_first(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().rev()
    }

    /// The log as JSON Lines, oldest first (one entry a line).
    pub fn to_jsonl(&self) -> String {
        let mut out = String::new();
        for e in &self.entries {
            if let Ok(line) = serde_json::to_string(e) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }

    fn trim(&mut self) {
        while self.entries.len() > MAX_ENTRIES {
            self.entries.pop_front();
        }
    }
}

/// `text` with its secrets replaced by [`HIDDEN`].
pub fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if !is_word(c) {
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let end = rest.find(|c: char| !is_word(c)).unwrap_or(rest.len());
        let word = &rest[..end];
        rest = &rest[end..];
        if is_api_key(word) {
            out.push_str(&word[..3]);
            out.push_str(HIDDEN);
            continue;
        }
        out.push_str(word);
        if word.eq_ignore_ascii_case("bearer") || word.eq_ignore_ascii_case("basic") {
            rest = hide_token(rest, &mut out);
        } else if let Some(name) = secret_name(word) {
            rest = hide_value(rest, &mut out, name == "authorization");
        }
    }
    out
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// `sk-…` with at least eight characters after the prefix.
fn is_api_key(word: &str) -> bool {
    word.len() >= 11 && word.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("sk-"))
}

/// The name normalised (lower case, letters and digits) if it names a
/// secret.
fn secret_name(word: &str) -> Option<String> {
    let n: String = word.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect();
    let secret = ["apikey", "token", "password", "passwd", "secret", "authorization", "accesskey", "credential", "credentials"].iter().any(|s| n.ends_with(s))
        || matches!(n.as_str(), "key" | "auth" | "pwd" | "sig" | "signature");
    secret.then_some(n)
}

/// After `Bearer`: the token that follows (spaces, then up to a space or
/// a quote) is hidden.
fn hide_token<'a>(rest: &'a str, out: &mut String) -> &'a str {
    let after = rest.trim_start_matches([' ', '\t']);
    let spaces = rest.len() - after.len();
    let end = after.find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ',' | ';' | '}' | ']' | ')' | '<' | '>' | '\\')).unwrap_or(after.len());
    if spaces == 0 || end == 0 {
        return rest;
    }
    out.push_str(&rest[..spaces]);
    out.push_str(HIDDEN);
    &after[end..]
}

/// After a secret's name: `": "value"`, `: value`, `=value` (and JSON
/// quoted within JSON, `\"value\"`). A quoted value is hidden up to its
/// closing quote; an `Authorization` header's to the end of the line;
/// any other up to a space, `&`, `#` or punctuation that ends a value.
fn hide_value<'a>(rest: &'a str, out: &mut String, header: bool) -> &'a str {
    let b = rest.as_bytes();
    let mut i = 0;
    if b.get(i) == Some(&b'\\') && matches!(b.get(i + 1), Some(b'"' | b'\'')) {
        i += 1;
    }
    if matches!(b.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    let spaces = |mut i: usize| {
        while matches!(b.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        i
    };
    i = spaces(i);
    if !matches!(b.get(i), Some(b':' | b'=')) {
        return rest;
    }
    i = spaces(i + 1);
    out.push_str(&rest[..i]);
    let value = &rest[i..];
    let escaped = value.starts_with("\\\"") || value.starts_with("\\'");
    let end = match value.chars().next() {
        _ if escaped => {
            let quote = &value[..2];
            out.push_str(quote);
            out.push_str(HIDDEN);
            return value[2..].find(quote).map_or("", |j| &value[2 + j..]);
        }
        Some(q @ ('"' | '\'')) => {
            out.push(q);
            out.push_str(HIDDEN);
            return &value[closing(value, q)..];
        }
        _ if header => value.find(['\n', '\r']).unwrap_or(value.len()),
        _ => value.find(|c: char| c.is_whitespace() || matches!(c, '&' | '#' | ',' | ';' | '}' | ']' | ')' | '"' | '\'' | '<' | '>' | '\\')).unwrap_or(value.len()),
    };
    if end > 0 {
        out.push_str(HIDDEN);
    }
    &value[end..]
}

/// Where the string opened by `q` at the start of `value` closes (escapes
/// skipped); its end if it does not.
fn closing(value: &str, q: char) -> usize {
    let mut chars = value.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            c if c == q => return i,
            _ => {}
        }
    }
    value.len()
}

#[cfg(test)]
#[path = "log_tests.rs"]
mod tests;
