//! NextChat's (ChatGPT-Next-Web's) backup: one object holding the app's
//! stores by name, no version. The conversations are
//! `chat-next-web-store`'s `sessions` (read also when a store is the string
//! localStorage kept, or `{state, version}`). `access-control` holds API
//! keys: it is never read, only searched for a key, to say one stayed out;
//! `app-config`, `mask-store` and `prompt-store` are no conversations.
//!
//! A session is one list: each message follows the one before, ids from
//! the file (else its place, for old backups that left them out or used
//! one twice). Its mask's `context` (the preset prompt) and `memoryPrompt`
//! (a summary of older messages) were sent to the model but were not
//! messages of the chat: left out, counted hidden. Content is text or
//! parts; an image cannot come (a `/api/cache/…` URL lived only in that
//! app, a `data:` URL is not carried), so it becomes a line saying so, as
//! a tool call does. Dates are locale strings (`2024/5/3 14:22:05`,
//! `5/3/2024, 2:22:05 PM`, `03.05.2024, 14:22:05`…) in the user's time
//! zone, whose offset is found from the session's `lastUpdate` (UTC,
//! written with the last answer); a date not read is `lastUpdate`.

use std::borrow::Cow;
use std::collections::HashSet;

use air_chat::Role;
use air_store::export::{Export, ExportedSession};
use serde_json::Value;

use crate::lobechat::{civil_ms, fence, holds_keys, id_of, iso_ms, unique};
use crate::skipped::Skipped;
use crate::tree::{self, Conversation, Kept};
use crate::{Collected, Summary};

/// The store that holds the conversations.
const CHATS: &str = "chat-next-web-store";
/// Stores searched for no key (conversations, masks, prompts).
const NOT_SETTINGS: [&str; 3] = [CHATS, "mask-store", "prompt-store"];
/// A quarter of an hour, in milliseconds: time zones are whole quarters.
const QUARTER: f64 = 900_000.0;

/// Whether `v` is a NextChat backup, by its shape.
pub fn detect(v: &Value) -> bool {
    v.get(CHATS).is_some_and(|s| s.is_object() || s.is_string())
}

/// Every conversation of `files` (one file, or the parts of a split one).
pub fn convert(files: &[Value], now_ms: f64) -> (Export, Summary) {
    let mut all = Collected::default();
    for file in files {
        let Some(stores) = file.as_object() else {
            all.summary.skipped.push(Skipped::NotAnExport(crate::Source::NextChat));
            continue;
        };
        // Settings are never read: only whether they held a key.
        all.summary.keys_left_out |= stores.iter().filter(|(k, _)| !NOT_SETTINGS.contains(&k.as_str())).any(|(_, v)| holds_keys(&store(v)));
        let chats = stores.get(CHATS).map(store).unwrap_or_default();
        let list = chats.get("sessions").or_else(|| chats.pointer("/state/sessions")).and_then(Value::as_array);
        let Some(list) = list else {
            all.summary.skipped.push(Skipped::NoSessions(CHATS.to_owned()));
            continue;
        };
        for (i, s) in list.iter().enumerate() {
            let mut counts = Summary::default();
            let read = conversation(s, i, &mut counts);
            all.add(read, counts);
        }
    }
    all.done(now_ms)
}

/// A store as saved: an object, or the string localStorage kept it as.
fn store(v: &Value) -> Cow<'_, Value> {
    match v {
        Value::String(s) => Cow::Owned(serde_json::from_str(s).unwrap_or_default()),
        other => Cow::Borrowed(other),
    }
}

