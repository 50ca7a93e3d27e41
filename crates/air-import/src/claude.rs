//! Claude.ai's export (`conversations.json`: a list of conversations, or
//! one conversation).
//!
//! A conversation (`uuid`, `name`, `created_at`, `chat_messages`) is a
//! tree: each message names its parent (`parent_message_uuid`; the first
//! ones `00000000-0000-4000-8000-000000000000`); a message without that
//! field (older, linear exports) follows the one before it in the file.
//! Senders other than `human` and `assistant`, and messages with nothing
//! in them, are left out, their children hanging from the nearest message
//! kept. Text is read from the content blocks (the `text` field only when
//! they have none: it holds placeholders for tools); thinking becomes the
//! answer's reasoning. A call of an MCP tool (one naming its server:
//! `integration_name`, else `mcp_server_url`) and its result become this
//! app's tool call and result, the card naming the server (an answer that
//! called tools is split where each result came, as this app keeps
//! answers); any other tool's call and result become fenced text saying
//! the tool, its input and what it gave. Imported calls never run unless
//! the user asks and agrees. An attachment's extracted text becomes a file
//! of the message (given to the model as a text file attached here is); a
//! file without its bytes (`files`), or an attachment without its text, a
//! line naming it.
//! Claude keeps no current branch: the one ending at the newest message
//! (by time, then the last in the file) is shown. Dates are ISO 8601
//! (`2024-06-01T12:00:00.123456Z`), read here; the file names no model.

use std::collections::{HashMap, HashSet};

use air_chat::{Role, ToolCall};
use air_store::Attachment;
use air_store::export::{Export, ExportedSession};
use air_store::import::INTERRUPTED;
use air_store::records::{ToolRun, ToolStatus};
use serde_json::Value;

use crate::Summary;
use crate::skipped::Skipped;
use crate::tree::{self, Conversation, Kept};

/// The parent Claude gives the first message of a conversation.
const ROOT: &str = "00000000-0000-4000-8000-000000000000";

/// Whether `v` is a Claude.ai export.
pub fn detect(v: &Value) -> bool {
    conversations(v).is_some()
}

/// The conversations of `v`, if it is a Claude.ai export.
fn conversations(v: &Value) -> Option<Vec<&Value>> {
    let list: Vec<&Value> = match v {
        Value::Array(a) => a.iter().collect(),
        Value::Object(o) if o.contains_key("chat_messages") => vec![v],
        _ => return None,
    };
    list.iter().any(|c| c.get("chat_messages").is_some()).then_some(list)
}

/// Every conversation of `files` (one file, or the parts of a split one).
pub fn convert(files: &[Value], now_ms: f64) -> (Export, Summary) {
    crate::convert_each(files, now_ms, conversations, conversation)
}

