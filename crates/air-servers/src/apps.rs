//! Hosting one MCP App's View, without IO: what the card shows, what the
//! View is told and when, and what it may have done. The protocol itself is
//! `air_apps::Bridge`; this decides around it: the View's resource sent
//! once the sandbox proxy is up, with the features the user granted; calls
//! under the user's tool policies; links opened only after the user agrees;
//! messages into an empty composer only, rate-limited; its context offered
//! as an attachment of the next message; the call's input and end given
//! once each; a second for the View to wind down. The page reaches the
//! frame through a [`Port`] and carries out each [`Effect`].

use std::rc::Rc;

use air_apps::{Ask, Bridge, HostContext, MessageGate, Out, UiResource};
use air_store::mcp::{McpServer, SavedTool};
use air_store::records::{ToolRun, ToolStatus};
use air_tools::policy::{Policies, Policy};
use serde_json::{Value, json};

use crate::registration::Registration;

/// The tallest an inline View grows before it scrolls inside.
pub const MAX_HEIGHT: u32 = 800;
/// How long a View may take to answer `ui/resource-teardown`.
pub const TEARDOWN_MS: u64 = 1000;

/// The View's frame, as the page reaches it.
pub trait Port {
    /// Posts a message into the frame (to the sandbox proxy, which hands
    /// the View what is not its own).
    fn post(&mut self, message: &Value);
    /// The frame's width in CSS pixels (0 when not laid out).
    fn width(&self) -> u32;
    /// Opens `url` in a new tab; whether it opened.
    fn open_link(&mut self, url: &str) -> bool;
}

/// How the page looks, as a View is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Look {
    pub dark: bool,
    /// BCP 47.
    pub locale: String,
}

/// What the View's card shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shown {
    /// Its content height, as it last said.
    pub height: Option<f64>,
    /// A link it wants opened, waiting for the user.
    pub link: Option<String>,
    pub fullscreen: bool,
    /// It said `initialized`.
    pub ready: bool,
    /// Torn down: the frame may go.
    pub closed: bool,
    /// A message it sent was not put in the composer.
    pub message_held: bool,
    /// A call it wants made that the user must allow first (tool,
    /// arguments).
    pub call: Option<(String, Value)>,
}

/// What the page does for the View, outside its frame. Each request is
/// answered with [`Host::reply`] and the same id.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// `resources/read` on the View's server.
    ReadResource { id: Value, uri: String },
    /// `tools/call` on the View's server (allowed by policy or by the user).
    CallTool { id: Value, name: String, arguments: Value },
    /// Put this text in the composer, for the user to send or not (a View
    /// never starts a turn by itself).
    Draft(String),
    /// Attach (or, with no block, take back) the View's context to the
    /// next message: `uri` names this View's attachment.
    Context { uri: String, block: Option<String> },
    /// The View logged this.
    Log { level: String, text: String },
}

/// What the host needs from the page when a message comes.
pub struct Env<'a> {
    pub now_ms: u64,
    /// What the composer holds.
    pub draft: &'a str,
    /// The user's tool policies.
    pub policies: &'a Policies,
}

/// The server and saved tool behind a card's call, when that tool has a
/// View: named as the turn's registry named it (a server switched off since
/// is named as it was alone).
pub fn app_of(servers: &[McpServer], run: &ToolRun) -> Option<(McpServer, SavedTool)> {
    let server_name = run.server.as_deref()?;
    let server = servers.iter().find(|s| s.name == server_name)?;
    let registration = if server.enabled { Registration::of(servers) } else { Registration::of(&[McpServer { enabled: true, ..server.clone() }]) };
    let entry = registration.app_of(server_name, &run.name)?;
    Some((server.clone(), server.tools.iter().find(|t| t.name == entry.tool)?.clone()))
}

