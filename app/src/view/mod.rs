//! Components. Each takes what it needs from [`AppState`] in context.

mod app_frame;
mod assistants;
mod browser_models;
mod chat;
pub(crate) mod composer;
mod first_run;
mod http_tools;
mod live;
mod log;
pub(crate) mod mcp;
mod mcp_import;
mod message;
mod message_parts;
mod policies;
mod prompts;
pub(crate) mod question;
pub(crate) mod resources;
mod settings;
mod shortcuts;
mod sidebar;
mod summarizer;
mod sync;
mod thread;
mod tool_card;

use leptos::prelude::*;

use crate::binding::state::{use_app, use_shell};
use crate::i18n::t;

/// Starts fetching the conversation view (a store with sessions opens
/// the newest at once), while its messages are read.
pub fn warm_chat_view() {
    crate::binding::lazy::prefetch(chat::__wasm_split_preload_chat_view());
}

/// The two-column layout: sessions on the left, the conversation on the right.
#[component]
pub fn App() -> impl IntoView {
    // The preferences are read, the store opens, and the newest session
    // with it (the core); the conversation view is fetched as soon as the
    // core says one will open.
    let state = crate::binding::start(warm_chat_view);
    // Once the store is open: how much is stored, and is it kept.
    Effect::new(move |_| {
        if !state.shell.loading.get() {
            state.dispatch(air_workspace::Command::Data(air_workspace::data::Action::WantStorage));
        }
    });
    // Theme and language follow the settings (the language picked, or
    // the browser's).
    Effect::new(move |_| {
        let (theme, lang) = state.prefs.settings.with(|s| (s.theme, s.language.current()));
        let theme = match theme {
            air_store::settings::Theme::Light => Some("light"),
            air_store::settings::Theme::Dark => Some("dark"),
            air_store::settings::Theme::System => None,
        };
        air_web::set_root_attribute("data-theme", theme);
        air_web::set_root_attribute("lang", Some(lang.tag()));
    });
    // The keyboard, and the sheet that lists its shortcuts.
    let keys_open = RwSignal::new(false);
    shortcuts::listen(state, keys_open);
    // A new version is installed (app/boot.js says so).
    let update = window_event_listener_untyped("air-update-ready", move |_| state.shell.update_ready.set(true));
    on_cleanup(move || update.remove());
    view! {
        // Names every code block's copy button (see air_render::COPY_LABEL_ID).
        <span id=air_render::COPY_LABEL_ID hidden>{move || t().copy_code}</span>
        <span id=air_render::PREVIEW_LABEL_ID hidden>{move || t().preview_code}</span>
        <shortcuts::ShortcutSheet open=keys_open/>
        <div class="app" class:sidebar-collapsed=move || state.prefs.sidebar_collapsed.get()>
            <sidebar::Sidebar/>
            <sidebar::SidebarRail/>
            <div
                class="backdrop"
                data-testid="sidebar-backdrop"
                on:click=move |_| state.set_sidebar_collapsed(true)
            ></div>
            <main class="main">
                <TopBar/>
                <UpdateReady/>
                <Notice/>
                <Show
                    when=move || !state.shell.loading.get()
                    fallback=|| view! { <div class="loading" data-testid="loading"><span class="spinner"></span>{move || t().app_loading}</div> }
                >
                    <Show
                        when=move || state.sessions.active.get().is_some()
                        fallback=|| view! { <chat::SessionCreator/> }
                    >
                        {move || Suspend::new(async { crate::binding::lazy::show(chat::chat_view().await) })}
                    </Show>
                    <composer::Composer/>
                </Show>
            </main>
            <settings::SettingsPanel/>
        </div>
    }
}

#[component]
fn TopBar() -> impl IntoView {
    let state = use_app();
    let title = move || {
        let active = state.sessions.active.get();
        state.sessions.list.with(|l| active.and_then(|id| l.iter().find(|s| s.id == id).map(|s| s.title.clone())).filter(|t| !t.is_empty()).unwrap_or_else(|| t().new_chat.into()))
    };
    view! {
        <header class="topbar">
            <button
                class="icon-button"
                data-testid="toggle-sidebar"
                title=move || t().toggle_sidebar
                on:click=move |_| state.set_sidebar_collapsed(!state.prefs.sidebar_collapsed.get_untracked())
            >"☰"</button>
            <h1 class="topbar-title">{title}</h1>
            <assistants::AssistantPicker/>
            <ProfilePicker/>
            <ModelPicker/>
            <button
                class="icon-button"
                data-testid="open-settings"
                title=move || t().settings
                on:click=move |_| state.prefs.settings_open.set(true)
            >"⚙"</button>
        </header>
    }
}

/// The provider of the open chat, when there are other providers: a part
/// of its own, fetched once there are.
#[component]
fn ProfilePicker() -> impl IntoView {
    let state = use_app();
    view! {
        <Show when=move || state.prefs.settings.with(|s| !s.profiles.is_empty())>
            {move || Suspend::new(async { crate::binding::lazy::show(profile_picker().await) })}
        </Show>
    }
}

