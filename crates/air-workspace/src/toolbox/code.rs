//! Code the model writes, run in the page's sandbox (`air-sandbox`):
//! `run_javascript` and `run_python`. The run is the core's (its limits,
//! deadline, Stop and end, `air_sandbox::run::Run`); the platform only
//! carries its messages ([`crate::Edges::run_code`]), fetches the site's
//! files the runtime asks for ([`crate::Edges::site_file`]: QuickJS's
//! own, Pyodide's and the packages its lockfile offers, nothing else) and
//! ends its worker.
//!
//! The code reads the conversation's files (what the user attached and
//! earlier runs wrote, `air_sandbox::files::chat_files`): the model is
//! told which when the turn starts, and a run is given those stored when
//! it is called (the platform posts them from the store by id).

use std::cell::Cell;
use std::rc::Rc;

use air_sandbox::Lang;
use air_sandbox::files::chat_files;
use air_sandbox::javascript;
use air_sandbox::python::{self, Site};
use air_sandbox::run::{Outcome, Run};
use air_sandbox::tools::{self, ChatFile};
use air_store::Store;
use air_tools::{CallContext, Tool, ToolDef, ToolOutput};
use futures_util::StreamExt as _;
use futures_util::future::{Either, LocalBoxFuture, select};
use futures_util::stream::FuturesUnordered;
use serde_json::{Value, json};

use super::{Snapshot, ToolKind, Toolbox};
use crate::prefs::Prefs;
use crate::turn_env::TurnEnv;
use crate::turn_env::inbox::Inbox;
use crate::{Edges, Missing, Platform};

/// The languages offered.
const LANGS: [Lang; 2] = [Lang::JavaScript, Lang::Python];

/// There like the calculator (the sandbox reaches nothing), unless the
/// chat's assistant leaves it out.
pub struct Code;

impl<P: Platform> ToolKind<P> for Code {
    fn defs(&self, _p: &P, _prefs: &Prefs) -> Vec<ToolDef> {
        LANGS.iter().map(|l| tools::def(*l, &[])).collect()
    }

    fn add<'a>(&'a self, env: &'a TurnEnv<P>, snap: &'a Snapshot<'_>, toolbox: &'a mut Toolbox) -> LocalBoxFuture<'a, Result<(), Missing>> {
        Box::pin(async move {
            // The chat's assistant may leave code out.
            if !snap.inputs.code {
                return Ok(());
            }
            let files = told_files(&*env.store, snap).await;
            for lang in LANGS {
                toolbox.registry.register(Rc::new(RunCode { def: tools::def(lang, &files), lang, p: env.p.clone(), store: env.store.clone() }));
            }
            Ok(())
        })
    }
}

/// The files the model is told the code can read: the conversation's and
/// those of the message being sent.
async fn told_files<S: Store>(store: &S, snap: &Snapshot<'_>) -> Vec<ChatFile> {
    let stored = match snap.session {
        Some(session) => stored_files(store, session).await,
        None => Vec::new(),
    };
    let sending = snap.sending.iter().map(|f| ChatFile { id: String::new(), name: f.name.clone(), mime: f.mime.clone(), size: f.bytes.len() as u64 });
    chat_files(stored.into_iter().chain(sending))
}

/// Every file of the conversation `session`, in its order (none when it
/// cannot be read).
async fn stored_files<S: Store>(store: &S, session: &str) -> Vec<ChatFile> {
    let messages = store.messages(session).await.unwrap_or_default();
    messages.into_iter().flat_map(|m| m.attachments).map(|a| ChatFile { id: a.id, name: a.name, mime: a.mime, size: a.size }).collect()
}

struct RunCode<P: Edges> {
    def: ToolDef,
    lang: Lang,
    p: Rc<P>,
    store: Rc<P::Store>,
}

impl<P: Edges> Tool for RunCode<P> {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(&'a self, args: Value, ctx: CallContext<'a>) -> LocalBoxFuture<'a, ToolOutput> {
        Box::pin(run(&*self.p, &*self.store, self.lang, args, ctx))
    }
}

thread_local! {
    /// The number of the last run of this page (unique in it).
    static RUNS: Cell<u64> = const { Cell::new(0) };
}

async fn run<P: Edges>(p: &P, store: &P::Store, lang: Lang, args: Value, ctx: CallContext<'_>) -> ToolOutput {
    let request = match tools::request(lang, &args) {
        Ok(r) => r,
        Err(why) => return ToolOutput::error(why.to_string()),
    };
    let id = RUNS.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    let mut run = Run::new(id, lang, air_sandbox::Limits::of(lang), p.now_ms());
    // Python needs the site's lockfile: what it may fetch, and whether
    // the packages asked for are there at all.
    let site = match lang {
        Lang::JavaScript => None,
        Lang::Python => match select(Box::pin(site(p)), ctx.abort.aborted()).await {
            Either::Left((Ok(site), _)) => Some(site),
            Either::Left((Err(why), _)) => return ToolOutput::error(format!("Python is not available here: {why}")),
            Either::Right(_) => return run.stopped(p.now_ms()).map(|o| o.output()).unwrap_or_else(|| ToolOutput::error("Stopped by the user.")),
        },
    };
    if let Some((site, _)) = &site {
        let missing = site.missing(&request.packages);
        if !missing.is_empty() {
            return run.missing(missing, site.offered(), p.now_ms()).output();
        }
    }
    // The conversation's files as they are now (a run before may have
    // written some).
    let files = match ctx.host.session() {
        Some(session) => chat_files(stored_files(store, session).await),
        None => Vec::new(),
    };
    let inbox = Inbox::default();
    p.run_code(run.start(&request, &files), files.into_iter().map(|f| f.id).collect(), inbox.clone());
    // The worker ends with the run, and with the turn if it is dropped.
    let _ends = Ends(p, id);
    drive(p, &mut run, lang, site.as_ref(), &inbox, ctx).await.output()
}

