//! Turning what the model wrote into [`PromptCall`]s: the calls inside a
//! marker, the calls a JSON value holds (with the rules for unmarked
//! JSON), and arguments written after a name.

use serde_json::{Map, Value};

use super::scan::{Memo, floor_boundary};
use super::{ARG_KEYS, FENCE, FUNCTION, FUNCTION_END, MARKED_ONLY_ARG_KEYS, MAX_KEY, NAME_KEYS, PromptCall, Step, json};

/// The calls inside a marker (a tag, a `tool_call` fence, after
/// `<|python_tag|>`): one object, several, an array, a fenced block, or
/// `<function=…>` forms. Text that is not calls is one unreadable call.
pub(super) fn marked_calls(inner: &str) -> Vec<PromptCall> {
    let inner = unfence(inner.trim());
    if inner.is_empty() {
        return Vec::new();
    }
    if inner.starts_with(FUNCTION) {
        let mut calls = Vec::new();
        let mut rest = inner;
        while rest.starts_with(FUNCTION) {
            match function_tag(rest, true, &mut Memo::default()) {
                Step::Calls(n, c) if n > 0 => {
                    calls.extend(c);
                    rest = rest[floor_boundary(rest, n)..].trim_start();
                }
                _ => return vec![unreadable(inner)],
            }
        }
        return if rest.is_empty() { calls } else { vec![unreadable(inner)] };
    }
    let Some((vals, rest)) = values(inner) else {
        return vec![unreadable(inner)];
    };
    let mut calls = Vec::new();
    for v in &vals {
        match calls_from_value(v, true) {
            Some(c) => calls.extend(c),
            None => return vec![unreadable(inner)],
        }
    }
    // Prose after the JSON inside the tag is dropped with the tag; a second
    // call that cannot be read is reported.
    let rest = rest.trim_start();
    if rest.starts_with(['{', '[']) {
        calls.push(unreadable(rest.trim_end()));
    }
    if calls.is_empty() { vec![unreadable(inner)] } else { calls }
}

pub(super) fn unreadable(raw: &str) -> PromptCall {
    PromptCall { name: String::new(), arguments: raw.to_owned() }
}

/// The inside of a ```` ``` ```` fence, if `text` is one.
fn unfence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix(FENCE) else {
        return text;
    };
    let body = match rest.find('\n') {
        Some(nl) => &rest[nl + 1..],
        None => rest,
    };
    body.trim_end().strip_suffix(FENCE).unwrap_or(body).trim()
}

/// JSON values one after another (separated by blanks, commas or
/// semicolons) at the start of `text`; the text after the last one. `None`
/// if not even the first can be read.
pub(super) fn values(text: &str) -> Option<(Vec<Value>, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        let next = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',' || c == ';');
        match json::parse_prefix(next) {
            Some((v, n)) if next.starts_with(['{', '[']) => {
                out.push(v);
                rest = &next[n..];
            }
            _ => break,
        }
    }
    (!out.is_empty()).then_some((out, rest))
}

/// The calls a JSON value holds, or `None` if it holds none. `marked`: the
/// model said it is a call (see the module notes).
pub(super) fn calls_from_value(v: &Value, marked: bool) -> Option<Vec<PromptCall>> {
    match v {
        Value::Array(items) if !items.is_empty() => items.iter().map(|i| call_from_object(i, marked)).collect(),
        Value::Object(obj) => match obj.get("tool_calls").or_else(|| obj.get("tool_call")) {
            // An OpenAI-style wrapper is a marker of its own.
            Some(Value::Array(items)) if !items.is_empty() => items.iter().map(|i| call_from_object(i, true)).collect(),
            Some(inner @ Value::Object(_)) => call_from_object(inner, true).map(|c| vec![c]),
            _ => call_from_object(v, marked).map(|c| vec![c]),
        },
        _ => None,
    }
}

