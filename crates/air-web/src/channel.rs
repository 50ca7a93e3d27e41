//! `BroadcastChannel`: tells the app's other tabs what changed.

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

/// An open channel; messages from other tabs go to the handler given to
/// [`Channel::open`]. Dropping it closes the channel.
pub struct Channel {
    inner: web_sys::BroadcastChannel,
    _handler: Closure<dyn FnMut(web_sys::MessageEvent)>,
}

impl Channel {
    /// Opens `name`; `None` where the browser has no BroadcastChannel.
    pub fn open(name: &str, mut on_message: impl FnMut(String) + 'static) -> Option<Self> {
        let inner = web_sys::BroadcastChannel::new(name).ok()?;
        let handler = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            if let Some(text) = ev.data().as_string() {
                on_message(text);
            }
        });
        inner.set_onmessage(Some(handler.as_ref().unchecked_ref()));
        Some(Self { inner, _handler: handler })
    }

    pub fn post(&self, message: &str) {
        let _ = self.inner.post_message(&wasm_bindgen::JsValue::from_str(message));
    }
}

impl Drop for Channel {
    fn drop(&mut self) {
        self.inner.set_onmessage(None);
        self.inner.close();
    }
}
