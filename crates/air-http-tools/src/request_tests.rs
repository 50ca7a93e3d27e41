use serde_json::json;

use super::*;
use crate::tool::{ArgsIn, Header, Method};

/// `GET /repos/{owner}/{repo}/issues` of a GitHub-like API.
fn issues() -> HttpTool {
    HttpTool {
        name: "list_issues".into(),
        description: "Issues of a repository.".into(),
        input_schema: json!({
            "type": "object",
            "properties": {
                "owner": {"type": "string"}, "repo": {"type": "string"},
                "state": {"type": "string"}, "labels": {"type": "array", "items": {"type": "string"}},
                "per_page": {"type": "integer"}
            },
            "required": ["owner", "repo"]
        }),
        method: Method::Get,
        url: "https://api.github.example/repos/{owner}/{repo}/issues".into(),
        headers: vec![Header::secret("Authorization", "Bearer ghp_secret"), Header::new("Accept", "application/vnd.github+json")],
        args_in: ArgsIn::Auto,
        query: Vec::new(),
        body_arg: None,
    }
}

/// `POST /repos/{owner}/{repo}/issues?notify=…` with a JSON body.
fn create_issue() -> HttpTool {
    HttpTool {
        name: "create_issue".into(),
        method: Method::Post,
        input_schema: json!({
            "type": "object",
            "properties": {
                "owner": {"type": "string"}, "repo": {"type": "string"}, "notify": {"type": "boolean"},
                "title": {"type": "string"}, "body": {"type": "string"}, "labels": {"type": "array"}
            },
            "required": ["owner", "repo", "title"]
        }),
        query: vec!["notify".into()],
        ..issues()
    }
}

#[test]
fn path_parameters_are_filled_and_the_rest_is_the_query() {
    let args = json!({"owner": "rust-lang", "repo": "rust", "state": "open", "labels": ["A-diagnostics", "E-easy"], "per_page": 50});
    let built = build_request(&issues(), &args).unwrap();
    let r = built.request();
    assert_eq!(r.method, "GET");
    assert_eq!(r.url, "https://api.github.example/repos/rust-lang/rust/issues?state=open&labels=A-diagnostics&labels=E-easy&per_page=50");
    assert_eq!(r.body, None);
    assert_eq!(r.headers, [("Authorization".to_owned(), "Bearer ghp_secret".to_owned()), ("Accept".to_owned(), "application/vnd.github+json".to_owned())], "secrets go in the request itself");
}

#[test]
fn values_are_percent_encoded() {
    let args = json!({"owner": "a b/c", "repo": "上海?#", "state": "open&closed=1", "labels": ["x=y"]});
    let r = build_request(&issues(), &args).unwrap().into_request();
    assert_eq!(r.url, "https://api.github.example/repos/a%20b%2Fc/%E4%B8%8A%E6%B5%B7%3F%23/issues?state=open%26closed%3D1&labels=x%3Dy");
}

#[test]
fn a_missing_or_unusable_path_parameter_is_an_error_for_the_model() {
    let missing = build_request(&issues(), &json!({"owner": "rust-lang"}));
    assert_eq!(missing, Err(ArgError::MissingPath("repo".into())));
    assert!(missing.unwrap_err().to_string().contains("\"repo\" is required"));
    assert_eq!(build_request(&issues(), &json!({"owner": "o", "repo": null})), Err(ArgError::MissingPath("repo".into())));
    for (value, why) in [(json!(""), "empty"), (json!(".."), "\"..\""), (json!("."), "\".\""), (json!(["a"]), "string or a number")] {
        let e = build_request(&issues(), &json!({"owner": "o", "repo": value})).unwrap_err();
        assert!(matches!(&e, ArgError::PathValue { name, .. } if name == "repo"), "{e:?}");
        assert!(e.to_string().contains(why), "{e}");
    }
    let numbered = build_request(&issues(), &json!({"owner": 7, "repo": true})).unwrap();
    assert!(numbered.request().url.contains("/repos/7/true/issues"));
}

#[test]
fn arguments_must_be_an_object() {
    assert_eq!(build_request(&issues(), &json!([1, 2])), Err(ArgError::NotObject));
    assert_eq!(build_request(&issues(), &json!("owner=x")), Err(ArgError::NotObject));
    let no_params = HttpTool { url: "https://x.test/issues".into(), ..issues() };
    assert_eq!(build_request(&no_params, &Value::Null).unwrap().request().url, "https://x.test/issues");
}

#[test]
fn nulls_are_left_out_of_the_query_and_objects_are_json() {
    let args = json!({"owner": "o", "repo": "r", "state": null, "labels": ["a", null], "per_page": {"n": 1}});
    let r = build_request(&issues(), &args).unwrap().into_request();
    assert_eq!(r.url, "https://api.github.example/repos/o/r/issues?labels=a&per_page=%7B%22n%22%3A1%7D");
}

