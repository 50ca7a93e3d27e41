//! Settings → Sync: the user's CouchDB (URL, user, password), the
//! passphrase that encrypts what it keeps, whether API keys and MCP
//! headers travel too (settings of the drawer's draft, themselves synced),
//! Sync now and Pause, and where sync stands.

use air_store::sync_meta::SyncSettings;
use air_workspace::Command;
use air_workspace::sync::conflicts::Conflict;
use air_workspace::sync::form::{self as sync_form, Problem};
use air_workspace::sync::{Action, Failure, State, Status};
use leptos::prelude::*;

use crate::binding::state::use_app;
use air_i18n::Later;

use crate::i18n::{t, tl};

/// What the status line says.
fn line(t: &Later, s: &Status, when: &str) -> String {
    let n = |text: &str, up: u64, down: u64| text.replace("{up}", &up.to_string()).replace("{down}", &down.to_string());
    match &s.state {
        State::Off => t.sync_off.into(),
        State::Syncing { up, down, to_go } => {
            let so_far = n(t.sync_running, *up, *down);
            match to_go.filter(|n| *n > 0) {
                Some(k) => format!("{so_far}{}", t.sync_to_go.replace("{n}", &k.to_string())),
                None => so_far,
            }
        }
        State::Idle => n(t.sync_idle, s.up, s.down).replace("{when}", when).replace("{sent}", &what(t, &s.moved.sent)).replace("{received}", &what(t, &s.moved.taken)),
        State::Paused => t.sync_paused.into(),
        State::Elsewhere => t.sync_elsewhere.into(),
        State::Failed { failure, retry_s } => {
            let said = match failure {
                Failure::Unauthorized => t.sync_unauthorized.into(),
                Failure::WrongPassphrase => t.sync_wrong_passphrase.into(),
                Failure::PassphraseNeeded => t.sync_passphrase_needed.into(),
                Failure::NotEncrypted => t.sync_not_encrypted.into(),
                Failure::Unconfirmed => t.sync_unconfirmed.into(),
                Failure::Unreachable(e) => t.sync_unreachable.replace("{e}", e),
                Failure::Refused { explain, .. } => format!("{explain} {}", t.sync_refused_fix),
                Failure::Server(e) | Failure::Store(e) | Failure::Other(e) => t.sync_failed.replace("{e}", e),
            };
            match retry_s {
                Some(r) => format!("{said}{}", t.sync_retry.replace("{s}", &r.to_string())),
                None => said,
            }
        }
    }
}

/// What documents were, by what each is to the user (conversations,
/// messages, the settings…), in parentheses; nothing for none.
fn what(t: &Later, counts: &std::collections::BTreeMap<String, u64>) -> String {
    let named = [
        ("session", t.sync_n_session),
        ("message", t.sync_n_message),
        ("file", t.sync_n_file),
        ("settings", t.sync_n_settings),
        ("server", t.sync_n_server),
        ("assistant", t.sync_n_assistant),
        ("http", t.sync_n_http),
    ];
    let form = |text: &str, n: u64| {
        let (one, many) = text.split_once('|').unwrap_or((text, text));
        (if n == 1 { one } else { many }).replace("{n}", &n.to_string())
    };
    let mut parts: Vec<String> = named.iter().filter_map(|(k, text)| counts.get(*k).map(|n| form(text, *n))).collect();
    let other: u64 = counts.iter().filter(|(k, _)| !named.iter().any(|(o, _)| o == k)).map(|(_, n)| n).sum();
    if other > 0 {
        parts.push(form(t.sync_n_other, other));
    }
    if parts.is_empty() { String::new() } else { t.sync_what.replace("{list}", &parts.join(t.sync_what_sep)) }
}

/// Why the form was not saved.
fn said(t: &Later, p: Problem) -> &'static str {
    match p {
        Problem::NotHttp => t.sync_not_http,
        Problem::NoDatabase => t.sync_no_database,
        Problem::BadName => t.sync_bad_name,
        Problem::Mismatch => t.sync_mismatch,
    }
}

