//! The MCP servers: adding one (connect, list, pick, save; the doctor
//! when a failure needs explaining), switching, trusting, removing,
//! listing again (asked, or because the server said its tools changed),
//! where each server's session stands, and the user's yes to a tool
//! (always allow; accept it as it is now). The preferences' changes that
//! are not the settings' (which servers and assistant a chat uses, the
//! assistants) are decided here too.
//!
//! The decisions are the engine's ([`decide`]): a plain function over the
//! servers' state and the preferences that gives [`Out`]s. The platform
//! runs it in a part the page fetches with the first server action
//! (`Platform::decide_servers`), so the first screen does not carry it;
//! the core hands it one [`Job`] at a time, in order, and takes back what
//! it touched. The core does what the engine asks: it lists tools and
//! probes through the platform, arms the doctor's timer, writes the
//! preferences and says what changed.

use air_doctor::Finding;
use air_http::Abort;
use air_mcp::Connection;
use air_servers::add::{AddFlow, Draft, Failure, Preview};
use air_servers::list;
use air_store::mcp::{McpServer, SavedTool};
use air_tools::ToolDef;
use air_tools::policy::Policy;

use crate::prefs::{Prefs, Touched};
use crate::{Command, Missing, Notice, Platform, Timer, Update, Workspace};

/// How long the doctor's probes may take in all.
pub const DOCTOR_TIMEOUT_MS: u64 = 20_000;

/// What the user (or a server's session) does.
#[derive(Debug)]
pub enum Action {
    /// Connect the enabled servers that are not (at start, after a sign-in).
    Connect,
    /// The add form: connect to what it describes and list its tools.
    Add(Draft),
    /// Keep a listed tool, or not.
    Pick {
        tool: String,
        on: bool,
    },
    /// Let the new server's read-only hints decide, or not.
    TrustNew(bool),
    /// Save the server with the tools picked.
    Save,
    Cancel,
    SetEnabled {
        name: String,
        on: bool,
    },
    SetTrustHints {
        name: String,
        on: bool,
    },
    /// Tool `tool` of server `server` switched on or off (kept, with its
    /// policy, but never offered while off).
    SetToolEnabled {
        server: String,
        tool: String,
        on: bool,
    },
    Remove(String),
    /// List a saved server's tools again, at `url` (which may have changed),
    /// with `headers` in place of the saved ones if the user edited them;
    /// they are saved once the listing worked.
    Resync {
        name: String,
        url: String,
        headers: Option<Vec<(String, String)>>,
    },
    /// The user accepts `tool` of `server` as it is now.
    Accept {
        server: String,
        tool: String,
    },
    /// The user allows `tool` always: its policy is saved, and an MCP tool
    /// the user accepted before is accepted as it is now.
    AllowAlways(Box<ToolDef>),
    /// Why can the page not use the model provider at `base_url`?
    DiagnoseProvider {
        base_url: String,
        model: String,
        has_key: bool,
    },
    /// A server's session changed state.
    Status {
        name: String,
        status: Connection,
    },
    /// A server says its tools changed.
    ToolsChanged(String),
    /// What a listing found (or why it failed).
    Listed {
        why: Listing,
        result: Result<Result<Listed, Failure>, Missing>,
    },
    /// What the doctor found.
    Diagnosed {
        who: Patient,
        finding: Finding,
    },
    /// A change of the preferences that is not the settings'.
    Prefs(crate::prefs::Change),
    /// A turn created session `id` out of the new chat.
    SessionBegan(String),
    /// Session `id` was deleted for good.
    SessionGone(String),
    /// The engine decided (or its part could not be fetched): the answer
    /// of a decision, never handed to the engine itself.
    Decided(Box<Result<Job, (State, Missing)>>),
}

/// Tools a server listed (as saved), and the protocol revision it speaks.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub tools: Vec<SavedTool>,
    pub protocol: Option<String>,
}

/// Why tools were listed.
#[derive(Debug, Clone, PartialEq)]
pub enum Listing {
    /// To offer them in the add form (attempt `attempt`).
    Preview { attempt: u64, server: McpServer },
    /// To merge them into saved server `name` (found at `target` now).
    Resync { name: String, target: McpServer, moved_from: Option<String> },
}

