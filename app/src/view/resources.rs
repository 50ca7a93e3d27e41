//! The resource picker beside the composer: what the chat's MCP servers
//! offer to read (resources, and templates filled in), attached to the next
//! message as context; the attachments as chips.

use air_mcp::resources::{Resource, Template, expand};
use air_workspace::Command;
use air_workspace::pickers::{Action, Found};
use leptos::prelude::*;

use crate::binding::state::use_app;
use crate::i18n::t;

#[derive(Clone)]
enum Stage {
    Closed,
    Loading,
    List(Vec<(String, Resource)>, Vec<(String, Template)>, Vec<String>),
    Template(String, Template),
}

/// The resource asked for (`asked`, by label) is attached: the panel
/// closes; or it could not be read: the panel says why. (And the list
/// shows once it came.)
fn on_attached(state: crate::binding::state::AppState, asked: StoredValue<Option<String>>, stage: RwSignal<Stage>, problem: RwSignal<Option<String>>) {
    on_listed(state, stage);
    Effect::new(move |_| {
        let Some((label, outcome)) = state.chat.attach_outcome.get() else { return };
        if asked.get_value().as_ref() != Some(&label) {
            return;
        }
        asked.set_value(None);
        match outcome {
            None => stage.set(Stage::Closed),
            Some(e) => problem.set(Some(state.t().resource_failed.replace("{e}", &e))),
        }
    });
}

/// What the chat's servers offer came: the panel lists it.
fn on_listed(state: crate::binding::state::AppState, stage: RwSignal<Stage>) {
    Effect::new(move |_| {
        if let Some(Found::Resources(r)) = state.chat.picked.get()
            && matches!(stage.get_untracked(), Stage::Loading)
        {
            stage.set(Stage::List(r.resources, r.templates, r.errors));
        }
    });
}

/// The "Resources" button and its panel.
#[component]
pub fn ResourcePicker() -> impl IntoView {
    let state = use_app();
    let stage = RwSignal::new(Stage::Closed);
    let problem = RwSignal::new(None::<String>);
    let open = move |_| {
        problem.set(None);
        if matches!(stage.get_untracked(), Stage::Closed) {
            stage.set(Stage::Loading);
            state.dispatch(Command::Pickers(Action::ListResources));
        } else {
            stage.set(Stage::Closed);
        }
    };
    let asked = StoredValue::new(None::<String>);
    on_attached(state, asked, stage, problem);
    let attach = move |server: String, uri: String, label: String| {
        problem.set(None);
        asked.set_value(Some(label.clone()));
        state.dispatch(air_workspace::Command::Attach(air_workspace::attach::Action::Resource { server, uri, label }));
    };
    let panel = move || match stage.get() {
        Stage::Closed => None,
        Stage::Loading => Some(view! { <div class="prompt-panel" data-testid="resource-picker"><p class="muted">{move || t().resources_loading}</p></div> }.into_any()),
        Stage::List(resources, templates, errors) => Some(view! { <ResourceList resources=resources templates=templates errors=errors stage=stage attach=attach/> }.into_any()),
        Stage::Template(server, tpl) => Some(view! { <TemplateForm server=server tpl=tpl stage=stage problem=problem attach=attach/> }.into_any()),
    };
    view! {
        <div class="prompt-picker">
            <button type="button" class="prompts-open resources-open" data-testid="resources-open" title=move || t().resources_title on:click=open>{move || t().resources}</button>
            {panel}
            {move || problem.get().map(|p| view! { <p class="error" data-testid="resource-problem">{p}</p> })}
        </div>
    }
}