fn subject(t: &Later, s: &str) -> String {
    match s {
        "session" => t.sync_subject_session.into(),
        "settings" => t.sync_subject_settings.into(),
        "server" => t.sync_subject_server.into(),
        "assistant" => t.sync_subject_assistant.into(),
        "http" => t.sync_subject_http.into(),
        other => other.into(),
    }
}

/// What to set on a server that refuses this page (the doctor's).
#[component]
fn Fixes() -> impl IntoView {
    let state = use_app();
    let fixes = move || {
        state.shell.sync.with(|s| match s.as_ref().map(|s| &s.state) {
            Some(State::Failed { failure: Failure::Refused { fixes, .. }, .. }) => fixes.clone(),
            _ => Vec::new(),
        })
    };
    view! {
        <div class="doctor" data-testid="sync-doctor">
            {move || fixes().into_iter().map(|(place, text)| view! {
                <details data-testid="doctor-snippet" open>
                    <summary>{place}</summary>
                    <pre><code>{text}</code></pre>
                </details>
            }).collect_view()}
        </div>
    }
}

/// The records whose versions written apart are kept: each, what the
/// lost versions had, and Dismiss.
#[component]
fn Conflicts() -> impl IntoView {
    let state = use_app();
    let list = move || state.shell.sync.with(|s| s.as_ref().map(|s| s.conflicts.clone()).unwrap_or_default());
    let item = move |c: Conflict| {
        let wire = c.wire.clone();
        let kept = c
            .kept
            .into_iter()
            .map(|k| {
                let device = if k.here { tl().sync_this_device } else { tl().sync_other_device };
                // Undated: what a device had before it joined.
                let said = match k.at {
                    Some(at) => tl().sync_kept.replace("{when}", &crate::binding::env::local_time_of(at)),
                    None => tl().sync_kept_undated.into(),
                };
                let had = k.changes.iter().map(|(f, v)| format!("{f}: {v}")).collect::<Vec<_>>().join("; ");
                view! { <p class="hint">{said.replace("{device}", device)}" "<q>{had}</q></p> }
            })
            .collect_view();
        view! {
            <li data-testid="sync-conflict">
                <strong>{subject(tl(), &c.subject)}" "{c.name}</strong>
                {kept}
                <button type="button" data-testid="sync-dismiss" on:click=move |_| state.dispatch(Command::Sync(Action::Dismiss(wire.clone())))>{tl().sync_dismiss}</button>
            </li>
        }
    };
    view! {
        <Show when=move || !list().is_empty()>
            <details class="sync-conflicts" data-testid="sync-conflicts" open>
                <summary>{move || tl().sync_conflicts.replace("{n}", &list().len().to_string())}</summary>
                <ul>{move || list().into_iter().map(item).collect_view()}</ul>
            </details>
        </Show>
    }
}

fn state_name(s: &State) -> &'static str {
    match s {
        State::Off => "off",
        State::Syncing { .. } => "syncing",
        State::Idle => "idle",
        State::Paused => "paused",
        State::Elsewhere => "elsewhere",
        State::Failed { .. } => "failed",
    }
}

