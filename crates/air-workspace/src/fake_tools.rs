//! What turns in tests run with, through the same assembly as the page's
//! ([`crate::toolbox`]): a scripted model in the preferences, MCP servers
//! saved with their tools, and what each tool does.

use std::rc::Rc;

use air_http::fake::Script;
use air_store::Settings;
use air_store::mcp::McpServer;
use air_store::settings::ToolCalling;
use air_tools::{CallContext, Tool, ToolDef, ToolOutput};
use futures_util::future::LocalBoxFuture;
use serde_json::{Value, json};

use crate::Command;
use crate::fake::Harness;

/// The scripted model's settings: the fake HTTP answers at
/// `http://model.test/v1`.
pub fn model(tool_calling: ToolCalling) -> Settings {
    Settings { provider: "custom".into(), base_url: "http://model.test/v1".into(), model: "scripted".into(), api_key: "sk-test-key-0123".into(), tool_calling, ..Settings::default() }
}

/// One chunk of the scripted model's stream.
pub fn chunk(delta: Value, finish: Option<&str>) -> String {
    json!({"id": "c", "object": "chat.completion.chunk", "model": "scripted", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}).to_string()
}

/// The scripted model answers `text`.
pub fn text(text: &str) -> Script {
    Script::sse([chunk(json!({"role": "assistant", "content": text}), None), chunk(json!({}), Some("stop")), "[DONE]".to_owned()])
}

/// The scripted model calls `name` with `args` (JSON text), as call `id`.
pub fn call(id: &str, name: &str, args: &str) -> Script {
    calls(&[(id, name, args)])
}

/// The scripted model makes these calls (id, name, arguments) at once.
pub fn calls(calls: &[(&str, &str, &str)]) -> Script {
    let calls: Vec<Value> = calls.iter().enumerate().map(|(i, (id, name, args))| json!({"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": args}})).collect();
    Script::sse([chunk(json!({"role": "assistant", "content": null}), None), chunk(json!({"tool_calls": calls}), None), chunk(json!({}), Some("tool_calls")), "[DONE]".to_owned()])
}

/// A server `name` at `url`, enabled, listing `tools` (as `tools/list`
/// gives them).
pub fn server(name: &str, url: &str, tools: &[Value]) -> McpServer {
    let mut s: McpServer = serde_json::from_value(serde_json::json!({"id": name, "name": name, "url": url})).expect("a server");
    s.tools = air_servers::list::saved_tools(tools);
    s
}

/// A tool that answers `text` to every call.
pub struct Answers(pub ToolDef, pub String);

impl Tool for Answers {
    fn def(&self) -> &ToolDef {
        &self.0
    }
    fn call<'a>(&'a self, _args: Value, _ctx: CallContext<'a>) -> LocalBoxFuture<'a, ToolOutput> {
        Box::pin(std::future::ready(ToolOutput::text(self.1.clone())))
    }
}

impl Harness {
    /// Turns use `settings` (saved as the user's).
    pub fn use_settings(&mut self, settings: Settings) {
        self.send(Command::Prefs(crate::prefs::Action::Change(crate::prefs::Change::Settings(Box::new(settings)))));
    }

    /// `server` is saved, and its tools are what `make` makes of each
    /// definition (the fake platform's MCP clients).
    pub fn add_server(&mut self, server: McpServer, make: impl Fn(ToolDef) -> Rc<dyn Tool> + 'static) {
        self.p.mcp.borrow_mut().insert(server.name.clone(), Rc::new(make));
        self.ws.prefs.servers.push(server);
    }

    /// `server` is saved, each of its tools answering `text`.
    pub fn add_answering_server(&mut self, server: McpServer, text: &str) {
        let text = text.to_owned();
        self.add_server(server, move |def| Rc::new(Answers(def, text.clone())));
    }
}
