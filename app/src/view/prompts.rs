//! The prompt picker beside the composer: the prompts of the chat's MCP
//! servers, a form for a prompt's arguments (with the server's
//! suggestions), and the prompt's text put into the composer.

use air_mcp::prompts::Prompt;
use air_workspace::Command;
use air_workspace::pickers::{Action, Found};
use leptos::prelude::*;
use serde_json::{Map, Value};

use crate::binding::state::use_app;
use crate::i18n::t;

#[derive(Clone)]
enum Stage {
    Closed,
    Loading,
    List(Vec<(String, Prompt)>, Vec<String>),
    /// Filling in the arguments of a prompt of a server.
    Form(String, Prompt),
}

/// What was asked of the servers came: the list, or the prompt's text
/// (the binding put it into the composer) or why not. (Not what came
/// before this picker was drawn.)
fn on_found(state: crate::binding::state::AppState, stage: RwSignal<Stage>, problem: RwSignal<Option<String>>) {
    Effect::new(move |drawn: Option<()>| {
        let found = state.chat.picked.get();
        if drawn.is_none() {
            return;
        }
        match found {
            Some(Found::Prompts(p)) if matches!(stage.get_untracked(), Stage::Loading) => stage.set(Stage::List(p.list, p.errors)),
            Some(Found::PromptText(Ok(_))) => stage.set(Stage::Closed),
            Some(Found::PromptText(Err(e))) => problem.set(Some(state.t().prompt_failed.replace("{e}", &e))),
            _ => {}
        }
    });
}

/// The server's suggestions, by the argument (of `names`) they are for.
fn on_suggestions(state: crate::binding::state::AppState, names: Vec<String>, suggestions: Vec<RwSignal<Vec<String>>>) {
    Effect::new(move |drawn: Option<()>| {
        let found = state.chat.picked.get();
        if let (Some(()), Some(Found::Suggestions { argument, values })) = (drawn, found)
            && let Some(i) = names.iter().position(|n| *n == argument)
        {
            suggestions[i].set(values);
        }
    });
}

/// The "Prompts" button and its panel.
#[component]
pub fn PromptPicker() -> impl IntoView {
    let state = use_app();
    let stage = RwSignal::new(Stage::Closed);
    let problem = RwSignal::new(None::<String>);
    let has_servers = move || state.prefs.mcp_servers.with(|l| l.iter().any(|s| s.enabled));
    let open = move |_| {
        problem.set(None);
        if matches!(stage.get_untracked(), Stage::Closed) {
            stage.set(Stage::Loading);
            state.dispatch(Command::Pickers(Action::ListPrompts));
        } else {
            stage.set(Stage::Closed);
        }
    };
    on_found(state, stage, problem);
    // Puts the prompt's text into the composer (after what is there).
    let insert = move |server: String, name: String, args: Map<String, Value>| {
        problem.set(None);
        state.dispatch(Command::Pickers(Action::GetPrompt { server, name, args }));
    };
    let panel = move || match stage.get() {
        Stage::Closed => None,
        Stage::Loading => Some(view! { <div class="prompt-panel" data-testid="prompt-picker"><p class="muted">{move || t().prompts_loading}</p></div> }.into_any()),
        Stage::List(list, errors) => {
            let empty = list.is_empty();
            let items = list
                .into_iter()
                .map(|(server, p)| {
                    let (s2, p2) = (server.clone(), p.clone());
                    let pick = move |_| {
                        if p2.arguments.is_empty() {
                            insert(s2.clone(), p2.name.clone(), Map::new());
                        } else {
                            stage.set(Stage::Form(s2.clone(), p2.clone()));
                        }
                    };
                    view! {
                        <li>
                            <button type="button" class="prompt-item" data-testid="prompt-item" data-name=p.name.clone() on:click=pick>
                                <strong>{p.label.clone()}</strong>
                                <span class="muted">" · "{server}</span>
                                {p.description.clone().map(|d| view! { <small class="muted">{d}</small> })}
                            </button>
                        </li>
                    }
                })
                .collect_view();
            Some(
                view! {
                    <div class="prompt-panel" data-testid="prompt-picker">
                        {empty.then(|| view! { <p class="muted">{move || t().prompts_none}</p> })}
                        <ul class="prompt-list">{items}</ul>
                        {errors.into_iter().map(|e| view! { <p class="error">{e}</p> }).collect_view()}
                    </div>
                }
                .into_any(),
            )
        }
        Stage::Form(server, prompt) => Some(view! { <PromptForm server=server prompt=prompt insert=insert back=move || stage.set(Stage::Closed)/> }.into_any()),
    };
    view! {
        <Show when=has_servers>
            <div class="prompt-picker">
                <button type="button" class="prompts-open" data-testid="prompts-open" title=move || t().prompts_title on:click=open>{move || t().prompts}</button>
                {panel}
                {move || problem.get().map(|p| view! { <p class="error" data-testid="prompt-problem">{p}</p> })}
            </div>
        </Show>
    }
}