#[component]
pub(super) fn SyncSection(draft: RwSignal<air_store::Settings>) -> impl IntoView {
    let settings = draft;
    let state = use_app();
    let status = state.shell.sync;
    let draft = RwSignal::new(SyncSettings::default());
    let filled = StoredValue::new(false);
    // The passphrase typed again, whether it shows, and what stops a save.
    let confirm = RwSignal::new(String::new());
    let problem = RwSignal::new(None::<&'static str>);
    state.dispatch(Command::Sync(Action::Want));
    // The saved settings, once the core says them.
    Effect::new(move |_| {
        if let Some(s) = status.get()
            && !filled.get_value()
        {
            filled.set_value(true);
            draft.set(SyncSettings::read(&s.settings));
        }
    });
    let field = move |label: fn(&Later) -> &'static str, testid: &'static str, kind: &'static str, get: fn(&SyncSettings) -> String, set: fn(&mut SyncSettings, String)| {
        view! {
            <label>{move || label(tl())}
                <input type=kind data-testid=testid autocomplete="off" prop:value=move || draft.with(get)
                    on:input=move |ev| { let v = event_target_value(&ev); draft.update(|d| set(d, v)) }/>
            </label>
        }
    };
    let secret = move |testid: &'static str, label: fn(&Later) -> &'static str, get: fn(&air_store::Settings) -> bool, set: fn(&mut air_store::Settings, bool)| {
        view! {
            <label class="check">
                <input type="checkbox" data-testid=testid prop:checked=move || settings.with(get)
                    prop:disabled=move || draft.with(|d| d.passphrase.is_empty())
                    on:change=move |ev| { let v = event_target_checked(&ev); settings.update(|s| set(s, v)) }/>
                {move || label(tl())}
            </label>
        }
    };
    let save = move |_| {
        // What travels is saved with the sync settings (the rest of the drawer waits for its Save).
        let mut kept = state.prefs.settings.get_untracked();
        (kept.sync_keys, kept.sync_headers) = settings.with_untracked(|s| (s.sync_keys, s.sync_headers));
        if kept != state.prefs.settings.get_untracked() {
            state.save_settings(kept);
        }
        let saved = status.with_untracked(|s| s.as_ref().map(|s| SyncSettings::read(&s.settings))).unwrap_or_default();
        let s = match sync_form::check(&draft.get_untracked(), &confirm.get_untracked(), &saved) {
            Ok(s) => SyncSettings { on: true, ..s },
            Err(p) => return problem.set(Some(said(tl(), p))),
        };
        problem.set(None);
        draft.set(s.clone());
        state.dispatch(Command::Sync(Action::Save { settings: s.text(), on: s.ready() }));
    };
    view! {
        <fieldset class="sync" data-testid="sync">
            <legend>{move || t().sync}</legend>
            <p class="hint">{move || tl().sync_hint}</p>
            <UrlField draft=draft problem=problem/>
            <p class="hint">{move || tl().sync_url_hint}</p>
            <div class="row">
                {field(|t| t.sync_user, "sync-user", "text", |d| d.user.clone(), |d, v| d.user = v.trim().to_owned())}
                {field(|t| t.sync_password, "sync-password", "password", |d| d.password.clone(), |d, v| d.password = v)}
            </div>
            <Passphrase draft=draft confirm=confirm/>
            <p class="hint">{move || tl().sync_prefs_hint}</p>
            {secret("sync-keys", |t| t.sync_keys, |s| s.sync_keys, |s, v| s.sync_keys = v)}
            {secret("sync-headers", |t| t.sync_headers, |s| s.sync_headers, |s, v| s.sync_headers = v)}
            <div class="row wrap">
                <button type="button" class="primary" data-testid="sync-save" on:click=save>{move || tl().sync_save}</button>
                <NowAndPause/>
            </div>
            <Show when=move || problem.get().is_some()>
                <p class="hint warn" data-testid="sync-problem" role="alert">{move || problem.get().unwrap_or_default()}</p>
            </Show>
            <StatusLine/>
            <Fixes/>
            <Conflicts/>
        </fieldset>
    }
}

