//! The composer's side of a turn: what a message sends (its text, the
//! context of its text files, its images; the core adds the attached
//! resources), the files attached to it, and what the running turn shows
//! live. The turn itself
//! runs in the workspace core (`air_workspace::turn`); this turns the
//! page's actions into its commands.

use std::cell::RefCell;
use std::collections::HashMap;

use air_agent::{Approval, Event, Status};
use air_store::files::{Attached, Refusal};
use air_tools::ElicitAnswer;
use air_workspace::Command;
use air_workspace::turn::Job;
use futures_util::future::LocalBoxFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::state::{AppState, LocalFile, LocalKind, Streaming};

/// Answers the question a running call asked on its card.
pub fn answer_question(state: AppState, record_id: &str, answer: ElicitAnswer) {
    state.dispatch(Command::AnswerQuestion { record: record_id.to_owned(), answer });
}

/// Answers the approval question of a tool card.
pub fn answer_approval(state: AppState, record_id: &str, approval: Approval) {
    state.dispatch(Command::Approve { record: record_id.to_owned(), approval });
}

/// What a running turn shows live (its records arrive as messages).
pub fn show(state: AppState, event: Event) {
    match event {
        started @ Event::StreamStarted { .. } => stream_started(state, started),
        Event::StreamDelta { text, reasoning } => {
            let waiting = state.chat.streaming.try_update(|s| {
                let s = s.as_mut()?;
                s.text_len += text.len();
                s.reasoning_len += reasoning.len();
                append(&mut s.text_new, text);
                append(&mut s.reasoning_new, reasoning);
                Some(s.text_new.len().max(s.reasoning_new.len()))
            });
            // Arriving faster than frames come: drawn now, not held.
            if waiting.flatten().is_some_and(|n| n >= DRAW_AT) {
                crate::state::draw_now(state);
            }
        }
        Event::StreamModel(model) => state.chat.streaming.update(|s| {
            if let Some(s) = s {
                s.model = model;
            }
        }),
        Event::StreamStatus(status) => {
            let line = status.map(|Status::Retrying { message, wait_ms, attempt, max }| {
                let retry = state
                    .t()
                    .retrying
                    .replace("{s}", &wait_ms.div_ceil(1000).to_string())
                    .replace("{n}", &attempt.to_string())
                    .replace("{max}", &max.to_string());
                format!("{message} {retry}")
            });
            state.chat.streaming.update(|s| {
                if let Some(s) = s {
                    s.status = line;
                }
            });
        }
        // The saved record follows: the live view stays as it is until then
        // (it shows what it rendered; the saved message renders the rest).
        Event::StreamEnded { message_id, .. } => state.chat.streaming.update_untracked(|s| {
            if let Some(s) = s.as_mut().filter(|s| s.message_id == message_id) {
                (s.text_new, s.reasoning_new) = (String::new(), String::new());
            }
        }),
        Event::ToolCallingLearnt { key, calling } => {
            let mut settings = state.prefs.settings.get_untracked();
            settings.probed_tool_calling.insert(key, calling);
            state.save_settings(settings);
        }
        Event::VisionLearnt { key, vision } => {
            let mut settings = state.prefs.settings.get_untracked();
            settings.vision.insert(key, vision);
            state.save_settings(settings);
        }
        Event::ToolProgress { message_id, progress, .. } => state.chat.progress.update(|p| {
            p.insert(message_id, progress);
        }),
        Event::Broadcast(e) => state.broadcast(e),
        Event::SessionCreated(session) => {
            // The new chat's server and assistant choice is now this session's.
            state.update_mcp_chat(|c| c.started(&session.id));
            state.update_assistants(|a| a.started(&session.id));
        }
        // The core handles the rest.
        _ => {}
    }
}

