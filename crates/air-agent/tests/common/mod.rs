//! What the turn tests share: the fake world (in `world`), scripted model
//! replies, test tools, and the setup every turn starts from.
#![allow(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]
// Shared by several test binaries; each uses only some of these helpers.
#![allow(dead_code)]

mod world;

use std::cell::Cell;
use std::fmt::Write as _;
use std::rc::Rc;

use air_agent::Turn;
use air_chat::Lang;
use air_http::Abort;
use air_http::fake::Script;
use air_store::{MessageRecord, Settings, Store};
use air_tools::{Annotations, CallContext, Elicitation, Progress, Registry, Tool, ToolDef, ToolOutput, ToolSource};
use expect_test::ExpectFile;
use futures_util::future::LocalBoxFuture;
use serde_json::{Value, json};

use world::World;

// ---- scripted model replies ----------------------------------------------------

pub(crate) fn chunk(delta: Value, finish: Option<&str>) -> String {
    json!({"id": "c", "object": "chat.completion.chunk", "model": "scripted", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}).to_string()
}

fn usage() -> String {
    json!({"id": "c", "object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}).to_string()
}

/// `text` in two pieces, then stop, usage and `[DONE]`.
pub(crate) fn text_reply(text: &str) -> Script {
    let mid = text.char_indices().nth(text.chars().count() / 2).map_or(text.len(), |(i, _)| i);
    Script::sse([
        chunk(json!({"role": "assistant", "content": ""}), None),
        chunk(json!({"content": &text[..mid]}), None),
        chunk(json!({"content": &text[mid..]}), None),
        chunk(json!({}), Some("stop")),
        usage(),
        "[DONE]".to_owned(),
    ])
}

/// Tool calls `(id, name, arguments)`, streamed OpenAI-style (arguments in
/// two fragments), then `tool_calls`.
pub(crate) fn calls_reply(calls: &[(&str, &str, &str)]) -> Script {
    let mut events = vec![chunk(json!({"role": "assistant", "content": null}), None)];
    for (i, (id, name, args)) in calls.iter().enumerate() {
        let mid = args.len() / 2;
        events.push(chunk(json!({"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": &args[..mid]}}]}), None));
        events.push(chunk(json!({"tool_calls": [{"index": i, "function": {"arguments": &args[mid..]}}]}), None));
    }
    events.push(chunk(json!({}), Some("tool_calls")));
    events.push("[DONE]".to_owned());
    Script::sse(events)
}

// ---- test tools ----------------------------------------------------------------

pub(crate) fn def(name: &str, schema: Value, annotations: Annotations) -> ToolDef {
    ToolDef { name: name.into(), description: format!("The {name} tool."), input_schema: schema, annotations, source: ToolSource::BuiltIn, mcp: None }
}

/// Returns what it was given; counts how many runs overlap.
pub(crate) struct Echo {
    pub(crate) def: ToolDef,
    pub(crate) running: Rc<Cell<u32>>,
    pub(crate) most: Rc<Cell<u32>>,
}

impl Tool for Echo {
    fn def(&self) -> &ToolDef {
        &self.def
    }
    fn call<'a>(&'a self, args: Value, _ctx: CallContext<'a>) -> LocalBoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            self.running.set(self.running.get() + 1);
            self.most.set(self.most.get().max(self.running.get()));
            YieldOnce(false).await;
            self.running.set(self.running.get() - 1);
            ToolOutput::text(format!("echo {args}"))
        })
    }
}

/// Pending once, then ready: lets other futures of a `join_all` start.
struct YieldOnce(bool);

impl std::future::Future for YieldOnce {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

/// Presses Stop while it runs, and never finishes by itself.
struct Hang {
    def: ToolDef,
    abort: Abort,
}

impl Tool for Hang {
    fn def(&self) -> &ToolDef {
        &self.def
    }
    fn call<'a>(&'a self, _args: Value, _ctx: CallContext<'a>) -> LocalBoxFuture<'a, ToolOutput> {
        self.abort.abort();
        Box::pin(std::future::pending())
    }
}

/// Reports progress, asks the user a question, and returns the answer.
struct Survey {
    def: ToolDef,
}

impl Tool for Survey {
    fn def(&self) -> &ToolDef {
        &self.def
    }
    fn call<'a>(&'a self, _args: Value, ctx: CallContext<'a>) -> LocalBoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            ctx.host.progress(Progress { progress: 1.0, total: Some(2.0), message: Some("halfway".into()) });
            let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
            let answer = ctx.host.elicit(Elicitation::Form { message: "Your name?".into(), schema }).await;
            ctx.host.progress(Progress { progress: 2.0, total: Some(2.0), message: None });
            ToolOutput::text(format!("{answer:?}"))
        })
    }
}

/// Presses Stop while it runs, then, told by the same Stop, cancels its
/// work "on the server" and returns.
struct Cancellable {
    def: ToolDef,
    abort: Abort,
    cancelled: Rc<Cell<bool>>,
}

impl Tool for Cancellable {
    fn def(&self) -> &ToolDef {
        &self.def
    }
    fn call<'a>(&'a self, _args: Value, ctx: CallContext<'a>) -> LocalBoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            self.abort.abort();
            YieldOnce(false).await;
            ctx.abort.aborted().await;
            self.cancelled.set(true);
            ToolOutput::error("cancelled on the server")
        })
    }
}

