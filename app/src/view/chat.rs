use air_store::MessageRecord;
use leptos::prelude::*;

use crate::i18n::t;
use crate::binding::state::{AppState, Streaming, use_app};

use super::live::{BLOCKS, StreamedMarkdown, draw_streaming, take_live, typeset};
use super::thread::{MessageList, Scroller, Window};

/// Where answers come from: the model, and the server or this browser.
#[component]
fn AnswersFrom() -> impl IntoView {
    let settings = use_app().prefs.settings;
    let place = move || {
        let t = t();
        settings.with(|s| match air_store::settings::is_in_browser(&s.base_url) {
            true => t.creator_in_browser.to_owned(),
            false => format!("{} {}", t.creator_at, s.base_url),
        })
    };
    view! {
        <p class="muted">
            {move || t().creator_answers_from}" " <strong>{move || settings.with(|s| s.model.clone())}</strong> " " {place} "."
        </p>
    }
}

/// Shown when no session is open: suggestions and the composer below.
#[component]
pub fn SessionCreator() -> impl IntoView {
    let state = use_app();
    view! {
        <section class="creator" data-testid="session-creator">
            <h2>{move || t().creator_title}</h2>
            <Show when=move || super::first_run::wanted(state) fallback=move || view! { <AnswersFrom/> }>
                {move || Suspend::new(async { crate::binding::lazy::show(super::first_run::offer().await) })}
            </Show>
            <div class="suggestions">
                {move || {
                    let t = t();
                    [t.suggestion_1, t.suggestion_2, t.suggestion_3, t.suggestion_4]
                        .into_iter()
                        .map(|q| view! {
                            <button class="suggestion" data-testid="suggestion" on:click=move |_| state.dispatch(air_workspace::Command::Turn(air_workspace::turn::Job::Send(q.to_owned())))>{q}</button>
                        })
                        .collect_view()
                }}
            </div>
        </section>
    }
}

/// The conversation, with the Markdown renderer and the tool cards:
/// fetched when the first conversation is shown (a first visit starts on
/// the session creator).
#[crate::binding::lazy::split(chat_view, wasm_split_path = ::leptos::wasm_split, fallible)]
pub fn chat_view() -> Result<AnyView, crate::binding::lazy::Missing> {
    Ok(view! { <ChatView/> }.into_any())
}

/// The conversation: stored messages, then the answer being streamed.
#[component]
pub fn ChatView() -> impl IntoView {
    let state = use_app();
    crate::binding::state::set_draw_now(draw_streaming);
    // The image a thumbnail shows large.
    let enlarged = RwSignal::new(None::<(String, String)>);
    provide_context(Enlarged(enlarged));
    let streaming_here = move || {
        let active = state.sessions.active.get();
        state.chat.streaming.with(|s| s.as_ref().map(|s| Some(&s.session_id) == active.as_ref()).unwrap_or(false))
    };
    let last_id = Memo::new(move |_| state.chat.messages.with(|m| m.last().map(|x| x.id.clone())));
    // Follow the conversation while the reader is at the end; once they
    // scroll up to read, leave them there.
    let list = NodeRef::<leptos::html::Section>::new();
    // Where the last automatic scroll put the view: a scroll event above it
    // is the reader's doing, not ours (ours may arrive after more text).
    let scroller = Scroller { el: list, follow: StoredValue::new(true), pinned: StoredValue::new(0) };
    let Scroller { follow, pinned, .. } = scroller;
    let window = Window::new(state, scroller);
    follow_the_end(state, window, scroller);
    list.on_load(move |_| request_animation_frame(move || window.scrolled(true)));
    // A taller window shows more of the conversation: more rows are drawn.
    let resized = window_event_listener(leptos::ev::resize, move |_| window.scrolled(follow.get_value()));
    on_cleanup(move || resized.remove());
    // A search result opened a message: it is brought into view (and the
    // view stops following the end).
    Effect::new(move |_| {
        if let Some(id) = state.chat.focus.get() {
            window.show(&id);
        }
    });
    // The first usable screen, once this view has drawn the conversation.
    Effect::new(move |_| {
        if !state.shell.loading.get() {
            request_animation_frame(crate::binding::state::mark_ready);
        }
    });
    view! {
        <section
            class="messages"
            data-testid="messages"
            node_ref=list
            on:click=move |ev| {
                let _ = air_web::handle_copy_click(&ev) || air_web::handle_preview_click(&ev, air_apps::preview_document, t().preview_title);
            }
            on:scroll=move |ev| {
                if let Some(el) = air_web::event_element(&ev) {
                    // (The end of a stretch around a search hit is not
                    // the conversation's: later messages are read there.)
                    if air_web::scrolled_to_end(&el, 60) && !state.chat.has_newer.get_untracked() {
                        follow.set_value(true);
                    } else if air_web::scroll_top(&el) < pinned.get_value() - 4 {
                        follow.set_value(false);
                    }
                }
                window.scrolled(follow.get_value());
            }
        >
            <Show when=move || state.chat.has_older.get()>
                <button class="load-older" data-testid="load-older" on:click=move |_| {
                    // What is read now stays where it is.
                    follow.set_value(false);
                    window.scrolled(false);
                    state.load_older();
                }>{move || t().load_older}</button>
            </Show>
            <MessageList window=window last_id=last_id/>
            <Show when=move || state.chat.has_newer.get()>
                <button class="load-older" data-testid="load-newer" on:click=move |_| state.load_newer()>{move || t().load_newer}</button>
            </Show>
            <Show when=streaming_here>
                <StreamingMessage/>
            </Show>
            <Lightbox shown=enlarged/>
        </section>
    }
}