#[test]
fn a_fixed_query_in_the_url_is_kept() {
    let t = HttpTool { url: "https://x.test/search?api-version=2024-01-01".into(), ..issues() };
    assert_eq!(build_request(&t, &json!({"state": "open"})).unwrap().request().url, "https://x.test/search?api-version=2024-01-01&state=open");
    let t = HttpTool { url: "https://x.test/search?".into(), ..issues() };
    assert_eq!(build_request(&t, &json!({"state": "open"})).unwrap().request().url, "https://x.test/search?state=open");
}

#[test]
fn the_rest_is_a_json_body_for_post_and_named_query_arguments_stay_in_the_query() {
    let args = json!({"owner": "o", "repo": "r", "notify": false, "title": "Crash", "labels": ["bug"], "body": null});
    let r = build_request(&create_issue(), &args).unwrap().into_request();
    assert_eq!(r.method, "POST");
    assert_eq!(r.url, "https://api.github.example/repos/o/r/issues?notify=false");
    let body: Value = serde_json::from_str(r.body.as_deref().unwrap()).unwrap();
    assert_eq!(body, json!({"title": "Crash", "labels": ["bug"], "body": null}), "a null in a body is kept: it may clear a field");
    assert_eq!(r.headers.last(), Some(&("Content-Type".to_owned(), "application/json".to_owned())));
    let empty = build_request(&create_issue(), &json!({"owner": "o", "repo": "r"})).unwrap().into_request();
    assert_eq!(empty.body.as_deref(), Some("{}"));
}

#[test]
fn the_tool_may_send_everything_in_the_query_or_a_body_on_delete() {
    let t = HttpTool { args_in: ArgsIn::Query, ..create_issue() };
    let r = build_request(&t, &json!({"owner": "o", "repo": "r", "title": "T"})).unwrap().into_request();
    assert_eq!((r.url.as_str(), r.body), ("https://api.github.example/repos/o/r/issues?title=T", None));
    assert!(!r.headers.iter().any(|(n, _)| n == "Content-Type"), "no body, no content type");
    let t = HttpTool { method: Method::Delete, args_in: ArgsIn::Body, ..create_issue() };
    let r = build_request(&t, &json!({"owner": "o", "repo": "r", "title": "T"})).unwrap().into_request();
    assert_eq!((r.method.as_str(), r.body.as_deref()), ("DELETE", Some(r#"{"title":"T"}"#)));
}

#[test]
fn a_body_argument_is_the_whole_body() {
    let t = HttpTool {
        name: "place_orders".into(),
        method: Method::Post,
        url: "https://shop.test/store/orders".into(),
        input_schema: json!({"type": "object", "properties": {"body": {"type": "array"}, "dryRun": {"type": "boolean"}}}),
        query: vec!["dryRun".into()],
        body_arg: Some("body".into()),
        args_in: ArgsIn::Body,
        ..issues()
    };
    let r = build_request(&t, &json!({"body": [{"petId": 1}, {"petId": 2}], "dryRun": true})).unwrap().into_request();
    assert_eq!((r.url.as_str(), r.body.as_deref()), ("https://shop.test/store/orders?dryRun=true", Some(r#"[{"petId":1},{"petId":2}]"#)));
    let e = build_request(&t, &json!({"body": [], "note": "x", "extra": 1})).unwrap_err();
    assert_eq!(e, ArgError::Unexpected(vec!["note".into(), "extra".into()]));
    assert!(e.to_string().contains("\"note\", \"extra\""), "{e}");
    assert_eq!(build_request(&t, &json!({})).unwrap().request().body, None, "no body argument, no body");
}

#[test]
fn a_content_type_of_the_tool_wins() {
    let t = HttpTool { headers: vec![Header::new("content-type", "application/vnd.api+json")], ..create_issue() };
    let r = build_request(&t, &json!({"owner": "o", "repo": "r", "title": "T"})).unwrap().into_request();
    assert_eq!(r.headers, [("content-type".to_owned(), "application/vnd.api+json".to_owned())]);
}

#[test]
fn a_tool_that_is_not_valid_sends_nothing() {
    let t = HttpTool { url: "http://api.github.example/repos/{owner}/{repo}/issues".into(), ..issues() };
    let e = build_request(&t, &json!({"owner": "o", "repo": "r"})).unwrap_err();
    assert!(matches!(e, ArgError::Tool(DefError::Url { .. })), "{e:?}");
    assert!(e.to_string().starts_with("the tool is not set up right"), "{e}");
}

#[test]
fn debug_of_a_request_hides_secret_headers() {
    let built = build_request(&issues(), &json!({"owner": "o", "repo": "r"})).unwrap();
    let text = format!("{built:?}");
    assert!(!text.contains("ghp_secret"), "{text}");
    assert!(text.contains("<secret>") && text.contains("application/vnd.github+json") && text.contains("/repos/o/r/issues"), "{text}");
    // Secret names compare without case.
    let t = HttpTool { headers: vec![Header::secret("x-api-key", "k1"), Header::new("X-Trace", "t")], ..issues() };
    let mut built = build_request(&t, &json!({"owner": "o", "repo": "r"})).unwrap();
    built.request.headers[0].0 = "X-API-KEY".into();
    assert!(!format!("{built:?}").contains("k1"));
    assert_eq!(built.into_request().headers[0].1, "k1");
}
