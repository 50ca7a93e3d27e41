//! An operation's parameters and JSON request body → the tool's input
//! schema, and where each argument goes.

use serde_json::{Map, Value, json};

use super::refs::Resolver;
use super::{Note, SkipReason};
use crate::tool::{ArgsIn, Method};

/// What an operation's inputs become.
#[derive(Debug)]
pub(super) struct Input {
    pub schema: Value,
    pub query: Vec<String>,
    pub args_in: ArgsIn,
    pub body_arg: Option<String>,
    pub notes: Vec<Note>,
}

/// One parameter, resolved.
struct Param<'a> {
    name: &'a str,
    place: &'a str,
    value: &'a Value,
}

/// The parameters of the path item and of the operation (the operation's
/// win where both name one in the same place), `$ref`s followed.
fn parameters<'a>(r: &Resolver<'a>, shared: Option<&'a Value>, own: Option<&'a Value>) -> Result<Vec<Param<'a>>, SkipReason> {
    let mut out: Vec<Param<'a>> = Vec::new();
    for list in [shared, own].into_iter().flatten() {
        for p in list.as_array().into_iter().flatten() {
            let p = r.follow(p).map_err(SkipReason::Ref)?;
            let (Some(name), Some(place)) = (p.get("name").and_then(Value::as_str), p.get("in").and_then(Value::as_str)) else {
                continue;
            };
            out.retain(|q| !(q.name == name && q.place == place));
            out.push(Param { name, place, value: p });
        }
    }
    Ok(out)
}

/// The input of one operation. `path` is its path template, whose `{name}`s
/// are required arguments even where no parameter describes them.
pub(super) fn build<'a>(r: &Resolver<'a>, path: &str, method: Method, shared: Option<&'a Value>, op: &'a Value) -> Result<Input, SkipReason> {
    let mut input = Input { schema: Value::Null, query: Vec::new(), args_in: ArgsIn::Query, body_arg: None, notes: Vec::new() };
    let (mut props, mut required) = (Map::new(), Vec::<String>::new());
    for p in parameters(r, shared, op.get("parameters"))? {
        let required_here = p.place == "path" || p.value.get("required").and_then(Value::as_bool) == Some(true);
        match p.place {
            "path" | "query" => {}
            "header" => {
                input.notes.push(Note::HeaderParam { name: p.name.to_owned(), required: required_here });
                continue;
            }
            _ => {
                input.notes.push(Note::CookieParam { name: p.name.to_owned() });
                continue;
            }
        }
        if props.contains_key(p.name) {
            return Err(SkipReason::Clash(p.name.to_owned()));
        }
        props.insert(p.name.to_owned(), param_schema(r, p.value)?);
        if required_here {
            required.push(p.name.to_owned());
        }
        if p.place == "query" {
            input.query.push(p.name.to_owned());
            if p.value.get("explode").and_then(Value::as_bool) == Some(false) || p.value.get("style").is_some_and(|s| s != "form") {
                input.notes.push(Note::QueryStyle { name: p.name.to_owned() });
            }
        }
    }
    for name in crate::url::placeholders(path).unwrap_or_default() {
        if !props.contains_key(name) {
            props.insert(name.to_owned(), json!({"type": "string"}));
            required.push(name.to_owned());
        }
    }
    if let Some(body) = op.get("requestBody") {
        if method.may_have_body() {
            body_input(r, body, &mut props, &mut required, &mut input)?;
        } else {
            input.notes.push(Note::BodyIgnored);
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        required.dedup();
        schema.insert("required".into(), required.into_iter().map(Value::String).collect());
    }
    input.schema = Value::Object(schema);
    Ok(input)
}

/// A parameter's schema (from `schema`, or from the one media type of
/// `content`) with the parameter's description where the schema has none.
fn param_schema<'a>(r: &Resolver<'a>, p: &'a Value) -> Result<Value, SkipReason> {
    let raw = p.get("schema").or_else(|| p.get("content").and_then(Value::as_object).and_then(|c| c.values().next()).and_then(|m| m.get("schema")));
    let mut schema = match raw {
        Some(s) => r.inline(s).map_err(SkipReason::Ref)?,
        None => json!({"type": "string"}),
    };
    if let (Value::Object(s), Some(d)) = (&mut schema, p.get("description").and_then(Value::as_str)) {
        s.entry("description").or_insert_with(|| d.into());
    }
    if p.get("deprecated").and_then(Value::as_bool) == Some(true)
        && let Value::Object(s) = &mut schema
    {
        s.insert("deprecated".into(), true.into());
    }
    Ok(schema)
}

