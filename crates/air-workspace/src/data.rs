//! The user's data as files: export (every conversation with the
//! settings, one conversation, or one as Markdown), import, and how much is
//! stored.

use air_store::export::{self, Export};
use air_store::StoreError;

use crate::{Command, Done, Notice, Platform, StoreOp, Update, Workspace};

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
    Done { sessions: usize, messages: usize },
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

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, cmd: Command) {
    match cmd {
        Command::Export { only, format } => collect(w, only, format),
        Command::Import(text) => import(w, text),
        Command::WantStorage => storage(w),
        Command::Done(Done::Collected { format, result }) => collected(w, format, result),
        Command::Done(Done::Imported(result)) => imported(w, result),
        Command::Done(Done::Storage(info)) => w.emit(Update::Storage(info)),
        _ => {}
    }
}

fn collect<P: Platform>(w: &mut Workspace<P>, only: Option<String>, format: Format) {
    let Some(store) = w.p.store() else { return };
    w.spawn(async move {
        let result = export::collect(&*store, only.as_deref()).await;
        Some(Command::Done(Done::Collected { format, result }))
    });
}

fn collected<P: Platform>(w: &mut Workspace<P>, format: Format, result: Result<Vec<export::ExportedSession>, StoreError>) {
    let sessions = match result {
        Ok(s) => s,
        Err(error) => return w.emit(Update::Notice(Notice::Store { op: StoreOp::Export, error })),
    };
    let date = w.p.local_date();
    let (name, mime, text) = match format {
        Format::Markdown => {
            let Some(one) = sessions.first() else { return };
            (format!("air-agent-conversation-{date}.md"), "text/markdown", export::markdown(one))
        }
        Format::One => (format!("air-agent-conversation-{date}.json"), "application/json", Export::new(sessions, w.p.now_ms()).to_json()),
        Format::All { secrets } => {
            let doc = Export::new(sessions, w.p.now_ms()).with_settings(&w.prefs.settings, secrets);
            (format!("air-agent-export-{date}.json"), "application/json", doc.to_json())
        }
    };
    if let Err(e) = w.p.download(&name, mime, &text) {
        w.emit(Update::Notice(Notice::DownloadFailed(e)));
    }
}

fn import<P: Platform>(w: &mut Workspace<P>, text: String) {
    let Some(store) = w.p.store() else { return };
    let doc = match Export::parse(&text) {
        Ok(doc) => doc,
        Err(e) => return w.emit(Update::Import(ImportOutcome::Failed(e))),
    };
    let p = w.p.clone();
    w.spawn(async move {
        let result = air_store::import::import(&*store, &doc, &mut || p.new_id()).await;
        Some(Command::Done(Done::Imported(result)))
    });
}

fn imported<P: Platform>(w: &mut Workspace<P>, result: Result<(usize, usize), StoreError>) {
    match result {
        Ok((sessions, messages)) => {
            w.emit(Update::Import(ImportOutcome::Done { sessions, messages }));
            // What came in shows here and in the other tabs.
            w.handle(Command::ReloadSessions);
            w.emit(Update::SessionsChanged);
            w.handle(Command::Reopen);
            storage(w);
        }
        Err(StoreError::QuotaExceeded(_)) => w.emit(Update::Import(ImportOutcome::StorageFull)),
        Err(e) => w.emit(Update::Import(ImportOutcome::Failed(e.to_string()))),
    }
}

fn storage<P: Platform>(w: &mut Workspace<P>) {
    let info = w.p.storage_info();
    w.spawn(async move { Some(Command::Done(Done::Storage(info.await))) });
}

#[cfg(test)]
#[path = "data_tests.rs"]
mod tests;
