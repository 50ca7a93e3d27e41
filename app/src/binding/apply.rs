//! The core's updates, turned into signals (and the little the page does
//! for them: telling other tabs, marking the first screen).

use std::rc::Rc;

use air_store::files::Refusal;
use air_store::sync::{CHANNEL as SYNC_CHANNEL, SyncEvent};
use air_workspace::Update as Up;
use air_workspace::data::{ImportOutcome, StorageInfo};
use air_workspace::pickers::Found;
use air_workspace::{Command, Notice, StoreOp};
use leptos::prelude::*;

use super::state::AppState;
use super::{STARTING, WARM_CHAT_VIEW, dispatch};

pub(super) fn apply(state: AppState, u: Up) {
    match u {
        Up::Notice(n) => notice(state, n),
        Up::StoreReady => store_ready(state),
        Up::WarmChatView => {
            if let Some(warm) = WARM_CHAT_VIEW.with(std::cell::Cell::get) {
                warm();
            }
        }
        Up::Sessions { list, has_more } => {
            state.sessions.has_more.set(has_more);
            state.sessions.list.set(list);
        }
        Up::Started { first } => started(state, first),
        Up::Removed(id) => {
            // (A turn running in it was stopped by the core.)
            if state.sessions.active.get_untracked().as_deref() == Some(id.as_str()) {
                state.new_session();
            }
        }
        Up::PendingDelete(p) => state.sessions.pending_delete.set(p),
        Up::Deleted(id) => deleted(state, id),
        Up::Renamed(id) | Up::Changed(id) => state.broadcast(SyncEvent::SessionChanged { session_id: id }),
        Up::SessionsChanged => state.broadcast(SyncEvent::SessionsChanged),
        Up::PrefsChanged => state.broadcast(SyncEvent::PrefsChanged),
        Up::SearchStarted => air_web::perf_mark("air-search-start"),
        Up::SearchResults(results) => search_results(state, results),
        Up::Indexing(on) => state.sessions.indexing.set(on),
        Up::Storage(_) | Up::Import(_) | Up::Log(_) | Up::Sync(_) => apply_settings(state, u),
        Up::Busy(_)
        | Up::Sending
        | Up::Sent
        | Up::NotSent(_)
        | Up::Files(_)
        | Up::Attachments(_)
        | Up::Attached(_)
        | Up::AttachFailed { .. }
        | Up::Approvals { .. }
        | Up::Questions(_)
        | Up::RemoteStreams(_) => apply_turn(state, u),
        Up::Settings(_)
        | Up::PrefsSaved
        | Up::Servers(_)
        | Up::ChatServers(_)
        | Up::Assistants(_)
        | Up::AddFlow(_)
        | Up::ServerStatus { .. }
        | Up::Resynced { .. }
        | Up::ProviderDoctor(_)
        | Up::SignIns(_)
        | Up::AddFormBack(_)
        | Up::OpenSettings
        | Up::ModelLists(_)
        | Up::ProviderTest(_)
        | Up::BrowserModels(_) => apply_prefs(state, u),
        Up::HttpTools(_) | Up::HttpToolSaved | Up::HttpImport(_) => super::http_tools::apply(state, u),
        Up::Picked(found) => {
            // A prompt's text goes into the composer, after what is there.
            if let Found::PromptText(Ok(text)) = &found {
                state.chat.draft.update(|d| {
                    if !d.trim().is_empty() {
                        d.push_str("\n\n");
                    }
                    d.push_str(text);
                });
            }
            state.chat.picked.set(Some(found));
        }
        other => apply_chat(state, other),
    }
}

/// The first page of the list is read: the newest session opens (the
/// page is usable once it shows).
fn started(state: AppState, first: Option<String>) {
    match first {
        Some(id) => {
            STARTING.with(|s| s.set(true));
            dispatch(state, Command::Chat(air_workspace::chat::Action::Open(id)));
        }
        None => ready(state),
    }
}

fn search_results(state: AppState, results: Option<air_store::search::SearchResults>) {
    let found = results.is_some();
    state.sessions.search_results.set(results);
    if found {
        request_animation_frame(|| air_web::perf_mark("air-search-end"));
    }
}

