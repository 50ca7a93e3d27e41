//! Starting turns from the UI, and the translation of a turn's events into
//! signals. The turn itself lives in `air-agent`; the browser it runs in is
//! [`BrowserEnv`].

use std::rc::Rc;

use std::cell::RefCell;
use std::collections::HashMap;

use air_agent::{Approval, Env, Event, Status, ToolMode, Turn};
use air_http::Abort;
use air_store::conversation::TemplateVars;
use air_store::files::{Attached, Refusal};
use air_store::settings::ToolCalling;
use air_store::{MessageRecord, StoreError};
use air_tools::{ElicitAnswer, Elicitation, ToolDef};
use air_tools::policy::Policy;
use futures_channel::oneshot;
use futures_util::future::LocalBoxFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::env;
use crate::state::{AppState, LocalFile, LocalKind, Streaming};
use crate::store::AnyStore;

/// The browser as a turn sees it.
pub struct BrowserEnv {
    state: AppState,
    store: Rc<AnyStore>,
    http: env::Http,
}

thread_local! {
    /// Approvals being waited for, by tool message id.
    static APPROVALS: RefCell<HashMap<String, oneshot::Sender<Approval>>> = RefCell::new(HashMap::new());
}

thread_local! {
    /// Questions of running calls being waited for, by tool message id.
    static QUESTIONS: RefCell<HashMap<String, oneshot::Sender<ElicitAnswer>>> = RefCell::new(HashMap::new());
}

/// Answers the question a running call asked on its card.
pub fn answer_question(state: AppState, record_id: &str, answer: ElicitAnswer) {
    if let Some(tx) = QUESTIONS.with(|q| q.borrow_mut().remove(record_id)) {
        let _ = tx.send(answer);
    }
    state.chat.questions.update(|q| q.retain(|(id, _)| id != record_id));
}

/// Answers the approval question of a tool card.
pub fn answer_approval(state: AppState, record_id: &str, approval: Approval) {
    if let Some(tx) = APPROVALS.with(|a| a.borrow_mut().remove(record_id)) {
        let _ = tx.send(approval);
    }
    state.chat.awaiting.update(|ids| ids.retain(|id| id != record_id));
    state.chat.changes.update(|c| c.retain(|(id, ..)| id != record_id));
}

impl BrowserEnv {
    pub fn new(state: AppState, store: Rc<AnyStore>) -> Self {
        Self { state, store, http: env::Http::default() }
    }
}

impl Env for BrowserEnv {
    type Http = env::Http;
    type Store = AnyStore;

    fn http(&self) -> &env::Http {
        &self.http
    }
    fn store(&self) -> &AnyStore {
        &self.store
    }
    fn now_ms(&self) -> f64 {
        env::now_ms()
    }
    fn new_id(&self) -> String {
        env::new_id()
    }
    async fn sleep(&self, ms: u64) {
        env::sleep(ms).await;
    }
    fn template_vars(&self) -> TemplateVars {
        let (date, time) = env::local_date_time();
        TemplateVars { date, time, locale: env::locale() }
    }
    fn emit(&self, event: Event) {
        apply(self.state, event);
    }
    fn in_history(&self, m: &MessageRecord) -> bool {
        // An answer still streaming in another tab (incomplete, and not
        // shown here) is not part of the conversation yet.
        let remote = self.state.chat.remote_streams.with_untracked(|r| r.contains(&m.id));
        !remote && (!m.incomplete || self.state.chat.messages.with_untracked(|l| l.iter().any(|l| l.id == m.id)))
    }
    fn is_deleted(&self, session_id: &str) -> bool {
        self.state.sessions.pending_delete.with_untracked(|p| p.as_ref().is_some_and(|p| p.id == session_id))
    }
    async fn approve(&self, record: &MessageRecord, tool: &ToolDef) -> Approval {
        let (tx, rx) = oneshot::channel();
        // Asked because the server changed it since the user said yes: the card shows what changed.
        if self.state.prefs.settings.with_untracked(|s| s.tool_policies.changed(tool)) {
            let old = tool.mcp.as_ref().and_then(|m| m.accepted.clone());
            self.state.chat.changes.update(|c| c.push((record.id.clone(), old, air_tools::face::Face::of(tool))));
        }
        APPROVALS.with(|a| a.borrow_mut().insert(record.id.clone(), tx));
        self.state.chat.awaiting.update(|ids| ids.push(record.id.clone()));
        rx.await.unwrap_or(Approval::Deny)
    }
    async fn elicit(&self, record: &MessageRecord, _tool: &ToolDef, request: Elicitation) -> ElicitAnswer {
        let (tx, rx) = oneshot::channel();
        QUESTIONS.with(|q| q.borrow_mut().insert(record.id.clone(), tx));
        self.state.chat.questions.update(|q| q.push((record.id.clone(), request)));
        // Dropped unanswered (Stop, the tab's turn ended): cancelled.
        let answer = rx.await.unwrap_or(ElicitAnswer::Cancel);
        self.state.chat.questions.update(|q| q.retain(|(id, _)| id != &record.id));
        answer
    }
    fn always_allow(&self, tool: &ToolDef) {
        let mut settings = self.state.prefs.settings.get_untracked();
        settings.tool_policies.set(tool, Some(Policy::Allow));
        self.state.save_settings(settings);
        // Allowed as it is now: that is the definition the user accepts.
        if let (Some(m), air_tools::ToolSource::Mcp { server }) = (&tool.mcp, &tool.source)
            && m.accepted.is_some()
        {
            crate::mcp::accept_tool(self.state, server, &m.tool, None);
        }
    }
}



