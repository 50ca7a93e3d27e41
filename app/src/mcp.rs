//! MCP servers in the app: the saved list, one client per server, their
//! tools in the registry, and adding, enabling and removing servers.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use air_http::Abort;
use air_mcp::tool::McpTool;
use air_mcp::{ClientHost, Connection, McpClient, Notice, ServerConfig};
use air_servers::{AddFlow, Draft, Failure, Preview, Registration, list};
use futures_util::future::LocalBoxFuture;
use air_store::mcp::{self as saved, McpServer, SavedTool};
use air_tools::Registry;
use air_store::keys::MCP_ADD_DRAFT;
use air_web::LocalStorageKv;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::env;
use crate::state::AppState;

type Client = McpClient<env::Http>;

thread_local! {
    /// One client (and so one session) per server, by its configuration.
    static CLIENTS: RefCell<HashMap<String, Rc<Client>>> = RefCell::new(HashMap::new());
}

fn config(server: &McpServer) -> ServerConfig {
    ServerConfig { name: server.name.clone(), url: server.url.trim().to_owned(), headers: server.headers.clone() }
}

/// Time allowed for a tool call, and for any other request.
const CALL_TIMEOUT_MS: u64 = 10 * 60 * 1000;
const REQUEST_TIMEOUT_MS: u64 = 60 * 1000;

/// What a server's session hears from the page: the timer, and what to do
/// when the server announces changes.
struct Host {
    state: AppState,
    server: String,
    /// The client it serves (set once the client exists).
    client: RefCell<std::rc::Weak<Client>>,
}

impl ClientHost for Host {
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        Box::pin(env::sleep(ms))
    }

    fn connected(&self) {
        // The session's own stream: questions and announcements that come
        // outside any answer. Runs until the server closes it for good.
        let Some(client) = self.client.borrow().upgrade() else { return };
        spawn_local(async move {
            let _ = client.listen(&Abort::new()).await;
        });
    }

    fn connection(&self, status: Connection) {
        // The revision it speaks is remembered for the next start.
        if let Connection::Connected { version } = &status {
            let mut servers = self.state.prefs.mcp_servers.get_untracked();
            if air_servers::list::connected(&mut servers, &self.server, version) {
                if let Err(e) = saved::save(&LocalStorageKv, &servers) {
                    self.state.report(self.state.t().err_settings, &e);
                }
                self.state.prefs.mcp_servers.set(servers);
            }
        }
        let server = self.server.clone();
        self.state.prefs.mcp_status.update(|m| {
            m.insert(server, status);
        });
    }

    fn notice(&self, notice: Notice) {
        match notice {
            Notice::ToolsChanged => {
                // List them again; the next request of a turn offers them.
                let url = self.state.prefs.mcp_servers.with_untracked(|l| l.iter().find(|s| s.name == self.server).map(|s| s.url.clone()));
                if let Some(url) = url {
                    resync(self.state, self.server.clone(), url, |_| {});
                }
            }
            Notice::ResourceUpdated { uri } => self.state.dispatch(air_workspace::Command::ResourceChanged { server: self.server.clone(), uri }),
            Notice::ToolRefused { tool, reason } => leptos::logging::warn!("MCP server {}: tool {tool} left out: {reason}", self.server),
            _ => {}
        }
    }

    fn now_ms(&self) -> Option<u64> {
        Some(env::now_ms() as u64)
    }
}

pub(crate) fn client_for(state: AppState, server: &McpServer) -> Rc<Client> {
    let c = config(server);
    let key = format!("{}\u{0}{}\u{0}{:?}", c.name, c.url, c.headers);
    CLIENTS.with(|clients| {
        clients
            .borrow_mut()
            .entry(key)
            .or_insert_with(|| {
                let host = Rc::new(Host { state, server: server.name.clone(), client: RefCell::new(std::rc::Weak::new()) });
                let client = Rc::new(
                    McpClient::new(env::Http::default(), c)
                        .with_authorizer(crate::oauth::authorizer(state, &server.url))
                        .with_known_version(server.protocol.as_deref())
                        .with_host(host.clone())
                        .with_timeouts(Some(CALL_TIMEOUT_MS), Some(REQUEST_TIMEOUT_MS)),
                );
                *host.client.borrow_mut() = Rc::downgrade(&client);
                client
            })
            .clone()
    })
}

