use serde_json::json;

use super::*;

/// A weather tool as a user would write it by hand.
fn weather() -> HttpTool {
    HttpTool {
        name: "get_weather".into(),
        description: "Current weather for a city.".into(),
        input_schema: json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "units": {"type": "string", "enum": ["metric", "imperial"]}},
            "required": ["city"]
        }),
        method: Method::Get,
        url: "https://api.weather.example/v1/current/{city}".into(),
        headers: vec![Header::secret("X-Api-Key", "sk-live-123"), Header::new("Accept", "application/json")],
        args_in: ArgsIn::Auto,
        query: Vec::new(),
        body_arg: None,
    }
}

#[test]
fn a_tool_is_stored_as_camel_case_json_and_read_back() {
    let mut t = weather();
    t.method = Method::Post;
    t.args_in = ArgsIn::Body;
    t.query = vec!["units".into()];
    let stored = serde_json::to_value(&t).unwrap();
    assert_eq!(stored["inputSchema"]["required"], json!(["city"]));
    assert_eq!(stored["method"], "POST");
    assert_eq!(stored["argsIn"], "body");
    assert_eq!(stored["query"], json!(["units"]));
    assert_eq!(stored["headers"][0], json!({"name": "X-Api-Key", "value": "sk-live-123", "secret": true}));
    assert_eq!(stored["headers"][1], json!({"name": "Accept", "value": "application/json"}), "secret: false is left out");
    assert!(stored.get("bodyArg").is_none());
    let back: HttpTool = serde_json::from_value(stored).unwrap();
    assert_eq!(back, t);
    // The defaults of what older or hand-written records leave out.
    let minimal: HttpTool = serde_json::from_value(json!({
        "name": "ping", "inputSchema": {"type": "object"}, "method": "GET", "url": "https://x.test/ping"
    }))
    .unwrap();
    assert_eq!((minimal.args_in, minimal.headers.len(), minimal.description.as_str()), (ArgsIn::Auto, 0, ""));
    assert!(serde_json::from_value::<HttpTool>(json!({"name": "x", "inputSchema": {}, "method": "FETCH", "url": "u"})).is_err());
}

#[test]
fn debug_never_shows_a_secret() {
    let text = format!("{:?}", weather());
    assert!(!text.contains("sk-live-123"), "{text}");
    assert!(text.contains("<secret>") && text.contains("X-Api-Key"), "{text}");
    assert!(text.contains("application/json"), "a plain header's value is shown: {text}");
    let pretty = format!("{:#?}", weather().headers);
    assert!(!pretty.contains("sk-live-123"), "{pretty}");
}

#[test]
fn hints_come_from_the_method() {
    let hints = |m: Method| {
        let t = HttpTool { method: m, ..weather() };
        (t.read_only(), t.destructive(), t.annotations().idempotent_hint)
    };
    assert_eq!(hints(Method::Get), (true, false, Some(true)));
    assert_eq!(hints(Method::Head), (true, false, Some(true)));
    assert_eq!(hints(Method::Post), (false, false, Some(false)));
    assert_eq!(hints(Method::Put), (false, false, Some(true)));
    assert_eq!(hints(Method::Patch), (false, false, Some(false)));
    assert_eq!(hints(Method::Delete), (false, true, Some(true)));
    let def = HttpTool { method: Method::Delete, ..weather() }.def();
    assert_eq!(def.source, air_tools::ToolSource::Http);
    assert_eq!((def.annotations.read_only_hint, def.annotations.destructive_hint), (Some(false), Some(true)));
    assert_eq!(def.name, "get_weather");
    assert_eq!(def.to_openai()["function"]["parameters"]["required"], json!(["city"]));
}

#[test]
fn where_the_remaining_arguments_go() {
    let rest = |m: Method, a: ArgsIn| HttpTool { method: m, args_in: a, ..weather() }.rest_in_body();
    assert!(rest(Method::Post, ArgsIn::Auto) && rest(Method::Put, ArgsIn::Auto) && rest(Method::Patch, ArgsIn::Auto));
    assert!(!rest(Method::Get, ArgsIn::Auto) && !rest(Method::Delete, ArgsIn::Auto));
    assert!(!rest(Method::Post, ArgsIn::Query));
    assert!(rest(Method::Delete, ArgsIn::Body));
    assert!(!rest(Method::Get, ArgsIn::Body), "never a body on GET");
}

#[test]
fn names_must_fit_what_providers_accept() {
    for ok in ["a", "get_weather", "Get-Weather-2", &"x".repeat(64)] {
        assert!(valid_name(ok), "{ok}");
    }
    for no in ["", "get weather", "get.weather", "天气", "a/b", &"x".repeat(65)] {
        assert!(!valid_name(no), "{no}");
        let t = HttpTool { name: no.to_owned(), ..weather() };
        assert_eq!(t.validate(), Err(DefError::Name(no.to_owned())));
    }
    let msg = DefError::Name("get weather".into()).to_string();
    assert!(msg.contains("\"get weather\"") && msg.contains("64"), "{msg}");
}

#[test]
fn names_are_cleaned_for_providers() {
    assert_eq!(clean_name("listPets"), "listPets");
    assert_eq!(clean_name("pets.list"), "pets_list");
    assert_eq!(clean_name("get_/pets/{petId}/photos"), "get_pets_petId_photos");
    assert_eq!(clean_name("repos/get-content"), "repos_get-content");
    assert_eq!(clean_name("查询"), "tool");
    assert_eq!(clean_name("__"), "tool");
    let long = clean_name(&format!("{}_{}", "a".repeat(63), "b".repeat(10)));
    assert_eq!(long, "a".repeat(63), "cut to 64, no _ left at the end");
    assert!(valid_name(&clean_name("a b c ✓ d")));
}

