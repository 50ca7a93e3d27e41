use leptos::prelude::*;

use crate::binding::state::{AppState, LocalKind, use_app, use_chat};
use crate::i18n::{metrics_text, t};

/// The enabled MCP servers, with how many tools each offers.
fn enabled_servers(state: AppState) -> Vec<(String, usize)> {
    state.prefs.mcp_servers.with(|l| l.iter().filter(|s| s.enabled).map(|s| (s.name.clone(), s.tools.iter().filter(|t| t.offered()).count())).collect())
}

/// Dynamic loading applies to this chat (the switch, and its assistant).
fn dynamic_here(state: AppState) -> bool {
    let chat = state.sessions.active.get().unwrap_or_default();
    state.prefs.settings.with(|s| s.dynamic_mcp_loading) && state.prefs.assistants.with(|a| a.of_chat(&chat).is_none_or(|x| x.dynamic_loading))
}

/// The enabled MCP servers, each switched on or off for the open chat.
#[component]
fn McpToggle() -> impl IntoView {
    let state = use_app();
    let servers = move || enabled_servers(state);
    let dynamic_here = move || dynamic_here(state);
    // (With dynamic loading, what was loaded shows even when its server is off.)
    let shown = move || !servers().is_empty() || (dynamic_here() && state.chat.loaded_tools.with(|l| !l.tools.is_empty()));
    view! {
        <Show when=shown>
            {move || Suspend::new(async { crate::binding::lazy::show(mcp_bar().await) })}
        </Show>
        <Show when=move || state.chat.attachments.with(|a| !a.is_empty())>
            {move || Suspend::new(async { crate::binding::lazy::show(attachments().await) })}
        </Show>
    }
}

/// The MCP bar's contents, with the MCP client: fetched once a server is
/// enabled.
#[crate::binding::lazy::split(mcp_bar, wasm_split_path = ::leptos::wasm_split, fallible)]
fn mcp_bar() -> Result<AnyView, crate::binding::lazy::NotFetched> {
    Ok(view! { <McpBar/> }.into_any())
}

#[crate::binding::lazy::split(attachments, wasm_split_path = ::leptos::wasm_split, fallible)]
fn attachments() -> Result<AnyView, crate::binding::lazy::NotFetched> {
    Ok(view! { <crate::view::resources::Attachments/> }.into_any())
}

#[component]
fn McpBar() -> impl IntoView {
    let state = use_app();
    let servers = move || enabled_servers(state);
    let dynamic_here = move || dynamic_here(state);
    view! {
            <div class="mcp-toggle" data-testid="mcp-toggle" role="group" aria-label=move || t().mcp_toggle_label>
                <Show when=move || !dynamic_here()>
                    <span class="muted">{move || t().mcp_toggle_label}</span>
                </Show>
                // Dynamic loading: the servers are all there, and what the
                // conversation loaded is shown instead of the switches.
                <Show when=dynamic_here>
                    <LoadedTools/>
                </Show>
                {move || {
                    if dynamic_here() {
                        return Vec::new();
                    }
                    let chat = state.sessions.active.get().unwrap_or_default();
                    let assistant = state.prefs.assistants.with(|a| a.of_chat(&chat).cloned());
                    servers()
                        .into_iter()
                        // The chat's assistant names its servers.
                        .filter(|(name, _)| assistant.as_ref().is_none_or(|a| a.uses_server(name)))
                        .map(|(name, n)| {
                            let on = state.prefs.mcp_chat.with(|c| c.uses(&chat, &name));
                            let status = crate::view::mcp::status_text(state, &name);
                            let mut title = t().mcp_toggle_title.replace("{n}", &n.to_string());
                            if !status.is_empty() {
                                title = format!("{status}\n{title}");
                            }
                            let key = crate::view::mcp::status_key(state, &name);
                            let label = name.clone();
                            let server = name.clone();
                            view! {
                                <button type="button" class="mcp-chip" class:on=on aria-pressed=on.to_string() title=title
                                    data-testid="mcp-chip" data-server=server data-state=key
                                    on:click=move |_| state.change_prefs(air_workspace::prefs::Change::ChatServer { chat: state.chat_key(), server: name.clone(), on: !on })>{label}</button>
                            }
                        })
                        .collect::<Vec<_>>()
                }}
                <crate::view::prompts::PromptPicker/>
                <crate::view::resources::ResourcePicker/>
            </div>
    }
}

