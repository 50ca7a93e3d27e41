//! Sending a message and streaming the answer: the glue between the
//! composer, the store, `fetch` and the reply decoder.

use air_chat::error::{MAX_ATTEMPTS, classify_http};
use air_chat::{ChatError, ReplyStream, Role};
use air_store::conversation::{Checkpoint, TRANSITIVE_THOUGHT, TemplateVars, build_request, build_thought_request};
use air_store::records::next_seq;
use air_store::sync::SyncEvent;
use air_store::{MessageRecord, SessionRecord, Store};
use air_web::{Abort, FetchError, http, new_id, now_ms};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::state::{AppState, Streaming};

/// Sends the composer's text as a new user message and streams the answer.
/// Empty text or a turn already running does nothing.
pub fn send(state: AppState, text: String) {
    let text = text.trim().to_owned();
    if text.is_empty() || state.store().is_none() || !state.begin_turn() {
        return;
    }
    // Cleared at once, so a second Enter cannot send it again.
    state.draft.set(String::new());
    spawn_local(async move {
        match add_user_message(state, &text).await {
            Ok(session_id) => answer(state, session_id, None).await,
            Err(e) => {
                // Nothing was saved: the text goes back into the composer.
                if state.draft.with_untracked(String::is_empty) {
                    state.draft.set(text);
                }
                state.report(state.t().err_save_message, &e);
            }
        }
        state.end_turn();
    });
}

async fn add_user_message(state: AppState, text: &str) -> Result<String, air_store::StoreError> {
    let store = state.store().ok_or_else(|| air_store::StoreError::Unavailable("still opening".into()))?;
    let now = now_ms();
    let active_before = state.active.get_untracked();
    let existing =
        active_before.as_ref().and_then(|id| state.sessions.with_untracked(|l| l.iter().find(|s| &s.id == id).cloned()));
    let mut session = existing.unwrap_or_else(|| SessionRecord::new(new_id(), now));
    session.auto_title(text);
    session.updated_at = now;
    let last = state.messages.with_untracked(|m| m.last().map(|m| m.seq));
    let user = MessageRecord::new(new_id(), session.id.clone(), next_seq(last, now), Role::User, text);
    store.put_session(&session).await?;
    store.put_message(&user).await?;
    let id = session.id.clone();
    state.upsert_session(session);
    // If the user opened another session meanwhile, stay there: the
    // message is stored and the answer goes to its own session.
    if state.active.get_untracked() == active_before {
        if active_before.as_deref() != Some(id.as_str()) {
            state.active.set(Some(id.clone()));
        }
        state.messages.update(|m| m.push(user));
    }
    state.broadcast(SyncEvent::SessionChanged { session_id: id.clone() });
    Ok(id)
}

fn template_vars() -> TemplateVars {
    let (date, time) = air_web::local_date_time();
    TemplateVars { date, time, locale: air_web::locale() }
}

/// What ended the stream.
enum Outcome {
    Finished,
    Stopped,
    Failed(String),
}

/// Streams an answer to the messages of `session_id` as they are now. With
/// `resume`, the answer continues that (partial, last) assistant message
/// instead of starting a new one. With Transitive Thinking on, a reasoning
/// chain is streamed and stored first, and the answer is given it.
pub async fn answer(state: AppState, session_id: String, resume: Option<MessageRecord>) {
    if state.stop_requested() {
        return;
    }
    let settings = state.settings.get_untracked();
    let vars = template_vars();
    let new_record = |kind: Option<&str>| {
        let last = state.messages.with_untracked(|m| m.last().map(|m| m.seq));
        let mut r = MessageRecord::new(new_id(), session_id.clone(), next_seq(last, now_ms()), Role::Assistant, "");
        r.kind = kind.map(str::to_owned);
        r
    };
    let (record, prefix) = match resume {
        Some(r) => {
            state.messages.update(|m| m.retain(|x| x.id != r.id));
            let prefix = r.content.clone();
            (r, prefix)
        }
        None => {
            if settings.transitive_thinking {
                let history = full_history(state, &session_id, None).await;
                let request = build_thought_request(&settings, &history, &vars);
                let thought = new_record(Some(TRANSITIVE_THOUGHT));
                if !run(state, &session_id, &settings, request, thought, String::new()).await || state.stop_requested() {
                    return;
                }
            }
            (new_record(None), String::new())
        }
    };
    let history = full_history(state, &session_id, Some(&record.id)).await;
    let request = build_request(&settings, &history, &vars);
    run(state, &session_id, &settings, request, record, prefix).await;
}