/// Scrolls to the end as the conversation grows, while `follow` says the
/// reader is there; `pinned` is where the last such scroll put the view.
fn follow_the_end(state: AppState, window: Window, scroller: Scroller) {
    let Scroller { el: list, follow, pinned } = scroller;
    let scroll_due = StoredValue::new(false);
    let grown = Memo::new(move |_| {
        let streamed = state.chat.streaming.with(|s| s.as_ref().map_or(0, |s| s.text_len + s.reasoning_len));
        (state.sessions.active.get(), state.chat.messages.with(Vec::len), streamed)
    });
    Effect::new(move |previous: Option<Option<String>>| {
        let (active, _, _) = grown.get();
        if previous.as_ref() != Some(&active) {
            follow.set_value(true);
            window.follow();
        }
        // Once per animation frame, however many chunks arrived in it.
        if follow.get_value() && !scroll_due.get_value() {
            scroll_due.set_value(true);
            request_animation_frame(move || {
                let _ = scroll_due.try_set_value(false);
                if let (Some(el), Some(true)) = (list.try_get_untracked().flatten(), follow.try_get_value()) {
                    pinned.try_set_value(air_web::scroll_to_end(&el));
                }
            });
        }
        active
    });
}

/// ‹ 2 / 3 ›: on the first message of an alternative, which one is shown
/// and the way to the others.
#[component]
pub(super) fn BranchNav(id: String) -> impl IntoView {
    let state = use_app();
    let here = move || {
        let active = state.sessions.active.get()?;
        state.chat.messages.with(|list| {
            let i = list.iter().position(|m| m.id == id)?;
            state.sessions.list.with(|l| air_store::branches::switch_at(list, i, &l.iter().find(|s| s.id == active)?.forks))
        })
    };
    move || {
        here().map(|(fork, f)| {
            let idle = move || !state.chat.busy.get();
            let (back, fwd) = (fork.clone(), fork);
            view! {
                <span class="branch-nav" data-testid="branch-nav">
                    <button type="button" class="action" data-testid="branch-prev" aria-label=move || t().branch_prev title=move || t().branch_prev
                        disabled=move || f.shown == 0 || !idle()
                        on:click={move |_| state.switch_branch(back.clone(), f.shown.saturating_sub(1))}>"‹"</button>
                    <span data-testid="branch-pos" aria-label=move || t().branch_pos.replace("{n}", &(f.shown + 1).to_string()).replace("{m}", &f.count.to_string())>
                        {format!("{} / {}", f.shown + 1, f.count)}
                    </span>
                    <button type="button" class="action" data-testid="branch-next" aria-label=move || t().branch_next title=move || t().branch_next
                        disabled={move || f.shown + 1 >= f.count || !idle()}
                        on:click={move |_| state.switch_branch(fwd.clone(), f.shown + 1)}>"›"</button>
                </span>
            }
        })
    }
}

