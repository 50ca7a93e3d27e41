use leptos::prelude::*;

use crate::chat;
use crate::i18n::t;
use crate::state::use_app;

/// The message box with Send / Stop.
#[component]
pub fn Composer() -> impl IntoView {
    let state = use_app();
    let streaming = move || state.busy.get();
    let submit = move || chat::send(state, state.draft.get_untracked());
    view! {
        <form class="composer" on:submit=move |ev| { ev.prevent_default(); submit(); }>
            <textarea
                data-testid="composer-input"
                rows="2"
                placeholder=move || t().composer_placeholder
                prop:value=move || state.draft.get()
                on:input=move |ev| state.draft.set(event_target_value(&ev))
                autofocus
                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                    if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                        ev.prevent_default();
                        submit();
                    } else if ev.key() == "Escape" && state.busy.get_untracked() {
                        ev.prevent_default();
                        state.stop();
                    }
                }
            ></textarea>
            <Show
                when=streaming
                fallback=move || view! {
                    <button type="submit" class="primary" data-testid="send"
                        disabled=move || state.draft.with(|d| d.trim().is_empty())>{move || t().send}</button>
                }
            >
                <button type="button" class="danger" data-testid="stop" on:click=move |_| state.stop()>{move || t().stop}</button>
            </Show>
        </form>
    }
}
