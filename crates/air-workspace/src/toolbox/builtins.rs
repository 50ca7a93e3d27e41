//! The built-in tools: the calculator and the clock.

use air_tools::ToolDef;
use futures_util::future::LocalBoxFuture;

use super::{Snapshot, ToolKind, Toolbox};
use crate::prefs::Prefs;
use crate::turn_env::TurnEnv;
use crate::{Missing, Platform};

/// Always there: they come with the turn.
pub struct BuiltIns;

impl<P: Platform> ToolKind<P> for BuiltIns {
    fn defs(&self, p: &P, _prefs: &Prefs) -> Vec<ToolDef> {
        air_tools::builtin::builtins(p.clock()).iter().map(|t| t.def().clone()).collect()
    }

    fn add<'a>(&'a self, env: &'a TurnEnv<P>, _snap: &'a Snapshot<'_>, toolbox: &'a mut Toolbox) -> LocalBoxFuture<'a, Result<(), Missing>> {
        for tool in air_tools::builtin::builtins(env.p.clock()) {
            toolbox.registry.register(tool);
        }
        Box::pin(std::future::ready(Ok(())))
    }
}
