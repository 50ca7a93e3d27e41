//! The conversation's stored messages, drawn a few at a time: only those
//! near the view are in the page, between two spaces that stand for the
//! rest (their heights measured once drawn, estimated before). Reading
//! towards the top reads older messages, and the message being read stays
//! where it is as messages are added above it or drawn at their height
//! (the arithmetic is `air_workspace::viewport`'s).

use air_chat::Role;
use air_store::MessageRecord;
use air_workspace::viewport::{Anchor, Viewport};
use leptos::prelude::*;

use crate::binding::state::{AppState, use_app};

use super::message::Message;
use super::message_parts::BLOCKS_FROM;

/// Pixels of conversation drawn beyond the view, above and below.
const OVERSCAN_PX: f64 = 1000.0;

/// What the conversation view shares with its list: the element that
/// scrolls, whether the view follows the end, and where the last scroll
/// to the end put it.
#[derive(Clone, Copy)]
pub(super) struct Scroller {
    pub el: NodeRef<leptos::html::Section>,
    pub follow: StoredValue<bool>,
    pub pinned: StoredValue<i32>,
}

/// The list's state in the view: the rows' arithmetic, the element that
/// holds the rows, and a count bumped when the view moved or a row's
/// height changed.
#[derive(Clone, Copy)]
pub(super) struct Window {
    vp: StoredValue<Viewport>,
    rows: NodeRef<leptos::html::Div>,
    moved: RwSignal<u64>,
    /// The rows as listed, each with its height estimated (from the
    /// conversation's messages); counts the changes.
    listed: Memo<u64>,
    /// A jump (to a search hit) waits for its frame: the scroll events
    /// before it (the page clamping the view as the rows changed) do not
    /// say where the reader is.
    jumping: StoredValue<bool>,
    /// Watches the drawn rows' heights.
    heights: StoredValue<Option<air_web::rows::Heights>, LocalStorage>,
    scroller: Scroller,
}

impl Window {
    pub fn new(state: AppState, scroller: Scroller) -> Self {
        let vp = StoredValue::new(Viewport::new(OVERSCAN_PX));
        let listed = Memo::new(move |n: Option<&u64>| {
            state.chat.messages.with(|m| vp.update_value(|v| v.set_rows(m.iter().map(|m| (m.id.clone(), estimate(m))))));
            n.map_or(0, |n| n + 1)
        });
        Self { vp, rows: NodeRef::new(), moved: RwSignal::new(0), listed, jumping: StoredValue::new(false), heights: StoredValue::new_local(None), scroller }
    }

    /// The reader scrolled: which row is at the view's top, and whether
    /// the view follows the end.
    pub fn scrolled(self, follow: bool) {
        // (Also called a frame after the view appeared: it may have gone.)
        let (Some(Some(el)), Some(Some(rows))) = (self.scroller.el.try_get_untracked(), self.rows.try_get_untracked()) else { return };
        if self.jumping.try_get_value() != Some(false) {
            return;
        }
        let list_top = air_web::rows::top_in(&rows, &el);
        let top = f64::from(air_web::scroll_top(&el)) - list_top;
        let height = f64::from(el.client_height());
        let anchor = self.vp.with_value(|v| {
            if follow {
                return Anchor::End;
            }
            // The row drawn at the view's top, exactly; in the space that
            // stands for rows not drawn (a dragged scrollbar), the row
            // the estimates put there.
            match air_web::rows::row_at_top(&rows, &el).filter(|(_, offset)| *offset >= 0.0) {
                Some((id, offset)) => Anchor::Row { id, offset },
                None => match v.row_at(top) {
                    Some(id) => Anchor::Row { id: id.to_owned(), offset: top - v.top_of(id).unwrap_or(0.0) },
                    None => Anchor::End,
                },
            }
        });
        self.vp.update_value(|v| v.scrolled(top, height, anchor));
        self.moved.update(|n| *n += 1);
    }

    /// The view follows the end (another chat was opened).
    pub fn follow(self) {
        self.vp.update_value(Viewport::follow);
        self.moved.update(|n| *n += 1);
    }

    /// A message to bring into view (a search hit).
    pub fn show(self, id: &str) {
        self.scroller.follow.set_value(false);
        // The rows as they are now (the message was just read).
        self.listed.with_untracked(|_| ());
        if self.vp.try_update_value(|v| v.show(id)) == Some(true) {
            self.jumping.set_value(true);
            self.moved.update(|n| *n += 1);
            self.place_soon();
        }
    }

    /// Scrolls so that the row read stays where it was (or the end is
    /// shown, while the view follows it).
    fn place(self) {
        // (Called a frame later: the view may have gone meanwhile.)
        let (Some(Some(el)), Some(Some(rows))) = (self.scroller.el.try_get_untracked(), self.rows.try_get_untracked()) else { return };
        self.jumping.try_set_value(false);
        match self.vp.try_with_value(|v| v.anchor().clone()) {
            Some(Anchor::End) => {
                if self.scroller.follow.try_get_value() == Some(true) {
                    self.scroller.pinned.try_set_value(air_web::scroll_to_end(&el));
                }
            }
            Some(Anchor::Row { id, offset }) => {
                let top = match air_web::rows::row(&rows, &id) {
                    Some(row) => air_web::rows::top_in(&row, &el),
                    None => air_web::rows::top_in(&rows, &el) + self.vp.try_with_value(|v| v.top_of(&id).unwrap_or(0.0)).unwrap_or(0.0),
                };
                air_web::rows::scroll_to(&el, top + offset);
            }
            None => {}
        }
    }