/// One session, its messages each following the one before.
fn conversation(s: &Value, index: usize, summary: &mut Summary) -> Result<ExportedSession, Skipped> {
    if !s.is_object() {
        return Err(Skipped::NotAnObject(index + 1));
    }
    let title = s.get("topic").and_then(Value::as_str).map(|t| tree::clean(t).trim().to_owned()).unwrap_or_default();
    let Some(messages) = s.get("messages").and_then(Value::as_array) else { return Err(Skipped::NoMessages { title, field: "messages" }) };
    let id = id_of(s.get("id")).unwrap_or_else(|| format!("#{index}"));
    let last_update = s.get("lastUpdate").and_then(Value::as_f64).filter(|t| t.is_finite() && *t > 0.0).unwrap_or(0.0);
    // Sent to the model with the chat, never shown in it.
    summary.hidden += s.pointer("/mask/context").and_then(Value::as_array).map_or(0, Vec::len);
    summary.hidden += usize::from(s.get("memoryPrompt").and_then(Value::as_str).is_some_and(|p| !p.trim().is_empty()));
    let model = s.pointer("/mask/modelConfig/model").and_then(Value::as_str);
    let dates: Vec<Option<f64>> = messages.iter().map(|m| m.get("date").and_then(Value::as_str).and_then(local_ms)).collect();
    let zone = offset(dates.iter().rev().flatten().next().copied(), last_update);
    let mut kept: Vec<Kept> = Vec::new();
    let mut taken = HashSet::new();
    for (i, (m, date)) in messages.iter().zip(&dates).enumerate() {
        let Some((role, text)) = read(m, summary) else {
            summary.hidden += 1;
            continue;
        };
        let node = unique(&id_of(m.get("id")).unwrap_or_else(|| format!("#{i}")), i, &mut taken);
        let at = date.map_or(last_update, |t| t - zone);
        let model = m.get("model").and_then(Value::as_str).or(model).map(str::trim).filter(|m| role == Role::Assistant && !m.is_empty());
        let parent = kept.last().map(|k| k.node.clone());
        kept.push(Kept { model: model.map(str::to_owned), ..Kept::new(node, parent, role, text, at) });
    }
    let created = kept.first().map_or(last_update, |k| k.at);
    let shown_end = kept.last().map(|k| k.node.clone());
    Ok(tree::session(Conversation { source: "nextchat", id, title, created, kept, shown_end }))
}

/// A message's role and text (parts, tool calls as text); `None` for a
/// system message or one with nothing to show.
fn read(m: &Value, summary: &mut Summary) -> Option<(Role, String)> {
    let role = match m.get("role").and_then(Value::as_str) {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        _ => return None,
    };
    let mut parts = Vec::new();
    match m.get("content") {
        Some(Value::String(s)) => parts.push(s.clone()),
        Some(Value::Array(a)) => parts.extend(a.iter().filter_map(|p| part(p, summary))),
        _ => {}
    }
    for t in m.get("tools").and_then(Value::as_array).into_iter().flatten() {
        summary.as_text += 1;
        parts.push(tool(t));
    }
    parts.retain(|p| !p.trim().is_empty());
    let text = tree::clean(&parts.join("\n\n"));
    (!text.trim().is_empty()).then_some((role, text))
}

/// A part of multimodal content: its text, or a line for what cannot come.
fn part(p: &Value, summary: &mut Summary) -> Option<String> {
    let kind = p.get("type").and_then(Value::as_str);
    if kind == Some("text") {
        return p.get("text").and_then(Value::as_str).map(str::to_owned);
    }
    summary.as_text += 1;
    if kind != Some("image_url") {
        return Some(format!("[{}: not carried over from NextChat]", kind.unwrap_or("A part")));
    }
    let url = p.pointer("/image_url/url").and_then(Value::as_str).unwrap_or_default();
    Some(if url.starts_with("https://") || url.starts_with("http://") {
        format!("[An image: {url}]")
    } else if url.starts_with("data:") {
        "[An image: not carried over from NextChat]".to_owned()
    } else {
        "[An image: it was kept in NextChat's cache, not in the backup]".to_owned()
    })
}