/// Whom the doctor examines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Patient {
    /// The server of the add form's attempt.
    Adding(u64),
    /// The model provider (the settings' check, ticket `n`).
    Provider(u64),
}

/// Why a listing again did not go through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyncFailure {
    /// The URL is not http(s).
    NotHttp,
    Failed(String),
}

/// What the engine asks of the core.
#[derive(Debug)]
pub enum Out {
    Update(Update),
    /// The preferences changed: shown and written.
    Prefs(Touched),
    /// List a server's tools.
    List {
        server: McpServer,
        why: Listing,
    },
    /// Probe, giving up after [`DOCTOR_TIMEOUT_MS`].
    Diagnose {
        who: Patient,
        target: air_doctor::Target,
    },
    /// Connect the enabled servers that are not (the list changed).
    Connect,
    /// Forget the sign-in kept for this URL.
    ForgetSignIn(String),
}

/// The servers' state besides the preferences.
#[derive(Debug, Default)]
pub struct State {
    pub flow: AddFlow,
    /// The settings' doctor runs (its ticket).
    provider_ticket: u64,
}

/// What the engine needs of where it runs.
#[derive(Debug, Clone, Default)]
pub struct Ctx {
    /// An id for a server being added.
    pub new_id: String,
    pub page_origin: Option<String>,
}

/// One decision of the engine: what it decides with (the servers' state,
/// the preferences, the context), the action, and what it asks (`outs`).
/// It goes to the platform and comes back decided ([`decide`]).
#[derive(Debug)]
pub struct Job {
    pub state: State,
    pub prefs: Prefs,
    pub ctx: Ctx,
    pub action: Action,
    pub outs: Vec<Out>,
}

/// Decides `job` (the platform runs it where the engine is: a part the
/// page fetches with the first server action).
pub fn decide(mut job: Job) -> Job {
    let action = std::mem::replace(&mut job.action, Action::Connect);
    job.outs = engine(&mut job.state, &mut job.prefs, &job.ctx, action);
    job
}

/// The core's part: one decision at a time, in order.
#[derive(Debug)]
pub(crate) struct Servers {
    /// `None` while a decision is under way.
    state: Option<State>,
    waiting: std::collections::VecDeque<Action>,
    /// Probes under way.
    probes: Vec<(Patient, Abort)>,
}

impl Default for Servers {
    fn default() -> Self {
        Self { state: Some(State::default()), waiting: Default::default(), probes: Vec::new() }
    }
}

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) {
    match &action {
        Action::Connect => return run(w, Out::Connect),
        Action::Decided(_) => {
            let Action::Decided(job) = action else { return };
            return decided(w, *job);
        }
        // After the timeout it was said that nothing came: a late answer is dropped.
        Action::Diagnosed { who, .. } if !probe_done(w, who) => return,
        _ => {}
    }
    w.servers.waiting.push_back(action);
    next(w);
}

/// Hands the next action to the engine, unless a decision is under way.
fn next<P: Platform>(w: &mut Workspace<P>) {
    if w.servers.waiting.is_empty() {
        return;
    }
    let Some(state) = w.servers.state.take() else { return };
    let Some(action) = w.servers.waiting.pop_front() else {
        w.servers.state = Some(state);
        return;
    };
    let ctx = Ctx { new_id: w.p.new_id(), page_origin: w.p.page_origin() };
    let deciding = w.p.decide_servers(Job { state, prefs: w.prefs.clone(), ctx, action, outs: Vec::new() });
    w.spawn(async move { Some(Command::Servers(Action::Decided(Box::new(deciding.await)))) });
}