/// The MCP tools this conversation loaded (dynamic loading), each with
/// why it is no longer offered if it is not.
#[component]
fn LoadedTools() -> impl IntoView {
    let state = use_app();
    view! {
        <span class="loaded-tools" data-testid="loaded-tools" title=move || state.chat.loaded_tools.with(|l| metrics_text(&l.metrics))>
            <span class="muted">{move || t().loaded_tools}</span>
            {move || {
                let list = state.chat.loaded_tools.get();
                if list.tools.is_empty() {
                    return view! { <span class="muted">{move || t().loaded_none}</span> }.into_any();
                }
                let servers: Vec<String> = state.prefs.mcp_servers.with(|l| l.iter().map(|s| s.name.clone()).collect());
                list.tools
                    .into_iter()
                    .map(|l| {
                        let valid = l.status == air_dynamic::Status::Valid;
                        let reason = reason_text(&l, servers.contains(&l.server));
                        let title = if valid { how_loaded(&l) } else { reason.clone() };
                        let status = serde_json::to_value(l.status).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
                        view! {
                            <span class="loaded-tool" class:invalid=!valid title=title data-testid="loaded-tool" data-status=status>
                                {format!("{}{}", if valid { "" } else { "⚠ " }, l.tool)}
                                {(!valid).then(|| view! { <span class="loaded-reason" data-testid="loaded-reason">{format!(": {reason}")}</span> })}
                            </span>
                        }
                    })
                    .collect_view()
                    .into_any()
            }}
        </span>
    }
}

/// Why a loaded tool is no longer offered, in the UI language (empty
/// while it is); `server_saved`: its server is still in the list.
fn reason_text(l: &air_dynamic::LoadedTool, server_saved: bool) -> String {
    use air_dynamic::Status;
    let t = t();
    let text = match l.status {
        Status::Valid => "",
        Status::InvalidDeleted if !server_saved => t.loaded_server_removed,
        Status::InvalidDeleted => t.loaded_deleted,
        Status::InvalidDisabled => t.loaded_disabled,
        Status::InvalidServerDisabled => t.loaded_server_disabled,
        Status::InvalidChanged => t.loaded_changed,
        Status::InvalidRenamed => t.loaded_renamed,
    };
    text.replace("{server}", &l.server).replace("{tool}", &l.tool)
}

/// Where a valid loaded tool comes from, and how it was loaded.
fn how_loaded(l: &air_dynamic::LoadedTool) -> String {
    let t = t();
    let text = match l.source {
        air_dynamic::Source::Manual => t.loaded_manual,
        air_dynamic::Source::Auto => t.loaded_auto,
        air_dynamic::Source::PolicyPreload => t.loaded_preload,
    };
    text.replace("{server}", &l.server)
}

/// The message box with Send / Stop.
#[component]
pub fn Composer() -> impl IntoView {
    let state = use_app();
    let conversation = use_chat();
    let streaming = move || conversation.busy.get();
    let submit = move || state.dispatch(air_workspace::Command::Turn(air_workspace::turn::Action::Start(air_workspace::turn::Job::Send(conversation.draft.get_untracked()))));
    let warmed = StoredValue::new(false);
    let nothing_to_send = move || conversation.draft.with(|d| d.trim().is_empty()) && conversation.files.with(Vec::is_empty);
    view! {
        <McpToggle/>
        <Show when=move || conversation.files.with(|f| !f.is_empty())>
            {move || Suspend::new(async { crate::binding::lazy::show(file_chips().await) })}
        </Show>
        <form class="composer"
            on:submit=move |ev| { ev.prevent_default(); submit(); }
            on:dragover=move |ev: leptos::ev::DragEvent| ev.prevent_default()
            on:drop=move |ev: leptos::ev::DragEvent| {
                let files = air_web::event_files(&ev);
                if !files.is_empty() {
                    ev.prevent_default();
                    crate::binding::attach_files(state, files);
                }
            }
        >
            <AttachButton/>
            <textarea
                on:paste=move |ev: leptos::ev::ClipboardEvent| {
                    // Pasted files (a screenshot) are attached; pasted text is typed.
                    let files = air_web::event_files(&ev);
                    if !files.is_empty() {
                        ev.prevent_default();
                        crate::binding::attach_files(state, files);
                    }
                }
                data-testid="composer-input"
                rows="2"
                placeholder=move || t().composer_placeholder
                prop:value=move || conversation.draft.get()
                on:input=move |ev| {
                    // A new message begun: a model in this page reads
                    // ahead what will be sent before it.
                    if conversation.draft.with_untracked(String::is_empty) {
                        state.dispatch(air_workspace::Command::Turn(air_workspace::turn::Action::Start(air_workspace::turn::Job::Warm)));
                    }
                    conversation.draft.set(event_target_value(&ev));
                    // Typing a message: fetch what sending it needs now,
                    // not when it is sent.
                    if !warmed.get_value() {
                        warmed.set_value(true);
                        crate::binding::warm_turn();
                        crate::view::warm_chat_view();
                    }
                }
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
                        disabled=nothing_to_send>{move || t().send}</button>
                }
            >
                <button type="button" class="danger" data-testid="stop" on:click=move |_| state.stop()>{move || t().stop}</button>
            </Show>
        </form>
    }
}

