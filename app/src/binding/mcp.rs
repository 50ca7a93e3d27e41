//! The MCP clients: one per server (its session reports to the core),
//! their tools in the registry, prompts and resources for the composer.
//! What becomes of the servers is the core's (`air_workspace::servers`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use air_http::Abort;
use air_mcp::tool::McpTool;
use air_mcp::{ClientHost, Connection, McpClient, Notice, ServerConfig};
use air_servers::list;
use air_store::mcp::McpServer;
use futures_util::future::LocalBoxFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;

use air_workspace::pickers::{Found, Job, Prompts, Resources, listing_error};
use air_workspace::servers::{Action, Listed};

use super::env;
use super::state::AppState;

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
        self.state.servers(Action::Status { name: self.server.clone(), status });
    }

    fn notice(&self, notice: Notice) {
        match notice {
            // Listed again; the next request of a turn offers them.
            Notice::ToolsChanged => self.state.servers(Action::ToolsChanged(self.server.clone())),
            Notice::ResourceUpdated { uri } => self.state.dispatch(air_workspace::Command::Attach(air_workspace::attach::Action::Changed { server: self.server.clone(), uri })),
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
                        .with_authorizer(super::oauth::authorizer(state, &server.url))
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

/// Connects to `servers` (the enabled ones) in the background, those not
/// connected already.
pub fn connect(state: AppState, servers: Vec<McpServer>) {
    spawn_local(async move {
        if let Err(missing) = connect_all(state, servers).await {
            super::lazy::report(state, missing);
        }
    });
}

/// The MCP client comes with the first enabled server, not with the page.
#[super::lazy::split(mcp, wasm_split_path = ::leptos::wasm_split, fallible)]
fn connect_all(state: AppState, servers: Vec<McpServer>) -> Result<(), super::lazy::NotFetched> {
    for server in &servers {
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

/// The tools a turn wants of the servers, each over its server's client:
/// the MCP client's code, so in its part (here already once a server is
/// enabled; a turn with no server never fetches it).
#[super::lazy::split(mcp, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(super) fn mcp_tools(state: AppState, wanted: Vec<air_workspace::toolbox::mcp::Wanted>) -> Result<Vec<Rc<dyn air_tools::Tool>>, super::lazy::NotFetched> {
    Ok(wanted.into_iter().map(|w| Rc::new(McpTool::new(w.def, w.tool, client_for(state, &w.server)).with_output_schema(w.output_schema)) as Rc<dyn air_tools::Tool>).collect())
}

/// Lists `server`'s tools over a connection of its own (closed after),
/// with the revision it speaks; or why not, and whether the doctor may
/// say more.
pub async fn list_tools(state: AppState, server: McpServer) -> Result<Listed, air_servers::add::Failure> {
    let client = McpClient::new(env::Http::default(), config(&server)).with_authorizer(super::oauth::authorizer(state, &server.url));
    let listed = client.list_tools(&Abort::new()).await;
    let protocol = client.protocol_version();
    client.close().await;
    // A 401 whose challenge the page could not read: CORS may hide it.
    let hidden_challenge = super::oauth::hidden_challenge(&server.url);
    match listed {
        Ok(tools) => Ok(Listed { tools: list::saved_tools(&tools), protocol }),
        Err(e) => Err(air_servers::add::Failure::of(&e, hidden_challenge)),
    }
}

/// Does what a composer's picker asks of the servers
/// (`air_workspace::pickers`).
pub async fn picker(state: AppState, job: Job) -> Found {
    match job {
        Job::ListPrompts(servers) => {
            let mut found = Prompts::default();
            for server in servers {
                match client_for(state, &server).list_prompts(&Abort::new()).await {
                    Ok(list) => found.list.extend(list.iter().filter_map(air_mcp::prompts::prompt_from).map(|p| (server.name.clone(), p))),
                    Err(e) => found.errors.extend(listing_error(&server.name, &e)),
                }
            }
            Found::Prompts(found)
        }
        Job::GetPrompt { server, name, args } => {
            let r = client_for(state, &server).get_prompt(&name, &args, &Abort::new()).await;
            Found::PromptText(r.map(|v| air_mcp::prompts::text_of(&v)).map_err(|e| e.to_string()))
        }
        Job::Complete { server, prompt, argument, value, others } => {
            let client = client_for(state, &server);
            let values = client.complete_prompt_argument(&prompt, &argument, &value, &others, &Abort::new()).await.unwrap_or_default();
            Found::Suggestions { argument, values }
        }
        Job::ListResources(servers) => Found::Resources(resources(state, servers).await),
    }
}

/// What `servers` offer to read: resources and templates.
async fn resources(state: AppState, servers: Vec<McpServer>) -> Resources {
    let mut found = Resources::default();
    for server in servers {
        let client = client_for(state, &server);
        match client.list_resources(&Abort::new()).await {
            Ok(list) => found.resources.extend(list.iter().filter_map(air_mcp::resources::resource_from).map(|r| (server.name.clone(), r))),
            Err(e) => {
                found.errors.extend(listing_error(&server.name, &e));
                continue;
            }
        }
        if let Ok(list) = client.list_resource_templates(&Abort::new()).await {
            found.templates.extend(list.iter().filter_map(air_mcp::resources::template_from).map(|t| (server.name.clone(), t)));
        }
    }
    found
}

fn server_client(state: AppState, name: &str) -> Option<Rc<Client>> {
    let server = state.prefs.mcp_servers.with_untracked(|l| l.iter().find(|s| s.name == name).cloned())?;
    Some(client_for(state, &server))
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
