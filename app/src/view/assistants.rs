//! Assistants: the list and the editor in Settings, and the picker of the
//! open chat in the top bar.

use air_store::assistants::Assistant;
use air_store::mcp::McpServer;
use air_workspace::prefs::Change;
use leptos::prelude::*;

use crate::binding::state::use_app;
use crate::i18n::t;

/// The open chat's assistant (a new chat's choice moves to it when it
/// starts).
#[component]
pub fn AssistantPicker() -> impl IntoView {
    let state = use_app();
    let current = move || {
        let chat = state.sessions.active.get().unwrap_or_default();
        state.prefs.assistants.with(|a| a.of_chat(&chat).map(|x| x.id.clone())).unwrap_or_default()
    };
    view! {
        <Show when=move || state.prefs.assistants.with(|a| !a.list.is_empty())>
            <select class="assistant-picker" data-testid="assistant-picker" title=move || t().assistant
                on:change=move |ev| {
                    let id = event_target_value(&ev);
                    let chat = state.chat_key();
                    state.change_prefs(Change::PickAssistant { chat, id: (!id.is_empty()).then_some(id) });
                }>
                <option value="" selected=move || current().is_empty()>{move || t().assistant_none}</option>
                {move || state.prefs.assistants.get().list.into_iter().map(|a| {
                    let id = a.id.clone();
                    view! { <option value=a.id.clone() selected=move || current() == id>{a.name.clone()}</option> }
                }).collect_view()}
            </select>
        </Show>
    }
}

/// Settings → Assistants: each with Edit and Delete, and a form to add or
/// change one.
#[component]
pub fn AssistantsSection(
    /// The settings being edited in the drawer (the dynamic-loading switch
    /// as it stands there).
    draft: RwSignal<air_store::Settings>,
) -> impl IntoView {
    let state = use_app();
    let editing = RwSignal::new(None::<Assistant>);
    let rows = move || state.prefs.assistants.get().list.into_iter().map(|a| view! { <AssistantRow a=a editing=editing/> }).collect_view();
    let form = move || {
        editing.get().map(|a| {
            let servers = state.prefs.mcp_servers.get();
            view! { <AssistantForm a=a servers=servers editing=editing draft=draft/> }
        })
    };
    view! {
        <fieldset data-testid="assistants">
            <legend>{move || t().assistants}</legend>
            {rows}
            {form}
            <Show when=move || editing.with(Option::is_none)>
                <button type="button" data-testid="assistant-new"
                    on:click=move |_| editing.set(Some(Assistant::new(crate::binding::env::new_id(), "")))>{move || t().assistant_new}</button>
            </Show>
        </fieldset>
    }
}

/// An assistant in the list, with Edit and Delete.
#[component]
fn AssistantRow(a: Assistant, editing: RwSignal<Option<Assistant>>) -> impl IntoView {
    let state = use_app();
    let (for_edit, id) = (a.clone(), a.id.clone());
    view! {
        <div class="row assistant-row" data-testid="assistant">
            <strong data-testid="assistant-name">{a.name.clone()}</strong>
            <span class="muted">{if a.model.is_empty() { String::new() } else { a.model.clone() }}</span>
            <button type="button" data-testid="assistant-edit" on:click=move |_| editing.set(Some(for_edit.clone()))>{move || t().edit}</button>
            <button type="button" data-testid="assistant-delete" on:click=move |_| state.change_prefs(Change::DeleteAssistant(id.clone()))>{move || t().assistant_delete}</button>
        </div>
    }
}

/// Changes the assistant being edited, if there is one.
fn editor(editing: RwSignal<Option<Assistant>>) -> impl Fn(&dyn Fn(&mut Assistant)) + Copy + 'static {
    move |f: &dyn Fn(&mut Assistant)| {
        editing.update(|e| {
            if let Some(a) = e {
                f(a)
            }
        })
    }
}

