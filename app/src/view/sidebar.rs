use leptos::prelude::*;

use crate::i18n::t;

/// Sidebar rows rendered at a time.
const LIST_STEP: usize = 100;
use crate::state::{use_app, use_sessions};

#[component]
pub fn Sidebar() -> impl IntoView {
    let state = use_app();
    let sessions = use_sessions();
    // Only the first `shown` rows are rendered; scrolling near the end of
    // the list renders more, so thousands of sessions cost little at start.
    let shown = RwSignal::new(LIST_STEP);
    let matching = move || {
        let hits = sessions.search_hits.get();
        sessions.list.with(|list| {
            list.iter()
                .filter(|s| hits.as_ref().map(|h| h.contains(&s.id)).unwrap_or(true))
                .map(|s| (s.id.clone(), s.title.clone()))
                .collect::<Vec<_>>()
        })
    };
    let matching = Memo::new(move |_| matching());
    let visible = move || matching.with(|m| m.iter().take(shown.get()).cloned().collect::<Vec<_>>());
    let more = move || matching.with(Vec::len).saturating_sub(shown.get());
    let on_scroll = move |ev: leptos::ev::Event| {
        let near_end = air_web::event_element(&ev).is_some_and(|el| air_web::scrolled_to_end(&el, 400));
        if near_end && more() > 0 {
            shown.update(|n| *n += LIST_STEP);
        }
    };
    view! {
        <aside class="sidebar" data-testid="sidebar">
            <div class="sidebar-head">
                <button
                    class="icon-button"
                    data-testid="collapse-sidebar"
                    title=move || t().hide_sidebar
                    on:click=move |_| state.set_sidebar_collapsed(true)
                >"«"</button>
                <button class="primary wide" data-testid="new-session" on:click=move |_| state.new_session()>
                    {move || t().new_chat_button}
                </button>
            </div>
            <div class="sidebar-search">
                <input
                    type="search"
                    data-testid="session-search"
                    placeholder=move || t().search_placeholder
                    prop:value=move || sessions.search.get()
                    on:input=move |ev| state.run_search(event_target_value(&ev))
                />
            </div>
            <nav class="session-list" data-testid="session-list" on:scroll=on_scroll>
                <For each=visible key=|s| s.clone() let:session>
                    <SessionItem id=session.0.clone() title=session.1.clone()/>
                </For>
                <Show when=move || { more() > 0 }>
                    <button class="show-more" data-testid="sessions-more" on:click=move |_| shown.update(|n| *n += LIST_STEP)>
                        {move || format!("+{}", more())}
                    </button>
                </Show>
                <Show when=move || sessions.search_hits.with(|h| h.as_ref().map(Vec::is_empty).unwrap_or(false))>
                    <p class="muted empty" data-testid="search-empty">{move || t().search_empty}</p>
                </Show>
            </nav>
            <Show when=move || sessions.pending_delete.with(Option::is_some)>
                <div class="toast" role="status" data-testid="undo-toast">
                    <span>{move || t().deleted}</span>
                    <button data-testid="undo-delete" on:click=move |_| state.undo_delete()>{move || t().undo}</button>
                </div>
            </Show>
        </aside>
    }
}

#[component]
fn SessionItem(id: String, title: String) -> impl IntoView {
    let state = use_app();
    let sessions = use_sessions();
    let renaming = RwSignal::new(false);
    let draft = RwSignal::new(title.clone());
    let shown = if title.is_empty() { crate::i18n::t_now().new_chat.to_owned() } else { title.clone() };
    let is_active = {
        let id = id.clone();
        move || sessions.active.get().as_deref() == Some(id.as_str())
    };
    let commit = {
        let id = id.clone();
        move || {
            if renaming.get_untracked() {
                renaming.set(false);
                state.rename_session(id.clone(), draft.get_untracked());
            }
        }
    };
    let commit_blur = commit.clone();
    let id_select = id.clone();
    let id_delete = id.clone();
    view! {
        <div class="session-item" class:active=is_active data-testid="session-item">
            <Show
                when=move || renaming.get()
                fallback={
                    let shown = shown.clone();
                    let id_select = id_select.clone();
                    move || view! {
                        <button
                            class="session-title"
                            title=shown.clone()
                            on:click={
                                let id = id_select.clone();
                                move |_| state.select_session(id.clone())
                            }
                            on:dblclick=move |_| renaming.set(true)
                        >{shown.clone()}</button>
                    }
                }
            >
                <input
                    class="session-rename"
                    data-testid="rename-input"
                    prop:value=move || draft.get()
                    on:input=move |ev| draft.set(event_target_value(&ev))
                    on:blur={
                        let commit = commit_blur.clone();
                        move |_| commit()
                    }
                    on:keydown={
                        let commit = commit.clone();
                        move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
                            "Enter" => commit(),
                            "Escape" => renaming.set(false),
                            _ => {}
                        }
                    }
                    autofocus
                />
            </Show>
            <button
                class="icon-button session-action"
                title=move || t().rename
                data-testid="rename-session"
                on:click=move |_| renaming.set(true)
            >"✎"</button>
            <button
                class="icon-button session-action"
                title=move || t().delete
                data-testid="delete-session"
                on:click=move |_| state.delete_session(id_delete.clone())
            >"×"</button>
        </div>
    }
}
