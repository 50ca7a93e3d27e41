use air_mcp::McpError;
use air_mcp::prompts::Prompt;
use air_mcp::resources::Resource;
use air_store::mcp::McpServer;

use super::*;
use crate::fake::{FakePlatform, Harness};
use crate::prefs::{self, Change, Prefs};
use crate::{Command, Update};

fn saved(name: &str) -> McpServer {
    serde_json::from_value(serde_json::json!({"id": name, "name": name, "url": format!("http://127.0.0.1:9/{name}")})).expect("a server")
}

fn prompt(name: &str) -> Prompt {
    Prompt { name: name.into(), label: name.into(), description: None, arguments: Vec::new() }
}

/// Servers `docs` and `mail` saved and on; `docs` offers a prompt and a
/// resource, `mail` a prompt.
fn harness() -> Harness {
    let p = FakePlatform::default();
    let prefs = Prefs { servers: vec![saved("docs"), saved("mail")], ..Prefs::default() };
    prefs::write(&*p.kv, &prefs, prefs::Touched { servers: true, ..prefs::Touched::default() }).expect("written");
    p.offered.borrow_mut().prompts = vec![("docs".into(), prompt("summarize")), ("mail".into(), prompt("reply"))];
    p.offered.borrow_mut().resources = vec![("docs".into(), Resource { uri: "file:///a.md".into(), label: "a.md".into(), mime: None, description: None })];
    let mut h = Harness::new(p);
    h.send(Command::Start);
    h.take();
    h
}

fn picked(h: &mut Harness) -> Vec<Found> {
    h.take().into_iter().filter_map(|u| if let Update::Picked(f) = u { Some(f) } else { None }).collect()
}

#[test]
fn the_pickers_offer_what_the_chats_servers_have() {
    let mut h = harness();
    h.send(Command::Prefs(crate::prefs::Action::Change(Change::ChatServer { chat: air_store::mcp::NEW_CHAT.into(), server: "mail".into(), on: false })));
    h.take();
    h.send(Command::Pickers(Action::ListPrompts));
    let names: Vec<(String, String)> = match picked(&mut h).pop() {
        Some(Found::Prompts(p)) => p.list.into_iter().map(|(s, p)| (s, p.name)).collect(),
        other => panic!("{other:?}"),
    };
    assert_eq!(names, [("docs".to_owned(), "summarize".to_owned())], "mail is off in this chat");
    h.send(Command::Pickers(Action::ListResources));
    assert!(matches!(picked(&mut h).pop(), Some(Found::Resources(r)) if r.resources.len() == 1));
    assert_eq!(*h.p.picker_asks.borrow(), vec![vec!["docs".to_owned()], vec!["docs".to_owned()]]);
}

#[test]
fn a_prompts_text_and_suggestions_come_from_its_saved_server() {
    let mut h = harness();
    h.send(Command::Pickers(Action::GetPrompt { server: "docs".into(), name: "summarize".into(), args: Map::new() }));
    assert_eq!(picked(&mut h), [Found::PromptText(Ok("docs says summarize".into()))]);
    h.send(Command::Pickers(Action::GetPrompt { server: "gone".into(), name: "x".into(), args: Map::new() }));
    assert_eq!(picked(&mut h), [Found::PromptText(Err("gone: not a saved server".into()))]);
    h.send(Command::Pickers(Action::Complete { server: "docs".into(), prompt: "summarize".into(), argument: "lang".into(), value: "e".into(), others: Map::new() }));
    assert_eq!(picked(&mut h), [Found::Suggestions { argument: "lang".into(), values: vec!["e1".into(), "e2".into()] }]);
}

#[test]
fn a_listing_for_a_picker_opened_again_since_is_dropped() {
    let mut h = harness();
    h.p.hold_pickers.set(true);
    h.send(Command::Pickers(Action::ListPrompts));
    h.send(Command::Pickers(Action::ListPrompts));
    h.p.hold_pickers.set(false);
    h.run();
    assert_eq!(picked(&mut h).len(), 1, "only the newest listing is shown");
}

#[test]
fn a_server_without_prompts_is_no_error() {
    let none = McpError::Rpc { code: -32601, message: "Method not found".into() };
    assert_eq!(listing_error("docs", &none), None);
    let down = McpError::Network("connection refused".into());
    assert!(listing_error("docs", &down).is_some_and(|e| e.starts_with("docs: ")));
}