/// A tool call (an MCP or plugin call NextChat made) as text, with what it
/// returned.
fn tool(t: &Value) -> String {
    let name = t.pointer("/function/name").and_then(Value::as_str).map(str::trim).filter(|n| !n.is_empty()).unwrap_or("(unnamed)");
    let args = match t.pointer("/function/arguments") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
    };
    let mut out = format!("**Tool {name}** called with\n{}", fence("json", &args));
    if t.get("isError").and_then(Value::as_bool) == Some(true) {
        out.push_str(&format!("\n\nIt failed: {}", t.get("errorMsg").and_then(Value::as_str).unwrap_or_default()));
    } else if let Some(c) = t.get("content").and_then(Value::as_str).filter(|c| !c.trim().is_empty()) {
        out.push_str(&format!("\n\nIt returned:\n{}", fence("", c)));
    }
    out
}

/// The user's offset from UTC: how far the last date read (local time,
/// read as UTC) is from `lastUpdate` (UTC, written with the last answer),
/// when that is whole quarters of an hour (give or take two minutes) and
/// at most 14 hours; else 0 (the dates stay as written).
fn offset(last_local: Option<f64>, last_update: f64) -> f64 {
    let Some(local) = last_local.filter(|_| last_update > 0.0) else { return 0.0 };
    let diff = local - last_update;
    let quarters = (diff / QUARTER).round();
    if quarters.abs() <= 56.0 && (diff - quarters * QUARTER).abs() <= 120_000.0 { quarters * QUARTER } else { 0.0 }
}

/// Milliseconds of a date as `toLocaleString()` wrote it, read as if UTC:
/// ISO; year first (`2024/5/3 14:22:05`, `2024. 5. 3. 오후 2:22:05`); or
/// year last, the day first (`03/05/2024, 14:22:05`, `3.5.2024`) unless
/// the month cannot be the second or an upper-case `AM`/`PM` says it is
/// American (`5/3/2024, 2:22:05 PM`). Arabic-Indic and Persian digits,
/// and a 12-hour clock in English, Chinese, Japanese, Korean or Arabic.
fn local_ms(s: &str) -> Option<f64> {
    if let Some(t) = iso_ms(s) {
        return Some(t);
    }
    let mut nums: Vec<(i64, usize)> = Vec::new();
    let mut run: Option<(i64, usize)> = None;
    for c in s.chars() {
        let digit = match c {
            '0'..='9' => Some(u32::from(c) - u32::from('0')),
            '\u{660}'..='\u{669}' => Some(u32::from(c) - 0x660),
            '\u{6F0}'..='\u{6F9}' => Some(u32::from(c) - 0x6F0),
            _ => None,
        };
        match (digit, run) {
            (Some(_), Some((_, 9..))) => return None,
            (Some(d), Some((v, n))) => run = Some((v * 10 + i64::from(d), n + 1)),
            (Some(d), None) => run = Some((i64::from(d), 1)),
            (None, Some(x)) => {
                nums.push(x);
                run = None;
            }
            (None, None) => {}
        }
    }
    nums.extend(run);
    let marks: String = s.chars().filter(|c| !c.is_whitespace() && *c != '.').collect();
    let lower = marks.to_lowercase();
    let pm = lower.contains("pm") || ["下午", "午後", "오후", "م"].iter().any(|m| marks.contains(m));
    let am = lower.contains("am") || ["上午", "午前", "오전", "ص"].iter().any(|m| marks.contains(m));
    let american = marks.contains("AM") || marks.contains("PM");
    let [(a, a_len), (b, _), (c, c_len), (h, _), (mi, _), rest @ ..] = nums.as_slice() else { return None };
    let (y, mo, d) = match (a_len, c_len) {
        (4, _) => (*a, *b, *c),
        (_, 4) if *a > 12 || (*b <= 12 && !american) => (*c, *b, *a),
        (_, 4) => (*c, *a, *b),
        _ => return None,
    };
    let h = match *h {
        h if pm && h < 12 => h + 12,
        12 if am && !pm => 0,
        h => h,
    };
    let sec = rest.first().map_or(0, |s| s.0);
    if !(1970..=2200).contains(&y) {
        return None;
    }
    civil_ms(y, mo, d, h, *mi, sec as f64)
}

#[cfg(test)]
mod tests;
