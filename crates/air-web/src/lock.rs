//! The Web Locks API: one tab of the browser does a piece of work (sync),
//! the others leave it to that tab until it closes.

use std::cell::RefCell;
use std::collections::BTreeSet;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

thread_local! {
    /// The locks this tab holds (for its life).
    static HELD: RefCell<BTreeSet<String>> = const { RefCell::new(BTreeSet::new()) };
}

/// Takes lock `name` for the rest of this tab's life if no other tab of
/// the browser holds it: `true` when this tab holds it (now or already,
/// or the browser has no Web Locks, so there is nothing to share).
pub async fn hold(name: &str) -> bool {
    if HELD.with(|h| h.borrow().contains(name)) {
        return true;
    }
    let Some(window) = web_sys::window() else { return true };
    let Ok(locks) = js_sys::Reflect::get(&window.navigator(), &JsValue::from_str("locks")) else { return true };
    let Ok(request) = js_sys::Reflect::get(&locks, &JsValue::from_str("request")).and_then(|f| f.dyn_into::<js_sys::Function>()) else { return true };
    let (tx, rx) = futures_channel::oneshot::channel::<bool>();
    let granted = Closure::once_into_js(move |lock: JsValue| -> js_sys::Promise {
        let got = !lock.is_null();
        let _ = tx.send(got);
        if got {
            // Never settles: the lock is held while the tab lives.
            js_sys::Promise::new(&mut |_, _| {})
        } else {
            js_sys::Promise::resolve(&JsValue::UNDEFINED)
        }
    });
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &JsValue::from_str("ifAvailable"), &JsValue::TRUE);
    if request.call3(&locks, &JsValue::from_str(name), &options, &granted).is_err() {
        return true;
    }
    let got = rx.await.unwrap_or(true);
    if got {
        HELD.with(|h| h.borrow_mut().insert(name.to_owned()));
    }
    got
}
