//! What a model without native tool calls ("prompt mode") is told: the
//! tools section of the system prompt, the text of a call for the history,
//! and how results go back to it. The reading side is
//! [`crate::prompt_calls`].
//!
//! The wording is for small models: one calling format, shown once in the
//! rules and once as an example, and parameters as a flat list. It is sent
//! with every request, so it is kept short.

use serde_json::Value;

/// What the model is told about one tool.
#[derive(Debug, Clone)]
pub struct PromptTool<'a> {
    pub name: &'a str,
    pub description: &'a str,
    /// JSON Schema of the arguments object.
    pub parameters: &'a Value,
    /// Short facts about side effects, e.g. `read-only`, `destructive`,
    /// `idempotent`.
    pub hints: Vec<&'static str>,
}

/// The section to append to the system prompt: the calling format, then
/// every tool with its parameters and hints, then an example call of the
/// first tool, and last the line "You have N tools available." (a small
/// model that lost count in a long list reads it last). Deterministic: the
/// same tools give the same text, so requests (and prompt caches) stay
/// stable.
pub fn tools_system_prompt(tools: &[PromptTool<'_>]) -> String {
    let mut s = String::from(
        "# Tools\n\
         \n\
         You can call tools. To call one, write a <tool_call> tag holding a JSON object with the tool's name and arguments, exactly like this:\n\
         <tool_call>{\"name\": \"TOOL_NAME\", \"arguments\": {\"PARAMETER\": \"VALUE\"}}</tool_call>\n\
         - Write one <tool_call> per call. You may write several.\n\
         - Put nothing else inside the tag.\n\
         - After your calls, stop and wait. The results come back in <tool_response> tags.\n\
         - Never make up results. If no tool is needed, just answer.\n\
         \n\
         Available tools:\n",
    );
    for tool in tools {
        s.push_str("\n## ");
        s.push_str(tool.name);
        if !tool.hints.is_empty() {
            s.push_str(" (");
            s.push_str(&tool.hints.join(", "));
            s.push(')');
        }
        s.push('\n');
        let description = tool.description.trim();
        if !description.is_empty() {
            s.push_str(description);
            s.push('\n');
        }
        let params = parameter_lines(tool.parameters);
        if params.is_empty() {
            s.push_str("Parameters: none\n");
        } else {
            s.push_str("Parameters:\n");
            for line in params {
                s.push_str(&line);
                s.push('\n');
            }
        }
    }
    if let Some(first) = tools.first() {
        s.push_str("\nExample:\n");
        s.push_str(&tool_call_text(first.name, &example_arguments(first.parameters).to_string()));
        s.push('\n');
    }
    s.push('\n');
    s.push_str(&tools_count_line(tools.len()));
    s
}

/// The section's last line: `You have 1 tool available.`, `You have 3
/// tools available.`
fn tools_count_line(n: usize) -> String {
    format!("You have {n} tool{} available.", if n == 1 { "" } else { "s" })
}

/// One line per parameter: `- name (type, required|optional[, one of …][,
/// default …]): description`. serde_json's maps are sorted, so the order
/// of the schema is lost; required parameters come first (the ones the
/// model must not forget), each group by name.
fn parameter_lines(schema: &Value) -> Vec<String> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let required = required_names(schema);
    let mut names: Vec<&String> = props.keys().collect();
    names.sort_by_key(|n| (!required.contains(&n.as_str()), n.as_str()));
    names
        .into_iter()
        .map(|name| {
            let p = &props[name];
            let mut facts = vec![type_name(p), if required.contains(&name.as_str()) { "required" } else { "optional" }.to_owned()];
            if let Some(values) = p.get("enum").and_then(Value::as_array).filter(|v| !v.is_empty()) {
                facts.push(format!("one of {}", values.iter().map(Value::to_string).collect::<Vec<_>>().join(", ")));
            }
            if let Some(default) = p.get("default") {
                facts.push(format!("default {default}"));
            }
            let mut line = format!("- {name} ({})", facts.join(", "));
            if let Some(d) = p.get("description").and_then(Value::as_str).map(one_line).filter(|d| !d.is_empty()) {
                line.push_str(": ");
                line.push_str(&d);
            }
            line
        })
        .collect()
}

fn required_names(schema: &Value) -> Vec<&str> {
    schema.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default()
}

