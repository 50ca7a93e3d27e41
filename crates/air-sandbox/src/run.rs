//! One run, between the page and the sandbox frame, as a state machine:
//! the message that starts it, every message the frame sends read as
//! hostile, the deadline the page terminates the worker at, and how it
//! ended.
//!
//! The frame speaks JSON objects `{"t": kind, "run": id, …}`:
//! `need {file}` (the runtime asks for a file of the site: the page
//! answers `file {run, file, ok, why?}` with its bytes beside it, see
//! [`Run::wanted`]; each answer is progress), `started` (the code runs
//! from now), `out {text}` and `err {text}`, and one end: `done {value?,
//! files: [{name}]}` (the files' bytes beside the message, in order),
//! `raised {name, message, files}` (the code threw), `crashed {message}`
//! (the worker failed outside the code). Whether the site offers the
//! packages asked for is the page's to say ([`Run::missing`]), never the
//! frame's.

use serde_json::{Value, json};

use crate::files::{self, Dropped, OutFile};
use crate::tools::{ChatFile, Request};
use crate::{Lang, Limits};

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// The code ran to its end.
    Finished,
    /// The code threw: its exception's name and message.
    Raised { name: String, message: String },
    /// It ran past its time and was stopped.
    TimedOut { limit_ms: u64 },
    /// The runtime gave no sign of progress for this long while it loaded.
    Stalled { ms: u64 },
    /// The user stopped it.
    Stopped,
    /// The worker or its frame died (out of memory, a browser error).
    Crashed(String),
    /// Packages the site does not offer, and those it does.
    Missing { packages: Vec<String>, available: Vec<String> },
}

/// A run's end and what it gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub lang: Lang,
    pub end: End,
    pub stdout: String,
    pub stderr: String,
    /// The last expression's value as text (`None`: there was none).
    pub value: Option<String>,
    /// Characters of stdout, stderr and the value left out past the limit.
    pub cut: usize,
    pub files: Vec<OutFile>,
    pub dropped: Vec<Dropped>,
    /// From the code's start to its end (`None`: it never started).
    pub ran_ms: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// The runtime is being made ready; the last sign of it then.
    Loading {
        since: f64,
    },
    Running {
        since: f64,
    },
    Ended,
}

/// One run.
#[derive(Debug)]
pub struct Run {
    id: u64,
    lang: Lang,
    limits: Limits,
    phase: Phase,
    stdout: Capped,
    stderr: Capped,
    cut: usize,
    progress: Option<(f64, Option<f64>)>,
    /// Messages not read (another run's, malformed, after the end).
    ignored: usize,
    /// Files of the site the runtime asked for, not yet taken.
    wanted: Vec<String>,
}

impl Run {
    /// A run numbered `id` (unique in the page), asked at `now_ms`.
    pub fn new(id: u64, lang: Lang, limits: Limits, now_ms: f64) -> Self {
        Self { id, lang, limits, phase: Phase::Loading { since: now_ms }, stdout: Capped::default(), stderr: Capped::default(), cut: 0, progress: None, ignored: 0, wanted: Vec::new() }
    }

    /// The message that starts `request` in the frame; the bytes of
    /// `files` go beside it, in the same order.
    pub fn start(&self, request: &Request, files: &[ChatFile]) -> Value {
        json!({
            "t": "run",
            "run": self.id,
            "lang": request.lang.wire(),
            "code": request.code,
            "packages": request.packages,
            "files": files.iter().map(|f| json!({"name": f.name, "type": f.mime})).collect::<Vec<_>>(),
            "limits": {"output": self.limits.output_chars, "files": self.limits.files, "fileBytes": self.limits.file_bytes, "memory": self.limits.memory_bytes},
        })
    }

    /// Its number in the page.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Not started: the site does not offer `packages` (it offers
    /// `available`).
    pub fn missing(&mut self, packages: Vec<String>, available: Vec<String>, now_ms: f64) -> Outcome {
        self.end_with(End::Missing { packages, available }, &Value::Null, Vec::new(), now_ms)
    }

    /// When the page terminates the worker unless the run has ended.
    pub fn deadline(&self) -> Option<f64> {
        match self.phase {
            Phase::Loading { since } => Some(since + self.limits.stall_ms as f64),
            Phase::Running { since } => Some(since + self.limits.run_ms as f64),
            Phase::Ended => None,
        }
    }

    /// The runtime's download so far (bytes, and of how many), while it loads.
    pub fn progress(&self) -> Option<(f64, Option<f64>)> {
        matches!(self.phase, Phase::Loading { .. }).then_some(self.progress).flatten()
    }

    /// Whether the code is running (its time counts).
    pub fn running(&self) -> bool {
        matches!(self.phase, Phase::Running { .. })
    }

    /// The next file of the site the runtime asked for (as it named it:
    /// the page fetches it only if the site offers it, see
    /// [`crate::python::Site::servable`]). Answering counts as progress.
    pub fn wanted(&mut self) -> Option<String> {
        (!self.wanted.is_empty()).then(|| self.wanted.remove(0))
    }

