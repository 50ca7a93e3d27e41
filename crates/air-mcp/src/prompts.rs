//! Prompts (`prompts/list`, `prompts/get`): a server's prompt with its
//! arguments, and the messages it returns as text for the composer.

use serde_json::Value;

use crate::str_field as s;

/// One argument of a prompt (always a string).
#[derive(Debug, Clone, PartialEq)]
pub struct PromptArg {
    pub name: String,
    pub description: Option<String>,
    pub required: bool,
}

/// A prompt as listed.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub name: String,
    /// What to show: the title, else the name.
    pub label: String,
    pub description: Option<String>,
    pub arguments: Vec<PromptArg>,
}

/// A `prompts/list` entry; `None` without a name.
pub fn prompt_from(v: &Value) -> Option<Prompt> {
    let name = s(v, "name")?;
    let arguments = v
        .get("arguments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|a| Some(PromptArg { name: s(a, "name")?, description: s(a, "description"), required: a.get("required").and_then(Value::as_bool).unwrap_or(false) }))
        .collect();
    Some(Prompt { label: s(v, "title").unwrap_or_else(|| name.clone()), name, description: s(v, "description"), arguments })
}

/// The messages of a `prompts/get` result as one text: each message's text
/// (embedded resources by their text, images and audio as a note), the
/// messages separated by a blank line.
pub fn text_of(result: &Value) -> String {
    let mut parts = Vec::new();
    for m in result.get("messages").and_then(Value::as_array).into_iter().flatten() {
        let Some(c) = m.get("content") else { continue };
        let s = |k: &str| c.get(k).and_then(Value::as_str);
        let text = match s("type") {
            Some("text") => s("text").map(str::to_owned),
            Some("resource") => c.pointer("/resource/text").and_then(Value::as_str).map(str::to_owned).or_else(|| c.pointer("/resource/uri").and_then(Value::as_str).map(|u| format!("[{u}]"))),
            Some("resource_link") => s("uri").map(|u| format!("[{u}]")),
            Some(kind @ ("image" | "audio")) => Some(format!("[{kind}: {}]", s("mimeType").unwrap_or(""))),
            _ => None,
        };
        if let Some(t) = text.filter(|t| !t.trim().is_empty()) {
            parts.push(t);
        }
    }
    parts.join("\n\n")
}

/// The values a `completion/complete` result offers.
pub fn completions(result: &Value) -> Vec<String> {
    result.pointer("/completion/values").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).take(100).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prompts_their_arguments_and_their_text() {
        // As the reference server lists and answers them (recorded 2026-11-22).
        let listed = json!({"name": "args-prompt", "title": "Arguments Prompt", "description": "A prompt with two arguments, one required and one optional",
            "arguments": [{"name": "city", "description": "Name of the city", "required": true}, {"name": "state", "required": false}]});
        let p = prompt_from(&listed).unwrap();
        assert_eq!(p.label, "Arguments Prompt");
        assert_eq!(p.arguments[0], PromptArg { name: "city".into(), description: Some("Name of the city".into()), required: true });
        assert!(!p.arguments[1].required);
        assert!(prompt_from(&json!({"title": "no name"})).is_none());

        let got = json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "What's weather in Paris?"}},
            {"role": "user", "content": {"type": "resource", "resource": {"uri": "demo://resource/static/document/architecture.md", "text": "# Architecture"}}},
            {"role": "user", "content": {"type": "image", "data": "x", "mimeType": "image/png"}}
        ]});
        assert_eq!(text_of(&got), "What's weather in Paris?\n\n# Architecture\n\n[image: image/png]");
        assert_eq!(completions(&json!({"completion": {"values": ["Engineering"], "total": 1, "hasMore": false}})), ["Engineering"]);
    }
}
