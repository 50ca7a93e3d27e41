use std::rc::Rc;

use air_http::fake::{Script, ScriptedHttp, Step};
use air_tools::{Registry, Unattended};
use serde_json::json;

use super::*;
use crate::tool::{ArgsIn, Header, Method};

fn pet() -> HttpTool {
    HttpTool {
        name: "get_pet".into(),
        description: "A pet by id.".into(),
        input_schema: json!({"type": "object", "properties": {"petId": {"type": "integer"}}, "required": ["petId"]}),
        method: Method::Get,
        url: "https://petstore.test/v2/pets/{petId}".into(),
        headers: vec![Header::secret("X-API-Key", "key-1")],
        args_in: ArgsIn::Auto,
        query: Vec::new(),
        body_arg: None,
    }
}

fn call(http: ScriptedHttp, args: Value) -> (ToolOutput, Vec<air_http::Request>) {
    let http = Rc::new(http);
    let tool = HttpCall::new(pet(), http.clone());
    let abort = Abort::new();
    let out = pollster::block_on(tool.call(args, CallContext { abort: &abort, host: &Unattended }));
    (out, http.requests())
}

#[test]
fn a_call_sends_the_request_and_reads_the_answer() {
    let http = ScriptedHttp::new();
    http.push(Script::status(200, r#"{"id":7,"name":"Rex"}"#));
    let (out, sent) = call(http, json!({"petId": 7}));
    assert!(!out.is_error, "{out:?}");
    assert_eq!(out.model_text(), "{\n  \"id\": 7,\n  \"name\": \"Rex\"\n}");
    assert_eq!(sent.len(), 1);
    assert_eq!((sent[0].method.as_str(), sent[0].url.as_str()), ("GET", "https://petstore.test/v2/pets/7"));
    assert_eq!(sent[0].headers, [("X-API-Key".to_owned(), "key-1".to_owned())]);
}

#[test]
fn bad_arguments_send_nothing() {
    let (out, sent) = call(ScriptedHttp::new(), json!({}));
    assert!(out.is_error);
    assert_eq!(out.model_text(), "No request was sent: the argument \"petId\" is required: it is part of the URL.");
    assert!(sent.is_empty());
}

#[test]
fn an_error_status_is_an_error_result() {
    let http = ScriptedHttp::new();
    http.push(Script::status(404, r#"{"code":1,"message":"Pet not found"}"#));
    let (out, _) = call(http, json!({"petId": 99}));
    assert!(out.is_error);
    assert!(out.model_text().starts_with(r#"HTTP 404 Not Found: {"code":1,"message":"Pet not found"}"#), "{}", out.model_text());
}

#[test]
fn a_network_failure_or_stop_is_said() {
    let http = ScriptedHttp::new();
    http.push(Script::Fail(HttpError::Network("Failed to fetch".into())));
    let (out, _) = call(http, json!({"petId": 1}));
    assert!(out.is_error);
    assert!(out.model_text().contains("Could not reach petstore.test (Failed to fetch)") && out.model_text().contains("CORS"));
    let http = ScriptedHttp::new();
    http.push(Script::status(200, "{").then(Step::Abort).then(Step::Hang));
    let (out, _) = call(http, json!({"petId": 1}));
    assert!(out.is_error);
    assert!(out.model_text().starts_with("Stopped by the user"), "{}", out.model_text());
}

#[test]
fn it_registers_under_its_name_with_its_hints() {
    let mut registry = Registry::new();
    let http = Rc::new(ScriptedHttp::new());
    let delete = HttpTool { name: "delete_pet".into(), method: Method::Delete, ..pet() };
    registry.register(Rc::new(HttpCall::new(delete, http)));
    let def = registry.get("delete_pet").map(|t| t.def().clone()).unwrap();
    assert_eq!(def.annotations.destructive_hint, Some(true));
    assert_eq!(def.source, air_tools::ToolSource::Http);
    assert_eq!(air_tools::policy::default_policy(&def), air_tools::policy::Policy::Ask, "a DELETE asks");
    assert_eq!(def.input_schema["required"], json!(["petId"]));
}