/// The image being shown large (its URL and name), if any.
#[derive(Clone, Copy)]
struct Enlarged(RwSignal<Option<(String, String)>>);

/// An image shown large, in a modal dialog (Esc, the button or a click
/// closes it).
#[component]
fn Lightbox(shown: RwSignal<Option<(String, String)>>) -> impl IntoView {
    let dialog = NodeRef::<leptos::html::Dialog>::new();
    Effect::new(move |_| {
        if let Some(d) = dialog.get() {
            if shown.with(Option::is_some) {
                if !d.open() {
                    let _ = d.show_modal();
                }
            } else if d.open() {
                d.close();
            }
        }
    });
    view! {
        <dialog class="lightbox" data-testid="lightbox" node_ref=dialog
            aria-label=move || shown.with(|s| s.as_ref().map(|(_, name)| name.clone()).unwrap_or_default())
            on:close=move |_| shown.set(None)
            on:click=move |_| shown.set(None)>
            {move || shown.get().map(|(url, name)| view! { <img src=url alt=name/> })}
            <button type="button" class="lightbox-close" data-testid="lightbox-close" on:click=move |_| shown.set(None)>{move || t().close}</button>
        </dialog>
    }
}

/// The images attached to a user message, small (a click shows one
/// large), then a chip for each other file.
#[component]
pub(super) fn Thumbnails(files: Vec<air_store::Attachment>) -> impl IntoView {
    let (images, others): (Vec<_>, Vec<_>) = files.into_iter().partition(air_store::Attachment::is_image);
    let chips = others.into_iter().map(|f| view! { <FileChip file=f/> }).collect_view();
    view! { {images_view(images)} {chips} }
}

/// A file attached that is not an image (an imported attachment's text):
/// its name and size.
#[component]
fn FileChip(file: air_store::Attachment) -> impl IntoView {
    let label = format!("{} · {}", file.name, air_store::export::size_text(file.size));
    let title = label.clone();
    view! { <span class="message-file" data-testid="message-file" title=title>{label}</span> }
}

fn images_view(images: Vec<air_store::Attachment>) -> impl IntoView {
    images
        .into_iter()
        .map(|f| {
            // Empty: loading; `None`: not stored (any more).
            let url = RwSignal::new(Some(String::new()));
            crate::binding::file_url(f.id.clone(), move |u| {
                url.try_set(u);
            });
            let name = f.name.clone();
            let enlarge = move |_| {
                if let (Some(Some(u)), Some(Enlarged(shown))) = (url.get_untracked().map(|u| (!u.is_empty()).then_some(u)), use_context::<Enlarged>()) {
                    shown.set(Some((u, name.clone())));
                }
            };
            let title = format!("{} · {}", f.name, air_store::export::size_text(f.size));
            view! {
                {move || match url.get() {
                    None => view! { <span class="thumb missing" data-testid="message-image-missing">{f.name.clone()}" · "{move || t().image_missing}</span> }.into_any(),
                    Some(u) => view! {
                        <button type="button" class="thumb" data-testid="message-image" title=title.clone() on:click=enlarge.clone()>
                            <img src=u alt=f.name.clone()/>
                        </button>
                    }.into_any(),
                }}
            }
        })
        .collect_view()
}

