//! The parts of the app fetched on first use. A function marked
//! `#[split(name, wasm_split_path = ::leptos::wasm_split, fallible)]` is cut
//! into a wasm module of its own by app/split.sh; calling it fetches that
//! module first (once). Its result is `Result<_, NotFetched>`: offline before
//! the part was ever fetched, or after a new version replaced the files of
//! the one running, the part is missing and the page says so instead of
//! failing.

use leptos::prelude::*;

pub use leptos::wasm_split::wasm_split as split;

/// A lazily loaded part could not be fetched.
#[derive(Debug, Clone, Copy)]
pub struct NotFetched;

impl From<leptos::wasm_split::SplitLoaderError> for NotFetched {
    fn from(_: leptos::wasm_split::SplitLoaderError) -> Self {
        NotFetched
    }
}

impl NotFetched {
    pub fn message(self) -> &'static str {
        let prefs = super::state::use_prefs();
        air_i18n::text(prefs.settings.with(|s| s.language.into())).part_missing
    }
}

/// What a lazily built view shows: the view, or why it is not there.
pub fn show(view: Result<AnyView, NotFetched>) -> AnyView {
    view.unwrap_or_else(|missing| view! { <p class="part-missing" role="alert" data-testid="part-missing">{missing.message()}</p> }.into_any())
}

/// Where a background job's part is missing: said in the notice line (in
/// the state's language: a job may run where no context is).
pub fn report(state: super::state::AppState, _: NotFetched) {
    state.shell.notice.set(Some(state.t().part_missing.to_owned()));
}

/// Fetches a part ahead of its first use (the conversation view while the
/// store opens), in the background: if it cannot be fetched now, its first
/// use says so.
pub fn prefetch(fetching: impl std::future::Future + 'static) {
    leptos::task::spawn_local(async move {
        let _ = fetching.await;
    });
}
