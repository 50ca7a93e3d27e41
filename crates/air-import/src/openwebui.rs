//! Open WebUI's chat export (`chat-export-<ms>.json`: a list of chats; a
//! chat downloaded alone is a list of one, or the chat itself).
//!
//! A chat (`id`, `title`, `created_at`, `chat`) keeps its messages as a
//! tree (`chat.history.messages`, each naming its `parentId`); chats from
//! before the tree have only the list `chat.messages`, each message then
//! following the one before. Answers of several models to one question
//! are siblings: branches here, each with its `model`. System prompts are
//! left out, their children hanging from the nearest message kept. The
//! content is a string or a list of parts (text; an image, which becomes a
//! line saying so, as does each of `files`). Open WebUI writes thinking
//! and tool calls into the text as `<details type="reasoning">` and
//! `<details type="tool_calls">` (`code_interpreter` for code it ran):
//! thinking is taken out and becomes the reasoning (the `output` items'
//! own when there are some), a tool call or a code run becomes fenced text
//! saying what ran and what it gave (never a call that could run). The
//! branch ending at `history.currentId` (else at the newest message) is
//! shown. Times are in seconds; a value too large for seconds is read as
//! milliseconds (or finer).

use std::collections::{HashMap, HashSet};

use air_chat::Role;
use air_store::export::{Export, ExportedSession};
use serde_json::Value;

use crate::Summary;
use crate::skipped::Skipped;
use crate::tree::{self, Conversation, Kept};

const IMAGE: &str = "[An image: not carried over from Open WebUI]";

/// Whether `v` is an Open WebUI chat export.
pub fn detect(v: &Value) -> bool {
    chats(v).is_some()
}

/// The chats of `v`, if it is an Open WebUI chat export.
fn chats(v: &Value) -> Option<Vec<&Value>> {
    let list: Vec<&Value> = match v {
        Value::Array(a) => a.iter().collect(),
        Value::Object(o) if o.contains_key("chat") => vec![v],
        _ => return None,
    };
    let shaped = |c: &&Value| c.get("chat").is_some_and(|chat| chat.get("history").is_some() || chat.get("messages").is_some());
    list.iter().any(shaped).then_some(list)
}

/// Every chat of `files` (one file, or several exports at once).
pub fn convert(files: &[Value], now_ms: f64) -> (Export, Summary) {
    crate::convert_each(files, now_ms, chats, chat)
}

