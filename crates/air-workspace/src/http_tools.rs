//! The HTTP tools the user saves (`air_http_tools`): add one, save the
//! picks of an OpenAPI import, edit, switch on and off, remove. Every
//! change is checked with the tools already saved
//! ([`air_http_tools::validate_set`]) before it is kept; a bad one is a
//! [`Notice::HttpToolRefused`] and nothing changes. An OpenAPI document is
//! pasted, or fetched from its URL here (views do no IO), and read into
//! candidates ([`Importing::Ready`]). Checking and reading are the
//! platform's work ([`run`], in a part fetched on first use); changes are
//! checked one at a time, each against the tools as they are then.
//!
//! The saved tools are read after start-up ([`loading`], in the same
//! part): a change waits for them.
//!
//! A turn offers the enabled ones ([`register`]) beside the built-ins and
//! the MCP tools, through the same checks, policy and cards.

use std::rc::Rc;

use air_http::{Abort, Body, HttpClient, Request};
use air_http_tools::openapi::{self, Imported};
use air_http_tools::{HttpCall, HttpTool, validate_set};
use air_store::http_tools::{Saved, SavedHttpTool};
use air_tools::policy::Policy;
use air_tools::{Registry, Tool};

use crate::prefs::Touched;
use crate::{Command, Missing, Notice, Platform, Update, Workspace};

/// What the user does with the HTTP tools.
#[derive(Debug)]
pub enum Action {
    /// Saves a new tool (on).
    Add(Box<HttpTool>),
    /// Saves the candidates picked of an import (on), all or none.
    AddPicked(Vec<HttpTool>),
    /// Replaces the tool named `name` (the new one may be named
    /// otherwise); its switch stays as it was.
    Edit {
        name: String,
        tool: Box<HttpTool>,
    },
    Switch {
        name: String,
        on: bool,
    },
    Remove(String),
    /// Reads an OpenAPI document: pasted text, or fetched from its URL.
    Import(Source),
    /// The import is closed.
    CloseImport,
    /// The platform's work is done ([`run`]), or its part is missing.
    Done(Result<Found, Missing>),
}

/// Where an OpenAPI document comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    Text(String),
    Url(String),
}

/// Where an OpenAPI import stands.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Importing {
    #[default]
    Idle,
    /// The document is being fetched from this URL.
    Fetching(String),
    /// What it offers: the candidates to pick from, and what was skipped.
    Ready(Box<Imported>),
    /// It could not be fetched or read: why.
    Failed(String),
}

/// The core's part: which import is current, and the changes waiting
/// for the one being checked (one at a time, each against the tools as
/// they are then).
#[derive(Debug, Default)]
pub struct HttpTools {
    ticket: u64,
    checking: bool,
    /// The saved tools' text is being read.
    loading: bool,
    waiting: std::collections::VecDeque<Change>,
}

/// A change to check before it is kept.
#[derive(Debug)]
enum Change {
    Add(Vec<HttpTool>, bool),
    Edit(String, HttpTool),
}

/// The work that checks definitions and reads OpenAPI documents: the
/// platform runs it ([`run`]) in a part fetched on first use, so the
/// first screen does not carry it.
#[derive(Debug)]
pub enum Job {
    /// Read the saved tools' text.
    Load(String),
    /// Check `tools` (as they would be kept) and keep them; `picked`: the
    /// picks of an import.
    Check { tools: Vec<SavedHttpTool>, picked: bool },
    /// Read a document (fetched from `url` first if there is no text).
    Read { ticket: u64, text: Option<String>, url: Option<String> },
}