/// The form that adds or changes `a`, the assistant being edited.
#[component]
fn AssistantForm(a: Assistant, servers: Vec<McpServer>, editing: RwSignal<Option<Assistant>>, draft: RwSignal<air_store::Settings>) -> impl IntoView {
    let state = use_app();
    let edit = editor(editing);
    let global_dynamic = move || draft.with(|s| s.dynamic_mcp_loading);
    let save = move |_| {
        let Some(a) = editing.get_untracked() else { return };
        if a.name.trim().is_empty() {
            return;
        }
        state.change_prefs(Change::PutAssistant(Box::new(Assistant { name: a.name.trim().to_owned(), ..a })));
        editing.set(None);
    };
    view! {
        <div class="assistant-form" data-testid="assistant-form">
            <label>{move || t().assistant_name}
                <input type="text" data-testid="assistant-name-input" prop:value=a.name.clone()
                    on:input=move |ev| { let v = event_target_value(&ev); edit(&|x| x.name = v.clone()) }/>
            </label>
            <label>{move || t().system_prompt}
                <textarea rows="3" data-testid="assistant-prompt" prop:value=a.system_prompt.clone()
                    on:input=move |ev| { let v = event_target_value(&ev); edit(&|x| x.system_prompt = v.clone()) }></textarea>
            </label>
            <div class="row">
                <label>{move || t().model}
                    <input type="text" data-testid="assistant-model" list="model-list" placeholder=move || t().assistant_same prop:value=a.model.clone()
                        on:input=move |ev| { let v = event_target_value(&ev); edit(&|x| x.model = v.trim().to_owned()) }/>
                </label>
                <label>{move || t().temperature}
                    <input type="number" min="0" max="2" step="0.1" data-testid="assistant-temperature" placeholder=move || t().assistant_same
                        prop:value=a.temperature.map(|v| v.to_string()).unwrap_or_default()
                        on:input=move |ev| { let v = event_target_value(&ev); edit(&|x| x.temperature = v.trim().parse().ok()) }/>
                </label>
            </div>
            <AssistantProfile profile=a.profile.clone() editing=editing/>
            <Show when=global_dynamic>
                <label class="check">
                    <input type="checkbox" data-testid="assistant-dynamic" prop:checked=move || editing.with(|e| e.as_ref().is_some_and(|x| x.dynamic_loading))
                        on:change=move |ev| { let v = event_target_checked(&ev); edit(&|x| x.dynamic_loading = v) }/>
                    {move || t().assistant_dynamic}
                </label>
            </Show>
            <label class="check">
                <input type="checkbox" data-testid="assistant-code" prop:checked=move || editing.with(|e| e.as_ref().is_some_and(|x| x.code))
                    on:change=move |ev| { let v = event_target_checked(&ev); edit(&|x| x.code = v) }/>
                {move || t().assistant_code}
            </label>
            <AssistantPreload servers=servers.clone() editing=editing draft=draft/>
            <AssistantServers servers=servers editing=editing draft=draft/>
            <div class="row">
                <button type="button" class="primary" data-testid="assistant-save" on:click=save>{move || t().save}</button>
                <button type="button" on:click=move |_| editing.set(None)>{move || t().cancel}</button>
            </div>
        </div>
    }
}

/// The provider of the assistant being edited, when there are others.
#[component]
fn AssistantProfile(profile: Option<String>, editing: RwSignal<Option<Assistant>>) -> impl IntoView {
    let state = use_app();
    let edit = editor(editing);
    view! {
        <Show when=move || state.prefs.settings.with(|s| !s.profiles.is_empty())>
            <label>{move || t().provider}
                <select data-testid="assistant-profile"
                    on:change=move |ev| { let v = event_target_value(&ev); edit(&|x| x.profile = (!v.is_empty()).then(|| v.clone())) }>
                    <option value="" selected=profile.is_none()>{move || t().profile_usual}</option>
                    {state.prefs.settings.with_untracked(|s| s.profiles.clone()).into_iter().map(|p| {
                        let chosen = profile.as_deref() == Some(p.id.as_str());
                        let name = if p.name.trim().is_empty() { p.base_url.clone() } else { p.name.clone() };
                        view! { <option value=p.id.clone() selected=chosen>{name}</option> }
                    }).collect_view()}
                </select>
            </label>
        </Show>
    }
}

