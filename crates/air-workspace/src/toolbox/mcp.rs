//! The MCP servers' tools: those the turn's servers offer the model, each
//! over its server's client (the platform's, fetched with the first
//! enabled server).

use air_servers::Registration;
use air_store::mcp::McpServer;
use air_tools::ToolDef;
use futures_util::future::LocalBoxFuture;

use super::{Snapshot, ToolKind, Toolbox};
use crate::prefs::Prefs;
use crate::turn_env::TurnEnv;
use crate::{Missing, Platform};

pub use crate::turn_env::tools::Wanted;

/// The tools of the enabled MCP servers.
pub struct Servers;

impl<P: Platform> ToolKind<P> for Servers {
    fn defs(&self, _p: &P, prefs: &Prefs) -> Vec<ToolDef> {
        Registration::of(&prefs.servers).for_model(|_| true).map(|e| e.def.clone()).collect()
    }

    fn add<'a>(&'a self, env: &'a TurnEnv<P>, snap: &'a Snapshot<'_>, toolbox: &'a mut Toolbox) -> LocalBoxFuture<'a, Result<(), Missing>> {
        let servers = &snap.inputs.servers;
        if servers.is_empty() {
            return Box::pin(std::future::ready(Ok(())));
        }
        let (wanted, names) = wanted(&snap.prefs.servers, servers);
        Box::pin(async move {
            for tool in env.p.mcp_tools(wanted).await? {
                toolbox.registry.register(tool);
            }
            toolbox.mcp_names.extend(names);
            Ok(())
        })
    }

    /// Without the MCP clients no server's tool can run, nor be loaded.
    fn without(&self, snap: &mut Snapshot<'_>, _toolbox: &mut Toolbox) {
        snap.inputs.dynamic = false;
    }
}

/// What the model is offered of `servers`, named as [`Registration`] names
/// them among `all` (the saved servers), with (server, tool, name) each.
pub fn wanted(all: &[McpServer], servers: &[McpServer]) -> (Vec<Wanted>, Vec<(String, String, String)>) {
    let registration = Registration::of(all);
    let mut wanted = Vec::new();
    for e in registration.for_model(|s| servers.iter().any(|x| x.name == s)) {
        let Some(server) = servers.iter().find(|s| s.name == e.server) else { continue };
        let output_schema = server.tools.iter().find(|t| t.name == e.tool).and_then(|t| t.output_schema.clone());
        wanted.push(Wanted { server: server.clone(), def: e.def.clone(), tool: e.tool.clone(), output_schema });
    }
    let names = wanted.iter().map(|w| (w.server.name.clone(), w.tool.clone(), w.def.name.clone())).collect();
    (wanted, names)
}
