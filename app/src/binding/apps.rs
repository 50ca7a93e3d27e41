//! MCP Apps in the page: a tool's View read from its server (once per page
//! life), framed through the sandbox proxy (`sandbox.html`), its frame the
//! port of its host (`air_servers::apps::Host`, which decides), and what
//! the host asks carried out: reads and calls on the View's server, its
//! message in the composer, its context on the next message.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use air_apps::UiResource;
use air_http::Abort;
use air_servers::apps::{Effect, Env, Host, Look, Port, Shown};
use air_store::mcp::{McpServer, SavedTool};
use air_store::records::ToolRun;
use air_store::settings::Theme;
use air_web::frame::{self, FrameListener};
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use super::env;
use super::state::AppState;

thread_local! {
    /// Views read this page's life, by server URL and resource URI.
    static VIEWS: RefCell<HashMap<(String, String), Rc<UiResource>>> = RefCell::new(HashMap::new());
}

/// The server and saved tool behind a card, when that tool has a View.
pub fn app_of(state: AppState, run: &ToolRun) -> Option<(McpServer, SavedTool)> {
    state.prefs.mcp_servers.with_untracked(|l| air_servers::apps::app_of(l, run))
}

/// Reads the View `uri` of `server` (once per page life).
pub fn load(state: AppState, server: &McpServer, uri: String, done: impl FnOnce(Result<Rc<UiResource>, String>) + 'static) {
    let key = (server.url.clone(), uri.clone());
    if let Some(hit) = VIEWS.with(|v| v.borrow().get(&key).cloned()) {
        done(Ok(hit));
        return;
    }
    let client = super::mcp::client_for(state, server);
    spawn_local(async move {
        let read = client.read_resource(&uri, &Abort::new()).await.map_err(|e| e.to_string());
        let view = read.and_then(|r| air_apps::ui_resource(&r, &uri, None).map_err(|e| e.to_string()));
        match view {
            Ok(v) => {
                let v = Rc::new(v);
                VIEWS.with(|m| m.borrow_mut().insert(key, v.clone()));
                done(Ok(v));
            }
            Err(e) => done(Err(e)),
        }
    });
}

/// What the View's card shows (the host's [`Shown`], as signals).
#[derive(Clone, Copy)]
pub struct Hooks {
    /// Its content height, as it last said.
    pub height: RwSignal<Option<f64>>,
    /// A link it wants opened, waiting for the user.
    pub link: RwSignal<Option<String>>,
    pub fullscreen: RwSignal<bool>,
    /// It said `initialized`.
    pub ready: RwSignal<bool>,
    /// Torn down: the frame may go.
    pub closed: RwSignal<bool>,
    /// A message it sent was not put in the composer.
    pub message_held: RwSignal<bool>,
    /// A call it wants made that the user must allow first (tool,
    /// arguments).
    pub call: RwSignal<Option<(String, Value)>>,
}

impl Hooks {
    pub fn new() -> Self {
        Hooks {
            height: RwSignal::new(None),
            link: RwSignal::new(None),
            fullscreen: RwSignal::new(false),
            ready: RwSignal::new(false),
            closed: RwSignal::new(false),
            message_held: RwSignal::new(false),
            call: RwSignal::new(None),
        }
    }

    /// Each signal set to what the host shows, when it differs.
    fn show(&self, shown: &Shown) {
        fn put<T: PartialEq + Clone + Send + Sync + 'static>(signal: RwSignal<T>, value: &T) {
            if signal.with_untracked(|v| v != value) {
                signal.set(value.clone());
            }
        }
        put(self.height, &shown.height);
        put(self.link, &shown.link);
        put(self.fullscreen, &shown.fullscreen);
        put(self.ready, &shown.ready);
        put(self.closed, &shown.closed);
        put(self.message_held, &shown.message_held);
        put(self.call, &shown.call);
    }
}

/// The View's frame, as its host reaches it.
struct FramePort(frame::Frame);

impl Port for FramePort {
    fn post(&mut self, message: &Value) {
        frame::post(&self.0, message);
    }
    fn width(&self) -> u32 {
        frame::width(&self.0)
    }
    fn open_link(&mut self, url: &str) -> bool {
        frame::open_link(url)
    }
}

/// One View in its frame.
pub struct Live {
    state: AppState,
    host: RefCell<Host>,
    port: RefCell<FramePort>,
    hooks: Hooks,
    listener: RefCell<Option<FrameListener>>,
}

/// The page's look, as Views are told.
fn look(state: AppState) -> Look {
    let (theme, language) = state.prefs.settings.with_untracked(|s| (s.theme, s.language.current()));
    let dark = match theme {
        Theme::Dark => true,
        Theme::Light => false,
        Theme::System => frame::prefers_dark(),
    };
    Look { dark, locale: language.tag().to_owned() }
}

