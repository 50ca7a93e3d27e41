//! Elicitation (`elicitation/create`): the server's question as an
//! [`Elicitation`], the form it asks for as fields with their defaults
//! (SEP-1034), the user's values checked, and the answer as sent.

use air_tools::{ElicitAnswer, Elicitation};
use serde_json::{Map, Value, json};

/// The question in an `elicitation/create` request's params.
pub fn request_from(params: &Value) -> Result<Elicitation, String> {
    let message = params.get("message").and_then(Value::as_str).unwrap_or_default().to_owned();
    match params.get("mode").and_then(Value::as_str).unwrap_or("form") {
        "url" => {
            let url = params.get("url").and_then(Value::as_str).ok_or("a URL elicitation without a url")?;
            if !air_http::url::is_http(url) {
                return Err(format!("the elicitation URL must be http(s): {url}"));
            }
            Ok(Elicitation::Url { message, url: url.to_owned() })
        }
        "form" => {
            let schema = params.get("requestedSchema").filter(|s| s.is_object()).cloned().unwrap_or_else(|| json!({"type": "object", "properties": {}}));
            Ok(Elicitation::Form { message, schema })
        }
        other => Err(format!("unknown elicitation mode: {other}")),
    }
}

/// The result sent back for an answer.
pub fn answer_json(answer: &ElicitAnswer) -> Value {
    match answer {
        ElicitAnswer::Accept { content } if content.as_object().is_some_and(|o| !o.is_empty()) => json!({"action": "accept", "content": content}),
        ElicitAnswer::Accept { .. } => json!({"action": "accept"}),
        ElicitAnswer::Decline => json!({"action": "decline"}),
        ElicitAnswer::Cancel => json!({"action": "cancel"}),
    }
}

/// What a form field holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// `format`: email, uri, date, date-time (or none).
    Text {
        format: Option<String>,
        min_len: Option<u64>,
        max_len: Option<u64>,
    },
    Number {
        integer: bool,
        min: Option<f64>,
        max: Option<f64>,
    },
    Bool,
    /// One of these values (with their labels).
    Choice(Vec<(String, String)>),
    /// Several of these values.
    Multi(Vec<(String, String)>),
}

/// One field of an elicitation form.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub label: String,
    pub description: Option<String>,
    pub required: bool,
    pub kind: Kind,
    /// The schema's `default`, if it fits the field.
    pub default: Option<Value>,
}

/// The fields of a requested schema, in the schema's order.
pub fn fields(schema: &Value) -> Vec<Field> {
    let required: Vec<&str> = schema.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else { return Vec::new() };
    props
        .iter()
        .map(|(name, p)| {
            let s = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_owned);
            let kind = kind_of(p);
            let default = p.get("default").cloned().filter(|d| fits(&kind, d));
            Field { name: name.clone(), label: s("title").unwrap_or_else(|| name.clone()), description: s("description"), required: required.contains(&name.as_str()), kind, default }
        })
        .collect()
}

fn options(values: &[Value], names: Option<&Vec<Value>>) -> Vec<(String, String)> {
    values
        .iter()
        .enumerate()
        .filter_map(|(i, v)| {
            let v = v.as_str()?.to_owned();
            let label = names.and_then(|n| n.get(i)).and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| v.clone());
            Some((v, label))
        })
        .collect()
}

/// `oneOf`/`anyOf` of `{const, title}`: values with labels.
fn titled(list: &[Value]) -> Vec<(String, String)> {
    list.iter()
        .filter_map(|o| {
            let v = o.get("const")?.as_str()?.to_owned();
            let label = o.get("title").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| v.clone());
            Some((v, label))
        })
        .collect()
}

