//! Everything the core needs from where it runs. The browser implements it
//! over IndexedDB and localStorage; [`crate::fake::FakePlatform`] in memory,
//! with a clock the test moves.

use std::rc::Rc;

use air_store::search::SearchResults;
use air_store::{KeyValue, Store, StoreError};
use futures_util::future::LocalBoxFuture;

use crate::Missing;

pub trait Platform: 'static {
    type Store: Store + 'static;
    type Kv: KeyValue;

    /// Milliseconds since the epoch.
    fn now_ms(&self) -> f64;
    /// A new unique id.
    fn new_id(&self) -> String;
    /// Today's date where the user is (`2026-11-25`), for file names.
    fn local_date(&self) -> String;
    /// Hands a file to the browser to save.
    fn download(&self, name: &str, mime: &str, text: &str) -> Result<(), String>;
    /// The text of an export of the conversations (or `only` one), with
    /// `settings` in a whole one ([`crate::data::export_text`]).
    fn export(&self, only: Option<String>, format: crate::data::Format, settings: air_store::Settings) -> LocalBoxFuture<'static, Result<Result<Option<String>, StoreError>, Missing>>;
    /// Imports an export's text ([`crate::data::import_text`]).
    fn import(&self, text: String) -> LocalBoxFuture<'static, Result<Result<(usize, usize), crate::data::ImportFailure>, Missing>>;
    /// How much is stored; asks the browser to keep it.
    fn storage_info(&self) -> LocalBoxFuture<'static, crate::data::StorageInfo>;
    /// The small key/value store (localStorage): read and written at once.
    fn kv(&self) -> &Self::Kv;
    /// Opens the store; `Some(error)`: it could not, and a store in memory
    /// is in use instead (nothing is kept past this page).
    fn open_store(&self) -> LocalBoxFuture<'static, Option<String>>;
    /// The store, once opened.
    fn store(&self) -> Option<Rc<Self::Store>>;
    /// Searches the store's index (the part that ranks and quotes is
    /// fetched with the first search).
    fn search(&self, query: String) -> LocalBoxFuture<'static, Result<Result<SearchResults, StoreError>, Missing>>;
    /// Builds the store's search index again from every message.
    fn rebuild_index(&self) -> LocalBoxFuture<'static, Result<Result<(), StoreError>, Missing>>;
}
