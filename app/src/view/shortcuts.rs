//! Keyboard shortcuts, and the sheet that lists them (`?`).

use leptos::prelude::*;

use crate::binding::state::AppState;
use crate::i18n::t;

/// What a key press asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    NewChat,
    Search,
    Stop,
    FocusComposer,
    Previous,
    Next,
    Help,
}

/// The shortcut a key press is, if any. `typing`: the focus is in a text
/// field, where plain keys are text.
fn action(key: &str, ctrl_or_meta: bool, alt: bool, shift: bool, typing: bool) -> Option<Action> {
    match (key, ctrl_or_meta, alt, shift) {
        ("o" | "O", true, false, true) => Some(Action::NewChat),
        ("k" | "K", true, false, false) => Some(Action::Search),
        ("Escape", false, false, true) => Some(Action::FocusComposer),
        ("Escape", false, false, false) => Some(Action::Stop),
        ("ArrowUp", false, true, false) => Some(Action::Previous),
        ("ArrowDown", false, true, false) => Some(Action::Next),
        ("/", true, false, false) => Some(Action::Help),
        ("?", false, false, _) if !typing => Some(Action::Help),
        ("/", false, false, false) if !typing => Some(Action::FocusComposer),
        _ => None,
    }
}

/// The rows of the sheet: keys and what they do.
fn rows() -> Vec<(&'static str, &'static str)> {
    let t = t();
    vec![("Ctrl/⌘ + Shift + O", t.key_new_chat), ("Ctrl/⌘ + K", t.key_search), ("Esc", t.key_stop), ("/ · Shift + Esc", t.key_focus), ("Alt + ↑ / ↓", t.key_sessions), ("? · Ctrl/⌘ + /", t.key_help)]
}

/// Listens to the keyboard for the whole page; `open` is the sheet.
pub fn listen(state: AppState, open: RwSignal<bool>) {
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        let typing = air_web::typing(&ev);
        let Some(a) = action(&ev.key(), ev.ctrl_key() || ev.meta_key(), ev.alt_key(), ev.shift_key(), typing) else { return };
        if a == Action::Stop {
            // Esc closes the sheet or Settings first; otherwise it stops
            // an answer.
            if open.get_untracked() {
                open.set(false);
                ev.prevent_default();
            } else if state.prefs.settings_open.get_untracked() {
                state.prefs.settings_open.set(false);
                ev.prevent_default();
            } else if state.is_busy() {
                state.stop();
                ev.prevent_default();
            }
            return;
        }
        ev.prevent_default();
        match a {
            Action::NewChat => {
                state.new_session();
                air_web::focus("[data-testid=composer-input]");
            }
            Action::Search => {
                state.set_sidebar_collapsed(false);
                air_web::focus("[data-testid=session-search]");
            }
            Action::FocusComposer => {
                air_web::focus("[data-testid=composer-input]");
            }
            Action::Previous | Action::Next => {
                let ids: Vec<String> = state.sessions.list.with_untracked(|l| l.iter().map(|s| s.id.clone()).collect());
                let here = state.sessions.active.get_untracked().and_then(|a| ids.iter().position(|i| *i == a));
                let to = match (a, here) {
                    (Action::Previous, Some(i)) if i > 0 => ids.get(i - 1),
                    (Action::Next, Some(i)) => ids.get(i + 1),
                    (Action::Next, None) => ids.first(),
                    _ => None,
                };
                if let Some(id) = to.cloned() {
                    state.select_session(id);
                }
            }
            Action::Help => open.update(|o| *o = !*o),
            Action::Stop => {}
        }
    });
    on_cleanup(move || handle.remove());
}

/// The list of shortcuts.
#[component]
pub fn ShortcutSheet(open: RwSignal<bool>) -> impl IntoView {
    view! {
        <Show when=move || open.get()>
            <div class="drawer-backdrop" on:click=move |_| open.set(false)></div>
            <div class="shortcuts" role="dialog" aria-label=move || t().keys_title data-testid="shortcuts">
                <h2>{move || t().keys_title}</h2>
                <table>
                    {move || rows().into_iter().map(|(keys, what)| view! {
                        <tr data-testid="shortcut"><td><kbd>{keys}</kbd></td><td>{what}</td></tr>
                    }).collect_view()}
                </table>
                <button type="button" data-testid="shortcuts-close" on:click=move |_| open.set(false)>{move || t().close}</button>
            </div>
        </Show>
    }
}
