//! Everything the core needs from where it runs. The browser implements it
//! over IndexedDB and localStorage; [`crate::fake::FakePlatform`] in memory,
//! with a clock the test moves.

use std::rc::Rc;

use air_store::{KeyValue, Store};
use futures_util::future::LocalBoxFuture;

pub trait Platform: 'static {
    type Store: Store + 'static;
    type Kv: KeyValue;

    /// Milliseconds since the epoch.
    fn now_ms(&self) -> f64;
    /// The small key/value store (localStorage): read and written at once.
    fn kv(&self) -> &Self::Kv;
    /// Opens the store; `Some(error)`: it could not, and a store in memory
    /// is in use instead (nothing is kept past this page).
    fn open_store(&self) -> LocalBoxFuture<'static, Option<String>>;
    /// The store, once opened.
    fn store(&self) -> Option<Rc<Self::Store>>;
}
