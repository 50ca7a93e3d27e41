//! Arguments against a tool's input schema (JSON Schema drafts 7 and
//! 2020-12, in the keywords tool schemas use).
//!
//! A focused validator rather than a general one. Measured in a wasm probe
//! (opt-level "z", LTO), `jsonschema` 0.60 with its default features off
//! adds about 750 KB gzip (620 KB after `wasm-opt -Oz`: regex engines,
//! IDNA/Unicode tables, URL handling, a reference resolver) and `boon` 0.6
//! about 475 KB, while the app's whole first load is budgeted at 400 KB;
//! this module adds about 13 KB. What is checked:
//!
//! * `type` (a name or a list; `integer` is a number without a fraction;
//!   OpenAPI's `nullable: true` also admits `null`), `enum`, `const`
//!   (numbers compare by value, `1 == 1.0`);
//! * `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers,
//!   or draft 4's booleans), `multipleOf`;
//! * `minLength`, `maxLength` (in characters);
//! * `items`, `prefixItems`, `additionalItems`, `minItems`, `maxItems`,
//!   `uniqueItems`, `contains` with `minContains`/`maxContains`;
//! * `properties`, `required`, `additionalProperties`, `minProperties`,
//!   `maxProperties`, `propertyNames`, `dependentRequired`,
//!   `dependentSchemas` and draft 7's `dependencies`;
//! * `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`;
//! * `$ref` to the same document: JSON pointers (`#/$defs/x`,
//!   `#/definitions/x`, `#`) and `$anchor` names.
//!
//! Not checked, so never the reason a call is refused: `pattern` and
//! `patternProperties` (no regex engine in the bundle; while
//! `patternProperties` is present `additionalProperties` is not enforced
//! either, since it depends on which names the patterns match), `format`
//! (an annotation by default in 2020-12), `unevaluated*`, and `$ref`s to
//! other documents. A schema that is not understood accepts everything.
//!
//! The draft is read from the root's `$schema` (2020-12 when absent). It
//! decides what draft 7 and 2020-12 read differently: whether keywords next
//! to a `$ref` apply (2020-12) or are ignored (draft 7 and older), and
//! whether an array under `items` is a tuple (before 2020-12; in 2020-12
//! tuples are `prefixItems`, though an array under `items` is still read as
//! one since some servers write it that way).

use serde_json::{Map, Value};

/// One way the arguments miss the schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// JSON pointer of the offending value, `""` for the arguments object
    /// (e.g. `/items/2/name`).
    pub path: String,
    /// What was expected, e.g. `expected number, got string "abc"`.
    pub message: String,
}

/// Checks `value` against `schema`: every violation found, or `Ok`. Never
/// panics, whatever the schema (an MCP server writes it).
pub fn validate(schema: &Value, value: &Value) -> Result<(), Vec<Violation>> {
    let draft = match schema.get("$schema").and_then(Value::as_str) {
        Some(s) if ["draft-04", "draft-06", "draft-07"].iter().any(|d| s.contains(d)) => Draft::Seven,
        _ => Draft::Modern,
    };
    let mut v = Validator { root: schema, draft, budget: BUDGET };
    let mut out = Vec::new();
    v.check(schema, value, "", &mut out, 0);
    if out.is_empty() { Ok(()) } else { Err(out) }
}

/// One text for the model: each field and what was expected, and what to
/// do.
pub fn describe(violations: &[Violation]) -> String {
    let lines: Vec<String> = violations.iter().map(|v| if v.path.is_empty() { format!("- {}", v.message) } else { format!("- `{}`: {}", v.path, v.message) }).collect();
    format!("{}\nCall the tool again with corrected arguments.", lines.join("\n"))
}

/// How many (schema, value) pairs one validation may visit. Tool arguments
/// need a few dozen; the limit stops a hostile or cyclic schema (`anyOf` of
/// two `$ref: "#"` doubles the work at each level) from hanging the tab.
/// Past it, what is left is accepted, and the rules that fire when a
/// subschema *passes* (`not`, `oneOf` matching twice, `maxContains`) stay
/// silent, since an unfinished check looks like a pass.
const BUDGET: usize = 20_000;

