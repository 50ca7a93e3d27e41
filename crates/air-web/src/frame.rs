//! Frames that run someone else's page (MCP Apps): JSON messages posted to
//! and from one frame, links opened on the user's word, and the colour
//! scheme the page is shown in.

use serde_json::Value;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

/// A frame element.
pub use web_sys::HtmlIFrameElement as Frame;

/// Listens to the messages that one frame's window posts to this page.
/// Stops when dropped.
pub struct FrameListener {
    handler: Closure<dyn FnMut(web_sys::MessageEvent)>,
}

impl Drop for FrameListener {
    fn drop(&mut self) {
        if let Some(w) = web_sys::window() {
            let _ = w.remove_event_listener_with_callback("message", self.handler.as_ref().unchecked_ref());
        }
    }
}

/// Calls `on_message` with each JSON message that `frame`'s window posts
/// (its origin is opaque, so the sender is told apart by its window, not
/// its origin). Anything that is not JSON-shaped is dropped.
pub fn listen(frame: &web_sys::HtmlIFrameElement, mut on_message: impl FnMut(Value) + 'static) -> Option<FrameListener> {
    let window = web_sys::window()?;
    let frame = frame.clone();
    let handler = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
        let (Some(source), Some(own)) = (ev.source(), frame.content_window()) else { return };
        let (source, own): (&wasm_bindgen::JsValue, &wasm_bindgen::JsValue) = (source.as_ref(), own.as_ref());
        // Only the frame's own window, on the opaque origin the sandbox
        // gives it: a frame that somehow had the app's origin is not heard.
        if source != own || ev.origin() != "null" {
            return;
        }
        let text = js_sys::JSON::stringify(&ev.data()).ok().and_then(|s| s.as_string());
        if let Some(value) = text.and_then(|t| serde_json::from_str::<Value>(&t).ok()) {
            on_message(value);
        }
    });
    window.add_event_listener_with_callback("message", handler.as_ref().unchecked_ref()).ok()?;
    Some(FrameListener { handler })
}

/// Posts `message` to `frame`'s window (to any origin: the frame's is
/// opaque). False when the frame has no window (not in the page).
pub fn post(frame: &web_sys::HtmlIFrameElement, message: &Value) -> bool {
    let Some(target) = frame.content_window() else { return false };
    let Ok(data) = js_sys::JSON::parse(&message.to_string()) else { return false };
    target.post_message(&data, "*").is_ok()
}

/// Opens `url` in a new tab, with no way back to this page.
pub fn open_link(url: &str) -> bool {
    web_sys::window().is_some_and(|w| w.open_with_url_and_target_and_features(url, "_blank", "noopener,noreferrer").is_ok())
}

/// The system asks for dark colours.
pub fn prefers_dark() -> bool {
    web_sys::window().and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten()).is_some_and(|m| m.matches())
}

/// The frame's width in CSS pixels (0 when not laid out).
pub fn width(frame: &web_sys::HtmlIFrameElement) -> u32 {
    frame.client_width().max(0) as u32
}
