//! Deciding what starts at the parser's cursor: where a call may begin,
//! and whether a marker, a fence or a bare `{`/`[` there is a call,
//! text, or not decided yet.

use super::calls::function_tag;
use super::calls::{calls_from_value, marked_calls, values};
use super::markers::{after_marker, tool_call_tag};
use super::scan::{skip_json, starts_or_prefix};
use super::{CALL_LANGS, FENCE, FIRST_KEYS, FUNCTION, FUNCTOOLS, JSON_LANGS, MARKERS, MAX_KEY, PYTHON_TAG, PromptCallParser, Skip, Step, TOOL_CALL, TOOL_CALL_END, TOOL_CALLS, json};

impl PromptCallParser {
    /// The first place in `p` where a call may start: a marker or a proper
    /// prefix of one, a fence (or its start) at a line start, `{` or `[`.
    pub(super) fn candidate_start(&self, p: &str) -> Option<usize> {
        let mut line_start = self.at_line_start;
        for (i, c) in p.char_indices() {
            match c {
                '{' | '[' => return Some(i),
                '<' | 'f' if MARKERS.iter().any(|m| starts_or_prefix(&p[i..], m)) => {
                    return Some(i);
                }
                '`' if line_start && starts_or_prefix(&p[i..], FENCE) => return Some(i),
                _ => {}
            }
            line_start = match c {
                '\n' => true,
                ' ' | '\t' => line_start,
                _ => false,
            };
        }
        None
    }

    /// Decides what starts at the beginning of `pending`, a candidate.
    pub(super) fn at_candidate(&mut self, p: &str, end: bool) -> Step {
        let first = p.chars().next().map_or(1, char::len_utf8);
        if p.starts_with(TOOL_CALL) {
            return tool_call_tag(p, end, &mut self.memo);
        }
        if p.starts_with(TOOL_CALL_END) {
            // A closing tag with no opening one (the model wrote the call
            // bare, then closed it): markup, not text.
            return Step::Calls(TOOL_CALL_END.len(), Vec::new());
        }
        if p.starts_with(FUNCTION) {
            return function_tag(p, end, &mut self.memo);
        }
        if p.starts_with(PYTHON_TAG) || p.starts_with(TOOL_CALLS) {
            let marker = if p.starts_with(PYTHON_TAG) { PYTHON_TAG } else { TOOL_CALLS };
            return after_marker(p, marker.len(), end, &mut self.memo);
        }
        if p.starts_with(FUNCTOOLS) {
            // The JSON array starts at the `[` of the marker.
            return after_marker(p, FUNCTOOLS.len() - 1, end, &mut self.memo);
        }
        if p.starts_with(FENCE) {
            return self.fence(p, end);
        }
        if !end && MARKERS.iter().chain([&FENCE]).any(|m| m.len() > p.len() && m.starts_with(p)) {
            return Step::Wait;
        }
        match p.as_bytes().first() {
            Some(b'{') | Some(b'[') => self.bare(p, end),
            _ => Step::Text(first),
        }
    }

    /// A `{` or `[` in the text: held if it may be a call, else given out.
    fn bare(&mut self, p: &str, end: bool) -> Step {
        let object = if let Some(after) = p.strip_prefix('[') {
            let inner = after.trim_start();
            if inner.is_empty() {
                return if end { Step::Text(1) } else { Step::Wait };
            }
            if !inner.starts_with('{') {
                return Step::Text(1);
            }
            inner
        } else {
            p
        };
        let (key, single) = match first_key(object) {
            FirstKey::Unknown if end => return Step::Text(1),
            FirstKey::Unknown => return Step::Wait,
            FirstKey::NotJson => return Step::Text(1),
            FirstKey::Key(key, quote) => (key, quote != '"'),
        };
        if !FIRST_KEYS.contains(&key.as_str()) {
            // JSON that is not a call: give it out as it comes, nested
            // objects included.
            let mut skip = Skip { depth: 0, quote: None, escaped: false, single };
            let (n, done) = skip_json(&mut skip, p);
            if !done {
                self.skip = Some(skip);
            }
            return Step::Text(n);
        }
        let Some(n) = self.memo.balanced_end(p, 0, single) else {
            return if end { Step::Text(1) } else { Step::Wait };
        };
        match json::parse(&p[..n]).and_then(|v| calls_from_value(&v, false)) {
            Some(calls) => Step::Calls(n, calls),
            None => Step::Text(n),
        }
    }

