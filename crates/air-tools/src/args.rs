//! The model's argument text → a JSON object, forgiving the mistakes real
//! models make, and the canonical form used to spot repeated calls.
//!
//! Strict JSON is tried first, so well-formed arguments (nearly all of
//! them) cost one `serde_json` parse. Only when that fails is the text
//! repaired: one pass over the characters that rewrites what models get
//! wrong (single quotes, unquoted keys, trailing commas, Python literals,
//! raw newlines and stray backslashes inside strings) and keeps a map back
//! to the original characters, so an error still points into what the
//! model wrote.

use serde_json::{Map, Value};

/// Why arguments could not be read, precisely enough for the model to fix
/// its call.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgsError {
    /// 0-based character position in the text the model wrote, when known.
    pub position: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for ArgsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.position {
            // People and models count characters from 1.
            Some(p) => write!(f, "the arguments are not valid JSON at character {}: {}", p + 1, self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ArgsError {}

/// Reads arguments. Accepts, besides strict JSON: empty text (`{}`), `null`
/// (`{}`, what some models send for a tool without parameters), a Markdown
/// code fence around the JSON, the object written as a JSON string
/// (double encoding), and text the repair pass fixes (see the module
/// documentation). The result is always an object.
pub fn parse_arguments(raw: &str) -> Result<Value, ArgsError> {
    parse(raw, true)
}

/// `unwrap_strings`: whether a JSON string may hold the object (only at the
/// top, so `"\"{...}\""` is not unwrapped forever).
fn parse(raw: &str, unwrap_strings: bool) -> Result<Value, ArgsError> {
    let (offset, text) = body(raw);
    if text.is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    let strict = match serde_json::from_str::<Value>(text) {
        Ok(v) => return object(v, unwrap_strings),
        Err(e) => e,
    };
    let (repaired, map) = repair(text);
    let repaired_error = match serde_json::from_str::<Value>(&repaired) {
        Ok(v) => return object(v, unwrap_strings),
        Err(e) => e,
    };
    // Report whichever parse got further: the strict error may only be about
    // something the repair forgives (a single quote at character 2), while
    // the real mistake comes later.
    let strict_at = error_position(text, &strict);
    let repaired_at = error_position(&repaired, &repaired_error).map(|p| map.get(p).copied().unwrap_or(text.chars().count()));
    let (at, error) = match (strict_at, repaired_at) {
        (Some(s), Some(r)) if r > s => (Some(r), repaired_error),
        _ => (strict_at, strict),
    };
    Err(ArgsError { position: at.map(|p| p + offset), message: explain(&error) })
}

fn object(v: Value, unwrap_strings: bool) -> Result<Value, ArgsError> {
    match v {
        Value::Object(_) => Ok(v),
        Value::Null => Ok(Value::Object(Map::new())),
        Value::String(inner) if unwrap_strings => parse(&inner, false).map_err(|e| {
            // Say what is wrong inside only when the string was meant as an
            // object; "2 + 2" is just not an object.
            let meant = matches!(body(&inner).1.chars().next(), Some('{'));
            ArgsError {
                position: None,
                message: if meant { format!("the arguments must be a JSON object, not a string holding one ({e})") } else { "the arguments must be a JSON object, not a string".into() },
            }
        }),
        other => Err(ArgsError { position: None, message: format!("the arguments must be a JSON object, not {}", kind(&other)) }),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The text without surrounding whitespace and Markdown code fence, and
/// where it starts in `raw` (in characters, for error positions).
fn body(raw: &str) -> (usize, &str) {
    let trimmed = raw.trim_start();
    let mut start = raw.len() - trimmed.len();
    let mut text = trimmed.trim_end();
    if let Some(rest) = text.strip_prefix("```") {
        // An info string (`json`, `JSON5`, …) may follow the opening fence.
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
        let inner = rest.strip_suffix("```").unwrap_or(rest);
        let inner_trimmed = inner.trim_start();
        start += text.len() - rest.len() + inner.len() - inner_trimmed.len();
        text = inner_trimmed.trim_end();
    }
    (raw[..start].chars().count(), text)
}

/// One pass over `text` that rewrites what models get wrong into JSON:
/// single-quoted strings, unquoted keys, commas before `}` or `]`, Python's
/// `True`/`False`/`None`, raw control characters and unknown escapes inside
/// strings. Also returns, for each character of the output, the index of
/// the input character it came from (and one past the end), so errors in
/// the repaired text can be reported where the model wrote them.
fn repair(text: &str) -> (String, Vec<usize>) {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Out { text: String::with_capacity(text.len() + 8), map: Vec::with_capacity(chars.len() + 8) };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '"' | '\'' => i = repair_string(&chars, i, &mut out),
            ',' => {
                let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
                if !matches!(next, Some('}' | ']')) {
                    out.push(',', i);
                }
                i += 1;
            }
            c if c.is_alphabetic() || c == '_' || c == '$' => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let is_key = chars[i..].iter().find(|c| !c.is_whitespace()) == Some(&':');
                // A word right after a digit is an exponent (`1e5`), not a key.
                let in_number = start > 0 && chars[start - 1].is_ascii_digit();
                let replacement = match word.as_str() {
                    _ if is_key && !in_number => format!("\"{word}\""),
                    "True" => "true".into(),
                    "False" => "false".into(),
                    "None" => "null".into(),
                    _ => word,
                };
                out.push_str(&replacement, start);
            }
            other => {
                out.push(other, i);
                i += 1;
            }
        }
    }
    out.map.push(chars.len());
    (out.text, out.map)
}

/// The repaired text and where each of its characters came from.
struct Out {
    text: String,
    map: Vec<usize>,
}

impl Out {
    fn push(&mut self, c: char, from: usize) {
        self.text.push(c);
        self.map.push(from);
    }

    fn push_str(&mut self, s: &str, from: usize) {
        for c in s.chars() {
            self.push(c, from);
        }
    }
}

/// Copies the string starting at `chars[start]` (a `"` or `'`) as a JSON
/// string; returns the index after its closing quote.
fn repair_string(chars: &[char], start: usize, out: &mut Out) -> usize {
    let quote = chars[start];
    out.push('"', start);
    let mut i = start + 1;
    while i < chars.len() && chars[i] != quote {
        match chars[i] {
            '\\' => match chars.get(i + 1) {
                // `\'` is how a single-quoted string holds its quote.
                Some('\'') => {
                    out.push('\'', i);
                    i += 2;
                    continue;
                }
                Some(&e @ ('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u')) => {
                    out.push('\\', i);
                    out.push(e, i + 1);
                    i += 2;
                    continue;
                }
                // `\d` in a regular expression: the model meant a backslash.
                _ => out.push_str("\\\\", i),
            },
            '"' => out.push_str("\\\"", i),
            '\n' => out.push_str("\\n", i),
            '\r' => out.push_str("\\r", i),
            '\t' => out.push_str("\\t", i),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c)), i),
            c => out.push(c, i),
        }
        i += 1;
    }
    if i < chars.len() {
        out.push('"', i);
        i += 1;
    }
    i
}