/// Connects to every enabled server in the background (on start, and when
/// one is added or switched on), so each shows where it stands and calls
/// find their session ready.
pub fn restore(state: AppState) {
    if state.prefs.mcp_servers.with_untracked(|l| l.iter().any(|s| s.enabled)) {
        spawn_local(async move {
            if let Err(missing) = connect_all(state).await {
                crate::lazy::report(state, missing);
            }
        });
    }
}

/// The MCP client comes with the first enabled server, not with the page.
#[crate::lazy::split(mcp, wasm_split_path = ::leptos::wasm_split, fallible)]
fn connect_all(state: AppState) -> Result<(), crate::lazy::Missing> {
    adopt_old_choices(state);
    let servers = state.prefs.mcp_servers.get_untracked();
    for server in servers.iter().filter(|s| s.enabled) {
        let client = client_for(state, server);
        if client.protocol_version().is_some() {
            continue;
        }
        spawn_local(async move {
            let _ = client.connect(&Abort::new()).await;
        });
    }
    Ok(())
}

/// Adds the tools the model is offered from `servers` (enabled ones),
/// named as [`air_servers::Registration`] names them.
/// The built-ins and the tools of these servers (the enabled ones).
pub fn registry(state: AppState, servers: &[McpServer]) -> Registry {
    let mut registry = Registry::new();
    for tool in air_tools::builtin::builtins(std::rc::Rc::new(air_web::zoned::BrowserClock)) {
        registry.register(tool);
    }
    register(state, &mut registry, servers);
    registry
}

pub fn register(state: AppState, registry: &mut Registry, servers: &[McpServer]) -> Vec<(String, String, String)> {
    let all = state.prefs.mcp_servers.with_untracked(|l| Registration::of(l));
    let mut names = Vec::new();
    for e in all.for_model(|s| servers.iter().any(|x| x.name == s)) {
        let Some(server) = servers.iter().find(|s| s.name == e.server) else { continue };
        let output_schema = server.tools.iter().find(|t| t.name == e.tool).and_then(|t| t.output_schema.clone());
        registry.register(Rc::new(McpTool::new(e.def.clone(), e.tool.clone(), client_for(state, server)).with_output_schema(output_schema)));
        names.push((e.server.clone(), e.tool.clone(), e.def.name.clone()));
    }
    names
}

/// The policy for a call of `server`'s tool named `tool` on the server
/// (an MCP App's own call), decided as for the model's calls; a tool not
/// saved for the server (or not accepted by the user) is refused.
pub fn policy_of(state: AppState, server: &McpServer, tool: &str) -> air_tools::policy::Policy {
    // (The decision reads the tool's place on its server, not its name.)
    let def = server.tools.iter().find(|t| t.name == tool && t.offered()).map(|t| t.def(server, String::new()));
    match def {
        Some(def) => state.prefs.settings.with_untracked(|s| s.tool_policies.decide(&def)),
        None => air_tools::policy::Policy::Deny,
    }
}

fn persist(state: AppState, servers: Vec<McpServer>) {
    if let Err(e) = saved::save(&LocalStorageKv, &servers) {
        state.report(state.t().err_settings, &e);
    }
    state.prefs.mcp_servers.set(servers);
    restore(state);
    // The catalog follows (added, re-synced, switched, removed).
    crate::dynamic::refresh_catalog(state);
}

pub fn keep_add_draft(name: &str, url: &str, auth: &str) {
    let _ = MCP_ADD_DRAFT.set(&LocalStorageKv, &Some((name.to_owned(), url.to_owned(), auth.to_owned())));
}

pub fn forget_add_draft() {
    let _ = MCP_ADD_DRAFT.remove(&LocalStorageKv);
}

/// The kept add form, once: (name, URL, Authorization).
pub fn take_add_draft() -> Option<(String, String, String)> {
    let draft = MCP_ADD_DRAFT.get_opt(&LocalStorageKv).flatten();
    forget_add_draft();
    draft
}

/// A sign-in that took the whole page left the add form to come back to.
pub fn has_add_draft() -> bool {
    MCP_ADD_DRAFT.is_set(&LocalStorageKv)
}

/// How long the doctor's probes may take in all.
const DOCTOR_TIMEOUT_MS: u64 = 20_000;

/// Probes why the page cannot use the server at `url` (`air-doctor`), with
/// the headers this client sends it.
pub fn diagnose(url: String, headers: Vec<(String, String)>, done: impl Fn(air_doctor::Finding) + 'static) {
    run_doctor(air_servers::add::doctor_target(&url, headers, air_web::page_origin()), done);
}

