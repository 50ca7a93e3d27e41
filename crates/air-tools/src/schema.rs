//! Arguments against a tool's input schema (JSON Schema, drafts 7 and
//! 2020-12: the keywords tool schemas use).
//!
//! A focused validator rather than a general one: the keywords that
//! describe tool arguments (types, properties, required, enums, bounds,
//! composition, local `$ref`), with messages written for the model that has
//! to correct its call. `format` and `pattern` are not checked (a regex
//! engine would cost more of the bundle than it catches in practice).

use serde_json::{Map, Value};

/// One way the arguments miss the schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// JSON pointer of the offending value, `""` for the arguments object.
    pub path: String,
    /// What was expected.
    pub message: String,
}

/// Checks `value` against `schema`; every violation found, or `Ok`.
/// A schema that is not understood accepts everything (never panics).
pub fn validate(schema: &Value, value: &Value) -> Result<(), Vec<Violation>> {
    let mut out = Vec::new();
    check(schema, schema, value, "", &mut out, 0);
    if out.is_empty() { Ok(()) } else { Err(out) }
}

/// One text for the model: each field and what was expected, and what to do.
pub fn describe(violations: &[Violation]) -> String {
    let lines: Vec<String> = violations
        .iter()
        .map(|v| if v.path.is_empty() { format!("- {}", v.message) } else { format!("- `{}`: {}", v.path, v.message) })
        .collect();
    format!("{}\nCall the tool again with corrected arguments.", lines.join("\n"))
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn is_type(v: &Value, t: &str) -> bool {
    match t {
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => v.is_number(),
        other => type_name(v) == other || (other == "number" && type_name(v) == "integer"),
    }
}

fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 { format!("{}…", s.chars().take(40).collect::<String>()) } else { s }
}

fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

