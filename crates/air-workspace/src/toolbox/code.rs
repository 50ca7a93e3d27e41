//! Code the model writes, run in the page's sandbox (`air-sandbox`):
//! `run_javascript`. The run is the core's (its limits, deadline, Stop and
//! end, `air_sandbox::run::Run`); the platform only carries its messages
//! ([`crate::Edges::run_code`]) and ends its worker.

use std::cell::Cell;
use std::rc::Rc;

use air_sandbox::Lang;
use air_sandbox::run::{Outcome, Run};
use air_sandbox::tools::{self, ChatFile};
use air_tools::{CallContext, Tool, ToolDef, ToolOutput};
use futures_util::future::{Either, LocalBoxFuture, select};
use serde_json::Value;

use super::{Snapshot, ToolKind, Toolbox};
use crate::prefs::Prefs;
use crate::turn_env::TurnEnv;
use crate::turn_env::inbox::Inbox;
use crate::{Edges, Missing, Platform};

/// The languages offered.
const LANGS: [Lang; 1] = [Lang::JavaScript];

/// There like the calculator (the sandbox reaches nothing), unless the
/// chat's assistant leaves it out.
pub struct Code;

impl<P: Platform> ToolKind<P> for Code {
    fn defs(&self, _p: &P, _prefs: &Prefs) -> Vec<ToolDef> {
        LANGS.iter().map(|l| tools::def(*l, &[])).collect()
    }

    fn add<'a>(&'a self, env: &'a TurnEnv<P>, snap: &'a Snapshot<'_>, toolbox: &'a mut Toolbox) -> LocalBoxFuture<'a, Result<(), Missing>> {
        // The chat's assistant may leave code out.
        for lang in LANGS.into_iter().filter(|_| snap.inputs.code) {
            toolbox.registry.register(Rc::new(RunCode { def: tools::def(lang, &files()), lang, p: env.p.clone() }));
        }
        Box::pin(std::future::ready(Ok(())))
    }
}

/// The chat's files the code can read (none yet).
fn files() -> Vec<ChatFile> {
    Vec::new()
}

struct RunCode<P> {
    def: ToolDef,
    lang: Lang,
    p: Rc<P>,
}

impl<P: Edges> Tool for RunCode<P> {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(&'a self, args: Value, ctx: CallContext<'a>) -> LocalBoxFuture<'a, ToolOutput> {
        Box::pin(run(&*self.p, self.lang, args, ctx))
    }
}

thread_local! {
    /// The number of the last run of this page (unique in it).
    static RUNS: Cell<u64> = const { Cell::new(0) };
}

async fn run<P: Edges>(p: &P, lang: Lang, args: Value, ctx: CallContext<'_>) -> ToolOutput {
    let request = match tools::request(lang, &args) {
        Ok(r) => r,
        Err(why) => return ToolOutput::error(why.to_string()),
    };
    let id = RUNS.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    let mut run = Run::new(id, lang, air_sandbox::Limits::of(lang), p.now_ms());
    let inbox = Inbox::default();
    p.run_code(run.start(&request, &files()), Vec::new(), inbox.clone());
    // The worker ends with the run, and with the turn if it is dropped.
    let _ends = Ends(p, id);
    drive(p, &mut run, &inbox, ctx).await.output()
}

/// Ends a run's worker when dropped.
struct Ends<'a, P: Edges>(&'a P, u64);

impl<P: Edges> Drop for Ends<'_, P> {
    fn drop(&mut self) {
        self.0.stop_code(self.1);
    }
}

/// Reads what the frame says until the run ends: by its own end, its
/// deadline, the user's Stop, or the frame going away.
async fn drive<P: Edges>(p: &P, run: &mut Run, inbox: &Inbox, ctx: CallContext<'_>) -> Outcome {
    loop {
        let wait = run.deadline().map_or(0.0, |d| (d - p.now_ms()).max(0.0));
        let ended = match select(inbox.next(), select(p.sleep(wait.ceil() as u64), ctx.abort.aborted())).await {
            Either::Left((Some((msg, bytes)), _)) => {
                let ended = run.on_message(&msg, bytes, p.now_ms());
                if let Some((loaded, total)) = run.progress() {
                    ctx.host.progress(air_tools::Progress { progress: loaded, total, message: Some("Getting the runtime ready".into()) });
                }
                ended
            }
            Either::Left((None, _)) => run.crashed("the sandbox frame went away", p.now_ms()),
            Either::Right((Either::Left(_), _)) => run.timed_out(p.now_ms()),
            Either::Right((Either::Right(_), _)) => run.stopped(p.now_ms()),
        };
        if let Some(outcome) = ended {
            return outcome;
        }
    }
}

#[cfg(test)]
#[path = "code_tests.rs"]
mod tests;
