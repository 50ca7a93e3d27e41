//! Tool calling for models without native tool calls ("prompt mode"): the
//! tools are described in the system prompt, the model writes its calls as
//! text, and [`CallParser`] finds them in the stream.
//!
//! Recognised, because real models write all of these: Hermes/Qwen
//! `<tool_call>{…}</tool_call>` (also unterminated at the end, or holding an
//! array); fenced ```` ```json ```` (or ```` ```tool_call ````) blocks
//! holding a call or an array of calls; a bare `{"name": …, "arguments":
//! …}` object in the text (also with `parameters`, `{"function": {…}}` and
//! `{"tool": …, "tool_input"/"args": …}`); Llama 3.1 `<|python_tag|>{…}`
//! and `<function=NAME>{…}</function>`; Mistral `[TOOL_CALLS] [ … ]`;
//! `functools[ … ]`.
//!
//! Text that may be the start of a call is held back until it is decided,
//! then given out as text if it was not one; everything else is given out
//! as it arrives. Concatenating the text events gives the input minus the
//! calls.

use serde_json::Value;

/// A call written as text. `arguments` is the JSON text of the arguments
/// (`{}` when none). A call whose JSON could not be read has an empty
/// `name` and the raw text in `arguments`, so the caller can tell the
/// model exactly what went wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptCall {
    pub name: String,
    pub arguments: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PromptEvent {
    Text(String),
    Call(PromptCall),
}

/// Markers that start a call, and what ends it.
const TAGS: &[(&str, Option<&str>)] = &[
    ("<tool_call>", Some("</tool_call>")),
    ("<function=", Some("</function>")),
    ("<|python_tag|>", None),
    ("[TOOL_CALLS]", None),
    ("functools", None),
    ("```", Some("```")),
];

/// Finds tool calls in a streamed answer.
#[derive(Debug, Default)]
pub struct CallParser {
    /// Text not given out yet.
    pending: String,
    /// Inside a fenced block that is not a call: give it out as it comes
    /// until the closing fence.
    in_text_fence: bool,
}

enum Step {
    /// Give out this much text and go on.
    Text(usize),
    /// These bytes are calls (and markers): drop them, emit the calls.
    Calls(usize, Vec<PromptCall>),
    /// Not decided: wait for more text.
    Wait,
}

impl CallParser {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn feed(&mut self, delta: &str) -> Vec<PromptEvent> {
        self.pending.push_str(delta);
        self.run(false)
    }

    /// The answer ended: whatever was held back is decided now.
    pub fn finish(&mut self) -> Vec<PromptEvent> {
        self.run(true)
    }

    fn run(&mut self, end: bool) -> Vec<PromptEvent> {
        let mut out: Vec<PromptEvent> = Vec::new();
        let mut text = String::new();
        loop {
            if self.pending.is_empty() {
                break;
            }
            match self.step(end) {
                // Everything left may still become a marker: wait.
                Step::Text(0) => break,
                Step::Text(n) => {
                    text.push_str(&self.pending[..n]);
                    self.pending.drain(..n);
                }
                Step::Calls(n, calls) => {
                    if !text.is_empty() {
                        out.push(PromptEvent::Text(std::mem::take(&mut text)));
                    }
                    out.extend(calls.into_iter().map(PromptEvent::Call));
                    self.pending.drain(..n);
                }
                Step::Wait => break,
            }
        }
        if !text.is_empty() {
            out.push(PromptEvent::Text(text));
        }
        out
    }

    fn step(&mut self, end: bool) -> Step {
        let p = self.pending.as_str();
        if self.in_text_fence {
            let (step, closed) = match p.find("```") {
                Some(i) => (Step::Text(i + 3), true),
                // Keep a possible partial fence at the end.
                None if end => (Step::Text(p.len()), false),
                None => (Step::Text(p.len() - partial_suffix(p, "```")), false),
            };
            if closed {
                self.in_text_fence = false;
            }
            return step;
        }
        // The first place a call could start.
        let Some(start) = candidate_start(p) else {
            return Step::Text(p.len() - if end { 0 } else { held_suffix(p) });
        };
        if start > 0 {
            return Step::Text(start);
        }
        let first = p.chars().next().map_or(1, char::len_utf8);
        match self.at_candidate(end) {
            Some(step) => step,
            // Not a call after all: give out its first character and look on.
            None => Step::Text(first),
        }
    }