/// What the chat's servers offer: each resource, and each template to fill in.
#[component]
fn ResourceList(
    resources: Vec<(String, Resource)>,
    templates: Vec<(String, Template)>,
    errors: Vec<String>,
    stage: RwSignal<Stage>,
    attach: impl Fn(String, String, String) + Copy + 'static,
) -> impl IntoView {
    let empty = resources.is_empty() && templates.is_empty();
    let items = resources
        .into_iter()
        .map(|(server, r)| {
            let (s2, uri, label) = (server.clone(), r.uri.clone(), r.label.clone());
            view! {
                <li>
                    <button type="button" class="prompt-item" data-testid="resource-item" data-uri=r.uri.clone()
                        on:click=move |_| attach(s2.clone(), uri.clone(), label.clone())>
                        <strong>{r.label.clone()}</strong>
                        <span class="muted">" · "{server}</span>
                        {r.description.clone().map(|d| view! { <small class="muted">{d}</small> })}
                    </button>
                </li>
            }
        })
        .collect_view();
    let template_items = templates
        .into_iter()
        .map(|(server, tpl)| {
            let (s2, t2) = (server.clone(), tpl.clone());
            view! {
                <li>
                    <button type="button" class="prompt-item" data-testid="template-item" data-template=tpl.uri_template.clone()
                        on:click=move |_| stage.set(Stage::Template(s2.clone(), t2.clone()))>
                        <strong>{tpl.label.clone()}</strong>
                        <span class="muted">" · "{server}</span>
                        <small class="muted"><code>{tpl.uri_template.clone()}</code></small>
                    </button>
                </li>
            }
        })
        .collect_view();
    view! {
        <div class="prompt-panel" data-testid="resource-picker">
            {empty.then(|| view! { <p class="muted">{move || t().resources_none}</p> })}
            <ul class="prompt-list">{items}{template_items}</ul>
            {errors.into_iter().map(|e| view! { <p class="error">{e}</p> }).collect_view()}
        </div>
    }
}

/// A template of `server`'s, its variables to fill in before it is attached.
#[component]
fn TemplateForm(server: String, tpl: Template, stage: RwSignal<Stage>, problem: RwSignal<Option<String>>, attach: impl Fn(String, String, String) + Copy + 'static) -> impl IntoView {
    let state = use_app();
    let values: Vec<RwSignal<String>> = tpl.vars.iter().map(|_| RwSignal::new(String::new())).collect();
    let rows = tpl
        .vars
        .iter()
        .zip(values.iter().copied())
        .map(|(v, value)| {
            view! {
                <label class="question-field">
                    <span class="question-label">{v.clone()}</span>
                    <input type="text" data-field=v.clone() autocomplete="off" prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev))/>
                </label>
            }
        })
        .collect_view();
    let submit = {
        let tpl = tpl.clone();
        move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            let filled: Vec<(String, String)> = tpl.vars.iter().cloned().zip(values.iter().map(|v| v.get_untracked().trim().to_owned())).collect();
            if filled.iter().any(|(_, v)| v.is_empty()) {
                problem.set(Some(state.t().prompt_missing.to_owned()));
                return;
            }
            let uri = expand(&tpl.uri_template, &filled);
            attach(server.clone(), uri.clone(), uri);
        }
    };
    view! {
        <form class="prompt-panel question-form" data-testid="template-form" novalidate=true on:submit=submit>
            <p><strong>{tpl.label.clone()}</strong>{tpl.description.clone().map(|d| view! { <span class="muted">" — "{d}</span> })}</p>
            {rows}
            <div class="tool-approval">
                <button type="submit" class="primary" data-testid="template-attach">{move || t().resource_attach}</button>
                <button type="button" on:click=move |_| stage.set(Stage::Closed)>{move || t().elicit_cancel}</button>
            </div>
        </form>
    }
}

/// The resources attached to the next message, each removable.
#[component]
pub fn Attachments() -> impl IntoView {
    let state = use_app();
    view! {
        <Show when=move || state.chat.attachments.with(|a| !a.is_empty())>
            <div class="attachments" data-testid="attachments">
                {move || {
                    state
                        .chat
                        .attachments
                        .get()
                        .into_iter()
                        .map(|a| {
                            let label = a.label.clone();
                            view! {
                                <span class="attachment" data-testid="attachment" data-live=a.live.to_string()>
                                    {a.live.then(|| view! { <span class="live-dot" title=move || t().resource_live>"●"</span> })}
                                    {a.label}
                                    {(a.updates > 0).then(|| view! { <small class="muted" data-testid="attachment-updated">" · "{move || t().resource_updated}</small> })}
                                    <button type="button" class="icon-button" title=move || t().resource_remove data-testid="attachment-remove"
                                        on:click=move |_| state.dispatch(air_workspace::Command::Attach(air_workspace::attach::Action::Detach(label.clone())))>"×"</button>
                                </span>
                            }
                        })
                        .collect_view()
                }}
            </div>
        </Show>
    }
}
