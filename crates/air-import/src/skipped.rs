//! What an import could not read, and why ([`Skipped`]): a type the app
//! words (the text here is the English).

use crate::Source;

/// A conversation, a list or a file an import left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Skipped {
    /// File `file` (counted from 1) is another app's.
    #[error("file {file} is not from {}: import it on its own", app.name())]
    OtherApp { file: usize, app: Source },
    /// A file chosen is not an export of `source`.
    #[error("a file that is not {}", export_of(*.0))]
    NotAnExport(Source),
    /// The store named holds no conversations.
    #[error("{0}: no sessions")]
    NoSessions(String),
    /// What should be a list (`topics`, `messages`) is not.
    #[error("{0}: not a list")]
    NotAList(String),
    /// Entries of a list that are not records.
    #[error("{what}: {count} entries that are not records")]
    NotRecords { what: String, count: usize },
    /// The conversation `title` has no id (in `field`).
    #[error("\"{title}\": no id ({field})")]
    NoId { title: String, field: &'static str },
    /// The conversation `title` has no messages (in `field`).
    #[error("\"{title}\": no messages ({field})")]
    NoMessages { title: String, field: &'static str },
    /// Conversation `number` (counted from 1) is not an object.
    #[error("conversation {0}: not an object")]
    NotAnObject(usize),
}

fn export_of(source: Source) -> String {
    match source {
        Source::NextChat => "a NextChat backup".to_owned(),
        other => format!("a {} export", other.name()),
    }
}