/// A short type: `string`, `string or null`, `array of integer`, `object`
/// (nested objects are not spelled out: small models do better with a flat
/// list, and the schema check reports anything missing precisely).
fn type_name(schema: &Value) -> String {
    let named = match schema.get("type") {
        Some(Value::String(t)) => Some(t.clone()),
        Some(Value::Array(ts)) => {
            let ts: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
            (!ts.is_empty()).then(|| ts.join(" or "))
        }
        _ => None,
    };
    let name = named
        .or_else(|| {
            // `anyOf`/`oneOf` of simple types, as generated for optional
            // fields (`anyOf: [{type: string}, {type: null}]`).
            let alts = schema.get("anyOf").or_else(|| schema.get("oneOf"))?.as_array()?;
            let names: Vec<String> = alts.iter().map(type_name).collect();
            (!names.is_empty()).then(|| names.join(" or "))
        })
        .or_else(|| schema.get("enum").and_then(Value::as_array).and_then(|v| v.first()).map(|v| air_tools::schema::json_type(v).to_owned()))
        .or_else(|| schema.get("const").map(|v| air_tools::schema::json_type(v).to_owned()))
        .or_else(|| schema.get("properties").map(|_| "object".to_owned()))
        .unwrap_or_else(|| "any".to_owned());
    match schema.get("items").filter(|i| name == "array" && i.is_object()) {
        Some(items) => format!("array of {}", type_name(items)),
        None => name,
    }
}

/// A description on one line, so it cannot break the list.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Arguments for the example call: every required parameter with a value
/// the schema offers (an example, the default, the first enum value) or a
/// placeholder of its type.
fn example_arguments(schema: &Value) -> Value {
    let mut args = serde_json::Map::new();
    let props = schema.get("properties").and_then(Value::as_object);
    for name in required_names(schema) {
        let p = props.and_then(|props| props.get(name)).unwrap_or(&Value::Null);
        let offered =
            p.get("examples").and_then(Value::as_array).and_then(|e| e.first()).or_else(|| p.get("default")).or_else(|| p.get("enum").and_then(Value::as_array).and_then(|e| e.first())).cloned();
        let value = offered.unwrap_or_else(|| match type_name(p).split(' ').next() {
            Some("integer" | "number") => Value::from(1),
            Some("boolean") => Value::Bool(true),
            Some("array") => Value::Array(Vec::new()),
            Some("object") => Value::Object(Default::default()),
            _ => Value::String("...".into()),
        });
        args.insert(name.to_owned(), value);
    }
    Value::Object(args)
}

/// A call in the very form the prompt asks for, for the assistant messages
/// of the history: a model imitates what it sees it did before.
/// `arguments` is put in as JSON when it is JSON, else as a JSON string.
pub fn tool_call_text(name: &str, arguments: &str) -> String {
    let args = match serde_json::from_str::<Value>(arguments) {
        Ok(v) => spaced(&v),
        Err(_) if arguments.trim().is_empty() => "{}".to_owned(),
        Err(_) => Value::String(arguments.to_owned()).to_string(),
    };
    format!("<tool_call>{{\"name\": {}, \"arguments\": {args}}}</tool_call>", Value::String(name.to_owned()))
}

/// JSON on one line with a space after `:` and `,`, as the format line of
/// the prompt writes it (serde_json's compact form has none).
fn spaced(v: &Value) -> String {
    match v {
        Value::Object(map) => {
            let items: Vec<String> = map.iter().map(|(k, v)| format!("{}: {}", Value::String(k.clone()), spaced(v))).collect();
            format!("{{{}}}", items.join(", "))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(spaced).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

/// One result as a prompt-mode model reads it (in a user message):
/// `<tool_response name="calculator" call="1">…</tool_response>`.
/// `call_index` is the 0-based position of the call in the model's answer
/// and is written 1-based ("the first call"), so several calls of the
/// same tool can be told apart. A failure is marked twice, in an attribute
/// and with `Error:` in front, because small models read the text, not the
/// attributes.
pub fn tool_result_text(name: &str, call_index: usize, output: &str, is_error: bool) -> String {
    let name = name.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;");
    // An output that contains the closing tag would end the block early.
    let mut body = output.trim().replace("</tool_response>", "<\\/tool_response>");
    if is_error && !body.get(..6).is_some_and(|s| s.eq_ignore_ascii_case("error:")) {
        body.insert_str(0, "Error: ");
    }
    let error = if is_error { " error=\"true\"" } else { "" };
    format!("<tool_response name=\"{name}\" call=\"{}\"{error}>\n{body}\n</tool_response>", call_index + 1)
}

/// One result for [`tool_results_message`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToolResult<'a> {
    pub name: &'a str,
    pub output: &'a str,
    pub is_error: bool,
}

/// The user message that carries the results of one round of calls, in
/// call order, and a closing line that tells the model what to do next
/// (without it, small models often call the same tool again).
pub fn tool_results_message(results: &[ToolResult<'_>]) -> String {
    let mut s = String::new();
    for (i, r) in results.iter().enumerate() {
        s.push_str(&tool_result_text(r.name, i, r.output, r.is_error));
        s.push('\n');
    }
    s.push_str(if results.iter().any(|r| r.is_error) {
        "Continue: use these results to answer the user. If a call failed, fix it and call again, or explain the problem."
    } else {
        "Continue: use these results to answer the user."
    });
    s
}

#[cfg(test)]
mod tests;