/// Starts the View in `frame` (an iframe sandboxed with `allow-scripts`
/// only, not yet pointed anywhere); a card that came from a file or
/// another device (`imported`) has every call of its View asked.
#[allow(clippy::too_many_arguments, reason = "what the page made for this View (its frame, resource, policy, hooks), handed over once")]
pub fn mount(state: AppState, server: McpServer, tool: SavedTool, (record_id, imported): (String, bool), resource: Rc<UiResource>, frame: frame::Frame, allow: String, hooks: Hooks) -> Rc<Live> {
    let host = Host::new(server, tool, record_id, resource, allow, look(state), frame::width(&frame)).imported(imported);
    let live = Rc::new(Live { state, host: RefCell::new(host), port: RefCell::new(FramePort(frame.clone())), hooks, listener: RefCell::new(None) });
    let weak: Weak<Live> = Rc::downgrade(&live);
    *live.listener.borrow_mut() = frame::listen(&frame, move |msg| {
        if let Some(live) = weak.upgrade() {
            live.receive(&msg);
        }
    });
    // Pointed at the proxy only now that its messages are heard.
    frame.set_src("sandbox.html");
    live
}

impl Live {
    /// Runs `f` on the host, then [`Live::settle`]s.
    fn with(self: &Rc<Self>, f: impl FnOnce(&mut Host, &mut FramePort) -> Vec<Effect>) {
        let effects = f(&mut self.host.borrow_mut(), &mut self.port.borrow_mut());
        self.settle(effects);
    }

    /// Shows what the host shows, carries out what it asks and arms its
    /// timer.
    fn settle(self: &Rc<Self>, effects: Vec<Effect>) {
        let (shown, deadline) = {
            let host = self.host.borrow();
            (host.shown().clone(), host.poll_timeout())
        };
        self.hooks.show(&shown);
        for effect in effects {
            self.carry_out(effect);
        }
        if let Some(at) = deadline {
            let weak = Rc::downgrade(self);
            env::after(at.saturating_sub(env::now_ms() as u64), move || {
                if let Some(live) = weak.upgrade() {
                    live.host.borrow_mut().handle_timeout(env::now_ms() as u64);
                    live.settle(Vec::new());
                }
            });
        }
    }

    fn receive(self: &Rc<Self>, msg: &Value) {
        let state = self.state;
        let draft = state.chat.draft.get_untracked();
        let policies = state.prefs.settings.with_untracked(|s| s.tool_policies.clone());
        let env = Env { now_ms: env::now_ms() as u64, draft: &draft, policies: &policies };
        self.with(|host, port| host.receive(port, msg, &env));
    }

    fn reply(self: &Rc<Self>, id: &Value, result: Result<Value, String>) {
        self.with(|host, port| {
            host.reply(port, id, result);
            Vec::new()
        });
    }

    fn carry_out(self: &Rc<Self>, effect: Effect) {
        let state = self.state;
        let server = self.host.borrow().server().clone();
        match effect {
            Effect::ReadResource { id, uri } => {
                let (client, me) = (super::mcp::client_for(state, &server), self.clone());
                spawn_local(async move {
                    let r = client.read_resource(&uri, &Abort::new()).await.map_err(|e| e.to_string());
                    me.reply(&id, r);
                });
            }
            Effect::CallTool { id, name, arguments } => {
                let (client, me) = (super::mcp::client_for(state, &server), self.clone());
                spawn_local(async move {
                    let r = client.call_tool(&name, arguments, &Abort::new()).await.map_err(|e| e.to_string());
                    me.reply(&id, r);
                });
            }
            Effect::Draft(text) => state.chat.draft.set(text),
            Effect::Context { uri, block } => {
                let tool = self.host.borrow().tool().to_owned();
                let label = state.t().app_context.replace("{tool}", &tool);
                state.dispatch(air_workspace::Command::Attach(air_workspace::attach::Action::Context { server: server.name, uri, label, block }));
            }
            Effect::Log { level, text } => leptos::logging::log!("[{} app] {level}: {text}", server.name),
        }
    }

    /// Full screen or inline, and the View told.
    pub fn set_fullscreen(self: &Rc<Self>, full: bool) {
        self.with(|host, port| {
            host.set_fullscreen(port, full);
            Vec::new()
        });
    }

    /// The theme or language changed.
    pub fn refresh_context(self: &Rc<Self>) {
        let look = look(self.state);
        self.with(|host, port| {
            host.set_look(port, look);
            Vec::new()
        });
    }

    /// The user's answer to the call the View asked for.
    pub fn answer_call(self: &Rc<Self>, allow: bool) {
        self.with(|host, port| host.answer_call(port, allow).into_iter().collect());
    }

    /// The user's answer to the link the View asked to open.
    pub fn answer_link(self: &Rc<Self>, open: bool) {
        self.with(|host, port| {
            host.answer_link(port, open);
            Vec::new()
        });
    }

    /// Gives the View the call as the card stands.
    pub fn feed(self: &Rc<Self>, run: &ToolRun) {
        self.with(|host, port| {
            host.feed(port, run);
            Vec::new()
        });
    }

    /// Asks the View to wind down, then lets the frame go.
    pub fn close(self: &Rc<Self>) {
        self.with(|host, port| {
            host.close(port, env::now_ms() as u64);
            Vec::new()
        });
    }

    /// The card goes away (another session, a reload): the View is told,
    /// with no time to answer.
    pub fn leave(&self) {
        if let (Ok(mut host), Ok(mut port)) = (self.host.try_borrow_mut(), self.port.try_borrow_mut()) {
            host.leave(&mut *port);
        }
        self.listener.borrow_mut().take();
    }
}