/// Milliseconds of a time in seconds, or in milliseconds (more than
/// 10^11), microseconds (10^14) or nanoseconds (10^17).
fn millis(v: Option<&Value>) -> Option<f64> {
    let t = match v? {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    let ms = match t {
        t if t > 1e17 => t / 1e6,
        t if t > 1e14 => t / 1e3,
        t if t > 1e11 => t,
        t => t * 1000.0,
    };
    // Past the year 9999 is no time.
    (ms > 0.0 && ms < 253_402_300_800_000.0).then_some(ms)
}

fn chat(c: &Value, summary: &mut Summary) -> Result<ExportedSession, Skipped> {
    let inner = c.get("chat").unwrap_or(&Value::Null);
    let str_of = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let title = tree::clean(&str_of(c, "title").or(str_of(inner, "title")).unwrap_or_default()).trim().to_owned();
    let Some(id) = str_of(c, "id").or(str_of(inner, "id")).filter(|i| !i.trim().is_empty()) else { return Err(Skipped::NoId { title, field: "id" }) };
    let Some(nodes) = nodes(inner) else { return Err(Skipped::NoMessages { title, field: "chat.history" }) };
    let created = millis(c.get("created_at")).or(millis(inner.get("timestamp"))).unwrap_or(0.0);
    let models: Vec<&str> = inner.get("models").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let mut parent: HashMap<String, String> = HashMap::new();
    let mut kept: Vec<Kept> = Vec::new();
    for (node, m, up) in nodes {
        if let Some(up) = up {
            parent.insert(node.clone(), up);
        }
        match message(node, m, &models, summary) {
            Some(k) => kept.push(k),
            None => summary.hidden += 1,
        }
    }
    let is_kept: HashSet<String> = kept.iter().map(|k| k.node.clone()).collect();
    for k in &mut kept {
        k.parent = tree::nearest_kept(parent.get(&k.node).map(String::as_str), Some(&k.node), &|n| is_kept.contains(n), &|n| parent.get(n).map(String::as_str));
    }
    let current = inner.pointer("/history/currentId").and_then(Value::as_str);
    let newest = || kept.iter().enumerate().max_by(|(i, a), (j, b)| a.at.total_cmp(&b.at).then(i.cmp(j))).map(|(_, k)| k.node.clone());
    let shown_end = tree::nearest_kept(current, None, &|n| is_kept.contains(n), &|n| parent.get(n).map(String::as_str)).or_else(newest);
    Ok(tree::session(Conversation { source: "openwebui", id, title, created, kept, shown_end }))
}

/// Each message of the chat: its node, itself, its parent. `None` when
/// the chat has neither a tree nor a list of messages.
fn nodes(chat: &Value) -> Option<Vec<(String, &Value, Option<String>)>> {
    let tree = chat.pointer("/history/messages").and_then(Value::as_object);
    let list = chat.get("messages").and_then(Value::as_array);
    if let Some(tree) = tree.filter(|t| !t.is_empty() || list.is_none_or(|l| l.is_empty())) {
        return Some(tree.iter().map(|(k, m)| (k.clone(), m, m.get("parentId").and_then(Value::as_str).map(str::to_owned))).collect());
    }
    // The older list: each message follows the one before.
    let mut used = HashSet::new();
    let mut before = None;
    let mut out = Vec::new();
    for (i, m) in list?.iter().enumerate() {
        let base = m.get("id").and_then(Value::as_str).filter(|n| !n.is_empty()).map_or_else(|| format!("message-{i}"), str::to_owned);
        let node = crate::lobechat::unique(&base, i, &mut used);
        out.push((node.clone(), m, before.replace(node)));
    }
    Some(out)
}

/// The message kept as `node`; `None` when it is left out (a system
/// prompt, an unknown role, nothing in it).
fn message(node: String, m: &Value, models: &[&str], summary: &mut Summary) -> Option<Kept> {
    let role = match m.get("role").and_then(Value::as_str) {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        _ => return None,
    };
    let content = match m.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => content_parts(parts, summary),
        _ => String::new(),
    };
    let (text, shown_reasoning) = details(&content, summary);
    let mut out = Vec::new();
    match output_texts(m, "message") {
        Some(t) if text.trim().is_empty() => out.push(t),
        _ => out.push(text),
    }
    let error = m.get("error").and_then(|e| e.get("content").unwrap_or(e).as_str()).filter(|e| !e.trim().is_empty());
    out.extend(error.map(|e| format!("[Error: {e}]")));
    out.extend(files(m, summary));
    out.retain(|p| !p.trim().is_empty());
    let text = tree::clean(out.join("\n\n").trim());
    let shown_reasoning = Some(shown_reasoning.join("\n\n")).filter(|r| !r.trim().is_empty());
    let reasoning = output_texts(m, "reasoning").or(shown_reasoning).map(|r| tree::clean(r.trim())).filter(|_| role == Role::Assistant);
    if text.is_empty() && reasoning.is_none() {
        return None;
    }
    let at = millis(m.get("timestamp")).unwrap_or(0.0);
    let model = if role == Role::Assistant { model(m, models) } else { None };
    Some(Kept { model, reasoning, ..Kept::new(node, None, role, text, at) })
}

/// The model that wrote an answer: its own, else the chat's at its index.
fn model(m: &Value, models: &[&str]) -> Option<String> {
    let at = m.get("modelIdx").and_then(Value::as_u64).and_then(|i| usize::try_from(i).ok()).unwrap_or(0);
    m.get("model").and_then(Value::as_str).filter(|s| !s.trim().is_empty()).or_else(|| models.get(at).copied()).map(tree::clean)
}

/// The text of a list of parts; an image as a line saying so.
fn content_parts(parts: &[Value], summary: &mut Summary) -> String {
    let mut out = Vec::new();
    for p in parts {
        match (p, p.get("type").and_then(Value::as_str)) {
            (Value::String(s), _) => out.push(s.clone()),
            (_, Some("image_url" | "image" | "input_image")) => {
                summary.as_text += 1;
                out.push(IMAGE.to_owned());
            }
            _ => out.extend(p.get("text").and_then(Value::as_str).map(str::to_owned)),
        }
    }
    out.join("\n\n")
}