#[test]
fn urls_must_be_https_or_this_machine() {
    let with = |url: &str| HttpTool { url: url.into(), ..weather() }.validate();
    assert!(with("https://api.weather.example/v1/current/{city}").is_ok());
    assert!(with("http://localhost:8080/weather/{city}").is_ok());
    assert!(with("http://127.0.0.1/weather/{city}").is_ok());
    let insecure = with("http://api.weather.example/v1/current/{city}");
    assert_eq!(insecure, Err(DefError::Url { url: "http://api.weather.example/v1/current/{city}".into(), why: UrlError::Insecure }));
    let msg = insecure.unwrap_err().to_string();
    assert!(msg.contains("https") && msg.contains("localhost"), "{msg}");
    assert!(matches!(with("api.weather.example/{city}"), Err(DefError::Url { why: UrlError::NotAbsolute, .. })));
    assert!(matches!(with("https://{city}.weather.example/"), Err(DefError::Url { why: UrlError::ParamInHost, .. })));
    assert!(matches!(with("https://x.test/{city"), Err(DefError::Url { why: UrlError::Braces, .. })));
}

#[test]
fn the_schema_must_be_an_object_schema() {
    let with = |s: Value| HttpTool { input_schema: s, url: "https://x.test/".into(), ..weather() }.validate();
    assert!(with(json!({"type": "object"})).is_ok());
    assert!(matches!(with(json!("object")), Err(DefError::Schema(_))));
    assert!(matches!(with(json!({"type": "array", "items": {}})), Err(DefError::Schema(w)) if w.contains("\"object\"")));
    assert!(matches!(with(json!({"properties": {}})), Err(DefError::Schema(_))), "a type is required");
    assert!(matches!(with(json!({"type": "object", "properties": []})), Err(DefError::Schema(w)) if w.contains("properties")));
    assert!(matches!(with(json!({"type": "object", "required": "city"})), Err(DefError::Schema(w)) if w.contains("required")));
    assert!(DefError::Schema("x").to_string().contains("JSON Schema object"));
}

#[test]
fn every_placed_argument_is_in_the_schema() {
    let t = HttpTool { url: "https://x.test/{town}".into(), ..weather() };
    assert_eq!(t.validate(), Err(DefError::Unknown { name: "town".into(), role: "URL parameter" }));
    let t = HttpTool { query: vec!["lang".into()], ..weather() };
    assert_eq!(t.validate(), Err(DefError::Unknown { name: "lang".into(), role: "query argument" }));
    let t = HttpTool { method: Method::Post, body_arg: Some("payload".into()), ..weather() };
    assert!(t.validate().unwrap_err().to_string().contains("\"payload\" is not a property"));
}

#[test]
fn a_body_is_refused_where_there_can_be_none() {
    let t = HttpTool { args_in: ArgsIn::Body, ..weather() };
    assert_eq!(t.validate(), Err(DefError::BodyOn(Method::Get)));
    let t = HttpTool { method: Method::Head, body_arg: Some("city".into()), ..weather() };
    assert_eq!(t.validate(), Err(DefError::BodyOn(Method::Head)));
    assert!(HttpTool { method: Method::Delete, args_in: ArgsIn::Body, ..weather() }.validate().is_ok());
}

#[test]
fn headers_the_browser_would_drop_or_that_break_a_request_are_refused() {
    let with = |h: Header| HttpTool { headers: vec![h], ..weather() }.validate();
    assert!(with(Header::secret("Authorization", "Bearer t")).is_ok());
    for name in ["Cookie", "host", "Content-Length", "Origin", "Sec-Fetch-Mode", "Proxy-Authorization"] {
        assert!(matches!(with(Header::new(name, "x")), Err(DefError::Header { why, .. }) if why.contains("browser")), "{name}");
    }
    for name in ["", "X Api Key", "X-Key:", "Ключ"] {
        assert!(matches!(with(Header::new(name, "x")), Err(DefError::Header { .. })), "{name:?}");
    }
    let split = with(Header::new("X-Key", "a\r\nX-Admin: 1"));
    assert!(matches!(&split, Err(DefError::Header { why, .. }) if why.contains("line break")), "{split:?}");
}

#[test]
fn a_set_of_tools_has_no_two_of_one_name() {
    let other = HttpTool { name: "get_forecast".into(), ..weather() };
    assert_eq!(validate_set(&[weather(), other.clone()]), Ok(()));
    assert_eq!(validate_set(&[weather(), other, weather()]), Err(DefError::Duplicate("get_weather".into())));
    let bad = HttpTool { url: "http://x.test/{city}".into(), ..weather() };
    assert!(matches!(validate_set(&[weather(), bad]), Err(DefError::Url { .. })));
    assert!(DefError::Duplicate("a".into()).to_string().contains("two tools"));
}

#[test]
fn methods_are_read_in_any_case() {
    assert_eq!(Method::parse("get"), Some(Method::Get));
    assert_eq!(Method::parse("PATCH"), Some(Method::Patch));
    assert_eq!(Method::parse("options"), None);
    assert_eq!(Method::Delete.to_string(), "DELETE");
}