/// What the work found.
#[derive(Debug)]
pub enum Found {
    Loaded(Result<Vec<SavedHttpTool>, String>),
    Checked { result: Result<Vec<SavedHttpTool>, String>, picked: bool },
    Read { ticket: u64, state: Importing },
}

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) {
    match action {
        Action::Add(tool) => change(w, Change::Add(vec![*tool], false)),
        Action::AddPicked(tools) if tools.is_empty() => {}
        Action::AddPicked(tools) => change(w, Change::Add(tools, true)),
        Action::Edit { name, tool } => change(w, Change::Edit(name, *tool)),
        Action::Switch { name, on } => {
            let Some(t) = w.prefs.http_tools.list_mut().and_then(|l| l.iter_mut().find(|t| t.tool.name == name)) else { return };
            t.enabled = on;
            touched(w);
        }
        Action::Remove(name) => {
            let Some(list) = w.prefs.http_tools.list_mut() else { return };
            let before = list.len();
            list.retain(|t| t.tool.name != name);
            if list.len() != before {
                // A choice kept for it would fall to a later tool of its name.
                let settings = w.prefs.settings.tool_policies.tools.remove(&name).is_some();
                crate::prefs::save(w, Touched { http_tools: true, settings, ..Touched::default() });
            }
        }
        Action::Import(source) => import(w, source),
        Action::CloseImport => {
            w.http_tools.ticket += 1;
            w.emit(Update::HttpImport(Importing::Idle));
        }
        Action::Done(Ok(done)) => finished(w, done),
        Action::Done(Err(Missing)) => {
            if std::mem::take(&mut w.http_tools.loading) {
                // The changes waited for the tools, which cannot be read now.
                w.http_tools.waiting.clear();
            }
            w.http_tools.checking = false;
            w.emit(Update::Notice(Notice::PartMissing));
            next(w);
        }
    }
}

/// The saved tools' text is read, once (after start-up, or when a change
/// needs them).
pub(crate) fn loading<P: Platform>(w: &mut Workspace<P>) {
    if let Saved::Text(text) = &w.prefs.http_tools
        && !w.http_tools.loading
    {
        w.http_tools.loading = true;
        let job = Job::Load(text.clone());
        work(w, job);
    }
}

fn finished<P: Platform>(w: &mut Workspace<P>, done: Found) {
    match done {
        Found::Loaded(result) => {
            w.http_tools.loading = false;
            let Saved::Text(text) = w.prefs.http_tools.clone() else { return };
            let list = result.unwrap_or_else(|why| {
                // Kept aside before anything is written over it.
                if let Err(e) = air_store::http_tools::keep_aside(w.p.kv(), &text) {
                    w.emit(Update::Notice(Notice::PrefsUnreadable(format!("{why} (keeping it aside failed: {e})"))));
                } else {
                    w.emit(Update::Notice(Notice::PrefsUnreadable(why)));
                }
                Vec::new()
            });
            w.prefs.http_tools = Saved::Read(list.clone());
            w.emit(Update::HttpTools(list));
            next(w);
        }
        Found::Read { ticket, state } if ticket == w.http_tools.ticket => w.emit(Update::HttpImport(state)),
        Found::Read { .. } => {}
        Found::Checked { result, picked } => {
            w.http_tools.checking = false;
            match result {
                Ok(all) => {
                    // A document's tools ask before each call, whatever
                    // their method, until the user allows them.
                    let mut settings = false;
                    for t in all.iter().filter(|_| picked) {
                        let known = w.prefs.http_tools.list().is_some_and(|l| l.iter().any(|b| b.tool.name == t.tool.name));
                        if !known {
                            settings |= w.prefs.settings.tool_policies.tools.insert(t.tool.name.clone(), Policy::Ask) != Some(Policy::Ask);
                        }
                    }
                    w.prefs.http_tools = Saved::Read(all);
                    crate::prefs::save(w, Touched { http_tools: true, settings, ..Touched::default() });
                    w.emit(Update::HttpToolSaved);
                    if picked {
                        w.emit(Update::HttpImport(Importing::Idle));
                    }
                }
                Err(why) => w.emit(Update::Notice(Notice::HttpToolRefused(why))),
            }
            next(w);
        }
    }
}

fn change<P: Platform>(w: &mut Workspace<P>, change: Change) {
    w.http_tools.waiting.push_back(change);
    loading(w);
    next(w);
}

/// Checks the next change waiting, against the tools as they are now
/// (once read).
fn next<P: Platform>(w: &mut Workspace<P>) {
    if w.http_tools.checking {
        return;
    }
    let Some(mut tools) = w.prefs.http_tools.list().cloned() else { return };
    let Some(change) = w.http_tools.waiting.pop_front() else { return };
    let picked = match change {
        Change::Add(new, picked) => {
            tools.extend(new.into_iter().map(SavedHttpTool::new));
            picked
        }
        Change::Edit(name, new) => {
            let Some(i) = tools.iter().position(|t| t.tool.name == name) else { return next(w) };
            tools[i] = SavedHttpTool { enabled: tools[i].enabled, ..SavedHttpTool::new(new) };
            false
        }
    };
    w.http_tools.checking = true;
    work(w, Job::Check { tools, picked });
}

