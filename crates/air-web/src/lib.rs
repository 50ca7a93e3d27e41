//! The browser edge: the only crate that touches web-sys, js-sys, wasm-bindgen, IndexedDB
//! (through rexie), localStorage and `fetch` (a tidy test holds it).
//!
//! Each module is a thin adapter from a browser API to a plain Rust interface defined elsewhere
//! (`air_store::Store`, `air_store::KeyValue`, `air_http::HttpClient`, `air_sync_local::crypto`)
//! or to bytes the sans-IO cores consume. Logic does not belong here: everything that can be
//! tested on the host lives in the core crates. Tested in headless Chromium with
//! wasm-bindgen-test (`tests/`).
//!
//! * `http`: `FetchClient` (the `Abort` drives an `AbortController`; the body is read chunk by
//!   chunk, a large delivery copied into wasm memory 64 KiB at a time; a request carrying a key
//!   sets `redirect: "manual"`), and `answers_without_cors`, the `no-cors` probe that tells "the
//!   server answered but CORS hid it" from "nothing answered". `send` hands every request to
//!   `air_store::settings::BROWSER_BASE_URL` (an `.invalid` host) to `inpage`.
//! * `inpage`: the "In this browser" provider's engine (`engine/inpage.js`, over npm
//!   `@wllama/wllama` in a Web Worker), fetched with `import()` on first use. It answers as an
//!   OpenAI-compatible server would (`/models`, streamed `/chat/completions`), so the turn, Stop,
//!   usage and tool calls run the same code as for any provider. Models are kept in the Origin
//!   Private File System in pieces of at most 32 MiB, each written whole, so a cut download
//!   resumes at the last whole piece (with a `Range` request); a finished one is checked (size,
//!   GGUF magic, sha256 where known) before it is marked complete.
//! * `idb`: `IdbStore` (schema in its module docs, version `air_store::DB_VERSION`).
//!   `messages_page` walks `by_session` backwards, so opening a long session reads one page.
//!   A full quota surfaces only as an aborted transaction (rexie does not pass its error on);
//!   the app never aborts its writes, so an aborted write is `QuotaExceeded`. The page opens it
//!   with `open_unmigrated` and migrates in a part of its own only when `needs_migration`.
//! * `kv` (`LocalStorageKv`), `crypto` (WebCrypto, non-extractable keys, secure contexts only),
//!   `zoned` (`BrowserClock`: `Intl` carries the IANA zones), `channel` (BroadcastChannel to the
//!   other tabs), `lock` (Web Locks: the tab holding `air-agent-sync` syncs for the browser
//!   until it closes), `popup` (sign-in windows), `frame` (MCP App frames), `rows` (a
//!   `ResizeObserver` on a long list's rows, the row at a scroller's top), `runner` (the
//!   sandboxed frame code the model writes runs in, `runner.html`: runs posted with their bytes,
//!   its messages routed back by run, the frame gone once idle).
//! * At the root: clock, ids (`crypto.randomUUID`), locale and languages, clipboard, file
//!   download and reading by slices, `scale_image` (`createImageBitmap`, `OffscreenCanvas`),
//!   `image_url` (a `blob:` URL typed to show only as an image), `navigator.storage`,
//!   `performance.mark`, timers, `append_blocks` over `Groups` (a streaming answer's finished
//!   blocks in one HTML parse; groups of sixteen blocks get `content-visibility: auto`), math
//!   typesetting and code-block Preview clicks.

pub mod channel;
pub mod crypto;
pub mod frame;
pub mod http;
pub mod idb;
pub mod inpage;
pub mod kv;
pub mod lock;
pub mod popup;
pub mod rows;
pub mod runner;
pub mod zoned;

pub use http::{Abort, BodyReader, FetchClient, FetchError, HttpResponse};
pub use idb::IdbStore;
pub use kv::LocalStorageKv;

/// A JavaScript error's message (or the value as text).
pub(crate) fn js_text(v: &wasm_bindgen::JsValue) -> String {
    use wasm_bindgen::JsCast;
    if let Some(e) = v.dyn_ref::<js_sys::Error>() {
        return String::from(e.message());
    }
    v.as_string().unwrap_or_else(|| format!("{v:?}"))
}

/// Whether a rejection is an abort.
pub(crate) fn is_abort(v: &wasm_bindgen::JsValue) -> bool {
    use wasm_bindgen::JsCast;
    v.dyn_ref::<web_sys::DomException>().map(|e| e.name() == "AbortError").unwrap_or(false) || js_sys::Reflect::get(v, &"name".into()).ok().and_then(|n| n.as_string()).as_deref() == Some("AbortError")
}

