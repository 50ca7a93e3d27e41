//! One streamed request: send with retries, read the body into a record,
//! checkpoint it as it grows, store the result.

use std::pin::pin;

use crate::conversation::Checkpoint;
use air_chat::prompt_calls::{PromptCall, PromptCallParser, PromptEvent};
use air_chat::{ChatError, ChatRequest, Reply, ReplyStream, ToolCall};
use air_http::{Body, HttpClient, HttpError, Request, Response};
use air_store::records::AnswerError;
use air_store::sync::SyncEvent;
use air_store::{MessageRecord, Store};
use futures_util::future::{Either, select};

use crate::env::{Env, Event, Status};
use crate::provider;
use crate::turn::Turn;

/// How a streamed request ended.
pub(crate) struct Streamed {
    /// It finished without error or Stop.
    pub ok: bool,
    /// The tool calls this answer asked for (complete, with ids).
    pub calls: Vec<ToolCall>,
}

enum Outcome {
    Finished,
    Stopped,
    Failed(ChatError),
}

impl<E: Env> Turn<'_, E> {
    /// The request with each image's data read from its stored file. An
    /// image whose file cannot be read is left out (the text still goes).
    async fn read_images(&self, mut request: ChatRequest) -> ChatRequest {
        let store = self.env.store();
        for image in request.messages.iter_mut().flat_map(|m| m.images.iter_mut()) {
            match store.get_file(&image.id).await {
                Ok(Some(file)) => image.url = Some(file.data_url()),
                Ok(None) => {}
                Err(error) => self.env.emit(Event::StoreFailed { what: "read", error }),
            }
        }
        request
    }

    /// `history` with the text of each file attached to a message (not a
    /// tool's) that is not an image (a text file, an imported attachment) after
    /// its message's text (`air_store::files::head_block`: only its first
    /// bytes are read, and it is cut at [`air_store::files::TEXT_LIMIT`]).
    /// A file that cannot be read is left out; a tool's files are told of
    /// in its result.
    pub(crate) async fn with_file_texts(&self, mut history: Vec<MessageRecord>) -> Vec<MessageRecord> {
        use air_store::files::{TEXT_HEAD_BYTES, TEXT_LIMIT, head_block};
        let store = self.env.store();
        for m in history.iter_mut().filter(|m| m.role != air_chat::Role::Tool && m.attachments.iter().any(|a| !a.is_image())) {
            let mut blocks = Vec::new();
            for a in m.attachments.iter().filter(|a| !a.is_image()) {
                match store.get_file_head(&a.id, TEXT_HEAD_BYTES).await {
                    Ok(Some(file)) => {
                        // Read whole unless the head is all that was read
                        // (the size stored beside it is not trusted).
                        let n = file.bytes.len() as u64;
                        let more = (n == TEXT_HEAD_BYTES as u64 && a.size > n).then_some(a.size);
                        blocks.push(head_block(&a.name, &file.bytes, more, TEXT_LIMIT));
                    }
                    Ok(None) => {}
                    Err(error) => self.env.emit(Event::StoreFailed { what: "read", error }),
                }
            }
            if !blocks.is_empty() {
                let text = m.content.trim();
                let context = blocks.join("\n\n");
                m.content = if text.is_empty() { context } else { format!("{text}\n\n{context}") };
            }
        }
        history
    }

    /// Streams `request` into `record`, after the text and reasoning it
    /// already has (Continue), checkpointing as it goes; then stores the
    /// result and emits it.
    /// With `prompt_calls`, tool calls are read from the text (prompt mode):
    /// the text shown and stored is the answer without them.
    pub(crate) async fn stream_into(&self, request: &ChatRequest, record: &mut MessageRecord, prompt_calls: bool) -> Streamed {
        let env = self.env;
        let with_images;
        let request = if request.messages.iter().any(|m| m.images.iter().any(|i| i.url.is_none())) {
            with_images = self.read_images(request.clone()).await;
            &with_images
        } else {
            request
        };
        let session_id = record.session_id.clone();
        let (prefix, reasoning_prefix) = self.start_stream(record).await;

        let mut reply = ReplyStream::new();
        let mut text = TextCalls::new(prompt_calls);
        let mut pieces = Vec::new();
        let outcome = self.read(request, (&mut reply, &mut pieces), &mut text, record, &prefix, &reasoning_prefix).await;
        self.learn_vision(request, &outcome);

        let mut r = reply.into_reply();
        let calls = take_reply(record, (&mut r, pieces), &mut text, &prefix, &reasoning_prefix);
        let ok = self.settle(record, &r, outcome);
        // Ended first: the view lets its live copy of the text go before the
        // saved record (and its copy) arrives, so a long answer is not held
        // three times at once.
        env.emit(Event::StreamEnded { session_id: session_id.clone(), message_id: record.id.clone() });
        self.save_handing_text(record).await;
        self.touch_session(&session_id).await;
        env.emit(Event::Broadcast(SyncEvent::Streaming { session_id, message_id: record.id.clone(), active: false }));
        // Calls of an answer that failed or was stopped are not run.
        Streamed { ok, calls: if ok { calls } else { Vec::new() } }
    }

    /// Readies `record` for a new stream (model, flags), saves it and tells
    /// the view and other tabs the stream started. Returns the text and
    /// reasoning it already has, which the stream comes after.
    async fn start_stream(&self, record: &mut MessageRecord) -> (String, String) {
        let env = self.env;
        let session_id = record.session_id.clone();
        let prefix = record.content.clone();
        let reasoning_prefix = record.reasoning.clone().unwrap_or_default();
        record.model = Some(self.settings.model.clone());
        record.incomplete = true;
        record.stopped = false;
        record.error = None;
        record.finish = None;
        self.save_quietly(record).await;
        env.emit(Event::Broadcast(SyncEvent::Streaming { session_id: session_id.clone(), message_id: record.id.clone(), active: true }));
        env.emit(Event::StreamStarted {
            session_id: session_id.clone(),
            message_id: record.id.clone(),
            model: self.settings.model.clone(),
            thought: record.is_thought(),
            text: prefix.clone(),
            reasoning: reasoning_prefix.clone(),
        });
        (prefix, reasoning_prefix)
    }

    /// What this provider and model did with images, to remember.
    fn learn_vision(&self, request: &ChatRequest, outcome: &Outcome) {
        if request.messages.iter().any(|m| m.images.iter().any(|i| i.url.is_some())) {
            let vision = match outcome {
                Outcome::Failed(ChatError::Http { kind: air_chat::error::HttpErrorKind::ImagesRefused, .. }) => Some(false),
                Outcome::Finished => Some(true),
                _ => None,
            };
            if let Some(vision) = vision.filter(|v| self.settings.vision.get(&self.settings.tool_calling_key()) != Some(v)) {
                self.env.emit(Event::VisionLearnt { key: self.settings.tool_calling_key(), vision });
            }
        }
    }

    /// Marks `record` as ended the way `outcome` says (stopped, or with its
    /// error); true when the answer finished well.
    fn settle(&self, record: &mut MessageRecord, r: &Reply, outcome: Outcome) -> bool {
        match outcome {
            Outcome::Finished => match &r.error {
                Some(e) => {
                    record.error = Some(AnswerError::new(ChatError::Provider(e.clone())));
                    false
                }
                // The body ended with neither `[DONE]` nor a finish reason: the
                // connection dropped. Keep the text and offer Continue.
                None if !r.done && r.finish.is_none() => {
                    record.error = Some(AnswerError::new(ChatError::Interrupted { detail: None }));
                    false
                }
                None => true,
            },
            Outcome::Stopped => {
                record.stopped = true;
                false
            }
            Outcome::Failed(error) => {
                let local_model_down = self.settings.is_local_default() && record.content.is_empty() && matches!(error, ChatError::Network { .. } | ChatError::Cors { .. });
                record.error = Some(AnswerError { error, local_model_down });
                false
            }
        }
    }

    /// Sends the request (retrying rate limits and server errors) and reads
    /// the body into `reply`, checkpointing `record`. An answer shown as it
    /// is (`lent`, below) moves into `pieces` each time [`PIECE`] bytes of
    /// it have come: a long answer is held in pieces written once, not in
    /// one buffer grown and copied again and again, whose old copies add
    /// up to more than the answer.
    async fn read(
        &self,
        request: &ChatRequest,
        (reply, pieces): (&mut ReplyStream, &mut Vec<String>),
        text: &mut TextCalls,
        record: &mut MessageRecord,
        prefix: &str,
        reasoning_prefix: &str,
    ) -> Outcome {
        let env = self.env;
        let response = match self.send_with_retries(request).await {
            Ok(r) => r,
            Err(outcome) => return outcome,
        };
        let mut body = response.body;
        let mut checkpoint = Checkpoint::default();
        checkpoint.due(env.now_ms());
        let (mut fed, mut shown_text, mut shown_reasoning) = (0, 0, 0);
        let mut model: Option<String> = None;
        let outcome = loop {
            match body.chunk().await {
                Ok(Some(bytes)) => {
                    if reply.feed(&bytes) == 0 {
                        continue;
                    }
                }
                Ok(None) => break Outcome::Finished,
                Err(HttpError::Aborted) => break Outcome::Stopped,
                Err(e) => break Outcome::Failed(ChatError::Interrupted { detail: Some(e.to_string()) }),
            }
            let r = reply.reply();
            text.feed(&r.content[fed..]);
            fed = r.content.len();
            let visible = text.visible(&r.content);
            if visible.len() > shown_text || r.reasoning.len() > shown_reasoning {
                env.emit(Event::StreamDelta { text: visible[shown_text..].to_owned(), reasoning: r.reasoning[shown_reasoning..].to_owned() });
                (shown_text, shown_reasoning) = (visible.len(), r.reasoning.len());
            }
            if r.model.is_some() && r.model != model {
                model.clone_from(&r.model);
                env.emit(Event::StreamModel(r.model.clone().unwrap_or_default()));
            }
            if r.error.is_some() {
                break Outcome::Finished;
            }
            let lent = prefix.is_empty() && text.passes_through();
            if lent && r.content.len() >= PIECE {
                let mut piece = std::mem::take(&mut reply.reply_mut().content);
                piece.shrink_to_fit();
                pieces.push(piece);
                (fed, shown_text) = (0, 0);
            }
            if checkpoint.due(env.now_ms()) {
                self.checkpoint(record, (reply.reply_mut(), pieces), text, (prefix, reasoning_prefix), lent).await;
                // Also a heartbeat: other tabs know this answer is alive.
                env.emit(Event::Broadcast(SyncEvent::Streaming { session_id: record.session_id.clone(), message_id: record.id.clone(), active: true }));
            }
        };
        reply.finish();
        if self.abort.is_aborted() { Outcome::Stopped } else { outcome }
    }

    /// Saves what arrived so far into `record`: the answer's text lent to
    /// it (or, in pieces, handed to the store as they are) when it is shown
    /// as it is, else the text shown after `prefix`; the reasoning after
    /// its prefix.
    async fn checkpoint(&self, record: &mut MessageRecord, (r, pieces): (&mut Reply, &[String]), text: &TextCalls, (prefix, reasoning_prefix): (&str, &str), lent: bool) {
        let mut reasoning = record.reasoning.take().unwrap_or_default();
        reasoning.clear();
        reasoning.push_str(reasoning_prefix);
        reasoning.push_str(&r.reasoning);
        record.reasoning = (!reasoning.is_empty()).then_some(reasoning);
        if lent && !pieces.is_empty() {
            let mut parts: Vec<&str> = pieces.iter().map(String::as_str).collect();
            parts.push(&r.content);
            record.rev += 1;
            if let Err(error) = self.env.store().put_message_parts(record, &parts).await {
                self.env.emit(Event::StoreFailed { what: "answer", error });
            }
        } else if lent {
            // The answer's own text is lent to the record for the save, not
            // copied: a long answer is held once.
            std::mem::swap(&mut record.content, &mut r.content);
            self.save_quietly(record).await;
            std::mem::swap(&mut record.content, &mut r.content);
        } else {
            record.content.clear();
            record.content.push_str(prefix);
            record.content.push_str(text.visible(&r.content));
            self.save_quietly(record).await;
        }
    }

    async fn send_with_retries(&self, request: &ChatRequest) -> Result<Response<<E::Http as HttpClient>::Body>, Outcome> {
        let env = self.env;
        let url = self.settings.chat_url();
        let body = request.to_json();
        let mut attempt = 1;
        loop {
            let req = self.chat_request(&url, &body);
            let error = match provider::send(env.http(), &url, req, &self.abort).await {
                Ok(r) => {
                    if attempt > 1 {
                        env.emit(Event::StreamStatus(None));
                    }
                    return Ok(r);
                }
                Err(None) => return Err(Outcome::Stopped),
                Err(Some(error)) => error,
            };
            if self.abort.is_aborted() {
                return Err(Outcome::Stopped);
            }
            let Some(wait_ms) = error.retry_delay_ms(attempt) else { return Err(Outcome::Failed(error)) };
            attempt += 1;
            env.emit(Event::StreamStatus(Some(Status::Retrying { message: error.message(self.lang), wait_ms, attempt, max: air_chat::error::MAX_ATTEMPTS })));
            // Stop ends the wait at once.
            let sleep = pin!(env.sleep(wait_ms));
            if let Either::Right(_) = select(sleep, self.abort.aborted()).await {
                return Err(Outcome::Stopped);
            }
        }
    }

    /// Sends `request` once, with no retry and nothing shown, and reads
    /// the answer to its end (what it says is not kept): a read-ahead.
    pub(crate) async fn send_unseen(&self, request: &ChatRequest) {
        let url = self.settings.chat_url();
        let req = self.chat_request(&url, &request.to_json());
        if let Ok(response) = provider::send(self.env.http(), &url, req, &self.abort).await {
            let mut body = response.body;
            while let Ok(Some(_)) = body.chunk().await {}
        }
    }

    /// The request a chat completion is sent as: the body, streamed back,
    /// with the provider's key.
    fn chat_request(&self, url: &str, body: &str) -> Request {
        provider::authorized(Request::post_json(url, body).header("Accept", "text/event-stream"), &self.settings)
    }

    /// Saves a record without telling the UI (checkpoints: the UI shows the
    /// live stream instead).
    pub(crate) async fn save_quietly(&self, record: &mut MessageRecord) {
        record.rev += 1;
        if let Err(error) = self.env.store().put_message(record).await {
            self.env.emit(Event::StoreFailed { what: "answer", error });
        }
    }

    /// Saves a record and shows it.
    pub(crate) async fn save(&self, record: &mut MessageRecord, what: &'static str) {
        record.rev += 1;
        if let Err(error) = self.env.store().put_message(record).await {
            self.env.emit(Event::StoreFailed { what, error });
        }
        self.env.emit(Event::MessageSaved(record.clone()));
    }

    /// Saves the streamed answer and shows it, handing its text to the view
    /// instead of copying it: `record` keeps everything but its text (the
    /// turn needs only its id and calls from here on; the next request
    /// reads the history from the store).
    async fn save_handing_text(&self, record: &mut MessageRecord) {
        self.save_quietly(record).await;
        let text = std::mem::take(&mut record.content);
        let mut shown = record.clone();
        shown.content = text;
        self.env.emit(Event::MessageSaved(shown));
    }

    /// Marks the session as active now (unless it is being deleted).
    pub(crate) async fn touch_session(&self, session_id: &str) {
        let env = self.env;
        if env.is_deleted(session_id) {
            return;
        }
        if let Ok(Some(session)) = env.store().touch_session(session_id, env.now_ms()).await {
            env.emit(Event::SessionSaved(session));
        }
    }
}

