//! LobeChat's (LobeHub's) export: the older file `{exportType, state:
//! {sessions, topics, messages, settings?}, version}` (versions 1 to 8:
//! lists or maps keyed by id, version 1's sessions holding their own
//! `chats` and `topics`, times in milliseconds or ISO 8601), and the
//! database-era export `{data: {table: rows}, mode, schemaHash}` (the same
//! records, columns in camelCase or snake_case, plugins in their own table).
//!
//! A conversation is a topic; messages without one make their session's
//! default conversation (one per session, named for it; the inbox's, which
//! every user has, also by its first message). LobeChat showed a
//! topic as one list in time order (`parentId` says what a message
//! answers, not what it follows), so each message follows the one before;
//! a thread (the database's branch from a message) follows the message it
//! was started from, a branch here, with the main list shown. Messages
//! whose topic or session is not in the file come all the same, in a
//! conversation named for their session (else "Orphan messages"). Plugin
//! calls and results become readable text, never calls that can run;
//! system messages are left out (counted hidden). Settings are never read,
//! only searched for keys (`keyVaults`, `apiKey`…) to say they stayed out.

use std::collections::{BTreeMap, HashMap, HashSet};

use air_chat::Role;
use air_store::export::{Export, ExportedSession};
use serde_json::Value;

use crate::Summary;
use crate::skipped::Skipped;
use crate::tree::{self, Conversation, Kept};

/// The session LobeChat's messages belong to when they name none.
const INBOX: &str = "inbox";
/// The name of a session's conversation of messages without a topic.
const DEFAULT_TOPIC: &str = "Default topic";

/// Whether `v` is a LobeChat export (either era), by its shape.
pub fn detect(v: &Value) -> bool {
    let has = |o: Option<&Value>, keys: &[&str]| o.is_some_and(|o| o.is_object() && keys.iter().any(|k| o.get(k).is_some()));
    let state = has(v.get("state"), &["sessions", "topics", "messages", "settings"]) && (v.get("exportType").is_some_and(Value::is_string) || v.get("version").is_some_and(Value::is_number));
    let database = has(v.get("data"), &["messages", "sessions", "topics"]) && (matches!(v.get("mode").and_then(Value::as_str), Some("pglite" | "postgres")) || v.get("schemaHash").is_some());
    state || database
}

/// Every conversation of `files` (one file, or the parts of a split one).
pub fn convert(files: &[Value], now_ms: f64) -> (Export, Summary) {
    let mut summary = Summary::default();
    let mut sessions = Vec::new();
    let mut seen = HashSet::new();
    for v in files {
        let mut book = Book::default();
        match (v.get("state").filter(|s| s.is_object()), v.get("data").filter(|d| d.is_object())) {
            (Some(state), _) => book.read_state(state, &mut summary),
            (None, Some(data)) => book.read_database(data, &mut summary),
            _ => {
                summary.skipped.push(Skipped::NotAnExport(crate::Source::LobeChat));
                continue;
            }
        }
        summary.keys_left_out |= book.keys;
        for (id, group) in book.groups() {
            let s = conversation(&id, &group, &book, &mut summary);
            if s.messages.is_empty() || !seen.insert(s.session.id.clone()) {
                continue;
            }
            summary.conversations += 1;
            summary.messages += s.messages.len();
            sessions.push(s);
        }
    }
    (Export::new(sessions, now_ms), summary)
}

/// What a file holds, read from either shape.
#[derive(Default)]
struct Book<'a> {
    /// Session id → its title ("" when it has none).
    sessions: HashMap<String, String>,
    /// Topic id → its title and when it began.
    topics: HashMap<String, (String, Option<f64>)>,
    /// Thread id → the message it was started from.
    threads: HashMap<String, String>,
    /// Message id → how many files the database says it had.
    files: HashMap<String, usize>,
    messages: Vec<Msg<'a>>,
    /// Settings held something key-like.
    keys: bool,
}

/// A message, its links read from either shape.
struct Msg<'a> {
    id: String,
    session: Option<String>,
    topic: Option<String>,
    thread: Option<String>,
    parent: Option<String>,
    at: Option<f64>,
    v: &'a Value,
    plugin: Option<&'a Value>,
}

/// A conversation's messages (places in [`Book::messages`]).
struct Group {
    title: String,
    created: Option<f64>,
    messages: Vec<usize>,
}

