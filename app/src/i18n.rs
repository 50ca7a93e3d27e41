//! The UI texts of the current language (the table is `air-i18n`).

use leptos::prelude::*;

pub use air_i18n::Text;

use crate::binding::state::use_prefs;

/// The texts in the current language (reactive: re-runs when it changes).
pub fn t() -> &'static Text {
    let prefs = use_prefs();
    air_i18n::text(prefs.settings.with(|s| s.language.into()))
}

/// The texts in the current language, read without tracking.
pub fn t_now() -> &'static Text {
    let prefs = use_prefs();
    air_i18n::text(prefs.settings.with_untracked(|s| s.language.into()))
}

/// The later texts (those of parts fetched on first use) in the current
/// language (reactive).
pub fn tl() -> &'static air_i18n::Later {
    let prefs = use_prefs();
    air_i18n::later(prefs.settings.with(|s| s.language.into()))
}
