use air_apps::*;
use air_tools::Content;
use serde_json::{Value, json};

/// The `get-time` tool and View of `@modelcontextprotocol/server-basic-vanillajs`
/// 2.0.3, as listed and read.
fn basic_tool() -> Value {
    json!({"name": "get-time", "title": "Get Time", "description": "Returns the current server time as an ISO 8601 string.",
        "inputSchema": {"type": "object", "properties": {}}, "outputSchema": {"type": "object", "properties": {"time": {"type": "string"}}, "required": ["time"]},
        "_meta": {"ui": {"resourceUri": "ui://get-time/mcp-app.html"}, "ui/resourceUri": "ui://get-time/mcp-app.html"}})
}

fn context() -> HostContext {
    HostContext {
        theme: "dark".into(),
        locale: "en".into(),
        time_zone: Some("Europe/Paris".into()),
        display_mode: "inline".into(),
        available_display_modes: vec!["inline".into(), "fullscreen".into()],
        max_height: 600,
        width: Some(640),
        variables: vec![("--color-background-primary".into(), "#17181c".into())],
        tool: Some((json!(7), basic_tool())),
    }
}

#[test]
fn a_tool_names_its_view_and_who_may_call_it() {
    assert_eq!(tool_ui(&basic_tool()), ToolUi { resource_uri: Some("ui://get-time/mcp-app.html".into()), model: true, app: true });
    // The older flat key alone still counts.
    let flat = json!({"name": "x", "_meta": {"ui/resourceUri": "ui://x/v.html"}});
    assert_eq!(tool_ui(&flat).resource_uri.as_deref(), Some("ui://x/v.html"));
    // Only ui:// URIs.
    let web = json!({"name": "x", "_meta": {"ui": {"resourceUri": "https://evil.example/v.html"}}});
    assert_eq!(tool_ui(&web).resource_uri, None);
    let app_only = json!({"name": "x", "_meta": {"ui": {"visibility": ["app"]}}});
    assert_eq!(tool_ui(&app_only), ToolUi { resource_uri: None, model: false, app: true });
    let model_only = json!({"name": "x", "_meta": {"ui": {"visibility": ["model"]}}});
    assert_eq!(tool_ui(&model_only), ToolUi { resource_uri: None, model: true, app: false });
    assert_eq!(tool_ui(&json!({"name": "plain"})), ToolUi { resource_uri: None, model: true, app: true });
}

#[test]
fn nothing_declared_is_strict() {
    let policy = Csp::default().policy();
    assert_eq!(
        policy,
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; \
         connect-src 'none'; frame-src 'none'; base-uri 'none'; object-src 'none'; form-action 'none'"
    );
}

#[test]
fn declared_domains_go_to_their_directives_and_nothing_else_does() {
    let csp = Csp::from_meta(Some(&json!({
        "connectDomains": ["https://api.example.com", "wss://rt.example.com", "*", "'unsafe-eval'", "https://a.example; script-src *"],
        "resourceDomains": ["https://*.cdn.example", "http://localhost:3000", "data:", "javascript:alert(1)"],
        "frameDomains": ["https://www.youtube.com"],
        "baseUriDomains": ["https://cdn.example.com/app/"],
    })));
    assert_eq!(csp.connect, ["https://api.example.com", "wss://rt.example.com"]);
    assert_eq!(csp.resource, ["https://*.cdn.example", "http://localhost:3000"]);
    assert_eq!(csp.refused, ["*", "'unsafe-eval'", "https://a.example; script-src *", "data:", "javascript:alert(1)"]);
    let policy = csp.policy();
    assert!(policy.contains("connect-src https://api.example.com wss://rt.example.com;"), "{policy}");
    assert!(policy.contains("script-src 'unsafe-inline' https://*.cdn.example http://localhost:3000;"), "{policy}");
    assert!(policy.contains("img-src data: blob: https://*.cdn.example http://localhost:3000;"), "{policy}");
    assert!(policy.contains("frame-src https://www.youtube.com;"), "{policy}");
    assert!(policy.contains("base-uri https://cdn.example.com/app/;"), "{policy}");
    assert!(!policy.contains("unsafe-eval") && !policy.contains(" * ") && !policy.contains("javascript"), "{policy}");
    assert_eq!(policy.matches(';').count(), 10, "no declared value adds a directive: {policy}");
}

