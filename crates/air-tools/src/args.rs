//! The model's argument text → a JSON object, forgiving the mistakes real
//! models make, and the canonical form used to spot repeated calls.

use serde_json::Value;

/// Why arguments could not be read, precisely enough for the model to fix
/// its call.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgsError {
    /// 0-based character position in the text, when known.
    pub position: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for ArgsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.position {
            Some(p) => write!(f, "the arguments are not valid JSON at character {}: {}", p + 1, self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ArgsError {}

/// Reads arguments: strict JSON first; then, in order, without a code
/// fence, as JSON inside a JSON string, and repaired (single quotes,
/// trailing commas, Python's `True`/`False`/`None`). The result must be an
/// object; empty text is `{}`.
pub fn parse_arguments(raw: &str) -> Result<Value, ArgsError> {
    let text = unfence(raw.trim());
    if text.is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    let first = match serde_json::from_str::<Value>(text) {
        Ok(v) => return object(unwrap_string(v)),
        Err(e) => e,
    };
    if let Ok(v) = serde_json::from_str::<Value>(&repair(text)) {
        return object(unwrap_string(v));
    }
    Err(ArgsError { position: char_position(text, first.line(), first.column()), message: strip_position(&first.to_string()) })
}

fn object(v: Value) -> Result<Value, ArgsError> {
    match v {
        Value::Object(_) => Ok(v),
        Value::Null => Ok(Value::Object(Default::default())),
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

/// `"{\"a\":1}"` (the object written as a JSON string) → the object.
fn unwrap_string(v: Value) -> Value {
    if let Value::String(s) = &v {
        if let Ok(inner @ Value::Object(_)) = serde_json::from_str::<Value>(unfence(s.trim())) {
            return inner;
        }
    }
    v
}

/// The inside of a Markdown code fence, if the text is one.
fn unfence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else { return text };
    let Some(body_start) = rest.find('\n') else { return text };
    let body = &rest[body_start + 1..];
    body.trim_end().strip_suffix("```").map(str::trim).unwrap_or(text)
}

/// Rewrites single-quoted strings as double-quoted, drops commas before
/// `}` or `]`, and turns Python literals into JSON, outside strings.
fn repair(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '"' | '\'' => {
                let quote = c;
                out.push('"');
                i += 1;
                while i < chars.len() && chars[i] != quote {
                    match chars[i] {
                        '\\' if i + 1 < chars.len() => {
                            if chars[i + 1] == '\'' {
                                out.push('\'');
                            } else {
                                out.push('\\');
                                out.push(chars[i + 1]);
                            }
                            i += 2;
                            continue;
                        }
                        '"' => out.push_str("\\\""),
                        other => out.push(other),
                    }
                    i += 1;
                }
                out.push('"');
                i += 1;
            }
            ',' => {
                let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
                if !matches!(next, Some('}') | Some(']')) {
                    out.push(',');
                }
                i += 1;
            }
            c if c.is_alphabetic() => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                match word.as_str() {
                    "True" => out.push_str("true"),
                    "False" => out.push_str("false"),
                    "None" => out.push_str("null"),
                    _ => out.push_str(&word),
                }
            }
            other => {
                out.push(other);
                i += 1;
            }
        }
    }
    out
}

fn char_position(text: &str, line: usize, column: usize) -> Option<usize> {
    if line == 0 {
        return None;
    }
    let mut pos = 0;
    for (n, l) in text.split('\n').enumerate() {
        if n + 1 == line {
            return Some(pos + column.saturating_sub(1).min(l.chars().count()));
        }
        pos += l.chars().count() + 1;
    }
    None
}

/// serde_json's message without its " at line 1 column 5" tail (the
/// position is given separately).
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

/// Canonical text of a value: object keys sorted at every level, no
/// whitespace. Two calls with the same canonical arguments are the same call.
pub fn canonical_json(v: &Value) -> String {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let items: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), canonical_json(&map[k])))
                .collect();
            format!("{{{}}}", items.join(","))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(canonical_json).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_real_models_write_is_read() {
        let cases = [
            (r#"{"expression": "2+2"}"#, json!({"expression": "2+2"})),
            ("", json!({})),
            ("  ", json!({})),
            ("null", json!({})),
            (r#"{"a": 1, "b": [1, 2,],}"#, json!({"a": 1, "b": [1, 2]})),
            (r#"{'city': 'Paris', 'note': 'it\'s'}"#, json!({"city": "Paris", "note": "it's"})),
            (r#"{'q': 'say "hi"'}"#, json!({"q": "say \"hi\""})),
            (r#""{\"a\": 1}""#, json!({"a": 1})),
            ("```json\n{\"a\": 1}\n```", json!({"a": 1})),
            ("```\n{\"a\": 1}\n```", json!({"a": 1})),
            (r#"{"flag": True, "none": None, "off": False}"#, json!({"flag": true, "none": null, "off": false})),
            (r#"{"text": "True, and, commas,}"}"#, json!({"text": "True, and, commas,}"})),
        ];
        for (raw, want) in cases {
            assert_eq!(parse_arguments(raw), Ok(want), "{raw}");
        }
    }

    #[test]
    fn errors_say_where_and_what() {
        let e = parse_arguments(r#"{"a": 1 "b": 2}"#).unwrap_err();
        assert_eq!(e.position, Some(8));
        assert_eq!(e.to_string(), "the arguments are not valid JSON at character 9: expected `,` or `}`");
        let e = parse_arguments("[1, 2]").unwrap_err();
        assert_eq!(e.to_string(), "the arguments must be a JSON object, not an array");
        assert!(parse_arguments("{\"a\": ").is_err());
        assert!(parse_arguments("'").is_err());
    }

    #[test]
    fn canonical_json_sorts_keys_everywhere() {
        let a = json!({"b": [{"y": 1, "x": 2}], "a": "s"});
        assert_eq!(canonical_json(&a), r#"{"a":"s","b":[{"x":2,"y":1}]}"#);
        let b = parse_arguments(r#"{ "a" : "s", "b": [ {"x":2, "y":1} ] }"#).unwrap();
        assert_eq!(canonical_json(&a), canonical_json(&b));
    }

    #[test]
    fn garbage_never_panics() {
        let mut seed = 7u64;
        for _ in 0..2000 {
            let len = (seed % 24) as usize;
            let s: String = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    ['{', '}', '"', '\'', ',', ':', '[', ']', 'a', '1', ' ', '\\', 'é', '`', '\n'][(seed >> 33) as usize % 15]
                })
                .collect();
            let _ = parse_arguments(&s);
        }
    }
}
