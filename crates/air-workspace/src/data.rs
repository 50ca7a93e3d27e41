//! The user's data as files: export (every conversation with the
//! settings, one conversation, or one as Markdown), import, and how much is
//! stored.

use air_store::export::{self, Export};
use air_store::http_tools::Saved;
use air_store::{Settings, Store, StoreError};

use crate::{Command, Missing, Notice, Platform, StoreOp, Update, Workspace};

/// What the store holds, of how much it may, and whether it is kept.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StorageInfo {
    /// (used, quota) in bytes, where the browser says.
    pub usage: Option<(f64, f64)>,
    /// The browser keeps the data under storage pressure.
    pub persistent: bool,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq)]
pub enum ImportOutcome {
    Done(Imported),
    /// The file is not an export this app reads, or the store failed.
    Failed(String),
    /// The store is full.
    StorageFull,
}

/// How an export is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Every conversation, with the settings (the key only if asked).
    All { secrets: bool },
    /// One conversation, as JSON.
    One,
    /// One conversation, as Markdown.
    Markdown,
}

/// Why an import did not happen.
#[derive(Debug, Clone, PartialEq)]
pub enum ImportFailure {
    /// The file is not an export this app reads.
    Refused(String),
    Store(StoreError),
}

/// The text of an export (`None`: nothing to export); a whole one carries
/// the settings and the HTTP tools (`kept`). Its code is heavy: the
/// platform runs it in a part fetched on first use.
pub async fn export_text<S: Store>(store: &S, only: Option<&str>, format: Format, kept: (&Settings, &Saved), now_ms: f64) -> Result<Option<String>, StoreError> {
    let sessions = export::collect(store, only).await?;
    Ok(match format {
        Format::Markdown => sessions.first().map(export::markdown),
        Format::One => Some(Export::new(sessions, now_ms).to_json()),
        Format::All { secrets } => Some(Export::new(sessions, now_ms).with_settings(kept.0, secrets).with_http_tools(&kept.1.tools(), secrets).to_json()),
    })
}

/// What an import wrote, and, for another app's export, which app's and
/// what it held.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Imported {
    pub sessions: usize,
    pub messages: usize,
    pub from: Option<(air_import::Source, air_import::Summary)>,
    /// What the files chosen held that was not read (a ZIP's entries,
    /// each with why), to be said with the rest.
    pub left_out: Vec<String>,
}

/// Imports the text of an export: this app's, or another app's that
/// `air_import` reads (several texts: the parts of a split export).
/// `progress` hears (conversations done, of how many). Run in a part
/// fetched on first use.
pub async fn import_text<S: Store>(store: &S, texts: &[String], now_ms: f64, new_id: &mut dyn FnMut() -> String, progress: &mut dyn FnMut(usize, usize)) -> Result<Imported, ImportFailure> {
    let (doc, from) = match texts {
        [] => return Err(ImportFailure::Refused("the file is empty".into())),
        [one] => match Export::parse(one) {
            Ok(doc) => (doc, None),
            Err(ours) => other_app(texts, now_ms).ok_or_else(|| ImportFailure::Refused(ours.to_string()))?,
        },
        _ => other_app(texts, now_ms).ok_or_else(|| ImportFailure::Refused("these files are not the parts of one export".into()))?,
    };
    let (sessions, messages) = air_store::import::import_with(store, &doc, new_id, progress).await.map_err(ImportFailure::Store)?;
    Ok(Imported { sessions, messages, from, left_out: Vec::new() })
}

/// An export, and which app it came from with what its conversion kept.
type Read = (Export, Option<(air_import::Source, air_import::Summary)>);

/// Another app's export, read by `air_import`.
fn other_app(texts: &[String], now_ms: f64) -> Option<Read> {
    let values: Vec<serde_json::Value> = texts.iter().map(|t| serde_json::from_str(t)).collect::<Result<_, _>>().ok()?;
    let (source, doc, summary) = air_import::read(&values, now_ms)?;
    Some((doc, Some((source, summary))))
}

