//! Export, import and the storage estimate: the workspace core does them;
//! here the view's actions become its commands, and a chosen file is read.

use air_workspace::Command;
use air_workspace::data::Format;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::state::AppState;

/// A size as people read it.
pub fn human(bytes: f64) -> String {
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
    state.dispatch(Command::WantStorage);
}

/// Downloads one conversation as Markdown.
pub fn export_markdown(state: AppState, session: String) {
    state.dispatch(Command::Export { only: Some(session), format: Format::Markdown, settings: Box::default() });
}

/// Downloads all conversations, or only `only`, as JSON.
pub fn export(state: AppState, only: Option<String>, include_secrets: bool) {
    let format = if only.is_some() { Format::One } else { Format::All { secrets: include_secrets } };
    let settings = Box::new(state.prefs.settings.get_untracked());
    state.dispatch(Command::Export { only, format, settings });
}

/// Imports the file chosen in an `<input type=file>`.
pub fn import(state: AppState, event: leptos::ev::Event) {
    spawn_local(async move {
        match air_web::read_chosen_file(&event).await {
            Ok(Some(text)) => state.dispatch(Command::Import(text)),
            Ok(None) => {}
            Err(e) => state.shell.import_result.set(Some(state.t().import_failed.replace("{e}", &e))),
        }
    });
}