/// A line for each of a message's files: Open WebUI keeps their bytes
/// elsewhere.
fn files(m: &Value, summary: &mut Summary) -> Vec<String> {
    let mut out = Vec::new();
    for f in m.get("files").and_then(Value::as_array).into_iter().flatten().filter(|f| f.is_object()) {
        summary.as_text += 1;
        if f.get("type").and_then(Value::as_str) == Some("image") {
            out.push(IMAGE.to_owned());
            continue;
        }
        let names = ["/name", "/file/meta/name", "/file/filename", "/meta/name", "/title"];
        let name = names.iter().find_map(|p| f.pointer(p).and_then(Value::as_str).filter(|n| !n.trim().is_empty())).unwrap_or("a file");
        out.push(format!("[A file: {name} (its content is not in the Open WebUI export)]"));
    }
    out
}

/// The texts of the `output` items of `kind` (`message`, `reasoning`).
fn output_texts(m: &Value, kind: &str) -> Option<String> {
    let items = m.get("output").and_then(Value::as_array).into_iter().flatten().filter(|o| o.get("type").and_then(Value::as_str) == Some(kind));
    let parts = items.flat_map(|o| ["content", "summary"].into_iter().filter_map(|k| o.get(k).and_then(Value::as_array)).flatten());
    let texts: Vec<&str> = parts.filter_map(|p| p.get("text").and_then(Value::as_str)).filter(|t| !t.trim().is_empty()).collect();
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}

/// `content` without its `<details>` of thinking (returned apart), its
/// tool calls and code runs made readable text; other `<details>` left
/// as they are.
fn details(content: &str, summary: &mut Summary) -> (String, Vec<String>) {
    let mut segments: Vec<String> = Vec::new();
    let mut pending = String::new();
    let mut reasoning = Vec::new();
    let mut rest = content;
    while let Some(start) = open_at(rest) {
        let Some(end) = rest.get(start..).and_then(|r| r.find('>')).map(|e| start + e) else { break };
        let (Some(head), Some(attrs), Some(after)) = (rest.get(..start), rest.get(start + 8..end), rest.get(end + 1..)) else { break };
        let kind = attr(attrs, "type");
        if !matches!(kind.as_deref(), Some("reasoning" | "tool_calls" | "code_interpreter")) {
            pending.push_str(rest.get(..=end).unwrap_or_default());
            rest = after;
            continue;
        }
        pending.push_str(head);
        let (body, next) = closed(after);
        rest = next;
        if kind.as_deref() == Some("reasoning") {
            reasoning.push(quoted(body));
            continue;
        }
        segments.push(std::mem::take(&mut pending));
        summary.as_text += 1;
        segments.push(if kind.as_deref() == Some("tool_calls") { tool_calls(attrs, body) } else { code_run(attrs, body) });
    }
    pending.push_str(rest);
    segments.push(pending);
    let text: Vec<&str> = segments.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).collect();
    (text.join("\n\n"), reasoning.into_iter().filter(|r| !r.is_empty()).collect())
}

/// Where the next `<details` tag of `s` starts.
fn open_at(s: &str) -> Option<usize> {
    s.match_indices("<details").map(|(i, _)| i).find(|i| matches!(s.as_bytes().get(i + 8), Some(b'>' | b' ' | b'\t' | b'\n' | b'\r')))
}

/// What `s` (just after an opening tag) holds up to its `</details>`, and
/// what follows; `<details>` inside counted. Unclosed: all of it.
fn closed(s: &str) -> (&str, &str) {
    const CLOSE: &str = "</details>";
    let (mut depth, mut at) = (0usize, 0);
    loop {
        let Some(tail) = s.get(at..) else { return (s, "") };
        let close = tail.find(CLOSE).map(|c| c + at);
        match (open_at(tail).map(|o| o + at), close) {
            (Some(o), Some(c)) if o < c => (depth, at) = (depth + 1, o + 8),
            (_, Some(c)) if depth > 0 => (depth, at) = (depth - 1, c + CLOSE.len()),
            (_, Some(c)) => return (s.get(..c).unwrap_or(s), s.get(c + CLOSE.len()..).unwrap_or_default()),
            (_, None) => return (s, ""),
        }
    }
}

/// The value of attribute `key` in a tag's `attrs`, unescaped.
fn attr(attrs: &str, key: &str) -> Option<String> {
    let pattern = format!("{key}=\"");
    let at = attrs.match_indices(&pattern).map(|(i, _)| i).find(|&i| i == 0 || attrs.as_bytes().get(i - 1).is_some_and(u8::is_ascii_whitespace))?;
    let value = attrs.get(at + pattern.len()..)?;
    Some(unescape(value.get(..value.find('"')?)?))
}