fn work<P: Platform>(w: &mut Workspace<P>, job: Job) {
    let running = w.p.run_http_tools(job);
    w.spawn(async move { Some(Command::HttpTools(Action::Done(running.await))) });
}

fn touched<P: Platform>(w: &mut Workspace<P>) {
    crate::prefs::save(w, Touched { http_tools: true, ..Touched::default() });
}

fn import<P: Platform>(w: &mut Workspace<P>, source: Source) {
    w.http_tools.ticket += 1;
    let ticket = w.http_tools.ticket;
    let url = match source {
        Source::Text(text) => return work(w, Job::Read { ticket, text: Some(text), url: None }),
        Source::Url(url) => url.trim().to_owned(),
    };
    if !air_http::url::is_http(&url) {
        return w.emit(Update::HttpImport(Importing::Failed(format!("\"{url}\" is not an http(s) address"))));
    }
    w.emit(Update::HttpImport(Importing::Fetching(url.clone())));
    work(w, Job::Read { ticket, text: None, url: Some(url) });
}

/// Does `job` (the platform's part): a change checked with the tools kept
/// ([`air_http_tools::validate_set`], and no built-in's name), a document
/// fetched and read.
pub async fn run<C: HttpClient>(http: &C, job: Job) -> Found {
    match job {
        Job::Load(text) => Found::Loaded(air_store::http_tools::read(&text)),
        Job::Check { tools, picked } => {
            let defs: Vec<HttpTool> = tools.iter().map(|t| t.tool.clone()).collect();
            let why = validate_set(&defs).err().map(|e| e.to_string()).or_else(|| builtin_clash(&defs));
            Found::Checked { result: why.map_or(Ok(tools), Err), picked }
        }
        Job::Read { ticket, text: Some(text), url } => Found::Read { ticket, state: read(&text, url.as_deref()) },
        Job::Read { ticket, text: None, url } => {
            let url = url.unwrap_or_default();
            let state = match fetch(http, &url).await {
                Ok(text) => read(&text, Some(&url)),
                Err(why) => Importing::Failed(why),
            };
            Found::Read { ticket, state }
        }
    }
}

/// Names the built-in tools take: an HTTP tool may not take their place.
const BUILT_IN: &[&str] = &["calculator", "get_current_time"];

fn builtin_clash(tools: &[HttpTool]) -> Option<String> {
    let t = tools.iter().find(|t| BUILT_IN.contains(&t.name.as_str()))?;
    Some(format!("the tool name \"{}\" is a built-in tool's; choose another", t.name))
}

/// The document's text, or why it could not be had.
async fn fetch<C: HttpClient>(http: &C, url: &str) -> Result<String, String> {
    let response = http.send(Request::get(url), &Abort::new()).await.map_err(|e| format!("it could not be fetched ({e}); the server may not allow requests from a web page (CORS)"))?;
    let status = response.status;
    let text = response.body.text().await.map_err(|e| format!("it could not be read ({e})"))?;
    if !(200..300).contains(&status) {
        return Err(format!("the server answered {status}"));
    }
    Ok(text)
}

fn read(text: &str, url: Option<&str>) -> Importing {
    match openapi::import_text(text, url) {
        Ok(imported) => Importing::Ready(Box::new(imported)),
        Err(e) => Importing::Failed(e.to_string()),
    }
}

/// The enabled tools of `saved` (a turn's: read if need be) over `http`.
pub fn tools<C: HttpClient + 'static>(saved: &Saved, http: Rc<C>) -> Vec<Rc<dyn Tool>> {
    saved.tools().into_iter().filter(|t| t.enabled).map(|t| Rc::new(HttpCall::new(t.tool, http.clone())) as Rc<dyn Tool>).collect()
}

/// Registers `tools` (from [`tools`]); a name the registry holds already
/// (a built-in's) keeps its tool.
pub fn register(registry: &mut Registry, tools: Vec<Rc<dyn Tool>>) {
    for tool in tools {
        if registry.get(&tool.def().name).is_none() {
            registry.register(tool);
        }
    }
}

#[cfg(test)]
#[path = "http_tools_tests.rs"]
mod tests;
