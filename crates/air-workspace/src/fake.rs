//! A platform in memory and a harness that drives a workspace with it:
//! tasks run until nothing more can happen, the clock moves only when the
//! test says, and every update is kept for the test to read.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use air_agent::conversation::TemplateVars;
use air_http::Abort;
use air_http::fake::ScriptedHttp;
use air_store::MemoryStore;
use futures_util::future::LocalBoxFuture;

pub use crate::fake_kv::FakeKv;
use crate::platform::Edges;
use crate::platform::Part;
use crate::{Command, Missing, Platform, Task, Update, Workspace};

/// What the fake servers offer the composer's pickers: (server, item).
#[derive(Debug, Clone, Default)]
pub struct Offered {
    pub prompts: Vec<(String, air_mcp::prompts::Prompt)>,
    pub resources: Vec<(String, air_mcp::resources::Resource)>,
}

/// The platform in memory.
#[derive(Default)]
pub struct FakePlatform {
    pub now: Cell<f64>,
    pub kv: Rc<FakeKv>,
    pub store: Rc<MemoryStore>,
    opened: Cell<bool>,
    /// Opening the store fails with this (a store in memory is used).
    pub refuse_store: RefCell<Option<String>>,
    /// The parts fetched on first use cannot be fetched.
    pub parts_missing: Cell<bool>,
    ids: Rc<Cell<u64>>,
    /// Files handed to the browser: (name, type, text).
    pub downloads: RefCell<Vec<(String, String, String)>>,
    pub refuse_downloads: Cell<bool>,
    /// The model's server, scripted.
    pub http: Rc<ScriptedHttp>,
    /// The parts that cannot be fetched (all of them: `parts_missing`).
    pub missing: RefCell<Vec<Part>>,
    /// The parts [`Platform`]'s calls asked for, in order, each with what
    /// it was for (the first word of its `Debug`: `Gate`, `AddMetrics`).
    pub asked: RefCell<Vec<(Part, String)>>,
    /// Parts whose calls wait until they are let go ([`FakePlatform::hold`]).
    pub held: Rc<RefCell<Vec<Part>>>,
    /// The MCP servers' tools, by server name: what each tool a turn wants
    /// of it is (a server not here offers nothing).
    pub mcp: RefCell<HashMap<String, McpTools>>,
    /// What running turns reported, not handled yet.
    pub inbox: Rc<RefCell<Vec<Command>>>,
    /// What running turns showed live.
    pub live: RefCell<Vec<air_agent::Event>>,
    /// MCP resources to read: (server, uri, context block).
    pub resources: RefCell<Vec<(String, String, String)>>,
    /// Resources read.
    pub reads: Cell<usize>,
    /// Subscriptions asked for and ended: (server, uri, on).
    pub subscriptions: RefCell<Vec<(String, String, bool)>>,
    /// Subscriptions are on their way until this is false again.
    pub hold_subscriptions: Rc<Cell<bool>>,
    /// What MCP servers list, by URL: their tools (as listed) and
    /// revision, or the failure.
    pub listings: RefCell<HashMap<String, Result<crate::servers::Listed, air_servers::add::Failure>>>,
    /// Servers listed, by URL.
    pub listed: RefCell<Vec<String>>,
    /// What the doctor finds; `None`: it keeps probing until aborted.
    pub finding: RefCell<Option<air_doctor::Finding>>,
    /// Probes made, by URL, and whether each was aborted.
    pub probes: RefCell<Vec<(String, Abort)>>,
    /// Servers asked to connect (their names), each time.
    pub connects: RefCell<Vec<Vec<String>>>,
    /// Sign-ins forgotten, by URL.
    pub signed_out: RefCell<Vec<String>>,
    /// Sign-ins asked for: (URL, client id, what the server said).
    pub sign_ins: RefCell<Vec<(String, Option<String>, air_servers::credentials::Asked)>>,
    /// How the next sign-ins end (`None` when none is scripted: they
    /// wait); a sign-in that takes the whole page keeps its pending state.
    pub sign_in_results: RefCell<std::collections::VecDeque<Result<(), air_servers::credentials::SignInError>>>,
    /// Whole-page sign-ins finished: (pending, callback).
    pub finished: RefCell<Vec<(String, String)>>,
    /// What the servers offer the pickers; the chats' servers each listing
    /// asked (names); listings wait while `hold_pickers` is set.
    pub offered: RefCell<Offered>,
    pub picker_asks: RefCell<Vec<Vec<String>>>,
    pub hold_pickers: Rc<Cell<bool>>,
    /// Sleeps do not end while set (else time passes at once).
    pub clock_stopped: Rc<Cell<bool>>,
    /// Previews made and not let go of yet.
    pub previews: RefCell<Vec<String>>,
    /// Previews let go of.
    pub forgotten: RefCell<Vec<String>>,
    /// Sync's jobs asked for, in order; how the next ones end (none
    /// scripted: they wait).
    pub sync_jobs: RefCell<Vec<crate::sync::Job>>,
    pub sync_outcomes: RefCell<std::collections::VecDeque<crate::sync::Outcome>>,
    /// The models stored in the browser, and the site's own list.
    pub browser_stored: Rc<RefCell<Vec<crate::browser_models::Stored>>>,
    pub browser_site: RefCell<Vec<crate::browser_models::Offer>>,
    /// How a download ends once set (`None`: it runs until stopped).
    pub browser_download: Rc<RefCell<Option<Result<(), String>>>>,
    /// Code runs started (their start messages, and the stored files
    /// posted beside each), what the sandbox says to each next one (its
    /// messages, `run` filled in, the texts of a `"texts"` list as the
    /// bytes beside it; none scripted: it says nothing), and the runs
    /// whose worker was ended.
    pub code_starts: RefCell<Vec<serde_json::Value>>,
    pub code_files: RefCell<Vec<Vec<String>>>,
    pub code_says: RefCell<std::collections::VecDeque<Vec<serde_json::Value>>>,
    pub code_stops: RefCell<Vec<u64>>,
    /// What the core told the runner's frame: each message, with the sizes of the bytes beside it.
    pub code_told: RefCell<Vec<(serde_json::Value, Vec<usize>)>>,
    /// The site's files (`site_file`), by path; the rest are not found.
    pub site_files: RefCell<HashMap<String, Vec<u8>>>,
}

