//! The HTTP tools the user defined (`air-http-tools`): the enabled ones,
//! offered as they are, dynamic loading or not (they are few and the
//! user's own).

use air_tools::ToolDef;
use futures_util::future::LocalBoxFuture;

use super::{Snapshot, ToolKind, Toolbox};
use crate::prefs::Prefs;
use crate::turn_env::TurnEnv;
use crate::{Missing, Platform};

pub struct HttpTools;

impl<P: Platform> ToolKind<P> for HttpTools {
    fn defs(&self, _p: &P, prefs: &Prefs) -> Vec<ToolDef> {
        prefs.http_tools.tools().into_iter().filter(|t| t.enabled).map(|t| t.tool.def()).collect()
    }

    fn add<'a>(&'a self, env: &'a TurnEnv<P>, snap: &'a Snapshot<'_>, toolbox: &'a mut Toolbox) -> LocalBoxFuture<'a, Result<(), Missing>> {
        let saved = &snap.inputs.http_tools;
        if !saved.tools().iter().any(|t| t.enabled) {
            return Box::pin(std::future::ready(Ok(())));
        }
        let tools = env.p.http_tools(saved.clone());
        Box::pin(async move {
            crate::http_tools::register(&mut toolbox.registry, tools.await?);
            Ok(())
        })
    }
}
