//! Tool calls written as text, for models without native tool calls
//! ("prompt mode"): [`PromptCallParser`] reads a streamed answer and
//! separates what the user should see from the calls in it.
//!
//! Recognised, because real models write all of these:
//! * Hermes / Qwen: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`,
//!   several in a row, several objects or an array inside one tag, an
//!   unterminated tag at the end of the answer, `"parameters"` instead of
//!   `"arguments"`, a fence inside the tag, and Qwen3-Coder's
//!   `<function=NAME><parameter=KEY>value</parameter></function>` inside it;
//!   a stray `</tool_call>` is dropped.
//! * Fenced blocks: ```` ```json ````, ```` ``` ```` (call objects or an
//!   array of them) and ```` ```tool_call ```` / ```` ```tool_code ````.
//! * A bare call object in the text: `{"name": …, "arguments"|"parameters"|
//!   "args"|"input": …}`, `{"function": {"name": …, "arguments": …}}`,
//!   `{"tool": …, "tool_input": …}`, `{"action": …, "action_input": …}`,
//!   `{"tool_calls": [ … ]}`, or an array of calls.
//! * Llama 3.1: `<|python_tag|>{…}` and `<function=NAME>{…}</function>`.
//! * Mistral: `[TOOL_CALLS] [{…}]` and `[TOOL_CALLS]NAME[ARGS]{…}`.
//! * Firefunction: `functools[{…}]`.
//!
//! What decides that text is a call:
//! * Inside a marker (a tag, `<|python_tag|>`, `[TOOL_CALLS]`, a
//!   `tool_call` fence) the model said it is calling, so an object with a
//!   name is a call even without arguments (`{}`), top-level keys beside
//!   the name are taken as the arguments, and text that cannot be read is
//!   still a call: one with an empty `name` and the raw text as
//!   `arguments`, so the caller can tell the model exactly what it wrote.
//! * Unmarked JSON (bare, or in a `json` fence) is a call only with a name
//!   that looks like a tool name *and* an arguments key, so `{"name":
//!   "Alice"}` or a `package.json` in an answer stays text.
//! * The first key of an object decides whether it is held at all: an
//!   object that starts with another key is given out at once, with
//!   everything nested in it. Other fences (```` ```python ````) are given
//!   out at once too, and nothing inside them is read as a call.
//!
//! Sloppy JSON is read where it is cheap (single quotes, trailing commas,
//! unquoted keys, Python's `True`/`False`/`None`). Arguments inside a call
//! object come out as compact JSON text (keys sorted), or, when the model
//! wrote them as a string, as that string (usually JSON written as a
//! string); after `<function=NAME>` and `[ARGS]`, valid JSON is kept as
//! written, and text that is not JSON is passed on for the caller's
//! tolerant reader to judge.
//!
//! Streaming: text that may be the start of a call (a partial marker, a
//! fence whose first line is not complete, a `{` whose first key has not
//! arrived) is held back until it is decided. Every decision depends only on
//! the text, never on where the stream was cut, so any split of an answer
//! gives the same events once merged, and the text events together are the
//! answer minus the call spans. Nothing here panics on any input.

use serde_json::{Map, Value};

/// A call written as text. `arguments` is the JSON text of the arguments
/// (`{}` when there are none). An empty `name` means the model marked a
/// call whose JSON could not be read; `arguments` then holds the raw text.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptCall {
    pub name: String,
    pub arguments: String,
}

/// What [`PromptCallParser`] decided about a piece of the answer, in the
/// order of the answer.
#[derive(Debug, Clone, PartialEq)]
pub enum PromptEvent {
    /// Text for the user.
    Text(String),
    /// A complete call (its markup is not part of any text).
    Call(PromptCall),
}

/// Finds tool calls in a streamed answer. Feed it the text deltas in
/// order, then call [`finish`](Self::finish) once at the end.
#[derive(Debug)]
pub struct PromptCallParser {
    /// Text not decided yet.
    pending: String,
    /// Inside a fenced block that is not a call: everything up to the
    /// closing fence is text.
    in_text_fence: bool,
    /// Inside a JSON value that is not a call: text up to its end.
    skip: Option<Skip>,
    /// Only blanks since the last line break (fences open at a line start).
    at_line_start: bool,
    /// How far the searches for the end of the held candidate got.
    memo: Memo,
}

