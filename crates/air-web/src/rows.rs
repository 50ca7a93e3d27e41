//! A long list's rows in the page (the conversation's messages, drawn a
//! few at a time): their heights as they change, and where each is in the
//! element that scrolls them. A row is an element with a `data-row`
//! attribute naming it.

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{Element, ResizeObserver, ResizeObserverEntry};

/// Reports the height of each row it watches, once when watched and
/// again whenever it changes (a `ResizeObserver`).
pub struct Heights {
    observer: ResizeObserver,
    _on_change: Closure<dyn FnMut(js_sys::Array)>,
}

impl Heights {
    /// Calls `on_change` with (row, height) for the rows whose height
    /// changed, after layout and before the page is painted.
    pub fn new(mut on_change: impl FnMut(Vec<(String, f64)>) + 'static) -> Option<Self> {
        let on_change = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            let changed = entries
                .iter()
                .filter_map(|e| e.dyn_into::<ResizeObserverEntry>().ok())
                .filter_map(|e| {
                    let row = e.target();
                    // (A row taken out of the page has no height to tell.)
                    if !row.is_connected() {
                        return None;
                    }
                    Some((row.get_attribute("data-row")?, row.get_bounding_client_rect().height()))
                })
                .collect::<Vec<_>>();
            if !changed.is_empty() {
                on_change(changed);
            }
        });
        let observer = ResizeObserver::new(on_change.as_ref().unchecked_ref()).ok()?;
        Some(Self { observer, _on_change: on_change })
    }

    pub fn watch(&self, row: &Element) {
        self.observer.observe(row);
    }

    pub fn unwatch(&self, row: &Element) {
        self.observer.unobserve(row);
    }
}

impl Drop for Heights {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

/// How far `el`'s top is below the top of `scroller`'s content.
pub fn top_in(el: &Element, scroller: &Element) -> f64 {
    el.get_bounding_client_rect().top() - scroller.get_bounding_client_rect().top() + f64::from(scroller.scroll_top())
}

/// The first row in `list` still in view at the top of `scroller`: its
/// name, and how far the view's top is below the row's top.
pub fn row_at_top(list: &Element, scroller: &Element) -> Option<(String, f64)> {
    let view_top = scroller.get_bounding_client_rect().top();
    let rows = list.children();
    (0..rows.length()).filter_map(|i| rows.item(i)).find_map(|row| {
        let id = row.get_attribute("data-row")?;
        let rect = row.get_bounding_client_rect();
        (rect.bottom() > view_top).then(|| (id, view_top - rect.top()))
    })
}

/// Row `id` of `list`, if it is in the page.
pub fn row(list: &Element, id: &str) -> Option<Element> {
    let rows = list.children();
    (0..rows.length()).filter_map(|i| rows.item(i)).find(|r| r.get_attribute("data-row").as_deref() == Some(id))
}

/// Scrolls `scroller` to `top` unless it is there within a pixel.
pub fn scroll_to(scroller: &Element, top: f64) {
    if (f64::from(scroller.scroll_top()) - top).abs() >= 1.0 {
        scroller.set_scroll_top(top.round() as i32);
    }
}
