//! The code runner (`runner.html`): one frame for the page, made for the
//! first run and taken away once idle for a minute. The frame is of the
//! app's origin (so the service worker keeps it for offline use) and makes
//! the sandbox, an opaque-origin frame inside it, whose messages it
//! relays. A run is posted to it with its bytes; what the frame says comes
//! back to the run it names, with the bytes posted beside it.

use std::cell::RefCell;
use std::collections::HashMap;

use serde_json::Value;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// What the frame says of a run: a message and its bytes.
pub type Heard = Box<dyn FnMut((Value, Vec<Vec<u8>>))>;

/// The frame is taken away after this long without a run.
const IDLE_MS: i32 = 60_000;

struct Runner {
    frame: web_sys::HtmlIFrameElement,
    ready: bool,
    /// Runs posted before the frame said it was ready.
    waiting: Vec<(JsValue, js_sys::Array)>,
    runs: HashMap<u64, Heard>,
    handler: Closure<dyn FnMut(web_sys::MessageEvent)>,
    /// Counts the times the runner went idle (a teardown is for one of them).
    idle: u32,
}

thread_local! {
    static RUNNER: RefCell<Option<Runner>> = const { RefCell::new(None) };
}

/// `msg` as the frame reads it, with `bytes` beside it (moved, not copied).
fn message(msg: &Value, bytes: Vec<Vec<u8>>) -> Option<(JsValue, js_sys::Array)> {
    let out = js_sys::JSON::parse(&msg.to_string()).ok()?;
    let (buffers, transfer) = (js_sys::Array::new(), js_sys::Array::new());
    for b in bytes {
        let buffer = js_sys::Uint8Array::from(b.as_slice()).buffer();
        buffers.push(&buffer);
        transfer.push(&buffer);
    }
    js_sys::Reflect::set(&out, &"bytes".into(), &buffers).ok()?;
    Some((out, transfer))
}

/// Posts `msg` (which names a run) with `bytes` beside it to the frame,
/// for that run's worker; nothing when the frame is gone.
pub fn tell(msg: &Value, bytes: Vec<Vec<u8>>) {
    let Some((msg, transfer)) = message(msg, bytes) else { return };
    RUNNER.with(|r| {
        if let Some(runner) = r.borrow_mut().as_mut() {
            if runner.ready {
                post(&runner.frame, &msg, &transfer);
            } else {
                runner.waiting.push((msg, transfer));
            }
        }
    });
}

/// Posts `start` (which names its run) with the chat's `files` beside it
/// (`None`: one that could not be read); `heard` gets what the frame says
/// of that run. False when no frame can be made.
pub fn run(start: &Value, files: &[Option<web_sys::Blob>], heard: Heard) -> bool {
    let Some(id) = start["run"].as_u64() else { return false };
    let Some((msg, transfer)) = message(start, Vec::new()) else { return false };
    let blobs: js_sys::Array = files.iter().map(|b| b.as_ref().map_or(JsValue::NULL, JsValue::from)).collect();
    if js_sys::Reflect::set(&msg, &"bytes".into(), &blobs).is_err() {
        return false;
    }
    RUNNER.with(|r| {
        let mut r = r.borrow_mut();
        if r.is_none() {
            *r = make();
        }
        let Some(runner) = r.as_mut() else { return false };
        runner.runs.insert(id, heard);
        runner.idle += 1;
        if runner.ready {
            post(&runner.frame, &msg, &transfer);
        } else {
            runner.waiting.push((msg, transfer));
        }
        true
    })
}

/// The run is over: the frame ends its worker; once no run is left, the
/// frame goes after a while.
pub fn stop(id: u64) {
    let idle = RUNNER.with(|r| {
        let mut r = r.borrow_mut();
        let runner = r.as_mut()?;
        runner.runs.remove(&id);
        let stop = js_sys::JSON::parse(&serde_json::json!({"t": "stop", "run": id}).to_string()).ok()?;
        post(&runner.frame, &stop, &js_sys::Array::new());
        runner.idle += 1;
        runner.runs.is_empty().then_some(runner.idle)
    });
    if let Some(idle) = idle {
        let later = Closure::once_into_js(move || take_away(idle));
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(later.unchecked_ref(), IDLE_MS);
        }
    }
}