#[crate::binding::lazy::split(profile_picker, wasm_split_path = ::leptos::wasm_split, fallible)]
fn profile_picker() -> Result<AnyView, crate::binding::lazy::NotFetched> {
    Ok(view! { <ProfileList/> }.into_any())
}

/// The list itself (a new chat's choice moves to it when it starts).
#[component]
fn ProfileList() -> impl IntoView {
    let state = use_app();
    let current = move || {
        let chat = state.sessions.active.get().unwrap_or_default();
        state.prefs.assistants.with(|a| a.profile_of(&chat).map(str::to_owned)).unwrap_or_default()
    };
    view! {
            <select class="assistant-picker" data-testid="profile-picker" title=move || t().provider aria-label=move || t().provider
                on:change=move |ev| {
                    let id = event_target_value(&ev);
                    let chat = state.chat_key();
                    state.change_prefs(air_workspace::prefs::Change::PickProfile { chat, id: Some(id) });
                }>
                <option value="" selected=move || current().is_empty()>{move || t().profile_usual}</option>
                {move || state.prefs.settings.with(|s| s.profiles.clone()).into_iter().map(|p| {
                    let id = p.id.clone();
                    let name = if p.name.trim().is_empty() { p.base_url.clone() } else { p.name.clone() };
                    view! { <option value=p.id.clone() selected=move || current() == id>{name}</option> }
                }).collect_view()}
            </select>
    }
}

/// The model of the open chat, picked here for it alone (remembered with
/// the chat; blank or the usual model: back to its assistant's or the
/// settings'). The models of the chat's provider are offered once it is
/// focused, asked once per provider.
#[component]
fn ModelPicker() -> impl IntoView {
    let state = use_app();
    let lists = state.prefs.model_lists;
    // The provider of the chat when the picker was last focused.
    let source = RwSignal::new((String::new(), false));
    let input = NodeRef::<leptos::html::Input>::new();
    let model = move || {
        let chat = state.sessions.active.get().unwrap_or_default();
        state.prefs.settings.with(|s| state.prefs.assistants.with(|a| a.for_chat(&chat, s).model))
    };
    // The usual model (its assistant's or the settings') is no pick (the
    // core decides). Returns the model the chat now has (the change is
    // written in the background, so the field shows it before the settings
    // signal follows).
    let commit = move |v: String| {
        let v = v.trim().to_owned();
        let now = model();
        if v.is_empty() || v == now {
            return now;
        }
        let chat = state.chat_key();
        state.change_prefs(air_workspace::prefs::Change::PickModel { chat, model: Some(v.clone()) });
        v
    };
    view! {
        <input class="model-picker" data-testid="model-picker" list="model-options" autocomplete="off" spellcheck="false"
            node_ref=input
            aria-label=move || t().model_badge_title title=move || t().model_badge_title
            prop:value=model
            placeholder=model
            on:focus=move |_| {
                // Emptied while focused, so every model is offered (the
                // list only shows those matching what is typed).
                if let Some(el) = input.get_untracked() {
                    el.set_value("");
                }
                let settings = state.turn_settings();
                let from = settings.models_source();
                source.set(from.clone());
                state.dispatch(air_workspace::Command::Models(air_workspace::models::Action::Want(Box::new(settings))));
            }
            on:change=move |ev| {
                commit(event_target_value(&ev));
            }
            on:blur=move |ev| {
                let shown = commit(event_target_value(&ev));
                if let Some(el) = input.get_untracked() {
                    el.set_value(&shown);
                }
            }/>
        <datalist id="model-options">
            {move || lists.with(|l| source.with(|from| l.of(from).to_vec())).into_iter().map(|m| view! { <option value=m></option> }).collect_view()}
        </datalist>
    }
}

/// A new version waits: the user reloads when it suits them, never in the
/// middle of an answer.
#[component]
fn UpdateReady() -> impl IntoView {
    let state = use_app();
    view! {
        <Show when=move || state.shell.update_ready.get()>
            <div class="notice update" role="status" data-testid="update-ready">
                <span>{move || t().update_ready}</span>
                <button
                    class="primary"
                    data-testid="update-reload"
                    disabled=move || state.chat.busy.get()
                    title=move || if state.chat.busy.get() { t().update_after_answer } else { "" }
                    on:click=move |_| {
                        if !state.is_busy() {
                            air_web::dispatch_window_event("air-update-apply");
                        }
                    }
                >{move || t().update_reload}</button>
                <button class="icon-button" title=move || t().dismiss on:click=move |_| state.shell.update_ready.set(false)>"×"</button>
            </div>
        </Show>
    }
}

#[component]
fn Notice() -> impl IntoView {
    let shell = use_shell();
    view! {
        <Show when=move || shell.notice.with(Option::is_some)>
            <div class="notice" role="alert" data-testid="notice">
                <span>{move || shell.notice.get().unwrap_or_default()}</span>
                <button class="icon-button" title=move || t().dismiss on:click=move |_| shell.notice.set(None)>"×"</button>
            </div>
        </Show>
    }
}
