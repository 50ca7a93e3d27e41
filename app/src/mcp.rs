//! MCP servers in the app: the saved list, one client per server, their
//! tools in the registry, and adding, enabling and removing servers.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use air_http::Abort;
use air_mcp::tool::{McpTool, callable};
use air_mcp::{ClientHost, Connection, McpClient, Notice, ServerConfig, names};
use futures_util::future::LocalBoxFuture;
use air_store::mcp::{self as saved, McpServer, SavedTool};
use air_tools::Registry;
use air_store::keys::MCP_ADD_DRAFT;
use air_web::LocalStorageKv;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::env;
use crate::state::{AppState, Attachment};

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
            let stale = self.state.prefs.mcp_servers.with_untracked(|l| l.iter().any(|s| s.name == self.server && s.protocol.as_ref() != Some(version)));
            if stale {
                let mut servers = self.state.prefs.mcp_servers.get_untracked();
                for s in servers.iter_mut().filter(|s| s.name == self.server) {
                    s.protocol = Some(version.clone());
                }
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
            Notice::ResourceUpdated { uri } => refresh_attachment(self.state, self.server.clone(), uri),
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

/// Adds the tools of every enabled server, named `mcp_{server}_{tool}`;
/// returns (server, tool, registry name) of each.
pub fn register(state: AppState, registry: &mut Registry, servers: &[McpServer]) -> Vec<(String, String, String)> {
    let mut names = Vec::new();
    for server in servers.iter().filter(|s| s.enabled) {
        let client = client_for(state, server);
        // Tools only a View may call stay out of the model's list.
        for tool in server.tools.iter().filter(|t| t.offered() && air_apps::visibility(t.visibility.as_deref()).0) {
            let name = names::tool_name(&server.name, &tool.name, |n| registry.get(n).is_some());
            let def = tool.def(server, name.clone());
            registry.register(Rc::new(McpTool::new(def, tool.name.clone(), client.clone()).with_output_schema(tool.output_schema.clone())));
            names.push((server.name.clone(), tool.name.clone(), name));
        }
    }
    names
}

/// The policy for a call of `server`'s tool named `tool` on the server
/// (an MCP App's own call), decided as for the model's calls; a tool not
/// saved for the server (or not accepted by the user) is refused.
pub fn policy_of(state: AppState, server: &McpServer, tool: &str) -> air_tools::policy::Policy {
    let name = names::tool_name(&server.name, tool, |_| false);
    let def = server.tools.iter().find(|t| t.name == tool && t.offered()).map(|t| t.def(server, name));
    match def {
        Some(def) => state.prefs.settings.with_untracked(|s| s.tool_policies.decide(&def)),
        None => air_tools::policy::Policy::Deny,
    }
}

/// A listed tool as saved; `None` for one this client cannot call.
fn saved_tool(v: &Value) -> Option<SavedTool> {
    if !callable(v) {
        return None;
    }
    Some(SavedTool {
        name: v.get("name")?.as_str()?.to_owned(),
        description: v.get("description").or_else(|| v.get("title")).and_then(Value::as_str).unwrap_or_default().to_owned(),
        input_schema: v.get("inputSchema").filter(|s| s.is_object()).cloned().unwrap_or_else(|| serde_json::json!({"type": "object"})),
        annotations: v.get("annotations").and_then(|a| serde_json::from_value(a.clone()).ok()).unwrap_or_default(),
        output_schema: v.get("outputSchema").filter(|s| s.is_object()).cloned(),
        ui: air_apps::tool_ui(v).resource_uri,
        visibility: v.pointer("/_meta/ui/visibility").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect()),
        gone: false,
        accepted: None,
        pending: false,
    })
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

/// A server as added: where it is, and the tools it listed.
pub struct Preview {
    pub server: McpServer,
    /// Every tool it offers; the user picks which to keep.
    pub tools: Vec<SavedTool>,
}

/// Why connecting failed, and whether the doctor may say more (nothing
/// answered, or the answers look like CORS hid something).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub text: String,
    pub worth_diagnosing: bool,
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
    let mut sent: Vec<(String, String)> = vec![
        ("MCP-Protocol-Version".into(), "2025-11-25".into()),
        ("Mcp-Session-Id".into(), "probe".into()),
        ("Last-Event-ID".into(), "probe".into()),
        ("Mcp-Method".into(), "tools/list".into()),
        ("Mcp-Name".into(), "probe".into()),
    ];
    sent.extend(headers);
    let target = air_doctor::Target {
        url: url.trim().to_owned(),
        page_origin: air_web::page_origin(),
        headers: sent,
        body: serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "air-agent", "version": "doctor"}}}).to_string(),
        mcp: true,
    };
    run_doctor(target, done);
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