/// Where in `text` (0-based, in characters) serde_json found `error`.
fn error_position(text: &str, error: &serde_json::Error) -> Option<usize> {
    // serde_json places "ended too early" on the last character; the place
    // to fix is after it.
    if error.is_eof() { Some(text.chars().count()) } else { char_position(text, error.line(), error.column()) }
}

/// serde_json's line and column (1-based; the column counts bytes, and
/// points at the offending character) → a 0-based character index.
fn char_position(text: &str, line: usize, column: usize) -> Option<usize> {
    if line == 0 {
        return None;
    }
    let mut chars_before = 0;
    for (n, l) in text.split('\n').enumerate() {
        if n + 1 == line {
            let mut byte = column.saturating_sub(1).min(l.len());
            while !l.is_char_boundary(byte) {
                byte -= 1;
            }
            return Some(chars_before + l[..byte].chars().count());
        }
        chars_before += l.chars().count() + 1;
    }
    None
}

/// serde_json's message, without its " at line 1 column 5" tail (the
/// position is given separately) and with its most common messages said in
/// terms of what to fix.
fn explain(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let message = match text.rfind(" at line ") {
        Some(i) => &text[..i],
        None => text.as_str(),
    };
    match message {
        "EOF while parsing an object" => "the text ends before the object is closed with `}`".into(),
        "EOF while parsing a list" => "the text ends before the array is closed with `]`".into(),
        "EOF while parsing a string" => "the text ends inside a string (a closing `\"` is missing)".into(),
        "EOF while parsing a value" => "the text ends where a value was expected".into(),
        "trailing characters" => "unexpected text after the end of the JSON".into(),
        "key must be a string" => "expected a property name in double quotes".into(),
        other => other.to_owned(),
    }
}

