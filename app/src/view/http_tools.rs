//! Settings → HTTP tools: the saved ones (on/off, remove), a form to add
//! one, and an OpenAPI import to pick tools from. What is saved, fetched
//! and checked goes through the binding to the core.

use leptos::prelude::*;

use crate::binding::http_tools::{self as tools, Form};
use crate::binding::state::{AppState, use_app};
use crate::i18n::{t, tl};

/// The section, in the settings drawer.
#[component]
pub fn HttpToolsSection() -> impl IntoView {
    let state = use_app();
    let s = state.prefs.http_tools;
    view! {
        <fieldset data-testid="http-tools">
            <legend>{move || t().http_tools}</legend>
            <p class="muted">{move || tl().http_tools_hint}</p>
            <ul class="http-tool-list">
                {move || s.list.get().into_iter().map(|saved| tool_row(state, saved)).collect_view()}
            </ul>
            <Show when=move || s.list.with(Vec::is_empty)>
                <p class="muted" data-testid="http-tools-none">{move || tl().http_tools_none}</p>
            </Show>
            <AddForm/>
            <ImportOpenApi/>
        </fieldset>
    }
}

/// One saved tool: its switch, name, method and URL, and remove.
fn tool_row(state: AppState, saved: air_store::http_tools::SavedHttpTool) -> impl IntoView {
    let name = saved.tool.name.clone();
    let (on_name, off_name) = (name.clone(), name.clone());
    view! {
        <li class="http-tool" data-testid=format!("http-tool-{name}")>
            <label>
                <input type="checkbox" data-testid=format!("http-tool-on-{name}") prop:checked=saved.enabled
                    on:change=move |ev| tools::switch(state, on_name.clone(), event_target_checked(&ev))/>
                {move || tl().http_tool_on}
            </label>
            <strong class="http-tool-name iso">{air_render::visible(&name).into_owned()}</strong>
            <code class="http-tool-method">{saved.tool.method.as_str()}</code>
            <span class="http-tool-url muted iso">{air_render::visible(&saved.tool.url).into_owned()}</span>
            <button type="button" data-testid=format!("http-tool-remove-{name}") on:click=move |_| tools::remove(state, off_name.clone())>
                {move || tl().http_tool_remove}
            </button>
        </li>
    }
}

/// A text field of the form.
fn field(form: RwSignal<Form>, label: fn(&crate::i18n::Text) -> &'static str, testid: &'static str, get: fn(&Form) -> String, set: fn(&mut Form, String)) -> impl IntoView {
    view! {
        <label>{move || label(t())}
            <input type="text" data-testid=testid autocomplete="off" prop:value=move || form.with(get)
                on:input=move |ev| { let v = event_target_value(&ev); form.update(|f| set(f, v)) }/>
        </label>
    }
}

