use super::*;
use expect_test::expect;
use serde_json::json;

fn calculator_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"expression": {"type": "string", "description": "The expression, e.g. \"(2 + 3) * sqrt(16)\""}},
        "required": ["expression"],
        "additionalProperties": false
    })
}

fn time_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"timezone": {"type": "string", "description": "IANA time zone, e.g. \"Asia/Tokyo\"; omit for the user's own"}},
        "additionalProperties": false
    })
}

/// The two built-in tools, with the descriptions air-tools gives them: this
/// is the prompt the SmolLM2 samples in `tests/prompt_calls/` were recorded
/// with.
#[test]
fn the_prompt_for_the_two_built_in_tools() {
    let (calc, time) = (calculator_schema(), time_schema());
    let tools = [
        PromptTool {
            name: "calculator",
            description: "Evaluates an arithmetic expression exactly. Supports + - * / % ^ (power), parentheses, unary minus, the functions sqrt sin cos tan log (base 10) ln abs min max, and the constants pi and e. Use it for any calculation instead of computing in your head.",
            parameters: &calc,
            hints: vec!["read-only"],
        },
        PromptTool {
            name: "get_current_time",
            description: "Returns the current date, time, weekday and UTC offset, in the user's time zone or in the given IANA time zone.",
            parameters: &time,
            hints: vec!["read-only"],
        },
    ];
    expect![[r##"
        # Tools

        You can call tools. To call one, write a <tool_call> tag holding a JSON object with the tool's name and arguments, exactly like this:
        <tool_call>{"name": "TOOL_NAME", "arguments": {"PARAMETER": "VALUE"}}</tool_call>
        - Write one <tool_call> per call. You may write several.
        - Put nothing else inside the tag.
        - After your calls, stop and wait. The results come back in <tool_response> tags.
        - Never make up results. If no tool is needed, just answer.

        Available tools:

        ## calculator (read-only)
        Evaluates an arithmetic expression exactly. Supports + - * / % ^ (power), parentheses, unary minus, the functions sqrt sin cos tan log (base 10) ln abs min max, and the constants pi and e. Use it for any calculation instead of computing in your head.
        Parameters:
        - expression (string, required): The expression, e.g. "(2 + 3) * sqrt(16)"

        ## get_current_time (read-only)
        Returns the current date, time, weekday and UTC offset, in the user's time zone or in the given IANA time zone.
        Parameters:
        - timezone (string, optional): IANA time zone, e.g. "Asia/Tokyo"; omit for the user's own

        Example:
        <tool_call>{"name": "calculator", "arguments": {"expression": "..."}}</tool_call>

        You have 2 tools available."##]]
    .assert_eq(&tools_system_prompt(&tools));
}

#[test]
fn parameter_types_enums_defaults_and_order() {
    let schema = json!({
        "type": "object",
        "properties": {
            "zeta": {"type": "integer", "default": 3},
            "path": {"type": "string", "description": "Where.\n  Relative to the\tproject."},
            "mode": {"enum": ["fast", "exact"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
            "options": {"type": "object", "properties": {"deep": {"type": "boolean"}}},
            "maybe": {"type": ["string", "null"]},
            "either": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "free": {},
            "force": {"type": "boolean"}
        },
        "required": ["path", "force"]
    });
    let tools = [PromptTool { name: "write_file", description: " Writes a file.\n", parameters: &schema, hints: vec!["destructive", "idempotent"] }];
    expect![[r#"

        ## write_file (destructive, idempotent)
        Writes a file.
        Parameters:
        - force (boolean, required)
        - path (string, required): Where. Relative to the project.
        - either (integer or null, optional)
        - free (any, optional)
        - matrix (array of array of number, optional)
        - maybe (string or null, optional)
        - mode (string, optional, one of "fast", "exact")
        - options (object, optional)
        - tags (array of string, optional)
        - zeta (integer, optional, default 3)

        Example:
        <tool_call>{"name": "write_file", "arguments": {"path": "...", "force": true}}</tool_call>

        You have 1 tool available."#]]
    .assert_eq(tools_system_prompt(&tools).split("Available tools:\n").nth(1).unwrap_or_default());
}

#[test]
fn tools_without_parameters_or_description() {
    let empty = json!({"type": "object"});
    let tools = [PromptTool { name: "ping", description: "", parameters: &empty, hints: vec![] }];
    expect![[r#"

        ## ping
        Parameters: none

        Example:
        <tool_call>{"name": "ping", "arguments": {}}</tool_call>

        You have 1 tool available."#]]
    .assert_eq(tools_system_prompt(&tools).split("Available tools:\n").nth(1).unwrap_or_default());
    // No tools: the rules only, and no example.
    assert!(!tools_system_prompt(&[]).contains("Example"));
}

#[test]
fn the_example_uses_what_the_schema_offers() {
    let schema = json!({
        "properties": {
            "unit": {"enum": ["c", "f"]},
            "city": {"type": "string", "examples": ["Paris"]},
            "days": {"type": "integer"}
        },
        "required": ["unit", "city", "days", "missing"]
    });
    let tools = [PromptTool { name: "weather", description: "Forecast.", parameters: &schema, hints: vec![] }];
    let prompt = tools_system_prompt(&tools);
    assert!(prompt.contains("\nExample:\n<tool_call>{\"name\": \"weather\", \"arguments\": {\"unit\": \"c\", \"city\": \"Paris\", \"days\": 1, \"missing\": \"...\"}}</tool_call>\n\n"), "{prompt}");
}

/// The section ends with how many tools it described, in the singular for
/// one.
#[test]
fn the_section_ends_with_the_number_of_tools() {
    let schema = json!({"type": "object"});
    let tool = |name| PromptTool { name, description: "", parameters: &schema, hints: vec![] };
    let last_line = |tools: &[PromptTool<'_>]| tools_system_prompt(tools).lines().last().unwrap_or_default().to_owned();
    assert_eq!(last_line(&[]), "You have 0 tools available.");
    assert_eq!(last_line(&[tool("ping")]), "You have 1 tool available.");
    assert_eq!(last_line(&[tool("a"), tool("b"), tool("c")]), "You have 3 tools available.");
    // It is the very end: nothing follows it, and a blank line comes before.
    let two = tools_system_prompt(&[tool("a"), tool("b")]);
    assert!(two.ends_with("</tool_call>\n\nYou have 2 tools available."), "{two}");
    assert_eq!(two.matches("tools available").count(), 1);
}

#[test]
fn call_text_is_read_back_by_the_parser() {
    for (args, expected) in [(r#"{"expression":"2 + 2", "n": [1,2]}"#, r#"{"expression": "2 + 2", "n": [1, 2]}"#), ("", "{}"), ("{not json", "\"{not json\"")] {
        let text = tool_call_text("calculator", args);
        assert_eq!(text, format!("<tool_call>{{\"name\": \"calculator\", \"arguments\": {expected}}}</tool_call>"));
        let (visible, calls) = crate::prompt_calls::parse_all(&text);
        assert_eq!(visible, "");
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "calculator");
    }
}

#[test]
fn results_go_back_as_tagged_blocks() {
    expect![[r#"
        <tool_response name="calculator" call="1">
        23 * 17 = 391
        </tool_response>"#]]
    .assert_eq(&tool_result_text("calculator", 0, "23 * 17 = 391\n", false));
    expect![[r#"
        <tool_response name="a&quot;b" call="3" error="true">
        Error: no such zone; <\/tool_response> is escaped
        </tool_response>"#]]
    .assert_eq(&tool_result_text("a\"b", 2, "no such zone; </tool_response> is escaped", true));
    assert!(tool_result_text("x", 0, "ERROR: bad", true).contains("\nERROR: bad\n"), "not marked twice");
    expect![[r#"
        <tool_response name="calculator" call="1">
        2 + 2 = 4
        </tool_response>
        <tool_response name="get_current_time" call="2" error="true">
        Error: unknown time zone "Mars/Base"
        </tool_response>
        Continue: use these results to answer the user. If a call failed, fix it and call again, or explain the problem."#]]
    .assert_eq(&tool_results_message(&[
        ToolResult { name: "calculator", output: "2 + 2 = 4", is_error: false },
        ToolResult { name: "get_current_time", output: "unknown time zone \"Mars/Base\"", is_error: true },
    ]));
    expect![[r#"
        <tool_response name="calculator" call="1">
        4
        </tool_response>
        Continue: use these results to answer the user."#]]
    .assert_eq(&tool_results_message(&[ToolResult { name: "calculator", output: "4", is_error: false }]));
}