/// Everything stored for the session (not just the loaded page, and
/// including what other tabs wrote), for the request.
/// An answer still streaming in another tab (incomplete, and not shown here)
/// is left out; `keep` names one that is wanted anyway (the one resumed).
async fn full_history(state: AppState, session_id: &str, keep: Option<&str>) -> Vec<MessageRecord> {
    let loaded = state.messages.get_untracked();
    match state.store() {
        Some(store) => match store.messages(session_id).await {
            Ok(all) => {
                let remote = state.remote_streams.get_untracked();
                all.into_iter()
                    .filter(|m| {
                        Some(m.id.as_str()) == keep
                            || (!remote.contains(&m.id) && (!m.incomplete || loaded.iter().any(|l| l.id == m.id)))
                    })
                    .collect()
            }
            Err(_) => loaded,
        },
        None => loaded,
    }
}

/// Streams one request into `record` (after `prefix`), checkpointing as it
/// goes, then stores and shows the result. Returns whether it finished
/// without error or Stop.
async fn run(
    state: AppState,
    session_id: &str,
    settings: &air_store::Settings,
    request: air_chat::ChatRequest,
    mut record: MessageRecord,
    prefix: String,
) -> bool {
    let Some(store) = state.store() else { return false };
    let reasoning_prefix = record.reasoning.clone().unwrap_or_default();
    let earlier_calls = std::mem::take(&mut record.tool_calls);
    record.model = Some(settings.model.clone());
    record.incomplete = true;
    record.stopped = false;
    record.error = None;
    record.finish = None;
    let _ = store.put_message(&record).await;
    state.broadcast(SyncEvent::Streaming { session_id: session_id.to_owned(), message_id: record.id.clone(), active: true });
    state.streaming.set(Some(Streaming {
        session_id: session_id.to_owned(),
        message_id: record.id.clone(),
        model: settings.model.clone(),
        text: prefix.clone(),
        thought: record.kind.is_some(),
        ..Default::default()
    }));

    let url = settings.chat_url();
    let mut headers = vec![("Accept", "text/event-stream".to_owned())];
    headers.extend(crate::provider::auth_header(settings));
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();

    let mut reply = ReplyStream::new();
    let outcome = match Abort::new() {
        Ok(abort) => {
            state.set_abort(Some(abort.clone()));
            let outcome =
                stream(state, &store, &url, &headers, &request.to_json(), &abort, &mut reply, &mut record, &prefix).await;
            state.set_abort(None);
            outcome
        }
        Err(e) => Outcome::Failed(e.to_string()),
    };

    let r = reply.into_reply();
    record.content = format!("{prefix}{}", r.content);
    let reasoning = format!("{reasoning_prefix}{}", r.reasoning);
    record.reasoning = (!reasoning.is_empty()).then_some(reasoning);
    record.usage = r.usage.clone();
    if let Some(model) = &r.model {
        record.model = Some(model.clone());
    }
    record.tool_calls = earlier_calls;
    record.tool_calls.extend(r.finished_tool_calls());
    record.finish = r.finish.clone();
    record.incomplete = false;
    let ok = match outcome {
        Outcome::Finished => match &r.error {
            Some(e) => {
                record.error = Some(ChatError::Provider(e.clone()).message(state.chat_lang()));
                false
            }
            // The body ended with neither `[DONE]` nor a finish reason: the
            // connection dropped. Keep the text and offer Continue.
            None if !r.done && r.finish.is_none() => {
                let e = ChatError::Interrupted(state.t().body_ended.to_owned());
                record.error = Some(e.message(state.chat_lang()));
                false
            }
            None => true,
        },
        Outcome::Stopped => {
            record.stopped = true;
            false
        }
        Outcome::Failed(msg) => {
            let hint = if settings.is_local_default() && record.content.is_empty() { state.t().local_model_down } else { "" };
            record.error = Some(format!("{msg}{hint}"));
            false
        }
    };
    if let Err(e) = store.put_message(&record).await {
        state.report(state.t().err_save_answer, &e);
    }
    // A session the user just deleted (undo still possible) stays hidden.
    let deleted = state.pending_delete.with_untracked(|p| p.as_ref().is_some_and(|p| p.id == session_id));
    if let (false, Ok(Some(mut session))) = (deleted, store.get_session(session_id).await) {
        session.updated_at = now_ms();
        let _ = store.put_session(&session).await;
        state.upsert_session(session);
    }
    let record_id = record.id.clone();
    if state.active.get_untracked().as_deref() == Some(session_id) {
        state.messages.update(|m| {
            // The checkpoint may be on screen already (session reopened mid-stream).
            m.retain(|x| x.id != record.id);
            m.push(record);
        });
    }
    state.streaming.set(None);
    state.broadcast(SyncEvent::Streaming { session_id: session_id.to_owned(), message_id: record_id, active: false });
    ok
}