/// Connects to a server over a temporary connection and lists its tools,
/// for the user to pick from; nothing is saved yet. `done` gets the
/// preview, or why it failed.
pub fn preview(state: AppState, name: String, url: String, headers: Vec<(String, String)>, done: impl Fn(Result<Preview, Failure>) + 'static) {
    let name = name.trim().to_owned();
    let url = url.trim().to_owned();
    if name.is_empty() || !(url.starts_with("http://") || url.starts_with("https://")) {
        done(Err(Failure { text: state.t().mcp_need_name_url.to_owned(), worth_diagnosing: false }));
        return;
    }
    let mut server = McpServer { id: env::new_id(), name, url, headers, enabled: true, tools: Vec::new(), excluded: Vec::new(), protocol: None, trust_hints: false };
    let client = McpClient::new(env::Http::default(), config(&server)).with_authorizer(crate::oauth::authorizer(state, &server.url));
    spawn_local(async move {
        let listed = client.list_tools(&Abort::new()).await;
        server.protocol = client.protocol_version();
        client.close().await;
        // A 401 whose challenge the page could not read: CORS may hide it.
        let url = server.url.clone();
        let hidden_challenge = move || state.prefs.mcp_sign_in.with_untracked(|m| m.get(&url).is_some_and(|s| s.challenge.is_none()));
        done(listed.map(|tools| Preview { server, tools: tools.iter().filter_map(saved_tool).collect() }).map_err(|e| Failure {
            worth_diagnosing: match e {
                air_mcp::McpError::Network(_) | air_mcp::McpError::Http { status: 400 | 404, .. } => true,
                air_mcp::McpError::Http { status: 401, .. } => hidden_challenge(),
                _ => false,
            },
            text: e.to_string(),
        }));
    });
}

/// Saves a server with the tools picked (a server of the same name is
/// replaced). Returns how many tools were kept.
pub fn save_server(state: AppState, preview: Preview, picked: &[String]) -> usize {
    let (tools, left): (Vec<SavedTool>, Vec<SavedTool>) = preview.tools.into_iter().partition(|t| picked.contains(&t.name));
    let n = tools.len();
    let excluded = left.into_iter().map(|t| t.name).collect();
    let mut servers = state.prefs.mcp_servers.get_untracked();
    // A server of the same name is replaced: it is another server, and the
    // user's choices about the old one go with it.
    for old in servers.iter().filter(|s| s.name == preview.server.name) {
        forget_policies(state, old);
    }
    servers.retain(|s| s.name != preview.server.name);
    servers.push(McpServer { tools, excluded, ..preview.server });
    persist(state, servers);
    n
}

/// Connects to a saved server again (at `url`, which may have changed) and
/// merges what it lists now: tools updated, new ones added (except those
/// the user left out), and ones no longer offered kept but marked gone.
/// `done` gets the counts, or why it failed (nothing changes then).
pub fn resync(state: AppState, name: String, url: String, done: impl Fn(Result<saved::SyncCounts, String>) + 'static) {
    let Some(mut server) = state.prefs.mcp_servers.with_untracked(|l| l.iter().find(|s| s.name == name).cloned()) else { return };
    let url = url.trim().to_owned();
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        done(Err(state.t().mcp_need_name_url.to_owned()));
        return;
    }
    // Another origin is another server: the old one's headers are not
    // sent to it (and, once saved, its sign-in and choices are forgotten).
    let old_url = server.url.clone();
    let moved = saved::moved(&mut server, &url);
    let client = McpClient::new(env::Http::default(), config(&server)).with_authorizer(crate::oauth::authorizer(state, &server.url));
    spawn_local(async move {
        let listed = client.list_tools(&Abort::new()).await;
        let protocol = client.protocol_version();
        client.close().await;
        match listed {
            Ok(listed) => {
                if moved {
                    crate::oauth::forget(&old_url);
                    forget_policies(state, &server);
                }
                server.protocol = protocol;
                let listed: Vec<SavedTool> = listed.iter().filter_map(saved_tool).collect();
                let (tools, counts) = saved::resync(&server.tools, &server.excluded, &listed);
                server.tools = tools;
                // New tools wait for the user: said where it is seen.
                if counts.added > 0 {
                    state.shell.notice.set(Some(state.t().mcp_new_tools_notice.replace("{s}", &server.name).replace("{n}", &counts.added.to_string())));
                }
                let mut servers = state.prefs.mcp_servers.get_untracked();
                for s in servers.iter_mut().filter(|s| s.name == server.name) {
                    *s = server.clone();
                }
                persist(state, servers);
                done(Ok(counts));
            }
            Err(e) => done(Err(e.to_string())),
        }
    });
}

pub fn set_enabled(state: AppState, name: &str, enabled: bool) {
    let mut servers = state.prefs.mcp_servers.get_untracked();
    for s in servers.iter_mut().filter(|s| s.name == name) {
        s.enabled = enabled;
    }
    persist(state, servers);
}

pub fn remove_server(state: AppState, name: &str) {
    let mut servers = state.prefs.mcp_servers.get_untracked();
    // Its tokens and the user's choices about it go with it.
    for s in servers.iter().filter(|s| s.name == name) {
        crate::oauth::forget(&s.url);
        forget_policies(state, s);
    }
    servers.retain(|s| s.name != name);
    persist(state, servers);
    state.update_mcp_chat(|c| c.forget_server(name));
}