/// What a turn's events change on screen.
fn apply(state: AppState, event: Event) {
    let active = state.sessions.active.get_untracked();
    let here = |session_id: &str| active.as_deref() == Some(session_id);
    match event {
        Event::SessionCreated(session) => {
            let id = session.id.clone();
            state.upsert_session(session);
            // The new chat's server choice is now this session's.
            state.update_mcp_chat(|c| c.started(&id));
            state.update_assistants(|a| a.started(&id));
            // The user is still on the session creator: the new session opens.
            state.dispatch(air_workspace::Command::SessionCreated(id));
        }
        Event::SessionSaved(session) => {
            state.upsert_session(session);
        }
        Event::MessageSaved(record) => {
            // The finished answer replaces its live view in the same update,
            // so it never shows twice.
            if state.chat.streaming.with_untracked(|s| s.as_ref().is_some_and(|s| s.message_id == record.id)) {
                state.chat.streaming.set(None);
            }
            state.dispatch(air_workspace::Command::MessageSaved(record));
        }
        Event::MessagesRemoved { session_id, ids } => {
            if here(&session_id) {
                state.dispatch(air_workspace::Command::MessagesRemoved(ids));
            }
        }
        Event::StreamStarted { session_id, message_id, model, thought, text, reasoning } => {
            // A continued answer is shown live instead of as its record.
            state.dispatch(air_workspace::Command::MessagesRemoved(vec![message_id.clone()]));
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
        Event::StoreFailed { what, error } => {
            let t = state.t();
            let template = match what {
                "read" => t.err_read_messages,
                _ => t.err_save_answer,
            };
            state.report(template, &error);
        }
    }
}

/// What a turn is asked to do.
enum Job {
    /// A new user message: the text, the context after it (attached
    /// resources and text files) and the composer's files.
    Send { text: String, context: String, attached: Vec<crate::state::Attachment>, files: Vec<LocalFile>, composer: bool },
    Regenerate { session_id: String, message_id: String },
    Continue { session_id: String, message_id: String },
    Edit { session_id: String, message_id: String, text: String },
    Resume { session_id: String },
}

/// Runs a turn in the background: one at a time per tab; Stop aborts it.
fn start(state: AppState, job: Job) {
    let Some(store) = state.store() else { return };
    let Some(abort) = state.begin_turn() else { return };
    let env = Rc::new(BrowserEnv::new(state, store));
    spawn_local(async move {
        match run(env, abort, job).await {
            Ok(turn) => turn.await,
            Err(missing) => crate::lazy::report(state, missing),
        }
        state.end_turn();
    });
}

/// Fetches the turn's part ahead of the first message (its text is being
/// typed); a part already here costs nothing.
pub fn warm_turn() {
    leptos::task::spawn_local(async {
        let _ = __wasm_split_preload_run().await;
    });
}

/// The turn itself, with the agent loop, the tools and the MCP clients:
/// fetched with the first message, not with the first screen.
#[crate::lazy::split(turn, wasm_split_path = ::leptos::wasm_split, fallible)]
fn run(env: Rc<BrowserEnv>, abort: Abort, job: Job) -> Result<LocalBoxFuture<'static, ()>, crate::lazy::Missing> {
    Ok(Box::pin(async move {
        let state = env.state;
        let (tools, offer) = crate::dynamic::turn_tools(state).await;
        let turn = turn(&env, abort, &tools).with_offer(offer);
        match job {
            Job::Send { text, context, attached, files, composer } => {
                let session = state.sessions.active.get_untracked();
                let images = files
                    .iter()
                    .filter_map(|f| match &f.kind {
                        LocalKind::Image { mime, bytes, .. } => Some(air_agent::NewFile { name: f.name.clone(), mime: mime.clone(), bytes: bytes.to_vec() }),
                        LocalKind::Text { .. } => None,
                    })
                    .collect();
                match turn.send_with_files(session, &text, &context, images).await {
                    // Sent: their changes no longer matter.
                    Ok(_) => {
                        crate::mcp::release(state, &attached);
                        forget_files(&files);
                    }
                    Err(e) => {
                        // Nothing was saved: the text and attachments go back.
                        if state.chat.draft.with_untracked(String::is_empty) {
                            state.chat.draft.set(text);
                            state.chat.attachments.set(attached);
                            state.chat.files.set(files);
                        } else if !composer {
                            state.chat.attachments.set(attached);
                        }
                        state.report(state.t().err_save_message, &e);
                    }
                }
            }
            Job::Regenerate { session_id, message_id } => {
                report_err(state, |t| t.err_replace, turn.regenerate(&session_id, &message_id).await);
            }
            Job::Continue { session_id, message_id } => {
                report_err(state, |t| t.err_replace, turn.continue_answer(&session_id, &message_id).await);
            }
            Job::Edit { session_id, message_id, text } => {
                report_err(state, |t| t.err_change, turn.edit_and_resend(&session_id, &message_id, &text).await);
            }
            Job::Resume { session_id } => {
                report_err(state, |t| t.err_read_messages, turn.resume_tools(&session_id).await);
            }
        }
    }))
}