fn kind_of(p: &Value) -> Kind {
    let n = |k: &str| p.get(k).and_then(Value::as_f64);
    let u = |k: &str| p.get(k).and_then(Value::as_u64);
    if let Some(values) = p.get("enum").and_then(Value::as_array) {
        return Kind::Choice(options(values, p.get("enumNames").and_then(Value::as_array)));
    }
    if let Some(list) = p.get("oneOf").or_else(|| p.get("anyOf")).and_then(Value::as_array) {
        return Kind::Choice(titled(list));
    }
    match p.get("type").and_then(Value::as_str) {
        Some("boolean") => Kind::Bool,
        Some("integer") => Kind::Number { integer: true, min: n("minimum"), max: n("maximum") },
        Some("number") => Kind::Number { integer: false, min: n("minimum"), max: n("maximum") },
        Some("array") => {
            let items = p.get("items").cloned().unwrap_or(Value::Null);
            let choices = match items.get("enum").and_then(Value::as_array) {
                Some(values) => options(values, None),
                None => items.get("anyOf").or_else(|| items.get("oneOf")).and_then(Value::as_array).map(|l| titled(l)).unwrap_or_default(),
            };
            Kind::Multi(choices)
        }
        _ => Kind::Text { format: p.get("format").and_then(Value::as_str).map(str::to_owned), min_len: u("minLength"), max_len: u("maxLength") },
    }
}

fn fits(kind: &Kind, v: &Value) -> bool {
    match kind {
        Kind::Text { .. } => v.is_string(),
        Kind::Number { integer: true, .. } => v.as_i64().is_some() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        Kind::Number { .. } => v.is_number(),
        Kind::Bool => v.is_boolean(),
        Kind::Choice(options) => v.as_str().is_some_and(|s| options.iter().any(|(o, _)| o == s)),
        Kind::Multi(options) => v.as_array().is_some_and(|a| a.iter().all(|x| x.as_str().is_some_and(|s| options.iter().any(|(o, _)| o == s)))),
    }
}

/// The answer with every default the user left alone: what accepting an
/// untouched form sends.
pub fn with_defaults(fields: &[Field], mut values: Map<String, Value>) -> Map<String, Value> {
    for f in fields {
        if let (false, Some(d)) = (values.contains_key(&f.name), &f.default) {
            values.insert(f.name.clone(), d.clone());
        }
    }
    values
}

/// Why what the user typed into a field cannot be sent (the app words
/// it; the text here is the English).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FieldError {
    #[error("{label} is required")]
    Required { label: String },
    #[error("{label}: between {min} and {} characters", max.map_or("any".to_owned(), |m| m.to_string()))]
    Length { label: String, min: u64, max: Option<u64> },
    /// Not an e-mail address, URI, date or date-time (`format`, as the schema names it).
    #[error("{label}: not a valid {format}")]
    Format { label: String, format: String },
    #[error("{label}: not a number")]
    NotANumber { label: String },
    #[error("{label}: a whole number")]
    NotWhole { label: String },
    #[error("{label}: out of range")]
    OutOfRange { label: String },
    #[error("{label}: not one of the choices")]
    NotAChoice { label: String },
}