fn conversation(c: &Value, summary: &mut Summary) -> Result<ExportedSession, Skipped> {
    let title = tree::clean(c.get("name").and_then(Value::as_str).unwrap_or_default()).trim().to_owned();
    let Some(id) = c.get("uuid").and_then(Value::as_str).filter(|i| !i.trim().is_empty()) else { return Err(Skipped::NoId { title, field: "uuid" }) };
    let Some(list) = c.get("chat_messages").and_then(Value::as_array) else { return Err(Skipped::NoMessages { title, field: "chat_messages" }) };
    let created = c.get("created_at").and_then(Value::as_str).map_or(0.0, iso_ms);
    // Every message's node (its uuid, made unique) and parent, in file order.
    let mut used = HashSet::new();
    let mut parent: HashMap<String, String> = HashMap::new();
    let mut kept: Vec<Kept> = Vec::new();
    let mut before: Option<String> = None;
    for (i, m) in list.iter().enumerate() {
        let base = m.get("uuid").and_then(Value::as_str).filter(|u| !u.is_empty()).map_or_else(|| format!("message-{i}"), str::to_owned);
        let node = crate::lobechat::unique(&base, i, &mut used);
        let mut up = match m.get("parent_message_uuid") {
            Some(Value::String(p)) => Some(p.clone()).filter(|p| p != ROOT),
            _ => before.clone(),
        };
        before = Some(node.clone());
        let pieces = message(m, summary);
        if pieces.is_empty() {
            summary.hidden += 1;
        }
        let at = m.get("created_at").and_then(Value::as_str).map_or(0.0, iso_ms);
        // The last record is the message's own node (what its children
        // name); each one before it is followed by the next.
        let count = pieces.len();
        for (j, mut k) in pieces.into_iter().enumerate() {
            k.node = if j + 1 == count { node.clone() } else { crate::lobechat::unique(&format!("{node}~{j}"), i, &mut used) };
            k.at = at;
            for (a, _) in &mut k.files {
                a.id = format!("{node}-{}", a.id);
            }
            if let Some(up) = up.replace(k.node.clone()) {
                parent.insert(k.node.clone(), up);
            }
            kept.push(k);
        }
        if count == 0
            && let Some(up) = up
        {
            parent.insert(node, up);
        }
    }
    let is_kept: HashSet<String> = kept.iter().map(|k| k.node.clone()).collect();
    for k in &mut kept {
        k.parent = tree::nearest_kept(parent.get(&k.node).map(String::as_str), Some(&k.node), &|n| is_kept.contains(n), &|n| parent.get(n).map(String::as_str));
    }
    // The newest message, the last in the file among equals.
    let shown_end = kept.iter().enumerate().max_by(|(i, a), (j, b)| a.at.total_cmp(&b.at).then(i.cmp(j))).map(|(_, k)| k.node.clone());
    Ok(tree::session(Conversation { source: "claude", id: id.to_owned(), title, created, kept, shown_end }))
}

/// The records a message becomes, in order (none when it is left out):
/// one, or for an answer that called MCP tools its text and calls up to
/// each result, the results, then the rest.
fn message(m: &Value, summary: &mut Summary) -> Vec<Kept> {
    let role = match m.get("sender").and_then(Value::as_str) {
        Some("human" | "user") => Role::User,
        Some("assistant") => Role::Assistant,
        _ => return Vec::new(),
    };
    let mut parts = Parts { answer: role == Role::Assistant, ..Parts::default() };
    for b in m.get("content").and_then(Value::as_array).into_iter().flatten() {
        block(b, &mut parts, summary);
    }
    if parts.done.is_empty() && parts.calls.is_empty() && parts.out.iter().all(|p| p.trim().is_empty()) {
        parts.out.clear();
        if let Some(t) = m.get("text").and_then(Value::as_str).filter(|t| !t.trim().is_empty()) {
            parts.out.push(t.to_owned());
        }
    }
    // The text first: a title made from it reads as the question.
    let (mut lines, files) = files(m, summary);
    let mut out = std::mem::take(&mut parts.out);
    out.append(&mut lines);
    let text = tree::clean(out.join("\n\n").trim());
    let reasoning = Some(tree::clean(parts.thinking.join("\n\n").trim())).filter(|r| !r.is_empty() && role == Role::Assistant);
    let mut pieces = std::mem::take(&mut parts.done);
    let calls = std::mem::take(&mut parts.calls);
    // A call the file has no result of is answered as interrupted here,
    // its card naming its server.
    let open: Vec<Kept> = calls
        .iter()
        .filter_map(|c| parts.runs.remove_entry(&c.id))
        .map(|(id, run)| Kept { tool: Some((id, run.with_text(INTERRUPTED))), ..Kept::new(String::new(), None, Role::Tool, INTERRUPTED.to_owned(), 0.0) })
        .collect();
    if !text.is_empty() || !calls.is_empty() || !files.is_empty() || (pieces.is_empty() && reasoning.is_some()) {
        pieces.push(Kept { files, tool_calls: calls, ..Kept::new(String::new(), None, role, text, 0.0) });
    }
    pieces.extend(open);
    if let Some(first) = pieces.first_mut() {
        first.reasoning = reasoning;
    }
    pieces
}