fn check(root: &Value, schema: &Value, value: &Value, path: &str, out: &mut Vec<Violation>, depth: usize) {
    // Deep or cyclic `$ref`s stop here instead of overflowing the stack.
    if depth > 32 {
        return;
    }
    let Some(s) = schema.as_object() else {
        if schema == &Value::Bool(false) {
            out.push(Violation { path: path.into(), message: "no value is allowed here".into() });
        }
        return;
    };
    // `$ref` beside other keywords is allowed in 2020-12: both apply.
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        if let Some(target) = resolve(root, r) {
            check(root, target, value, path, out, depth + 1);
        }
    }
    let mut found = Vec::new();
    let mut push = |message: String| found.push(Violation { path: path.into(), message });
    let mut push_out = Vec::new();
    if let Some(t) = s.get("type") {
        let types: Vec<&str> = match t {
            Value::String(t) => vec![t.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !types.is_empty() && !types.iter().any(|t| is_type(value, t)) {
            push(format!("expected {}, got {} {}", types.join(" or "), type_name(value), show(value)));
            out.extend(found);
            return;
        }
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        if !e.contains(value) {
            let options: Vec<String> = e.iter().map(show).collect();
            push(format!("expected one of {}, got {}", options.join(", "), show(value)));
        }
    }
    if let Some(c) = s.get("const") {
        if c != value {
            push(format!("expected {}, got {}", show(c), show(value)));
        }
    }
    if let Some(x) = value.as_f64() {
        let num = |k: &str| s.get(k).and_then(Value::as_f64);
        if let Some(m) = num("minimum").filter(|m| x < *m) {
            push(format!("expected a number ≥ {m}, got {x}"));
        }
        if let Some(m) = num("maximum").filter(|m| x > *m) {
            push(format!("expected a number ≤ {m}, got {x}"));
        }
        if let Some(m) = num("exclusiveMinimum").filter(|m| x <= *m) {
            push(format!("expected a number > {m}, got {x}"));
        }
        if let Some(m) = num("exclusiveMaximum").filter(|m| x >= *m) {
            push(format!("expected a number < {m}, got {x}"));
        }
    }
    if let Some(text) = value.as_str() {
        let n = text.chars().count() as u64;
        if let Some(m) = s.get("minLength").and_then(Value::as_u64).filter(|m| n < *m) {
            push(format!("expected at least {m} characters, got {n}"));
        }
        if let Some(m) = s.get("maxLength").and_then(Value::as_u64).filter(|m| n > *m) {
            push(format!("expected at most {m} characters, got {n}"));
        }
    }
    if let Some(items) = value.as_array() {
        let n = items.len() as u64;
        if let Some(m) = s.get("minItems").and_then(Value::as_u64).filter(|m| n < *m) {
            push(format!("expected at least {m} items, got {n}"));
        }
        if let Some(m) = s.get("maxItems").and_then(Value::as_u64).filter(|m| n > *m) {
            push(format!("expected at most {m} items, got {n}"));
        }
        if s.get("uniqueItems") == Some(&Value::Bool(true)) {
            for (i, a) in items.iter().enumerate() {
                if items[..i].contains(a) {
                    push(format!("expected unique items, item {i} repeats an earlier one"));
                    break;
                }
            }
        }
        let prefix = s.get("prefixItems").and_then(Value::as_array);
        // Draft 7 writes tuples as an array under `items`.
        let tuple = prefix.or_else(|| s.get("items").and_then(Value::as_array));
        let rest = if prefix.is_some() { s.get("items") } else { s.get("items").filter(|i| i.is_object() || i.is_boolean()) };
        for (i, item) in items.iter().enumerate() {
            let sub = tuple.and_then(|t| t.get(i)).or(if tuple.is_some_and(|t| i < t.len()) { None } else { rest });
            if let Some(sub) = sub {
                push_out.push((sub, item, format!("{path}/{i}")));
            }
        }
    }
    if let Some(obj) = value.as_object() {
        object_rules(s, obj, path, &mut push, &mut push_out);
    }
    out.extend(found);
    for (sub, item, p) in push_out {
        check(root, sub, item, &p, out, depth + 1);
    }
    composition(root, s, value, path, out, depth);
}

fn object_rules<'a>(
    s: &'a Map<String, Value>,
    obj: &'a Map<String, Value>,
    path: &str,
    push: &mut impl FnMut(String),
    sub: &mut Vec<(&'a Value, &'a Value, String)>,
) {
    let props = s.get("properties").and_then(Value::as_object);
    if let Some(required) = s.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !obj.contains_key(name) {
                push(format!("missing required property \"{name}\""));
            }
        }
    }
    for (k, v) in obj {
        let p = format!("{path}/{}", k.replace('~', "~0").replace('/', "~1"));
        match props.and_then(|props| props.get(k)) {
            Some(schema) => sub.push((schema, v, p)),
            None => match s.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    let known: Vec<&str> = props.map(|p| p.keys().map(String::as_str).collect()).unwrap_or_default();
                    push(format!("unexpected property \"{k}\" (allowed: {})", known.join(", ")));
                }
                Some(schema @ Value::Object(_)) => sub.push((schema, v, p)),
                _ => {}
            },
        }
    }
}

