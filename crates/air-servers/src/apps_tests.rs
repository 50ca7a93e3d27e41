use super::*;
use air_apps::{Csp, Permissions};
use air_tools::Content;

/// The frame: what was posted into it, and the links the page opened.
#[derive(Default)]
struct Frame {
    posted: Vec<Value>,
    opened: Vec<String>,
    /// Whether the browser lets a link open.
    opens: bool,
}

impl Port for Frame {
    fn post(&mut self, message: &Value) {
        self.posted.push(message.clone());
    }
    fn width(&self) -> u32 {
        640
    }
    fn open_link(&mut self, url: &str) -> bool {
        self.opened.push(url.to_owned());
        self.opens
    }
}

impl Frame {
    fn methods(&self) -> Vec<&str> {
        self.posted.iter().filter_map(|m| m.get("method").and_then(Value::as_str)).collect()
    }
    fn answer(&self, id: i64) -> Option<&Value> {
        self.posted.iter().rev().find(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
    }
}

fn tool(name: &str, visibility: Option<&[&str]>) -> SavedTool {
    let listed = json!({"name": name, "description": format!("The {name} tool"), "inputSchema": {"type": "object"},
        "_meta": {"ui": {"resourceUri": "ui://chart", "visibility": visibility}}});
    crate::list::saved_tools(&[listed]).remove(0)
}

fn server() -> McpServer {
    McpServer {
        id: "srv".into(),
        name: "charts".into(),
        url: "https://charts.test/mcp".into(),
        headers: Vec::new(),
        enabled: true,
        tools: vec![tool("draw", None), tool("refresh", Some(&["app"])), tool("secret", Some(&["model"]))],
        excluded: Vec::new(),
        protocol: Some("2025-06-18".into()),
        trust_hints: false,
    }
}

fn host() -> Host {
    let resource = UiResource { uri: "ui://chart".into(), html: "<p>chart</p>".into(), csp: Csp::default(), permissions: Permissions::default(), prefers_border: None };
    let s = server();
    let t = s.tools[0].clone();
    Host::new(s, t, "rec-1".into(), Rc::new(resource), "clipboard-write".into(), Look { dark: true, locale: "en".into() }, 640)
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn notify(method: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": {}})
}

/// Policies with `refresh` set as given (others at their default).
fn policies(refresh: Option<Policy>) -> Policies {
    let mut p = Policies::default();
    let s = server();
    if let Some(choice) = refresh {
        p.set(&s.tools[1].def(&s, String::new()), Some(choice));
    }
    p
}

/// A host whose View has started (proxy up, initialized).
fn started(frame: &mut Frame, p: &Policies) -> Host {
    let mut h = host();
    let env = Env { now_ms: 0, draft: "", policies: p };
    h.receive(frame, &notify("ui/notifications/sandbox-proxy-ready"), &env);
    h.receive(frame, &request(1, "ui/initialize", json!({})), &env);
    h.receive(frame, &notify("ui/notifications/initialized"), &env);
    h
}

fn run(status: ToolStatus) -> ToolRun {
    ToolRun {
        name: "mcp_charts_draw".into(),
        server: Some("charts".into()),
        arguments: r#"{"kind":"bar"}"#.into(),
        status,
        output: vec![Content::Text { text: "drawn".into() }],
        structured: None,
        full_chars: None,
        started_at: None,
        duration_ms: None,
        imported: false,
        http: false,
    }
}

#[test]
fn the_view_is_sent_once_the_proxy_is_up_with_what_the_user_granted() {
    let (mut frame, p) = (Frame::default(), Policies::default());
    let mut h = host();
    let env = Env { now_ms: 0, draft: "", policies: &p };
    assert!(frame.posted.is_empty(), "nothing before the proxy says it is ready");
    h.receive(&mut frame, &notify("ui/notifications/sandbox-proxy-ready"), &env);
    h.receive(&mut frame, &notify("ui/notifications/sandbox-proxy-ready"), &env);
    assert_eq!(frame.methods(), ["ui/notifications/sandbox-resource-ready"], "sent once");
    let params = &frame.posted[0]["params"];
    assert_eq!(params["allow"], "clipboard-write");
    assert_eq!(params["title"], "draw");
    assert!(params["html"].as_str().is_some_and(|h| h.contains("Content-Security-Policy") && h.contains("<p>chart</p>")));
    h.receive(&mut frame, &request(1, "ui/initialize", json!({})), &env);
    let ctx = &frame.answer(1).expect("initialize answered")["result"]["hostContext"];
    assert_eq!((ctx["theme"].as_str(), ctx["locale"].as_str(), ctx["containerDimensions"]["width"].as_u64()), (Some("dark"), Some("en"), Some(640)));
    assert!(!h.shown().ready);
    h.receive(&mut frame, &notify("ui/notifications/initialized"), &env);
    assert!(h.shown().ready);
}

#[test]
fn the_calls_input_and_end_are_given_once_each_and_not_before_it_runs() {
    let (mut frame, p) = (Frame::default(), Policies::default());
    let mut h = started(&mut frame, &p);
    let before = frame.posted.len();
    h.feed(&mut frame, &run(ToolStatus::AwaitingApproval));
    assert_eq!(frame.posted.len(), before, "nothing while the call waits for the user");
    h.feed(&mut frame, &run(ToolStatus::Running));
    h.feed(&mut frame, &run(ToolStatus::Running));
    h.feed(&mut frame, &run(ToolStatus::Done));
    h.feed(&mut frame, &run(ToolStatus::Done));
    let sent: Vec<&Value> = frame.posted[before..].iter().collect();
    assert_eq!(sent.iter().filter_map(|m| m["method"].as_str()).collect::<Vec<_>>(), ["ui/notifications/tool-input", "ui/notifications/tool-result"]);
    assert_eq!(sent[0]["params"]["arguments"], json!({"kind": "bar"}));
    assert_eq!(sent[1]["params"]["content"][0]["text"], "drawn");

    // A call that ends without a result is said so.
    let (mut frame, p) = (Frame::default(), Policies::default());
    let mut h = started(&mut frame, &p);
    h.feed(&mut frame, &run(ToolStatus::Stopped));
    assert_eq!(frame.methods()[frame.methods().len() - 2..], ["ui/notifications/tool-input", "ui/notifications/tool-cancelled"]);
}

#[test]
fn what_comes_before_the_view_is_ready_waits_for_it() {
    let (mut frame, p) = (Frame::default(), Policies::default());
    let mut h = host();
    let env = Env { now_ms: 0, draft: "", policies: &p };
    h.receive(&mut frame, &notify("ui/notifications/sandbox-proxy-ready"), &env);
    h.feed(&mut frame, &run(ToolStatus::Done));
    assert_eq!(frame.methods(), ["ui/notifications/sandbox-resource-ready"]);
    h.receive(&mut frame, &notify("ui/notifications/initialized"), &env);
    assert_eq!(frame.methods()[1..], ["ui/notifications/tool-input", "ui/notifications/tool-result"]);
}

#[test]
fn a_views_calls_go_by_the_users_policies() {
    // Allowed: the page makes it; the answer goes back under its id.
    let (mut frame, p) = (Frame::default(), policies(Some(Policy::Allow)));
    let mut h = started(&mut frame, &p);
    let env = Env { now_ms: 0, draft: "", policies: &p };
    let call = request(5, "tools/call", json!({"name": "refresh", "arguments": {"n": 1}}));
    assert_eq!(h.receive(&mut frame, &call, &env), [Effect::CallTool { id: json!(5), name: "refresh".into(), arguments: json!({"n": 1}) }]);
    h.reply(&mut frame, &json!(5), Ok(json!({"content": []})));
    assert_eq!(frame.answer(5).map(|m| m["result"].clone()), Some(json!({"content": []})));

    // Refused: answered with an error, nothing made.
    let (mut frame, p) = (Frame::default(), policies(Some(Policy::Deny)));
    let mut h = started(&mut frame, &p);
    let env = Env { now_ms: 0, draft: "", policies: &p };
    assert!(h.receive(&mut frame, &call, &env).is_empty());
    assert!(frame.answer(5).is_some_and(|m| m["error"]["message"].as_str().is_some_and(|t| t.contains("does not allow"))));

    // Asked: nothing until the user answers; denied, the View is told.
    let (mut frame, p) = (Frame::default(), policies(Some(Policy::Ask)));
    let mut h = started(&mut frame, &p);
    let env = Env { now_ms: 0, draft: "", policies: &p };
    assert!(h.receive(&mut frame, &call, &env).is_empty());
    assert_eq!(h.shown().call, Some(("refresh".to_owned(), json!({"n": 1}))));
    assert!(frame.answer(5).is_none());
    assert_eq!(h.answer_call(&mut frame, false), None);
    assert!(frame.answer(5).is_some_and(|m| m["error"]["message"].as_str().is_some_and(|t| t.contains("denied"))));
    assert_eq!(h.shown().call, None);
    // Asked again and allowed: made.
    h.receive(&mut frame, &request(6, "tools/call", json!({"name": "refresh"})), &env);
    assert_eq!(h.answer_call(&mut frame, true), Some(Effect::CallTool { id: json!(6), name: "refresh".into(), arguments: json!({}) }));

    // A tool the model alone sees is not the View's to call.
    let (mut frame, p) = (Frame::default(), Policies::default());
    let mut h = started(&mut frame, &p);
    let env = Env { now_ms: 0, draft: "", policies: &p };
    assert!(h.receive(&mut frame, &request(7, "tools/call", json!({"name": "secret"})), &env).is_empty());
    assert!(frame.answer(7).is_some_and(|m| m.get("error").is_some()));
}

/// A card that came from a file or another device, of a configured
/// server: its View runs with the file's input and result, so a call it
/// makes asks even where the policy allows it (a denial still holds).
#[test]
fn an_imported_cards_view_asks_before_every_call() {
    let (mut frame, p) = (Frame::default(), policies(Some(Policy::Allow)));
    let env = Env { now_ms: 0, draft: "", policies: &p };
    let mut h = host().imported(true);
    h.receive(&mut frame, &notify("ui/notifications/sandbox-proxy-ready"), &env);
    h.receive(&mut frame, &request(1, "ui/initialize", json!({})), &env);
    let call = request(5, "tools/call", json!({"name": "refresh", "arguments": {"n": 1}}));
    assert!(h.receive(&mut frame, &call, &env).is_empty(), "asked, not made");
    assert_eq!(h.shown().call, Some(("refresh".to_owned(), json!({"n": 1}))));
    assert_eq!(h.answer_call(&mut frame, true), Some(Effect::CallTool { id: json!(5), name: "refresh".into(), arguments: json!({"n": 1}) }));
    let (mut frame, p) = (Frame::default(), policies(Some(Policy::Deny)));
    let env = Env { now_ms: 0, draft: "", policies: &p };
    let mut h = host().imported(true);
    h.receive(&mut frame, &notify("ui/notifications/sandbox-proxy-ready"), &env);
    assert!(h.receive(&mut frame, &call, &env).is_empty());
    assert_eq!(h.shown().call, None, "refused, not asked");
}

#[test]
fn a_link_opens_only_after_the_user_agrees() {
    let (mut frame, p) = (Frame { opens: true, ..Frame::default() }, Policies::default());
    let mut h = started(&mut frame, &p);
    let env = Env { now_ms: 0, draft: "", policies: &p };
    h.receive(&mut frame, &request(8, "ui/open-link", json!({"url": "https://example.test/a"})), &env);
    assert_eq!(h.shown().link.as_deref(), Some("https://example.test/a"));
    assert!(frame.opened.is_empty() && frame.answer(8).is_none(), "nothing opened before the user says so");
    h.answer_link(&mut frame, false);
    assert!(frame.opened.is_empty());
    assert_eq!(frame.answer(8).map(|m| m["result"].clone()), Some(json!({"isError": true})));
    h.receive(&mut frame, &request(9, "ui/open-link", json!({"url": "https://example.test/b"})), &env);
    h.answer_link(&mut frame, true);
    assert_eq!(frame.opened, ["https://example.test/b"]);
    assert_eq!(frame.answer(9).map(|m| m["result"].clone()), Some(json!({})));
    assert_eq!(h.shown().link, None);
    // Not http(s): refused by the bridge, never shown.
    h.receive(&mut frame, &request(10, "ui/open-link", json!({"url": "javascript:alert(1)"})), &env);
    assert_eq!(h.shown().link, None);
}

#[test]
fn a_message_goes_into_an_empty_composer_only_and_not_too_often() {
    let (mut frame, p) = (Frame::default(), Policies::default());
    let mut h = started(&mut frame, &p);
    let msg = |id| request(id, "ui/message", json!({"role": "user", "content": [{"type": "text", "text": "Explain the chart"}]}));
    let typing = Env { now_ms: 0, draft: "my own words", policies: &p };
    assert!(h.receive(&mut frame, &msg(11), &typing).is_empty(), "what the user is typing is never overwritten");
    assert!(h.shown().message_held);
    assert_eq!(frame.answer(11).map(|m| m["result"].clone()), Some(json!({"isError": true})));
    let empty = Env { now_ms: 10, draft: " ", policies: &p };
    assert_eq!(h.receive(&mut frame, &msg(12), &empty), [Effect::Draft("Explain the chart".into())]);
    assert_eq!(frame.answer(12).map(|m| m["result"].clone()), Some(json!({})));
    let soon = Env { now_ms: 10 + air_apps::MESSAGE_GAP_MS - 1, draft: "", policies: &p };
    assert!(h.receive(&mut frame, &msg(13), &soon).is_empty(), "a View cannot flood the composer");
    let later = Env { now_ms: 10 + air_apps::MESSAGE_GAP_MS, draft: "", policies: &p };
    assert_eq!(h.receive(&mut frame, &msg(14), &later).len(), 1);
}

#[test]
fn the_views_context_is_an_attachment_of_the_next_message() {
    let (mut frame, p) = (Frame::default(), Policies::default());
    let mut h = started(&mut frame, &p);
    let env = Env { now_ms: 0, draft: "", policies: &p };
    let update = |id, content: Value, structured: Value| request(id, "ui/update-model-context", json!({"content": content, "structuredContent": structured}));
    let given = h.receive(&mut frame, &update(20, json!([{"type": "text", "text": "Bars: 3"}]), json!({"bars": 3})), &env);
    let block = "<app-context tool=\"draw\">\nBars: 3\n{\"bars\":3}\n</app-context>".to_owned();
    assert_eq!(given, [Effect::Context { uri: "app-context:rec-1".into(), block: Some(block) }]);
    assert_eq!(frame.answer(20).map(|m| m["result"].clone()), Some(json!({})));
    // Emptied: the attachment goes.
    let taken = h.receive(&mut frame, &update(21, json!([]), Value::Null), &env);
    assert_eq!(taken, [Effect::Context { uri: "app-context:rec-1".into(), block: None }]);
}

#[test]
fn full_screen_and_a_new_look_are_told_to_the_view() {
    let (mut frame, p) = (Frame::default(), Policies::default());
    let mut h = started(&mut frame, &p);
    let env = Env { now_ms: 0, draft: "", policies: &p };
    h.receive(&mut frame, &request(30, "ui/request-display-mode", json!({"mode": "fullscreen"})), &env);
    assert!(h.shown().fullscreen);
    assert_eq!(frame.answer(30).map(|m| m["result"].clone()), Some(json!({"mode": "fullscreen"})));
    let changed = frame.posted.iter().rev().find(|m| m["method"] == "ui/notifications/host-context-changed").expect("told");
    assert_eq!(changed["params"], json!({"displayMode": "fullscreen"}), "only what changed");
    h.receive(&mut frame, &request(31, "ui/request-display-mode", json!({"mode": "pip"})), &env);
    assert_eq!(frame.answer(31).map(|m| m["result"].clone()), Some(json!({"mode": "fullscreen"})), "a mode not offered keeps the one it has");
    let before = frame.posted.len();
    h.set_look(&mut frame, Look { dark: false, locale: "zh-CN".into() });
    assert_eq!(frame.posted[before]["params"]["theme"], "light");
    assert_eq!(frame.posted[before]["params"]["locale"], "zh-CN");
    h.set_look(&mut frame, Look { dark: false, locale: "zh-CN".into() });
    assert_eq!(frame.posted.len(), before + 1, "nothing when nothing changed");
}

#[test]
fn a_view_gets_a_second_to_wind_down() {
    let (mut frame, p) = (Frame::default(), Policies::default());
    let mut h = started(&mut frame, &p);
    let env = Env { now_ms: 5_000, draft: "", policies: &p };
    h.receive(&mut frame, &notify("ui/notifications/request-teardown"), &env);
    assert_eq!(frame.methods().last(), Some(&"ui/resource-teardown"));
    assert_eq!(h.poll_timeout(), Some(5_000 + TEARDOWN_MS));
    h.handle_timeout(5_000 + TEARDOWN_MS - 1);
    assert!(!h.shown().closed);
    h.handle_timeout(5_000 + TEARDOWN_MS);
    assert!(h.shown().closed);
    assert_eq!(h.poll_timeout(), None);

    // An answer lets it go at once.
    let (mut frame, p) = (Frame::default(), Policies::default());
    let mut h = started(&mut frame, &p);
    h.close(&mut frame, 0);
    let id = frame.posted.last().map(|m| m["id"].clone()).unwrap_or_default();
    h.receive(&mut frame, &json!({"jsonrpc": "2.0", "id": id, "result": {}}), &Env { now_ms: 10, draft: "", policies: &p });
    assert!(h.shown().closed);
    assert_eq!(h.poll_timeout(), None);

    // A View that never started goes at once, asked nothing.
    let mut frame = Frame::default();
    let mut h = host();
    h.close(&mut frame, 0);
    assert!(h.shown().closed && frame.posted.is_empty());
}

#[test]
fn a_cards_view_is_found_by_the_tool_the_model_called() {
    let s = server();
    let mut r = run(ToolStatus::Done);
    assert_eq!(app_of(std::slice::from_ref(&s), &r).map(|(s, t)| (s.name, t.name)), Some(("charts".into(), "draw".into())));
    r.name = "mcp_charts_refresh".into();
    assert_eq!(app_of(std::slice::from_ref(&s), &r), None, "a tool for the View alone is not a call of the model's");
    // Switched off since: named as it was.
    let off = McpServer { enabled: false, ..server() };
    assert!(app_of(&[off], &run(ToolStatus::Done)).is_some());
    r.server = None;
    assert_eq!(app_of(&[s], &r), None, "a built-in tool has no View");
}
