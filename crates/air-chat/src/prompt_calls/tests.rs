use super::*;
use serde_json::json;

fn call(name: &str, arguments: &str) -> PromptCall {
    PromptCall { name: name.into(), arguments: arguments.into() }
}

fn calc(expression: &str) -> PromptCall {
    call("calculator", &json!({ "expression": expression }).to_string())
}

/// Reads `text` every way a stream may cut it ([`read_every_way`]). The
/// visible text must be the input with spans taken out (checked as: a
/// subsequence).
fn parse_every_way(text: &str) -> (String, Vec<PromptCall>) {
    let whole = read_every_way(text).unwrap_or_else(|e| panic!("{e} of {text:?}"));
    let mut rest = text.chars();
    assert!(whole.0.chars().all(|c| rest.any(|r| r == c)), "the text is the input minus spans: {text:?} → {:?}", whole.0);
    whole
}

#[test]
fn the_forms_models_write() {
    let cases: Vec<(&str, &str, Vec<PromptCall>)> = vec![
        // Hermes / Qwen.
        ("Let me compute.\n<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"2+2\"}}</tool_call>", "Let me compute.\n", vec![calc("2+2")]),
        (
            "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"1\"}}\n</tool_call>\n<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"2\"}}</tool_call>",
            "\n",
            vec![calc("1"), calc("2")],
        ),
        ("<tool_call>[{\"name\": \"a\"}, {\"name\": \"b\", \"parameters\": {\"x\": 1}}]</tool_call>", "", vec![call("a", "{}"), call("b", "{\"x\":1}")]),
        ("<tool_call>{\"name\": \"a\"}\n{\"name\": \"b\"}</tool_call>", "", vec![call("a", "{}"), call("b", "{}")]),
        ("Sure! <tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"9\"}}", "Sure! ", vec![calc("9")]),
        ("<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"9\"}}\nWaiting for the result.", "\nWaiting for the result.", vec![calc("9")]),
        ("<tool_call>{\"name\": \"a\", \"arguments\": {}}\n<tool_call>{\"name\": \"b\", \"arguments\": {}}</tool_call>", "", vec![call("a", "{}"), call("b", "{}")]),
        ("<tool_call>\n```json\n{\"name\": \"a\", \"arguments\": {\"k\": 1}}\n```\n</tool_call>", "", vec![call("a", "{\"k\":1}")]),
        ("<tool_call>{\"name\": \"calculator\", \"expression\": \"3\"}</tool_call>", "", vec![calc("3")]),
        ("<tool_call>\n<function=calculator>\n<parameter=expression>\n23 * 17\n</parameter>\n</function>\n</tool_call>", "", vec![calc("23 * 17")]),
        ("{\"name\": \"calculator\", \"arguments\": {\"expression\": \"1\"}}</tool_call> ok", " ok", vec![calc("1")]),
        // Fences.
        ("```json\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"3*3\"}}\n```\nDone.", "\nDone.", vec![calc("3*3")]),
        ("```\n[{\"name\": \"a\", \"arguments\": {}}, {\"name\": \"b\", \"arguments\": {}}]\n```", "", vec![call("a", "{}"), call("b", "{}")]),
        ("```tool_call\n{\"name\": \"ping\"}\n```", "", vec![call("ping", "{}")]),
        // Bare objects.
        ("I will call {\"name\": \"calculator\", \"arguments\": {\"expression\": \"5\"}} now", "I will call  now", vec![calc("5")]),
        ("{\"function\": {\"name\": \"get_current_time\", \"arguments\": \"{\\\"timezone\\\": \\\"Asia/Tokyo\\\"}\"}}", "", vec![call("get_current_time", "{\"timezone\": \"Asia/Tokyo\"}")]),
        ("{\"type\": \"function\", \"name\": \"calculator\", \"parameters\": {\"expression\": \"4\"}}", "", vec![calc("4")]),
        ("{\"tool\": \"calculator\", \"tool_input\": {\"expression\": \"4\"}}", "", vec![calc("4")]),
        ("{\"action\": \"calculator\", \"action_input\": \"4\"}", "", vec![call("calculator", "4")]),
        ("{'name': 'calculator', 'arguments': {'expression': '4',},}", "", vec![calc("4")]),
        ("{name: \"calculator\", arguments: {expression: \"4\", exact: True}}", "", vec![call("calculator", "{\"expression\":\"4\",\"exact\":true}")]),
        ("[{\"name\": \"a\", \"arguments\": {}}, {\"name\": \"b\", \"arguments\": {}}]", "", vec![call("a", "{}"), call("b", "{}")]),
        ("{\"tool_calls\": [{\"id\": \"c1\", \"type\": \"function\", \"function\": {\"name\": \"a\", \"arguments\": \"{}\"}}]}", "", vec![call("a", "{}")]),
        // Llama 3.1.
        ("<|python_tag|>{\"name\": \"calculator\", \"parameters\": {\"expression\": \"7\"}}", "", vec![calc("7")]),
        ("<function=calculator>{\"expression\": \"8\"}</function>", "", vec![call("calculator", "{\"expression\": \"8\"}")]),
        ("<function=calculator>{'expression': '8',}</function>", "", vec![calc("8")]),
        ("<function=get_current_time></function> and", " and", vec![call("get_current_time", "{}")]),
        // Mistral.
        ("[TOOL_CALLS] [{\"name\": \"calculator\", \"arguments\": {\"expression\": \"6\"}}]", "", vec![calc("6")]),
        ("[TOOL_CALLS]calculator[ARGS]{\"expression\":\"6\"}", "", vec![calc("6")]),
        ("[TOOL_CALLS]a[CALL_ID]x1Y2z3[ARGS]{}[TOOL_CALLS]b[ARGS]{\"k\": [1]}", "", vec![call("a", "{}"), call("b", "{\"k\": [1]}")]),
        // Firefunction.
        ("functools[{\"name\": \"calculator\", \"arguments\": {\"expression\": \"4\"}}]", "", vec![calc("4")]),
        // Text around, in Chinese.
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
        "```json\n{\"name\": \"my-app\", \"version\": \"1.0.0\"}\n```",
        "In Rust: `let s = {x};` and sets {1, 2}, maps {\"a\": 1}, {}.",
        "```rust\nfn main() { println!(\"{}\", 1); }\n```",
        "```python\nprint({\"name\": \"calculator\", \"arguments\": {}})\n```",
        "Data: {\"data\": {\"name\": \"calculator\", \"arguments\": {}}} end",
        "{\"name\": \"Alice Smith\", \"arguments\": \"none\"}",
        "{\"name\": \"Alice\", \"age\": 30}",
        "{\"name\": \"test1\", \"input\": \"abc\"}",
        "A definition: {\"name\": \"calculator\", \"description\": \"adds\", \"parameters\": {\"type\": \"object\", \"properties\": {}}}",
        "{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": {\"type\": \"object\", \"properties\": {}}}}",
        "An array [1, 2] and [ {\"k\": 1} ] and [ ].",
        "Unclosed { brace at the end",
        "Unclosed {\"name\": \"calculator\", \"arguments\": {",
        "A lone <tool or ``` at the end ``",
        "Python: functools.partial(f) and <function> and <function=a b> and [TOOL_CALLS] hi",
        "<|python_tag|> print(1)",
        "",
    ] {
        assert_eq!(parse_every_way(input), (input.to_owned(), vec![]), "{input}");
    }
}

#[test]
fn unreadable_calls_are_reported_not_lost() {
    // A tag on its own line, then prose (the local model, recorded): the
    // tag is markup, not shown; the prose is the answer.
    assert_eq!(parse_every_way("Example:\n<tool_call>\n23 * 17 ≈ 44.85 in the above example."), ("Example:\n\n23 * 17 ≈ 44.85 in the above example.".into(), vec![]));
    assert_eq!(parse_every_way("<tool_call>{name: calculator, oops}</tool_call>after"), ("after".into(), vec![call("", "{name: calculator, oops}")]));
    // A brace missing: the raw text goes to the caller, whose error names
    // the place.
    let raw = "{\"name\": \"calculator\", \"arguments\": {\"expression\": \"2+2\"}";
    assert_eq!(parse_every_way(&format!("<tool_call>{raw}</tool_call>")), (String::new(), vec![call("", raw)]));
    assert_eq!(parse_every_way(&format!("<tool_call>{raw}")), (String::new(), vec![call("", raw)]));
    assert_eq!(parse_every_way("<tool_call>calculator(2+2)</tool_call>"), (String::new(), vec![call("", "calculator(2+2)")]));
    // A good call, then a broken one in the same tag.
    assert_eq!(parse_every_way("<tool_call>{\"name\": \"a\", \"arguments\": {}}\n{\"name\": \"b\", </tool_call>"), (String::new(), vec![call("a", "{}"), call("", "{\"name\": \"b\",")]));
    // Arguments that are not JSON keep their text, under the tool's name.
    assert_eq!(parse_every_way("<function=calculator>2+2</function>"), (String::new(), vec![call("calculator", "2+2")]));
    assert_eq!(parse_every_way("[TOOL_CALLS] [{\"name\": oops"), (String::new(), vec![call("", "[{\"name\": oops")]));
    // Empty tags are dropped; a tag followed by prose is prose.
    assert_eq!(parse_every_way("a<tool_call></tool_call>b<tool_call>"), ("ab".into(), vec![]));
    assert_eq!(parse_every_way("Use <tool_call> tags."), ("Use <tool_call> tags.".into(), vec![]));
}

#[test]
fn text_is_given_out_as_soon_as_it_is_decided() {
    let mut p = PromptCallParser::new();
    let shown = |events: Vec<PromptEvent>| merge(events).0;
    assert_eq!(shown(p.feed("Look:\n```python\nprint('hi')\n")), "Look:\n```python\nprint('hi')\n", "a non-JSON block at once");
    assert_eq!(shown(p.feed("x = {1: 2}\n``")), "x = {1: 2}\n", "a possible closing fence is held");
    assert_eq!(shown(p.feed("`\nNow <tool_c")), "```\nNow ", "a partial tag is held");
    assert_eq!(shown(p.feed("ar> and {")), "<tool_car> and ", "not a tag after all; a brace is held");
    assert_eq!(shown(p.feed("\"na")), "", "until its first key is known");
    assert_eq!(shown(p.feed("me\": \"x\"")), "", "a key that calls start with: held");
    assert_eq!(shown(p.feed("} and {\"a\": {\"b\": 1")), "{\"name\": \"x\"} and {\"a\": {\"b\": 1", "another key: given out as it comes");
    assert_eq!(shown(p.feed("}} [")), "}} ", "a bracket may open a list of calls");
    assert_eq!(shown(p.finish()), "[");
}

#[test]
fn a_parser_is_reusable_after_finish() {
    let mut p = PromptCallParser::new();
    let _ = p.feed("```python\nunclosed");
    let _ = p.finish();
    let mut events = p.feed("<tool_call>{\"name\": \"a\"}</tool_call>");
    events.extend(p.finish());
    assert_eq!(merge(events), (String::new(), vec![call("a", "{}")]));
}

#[test]
fn lenient_json_reader() {
    assert_eq!(json::parse("{'a': 'it\\'s', b: [1, 2,], \"c\": None, d: .5, e: \"\\u00e9\\ud83d\\ude00\",}"), Some(json!({"a": "it's", "b": [1, 2], "c": null, "d": 0.5, "e": "é😀"})));
    assert_eq!(json::parse("{\"a\": \"\\ud800\"}"), Some(json!({"a": "\u{FFFD}"})));
    assert_eq!(json::parse("{\"a\": 1} x"), None);
    assert_eq!(json::parse(&"[".repeat(10_000)), None, "deep nesting is refused, not a stack overflow");
    assert_eq!(json::parse_prefix("{\"a\": 1} rest"), Some((json!({"a": 1}), 8)));
    for bad in ["{", "{\"a\"", "{\"a\":}", "[1 2]", "\"open", "tru", "{\"a\": \"\\u12\"}", "-", "{a b}"] {
        assert_eq!(json::parse(bad), None, "{bad}");
    }
}

/// Random text built from the pieces calls are made of, plus random
/// characters: no panic, every split agrees, text is the input minus spans.
#[test]
fn garbage_never_panics_and_every_split_agrees() {
    let pieces = [
        "<tool_call>",
        "</tool_call>",
        "<function=a>",
        "</function>",
        "<|python_tag|>",
        "[TOOL_CALLS]",
        "functools[",
        "[ARGS]",
        "```",
        "```json\n",
        "\n",
        "{",
        "}",
        "[",
        "]",
        "\"name\"",
        "'name'",
        "\"arguments\"",
        ":",
        "\"x\"",
        ",",
        "\\",
        "\"",
        "'",
        " ",
        "é",
        "世",
        "😀",
        "<",
        "`",
        "f",
        "<parameter=k>",
        "</parameter>",
        "True",
    ];
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for round in 0..4000 {
        let n = next() % 14;
        let mut s = String::new();
        for _ in 0..n {
            if round % 5 == 0 {
                s.push(char::from_u32((next() % 0x3000) as u32).unwrap_or('?'));
            } else {
                s.push_str(pieces[next() % pieces.len()]);
            }
        }
        let _ = parse_every_way(&s);
    }
}

/// Long calls and long texts cost time in proportion to their length: a
/// held call is not searched again from its start for every piece, and
/// text is not moved for every step.
#[test]
fn long_answers_take_linear_time() {
    let content = "x".repeat(300_000);
    let forms = [
        format!("<tool_call>{{\"name\": \"write\", \"arguments\": {{\"text\": \"{content}\"}}}}</tool_call>"),
        format!("<function=write>{{\"text\": \"{content}\"}}</function>"),
        format!("[TOOL_CALLS] [{{\"name\": \"write\", \"arguments\": {{\"text\": \"{content}\"}}}}]"),
        format!("{{\"name\": \"write\", \"arguments\": {{\"text\": \"{content}\"}}}}"),
        format!("```json\n{{\"name\": \"write\", \"arguments\": {{\"text\": \"{content}\"}}}}\n```"),
    ];
    for input in &forms {
        let mut p = PromptCallParser::new();
        let mut events = Vec::new();
        // Pieces of about one token.
        for piece in input.as_bytes().chunks(4) {
            events.extend(p.feed(std::str::from_utf8(piece).expect("ASCII")));
        }
        events.extend(p.finish());
        let (text, calls) = merge(events);
        assert_eq!((text.as_str(), calls.len()), ("", 1), "{}", &input[..40]);
        assert_eq!(calls[0].name, "write");
    }
    let braces = "a {b} [c] ".repeat(50_000);
    assert_eq!(parse_all(&braces), (braces.clone(), vec![]));
}

/// Three-way splits of realistic answers made of text, calls and near
/// misses, drawn at random: all agree with the whole.
#[test]
fn random_answers_split_three_ways() {
    let parts = [
        "Sure, let me check. ",
        "<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"2*3\"}}</tool_call>",
        "<tool_call>\n{\"name\": \"get_current_time\"}\n",
        "```json\n{\"name\": \"a\", \"arguments\": {}}\n```\n",
        "```python\nx = {\"name\": 1}\n```\n",
        "{\"name\": \"Bob\", \"age\": 3} ",
        "[TOOL_CALLS]a[ARGS]{\"k\": 1}",
        "<function=f>{}</function>",
        "我来算一下。",
        "\n",
        "{",
        "`",
        "<tool",
    ];
    let mut seed = 7u64;
    let mut next = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for _ in 0..1500 {
        let input: String = (0..next() % 8).map(|_| parts[next() % parts.len()]).collect();
        let whole = parse_all(&input);
        let bounds: Vec<usize> = input.char_indices().map(|(i, _)| i).chain([input.len()]).collect();
        let (mut a, mut b) = (bounds[next() % bounds.len()], bounds[next() % bounds.len()]);
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        let mut p = PromptCallParser::new();
        let mut events = p.feed(&input[..a]);
        events.extend(p.feed(&input[a..b]));
        events.extend(p.feed(&input[b..]));
        events.extend(p.finish());
        assert_eq!(merge(events), whole, "{input:?} cut at {a} and {b}");
    }
}
