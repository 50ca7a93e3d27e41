use leptos::prelude::*;

use crate::chat;
use crate::i18n::t;
use crate::state::{use_app, use_chat};

/// The message box with Send / Stop.
#[component]
pub fn Composer() -> impl IntoView {
    let state = use_app();
    let conversation = use_chat();
    let streaming = move || conversation.busy.get();
    let submit = move || chat::send(state, conversation.draft.get_untracked());
    view! {
        <form class="composer" on:submit=move |ev| { ev.prevent_default(); submit(); }>
            <textarea
                data-testid="composer-input"
                rows="2"
                placeholder=move || t().composer_placeholder
                prop:value=move || conversation.draft.get()
                on:input=move |ev| conversation.draft.set(event_target_value(&ev))
                autofocus
                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                    if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                        ev.prevent_default();
                        submit();
                    } else if ev.key() == "Escape" && conversation.busy.get_untracked() {
                        ev.prevent_default();
                        state.stop();
                    }
                }
            ></textarea>
            <Show
                when=streaming
                fallback=move || view! {
                    <button type="submit" class="primary" data-testid="send"
                        disabled=move || conversation.draft.with(|d| d.trim().is_empty())>{move || t().send}</button>
                }
            >
                <button type="button" class="danger" data-testid="stop" on:click=move |_| state.stop()>{move || t().stop}</button>
            </Show>
        </form>
    }
}