/// Takes the frame away if nothing happened since it went idle (`idle`).
fn take_away(idle: u32) {
    let gone = RUNNER.with(|r| {
        let mut r = r.borrow_mut();
        if r.as_ref().is_some_and(|runner| runner.idle == idle && runner.runs.is_empty()) { r.take() } else { None }
    });
    if let Some(runner) = gone {
        if let Some(w) = web_sys::window() {
            let _ = w.remove_event_listener_with_callback("message", runner.handler.as_ref().unchecked_ref());
        }
        runner.frame.remove();
    }
}

fn make() -> Option<Runner> {
    let window = web_sys::window()?;
    let document = window.document()?;
    let frame: web_sys::HtmlIFrameElement = document.create_element("iframe").ok()?.dyn_into().ok()?;
    frame.set_attribute("title", "Code runner").ok()?;
    frame.set_attribute("data-testid", "code-runner").ok()?;
    frame.set_hidden(true);
    let own = frame.clone();
    let handler = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| heard(&own, &ev));
    window.add_event_listener_with_callback("message", handler.as_ref().unchecked_ref()).ok()?;
    document.body()?.append_child(&frame).ok()?;
    // Pointed at the runner only now that its messages are heard.
    frame.set_src("runner.html");
    Some(Runner { frame, ready: false, waiting: Vec::new(), runs: HashMap::new(), handler, idle: 0 })
}

fn post(frame: &web_sys::HtmlIFrameElement, msg: &JsValue, transfer: &js_sys::Array) {
    if let Some(w) = frame.content_window() {
        let _ = w.post_message_with_transfer(msg, &crate::page_origin().unwrap_or_default(), transfer);
    }
}

/// A message of the frame `own`'s window: `ready`, or one of a run's.
fn heard(own: &web_sys::HtmlIFrameElement, ev: &web_sys::MessageEvent) {
    let (Some(source), Some(window)) = (ev.source(), own.content_window()) else { return };
    let (source, window): (&JsValue, &JsValue) = (source.as_ref(), window.as_ref());
    // The runner page is of the app's origin (the sandbox is a frame
    // inside it, whose messages it relays).
    if source != window || Some(ev.origin()) != crate::page_origin() {
        return;
    }
    let data = ev.data();
    let kind = js_sys::Reflect::get(&data, &"t".into()).ok().and_then(|t| t.as_string());
    if kind.as_deref() == Some("ready") {
        return ready();
    }
    let Some(id) = js_sys::Reflect::get(&data, &"run".into()).ok().and_then(|r| r.as_f64()).filter(|r| r.fract() == 0.0 && *r >= 0.0) else { return };
    let bytes = bytes_of(&data);
    let _ = js_sys::Reflect::delete_property(&data.clone().unchecked_into::<js_sys::Object>(), &"bytes".into());
    let text = js_sys::JSON::stringify(&data).ok().and_then(|s| s.as_string());
    let Some(value) = text.and_then(|t| serde_json::from_str::<Value>(&t).ok()) else { return };
    // Called outside the borrow: what it wakes may start another run.
    let taken = RUNNER.with(|r| r.borrow_mut().as_mut().and_then(|runner| runner.runs.remove(&(id as u64))));
    if let Some(mut heard) = taken {
        heard((value, bytes));
        RUNNER.with(|r| {
            if let Some(runner) = r.borrow_mut().as_mut() {
                runner.runs.entry(id as u64).or_insert(heard);
            }
        });
    }
}

/// The buffers posted beside a message (anything else there is left out).
fn bytes_of(data: &JsValue) -> Vec<Vec<u8>> {
    let Ok(list) = js_sys::Reflect::get(data, &"bytes".into()) else { return Vec::new() };
    let Ok(list) = list.dyn_into::<js_sys::Array>() else { return Vec::new() };
    list.iter().filter_map(|b| b.dyn_into::<js_sys::ArrayBuffer>().ok()).map(|b| js_sys::Uint8Array::new(&b).to_vec()).collect()
}

fn ready() {
    RUNNER.with(|r| {
        if let Some(runner) = r.borrow_mut().as_mut() {
            runner.ready = true;
            for (msg, transfer) in std::mem::take(&mut runner.waiting) {
                post(&runner.frame, &msg, &transfer);
            }
        }
    });
}
