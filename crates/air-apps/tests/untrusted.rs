//! Whatever a View posts, and whatever its server says of it, the host's
//! end of the bridge does not panic, and answers at most once per message.

use air_apps::{Bridge, Csp, HostContext, Permissions, tool_ui, ui_resource, with_policy};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Any JSON value, with the keys of JSON-RPC and MCP Apps turning up often.
fn json_value() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("jsonrpc".to_owned()),
        Just("id".to_owned()),
        Just("method".to_owned()),
        Just("params".to_owned()),
        Just("name".to_owned()),
        Just("arguments".to_owned()),
        Just("uri".to_owned()),
        Just("url".to_owned()),
        Just("height".to_owned()),
        Just("mode".to_owned()),
        Just("_meta".to_owned()),
        Just("ui".to_owned()),
        Just("csp".to_owned()),
        Just("contents".to_owned()),
        ".{0,8}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        prop_oneof![
            Just("2.0".to_owned()),
            Just("ui/initialize".to_owned()),
            Just("ui/notifications/initialized".to_owned()),
            Just("tools/call".to_owned()),
            Just("resources/read".to_owned()),
            Just("ui/open-link".to_owned()),
            Just("ui/message".to_owned()),
            Just("ui/notifications/size-changed".to_owned()),
            Just("ui/request-display-mode".to_owned()),
            ".{0,30}"
        ]
        .prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..7).prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
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
