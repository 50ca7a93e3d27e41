//! A provider, an MCP server or an HTTP tool moved to another origin on
//! one device: through a real sync, the other device sends none of its own
//! secrets to the new origin (a move on the same origin keeps them).

use air_store::http_tools::{self, SavedHttpTool};
use air_store::mcp::{self, McpServer};
use air_store::settings::{self, Profile};
use air_sync::MemoryPeer;
use serde_json::json;

use crate::sync::device_tests::{Device, two_devices};

impl Device {
    fn edit_server(&self, f: impl FnOnce(&mut McpServer)) {
        let mut list = self.servers();
        f(&mut list[0]);
        mcp::save(&self.kv, &list).unwrap();
    }

    fn tools(&self) -> Vec<SavedHttpTool> {
        http_tools::KEY.get(&self.kv)
    }

    fn edit_tool(&self, f: impl FnOnce(&mut serde_json::Value)) {
        let mut v = serde_json::to_value(&self.tools()[0]).unwrap();
        f(&mut v);
        http_tools::KEY.set(&self.kv, &vec![serde_json::from_value::<SavedHttpTool>(v).unwrap()]).unwrap();
    }

    /// The secrets this device would send, and where.
    fn secrets(&self) -> Vec<(String, String)> {
        let s = self.settings();
        let mut out = vec![(settings::origin(&s.base_url), s.api_key.clone())];
        out.extend(s.profiles.iter().map(|p| (settings::origin(&p.base_url), p.api_key.clone())));
        out.extend(self.servers().iter().map(|m| (settings::origin(&m.url), m.headers.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>().join(","))));
        let tool = serde_json::to_value(&self.tools()[0]).unwrap();
        let secret = tool["headers"].as_array().into_iter().flatten().filter(|h| h["secret"] == json!(true)).filter_map(|h| h["value"].as_str()).collect::<Vec<_>>().join(",");
        out.push((settings::origin(tool["url"].as_str().unwrap_or_default()), secret));
        out
    }
}

/// Each device's own provider key, profile key, server header and tool
/// header (none of them travel: `sync_keys` and `sync_headers` are off).
fn setup() -> (MemoryPeer, Device, Device) {
    let (server, a, b) = two_devices();
    a.edit_settings(|s| {
        s.base_url = "https://api.openai.com/v1".into();
        s.profiles.push(Profile { id: "p1".into(), name: "Groq".into(), base_url: "https://api.groq.com/openai/v1".into(), api_key: String::new(), model: "llama".into() });
    });
    let server_record = McpServer {
        id: "srv1".into(),
        name: "search".into(),
        url: "https://search.example/mcp".into(),
        headers: Vec::new(),
        enabled: true,
        tools: Vec::new(),
        excluded: Vec::new(),
        protocol: None,
        trust_hints: false,
    };
    mcp::save(&a.kv, &[server_record]).unwrap();
    let tool: air_http_tools::HttpTool = serde_json::from_value(
        json!({"name": "weather", "inputSchema": {"type": "object"}, "method": "GET", "url": "https://wx.example/", "headers": [{"name": "X-Key", "value": "", "secret": true}]}),
    )
    .unwrap();
    http_tools::KEY.set(&a.kv, &vec![SavedHttpTool::new(tool)]).unwrap();
    a.sync(&server);
    b.sync(&server);
    // Each device signs in with its own secrets, which stay home.
    for (d, who) in [(&a, "laptop"), (&b, "phone")] {
        d.edit_settings(|s| {
            s.api_key = format!("sk-{who}");
            s.profiles[0].api_key = format!("gsk-{who}");
        });
        d.edit_server(|m| m.headers = vec![("Authorization".into(), format!("Bearer {who}"))]);
        d.edit_tool(|t| t["headers"][0]["value"] = json!(format!("wx-{who}")));
    }
    a.sync(&server);
    b.sync(&server);
    (server, a, b)
}

#[test]
fn a_secret_never_follows_a_url_moved_to_another_origin_on_another_device() {
    let (server, a, b) = setup();
    assert_eq!(b.secrets().iter().map(|(_, s)| s.as_str()).collect::<Vec<_>>(), ["sk-phone", "gsk-phone", "Bearer phone", "wx-phone"]);
    // The laptop points everything elsewhere (its own secrets dropped, as a move here does).
    a.edit_settings(|s| {
        s.edit_base_url("https://elsewhere.example/v1");
        s.profiles[0].edit_base_url("https://elsewhere.example/groq");
    });
    a.edit_server(|m| {
        m.url = "https://elsewhere.example/mcp".into();
        m.headers.clear();
    });
    a.edit_tool(|t| {
        t["url"] = json!("https://elsewhere.example/wx");
        t["headers"][0]["value"] = json!("");
    });
    a.sync(&server);
    b.sync(&server);
    let moved = b.secrets();
    assert!(moved.iter().all(|(origin, _)| origin == "https://elsewhere.example"), "{moved:?}");
    for (origin, secret) in &moved {
        assert!(!secret.contains("phone"), "the phone's secret {secret:?} would go to {origin}");
    }
}

#[test]
fn a_secret_stays_when_the_url_moves_on_its_own_origin() {
    let (server, a, b) = setup();
    a.edit_settings(|s| {
        s.base_url = "https://api.openai.com/v2".into();
        s.profiles[0].base_url = "https://api.groq.com/openai/v2".into();
    });
    a.edit_server(|m| m.url = "https://search.example/mcp/v2".into());
    a.edit_tool(|t| t["url"] = json!("https://wx.example/v2"));
    a.sync(&server);
    b.sync(&server);
    assert_eq!(b.settings().base_url, "https://api.openai.com/v2");
    assert_eq!(b.secrets().iter().map(|(_, s)| s.as_str()).collect::<Vec<_>>(), ["sk-phone", "gsk-phone", "Bearer phone", "wx-phone"]);
}