/// The site's Python: its lockfile, read, and its bytes (what the
/// runtime is given when it asks for it).
async fn site<P: Edges>(p: &P) -> Result<(Site, Vec<u8>), String> {
    let bytes = p.site_file(&format!("{}{}", python::DIR, python::LOCK)).await?;
    Ok((Site::parse(&bytes).map_err(|e| e.to_string())?, bytes))
}

/// Ends a run's worker when dropped.
struct Ends<'a, P: Edges>(&'a P, u64);

impl<P: Edges> Drop for Ends<'_, P> {
    fn drop(&mut self) {
        self.0.stop_code(self.1);
    }
}

/// A file of the site fetched for the runtime: its name and bytes, or why not.
type Fetched = (String, Result<Vec<u8>, String>);

/// Reads what the frame says until the run ends: by its own end, its
/// deadline, the user's Stop, or the frame going away. Files of the site
/// the runtime asks for are fetched meanwhile, as many at once as it asks.
async fn drive<P: Edges>(p: &P, run: &mut Run, lang: Lang, site: Option<&(Site, Vec<u8>)>, inbox: &Inbox, ctx: CallContext<'_>) -> Outcome {
    let mut fetches: FuturesUnordered<LocalBoxFuture<'static, Fetched>> = FuturesUnordered::new();
    loop {
        while let Some(file) = run.wanted() {
            if let Some(fetch) = serve(p, run, lang, site, file) {
                fetches.push(fetch);
            }
        }
        let wait = run.deadline().map_or(0.0, |d| (d - p.now_ms()).max(0.0));
        let fetched = async { if fetches.is_empty() { std::future::pending().await } else { fetches.next().await } };
        let ended = match select(select(inbox.next(), Box::pin(fetched)), select(p.sleep(wait.ceil() as u64), ctx.abort.aborted())).await {
            Either::Left((Either::Left((Some((msg, bytes)), _)), _)) => run.on_message(&msg, bytes, p.now_ms()),
            Either::Left((Either::Left((None, _)), _)) => run.crashed("the sandbox frame went away", p.now_ms()),
            Either::Left((Either::Right((Some((file, got)), _)), _)) => {
                answer(p, run, file, got);
                if let Some((loaded, total)) = run.progress() {
                    ctx.host.progress(air_tools::Progress { progress: loaded, total, message: Some(format!("Getting {} ready", lang.name())) });
                }
                None
            }
            Either::Left((Either::Right((None, _)), _)) => None,
            Either::Right((Either::Left(_), _)) => run.timed_out(p.now_ms()),
            Either::Right((Either::Right(_), _)) => run.stopped(p.now_ms()),
        };
        if let Some(outcome) = ended {
            return outcome;
        }
    }
}

/// What the runtime asked for: refused at once unless the site offers
/// it, Python's lockfile from what was read, the rest fetched.
fn serve<P: Edges>(p: &P, run: &mut Run, lang: Lang, site: Option<&(Site, Vec<u8>)>, file: String) -> Option<LocalBoxFuture<'static, Fetched>> {
    match (lang, site) {
        (Lang::JavaScript, _) if javascript::servable(&file) => return Some(fetch(p, javascript::DIR, file, None)),
        (Lang::JavaScript, _) => answer(p, run, file, Err("not a file of this site's JavaScript".into())),
        (Lang::Python, Some((site, _))) if !site.servable(&file) => answer(p, run, file, Err("not a file of this site's Python".into())),
        (Lang::Python, Some((_, lock))) if file == python::LOCK => answer(p, run, file, Ok(lock.clone())),
        // A package's file is checked against the lockfile; the runtime's own are not listed there.
        (Lang::Python, Some((site, _))) => return Some(fetch(p, python::DIR, file.clone(), site.package(&file).cloned())),
        (Lang::Python, None) => answer(p, run, file, Err("the site's lockfile was not read".into())),
    }
    None
}

/// The site's `dir``file`, checked against `package` when it is one.
fn fetch<P: Edges>(p: &P, dir: &str, file: String, package: Option<python::Package>) -> LocalBoxFuture<'static, Fetched> {
    let fetch = p.site_file(&format!("{dir}{file}"));
    Box::pin(async move {
        let got = fetch.await.and_then(|bytes| package.map_or(Ok(()), |p| p.check(&bytes)).map(|()| bytes));
        (file, got)
    })
}

/// Gives the runtime the file it asked for, or why not.
fn answer<P: Edges>(p: &P, run: &mut Run, file: String, got: Result<Vec<u8>, String>) {
    let id = run.id();
    match got {
        Ok(bytes) => {
            run.fetched(bytes.len(), p.now_ms());
            p.tell_code(json!({"t": "file", "run": id, "file": file, "ok": true}), vec![bytes]);
        }
        Err(why) => p.tell_code(json!({"t": "file", "run": id, "file": file, "ok": false, "why": why}), Vec::new()),
    }
}

#[cfg(test)]
#[path = "code_tests.rs"]
mod tests;
