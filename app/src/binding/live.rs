//! What a running turn shows live (`Platform::show_live`): the streaming
//! answer's text as it arrives, its status and model, a call's progress;
//! and the composer's text as the core takes or gives back a message.

use air_agent::{Event, Status};
use leptos::prelude::*;

use super::state::{AppState, Streaming};

/// What a running turn shows live (its records arrive as messages).
pub(super) fn show(state: AppState, event: Event) {
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
                super::state::draw_now(state);
            }
        }
        Event::StreamModel(model) => state.chat.streaming.update(|s| {
            if let Some(s) = s {
                s.model = model;
            }
        }),
        Event::StreamStatus(status) => {
            let line = status.map(|Status::Retrying { message, wait_ms, attempt, max }| {
                let retry = state.t().retrying.replace("{s}", &wait_ms.div_ceil(1000).to_string()).replace("{n}", &attempt.to_string()).replace("{max}", &max.to_string());
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

/// The core took the message: the composer empties at once (a second
/// Enter cannot send it again).
pub(super) fn sending(state: AppState) {
    state.chat.draft.set(String::new());
}

/// Nothing was saved: the text goes back, unless something new was typed
/// meanwhile (the core gives the attachments back).
pub(super) fn not_sent(state: AppState, text: String) {
    if state.chat.draft.with_untracked(String::is_empty) {
        state.chat.draft.set(text);
    }
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