/// Milliseconds since the Unix epoch, from the browser's clock.
pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// A random UUID (v4): `crypto.randomUUID` in a secure context, otherwise
/// (a plain-http LAN address, where that function does not exist) one built
/// from `crypto.getRandomValues`.
pub fn new_id() -> String {
    let Some(window) = web_sys::window() else { return fallback_id() };
    let Ok(crypto) = window.crypto() else { return fallback_id() };
    if window.is_secure_context() {
        return crypto.random_uuid();
    }
    let mut b = [0u8; 16];
    if crypto.get_random_values_with_u8_array(&mut b).is_err() {
        return fallback_id();
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
}

fn fallback_id() -> String {
    format!("{:x}-{:x}", now_ms() as u64, (js_sys::Math::random() * 1e15) as u64)
}

/// The page's own origin (`https://app.example`).
/// `path` resolved against the page's address (the app's own files).
pub fn page_url(path: &str) -> Option<String> {
    let base = web_sys::window()?.document()?.base_uri().ok().flatten()?;
    web_sys::Url::new_with_base(path, &base).ok().map(|u| u.href())
}

pub fn page_origin() -> Option<String> {
    web_sys::window()?.location().origin().ok()
}

/// The browser's language tag, e.g. `zh-CN`.
pub fn locale() -> String {
    web_sys::window().and_then(|w| w.navigator().language()).unwrap_or_else(|| "en".into())
}

/// The browser's languages, most preferred first (`navigator.languages`,
/// else `navigator.language`), e.g. `["zh-CN", "en"]`; empty if it says none.
pub fn languages() -> Vec<String> {
    let Some(navigator) = web_sys::window().map(|w| w.navigator()) else { return Vec::new() };
    let listed: Vec<String> = navigator.languages().iter().filter_map(|l| l.as_string()).collect();
    if listed.is_empty() { navigator.language().into_iter().collect() } else { listed }
}

/// Whether the viewport is narrower than the mobile breakpoint (768 px).
pub fn narrow_screen() -> bool {
    web_sys::window().and_then(|w| w.inner_width().ok()).and_then(|w| w.as_f64()).map(|w| w < 768.0).unwrap_or(false)
}

/// Local date (`YYYY-MM-DD`) and time (`HH:MM`).
pub fn local_date_time() -> (String, String) {
    let d = js_sys::Date::new_0();
    (format!("{:04}-{:02}-{:02}", d.get_full_year(), d.get_month() + 1, d.get_date()), format!("{:02}:{:02}", d.get_hours(), d.get_minutes()))
}

/// The local date and time of `ms` since the epoch (`YYYY-MM-DD HH:MM:SS`).
pub fn local_time_of(ms: f64) -> String {
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms));
    format!("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", d.get_full_year(), d.get_month() + 1, d.get_date(), d.get_hours(), d.get_minutes(), d.get_seconds())
}

/// Copies text to the clipboard (best effort: the browser may refuse
/// outside a user gesture or a secure context).
pub fn copy_text(text: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}

/// Handles a click inside rendered Markdown: a click on a code block's copy
/// button copies that block's code. Returns whether the click was one.
pub fn handle_copy_click(event: &web_sys::Event) -> bool {
    use wasm_bindgen::JsCast;
    let Some(target) = event.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return false };
    let Ok(Some(button)) = target.closest("[data-copy-code]") else { return false };
    let code = button.closest(".code-block").ok().flatten().and_then(|block| block.query_selector("code").ok().flatten()).and_then(|code| code.text_content());
    match code {
        Some(code) => {
            copy_text(&code);
            let _ = button.class_list().add_1("copied");
            true
        }
        None => false,
    }
}