/// What export and import are asked, and the answers of their tasks.
#[derive(Debug)]
pub enum Action {
    /// Download the conversations (or `only` one) as a file; a whole
    /// export carries the settings.
    Export {
        only: Option<String>,
        format: Format,
    },
    /// Import an export: its text, or the texts of its parts (a split
    /// one); `left_out`: what the files held that is not among them
    /// (a ZIP's entries not read, each with why), for the summary.
    Import {
        texts: Vec<String>,
        left_out: Vec<String>,
    },
    /// How much is stored.
    WantStorage,
    /// An export's text (`None`: nothing to export).
    Collected {
        format: Format,
        result: Result<Result<Option<String>, StoreError>, Missing>,
    },
    Imported(Result<Result<Imported, ImportFailure>, Missing>),
    Storage(StorageInfo),
}

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) {
    match action {
        Action::Export { only, format } => {
            let asked = w.p.export(only, format, w.prefs.settings.clone(), w.prefs.http_tools.clone());
            w.spawn(async move { Some(Command::Data(Action::Collected { format, result: asked.await })) });
        }
        Action::Import { texts, left_out } => {
            let asked = w.p.import(texts);
            w.spawn(async move {
                let done = asked.await.map(|r| r.map(|done| Imported { left_out, ..done }));
                Some(Command::Data(Action::Imported(done)))
            });
        }
        Action::WantStorage => storage(w),
        Action::Collected { format, result } => collected(w, format, result),
        Action::Imported(result) => imported(w, result),
        Action::Storage(info) => w.emit(Update::Storage(info)),
    }
}

fn collected<P: Platform>(w: &mut Workspace<P>, format: Format, result: Result<Result<Option<String>, StoreError>, Missing>) {
    let text = match result {
        Ok(Ok(Some(text))) => text,
        Ok(Ok(None)) => return,
        Ok(Err(error)) => return w.emit(Update::Notice(Notice::Store { op: StoreOp::Export, error })),
        Err(Missing) => return w.emit(Update::Notice(Notice::PartMissing)),
    };
    let date = w.p.local_date();
    let (name, mime) = match format {
        Format::Markdown => (format!("air-agent-conversation-{date}.md"), "text/markdown"),
        Format::One => (format!("air-agent-conversation-{date}.json"), "application/json"),
        Format::All { .. } => (format!("air-agent-export-{date}.json"), "application/json"),
    };
    if let Err(e) = w.p.download(&name, mime, &text) {
        w.emit(Update::Notice(Notice::DownloadFailed(e)));
    }
}

fn imported<P: Platform>(w: &mut Workspace<P>, result: Result<Result<Imported, ImportFailure>, Missing>) {
    match result {
        Ok(Ok(done)) => {
            w.emit(Update::Import(ImportOutcome::Done(done)));
            // What came in shows here and in the other tabs.
            w.reload_sessions();
            w.emit(Update::SessionsChanged);
            w.reopen();
            storage(w);
        }
        Ok(Err(ImportFailure::Store(StoreError::QuotaExceeded(_)))) => w.emit(Update::Import(ImportOutcome::StorageFull)),
        Ok(Err(ImportFailure::Store(e))) => w.emit(Update::Import(ImportOutcome::Failed(e.to_string()))),
        Ok(Err(ImportFailure::Refused(e))) => w.emit(Update::Import(ImportOutcome::Failed(e))),
        Err(Missing) => w.emit(Update::Notice(Notice::PartMissing)),
    }
}

fn storage<P: Platform>(w: &mut Workspace<P>) {
    let info = w.p.storage_info();
    w.spawn(async move { Some(Command::Data(Action::Storage(info.await))) });
}

#[cfg(test)]
#[path = "data_tests.rs"]
mod tests;