/// Probes why the page cannot use the model provider at `base_url`: its
/// chat endpoint, with an `Authorization` header if a key is set (a probe
/// value, not the key) and a request no provider runs (no messages).
pub fn diagnose_provider(base_url: &str, model: &str, has_key: bool, done: impl Fn(air_doctor::Finding) + 'static) {
    let target = air_doctor::Target {
        url: format!("{}/chat/completions", base_url.trim().trim_end_matches('/')),
        page_origin: air_web::page_origin(),
        headers: if has_key { vec![("Authorization".into(), "Bearer probe".into())] } else { Vec::new() },
        body: serde_json::json!({"model": model, "messages": [], "max_tokens": 1}).to_string(),
        mcp: false,
    };
    run_doctor(target, done);
}

fn run_doctor(target: air_doctor::Target, done: impl Fn(air_doctor::Finding) + 'static) {
    spawn_local(async move {
        // A server that keeps a probe waiting is not waited for long.
        let abort = Abort::new();
        let http = env::Http::default();
        let probe = std::pin::pin!(air_doctor::diagnose(&http, &target, &abort));
        let finding = match futures_util::future::select(probe, std::pin::pin!(env::sleep(DOCTOR_TIMEOUT_MS))).await {
            futures_util::future::Either::Left((f, _)) => f,
            futures_util::future::Either::Right(_) => {
                abort.abort();
                air_doctor::Finding::Unreachable { detail: format!("no answer within {} s", DOCTOR_TIMEOUT_MS / 1000) }
            }
        };
        done(finding);
    });
}

/// Connects to `server` over a temporary connection and lists its tools,
/// for the user to pick from; nothing is saved yet. `done` gets the
/// preview, or why it failed.
pub fn preview(state: AppState, mut server: McpServer, done: impl Fn(Result<Preview, Failure>) + 'static) {
    let client = McpClient::new(env::Http::default(), config(&server)).with_authorizer(crate::oauth::authorizer(state, &server.url));
    spawn_local(async move {
        let listed = client.list_tools(&Abort::new()).await;
        server.protocol = client.protocol_version();
        client.close().await;
        // A 401 whose challenge the page could not read: CORS may hide it.
        let hidden_challenge = state.prefs.mcp_sign_in.with_untracked(|m| m.get(&server.url).is_some_and(|s| s.challenge.is_none()));
        done(match listed {
            Ok(tools) => Ok(Preview { tools: list::saved_tools(&tools), server }),
            Err(e) => Err(Failure::of(&e, hidden_challenge)),
        });
    });
}

/// Connects to the server the add form describes, then offers its tools
/// (or says why not, asking the doctor where a failure needs explaining).
pub fn start_add(state: AppState, flow: RwSignal<AddFlow>, draft: Draft) {
    let Some((server, attempt)) = flow.try_update(|f| f.connect(&draft, env::new_id())).flatten() else { return };
    let (url, headers) = (server.url.clone(), server.headers.clone());
    preview(state, server, move |r| {
        if flow.try_update(|f| f.previewed(attempt, r)).unwrap_or(false) {
            diagnose(url.clone(), headers.clone(), move |found| flow.update(|f| f.diagnosed(attempt, found)));
        }
    });
}

/// Saves the server the add form picked tools of.
pub fn finish_add(state: AppState, flow: RwSignal<AddFlow>) {
    let Some((server, offered, picked)) = flow.try_update(AddFlow::save).flatten() else { return };
    let name = server.name.clone();
    let kept = save_server(state, server, offered, &picked);
    flow.update(|f| f.added(name, kept));
}

/// Saves `server` with the tools picked of those it offered (a server of
/// the same name is replaced). Returns how many tools were kept.
pub fn save_server(state: AppState, server: McpServer, offered: Vec<SavedTool>, picked: &[String]) -> usize {
    let mut servers = state.prefs.mcp_servers.get_untracked();
    let mut settings = state.prefs.settings.get_untracked();
    let (kept, effects) = list::add(&mut servers, &mut settings.tool_policies, server, offered, picked);
    apply(state, settings, effects);
    persist(state, servers);
    kept
}

