//! A stored message of the conversation: its text, images and error, and
//! under it its flags, model, branches and actions.

use air_chat::{FinishReason, Role};
use air_store::MessageRecord;
use air_store::records::MessageKind;
use leptos::prelude::*;

use crate::binding::state::{AppState, use_app};
use crate::i18n::t;

use super::message_parts::{BranchNav, Thumbnails, markdown_text};
use super::tool_card::ToolSlot;

/// Characters from which a user message is shown in part until asked.
const LONG_USER_TEXT: usize = 2_000;

/// A stored message, drawn as its kind asks.
#[component]
pub(super) fn Message(message: MessageRecord, text_len: usize, last_id: Memo<Option<String>>) -> impl IntoView {
    if message.role == Role::Tool {
        return view! { <ToolSlot id=message.id.clone()/> }.into_any();
    }
    if message.kind == Some(MessageKind::RoundLimit) {
        return view! { <div class="message notice" role="status" data-testid="round-limit">{message.content.clone()}</div> }.into_any();
    }
    // An answer that only calls tools: its cards say it all.
    if message.role == Role::Assistant && text_len == 0 && !message.tool_calls.is_empty() && message.error.is_none() && message.reasoning.is_none() {
        return ().into_any();
    }
    if message.is_thought() {
        return view! { <ThoughtMessage message=message text_len=text_len last_id=last_id/> }.into_any();
    }
    view! { <TextMessage message=message text_len=text_len last_id=last_id/> }.into_any()
}

/// A thought (transitive thinking), folded, with Regenerate when it is last.
#[component]
fn ThoughtMessage(message: MessageRecord, text_len: usize, last_id: Memo<Option<String>>) -> impl IntoView {
    let state = use_app();
    // A thought that failed or was stopped is the last message: it can be retried.
    let id = message.id.clone();
    let retry = move || last_id.with(|l| l.as_deref() == Some(id.as_str())) && !state.chat.busy.get();
    let id = message.id.clone();
    view! {
        <details class="message thought" data-testid="transitive-thought">
            <summary>{move || t().thought}</summary>
            {markdown_text(&message, text_len)}
            {message.error.clone().map(|e| view! { <div class="message-error" role="alert" data-testid="message-error">{move || e.message(state.prefs.settings.with(|s| s.language.into()))}</div> })}
        </details>
        <Show when=retry>
            <button class="action" data-testid="regenerate" on:click={
                let id = id.clone();
                move |_| state.dispatch(air_workspace::Command::Turn(air_workspace::turn::Action::Start(air_workspace::turn::Job::Regenerate(id.clone()))))
            }>{move || t().regenerate}</button>
        </Show>
    }
}

/// A user's or an assistant's message: its text, images, error and foot.
#[component]
fn TextMessage(message: MessageRecord, text_len: usize, last_id: Memo<Option<String>>) -> impl IntoView {
    let state = use_app();
    let role = match message.role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
        Role::System => "system",
    };
    let id = message.id.clone();
    let reasoning = message.reasoning.clone().map(|r| {
        view! { <details class="reasoning" data-testid="reasoning"><summary>{move || t().reasoning}</summary><div class="text plain">{r}</div></details> }
    });
    let editing = RwSignal::new(false);
    let body = if message.role == Role::User { view! { <UserText content=message.content.clone() id=id.clone() editing=editing/> }.into_any() } else { markdown_text(&message, text_len) };
    let thumbs = (!message.attachments.is_empty()).then(|| view! { <div class="thumbs"><Thumbnails files=message.attachments.clone()/></div> });
    let error =
        message.error.clone().map(|e| view! { <div class="message-error" role="alert" data-testid="message-error">{move || e.message(state.prefs.settings.with(|s| s.language.into()))}</div> });
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
            {thumbs}
            {error}
            <MessageFoot message=message text_len=text_len last_id=last_id editing=editing/>
        </article>
    }
}

/// A user's message (a long one in part until asked), or the form editing it.
#[component]
fn UserText(content: String, id: String, editing: RwSignal<bool>) -> impl IntoView {
    let state = use_app();
    let edit_text = RwSignal::new(content.clone());
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
                let id_save = id.clone();
                move |ev| {
                    ev.prevent_default();
                    editing.set(false);
                    state.dispatch(air_workspace::Command::Turn(air_workspace::turn::Action::Start(air_workspace::turn::Job::Edit { message: id_save.clone(), text: edit_text.get_untracked() })));
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
}

/// Whether message `id` is being answered in another tab (tracked).
fn answered_elsewhere(state: AppState, id: String) -> impl Fn() -> bool + Clone + Send + Sync + 'static {
    move || state.chat.remote_streams.with(|ids| ids.contains(&id))
}

/// Under a message: its flags, model and usage, branches and actions.
#[component]
fn MessageFoot(message: MessageRecord, text_len: usize, last_id: Memo<Option<String>>, editing: RwSignal<bool>) -> impl IntoView {
    let state = use_app();
    let id = message.id.clone();
    let remote = answered_elsewhere(state, id.clone());
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
    let can_continue = message.role == Role::Assistant && (message.incomplete || message.stopped || message.finish == Some(FinishReason::Length) || message.error.is_some()) && text_len > 0;
    view! {
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
            <MessageActions id=id role=message.role can_continue=can_continue last_id=last_id editing=editing/>
        </div>
    }
}

/// A message's actions: Copy, and Edit, Continue or Regenerate where they apply.
#[component]
fn MessageActions(id: String, role: Role, can_continue: bool, last_id: Memo<Option<String>>, editing: RwSignal<bool>) -> impl IntoView {
    let state = use_app();
    let is_last = {
        let id = id.clone();
        move || last_id.with(|l| l.as_deref() == Some(id.as_str()))
    };
    let remote = answered_elsewhere(state, id.clone());
    // `busy` changes twice per turn, not per chunk.
    let idle = move || !state.chat.busy.get();
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
        <span class="message-actions">
            <button class="action" data-testid="copy-message" on:click=move |_| {
                if let Some(text) = copy_text() {
                    air_web::copy_text(&text);
                }
            }>{move || t().copy}</button>
            {(role == Role::User).then(|| view! {
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
                        move |_| state.dispatch(air_workspace::Command::Turn(air_workspace::turn::Action::Start(air_workspace::turn::Job::Continue(id.clone()))))
                    }>{move || t().continue_answer}</button>
                </Show>
            })}
            {(role == Role::Assistant).then(|| view! {
                <Show when={
                    let remote = remote.clone();
                    move || is_last_regen() && idle() && !remote()
                }>
                    <button class="action" data-testid="regenerate" on:click={
                        let id = id_regen.clone();
                        move |_| state.dispatch(air_workspace::Command::Turn(air_workspace::turn::Action::Start(air_workspace::turn::Job::Regenerate(id.clone()))))
                    }>{move || t().regenerate}</button>
                </Show>
            })}
        </span>
    }
}
