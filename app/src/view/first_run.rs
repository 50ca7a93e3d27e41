//! A first run away from `./dev serve` (the default provider, a model
//! server on this machine, is not there): the empty chat offers a model
//! that runs in this browser, in one click, beside an API key. A part of
//! its own, fetched only then.

use air_workspace::Command;
use air_workspace::browser_models::Action;
use leptos::prelude::*;

use crate::binding::state::use_app;

/// Whether the offer is shown: the provider is still the default one on a
/// page not served from this machine, or the model chosen here is on its way.
pub fn wanted(state: crate::binding::state::AppState) -> bool {
    let local = state.prefs.settings.with(|s| s.provider == air_store::settings::LOCAL_PRESET);
    let downloading = state.prefs.browser_models.with(|m| m.downloading.is_some());
    !crate::binding::env::page_on_loopback() && (local || downloading)
}

#[crate::binding::lazy::split(first_run, wasm_split_path = ::leptos::wasm_split, fallible)]
pub fn offer() -> Result<AnyView, crate::binding::lazy::NotFetched> {
    Ok(view! { <Offer/> }.into_any())
}

#[component]
fn Offer() -> impl IntoView {
    let state = use_app();
    let tl = move || state.tl();
    let models = state.prefs.browser_models;
    state.dispatch(Command::BrowserModels(Action::Open));
    let size = move || models.with(|m| m.stored.iter().any(|s| s.complete).then_some(0).or_else(|| m.offered.first().and_then(|o| o.mb())));
    let label = move || match size() {
        Some(n) if n > 0 => tl().chat_here.replace("{n}", &n.to_string()),
        _ => tl().chat_here_unknown.to_owned(),
    };
    let progress = move || models.with(|m| m.downloading.clone());
    view! {
        <div class="first-run" data-testid="first-run">
            <p class="muted">{move || tl().chat_here_hint}</p>
            <Show when=move || progress().is_none() fallback=move || {
                let p = progress();
                let (got, total) = p.map_or((0, 0), |p| (p.got, p.total));
                let text = tl().browser_progress.replace("{got}", &got.div_ceil(1_000_000).to_string()).replace("{total}", &total.div_ceil(1_000_000).to_string());
                view! {
                    <div class="row">
                        <progress data-testid="first-run-progress" max=total.max(1).to_string() value=got.to_string()></progress>
                        <span class="muted">{text}</span>
                    </div>
                }
            }>
                <div class="row">
                    <button type="button" class="primary" data-testid="chat-here"
                        on:click=move |_| state.dispatch(Command::BrowserModels(Action::ChatHere))>{label}</button>
                    <button type="button" data-testid="use-api-key" on:click=move |_| state.prefs.settings_open.set(true)>{move || tl().use_api_key}</button>
                </div>
            </Show>
            <p class="test-result failed" role="alert">{move || models.with(|m| m.error.clone())}</p>
        </div>
    }
}