/// How deep schemas may nest through `$ref`s and values, before the stack
/// would be at risk.
const MAX_DEPTH: usize = 96;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Draft {
    /// Drafts 4, 6 and 7.
    Seven,
    /// 2019-09 and 2020-12, and schemas that do not say.
    Modern,
}

struct Validator<'s> {
    root: &'s Value,
    draft: Draft,
    budget: usize,
}

impl<'s> Validator<'s> {
    fn check(&mut self, schema: &'s Value, value: &Value, path: &str, out: &mut Vec<Violation>, depth: usize) {
        if depth > MAX_DEPTH || self.budget == 0 {
            return;
        }
        self.budget -= 1;
        let s = match schema {
            Value::Object(s) => s,
            Value::Bool(false) => return out.push(violation(path, "no value is allowed here".into())),
            _ => return,
        };
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            if let Some(target) = self.resolve(r) {
                self.check(target, value, path, out, depth + 1);
            }
            // Before 2019-09, keywords beside `$ref` are ignored.
            if self.draft == Draft::Seven {
                return;
            }
        }
        if let Some(message) = type_mismatch(s, value) {
            // Every other keyword would only repeat that the type is wrong.
            return out.push(violation(path, message));
        }
        let mut children: Vec<(&'s Value, &Value, String)> = Vec::new();
        let mut own = |message: String| out.push(violation(path, message));
        if let Some(e) = s.get("enum").and_then(Value::as_array)
            && !e.iter().any(|x| same(x, value))
        {
            let options: Vec<String> = e.iter().map(show).collect();
            own(format!("expected one of {}, got {}", options.join(", "), show(value)));
        }
        if let Some(c) = s.get("const")
            && !same(c, value)
        {
            own(format!("expected {}, got {}", show(c), show(value)));
        }
        match value {
            Value::Number(n) => number_rules(s, n.as_f64().unwrap_or(0.0), &mut own),
            Value::String(text) => string_rules(s, text, &mut own),
            Value::Array(items) => self.array_rules(s, items, path, depth, &mut own, &mut children),
            Value::Object(obj) => object_rules(s, obj, path, &mut own, &mut children),
            _ => {}
        }
        for (sub, item, p) in children {
            self.check(sub, item, &p, out, depth + 1);
        }
        if let (Some(names), Some(obj)) = (s.get("propertyNames"), value.as_object()) {
            for k in obj.keys() {
                // The name, as a string, against the schema; reported at the
                // property's path.
                let p = format!("{path}/{}", k.replace('~', "~0").replace('/', "~1"));
                self.check(names, &Value::String(k.clone()), &p, out, depth + 1);
            }
        }
        self.composition(s, value, path, out, depth);
    }

