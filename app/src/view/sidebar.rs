use leptos::prelude::*;

use crate::i18n::t;

use crate::binding::state::{use_app, use_sessions};

/// A row's height in the list (`.session-item` in style.css): the list is
/// virtual, only the rows in view (and a few around) are in the page.
const ROW_PX: f64 = 38.0;
/// Rows rendered above and below those in view.
const OVERSCAN: usize = 12;
/// Rows from the end of what was read at which the next page is read.
const READ_AHEAD: usize = 40;

#[component]
pub fn Sidebar() -> impl IntoView {
    let state = use_app();
    let sessions = use_sessions();
    // Where the list is scrolled and how tall it is: which rows to render.
    let scroll = RwSignal::new((0.0_f64, 800.0_f64));
    // Rows are keyed by id; each row follows its own title.
    let matching = move || sessions.list.with(|list| list.iter().map(|s| s.id.clone()).collect::<Vec<_>>());
    let searching = move || sessions.search_results.with(Option::is_some);
    let matching = Memo::new(move |_| matching());
    // The rows in view, with the space of those above and below.
    let window = Memo::new(move |_| {
        let (top, height) = scroll.get();
        let n = matching.with(Vec::len);
        let first = ((top / ROW_PX) as usize).saturating_sub(OVERSCAN).min(n);
        let last = (((top + height) / ROW_PX).ceil() as usize + OVERSCAN).min(n);
        (first, last, n)
    });
    let visible = move || {
        let (first, last, _) = window.get();
        matching.with(|m| m[first..last].to_vec())
    };
    // Set through the CSS object model (the page's CSP allows no inline
    // style attributes).
    let space_above = move || format!("{}px", window.get().0 as f64 * ROW_PX);
    let space_below = move || {
        let (_, last, n) = window.get();
        format!("{}px", (n - last) as f64 * ROW_PX)
    };
    // Near the end of what was read: the next page of the list.
    Effect::new(move |_| {
        let (_, last, n) = window.get();
        if last + READ_AHEAD >= n && sessions.has_more.get() && !searching() {
            state.load_more_sessions();
        }
    });
    // The list's height once it is on the page.
    let nav = NodeRef::<leptos::html::Nav>::new();
    Effect::new(move |_| {
        if let Some(el) = nav.get() {
            scroll.update(|s| s.1 = (el.client_height() as f64).max(s.1));
        }
    });
    let on_scroll = move |ev: leptos::ev::Event| {
        if let Some(el) = air_web::event_element(&ev) {
            scroll.set((air_web::scroll_top(&el) as f64, el.client_height() as f64));
        }
    };
    view! {
        <aside class="sidebar" data-testid="sidebar">
            <SidebarHead/>
            <SessionSearch/>
            <Show when=move || sessions.indexing.get()>
                <p class="muted search-note" data-testid="search-indexing">{move || t().search_indexing}</p>
            </Show>
            <Show when=searching>
                <SearchResults/>
            </Show>
            <nav class="session-list" data-testid="session-list" node_ref=nav on:scroll=on_scroll class:hidden=searching>
                <div style:height=space_above></div>
                <For each=visible key=|id| id.clone() let:id>
                    <SessionItem id=id/>
                </For>
                <div style:height=space_below></div>
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

/// What stays of the sidebar while it is folded away (wide screens only;
/// a narrow one has no room, see style.css): new chat, search and
/// Settings, each doing what its full-size counterpart does.
#[component]
pub fn SidebarRail() -> impl IntoView {
    let state = use_app();
    let search = move |_| {
        state.set_sidebar_collapsed(false);
        air_web::focus("[data-testid=session-search]");
    };
    view! {
        <Show when=move || state.prefs.sidebar_collapsed.get()>
            <nav class="sidebar-rail" data-testid="sidebar-rail" aria-label=move || t().sidebar_rail>
                <button class="rail-button" data-testid="rail-new-chat" aria-label=move || t().new_chat title=move || t().new_chat
                    on:click=move |_| state.new_session()>
                    <svg class="rail-icon" viewBox="0 0 24 24" aria-hidden="true"><path d="M12 5v14M5 12h14"></path></svg>
                </button>
                <button class="rail-button" data-testid="rail-search" aria-label=move || t().search_placeholder title=move || t().search_placeholder
                    on:click=search>
                    <svg class="rail-icon" viewBox="0 0 24 24" aria-hidden="true"><circle cx="11" cy="11" r="7"></circle><path d="m20 20-4.2-4.2"></path></svg>
                </button>
                <button class="rail-button rail-settings" data-testid="rail-settings" aria-label=move || t().settings title=move || t().settings
                    on:click=move |_| state.prefs.settings_open.set(true)>
                    <svg class="rail-icon" viewBox="0 0 24 24" aria-hidden="true">
                        <path d="M12.22 2h-.44a2 2 0 0 0-2 2v.18a2 2 0 0 1-1 1.73l-.43.25a2 2 0 0 1-2 0l-.15-.08a2 2 0 0 0-2.73.73l-.22.38a2 2 0 0 0 .73 2.73l.15.1a2 2 0 0 1 1 1.72v.51a2 2 0 0 1-1 1.74l-.15.09a2 2 0 0 0-.73 2.73l.22.38a2 2 0 0 0 2.73.73l.15-.08a2 2 0 0 1 2 0l.43.25a2 2 0 0 1 1 1.73V20a2 2 0 0 0 2 2h.44a2 2 0 0 0 2-2v-.18a2 2 0 0 1 1-1.73l.43-.25a2 2 0 0 1 2 0l.15.08a2 2 0 0 0 2.73-.73l.22-.39a2 2 0 0 0-.73-2.73l-.15-.08a2 2 0 0 1-1-1.74v-.5a2 2 0 0 1 1-1.74l.15-.09a2 2 0 0 0 .73-2.73l-.22-.38a2 2 0 0 0-2.73-.73l-.15.08a2 2 0 0 1-2 0l-.43-.25a2 2 0 0 1-1-1.73V4a2 2 0 0 0-2-2z"></path>
                        <circle cx="12" cy="12" r="3"></circle>
                    </svg>
                </button>
            </nav>
        </Show>
    }
}

/// Hide the sidebar, and start a new chat.
#[component]
fn SidebarHead() -> impl IntoView {
    let state = use_app();
    view! {
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
    }
}

/// The box that searches the sessions.
#[component]
fn SessionSearch() -> impl IntoView {
    let state = use_app();
    let sessions = use_sessions();
    view! {
        <div class="sidebar-search">
            <input
                type="search"
                data-testid="session-search"
                placeholder=move || t().search_placeholder
                prop:value=move || sessions.search.get()
                on:input=move |ev| state.run_search(event_target_value(&ev))
            />
        </div>
    }
}

/// What the search found: each message (or title) with its session's
/// title and the matching words marked; a click opens it there.
#[component]
fn SearchResults() -> impl IntoView {
    let state = use_app();
    let sessions = use_sessions();
    let hits = move || sessions.search_results.with(|r| r.as_ref().map(|r| r.hits.clone()).unwrap_or_default());
    view! {
        <nav class="session-list search-results" data-testid="search-results">
            // Keyed by what it shows: a hit found again by a changed query
            // shows the new words marked.
            <For each=hits key=|h| (h.session_id.clone(), h.message_id.clone(), h.snippet.clone()) let:hit>
                {
                    let title = if hit.title.is_empty() { crate::i18n::t_now().new_chat.to_owned() } else { hit.title.clone() };
                    let (session, message) = (hit.session_id.clone(), hit.message_id.clone());
                    view! {
                        <button class="search-result" data-testid="search-result" on:click=move |_| state.open_at(session.clone(), message.clone())>
                            <span class="search-title">{title}</span>
                            <span class="search-snippet">
                                {hit.snippet.iter().map(|(text, marked)| if *marked {
                                    view! { <mark>{text.clone()}</mark> }.into_any()
                                } else {
                                    text.clone().into_any()
                                }).collect_view()}
                            </span>
                        </button>
                    }
                }
            </For>
            <Show when=move || sessions.search_results.with(|r| r.as_ref().is_some_and(|r| r.hits.is_empty()))>
                <p class="muted empty" data-testid="search-empty">{move || t().search_empty}</p>
            </Show>
            <Show when=move || sessions.search_results.with(|r| r.as_ref().is_some_and(|r| r.partial))>
                <p class="muted search-note">{move || t().search_indexing}</p>
            </Show>
        </nav>
    }
}

#[component]
fn SessionItem(id: String) -> impl IntoView {
    let state = use_app();
    let sessions = use_sessions();
    let title = {
        let id = id.clone();
        Memo::new(move |_| sessions.list.with(|l| l.iter().find(|s| s.id == id).map(|s| s.title.clone()).unwrap_or_default()))
    };
    let renaming = RwSignal::new(false);
    let draft = RwSignal::new(title.get_untracked());
    // Renaming starts from the title as it is now.
    Effect::new(move |_| {
        if renaming.get() {
            draft.set(title.get_untracked());
        }
    });
    let shown = move || {
        let title = title.get();
        if title.is_empty() { t().new_chat.to_owned() } else { title }
    };
    let is_active = {
        let id = id.clone();
        move || sessions.active.get().as_deref() == Some(id.as_str())
    };
    let id_rename = id.clone();
    let id_select = id.clone();
    let id_delete = id.clone();
    view! {
        <div class="session-item" class:active=is_active data-testid="session-item">
            <Show
                when=move || renaming.get()
                fallback={
                    let id_select = id_select.clone();
                    move || view! {
                        <button
                            class="session-title"
                            title=shown
                            on:click={
                                let id = id_select.clone();
                                move |_| state.select_session(id.clone())
                            }
                            on:dblclick=move |_| renaming.set(true)
                        >{shown}</button>
                    }
                }
            >
                <RenameInput id=id_rename.clone() renaming=renaming draft=draft/>
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

/// The field that renames session `id`, kept on Enter or leaving it.
#[component]
fn RenameInput(id: String, renaming: RwSignal<bool>, draft: RwSignal<String>) -> impl IntoView {
    let state = use_app();
    let commit = move || {
        if renaming.get_untracked() {
            renaming.set(false);
            state.rename_session(id.clone(), draft.get_untracked());
        }
    };
    let commit_blur = commit.clone();
    view! {
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
    }
}
