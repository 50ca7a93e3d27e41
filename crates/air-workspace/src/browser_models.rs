//! Settings → Provider → In this browser: the GGUF models the page runs
//! itself. What is offered (the site's own list, `models/index.json`
//! beside the app, then a few known small models), what is stored, one
//! download at a time with its progress (stopped, it resumes where it
//! stopped), a file picked from the disk, and deletion.

use air_http::Abort;
use serde_json::Value;

use crate::{Command, Missing, Notice, Platform, Update, Workspace};

/// A model to download: `name` is the file name it is stored and asked
/// for by; `size` and `sha256`, where known, are checked once it is in.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Offer {
    pub name: String,
    pub title: String,
    pub url: String,
    pub size: Option<u64>,
    /// Shown when the exact size is not known.
    pub about_mb: Option<u32>,
    pub sha256: Option<String>,
    pub licence: String,
    /// Whether its chat template calls tools natively (otherwise tools go
    /// in the prompt).
    pub tools: bool,
    pub languages: String,
}

impl Offer {
    /// Its size in MB (exact, or as known), for "download N MB once".
    pub fn mb(&self) -> Option<u32> {
        self.size.map(|s| s.div_ceil(1_000_000) as u32).or(self.about_mb)
    }

    /// Any GGUF by its URL: named after the URL's last segment (without a
    /// query or fragment). `None` for an empty URL.
    pub fn by_url(url: &str) -> Option<Offer> {
        let url = url.trim();
        let name = url.rsplit('/').next().unwrap_or_default().split(['?', '#']).next().unwrap_or_default();
        (!url.is_empty()).then(|| Offer { title: name.into(), name: name.into(), url: url.into(), ..Offer::default() })
    }
}

/// The site's own list (`models/index.json` beside the app: `{"models":
/// [{name, title, url, size, sha256, licence, tools, languages}]}`, `url`
/// relative to the list). An entry without a name or a URL, or with a
/// name that is not a plain file name, is left out.
pub fn site_list(text: &str, list_url: &str) -> Result<Vec<Offer>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("models/index.json: {e}"))?;
    let entries = value.get("models").and_then(Value::as_array).ok_or("models/index.json has no \"models\" list")?;
    let text_of = |e: &Value, k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default().trim().to_owned();
    let base = list_url.rsplit_once('/').map_or("", |(dir, _)| dir);
    Ok(entries
        .iter()
        .filter_map(|e| {
            let name = text_of(e, "name");
            let url = text_of(e, "url");
            let plain = !name.starts_with('.') && name.chars().all(|c| c.is_ascii_alphanumeric() || "._+-".contains(c));
            if name.is_empty() || url.is_empty() || !plain || name.len() > 200 {
                return None;
            }
            let url = if url.contains("://") { url } else { format!("{base}/{}", url.trim_start_matches("./")) };
            let sha256 = Some(text_of(e, "sha256")).filter(|h| h.len() == 64 && h.chars().all(|c| c.is_ascii_hexdigit()));
            let title = Some(text_of(e, "title")).filter(|t| !t.is_empty()).unwrap_or_else(|| name.clone());
            let tools = e.get("tools").and_then(Value::as_bool).unwrap_or(false);
            let size = e.get("size").and_then(Value::as_u64).filter(|s| *s > 0);
            Some(Offer { title, url, size, about_mb: None, sha256, licence: text_of(e, "licence"), tools, languages: text_of(e, "languages"), name })
        })
        .collect())
}

/// What is offered: the site's own models, then the known ones not among
/// them.
pub fn offered(site: Vec<Offer>) -> Vec<Offer> {
    let mut offered = site;
    for k in known() {
        if !offered.iter().any(|o| o.name == k.name) {
            offered.push(k);
        }
    }
    offered
}