    /// The page answered a file the runtime asked for (`bytes` of it) at
    /// `now_ms`: the runtime is making progress.
    pub fn fetched(&mut self, bytes: usize, now_ms: f64) {
        if let Phase::Loading { .. } = self.phase {
            let (loaded, total) = self.progress.unwrap_or((0.0, None));
            self.progress = Some((loaded + bytes as f64, total));
            self.phase = Phase::Loading { since: now_ms };
        }
    }

    /// Messages that were not this run's to read.
    pub fn ignored(&self) -> usize {
        self.ignored
    }

    /// A message from the frame, with the bytes posted beside it. `Some`:
    /// the run has ended (the worker can go).
    pub fn on_message(&mut self, msg: &Value, bytes: Vec<Vec<u8>>, now_ms: f64) -> Option<Outcome> {
        let ours = msg.get("run").and_then(Value::as_u64) == Some(self.id) && self.phase != Phase::Ended;
        let kind = msg.get("t").and_then(Value::as_str).filter(|_| ours);
        let text = |k: &str| msg.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
        match kind {
            Some("need") if self.wanted.len() < 100 => {
                let file = text("file");
                if crate::python::plain(&file) {
                    self.wanted.push(file);
                } else {
                    self.ignored += 1;
                }
            }
            Some("started") if matches!(self.phase, Phase::Loading { .. }) => self.phase = Phase::Running { since: now_ms },
            Some("out") => self.cut += self.stdout.push(&text("text"), self.limits.output_chars),
            Some("err") => self.cut += self.stderr.push(&text("text"), self.limits.output_chars),
            Some("done") => return Some(self.end_with(End::Finished, msg, bytes, now_ms)),
            Some("raised") => {
                let end = End::Raised { name: text("name"), message: capped(&text("message"), 2_000) };
                return Some(self.end_with(end, msg, bytes, now_ms));
            }
            Some("crashed") => return self.crashed(&text("message"), now_ms),
            _ => self.ignored += 1,
        }
        None
    }

    /// Past its deadline at `now_ms`: how it ended (`None`: not yet).
    pub fn timed_out(&mut self, now_ms: f64) -> Option<Outcome> {
        let due = self.deadline().is_some_and(|d| now_ms >= d);
        let end = match self.phase {
            _ if !due => return None,
            Phase::Loading { .. } => End::Stalled { ms: self.limits.stall_ms },
            _ => End::TimedOut { limit_ms: self.limits.run_ms },
        };
        Some(self.end_with(end, &Value::Null, Vec::new(), now_ms))
    }

    /// The user stopped it (`None`: it had ended already).
    pub fn stopped(&mut self, now_ms: f64) -> Option<Outcome> {
        (self.phase != Phase::Ended).then(|| self.end_with(End::Stopped, &Value::Null, Vec::new(), now_ms))
    }

    /// The worker or its frame died, `why` as the browser said it.
    pub fn crashed(&mut self, why: &str, now_ms: f64) -> Option<Outcome> {
        (self.phase != Phase::Ended).then(|| self.end_with(End::Crashed(capped(why, 500)), &Value::Null, Vec::new(), now_ms))
    }

    fn end_with(&mut self, end: End, msg: &Value, bytes: Vec<Vec<u8>>, now_ms: f64) -> Outcome {
        let ran_ms = match self.phase {
            Phase::Running { since } => Some((now_ms - since).max(0.0)),
            _ => None,
        };
        self.phase = Phase::Ended;
        let mut cut = self.cut;
        let value = msg.get("value").filter(|v| !v.is_null()).map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned));
        let value = value.map(|v| {
            let mut kept = Capped::default();
            cut += kept.push(&v, self.limits.output_chars);
            kept.text
        });
        let names = msg.get("files").and_then(Value::as_array).into_iter().flatten().map(|f| f.get("name").and_then(Value::as_str).unwrap_or_default().to_owned());
        let written: Vec<(String, Vec<u8>)> = names.zip(bytes).collect();
        let (files, dropped) = files::keep(written, &self.limits);
        Outcome { lang: self.lang, end, stdout: std::mem::take(&mut self.stdout.text), stderr: std::mem::take(&mut self.stderr.text), value, cut, files, dropped, ran_ms }
    }
}

/// Text kept up to a limit of characters.
#[derive(Debug, Default)]
struct Capped {
    text: String,
    chars: usize,
}

impl Capped {
    /// Appends what fits of `text` under `limit` characters in all; the
    /// characters left out.
    fn push(&mut self, text: &str, limit: usize) -> usize {
        let mut chars = text.chars();
        let room = limit.saturating_sub(self.chars);
        for c in chars.by_ref().take(room) {
            self.text.push(c);
            self.chars += 1;
        }
        chars.count()
    }
}

fn capped(text: &str, limit: usize) -> String {
    text.chars().take(limit).collect()
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