thread_local! {
    /// The open previews' listeners (see [`handle_preview_click`]).
    static PREVIEWS: std::cell::RefCell<Vec<(web_sys::HtmlIFrameElement, frame::FrameListener)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// If the click was on a code block's Preview button: shows the code
/// under the block in a frame of the app's sandbox page (`sandbox.html`,
/// framed with `allow-scripts` only, so an opaque origin with no access to
/// this page's storage), or hides it if shown. `document` turns the
/// block's language and code into the page to show (`None`: not
/// previewable); `title` names the frame.
pub fn handle_preview_click(event: &web_sys::Event, document: impl Fn(&str, &str) -> Option<String>, title: &str) -> bool {
    use wasm_bindgen::JsCast;
    let Some(target) = event.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return false };
    let Ok(Some(button)) = target.closest("[data-preview-code]") else { return false };
    let Ok(Some(block)) = button.closest(".code-block") else { return false };
    let text_of = |selector: &str| block.query_selector(selector).ok().flatten().and_then(|e| e.text_content()).unwrap_or_default();
    // Shown: hide it.
    if let Some(next) = block.next_element_sibling().filter(|n| n.class_list().contains("code-preview")) {
        next.remove();
        let _ = button.set_attribute("aria-expanded", "false");
        PREVIEWS.with(|p| p.borrow_mut().retain(|(f, _)| f.is_connected()));
        return true;
    }
    let Some(page) = document(&text_of(".code-lang"), &text_of("code")) else { return false };
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return false };
    let (Ok(holder), Ok(frame)) = (doc.create_element("div"), doc.create_element("iframe")) else { return false };
    let Ok(frame) = frame.dyn_into::<web_sys::HtmlIFrameElement>() else { return false };
    holder.set_class_name("code-preview");
    let _ = frame.set_attribute("sandbox", "allow-scripts");
    let _ = frame.set_attribute("title", title);
    let _ = frame.set_attribute("data-testid", "code-preview");
    let title = title.to_owned();
    // Sent each time the proxy says it is ready: a frame moved in the page
    // (an answer's blocks moving to the saved message) loads again.
    let listener = frame::listen(&frame, {
        let frame = frame.clone();
        move |msg| {
            if msg.get("method").and_then(serde_json::Value::as_str) == Some("ui/notifications/sandbox-proxy-ready") {
                frame::post(
                    &frame,
                    &serde_json::json!({"jsonrpc": "2.0", "method": "ui/notifications/sandbox-resource-ready",
                        "params": {"html": page, "title": title}}),
                );
            }
        }
    });
    frame.set_src("sandbox.html");
    let _ = holder.append_child(&frame);
    let _ = block.after_with_node_1(&holder);
    let _ = button.set_attribute("aria-expanded", "true");
    PREVIEWS.with(|p| {
        let mut p = p.borrow_mut();
        // Previews no longer in the page stop listening.
        p.retain(|(f, _)| f.is_connected());
        if let Some(l) = listener {
            p.push((frame, l));
        }
    });
    true
}

/// Resolves after `ms` milliseconds (a `setTimeout` as a future).
pub async fn sleep(ms: u64) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms.min(i32::MAX as u64) as i32);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Sets (or with `None` removes) an attribute on `<html>`, e.g. `data-theme`.
pub fn set_root_attribute(name: &str, value: Option<&str>) {
    if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = match value {
            Some(v) => root.set_attribute(name, v),
            None => root.remove_attribute(name),
        };
    }
}

/// `bytes` as a Blob of type `mime`.
pub fn bytes_blob(bytes: &[u8], mime: &str) -> Result<web_sys::Blob, wasm_bindgen::JsValue> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
}

/// An object URL for `blob` (an `<img>` source; `img-src blob:`).
pub fn blob_url(blob: &web_sys::Blob) -> Option<String> {
    web_sys::Url::create_object_url_with_blob(blob).ok()
}

/// An object URL for `blob` shown as an image (a thumbnail, an image shown
/// large or opened on its own): typed as
/// `air_store::records::shown_image_type` says, whatever type it was
/// stored with, so an imported `text/html` file never renders on the
/// app's origin.
pub fn image_url(blob: &web_sys::Blob) -> Option<String> {
    let shown = air_store::records::shown_image_type(&blob.type_());
    let typed = blob.slice_with_f64_and_f64_and_content_type(0.0, blob.size(), shown).ok()?;
    blob_url(&typed)
}

/// Frees an object URL made by [`blob_url`] or [`image_url`].
pub fn revoke_url(url: &str) {
    let _ = web_sys::Url::revoke_object_url(url);
}