impl<'a> Book<'a> {
    fn read_state(&mut self, state: &'a Value, summary: &mut Summary) {
        for (key, s) in rows(state.get("sessions"), "sessions", summary) {
            let id = id_of(s.get("id")).or_else(|| key.map(tree::clean));
            let title = s.pointer("/meta/title").and_then(Value::as_str).or_else(|| s.get("title").and_then(Value::as_str)).unwrap_or_default();
            self.sessions.extend(id.clone().map(|id| (id, tree::clean(title).trim().to_owned())));
            // Version 1 kept each session's topics and messages in it.
            for (key, t) in rows(s.get("topics"), "topics", summary) {
                self.topic(key, t);
            }
            for (key, m) in rows(s.get("chats"), "messages", summary) {
                self.message(key, m, id.as_deref());
            }
        }
        for (key, t) in rows(state.get("topics"), "topics", summary) {
            self.topic(key, t);
        }
        for (key, m) in rows(state.get("messages"), "messages", summary) {
            self.message(key, m, None);
        }
        self.keys |= state.get("settings").is_some_and(holds_keys);
    }

    fn read_database(&mut self, data: &'a Value, summary: &mut Summary) {
        let table = |name: &str| data.get(name).or_else(|| data.get(snake(name)));
        let pairs = |name: &str, a: &str, b: &str, summary: &mut Summary| -> Vec<(String, &'a Value)> {
            rows(table(name), name, summary).into_iter().filter_map(|(_, r)| Some((id_of(field(r, a))?, field(r, b)?))).collect()
        };
        let agents: HashMap<String, &Value> = pairs("agents", "id", "title", summary).into_iter().collect();
        let agent_of: HashMap<String, &Value> = pairs("agentsToSessions", "sessionId", "agentId", summary).into_iter().collect();
        for (key, s) in rows(table("sessions"), "sessions", summary) {
            let Some(id) = id_of(s.get("id")).or_else(|| key.map(tree::clean)) else { continue };
            let agent = agent_of.get(&id).and_then(|a| id_of(Some(a))).and_then(|a| agents.get(&a)).copied();
            let title = field(s, "title").and_then(Value::as_str).filter(|t| !t.trim().is_empty()).or_else(|| agent.and_then(Value::as_str)).unwrap_or_default();
            self.sessions.insert(id, tree::clean(title).trim().to_owned());
        }
        for (key, t) in rows(table("topics"), "topics", summary) {
            self.topic(key, t);
        }
        for (thread, from) in pairs("threads", "id", "sourceMessageId", summary) {
            self.threads.extend(id_of(Some(from)).map(|f| (thread, f)));
        }
        for (message, _) in pairs("messagesFiles", "messageId", "fileId", summary) {
            *self.files.entry(message).or_default() += 1;
        }
        let plugins: HashMap<String, &Value> = rows(table("messagePlugins"), "messagePlugins", summary).into_iter().filter_map(|(_, p)| Some((id_of(p.get("id"))?, p))).collect();
        for (key, m) in rows(table("messages"), "messages", summary) {
            self.message(key, m, None);
            if let Some(last) = self.messages.last_mut().filter(|l| l.plugin.is_none()) {
                last.plugin = plugins.get(&last.id).copied();
            }
        }
        self.keys |= ["userSettings", "aiProviders"].iter().any(|t| table(t).is_some_and(holds_keys));
    }

    fn topic(&mut self, key: Option<&str>, t: &Value) {
        let Some(id) = id_of(t.get("id")).or_else(|| key.map(tree::clean)) else { return };
        let title = t.get("title").and_then(Value::as_str).map(|s| tree::clean(s).trim().to_owned()).unwrap_or_default();
        self.topics.insert(id, (title, time(field(t, "createdAt").or(t.get("createAt")))));
    }

    fn message(&mut self, key: Option<&str>, m: &'a Value, session: Option<&str>) {
        let n = self.messages.len();
        self.messages.push(Msg {
            id: id_of(m.get("id")).or_else(|| key.map(tree::clean)).filter(|k| !k.is_empty()).unwrap_or_else(|| format!("#{n}")),
            session: id_of(field(m, "sessionId")).or(session.map(str::to_owned)),
            topic: id_of(field(m, "topicId")),
            thread: id_of(field(m, "threadId")),
            parent: id_of(field(m, "parentId")),
            at: time(field(m, "createdAt").or(m.get("createAt"))),
            v: m,
            plugin: field(m, "plugin").filter(|p| p.is_object()),
        });
    }