    fn array_rules<'v>(&mut self, s: &'s Map<String, Value>, items: &'v [Value], path: &str, depth: usize, own: &mut impl FnMut(String), children: &mut Vec<(&'s Value, &'v Value, String)>) {
        let n = items.len() as u64;
        if let Some(m) = s.get("minItems").and_then(Value::as_u64).filter(|m| n < *m) {
            own(format!("expected at least {m} {}, got {n}", plural(m, "item")));
        }
        if let Some(m) = s.get("maxItems").and_then(Value::as_u64).filter(|m| n > *m) {
            own(format!("expected at most {m} {}, got {n}", plural(m, "item")));
        }
        if s.get("uniqueItems") == Some(&Value::Bool(true)) {
            let repeat = (1..items.len()).find_map(|i| items[..i].iter().position(|a| same(a, &items[i])).map(|j| (j, i)));
            if let Some((j, i)) = repeat {
                own(format!("expected unique items, item {i} repeats item {j}"));
            }
        }
        // Tuples: `prefixItems` then `items` (2020-12), or an array under
        // `items` then `additionalItems` (before).
        let (tuple, rest) = match (s.get("prefixItems").and_then(Value::as_array), s.get("items")) {
            (Some(prefix), rest) => (prefix.as_slice(), rest),
            (None, Some(Value::Array(tuple))) => (tuple.as_slice(), s.get("additionalItems")),
            (None, rest) => (&[][..], rest),
        };
        for (i, item) in items.iter().enumerate() {
            if let Some(sub) = tuple.get(i).or(if i < tuple.len() { None } else { rest }) {
                children.push((sub, item, format!("{path}/{i}")));
            }
        }
        if let Some(contains) = s.get("contains") {
            let matching = items.iter().filter(|item| self.violations(contains, item, path, depth).is_empty()).count() as u64;
            let min = if self.draft == Draft::Modern { s.get("minContains").and_then(Value::as_u64) } else { None };
            let max = if self.draft == Draft::Modern { s.get("maxContains").and_then(Value::as_u64) } else { None };
            let min = min.unwrap_or(1);
            if matching < min {
                own(format!("expected at least {min} {} matching {}, got {matching}", plural(min, "item"), show(contains)));
            }
            if let Some(max) = max.filter(|m| matching > *m && self.budget > 0) {
                own(format!("expected at most {max} {} matching {}, got {matching}", plural(max, "item"), show(contains)));
            }
        }
    }

    fn composition(&mut self, s: &'s Map<String, Value>, value: &Value, path: &str, out: &mut Vec<Violation>, depth: usize) {
        if let Some(all) = s.get("allOf").and_then(Value::as_array) {
            for sub in all {
                self.check(sub, value, path, out, depth + 1);
            }
        }
        if let Some(any) = s.get("anyOf").and_then(Value::as_array) {
            let results: Vec<Vec<Violation>> = any.iter().map(|sub| self.violations(sub, value, path, depth)).collect();
            if !results.is_empty() && !results.iter().any(Vec::is_empty) {
                out.extend(closest(results, path));
            }
        }
        if let Some(one) = s.get("oneOf").and_then(Value::as_array) {
            let results: Vec<Vec<Violation>> = one.iter().map(|sub| self.violations(sub, value, path, depth)).collect();
            let passing = results.iter().filter(|r| r.is_empty()).count();
            if passing > 1 && self.budget > 0 {
                out.push(violation(path, format!("expected exactly one of the {} allowed forms to match, {passing} did", one.len())));
            } else if passing == 0 && !results.is_empty() {
                out.extend(closest(results, path));
            }
        }
        if let Some(not) = s.get("not")
            && self.violations(not, value, path, depth).is_empty()
            && self.budget > 0
        {
            out.push(violation(path, format!("must not match {}", show(not))));
        }
        if let Some(condition) = s.get("if") {
            let branch = if self.violations(condition, value, path, depth).is_empty() { "then" } else { "else" };
            if let Some(sub) = s.get(branch) {
                self.check(sub, value, path, out, depth + 1);
            }
        }
        if let Some(obj) = value.as_object() {
            self.dependencies(s, value, obj, path, out, depth);
        }
    }

    /// `dependentRequired`, `dependentSchemas` and draft 7's `dependencies`
    /// (a list of names, or a schema): what a present property brings along.
    fn dependencies(&mut self, s: &'s Map<String, Value>, value: &Value, obj: &Map<String, Value>, path: &str, out: &mut Vec<Violation>, depth: usize) {
        for keyword in ["dependentRequired", "dependentSchemas", "dependencies"] {
            let Some(deps) = s.get(keyword).and_then(Value::as_object) else { continue };
            for (name, dep) in deps.iter().filter(|(name, _)| obj.contains_key(*name)) {
                match dep {
                    Value::Array(names) => {
                        for needed in names.iter().filter_map(Value::as_str).filter(|n| !obj.contains_key(*n)) {
                            out.push(violation(path, format!("missing property \"{needed}\", required with \"{name}\"")));
                        }
                    }
                    sub => self.check(sub, value, path, out, depth + 1),
                }
            }
        }
    }

    fn violations(&mut self, schema: &'s Value, value: &Value, path: &str, depth: usize) -> Vec<Violation> {
        let mut out = Vec::new();
        self.check(schema, value, path, &mut out, depth + 1);
        out
    }

    /// A reference within this document: `#`, `#/json/pointer` (also with
    /// the root's own `$id` before the `#`), or `#name` for an `$anchor`.
    /// Anything else is not followed.
    fn resolve(&self, reference: &str) -> Option<&'s Value> {
        let (base, fragment) = reference.split_once('#')?;
        if !base.is_empty() && self.root.get("$id").and_then(Value::as_str) != Some(base) {
            return None;
        }
        let fragment = percent_decode(fragment);
        if fragment.is_empty() || fragment.starts_with('/') {
            return self.root.pointer(&fragment);
        }
        find_anchor(self.root, &fragment, 0)
    }
}

