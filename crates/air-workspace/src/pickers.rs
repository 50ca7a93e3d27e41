//! What the composer's pickers offer from the MCP servers the open chat
//! uses: their prompts (a prompt's text for the composer, the server's
//! suggestions for an argument) and their resources (attaching one is
//! [`crate::attach`]'s). A server that has none says "method not found":
//! that is no error. The work is the platform's, in the MCP clients' part
//! ([`Platform::run_picker`]); an answer to a picker opened again since is
//! dropped.

use air_mcp::prompts::Prompt;
use air_mcp::resources::{Resource, Template};
use air_store::mcp::McpServer;
use serde_json::{Map, Value};

use crate::{Command, Missing, Notice, Platform, Update, Workspace};

#[derive(Debug)]
pub enum Action {
    /// The prompt picker opens.
    ListPrompts,
    /// The text of prompt `name` of `server`, with these arguments, for
    /// the composer.
    GetPrompt { server: String, name: String, args: Map<String, Value> },
    /// The server's suggestions for `argument` of prompt `prompt` (typed
    /// so far: `value`; the other arguments as filled).
    Complete { server: String, prompt: String, argument: String, value: String, others: Map<String, Value> },
    /// The resource picker opens.
    ListResources,
    /// What the work found (`ticket`: the listing it answers).
    Found { ticket: u64, found: Result<Found, Missing> },
}

/// What the platform's work found.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    Prompts(Prompts),
    /// A prompt's text, or why not.
    PromptText(Result<String, String>),
    Suggestions {
        argument: String,
        values: Vec<String>,
    },
    Resources(Resources),
}

/// The prompts of the chat's servers (server, prompt), and for the
/// servers that could not list theirs, why.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prompts {
    pub list: Vec<(String, Prompt)>,
    pub errors: Vec<String>,
}

/// What the chat's servers offer to read (server, resource or template),
/// and for the servers that could not list theirs, why.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resources {
    pub resources: Vec<(String, Resource)>,
    pub templates: Vec<(String, Template)>,
    pub errors: Vec<String>,
}

/// The work the platform does ([`Platform::run_picker`]).
#[derive(Debug)]
pub enum Job {
    ListPrompts(Vec<McpServer>),
    GetPrompt { server: McpServer, name: String, args: Map<String, Value> },
    Complete { server: McpServer, prompt: String, argument: String, value: String, others: Map<String, Value> },
    ListResources(Vec<McpServer>),
}

#[derive(Debug, Default)]
pub(crate) struct Pickers {
    ticket: u64,
}

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) {
    let chat = w.chat.active.clone().unwrap_or_else(|| air_store::mcp::NEW_CHAT.to_owned());
    let saved = |w: &Workspace<P>, name: &str| w.prefs.servers.iter().find(|s| s.name == name).cloned();
    let job = match action {
        Action::ListPrompts => Job::ListPrompts(w.prefs.chat_servers(&chat)),
        Action::ListResources => Job::ListResources(w.prefs.chat_servers(&chat)),
        Action::GetPrompt { server, name, args } => match saved(w, &server) {
            Some(server) => Job::GetPrompt { server, name, args },
            None => return w.emit(Update::Picked(Found::PromptText(Err(format!("{server}: not a saved server"))))),
        },
        Action::Complete { server, prompt, argument, value, others } => match saved(w, &server) {
            Some(server) => Job::Complete { server, prompt, argument, value, others },
            None => return,
        },
        Action::Found { ticket, found } => return found_(w, ticket, found),
    };
    // A new listing makes the one before moot.
    if matches!(job, Job::ListPrompts(_) | Job::ListResources(_)) {
        w.pickers.ticket += 1;
    }
    let ticket = w.pickers.ticket;
    let running = w.p.run_picker(job);
    w.spawn(async move { Some(Command::Pickers(Action::Found { ticket, found: running.await })) });
}

fn found_<P: Platform>(w: &mut Workspace<P>, ticket: u64, found: Result<Found, Missing>) {
    match found {
        Ok(f @ (Found::Prompts(_) | Found::Resources(_))) if ticket != w.pickers.ticket => drop(f),
        Ok(f) => w.emit(Update::Picked(f)),
        Err(Missing) => w.emit(Update::Notice(Notice::PartMissing)),
    }
}

/// Why `server`'s listing failed, as the picker says it; `None` for a
/// server that offers none ("method not found").
pub fn listing_error(server: &str, e: &air_mcp::McpError) -> Option<String> {
    (!matches!(e, air_mcp::McpError::Rpc { code: -32601, .. })).then(|| format!("{server}: {e}"))
}

#[cfg(test)]
#[path = "pickers_tests.rs"]
mod tests;