    /// The conversations, oldest first: each message's topic, else its
    /// session's default conversation.
    fn groups(&self) -> Vec<(String, Group)> {
        let mut groups: BTreeMap<String, Group> = BTreeMap::new();
        for (i, m) in self.messages.iter().enumerate() {
            let session = m.session.as_deref().unwrap_or(INBOX);
            let named = self.sessions.get(session).filter(|t| !t.is_empty());
            let (id, title, created) = match (&m.topic, m.topic.as_ref().and_then(|t| self.topics.get(t))) {
                (Some(t), Some((title, created))) => (t.clone(), title.clone(), *created),
                (Some(t), None) => (t.clone(), named.map_or_else(|| "Orphan messages".to_owned(), |s| format!("{s} (orphan messages)")), None),
                (None, _) => {
                    let known = session == INBOX || self.sessions.contains_key(session);
                    let title = named.cloned().unwrap_or_else(|| if known { DEFAULT_TOPIC } else { "Orphan messages" }.to_owned());
                    (format!("{session}-default"), title, None)
                }
            };
            let g = groups.entry(id).or_insert_with(|| Group { title, created, messages: Vec::new() });
            g.messages.push(i);
        }
        let mut list: Vec<(String, Group)> = groups.into_iter().collect();
        let at = |i: usize| self.messages[i].at.unwrap_or(0.0);
        for (id, g) in &mut list {
            g.created = g.created.or(g.messages.iter().filter_map(|&i| self.messages[i].at).reduce(f64::min));
            // Everyone's inbox is `inbox`: its first message tells whose.
            if let (true, Some(&first)) = (*id == format!("{INBOX}-default"), g.messages.iter().min_by(|&&a, &&b| at(a).total_cmp(&at(b)).then(a.cmp(&b)))) {
                *id = format!("{INBOX}-{}", self.messages[first].id);
            }
        }
        list.sort_by(|a, b| a.1.created.unwrap_or(0.0).total_cmp(&b.1.created.unwrap_or(0.0)).then_with(|| a.0.cmp(&b.0)));
        list
    }
}

/// A conversation's messages in time order, each following the one before
/// in its thread (the main list, or a thread from one of its messages).
fn conversation(id: &str, g: &Group, book: &Book<'_>, summary: &mut Summary) -> ExportedSession {
    let mut order = g.messages.clone();
    let at = |i: usize| book.messages[i].at.unwrap_or(0.0);
    order.sort_by(|&a, &b| at(a).total_cmp(&at(b)).then(a.cmp(&b)));
    let mut kept = Vec::new();
    let mut taken = HashSet::new();
    // The last message kept in each thread (`None`: the main list), and
    // for each message read the one kept at or before it in its thread.
    let mut last: HashMap<Option<&str>, String> = HashMap::new();
    let mut nearest: HashMap<&str, String> = HashMap::new();
    for i in order {
        let m = &book.messages[i];
        let thread = m.thread.as_deref();
        if thread.is_some() && !last.contains_key(&thread) {
            let from = thread.and_then(|t| book.threads.get(t)).or(m.parent.as_ref());
            if let Some(p) = from.and_then(|f| nearest.get(f.as_str())) {
                last.insert(thread, p.clone());
            }
        }
        let parent = last.get(&thread).cloned();
        match read(m, book, summary) {
            Some(mut k) => {
                k.node = unique(&m.id, i, &mut taken);
                k.parent = parent;
                last.insert(thread, k.node.clone());
                nearest.insert(&m.id, k.node.clone());
                kept.push(k);
            }
            None => {
                summary.hidden += 1;
                nearest.extend(parent.map(|p| (m.id.as_str(), p)));
            }
        }
    }
    let shown_end = last.get(&None).cloned();
    tree::session(Conversation { source: "lobechat", id: id.to_owned(), title: g.title.clone(), created: g.created.unwrap_or(0.0), kept, shown_end })
}

