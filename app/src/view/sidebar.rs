use leptos::prelude::*;

use crate::state::use_app;

#[component]
pub fn Sidebar() -> impl IntoView {
    let state = use_app();
    view! {
        <aside class="sidebar" data-testid="sidebar">
            <div class="sidebar-head">
                <button
                    class="icon-button"
                    data-testid="collapse-sidebar"
                    title="Hide conversations"
                    on:click=move |_| state.set_sidebar_collapsed(true)
                >"«"</button>
                <button class="primary wide" data-testid="new-session" on:click=move |_| state.new_session()>
                    "+ New chat"
                </button>
            </div>
            <nav class="session-list" data-testid="session-list">
                <For
                    each=move || state.sessions.get()
                    key=|s| (s.id.clone(), s.title.clone())
                    let:session
                >
                    {
                        let id = session.id.clone();
                        let id_select = id.clone();
                        let id_delete = id.clone();
                        let is_active = move || state.active.get().as_deref() == Some(id.as_str());
                        let title = if session.title.is_empty() { "New chat".to_owned() } else { session.title.clone() };
                        view! {
                            <div class="session-item" class:active=is_active data-testid="session-item">
                                <button
                                    class="session-title"
                                    title=title.clone()
                                    on:click=move |_| state.select_session(id_select.clone())
                                >{title.clone()}</button>
                                <button
                                    class="icon-button session-delete"
                                    title="Delete this conversation"
                                    data-testid="delete-session"
                                    on:click=move |_| {
                                        if air_web::confirm("Delete this conversation?") {
                                            state.delete_session(id_delete.clone());
                                        }
                                    }
                                >"×"</button>
                            </div>
                        }
                    }
                </For>
            </nav>
        </aside>
    }
}