fn violation(path: &str, message: String) -> Violation {
    Violation { path: path.into(), message }
}

/// "expected string or null, got integer 5", if `value` has none of the
/// allowed types.
fn type_mismatch(s: &Map<String, Value>, value: &Value) -> Option<String> {
    let mut types: Vec<&str> = match s.get("type")? {
        Value::String(t) => vec![t.as_str()],
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    if s.get("nullable") == Some(&Value::Bool(true)) {
        types.push("null");
    }
    let known = ["null", "boolean", "integer", "number", "string", "array", "object"];
    // An unknown type name is the schema's mistake, not the model's.
    if types.is_empty() || types.iter().any(|t| !known.contains(t)) || types.iter().any(|t| is_type(value, t)) {
        return None;
    }
    Some(format!("expected {}, got {} {}", types.join(" or "), json_type(value), show(value)))
}

fn number_rules(s: &Map<String, Value>, x: f64, own: &mut impl FnMut(String)) {
    let num = |k: &str| s.get(k).and_then(Value::as_f64);
    // Draft 4 writes exclusive bounds as booleans beside the bound.
    let exclusive = |k: &str| s.get(k) == Some(&Value::Bool(true));
    if let Some(m) = num("minimum") {
        if exclusive("exclusiveMinimum") && x <= m {
            own(format!("expected a number greater than {}, got {}", fmt(m), fmt(x)));
        } else if x < m {
            own(format!("expected a number of at least {}, got {}", fmt(m), fmt(x)));
        }
    }
    if let Some(m) = num("maximum") {
        if exclusive("exclusiveMaximum") && x >= m {
            own(format!("expected a number less than {}, got {}", fmt(m), fmt(x)));
        } else if x > m {
            own(format!("expected a number of at most {}, got {}", fmt(m), fmt(x)));
        }
    }
    if let Some(m) = num("exclusiveMinimum").filter(|m| x <= *m) {
        own(format!("expected a number greater than {}, got {}", fmt(m), fmt(x)));
    }
    if let Some(m) = num("exclusiveMaximum").filter(|m| x >= *m) {
        own(format!("expected a number less than {}, got {}", fmt(m), fmt(x)));
    }
    if let Some(m) = num("multipleOf").filter(|m| *m > 0.0) {
        let q = x / m;
        // Decimal steps such as 0.1 are not exact in binary; allow for that.
        if q.is_finite() && (q - q.round()).abs() > 1e-9 * q.abs().max(1.0) {
            own(format!("expected a multiple of {}, got {}", fmt(m), fmt(x)));
        }
    }
}

fn string_rules(s: &Map<String, Value>, text: &str, own: &mut impl FnMut(String)) {
    // JSON Schema counts characters (code points), not bytes.
    let n = text.chars().count() as u64;
    if let Some(m) = s.get("minLength").and_then(Value::as_u64).filter(|m| n < *m) {
        own(format!("expected at least {m} {}, got {n}", plural(m, "character")));
    }
    if let Some(m) = s.get("maxLength").and_then(Value::as_u64).filter(|m| n > *m) {
        own(format!("expected at most {m} {}, got {n}", plural(m, "character")));
    }
}

fn object_rules<'s, 'v>(s: &'s Map<String, Value>, obj: &'v Map<String, Value>, path: &str, own: &mut impl FnMut(String), children: &mut Vec<(&'s Value, &'v Value, String)>) {
    let props = s.get("properties").and_then(Value::as_object);
    if let Some(required) = s.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str).filter(|n| !obj.contains_key(*n)) {
            own(format!("missing required property \"{name}\""));
        }
    }
    let n = obj.len() as u64;
    if let Some(m) = s.get("minProperties").and_then(Value::as_u64).filter(|m| n < *m) {
        own(format!("expected at least {m} {}, got {n}", plural(m, "property")));
    }
    if let Some(m) = s.get("maxProperties").and_then(Value::as_u64).filter(|m| n > *m) {
        own(format!("expected at most {m} {}, got {n}", plural(m, "property")));
    }
    // Which names `patternProperties` covers is unknown without regexes.
    let additional = if s.contains_key("patternProperties") { None } else { s.get("additionalProperties") };
    for (k, v) in obj {
        let p = format!("{path}/{}", k.replace('~', "~0").replace('/', "~1"));
        match (props.and_then(|props| props.get(k)), additional) {
            (Some(schema), _) => children.push((schema, v, p)),
            (None, Some(Value::Bool(false))) => {
                let known: Vec<&str> = props.map(|p| p.keys().map(String::as_str).collect()).unwrap_or_default();
                own(if known.is_empty() { format!("unexpected property \"{k}\" (no properties are allowed)") } else { format!("unexpected property \"{k}\" (allowed: {})", known.join(", ")) });
            }
            (None, Some(schema @ Value::Object(_))) => children.push((schema, v, p)),
            _ => {}
        }
    }
}