/// What a change of the list also asks: the policies saved, sign-ins and
/// chats' mentions forgotten.
fn apply(state: AppState, settings: air_store::Settings, effects: list::Effects) {
    if effects.policies {
        state.save_settings(settings);
    }
    for url in &effects.forget_sign_in {
        crate::oauth::forget(url);
    }
    if let Some(name) = effects.forget_in_chats {
        state.update_mcp_chat(|c| c.forget_server(&name));
    }
}

/// Connects to a saved server again (at `url`, which may have changed) and
/// merges what it lists now (see [`list::resynced`]). `done` gets the
/// counts, or why it failed (nothing changes then).
pub fn resync(state: AppState, name: String, url: String, done: impl Fn(Result<saved::SyncCounts, String>) + 'static) {
    if !air_servers::add::is_http(&url) {
        done(Err(state.t().mcp_need_name_url.to_owned()));
        return;
    }
    let Some((target, moved_from)) = state.prefs.mcp_servers.with_untracked(|l| list::resync_target(l, &name, &url)) else { return };
    let client = McpClient::new(env::Http::default(), config(&target)).with_authorizer(crate::oauth::authorizer(state, &target.url));
    spawn_local(async move {
        let listed = client.list_tools(&Abort::new()).await;
        let protocol = client.protocol_version();
        client.close().await;
        match listed {
            Ok(listed) => {
                let mut servers = state.prefs.mcp_servers.get_untracked();
                let mut settings = state.prefs.settings.get_untracked();
                let (counts, effects) = list::resynced(&mut servers, &mut settings.tool_policies, target, moved_from, &list::saved_tools(&listed), protocol);
                // New tools wait for the user: said where it is seen.
                if counts.added > 0 {
                    state.shell.notice.set(Some(state.t().mcp_new_tools_notice.replace("{s}", &name).replace("{n}", &counts.added.to_string())));
                }
                apply(state, settings, effects);
                persist(state, servers);
                done(Ok(counts));
            }
            Err(e) => done(Err(e.to_string())),
        }
    });
}

pub fn set_enabled(state: AppState, name: &str, enabled: bool) {
    let mut servers = state.prefs.mcp_servers.get_untracked();
    if list::set_enabled(&mut servers, name, enabled) {
        persist(state, servers);
    }
}

pub fn remove_server(state: AppState, name: &str) {
    let mut servers = state.prefs.mcp_servers.get_untracked();
    let mut settings = state.prefs.settings.get_untracked();
    let effects = list::remove(&mut servers, &mut settings.tool_policies, name);
    apply(state, settings, effects);
    persist(state, servers);
}

/// The user accepts `tool` of server `name` as it is now (see
/// [`saved::accept`]); `draft` is the settings being edited, if any, which
/// gets the same change (its Save would otherwise undo it).
pub fn accept_tool(state: AppState, name: &str, tool: &str, draft: Option<RwSignal<air_store::settings::Settings>>) {
    let mut servers = state.prefs.mcp_servers.get_untracked();
    let mut settings = state.prefs.settings.get_untracked();
    let before = servers.clone();
    if list::accept(&mut servers, &mut settings.tool_policies, name, tool) {
        if let Some(draft) = draft {
            let mut copy = before;
            draft.update(|d| {
                list::accept(&mut copy, &mut d.tool_policies, name, tool);
            });
        }
        state.save_settings(settings);
        persist(state, servers);
    }
}

/// Whether the server's read-only hints decide that its tools run unasked.
pub fn set_trust_hints(state: AppState, name: &str, on: bool) {
    let mut servers = state.prefs.mcp_servers.get_untracked();
    if list::set_trust_hints(&mut servers, name, on) {
        persist(state, servers);
    }
}

/// Choices saved before MCP tools had a place (kept by registry name) move
/// to the tools they name (see [`air_tools::policy::Policies::adopt`]);
/// done with the first connection (the code is not in the first load).
fn adopt_old_choices(state: AppState) {
    // Registry names of MCP tools start so; built-ins never do.
    if !state.prefs.settings.with_untracked(|s| s.tool_policies.tools.keys().any(|k| k.starts_with("mcp_"))) {
        return;
    }
    let defs = state.prefs.mcp_servers.with_untracked(|l| air_servers::registration::every_def(l));
    let mut settings = state.prefs.settings.get_untracked();
    if settings.tool_policies.adopt(&defs) {
        state.save_settings(settings);
    }
}

/// Switches a server on or off for the open chat.
pub fn toggle_for_chat(state: AppState, name: &str, on: bool) {
    let chat = state.chat_key();
    state.update_mcp_chat(|c| c.set(&chat, name, on));
}