/// The MCP servers the assistant being edited uses, each with a switch.
#[component]
fn AssistantServers(servers: Vec<McpServer>, editing: RwSignal<Option<Assistant>>, draft: RwSignal<air_store::Settings>) -> impl IntoView {
    let state = use_app();
    let edit = editor(editing);
    let global_dynamic = move || draft.with(|s| s.dynamic_mcp_loading);
    view! {
        // Which servers it uses: not asked when dynamic loading
        // gives it every server.
        <Show when={
            let any = !servers.is_empty();
            move || any && !(global_dynamic() && editing.with(|e| e.as_ref().is_some_and(|x| x.dynamic_loading)))
        }>
            <div class="assistant-servers" data-testid="assistant-servers">
                <span class="muted">{move || t().assistant_servers}</span>
                {servers.iter().map(|s| {
                    let name = s.name.clone();
                    let checked = {
                        let name = name.clone();
                        move || editing.with(|e| e.as_ref().is_some_and(|x| x.uses_server(&name)))
                    };
                    let toggle = {
                        let name = name.clone();
                        move |ev| {
                            let on = event_target_checked(&ev);
                            let all: Vec<String> = state.prefs.mcp_servers.with_untracked(|l| l.iter().map(|s| s.name.clone()).collect());
                            edit(&|x| {
                                let mut list = x.servers.clone().unwrap_or_else(|| all.clone());
                                list.retain(|n| *n != name);
                                if on {
                                    list.push(name.clone());
                                }
                                // Every server: "all", so later ones are in too.
                                x.servers = if all.iter().all(|n| list.contains(n)) { None } else { Some(list) };
                            })
                        }
                    };
                    view! {
                        <label class="check">
                            <input type="checkbox" data-testid="assistant-server" data-server=name.clone() prop:checked=checked on:change=toggle/>
                            {name.clone()}
                        </label>
                    }
                }).collect_view()}
            </div>
        </Show>
    }
}

/// With dynamic loading: the MCP tools the assistant loads in each of its
/// conversations from the first message.
#[component]
fn AssistantPreload(servers: Vec<McpServer>, editing: RwSignal<Option<Assistant>>, draft: RwSignal<air_store::Settings>) -> impl IntoView {
    let edit = editor(editing);
    let tools: Vec<(String, String)> = servers.iter().filter(|s| s.enabled).flat_map(|s| s.tools.iter().filter(|t| t.offered()).map(|t| (s.name.clone(), t.name.clone()))).collect();
    let any = !tools.is_empty();
    let dynamic = move || any && draft.with(|s| s.dynamic_mcp_loading) && editing.with(|e| e.as_ref().is_some_and(|x| x.dynamic_loading));
    let rows = tools
        .into_iter()
        .map(|pair| {
            let key = format!("{}/{}", pair.0, pair.1);
            let (p1, p2) = (pair.clone(), pair);
            view! {
                <label class="check">
                    <input type="checkbox" data-testid="assistant-preload" data-tool=key.clone()
                        prop:checked=move || editing.with(|e| e.as_ref().is_some_and(|x| x.preload.contains(&p1)))
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            edit(&|x| {
                                x.preload.retain(|p| *p != p2);
                                if on {
                                    x.preload.push(p2.clone());
                                }
                            })
                        }/>
                    <code>{key}</code>
                </label>
            }
        })
        .collect_view();
    view! {
        <Show when=dynamic>
            <details class="assistant-servers" data-testid="assistant-preloads">
                <summary class="muted">{move || t().assistant_preload}</summary>
                {rows.clone()}
            </details>
        </Show>
    }
}
