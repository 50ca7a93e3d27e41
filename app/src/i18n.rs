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

/// Dynamic loading's metrics in a sentence.
pub fn metrics_text(m: &air_dynamic::Metrics) -> String {
    if m.requests == 0 {
        return t().metrics_none.to_owned();
    }
    let pct = |x: f64| format!("{:.0} %", x * 100.0);
    let saved = if m.context_tokens_without > 0 { 1.0 - m.context_tokens as f64 / m.context_tokens_without as f64 } else { 0.0 };
    let mut line = t()
        .metrics_line
        .replace("{r}", &m.requests.to_string())
        .replace("{t}", &m.turns.to_string())
        .replace("{h}", &m.hit_rate().map_or_else(|| "–".to_owned(), pct))
        .replace("{ir}", &m.invalidation_rate().map_or_else(|| "–".to_owned(), |r| format!("{r:.2}")))
        .replace("{i}", &m.invalidations.to_string())
        .replace("{e}", &m.extra_steps.to_string())
        .replace("{w}", &m.context_tokens.to_string())
        .replace("{o}", &m.context_tokens_without.to_string())
        .replace("{s}", &pct(saved.max(0.0)));
    if m.measured_requests > 0 {
        line.push_str(&t().metrics_measured.replace("{m}", &m.measured_requests.to_string()).replace("{po}", &m.prompt_tokens_without.to_string()).replace("{p}", &m.prompt_tokens.to_string()));
    }
    line
}
