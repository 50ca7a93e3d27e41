//! A question a running tool asks the user (MCP elicitation), on its card:
//! a form built from the requested schema, or a page to open.

use air_mcp::elicit::{self, Field, Kind};
use air_tools::{ElicitAnswer, Elicitation};
use leptos::prelude::*;
use serde_json::{Map, Value};

use crate::binding::state::use_app;
use crate::i18n::{t, tl};

/// The question of tool message `record_id`, with its answers.
#[component]
pub fn Question(record_id: String, request: Elicitation) -> impl IntoView {
    let state = use_app();
    let answer = {
        let id = record_id.clone();
        move |a: ElicitAnswer| state.dispatch(air_workspace::Command::Turn(air_workspace::turn::Action::Answer { record: id.clone(), answer: a }))
    };
    let decline = {
        let answer = answer.clone();
        move |_| answer(ElicitAnswer::Decline)
    };
    let cancel = {
        let answer = answer.clone();
        move |_| answer(ElicitAnswer::Cancel)
    };
    let message = request.message().to_owned();
    let body = match request {
        Elicitation::Url { url, .. } => {
            // A link that hides where it leads is not offered at all.
            match air_mcp::page_url::page_host(&url) {
                Err(why) => {
                    let why = why.to_string();
                    view! {
                        <p class="app-error" data-testid="question-refused">{move || tl().elicit_refused.replace("{why}", &why)}</p>
                        <div class="tool-approval">
                            <button data-testid="question-decline" on:click=decline>{move || tl().elicit_decline}</button>
                            <button data-testid="question-cancel" on:click=cancel>{move || t().elicit_cancel}</button>
                        </div>
                    }
                    .into_any()
                }
                Ok(d) => url_offer(url, d, answer, decline, cancel),
            }
        }
        Elicitation::Form { schema, .. } => question_form(&schema, answer, decline, cancel),
    };
    view! {
        <div class="tool-question" data-testid="tool-question">
            <p><strong>{move || tl().tool_question}</strong>" "<span data-testid="question-message">{message}</span></p>
            {body}
        </div>
    }
}

/// The page to open, on the host it really leads to.
fn url_offer(
    url: String,
    d: String,
    answer: impl Fn(ElicitAnswer) + Clone + 'static,
    decline: impl Fn(leptos::ev::MouseEvent) + 'static,
    cancel: impl Fn(leptos::ev::MouseEvent) + 'static,
) -> AnyView {
    let d2 = d.clone();
    let answer = answer.clone();
    view! {
        <p class="muted" data-testid="question-domain">{move || tl().elicit_url.replace("{domain}", &d)}</p>
        <div class="tool-approval">
            <a class="button primary" data-testid="question-open" href=url target="_blank" rel="noopener noreferrer"
                on:click=move |_| answer(ElicitAnswer::Accept { content: Value::Object(Map::new()) })>
                {move || tl().elicit_open.replace("{domain}", &d2)}
            </a>
            <button data-testid="question-decline" on:click=decline>{move || tl().elicit_decline}</button>
            <button data-testid="question-cancel" on:click=cancel>{move || t().elicit_cancel}</button>
        </div>
    }
    .into_any()
}

/// The form asked for by `schema`, checked before it is sent.
fn question_form(schema: &Value, answer: impl Fn(ElicitAnswer) + 'static, decline: impl Fn(leptos::ev::MouseEvent) + 'static, cancel: impl Fn(leptos::ev::MouseEvent) + 'static) -> AnyView {
    let fields = elicit::fields(schema);
    // What each field holds, as typed (see `elicit::parse`).
    let inputs: Vec<RwSignal<String>> = fields.iter().map(|f| RwSignal::new(initial(f))).collect();
    let problems = RwSignal::new(Vec::<elicit::FieldError>::new());
    let rows = fields.iter().cloned().zip(inputs.iter().copied()).map(|(f, input)| view! { <FieldRow field=f input=input/> }).collect_view();
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let mut content = Map::new();
        let mut errors = Vec::new();
        for (f, input) in fields.iter().zip(&inputs) {
            match elicit::parse(f, &input.get_untracked()) {
                Ok(Some(v)) => {
                    content.insert(f.name.clone(), v);
                }
                Ok(None) => {}
                Err(e) => errors.push(e),
            }
        }
        if errors.is_empty() {
            answer(ElicitAnswer::Accept { content: Value::Object(content) });
        } else {
            problems.set(errors);
        }
    };
    view! {
        <form class="question-form" data-testid="question-form" novalidate=true on:submit=submit>
            {rows}
            <ul class="question-problems" data-testid="question-problems">
                {move || problems.get().iter().map(|p| view! { <li>{problem(p)}</li> }).collect_view()}
            </ul>
            <div class="tool-approval">
                <button type="submit" class="primary" data-testid="question-submit">{move || tl().elicit_submit}</button>
                <button type="button" data-testid="question-decline" on:click=decline>{move || tl().elicit_decline}</button>
                <button type="button" data-testid="question-cancel" on:click=cancel>{move || t().elicit_cancel}</button>
            </div>
        </form>
    }
    .into_any()
}