pub(crate) struct Setup {
    pub(crate) world: World,
    pub(crate) tools: Registry,
    pub(crate) settings: Settings,
    pub(crate) abort: Abort,
    pub(crate) most_parallel: Rc<Cell<u32>>,
    /// The `remote` tool cancelled its work after Stop.
    pub(crate) cancelled: Rc<Cell<bool>>,
}

pub(crate) fn setup() -> Setup {
    let abort = Abort::new();
    let mut tools = Registry::new();
    let most = Rc::new(Cell::new(0));
    let running = Rc::new(Cell::new(0));
    let echo_schema = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
    let read_only = Annotations { read_only_hint: Some(true), ..Default::default() };
    tools.register(Rc::new(Echo { def: def("echo", echo_schema.clone(), Annotations { read_only_hint: Some(true), ..Default::default() }), running: running.clone(), most: most.clone() }));
    tools.register(Rc::new(Echo {
        def: ToolDef { source: ToolSource::Mcp { server: "files".into() }, ..def("delete_file", echo_schema, Annotations { destructive_hint: Some(true), ..Default::default() }) },
        running,
        most: most.clone(),
    }));
    tools.register(Rc::new(Hang { def: def("slow", json!({"type": "object"}), Annotations::default()), abort: abort.clone() }));
    tools.register(Rc::new(Survey { def: def("survey", json!({"type": "object"}), read_only.clone()) }));
    let cancelled = Rc::new(Cell::new(false));
    tools.register(Rc::new(Cancellable { def: def("remote", json!({"type": "object"}), read_only), abort: abort.clone(), cancelled: cancelled.clone() }));
    let settings = Settings {
        // A provider of the user's own (the local preset adds its limits).
        provider: "custom".into(),
        base_url: "http://model.test/v1".into(),
        model: "scripted".into(),
        api_key: "sk-test".into(),
        ..Settings::default()
    };
    Setup { world: World::new(), tools, settings, abort, most_parallel: most, cancelled }
}

impl Setup {
    pub(crate) fn turn(&self) -> Turn<'_, World> {
        Turn::new(&self.world, self.settings.clone(), &self.tools, self.abort.clone(), Lang::En)
    }

    /// The transcript with every request appended, as sent; and the
    /// parent links the turns wrote agree with their branches.
    pub(crate) fn check(&self, expect: ExpectFile) {
        run(self.links_agree());
        let mut out = self.world.transcript();
        for (i, r) in self.world.http.requests().iter().enumerate() {
            let body: Value = serde_json::from_str(r.body.as_deref().unwrap_or("null")).unwrap_or(Value::Null);
            let _ = writeln!(out, "\n==== request {} {} {}", i + 1, r.method, r.url);
            for (k, v) in &r.headers {
                let _ = writeln!(out, "{k}: {v}");
            }
            let _ = writeln!(out, "{}", serde_json::to_string_pretty(&body).unwrap_or_default());
        }
        expect.assert_eq(&out);
    }

    /// For every stored session: the paths and forks made again from the
    /// parent links alone are the ones stored (paths as sets: their order
    /// is only the order steps were added in), and with the links removed,
    /// the migration finds them again.
    pub(crate) async fn links_agree(&self) {
        let steps = |l: &[MessageRecord]| l.iter().map(|m| (m.id.clone(), m.branch.iter().map(|s| (s.fork.clone(), s.alt)).collect::<std::collections::BTreeSet<_>>())).collect::<Vec<_>>();
        let parents = |l: &[MessageRecord]| l.iter().map(|m| (m.id.clone(), m.parent.clone())).collect::<Vec<_>>();
        for session in self.world.store.inner.list_sessions().await.unwrap() {
            let all = self.stored(&session.id).await;
            let mut bare = all.clone();
            bare.iter_mut().for_each(|m| m.branch.clear());
            let mut forks = session.forks.clone();
            air_store::branches::derive(&mut bare, &mut forks);
            assert_eq!((steps(&bare), &forks), (steps(&all), &session.forks), "derived from the links of {}", session.id);
            let mut unlinked = all.clone();
            unlinked.iter_mut().for_each(|m| m.parent = None);
            air_store::branches::link(&mut unlinked);
            assert_eq!(parents(&unlinked), parents(&all), "links of {} found again from the paths", session.id);
        }
    }

    pub(crate) async fn stored(&self, session: &str) -> Vec<MessageRecord> {
        self.world.store.inner.messages(session).await.unwrap()
    }

    /// The messages of the branch shown.
    pub(crate) async fn shown(&self, session: &str) -> Vec<MessageRecord> {
        let forks = self.world.store.inner.get_session(session).await.unwrap().map(|s| s.forks).unwrap_or_default();
        air_store::branches::shown(self.stored(session).await, &forks)
    }
}

pub(crate) fn run<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

pub(crate) fn bodies(s: &Setup) -> Vec<String> {
    s.world.http.requests().iter().map(|r| r.body.clone().unwrap_or_default()).collect()
}