/// `s` with the HTML escapes Open WebUI writes undone.
fn unescape(s: &str) -> String {
    [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#x27;", "'"), ("&#39;", "'"), ("&amp;", "&")].iter().fold(s.to_owned(), |t, (from, to)| t.replace(from, to))
}

/// A block's body without its `<summary>`.
fn unsummarized(body: &str) -> String {
    match (body.find("<summary>"), body.find("</summary>")) {
        (Some(a), Some(b)) if a < b => format!("{}{}", body.get(..a).unwrap_or_default(), body.get(b + "</summary>".len()..).unwrap_or_default()),
        _ => body.to_owned(),
    }
}

/// Thinking as Open WebUI showed it (each line quoted with `> `, escaped).
fn quoted(body: &str) -> String {
    let body = unescape(&unsummarized(body));
    let lines: Vec<&str> = body.lines().map(|l| l.strip_prefix("> ").or_else(|| l.strip_prefix('>')).unwrap_or(l)).collect();
    lines.join("\n").trim().to_owned()
}

/// JSON as Open WebUI put it in an attribute, readable: a string as it is
/// (pretty when it is JSON itself), anything else pretty.
fn readable(v: &Value) -> String {
    match v {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(inner @ (Value::Object(_) | Value::Array(_))) => serde_json::to_string_pretty(&inner).unwrap_or_else(|_| s.clone()),
            _ => s.clone(),
        },
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

fn decoded(s: &str) -> String {
    serde_json::from_str::<Value>(s).map_or_else(|_| s.to_owned(), |v| readable(&v))
}

/// A `tool_calls` block as text: each call's name, arguments and result
/// (from its attributes, or the older `content` and `results` lists).
fn tool_calls(attrs: &str, body: &str) -> String {
    let mut calls: Vec<(String, Option<String>, Option<String>)> = Vec::new();
    if let Some(name) = attr(attrs, "name") {
        calls.push((name, attr(attrs, "arguments").map(|a| decoded(&a)), attr(attrs, "result").map(|r| decoded(&r))));
    } else if let Some(Value::Array(list)) = attr(attrs, "content").and_then(|c| serde_json::from_str(&c).ok()) {
        let results: Vec<Value> = attr(attrs, "results").and_then(|r| serde_json::from_str(&r).ok()).and_then(|r: Value| r.as_array().cloned()).unwrap_or_default();
        for call in &list {
            let id = call.get("id").and_then(Value::as_str);
            let result = results.iter().find(|r| id.is_some() && r.get("tool_call_id").and_then(Value::as_str) == id).and_then(|r| r.get("content"));
            let name = call.pointer("/function/name").and_then(Value::as_str).unwrap_or("a tool").to_owned();
            calls.push((name, call.pointer("/function/arguments").map(readable), result.map(readable)));
        }
    }
    let mut out = Vec::new();
    for (name, arguments, result) in calls {
        out.push(format!("**Tool call: {name}**"));
        out.extend(arguments.filter(|a| !a.trim().is_empty()).map(|a| fence("json", &a)));
        out.extend(result.filter(|r| !r.trim().is_empty()).map(|r| format!("Result:\n{}", fence("", &r))));
    }
    if out.is_empty() {
        out.push("**Tool call**".to_owned());
    }
    let body = unescape(unsummarized(body).trim());
    if !body.is_empty() {
        out.push(fence("", &body));
    }
    out.join("\n\n")
}

/// A `code_interpreter` block as text: the code (already fenced) and its
/// output.
fn code_run(attrs: &str, body: &str) -> String {
    let mut out = vec!["**Code run**".to_owned(), unsummarized(body).trim().to_owned()];
    if let Some(o) = attr(attrs, "output") {
        let text = match serde_json::from_str::<Value>(&o) {
            Ok(Value::Object(m)) => ["stdout", "stderr", "result"].iter().filter_map(|k| m.get(*k).and_then(Value::as_str)).filter(|t| !t.trim().is_empty()).collect::<Vec<_>>().join("\n"),
            Ok(other) => readable(&other),
            Err(_) => o,
        };
        if !text.trim().is_empty() {
            out.push(format!("Output:\n{}", fence("", &text)));
        }
    }
    out.retain(|p| !p.is_empty());
    out.join("\n\n")
}

/// `body` fenced as a code block of `lang`, with a fence longer than any
/// run of backticks in it.
fn fence(lang: &str, body: &str) -> String {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat(longest.max(2) + 1);
    format!("{ticks}{lang}\n{}\n{ticks}", body.trim_end_matches('\n'))
}

#[cfg(test)]
mod tests;