/// A turn for the current settings and tools.
fn turn<'a>(env: &'a BrowserEnv, abort: Abort, tools: &'a air_tools::Registry) -> Turn<'a, BrowserEnv> {
    let state = env.state;
    // The chat's assistant, if any, over the user's settings.
    let settings = state.turn_settings();
    let mode = match (settings.tools_enabled, settings.tool_calling) {
        (false, _) => ToolMode::Off,
        (true, ToolCalling::Auto) => ToolMode::Auto,
        (true, ToolCalling::Native) => ToolMode::Native,
        (true, ToolCalling::Prompt) => ToolMode::Prompt,
    };
    let policies = settings.tool_policies.clone();
    Turn::new(env, settings, tools, abort, state.chat_lang()).with_mode(mode).with_policies(policies)
}

/// Sends the composer's text as a new user message and answers it. Empty
/// text or a turn already running does nothing.
pub fn send(state: AppState, text: String) {
    send_from(state, text, true);
}

/// Sends `text` as the user's next message, with the attachments. From the
/// composer, its draft is cleared (and given back if nothing was saved);
/// otherwise (a message an MCP App sends) the draft is left alone.
pub fn send_from(state: AppState, text: String, composer: bool) {
    let text = text.trim().to_owned();
    // The composer's files go with its text (a message an App sends has none).
    let files = if composer { state.chat.files.get_untracked() } else { Vec::new() };
    if (text.is_empty() && files.is_empty()) || state.is_busy() || state.store().is_none() {
        return;
    }
    // Attached resources and text files go after the text, as context.
    let attached = state.chat.attachments.get_untracked();
    let context = attached
        .iter()
        .map(|a| a.block.as_str())
        .chain(files.iter().filter_map(|f| match &f.kind {
            LocalKind::Text { block, .. } => Some(block.as_str()),
            LocalKind::Image { .. } => None,
        }))
        .collect::<Vec<_>>()
        .join("\n\n");
    // Cleared at once, so a second Enter cannot send it again.
    if composer {
        state.chat.draft.set(String::new());
        state.chat.files.set(Vec::new());
    }
    state.chat.attachments.set(Vec::new());
    start(state, Job::Send { text, context, attached, files, composer });
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

fn report_err(state: AppState, template: fn(&crate::i18n::Text) -> &'static str, result: Result<(), StoreError>) {
    if let Err(e) = result {
        state.report(template(state.t()), &e);
    }
}

/// Replaces an answer with a new one (and drops anything after it).
pub fn regenerate(state: AppState, message_id: String) {
    let Some(session_id) = state.sessions.active.get_untracked() else { return };
    start(state, Job::Regenerate { session_id, message_id });
}

/// Continues an answer that was cut off (reload, Stop, token limit).
pub fn continue_answer(state: AppState, message_id: String) {
    let Some(session_id) = state.sessions.active.get_untracked() else { return };
    start(state, Job::Continue { session_id, message_id });
}

/// Changes a user message, drops everything after it and asks again.
pub fn edit_and_resend(state: AppState, message_id: String, text: String) {
    let Some(session_id) = state.sessions.active.get_untracked() else { return };
    if text.trim().is_empty() {
        return;
    }
    start(state, Job::Edit { session_id, message_id, text });
}

/// Picks up the tool round a closed tab left unfinished: asks its approval
/// questions again, runs interrupted calls again, and lets the answer go on.
pub fn resume_tools(state: AppState) {
    let Some(session_id) = state.sessions.active.get_untracked() else { return };
    start(state, Job::Resume { session_id });
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
