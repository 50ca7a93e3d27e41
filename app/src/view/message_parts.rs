//! What a message shows besides its text, and its text as Markdown: the
//! way between alternatives, images and files (and the lightbox they open
//! in), and a finished message's Markdown, whole or a block at a time.

use air_store::MessageRecord;
use leptos::prelude::*;

use crate::binding::state::use_app;
use crate::i18n::t;

use super::live::{BLOCKS, take_live, typeset};

/// Texts from this length on are put in the page a block at a time (see
/// `air_render::blocks`): a block off screen skips style and layout
/// (`content-visibility` in style.css), and no whole-text HTML is built.
pub(super) const BLOCKS_FROM: usize = 16 * 1024;

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
pub(super) struct Enlarged(pub(super) RwSignal<Option<(String, String)>>);

/// An image shown large, in a modal dialog (Esc, the button or a click
/// closes it).
#[component]
pub(super) fn Lightbox(shown: RwSignal<Option<(String, String)>>) -> impl IntoView {
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

/// A file that is not an image (a text file attached, an imported
/// attachment, a file code wrote): its name and size, saved to this
/// machine when clicked.
#[component]
fn FileChip(file: air_store::Attachment) -> impl IntoView {
    let label = format!("{} · {}", file.name, air_store::export::size_text(file.size));
    let title = label.clone();
    let save = move |_| crate::binding::download_file(file.id.clone(), file.name.clone());
    view! { <button type="button" class="message-file" data-testid="message-file" title=title on:click=save>{label}</button> }
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
