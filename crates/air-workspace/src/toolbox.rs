//! A turn's tools, decided in one place. Each kind of tool (the built-ins,
//! code run in the page's sandbox, the MCP servers', the HTTP tools, dynamic loading's loaders) is one
//! [`ToolKind`]; [`assemble`] asks each in order, from the turn's
//! [`Snapshot`] (the preferences when it started, never what the page
//! shows meanwhile). A kind whose part cannot be fetched says what the
//! turn does without it ([`ToolKind::without`]), and the user is told
//! ([`crate::Notice::PartMissing`]). The policy list in Settings is the
//! same kinds' [`ToolKind::defs`] ([`policy_defs`]).
//!
//! A new kind of tool is one file in `toolbox/` and one line in [`kinds`].
//! The kinds are made where a turn's tools or the policy list are wanted
//! (in parts fetched on first use), never with the first load.

mod builtins;
mod code;
mod http;
pub mod loaders;
pub mod mcp;

use std::rc::Rc;

use air_tools::ToolDef;

use crate::Platform;
use crate::prefs::Prefs;
use crate::turn_env::TurnEnv;
pub use crate::turn_env::tools::{Kinds, Snapshot, ToolKind, Toolbox};

impl<P: Platform> crate::Workspace<P> {
    /// Every tool a user can set a policy for, as a turn would be offered
    /// them ([`toolbox::policy_defs`]).
    pub fn policy_defs(&self) -> Vec<air_tools::ToolDef> {
        #[cfg(not(test))]
        let kinds = kinds();
        #[cfg(test)]
        let kinds: Kinds<P> = kinds().into_iter().chain(self.more_kinds.iter().cloned()).collect();
        policy_defs(&*self.p, &kinds, &self.prefs)
    }
}

/// Every kind of tool, in order: the built-ins first (their names win),
/// code run in the page's sandbox, the MCP servers' tools, the HTTP tools,
/// and last dynamic loading, which decides what of the others is offered.
pub fn kinds<P: Platform>() -> Kinds<P> {
    vec![Rc::new(builtins::BuiltIns), Rc::new(code::Code), Rc::new(mcp::Servers), Rc::new(http::HttpTools), Rc::new(loaders::Loaders)]
}

/// A turn's tools: each kind of `kinds` adds its own, in order.
pub async fn assemble<P: Platform>(env: &TurnEnv<P>, kinds: &[Rc<dyn ToolKind<P>>], snap: &mut Snapshot<'_>) -> Toolbox {
    let mut toolbox = Toolbox::default();
    for kind in kinds {
        if kind.add(env, snap, &mut toolbox).await.is_err() {
            toolbox.missing = true;
            kind.without(snap, &mut toolbox);
        }
    }
    toolbox
}

/// Every tool a user can set a policy for (Settings → tool policies), by
/// name: what each kind could offer with `prefs`.
pub fn policy_defs<P: Platform>(p: &P, kinds: &[Rc<dyn ToolKind<P>>], prefs: &Prefs) -> Vec<ToolDef> {
    let mut defs: Vec<ToolDef> = kinds.iter().flat_map(|k| k.defs(p, prefs)).collect();
    defs.sort_by(|a, b| a.name.cmp(&b.name));
    // A built-in's name wins over an HTTP tool's, as in a turn.
    defs.dedup_by(|a, b| a.name == b.name);
    defs
}

#[cfg(test)]
#[path = "toolbox_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "toolbox_kind_tests.rs"]
mod kind_tests;