#[test]
fn the_policy_is_the_documents_first_element() {
    let p = "default-src 'none'";
    let meta = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\">";
    assert_eq!(with_policy("<!DOCTYPE html>\n<html><head><script>x</script>", p), format!("<!DOCTYPE html>{meta}\n<html><head><script>x</script>"));
    assert_eq!(with_policy("\u{feff}  <!doctype HTML><p>hi", p), format!("\u{feff}  <!doctype HTML>{meta}<p>hi"));
    assert_eq!(with_policy("<script>x</script>", p), format!("{meta}<script>x</script>"));
    // A quote in the policy cannot end the attribute.
    assert!(with_policy("", "a\"b").contains("content=\"a&quot;b\""));
}

#[test]
fn permissions_become_the_allow_attribute() {
    let p = Permissions::from_meta(Some(&json!({"camera": {}, "clipboardWrite": {}, "geolocation": false})));
    assert_eq!(p.allow(), "camera; clipboard-write");
    assert_eq!(Permissions::from_meta(None).allow(), "");
}

#[test]
fn a_view_gets_devices_only_when_the_user_grants_them() {
    let p = Permissions::from_meta(Some(&json!({"camera": {}, "microphone": {}})));
    assert!(p.any());
    assert_eq!(p.allow_if(false), "", "the server asking is not enough");
    assert_eq!(p.allow_if(true), "camera; microphone");
    assert!(!Permissions::from_meta(Some(&json!({"camera": false}))).any(), "nothing asked: nothing to ask the user");
}

#[test]
fn the_resource_is_read_as_a_view() {
    let read = json!({"contents": [{"uri": "ui://get-time/mcp-app.html", "mimeType": "text/html;profile=mcp-app", "text": "<!DOCTYPE html><p>t</p>",
        "_meta": {"ui": {"csp": {"connectDomains": ["https://api.example.com"]}, "permissions": {"microphone": {}}, "prefersBorder": true}}}]});
    let ui = ui_resource(&read, "ui://get-time/mcp-app.html", None).expect("a view");
    assert_eq!(ui.html, "<!DOCTYPE html><p>t</p>");
    assert_eq!(ui.csp.connect, ["https://api.example.com"]);
    assert!(ui.permissions.microphone);
    assert_eq!(ui.prefers_border, Some(true));
    // base64 blobs, and the listing's _meta where the item has none.
    let blob = json!({"contents": [{"uri": "ui://a", "mimeType": "text/html; profile=mcp-app", "blob": "PHA+aMOpPC9wPg=="}]});
    let listed = json!({"ui": {"csp": {"resourceDomains": ["https://cdn.example"]}}});
    let ui = ui_resource(&blob, "ui://a", Some(&listed)).expect("a view");
    assert_eq!(ui.html, "<p>hé</p>");
    assert_eq!(ui.csp.resource, ["https://cdn.example"]);
    assert_eq!(ui_resource(&json!({"contents": [{"uri": "ui://a", "mimeType": "text/html", "text": "x"}]}), "ui://a", None), Err(UiError::NotAnApp { mime: "text/html".into() }));
    assert_eq!(ui_resource(&json!({"contents": []}), "ui://a", None), Err(UiError::Missing));
    assert_eq!(ui_resource(&json!({"contents": [{"uri": "ui://a", "mimeType": MIME, "blob": "!!"}]}), "ui://a", None), Err(UiError::BadBlob));
}

fn posts(outs: &[Out]) -> Vec<Value> {
    outs.iter().filter_map(|o| if let Out::Post(v) = o { Some(v.clone()) } else { None }).collect()
}