/// The field's default as input text.
fn initial(f: &Field) -> String {
    match (&f.kind, &f.default) {
        (_, None) => String::new(),
        (Kind::Multi(_), Some(Value::Array(a))) => a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("\n"),
        (_, Some(Value::String(s))) => s.clone(),
        (_, Some(v)) => v.to_string(),
    }
}

#[component]
fn FieldRow(field: Field, input: RwSignal<String>) -> impl IntoView {
    let name = field.name.clone();
    let label = view! {
        <span class="question-label">{field.label.clone()}</span>
        {field.required.then(|| view! { <span class="muted">" ("{move || t().elicit_required}")"</span> })}
        {field.description.clone().map(|d| view! { <small class="muted question-hint">{d}</small> })}
    };
    let control = match field.kind.clone() {
        Kind::Bool => view! {
            <input type="checkbox" data-field=name prop:checked=move || input.get() == "true"
                on:change=move |ev| input.set(if event_target_checked(&ev) { "true".into() } else { "false".into() })/>
        }
        .into_any(),
        Kind::Choice(options) => view! {
            <select data-field=name prop:value=move || input.get() on:change=move |ev| input.set(event_target_value(&ev))>
                <option value="">"—"</option>
                {options.into_iter().map(|(v, l)| view! { <option value=v.clone() selected=input.get_untracked() == v>{l}</option> }).collect_view()}
            </select>
        }
        .into_any(),
        Kind::Multi(options) => options
            .into_iter()
            .map(|(v, l)| {
                let v2 = v.clone();
                let on = move || input.with(|i| i.split('\n').any(|x| x == v));
                let toggle = move |ev: leptos::ev::Event| {
                    let checked = event_target_checked(&ev);
                    input.update(|i| {
                        let mut picked: Vec<String> = i.split('\n').filter(|x| !x.is_empty() && *x != v2).map(str::to_owned).collect();
                        if checked {
                            picked.push(v2.clone());
                        }
                        *i = picked.join("\n");
                    });
                };
                view! { <label class="question-choice"><input type="checkbox" prop:checked=on on:change=toggle/>{l}</label> }
            })
            .collect_view()
            .into_any(),
        Kind::Number { integer, .. } => view! {
            <input type="number" step=if integer { "1" } else { "any" } data-field=name prop:value=move || input.get()
                on:input=move |ev| input.set(event_target_value(&ev))/>
        }
        .into_any(),
        Kind::Text { format, .. } => {
            let kind = match format.as_deref() {
                Some("email") => "email",
                Some("uri") => "url",
                Some("date") => "date",
                Some("date-time") => "datetime-local",
                _ => "text",
            };
            view! { <input type=kind data-field=name prop:value=move || input.get() on:input=move |ev| input.set(event_target_value(&ev))/> }.into_any()
        }
    };
    view! { <div class="question-field">{label}{control}</div> }
}

/// What is wrong with a field, in the page's language.
fn problem(e: &elicit::FieldError) -> String {
    use elicit::FieldError as E;
    let t = tl();
    let (text, label) = match e {
        E::Required { label } => (t.field_required.to_owned(), label),
        E::Length { label, min, max: Some(max) } => (t.field_length.replace("{min}", &min.to_string()).replace("{max}", &max.to_string()), label),
        E::Length { label, min, max: None } => (t.field_length_min.replace("{min}", &min.to_string()), label),
        E::Format { label, format } => {
            let x = match format.as_str() {
                "email" => t.field_email,
                "uri" => t.field_uri,
                "date" => t.field_date,
                "date-time" => t.field_date_time,
                other => other,
            };
            (t.field_format.replace("{x}", x), label)
        }
        E::NotANumber { label } => (t.field_number.to_owned(), label),
        E::NotWhole { label } => (t.field_whole.to_owned(), label),
        E::OutOfRange { label } => (t.field_range.to_owned(), label),
        E::NotAChoice { label } => (t.field_choice.to_owned(), label),
    };
    text.replace("{f}", label)
}
