//! MCP Apps in the page: a tool's View read from its server, framed through
//! the sandbox proxy (`sandbox.html`), and what it asks carried out. The
//! protocol is `air_apps`; this is the IO around it.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use air_apps::{Ask, Bridge, HostContext, Out, UiResource};
use air_http::Abort;
use air_store::mcp::{McpServer, SavedTool};
use air_store::records::{ToolRun, ToolStatus};
use air_store::settings::Theme;
use air_tools::policy::Policy;
use air_web::frame::{self, FrameListener};
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::{Value, json};

use crate::binding::env;
use crate::binding::state::AppState;

/// The tallest an inline View grows before it scrolls inside.
const MAX_HEIGHT: u32 = 800;
/// How long a View may take to answer `ui/resource-teardown`.
const TEARDOWN_MS: u64 = 1000;

thread_local! {
    /// Views read this page's life, by server URL and resource URI.
    static VIEWS: RefCell<HashMap<(String, String), Rc<UiResource>>> = RefCell::new(HashMap::new());
}

/// The server and saved tool behind a card, when that tool has a View.
pub fn app_of(state: AppState, run: &ToolRun) -> Option<(McpServer, SavedTool)> {
    let server_name = run.server.as_deref()?;
    state.prefs.mcp_servers.with_untracked(|l| {
        let server = l.iter().find(|s| s.name == server_name)?;
        // Named as the turn's registry named it; a server switched off
        // since is named as it was alone.
        let registration = if server.enabled {
            air_servers::Registration::of(l)
        } else {
            air_servers::Registration::of(&[McpServer { enabled: true, ..server.clone() }])
        };
        let entry = registration.app_of(server_name, &run.name)?;
        Some((server.clone(), server.tools.iter().find(|t| t.name == entry.tool)?.clone()))
    })
}

/// Reads the View `uri` of `server` (once per page life).
pub fn load(state: AppState, server: &McpServer, uri: String, done: impl FnOnce(Result<Rc<UiResource>, String>) + 'static) {
    let key = (server.url.clone(), uri.clone());
    if let Some(hit) = VIEWS.with(|v| v.borrow().get(&key).cloned()) {
        done(Ok(hit));
        return;
    }
    let client = crate::binding::mcp::client_for(state, server);
    spawn_local(async move {
        let read = client.read_resource(&uri, &Abort::new()).await.map_err(|e| e.to_string());
        let view = read.and_then(|r| air_apps::ui_resource(&r, &uri, None).map_err(|e| e.to_string()));
        if let Ok(v) = &view {
            let v = Rc::new(v.clone());
            VIEWS.with(|m| m.borrow_mut().insert(key, v.clone()));
            done(Ok(v));
        } else if let Err(e) = view {
            done(Err(e));
        }
    });
}

/// What the View's card shows and the View changes.
#[derive(Clone, Copy)]
pub struct Hooks {
    /// Its content height, as it last said.
    pub height: RwSignal<Option<f64>>,
    /// A link it wants opened, waiting for the user (request id, URL).
    pub link: RwSignal<Option<(Value, String)>>,
    pub fullscreen: RwSignal<bool>,
    /// It said `initialized`.
    pub ready: RwSignal<bool>,
    /// Torn down: the frame may go.
    pub closed: RwSignal<bool>,
    /// A problem to show on the card.
    pub problem: RwSignal<Option<String>>,
    /// A call it wants made that the user must allow first (request id,
    /// tool, arguments).
    pub call: RwSignal<Option<(Value, String, Value)>>,
}

impl Hooks {
    pub fn new() -> Self {
        Hooks {
            height: RwSignal::new(None),
            link: RwSignal::new(None),
            fullscreen: RwSignal::new(false),
            ready: RwSignal::new(false),
            closed: RwSignal::new(false),
            problem: RwSignal::new(None),
            call: RwSignal::new(None),
        }
    }
}

/// One View in its frame.
pub struct Live {
    state: AppState,
    server: McpServer,
    tool: String,
    record_id: String,
    frame: frame::Frame,
    resource: Rc<UiResource>,
    /// The frame's `allow`: the features the user granted.
    allow: String,
    bridge: RefCell<Bridge>,
    hooks: Hooks,
    listener: RefCell<Option<FrameListener>>,
    proxy_ready: Cell<bool>,
    /// Its messages into the composer, rate-limited.
    messages: RefCell<air_apps::MessageGate>,
    input_sent: Cell<bool>,
    end_sent: Cell<bool>,
}

fn theme(state: AppState) -> String {
    let dark = match state.prefs.settings.with_untracked(|s| s.theme) {
        Theme::Dark => true,
        Theme::Light => false,
        Theme::System => frame::prefers_dark(),
    };
    (if dark { "dark" } else { "light" }).to_owned()
}

