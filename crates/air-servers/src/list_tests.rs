use super::*;
use air_tools::policy::Policy;
use serde_json::json;

fn listed() -> Vec<Value> {
    vec![
        json!({"name": "read", "description": "Reads", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
               "annotations": {"readOnlyHint": true}, "_meta": {"ui": {"resourceUri": "ui://files", "visibility": ["model", "app"]}}}),
        json!({"name": "write", "title": "Writes"}),
        json!({"name": "slow", "execution": {"taskSupport": "required"}}),
        json!({"description": "no name"}),
    ]
}

fn server(name: &str, url: &str) -> McpServer {
    McpServer {
        id: format!("id-{name}-{url}"),
        name: name.into(),
        url: url.into(),
        headers: vec![("Authorization".into(), "Bearer secret".into())],
        enabled: true,
        tools: Vec::new(),
        excluded: Vec::new(),
        protocol: Some("2025-06-18".into()),
        trust_hints: false,
    }
}

/// A policy the user set for every tool of `s`.
fn chosen(policies: &mut Policies, s: &McpServer) {
    for t in &s.tools {
        policies.set(&t.def(s, String::new()), Some(Policy::Allow));
    }
}

#[test]
fn a_listing_is_saved_as_the_tools_this_client_can_call() {
    let tools = saved_tools(&listed());
    assert_eq!(tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["read", "write"], "a task-only tool and a nameless one are left out");
    assert_eq!(tools[0].ui.as_deref(), Some("ui://files"));
    assert_eq!(tools[0].visibility, Some(vec!["model".to_owned(), "app".to_owned()]));
    assert_eq!(tools[0].annotations.read_only_hint, Some(true));
    assert_eq!(tools[1].description, "Writes", "the title when there is no description");
    assert_eq!(tools[1].input_schema, json!({"type": "object"}), "an object schema when none is given");
}

#[test]
fn adding_a_server_keeps_the_picked_tools_and_replaces_one_of_the_same_name() {
    let mut policies = Policies::default();
    let mut old = server("fs", "https://old.test/mcp");
    old.tools = saved_tools(&listed());
    chosen(&mut policies, &old);
    let mut servers = vec![old, server("git", "https://git.test/mcp")];
    let (kept, effects) = add(&mut servers, &mut policies, server("fs", "https://new.test/mcp"), saved_tools(&listed()), &["write".to_owned()]);
    assert_eq!(kept, 1);
    assert!(effects.policies, "the old server's choices are forgotten");
    assert_eq!(policies, Policies::default());
    assert_eq!(servers.iter().map(|s| s.url.as_str()).collect::<Vec<_>>(), ["https://git.test/mcp", "https://new.test/mcp"]);
    assert_eq!(servers[1].tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["write"]);
    assert_eq!(servers[1].excluded, ["read"]);
    let (_, effects) = add(&mut servers, &mut policies, server("web", "https://web.test/mcp"), Vec::new(), &[]);
    assert_eq!(effects, Effects::default(), "nothing else to do for a new name");
}

#[test]
fn a_resync_on_the_same_origin_keeps_headers_choices_and_sign_in() {
    let mut s = server("fs", "https://fs.test/mcp");
    s.tools = saved_tools(&listed()[..1]);
    s.excluded = vec!["write".into()];
    let mut policies = Policies::default();
    chosen(&mut policies, &s);
    let mut servers = vec![s];
    let (target, moved) = resync_target(&servers, "fs", " https://FS.test/v2/mcp ", None).expect("saved");
    assert_eq!((moved.clone(), target.url.as_str(), target.headers.len()), (None, "https://FS.test/v2/mcp", 1));
    let mut more = listed();
    more.push(json!({"name": "grep"}));
    let before = policies.clone();
    let (counts, effects) = resynced(&mut servers, &mut policies, target, moved, &saved_tools(&more), Some("2025-11-25".into()));
    assert_eq!((counts.unchanged, counts.added, counts.gone), (1, 1, 0), "write was left out; grep is new");
    assert_eq!(effects, Effects::default());
    assert_eq!(policies, before);
    assert_eq!(servers[0].protocol.as_deref(), Some("2025-11-25"));
    assert_eq!(servers[0].url, "https://FS.test/v2/mcp");
    let grep = servers[0].tools.iter().find(|t| t.name == "grep").expect("grep");
    assert!(grep.pending, "a new tool waits for the user");
    assert_eq!(resync_target(&servers, "nope", "https://x.test", None), None);
}

#[test]
fn a_resync_on_another_origin_is_another_server() {
    let mut s = server("fs", "https://fs.test/mcp");
    s.tools = saved_tools(&listed()[..1]);
    let mut policies = Policies::default();
    chosen(&mut policies, &s);
    let mut servers = vec![s];
    let given = vec![("X-Api-Key".to_owned(), "k-new".to_owned())];
    let (with, _) = resync_target(&servers, "fs", "https://elsewhere.test/mcp", Some(given.clone())).expect("saved");
    assert_eq!(with.headers, given, "headers the user gave for it go");
    let (target, moved) = resync_target(&servers, "fs", "https://elsewhere.test/mcp", None).expect("saved");
    assert_eq!(moved.as_deref(), Some("https://fs.test/mcp"));
    assert!(target.headers.is_empty() && target.protocol.is_none(), "nothing given to the old server goes to the new one");
    let (_, effects) = resynced(&mut servers, &mut policies, target, moved, &[], None);
    assert_eq!(effects.forget_sign_in, ["https://fs.test/mcp"]);
    assert!(effects.policies);
    assert_eq!(policies, Policies::default());
    assert!(servers[0].tools[0].gone, "a tool no longer listed is kept, marked gone");
}

#[test]
fn switches_say_whether_they_changed_anything() {
    let mut servers = vec![server("fs", "https://fs.test/mcp")];
    assert!(!set_enabled(&mut servers, "fs", true));
    assert!(set_enabled(&mut servers, "fs", false));
    assert!(!servers[0].enabled);
    assert!(set_trust_hints(&mut servers, "fs", true));
    assert!(!set_trust_hints(&mut servers, "fs", true));
    assert!(!set_enabled(&mut servers, "other", false));
    assert!(connected(&mut servers, "fs", "2025-11-25"));
    assert!(!connected(&mut servers, "fs", "2025-11-25"));
    assert_eq!(servers[0].protocol.as_deref(), Some("2025-11-25"));
}

#[test]
fn removing_a_server_takes_its_sign_in_choices_and_chat_mentions() {
    let mut s = server("fs", "https://fs.test/mcp");
    s.tools = saved_tools(&listed());
    let mut policies = Policies::default();
    chosen(&mut policies, &s);
    let other = server("git", "https://git.test/mcp");
    let mut servers = vec![s, other.clone()];
    let effects = remove(&mut servers, &mut policies, "fs");
    assert_eq!(effects, Effects { policies: true, forget_sign_in: vec!["https://fs.test/mcp".into()], forget_in_chats: Some("fs".into()) });
    assert_eq!(servers, vec![other]);
}

#[test]
fn accepting_a_pending_tool_offers_it() {
    let mut s = server("fs", "https://fs.test/mcp");
    s.tools = saved_tools(&listed());
    s.tools[1].pending = true;
    let mut servers = vec![s];
    let mut policies = Policies::default();
    assert!(accept(&mut servers, &mut policies, "fs", "write"));
    assert!(servers[0].tools[1].offered());
    assert!(!accept(&mut servers, &mut policies, "fs", "nope"));
    assert!(!accept(&mut servers, &mut policies, "nope", "write"));
}