/// Clears the user's choices about `server` and its tools.
fn forget_policies(state: AppState, server: &McpServer) {
    let mut settings = state.prefs.settings.get_untracked();
    let before = settings.tool_policies.clone();
    settings.tool_policies.forget_server(&server.id);
    if settings.tool_policies != before {
        state.save_settings(settings);
    }
}

/// The user accepts `tool` of server `name` as it is now (see
/// [`saved::accept`]); `draft` is the settings being edited, if any, which
/// gets the same change (its Save would otherwise undo it).
pub fn accept_tool(state: AppState, name: &str, tool: &str, draft: Option<RwSignal<air_store::settings::Settings>>) {
    let mut servers = state.prefs.mcp_servers.get_untracked();
    let Some(server) = servers.iter_mut().find(|s| s.name == name) else { return };
    let mut settings = state.prefs.settings.get_untracked();
    if saved::accept(server, tool, &mut settings.tool_policies) {
        if let Some(draft) = draft {
            let mut copy = server.clone();
            draft.update(|d| {
                saved::accept(&mut copy, tool, &mut d.tool_policies);
            });
        }
        state.save_settings(settings);
        persist(state, servers);
    }
}

/// Whether the server's read-only hints decide that its tools run unasked.
pub fn set_trust_hints(state: AppState, name: &str, on: bool) {
    let mut servers = state.prefs.mcp_servers.get_untracked();
    for s in servers.iter_mut().filter(|s| s.name == name) {
        s.trust_hints = on;
    }
    persist(state, servers);
}

/// Choices saved before MCP tools had a place (kept by registry name) move
/// to the tools they name (see [`air_tools::policy::Policies::adopt`]);
/// done with the first connection (the code is not in the first load).
fn adopt_old_choices(state: AppState) {
    // Registry names of MCP tools start so; built-ins never do.
    if !state.prefs.settings.with_untracked(|s| s.tool_policies.tools.keys().any(|k| k.starts_with("mcp_"))) {
        return;
    }
    let defs: Vec<air_tools::ToolDef> = state.prefs.mcp_servers.with_untracked(|l| {
        l.iter().flat_map(|s| s.tools.iter().map(move |t| t.def(s, names::tool_name(&s.name, &t.name, |_| false)))).collect()
    });
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

/// Reads a resource and attaches it to the next message; where the server
/// offers it, subscribes, so a change is read again before sending.
pub fn attach_resource(state: AppState, server: String, uri: String, label: String, done: impl Fn(Result<(), String>) + 'static) {
    let Some(client) = server_client(state, &server) else { return };
    spawn_local(async move {
        match client.read_resource(&uri, &Abort::new()).await {
            Ok(result) => {
                let block = air_mcp::resources::context_block(&result);
                let attachment = Attachment { server: server.clone(), uri: uri.clone(), label: label.clone(), block, live: false, updates: 0 };
                state.chat.attachments.update(|a| {
                    a.retain(|x| x.label != label);
                    a.push(attachment);
                });
                done(Ok(()));
                if let Ok(true) = client.subscribe_resource(&uri, &Abort::new()).await {
                    // Sent or removed while the subscription was on its way: end it.
                    if state.chat.attachments.with_untracked(|a| a.iter().any(|x| x.is(&server, &uri))) {
                        state.chat.attachments.update(|a| a.iter_mut().filter(|x| x.is(&server, &uri)).for_each(|x| x.live = true));
                    } else {
                        let _ = client.unsubscribe_resource(&uri, &Abort::new()).await;
                    }
                }
            }
            Err(e) => done(Err(e.to_string())),
        }
    });
}

/// Removes an attachment (and its subscription).
pub fn detach(state: AppState, label: &str) {
    let gone: Vec<Attachment> = state.chat.attachments.with_untracked(|a| a.iter().filter(|x| x.label == label).cloned().collect());
    state.chat.attachments.update(|a| a.retain(|x| x.label != label));
    release(state, &gone);
}

/// Ends the subscriptions of attachments that are no longer attached.
pub fn release(state: AppState, attachments: &[Attachment]) {
    for a in attachments.iter().filter(|a| a.live) {
        let still = state.chat.attachments.with_untracked(|l| l.iter().any(|x| x.is(&a.server, &a.uri)));
        let Some(client) = server_client(state, &a.server).filter(|_| !still) else { continue };
        let uri = a.uri.clone();
        spawn_local(async move {
            let _ = client.unsubscribe_resource(&uri, &Abort::new()).await;
        });
    }
}

/// The server says an attached resource changed: read it again.
fn refresh_attachment(state: AppState, server: String, uri: String) {
    let attached = state.chat.attachments.with_untracked(|a| a.iter().any(|x| x.is(&server, &uri)));
    let Some(client) = server_client(state, &server).filter(|_| attached) else { return };
    spawn_local(async move {
        // A failed read keeps what was read before.
        if let Ok(result) = client.read_resource(&uri, &Abort::new()).await {
            let block = air_mcp::resources::context_block(&result);
            state.chat.attachments.update(|a| {
                for x in a.iter_mut().filter(|x| x.is(&server, &uri)) {
                    x.block = block.clone();
                    x.updates += 1;
                }
            });
        }
    });
}