/// The answer being streamed. Finished Markdown blocks are rendered once and
/// appended; only the short unfinished tail is rendered again per chunk. The
/// other parts (reasoning, status, model) update only when they change.
#[component]
fn StreamingMessage() -> impl IntoView {
    let state = use_app();
    let field = move |f: fn(&Streaming) -> bool| move || state.chat.streaming.with(|s| s.as_ref().is_some_and(f));
    let has_reasoning = Memo::new(move |_| field(|s| s.reasoning_len > 0)());
    let is_thought = Memo::new(move |_| field(|s| s.thought)());
    let status = Memo::new(move |_| state.chat.streaming.with(|s| s.as_ref().and_then(|s| s.status.clone())));
    let model = Memo::new(move |_| state.chat.streaming.with(|s| s.as_ref().map(|s| s.model.clone()).unwrap_or_default()));
    view! {
        <article class="message assistant streaming" class:thought=is_thought
            data-testid="message-streaming" aria-busy="true">
            <Show when=move || is_thought.get()>
                <div class="thought-label">{move || t().thought}"…"</div>
            </Show>
            <Show when=move || has_reasoning.get()>
                <details class="reasoning" open><summary>{move || t().reasoning}</summary>
                    <StreamedMarkdown reasoning=true testid="reasoning-text"/>
                </details>
            </Show>
            <StreamedMarkdown reasoning=false testid="message-text"/>
            <Show when=move || status.with(Option::is_some)>
                <div class="message-status" role="status" data-testid="message-status">{move || status.get().unwrap_or_default()}</div>
            </Show>
            <div class="message-foot"><span class="message-meta">{move || model.get()}" · "{move || t().answering}</span></div>
        </article>
    }
}

/// Texts from this length on are put in the page a block at a time (see
/// `air_render::blocks`): a block off screen skips style and layout
/// (`content-visibility` in style.css), and no whole-text HTML is built.
pub(super) const BLOCKS_FROM: usize = 16 * 1024;

/// A finished message's Markdown. A long one is read from the
/// conversation's list when it is put in the page (it is not copied).
pub(super) fn markdown_text(message: &MessageRecord, text_len: usize) -> AnyView {
    if text_len < BLOCKS_FROM {
        // Short: rendered whole; what streamed is let go.
        take_live(&message.id);
        let html = air_render::render(&message.content);
        let node = NodeRef::<leptos::html::Div>::new();
        if html.contains("data-math") {
            node.on_load(|el| typeset(&el));
        }
        return view! { <div class="text markdown" data-testid="message-text" node_ref=node inner_html=html></div> }.into_any();
    }
    let state = use_app();
    let id = message.id.clone();
    let node = NodeRef::<leptos::html::Div>::new();
    node.on_load(move |el| {
        let handed = take_live(&id).map(|l| l.text);
        state.chat.messages.with_untracked(|m| {
            let Some(message) = m.iter().find(|x| x.id == id) else { return };
            // The answer that just streamed: its finished blocks move here
            // as they are; only the rest is rendered.
            if let Some(h) = handed
                && let (committed, fingerprint) = h.renderer.committed()
                && let Some(rest) = air_render::blocks_after(&message.content, committed, fingerprint)
            {
                while let Some(child) = h.blocks.first_child() {
                    let _ = el.append_child(&child);
                }
                append_rendered(&el, rest);
            } else {
                append_rendered(&el, air_render::blocks(&message.content));
            }
        });
        typeset(&el);
    });
    view! { <div class="text markdown" data-testid="message-text" node_ref=node></div> }.into_any()
}

/// Renders Markdown `blocks` into `el`, parsed as HTML some 64 KiB at a
/// time (one parse per block costs more; one for a whole long text holds
/// all its HTML at once).
fn append_rendered<'a>(el: &leptos::web_sys::Element, blocks: impl IntoIterator<Item = &'a str>) {
    let mut batch: Vec<String> = Vec::new();
    let mut size = 0;
    for block in blocks {
        let html = air_render::render(block);
        size += html.len();
        batch.push(html);
        if size >= 64 * 1024 {
            air_web::append_blocks(el, &BLOCKS, batch.iter().map(String::as_str));
            batch.clear();
            size = 0;
        }
    }
    air_web::append_blocks(el, &BLOCKS, batch.iter().map(String::as_str));
}
