//! The answer being streamed, in the page: each text's element, drawn
//! into at most once per frame (the drawing, kept outside the views, is
//! the binding's `drawn`).

use leptos::prelude::*;

use crate::binding::state::use_app;

use crate::binding::drawn::draw;
pub(super) use crate::binding::drawn::{BLOCKS, draw_streaming, take_live, typeset};

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