fn call_from_object(v: &Value, marked: bool) -> Option<PromptCall> {
    let obj = v.as_object()?;
    // `{"function": {"name": …, "arguments": …}}` (OpenAI's shape, with or
    // without `"type": "function"` and an id beside it).
    if let Some(inner) = obj.get("function").and_then(Value::as_object) {
        let name = inner.get("name").and_then(Value::as_str)?;
        let args = ARG_KEYS.iter().find_map(|k| inner.get(*k).or_else(|| obj.get(*k)));
        if !marked && (inner.contains_key("description") || args.is_some_and(|a| a.get("properties").is_some())) {
            return None;
        }
        return named_call(name, args, marked);
    }
    let name = NAME_KEYS.iter().find_map(|k| obj.get(*k).and_then(Value::as_str))?;
    let args = ARG_KEYS.iter().filter(|k| marked || !MARKED_ONLY_ARG_KEYS.contains(k)).find_map(|k| obj.get(*k));
    if !marked && (obj.contains_key("description") || args.is_some_and(|a| a.get("properties").is_some() && a.get("type").is_some())) {
        // A tool's definition (name, description, JSON Schema), as a
        // model explaining tools writes it, not a call of it.
        return None;
    }
    if args.is_none() && marked {
        // `{"name": "calculator", "expression": "2+2"}`: small models put
        // the arguments beside the name.
        let extra: Map<String, Value> = obj.iter().filter(|(k, _)| !NAME_KEYS.contains(&k.as_str()) && !matches!(k.as_str(), "type" | "id")).map(|(k, v)| (k.clone(), v.clone())).collect();
        if !extra.is_empty() {
            return Some(PromptCall { name: name.to_owned(), arguments: Value::Object(extra).to_string() });
        }
    }
    named_call(name, args, marked)
}

fn named_call(name: &str, args: Option<&Value>, marked: bool) -> Option<PromptCall> {
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    if !marked {
        // Unmarked JSON must look like a call: an arguments key and a name
        // a tool could have.
        args?;
        if name.len() > MAX_KEY || !name.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/')) {
            return None;
        }
    }
    let arguments = match args {
        None | Some(Value::Null) => "{}".to_owned(),
        Some(Value::String(s)) if s.trim().is_empty() => "{}".to_owned(),
        // JSON written as a string: the caller's tolerant reader takes it.
        Some(Value::String(s)) => s.trim().to_owned(),
        Some(other) => other.to_string(),
    };
    Some(PromptCall { name: name.to_owned(), arguments })
}

/// Arguments written after a name (`<function=…>`, `[ARGS]`): valid JSON
/// as written, sloppy JSON made valid, Qwen3-Coder's `<parameter=…>` list
/// turned into an object, otherwise the text as written for the caller to
/// report.
pub(super) fn arguments_text(raw: &str) -> String {
    let raw = unfence(raw.trim());
    if raw.is_empty() {
        return "{}".to_owned();
    }
    if let Some(obj) = raw.starts_with("<parameter=").then(|| xml_parameters(raw)).flatten() {
        return Value::Object(obj).to_string();
    }
    if serde_json::from_str::<Value>(raw).is_ok_and(|v| !v.is_string()) {
        return raw.to_owned();
    }
    match json::parse(raw) {
        Some(Value::String(s)) => s,
        Some(v) => v.to_string(),
        None => raw.to_owned(),
    }
}

/// `<parameter=KEY>value</parameter>…`: each value is JSON if it reads as
/// JSON (numbers, booleans, objects), else the text itself.
fn xml_parameters(mut rest: &str) -> Option<Map<String, Value>> {
    let mut obj = Map::new();
    while let Some(after) = rest.strip_prefix("<parameter=") {
        let gt = after.find('>')?;
        let key = after[..gt].trim();
        let body = &after[gt + 1..];
        let close = body.find("</parameter>")?;
        let text = body[..close].trim();
        let value = json::parse(text).filter(|v| !v.is_string()).unwrap_or_else(|| Value::String(text.to_owned()));
        obj.insert(key.to_owned(), value);
        rest = body[close + "</parameter>".len()..].trim_start();
    }
    rest.is_empty().then_some(obj)
}

/// `<function=NAME>ARGS</function>` (Llama 3.1, and Qwen3-Coder's form with
/// `<parameter=KEY>` inside).
pub(super) fn function_tag(p: &str, end: bool, memo: &mut Memo) -> Step {
    let after = &p[FUNCTION.len()..];
    let mut name_end = None;
    for (i, c) in after.char_indices() {
        if c == '>' {
            name_end = Some(i);
            break;
        }
        if c.is_whitespace() || c == '<' || i > MAX_KEY {
            return Step::Text(FUNCTION.len());
        }
    }
    let Some(gt) = name_end else {
        return if end { Step::Text(FUNCTION.len()) } else { Step::Wait };
    };
    if gt == 0 {
        return Step::Text(FUNCTION.len());
    }
    let name = after[..gt].to_owned();
    let rest = &after[gt + 1..];
    let (args, used) = match memo.find(p, FUNCTION.len() + gt + 1, FUNCTION_END) {
        Some(i) => (&rest[..i], FUNCTION.len() + gt + 1 + i + FUNCTION_END.len()),
        None if end => (rest, p.len()),
        None => return Step::Wait,
    };
    Step::Calls(used, vec![PromptCall { name, arguments: arguments_text(args) }])
}