/// A decision came back: what the engine changed is taken (only what it
/// touched: the settings meanwhile stay), what it asks is done, and the
/// next action goes. Its part could not be fetched: the action is
/// dropped, and said.
fn decided<P: Platform>(w: &mut Workspace<P>, job: Result<Job, (State, Missing)>) {
    let job = match job {
        Ok(job) => job,
        Err((state, Missing)) => {
            w.servers.state = Some(state);
            w.emit(Update::Notice(Notice::PartMissing));
            return next(w);
        }
    };
    let Job { state, prefs, outs, .. } = job;
    w.servers.state = Some(state);
    let touched = outs.iter().fold(Touched::default(), |t, o| match o {
        Out::Prefs(more) => t.and(*more),
        _ => t,
    });
    if touched.servers {
        w.prefs.servers = prefs.servers;
    }
    // Of the settings, the engine changes the tool policies and what was
    // learnt of models; what the drawer saved meanwhile stays.
    if touched.settings {
        let s = prefs.settings;
        (w.prefs.settings.tool_policies, w.prefs.settings.probed_tool_calling, w.prefs.settings.vision) = (s.tool_policies, s.probed_tool_calling, s.vision);
    }
    if touched.chat_servers {
        w.prefs.chat_servers = prefs.chat_servers;
    }
    if touched.assistants {
        w.prefs.assistants = prefs.assistants;
    }
    for out in outs {
        run(w, out);
    }
    next(w);
}

fn run<P: Platform>(w: &mut Workspace<P>, out: Out) {
    match out {
        Out::Update(Update::ServersEdited) => {
            w.emit(Update::ServersEdited);
            // The catalog of tools follows (added, re-synced, switched, removed).
            crate::dynamic::handle(w, crate::dynamic::Action::Refresh);
        }
        Out::Update(u) => {
            crate::log::server_update(w, &u);
            w.emit(u);
        }
        Out::Prefs(touched) => crate::prefs::save(w, touched),
        Out::List { server, why } => {
            let listing = w.p.list_tools(server);
            w.spawn(async move { Some(Command::Servers(Action::Listed { why, result: listing.await })) });
        }
        Out::Diagnose { who, target } => {
            let abort = Abort::new();
            w.servers.probes.push((who.clone(), abort.clone()));
            let probing = w.p.diagnose(target, abort);
            w.after(DOCTOR_TIMEOUT_MS, Timer::Doctor(who.clone()));
            w.spawn(async move {
                let finding = probing.await.ok()?;
                Some(Command::Servers(Action::Diagnosed { who, finding }))
            });
        }
        Out::Connect => {
            let enabled: Vec<McpServer> = w.prefs.servers.iter().filter(|s| s.enabled).cloned().collect();
            if !enabled.is_empty() {
                crate::log::connecting(w, &enabled);
                w.p.connect_servers(enabled);
            }
        }
        Out::ForgetSignIn(url) => {
            let forgetting = w.p.forget_sign_in(&url);
            w.spawn(async move {
                let _ = forgetting.await;
                None
            });
        }
    }
}

/// The doctor took too long: its probes stop, and it says nothing came.
pub(crate) fn doctor_late<P: Platform>(w: &mut Workspace<P>, who: Patient) {
    let Some(at) = w.servers.probes.iter().position(|(p, _)| *p == who) else { return };
    let (_, abort) = w.servers.probes.remove(at);
    abort.abort();
    let finding = Finding::Unreachable { detail: format!("no answer within {} s", DOCTOR_TIMEOUT_MS / 1000) };
    w.servers.waiting.push_back(Action::Diagnosed { who, finding });
    next(w);
}

/// A probe answered in time (its timer no longer matters).
fn probe_done<P: Platform>(w: &mut Workspace<P>, who: &Patient) -> bool {
    let before = w.servers.probes.len();
    w.servers.probes.retain(|(p, _)| p != who);
    before != w.servers.probes.len()
}

