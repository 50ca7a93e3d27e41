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

mod calls;
mod candidate;
mod json;
mod markers;
mod scan;

use scan::{Memo, floor_boundary, line_start_after, skip_json};

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
        Self { pending: String::new(), in_text_fence: false, skip: None, at_line_start: true, memo: Memo::default() }
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
const MARKERS: &[&str] = &[TOOL_CALL, TOOL_CALL_END, FUNCTION, PYTHON_TAG, TOOL_CALLS, FUNCTOOLS];

/// First keys that make an unmarked object worth holding until it ends.
const FIRST_KEYS: &[&str] = &["name", "function", "tool", "tool_name", "type", "id", "action", "tool_calls", "tool_call"];
/// Keys that name the tool, in order of preference.
const NAME_KEYS: &[&str] = &["name", "tool", "tool_name", "function", "action"];
/// Keys that hold the arguments, in order of preference. The last two are
/// too common in ordinary data to make unmarked JSON a call.
const ARG_KEYS: &[&str] = &["arguments", "parameters", "args", "tool_input", "action_input", "input", "params"];
const MARKED_ONLY_ARG_KEYS: &[&str] = &["input", "params"];
/// Fence languages whose blocks may hold unmarked calls.
const JSON_LANGS: &[&str] = &["", "json", "jsonc", "json5"];
/// Fence languages that mark a call.
const CALL_LANGS: &[&str] = &["tool_call", "tool_calls", "tool", "tool_code", "function", "function_call", "functions"];

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
}

/// Text and calls of a whole answer at once.
pub fn parse_all(text: &str) -> (String, Vec<PromptCall>) {
    let mut parser = PromptCallParser::new();
    let mut events = parser.feed(text);
    events.extend(parser.finish());
    merge(events)
}

/// The events as one text and the calls, in order.
fn merge(events: Vec<PromptEvent>) -> (String, Vec<PromptCall>) {
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

/// How `text` reads ([`parse_all`]), checked the ways a stream may cut it:
/// split in two at every char boundary, and fed a char at a time, it must
/// read the same; `Err` says where it did not.
pub fn read_every_way(text: &str) -> Result<(String, Vec<PromptCall>), String> {
    let whole = parse_all(text);
    let feed = |pieces: &mut dyn Iterator<Item = &str>| {
        let mut p = PromptCallParser::new();
        let mut events: Vec<PromptEvent> = pieces.flat_map(|piece| p.feed(piece)).collect();
        events.extend(p.finish());
        merge(events)
    };
    for (cut, _) in text.char_indices().chain([(text.len(), ' ')]) {
        if feed(&mut [&text[..cut], &text[cut..]].into_iter()) != whole {
            return Err(format!("split at byte {cut}"));
        }
    }
    let chars: Vec<String> = text.chars().map(String::from).collect();
    if feed(&mut chars.iter().map(String::as_str)) != whole {
        return Err("char by char".into());
    }
    Ok(whole)
}

#[cfg(test)]
mod tests;
