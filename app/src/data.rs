//! Export, import and the storage estimate.

use air_store::export::{self, Export};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::state::AppState;

fn human(bytes: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut v = bytes;
    let mut i = 0;
    while v >= 1024.0 && i < UNITS.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 { format!("{v:.0} {}", UNITS[i]) } else { format!("{v:.1} {}", UNITS[i]) }
}

/// Refreshes the storage line shown in Settings.
pub fn refresh_storage(state: AppState) {
    spawn_local(async move {
        let persistent = air_web::request_persistent_storage().await;
        let t = state.t();
        let mut line = match air_web::storage_estimate().await {
            Some((used, quota)) => t.storage_usage.replace("{used}", &human(used)).replace("{quota}", &human(quota)),
            None => String::new(),
        };
        line.push(' ');
        line.push_str(if persistent { t.storage_persistent } else { t.storage_not_persistent });
        state.shell.storage_line.set(line.trim().to_owned());
    });
}

/// Downloads one conversation as Markdown.
pub fn export_markdown(state: AppState, session: String) {
    let Some(store) = state.store() else { return };
    spawn_local(async move {
        match export::collect(&*store, Some(&session)).await {
            Ok(sessions) => {
                let Some(one) = sessions.first() else { return };
                let (date, _) = crate::env::local_date_time();
                if let Err(e) = air_web::download(&format!("air-agent-conversation-{date}.md"), "text/markdown", &export::markdown(one)) {
                    state.shell.notice.set(Some(state.t().import_failed.replace("{e}", &e)));
                }
            }
            Err(e) => state.report(state.t().import_failed, &e),
        }
    });
}

/// Downloads all conversations, or only `only`, as JSON.
pub fn export(state: AppState, only: Option<String>, include_secrets: bool) {
    let Some(store) = state.store() else { return };
    spawn_local(async move {
        match export::collect(&*store, only.as_deref()).await {
            Ok(sessions) => {
                let now = crate::env::now_ms();
                let mut doc = Export::new(sessions, now);
                if only.is_none() {
                    doc = doc.with_settings(&state.prefs.settings.get_untracked(), include_secrets);
                }
                let (date, _) = crate::env::local_date_time();
                let name = match &only {
                    Some(_) => format!("air-agent-conversation-{date}.json"),
                    None => format!("air-agent-export-{date}.json"),
                };
                if let Err(e) = air_web::download(&name, "application/json", &doc.to_json()) {
                    state.shell.notice.set(Some(state.t().import_failed.replace("{e}", &e)));
                }
            }
            Err(e) => state.report(state.t().import_failed, &e),
        }
    });
}

/// Imports the file chosen in an `<input type=file>`.
pub fn import(state: AppState, event: leptos::ev::Event) {
    let Some(store) = state.store() else { return };
    spawn_local(async move {
        let t = state.t();
        let text = match air_web::read_chosen_file(&event).await {
            Ok(Some(text)) => text,
            Ok(None) => return,
            Err(e) => {
                state.shell.import_result.set(Some(t.import_failed.replace("{e}", &e)));
                return;
            }
        };
        let doc = match Export::parse(&text) {
            Ok(doc) => doc,
            Err(e) => {
                state.shell.import_result.set(Some(t.import_failed.replace("{e}", &e)));
                return;
            }
        };
        match air_store::import::import(&*store, &doc, &mut crate::env::new_id).await {
            Ok((sessions, messages)) => {
                state.shell.import_result.set(Some(
                    t.imported.replace("{s}", &sessions.to_string()).replace("{m}", &messages.to_string()),
                ));
                state.dispatch(air_workspace::Command::ReloadSessions);
                state.broadcast(air_store::sync::SyncEvent::SessionsChanged);
                state.dispatch(air_workspace::Command::Reopen);
                refresh_storage(state);
            }
            Err(e) => {
                let text = match e {
                    air_store::StoreError::QuotaExceeded(_) => t.err_storage_full.to_owned(),
                    other => t.import_failed.replace("{e}", &other.to_string()),
                };
                state.shell.import_result.set(Some(text));
            }
        }
    });
}
