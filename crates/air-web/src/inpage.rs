//! The in-browser provider's engine (`engine/inpage.js` beside the app,
//! llama.cpp compiled to WebAssembly): fetched on first use, it answers
//! requests to [`air_store::settings::BROWSER_BASE_URL`] as a server would,
//! and keeps the models in the Origin Private File System.

use wasm_bindgen::{JsCast, JsValue, closure::Closure};
use wasm_bindgen_futures::JsFuture;

use crate::{is_abort, js_text};

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// `import(url)`, defined by `boot.js` (wasm cannot write it).
    #[wasm_bindgen(js_name = __airImport, catch)]
    fn air_import(url: &str) -> Result<js_sys::Promise, JsValue>;
}

/// The engine's module (the browser fetches it once; later calls get the
/// same module).
async fn engine() -> Result<JsValue, String> {
    let url = crate::page_url("engine/inpage.js").ok_or("the page has no address")?;
    let promise = air_import(&url).map_err(|e| js_text(&e))?;
    JsFuture::from(promise).await.map_err(|e| format!("the in-browser engine could not be loaded: {}", js_text(&e)))
}

/// Calls the engine's `name` with `args`, awaiting what it returns.
async fn call(name: &str, args: &[&JsValue]) -> Result<JsValue, JsValue> {
    let module = engine().await.map_err(|e| JsValue::from_str(&e))?;
    let f: js_sys::Function = js_sys::Reflect::get(&module, &name.into())?.dyn_into()?;
    let array: js_sys::Array = args.iter().copied().collect();
    let value = f.apply(&module, &array)?;
    match value.dyn_into::<js_sys::Promise>() {
        Ok(p) => JsFuture::from(p).await,
        Err(v) => Ok(v),
    }
}

/// Answers a request to the in-browser provider (a rejection is the
/// engine's error, or an abort).
pub(crate) async fn respond(request: &web_sys::Request) -> Result<web_sys::Response, JsValue> {
    call("respond", &[request]).await?.dyn_into().map_err(|_| JsValue::from_str("the in-browser engine returned a non-Response"))
}

/// A model stored in this browser.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Stored {
    pub name: String,
    /// Where it was downloaded from (empty: from a local file).
    pub url: String,
    /// Its whole size, when known.
    pub size: f64,
    /// How much of it is stored.
    pub stored: f64,
    /// Downloaded whole and checked.
    pub complete: bool,
}

/// The models stored.
pub async fn list() -> Result<Vec<Stored>, String> {
    let value = call("list", &[]).await.map_err(|e| js_text(&e))?;
    serde_wasm_bindgen::from_value(value).map_err(|e| e.to_string())
}

/// Deletes a stored model.
pub async fn remove(name: &str) -> Result<(), String> {
    call("remove", &[&name.into()]).await.map(|_| ()).map_err(|e| js_text(&e))
}

/// Downloads a model (resuming what is stored of it), calling `progress`
/// with the bytes stored and the whole size (0: not known) as it goes;
/// `abort` stops it (what is stored stays, for a later resume).
pub async fn download(name: &str, url: &str, size: Option<u64>, sha256: Option<&str>, progress: impl Fn(f64, f64) + 'static, abort: &web_sys::AbortSignal) -> Result<(), String> {
    let spec = js_sys::Object::new();
    let set = |k: &str, v: JsValue| js_sys::Reflect::set(&spec, &k.into(), &v).map(|_| ());
    set("name", name.into()).map_err(|e| js_text(&e))?;
    set("url", url.into()).map_err(|e| js_text(&e))?;
    set("size", size.map_or(JsValue::UNDEFINED, |s| JsValue::from_f64(s as f64))).map_err(|e| js_text(&e))?;
    set("sha256", sha256.map_or(JsValue::UNDEFINED, JsValue::from_str)).map_err(|e| js_text(&e))?;
    let progress = Closure::<dyn Fn(f64, f64)>::new(progress);
    let result = call("download", &[&spec, progress.as_ref(), abort]).await;
    drop(progress);
    result.map(|_| ()).map_err(|e| if is_abort(&e) { "stopped".into() } else { js_text(&e) })
}

/// Stores a model from a file the user picked; its name.
pub async fn store_file(file: &web_sys::File) -> Result<String, String> {
    let value = call("storeFile", &[file]).await.map_err(|e| js_text(&e))?;
    value.as_string().ok_or_else(|| "no name".into())
}
