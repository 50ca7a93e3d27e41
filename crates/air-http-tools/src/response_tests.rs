use air_tools::Content;

use super::*;

fn text(out: &ToolOutput) -> &str {
    match out.content.as_slice() {
        [Content::Text { text }] => text,
        other => panic!("one text expected: {other:?}"),
    }
}

#[test]
fn json_is_pretty_printed() {
    let out = read_response(200, Some("application/json; charset=utf-8"), r#"{"id":1,"name":"Rex","tags":["dog"]}"#);
    assert!(!out.is_error);
    assert_eq!(text(&out), "{\n  \"id\": 1,\n  \"name\": \"Rex\",\n  \"tags\": [\n    \"dog\"\n  ]\n}");
    let vendor = read_response(201, Some("application/vnd.github+json"), "[1,2]");
    assert_eq!(text(&vendor), "[\n  1,\n  2\n]");
    let unlabelled = read_response(200, None, r#"{"ok":true}"#);
    assert_eq!(text(&unlabelled), "{\n  \"ok\": true\n}", "no content type: JSON if it parses");
}

#[test]
fn large_json_is_compact_and_huge_bodies_are_cut() {
    let items: Vec<String> = (0..2500).map(|i| format!(r#"{{"id":{i},"name":"item {i}"}}"#)).collect();
    let body = format!("[{}]", items.join(","));
    assert!(body.len() < PRETTY_LIMIT * 2 && serde_json::to_string_pretty(&serde_json::from_str::<Value>(&body).unwrap()).unwrap().len() > PRETTY_LIMIT);
    let out = read_response(200, Some("application/json"), &body);
    assert_eq!(text(&out), body, "pretty would pass the limit, so compact (here: as sent)");
    let huge = "é".repeat(MAX_OUTPUT);
    let out = read_response(200, Some("text/plain"), &huge);
    let t = text(&out);
    assert!(t.len() < MAX_OUTPUT + 200, "{}", t.len());
    assert!(t.contains(&format!("the answer has {} bytes", huge.len())), "{}", &t[t.len() - 100..]);
    assert!(t.starts_with("éé"));
}

#[test]
fn text_is_given_as_it_is() {
    let body = "  line one\n\tline two  \n";
    assert_eq!(text(&read_response(200, Some("text/plain"), body)), body);
    let html = "<html><body>hi</body></html>";
    assert_eq!(text(&read_response(200, Some("text/html"), html)), html);
    let broken = "{\"a\": ";
    assert_eq!(text(&read_response(200, Some("application/json"), broken)), broken, "JSON that does not parse is text");
}

#[test]
fn empty_and_binary_bodies_are_described() {
    assert_eq!(text(&read_response(204, None, "")), "HTTP 204 No Content: no content");
    assert_eq!(text(&read_response(200, Some("application/json"), " \n")), "HTTP 200 OK: no content");
    let img = read_response(200, Some("image/png"), "\u{fffd}PNG\r\n");
    assert!(!img.is_error);
    assert!(text(&img).contains("image/png") && text(&img).contains("not shown"), "{}", text(&img));
    let svg = read_response(200, Some("image/svg+xml"), "<svg/>");
    assert_eq!(text(&svg), "<svg/>", "SVG is text");
}

#[test]
fn other_statuses_are_errors_with_the_start_of_the_body() {
    let out = read_response(404, Some("application/json"), "{\n  \"message\": \"Not Found\",\n  \"documentation_url\": \"https://docs.example\"\n}");
    assert!(out.is_error);
    let t = text(&out);
    assert!(t.starts_with(r#"HTTP 404 Not Found: {"message":"Not Found","documentation_url":"https://docs.example"}"#), "{t}");
    assert!(t.contains("check the arguments that are part of the URL"), "{t}");
    let long = "x ".repeat(2000);
    let t = read_response(500, Some("text/html"), &long).model_text();
    assert!(t.starts_with("HTTP 500 Internal Server Error: x x"), "{t}");
    assert!(t.ends_with('…') && t.len() < EXCERPT + 60, "{} {t}", t.len());
    let t = read_response(401, Some("text/plain"), "").model_text();
    assert!(t.starts_with("HTTP 401 Unauthorized (no readable body)") && t.contains("headers"), "{t}");
    let t = read_response(429, None, "slow down").model_text();
    assert!(t.contains("HTTP 429 Too Many Requests: slow down") && t.contains("wait"), "{t}");
    let t = read_response(418, None, "teapot").model_text();
    assert_eq!(t, "HTTP 418: teapot");
    assert!(read_response(302, None, "").is_error, "a redirect fetch did not follow is not a result");
}
