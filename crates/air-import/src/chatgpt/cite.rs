//! ChatGPT's citation marks made Markdown links.
//!
//! Older exports write `【0†Rust Book†doc.rust-lang.org】` (or
//! `【3†source】`) in the text, with `metadata.citations` giving each
//! mark's place (`start_ix`, `end_ix`, in characters) and its page
//! (`metadata.title`, `metadata.url`). Newer ones write private-use
//! characters: `\u{e200}cite\u{e202}turn0search0\u{e201}` (several
//! sources: more `\u{e202}`-separated ids), with
//! `metadata.content_references` giving each mark (`matched_text`) its
//! pages (`items`: `title`, `url`) or ChatGPT's own Markdown for it
//! (`alt`); `\u{e200}entity\u{e202}[kind, "Name", …]\u{e201}` is a name
//! shown as it is, and `\u{e203}`/`\u{e204}` mark out the text cited.
//! A mark becomes a link to its page when the metadata has the address,
//! else its title and domain as text (`Rust Book (doc.rust-lang.org)`); a mark that says nothing
//! (`【3†source】` with no metadata) goes.

use std::collections::HashMap;

use serde_json::Value;

/// `text` with its citation marks made links, from `metadata` (the
/// message's).
pub fn cited(text: &str, metadata: Option<&Value>) -> String {
    let known = references(text, metadata);
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((start, end, open)) = next_mark(rest) {
        out.push_str(&rest[..start]);
        let mark = &rest[start..end];
        let made = known.get(mark).cloned().unwrap_or_else(|| unknown(mark, open));
        rest = &rest[end..];
        // A link apart from the words around it (an entity is a word).
        let apart = !made.is_empty() && !mark.starts_with("\u{e200}entity");
        if apart && out.chars().next_back().is_some_and(|c| !c.is_whitespace()) {
            out.push(' ');
        }
        out.push_str(&made);
        if apart && rest.chars().next().is_some_and(char::is_alphanumeric) {
            out.push(' ');
        }
    }
    out.push_str(rest);
    out.replace(['\u{e203}', '\u{e204}'], "")
}

/// The next mark of `text`: where it starts and ends, and its opening
/// character; a mark left open is no mark.
fn next_mark(text: &str) -> Option<(usize, usize, char)> {
    let (start, open) = text.char_indices().find(|(_, c)| matches!(c, '【' | '\u{e200}'))?;
    let close = if open == '【' { '】' } else { '\u{e201}' };
    let len = text[start..].find(close)?;
    Some((start, start + len + close.len_utf8(), open))
}

/// What the metadata says each mark of `text` becomes.
fn references(text: &str, metadata: Option<&Value>) -> HashMap<String, String> {
    let mut known = HashMap::new();
    let list = |k: &str| metadata.and_then(|m| m.get(k)).and_then(Value::as_array).into_iter().flatten();
    for r in list("content_references") {
        let Some(matched) = r.get("matched_text").and_then(Value::as_str).filter(|m| !m.is_empty()) else { continue };
        let links: Vec<String> = r.get("items").and_then(Value::as_array).into_iter().flatten().filter_map(|i| page(i.get("title"), i.get("url"))).collect();
        let made = if !links.is_empty() { format!("({})", links.join(", ")) } else { r.get("alt").and_then(Value::as_str).unwrap_or_default().trim().to_owned() };
        known.insert(matched.to_owned(), made);
    }
    let chars: Vec<char> = text.chars().collect();
    for c in list("citations") {
        let at = |k: &str| c.get(k).and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok());
        let (Some(start), Some(end)) = (at("start_ix"), at("end_ix")) else { continue };
        let Some(matched) = chars.get(start..end).map(|m| m.iter().collect::<String>()) else { continue };
        let meta = c.get("metadata");
        if let Some(link) = page(meta.and_then(|m| m.get("title")), meta.and_then(|m| m.get("url"))) {
            known.insert(matched, link);
        }
    }
    known
}

/// A page as a Markdown link (its address http or https), else its title.
fn page(title: Option<&Value>, url: Option<&Value>) -> Option<String> {
    let url = url.and_then(Value::as_str).map(str::trim).filter(|u| u.starts_with("https://") || u.starts_with("http://"));
    let title = title.and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty());
    match (title, url) {
        (t, Some(url)) => Some(format!("[{}]({})", escape(t.unwrap_or(url)), url.replace(' ', "%20").replace('(', "%28").replace(')', "%29"))),
        (Some(t), None) => Some(escape(t)),
        (None, None) => None,
    }
}

/// `text` with what would end or start a link's text escaped.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('[', "\\[").replace(']', "\\]")
}

/// A mark the metadata does not explain: `【0†title†domain】` as its
/// title and domain, an entity as its name, anything else gone.
fn unknown(mark: &str, open: char) -> String {
    if open == '【' {
        let inner = mark.trim_start_matches('【').trim_end_matches('】');
        let fields: Vec<&str> = inner.split('†').map(str::trim).collect();
        return match fields.as_slice() {
            [_, title, domain, ..] if !title.is_empty() && !domain.is_empty() => format!("{} ({})", escape(title), escape(domain)),
            [_, title] if !title.is_empty() && *title != "source" => escape(title),
            _ => String::new(),
        };
    }
    let inner = mark.trim_start_matches('\u{e200}').trim_end_matches('\u{e201}');
    match inner.split_once('\u{e202}') {
        Some(("entity", json)) => serde_json::from_str::<Value>(json).ok().and_then(|v| v.get(1).and_then(Value::as_str).map(escape)).unwrap_or_default(),
        _ => String::new(),
    }
}