/// The form that adds one tool.
#[component]
fn AddForm() -> impl IntoView {
    let state = use_app();
    let s = state.prefs.http_tools;
    let form = RwSignal::new(Form::empty());
    // Saved: the form empties.
    Effect::new(move |before: Option<u32>| {
        let now = s.saved.get();
        if before.is_some_and(|b| b != now) {
            form.set(Form::empty());
        }
        now
    });
    let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
    let args_in = [("auto", (|t| t.http_tool_args_auto) as fn(&crate::i18n::Text) -> &'static str), ("body", |t| t.http_tool_args_body), ("query", |t| t.http_tool_args_query)];
    view! {
        <details class="http-tool-add" data-testid="http-tool-add">
            <summary>{move || tl().http_tool_add}</summary>
            {field(form, |t| t.http_tool_name, "http-tool-name", |f| f.name.clone(), |f, v| f.name = v)}
            {field(form, |t| t.http_tool_description, "http-tool-description", |f| f.description.clone(), |f, v| f.description = v)}
            <label>{move || tl().http_tool_method}
                <select data-testid="http-tool-method" on:change=move |ev| { let v = event_target_value(&ev); form.update(|f| f.method = v) }>
                    {methods.into_iter().map(|m| view! { <option value=m selected=move || form.with(|f| f.method == m)>{m}</option> }).collect_view()}
                </select>
            </label>
            {field(form, |t| t.http_tool_url, "http-tool-url", |f| f.url.clone(), |f, v| f.url = v)}
            <label>{move || tl().http_tool_schema}
                <textarea data-testid="http-tool-schema" rows="6" prop:value=move || form.with(|f| f.schema.clone())
                    on:input=move |ev| { let v = event_target_value(&ev); form.update(|f| f.schema = v) }></textarea>
            </label>
            <HeaderRows form=form/>
            <label>{move || tl().http_tool_args_in}
                <select data-testid="http-tool-args-in" on:change=move |ev| { let v = event_target_value(&ev); form.update(|f| f.args_in = v) }>
                    {args_in.into_iter().map(|(k, label)| view! { <option value=k selected=move || form.with(|f| f.args_in == k)>{move || label(t())}</option> }).collect_view()}
                </select>
            </label>
            {move || s.error.get().map(|e| view! { <p class="error" role="alert" data-testid="http-tool-error">{e}</p> })}
            <button type="button" data-testid="http-tool-save" on:click=move |_| form.with_untracked(|f| tools::add(state, f))>{move || tl().http_tool_save}</button>
        </details>
    }
}

/// The form's headers: name, value, and whether the value is secret.
#[component]
fn HeaderRows(form: RwSignal<Form>) -> impl IntoView {
    let row = move |i: usize| {
        let get = move |f: &Form| f.headers.get(i).cloned().unwrap_or_default();
        let put = move |change: &dyn Fn(&mut (String, String, bool))| {
            form.update(|f| {
                if let Some(h) = f.headers.get_mut(i) {
                    change(h)
                }
            })
        };
        view! {
            <div class="http-tool-header">
                <input type="text" data-testid=format!("http-tool-header-name-{i}") placeholder=move || tl().http_tool_header_name prop:value=move || form.with(|f| get(f).0)
                    on:input=move |ev| { let v = event_target_value(&ev); put(&|h| h.0 = v.clone()) }/>
                <input type=move || if form.with(|f| get(f).2) { "password" } else { "text" } data-testid=format!("http-tool-header-value-{i}") autocomplete="off"
                    placeholder=move || tl().http_tool_header_value prop:value=move || form.with(|f| get(f).1)
                    on:input=move |ev| { let v = event_target_value(&ev); put(&|h| h.1 = v.clone()) }/>
                <label>
                    <input type="checkbox" data-testid=format!("http-tool-header-secret-{i}") prop:checked=move || form.with(|f| get(f).2)
                        on:change=move |ev| { let on = event_target_checked(&ev); put(&|h| h.2 = on) }/>
                    {move || tl().http_tool_secret}
                </label>
            </div>
        }
    };
    view! {
        <div class="http-tool-headers">
            <span>{move || tl().http_tool_headers}</span>
            {move || (0..form.with(|f| f.headers.len())).map(row).collect_view()}
            <button type="button" data-testid="http-tool-add-header" on:click=move |_| form.update(|f| f.headers.push((String::new(), String::new(), false)))>
                {move || tl().http_tool_add_header}
            </button>
        </div>
    }
}

/// Import OpenAPI: paste the document or give its URL, then pick.
#[component]
fn ImportOpenApi() -> impl IntoView {
    use air_workspace::http_tools::Importing;
    let state = use_app();
    let s = state.prefs.http_tools;
    let (text, url) = (RwSignal::new(String::new()), RwSignal::new(String::new()));
    view! {
        <details class="http-import" data-testid="http-import">
            <summary>{move || tl().http_import}</summary>
            <p class="muted">{move || tl().http_import_hint}</p>
            <label>{move || tl().http_import_text}
                <textarea data-testid="http-import-text" rows="4" prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))></textarea>
            </label>
            <label>{move || tl().http_import_url}
                <input type="url" data-testid="http-import-url" autocomplete="off" prop:value=move || url.get() on:input=move |ev| url.set(event_target_value(&ev))/>
            </label>
            <button type="button" data-testid="http-import-read" on:click=move |_| tools::import(state, text.get_untracked(), url.get_untracked())>{move || tl().http_import_read}</button>
            {move || match s.import.get() {
                Importing::Idle => ().into_any(),
                Importing::Fetching(u) => view! { <p class="muted" data-testid="http-import-fetching">{tl().http_import_fetching.replace("{u}", &u)}</p> }.into_any(),
                Importing::Failed(e) => view! { <p class="error" role="alert" data-testid="http-import-error">{tl().http_import_failed.replace("{e}", &e)}</p> }.into_any(),
                Importing::Ready(imported) => candidates(state, *imported).into_any(),
            }}
        </details>
    }
}

/// An import's candidates to pick, what was skipped and why, and Save.
fn candidates(state: AppState, imported: air_http_tools::openapi::Imported) -> impl IntoView {
    let picked = RwSignal::new(Vec::<String>::new());
    let rows = imported.tools.into_iter().map(|c| {
        let name = c.tool.name.clone();
        let key = name.clone();
        view! {
            <li>
                <label>
                    <input type="checkbox" data-testid=format!("http-candidate-{name}")
                        on:change=move |ev| { let on = event_target_checked(&ev); picked.update(|p| { p.retain(|n| *n != key); if on { p.push(key.clone()) } }) }/>
                    <strong class="iso">{air_render::visible(&name).into_owned()}</strong>
                    // Where its calls go, in full: the operation's own server, not only its path.
                    " "<code class="iso" data-testid="http-candidate-url">{format!("{} {}", c.tool.method.as_str(), air_render::visible(&c.tool.url))}</code>
                    " "<span class="muted">{c.tool.description.clone()}</span>
                </label>
                {c.caution.map(|why| view! { <p class="hint warn" data-testid="http-candidate-caution">{tl().http_import_caution.replace("{e}", &air_render::visible(&why.to_string()))}</p> })}
            </li>
        }
    });
    let skipped: Vec<_> = imported.skipped.into_iter().map(|k| view! { <li data-testid="http-skipped"><code>{k.operation}</code>": "{k.reason.to_string()}</li> }).collect();
    let any_skipped = !skipped.is_empty();
    view! {
        <div class="http-candidates" data-testid="http-candidates">
            <p>{move || tl().http_import_pick}</p>
            <ul>{rows.collect_view()}</ul>
            {any_skipped.then(|| view! { <p class="muted">{move || tl().http_import_skipped}</p><ul class="muted">{skipped}</ul> })}
            <button type="button" class="primary" data-testid="http-import-save" on:click=move |_| tools::save_picked(state, &picked.get_untracked())>{move || tl().http_import_save}</button>
            <button type="button" data-testid="http-import-close" on:click=move |_| tools::close_import(state)>{move || tl().http_import_close}</button>
        </div>
    }
}