impl Default for PromptCallParser {
    fn default() -> Self {
        Self {
            pending: String::new(),
            in_text_fence: false,
            skip: None,
            at_line_start: true,
            memo: Memo::default(),
        }
    }
}

/// Where the parser is inside a JSON value it gives out as text.
#[derive(Debug, Clone, Copy)]
struct Skip {
    depth: usize,
    quote: Option<char>,
    escaped: bool,
    /// The value used single-quoted keys, so `'` opens strings too.
    single: bool,
}

/// What the searches for the end of a held candidate (a closing tag, the
/// end of a JSON value) found so far, so that each new piece of a long call
/// costs its own length, not the length of everything held. Keyed by where
/// the search starts in `pending`; cleared when `pending` loses its start.
#[derive(Debug, Default)]
struct Memo {
    /// (start, needle, bytes of `pending` searched without finding it).
    finds: Vec<(usize, &'static str, usize)>,
    /// (start, single quotes, bytes scanned, scan state).
    scan: Option<(usize, bool, usize, Skip)>,
}

impl Memo {
    /// Where `needle` first occurs in `p[start..]` (relative to `start`).
    fn find(&mut self, p: &str, start: usize, needle: &'static str) -> Option<usize> {
        let done = self
            .finds
            .iter()
            .find(|(s, n, _)| *s == start && *n == needle)
            .map(|&(_, _, upto)| upto);
        // An occurrence may straddle the end of what was searched.
        let from = floor_boundary(
            p,
            done.map_or(start, |upto| {
                upto.saturating_sub(needle.len() - 1).max(start)
            }),
        );
        match p.get(from..).and_then(|rest| rest.find(needle)) {
            Some(i) => Some(from + i - start),
            None => {
                self.finds
                    .retain(|(s, n, _)| !(*s == start && *n == needle));
                self.finds.push((start, needle, p.len()));
                None
            }
        }
    }

    /// Where the JSON value at `p[start..]` ends (relative to `start`).
    fn balanced_end(&mut self, p: &str, start: usize, single: bool) -> Option<usize> {
        let (from, mut skip) = match self.scan {
            Some((s, q, upto, skip)) if s == start && q == single => (upto, skip),
            _ => (
                start,
                Skip {
                    depth: 0,
                    quote: None,
                    escaped: false,
                    single,
                },
            ),
        };
        let rest = p.get(from..)?;
        match skip_json(&mut skip, rest) {
            (n, true) => Some(from + n - start),
            (_, false) => {
                self.scan = Some((start, single, p.len(), skip));
                None
            }
        }
    }
}

/// What one step decided about the start of `pending`.
enum Step {
    /// This many bytes are text.
    Text(usize),
    /// This many bytes are call markup: drop them, emit the calls.
    Calls(usize, Vec<PromptCall>),
    /// Not decided: more text is needed.
    Wait,
}

const TOOL_CALL: &str = "<tool_call>";
const TOOL_CALL_END: &str = "</tool_call>";
const FUNCTION: &str = "<function=";
const FUNCTION_END: &str = "</function>";
const PYTHON_TAG: &str = "<|python_tag|>";
const TOOL_CALLS: &str = "[TOOL_CALLS]";
const FUNCTOOLS: &str = "functools[";
const FENCE: &str = "```";

/// Every marker that starts a call; a proper prefix of one at the end of
/// the text is held back.
const MARKERS: &[&str] = &[
    TOOL_CALL,
    TOOL_CALL_END,
    FUNCTION,
    PYTHON_TAG,
    TOOL_CALLS,
    FUNCTOOLS,
];

/// First keys that make an unmarked object worth holding until it ends.
const FIRST_KEYS: &[&str] = &[
    "name",
    "function",
    "tool",
    "tool_name",
    "type",
    "id",
    "action",
    "tool_calls",
    "tool_call",
];
/// Keys that name the tool, in order of preference.
const NAME_KEYS: &[&str] = &["name", "tool", "tool_name", "function", "action"];
/// Keys that hold the arguments, in order of preference. The last two are
/// too common in ordinary data to make unmarked JSON a call.
const ARG_KEYS: &[&str] = &[
    "arguments",
    "parameters",
    "args",
    "tool_input",
    "action_input",
    "input",
    "params",
];
const MARKED_ONLY_ARG_KEYS: &[&str] = &["input", "params"];
/// Fence languages whose blocks may hold unmarked calls.
const JSON_LANGS: &[&str] = &["", "json", "jsonc", "json5"];
/// Fence languages that mark a call.
const CALL_LANGS: &[&str] = &[
    "tool_call",
    "tool_calls",
    "tool",
    "tool_code",
    "function",
    "function_call",
    "functions",
];

/// Longest first key (or fence info line) worth waiting for.
const MAX_KEY: usize = 64;

impl PromptCallParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next piece of the answer; returns what it decided.
    pub fn feed(&mut self, delta: &str) -> Vec<PromptEvent> {
        self.pending.push_str(delta);
        self.run(false)
    }