/// Offers `text` as a file download named `filename`.
pub fn download(filename: &str, mime: &str, text: &str) -> Result<(), String> {
    use wasm_bindgen::JsCast;
    let err = |e: wasm_bindgen::JsValue| format!("{e:?}");
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(err)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(err)?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = document.create_element("a").map_err(err)?.dyn_into().map_err(|_| "no anchor")?;
    a.set_href(&url);
    a.set_download(filename);
    a.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// Offers `blob` as a file download named `filename`: typed as bytes, so
/// the browser saves it and never renders it on the app's origin.
pub fn download_blob(filename: &str, blob: &web_sys::Blob) -> Result<(), String> {
    use wasm_bindgen::JsCast;
    let err = |e: wasm_bindgen::JsValue| format!("{e:?}");
    let typed = blob.slice_with_f64_and_f64_and_content_type(0.0, blob.size(), "application/octet-stream").map_err(err)?;
    let url = web_sys::Url::create_object_url_with_blob(&typed).map_err(err)?;
    let window = web_sys::window().ok_or("no window")?;
    let document = window.document().ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = document.create_element("a").map_err(err)?.dyn_into().map_err(|_| "no anchor")?;
    a.set_href(&url);
    a.set_download(filename);
    a.click();
    // Let go of once the browser has surely read it.
    let later = wasm_bindgen::closure::Closure::once_into_js(move || revoke_url(&url));
    window.set_timeout_with_callback_and_timeout_and_arguments_0(later.unchecked_ref(), 60_000).map_err(err)?;
    Ok(())
}

/// A file the user gave the page (pasted, dropped or chosen), read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickedFile {
    pub name: String,
    pub mime: String,
    pub bytes: Vec<u8>,
}

/// The files an event carries: a paste's clipboard, a drop's data, or a
/// file input's choice (the input is then cleared, so the same file can
/// be chosen again).
pub fn event_files(event: &web_sys::Event) -> Vec<web_sys::File> {
    use wasm_bindgen::JsCast;
    let list = if let Some(e) = event.dyn_ref::<web_sys::ClipboardEvent>() {
        e.clipboard_data().and_then(|d| d.files())
    } else if let Some(e) = event.dyn_ref::<web_sys::DragEvent>() {
        e.data_transfer().and_then(|d| d.files())
    } else {
        let input = event.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        let files: Vec<web_sys::File> = input.as_ref().and_then(|i| i.files()).map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect()).unwrap_or_default();
        if let Some(input) = input {
            input.set_value("");
        }
        return files;
    };
    list.map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect()).unwrap_or_default()
}

/// Bytes `start..end` of a file, read without reading the rest (an
/// export ZIP of several GB is read this way).
pub async fn read_slice(file: &web_sys::File, start: u64, end: u64) -> Result<Vec<u8>, String> {
    let blob = file.slice_with_f64_and_f64(start as f64, end as f64).map_err(|e| format!("{e:?}"))?;
    let buffer = wasm_bindgen_futures::JsFuture::from(blob.array_buffer()).await.map_err(|e| format!("{e:?}"))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Reads a file whole.
pub async fn read_file(file: &web_sys::File) -> Result<PickedFile, String> {
    let buffer = wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await.map_err(|e| format!("{e:?}"))?;
    Ok(PickedFile { name: file.name(), mime: file.type_(), bytes: js_sys::Uint8Array::new(&buffer).to_vec() })
}

/// An image drawn again at a smaller size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaledImage {
    pub bytes: Vec<u8>,
    pub mime: String,
    /// The size it had, and the size it has now.
    pub from: (u32, u32),
    pub to: (u32, u32),
}

