//! A turn with dynamic loading: what it loads is kept under its own
//! conversation, whichever conversation the user opens meanwhile.

use std::rc::Rc;

use air_agent::Approval;
use air_dynamic::Loaded;
use air_dynamic::docs;
use air_http::fake::Script;
use air_store::mcp::McpServer;
use air_store::{SessionRecord, Settings, Store};
use air_tools::{CallContext, Tool, ToolDef, ToolOutput};
use futures_util::future::LocalBoxFuture;
use serde_json::{Value, json};

use crate::fake::{FakePlatform, Harness, now};
use crate::fake_tools::text;

fn call(id: &str, name: &str, args: Value) -> Script {
    crate::fake_tools::call(id, name, &args.to_string())
}
use crate::turn::Job;
use crate::{Command, Update};

fn server() -> McpServer {
    let tools = [
        json!({"name": "search", "description": "Searches the docs.", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}),
        json!({"name": "fetch", "description": "Fetches a page.", "inputSchema": {"type": "object"}}),
    ];
    let mut s: McpServer = serde_json::from_value(json!({"id": "docs", "name": "docs", "url": "http://127.0.0.1:9/docs"})).expect("a server");
    s.tools = air_servers::list::saved_tools(&tools);
    s
}

/// `mcp_docs_search`: an MCP tool with no policy of the user's, so the
/// turn waits for the user before it runs.
struct Search(ToolDef);

impl Tool for Search {
    fn def(&self) -> &ToolDef {
        &self.0
    }
    fn call<'a>(&'a self, _args: Value, _ctx: CallContext<'a>) -> LocalBoxFuture<'a, ToolOutput> {
        Box::pin(async { ToolOutput::text("3 pages") })
    }
}

/// A workspace whose turns run with dynamic loading over server `docs`,
/// reporting what they load as the page's turn does; sessions `s1` and
/// `s2` stored, `s1` open.
fn harness() -> Harness {
    let p = FakePlatform::default();
    for id in ["s1", "s2"] {
        now(p.store.put_session(&SessionRecord::new(id, 1.0))).expect("stored");
    }
    let mut h = Harness::new(p);
    h.send(Command::Start);
    h.use_settings(Settings { dynamic_mcp_loading: true, ..crate::fake_tools::model(air_store::settings::ToolCalling::Native) });
    h.add_server(server(), |def| Rc::new(Search(def)));
    h.send(Command::Chat(crate::chat::Action::Open("s1".into())));
    h.take();
    h
}

fn loaded_names(h: &Harness, session: &str) -> Vec<String> {
    now(docs::loaded(session).read(&*h.p.store)).tools.iter().map(|t| t.tool.clone()).collect()
}

#[test]
fn what_a_turn_loads_stays_with_its_conversation_when_another_is_opened_mid_turn() {
    let mut h = harness();
    h.p.http.push(call("a", "load_mcp_tool", json!({"names": ["search"]})));
    h.p.http.push(call("b", "mcp_docs_search", json!({"q": "sync"})));
    h.p.http.push(call("c", "load_mcp_tool", json!({"names": ["fetch"]})));
    h.p.http.push(text("Found it."));
    h.send(Command::Turn(crate::turn::Action::Start(Job::Send("Find the sync docs".into()))));
    // The turn loaded `search` and waits for the user to allow the call.
    let ups = h.take();
    let Some(Update::Approvals { awaiting, .. }) = ups.iter().rev().find(|u| matches!(u, Update::Approvals { .. })) else { panic!("{ups:?}") };
    let record = awaiting[0].clone();
    assert_eq!(loaded_names(&h, "s1"), ["search"]);

    // The user opens another conversation, then allows the call there.
    h.send(Command::Chat(crate::chat::Action::Open("s2".into())));
    h.send(Command::Turn(crate::turn::Action::Approve { record, approval: Approval::Once }));
    assert!(!h.ws.busy(), "the turn ended");
    assert_eq!(h.p.http.requests().len(), 4);

    // What the turn loaded after the switch is the turn's conversation's.
    assert_eq!(loaded_names(&h, "s1"), ["search", "fetch"]);
    let s1 = now(docs::loaded("s1").read(&*h.p.store));
    assert_eq!(s1.metrics.requests, 4, "every request of the turn is counted for it");
    assert_eq!(now(docs::loaded("s2").read(&*h.p.store)), Loaded::default(), "the conversation open meanwhile is untouched");
    // And the panel of the open conversation does not show the turn's tools.
    let shown: Vec<Loaded> = h.take().into_iter().filter_map(|u| if let Update::LoadedTools(l) = u { Some(l) } else { None }).collect();
    assert!(shown.iter().all(|l| l.tools.is_empty()), "{shown:?}");
}