/// Reads what the user typed into a field (text for every kind; `true` or
/// `false` for a checkbox; values joined by `\n` for a multi-select).
/// Empty input is `None`.
pub fn parse(field: &Field, input: &str) -> Result<Option<Value>, FieldError> {
    let input = input.trim();
    let label = || field.label.clone();
    if input.is_empty() && !matches!(field.kind, Kind::Bool) {
        return if field.required { Err(FieldError::Required { label: label() }) } else { Ok(None) };
    }
    let value = match &field.kind {
        Kind::Text { format, min_len, max_len } => {
            let n = input.chars().count() as u64;
            if min_len.is_some_and(|m| n < m) || max_len.is_some_and(|m| n > m) {
                return Err(FieldError::Length { label: label(), min: min_len.unwrap_or(0), max: *max_len });
            }
            let ok = match format.as_deref() {
                Some("email") => input.split_once('@').is_some_and(|(a, b)| !a.is_empty() && b.contains('.')),
                Some("uri") => input.contains("://"),
                Some("date") => is_date(input),
                Some("date-time") => input.len() > 10 && is_date(&input[..10]) && input.as_bytes()[10].eq_ignore_ascii_case(&b't'),
                _ => true,
            };
            if !ok {
                return Err(FieldError::Format { label: label(), format: format.clone().unwrap_or_else(|| "value".into()) });
            }
            Value::String(input.to_owned())
        }
        Kind::Number { integer, min, max } => {
            let x: f64 = input.parse().map_err(|_| FieldError::NotANumber { label: label() })?;
            if *integer && x.fract() != 0.0 {
                return Err(FieldError::NotWhole { label: label() });
            }
            if min.is_some_and(|m| x < m) || max.is_some_and(|m| x > m) {
                return Err(FieldError::OutOfRange { label: label() });
            }
            if *integer { json!(x as i64) } else { json!(x) }
        }
        Kind::Bool => Value::Bool(input == "true"),
        Kind::Choice(options) => {
            if !options.iter().any(|(o, _)| o == input) {
                return Err(FieldError::NotAChoice { label: label() });
            }
            Value::String(input.to_owned())
        }
        Kind::Multi(options) => {
            let picked: Vec<Value> = input.split('\n').filter(|s| !s.is_empty()).filter(|s| options.iter().any(|(o, _)| o == s)).map(|s| Value::String(s.to_owned())).collect();
            Value::Array(picked)
        }
    };
    Ok(Some(value))
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10 && b[4] == b'-' && b[7] == b'-' && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sep1034() -> Value {
        json!({"type": "object", "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true},
            "bad": {"type": "integer", "default": "x"}
        }, "required": []})
    }

    #[test]
    fn defaults_fill_what_the_user_left_alone() {
        let fs = fields(&sep1034());
        let mut typed = Map::new();
        typed.insert("age".into(), json!(41));
        let out = with_defaults(&fs, typed);
        assert_eq!(Value::Object(out), json!({"name": "John Doe", "age": 41, "score": 95.5, "status": "active", "verified": true}));
    }

    #[test]
    fn fields_know_their_kind() {
        let schema = json!({"type": "object", "required": ["email"], "properties": {
            "email": {"type": "string", "format": "email", "title": "E-mail"},
            "color": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]},
            "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}}
        }});
        let fs = fields(&schema);
        let f = |n: &str| fs.iter().find(|f| f.name == n).unwrap();
        assert_eq!(f("email").label, "E-mail");
        assert!(f("email").required && !f("color").required);
        assert_eq!(f("color").kind, Kind::Choice(vec![("r".into(), "Red".into()), ("g".into(), "Green".into())]));
        assert_eq!(f("legacy").kind, Kind::Choice(vec![("a".into(), "A".into()), ("b".into(), "B".into())]));
        assert_eq!(f("tags").kind, Kind::Multi(vec![("x".into(), "x".into()), ("y".into(), "y".into())]));
        assert_eq!(parse(f("email"), ""), Err(FieldError::Required { label: "E-mail".into() }));
        let wrong = parse(f("email"), "nope");
        assert_eq!(wrong, Err(FieldError::Format { label: "E-mail".into(), format: "email".into() }));
        assert_eq!(wrong.map_err(|e| e.to_string()), Err("E-mail: not a valid email".into()));
        assert_eq!(parse(f("email"), "a@b.io"), Ok(Some(json!("a@b.io"))));
        assert_eq!(parse(f("tags"), "x\ny\nz"), Ok(Some(json!(["x", "y"]))));
    }

    #[test]
    fn numbers_are_checked() {
        let fs = fields(&json!({"properties": {"n": {"type": "integer", "minimum": 1, "maximum": 5}}}));
        assert_eq!(parse(&fs[0], "3"), Ok(Some(json!(3))));
        assert_eq!(parse(&fs[0], "3.5"), Err(FieldError::NotWhole { label: "n".into() }));
        assert_eq!(parse(&fs[0], "9"), Err(FieldError::OutOfRange { label: "n".into() }));
        assert_eq!(parse(&fs[0], "x"), Err(FieldError::NotANumber { label: "n".into() }));
        assert_eq!(parse(&fs[0], " "), Ok(None));
    }

    #[test]
    fn requests_and_answers() {
        let url = request_from(&json!({"mode": "url", "message": "Sign in", "url": "https://auth.example/x", "elicitationId": "e1"})).unwrap();
        assert_eq!(url, Elicitation::Url { message: "Sign in".into(), url: "https://auth.example/x".into() });
        assert!(request_from(&json!({"mode": "url", "url": "javascript:alert(1)"})).is_err());
        assert!(matches!(request_from(&json!({"message": "Name?"})), Ok(Elicitation::Form { .. })));
        assert_eq!(answer_json(&ElicitAnswer::Accept { content: json!({"a": 1}) }), json!({"action": "accept", "content": {"a": 1}}));
        assert_eq!(answer_json(&ElicitAnswer::Cancel), json!({"action": "cancel"}));
    }
}
