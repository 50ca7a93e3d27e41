//! Settings → Provider → In this browser: the models the page runs itself,
//! offered and stored, downloaded with their progress, stopped and
//! resumed, picked from the disk, deleted.

use air_store::Settings;
use air_workspace::Command;
use air_workspace::browser_models::{Action, Offer, State, Stored};
use leptos::prelude::*;

use crate::binding::state::use_app;
use crate::i18n::tl;

const MB: f64 = 1_000_000.0;

fn mb(bytes: u64) -> String {
    format!("{:.0}", (bytes as f64 / MB).ceil())
}

/// The section, under the provider's fields while "In this browser" is chosen.
#[component]
pub fn BrowserModels(draft: RwSignal<Settings>) -> impl IntoView {
    let state = use_app();
    let models = state.prefs.browser_models;
    state.dispatch(Command::BrowserModels(Action::Open));
    // With no model named yet, the first one stored is the one used.
    Effect::new(move |_| {
        let first = models.with(|m| m.stored.iter().find(|s| s.complete).map(|s| s.name.clone()));
        if let Some(name) = first
            && draft.with_untracked(|d| d.model.trim().is_empty() && air_store::settings::is_in_browser(&d.base_url))
        {
            draft.update(|d| d.model = name);
        }
    });
    let url = RwSignal::new(String::new());
    let by_url = move |_| {
        if let Some(offer) = Offer::by_url(&url.get_untracked()) {
            state.dispatch(Command::BrowserModels(Action::Download(offer)));
        }
    };
    let picked = move |ev: leptos::ev::Event| {
        let input: leptos::web_sys::HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            crate::binding::inpage::pick_file(state, file);
        }
        input.set_value("");
    };
    view! {
        <section class="browser-models" data-testid="browser-models">
            <h3>{move || tl().browser_models_title}</h3>
            <p class="hint">{move || tl().browser_models_hint}</p>
            <ul class="browser-model-list">
                <For each=move || models.with(State::rows) key=|o| o.name.clone() let:offer>
                    <OfferRow offer=offer draft=draft/>
                </For>
            </ul>
            <label>{move || tl().browser_by_url}
                <span class="row">
                    <input type="url" data-testid="browser-model-url" placeholder="https://…/model.gguf"
                        prop:value=move || url.get() on:input=move |ev| url.set(event_target_value(&ev))/>
                    <button type="button" data-testid="browser-model-url-download" on:click=by_url
                        disabled=move || models.with(|m| m.downloading.is_some())>{move || tl().browser_download_unknown}</button>
                </span>
            </label>
            <label>{move || tl().browser_from_file}
                <input type="file" accept=".gguf" data-testid="browser-model-file" on:change=picked/>
            </label>
            <p class="hint" data-testid="browser-storage">{move || models.with(|m| m.usage.map(|(used, quota)| {
                tl().browser_storage.replace("{used}", &format!("{:.0}", used / MB)).replace("{quota}", &format!("{:.0}", quota / MB))
            }))}</p>
            <p class="test-result failed" role="alert" data-testid="browser-model-error">{move || models.with(|m| m.error.clone())}</p>
        </section>
    }
}

/// One model: what it is, and what can be done with it now.
#[component]
fn OfferRow(offer: Offer, draft: RwSignal<Settings>) -> impl IntoView {
    let state = use_app();
    let models = state.prefs.browser_models;
    let name = offer.name.clone();
    let stored = {
        let name = name.clone();
        move || models.with(|m: &State| m.stored.iter().find(|s| s.name == name).cloned())
    };
    let downloading = {
        let name = name.clone();
        move || models.with(|m| m.downloading.clone().filter(|p| p.name == name))
    };
    let facts = [offer.mb().map(|n| format!("{n} MB")), Some(offer.licence.clone()).filter(|l| !l.is_empty()), Some(offer.languages.clone()).filter(|l| !l.is_empty())]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ");
    let tools = offer.tools;
    let title = offer.title.clone();
    view! {
        <li class="browser-model" data-testid="browser-model" data-name=name.clone()>
            <span class="browser-model-title">{title}</span>
            <span class="hint">{facts}" · "{move || if tools { tl().browser_tools } else { tl().browser_no_tools }}</span>
            {move || actions(state, draft, &offer, stored(), downloading().map(|p| (p.got, p.total)))}
        </li>
    }
}

/// The row's progress and buttons.
fn actions(state: crate::binding::state::AppState, draft: RwSignal<Settings>, offer: &Offer, stored: Option<Stored>, downloading: Option<(u64, u64)>) -> AnyView {
    let dispatch = move |a: Action| state.dispatch(Command::BrowserModels(a));
    let name = offer.name.clone();
    if let Some((got, total)) = downloading {
        let max = total.max(got).max(1);
        let text = tl().browser_progress.replace("{got}", &mb(got)).replace("{total}", &if total > 0 { mb(total) } else { "?".into() });
        return view! {
            <span class="row">
                <progress data-testid="browser-model-progress" max=max.to_string() value=got.to_string()></progress>
                <span class="hint" data-testid="browser-model-progress-text">{text}</span>
                <button type="button" data-testid="browser-model-stop" on:click=move |_| dispatch(Action::Stop)>{tl().browser_stop}</button>
            </span>
        }
        .into_any();
    }
    let delete = {
        let name = name.clone();
        move |_| dispatch(Action::Delete(name.clone()))
    };
    match stored {
        Some(s) if s.complete => {
            let in_use = {
                let name = name.clone();
                Signal::derive(move || draft.with(|d| d.model == name))
            };
            let pick = move |_| draft.update(|d| d.model = name.clone());
            view! {
                <span class="row">
                    <button type="button" data-testid="browser-model-use" on:click=pick disabled=in_use>
                        {move || if in_use.get() { tl().browser_in_use } else { tl().browser_use }}
                    </button>
                    <button type="button" data-testid="browser-model-delete" on:click=delete>{tl().browser_delete}</button>
                </span>
            }
            .into_any()
        }
        partial => {
            let left = offer.size.map(|size| size.saturating_sub(partial.as_ref().map_or(0, |s| s.stored)));
            let label = match (&partial, left) {
                (Some(_), Some(left)) => tl().browser_resume.replace("{n}", &mb(left)),
                (_, _) => match offer.mb() {
                    Some(n) => tl().browser_download.replace("{n}", &n.to_string()),
                    None => tl().browser_download_unknown.to_owned(),
                },
            };
            let offer = offer.clone();
            view! {
                <span class="row">
                    <button type="button" data-testid="browser-model-download"
                        disabled=move || state.prefs.browser_models.with(|m| m.downloading.is_some())
                        on:click=move |_| dispatch(Action::Download(offer.clone()))>{label}</button>
                    {partial.is_some().then(|| view! {
                        <button type="button" data-testid="browser-model-delete" on:click=delete>{tl().browser_delete}</button>
                    })}
                </span>
            }
            .into_any()
        }
    }
}