/// Whether a media type is read as JSON (`*/*` too: generators write it
/// for JSON APIs).
fn json_media(media: &str) -> bool {
    let m = media.split(';').next().unwrap_or(media).trim().to_ascii_lowercase();
    m == "application/json" || m == "text/json" || m.ends_with("+json") || m == "*/*"
}

/// The request body: an object schema's properties beside the parameters
/// (its required ones required, when the body is), else the whole value
/// as one argument, `body`.
fn body_input<'a>(r: &Resolver<'a>, body: &'a Value, props: &mut Map<String, Value>, required: &mut Vec<String>, input: &mut Input) -> Result<(), SkipReason> {
    let body = r.follow(body).map_err(SkipReason::Ref)?;
    let Some(content) = body.get("content").and_then(Value::as_object).filter(|c| !c.is_empty()) else { return Ok(()) };
    let exact = content.get("application/json");
    let Some(media) = exact.or_else(|| content.iter().find(|(k, _)| json_media(k)).map(|(_, v)| v)) else {
        return Err(SkipReason::Body(content.keys().cloned().collect()));
    };
    let body_required = body.get("required").and_then(Value::as_bool) != Some(false);
    let schema = match media.get("schema") {
        Some(s) => r.inline(s).map_err(SkipReason::Ref)?,
        None => json!({}),
    };
    input.args_in = ArgsIn::Body;
    if let Some((fields, needed)) = object_fields(&schema).filter(|(f, _)| !f.keys().any(|k| props.contains_key(k))) {
        for (k, v) in fields {
            props.insert(k, v);
        }
        if body_required {
            required.extend(needed);
        }
        return Ok(());
    }
    let name = ["body", "requestBody", "_body"].into_iter().find(|n| !props.contains_key(*n)).unwrap_or("_body");
    let mut schema = schema;
    if let (Value::Object(s), Some(d)) = (&mut schema, body.get("description").and_then(Value::as_str)) {
        s.entry("description").or_insert_with(|| d.into());
    }
    props.insert(name.to_owned(), schema);
    if body_required {
        required.push(name.to_owned());
    }
    input.body_arg = Some(name.to_owned());
    Ok(())
}

/// The properties (without read-only ones, which a request does not send)
/// and required names of an object schema, `allOf` parts merged; `None`
/// for anything else (an array, a map, a choice, a free-form object).
fn object_fields(schema: &Value) -> Option<(Map<String, Value>, Vec<String>)> {
    let s = schema.as_object()?;
    if s.contains_key("oneOf") || s.contains_key("anyOf") || s.get("type").is_some_and(|t| t != "object") {
        return None;
    }
    let (mut fields, mut needed) = (Map::new(), Vec::new());
    for part in s.get("allOf").and_then(Value::as_array).into_iter().flatten() {
        let (f, n) = object_fields(part)?;
        fields.extend(f);
        needed.extend(n);
    }
    for (k, v) in s.get("properties").and_then(Value::as_object).into_iter().flatten() {
        if v.get("readOnly").and_then(Value::as_bool) != Some(true) {
            fields.insert(k.clone(), v.clone());
        }
    }
    needed.extend(s.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_owned));
    needed.retain(|n| fields.contains_key(n));
    (!fields.is_empty()).then_some((fields, needed))
}