impl FakePlatform {
    /// A platform over `kv` (what a page that reloads finds).
    pub fn with_kv(kv: Rc<FakeKv>) -> Self {
        Self { kv, ..Self::default() }
    }

    /// A platform over the storage of `other`, at its time (what a page
    /// that reloads finds).
    pub fn reloaded(other: &Self) -> Self {
        let p = Self { kv: other.kv.clone(), store: other.store.clone(), ..Self::default() };
        p.now.set(other.now.get());
        p
    }

    /// The calls that ask for `part` wait until [`FakePlatform::release`].
    pub fn hold(&self, part: Part) {
        self.held.borrow_mut().push(part);
    }
    pub fn release(&self, part: Part) {
        self.held.borrow_mut().retain(|p| *p != part);
    }
    /// How many calls asked for `part` (for a job whose `Debug` starts
    /// with `kind`, if given).
    pub fn asked(&self, part: Part, kind: Option<&str>) -> usize {
        self.asked.borrow().iter().filter(|(p, k)| *p == part && kind.is_none_or(|kind| k == kind)).count()
    }
}

impl Platform for FakePlatform {
    /// Refused when missing (`parts_missing`: all but `later`'s router),
    /// waits while held.
    fn part(&self, part: Part, job: &dyn std::fmt::Debug) -> LocalBoxFuture<'static, Result<(), Missing>> {
        let kind = format!("{job:?}").split([' ', '(', '{']).next().unwrap_or_default().to_owned();
        self.asked.borrow_mut().push((part, kind));
        let missing = (self.parts_missing.get() && part != Part::Later) || self.missing.borrow().contains(&part);
        let held = self.held.clone();
        Box::pin(futures_util::future::poll_fn(move |_| match (missing, held.borrow().contains(&part)) {
            (true, _) => Poll::Ready(Err(Missing)),
            (false, true) => Poll::Pending,
            (false, false) => Poll::Ready(Ok(())),
        }))
    }
}