    /// Decides a candidate at the start of `pending`: `None` if it is text.
    fn at_candidate(&mut self, end: bool) -> Option<Step> {
        let p = self.pending.as_str();
        for (open, close) in TAGS {
            if !p.starts_with(open) {
                continue;
            }
            let body = &p[open.len()..];
            return match (*open, close) {
                ("```", _) => self.fence(end),
                ("<function=", Some(close)) => {
                    let Some(gt) = body.find('>') else { return (!end).then_some(Step::Wait) };
                    let name = body[..gt].trim().to_owned();
                    let rest = &body[gt + 1..];
                    match rest.find(close) {
                        Some(i) => {
                            let args = rest[..i].trim();
                            let arguments = if args.is_empty() { "{}".to_owned() } else { args.to_owned() };
                            Some(Step::Calls(open.len() + gt + 1 + i + close.len(), vec![PromptCall { name, arguments }]))
                        }
                        None if end => Some(Step::Calls(p.len(), vec![PromptCall { name, arguments: rest.trim().to_owned() }])),
                        None => Some(Step::Wait),
                    }
                }
                (_, Some(close)) => match body.find(close) {
                    Some(i) => Some(Step::Calls(open.len() + i + close.len(), calls_in(&body[..i]))),
                    // An unterminated tag at the end holds a call all the same.
                    None if end => Some(Step::Calls(p.len(), calls_in(body))),
                    None => Some(Step::Wait),
                },
                // A marker with no end of its own: drop it; the JSON after it
                // is then found as a bare call.
                (_, None) => {
                    let ws = body.len() - body.trim_start().len();
                    if body.trim_start().is_empty() && !end {
                        return Some(Step::Wait);
                    }
                    let next = body.trim_start();
                    if next.starts_with('{') || next.starts_with('[') {
                        Some(Step::Calls(open.len() + ws, Vec::new()))
                    } else {
                        None
                    }
                }
            };
        }
        // A marker may still be arriving.
        if !end && TAGS.iter().any(|(open, _)| open.len() > p.len() && open.starts_with(p)) {
            return Some(Step::Wait);
        }
        if p.starts_with('{') || p.starts_with('[') {
            return bare(p, end);
        }
        None
    }

    /// A fenced block: a call if its language says JSON (or nothing) and
    /// it holds call objects; otherwise text, given out as it comes.
    fn fence(&mut self, end: bool) -> Option<Step> {
        let p = self.pending.as_str();
        let body = &p[3..];
        let Some(nl) = body.find('\n') else { return if end { None } else { Some(Step::Wait) } };
        let lang = body[..nl].trim().to_ascii_lowercase();
        let content = &body[nl + 1..];
        let first = content.trim_start().chars().next();
        let maybe = matches!(lang.as_str(), "" | "json" | "tool_call" | "tool_code" | "tool");
        match first {
            None if !end => return Some(Step::Wait),
            Some('{') | Some('[') if maybe => {}
            _ => {
                self.in_text_fence = true;
                return Some(Step::Text(3 + nl + 1));
            }
        }
        let Some(close) = content.find("```") else { return if end { None } else { Some(Step::Wait) } };
        let calls = calls_from_json(content[..close].trim());
        match calls {
            Some(calls) if !calls.is_empty() => Some(Step::Calls(3 + nl + 1 + close + 3, calls)),
            _ => {
                self.in_text_fence = true;
                Some(Step::Text(3 + nl + 1))
            }
        }
    }
}

/// A bare JSON object (or array) at the start of `p`: a call if it is one.
fn bare(p: &str, end: bool) -> Option<Step> {
    // Decide early from the first key, so prose with braces is not held.
    if p.starts_with('{') {
        match first_key(p) {
            Key::Unknown if !end => return Some(Step::Wait),
            Key::Is(k) if matches!(k.as_str(), "name" | "function" | "tool" | "tool_name") => {}
            _ => return None,
        }
    } else {
        let inner = p[1..].trim_start();
        if inner.is_empty() && !end {
            return Some(Step::Wait);
        }
        if !inner.starts_with('{') {
            return None;
        }
        match first_key(inner) {
            Key::Unknown if !end => return Some(Step::Wait),
            Key::Is(k) if matches!(k.as_str(), "name" | "function" | "tool" | "tool_name") => {}
            _ => return None,
        }
    }
    match balanced_end(p) {
        Some(n) => match calls_from_json(&p[..n]) {
            Some(calls) if !calls.is_empty() => Some(Step::Calls(n, calls)),
            _ => None,
        },
        None if end => None,
        None => Some(Step::Wait),
    }
}

enum Key {
    Unknown,
    None,
    Is(String),
}

/// The first key of an object starting at `p` (`{ "key"`).
fn first_key(p: &str) -> Key {
    let rest = p[1..].trim_start();
    let Some(q) = rest.chars().next() else { return Key::Unknown };
    if q != '"' && q != '\'' {
        return Key::None;
    }
    match rest[1..].find(q) {
        Some(i) => Key::Is(rest[1..1 + i].to_owned()),
        None if rest.len() > 40 => Key::None,
        None => Key::Unknown,
    }
}