    /// The answer ended: everything held back is decided now (an
    /// unterminated `<tool_call>` is still a call; a partial marker is
    /// text). The parser is then ready for a new answer.
    pub fn finish(&mut self) -> Vec<PromptEvent> {
        let out = self.run(true);
        *self = Self::default();
        out
    }

    fn run(&mut self, end: bool) -> Vec<PromptEvent> {
        let mut out = Vec::new();
        let mut text = String::new();
        // Steps read from a cursor; `pending` is cut once at the end, so a
        // big piece with many small steps does not move its bytes each time.
        let buf = std::mem::take(&mut self.pending);
        let mut pos = 0;
        while pos < buf.len() {
            let p = &buf[pos..];
            match self.step(p, end) {
                Step::Text(n) if n > 0 => {
                    let piece = &p[..floor_boundary(p, n)];
                    self.at_line_start = line_start_after(self.at_line_start, piece);
                    text.push_str(piece);
                    pos += piece.len();
                }
                Step::Calls(n, calls) if n > 0 => {
                    if !text.is_empty() {
                        out.push(PromptEvent::Text(std::mem::take(&mut text)));
                    }
                    pos += floor_boundary(p, n);
                    // A call is a block of its own: a fence may follow it.
                    self.at_line_start = true;
                    out.extend(calls.into_iter().map(PromptEvent::Call));
                }
                // Waiting, or (never expected) no progress: at the end
                // nothing may stay behind, so the rest is text.
                _ => {
                    if end {
                        text.push_str(p);
                        pos = buf.len();
                    }
                    break;
                }
            }
            // The memo is about the text at the cursor, which moved.
            self.memo = Memo::default();
        }
        self.pending = buf;
        self.pending.drain(..pos);
        if !text.is_empty() {
            out.push(PromptEvent::Text(text));
        }
        out
    }

    fn step(&mut self, p: &str, end: bool) -> Step {
        if let Some(skip) = self.skip.as_mut() {
            let (n, done) = skip_json(skip, p);
            if done {
                self.skip = None;
            }
            return Step::Text(n);
        }
        if self.in_text_fence {
            return self.text_fence(p, end);
        }
        match self.candidate_start(p) {
            None => Step::Text(p.len()),
            Some(0) => self.at_candidate(p, end),
            Some(i) => Step::Text(i),
        }
    }

    /// The first place in `p` where a call may start: a marker or a proper
    /// prefix of one, a fence (or its start) at a line start, `{` or `[`.
    fn candidate_start(&self, p: &str) -> Option<usize> {
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
    fn at_candidate(&mut self, p: &str, end: bool) -> Step {
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
            let marker = if p.starts_with(PYTHON_TAG) {
                PYTHON_TAG
            } else {
                TOOL_CALLS
            };
            return after_marker(p, marker.len(), end, &mut self.memo);
        }
        if p.starts_with(FUNCTOOLS) {
            // The JSON array starts at the `[` of the marker.
            return after_marker(p, FUNCTOOLS.len() - 1, end, &mut self.memo);
        }
        if p.starts_with(FENCE) {
            return self.fence(p, end);
        }
        if !end
            && MARKERS
                .iter()
                .chain([&FENCE])
                .any(|m| m.len() > p.len() && m.starts_with(p))
        {
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
            let mut skip = Skip {
                depth: 0,
                quote: None,
                escaped: false,
                single,
            };
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
        let lang = after[..nl]
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
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
            let key = if object.is_empty() {
                FirstKey::Unknown
            } else {
                first_key(object)
            };
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
            Some((vals, _)) => match vals
                .iter()
                .map(|v| calls_from_value(v, false))
                .collect::<Option<Vec<_>>>()
            {
                Some(calls) => Step::Calls(used, calls.into_iter().flatten().collect()),
                None => as_text(self),
            },
            None => as_text(self),
        }
    }

