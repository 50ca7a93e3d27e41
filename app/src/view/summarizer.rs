//! The MCP summarizer: picked in Settings → Experimental among the
//! providers (the settings' own and each profile) and the models known
//! for each; and, on a server's row in Settings → MCP servers, what it
//! failed on there, with Retry.

use air_dynamic::SummaryFailure as Why;
use air_store::Settings;
use air_store::providers::MAIN;
use air_workspace::Command;
use air_workspace::dynamic::Action;
use leptos::prelude::*;

use crate::binding::state::use_app;
use crate::i18n::{Text, t, tl};

/// One provider's choices: its id, its name, its models.
type Group = (String, String, Vec<String>);

/// The summarizer: none (the servers' descriptions), or a model of a
/// provider. Each provider's models are asked for when it shows and when
/// it is focused (once per provider: the lists are kept).
#[component]
pub(crate) fn SummarizerSelect(draft: RwSignal<Settings>) -> impl IntoView {
    let state = use_app();
    let lists = state.prefs.model_lists;
    let want = move || {
        for p in draft.with_untracked(Settings::providers).into_iter().filter(|p| !p.settings.base_url.trim().is_empty()) {
            state.dispatch(Command::Models(air_workspace::models::Action::Want(Box::new(p.settings))));
        }
    };
    want();
    let groups = Memo::new(move |_| {
        draft.with(|d| lists.with(|l| d.providers().into_iter().map(|p| (d.models_of(&p, l.of(&p.settings.models_source())), p)).map(|(models, p)| (p.id, p.name, models)).collect::<Vec<Group>>()))
    });
    // An option's value is its place: `{group}:{model}`.
    let pick = move |value: String| {
        let at = value.split_once(':').and_then(|(g, m)| Some((g.parse::<usize>().ok()?, m.parse::<usize>().ok()?)));
        let chosen = at.and_then(|(g, m)| groups.with_untracked(|gs| gs.get(g).and_then(|(id, _, models)| Some((id.clone(), models.get(m)?.clone())))));
        draft.update(|d| d.pick_summarizer(chosen.as_ref().map(|(id, m)| (id.as_str(), m.as_str()))));
    };
    let options = move || {
        groups
            .get()
            .into_iter()
            .enumerate()
            .map(|(g, (id, name, models))| {
                let main = id == MAIN;
                let label = move || if main { t().profile_usual.to_owned() } else { name.clone() };
                let id = StoredValue::new(id);
                let rows = models.into_iter().enumerate().map(|(m, model)| {
                    let chosen = StoredValue::new(model.clone());
                    let selected = move || draft.with(|d| id.with_value(|id| d.mcp_summarizer_profile == *id) && chosen.with_value(|c| d.mcp_summarizer_model == *c));
                    view! { <option value=format!("{g}:{m}") prop:selected=selected>{model}</option> }
                });
                view! { <optgroup label=label>{rows.collect_view()}</optgroup> }
            })
            .collect_view()
    };
    view! {
        <label>{move || tl().mcp_summarizer}
            <select data-testid="settings-summarizer" on:focus=move |_| want() on:change=move |ev| pick(event_target_value(&ev))>
                <option value="" prop:selected=move || draft.with(|d| !d.has_summarizer())>{move || tl().mcp_summarizer_none}</option>
                {options}
            </select>
        </label>
    }
}

/// Why the summarizer wrote no summary, in words.
fn why_text(text: &Text, why: Why) -> String {
    match why {
        Why::Status(n) => text.mcp_summary_status.replace("{n}", &n.to_string()),
        Why::Timeout => text.mcp_summary_timeout.to_owned(),
        Why::Unreachable => text.mcp_summary_unreachable.to_owned(),
        Why::Unreadable => text.mcp_summary_unreadable.to_owned(),
    }
}

/// What the summarizer failed on for `server`, and Retry (nothing while
/// it has not failed there).
#[component]
pub(crate) fn SummaryFailure(server: String) -> impl IntoView {
    let state = use_app();
    let server = StoredValue::new(server);
    let why = move || server.with_value(|s| state.prefs.summary_failures.with(|l| l.iter().find(|f| f.server == *s).map(|f| f.why)));
    let retry = move |_| state.dispatch(Command::Dynamic(Action::Retry(server.get_value())));
    view! {
        <Show when=move || why().is_some()>
            <span class="mcp-summary-failed" role="alert">
                <span class="warn" data-testid="mcp-summary-error">{move || why().map(|w| tl().mcp_summary_failed.replace("{e}", &why_text(t(), w))).unwrap_or_default()}</span>
                " "
                <button type="button" data-testid="mcp-summary-retry" on:click=retry>{move || tl().mcp_summary_retry}</button>
            </span>
        </Show>
    }
}
