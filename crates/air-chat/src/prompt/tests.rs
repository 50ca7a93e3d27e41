use super::*;
use serde_json::json;

fn call(name: &str, arguments: &str) -> PromptCall {
    PromptCall { name: name.into(), arguments: arguments.into() }
}

/// Feeds `text` whole, then split at every char boundary, then char by
/// char: the events, merged, must agree every time.
fn parse_every_way(text: &str) -> (String, Vec<PromptCall>) {
    let whole = parse_all(text);
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
    for &cut in &bounds {
        let mut p = CallParser::new();
        let mut events = p.feed(&text[..cut]);
        events.extend(p.feed(&text[cut..]));
        events.extend(p.finish());
        assert_eq!(merge(events), whole, "split at {cut} of {text:?}");
    }
    let mut p = CallParser::new();
    let mut events = Vec::new();
    for c in text.chars() {
        events.extend(p.feed(&c.to_string()));
    }
    events.extend(p.finish());
    assert_eq!(merge(events), whole, "char by char: {text:?}");
    whole
}

fn merge(events: Vec<PromptEvent>) -> (String, Vec<PromptCall>) {
    let mut text = String::new();
    let mut calls = Vec::new();
    for e in events {
        match e {
            PromptEvent::Text(t) => text.push_str(&t),
            PromptEvent::Call(c) => calls.push(c),
        }
    }
    (text, calls)
}

#[test]
fn the_forms_models_write() {
    let calc = |e: &str| call("calculator", &json!({"expression": e}).to_string());
    let cases: Vec<(&str, &str, Vec<PromptCall>)> = vec![
        (
            "Let me compute.\n<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"2+2\"}}</tool_call>",
            "Let me compute.\n",
            vec![calc("2+2")],
        ),
        (
            "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"1\"}}\n</tool_call>\n<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"2\"}}</tool_call>",
            "\n",
            vec![calc("1"), calc("2")],
        ),
        ("<tool_call>[{\"name\": \"a\"}, {\"name\": \"b\", \"parameters\": {\"x\": 1}}]</tool_call>", "", vec![call("a", "{}"), call("b", "{\"x\":1}")]),
        ("Sure! <tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"9\"}}", "Sure! ", vec![calc("9")]),
        ("```json\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"3*3\"}}\n```\nDone.", "\nDone.", vec![calc("3*3")]),
        ("I will call {\"name\": \"calculator\", \"arguments\": {\"expression\": \"5\"}} now", "I will call  now", vec![calc("5")]),
        ("{\"function\": {\"name\": \"get_current_time\", \"arguments\": \"{\\\"timezone\\\": \\\"Asia/Tokyo\\\"}\"}}", "", vec![call("get_current_time", "{\"timezone\": \"Asia/Tokyo\"}")]),
        ("<|python_tag|>{\"name\": \"calculator\", \"parameters\": {\"expression\": \"7\"}}", "", vec![calc("7")]),
        ("<function=calculator>{\"expression\": \"8\"}</function>", "", vec![call("calculator", "{\"expression\": \"8\"}")]),
        ("[TOOL_CALLS] [{\"name\": \"calculator\", \"arguments\": {\"expression\": \"6\"}}]", "", vec![calc("6")]),
        ("functools[{\"name\": \"calculator\", \"arguments\": {\"expression\": \"4\"}}]", "", vec![calc("4")]),
        ("好的，我来算一下。<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"1+1\"}}</tool_call>结果马上就来。", "好的，我来算一下。结果马上就来。", vec![calc("1+1")]),
    ];
    for (input, text, calls) in cases {
        assert_eq!(parse_every_way(input), (text.to_owned(), calls), "{input}");
    }
}

#[test]
fn json_that_is_not_a_call_stays_text() {
    for input in [
        "Here is the config:\n```json\n{\"port\": 8080, \"debug\": true}\n```\nUse it.",
        "In Rust: `let s = {x};` and sets {1, 2}, maps {\"a\": 1}.",
        "```rust\nfn main() { println!(\"{}\", 1); }\n```",
        "An array [1, 2] and [ {\"k\": 1} ].",
        "Unclosed { brace at the end",
        "A lone <tool or ``` at the end ``",
        "",
    ] {
        assert_eq!(parse_every_way(input), (input.to_owned(), vec![]), "{input}");
    }
}