/// Known small chat models, after the site's own (their sizes are as
/// published; what arrives is checked as a GGUF file).
pub fn known() -> Vec<Offer> {
    let offer = |name: &str, title: &str, url: &str, about_mb: u32, licence: &str, tools: bool, languages: &str| Offer {
        name: name.into(),
        title: title.into(),
        url: url.into(),
        size: None,
        about_mb: Some(about_mb),
        sha256: None,
        licence: licence.into(),
        tools,
        languages: languages.into(),
    };
    vec![
        offer(
            "qwen2.5-0.5b-instruct-q4_k_m.gguf",
            "Qwen2.5 0.5B Instruct (Q4_K_M)",
            "https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf",
            491,
            "Apache-2.0",
            true,
            "29 languages, Chinese and English among them",
        ),
        offer(
            "Llama-3.2-1B-Instruct-Q4_K_M.gguf",
            "Llama 3.2 1B Instruct (Q4_K_M)",
            "https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/main/Llama-3.2-1B-Instruct-Q4_K_M.gguf",
            808,
            "Llama 3.2 Community License",
            true,
            "English, German, French, Italian, Portuguese, Hindi, Spanish, Thai",
        ),
    ]
}

/// A model stored in the browser.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stored {
    pub name: String,
    /// Where it came from (empty: a file from the disk).
    pub url: String,
    /// Its whole size, when known.
    pub size: u64,
    /// How much of it is stored.
    pub stored: u64,
    /// Downloaded whole and checked.
    pub complete: bool,
}

/// A download under way.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub name: String,
    pub got: u64,
    /// 0: not known yet.
    pub total: u64,
}

/// What Settings shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct State {
    /// The site's own models, then the known ones (each once).
    pub offered: Vec<Offer>,
    pub stored: Vec<Stored>,
    pub downloading: Option<Progress>,
    /// The last download, file or deletion that failed, and why.
    pub error: Option<String>,
    /// Bytes used and the quota of the browser's storage (models count).
    pub usage: Option<(f64, f64)>,
}

impl State {
    /// Every row to show: what is offered, then what is stored but not
    /// offered (added by URL or from a file).
    pub fn rows(&self) -> Vec<Offer> {
        let others = self.stored.iter().filter(|s| !self.offered.iter().any(|o| o.name == s.name));
        let others = others.map(|s| Offer { name: s.name.clone(), title: s.name.clone(), url: s.url.clone(), size: Some(s.size), ..Offer::default() });
        self.offered.iter().cloned().chain(others).collect()
    }
}

#[derive(Debug)]
pub enum Action {
    /// The provider was chosen, or its section opened: what is stored and offered.
    Open,
    /// "Chat in this browser", one click on a first run: the provider
    /// becomes this browser's, with a stored model if there is one, else
    /// the first offered, downloaded now.
    ChatHere,
    Download(Offer),
    /// Stops the download (what is stored stays, to resume).
    Stop,
    Delete(String),
    /// A file picked from the disk (the page keeps it until it is stored).
    StoreFile,
    Progress {
        name: String,
        got: u64,
        total: u64,
    },
    /// What the page did (its part could not be fetched: `Missing`).
    Done(Result<Reply, Missing>),
}

/// What the page did.
#[derive(Debug)]
pub enum Reply {
    /// What is stored, what is offered ([`offered`]), the storage used.
    Listed {
        stored: Result<Vec<Stored>, String>,
        offered: Vec<Offer>,
        usage: Option<(f64, f64)>,
    },
    Downloaded {
        name: String,
        result: Result<(), String>,
    },
    /// A file was stored (its name) or not.
    FileStored(Result<String, String>),
    Deleted(Result<(), String>),
}

/// The page's side of it.
#[derive(Debug, Clone)]
pub enum Job {
    /// What is stored, and what is offered (the site's list first).
    List,
    /// Downloads the offer, resuming; asks for persistent storage first.
    Download(Offer, Abort),
    StoreFile,
    Delete(String),
}