    /// A fence at a line start: a call if its block holds one, else text
    /// (given out as soon as that is clear).
    fn fence(&mut self, p: &str, end: bool) -> Step {
        let after = &p[FENCE.len()..];
        let Some(nl) = after.find('\n') else {
            // An info line too long for a language is prose after backticks.
            if end || after.len() > MAX_KEY {
                self.in_text_fence = true;
                return Step::Text(FENCE.len());
            }
            return Step::Wait;
        };
        let opener = FENCE.len() + nl + 1;
        let lang = after[..nl].split_whitespace().next().unwrap_or("").to_ascii_lowercase();
        let content = &p[opener..];
        let marked = CALL_LANGS.contains(&lang.as_str());
        let as_text = |me: &mut Self| {
            me.in_text_fence = true;
            Step::Text(opener)
        };
        if after[..nl].len() > MAX_KEY || !(marked || JSON_LANGS.contains(&lang.as_str())) {
            return as_text(self);
        }
        let body = content.trim_start();
        match body.as_bytes().first() {
            None if end => return as_text(self),
            None => return Step::Wait,
            Some(b'{') | Some(b'[') => {}
            Some(_) => return as_text(self),
        }
        if !marked {
            // Unmarked: only blocks that start like a call are held.
            let object = body.strip_prefix('[').map_or(body, str::trim_start);
            let key = if object.is_empty() { FirstKey::Unknown } else { first_key(object) };
            match key {
                FirstKey::Unknown if !end => return Step::Wait,
                FirstKey::Key(k, _) if FIRST_KEYS.contains(&k.as_str()) => {}
                _ => return as_text(self),
            }
        }
        let (inner, used) = match self.memo.find(p, opener, FENCE) {
            Some(i) => (&content[..i], opener + i + FENCE.len()),
            None if end => (content, p.len()),
            None => return Step::Wait,
        };
        let inner = inner.trim();
        if marked {
            return Step::Calls(used, marked_calls(inner));
        }
        match values(inner).filter(|(_, rest)| rest.trim().is_empty()) {
            Some((vals, _)) => match vals.iter().map(|v| calls_from_value(v, false)).collect::<Option<Vec<_>>>() {
                Some(calls) => Step::Calls(used, calls.into_iter().flatten().collect()),
                None => as_text(self),
            },
            None => as_text(self),
        }
    }

    /// Inside a fenced block that is text: up to and with its closing fence.
    pub(super) fn text_fence(&mut self, p: &str, end: bool) -> Step {
        let mut line_start = self.at_line_start;
        for (i, c) in p.char_indices() {
            if c == '`' && line_start {
                if p[i..].starts_with(FENCE) {
                    self.in_text_fence = false;
                    return Step::Text(i + FENCE.len());
                }
                if !end && FENCE.starts_with(&p[i..]) {
                    // Maybe the closing fence, still arriving.
                    return if i == 0 { Step::Wait } else { Step::Text(i) };
                }
            }
            line_start = match c {
                '\n' => true,
                ' ' | '\t' => line_start,
                _ => false,
            };
        }
        Step::Text(p.len())
    }
}

enum FirstKey {
    /// Not enough text yet.
    Unknown,
    /// Not the start of a JSON object.
    NotJson,
    /// The key, and the quote it was written with (`:` when bare).
    Key(String, char),
}

/// The first key of the object that starts `p` (`{ "key":`, `{'key':` or
/// `{key:`).
fn first_key(p: &str) -> FirstKey {
    let Some(rest) = p.strip_prefix('{') else {
        return FirstKey::NotJson;
    };
    let rest = rest.trim_start();
    let Some(q) = rest.chars().next() else {
        return FirstKey::Unknown;
    };
    if q == '"' || q == '\'' {
        let key = &rest[1..];
        return match key.find(q) {
            Some(i) if i <= MAX_KEY && !key[..i].contains('\n') => FirstKey::Key(key[..i].to_owned(), q),
            Some(_) => FirstKey::NotJson,
            None if key.len() > MAX_KEY || key.contains('\n') => FirstKey::NotJson,
            None => FirstKey::Unknown,
        };
    }
    if !(q.is_alphabetic() || q == '_') {
        return FirstKey::NotJson;
    }
    let len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
    if len > MAX_KEY {
        return FirstKey::NotJson;
    }
    let after = rest[len..].trim_start_matches([' ', '\t']);
    match after.chars().next() {
        None => FirstKey::Unknown,
        Some(':') => FirstKey::Key(rest[..len].to_owned(), ':'),
        Some(_) => FirstKey::NotJson,
    }
}
