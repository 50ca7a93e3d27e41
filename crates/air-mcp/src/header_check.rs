//! `x-mcp-header` (2026-07-28): a tool's input schema may ask for an
//! argument to travel as an `Mcp-Param-{Name}` header as well. A server
//! that names a header badly would make every call fail (a browser's
//! `fetch` refuses the name) or smuggle headers; such a tool is left out
//! when the tools are listed, with why.

use serde_json::Value;

/// Why `tool`'s `x-mcp-header` annotations make it unusable, or `None`.
pub fn invalid_headers(tool: &Value) -> Option<String> {
    let schema = tool.get("inputSchema")?;
    let mut seen: Vec<String> = Vec::new();
    visit(schema, Reach::Root, &mut seen).err()
}

/// How a schema was reached from the root.
#[derive(Clone, Copy, PartialEq)]
enum Reach {
    Root,
    /// Through `properties` keys alone: a header may be here.
    Properties,
    /// Through anything else (`items`, `anyOf`, `$defs`…).
    Other,
}

/// Checks `node` and everything under it.
fn visit(node: &Value, reach: Reach, seen: &mut Vec<String>) -> Result<(), String> {
    match node {
        Value::Object(map) => {
            if let Some(header) = map.get("x-mcp-header") {
                check(header, map.get("type"), reach == Reach::Properties, seen)?;
            }
            for (key, value) in map {
                if key == "properties" && reach != Reach::Other {
                    for prop in value.as_object().into_iter().flat_map(|p| p.values()) {
                        visit(prop, Reach::Properties, seen)?;
                    }
                } else if key != "x-mcp-header" {
                    visit(value, Reach::Other, seen)?;
                }
            }
            Ok(())
        }
        Value::Array(items) => items.iter().try_for_each(|v| visit(v, Reach::Other, seen)),
        _ => Ok(()),
    }
}

fn check(header: &Value, kind: Option<&Value>, via_properties: bool, seen: &mut Vec<String>) -> Result<(), String> {
    let name = header.as_str().ok_or("x-mcp-header is not a string")?;
    if !via_properties {
        return Err(format!("x-mcp-header {name:?} is not on a property reached through properties alone"));
    }
    if name.is_empty() || !name.bytes().all(is_token_char) {
        return Err(format!("x-mcp-header {name:?} is not a valid header name (RFC 9110 token)"));
    }
    if seen.iter().any(|s| s.eq_ignore_ascii_case(name)) {
        return Err(format!("x-mcp-header {name:?} is named twice"));
    }
    match kind.and_then(Value::as_str) {
        Some("string" | "integer" | "boolean") => {}
        other => return Err(format!("x-mcp-header {name:?} is on a property of type {}, not string, integer or boolean", other.unwrap_or("(none)"))),
    }
    seen.push(name.to_owned());
    Ok(())
}

/// RFC 9110 `tchar`.
fn is_token_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(props: Value) -> Value {
        json!({"name": "t", "inputSchema": {"type": "object", "properties": props}})
    }

    #[test]
    fn valid_headers_keep_the_tool() {
        assert_eq!(
            invalid_headers(&tool(
                json!({"region": {"type": "string", "x-mcp-header": "Region"}, "n": {"type": "integer", "x-mcp-header": "Count"}, "b": {"type": "boolean", "x-mcp-header": "Flag_1"}})
            )),
            None
        );
        assert_eq!(invalid_headers(&tool(json!({"a": {"type": "object", "properties": {"b": {"type": "string", "x-mcp-header": "Deep"}}}}))), None, "a chain of properties");
        assert_eq!(invalid_headers(&json!({"name": "t"})), None, "no schema, nothing to check");
    }

    #[test]
    fn bad_headers_leave_the_tool_out() {
        let bad = [
            json!({"a": {"type": "string", "x-mcp-header": ""}}),
            json!({"a": {"type": "string", "x-mcp-header": "Has Space"}}),
            json!({"a": {"type": "string", "x-mcp-header": "Colon:"}}),
            json!({"a": {"type": "string", "x-mcp-header": "Ünicode"}}),
            json!({"a": {"type": "string", "x-mcp-header": "Line\nBreak"}}),
            json!({"a": {"type": "string", "x-mcp-header": 7}}),
            json!({"a": {"type": "string", "x-mcp-header": "Same"}, "b": {"type": "string", "x-mcp-header": "same"}}),
            json!({"a": {"type": "number", "x-mcp-header": "Num"}}),
            json!({"a": {"type": "object", "x-mcp-header": "Obj"}}),
            json!({"a": {"x-mcp-header": "Untyped"}}),
            json!({"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}}),
            json!({"a": {"anyOf": [{"type": "string", "x-mcp-header": "Any"}]}}),
            json!({"a": {"if": {"type": "string", "x-mcp-header": "If"}}}),
            json!({"a": {"anyOf": [{"type": "object", "properties": {"b": {"type": "string", "x-mcp-header": "Under"}}}]}}),
            json!({"a": {"$ref": "#/$defs/x", "x-mcp-header": "Ref"}}),
        ];
        for props in bad {
            assert!(invalid_headers(&tool(props.clone())).is_some(), "{props}");
        }
        let in_defs = json!({"name": "t", "inputSchema": {"type": "object", "$defs": {"x": {"type": "string", "x-mcp-header": "Defs"}}}});
        assert!(invalid_headers(&in_defs).is_some());
    }
}
