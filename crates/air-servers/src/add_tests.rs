use super::*;
use air_doctor::Finding;

fn draft(name: &str, url: &str) -> Draft {
    Draft { name: name.into(), url: url.into(), auth: " Bearer t ".into(), ..Draft::default() }
}

fn tool(name: &str) -> SavedTool {
    crate::list::saved_tool(&serde_json::json!({"name": name, "description": format!("{name}s")})).expect("a tool")
}

fn preview(server: McpServer) -> Preview {
    Preview { server, tools: vec![tool("read"), tool("write")] }
}

#[test]
fn an_incomplete_form_is_refused_before_anything_is_sent() {
    let mut flow = AddFlow::default();
    assert_eq!(flow.connect(&draft("", "https://x.test/mcp"), "id".into()), None);
    assert_eq!(flow.stage, Stage::Incomplete);
    assert_eq!(flow.connect(&draft("x", "ftp://x.test/mcp"), "id".into()), None);
    assert_eq!(flow.connect(&draft("x", "javascript:alert(1)"), "id".into()), None);
    let (server, _) = flow.connect(&draft(" x ", " https://x.test/mcp "), "id-1".into()).expect("complete");
    assert_eq!((server.id.as_str(), server.name.as_str(), server.url.as_str()), ("id-1", "x", "https://x.test/mcp"));
    assert_eq!(server.headers, vec![("Authorization".to_owned(), "Bearer t".to_owned())]);
    assert_eq!(flow.stage, Stage::Connecting);
}

#[test]
fn a_listing_is_offered_all_picked_and_saved_with_the_picks_and_trust() {
    let mut flow = AddFlow::default();
    let (server, attempt) = flow.connect(&draft("fs", "https://fs.test/mcp"), "id".into()).expect("complete");
    assert!(!flow.previewed(attempt, Ok(preview(server))));
    assert_eq!(flow.stage, Stage::Picking);
    assert_eq!(flow.offered(), vec![("read".to_owned(), "reads".to_owned()), ("write".to_owned(), "writes".to_owned())]);
    assert_eq!(flow.picked, ["read", "write"]);
    flow.pick("write", false);
    flow.pick("nope", true);
    assert_eq!(flow.picked, ["read"], "only offered tools can be picked");
    flow.trust_hints = true;
    let (server, offered, picked) = flow.save().expect("a preview");
    assert!(server.trust_hints);
    assert_eq!((offered.len(), picked), (2, vec!["read".to_owned()]));
    assert_eq!(flow.save(), None, "saved once");
    flow.added("fs".into(), 1);
    assert_eq!(flow.stage, Stage::Added { name: "fs".into(), kept: 1 });
}

#[test]
fn a_failure_worth_it_asks_the_doctor_and_late_answers_are_dropped() {
    let mut flow = AddFlow::default();
    let (_, first) = flow.connect(&draft("fs", "https://fs.test/mcp"), "id".into()).expect("complete");
    let (server, second) = flow.connect(&draft("fs", "https://fs.test/mcp"), "id".into()).expect("complete");
    assert!(!flow.previewed(first, Ok(preview(server.clone()))), "the first attempt's answer comes too late");
    assert_eq!(flow.stage, Stage::Connecting);
    let nothing = Failure::of(&McpError::Network("refused".into()), false);
    assert!(flow.previewed(second, Err(nothing.clone())));
    assert_eq!((flow.stage.clone(), flow.doctor.clone()), (Stage::Failed(nothing.text), Doctor::Probing));
    flow.diagnosed(first, Finding::OriginRefused);
    assert_eq!(flow.doctor, Doctor::Probing, "a finding for another attempt is dropped");
    flow.diagnosed(second, Finding::OriginRefused);
    assert_eq!(flow.doctor, Doctor::Found(Finding::OriginRefused));
    // A new attempt clears the doctor; a plain refusal does not ask it.
    let (_, third) = flow.connect(&draft("fs", "https://fs.test/mcp"), "id".into()).expect("complete");
    assert_eq!(flow.doctor, Doctor::Idle);
    assert!(!flow.previewed(third, Err(Failure::of(&McpError::Http { status: 403, body: String::new() }, false))));
    assert_eq!(flow.doctor, Doctor::Idle);
    flow.cancel();
    assert_eq!(flow.stage, Stage::Idle);
}

#[test]
fn which_failures_are_worth_the_doctor() {
    let worth = |e: McpError, hidden: bool| Failure::of(&e, hidden).worth_diagnosing;
    assert!(worth(McpError::Network("x".into()), false));
    assert!(worth(McpError::Http { status: 404, body: String::new() }, false));
    assert!(worth(McpError::Http { status: 400, body: String::new() }, false));
    assert!(worth(McpError::Http { status: 401, body: String::new() }, true), "a challenge CORS hid");
    assert!(!worth(McpError::Http { status: 401, body: String::new() }, false), "a readable challenge: sign in instead");
    assert!(!worth(McpError::Rpc { code: -32601, message: "no".into() }, true));
}

#[test]
fn the_doctor_probes_with_what_this_client_sends() {
    let t = doctor_target(" https://fs.test/mcp ", vec![("Authorization".into(), "Bearer t".into())], Some("https://app.test".into()));
    assert_eq!(t.url, "https://fs.test/mcp");
    assert!(t.mcp);
    let names: Vec<&str> = t.headers.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, ["MCP-Protocol-Version", "Mcp-Session-Id", "Last-Event-ID", "Mcp-Method", "Mcp-Name", "Authorization"]);
    let body: serde_json::Value = serde_json::from_str(&t.body).expect("json");
    assert_eq!(body["params"]["protocolVersion"], air_mcp::LATEST_VERSION);
}

#[test]
fn headers_are_edited_as_lines_and_a_bad_line_is_refused_with_its_number() {
    let headers = vec![("Authorization".to_owned(), "Bearer t-1".to_owned()), ("X-Team".to_owned(), "a: b".to_owned())];
    let text = headers_text(&headers);
    assert_eq!(text, "Authorization: Bearer t-1\nX-Team: a: b");
    assert_eq!(parse_headers(&format!("\n{text}\n\n")), Ok(headers));
    assert_eq!(parse_headers(""), Ok(vec![]));
    assert_eq!(parse_headers("X-Ok: 1\nno colon here"), Err(NotAHeader { line: 2 }));
    assert!(parse_headers("Bad Name: 1").is_err(), "a space is not in a header's name");
    assert!(parse_headers(": value").is_err());
}

#[test]
fn an_imported_servers_headers_are_sent_and_the_forms_authorization_wins() {
    let imported = vec![("Authorization".to_owned(), "Bearer old".to_owned()), ("X-Team".to_owned(), "blue".to_owned())];
    let d = Draft { name: "docs".into(), url: "https://mcp.example/mcp".into(), auth: String::new(), headers: imported.clone() };
    assert_eq!(d.headers(), imported);
    let d = Draft { auth: "Bearer new".into(), ..d };
    assert_eq!(d.headers(), [("Authorization".to_owned(), "Bearer new".to_owned()), ("X-Team".to_owned(), "blue".to_owned())]);
    assert_eq!(d.server("s1".into()).map(|s| s.headers.len()), Some(2));
}