#[test]
fn unreadable_calls_are_reported_not_lost() {
    let (text, calls) = parse_every_way("<tool_call>{name: calculator, oops}</tool_call>after");
    assert_eq!(text, "after");
    assert_eq!(calls, [call("", "{name: calculator, oops}")]);
}

#[test]
fn code_blocks_stream_without_waiting_for_their_end() {
    let mut p = CallParser::new();
    let events = p.feed("Look:\n```python\nprint('hi')\n");
    let (text, _) = merge(events);
    assert_eq!(text, "Look:\n```python\nprint('hi')\n", "a non-JSON block is given out at once");
}

#[test]
fn garbage_never_panics() {
    let mut seed = 42u64;
    let pieces = ["<tool_call>", "</tool_call>", "{", "}", "[", "]", "\"name\"", ":", "\"x\"", "```", "json\n", " ", "é", "<function=a>", "[TOOL_CALLS]", ",", "\\"];
    for _ in 0..3000 {
        let n = (seed % 12) as usize;
        let mut s = String::new();
        for _ in 0..n {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            s.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
        }
        let _ = parse_every_way(&s);
    }
}

#[test]
fn the_system_prompt_lists_tools_compactly() {
    let calc = json!({"type":"object","properties":{"expression":{"type":"string","description":"e.g. 2+2"}},"required":["expression"]});
    let time = json!({"type":"object","properties":{"timezone":{"type":"string","description":"IANA zone"},"format":{"enum":["iso","human"]},"tags":{"type":"array","items":{"type":"string"}}}});
    let tools = [
        PromptTool { name: "calculator", description: "Evaluates arithmetic.", parameters: &calc, hints: vec!["read-only"] },
        PromptTool { name: "get_current_time", description: "The time.", parameters: &time, hints: vec![] },
    ];
    expect_test::expect![[r#"
        # Tools

        You can call tools. To call one, write exactly:
        <tool_call>{"name": "TOOL_NAME", "arguments": {ARGUMENTS AS JSON}}</tool_call>
        Write one <tool_call> block per call; several are allowed. Then stop and wait: the results come back in <tool_response> blocks. Use them to answer the user. Do not make up results. If no tool is needed, just answer.

        Available tools:

        ## calculator
        Evaluates arithmetic.
        Parameters:
        - expression (string, required): e.g. 2+2
        Hints: read-only

        ## get_current_time
        The time.
        Parameters:
        - format (string, optional) (one of "iso", "human")
        - tags (array of string, optional)
        - timezone (string, optional): IANA zone

        Example:
        <tool_call>{"name": "calculator", "arguments": {"expression":"..."}}</tool_call>
    "#]]
    .assert_eq(&tools_system_prompt(&tools));
    assert_eq!(call_text("calculator", "{\"expression\":\"2\"}"), "<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\":\"2\"}}</tool_call>");
    // What is written back is read back.
    assert_eq!(parse_all(&call_text("calculator", "{\"expression\":\"2\"}")).1, [call("calculator", "{\"expression\":\"2\"}")]);
    assert_eq!(result_text("calculator", " 2 = 2\n"), "<tool_response name=\"calculator\">\n2 = 2\n</tool_response>");
}

/// Real outputs, one file each in `tests/prompt_calls/`, with their
/// expected reading next to them (`UPDATE_EXPECT=1` rewrites those).
#[test]
fn corpus_of_real_outputs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/prompt_calls");
    let mut seen = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries.iter().filter(|p| p.extension().and_then(|e| e.to_str()) == Some("txt")) {
        let input = std::fs::read_to_string(path).unwrap();
        let (text, calls) = parse_every_way(&input);
        let mut out = format!("text: {text:?}\n");
        for c in calls {
            out.push_str(&format!("call: {} {}\n", if c.name.is_empty() { "(unreadable)" } else { &c.name }, c.arguments));
        }
        expect_test::expect_file![path.with_extension("expected")].assert_eq(&out);
        seen += 1;
    }
    let expected = entries.iter().filter(|p| p.extension().and_then(|e| e.to_str()) == Some("expected")).count();
    assert_eq!(seen, expected, "every .expected file has its .txt");
    assert!(seen >= 5, "the corpus is there");
}