/// `bytes` (an image of type `mime`) drawn again at most `max` pixels on
/// its longer side, as `air_store::files::fit` says; `Ok(None)` when it
/// fits already or is of a type not scaled (GIF). An image the browser
/// cannot decode is an error, said in words.
pub async fn scale_image(bytes: &[u8], mime: &str, max: u32) -> Result<Option<ScaledImage>, String> {
    use wasm_bindgen::JsCast;
    let Some(out_type) = air_store::files::scaled_type(mime) else { return Ok(None) };
    let err = |e: wasm_bindgen::JsValue| e.as_string().or_else(|| e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message()))).unwrap_or_else(|| format!("{e:?}"));
    let window = web_sys::window().ok_or("no window")?;
    let blob = bytes_blob(bytes, mime).map_err(err)?;
    let bitmap: web_sys::ImageBitmap = wasm_bindgen_futures::JsFuture::from(window.create_image_bitmap_with_blob(&blob).map_err(err)?).await.map_err(err)?.dyn_into().map_err(err)?;
    let from = (bitmap.width(), bitmap.height());
    let Some(to) = air_store::files::fit(from.0, from.1, max) else {
        bitmap.close();
        return Ok(None);
    };
    let canvas = web_sys::OffscreenCanvas::new(to.0, to.1).map_err(err)?;
    let drawn = (|| {
        let ctx: web_sys::OffscreenCanvasRenderingContext2d = canvas.get_context("2d")?.ok_or("no 2d context")?.dyn_into()?;
        ctx.set_image_smoothing_enabled(true);
        // Not in web-sys for offscreen contexts: set by name.
        js_sys::Reflect::set(&ctx, &"imageSmoothingQuality".into(), &"high".into())?;
        ctx.draw_image_with_image_bitmap_and_dw_and_dh(&bitmap, 0.0, 0.0, f64::from(to.0), f64::from(to.1))
    })();
    bitmap.close();
    drawn.map_err(err)?;
    let options = web_sys::ImageEncodeOptions::new();
    options.set_type(out_type);
    if out_type != "image/png" {
        options.set_quality(0.9);
    }
    let out: web_sys::Blob = wasm_bindgen_futures::JsFuture::from(canvas.convert_to_blob_with_options(&options).map_err(err)?).await.map_err(err)?.dyn_into().map_err(err)?;
    let buffer = wasm_bindgen_futures::JsFuture::from(out.array_buffer()).await.map_err(err)?;
    // A browser that cannot write the type writes PNG instead: say what it is.
    let written = if out.type_().is_empty() { out_type.to_owned() } else { out.type_() };
    Ok(Some(ScaledImage { bytes: js_sys::Uint8Array::new(&buffer).to_vec(), mime: written, from, to }))
}

/// Asks the browser to keep this site's data even under storage pressure.
/// Returns whether storage is (now) persistent.
pub async fn request_persistent_storage() -> bool {
    let Some(storage) = web_sys::window().map(|w| w.navigator().storage()) else { return false };
    if let Ok(p) = storage.persisted()
        && wasm_bindgen_futures::JsFuture::from(p).await.map(|v| v.is_truthy()).unwrap_or(false)
    {
        return true;
    }
    match storage.persist() {
        Ok(p) => wasm_bindgen_futures::JsFuture::from(p).await.map(|v| v.is_truthy()).unwrap_or(false),
        Err(_) => false,
    }
}

/// Bytes used and the quota, from `navigator.storage.estimate()`.
pub async fn storage_estimate() -> Option<(f64, f64)> {
    let storage = web_sys::window()?.navigator().storage();
    let v = wasm_bindgen_futures::JsFuture::from(storage.estimate().ok()?).await.ok()?;
    let get = |k: &str| js_sys::Reflect::get(&v, &k.into()).ok().and_then(|x| x.as_f64());
    Some((get("usage")?, get("quota")?))
}

/// Scrolls the first element matching `selector` into the middle of its
/// scrolling parent.
pub fn scroll_into_view(selector: &str) {
    if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.query_selector(selector).ok().flatten()) {
        let options = web_sys::ScrollIntoViewOptions::new();
        options.set_block(web_sys::ScrollLogicalPosition::Center);
        el.scroll_into_view_with_scroll_into_view_options(&options);
    }
}

/// Dispatches a plain event named `name` on the window (app/boot.js
/// listens for `air-update-apply`).
pub fn dispatch_window_event(name: &str) {
    if let (Some(window), Ok(event)) = (web_sys::window(), web_sys::Event::new(name)) {
        let _ = window.dispatch_event(&event);
    }
}

/// Adds a `performance.mark` (read by the benchmarks).
pub fn perf_mark(name: &str) {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}

/// Formulas `air_render::render` marked and that are not typeset yet.
const MATH_PENDING: &str = "[data-math]:not([data-typeset])";

/// Whether `root` has formulas to typeset.
pub fn math_pending(root: &web_sys::Element) -> bool {
    root.query_selector(MATH_PENDING).ok().flatten().is_some()
}

/// Typesets the formulas under `root` with `mathml` (TeX source, display
/// or not, to safe MathML). A formula it refuses stays its source, marked
/// `data-typeset="source"`.
pub fn typeset_math(root: &web_sys::Element, mathml: impl Fn(&str, bool) -> Option<String>) {
    use wasm_bindgen::JsCast;
    let Ok(list) = root.query_selector_all(MATH_PENDING) else { return };
    for i in 0..list.length() {
        let Some(el) = list.item(i).and_then(|n| n.dyn_into::<web_sys::Element>().ok()) else { continue };
        let tex = el.text_content().unwrap_or_default();
        let display = el.get_attribute("data-math").as_deref() == Some("display");
        match mathml(&tex, display) {
            Some(html) => {
                el.set_inner_html(&html);
                let _ = el.set_attribute("data-typeset", "mathml");
                let _ = el.set_attribute("title", &tex);
            }
            None => {
                let _ = el.set_attribute("data-typeset", "source");
            }
        }
    }
}