/// How much of an answer shown as it is is kept in one piece while it
/// streams (see `Turn::read`).
const PIECE: usize = 256 * 1024;

/// Moves the streamed reply into `record` (its text after `prefix`, its
/// reasoning after `reasoning_prefix`, usage, model, finish, tool calls)
/// and returns the tool calls it asked for.
fn take_reply(record: &mut MessageRecord, (r, pieces): (&mut Reply, Vec<String>), text: &mut TextCalls, prefix: &str, reasoning_prefix: &str) -> Vec<ToolCall> {
    text.finish(&r.content);
    if prefix.is_empty() && text.passes_through() && !pieces.is_empty() {
        // Joined once, each piece let go as it is copied.
        let mut whole = String::with_capacity(pieces.iter().map(String::len).sum::<usize>() + r.content.len());
        for piece in pieces {
            whole.push_str(&piece);
        }
        whole.push_str(&std::mem::take(&mut r.content));
        record.content = whole;
    } else if prefix.is_empty() && text.passes_through() {
        record.content = std::mem::take(&mut r.content);
        // It grew by half: what it does not use goes back.
        record.content.shrink_to_fit();
    } else {
        record.content.clear();
        record.content.push_str(prefix);
        record.content.push_str(text.visible(&r.content));
        r.content = String::new();
    }
    let reasoning = format!("{reasoning_prefix}{}", std::mem::take(&mut r.reasoning));
    record.reasoning = (!reasoning.is_empty()).then_some(reasoning);
    record.usage = r.usage.clone();
    if let Some(model) = &r.model {
        record.model = Some(model.clone());
    }
    let mut calls = r.finished_tool_calls();
    // Calls written as text get ids of their own, unique in the session.
    calls.extend(text.calls.iter().enumerate().map(|(i, c)| ToolCall { id: format!("{}-{i}", record.id), name: c.name.clone(), arguments: c.arguments.clone(), extra: None }));
    record.tool_calls.extend(calls.iter().cloned());
    record.finish = r.finish.clone();
    record.incomplete = false;
    calls
}

