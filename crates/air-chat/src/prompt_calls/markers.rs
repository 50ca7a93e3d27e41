//! Calls after an explicit marker: `<tool_call>` tags (closed or not),
//! `<function=NAME>`, and what follows `<|python_tag|>`, `[TOOL_CALLS]`
//! or `functools[`.

use super::calls::{arguments_text, calls_from_value, marked_calls, unreadable, values};
use super::scan::Memo;
use super::{FENCE, FUNCTION, MAX_KEY, PromptCall, Step, TOOL_CALL, TOOL_CALL_END};

/// `<tool_call>…</tool_call>`. The call ends at the closing tag, or at the
/// next `<tool_call>` (models forget to close one before the next), or, at
/// the end of the answer, after the JSON that follows it.
pub(super) fn tool_call_tag(p: &str, end: bool, memo: &mut Memo) -> Step {
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
            let calls: Option<Vec<PromptCall>> = vals.iter().map(|v| calls_from_value(v, true)).collect::<Option<Vec<_>>>().map(|c| c.into_iter().flatten().collect());
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

/// What follows `<|python_tag|>` or `[TOOL_CALLS]` (`skip` bytes of `p`):
/// JSON calls, or Mistral's `NAME[ARGS]{…}`. Anything else: the marker is
/// text.
pub(super) fn after_marker(p: &str, skip: usize, end: bool, memo: &mut Memo) -> Step {
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
    let name_len = body.find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))).unwrap_or(body.len());
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
        return if end { Step::Calls(p.len(), vec![PromptCall { name, arguments: "{}".into() }]) } else { Step::Wait };
    }
    match memo.balanced_end(p, args_at, true) {
        Some(n) => Step::Calls(args_at + n, vec![PromptCall { name, arguments: arguments_text(&args_trimmed[..n]) }]),
        None if end => Step::Calls(p.len(), vec![PromptCall { name, arguments: args_trimmed.trim().to_owned() }]),
        None => Step::Wait,
    }
}