/// What the page's policies say of a View's call of `tool` on `server`
/// (a tool the server does not offer is refused).
pub fn policy_of(policies: &Policies, server: &McpServer, tool: &str) -> Policy {
    // (The decision reads the tool's place on its server, not its name.)
    match server.tools.iter().find(|t| t.name == tool && t.offered()) {
        Some(t) => policies.decide(&t.def(server, String::new())),
        None => Policy::Deny,
    }
}

/// The context a View is told about: the page's look and palette, the
/// frame's width, the display mode and the tool that made it.
pub fn context(look: &Look, tool: &SavedTool, width: u32, fullscreen: bool) -> HostContext {
    // The app's palette, in the names Views know.
    let vars = [
        ("--color-background-primary", "light-dark(#ffffff, #17181c)"),
        ("--color-background-secondary", "light-dark(#f5f6f8, #202228)"),
        ("--color-text-primary", "light-dark(#1d1f24, #e6e7ea)"),
        ("--color-text-secondary", "light-dark(#6b7080, #9aa0ad)"),
        ("--color-border-primary", "light-dark(#dcdfe6, #30333b)"),
        ("--color-ring-primary", "light-dark(#2563eb, #5b8cff)"),
        ("--border-radius-md", "8px"),
        ("--font-sans", "system-ui, -apple-system, \"Segoe UI\", Roboto, \"Noto Sans\", sans-serif"),
    ];
    HostContext {
        theme: (if look.dark { "dark" } else { "light" }).to_owned(),
        locale: look.locale.clone(),
        time_zone: None,
        display_mode: (if fullscreen { "fullscreen" } else { "inline" }).to_owned(),
        available_display_modes: vec!["inline".into(), "fullscreen".into()],
        max_height: MAX_HEIGHT,
        width: (width > 0).then_some(width),
        variables: vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
        tool: Some((Value::Null, json!({"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}))),
    }
}

/// One View, from its frame's first message to its teardown.
pub struct Host {
    server: McpServer,
    tool: SavedTool,
    /// The card's record: names the View's context attachment.
    record_id: String,
    resource: Rc<UiResource>,
    /// The frame's `allow`: the features the user granted.
    allow: String,
    look: Look,
    bridge: Bridge,
    shown: Shown,
    /// The request behind `shown.link` and `shown.call`.
    link_id: Option<Value>,
    call_id: Option<Value>,
    proxy_ready: bool,
    messages: MessageGate,
    input_sent: bool,
    end_sent: bool,
    /// When the frame goes if the View has not answered the teardown.
    teardown_at: Option<u64>,
    /// The card's call came from a file or another device: its input and
    /// result are the file's, not this page's, so every call the View
    /// makes asks the user, whatever the policy allows.
    imported: bool,
}

impl Host {
    /// A View of `tool` on `server`, in a frame `width` wide.
    pub fn new(server: McpServer, tool: SavedTool, record_id: String, resource: Rc<UiResource>, allow: String, look: Look, width: u32) -> Self {
        let app_tools: Vec<Value> = server
            .tools
            .iter()
            .filter(|t| t.offered() && air_apps::visibility(t.visibility.as_deref()).1)
            .map(|t| json!({"name": t.name, "description": t.description, "inputSchema": t.input_schema}))
            .collect();
        let bridge = Bridge::new(context(&look, &tool, width, false), env!("CARGO_PKG_VERSION"), app_tools);
        Host {
            server,
            tool,
            record_id,
            resource,
            allow,
            look,
            bridge,
            shown: Shown::default(),
            link_id: None,
            call_id: None,
            proxy_ready: false,
            messages: MessageGate::default(),
            input_sent: false,
            end_sent: false,
            teardown_at: None,
            imported: false,
        }
    }

    /// The View of a card whose call was imported or synced
    /// (`ToolRun::imported`): its calls always ask.
    pub fn imported(mut self, imported: bool) -> Self {
        self.imported = imported;
        self
    }

    pub fn shown(&self) -> &Shown {
        &self.shown
    }

    pub fn server(&self) -> &McpServer {
        &self.server
    }

    /// The View's tool's name on its server.
    pub fn tool(&self) -> &str {
        &self.tool.name
    }

    /// A message from the frame.
    pub fn receive(&mut self, port: &mut impl Port, msg: &Value, env: &Env<'_>) -> Vec<Effect> {
        if msg.get("method").and_then(Value::as_str) == Some("ui/notifications/sandbox-proxy-ready") {
            if !std::mem::replace(&mut self.proxy_ready, true) {
                let r = &self.resource;
                port.post(&json!({"jsonrpc": "2.0", "method": "ui/notifications/sandbox-resource-ready", "params": {
                    "html": air_apps::with_policy(&r.html, &r.csp.policy()),
                    // What the user granted, not what the server asked.
                    "allow": self.allow,
                    // Where the View may navigate frames (its own too).
                    "frameDomains": r.csp.frame,
                    "title": self.tool.name,
                }}));
            }
            return Vec::new();
        }
        let mut effects = Vec::new();
        for out in self.bridge.receive(msg) {
            match out {
                Out::Post(m) => port.post(&m),
                Out::Ask { id, ask } => effects.extend(self.ask(port, id, ask, env)),
                Out::Resize { height, .. } => {
                    if height.is_some() {
                        self.shown.height = height;
                    }
                }
                Out::Log { level, text } => effects.push(Effect::Log { level, text }),
                Out::Ready => self.shown.ready = true,
                Out::CloseRequested => self.close(port, env.now_ms),
                Out::Closed => self.shown.closed = true,
            }
        }
        effects
    }

    /// The answer to a request an [`Effect`] carried out.
    pub fn reply(&mut self, port: &mut impl Port, id: &Value, result: Result<Value, String>) {
        port.post(&self.bridge.reply(id, result));
    }

    fn ask(&mut self, port: &mut impl Port, id: Value, ask: Ask, env: &Env<'_>) -> Option<Effect> {
        match ask {
            // The same policy as the model's calls: refused, asked, or run.
            Ask::CallTool { name, arguments } => match policy_of(env.policies, &self.server, &name) {
                Policy::Allow if self.imported => self.ask_call(port, id, name, arguments),
                Policy::Deny => {
                    self.reply(port, &id, Err(format!("The user does not allow the tool `{name}`.")));
                    None
                }
                Policy::Ask => self.ask_call(port, id, name, arguments),
                Policy::Allow => Some(Effect::CallTool { id, name, arguments }),
            },
            Ask::ReadResource { uri } => Some(Effect::ReadResource { id, uri }),
            Ask::Message { text } => {
                if self.messages.admit(env.now_ms, env.draft) {
                    self.reply(port, &id, Ok(json!({})));
                    Some(Effect::Draft(text))
                } else {
                    self.shown.message_held = true;
                    self.reply(port, &id, Ok(json!({"isError": true})));
                    None
                }
            }
            Ask::OpenLink { url } => {
                if let Some(old) = self.link_id.replace(id) {
                    self.reply(port, &old, Ok(json!({"isError": true})));
                }
                self.shown.link = Some(url);
                None
            }
            Ask::UpdateContext { text, structured } => {
                self.reply(port, &id, Ok(json!({})));
                Some(self.context_block(text, structured))
            }
            Ask::DisplayMode { mode } => {
                let full = match mode.as_str() {
                    "fullscreen" => true,
                    "inline" => false,
                    _ => self.shown.fullscreen,
                };
                self.set_fullscreen(port, full);
                self.reply(port, &id, Ok(json!({"mode": if full { "fullscreen" } else { "inline" }})));
                None
            }
        }
    }

    /// A call the user must allow first, shown on the card.
    fn ask_call(&mut self, port: &mut impl Port, id: Value, name: String, arguments: Value) -> Option<Effect> {
        // A newer question replaces one not answered yet.
        if let Some(old) = self.call_id.replace(id) {
            self.reply(port, &old, Err("The user did not answer this call.".to_owned()));
        }
        self.shown.call = Some((name, arguments));
        None
    }

    /// What the View gave as context, as the next message's attachment
    /// (nothing given: the attachment goes).
    fn context_block(&self, text: String, structured: Option<Value>) -> Effect {
        let mut body = text;
        if let Some(s) = structured {
            if !body.is_empty() {
                body.push('\n');
            }
            body.push_str(&s.to_string());
        }
        let block = format!("<app-context tool=\"{}\">\n{}\n</app-context>", self.tool.name, body.trim_end());
        Effect::Context { uri: format!("app-context:{}", self.record_id), block: (!body.trim().is_empty()).then_some(block) }
    }

    /// Full screen or inline, and the View told.
    pub fn set_fullscreen(&mut self, port: &mut impl Port, full: bool) {
        self.shown.fullscreen = full;
        let ctx = context(&self.look, &self.tool, port.width(), full);
        for m in self.bridge.context_changed(ctx) {
            port.post(&m);
        }
    }

    /// The page's theme or language changed.
    pub fn set_look(&mut self, port: &mut impl Port, look: Look) {
        self.look = look;
        self.set_fullscreen(port, self.shown.fullscreen);
    }

    /// The user's answer to the call the View asked for.
    pub fn answer_call(&mut self, port: &mut impl Port, allow: bool) -> Option<Effect> {
        let (name, arguments) = self.shown.call.take()?;
        let id = self.call_id.take()?;
        if allow {
            return Some(Effect::CallTool { id, name, arguments });
        }
        self.reply(port, &id, Err(format!("The user denied this call of `{name}`.")));
        None
    }

    /// The user's answer to the link the View asked to open.
    pub fn answer_link(&mut self, port: &mut impl Port, open: bool) {
        let (Some(url), Some(id)) = (self.shown.link.take(), self.link_id.take()) else { return };
        let result = if open && port.open_link(&url) { json!({}) } else { json!({"isError": true}) };
        self.reply(port, &id, Ok(result));
    }

    /// Gives the View the call as the card stands: its input once running,
    /// then its result or its end, each once.
    pub fn feed(&mut self, port: &mut impl Port, run: &ToolRun) {
        if run.status == ToolStatus::AwaitingApproval {
            return;
        }
        let mut out = Vec::new();
        if !std::mem::replace(&mut self.input_sent, true) {
            let args = serde_json::from_str::<Value>(&run.arguments).ok().filter(Value::is_object).unwrap_or_else(|| json!({}));
            out.extend(self.bridge.tool_input(args));
        }
        if run.status.is_final() && !std::mem::replace(&mut self.end_sent, true) {
            out.extend(match run.status {
                ToolStatus::Done | ToolStatus::Error => self.bridge.tool_result(air_apps::call_result(&run.output, run.structured.as_ref(), run.status == ToolStatus::Error)),
                _ => self.bridge.tool_cancelled(&format!("{:?}", run.status)),
            });
        }
        for m in out {
            port.post(&m);
        }
    }

    /// Asks the View to wind down, then lets the frame go: at once if it
    /// never started, when it answers, or at [`Host::poll_timeout`].
    pub fn close(&mut self, port: &mut impl Port, now_ms: u64) {
        match self.bridge.teardown() {
            Some(m) => {
                port.post(&m);
                self.teardown_at.get_or_insert(now_ms + TEARDOWN_MS);
            }
            None => self.shown.closed = true,
        }
    }

    /// When [`Host::handle_timeout`] is due.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.teardown_at.filter(|_| !self.shown.closed)
    }

    pub fn handle_timeout(&mut self, now_ms: u64) {
        if self.teardown_at.is_some_and(|at| now_ms >= at) {
            self.teardown_at = None;
            self.shown.closed = true;
        }
    }

    /// The card goes away (another session, a reload): the View is told,
    /// with no time to answer.
    pub fn leave(&mut self, port: &mut impl Port) {
        if let Some(m) = self.bridge.teardown() {
            port.post(&m);
        }
    }
}

#[cfg(test)]
#[path = "apps_tests.rs"]
mod tests;