/// A new `<div class="{class}">`, not yet in the page.
pub fn new_div(class: &str) -> Option<web_sys::Element> {
    let div = web_sys::window()?.document()?.create_element("div").ok()?;
    div.set_class_name(class);
    Some(div)
}

/// Puts `child` first in `parent`, in place of any other child of its
/// class, unless it is already there.
pub fn keep_first_child(parent: &web_sys::Element, child: &web_sys::Element) {
    if child.parent_element().as_ref() != Some(parent) {
        let class = child.class_name();
        let mut other = parent.first_element_child();
        while let Some(el) = other {
            other = el.next_element_sibling();
            if el.class_name() == class {
                el.remove();
            }
        }
        let _ = parent.prepend_with_node_1(child);
    }
}

/// How a long text's blocks are put in the page: each in a
/// `<div class="{block}">`, and those `per_group` at a time in a
/// `<div class="{group}">`, the unit the page skips while off screen (one
/// per block made the browser track, and tell of, thousands of elements).
pub struct Groups<'a> {
    pub group: &'a str,
    pub block: &'a str,
    pub per_group: u32,
}

/// Appends `blocks` to `parent` as [`Groups`] says, filling its last group
/// first, parsed in one go (two when a group was left open): one HTML
/// parse costs less than one per block. Each block's HTML must be safe to
/// insert and balanced (air-render's).
pub fn append_blocks<'a>(parent: &web_sys::Element, groups: &Groups<'_>, blocks: impl IntoIterator<Item = &'a str>) {
    let wrap = |html: &mut String, block: &str| {
        html.push_str("<div class=\"");
        html.push_str(groups.block);
        html.push_str("\">");
        html.push_str(block);
        html.push_str("</div>");
    };
    let mut blocks = blocks.into_iter();
    if let Some(last) = parent.last_element_child().filter(|l| l.class_name() == groups.group) {
        let room = groups.per_group.saturating_sub(last.child_element_count());
        let mut html = String::new();
        for block in blocks.by_ref().take(room as usize) {
            wrap(&mut html, block);
        }
        if !html.is_empty() {
            let _ = last.insert_adjacent_html("beforeend", &html);
        }
    }
    let mut html = String::new();
    for (i, block) in blocks.enumerate() {
        if i % groups.per_group.max(1) as usize == 0 {
            if i > 0 {
                html.push_str("</div>");
            }
            html.push_str("<div class=\"");
            html.push_str(groups.group);
            html.push_str("\">");
        }
        wrap(&mut html, block);
    }
    if !html.is_empty() {
        html.push_str("</div>");
        let _ = parent.insert_adjacent_html("beforeend", &html);
    }
}

/// Whether a scrollable element is scrolled to (within `slack` px of) its end.
pub fn scrolled_to_end(el: &web_sys::Element, slack: i32) -> bool {
    el.scroll_height() - el.scroll_top() - el.client_height() <= slack
}

/// Scrolls an element to its end; returns the resulting `scrollTop`.
pub fn scroll_to_end(el: &web_sys::Element) -> i32 {
    el.set_scroll_top(el.scroll_height());
    el.scroll_top()
}

pub fn scroll_top(el: &web_sys::Element) -> i32 {
    el.scroll_top()
}

/// The element an event happened on, if it is one.
pub fn event_element(event: &web_sys::Event) -> Option<web_sys::Element> {
    use wasm_bindgen::JsCast;
    event.target()?.dyn_into().ok()
}

/// Focuses the first element matching `selector`; false if there is none.
pub fn focus(selector: &str) -> bool {
    use wasm_bindgen::JsCast;
    web_sys::window().and_then(|w| w.document()).and_then(|d| d.query_selector(selector).ok().flatten()).and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()).is_some_and(|e| e.focus().is_ok())
}

/// The event happened while typing (in a text field, a text area or an
/// editable element): plain keys belong to the text there.
pub fn typing(ev: &web_sys::Event) -> bool {
    use wasm_bindgen::JsCast;
    ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()).is_some_and(|e| {
        let tag = e.tag_name().to_ascii_lowercase();
        tag == "input" || tag == "textarea" || tag == "select" || e.is_content_editable()
    })
}