/// The engine: every server action's decision.
fn engine(s: &mut State, prefs: &mut Prefs, ctx: &Ctx, action: Action) -> Vec<Out> {
    match action {
        Action::Add(draft) => add(s, ctx, &draft),
        Action::Pick { tool, on } => {
            s.flow.pick(&tool, on);
            flow(s)
        }
        Action::TrustNew(on) => {
            s.flow.trust_hints = on;
            flow(s)
        }
        Action::Save => save(s, prefs),
        Action::Cancel => {
            s.flow.cancel();
            flow(s)
        }
        Action::Listed { why, result } => listed(s, prefs, ctx, why, result),
        Action::Diagnosed { who, finding } => diagnosed(s, who, finding),
        Action::DiagnoseProvider { base_url, model, has_key } => {
            s.provider_ticket += 1;
            let target = provider_target(&base_url, &model, has_key, ctx.page_origin.clone());
            vec![Out::Update(Update::ProviderDoctor(air_servers::add::Doctor::Probing)), Out::Diagnose { who: Patient::Provider(s.provider_ticket), target }]
        }
        Action::Status { name, status } => {
            let mut outs = Vec::new();
            // The revision it speaks is remembered for the next start.
            if let Connection::Connected { version } = &status {
                let servers = list::connected(&mut prefs.servers, &name, version);
                let settings = adopt_old_choices(prefs);
                if servers || settings {
                    outs.push(Out::Prefs(Touched { servers, settings, ..Touched::default() }));
                }
            }
            outs.push(Out::Update(Update::ServerStatus { name, status }));
            outs
        }
        Action::ToolsChanged(name) => match prefs.servers.iter().find(|x| x.name == name).map(|x| x.url.clone()) {
            Some(url) => resync(prefs, name, url, None),
            None => Vec::new(),
        },
        Action::Resync { name, url, headers } => resync(prefs, name, url, headers),
        Action::Connect => vec![Out::Connect],
        // Answered by `handle`, before the engine.
        Action::Decided(_) => Vec::new(),
        Action::Prefs(change) => vec![Out::Prefs(crate::prefs::apply(prefs, change))],
        Action::SessionBegan(id) => vec![Out::Prefs(crate::prefs::session(prefs, Some(&id), None))],
        Action::SessionGone(id) => vec![Out::Prefs(crate::prefs::session(prefs, None, Some(&id)))],
        other => edit(prefs, other),
    }
}

/// A change to the saved list (or the user's yes to a tool).
fn edit(prefs: &mut Prefs, action: Action) -> Vec<Out> {
    let (servers, policies) = (&mut prefs.servers, &mut prefs.settings.tool_policies);
    let (changed, effects) = match action {
        Action::SetEnabled { name, on } => (list::set_enabled(servers, &name, on), list::Effects::default()),
        Action::SetTrustHints { name, on } => (list::set_trust_hints(servers, &name, on), list::Effects::default()),
        Action::SetToolEnabled { server, tool, on } => (list::set_tool_enabled(servers, &server, &tool, on), list::Effects::default()),
        Action::Remove(name) => (true, list::remove(servers, policies, &name)),
        Action::Accept { server, tool } => {
            let accepted = list::accept(servers, policies, &server, &tool);
            (accepted, list::Effects { policies: accepted, ..list::Effects::default() })
        }
        Action::AllowAlways(tool) => {
            policies.set(&tool, Some(Policy::Allow));
            let accepted = match (&tool.mcp, &tool.source) {
                (Some(m), air_tools::ToolSource::Mcp { server }) if m.accepted.is_some() => list::accept(servers, policies, server, &m.tool),
                _ => false,
            };
            (accepted, list::Effects { policies: true, ..list::Effects::default() })
        }
        _ => (false, list::Effects::default()),
    };
    let mut outs = effects_of(prefs, effects, changed);
    if changed {
        outs.extend([Out::Connect, Out::Update(Update::ServersEdited)]);
    }
    outs
}

/// What a change of the list also asks: the policies saved, sign-ins and
/// chats' mentions forgotten.
fn effects_of(prefs: &mut Prefs, effects: list::Effects, servers: bool) -> Vec<Out> {
    let mut touched = Touched { servers, settings: effects.policies, ..Touched::default() };
    if let Some(name) = &effects.forget_in_chats {
        prefs.chat_servers.forget_server(name);
        touched.chat_servers = true;
    }
    let mut outs: Vec<Out> = effects.forget_sign_in.into_iter().map(Out::ForgetSignIn).collect();
    outs.push(Out::Prefs(touched));
    outs
}

/// Choices saved before MCP tools had a place (kept by registry name) move
/// to the tools they name (`Policies::adopt`), once a server connects;
/// whether any did.
fn adopt_old_choices(prefs: &mut Prefs) -> bool {
    // Registry names of MCP tools start so; built-ins never do.
    let policies = &mut prefs.settings.tool_policies;
    policies.tools.keys().any(|k| k.starts_with("mcp_")) && policies.adopt(&air_servers::registration::every_def(&prefs.servers))
}

fn flow(s: &State) -> Vec<Out> {
    vec![Out::Update(Update::AddFlow(Box::new(s.flow.clone())))]
}