/// The database's address; a user and password written in it go to their
/// fields at once.
#[component]
fn UrlField(draft: RwSignal<SyncSettings>, problem: RwSignal<Option<&'static str>>) -> impl IntoView {
    view! {
        <label>{move || tl().sync_url}
            <input type="url" data-testid="sync-url" autocomplete="off" placeholder="https://couch.example.com:5984/chats" prop:value=move || draft.with(|d| d.url.clone())
                on:input=move |ev| {
                    // A user and password written in it go to their fields at once.
                    let (url, written) = sync_form::split_credentials(&event_target_value(&ev));
                    let moved = written.is_some();
                    draft.update(|d| {
                        d.url = url;
                        if let Some((user, password)) = written {
                            (d.user, d.password) = (user, password);
                        }
                    });
                    problem.set(moved.then(|| tl().sync_url_credentials).or_else(|| draft.with(|d| sync_form::url_problem(&d.url)).filter(|p| *p != Problem::NoDatabase).map(|p| said(tl(), p))));
                }/>
        </label>
    }
}

/// The passphrase, typed twice, and whether it shows.
#[component]
fn Passphrase(draft: RwSignal<SyncSettings>, confirm: RwSignal<String>) -> impl IntoView {
    let shown = RwSignal::new(false);
    view! {
        <div class="row">
            <label>{move || tl().sync_passphrase}
                <input type=move || if shown.get() { "text" } else { "password" } data-testid="sync-passphrase" autocomplete="off" prop:value=move || draft.with(|d| d.passphrase.clone())
                    on:input=move |ev| { let v = event_target_value(&ev); draft.update(|d| d.passphrase = v) }/>
            </label>
            <label>{move || tl().sync_passphrase_confirm}
                <input type=move || if shown.get() { "text" } else { "password" } data-testid="sync-passphrase-confirm" autocomplete="off" prop:value=move || confirm.get()
                    prop:disabled=move || draft.with(|d| d.passphrase.is_empty())
                    on:input=move |ev| confirm.set(event_target_value(&ev))/>
            </label>
        </div>
        <label class="check">
            <input type="checkbox" data-testid="sync-passphrase-show" prop:checked=move || shown.get() on:change=move |ev| shown.set(event_target_checked(&ev))/>
            {move || tl().sync_passphrase_show}
        </label>
        <p class="hint">{move || tl().sync_confirm_hint}</p>
        <Show when=move || draft.with(|d| d.passphrase.is_empty())>
            <p class="hint warn" data-testid="sync-plain-warning">{move || tl().sync_plain_warning}</p>
        </Show>
    }
}

/// Sync now, and Pause or Resume: they mean nothing while sync is off.
#[component]
fn NowAndPause() -> impl IntoView {
    let state = use_app();
    let status = state.shell.sync;
    let paused = move || status.with(|s| s.as_ref().is_some_and(|s| s.state == State::Paused));
    let off = move || status.with(|s| s.as_ref().is_none_or(|s| s.state == State::Off));
    view! {
        <button type="button" data-testid="sync-now" prop:disabled=off on:click=move |_| state.dispatch(Command::Sync(Action::Now))>{move || tl().sync_now}</button>
        <button type="button" data-testid="sync-pause" prop:disabled=off on:click=move |_| state.dispatch(Command::Sync(Action::Pause(!paused())))>
            {move || if paused() { tl().sync_resume } else { tl().sync_pause }}
        </button>
    }
}

/// Where sync is, and what it set aside.
#[component]
fn StatusLine() -> impl IntoView {
    let status = use_app().shell.sync;
    let when = move |ms: f64| crate::binding::env::local_time_of(ms);
    view! {
        <p class="hint" data-testid="sync-status" role="status"
            data-state=move || status.with(|s| s.as_ref().map_or("off", |s| state_name(&s.state)))>
            {move || status.with(|s| s.as_ref().map(|s| line(tl(), s, &s.last.map(when).unwrap_or_default())).unwrap_or_default())}
        </p>
        <Show when=move || status.with(|s| s.as_ref().is_some_and(|s| s.refused > 0))>
            <p class="hint warn" data-testid="sync-refused" role="alert">
                {move || status.with(|s| s.as_ref().map(|s| tl().sync_set_aside.replace("{n}", &s.refused.to_string())).unwrap_or_default())}
            </p>
        </Show>
    }
}