#[derive(Debug, Default)]
pub(crate) struct BrowserModels {
    state: State,
    abort: Option<Abort>,
    /// `ChatHere` waits for the list.
    chat_here: bool,
}

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) {
    let m = &mut w.browser_models;
    match action {
        Action::Open => run(w, Job::List),
        Action::ChatHere => {
            m.chat_here = true;
            run(w, Job::List);
        }
        Action::Download(offer) => {
            if m.state.downloading.is_some() {
                return;
            }
            let abort = Abort::new();
            m.abort = Some(abort.clone());
            m.state.error = None;
            m.state.downloading = Some(Progress { name: offer.name.clone(), got: 0, total: offer.size.unwrap_or(0) });
            emit(w);
            run(w, Job::Download(offer, abort));
        }
        Action::Stop => {
            if let Some(abort) = m.abort.take() {
                abort.abort();
            }
        }
        Action::Delete(name) => run(w, Job::Delete(name)),
        Action::StoreFile => run(w, Job::StoreFile),
        Action::Progress { name, got, total } => {
            if let Some(p) = m.state.downloading.as_mut().filter(|p| p.name == name) {
                p.got = got;
                p.total = total;
                emit(w);
            }
        }
        Action::Done(done) => finished(w, done),
    }
}

fn finished<P: Platform>(w: &mut Workspace<P>, done: Result<Reply, Missing>) {
    let m = &mut w.browser_models;
    let Ok(done) = done else {
        m.abort = None;
        m.state.downloading = None;
        emit(w);
        return w.emit(Update::Notice(Notice::PartMissing));
    };
    let listed = matches!(done, Reply::Listed { .. });
    let downloaded = matches!(done, Reply::Downloaded { result: Ok(_), .. });
    match done {
        Reply::Listed { stored, offered, usage } => {
            match stored {
                Ok(stored) => m.state.stored = stored,
                Err(e) => m.state.error = Some(e),
            }
            m.state.offered = offered;
            m.state.usage = usage;
        }
        Reply::Downloaded { name, result } => {
            m.abort = None;
            if m.state.downloading.as_ref().is_some_and(|p| p.name == name) {
                m.state.downloading = None;
            }
            m.state.error = result.err().filter(|e| e != "stopped").map(|e| format!("{name}: {e}"));
        }
        Reply::FileStored(result) => m.state.error = result.err(),
        Reply::Deleted(result) => m.state.error = result.err(),
    }
    emit(w);
    if downloaded {
        // The model is here: it can read the first message's request ahead.
        w.read_ahead();
    }
    if !listed {
        run(w, Job::List);
    } else if std::mem::take(&mut w.browser_models.chat_here) {
        chat_here(w);
    }
}

/// Makes this browser the provider, with the model stored (or the first
/// offered, whose download starts).
fn chat_here<P: Platform>(w: &mut Workspace<P>) {
    let state = &w.browser_models.state;
    let stored = state.stored.iter().find(|s| s.complete).map(|s| s.name.clone());
    let offer = state.offered.first().cloned();
    let Some(model) = stored.clone().or_else(|| offer.as_ref().map(|o| o.name.clone())) else { return };
    let mut settings = w.prefs.settings.clone();
    settings.apply_preset(air_store::settings::BROWSER_PRESET);
    settings.model = model;
    let _settings = crate::prefs::handle(w, crate::prefs::Action::Change(crate::prefs::Change::Settings(Box::new(settings))));
    if let (None, Some(offer)) = (stored, offer) {
        handle(w, Action::Download(offer));
    }
}

fn run<P: Platform>(w: &mut Workspace<P>, job: Job) {
    let done = w.p.browser_models(job);
    w.spawn(async move { Some(Command::BrowserModels(Action::Done(done.await))) });
}

fn emit<P: Platform>(w: &mut Workspace<P>) {
    let state = w.browser_models.state.clone();
    w.emit(Update::BrowserModels(state));
}

#[cfg(test)]
#[path = "browser_models_tests.rs"]
mod tests;