fn composition(root: &Value, s: &Map<String, Value>, value: &Value, path: &str, out: &mut Vec<Violation>, depth: usize) {
    let passes = |sub: &Value| {
        let mut o = Vec::new();
        check(root, sub, value, path, &mut o, depth + 1);
        o
    };
    if let Some(all) = s.get("allOf").and_then(Value::as_array) {
        for sub in all {
            out.extend(passes(sub));
        }
    }
    if let Some(any) = s.get("anyOf").and_then(Value::as_array) {
        let results: Vec<Vec<Violation>> = any.iter().map(passes).collect();
        if !results.iter().any(Vec::is_empty) {
            // The closest alternative says best what was meant.
            if let Some(best) = results.into_iter().min_by_key(Vec::len) {
                out.extend(best);
            }
        }
    }
    if let Some(one) = s.get("oneOf").and_then(Value::as_array) {
        let ok = one.iter().filter(|sub| passes(sub).is_empty()).count();
        if ok != 1 {
            out.push(Violation {
                path: path.into(),
                message: format!("expected exactly one of {} alternatives to match, {ok} did", one.len()),
            });
        }
    }
    if let Some(not) = s.get("not") {
        if passes(not).is_empty() {
            out.push(Violation { path: path.into(), message: format!("must not match {}", show(not)) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(schema: Value, value: Value) -> Vec<String> {
        match validate(&schema, &value) {
            Ok(()) => Vec::new(),
            Err(v) => v.into_iter().map(|v| format!("{}: {}", v.path, v.message)).collect(),
        }
    }

    #[test]
    fn tool_schemas() {
        let calc = json!({"type":"object","properties":{"expression":{"type":"string"}},"required":["expression"],"additionalProperties":false});
        assert!(errors(calc.clone(), json!({"expression": "1+1"})).is_empty());
        assert_eq!(errors(calc.clone(), json!({})), [": missing required property \"expression\""]);
        assert_eq!(errors(calc.clone(), json!({"expression": 5})), ["/expression: expected string, got integer 5"]);
        assert_eq!(errors(calc, json!({"expression": "1", "x": 1})), [": unexpected property \"x\" (allowed: expression)"]);
    }

    #[test]
    fn keywords() {
        let s = json!({"type":"object","properties":{
            "n":{"type":"integer","minimum":1,"maximum":10},
            "unit":{"enum":["c","f"]},
            "tags":{"type":"array","items":{"type":"string","minLength":2},"maxItems":2,"uniqueItems":true},
            "opt":{"type":["string","null"]}
        }});
        assert!(errors(s.clone(), json!({"n": 3, "unit": "c", "tags": ["ab"], "opt": null})).is_empty());
        assert_eq!(
            errors(s, json!({"n": 11.5, "unit": "k", "tags": ["a", "bb", "bb"], "opt": 1})),
            [
                "/n: expected integer, got number 11.5",
                "/opt: expected string or null, got integer 1",
                "/tags: expected at most 2 items, got 3",
                "/tags: expected unique items, item 2 repeats an earlier one",
                "/tags/0: expected at least 2 characters, got 1",
                "/unit: expected one of \"c\", \"f\", got \"k\"",
            ]
        );
    }

    #[test]
    fn refs_in_both_drafts_and_composition() {
        let d7 = json!({"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"p":{"type":"object","required":["x"]}},
            "type":"object","properties":{"point":{"$ref":"#/definitions/p"}}});
        assert_eq!(errors(d7, json!({"point": {}})), ["/point: missing required property \"x\""]);
        let d2020 = json!({"$defs":{"id":{"type":"string"}},"type":"object","properties":{"ids":{"type":"array","items":{"$ref":"#/$defs/id"}}}});
        assert_eq!(errors(d2020, json!({"ids": ["a", 2]})), ["/ids/1: expected string, got integer 2"]);
        let any = json!({"anyOf":[{"type":"string"},{"type":"number"}]});
        assert!(errors(any.clone(), json!(1)).is_empty());
        assert_eq!(errors(any, json!(true)).len(), 1);
        let cyclic = json!({"$ref":"#"});
        assert!(errors(cyclic, json!(1)).is_empty());
    }

    #[test]
    fn garbage_schemas_never_panic() {
        for schema in [json!(null), json!(1), json!({"type": 5}), json!({"properties": []}), json!({"required": "x"}), json!(false)] {
            let _ = validate(&schema, &json!({"a": [1, {"b": null}]}));
        }
        let text = describe(&[Violation { path: "/a".into(), message: "expected string, got integer 1".into() }]);
        assert_eq!(text, "- `/a`: expected string, got integer 1\nCall the tool again with corrected arguments.");
    }
}