#[test]
fn nothing_is_sent_before_initialized_then_input_comes_before_result() {
    let mut b = Bridge::new(context(), "1.0.0", vec![basic_tool()]);
    assert!(b.tool_input(json!({})).is_empty());
    assert!(b.tool_result(json!({"content": []})).is_empty());
    let init = b.receive(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize", "params": {"appInfo": {"name": "Get Time App", "version": "1.0.0"}, "appCapabilities": {}, "protocolVersion": "2026-01-26"}}),
    );
    let answer = &posts(&init)[0];
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["protocolVersion"], PROTOCOL_VERSION);
    let ctx = &answer["result"]["hostContext"];
    assert_eq!(ctx["theme"], "dark");
    assert_eq!(ctx["locale"], "en");
    assert_eq!(ctx["displayMode"], "inline");
    assert_eq!(ctx["containerDimensions"], json!({"maxHeight": 600, "width": 640}));
    assert_eq!(ctx["toolInfo"]["id"], 7);
    assert_eq!(ctx["styles"]["variables"]["--color-background-primary"], "#17181c");
    // An unknown call id is left out rather than sent as null.
    let mut no_id = context();
    no_id.tool = Some((Value::Null, basic_tool()));
    assert_eq!(no_id.to_value()["toolInfo"].as_object().map(|o| o.contains_key("id")), Some(false));
    assert!(answer["result"]["hostCapabilities"]["serverTools"].is_object());
    assert!(!b.is_ready());
    let ready = b.receive(&json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}));
    assert_eq!(ready[0], Out::Ready);
    let held = posts(&ready);
    assert_eq!(held.iter().map(|m| m["method"].as_str().unwrap_or_default()).collect::<Vec<_>>(), ["ui/notifications/tool-input", "ui/notifications/tool-result"]);
    assert_eq!(held[0]["params"], json!({"arguments": {}}));
    // After that, sent at once.
    assert_eq!(b.tool_cancelled("Stopped")[0]["params"]["reason"], "Stopped");
}

#[test]
fn the_view_calls_only_its_servers_app_tools() {
    let mut b = Bridge::new(context(), "1.0.0", vec![basic_tool()]);
    let call = b.receive(&json!({"jsonrpc": "2.0", "id": "c1", "method": "tools/call", "params": {"name": "get-time", "arguments": {}}}));
    assert_eq!(call, vec![Out::Ask { id: json!("c1"), ask: Ask::CallTool { name: "get-time".into(), arguments: json!({}) } }]);
    let refused = b.receive(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "model-only"}}));
    let refused = &posts(&refused)[0];
    assert_eq!(refused["error"]["code"], INVALID_PARAMS);
    assert!(refused["error"]["message"].as_str().is_some_and(|m| m.contains("model-only")));
    let listed = posts(&b.receive(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})));
    assert_eq!(listed[0]["result"]["tools"][0]["name"], "get-time");
    assert_eq!(b.reply(&json!("c1"), Ok(json!({"content": []}))), json!({"jsonrpc": "2.0", "id": "c1", "result": {"content": []}}));
    assert_eq!(b.reply(&json!(4), Err("no".into()))["error"]["message"], "no");
}

#[test]
fn the_views_requests_and_notifications() {
    let mut b = Bridge::new(context(), "1.0.0", vec![]);
    let ask = |b: &mut Bridge, m: Value| match b.receive(&m).pop() {
        Some(Out::Ask { ask, .. }) => Some(ask),
        _ => None,
    };
    assert_eq!(
        ask(&mut b, json!({"jsonrpc": "2.0", "id": 1, "method": "ui/message", "params": {"role": "user", "content": [{"type": "text", "text": "This is message text."}]}})),
        Some(Ask::Message { text: "This is message text.".into() })
    );
    assert_eq!(
        ask(&mut b, json!({"jsonrpc": "2.0", "id": 2, "method": "ui/open-link", "params": {"url": "https://modelcontextprotocol.io/"}})),
        Some(Ask::OpenLink { url: "https://modelcontextprotocol.io/".into() })
    );
    assert_eq!(ask(&mut b, json!({"jsonrpc": "2.0", "id": 3, "method": "ui/open-link", "params": {"url": "javascript:alert(1)"}})), None);
    assert_eq!(
        ask(&mut b, json!({"jsonrpc": "2.0", "id": 4, "method": "ui/update-model-context", "params": {"content": [{"type": "text", "text": "picked: 3"}], "structuredContent": {"n": 3}}})),
        Some(Ask::UpdateContext { text: "picked: 3".into(), structured: Some(json!({"n": 3})) })
    );
    assert_eq!(ask(&mut b, json!({"jsonrpc": "2.0", "id": 5, "method": "ui/request-display-mode", "params": {"mode": "fullscreen"}})), Some(Ask::DisplayMode { mode: "fullscreen".into() }));
    assert_eq!(ask(&mut b, json!({"jsonrpc": "2.0", "id": 6, "method": "resources/read", "params": {"uri": "ui://x"}})), Some(Ask::ReadResource { uri: "ui://x".into() }));
    let unknown = posts(&b.receive(&json!({"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage", "params": {}})));
    assert_eq!(unknown[0]["error"]["code"], METHOD_NOT_FOUND);
    assert_eq!(posts(&b.receive(&json!({"jsonrpc": "2.0", "id": 8, "method": "ping"})))[0]["result"], json!({}));
    assert_eq!(
        b.receive(&json!({"jsonrpc": "2.0", "method": "ui/notifications/size-changed", "params": {"width": 400, "height": 312}})),
        vec![Out::Resize { width: Some(400.0), height: Some(312.0) }]
    );
    assert_eq!(b.receive(&json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hello"}})), vec![Out::Log { level: "info".into(), text: "hello".into() }]);
    // Not JSON-RPC 2.0: ignored.
    assert!(b.receive(&json!({"method": "ping", "id": 9})).is_empty());
    assert!(b.receive(&json!("ui/initialize")).is_empty());
}

#[test]
fn teardown_is_asked_and_answered_before_the_frame_goes() {
    let mut b = Bridge::new(context(), "1.0.0", vec![]);
    // Never initialized: nothing to ask.
    assert_eq!(b.teardown(), None);
    let mut b = Bridge::new(context(), "1.0.0", vec![]);
    b.receive(&json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}));
    let ask = b.teardown().expect("a teardown request");
    assert_eq!(ask["method"], "ui/resource-teardown");
    // Nothing more goes to a View being torn down.
    assert!(b.tool_result(json!({})).is_empty());
    assert!(b.receive(&json!({"jsonrpc": "2.0", "id": 999, "result": {}})).is_empty());
    assert_eq!(b.receive(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {}})), vec![Out::Closed]);
    assert!(b.receive(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).is_empty());
}