#[allow(clippy::too_many_arguments)]
async fn stream(
    state: AppState,
    store: &crate::store::AnyStore,
    url: &str,
    headers: &[(&str, &str)],
    body: &str,
    abort: &Abort,
    reply: &mut ReplyStream,
    record: &mut MessageRecord,
    prefix: &str,
) -> Outcome {
    let mut attempt = 1;
    let response = loop {
        let error = match http::send("POST", url, headers, Some(body), Some(abort)).await {
            Ok(r) if r.ok() => break r,
            Ok(r) => {
                let status = r.status;
                let retry_after = r.header("retry-after");
                let text = r.text().await.unwrap_or_default();
                classify_http(status, &text, retry_after.as_deref())
            }
            Err(FetchError::Aborted) => return Outcome::Stopped,
            Err(FetchError::Network(detail)) => crate::provider::network_error(url, detail).await,
            Err(e) => return Outcome::Failed(e.to_string()),
        };
        if abort.is_aborted() {
            return Outcome::Stopped;
        }
        let lang = state.chat_lang();
        let Some(wait_ms) = error.retry_delay_ms(attempt) else { return Outcome::Failed(error.message(lang)) };
        attempt += 1;
        let retry = state
            .t()
            .retrying
            .replace("{s}", &wait_ms.div_ceil(1000).to_string())
            .replace("{n}", &attempt.to_string())
            .replace("{max}", &MAX_ATTEMPTS.to_string());
        let status = format!("{} {retry}", error.message(lang));
        state.streaming.update(|s| {
            if let Some(s) = s {
                s.status = Some(status);
            }
        });
        // Wait in small steps so Stop still works.
        let mut waited = 0;
        while waited < wait_ms {
            air_web::sleep(100).await;
            waited += 100;
            if abort.is_aborted() {
                return Outcome::Stopped;
            }
        }
    };
    state.streaming.update(|s| {
        if let Some(s) = s {
            s.status = None;
        }
    });
    let mut body = match response.body() {
        Ok(b) => b,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let reasoning_prefix = record.reasoning.clone().unwrap_or_default();
    let mut checkpoint = Checkpoint::default();
    checkpoint.due(now_ms());
    let (mut shown_text, mut shown_reasoning) = (0, 0);
    let outcome = loop {
        match body.next().await {
            Ok(Some(bytes)) => {
                if reply.feed(&bytes) == 0 {
                    continue;
                }
            }
            Ok(None) => break Outcome::Finished,
            Err(FetchError::Aborted) => break Outcome::Stopped,
            Err(e) => {
                break Outcome::Failed(ChatError::Interrupted(e.to_string()).message(state.chat_lang()));
            }
        }
        let r = reply.reply();
        state.streaming.update(|s| {
            if let Some(s) = s {
                s.text.push_str(&r.content[shown_text..]);
                s.reasoning.push_str(&r.reasoning[shown_reasoning..]);
                if let Some(m) = &r.model {
                    if &s.model != m {
                        s.model = m.clone();
                    }
                }
            }
        });
        (shown_text, shown_reasoning) = (r.content.len(), r.reasoning.len());
        if r.error.is_some() {
            break Outcome::Finished;
        }
        if checkpoint.due(now_ms()) {
            record.content = format!("{prefix}{}", r.content);
            let reasoning = format!("{reasoning_prefix}{}", r.reasoning);
            record.reasoning = (!reasoning.is_empty()).then_some(reasoning);
            let _ = store.put_message(record).await;
            // Also a heartbeat: other tabs know this answer is still alive.
            state.broadcast(SyncEvent::Streaming {
                session_id: record.session_id.clone(),
                message_id: record.id.clone(),
                active: true,
            });
        }
    };
    reply.finish();
    if abort.is_aborted() { Outcome::Stopped } else { outcome }
}

/// Removes `from` and every later message of the active session, in the
/// store and on screen.
async fn truncate_from(state: AppState, from: &str) -> Result<(), air_store::StoreError> {
    let store = state.store().ok_or_else(|| air_store::StoreError::Unavailable("still opening".into()))?;
    let doomed: Vec<String> = state.messages.with_untracked(|m| {
        m.iter().skip_while(|x| x.id != from).map(|x| x.id.clone()).collect()
    });
    for id in &doomed {
        store.delete_message(id).await?;
    }
    state.messages.update(|m| m.retain(|x| !doomed.contains(&x.id)));
    Ok(())
}

/// Replaces an answer with a new one (and drops anything after it).
pub fn regenerate(state: AppState, message_id: String) {
    let Some(session_id) = state.active.get_untracked() else { return };
    // A thought made for this answer goes with it.
    let from = state.messages.with_untracked(|m| {
        let i = m.iter().position(|x| x.id == message_id)?;
        let prev = i.checked_sub(1).and_then(|p| m.get(p));
        Some(match prev {
            Some(p) if p.kind.as_deref() == Some(TRANSITIVE_THOUGHT) => p.id.clone(),
            _ => message_id.clone(),
        })
    });
    let Some(message_id) = from else { return };
    if !state.begin_turn() {
        return;
    }
    spawn_local(async move {
        match truncate_from(state, &message_id).await {
            Ok(()) => answer(state, session_id, None).await,
            Err(e) => state.report(state.t().err_replace, &e),
        }
        state.end_turn();
    });
}

/// Continues an answer that was cut off (reload, Stop, token limit).
pub fn continue_answer(state: AppState, message_id: String) {
    let Some(session_id) = state.active.get_untracked() else { return };
    let Some(record) = state.messages.with_untracked(|m| m.iter().find(|x| x.id == message_id).cloned()) else { return };
    if !state.begin_turn() {
        return;
    }
    spawn_local(async move {
        answer(state, session_id, Some(record)).await;
        state.end_turn();
    });
}

/// Changes a user message, drops everything after it and asks again.
pub fn edit_and_resend(state: AppState, message_id: String, text: String) {
    let text = text.trim().to_owned();
    let Some(session_id) = state.active.get_untracked() else { return };
    if text.is_empty() {
        return;
    }
    let Some(mut record) = state.messages.with_untracked(|m| m.iter().find(|x| x.id == message_id).cloned()) else { return };
    let Some(store) = state.store() else { return };
    if !state.begin_turn() {
        return;
    }
    spawn_local(async move {
        let next = state.messages.with_untracked(|m| {
            m.iter().skip_while(|x| x.id != message_id).nth(1).map(|x| x.id.clone())
        });
        record.content = text;
        record.timestamp = now_ms();
        let result = async {
            store.put_message(&record).await?;
            if let Some(next) = next {
                truncate_from(state, &next).await?;
            }
            Ok::<_, air_store::StoreError>(())
        }
        .await;
        match result {
            Ok(()) => {
                state.messages.update(|m| {
                    if let Some(x) = m.iter_mut().find(|x| x.id == record.id) {
                        *x = record.clone();
                    }
                });
                answer(state, session_id, None).await;
            }
            Err(e) => state.report(state.t().err_change, &e),
        }
        state.end_turn();
    });
}
