//! The answer being streamed, as drawn so far: kept here, outside the
//! views that show it, so a view drawn again goes on from it and the saved
//! message that replaces it takes its finished blocks as they are. Only the
//! conversation view reaches it (it registers the drawing with
//! `state::set_draw_now` and draws into its own elements), so it is fetched
//! with that part.

use air_render::StreamRender;
use leptos::prelude::*;

use super::state::AppState;

/// The answer being streamed, as drawn so far: kept out of the view, so a
/// view drawn again (the conversation left and opened again meanwhile)
/// goes on from it, and so the saved message that replaces it takes its
/// finished blocks as they are (see [`markdown_text`]): they are not
/// rendered and laid out a second time. One answer streams at a time.
pub struct Live {
    run: u32,
    message_id: String,
    pub text: LivePart,
    reasoning: LivePart,
}

/// One text of the streamed answer: its finished blocks (in the page or
/// not), the renderer, which keeps only the unfinished tail, and where the
/// tail is shown (while a view shows it).
pub struct LivePart {
    pub blocks: leptos::web_sys::Element,
    pub renderer: StreamRender,
    tail: Option<leptos::web_sys::Element>,
}

impl LivePart {
    fn new() -> Option<Self> {
        Some(Self { blocks: air_web::new_div("md-blocks")?, renderer: StreamRender::new(), tail: None })
    }
}

/// A Markdown text's blocks in the page: sixteen to a group, the part the
/// page skips while it is off screen (`.md-group` in the style sheet).
pub const BLOCKS: air_web::Groups<'static> = air_web::Groups { group: "md-group", block: "md-block", per_group: 16 };

thread_local! {
    static LIVE: std::cell::RefCell<Option<Live>> = const { std::cell::RefCell::new(None) };
}

/// Draws what arrived of the streaming answer (both texts) now, not at the
/// next frame (see `super::state::draw_now`).
pub fn draw_streaming(state: AppState) {
    draw(state, false, None);
    draw(state, true, None);
}

/// Draws what arrived of one text. `view`: the view showing it (its
/// element, and whether it was just put in the page: then the blocks
/// drawn so far move into it and its tail is drawn even if nothing new
/// came).
pub fn draw(state: AppState, reasoning: bool, view: Option<(&leptos::web_sys::Element, bool)>) {
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
            air_web::append_blocks(&part.blocks, &BLOCKS, u.blocks.iter().map(String::as_str));
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
pub fn take_live(id: &str) -> Option<Live> {
    LIVE.with(|l| {
        let mut l = l.borrow_mut();
        if l.as_ref().is_some_and(|x| x.message_id == id) { l.take() } else { None }
    })
}

/// Typesets the formulas under `el` that are not yet (math is a part of
/// its own, fetched when a first formula is shown; without it, formulas
/// stay source).
pub fn typeset(el: &leptos::web_sys::Element) {
    if air_web::math_pending(el) {
        let el = el.clone();
        leptos::task::spawn_local(async move {
            let _ = typeset_now(el).await;
        });
    }
}

#[super::lazy::split(math, wasm_split_path = ::leptos::wasm_split, fallible)]
fn typeset_now(el: leptos::web_sys::Element) -> Result<(), super::lazy::NotFetched> {
    air_web::typeset_math(&el, air_render::mathml);
    Ok(())
}