/// Tool calls written in the answer's text (prompt mode), and the text
/// without them. Off, it passes the text through.
struct TextCalls {
    parser: Option<PromptCallParser>,
    shown: String,
    calls: Vec<PromptCall>,
}

impl TextCalls {
    fn new(on: bool) -> Self {
        Self { parser: on.then(PromptCallParser::new), shown: String::new(), calls: Vec::new() }
    }

    fn take(&mut self, events: Vec<PromptEvent>) {
        for e in events {
            match e {
                PromptEvent::Text(t) => self.shown.push_str(&t),
                PromptEvent::Call(c) => self.calls.push(c),
            }
        }
    }

    /// The text shown is the answer's text as it is (no calls are read
    /// from it).
    fn passes_through(&self) -> bool {
        self.parser.is_none()
    }

    fn feed(&mut self, delta: &str) {
        if let Some(p) = self.parser.as_mut() {
            let events = p.feed(delta);
            self.take(events);
        }
    }

    fn finish(&mut self, _all: &str) {
        if let Some(p) = self.parser.as_mut() {
            let events = p.finish();
            self.take(events);
        }
    }

    /// The text to show: all of it when off, else what is decided so far.
    fn visible<'a>(&'a self, all: &'a str) -> &'a str {
        if self.parser.is_some() { &self.shown } else { all }
    }
}
