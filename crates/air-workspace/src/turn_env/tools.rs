//! What the platform and the kinds of tool ([`crate::toolbox`]) speak of:
//! a kind, the toolbox it adds to, the snapshot it reads, and what a turn
//! asks of the platform for the MCP servers' tools and dynamic loading.

use std::rc::Rc;

use air_store::mcp::McpServer;
use air_tools::offer::Offer;
use air_tools::{Registry, ToolDef};
use futures_util::future::LocalBoxFuture;

use super::TurnEnv;
use crate::Missing;
use crate::Platform;
use crate::prefs::{Inputs, Prefs};

/// What a turn's tools are decided from.
pub struct Snapshot<'a> {
    /// The conversation the turn runs in (`None`: a new chat).
    pub session: Option<&'a str>,
    /// The preferences when the turn started.
    pub prefs: &'a Prefs,
    /// What the turn runs with ([`Prefs::turn_inputs`]); a kind that is
    /// missing may change it (dynamic loading off without the MCP part).
    pub inputs: Inputs,
    /// The files of the message being sent (not stored yet).
    pub sending: &'a [air_agent::NewFile],
}

/// A turn's tools as they are assembled.
#[derive(Default)]
pub struct Toolbox {
    pub registry: Registry,
    /// The MCP tools registered: (server, tool, registry name).
    pub mcp_names: Vec<(String, String, String)>,
    /// What the model is offered, when it is not every tool registered
    /// (dynamic loading).
    pub offer: Option<Rc<dyn Offer>>,
    /// Some kind's part could not be fetched (the user is told).
    pub missing: bool,
}

/// One kind of tool.
pub trait ToolKind<P: Platform> {
    /// The tools of this kind a user can set a policy for, from `prefs`.
    fn defs(&self, p: &P, prefs: &Prefs) -> Vec<ToolDef>;
    /// Adds this kind's tools for the turn `snap` describes (or `Err`:
    /// its part could not be fetched).
    fn add<'a>(&'a self, env: &'a TurnEnv<P>, snap: &'a Snapshot<'_>, toolbox: &'a mut Toolbox) -> LocalBoxFuture<'a, Result<(), Missing>>;
    /// What the turn does when this kind's part is missing (by default:
    /// it goes on without this kind's tools).
    fn without(&self, _snap: &mut Snapshot<'_>, _toolbox: &mut Toolbox) {}
}

/// The kinds a workspace offers, in the order they are asked.
pub type Kinds<P> = Vec<Rc<dyn ToolKind<P>>>;

/// A tool a turn wants of an MCP server.
#[derive(Debug, Clone)]
pub struct Wanted {
    pub server: McpServer,
    /// As the model is offered it (its registry name).
    pub def: ToolDef,
    /// Its name on the server.
    pub tool: String,
    /// What its structured results must match, if it says.
    pub output_schema: Option<serde_json::Value>,
}

/// What a turn's dynamic loading starts from.
#[derive(Debug, Clone)]
pub struct Ask {
    /// Every saved server (the catalog follows them).
    pub servers: Vec<McpServer>,
    /// The conversation (its loaded tools are read); `None`: a new chat.
    pub session: Option<String>,
    /// (server, tool) the chat's assistant preloads.
    pub preload: Vec<(String, String)>,
    /// A call of a tool not loaded loads it and runs.
    pub auto: bool,
    /// The MCP tools registered: (server, tool, registry name).
    pub names: Vec<(String, String, String)>,
}