fn context(state: AppState, tool: &SavedTool, width: u32, fullscreen: bool) -> HostContext {
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
    let lang = match state.prefs.settings.with_untracked(|s| s.language) {
        air_store::settings::Language::Chinese => "zh-CN",
        air_store::settings::Language::English => "en",
    };
    HostContext {
        theme: theme(state),
        locale: lang.to_owned(),
        time_zone: None,
        display_mode: (if fullscreen { "fullscreen" } else { "inline" }).to_owned(),
        available_display_modes: vec!["inline".into(), "fullscreen".into()],
        max_height: MAX_HEIGHT,
        width: (width > 0).then_some(width),
        variables: vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
        tool: Some((Value::Null, json!({"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}))),
    }
}

/// Starts the View in `frame` (an iframe sandboxed with `allow-scripts`
/// only, not yet pointed anywhere).
pub fn mount(
    state: AppState,
    server: McpServer,
    tool: SavedTool,
    record_id: String,
    resource: Rc<UiResource>,
    frame: frame::Frame,
    allow: String,
    hooks: Hooks,
) -> Rc<Live> {
    let app_tools: Vec<Value> = server
        .tools
        .iter()
        .filter(|t| t.offered() && air_apps::visibility(t.visibility.as_deref()).1)
        .map(|t| json!({"name": t.name, "description": t.description, "inputSchema": t.input_schema}))
        .collect();
    let ctx = context(state, &tool, frame::width(&frame), false);
    let live = Rc::new(Live {
        state,
        server,
        tool: tool.name.clone(),
        record_id,
        frame: frame.clone(),
        resource,
        allow,
        bridge: RefCell::new(Bridge::new(ctx, env!("CARGO_PKG_VERSION"), app_tools)),
        hooks,
        listener: RefCell::new(None),
        proxy_ready: Cell::new(false),
        messages: RefCell::new(Default::default()),
        input_sent: Cell::new(false),
        end_sent: Cell::new(false),
    });
    let weak: Weak<Live> = Rc::downgrade(&live);
    *live.listener.borrow_mut() = frame::listen(&frame, move |msg| {
        if let Some(live) = weak.upgrade() {
            live.receive(msg);
        }
    });
    // Pointed at the proxy only now that its messages are heard.
    frame.set_src("sandbox.html");
    live
}

impl Live {
    fn post_all(&self, messages: Vec<Value>) {
        for m in messages {
            frame::post(&self.frame, &m);
        }
    }

    fn receive(self: &Rc<Self>, msg: Value) {
        if msg.get("method").and_then(Value::as_str) == Some("ui/notifications/sandbox-proxy-ready") {
            if !self.proxy_ready.replace(true) {
                let r = &self.resource;
                frame::post(
                    &self.frame,
                    &json!({"jsonrpc": "2.0", "method": "ui/notifications/sandbox-resource-ready", "params": {
                        "html": air_apps::with_policy(&r.html, &r.csp.policy()),
                        // What the user granted, not what the server asked.
                        "allow": self.allow,
                        // Where the View may navigate frames (its own too).
                        "frameDomains": r.csp.frame,
                        "title": self.tool,
                    }}),
                );
            }
            return;
        }
        let outs = self.bridge.borrow_mut().receive(&msg);
        for out in outs {
            match out {
                Out::Post(m) => {
                    frame::post(&self.frame, &m);
                }
                Out::Ask { id, ask } => self.ask(id, ask),
                Out::Resize { height, .. } => {
                    if let Some(h) = height {
                        self.hooks.height.set(Some(h));
                    }
                }
                Out::Log { level, text } => leptos::logging::log!("[{} app] {level}: {text}", self.server.name),
                Out::Ready => self.hooks.ready.set(true),
                Out::CloseRequested => self.close(),
                Out::Closed => self.hooks.closed.set(true),
            }
        }
    }

    fn reply(&self, id: &Value, result: Result<Value, String>) {
        let m = self.bridge.borrow().reply(id, result);
        frame::post(&self.frame, &m);
    }

    fn ask(self: &Rc<Self>, id: Value, ask: Ask) {
        let state = self.state;
        match ask {
            // The same policy as the model's calls: refused, asked, or run.
            Ask::CallTool { name, arguments } => match crate::binding::mcp::policy_of(state, &self.server, &name) {
                Policy::Deny => self.reply(&id, Err(format!("The user does not allow the tool `{name}`."))),
                Policy::Ask => self.hooks.call.set(Some((id, name, arguments))),
                Policy::Allow => self.call(id, name, arguments),
            },
            Ask::ReadResource { uri } => {
                let client = crate::binding::mcp::client_for(state, &self.server);
                let me = self.clone();
                spawn_local(async move {
                    let r = client.read_resource(&uri, &Abort::new()).await.map_err(|e| e.to_string());
                    me.reply(&id, r);
                });
            }
            // Into the composer, for the user to send (or not): a View
            // never starts a turn by itself.
            Ask::Message { text } => {
                let draft = state.chat.draft.get_untracked();
                if self.messages.borrow_mut().admit(crate::binding::env::now_ms() as u64, &draft) {
                    state.chat.draft.set(text);
                    self.reply(&id, Ok(json!({})));
                } else {
                    self.hooks.problem.set(Some(state.t().app_message_held.to_owned()));
                    self.reply(&id, Ok(json!({"isError": true})));
                }
            }
            Ask::OpenLink { url } => self.hooks.link.set(Some((id, url))),
            Ask::UpdateContext { text, structured } => {
                let label = state.t().app_context.replace("{tool}", &self.tool);
                let mut body = text;
                if let Some(s) = structured {
                    if !body.is_empty() {
                        body.push('\n');
                    }
                    body.push_str(&s.to_string());
                }
                let uri = format!("app-context:{}", self.record_id);
                let block = format!("<app-context tool=\"{}\">\n{}\n</app-context>", self.tool, body.trim_end());
                let block = (!body.trim().is_empty()).then_some(block);
                state.dispatch(air_workspace::Command::AttachContext { server: self.server.name.clone(), uri, label, block });
                self.reply(&id, Ok(json!({})));
            }
            Ask::DisplayMode { mode } => {
                let full = match mode.as_str() {
                    "fullscreen" => true,
                    "inline" => false,
                    _ => self.hooks.fullscreen.get_untracked(),
                };
                self.set_fullscreen(full);
                self.reply(&id, Ok(json!({"mode": if full { "fullscreen" } else { "inline" }})));
            }
        }
    }

    /// Full screen or inline, and the View told.
    pub fn set_fullscreen(&self, full: bool) {
        self.hooks.fullscreen.set(full);
        let tool = self.server.tools.iter().find(|t| t.name == self.tool).cloned();
        if let Some(tool) = tool {
            let ctx = context(self.state, &tool, frame::width(&self.frame), full);
            let sent = self.bridge.borrow_mut().context_changed(ctx);
            self.post_all(sent);
        }
    }

    /// The theme or language changed.
    pub fn refresh_context(&self) {
        self.set_fullscreen(self.hooks.fullscreen.get_untracked());
    }

    /// The user answered the link question.
    fn call(self: &Rc<Self>, id: Value, name: String, arguments: Value) {
        let client = crate::binding::mcp::client_for(self.state, &self.server);
        let me = self.clone();
        spawn_local(async move {
            let r = client.call_tool(&name, arguments, &Abort::new()).await.map_err(|e| e.to_string());
            me.reply(&id, r);
        });
    }

    /// The user's answer to the call the View asked for.
    pub fn answer_call(self: &Rc<Self>, allow: bool) {
        let Some((id, name, arguments)) = self.hooks.call.get_untracked() else { return };
        self.hooks.call.set(None);
        if allow {
            self.call(id, name, arguments);
        } else {
            self.reply(&id, Err(format!("The user denied this call of `{name}`.")));
        }
    }

    pub fn answer_link(&self, open: bool) {
        let Some((id, url)) = self.hooks.link.get_untracked() else { return };
        self.hooks.link.set(None);
        if open && frame::open_link(&url) {
            self.reply(&id, Ok(json!({})));
        } else {
            self.reply(&id, Ok(json!({"isError": true})));
        }
    }

    /// Gives the View the call as the card stands: its input once running,
    /// then its result or its end.
    pub fn feed(&self, run: &ToolRun) {
        if run.status == ToolStatus::AwaitingApproval {
            return;
        }
        let mut out = Vec::new();
        {
            let mut b = self.bridge.borrow_mut();
            if !self.input_sent.replace(true) {
                let args = serde_json::from_str::<Value>(&run.arguments).ok().filter(Value::is_object).unwrap_or_else(|| json!({}));
                out.extend(b.tool_input(args));
            }
            if run.status.is_final() && !self.end_sent.replace(true) {
                match run.status {
                    ToolStatus::Done | ToolStatus::Error => {
                        out.extend(b.tool_result(air_apps::call_result(&run.output, run.structured.as_ref(), run.status == ToolStatus::Error)))
                    }
                    _ => out.extend(b.tool_cancelled(&format!("{:?}", run.status))),
                }
            }
        }
        self.post_all(out);
    }

    /// Asks the View to wind down, then lets the frame go (at once if it
    /// never started, after at most a second if it does not answer).
    pub fn close(&self) {
        let ask = self.bridge.borrow_mut().teardown();
        match ask {
            Some(m) => {
                frame::post(&self.frame, &m);
                let closed = self.hooks.closed;
                env::after(TEARDOWN_MS, move || closed.set(true));
            }
            None => self.hooks.closed.set(true),
        }
    }

    /// The card goes away (another session, a reload): the View is told,
    /// with no time to answer.
    pub fn leave(&self) {
        if let Some(m) = self.bridge.borrow_mut().teardown() {
            frame::post(&self.frame, &m);
        }
        self.listener.borrow_mut().take();
    }
}