/// What a message's blocks became.
#[derive(Default)]
struct Parts {
    /// An answer's blocks (only an answer's MCP calls become calls).
    answer: bool,
    out: Vec<String>,
    thinking: Vec<String>,
    /// The last part is text that the next text block goes on (Claude
    /// splits a paragraph where a citation starts or ends).
    in_text: bool,
    /// Each tool call's name by its id, for its result.
    tools: HashMap<String, String>,
    /// The MCP calls made since the last record was closed.
    calls: Vec<ToolCall>,
    /// The card of each MCP call by its id, until its result comes.
    runs: HashMap<String, ToolRun>,
    /// Records closed: an answer's text and calls up to a result, then
    /// the results.
    done: Vec<Kept>,
}

impl Parts {
    fn text(&mut self, t: &str) {
        match self.out.last_mut() {
            Some(last) if self.in_text => last.push_str(t),
            _ => self.out.push(t.to_owned()),
        }
        self.in_text = true;
    }

    fn part(&mut self, p: String) {
        self.out.push(p);
        self.in_text = false;
    }

    /// An MCP call: a call of the answer, its card kept for its result.
    fn call(&mut self, id: &str, name: &str, server: &str, b: &Value) {
        let arguments = match b.get("input") {
            Some(Value::Null) | None => "{}".to_owned(),
            Some(input) => serde_json::to_string(input).unwrap_or_default(),
        };
        self.calls.push(ToolCall { id: id.to_owned(), name: name.to_owned(), arguments: arguments.clone(), extra: None });
        let mut run = ToolRun::new(name, Some(server.to_owned()), arguments, ToolStatus::Interrupted);
        run.imported = true;
        self.runs.insert(id.to_owned(), run);
        self.in_text = false;
    }

    /// An MCP call's result: the answer so far closed with its calls, and
    /// a tool message with the result.
    fn result(&mut self, id: &str, mut run: ToolRun, b: &Value) {
        if !self.calls.is_empty() {
            let text = tree::clean(std::mem::take(&mut self.out).join("\n\n").trim());
            let calls = std::mem::take(&mut self.calls);
            self.done.push(Kept { tool_calls: calls, ..Kept::new(String::new(), None, Role::Assistant, text, 0.0) });
            self.in_text = false;
        }
        let body = tree::clean(&result_body(b));
        run.status = if b.get("is_error").and_then(Value::as_bool) == Some(true) { ToolStatus::Error } else { ToolStatus::Done };
        let run = run.with_text(body.clone());
        self.done.push(Kept { tool: Some((id.to_owned(), run)), ..Kept::new(String::new(), None, Role::Tool, body, 0.0) });
    }
}

/// The server an MCP tool's call names (its integration, else its
/// address); `None` for any other tool.
fn mcp_server(b: &Value) -> Option<&str> {
    let str_of = |k: &str| b.get(k).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
    str_of("integration_name").or_else(|| str_of("mcp_server_url"))
}

fn block(b: &Value, parts: &mut Parts, summary: &mut Summary) {
    let str_of = |k: &str| b.get(k).and_then(Value::as_str);
    match (str_of("type"), b) {
        (_, Value::String(s)) => parts.text(s),
        (Some("text"), _) => parts.text(str_of("text").unwrap_or_default()),
        (Some("thinking"), _) => {
            let summaries = b.get("summaries").and_then(Value::as_array).into_iter().flatten().filter_map(|s| s.get("summary").and_then(Value::as_str));
            let thought = str_of("thinking").filter(|t| !t.trim().is_empty()).map_or_else(|| summaries.collect::<Vec<_>>().join("\n"), str::to_owned);
            if !thought.trim().is_empty() {
                parts.thinking.push(thought);
            }
        }
        (Some("tool_use"), _) => {
            let name = str_of("name").filter(|n| !n.is_empty()).unwrap_or("a tool");
            let id = str_of("id").filter(|i| !i.is_empty());
            match (id, mcp_server(b)) {
                (Some(id), Some(server)) if parts.answer && !parts.runs.contains_key(id) && !parts.tools.contains_key(id) => return parts.call(id, name, server, b),
                _ => {}
            }
            summary.as_text += 1;
            if let Some(id) = id {
                parts.tools.insert(id.to_owned(), name.to_owned());
            }
            parts.part(tool_use(name, b));
        }
        (Some("tool_result"), _) => {
            if let Some((id, run)) = str_of("tool_use_id").and_then(|id| parts.runs.remove_entry(id)) {
                return parts.result(&id, run, b);
            }
            summary.as_text += 1;
            let by_id = str_of("tool_use_id").and_then(|id| parts.tools.get(id)).map(String::as_str);
            parts.part(tool_result(str_of("name").filter(|n| !n.is_empty()).or(by_id).unwrap_or("a tool"), b));
        }
        (kind, _) => match str_of("text") {
            Some(t) => parts.part(t.to_owned()),
            None if b.is_object() => {
                summary.as_text += 1;
                parts.part(format!("[{}: not carried over from Claude]", kind.unwrap_or("a block")));
            }
            None => {}
        },
    }
}

