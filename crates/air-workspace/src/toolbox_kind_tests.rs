//! A kind of tool added here, as a new kind is added to the product: this
//! file, and one line that puts it among the workspace's kinds. Its tool
//! is offered, runs, and is in the policy list.

use std::rc::Rc;

use air_http::fake::Script;
use air_store::settings::ToolCalling;
use air_tools::{CallContext, Tool, ToolDef, ToolOutput, ToolSource};
use futures_util::future::LocalBoxFuture;
use serde_json::{Value, json};

use super::{Snapshot, ToolKind, Toolbox};
use crate::fake::{FakePlatform, Harness};
use crate::fake_tools::chunk;
use crate::prefs::Prefs;
use crate::turn::Job;
use crate::turn_env::TurnEnv;
use crate::{Command, Missing, Platform, Update};

/// Notes kept in the page: one tool, `take_note`.
struct Notes;

fn note_def() -> ToolDef {
    ToolDef { name: "take_note".into(), description: "Keeps a note.".into(), input_schema: json!({"type": "object"}), annotations: Default::default(), source: ToolSource::BuiltIn, mcp: None }
}

struct TakeNote(ToolDef);

impl Tool for TakeNote {
    fn def(&self) -> &ToolDef {
        &self.0
    }
    fn call<'a>(&'a self, args: Value, _ctx: CallContext<'a>) -> LocalBoxFuture<'a, ToolOutput> {
        Box::pin(std::future::ready(ToolOutput::text(format!("noted {args}"))))
    }
}

impl<P: Platform> ToolKind<P> for Notes {
    fn defs(&self, _p: &P, _prefs: &Prefs) -> Vec<ToolDef> {
        vec![note_def()]
    }
    fn add<'a>(&'a self, _env: &'a TurnEnv<P>, _snap: &'a Snapshot<'_>, toolbox: &'a mut Toolbox) -> LocalBoxFuture<'a, Result<(), Missing>> {
        toolbox.registry.register(Rc::new(TakeNote(note_def())));
        Box::pin(std::future::ready(Ok(())))
    }
}

#[test]
fn a_new_kind_of_tool_is_one_file_and_one_line() {
    let mut h = Harness::new(FakePlatform::default());
    h.ws.more_kinds.push(Rc::new(Notes));
    h.send(Command::Start);
    h.use_settings(crate::fake_tools::model(ToolCalling::Native));
    let call = json!({"tool_calls": [{"index": 0, "id": "n1", "type": "function", "function": {"name": "take_note", "arguments": "{\"text\": \"milk\"}"}}]});
    h.p.http.push(Script::sse([chunk(call, Some("tool_calls")), "[DONE]".to_owned()]));
    h.p.http.push(Script::sse([chunk(json!({"content": "Noted."}), Some("stop")), "[DONE]".to_owned()]));
    h.send(Command::Turn(crate::turn::Action::Start(Job::Send("Remember milk".into()))));
    assert!(h.take().contains(&Update::Sent));
    let requests = h.p.http.requests();
    assert!(requests[0].body.as_deref().unwrap_or("").contains("\"take_note\""), "offered");
    assert!(requests[1].body.as_deref().unwrap_or("").contains("noted {\\\"text\\\":\\\"milk\\\"}"), "it ran: {:?}", requests[1].body);
    assert!(h.ws.policy_defs().iter().any(|d| d.name == "take_note"), "in the policy list");
}