    /// Inside a fenced block that is text: up to and with its closing fence.
    fn text_fence(&mut self, p: &str, end: bool) -> Step {
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

/// Advances through a JSON value given out as text; returns how many bytes
/// of `p` belong to it and whether it ended.
fn skip_json(skip: &mut Skip, p: &str) -> (usize, bool) {
    for (i, c) in p.char_indices() {
        if let Some(q) = skip.quote {
            if skip.escaped {
                skip.escaped = false;
            } else if c == '\\' {
                skip.escaped = true;
            } else if c == q {
                skip.quote = None;
            }
            continue;
        }
        match c {
            '"' => skip.quote = Some('"'),
            '\'' if skip.single => skip.quote = Some('\''),
            '{' | '[' => skip.depth += 1,
            '}' | ']' => {
                skip.depth = skip.depth.saturating_sub(1);
                if skip.depth == 0 {
                    return (i + 1, true);
                }
            }
            _ => {}
        }
    }
    (p.len(), false)
}

/// `<tool_call>…</tool_call>`. The call ends at the closing tag, or at the
/// next `<tool_call>` (models forget to close one before the next), or, at
/// the end of the answer, after the JSON that follows it.
fn tool_call_tag(p: &str, end: bool, memo: &mut Memo) -> Step {
    let body = &p[TOOL_CALL.len()..];
    let close = memo.find(p, TOOL_CALL.len(), TOOL_CALL_END);
    let next = memo.find(p, TOOL_CALL.len(), TOOL_CALL);
    let (inner, used) = match (close, next) {
        (Some(c), Some(n)) if n < c => (&body[..n], TOOL_CALL.len() + n),
        (Some(c), _) => (&body[..c], TOOL_CALL.len() + c + TOOL_CALL_END.len()),
        (None, Some(n)) => (&body[..n], TOOL_CALL.len() + n),
        (None, None) if !end => return Step::Wait,
        (None, None) => return unterminated_tag(p),
    };
    Step::Calls(used, marked_calls(inner))
}

/// A `<tool_call>` still open when the answer ended: the JSON after it is
/// the call, and any text after that JSON is text again. A tag ending its
/// line, then prose, is a call the model failed to write: the tag is
/// markup and goes, the prose is text. A tag within a sentence is the
/// model talking about it: text.
fn unterminated_tag(p: &str) -> Step {
    let body = &p[TOOL_CALL.len()..];
    let trimmed = body.trim();
    if trimmed.is_empty() {
        return Step::Calls(p.len(), Vec::new());
    }
    if trimmed.starts_with(FUNCTION) || trimmed.starts_with(FENCE) {
        return Step::Calls(p.len(), marked_calls(trimmed));
    }
    if !trimmed.starts_with(['{', '[']) {
        let own_line = body.trim_start_matches([' ', '\t']).starts_with(['\n', '\r']);
        return if own_line { Step::Calls(TOOL_CALL.len(), Vec::new()) } else { Step::Text(TOOL_CALL.len()) };
    }
    let ws = body.len() - body.trim_start().len();
    match values(&body[ws..]) {
        Some((vals, rest)) => {
            let calls: Option<Vec<PromptCall>> = vals
                .iter()
                .map(|v| calls_from_value(v, true))
                .collect::<Option<Vec<_>>>()
                .map(|c| c.into_iter().flatten().collect());
            match calls {
                // Blanks after the call end the answer: they go with it.
                Some(calls) if rest.trim().is_empty() => Step::Calls(p.len(), calls),
                Some(calls) => Step::Calls(p.len() - rest.len(), calls),
                None => Step::Calls(p.len(), vec![unreadable(trimmed)]),
            }
        }
        None => Step::Calls(p.len(), vec![unreadable(trimmed)]),
    }
}

/// `<function=NAME>ARGS</function>` (Llama 3.1, and Qwen3-Coder's form with
/// `<parameter=KEY>` inside).
fn function_tag(p: &str, end: bool, memo: &mut Memo) -> Step {
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
        return if end {
            Step::Text(FUNCTION.len())
        } else {
            Step::Wait
        };
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
    Step::Calls(
        used,
        vec![PromptCall {
            name,
            arguments: arguments_text(args),
        }],
    )
}

/// What follows `<|python_tag|>` or `[TOOL_CALLS]` (`skip` bytes of `p`):
/// JSON calls, or Mistral's `NAME[ARGS]{…}`. Anything else: the marker is
/// text.
fn after_marker(p: &str, skip: usize, end: bool, memo: &mut Memo) -> Step {
    let rest = &p[skip..];
    let body = rest.trim_start();
    let at = skip + (rest.len() - body.len());
    if body.is_empty() {
        return if end { Step::Text(skip) } else { Step::Wait };
    }
    if body.starts_with(['{', '[']) {
        return match memo.balanced_end(p, at, true) {
            Some(n) => Step::Calls(at + n, marked_calls(&body[..n])),
            None if end => Step::Calls(p.len(), vec![unreadable(body.trim())]),
            None => Step::Wait,
        };
    }
    // Mistral (v11 and later): `get_weather[ARGS]{"city": "Paris"}`,
    // possibly with `[CALL_ID]abc123` before `[ARGS]`.
    let name_len = body
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .unwrap_or(body.len());
    if name_len == 0 || name_len > MAX_KEY {
        return Step::Text(skip);
    }
    let tail = &body[name_len..];
    let args_at = if tail.starts_with("[ARGS]") {
        "[ARGS]".len()
    } else if tail.starts_with("[CALL_ID]") {
        match tail.find("[ARGS]") {
            Some(i) if i < "[CALL_ID]".len() + MAX_KEY => i + "[ARGS]".len(),
            Some(_) => return Step::Text(skip),
            None if end || tail.len() > "[CALL_ID]".len() + MAX_KEY => return Step::Text(skip),
            None => return Step::Wait,
        }
    } else if !end && ("[ARGS]".starts_with(tail) || "[CALL_ID]".starts_with(tail)) {
        return Step::Wait;
    } else {
        return Step::Text(skip);
    };
    let args = &tail[args_at..];
    let args_trimmed = args.trim_start();
    let args_at = at + name_len + args_at + (args.len() - args_trimmed.len());
    let name = body[..name_len].to_owned();
    if args_trimmed.is_empty() {
        return if end {
            Step::Calls(
                p.len(),
                vec![PromptCall {
                    name,
                    arguments: "{}".into(),
                }],
            )
        } else {
            Step::Wait
        };
    }
    match memo.balanced_end(p, args_at, true) {
        Some(n) => Step::Calls(
            args_at + n,
            vec![PromptCall {
                name,
                arguments: arguments_text(&args_trimmed[..n]),
            }],
        ),
        None if end => Step::Calls(
            p.len(),
            vec![PromptCall {
                name,
                arguments: args_trimmed.trim().to_owned(),
            }],
        ),
        None => Step::Wait,
    }
}

/// The calls inside a marker (a tag, a `tool_call` fence, after
/// `<|python_tag|>`): one object, several, an array, a fenced block, or
/// `<function=…>` forms. Text that is not calls is one unreadable call.
fn marked_calls(inner: &str) -> Vec<PromptCall> {
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
        return if rest.is_empty() {
            calls
        } else {
            vec![unreadable(inner)]
        };
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
    if calls.is_empty() {
        vec![unreadable(inner)]
    } else {
        calls
    }
}

fn unreadable(raw: &str) -> PromptCall {
    PromptCall {
        name: String::new(),
        arguments: raw.to_owned(),
    }
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
fn values(text: &str) -> Option<(Vec<Value>, &str)> {
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
fn calls_from_value(v: &Value, marked: bool) -> Option<Vec<PromptCall>> {
    match v {
        Value::Array(items) if !items.is_empty() => {
            items.iter().map(|i| call_from_object(i, marked)).collect()
        }
        Value::Object(obj) => match obj.get("tool_calls").or_else(|| obj.get("tool_call")) {
            // An OpenAI-style wrapper is a marker of its own.
            Some(Value::Array(items)) if !items.is_empty() => {
                items.iter().map(|i| call_from_object(i, true)).collect()
            }
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
        let args = ARG_KEYS
            .iter()
            .find_map(|k| inner.get(*k).or_else(|| obj.get(*k)));
        if !marked
            && (inner.contains_key("description")
                || args.is_some_and(|a| a.get("properties").is_some()))
        {
            return None;
        }
        return named_call(name, args, marked);
    }
    let name = NAME_KEYS
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str))?;
    let args = ARG_KEYS
        .iter()
        .filter(|k| marked || !MARKED_ONLY_ARG_KEYS.contains(k))
        .find_map(|k| obj.get(*k));
    if !marked
        && (obj.contains_key("description")
            || args.is_some_and(|a| a.get("properties").is_some() && a.get("type").is_some()))
    {
        // A tool's definition (name, description, JSON Schema), as a
        // model explaining tools writes it, not a call of it.
        return None;
    }
    if args.is_none() && marked {
        // `{"name": "calculator", "expression": "2+2"}`: small models put
        // the arguments beside the name.
        let extra: Map<String, Value> = obj
            .iter()
            .filter(|(k, _)| {
                !NAME_KEYS.contains(&k.as_str()) && !matches!(k.as_str(), "type" | "id")
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !extra.is_empty() {
            return Some(PromptCall {
                name: name.to_owned(),
                arguments: Value::Object(extra).to_string(),
            });
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
        if name.len() > MAX_KEY
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/'))
        {
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
    Some(PromptCall {
        name: name.to_owned(),
        arguments,
    })
}

/// Arguments written after a name (`<function=…>`, `[ARGS]`): valid JSON
/// as written, sloppy JSON made valid, Qwen3-Coder's `<parameter=…>` list
/// turned into an object, otherwise the text as written for the caller to
/// report.
fn arguments_text(raw: &str) -> String {
    let raw = unfence(raw.trim());
    if raw.is_empty() {
        return "{}".to_owned();
    }
    if let Some(obj) = raw
        .starts_with("<parameter=")
        .then(|| xml_parameters(raw))
        .flatten()
    {
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
        let value = json::parse(text)
            .filter(|v| !v.is_string())
            .unwrap_or_else(|| Value::String(text.to_owned()));
        obj.insert(key.to_owned(), value);
        rest = body[close + "</parameter>".len()..].trim_start();
    }
    rest.is_empty().then_some(obj)
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
            Some(i) if i <= MAX_KEY && !key[..i].contains('\n') => {
                FirstKey::Key(key[..i].to_owned(), q)
            }
            Some(_) => FirstKey::NotJson,
            None if key.len() > MAX_KEY || key.contains('\n') => FirstKey::NotJson,
            None => FirstKey::Unknown,
        };
    }
    if !(q.is_alphabetic() || q == '_') {
        return FirstKey::NotJson;
    }
    let len = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
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

/// Whether `p` starts with `marker`, or is a proper start of it.
fn starts_or_prefix(p: &str, marker: &str) -> bool {
    p.starts_with(marker) || (p.len() < marker.len() && marker.starts_with(p))
}

fn line_start_after(mut line_start: bool, text: &str) -> bool {
    for c in text.chars() {
        line_start = match c {
            '\n' => true,
            ' ' | '\t' => line_start,
            _ => false,
        };
    }
    line_start
}

/// `n`, moved back to a char boundary (steps only cut at boundaries; this
/// keeps a mistake from becoming a panic).
fn floor_boundary(s: &str, mut n: usize) -> usize {
    n = n.min(s.len());
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// Text and calls of a whole answer at once.
pub fn parse_all(text: &str) -> (String, Vec<PromptCall>) {
    let mut parser = PromptCallParser::new();
    let mut events = parser.feed(text);
    events.extend(parser.finish());
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

/// A forgiving JSON reader for what models write inside calls: strict JSON
/// plus single-quoted strings, unquoted keys, trailing commas, raw line
/// breaks in strings and Python's `True`/`False`/`None`. Nesting is limited
/// so that no input can exhaust the stack.
mod json {
    use serde_json::{Map, Number, Value};

    const MAX_DEPTH: usize = 64;

    /// The whole text as one value.
    pub(super) fn parse(text: &str) -> Option<Value> {
        if let Ok(v) = serde_json::from_str(text) {
            return Some(v);
        }
        let (v, n) = parse_prefix(text.trim())?;
        text.trim()[n..].trim().is_empty().then_some(v)
    }

    /// One value at the start of `text`, and how many bytes it took.
    pub(super) fn parse_prefix(text: &str) -> Option<(Value, usize)> {
        let mut r = Reader { s: text, i: 0 };
        let v = r.value(0)?;
        Some((v, r.i))
    }

    struct Reader<'a> {
        s: &'a str,
        i: usize,
    }

    impl Reader<'_> {
        fn peek(&self) -> Option<char> {
            self.s[self.i..].chars().next()
        }

        fn bump(&mut self) -> Option<char> {
            let c = self.peek()?;
            self.i += c.len_utf8();
            Some(c)
        }

        fn ws(&mut self) {
            while self.peek().is_some_and(char::is_whitespace) {
                self.bump();
            }
        }

        fn value(&mut self, depth: usize) -> Option<Value> {
            if depth > MAX_DEPTH {
                return None;
            }
            self.ws();
            match self.peek()? {
                '{' => self.object(depth),
                '[' => self.array(depth),
                q @ ('"' | '\'') => self.string(q).map(Value::String),
                c if c == '-' || c == '+' || c == '.' || c.is_ascii_digit() => self.number(),
                c if c.is_alphabetic() => match self.word().as_str() {
                    "true" | "True" => Some(Value::Bool(true)),
                    "false" | "False" => Some(Value::Bool(false)),
                    "null" | "None" => Some(Value::Null),
                    _ => None,
                },
                _ => None,
            }
        }

        fn object(&mut self, depth: usize) -> Option<Value> {
            self.bump();
            let mut map = Map::new();
            loop {
                self.ws();
                match self.peek()? {
                    '}' => {
                        self.bump();
                        return Some(Value::Object(map));
                    }
                    q @ ('"' | '\'') => {
                        let key = self.string(q)?;
                        self.entry(key, &mut map, depth)?;
                    }
                    c if c.is_alphabetic() || c == '_' => {
                        let key = self.word();
                        self.entry(key, &mut map, depth)?;
                    }
                    _ => return None,
                }
                self.ws();
                match self.bump()? {
                    ',' => {}
                    '}' => return Some(Value::Object(map)),
                    _ => return None,
                }
            }
        }

        fn entry(&mut self, key: String, map: &mut Map<String, Value>, depth: usize) -> Option<()> {
            self.ws();
            if self.bump()? != ':' {
                return None;
            }
            let v = self.value(depth + 1)?;
            map.insert(key, v);
            Some(())
        }

        fn array(&mut self, depth: usize) -> Option<Value> {
            self.bump();
            let mut items = Vec::new();
            loop {
                self.ws();
                if self.peek()? == ']' {
                    self.bump();
                    return Some(Value::Array(items));
                }
                items.push(self.value(depth + 1)?);
                self.ws();
                match self.bump()? {
                    ',' => {}
                    ']' => return Some(Value::Array(items)),
                    _ => return None,
                }
            }
        }

        fn word(&mut self) -> String {
            let start = self.i;
            while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
                self.bump();
            }
            self.s[start..self.i].to_owned()
        }

        fn number(&mut self) -> Option<Value> {
            let start = self.i;
            while self
                .peek()
                .is_some_and(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E'))
            {
                self.bump();
            }
            let text = &self.s[start..self.i];
            if let Ok(n) = serde_json::from_str::<Number>(text) {
                return Some(Value::Number(n));
            }
            // `+1`, `.5`, `1.`: what JSON forbids but a number all the same.
            let f: f64 = text.parse().ok()?;
            Number::from_f64(f).map(Value::Number)
        }

        fn string(&mut self, quote: char) -> Option<String> {
            self.bump();
            let mut out = String::new();
            loop {
                match self.bump()? {
                    c if c == quote => return Some(out),
                    '\\' => match self.bump()? {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        'r' => out.push('\r'),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        'u' => out.push(self.unicode()?),
                        other => out.push(other),
                    },
                    c => out.push(c),
                }
            }
        }

        /// The 4 hex digits after `\u` (and a low surrogate after a high
        /// one); an unpaired surrogate becomes U+FFFD.
        fn unicode(&mut self) -> Option<char> {
            let hi = self.hex4()?;
            if !(0xD800..0xDC00).contains(&hi) {
                return Some(char::from_u32(hi).unwrap_or('\u{FFFD}'));
            }
            if self.s[self.i..].starts_with("\\u") {
                let save = self.i;
                self.i += 2;
                if let Some(lo) = self.hex4().filter(|lo| (0xDC00..0xE000).contains(lo)) {
                    return Some(
                        char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                            .unwrap_or('\u{FFFD}'),
                    );
                }
                self.i = save;
            }
            Some('\u{FFFD}')
        }

        fn hex4(&mut self) -> Option<u32> {
            let digits = self.s.get(self.i..self.i + 4)?;
            let v = u32::from_str_radix(digits, 16).ok()?;
            self.i += 4;
            Some(v)
        }
    }
}

#[cfg(test)]
mod tests;