/// A tool's call as text: its name, where it runs, its input (long text
/// fields apart, as blocks of their own).
fn tool_use(name: &str, b: &Value) -> String {
    let server = b.get("mcp_server_url").and_then(Value::as_str).filter(|u| !u.is_empty()).map(|u| format!(" ({u})")).unwrap_or_default();
    let mut out = vec![format!("**Tool call: {name}**{server}")];
    match b.get("input") {
        Some(Value::Object(input)) => {
            let long = |v: &Value| v.as_str().is_some_and(|s| s.contains('\n'));
            let rest: serde_json::Map<String, Value> = input.iter().filter(|(_, v)| !long(v)).map(|(k, v)| (k.clone(), v.clone())).collect();
            if !rest.is_empty() {
                out.push(fence("json", &pretty(&Value::Object(rest))));
            }
            let lang = input.get("language").and_then(Value::as_str).unwrap_or_default();
            for (k, v) in input.iter().filter(|(_, v)| long(v)) {
                out.push(format!("{k}:\n{}", fence(lang, v.as_str().unwrap_or_default())));
            }
        }
        Some(Value::Null) | None => {}
        Some(other) => out.push(fence("json", &pretty(other))),
    }
    out.join("\n\n")
}

/// A tool's result as text: what it gave, fenced.
fn tool_result(name: &str, b: &Value) -> String {
    let head = if b.get("is_error").and_then(Value::as_bool) == Some(true) { format!("**Tool error: {name}**") } else { format!("**Tool result: {name}**") };
    let body = result_body(b);
    if body.trim().is_empty() { head } else { format!("{head}\n\n{}", fence("", &body)) }
}

/// What a tool's result gave, as text.
fn result_body(b: &Value) -> String {
    match b.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items.iter().map(result_item).filter(|s| !s.is_empty()).collect::<Vec<_>>().join("\n\n"),
        Some(Value::Null) | None => String::new(),
        Some(other) => pretty(other),
    }
}

/// One item of a tool's result: its text, a source by its title and
/// address (a search result), or what kind it was.
fn result_item(item: &Value) -> String {
    let str_of = |k: &str| item.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
    match (item, str_of("title"), str_of("url")) {
        (Value::String(s), _, _) => s.clone(),
        (_, Some(title), Some(url)) => format!("{title} <{url}>"),
        (_, title, url) if title.or(url).is_some() => title.or(url).unwrap_or_default().to_owned(),
        _ => str_of("text").map_or_else(|| format!("[{}]", str_of("type").unwrap_or("?")), str::to_owned),
    }
}

/// The attachments with their extracted text, as files of the message
/// (the text their bytes); and a line naming each attachment without its
/// text and each file (the export has no bytes) of a message.
fn files(m: &Value, summary: &mut Summary) -> (Vec<String>, Vec<tree::KeptFile>) {
    let name = |f: &Value| f.get("file_name").and_then(Value::as_str).filter(|n| !n.trim().is_empty()).unwrap_or("a file").to_owned();
    let mut lines = Vec::new();
    let mut attached = Vec::new();
    for a in m.get("attachments").and_then(Value::as_array).into_iter().flatten().filter(|a| a.is_object()) {
        match a.get("extracted_content").and_then(Value::as_str).filter(|t| !t.trim().is_empty()) {
            Some(t) => {
                let bytes = tree::clean(t).into_bytes();
                let size = a.get("file_size").and_then(Value::as_u64).unwrap_or(bytes.len() as u64);
                let file = Attachment { id: format!("file-{}", attached.len()), name: tree::clean(&name(a)), mime: "text/plain".into(), size };
                attached.push((file, Some(bytes)));
            }
            None => {
                summary.as_text += 1;
                lines.push(format!("[Attached: {} (its content is not in the Claude export)]", name(a)));
            }
        }
    }
    let listed = |k: &str| m.get(k).and_then(Value::as_array).filter(|l| !l.is_empty());
    for f in listed("files").or(listed("files_v2")).into_iter().flatten().filter(|f| f.is_object()) {
        summary.as_text += 1;
        lines.push(format!("[A file: {} (its bytes are not in the Claude export)]", name(f)));
    }
    (lines, attached)
}