impl Edges for FakePlatform {
    type Store = MemoryStore;
    type Kv = FakeKv;
    type Http = ScriptedHttp;

    fn now_ms(&self) -> f64 {
        self.now.get()
    }
    fn new_id(&self) -> String {
        self.ids.set(self.ids.get() + 1);
        format!("id-{}", self.ids.get())
    }
    fn local_date(&self) -> String {
        "2026-11-25".into()
    }
    fn preview(&self, bytes: &[u8], mime: &str) -> Option<String> {
        let url = format!("blob:{mime}:{}:{}", bytes.len(), self.new_id());
        self.previews.borrow_mut().push(url.clone());
        Some(url)
    }
    fn forget_preview(&self, url: &str) {
        self.previews.borrow_mut().retain(|u| u != url);
        self.forgotten.borrow_mut().push(url.to_owned());
    }
    fn page_origin(&self) -> Option<String> {
        Some("https://air.test".into())
    }
    fn list_tools(&self, server: air_store::mcp::McpServer) -> LocalBoxFuture<'static, Result<Result<crate::servers::Listed, air_servers::add::Failure>, Missing>> {
        self.listed.borrow_mut().push(server.url.clone());
        let found = self.listings.borrow().get(&server.url).cloned();
        let result = found.unwrap_or_else(|| Err(air_servers::add::Failure { text: "network error: connection refused".into(), worth_diagnosing: true }));
        Box::pin(async move { Ok(result) })
    }
    fn diagnose(&self, target: air_doctor::Target, abort: Abort) -> LocalBoxFuture<'static, Result<air_doctor::Finding, Missing>> {
        self.probes.borrow_mut().push((target.url, abort.clone()));
        let finding = self.finding.borrow().clone();
        Box::pin(futures_util::future::poll_fn(move |_| match (&finding, abort.is_aborted()) {
            (_, true) => Poll::Ready(Ok(air_doctor::Finding::Unreachable { detail: "aborted".into() })),
            (Some(f), false) => Poll::Ready(Ok(f.clone())),
            (None, false) => Poll::Pending,
        }))
    }
    fn connect_servers(&self, servers: Vec<air_store::mcp::McpServer>) {
        self.connects.borrow_mut().push(servers.into_iter().map(|s| s.name).collect());
    }
    fn forget_sign_in(&self, url: &str) -> LocalBoxFuture<'static, Result<(), Missing>> {
        self.signed_out.borrow_mut().push(url.to_owned());
        Box::pin(async { Ok(()) })
    }
    fn sign_in(&self, url: String, client_id: Option<String>, asked: air_servers::credentials::Asked) -> LocalBoxFuture<'static, Result<Result<(), air_servers::credentials::SignInError>, Missing>> {
        self.sign_ins.borrow_mut().push((url.clone(), client_id, asked));
        if self.parts_missing.get() {
            return Box::pin(async { Err(Missing) });
        }
        let result = self.sign_in_results.borrow_mut().pop_front();
        if result == Some(Err(air_servers::credentials::SignInError::Redirected)) {
            let _ = air_store::keys::OAUTH_PENDING.set(&*self.kv, &url);
        }
        Box::pin(futures_util::future::poll_fn(move |_| match &result {
            Some(r) => Poll::Ready(Ok(r.clone())),
            None => Poll::Pending,
        }))
    }
    fn finish_sign_in(&self, pending: String, callback: String) -> LocalBoxFuture<'static, Result<Option<(String, Result<(), air_servers::credentials::SignInError>)>, Missing>> {
        self.finished.borrow_mut().push((pending.clone(), callback.clone()));
        let result = self.sign_in_results.borrow_mut().pop_front().unwrap_or(Ok(()));
        // The fake keeps the server's URL as what is pending.
        Box::pin(async move { Ok((!pending.is_empty()).then_some((pending, result))) })
    }
    fn browser_models(&self, job: crate::browser_models::Job) -> LocalBoxFuture<'static, Result<crate::browser_models::Reply, Missing>> {
        use crate::browser_models::{Job, Reply, Stored};
        if self.parts_missing.get() {
            return Box::pin(async { Err(Missing) });
        }
        let stored = self.browser_stored.clone();
        match job {
            Job::List => {
                let offered = crate::browser_models::offered(self.browser_site.borrow().clone());
                let done = Reply::Listed { stored: Ok(stored.borrow().clone()), offered, usage: Some((1024.0, 1_048_576.0)) };
                Box::pin(async move { Ok(done) })
            }
            Job::Download(offer, abort) => {
                let end = self.browser_download.clone();
                Box::pin(futures_util::future::poll_fn(move |_| {
                    if abort.is_aborted() {
                        return Poll::Ready(Ok(Reply::Downloaded { name: offer.name.clone(), result: Err("stopped".into()) }));
                    }
                    let Some(result) = end.borrow_mut().take() else { return Poll::Pending };
                    if result.is_ok() {
                        let size = offer.size.unwrap_or(1);
                        stored.borrow_mut().push(Stored { name: offer.name.clone(), url: offer.url.clone(), size, stored: size, complete: true });
                    }
                    Poll::Ready(Ok(Reply::Downloaded { name: offer.name.clone(), result }))
                }))
            }
            Job::StoreFile => {
                stored.borrow_mut().push(Stored { name: "picked.gguf".into(), url: String::new(), size: 10, stored: 10, complete: true });
                Box::pin(async { Ok(Reply::FileStored(Ok("picked.gguf".into()))) })
            }
            Job::Delete(name) => {
                stored.borrow_mut().retain(|m| m.name != name);
                Box::pin(async { Ok(Reply::Deleted(Ok(()))) })
            }
        }
    }
    fn run_picker(&self, job: crate::pickers::Job) -> LocalBoxFuture<'static, Result<crate::pickers::Found, Missing>> {
        use crate::pickers::{Found, Job};
        let offered = self.offered.borrow().clone();
        let found = match job {
            Job::ListPrompts(servers) => {
                self.picker_asks.borrow_mut().push(servers.iter().map(|s| s.name.clone()).collect());
                let list = servers.iter().flat_map(|s| offered.prompts.iter().filter(|(n, _)| *n == s.name).cloned()).collect();
                Found::Prompts(crate::pickers::Prompts { list, errors: Vec::new() })
            }
            Job::ListResources(servers) => {
                self.picker_asks.borrow_mut().push(servers.iter().map(|s| s.name.clone()).collect());
                let resources = servers.iter().flat_map(|s| offered.resources.iter().filter(|(n, _)| *n == s.name).cloned()).collect();
                Found::Resources(crate::pickers::Resources { resources, ..Default::default() })
            }
            Job::GetPrompt { server, name, .. } => Found::PromptText(Ok(format!("{} says {name}", server.name))),
            Job::Complete { argument, value, .. } => Found::Suggestions { argument, values: vec![format!("{value}1"), format!("{value}2")] },
        };
        let held = self.hold_pickers.clone();
        Box::pin(futures_util::future::poll_fn(move |_| if held.get() { Poll::Pending } else { Poll::Ready(Ok(found.clone())) }))
    }
    fn run_sync(&self, job: crate::sync::Job) -> LocalBoxFuture<'static, Result<crate::sync::Outcome, Missing>> {
        self.sync_jobs.borrow_mut().push(job);
        if self.parts_missing.get() {
            return Box::pin(async { Err(Missing) });
        }
        match self.sync_outcomes.borrow_mut().pop_front() {
            Some(o) => Box::pin(async move { Ok(o) }),
            None => Box::pin(futures_util::future::pending()),
        }
    }
    fn download(&self, name: &str, mime: &str, text: &str) -> Result<(), String> {
        if self.refuse_downloads.get() {
            return Err("downloads are blocked".into());
        }
        self.downloads.borrow_mut().push((name.to_owned(), mime.to_owned(), text.to_owned()));
        Ok(())
    }
    fn storage_info(&self) -> LocalBoxFuture<'static, crate::data::StorageInfo> {
        Box::pin(async { crate::data::StorageInfo { usage: Some((1024.0, 1_048_576.0)), persistent: true } })
    }
    fn kv(&self) -> &FakeKv {
        &self.kv
    }
    fn open_store(&self) -> LocalBoxFuture<'static, Option<String>> {
        self.opened.set(true);
        let refused = self.refuse_store.borrow().clone();
        Box::pin(async move { refused })
    }
    fn store(&self) -> Option<Rc<MemoryStore>> {
        self.opened.get().then(|| self.store.clone())
    }
    fn read_resource(&self, server: String, uri: String) -> LocalBoxFuture<'static, Result<Result<String, String>, Missing>> {
        let answer = self.resources.borrow().iter().find(|(s, u, _)| *s == server && *u == uri).map(|(_, _, b)| b.clone());
        self.reads.set(self.reads.get() + 1);
        Box::pin(async move { Ok(answer.ok_or_else(|| format!("{uri}: not found"))) })
    }
    fn subscribe_resource(&self, server: String, uri: String, on: bool) -> LocalBoxFuture<'static, Result<bool, Missing>> {
        self.subscriptions.borrow_mut().push((server, uri, on));
        let held = self.hold_subscriptions.clone();
        Box::pin(futures_util::future::poll_fn(move |_| if held.get() { Poll::Pending } else { Poll::Ready(Ok(on)) }))
    }
    fn http(&self) -> &ScriptedHttp {
        &self.http
    }
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        // Time passes at once, unless the clock is stopped.
        if !self.clock_stopped.get() {
            self.now.set(self.now.get() + ms as f64);
        }
        let stopped = self.clock_stopped.clone();
        Box::pin(futures_util::future::poll_fn(move |_| if stopped.get() { Poll::Pending } else { Poll::Ready(()) }))
    }
    fn template_vars(&self) -> TemplateVars {
        TemplateVars { date: "2026-11-25".into(), time: "12:00".into(), locale: "en".into() }
    }
    fn show_live(&self, event: air_agent::Event) {
        self.live.borrow_mut().push(event);
    }
    fn feed(&self, cmd: Command) {
        self.inbox.borrow_mut().push(cmd);
    }
    fn clock(&self) -> Rc<dyn air_tools::builtin::Clock> {
        Rc::new(FakeClock(self.now.get()))
    }
    fn run_code(&self, start: serde_json::Value, files: Vec<String>, inbox: crate::turn_env::inbox::Inbox) {
        let run = start["run"].clone();
        self.code_starts.borrow_mut().push(start);
        self.code_files.borrow_mut().push(files);
        for mut said in self.code_says.borrow_mut().pop_front().unwrap_or_default() {
            said["run"] = run.clone();
            let texts = said.as_object_mut().and_then(|o| o.remove("texts"));
            let bytes = texts.as_ref().and_then(|t| t.as_array()).into_iter().flatten().map(|t| t.as_str().unwrap_or_default().as_bytes().to_vec()).collect();
            inbox.push((said, bytes));
        }
    }
    fn stop_code(&self, run: u64) {
        self.code_stops.borrow_mut().push(run);
    }
    fn tell_code(&self, msg: serde_json::Value, bytes: Vec<Vec<u8>>) {
        self.code_told.borrow_mut().push((msg, bytes.iter().map(Vec::len).collect()));
    }
    fn site_file(&self, path: &str) -> LocalBoxFuture<'static, Result<Vec<u8>, String>> {
        let found = self.site_files.borrow().get(path).cloned().ok_or_else(|| format!("{path}: 404 Not Found"));
        Box::pin(std::future::ready(found))
    }
    fn mcp_tools(&self, wanted: Vec<crate::toolbox::mcp::Wanted>) -> LocalBoxFuture<'static, Result<Vec<Rc<dyn air_tools::Tool>>, Missing>> {
        let ready = Platform::part(self, Part::Mcp, &wanted.len());
        let servers = self.mcp.borrow();
        let tools = wanted.into_iter().filter_map(|w| servers.get(&w.server.name).map(|make| make(w.def))).collect();
        Box::pin(async move { ready.await.map(|()| tools) })
    }
}

