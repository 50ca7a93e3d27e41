//! The answer being streamed, drawn block by block outside the views
//! that show it.

use air_render::StreamRender;
use leptos::prelude::*;

use crate::binding::state::{AppState, use_app};

/// The answer being streamed, as drawn so far: kept out of the view, so a
/// view drawn again (the conversation left and opened again meanwhile)
/// goes on from it, and so the saved message that replaces it takes its
/// finished blocks as they are (see [`markdown_text`]): they are not
/// rendered and laid out a second time. One answer streams at a time.
pub(super) struct Live {
    run: u32,
    message_id: String,
    pub(super) text: LivePart,
    reasoning: LivePart,
}

/// One text of the streamed answer: its finished blocks (in the page or
/// not), the renderer, which keeps only the unfinished tail, and where the
/// tail is shown (while a view shows it).
pub(super) struct LivePart {
    pub(super) blocks: leptos::web_sys::Element,
    pub(super) renderer: StreamRender,
    tail: Option<leptos::web_sys::Element>,
}

impl LivePart {
    fn new() -> Option<Self> {
        Some(Self { blocks: air_web::new_div("md-blocks")?, renderer: StreamRender::new(), tail: None })
    }
}

thread_local! {
    static LIVE: std::cell::RefCell<Option<Live>> = const { std::cell::RefCell::new(None) };
}

/// Draws what arrived of the streaming answer (both texts) now, not at the
/// next frame (see `crate::binding::state::draw_now`).
pub(super) fn draw_streaming(state: AppState) {
    draw(state, false, None);
    draw(state, true, None);
}

/// Draws what arrived of one text. `view`: the view showing it (its
/// element, and whether it was just put in the page: then the blocks
/// drawn so far move into it and its tail is drawn even if nothing new
/// came).
fn draw(state: AppState, reasoning: bool, view: Option<(&leptos::web_sys::Element, bool)>) {
    state.chat.streaming.try_update_untracked(|s| {
        let s = s.as_mut()?;
        let piece = std::mem::take(if reasoning { &mut s.reasoning_new } else { &mut s.text_new });
        let fresh = view.is_some_and(|(_, fresh)| fresh);
        if piece.is_empty() && !fresh {
            return None;
        }
        LIVE.with(|live| {
            let mut live = live.borrow_mut();
            if live.as_ref().is_none_or(|l| l.run != s.run) {
                *live = Some(Live { run: s.run, message_id: s.message_id.clone(), text: LivePart::new()?, reasoning: LivePart::new()? });
            }
            let live = live.as_mut()?;
            let part = if reasoning { &mut live.reasoning } else { &mut live.text };
            if let Some((el, _)) = view {
                air_web::keep_first_child(el, &part.blocks);
                part.tail = el.last_element_child();
            }
            let u = part.renderer.push(&piece);
            for block in &u.blocks {
                air_web::append_html(&part.blocks, "md-block", block);
            }
            if u.blocks.iter().any(|b| b.contains("data-math")) {
                typeset(&part.blocks);
            }
            if let Some(tail) = &part.tail {
                tail.set_inner_html(&u.tail);
                if u.tail.contains("data-math") {
                    typeset(tail);
                }
            }
            Some(())
        })
    });
}

/// The live drawing of message `id`, taken for its saved message; only
/// that message's (another answer may be streaming meanwhile).
pub(super) fn take_live(id: &str) -> Option<Live> {
    LIVE.with(|l| {
        let mut l = l.borrow_mut();
        if l.as_ref().is_some_and(|x| x.message_id == id) { l.take() } else { None }
    })
}

/// One text of the streaming answer, rendered incrementally from what
/// arrived since the last frame: finished blocks are appended to the page
/// as they come (their HTML is not kept), the unfinished tail replaced.
#[component]
pub(super) fn StreamedMarkdown(reasoning: bool, testid: &'static str) -> impl IntoView {
    let state = use_app();
    let container = NodeRef::<leptos::html::Div>::new();
    let drawn = StoredValue::new(false);
    let scheduled = StoredValue::new(false);
    // Renders what arrived; at most once per animation frame, however fast
    // chunks come (a long code block re-renders its tail each time).
    let render = move || {
        let _ = scheduled.try_set_value(false);
        // Not in the page yet: the next change renders all there is.
        let Some(el) = container.try_get_untracked().flatten() else { return };
        let fresh = !drawn.try_get_value().unwrap_or(true);
        drawn.try_set_value(true);
        draw(state, reasoning, Some((&el, fresh)));
    };
    Effect::new(move |first: Option<()>| {
        state.chat.streaming.track();
        if first.is_none() {
            render();
        } else if scheduled.try_get_value() == Some(false) {
            scheduled.set_value(true);
            request_animation_frame(render);
        }
    });
    view! {
        <div class="text markdown" data-testid=testid node_ref=container>
            <div class="md-tail"></div>
        </div>
    }
}

/// Typesets the formulas under `el` that are not yet (math is a part of
/// its own, fetched when a first formula is shown; without it, formulas
/// stay source).
pub(super) fn typeset(el: &leptos::web_sys::Element) {
    if air_web::math_pending(el) {
        let el = el.clone();
        leptos::task::spawn_local(async move {
            let _ = typeset_now(el).await;
        });
    }
}

#[crate::binding::lazy::split(math, wasm_split_path = ::leptos::wasm_split, fallible)]
fn typeset_now(el: leptos::web_sys::Element) -> Result<(), crate::binding::lazy::Missing> {
    air_web::typeset_math(&el, air_render::mathml);
    Ok(())
}