fn add(s: &mut State, ctx: &Ctx, draft: &Draft) -> Vec<Out> {
    let Some((server, attempt)) = s.flow.connect(draft, ctx.new_id.clone()) else { return flow(s) };
    let mut outs = flow(s);
    outs.push(Out::List { server: server.clone(), why: Listing::Preview { attempt, server } });
    outs
}

fn save(s: &mut State, prefs: &mut Prefs) -> Vec<Out> {
    let Some((server, offered, picked)) = s.flow.save() else { return Vec::new() };
    let name = server.name.clone();
    let (kept, effects) = list::add(&mut prefs.servers, &mut prefs.settings.tool_policies, server, offered, &picked);
    s.flow.added(name, kept);
    let mut outs = effects_of(prefs, effects, true);
    outs.extend(flow(s));
    outs.extend([Out::Connect, Out::Update(Update::ServersEdited)]);
    outs
}

fn resync(prefs: &Prefs, name: String, url: String, headers: Option<Vec<(String, String)>>) -> Vec<Out> {
    if !air_servers::add::is_http(&url) {
        return vec![Out::Update(Update::Resynced { name, result: Err(SyncFailure::NotHttp) })];
    }
    let Some((target, moved_from)) = list::resync_target(&prefs.servers, &name, &url, headers) else { return Vec::new() };
    vec![Out::List { server: target.clone(), why: Listing::Resync { name, target, moved_from } }]
}

fn listed(s: &mut State, prefs: &mut Prefs, ctx: &Ctx, why: Listing, result: Result<Result<Listed, Failure>, Missing>) -> Vec<Out> {
    let result = match result {
        Ok(r) => r,
        Err(Missing) => return vec![Out::Update(Update::Notice(Notice::PartMissing))],
    };
    match why {
        Listing::Preview { attempt, mut server } => {
            let (url, headers) = (server.url.clone(), server.headers.clone());
            let preview = result.map(|l| {
                server.protocol = l.protocol;
                Preview { server, tools: l.tools }
            });
            let ask_doctor = s.flow.previewed(attempt, preview);
            let mut outs = flow(s);
            if ask_doctor {
                let target = air_servers::add::doctor_target(&url, headers, ctx.page_origin.clone());
                outs.push(Out::Diagnose { who: Patient::Adding(attempt), target });
            }
            outs
        }
        Listing::Resync { name, target, moved_from } => match result {
            Ok(l) => {
                let (counts, effects) = list::resynced(&mut prefs.servers, &mut prefs.settings.tool_policies, target, moved_from, &l.tools, l.protocol);
                let mut outs = effects_of(prefs, effects, true);
                // New tools wait for the user: said where it is seen.
                if counts.added > 0 {
                    outs.push(Out::Update(Update::Notice(Notice::NewTools { server: name.clone(), added: counts.added })));
                }
                outs.extend([Out::Update(Update::Resynced { name, result: Ok(counts) }), Out::Connect, Out::Update(Update::ServersEdited)]);
                outs
            }
            Err(f) => vec![Out::Update(Update::Resynced { name, result: Err(SyncFailure::Failed(f.text)) })],
        },
    }
}

fn diagnosed(s: &mut State, who: Patient, finding: Finding) -> Vec<Out> {
    match who {
        Patient::Adding(attempt) => {
            s.flow.diagnosed(attempt, finding);
            flow(s)
        }
        Patient::Provider(ticket) if ticket == s.provider_ticket => vec![Out::Update(Update::ProviderDoctor(air_servers::add::Doctor::Found(finding)))],
        Patient::Provider(_) => Vec::new(),
    }
}

/// The provider's chat endpoint, with an `Authorization` header if a key
/// is set (a probe value, not the key) and a request no provider runs
/// (no messages).
fn provider_target(base_url: &str, model: &str, has_key: bool, page_origin: Option<String>) -> air_doctor::Target {
    air_doctor::Target {
        url: format!("{}/chat/completions", base_url.trim().trim_end_matches('/')),
        page_origin,
        headers: if has_key { vec![("Authorization".into(), "Bearer probe".into())] } else { Vec::new() },
        body: serde_json::json!({"model": model, "messages": [], "max_tokens": 1}).to_string(),
        mcp: false,
    }
}

#[cfg(test)]
#[path = "servers_tests.rs"]
mod tests;
