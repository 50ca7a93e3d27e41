//! The browser edge: the only crate that touches web-sys, js-sys,
//! IndexedDB, localStorage and `fetch`.
//!
//! Each module is a thin adapter from a browser API to a plain Rust
//! interface defined elsewhere (`air_store::Store`, `air_store::KeyValue`) or
//! to bytes the sans-IO cores consume (`http`). Logic does not belong here:
//! everything that can be tested on the host lives in the core crates.

pub mod http;
pub mod idb;
pub mod kv;

pub use http::{Abort, BodyReader, FetchError, HttpResponse};
pub use idb::IdbStore;
pub use kv::LocalStorage;

/// Milliseconds since the Unix epoch, from the browser's clock.
pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// A random UUID (v4) from `crypto.randomUUID`, or a time-and-random-based
/// fallback where that is missing (non-secure contexts).
pub fn new_id() -> String {
    if let Some(crypto) = web_sys::window().and_then(|w| w.crypto().ok()) {
        return crypto.random_uuid();
    }
    format!("{:x}-{:x}", now_ms() as u64, (js_sys::Math::random() * 1e15) as u64)
}

/// The browser's language tag, e.g. `zh-CN`.
pub fn locale() -> String {
    web_sys::window().and_then(|w| w.navigator().language()).unwrap_or_else(|| "en".into())
}