/// The preferences, the servers and what Settings shows of them.
fn apply_prefs(state: AppState, u: Up) {
    match u {
        Up::Settings(settings) => state.prefs.settings.set(*settings),
        // A notice about saving (storage full) is over.
        Up::PrefsSaved => state.shell.notice.set(None),
        Up::Servers(list) => state.prefs.mcp_servers.set(list),
        Up::ChatServers(chat) => state.prefs.mcp_chat.set(chat),
        Up::Assistants(all) => state.prefs.assistants.set(all),
        Up::AddFlow(flow) => state.prefs.add_flow.set(*flow),
        Up::ServerStatus { name, status } => state.prefs.mcp_status.update(|m| {
            m.insert(name, status);
        }),
        Up::Resynced { name, result } => state.prefs.resynced.set(Some((name, result))),
        Up::ProviderDoctor(doctor) => state.prefs.provider_doctor.set(doctor),
        Up::SignIns(view) => state.prefs.sign_ins.set(*view),
        Up::AddFormBack(draft) => state.prefs.add_form_back.set(Some(draft)),
        Up::OpenSettings => state.prefs.settings_open.set(true),
        Up::ModelLists(lists) => state.prefs.model_lists.set(lists),
        Up::ProviderTest(test) => state.prefs.provider_test.set(test),
        Up::BrowserModels(models) => state.prefs.browser_models.set(models),
        _ => {}
    }
}

/// What Settings shows of storage, imports, the event log and sync.
fn apply_settings(state: AppState, u: Up) {
    match u {
        Up::Storage(info) => state.shell.storage_line.set(storage_line(state, info)),
        // Another app's, or with files left out: its summary is told by
        // the import's own part.
        Up::Import(ImportOutcome::Done(done)) if done.from.is_some() || !done.left_out.is_empty() => {
            state.shell.import_failed.set(false);
            super::parts::tell_imported(state, done);
        }
        Up::Import(outcome) => {
            state.shell.import_failed.set(!matches!(outcome, ImportOutcome::Done(_)));
            state.shell.import_result.set(Some(import_text(state, outcome)));
        }
        Up::Log(list) => state.shell.event_log.set(list),
        Up::Sync(status) => state.shell.sync.set(Some(*status)),
        _ => {}
    }
}

/// The open conversation's updates.
fn apply_chat(state: AppState, u: Up) {
    match u {
        Up::Active(active) => state.sessions.active.set(active),
        Up::Messages { mut list, has_older, has_newer } => {
            // The answer this tab is streaming is shown live, not as its checkpoint.
            if let Some(live) = state.chat.streaming.with_untracked(|s| s.as_ref().map(|s| s.message_id.clone())) {
                list.retain(|m| m.id != live);
            }
            state.chat.has_older.set(has_older);
            state.chat.has_newer.set(has_newer);
            state.chat.messages.set(list);
        }
        Up::MessagesAppended { mut list, has_newer } => {
            state.chat.has_newer.set(has_newer);
            state.chat.messages.update(|m| m.append(&mut list));
        }
        Up::MessagesPrepended { mut list, has_older } => {
            state.chat.has_older.set(has_older);
            state.chat.messages.update(|m| {
                list.append(m);
                *m = list;
            });
        }
        Up::Opened(_) => {
            if STARTING.with(|s| s.replace(false)) {
                ready(state);
            }
        }
        Up::MessageSaved(record) => {
            // The finished answer replaces its live view in the same update,
            // so it never shows twice.
            if state.chat.streaming.with_untracked(|s| s.as_ref().is_some_and(|s| s.message_id == record.id)) {
                state.chat.streaming.set(None);
            }
            state.chat.messages.update(|list| upsert_message(list, record));
        }
        Up::MessagesRemoved(ids) => state.chat.messages.update(|m| m.retain(|x| !ids.contains(&x.id))),
        Up::Focus(focus) => state.chat.focus.set(focus),
        // Dynamic loading's.
        Up::LoadedTools(list) => state.chat.loaded_tools.set(list),
        Up::Metrics(m) => state.chat.metrics_overall.set(m),
        Up::SummaryFailures(list) => state.prefs.summary_failures.set(list),
        _ => {}
    }
}

/// The running turn's updates.
fn apply_turn(state: AppState, u: Up) {
    match u {
        Up::Busy(on) => {
            state.chat.busy.set(on);
            if !on {
                state.chat.progress.set(Default::default());
            }
        }
        Up::Sending => super::live::sending(state),
        Up::NotSent(text) => super::live::not_sent(state, text),
        Up::Attachments(list) => state.chat.attachments.set(list),
        Up::Files(list) => state.chat.files.set(list),
        Up::Attached(label) => state.chat.attach_outcome.set(Some((label, None))),
        Up::AttachFailed { label, error } => state.chat.attach_outcome.set(Some((label, Some(error)))),
        Up::Approvals { awaiting, changes } => {
            state.chat.awaiting.set(awaiting);
            state.chat.changes.set(changes);
        }
        Up::Questions(questions) => state.chat.questions.set(questions),
        Up::RemoteStreams(list) => state.chat.remote_streams.set(list),
        _ => {}
    }
}

