use leptos::prelude::*;

use crate::binding::state::{AppState, Streaming, use_app};
use crate::i18n::t;

use super::live::{StreamedMarkdown, draw_streaming};
use super::message_parts::{Enlarged, Lightbox};
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
                            <button class="suggestion" data-testid="suggestion" on:click=move |_| state.dispatch(air_workspace::Command::Turn(air_workspace::turn::Action::Start(air_workspace::turn::Job::Send(q.to_owned()))))>{q}</button>
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
pub fn chat_view() -> Result<AnyView, crate::binding::lazy::NotFetched> {
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