/// The prompts of the servers the open chat uses, with their server's name;
/// `done` gets them and, for servers that could not list theirs, why.
pub fn list_prompts(state: AppState, done: impl Fn(Vec<(String, air_mcp::prompts::Prompt)>, Vec<String>) + 'static) {
    let servers = state.chat_servers();
    spawn_local(async move {
        let mut prompts = Vec::new();
        let mut errors = Vec::new();
        for server in servers {
            let client = client_for(state, &server);
            match client.list_prompts(&Abort::new()).await {
                Ok(list) => prompts.extend(list.iter().filter_map(air_mcp::prompts::prompt_from).map(|p| (server.name.clone(), p))),
                // A server without prompts says "method not found".
                Err(air_mcp::McpError::Rpc { code: -32601, .. }) => {}
                Err(e) => errors.push(format!("{}: {e}", server.name)),
            }
        }
        done(prompts, errors);
    });
}

fn server_client(state: AppState, name: &str) -> Option<Rc<Client>> {
    let server = state.prefs.mcp_servers.with_untracked(|l| l.iter().find(|s| s.name == name).cloned())?;
    Some(client_for(state, &server))
}

/// A prompt's messages as text, for the composer.
pub fn get_prompt(state: AppState, server: String, name: String, args: serde_json::Map<String, Value>, done: impl Fn(Result<String, String>) + 'static) {
    let Some(client) = server_client(state, &server) else { return };
    spawn_local(async move {
        let r = client.get_prompt(&name, &args, &Abort::new()).await;
        done(r.map(|v| air_mcp::prompts::text_of(&v)).map_err(|e| e.to_string()));
    });
}

/// The server's suggestions for a prompt argument (none on failure).
pub fn complete(state: AppState, server: String, prompt: String, argument: String, value: String, others: serde_json::Map<String, Value>, done: impl Fn(Vec<String>) + 'static) {
    let Some(client) = server_client(state, &server) else { return };
    let offers = client.server_capabilities().is_none_or(|c| c.get("completions").is_some());
    if !offers {
        return;
    }
    spawn_local(async move {
        done(client.complete_prompt_argument(&prompt, &argument, &value, &others, &Abort::new()).await.unwrap_or_default());
    });
}

/// What the chat's servers offer to read: (server, resource) and (server,
/// template); `done` also gets why a server could not list them.
#[allow(clippy::type_complexity)]
pub fn list_resources(
    state: AppState,
    done: impl Fn(Vec<(String, air_mcp::resources::Resource)>, Vec<(String, air_mcp::resources::Template)>, Vec<String>) + 'static,
) {
    let servers = state.chat_servers();
    spawn_local(async move {
        let (mut resources, mut templates, mut errors) = (Vec::new(), Vec::new(), Vec::new());
        for server in servers {
            let client = client_for(state, &server);
            match client.list_resources(&Abort::new()).await {
                Ok(list) => resources.extend(list.iter().filter_map(air_mcp::resources::resource_from).map(|r| (server.name.clone(), r))),
                Err(air_mcp::McpError::Rpc { code: -32601, .. }) => continue,
                Err(e) => {
                    errors.push(format!("{}: {e}", server.name));
                    continue;
                }
            }
            if let Ok(list) = client.list_resource_templates(&Abort::new()).await {
                templates.extend(list.iter().filter_map(air_mcp::resources::template_from).map(|t| (server.name.clone(), t)));
            }
        }
        done(resources, templates, errors);
    });
}

/// Reads a resource: its context block for a message, or why not.
pub async fn read_resource(state: AppState, server: &str, uri: &str) -> Result<String, String> {
    let client = server_client(state, server).ok_or_else(|| format!("{server}: not a saved server"))?;
    let result = client.read_resource(uri, &Abort::new()).await.map_err(|e| e.to_string())?;
    Ok(air_mcp::resources::context_block(&result))
}

/// Subscribes to a resource's changes (`on`) or ends the subscription;
/// whether the server took it.
pub async fn subscribe_resource(state: AppState, server: &str, uri: &str, on: bool) -> bool {
    let Some(client) = server_client(state, server) else { return false };
    if on {
        matches!(client.subscribe_resource(uri, &Abort::new()).await, Ok(true))
    } else {
        let _ = client.unsubscribe_resource(uri, &Abort::new()).await;
        false
    }
}