/// Canonical text of a value: object keys sorted at every level, no
/// whitespace. Two calls with the same canonical arguments are the same
/// call. (serde_json's maps are sorted already unless its `preserve_order`
/// feature is on somewhere in the build; sorting here does not depend on
/// that.)
pub fn canonical_json(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(v, &mut out);
    out
}

fn write_canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (n, (k, v)) in entries.into_iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_real_models_write_is_read() {
        let cases = [
            // Strict JSON.
            (r#"{"expression": "2+2"}"#, json!({"expression": "2+2"})),
            (r#"{"nested": {"a": [1, 2.5, "x", null, true]}}"#, json!({"nested": {"a": [1, 2.5, "x", null, true]}})),
            // Nothing, or null, for a tool without parameters.
            ("", json!({})),
            ("  \n\t", json!({})),
            ("null", json!({})),
            ("{}", json!({})),
            // Trailing commas.
            (r#"{"a": 1, "b": [1, 2,],}"#, json!({"a": 1, "b": [1, 2]})),
            ("{\"a\": 1 ,\n}", json!({"a": 1})),
            // Single quotes.
            (r#"{'city': 'Paris', 'note': 'it\'s'}"#, json!({"city": "Paris", "note": "it's"})),
            (r#"{'q': 'say "hi"'}"#, json!({"q": "say \"hi\""})),
            (r#"{"mixed": 'yes', 'n': 2}"#, json!({"mixed": "yes", "n": 2})),
            // Unquoted keys.
            (r#"{expression: "1+1"}"#, json!({"expression": "1+1"})),
            (r#"{ time_zone : 'Asia/Tokyo', $x: 1 }"#, json!({"time_zone": "Asia/Tokyo", "$x": 1})),
            (r#"{a: {b: [ {c: 1e5} ]}}"#, json!({"a": {"b": [{"c": 1e5}]}})),
            // Double encoding, also of repairable or fenced JSON.
            (r#""{\"a\": 1}""#, json!({"a": 1})),
            (r#""{'a': 1,}""#, json!({"a": 1})),
            (r#"  "{\"a\": {\"b\": \"c\"}}"  "#, json!({"a": {"b": "c"}})),
            (r#""""#, json!({})),
            // Code fences.
            ("```json\n{\"a\": 1}\n```", json!({"a": 1})),
            ("```\n{\"a\": 1}\n```", json!({"a": 1})),
            ("```JSON\r\n{'a': 1,}\r\n```\n", json!({"a": 1})),
            ("```json {\"a\": 1} ```", json!({"a": 1})),
            ("```{\"a\": 1}```", json!({"a": 1})),
            ("```json\n{\"a\": 1}", json!({"a": 1})),
            // Python literals, only outside strings.
            (r#"{"flag": True, "none": None, "off": False}"#, json!({"flag": true, "none": null, "off": false})),
            (r#"{"text": "True, and, commas,}"}"#, json!({"text": "True, and, commas,}"})),
            (r#"{'text': 'None of, these ]'}"#, json!({"text": "None of, these ]"})),
            // What strict JSON forbids inside strings.
            ("{\"code\": \"line 1\nline 2\ttab\"}", json!({"code": "line 1\nline 2\ttab"})),
            (r#"{"pattern": "\d+\.\d*", 'ok': "\n\u00e9"}"#, json!({"pattern": "\\d+\\.\\d*", "ok": "\né"})),
            // Non-ASCII text.
            (r#"{'ville': 'Zürich', '名前': '東京'}"#, json!({"ville": "Zürich", "名前": "東京"})),
        ];
        for (raw, want) in cases {
            assert_eq!(parse_arguments(raw), Ok(want), "{raw}");
        }
    }

    fn error(raw: &str) -> String {
        parse_arguments(raw).unwrap_err().to_string()
    }

    #[test]
    fn errors_say_where_and_what() {
        let e = parse_arguments(r#"{"a": 1 "b": 2}"#).unwrap_err();
        assert_eq!(e.position, Some(8));
        assert_eq!(e.to_string(), "the arguments are not valid JSON at character 9: expected `,` or `}`");
        let cases = [
            // Positions count characters of what the model wrote, fences,
            // whitespace and non-ASCII text included.
            ("  {\"a\": 1 \"b\": 2}", "the arguments are not valid JSON at character 11: expected `,` or `}`"),
            ("```json\n{\"a\": 1 \"b\": 2}\n```", "the arguments are not valid JSON at character 17: expected `,` or `}`"),
            (r#"{"é": "ü" "b": 2}"#, "the arguments are not valid JSON at character 11: expected `,` or `}`"),
            ("{\"a\": 1,\n \"b\" 2}", "the arguments are not valid JSON at character 15: expected `:`"),
            // A mistake after something the repair forgives is reported
            // where it is, not at the forgiven single quote.
            (r#"{'a': 1, 'b': 2 'c': 3}"#, "the arguments are not valid JSON at character 17: expected `,` or `}`"),
            ("{\"a\": ", "the arguments are not valid JSON at character 6: the text ends where a value was expected"),
            ("{\"a\": 1", "the arguments are not valid JSON at character 8: the text ends before the object is closed with `}`"),
            ("{\"a\": [1, 2}", "the arguments are not valid JSON at character 12: expected `,` or `]`"),
            ("{\"a\": \"text", "the arguments are not valid JSON at character 12: the text ends inside a string (a closing `\"` is missing)"),
            ("{\"a\": 1} and more", "the arguments are not valid JSON at character 10: unexpected text after the end of the JSON"),
            // Not an object.
            ("[1, 2]", "the arguments must be a JSON object, not an array"),
            ("42", "the arguments must be a JSON object, not a number"),
            ("true", "the arguments must be a JSON object, not a boolean"),
            ("\"2 + 2\"", "the arguments must be a JSON object, not a string"),
            (r#""\"[1]\"""#, "the arguments must be a JSON object, not a string"),
            (r#""{\"a\": 1""#, "the arguments must be a JSON object, not a string holding one (the arguments are not valid JSON at character 8: the text ends before the object is closed with `}`)"),
        ];
        for (raw, want) in cases {
            assert_eq!(error(raw), want, "{raw}");
        }
        assert!(parse_arguments("'").is_err());
        assert!(parse_arguments("{").is_err());
        assert!(parse_arguments("```").is_ok(), "an empty fence is no arguments");
    }

    #[test]
    fn positions_map_back_through_the_repair() {
        // The repair writes `"a"` for `a`; the error after it must still
        // point at the model's `3`.
        let e = parse_arguments("{a: 1, b: 2 3}").unwrap_err();
        assert_eq!(e.position, Some(12), "{e}");
        let e = parse_arguments("{'a': 'x',, 'b': 1}").unwrap_err();
        assert_eq!(e.position, Some(10), "{e}");
    }

    #[test]
    fn canonical_json_sorts_keys_everywhere() {
        let a = json!({"b": [{"y": 1, "x": 2}], "a": "s"});
        assert_eq!(canonical_json(&a), r#"{"a":"s","b":[{"x":2,"y":1}]}"#);
        let b = parse_arguments(r#"{ "a" : "s", "b": [ {"x":2, "y":1} ] }"#).unwrap();
        assert_eq!(canonical_json(&a), canonical_json(&b));
        let c = parse_arguments(r#"{b: [{y: 1, x: 2,}], 'a': 's'}"#).unwrap();
        assert_eq!(canonical_json(&a), canonical_json(&c), "a repaired call is the same call");
        assert_ne!(canonical_json(&a), canonical_json(&json!({"a": "s", "b": [{"x": 2, "y": 2}]})));
        // Keys and strings are escaped as JSON; scalars as serde_json writes them.
        assert_eq!(canonical_json(&json!({"q\"": "a\nb", "z": null, "é": [true, 1.5, -3]})), r#"{"q\"":"a\nb","z":null,"é":[true,1.5,-3]}"#);
        assert_eq!(canonical_json(&json!({})), "{}");
        assert_eq!(canonical_json(&json!([])), "[]");
    }

    proptest::proptest! {
        #[test]
        fn garbage_never_panics(chars in proptest::collection::vec(proptest::sample::select(&['{', '}', '"', '\'', ',', ':', '[', ']', 'a', '1', ' ', '\\', 'é', '`', '\n', 'T', 'e', 'u', '\t'][..]), 0..32)) {
            let s: String = chars.into_iter().collect();
            match parse_arguments(&s) {
                Ok(v) => proptest::prop_assert!(v.is_object(), "{s:?} → {v}"),
                Err(e) => {
                    if let Some(p) = e.position {
                        proptest::prop_assert!(p <= s.chars().count(), "{s:?}: position {p} is outside the text");
                    }
                }
            }
        }
    }
}