/// An answer starts streaming: it is drawn live from now on.
fn stream_started(state: AppState, event: Event) {
    let Event::StreamStarted { session_id, message_id, model, thought, text, reasoning } = event else { return };
    let run = RUNS.with(|r| {
        r.set(r.get().wrapping_add(1));
        r.get()
    });
    state.chat.streaming.set(Some(Streaming {
        run,
        session_id,
        message_id,
        model,
        text_len: text.len(),
        reasoning_len: reasoning.len(),
        text_new: text,
        reasoning_new: reasoning,
        status: None,
        thought,
    }));
}

/// Sends the composer's text (with its attachments and files) as a new
/// user message and answers it. Nothing to send, or a turn already
/// running, does nothing.
pub fn send(state: AppState, text: String) {
    if state.is_busy() {
        return;
    }
    let text = text.trim().to_owned();
    let files = state.chat.files.get_untracked();
    // Text files go after the text (and the attached resources), as context.
    let context = files
        .iter()
        .filter_map(|f| match &f.kind {
            LocalKind::Text { block, .. } => Some(block.as_str()),
            LocalKind::Image { .. } => None,
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    let images = files
        .iter()
        .filter_map(|f| match &f.kind {
            LocalKind::Image { mime, bytes, .. } => Some(air_agent::NewFile { name: f.name.clone(), mime: mime.clone(), bytes: bytes.to_vec() }),
            LocalKind::Text { .. } => None,
        })
        .collect();
    state.chat.sending.set_value(Some(files));
    state.dispatch(Command::Turn(Job::Send { text, context, images }));
}

/// The core took the message: the composer empties at once (a second
/// Enter cannot send it again).
pub fn sending(state: AppState) {
    state.chat.draft.set(String::new());
    state.chat.files.set(Vec::new());
}

/// The message was saved: its files' previews go.
pub fn sent(state: AppState) {
    if let Some(files) = state.chat.sending.try_update_value(Option::take).flatten() {
        forget_files(&files);
    }
}

/// Nothing was saved: the text and the files go back, unless something
/// new was typed meanwhile (the core gives the resources back).
pub fn not_sent(state: AppState, text: String) {
    let Some(files) = state.chat.sending.try_update_value(Option::take).flatten() else { return };
    if state.chat.draft.with_untracked(String::is_empty) {
        state.chat.draft.set(text);
        state.chat.files.set(files);
    } else {
        forget_files(&files);
    }
}

/// Attaches files to the next message: images as they are, text files as
/// text (cut at a limit); anything else is refused with why. The reading
/// is a part of its own, fetched with the first file.
pub fn attach_files(state: AppState, files: Vec<leptos::web_sys::File>) {
    if files.is_empty() {
        return;
    }
    spawn_local(async move {
        match read_files(state, files).await {
            Ok(reading) => reading.await,
            Err(missing) => crate::lazy::report(state, missing),
        }
    });
}

#[crate::lazy::split(read_files, wasm_split_path = ::leptos::wasm_split, fallible)]
fn read_files(state: AppState, files: Vec<leptos::web_sys::File>) -> Result<LocalBoxFuture<'static, ()>, crate::lazy::Missing> {
    Ok(Box::pin(async move {
        for file in files {
            let name = file.name();
            let mut picked = match air_web::read_file(&file).await {
                Ok(p) => p,
                Err(e) => {
                    state.shell.notice.set(Some(state.t().attach_failed.replace("{name}", &name).replace("{e}", &e)));
                    continue;
                }
            };
            // A large image is drawn again at most MAX_IMAGE_SIDE pixels
            // on its longer side: that is what is stored and sent.
            let mut scaled = None;
            if air_store::files::IMAGE_TYPES.contains(&picked.mime.to_ascii_lowercase().as_str()) {
                match air_web::scale_image(&picked.bytes, &picked.mime, air_store::files::MAX_IMAGE_SIDE).await {
                    Ok(Some(image)) => {
                        scaled = Some(image.from);
                        picked.bytes = image.bytes;
                        picked.mime = image.mime;
                    }
                    Ok(None) => {}
                    Err(e) => {
                        state.shell.notice.set(Some(state.t().attach_failed.replace("{name}", &name).replace("{e}", &e)));
                        continue;
                    }
                }
            }
            let size = picked.bytes.len() as u64;
            let kind = match air_store::files::classify(&picked.name, &picked.mime, &picked.bytes) {
                Attached::Image => {
                    let url = air_web::bytes_blob(&picked.bytes, &picked.mime).ok().and_then(|b| air_web::blob_url(&b)).unwrap_or_default();
                    LocalKind::Image { mime: picked.mime.to_ascii_lowercase(), bytes: std::sync::Arc::new(picked.bytes), url, scaled }
                }
                Attached::Text { block, cut } => LocalKind::Text { block, cut },
                Attached::Refused(why) => {
                    let t = state.t();
                    let template = match why {
                        Refusal::ImageTooLarge => t.attach_image_too_large,
                        Refusal::TooLarge => t.attach_too_large,
                        Refusal::NotText => t.attach_not_text,
                    };
                    state.shell.notice.set(Some(template.replace("{name}", &name)));
                    continue;
                }
            };
            state.chat.files.update(|list| {
                let key = list.iter().map(|f| f.key + 1).max().unwrap_or(0);
                list.push(LocalFile { key, name: picked.name, size, kind });
            });
        }
    }))
}

thread_local! {
    /// Object URLs of stored images already shown, by file id (a message
    /// drawn again shows its images at once).
    static FILE_URLS: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
}

/// Gives `done` an object URL for the stored file `id`, or `None` when it
/// is not stored.
pub fn file_url(state: AppState, id: String, done: impl Fn(Option<String>) + 'static) {
    if let Some(url) = FILE_URLS.with(|m| m.borrow().get(&id).cloned()) {
        return done(Some(url));
    }
    let Some(store) = state.store() else { return done(None) };
    spawn_local(async move {
        let url = store.file_url(&id).await;
        if let Some(u) = &url {
            FILE_URLS.with(|m| m.borrow_mut().insert(id, u.clone()));
        }
        done(url);
    });
}

/// Takes a file off the next message.
pub fn remove_file(state: AppState, key: u32) {
    let mut gone = Vec::new();
    state.chat.files.update(|list| list.retain(|f| if f.key == key { gone.push(f.clone()); false } else { true }));
    forget_files(&gone);
}

/// Lets the browser free the previews of files no longer in the composer.
fn forget_files(files: &[LocalFile]) {
    for f in files {
        if let LocalKind::Image { url, .. } = &f.kind {
            air_web::revoke_url(url);
        }
    }
}

/// Replaces an answer with a new one (and drops anything after it).
pub fn regenerate(state: AppState, message_id: String) {
    state.dispatch(Command::Turn(Job::Regenerate(message_id)));
}

/// Continues an answer that was cut off (reload, Stop, token limit).
pub fn continue_answer(state: AppState, message_id: String) {
    state.dispatch(Command::Turn(Job::Continue(message_id)));
}

/// Changes a user message, drops everything after it and asks again.
pub fn edit_and_resend(state: AppState, message_id: String, text: String) {
    state.dispatch(Command::Turn(Job::Edit { message: message_id, text }));
}

/// Picks up the tool round a closed tab left unfinished: asks its approval
/// questions again, runs interrupted calls again, and lets the answer go on.
pub fn resume_tools(state: AppState) {
    state.dispatch(Command::Turn(Job::Resume));
}

/// What of the streaming answer may wait for the next frame; more is
/// drawn at once (a fast server's answer would otherwise be held twice
/// until a frame comes).
const DRAW_AT: usize = 64 * 1024;

thread_local! {
    /// Streams started in this page (see [`Streaming::run`]).
    static RUNS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// `to += piece`, taking the piece itself when `to` is empty.
fn append(to: &mut String, piece: String) {
    if to.is_empty() {
        *to = piece;
    } else {
        to.push_str(&piece);
    }
}
