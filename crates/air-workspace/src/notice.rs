//! What a person is told, as data (the page words it): a [`Notice`], and
//! for a store failure the [`StoreOp`] it happened in.

use air_store::StoreError;

/// What a person is told, as data (the page words it).
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// Kept preferences could not be read: defaults are in use (why, and
    /// where the old value was kept).
    PrefsUnreadable(String),
    /// The store could not be opened; a store in memory is in use.
    StoreFellBack(String),
    /// A store operation failed.
    Store { op: StoreOp, error: StoreError },
    /// A part of the app could not be fetched.
    PartMissing,
    /// Sync set aside this many documents no device of the database made.
    SyncRefused(u64),
    /// A file could not be handed to the browser to save.
    DownloadFailed(String),
    /// A file picked to attach is not attached, and why.
    FileRefused { name: String, why: air_store::files::Refusal },
    /// A file picked to attach could not be read.
    FileUnreadable { name: String, error: String },
    /// Listed again, a server offers new tools: they wait for the user.
    NewTools { server: String, added: usize },
    /// A sign-in that took the whole page failed.
    SignInFailed(air_servers::credentials::SignInError),
    /// An HTTP tool was not saved: why (nothing changed).
    HttpToolRefused(String),
}

/// What the store was doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreOp {
    ReadSessions,
    ReadMessages,
    SaveMessage,
    /// A finished answer (or a call's result) could not be saved.
    SaveAnswer,
    /// An answer could not be replaced (regenerate, continue).
    Replace,
    /// A message could not be changed (edit and resend).
    Change,
    Export,
    Delete,
    Rename,
    /// A preference could not be saved.
    Prefs,
}