/// The paper clip, and the hidden file input it opens.
#[component]
fn AttachButton() -> impl IntoView {
    let state = use_app();
    let picker = NodeRef::<leptos::html::Input>::new();
    view! {
        <input type="file" multiple class="visually-hidden" tabindex="-1" aria-hidden="true" data-testid="attach-input" node_ref=picker
            on:change=move |ev| crate::binding::attach_files(state, air_web::event_files(&ev))/>
        <button type="button" class="attach" data-testid="attach-button" title=move || t().attach_title aria-label=move || t().attach_title
            on:click=move |_| {
                if let Some(input) = picker.get() {
                    input.click();
                }
            }>
            <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
                <path d="M21 11.5l-8.6 8.6a5.5 5.5 0 0 1-7.8-7.8l8.6-8.6a3.7 3.7 0 0 1 5.2 5.2l-8.6 8.6a1.8 1.8 0 0 1-2.6-2.6l7.9-7.9"/>
            </svg>
        </button>
    }
}

/// The chips of attached files: a part of its own, fetched with the first
/// file.
#[crate::binding::lazy::split(file_chips, wasm_split_path = ::leptos::wasm_split, fallible)]
fn file_chips() -> Result<AnyView, crate::binding::lazy::NotFetched> {
    Ok(view! { <FileChips/> }.into_any())
}

/// The files attached to the next message: a thumbnail or the name of
/// each, with a button to take it off.
#[component]
fn FileChips() -> impl IntoView {
    let state = use_app();
    // Images for a model that refused them before: said before sending.
    let refused = move || {
        if !state.chat.files.with(|f| f.iter().any(|x| matches!(x.kind, LocalKind::Image { .. }))) {
            return false;
        }
        state.prefs.settings.track();
        state.prefs.assistants.track();
        state.sessions.active.track();
        state.turn_settings().refuses_images()
    };
    view! {
        <Show when=refused>
            <p class="hint warn file-warning" data-testid="attach-no-vision" role="status">{move || t().attach_no_vision}</p>
        </Show>
        <ul class="file-chips" data-testid="file-chips">
            <For each=move || state.chat.files.get() key=|f| f.key let:file>
                {
                    let key = file.key;
                    let remove_label = t().attach_remove.replace("{name}", &file.name);
                    let size = air_store::export::size_text(file.size);
                    let (kind, preview, note) = match &file.kind {
                        LocalKind::Image { url, scaled, .. } => (
                            "image",
                            Some(view! { <img src=url.clone() alt=file.name.clone()/> }),
                            scaled.map(|(w, h)| (t().attach_scaled.replace("{from}", &format!("{w}×{h}")), "muted", "file-scaled")),
                        ),
                        LocalKind::Text { cut, .. } => (
                            "text",
                            None,
                            cut.then(|| (t().attach_cut.replace("{n}", &air_store::files::TEXT_LIMIT.to_string()), "message-flag warn", "file-cut")),
                        ),
                    };
                    view! {
                        <li class="file-chip" data-testid="file-chip" data-kind=kind title=file.name.clone()>
                            {preview}
                            <span class="file-name">{file.name.clone()}</span>
                            <span class="muted">{size}</span>
                            {note.map(|(n, class, id)| view! { <span class=class data-testid=id>{n}</span> })}
                            <button type="button" class="file-remove" data-testid="file-remove" aria-label=remove_label.clone() title=remove_label
                                on:click=move |_| state.dispatch(air_workspace::Command::Files(air_workspace::files::Action::Remove(key)))>"×"</button>
                        </li>
                    }
                }
            </For>
        </ul>
    }
}