/// What a message becomes (its text, tool calls and results as text), or
/// `None` when it is left out: a system message, or nothing to show.
fn read(m: &Msg<'_>, book: &Book<'_>, summary: &mut Summary) -> Option<Kept> {
    let v = m.v;
    let role_name = v.get("role").and_then(Value::as_str).unwrap_or_default();
    let role = match role_name {
        "user" => Role::User,
        "assistant" | "tool" | "function" => Role::Assistant,
        _ => return None,
    };
    let content = v.get("content").and_then(Value::as_str).unwrap_or_default();
    let mut parts = Vec::new();
    if role_name == "tool" || role_name == "function" {
        summary.as_text += 1;
        parts.push(result(role_name == "function", v, m.plugin, content));
    } else if !content.trim().is_empty() {
        parts.push(content.to_owned());
    }
    for call in field(v, "tools").and_then(Value::as_array).into_iter().flatten() {
        summary.as_text += 1;
        let name = tool_name(call.get("identifier"), field(call, "apiName"));
        parts.push(format!("**Tool {name}** called with\n{}", fence("json", &arguments(call.get("arguments")))));
    }
    let files = field(v, "files").and_then(Value::as_array).map_or(0, Vec::len) + book.files.get(&m.id).copied().unwrap_or(0);
    if files > 0 {
        summary.as_text += 1;
        parts.push(format!("[{files} attached file(s): not in the LobeChat export]"));
    }
    if let Some(e) = field(v, "error").filter(|e| e.as_object().is_some_and(|o| !o.is_empty()) || e.as_str().is_some_and(|s| !s.is_empty())) {
        summary.as_text += 1;
        let kind = e.get("type").or(e.get("message")).and_then(Value::as_str).or(e.as_str()).unwrap_or("unknown");
        parts.push(format!("[LobeChat showed an error here: {kind}]"));
    }
    let text = tree::clean(&parts.join("\n\n"));
    if text.trim().is_empty() {
        return None;
    }
    let model = ["fromModel", "model"].iter().find_map(|k| field(v, k)).or(v.pointer("/extra/fromModel")).and_then(Value::as_str);
    let model = model.map(str::trim).filter(|s| role == Role::Assistant && !s.is_empty()).map(str::to_owned);
    let reasoning = field(v, "reasoning").and_then(|r| r.get("content").or(Some(r))).and_then(Value::as_str);
    let reasoning = reasoning.map(tree::clean).filter(|r| !r.trim().is_empty());
    Some(Kept { model, reasoning, ..Kept::new(String::new(), None, role, text, m.at.unwrap_or(0.0)) })
}

/// A plugin's result as text; a `function` message (before version 5, and
/// version 1's `function_call`) holds the call too.
fn result(function: bool, v: &Value, plugin: Option<&Value>, content: &str) -> String {
    let call = field(v, "functionCall").filter(|c| c.is_object());
    let (name, args) = match (plugin, call) {
        (Some(p), _) => (tool_name(p.get("identifier"), field(p, "apiName")), arguments(p.get("arguments"))),
        (None, Some(c)) => (tool_name(v.get("name"), c.get("name")), arguments(c.get("arguments"))),
        (None, None) => (tool_name(v.get("name"), None), String::new()),
    };
    let body = match serde_json::from_str::<Value>(content) {
        Ok(j) if j.is_object() || j.is_array() => fence("json", content),
        _ => content.to_owned(),
    };
    if function && !args.trim().is_empty() { format!("**Tool {name}** called with\n{}\n\nIt returned:\n\n{body}", fence("json", &args)) } else { format!("**Tool {name}** returned:\n\n{body}") }
}

/// `identifier.apiName`, or whichever of them there is (once when the
/// same, as version 1 wrote them).
fn tool_name(identifier: Option<&Value>, api: Option<&Value>) -> String {
    let part = |v: Option<&Value>| v.and_then(Value::as_str).map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    match (part(identifier), part(api)) {
        (Some(i), Some(a)) if i != a => format!("{i}.{a}"),
        (Some(x), _) | (None, Some(x)) => x,
        (None, None) => "(unnamed)".to_owned(),
    }
}

/// A call's arguments: a string as written, anything else as JSON.
fn arguments(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
    }
}

/// `v`'s field `name` (camelCase) or its snake_case spelling (database
/// columns), when not null.
fn field<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    v.get(name).filter(|x| !x.is_null()).or_else(|| v.get(snake(name)).filter(|x| !x.is_null()))
}

fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The records of a list, or of a map keyed by id (with their keys);
/// what is not a record is reported in `summary.skipped`.
fn rows<'a>(v: Option<&'a Value>, what: &str, summary: &mut Summary) -> Vec<(Option<&'a str>, &'a Value)> {
    let all: Vec<(Option<&str>, &Value)> = match v {
        Some(Value::Array(a)) => a.iter().map(|x| (None, x)).collect(),
        Some(Value::Object(o)) => o.iter().map(|(k, x)| (Some(k.as_str()), x)).collect(),
        None | Some(Value::Null) => Vec::new(),
        Some(_) => {
            summary.skipped.push(Skipped::NotAList(what.to_owned()));
            Vec::new()
        }
    };
    let bad = all.iter().filter(|(_, x)| !x.is_object()).count();
    if bad > 0 {
        summary.skipped.push(Skipped::NotRecords { what: what.to_owned(), count: bad });
    }
    all.into_iter().filter(|(_, x)| x.is_object()).collect()
}