#[test]
fn context_changes_send_only_what_changed() {
    let mut b = Bridge::new(context(), "1.0.0", vec![]);
    b.receive(&json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}));
    assert!(b.context_changed(context()).is_empty());
    let mut light = context();
    light.theme = "light".into();
    light.display_mode = "fullscreen".into();
    let sent = b.context_changed(light);
    assert_eq!(sent[0]["method"], "ui/notifications/host-context-changed");
    assert_eq!(sent[0]["params"], json!({"theme": "light", "displayMode": "fullscreen"}));
}

#[test]
fn a_stored_output_becomes_a_call_result() {
    let r = call_result(
        &[Content::Text { text: "2026-11-23T10:00:00.000Z".into() }, Content::Link { uri: "https://x.example/a".into(), name: None }],
        Some(&json!({"time": "2026-11-23T10:00:00.000Z"})),
        false,
    );
    assert_eq!(
        r,
        json!({"content": [{"type": "text", "text": "2026-11-23T10:00:00.000Z"}, {"type": "resource_link", "uri": "https://x.example/a", "name": "https://x.example/a"}],
            "structuredContent": {"time": "2026-11-23T10:00:00.000Z"}})
    );
    assert_eq!(call_result(&[], None, true)["isError"], true);
}

#[test]
fn a_code_block_preview_is_the_code_under_the_strictest_policy() {
    let html = preview_document("HTML", "<!doctype html><p onclick=\"x()\">hi</p><script>fetch('/x')</script>").expect("html");
    // The policy comes first (after the doctype), before any of the code.
    assert!(html.starts_with("<!doctype html><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline';"), "{html}");
    assert!(html.contains("connect-src 'none'") && html.contains("frame-src 'none'") && html.contains("form-action 'none'"), "{html}");
    assert!(html.ends_with("<p onclick=\"x()\">hi</p><script>fetch('/x')</script>"));
    let svg = preview_document("svg", "<svg viewBox=\"0 0 10 10\"><circle r=\"5\"/></svg>").expect("svg");
    assert!(svg.starts_with("<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\""), "{svg}");
    assert!(svg.contains("<body><svg viewBox=\"0 0 10 10\"><circle r=\"5\"/></svg></body>"), "{svg}");
    assert_eq!(preview_document("js", "alert(1)"), None);
}

#[test]
fn a_view_fills_an_empty_composer_at_most_every_few_seconds() {
    let mut gate = air_apps::MessageGate::default();
    assert!(gate.admit(10_000, ""));
    assert!(!gate.admit(10_500, ""), "too soon");
    assert!(!gate.admit(20_000, "what I am typing"), "never over the user's text");
    assert!(gate.admit(20_000, "  "));
    assert!(gate.admit(20_000 + air_apps::MESSAGE_GAP_MS, ""));
}