/// What a fake MCP server's tool is, made from its definition.
pub type McpTools = Rc<dyn Fn(air_tools::ToolDef) -> Rc<dyn air_tools::Tool>>;

/// The time the fake platform was at; it knows no zone.
struct FakeClock(f64);

impl air_tools::builtin::Clock for FakeClock {
    fn now_ms(&self) -> f64 {
        self.0
    }
    fn zoned(&self, _at_ms: f64, zone: Option<&str>) -> Result<air_tools::builtin::ZonedTime, String> {
        Err(format!("the fake platform knows no time zone ({})", zone.unwrap_or("the user's")))
    }
}

/// The answer of a future that is ready at once (the memory store's).
pub fn now<T>(f: impl std::future::Future<Output = T>) -> T {
    let mut f = std::pin::pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("the memory store answers at once"),
    }
}

/// A workspace over a [`FakePlatform`], and what it said.
pub struct Harness {
    pub ws: Workspace<FakePlatform>,
    pub p: Rc<FakePlatform>,
    /// Every update so far, in order.
    pub updates: Vec<Update>,
    /// Tasks that wait for something (a turn waiting for an answer).
    waiting: Vec<Task>,
}

impl Harness {
    pub fn new(p: FakePlatform) -> Self {
        let p = Rc::new(p);
        Self { ws: Workspace::new(p.clone()), p, updates: Vec::new(), waiting: Vec::new() }
    }

