//! The browser as the rest of the app sees it: the one place in `app/`
//! that reads the clock, makes ids, sets timers or sends HTTP requests.
//! The turn's environment (`chat::BrowserEnv`), state and views go through
//! these functions. (A tidy test keeps it that way.) Nothing here knows the
//! app's state.

use air_chat::ChatError;
use air_store::Settings;
use leptos::prelude::*;

/// The HTTP client: `fetch`.
pub type Http = air_web::FetchClient;

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> f64 {
    air_web::now_ms()
}

/// A new random id (a UUID).
pub fn new_id() -> String {
    air_web::new_id()
}

/// Resolves after `ms` milliseconds.
pub async fn sleep(ms: u64) {
    air_web::sleep(ms).await;
}

/// Runs `f` after `ms` milliseconds.
pub fn after(ms: u64, f: impl FnOnce() + 'static) {
    set_timeout(f, std::time::Duration::from_millis(ms));
}

/// Local date (`YYYY-MM-DD`) and time (`HH:MM`).
pub fn local_date_time() -> (String, String) {
    air_web::local_date_time()
}

/// The local date and time of `ms` since the epoch (`YYYY-MM-DD HH:MM:SS`).
pub fn local_time_of(ms: f64) -> String {
    air_web::local_time_of(ms)
}

/// Whether the page is served from this machine (`./dev serve`, whose
/// local model server is the default provider).
pub fn page_on_loopback() -> bool {
    // The origin never changes while the page lives: read it once.
    static ON_LOOPBACK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON_LOOPBACK.get_or_init(|| air_web::page_origin().is_some_and(|o| air_http::url::is_loopback_url(&o)))
}

/// The browser's language tag, e.g. `zh-CN`.
pub fn locale() -> String {
    air_web::locale()
}

/// The browser's languages, most preferred first (a first run's UI
/// language follows them).
pub fn languages() -> Vec<String> {
    air_web::languages()
}

/// A GET through `fetch`: the status and the body as text; `None` when
/// nothing could be read.
pub async fn get_text(url: &str) -> Option<(u16, String)> {
    use air_http::{Body, HttpClient};
    let response = Http::default().send(air_http::Request::get(url), &air_http::Abort::new()).await.ok()?;
    let status = response.status;
    Some((status, response.body.text().await.ok()?))
}

/// The bytes at `url` (a file of the site), or why not.
pub async fn get_bytes(url: &str) -> Result<Vec<u8>, String> {
    use air_http::{Body, HttpClient};
    let response = Http::default().send(air_http::Request::get(url), &air_http::Abort::new()).await.map_err(|e| e.to_string())?;
    if response.status != 200 {
        return Err(format!("{url}: HTTP {}", response.status));
    }
    response.body.bytes(MAX_SITE_FILE).await.map_err(|e| format!("{url}: {e}"))
}

/// The largest file of the site read whole (Pyodide's wasm is under 10 MB).
const MAX_SITE_FILE: usize = 256 << 20;

/// `GET {base}/models` through `fetch`.
pub async fn list_models(settings: &Settings) -> Result<Vec<String>, ChatError> {
    air_agent::provider::list_models(&Http::default(), settings).await
}