/// An id: a string (without NULs, not blank) or a number (old files).
pub(crate) fn id_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(tree::clean(s)).filter(|s| !s.trim().is_empty()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `id`, or, when another message of the conversation has it, `id#n` (`n`
/// the message's place in the file), with `#` added until it is unique.
pub(crate) fn unique(id: &str, n: usize, taken: &mut HashSet<String>) -> String {
    let mut node = id.to_owned();
    if !taken.insert(node.clone()) {
        node = format!("{id}#{n}");
        while !taken.insert(node.clone()) {
            node.push('#');
        }
    }
    node
}

/// `body` in a code fence longer than any run of backticks in it.
pub(crate) fn fence(lang: &str, body: &str) -> String {
    let (mut longest, mut run) = (0, 0);
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let f = "`".repeat(longest.max(2) + 1);
    format!("{f}{lang}\n{body}\n{f}")
}

/// Whether `v` holds something key-like with a value (an API key, a token,
/// a password, a vault): what is never imported, only reported.
pub(crate) fn holds_keys(v: &Value) -> bool {
    let key_like = |name: &str| {
        let n = name.to_ascii_lowercase().replace(['_', '-'], "");
        ["apikey", "secret", "token", "password", "accesscode", "accesskey", "vault", "credential"].iter().any(|k| n.contains(k))
    };
    match v {
        Value::Object(o) => o.iter().any(|(k, x)| (key_like(k) && x.as_str().is_some_and(|s| !s.trim().is_empty())) || holds_keys(x)),
        Value::Array(a) => a.iter().any(holds_keys),
        _ => false,
    }
}

/// Milliseconds from a number (milliseconds) or an ISO 8601 string.
fn time(v: Option<&Value>) -> Option<f64> {
    let t = match v? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => iso_ms(s).or_else(|| s.trim().parse().ok()),
        _ => None,
    };
    t.filter(|t| t.is_finite() && *t > 0.0)
}

/// Milliseconds of an ISO 8601 date (`2024-05-11`,
/// `2024-05-11T02:42:08.016Z`, `2024-05-11 02:42:08+08:00`, Postgres'
/// `+00`); a time without a zone is read as UTC.
pub(crate) fn iso_ms(s: &str) -> Option<f64> {
    let s = s.trim();
    let digits = |from: usize, len: usize| -> Option<i64> {
        let part = s.get(from..from + len)?;
        part.bytes().all(|b| b.is_ascii_digit()).then(|| part.parse().ok()).flatten()
    };
    let sep = |at: usize, chars: &[u8]| s.as_bytes().get(at).is_some_and(|b| chars.contains(b));
    if !(sep(4, b"-") && sep(7, b"-")) {
        return None;
    }
    let (y, mo, d) = (digits(0, 4)?, digits(5, 2)?, digits(8, 2)?);
    if s.len() == 10 {
        return civil_ms(y, mo, d, 0, 0, 0.0);
    }
    if !(sep(10, b"T ") && sep(13, b":")) {
        return None;
    }
    let (h, mi) = (digits(11, 2)?, digits(14, 2)?);
    let (mut at, mut sec) = (16, 0.0);
    if sep(16, b":") {
        sec = digits(17, 2)? as f64;
        at = 19;
        if sep(19, b".,") {
            let frac: String = s.get(20..)?.chars().take_while(char::is_ascii_digit).collect();
            sec += format!("0.{frac}").parse::<f64>().ok()?;
            at = 20 + frac.len();
        }
    }
    let minutes = match s.get(at..)?.trim() {
        "" | "Z" | "z" => 0,
        zone => {
            let (sign, rest) = match zone.split_at_checked(1)? {
                ("+", r) => (1, r.replace(':', "")),
                ("-", r) => (-1, r.replace(':', "")),
                _ => return None,
            };
            if !(rest.len() == 2 || rest.len() == 4) || !rest.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let hh: i64 = rest.get(..2)?.parse().ok()?;
            let mm: i64 = rest.get(2..).filter(|m| !m.is_empty()).map_or(Some(0), |m| m.parse().ok())?;
            sign * (hh * 60 + mm)
        }
    };
    Some(civil_ms(y, mo, d, h, mi, sec)? - minutes as f64 * 60_000.0)
}

/// Milliseconds at a date and time in UTC; `None` when it is no real date.
pub(crate) fn civil_ms(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: f64) -> Option<f64> {
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let lengths = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let month = *lengths.get(usize::try_from(mo - 1).ok()?)?;
    if !(1..=month).contains(&d) || !(0..24).contains(&h) || !(0..60).contains(&mi) || !(0.0..61.0).contains(&s) {
        return None;
    }
    // Days from 1970-01-01 (Howard Hinnant's days_from_civil).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((mo + 9) % 12) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    Some(((days * 24 + h) * 60 + mi) as f64 * 60_000.0 + s * 1000.0)
}

#[cfg(test)]
mod tests;