    /// Handles `cmd`, then runs every task until nothing more happens.
    pub fn send(&mut self, cmd: Command) {
        self.ws.handle(cmd);
        self.run();
    }

    /// Runs the tasks (and those their answers start) until all wait.
    pub fn run(&mut self) {
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            while let Some(u) = self.ws.poll_update() {
                self.updates.push(u);
            }
            let mut progressed = false;
            let mut tasks: Vec<Task> = std::mem::take(&mut self.waiting);
            while let Some(t) = self.ws.poll_task() {
                tasks.push(t);
            }
            for mut t in tasks {
                let done = t.0.as_mut().poll(&mut cx);
                // What a running turn reported while it ran, in order, before its end.
                let fed = std::mem::take(&mut *self.p.inbox.borrow_mut());
                progressed |= !fed.is_empty();
                for cmd in fed {
                    self.ws.handle(cmd);
                }
                match done {
                    Poll::Ready(cmd) => {
                        progressed = true;
                        if let Some(cmd) = cmd {
                            self.ws.handle(cmd);
                        }
                    }
                    Poll::Pending => self.waiting.push(t),
                }
            }
            if !progressed {
                while let Some(u) = self.ws.poll_update() {
                    self.updates.push(u);
                }
                return;
            }
        }
    }

    /// Moves the clock on by `ms`, fires what is due, and runs.
    pub fn advance(&mut self, ms: u64) {
        self.p.now.set(self.p.now.get() + ms as f64);
        self.ws.handle_timeout(self.p.now.get());
        self.run();
    }

    /// The updates since the last call.
    pub fn take(&mut self) -> Vec<Update> {
        std::mem::take(&mut self.updates)
    }

    /// Takes the updates; the record of the call the newest approval list waits on.
    pub fn awaiting(&mut self) -> Option<String> {
        self.take().iter().rev().find_map(|u| match u {
            Update::Approvals { awaiting, .. } => awaiting.first().cloned(),
            _ => None,
        })
    }
}