fn import_text(state: AppState, outcome: ImportOutcome) -> String {
    let t = state.t();
    match outcome {
        ImportOutcome::Done(done) => t.imported.replace("{s}", &done.sessions.to_string()).replace("{m}", &done.messages.to_string()),
        ImportOutcome::Failed(e) => t.import_failed.replace("{e}", &e),
        ImportOutcome::StorageFull => t.err_storage_full.to_owned(),
    }
}

fn notice(state: AppState, n: Notice) {
    let t = state.t();
    match n {
        // Each one said (settings, servers), one after the other.
        Notice::SignInFailed(e) => state.shell.notice.set(Some(t.mcp_sign_in_failed.replace("{e}", &super::oauth::failure_text(state, &e)))),
        Notice::NewTools { server, added } => state.shell.notice.set(Some(t.mcp_new_tools_notice.replace("{s}", &server).replace("{n}", &added.to_string()))),
        Notice::PrefsUnreadable(why) => state.shell.notice.update(|n| *n = Some(n.take().map_or(why.clone(), |before| format!("{before} {why}")))),
        Notice::StoreFellBack(e) => state.shell.notice.set(Some(t.err_open_store.replace("{e}", &e))),
        Notice::PartMissing => super::lazy::report(state, super::lazy::NotFetched),
        Notice::SyncRefused(n) => state.shell.notice.set(Some(t.sync_refused.replace("{n}", &n.to_string()))),
        Notice::HttpToolRefused(why) => super::http_tools::refused(state, why),
        Notice::DownloadFailed(e) => state.shell.notice.set(Some(t.import_failed.replace("{e}", &e))),
        Notice::FileRefused { name, why } => {
            let template = match why {
                Refusal::ImageTooLarge => t.attach_image_too_large,
                Refusal::TooLarge => t.attach_too_large,
                Refusal::NotText => t.attach_not_text,
            };
            state.shell.notice.set(Some(template.replace("{name}", &name)));
        }
        Notice::FileUnreadable { name, error } => state.shell.notice.set(Some(t.attach_failed.replace("{name}", &name).replace("{e}", &error))),
        Notice::Store { op, error } => {
            let template = match op {
                StoreOp::ReadSessions => t.err_read_sessions,
                StoreOp::ReadMessages => t.err_read_messages,
                StoreOp::SaveMessage => t.err_save_message,
                StoreOp::SaveAnswer => t.err_save_answer,
                StoreOp::Replace => t.err_replace,
                StoreOp::Change => t.err_change,
                StoreOp::Export => t.import_failed,
                StoreOp::Delete => t.err_delete,
                StoreOp::Rename => t.err_rename,
                StoreOp::Prefs => t.err_settings,
            };
            state.report(template, &error);
        }
    }
}

/// The store is open: the app reads it, and hears the other tabs.
fn store_ready(state: AppState) {
    let channel = air_web::channel::Channel::open(SYNC_CHANNEL, move |text| {
        if let Some(event) = SyncEvent::parse(&text) {
            dispatch(state, Command::OtherTab(event));
        }
    });
    state.set_channel(channel.map(Rc::new));
}

/// "1.2 MB of 10 GB used. Kept by the browser."
fn storage_line(state: AppState, info: StorageInfo) -> String {
    let t = state.t();
    let mut line = match info.usage {
        Some((used, quota)) => t.storage_usage.replace("{used}", &human(used)).replace("{quota}", &human(quota)),
        None => String::new(),
    };
    line.push(' ');
    line.push_str(if info.persistent { t.storage_persistent } else { t.storage_not_persistent });
    line.trim().to_owned()
}

/// The first screen is there: the page is usable.
fn ready(state: AppState) {
    state.shell.loading.set(false);
    // After the first render of the opened state; with a conversation
    // open, once its view has drawn it (`ChatView`).
    if state.sessions.active.get_untracked().is_none() {
        request_animation_frame(super::state::mark_ready);
    }
}

/// Puts a record in its place (by `seq`), replacing an older copy.
fn upsert_message(list: &mut Vec<air_store::MessageRecord>, record: air_store::MessageRecord) {
    if let Some(x) = list.iter_mut().find(|x| x.id == record.id) {
        *x = record;
        return;
    }
    let pos = list.iter().rposition(|x| x.seq <= record.seq).map_or(0, |p| p + 1);
    list.insert(pos, record);
}

/// A session is deleted for good: what was kept about it goes too.
fn deleted(state: AppState, id: String) {
    state.broadcast(SyncEvent::SessionDeleted { session_id: id });
}

/// A size as people read it.
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
