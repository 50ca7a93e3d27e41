//! Dynamic loading's loaders (`air-dynamic`): with it on, the model is
//! offered the built-ins, the HTTP tools, the loaders and what it loaded
//! of the servers' tools. The session's code comes with its part, which a
//! turn fetches only when dynamic loading is on.

use std::cell::Cell;
use std::rc::Rc;

use air_dynamic::{Loaded, Session, docs};
use air_tools::ToolDef;
use futures_util::future::LocalBoxFuture;

use super::{Snapshot, ToolKind, Toolbox};
use crate::dynamic::Action;
use crate::prefs::Prefs;
use crate::turn_env::TurnEnv;
use crate::{Command, Missing, Notice, Platform, StoreOp};

pub use crate::turn_env::tools::Ask;

pub struct Loaders;

impl<P: Platform> ToolKind<P> for Loaders {
    fn defs(&self, _p: &P, _prefs: &Prefs) -> Vec<ToolDef> {
        // Loading asks nothing of the user: it only changes what is offered.
        Vec::new()
    }

    fn add<'a>(&'a self, env: &'a TurnEnv<P>, snap: &'a Snapshot<'_>, toolbox: &'a mut Toolbox) -> LocalBoxFuture<'a, Result<(), Missing>> {
        if !snap.inputs.dynamic {
            return Box::pin(std::future::ready(Ok(())));
        }
        let ask = Ask {
            servers: snap.prefs.servers.clone(),
            session: snap.session.map(str::to_owned),
            preload: snap.inputs.preload.clone(),
            auto: snap.inputs.settings.mcp_auto_load_once,
            names: toolbox.mcp_names.clone(),
        };
        let session = P::dynamic_session(&env.p, env.store.clone(), ask);
        Box::pin(async move {
            let session = session.await?;
            toolbox.offer = air_dynamic::prepare(true, None, &mut toolbox.registry, || session);
            Ok(())
        })
    }
}

/// A turn's dynamic loading session: the catalog brought up to date with
/// the servers, the conversation's loaded tools read; what it loads is
/// reported as [`Action::Loaded`] (kept under the turn's conversation,
/// whichever is open meanwhile). Run in dynamic loading's part.
pub async fn session<P: Platform>(p: Rc<P>, store: Rc<P::Store>, ask: Ask) -> Rc<Session> {
    let (catalog, kept) = crate::dynamic::catalog(&*store, &ask.servers, p.now_ms()).await;
    if let Err(error) = kept {
        p.feed(Command::Tell(Notice::Store { op: StoreOp::Prefs, error }));
    }
    p.feed(Command::Dynamic(Action::Summarize));
    let current = match &ask.session {
        Some(id) => docs::loaded(id).read(&*store).await,
        None => Loaded::default(),
    };
    // What the overall metrics already hold of this conversation.
    let counted = Cell::new(current.metrics);
    let clock = p.clone();
    let on_change = Box::new(move |l: &Loaded| {
        let gained = l.metrics.since(&counted.replace(l.metrics));
        p.feed(Command::Dynamic(Action::Loaded { list: l.clone(), gained }));
    });
    let session = Session::new(catalog, ask.servers, current, ask.names, ask.auto, Box::new(move || clock.now_ms()), on_change);
    session.preload(&ask.preload);
    session
}