/// Where the JSON value starting at `p` ends (after its closing bracket),
/// respecting strings; `None` if it has not ended yet.
fn balanced_end(p: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_str: Option<char> = None;
    let mut escaped = false;
    for (i, c) in p.char_indices() {
        if let Some(q) = in_str {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                in_str = None;
            }
            continue;
        }
        match c {
            '"' => in_str = Some('"'),
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The earliest position in `p` where a call could start.
fn candidate_start(p: &str) -> Option<usize> {
    let mut best: Option<usize> = None;
    let mut consider = |i: usize| best = Some(best.map_or(i, |b: usize| b.min(i)));
    for (open, _) in TAGS {
        if let Some(i) = p.find(open) {
            consider(i);
        }
    }
    if let Some(i) = p.find('{') {
        consider(i);
    }
    // A `[` opens a call array only right after a marker; on its own, only
    // when a `{` follows.
    if let Some(i) = p.match_indices('[').map(|(i, _)| i).find(|&i| p[i + 1..].trim_start().starts_with('{')) {
        consider(i);
    }
    best
}

/// How many bytes at the end of `p` could be the start of a marker.
fn held_suffix(p: &str) -> usize {
    TAGS.iter().map(|(open, _)| partial_suffix(p, open)).max().unwrap_or(0).max(if p.ends_with('[') { 1 } else { 0 })
}

/// The longest end of `p` that is a proper start of `marker`.
fn partial_suffix(p: &str, marker: &str) -> usize {
    (1..marker.len()).rev().find(|&n| p.len() >= n && p.is_char_boundary(p.len() - n) && marker.starts_with(&p[p.len() - n..])).unwrap_or(0)
}

/// The calls inside a tag: one object, several, or an array; unreadable
/// JSON gives one call with no name and the raw text.
fn calls_in(inner: &str) -> Vec<PromptCall> {
    let inner = inner.trim();
    if inner.is_empty() {
        return Vec::new();
    }
    if let Some(calls) = calls_from_json_as(inner, true) {
        return calls;
    }
    // Several objects one after another.
    let mut calls = Vec::new();
    let mut rest = inner;
    while let Some(n) = rest.trim_start().starts_with('{').then(|| balanced_end(rest.trim_start())).flatten() {
        let t = rest.trim_start();
        match calls_from_json_as(&t[..n], true) {
            Some(c) => calls.extend(c),
            None => break,
        }
        rest = &t[n..];
    }
    if !calls.is_empty() && rest.trim().is_empty() {
        return calls;
    }
    vec![PromptCall { name: String::new(), arguments: inner.to_owned() }]
}

/// The calls a JSON text holds, or `None` if it is not JSON or not calls.
/// `explicit`: the text was marked as a call (a tag), so an object with a
/// name and no arguments is a call without arguments. Unmarked JSON must
/// have both, or a `{"name": …}` in an ordinary answer would be taken for
/// a call.
fn calls_from_json_as(text: &str, explicit: bool) -> Option<Vec<PromptCall>> {
    let v: Value = serde_json::from_str(text).ok().or_else(|| serde_json::from_str(&strip_trailing_commas(text)).ok())?;
    match v {
        Value::Array(items) => {
            let calls: Option<Vec<PromptCall>> = items.iter().map(|i| call_from_value(i, explicit)).collect();
            calls.filter(|c| !c.is_empty())
        }
        other => call_from_value(&other, explicit).map(|c| vec![c]),
    }
}

fn calls_from_json(text: &str) -> Option<Vec<PromptCall>> {
    calls_from_json_as(text, false)
}

/// Drops commas right before `}` or `]` (outside strings): the mistake
/// models make most in JSON.
fn strip_trailing_commas(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_str = false;
    let mut escaped = false;
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if in_str {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
        } else if c == '"' {
            in_str = true;
        } else if c == ',' && matches!(chars[i + 1..].iter().find(|c| !c.is_whitespace()), Some('}') | Some(']')) {
            continue;
        }
        out.push(c);
    }
    out
}

fn call_from_value(v: &Value, explicit: bool) -> Option<PromptCall> {
    let obj = v.as_object()?;
    if let Some(f) = obj.get("function").filter(|f| f.is_object()) {
        return call_from_value(f, true);
    }
    let name = ["name", "tool", "tool_name"].iter().find_map(|k| obj.get(*k).and_then(Value::as_str))?;
    let args = ["arguments", "parameters", "args", "tool_input", "input"].iter().find_map(|k| obj.get(*k));
    if args.is_none() && !explicit {
        return None;
    }
    let arguments = match args {
        None | Some(Value::Null) => "{}".to_owned(),
        Some(Value::String(s)) if s.trim().is_empty() => "{}".to_owned(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    Some(PromptCall { name: name.to_owned(), arguments })
}

/// Text and calls of a whole answer at once.
pub fn parse_all(text: &str) -> (String, Vec<PromptCall>) {
    let mut p = CallParser::new();
    let mut events = p.feed(text);
    events.extend(p.finish());
    let mut visible = String::new();
    let mut calls = Vec::new();
    for e in events {
        match e {
            PromptEvent::Text(t) => visible.push_str(&t),
            PromptEvent::Call(c) => calls.push(c),
        }
    }
    (visible, calls)
}

// ---- the prompt -------------------------------------------------------------

/// What the model is told about one tool.
#[derive(Debug, Clone)]
pub struct PromptTool<'a> {
    pub name: &'a str,
    pub description: &'a str,
    /// JSON Schema of the arguments.
    pub parameters: &'a Value,
    /// e.g. `read-only`, `destructive`, `idempotent`.
    pub hints: Vec<&'static str>,
}

/// The system-prompt section that lists the tools and says how to call
/// them. Compact (it costs context on every request) and deterministic.
pub fn tools_system_prompt(tools: &[PromptTool<'_>]) -> String {
    let mut s = String::from(
        "# Tools\n\nYou can call tools. To call one, write exactly:\n<tool_call>{\"name\": \"TOOL_NAME\", \"arguments\": {ARGUMENTS AS JSON}}</tool_call>\nWrite one <tool_call> block per call; several are allowed. Then stop and wait: the results come back in <tool_response> blocks. Use them to answer the user. Do not make up results. If no tool is needed, just answer.\n\nAvailable tools:\n",
    );
    for t in tools {
        s.push_str(&format!("\n## {}\n{}\n", t.name, t.description.trim()));
        let params = describe_parameters(t.parameters);
        if params.is_empty() {
            s.push_str("Parameters: none\n");
        } else {
            s.push_str("Parameters:\n");
            s.push_str(&params);
        }
        if !t.hints.is_empty() {
            s.push_str(&format!("Hints: {}\n", t.hints.join(", ")));
        }
    }
    if let Some(first) = tools.first() {
        let example = example_arguments(first.parameters);
        s.push_str(&format!("\nExample:\n<tool_call>{{\"name\": \"{}\", \"arguments\": {example}}}</tool_call>\n", first.name));
    }
    s
}

fn type_of(schema: &Value) -> String {
    let base = match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" or "),
        _ if schema.get("enum").is_some() => "string".into(),
        _ => "any".into(),
    };
    if base == "array" {
        if let Some(items) = schema.get("items") {
            return format!("array of {}", type_of(items));
        }
    }
    base
}

/// `- name (type, required): description`, required ones first, then the
/// rest by name.
fn describe_parameters(schema: &Value) -> String {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else { return String::new() };
    let required: Vec<&str> = schema.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let mut names: Vec<&String> = props.keys().collect();
    names.sort_by_key(|n| (!required.contains(&n.as_str()), n.as_str()));
    let mut out = String::new();
    for name in names {
        let p = &props[name];
        let req = if required.contains(&name.as_str()) { "required" } else { "optional" };
        let mut line = format!("- {name} ({}, {req})", type_of(p));
        if let Some(d) = p.get("description").and_then(Value::as_str) {
            line.push_str(&format!(": {}", d.trim()));
        }
        if let Some(e) = p.get("enum").and_then(Value::as_array) {
            let values: Vec<String> = e.iter().map(Value::to_string).collect();
            line.push_str(&format!(" (one of {})", values.join(", ")));
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Arguments for the example call: the required parameters with a
/// placeholder of their type.
fn example_arguments(schema: &Value) -> String {
    let mut obj = serde_json::Map::new();
    let required: Vec<&str> = schema.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for name in required {
            let v = match props.get(name).map(type_of).as_deref() {
                Some("number") | Some("integer") => Value::from(1),
                Some("boolean") => Value::Bool(true),
                _ => Value::String("...".into()),
            };
            obj.insert(name.to_owned(), v);
        }
    }
    Value::Object(obj).to_string()
}

/// A call as the model wrote it, for the history of later requests.
/// Written in the very form the prompt asks for (name first).
pub fn call_text(name: &str, arguments: &str) -> String {
    let args: Value = serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_owned()));
    format!("<tool_call>{{\"name\": {}, \"arguments\": {args}}}</tool_call>", Value::String(name.to_owned()))
}

/// A result as the model reads it (in a user message).
pub fn result_text(name: &str, output: &str) -> String {
    format!("<tool_response name=\"{name}\">\n{}\n</tool_response>", output.trim())
}

#[cfg(test)]
mod tests;