/// Among failed alternatives (`anyOf`, `oneOf`), what to tell the model.
/// When each alternative fails in one way at the value itself (typically
/// its type), every way is listed ("expected string, got …; or expected
/// number, got …"); otherwise the alternative that came closest says best
/// what was meant.
fn closest(results: Vec<Vec<Violation>>, path: &str) -> Vec<Violation> {
    if results.iter().all(|r| r.len() == 1 && r[0].path == path) {
        let mut messages: Vec<String> = results.into_iter().map(|mut r| r.remove(0).message).collect();
        messages.dedup();
        return vec![violation(path, messages.join("; or "))];
    }
    results.into_iter().min_by_key(Vec::len).unwrap_or_default()
}

fn find_anchor<'s>(schema: &'s Value, name: &str, depth: usize) -> Option<&'s Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    match schema {
        Value::Object(map) => {
            let id = map.get("$id").and_then(Value::as_str);
            if map.get("$anchor").and_then(Value::as_str) == Some(name) || id.and_then(|i| i.strip_prefix('#')) == Some(name) {
                return Some(schema);
            }
            map.values().find_map(|v| find_anchor(v, name, depth + 1))
        }
        Value::Array(items) => items.iter().find_map(|v| find_anchor(v, name, depth + 1)),
        _ => None,
    }
}

/// `%24defs` → `$defs` (URI fragments may be percent-encoded).
fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The JSON Schema type name of a value (`integer` for whole numbers).
pub fn json_type(v: &Value) -> &'static str {
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
    match (t, v) {
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0),
        ("number", Value::Number(_)) => true,
        _ => json_type(v) == t,
    }
}

/// Equality as JSON Schema sees it: numbers by value (`1` equals `1.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, a)| y.get(k).is_some_and(|b| same(a, b))),
        _ => a == b,
    }
}

/// A value as the model wrote it, shortened.
fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 { format!("{}…", s.chars().take(40).collect::<String>()) } else { s }
}

fn fmt(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 { format!("{x:.0}") } else { x.to_string() }
}

fn plural(n: u64, word: &str) -> String {
    match (n, word) {
        (1, w) => w.to_owned(),
        (_, "property") => "properties".to_owned(),
        (_, w) => format!("{w}s"),
    }
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
