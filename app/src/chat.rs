//! The composer's side of a turn: its text (the core adds what is
//! attached to the next message), and what the running turn shows live.
//! The turn itself runs in the workspace core (`air_workspace::turn`);
//! this turns the page's actions into its commands.

use air_agent::{Approval, Event, Status};
use air_tools::ElicitAnswer;
use air_workspace::Command;
use air_workspace::turn::Job;
use leptos::prelude::*;

use crate::state::{AppState, Streaming};

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
        Event::ToolProgress { message_id, progress, .. } => state.chat.progress.update(|p| {
            p.insert(message_id, progress);
        }),
        Event::Broadcast(e) => state.broadcast(e),
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

/// Sends the composer's text (with what is attached to the next message)
/// as a new user message and answers it. Nothing to send, or a turn
/// already running, does nothing.
pub fn send(state: AppState, text: String) {
    if state.is_busy() {
        return;
    }
    state.dispatch(Command::Turn(Job::Send(text.trim().to_owned())));
}

/// The core took the message: the composer empties at once (a second
/// Enter cannot send it again).
pub fn sending(state: AppState) {
    state.chat.draft.set(String::new());
}

/// Nothing was saved: the text goes back, unless something new was typed
/// meanwhile (the core gives the attachments back).
pub fn not_sent(state: AppState, text: String) {
    if state.chat.draft.with_untracked(String::is_empty) {
        state.chat.draft.set(text);
    }
}

/// Takes a file off the next message.
pub fn remove_file(state: AppState, key: u32) {
    state.dispatch(Command::RemoveFile(key));
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
