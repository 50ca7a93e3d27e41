use air_chat::{FinishReason, Role};
use air_store::MessageRecord;
use air_store::records::MessageKind;
use leptos::prelude::*;

use crate::i18n::t;
use crate::binding::state::{Streaming, use_app};

use super::live::{StreamedMarkdown, draw_streaming, take_live, typeset};
use super::tool_card::ToolSlot;

/// Shown when no session is open: suggestions and the composer below.
#[component]
pub fn SessionCreator() -> impl IntoView {
    let state = use_app();
    view! {
        <section class="creator" data-testid="session-creator">
            <h2>{move || t().creator_title}</h2>
            <p class="muted">
                {move || t().creator_answers_from}" " <strong>{move || state.prefs.settings.with(|s| s.model.clone())}</strong>
                " "{move || t().creator_at}" " <code>{move || state.prefs.settings.with(|s| s.base_url.clone())}</code> "."
            </p>
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
    let follow = StoredValue::new(true);
    // Where the last automatic scroll put the view: a scroll event above it
    // is the reader's doing, not ours (ours may arrive after more text).
    let pinned = StoredValue::new(0);
    let scroll_due = StoredValue::new(false);
    let grown = Memo::new(move |_| {
        let streamed = state.chat.streaming.with(|s| s.as_ref().map_or(0, |s| s.text_len + s.reasoning_len));
        (state.sessions.active.get(), state.chat.messages.with(Vec::len), streamed)
    });
    Effect::new(move |previous: Option<Option<String>>| {
        let (active, _, _) = grown.get();
        if previous.as_ref() != Some(&active) {
            follow.set_value(true);
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
    // A search result opened a message: it is brought into view (and the
    // view stops following the end).
    Effect::new(move |_| {
        if let Some(id) = state.chat.focus.get() {
            follow.set_value(false);
            request_animation_frame(move || air_web::scroll_into_view(&format!("[data-id=\"{}\"]", id.replace('"', ""))));
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
                    if air_web::scrolled_to_end(&el, 60) {
                        follow.set_value(true);
                    } else if air_web::scroll_top(&el) < pinned.get_value() - 4 {
                        follow.set_value(false);
                    }
                }
            }
        >
            <Show when=move || state.chat.has_older.get()>
                <button class="load-older" data-testid="load-older" on:click=move |_| {
                    follow.set_value(false);
                    state.load_older();
                }>{move || t().load_older}</button>
            </Show>
            <For
                // Keys and places only: a change to one message copies no
                // other (a message is read from the list when it is drawn).
                each=move || state.chat.messages.with(|m| m.iter().enumerate().map(|(i, m)| (message_key(m), i)).collect::<Vec<_>>())
                key=|(k, _)| k.clone()
                let:item
            >
                {
                    let ((id, ..), at) = item;
                    state.chat.messages.try_update_untracked(|m| {
                        let at = m.get(at).filter(|x| x.id == id).map(|_| at).or_else(|| m.iter().position(|x| x.id == id))?;
                        Some(view_copy(&mut m[at]))
                    })
                    .flatten()
                    .map(|(message, text_len)| view! { <Message message=message text_len=text_len last_id=last_id/> })
                }
            </For>
            <Show when=streaming_here>
                <StreamingMessage/>
            </Show>
            <Lightbox shown=enlarged/>
        </section>
    }
}

/// ‹ 2 / 3 ›: on the first message of an alternative, which one is shown
/// and the way to the others.
#[component]
fn BranchNav(id: String) -> impl IntoView {
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

/// Characters from which a user message is shown in part until asked.
const LONG_USER_TEXT: usize = 2_000;

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

/// The images attached to a user message, small; a click shows one large.
#[component]
fn Thumbnails(files: Vec<air_store::Attachment>) -> impl IntoView {
    files
        .into_iter()
        .filter(|f| f.is_image())
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

#[component]
fn Message(message: MessageRecord, text_len: usize, last_id: Memo<Option<String>>) -> impl IntoView {
    let state = use_app();
    if message.role == Role::Tool {
        return view! { <ToolSlot id=message.id.clone()/> }.into_any();
    }
    if message.kind == Some(MessageKind::RoundLimit) {
        return view! { <div class="message notice" role="status" data-testid="round-limit">{message.content.clone()}</div> }.into_any();
    }
    // An answer that only calls tools: its cards say it all.
    if message.role == Role::Assistant
        && text_len == 0
        && !message.tool_calls.is_empty()
        && message.error.is_none()
        && message.reasoning.is_none()
    {
        return ().into_any();
    }
    if message.is_thought() {
        // A thought that failed or was stopped is the last message: it can be retried.
        let id = message.id.clone();
        let retry = move || last_id.with(|l| l.as_deref() == Some(id.as_str())) && !state.chat.busy.get();
        let id = message.id.clone();
        return view! {
            <details class="message thought" data-testid="transitive-thought">
                <summary>{move || t().thought}</summary>
                {markdown_text(&message, text_len)}
                {message.error.clone().map(|e| view! { <div class="message-error" role="alert" data-testid="message-error">{move || e.message(state.prefs.settings.with(|s| s.language.into()))}</div> })}
            </details>
            <Show when=retry>
                <button class="action" data-testid="regenerate" on:click={
                    let id = id.clone();
                    move |_| state.dispatch(air_workspace::Command::Turn(air_workspace::turn::Job::Regenerate(id.clone())))
                }>{move || t().regenerate}</button>
            </Show>
        }
        .into_any();
    }
    let role = match message.role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
        Role::System => "system",
    };
    let id = message.id.clone();
    let is_last = {
        let id = id.clone();
        move || last_id.with(|l| l.as_deref() == Some(id.as_str()))
    };
    let remote = {
        let id = id.clone();
        move || state.chat.remote_streams.with(|ids| ids.contains(&id))
    };
    // `busy` changes twice per turn, not per chunk.
    let idle = move || !state.chat.busy.get();
    let footer = (message.role == Role::Assistant).then(|| {
        let mut parts = Vec::new();
        if let Some(m) = &message.model {
            parts.push(m.clone());
        }
        if let Some(u) = &message.usage {
            parts.push(format!("{} → {} {}", u.prompt_tokens, u.completion_tokens, crate::i18n::t_now().tokens));
        }
        view! { <span class="message-meta" data-testid="message-meta">{parts.join(" · ")}</span> }
    });
    let reasoning = message.reasoning.clone().map(|r| {
        view! { <details class="reasoning" data-testid="reasoning"><summary>{move || t().reasoning}</summary><div class="text plain">{r}</div></details> }
    });
    let editing = RwSignal::new(false);
    let body = if message.role == Role::User {
        let edit_text = RwSignal::new(message.content.clone());
        let content = message.content.clone();
        let id_save = id.clone();
        view! {
            <Show
                when=move || editing.get()
                fallback=move || {
                    // A long message (a pasted file) is shown in part until asked.
                    let long = content.len() > LONG_USER_TEXT || content.lines().count() > 30;
                    let open = RwSignal::new(false);
                    view! {
                        <div class="text plain" class:clamped=move || long && !open.get() data-testid="message-text">{content.clone()}</div>
                        {long.then(|| view! {
                            <button type="button" class="action expand" data-testid="expand-message" aria-expanded=move || open.get().to_string()
                                on:click=move |_| open.update(|o| *o = !*o)>
                                {move || if open.get() { t().show_less } else { t().show_all }}
                            </button>
                        })}
                    }
                }
            >
                <form class="edit-form" on:submit={
                    let id_save = id_save.clone();
                    move |ev| {
                        ev.prevent_default();
                        editing.set(false);
                        state.dispatch(air_workspace::Command::Turn(air_workspace::turn::Job::Edit { message: id_save.clone(), text: edit_text.get_untracked() }));
                    }
                }>
                    <textarea data-testid="edit-input" rows="3"
                        prop:value=move || edit_text.get()
                        on:input=move |ev| edit_text.set(event_target_value(&ev))></textarea>
                    <div class="edit-actions">
                        <button type="button" on:click=move |_| editing.set(false)>{move || t().cancel}</button>
                        <button type="submit" class="primary" data-testid="edit-save">{move || t().save_and_send}</button>
                    </div>
                </form>
            </Show>
        }
        .into_any()
    } else {
        markdown_text(&message, text_len)
    };
    let can_continue = message.role == Role::Assistant
        && (message.incomplete || message.stopped || message.finish == Some(FinishReason::Length) || message.error.is_some())
        && text_len > 0;
    // Copied from the record at the click (a long answer is not kept twice).
    let copy_text = {
        let id = id.clone();
        move || state.chat.messages.with_untracked(|m| m.iter().find(|x| x.id == id).map(|x| x.content.clone()))
    };
    let id_regen = id.clone();
    let id_cont = id.clone();
    let is_last_regen = is_last.clone();
    let is_last_cont = is_last.clone();
    view! {
        <article
            class=format!("message {role}")
            class:found={
                let id = id.clone();
                move || state.chat.focus.with(|f| f.as_deref() == Some(id.as_str()))
            }
            data-testid=format!("message-{role}")
            data-id=id.clone()
        >
            {reasoning}
            {body}
            {(!message.attachments.is_empty()).then(|| view! { <div class="thumbs"><Thumbnails files=message.attachments.clone()/></div> })}
            {message.error.clone().map(|e| view! { <div class="message-error" role="alert" data-testid="message-error">{move || e.message(state.prefs.settings.with(|s| s.language.into()))}</div> })}
            <div class="message-foot">
                {message.stopped.then(|| view! { <span class="message-flag" data-testid="message-stopped">{move || t().stopped}</span> })}
                {(message.finish == Some(FinishReason::Length)).then(|| view! {
                    <span class="message-flag" data-testid="message-truncated" title=move || t().truncated_hint>{move || t().truncated}</span>
                })}
                {message.incomplete.then(|| {
                    let remote = remote.clone();
                    view! {
                        <Show
                            when=remote
                            fallback=move || view! { <span class="message-flag warn" data-testid="message-incomplete">{move || t().incomplete}</span> }
                        >
                            <span class="message-flag" data-testid="message-remote">{move || t().answering_elsewhere}</span>
                        </Show>
                    }
                })}
                {footer}
                <BranchNav id=id.clone()/>
                <span class="message-actions">
                    <button class="action" data-testid="copy-message" on:click=move |_| {
                        if let Some(text) = copy_text() {
                            air_web::copy_text(&text);
                        }
                    }>{move || t().copy}</button>
                    {(message.role == Role::User).then(|| view! {
                        <button class="action" data-testid="edit-message" disabled=move || !idle()
                            on:click=move |_| editing.set(true)>{move || t().edit}</button>
                    })}
                    {can_continue.then(|| view! {
                        <Show when={
                            let remote = remote.clone();
                            move || is_last_cont() && idle() && !remote()
                        }>
                            <button class="action" data-testid="continue" on:click={
                                let id = id_cont.clone();
                                move |_| state.dispatch(air_workspace::Command::Turn(air_workspace::turn::Job::Continue(id.clone())))
                            }>{move || t().continue_answer}</button>
                        </Show>
                    })}
                    {(message.role == Role::Assistant).then(|| view! {
                        <Show when={
                            let remote = remote.clone();
                            move || is_last_regen() && idle() && !remote()
                        }>
                            <button class="action" data-testid="regenerate" on:click={
                                let id = id_regen.clone();
                                move |_| state.dispatch(air_workspace::Command::Turn(air_workspace::turn::Job::Regenerate(id.clone())))
                            }>{move || t().regenerate}</button>
                        </Show>
                    })}
                </span>
            </div>
        </article>
    }
    .into_any()
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

/// A message as a view keeps it: a long answer's text stays in the
/// conversation's list only (its view reads it from there, see
/// [`markdown_text`]), so showing it copies no text.
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

/// Texts from this length on are put in the page a block at a time (see
/// `air_render::blocks`): a block off screen skips style and layout
/// (`content-visibility` in style.css), and no whole-text HTML is built.
const BLOCKS_FROM: usize = 16 * 1024;

/// A finished message's Markdown. A long one is read from the
/// conversation's list when it is put in the page (it is not copied).
fn markdown_text(message: &MessageRecord, text_len: usize) -> AnyView {
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
                for block in rest {
                    air_web::append_html(&el, "md-block", &air_render::render(block));
                }
            } else {
                for block in air_render::blocks(&message.content) {
                    air_web::append_html(&el, "md-block", &air_render::render(block));
                }
            }
        });
        typeset(&el);
    });
    view! { <div class="text markdown" data-testid="message-text" node_ref=node></div> }.into_any()
}