/// The arguments of one prompt, each with the server's suggestions.
#[component]
fn PromptForm(server: String, prompt: Prompt, insert: impl Fn(String, String, Map<String, Value>) + Clone + 'static, back: impl Fn() + Clone + 'static) -> impl IntoView {
    let state = use_app();
    let values: Vec<RwSignal<String>> = prompt.arguments.iter().map(|_| RwSignal::new(String::new())).collect();
    let suggestions: Vec<RwSignal<Vec<String>>> = prompt.arguments.iter().map(|_| RwSignal::new(Vec::new())).collect();
    on_suggestions(state, prompt.arguments.iter().map(|a| a.name.clone()).collect(), suggestions.clone());
    let missing = RwSignal::new(false);
    let collect = {
        let prompt = prompt.clone();
        let values = values.clone();
        move |skip: Option<usize>| {
            let mut args = Map::new();
            for (i, (a, v)) in prompt.arguments.iter().zip(&values).enumerate() {
                let text = v.get_untracked();
                if Some(i) != skip && !text.trim().is_empty() {
                    args.insert(a.name.clone(), Value::String(text.trim().to_owned()));
                }
            }
            args
        }
    };
    let rows = prompt
        .arguments
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let value = values[i];
            let offered = suggestions[i];
            let list_id = format!("prompt-arg-{i}");
            let ask = {
                let (server, name, arg, collect) = (server.clone(), prompt.name.clone(), a.name.clone(), collect.clone());
                move |typed: String| {
                    let others = collect(Some(i));
                    state.dispatch(Command::Pickers(Action::Complete { server: server.clone(), prompt: name.clone(), argument: arg.clone(), value: typed, others }));
                }
            };
            let ask_focus = ask.clone();
            view! {
                <label class="question-field">
                    <span class="question-label">{a.name.clone()}{a.required.then(|| view! { <span class="muted">" ("{move || t().elicit_required}")"</span> })}</span>
                    {a.description.clone().map(|d| view! { <small class="muted question-hint">{d}</small> })}
                    <input type="text" data-field=a.name.clone() list=list_id.clone() autocomplete="off" prop:value=move || value.get()
                        on:focus=move |_| ask_focus(value.get_untracked())
                        on:input=move |ev| { let v = event_target_value(&ev); value.set(v.clone()); ask(v); }/>
                    <datalist id=list_id data-testid="prompt-suggestions">
                        {move || offered.get().into_iter().map(|v| view! { <option value=v></option> }).collect_view()}
                    </datalist>
                </label>
            }
        })
        .collect_view();
    let submit = {
        let prompt = prompt.clone();
        let server = server.clone();
        move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            let args = collect(None);
            if prompt.arguments.iter().any(|a| a.required && !args.contains_key(&a.name)) {
                missing.set(true);
                return;
            }
            insert(server.clone(), prompt.name.clone(), args);
        }
    };
    view! {
        <form class="prompt-panel question-form" data-testid="prompt-form" novalidate=true on:submit=submit>
            <p><strong>{prompt.label.clone()}</strong>{prompt.description.clone().map(|d| view! { <span class="muted">" — "{d}</span> })}</p>
            {rows}
            {move || missing.get().then(|| view! { <p class="error">{move || t().prompt_missing}</p> })}
            <div class="tool-approval">
                <button type="submit" class="primary" data-testid="prompt-insert">{move || t().prompt_insert}</button>
                <button type="button" on:click=move |_| back()>{move || t().elicit_cancel}</button>
            </div>
        </form>
    }
}