/// `body` fenced as a code block of `lang`, with a fence longer than any
/// run of backticks in it.
fn fence(lang: &str, body: &str) -> String {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat(longest.max(2) + 1);
    format!("{ticks}{lang}\n{}\n{ticks}", body.trim_end_matches('\n'))
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// Milliseconds since the Unix epoch of an ISO 8601 date and time
/// (`2024-06-01T12:00:00.123456Z`; `+hh:mm`, `+hhmm`, `+hh` or no offset,
/// read as UTC; a date alone is its midnight); 0 when it is not one.
pub(crate) fn iso_ms(s: &str) -> f64 {
    iso(s.trim().as_bytes()).filter(|t| t.is_finite() && *t > 0.0).unwrap_or(0.0)
}

fn iso(mut s: &[u8]) -> Option<f64> {
    let s = &mut s;
    let year = digits(s, 4)?;
    let month = after(s, b'-')?;
    let day = after(s, b'-')?;
    let (mut hour, mut minute, mut second, mut fraction) = (0, 0, 0, 0.0);
    if eat(s, b"Tt ") {
        hour = digits(s, 2)?;
        minute = after(s, b':')?;
        if eat(s, b":") {
            second = digits(s, 2)?;
            if eat(s, b".,") {
                let n = s.iter().take_while(|c| c.is_ascii_digit()).count();
                let (frac, rest) = s.split_at(n);
                fraction = std::str::from_utf8(frac).ok().and_then(|f| format!("0.{f}").parse::<f64>().ok()).filter(|_| n > 0)?;
                *s = rest;
            }
        }
    }
    let offset = match s.split_first() {
        None => 0,
        Some((b'Z' | b'z', rest)) => {
            *s = rest;
            0
        }
        Some((sign @ (b'+' | b'-'), rest)) => {
            *s = rest;
            let h = digits(s, 2)?;
            let colon = eat(s, b":");
            let m = if colon || !s.is_empty() { digits(s, 2)? } else { 0 };
            if h > 23 || m > 59 {
                return None;
            }
            if *sign == b'-' { -(h * 60 + m) } else { h * 60 + m }
        }
        Some(_) => return None,
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let valid = s.is_empty() && (1..=12).contains(&month) && hour < 24 && minute < 60 && second <= 60;
    if !valid || day < 1 || day > *month_days.get(usize::try_from(month - 1).ok()?)? {
        return None;
    }
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset * 60;
    Some((seconds as f64 + fraction) * 1000.0)
}

/// The next `n` ASCII digits of `s` as a number, taken off it.
fn digits(s: &mut &[u8], n: usize) -> Option<i64> {
    let (head, rest) = (s.get(..n)?, s.get(n..)?);
    if !head.iter().all(u8::is_ascii_digit) {
        return None;
    }
    *s = rest;
    Some(head.iter().fold(0, |a, d| a * 10 + i64::from(d - b'0')))
}

/// The two digits after `sep`, taken off `s`.
fn after(s: &mut &[u8], sep: u8) -> Option<i64> {
    eat(s, &[sep]).then_some(())?;
    digits(s, 2)
}

/// Takes the next byte of `s` off it if it is one of `any`.
fn eat(s: &mut &[u8], any: &[u8]) -> bool {
    match s.split_first() {
        Some((c, rest)) if any.contains(c) => {
            *s = rest;
            true
        }
        _ => false,
    }
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
}

#[cfg(test)]
mod tests;
