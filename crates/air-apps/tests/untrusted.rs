//! Whatever a View posts, and whatever its server says of it, the host's
//! end of the bridge does not panic, and answers at most once per message.

use air_apps::{Bridge, Csp, HostContext, Permissions, tool_ui, ui_resource, with_policy};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Any JSON value, with the keys of JSON-RPC and MCP Apps turning up often.
fn json_value() -> impl Strategy<Value = Value> {
    air_testgen::json(
        &["jsonrpc", "id", "method", "params", "name", "arguments", "uri", "url", "height", "mode", "_meta", "ui", "csp", "contents"],
        &["2.0", "ui/initialize", "ui/notifications/initialized", "tools/call", "resources/read", "ui/open-link", "ui/message", "ui/notifications/size-changed", "ui/request-display-mode"],
    )
}

fn context() -> HostContext {
    HostContext {
        theme: "light".into(),
        locale: "en".into(),
        time_zone: None,
        display_mode: "inline".into(),
        available_display_modes: vec!["inline".into()],
        max_height: 600,
        width: None,
        variables: vec![],
        tool: None,
    }
}

proptest! {
    #[test]
    fn a_views_messages_never_panic(messages in prop::collection::vec(json_value(), 1..12)) {
        let mut b = Bridge::new(context(), "1.0.0", vec![json!({"name": "t"})]);
        // Some sessions start properly, some never do.
        b.receive(&json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize", "params": {}}));
        for m in &messages {
            let outs = b.receive(m);
            prop_assert!(outs.len() <= 4, "{m} → {} outputs", outs.len());
        }
    }

    #[test]
    fn any_document_takes_the_policy(html in ".{0,40}") {
        let out = with_policy(&html, "default-src 'none'");
        prop_assert!(out.contains("default-src 'none'") && out.len() >= html.len());
        // A character across the ninth byte (found by this test).
        let _ = with_policy("<!doctypé html>", "x");
        let _ = with_policy("12345678é", "x");
    }

    #[test]
    fn what_a_server_says_of_its_view_never_panics(result in json_value(), listed in proptest::option::of(json_value())) {
        let _ = tool_ui(&result);
        if let Ok(r) = ui_resource(&result, "ui://x/y.html", listed.as_ref()) {
            // The policy holds only sources that were checked.
            prop_assert!(!r.csp.policy().contains("'unsafe-eval'"));
        }
        let csp = Csp::from_meta(Some(&result));
        prop_assert!(!csp.policy().contains(';') || csp.policy().split(';').count() == 11);
        let _ = Permissions::from_meta(Some(&result)).allow_if(false);
    }
}
