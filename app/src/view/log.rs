//! Settings → Event log: what the agent did (the core's log: turns, the
//! tools offered, each call and what became of it, tools loaded, the MCP
//! servers), newest first, filtered by level; exported as JSON Lines.

use air_workspace::Command;
use air_workspace::log::{Action, Entry, Level};
use leptos::prelude::*;

use crate::binding::state::use_app;
use crate::i18n::{Text, t, tl};

/// The entries drawn at most (the export has them all).
const DRAWN: usize = 300;

/// The log, asked for when it is opened (and shown again as it grows).
#[component]
pub(super) fn EventLogSection() -> impl IntoView {
    let state = use_app();
    let least = RwSignal::new(Level::Info);
    let log = state.shell.event_log;
    let rows = move || {
        let least = least.get();
        log.with(|list| list.iter().filter(|e| e.level <= least).take(DRAWN).cloned().map(row).collect_view())
    };
    let empty = move || {
        let least = least.get();
        log.with(|list| !list.iter().any(|e| e.level <= least))
    };
    let option = move |level: Level, label: fn(&Text) -> &'static str| {
        view! { <option value=level.name() prop:selected=move || least.get() == level>{move || label(t())}</option> }
    };
    view! {
        <details class="event-log" data-testid="event-log" on:toggle=move |_| state.dispatch(Command::Log(Action::Want))>
            <summary>{move || t().event_log}</summary>
            <p class="hint">{move || tl().event_log_hint}</p>
            <div class="row wrap">
                <label>{move || tl().event_log_show}
                    <select data-testid="event-log-level" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        if let Some(level) = Level::ALL.into_iter().find(|l| l.name() == v) {
                            least.set(level);
                        }
                    }>
                        {option(Level::Error, |t| t.event_log_errors)}
                        {option(Level::Warn, |t| t.event_log_warnings)}
                        {option(Level::Info, |t| t.event_log_info)}
                        {option(Level::Debug, |t| t.event_log_debug)}
                    </select>
                </label>
                <button type="button" data-testid="event-log-export" on:click=move |_| state.dispatch(Command::Log(Action::Export))>{move || tl().event_log_export}</button>
            </div>
            <Show when=empty>
                <p class="hint" data-testid="event-log-empty">{move || tl().event_log_empty}</p>
            </Show>
            <ol class="event-log-entries" data-testid="event-log-entries">{rows}</ol>
        </details>
    }
}

/// One entry: its time, level and text.
fn row(e: Entry) -> impl IntoView {
    let level = e.level;
    let word = move || match level {
        Level::Error => tl().log_level_error,
        Level::Warn => tl().log_level_warn,
        Level::Info => tl().log_level_info,
        Level::Debug => tl().log_level_debug,
    };
    view! {
        <li class=format!("log-entry log-{}", level.name()) data-testid="event-log-entry" data-level=level.name() data-kind=e.kind.name()>
            <time>{crate::binding::env::local_time_of(e.at)}</time>
            " "
            <span class="log-level">{word}</span>
            " "
            <span class="log-text">{e.text}</span>
        </li>
    }
}