    /// Places the view once the page has drawn what changed.
    fn place_soon(self) {
        request_animation_frame(move || self.place());
    }
}

/// The stored messages near the view, each drawn once per change of its
/// own, between the spaces standing for the others.
#[component]
pub(super) fn MessageList(window: Window, last_id: Memo<Option<String>>) -> impl IntoView {
    let state = use_app();
    let Window { vp, rows, moved, listed, heights, .. } = window;
    let range = Memo::new(move |_| {
        listed.track();
        moved.track();
        vp.with_value(Viewport::range)
    });
    let span = Memo::new(move |_| range.with(|r| (r.first, r.last)));
    measure_rows(window);
    // What was drawn or listed changed: the row read is put back in place.
    Effect::new(move |_| {
        span.track();
        listed.track();
        window.place_soon();
    });
    // Near the top: the page before; near the end of a stretch around a
    // search hit: the page after (again after each page read, while the
    // view is still near it).
    let near = Memo::new(move |_| {
        listed.track();
        moved.track();
        vp.with_value(|v| (v.near_start(), v.near_end()))
    });
    Effect::new(move |_| {
        listed.track();
        let (start, end) = near.get();
        if start && state.chat.has_older.get() {
            state.load_older();
        }
        if end && state.chat.has_newer.get() {
            state.load_newer();
        }
    });
    let above = move || format!("{}px", range.with(|r| r.above));
    let below = move || format!("{}px", range.with(|r| r.below));
    view! {
        <div class="rows" node_ref=rows>
            <div class="rows-space" style:height=above></div>
            <For
                // Keys and places only: a change to one message copies no
                // other (a message is read from the list when it is drawn).
                each=move || {
                    let (first, last) = span.get();
                    state.chat.messages.with(|m| {
                        let shown = m.get(first..last.min(m.len())).unwrap_or_default();
                        shown.iter().enumerate().map(|(i, m)| (message_key(m), first + i)).collect::<Vec<_>>()
                    })
                }
                key=|(k, _)| k.clone()
                let:item
            >
                {
                    let ((id, ..), at) = item;
                    let row = NodeRef::<leptos::html::Div>::new();
                    row.on_load(move |el| {
                        heights.with_value(|h| h.as_ref().map(|h| h.watch(&el)));
                    });
                    on_cleanup(move || {
                        if let Some(el) = row.get_untracked() {
                            heights.try_with_value(|h| h.as_ref().map(|h| h.unwatch(&el)));
                        }
                    });
                    let message = state.chat.messages.try_update_untracked(|m| {
                        let at = m.get(at).filter(|x| x.id == id).map(|_| at).or_else(|| m.iter().position(|x| x.id == id))?;
                        Some(view_copy(&mut m[at]))
                    })
                    .flatten()
                    .map(|(message, text_len)| view! { <Message message=message text_len=text_len last_id=last_id/> });
                    view! { <div class="row" data-row=id node_ref=row>{message}</div> }
                }
            </For>
            <div class="rows-space" style:height=below></div>
        </div>
    }
}

/// Watches the drawn rows' heights: a row drawn taller or shorter than
/// estimated moves the rest, the spaces follow, and the end stays in view
/// while the view follows it.
fn measure_rows(window: Window) {
    let heights = air_web::rows::Heights::new(move |changed| {
        let moved = window.vp.try_update_value(|v| changed.into_iter().fold(false, |any, (id, h)| v.measured(&id, h) || any));
        if moved == Some(true) {
            window.moved.update(|n| *n += 1);
        }
        if window.scroller.follow.try_get_value() == Some(true) {
            window.place();
        }
    });
    window.heights.set_value(heights);
}

/// A message's height until it is drawn: a tool call's card is short; an
/// answer that only calls tools is not drawn.
fn estimate(m: &MessageRecord) -> f64 {
    match m.role {
        Role::Tool => 48.0,
        Role::Assistant if m.content.is_empty() && !m.tool_calls.is_empty() && m.reasoning.is_none() && m.error.is_none() => 0.0,
        _ => air_workspace::viewport::estimate(m.content.len()),
    }
}

/// A message as a view keeps it: a long answer's text stays in the
/// conversation's list only (its view reads it from there, see
/// [`super::message_parts::markdown_text`]), so showing it copies no text.
/// Returns the copy and the text's length.
fn view_copy(m: &mut MessageRecord) -> (MessageRecord, usize) {
    let len = m.content.len();
    if m.role == Role::User || len < BLOCKS_FROM {
        return (m.clone(), len);
    }
    let text = std::mem::take(&mut m.content);
    let copy = m.clone();
    m.content = text;
    (copy, len)
}

/// What redraws a message when it changes. A tool card stays (its View
/// must not reload as the call goes on); it follows its record itself.
fn message_key(m: &MessageRecord) -> (String, u32, usize, bool) {
    if m.role == Role::Tool { (m.id.clone(), 0, 0, false) } else { (m.id.clone(), m.rev, m.content.len(), m.incomplete) }
}
