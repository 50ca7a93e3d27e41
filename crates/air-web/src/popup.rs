//! Sign-in windows: a popup opened on the user's click, sent to the
//! authorization page once it is known, and the message the app's callback
//! page (`oauth-callback.html`) posts back from it. Where popups are
//! blocked, the whole page goes there instead and the callback page brings
//! the answer back through localStorage (see `oauth-callback.js`).

use futures_channel::oneshot;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

/// A window opened for signing in.
pub struct Popup(web_sys::Window);

/// Opens an empty popup, named `name` (call it in the click's handler: a
/// popup opened later is blocked). `None` when the browser blocked it.
pub fn open(name: &str) -> Option<Popup> {
    let window = web_sys::window()?;
    let popup = window.open_with_url_and_target_and_features("about:blank", name, "popup,width=520,height=720").ok()??;
    Some(Popup(popup))
}

impl Popup {
    /// Sends the popup to `url`.
    pub fn go(&self, url: &str) -> bool {
        self.0.location().set_href(url).is_ok()
    }

    pub fn close(&self) {
        let _ = self.0.close();
    }

    pub fn closed(&self) -> bool {
        self.0.closed().unwrap_or(true)
    }
}

/// The whole page goes to `url` (a sign-in without a popup).
pub fn go(url: &str) -> bool {
    web_sys::window().is_some_and(|w| w.location().set_href(url).is_ok())
}

/// `path` resolved against the page's base URL (works under a sub-path).
pub fn resolve(path: &str) -> Option<String> {
    let base = web_sys::window()?.document()?.base_uri().ok()??;
    web_sys::Url::new_with_base(path, &base).ok().map(|u| u.href())
}

/// The next message of `kind` that a page of this origin posts to this
/// window: `{type: kind, url}` gives `url`.
pub async fn next_message(kind: &str) -> Option<String> {
    let window = web_sys::window()?;
    let origin = window.location().origin().ok()?;
    let (tx, rx) = oneshot::channel::<String>();
    let tx = std::cell::RefCell::new(Some(tx));
    let kind = kind.to_owned();
    let handler = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
        // Only the app's own callback page is listened to.
        if ev.origin() != origin {
            return;
        }
        let data = ev.data();
        let field = |k: &str| js_sys::Reflect::get(&data, &k.into()).ok().and_then(|v| v.as_string());
        if field("type").as_deref() != Some(kind.as_str()) {
            return;
        }
        if let (Some(url), Some(tx)) = (field("url"), tx.borrow_mut().take()) {
            let _ = tx.send(url);
        }
    });
    window.add_event_listener_with_callback("message", handler.as_ref().unchecked_ref()).ok()?;
    let got = rx.await.ok();
    let _ = window.remove_event_listener_with_callback("message", handler.as_ref().unchecked_ref());
    got
}

/// `N` random bytes from `crypto.getRandomValues`.
pub fn random_bytes<const N: usize>() -> Option<[u8; N]> {
    let crypto = web_sys::window()?.crypto().ok()?;
    let mut b = [0u8; N];
    crypto.get_random_values_with_u8_array(&mut b).ok()?;
    Some(b)
}
