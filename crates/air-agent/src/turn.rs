//! The user's actions that start a turn, and the loop of a turn.

use crate::conversation::{TemplateVars, add_to_system_prompt, build_prompt_mode_request, build_request, build_thought_request, tool_entry};
use air_chat::prompt_tools::{PromptTool, tools_system_prompt};
use air_chat::{ChatRequest, Lang, Role};
use air_http::Abort;
use air_store::branches::{self, Step};
use air_store::records::{MessageKind, ToolStatus, next_seq};
use air_store::sync::SyncEvent;
use air_store::{Attachment, FileRecord, MessageRecord, SessionRecord, Settings, Store, StoreError};
use air_tools::Registry;
use air_tools::policy::Policies;

use crate::env::{Env, Event};
use crate::text;

/// How tools are offered to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolMode {
    /// No tools: the request has no `tools` field.
    Off,
    /// The request's `tools` field; the model answers with `tool_calls`.
    #[default]
    Native,
    /// The tools are described in the system prompt; calls are read from
    /// the answer's text.
    Prompt,
    /// As the settings say: native or prompt as set, or as found out once
    /// per provider and model (a probe request, remembered).
    Auto,
}

/// A file the user attached to a new message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFile {
    pub name: String,
    /// The media type, e.g. `image/png`.
    pub mime: String,
    pub bytes: Vec<u8>,
}

/// One turn: everything a user action sets going, until the answer is
/// complete. Stop is [`Abort::abort`] on the handle it was given.
pub struct Turn<'a, E: Env> {
    pub(crate) env: &'a E,
    pub(crate) settings: Settings,
    pub(crate) tools: &'a Registry,
    pub(crate) policies: std::cell::RefCell<Policies>,
    pub(crate) mode: ToolMode,
    pub(crate) abort: Abort,
    pub(crate) lang: Lang,
    /// This turn picks up a round a closed tab left (see `resume_tools`).
    pub(crate) resuming: std::cell::Cell<bool>,
    /// Only some of the tools are offered (MCP dynamic loading); `None`:
    /// every tool, as always.
    pub(crate) offer: Option<std::rc::Rc<dyn air_tools::offer::Offer>>,
    /// Where new messages of this turn go (see `air_store::branches`), once
    /// known.
    pub(crate) tip: std::cell::RefCell<Option<Tip>>,
}

/// Where a turn's next message goes: the branch it is on, and the message
/// it follows (its `parent`). Each message the turn makes follows the one
/// it made before, so its answers, thinking chains and tool results form
/// one line, and only a regenerated answer or an edited question (made
/// after the message the replaced one followed) is a sibling.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Tip {
    pub(crate) path: Vec<Step>,
    pub(crate) last: Option<String>,
}

impl<'a, E: Env> Turn<'a, E> {
    pub fn new(env: &'a E, settings: Settings, tools: &'a Registry, abort: Abort, lang: Lang) -> Self {
        Self { env, settings, tools, policies: Default::default(), mode: ToolMode::Native, abort, lang, resuming: Default::default(), offer: None, tip: Default::default() }
    }

    /// Offers the model only what `offer` says (MCP dynamic loading);
    /// `None` leaves the turn as it always was.
    pub fn with_offer(mut self, offer: Option<std::rc::Rc<dyn air_tools::offer::Offer>>) -> Self {
        self.offer = offer;
        self
    }

    pub fn with_policies(mut self, policies: Policies) -> Self {
        self.policies = std::cell::RefCell::new(policies);
        self
    }

    pub fn with_mode(mut self, mode: ToolMode) -> Self {
        self.mode = mode;
        self
    }

    /// Sends `text` as a new user message of `session_id` (a new session
    /// when `None`) and answers it. `Err` only when the message could not be
    /// saved: then nothing was, and the caller gives the text back.
    pub async fn send(&self, session_id: Option<String>, text: &str) -> Result<String, StoreError> {
        self.send_with_files(session_id, text, "", Vec::new()).await
    }

    /// [`Turn::send`] with context after the text (attached resources and
    /// text files, which do not title the chat) and files attached to the
    /// message (images, sent to the model as `image_url` parts). Each file
    /// is stored before the message that names it.
    pub async fn send_with_files(&self, session_id: Option<String>, text: &str, context: &str, files: Vec<NewFile>) -> Result<String, StoreError> {
        let session_id = self.add_user_message(session_id, text.trim(), context.trim(), files).await?;
        self.answer(&session_id, None).await;
        Ok(session_id)
    }

    async fn add_user_message(&self, session_id: Option<String>, text: &str, context: &str, files: Vec<NewFile>) -> Result<String, StoreError> {
        let env = self.env;
        let store = env.store();
        let now = env.now_ms();
        let existing = match &session_id {
            Some(id) => store.get_session(id).await?,
            None => None,
        };
        let created = existing.is_none();
        let mut session = existing.unwrap_or_else(|| SessionRecord::new(session_id.unwrap_or_else(|| env.new_id()), now));
        // The user's own words title the chat; without any, the first
        // image's name, else the context.
        session.auto_title(
            match files.first() {
                Some(f) if text.is_empty() => f.name.as_str(),
                _ if text.is_empty() => context,
                _ => text,
            },
            now,
        );
        session.updated_at = now;
        let last = self.last_seq(&session.id).await;
        let content = match (text.is_empty(), context.is_empty()) {
            (false, false) => format!("{text}\n\n{context}"),
            (true, _) => context.to_owned(),
            (false, true) => text.to_owned(),
        };
        let mut user = MessageRecord::new(env.new_id(), session.id.clone(), next_seq(last, now), Role::User, content);
        user.rev = 1;
        if created {
            // Nothing to read: it starts the conversation.
            *self.tip.borrow_mut() = Some(Tip::default());
        }
        self.follow(&mut user).await;
        for f in files {
            let id = env.new_id();
            let size = f.bytes.len() as u64;
            store.put_file(&FileRecord { id: id.clone(), session_id: session.id.clone(), mime: f.mime.clone(), bytes: f.bytes }).await?;
            user.attachments.push(Attachment { id, name: f.name, mime: f.mime, size });
        }
        store.put_session(&session).await?;
        store.put_message(&user).await?;
        env.emit(if created { Event::SessionCreated(session.clone()) } else { Event::SessionSaved(session.clone()) });
        env.emit(Event::MessageSaved(user));
        env.emit(Event::Broadcast(SyncEvent::SessionChanged { session_id: session.id.clone() }));
        Ok(session.id)
    }

    async fn last_seq(&self, session_id: &str) -> Option<f64> {
        let page = self.env.store().messages_page(session_id, None, 1).await.ok()?;
        page.last().map(|m| m.seq)
    }

    /// A new, empty assistant record after the last message.
    async fn new_answer(&self, session_id: &str, kind: Option<MessageKind>) -> MessageRecord {
        let env = self.env;
        let seq = next_seq(self.last_seq(session_id).await, env.now_ms());
        let mut r = MessageRecord::new(env.new_id(), session_id, seq, Role::Assistant, "");
        r.kind = kind;
        self.follow(&mut r).await;
        r
    }

    /// Puts a new record where the turn's messages go: on its branch, after
    /// the message the turn made last (first: the last message shown). The
    /// next one follows it.
    pub(crate) async fn follow(&self, record: &mut MessageRecord) {
        let tip = self.tip(&record.session_id).await;
        record.branch = tip.path;
        record.parent = tip.last;
        if let Some(tip) = self.tip.borrow_mut().as_mut() {
            tip.last = Some(record.id.clone());
        }
    }

    /// Where new messages go: after the last message shown.
    async fn tip(&self, session_id: &str) -> Tip {
        if let Some(tip) = self.tip.borrow().clone() {
            return tip;
        }
        let (forks, shown) = match self.shown(session_id).await {
            Ok(x) => x,
            Err(error) => {
                self.env.emit(Event::StoreFailed { what: "read", error });
                return Tip::default();
            }
        };
        let tip = Tip { path: branches::tip(&shown, &forks), last: shown.last().map(|m| m.id.clone()) };
        *self.tip.borrow_mut() = Some(tip.clone());
        tip
    }

    /// The session's forks and the messages of the branch shown.
    async fn shown(&self, session_id: &str) -> Result<(branches::Forks, Vec<MessageRecord>), StoreError> {
        let store = self.env.store();
        let forks = store.get_session(session_id).await?.map(|s| s.forks).unwrap_or_default();
        let all = store.messages(session_id).await?;
        Ok((forks.clone(), branches::shown(all, &forks)))
    }

    /// Keeps the shown messages from `start` on as an alternative after the
    /// message before them, and shows a new, empty one: what follows is
    /// written there.
    async fn fork(&self, session_id: &str, shown: &[MessageRecord], start: usize) -> Result<(), StoreError> {
        let store = self.env.store();
        let Some(mut session) = store.get_session(session_id).await? else { return Ok(()) };
        let after = start.checked_sub(1).map(|i| &shown[i]);
        let mut all = store.messages(session_id).await?;
        let (changed, _) = branches::fork_at(&mut session.forks, after, &mut all);
        for i in changed {
            let m = &mut all[i];
            m.rev += 1;
            store.put_message(m).await?;
        }
        store.put_session(&session).await?;
        let (prefix, tail) = shown.split_at(start);
        // The new alternative follows what the old one followed.
        *self.tip.borrow_mut() = Some(Tip { path: branches::tip(prefix, &session.forks), last: prefix.last().map(|m| m.id.clone()) });
        let env = self.env;
        env.emit(Event::MessagesRemoved { session_id: session_id.to_owned(), ids: tail.iter().map(|m| m.id.clone()).collect() });
        env.emit(Event::SessionSaved(session));
        env.emit(Event::Broadcast(SyncEvent::SessionChanged { session_id: session_id.to_owned() }));
        Ok(())
    }

    /// Answers the conversation as stored. With `resume`, the answer
    /// continues that (cut-off, last) assistant message. With Transitive
    /// Thinking on, a reasoning chain is streamed and stored first. Then
    /// the tool loop: while the answer asks for tools and rounds are left,
    /// run them and ask again.
    pub async fn answer(&self, session_id: &str, resume: Option<MessageRecord>) {
        if self.abort.is_aborted() {
            return;
        }
        let vars = self.env.template_vars();
        let record = match resume {
            Some(r) => r,
            None => {
                if self.settings.transitive_thinking {
                    let history = self.history(session_id, None).await;
                    let request = build_thought_request(&self.settings, &history, &vars);
                    let mut thought = self.new_answer(session_id, Some(MessageKind::TransitiveThought)).await;
                    if !self.stream_into(&request, &mut thought, false).await.ok || self.abort.is_aborted() {
                        return;
                    }
                }
                self.new_answer(session_id, None).await
            }
        };
        self.tool_loop(session_id, record, 0).await;
    }

    /// Streams `record` and, while the answer asks for tools and rounds are
    /// left, runs them and asks again. `round` is how many tool rounds this
    /// turn already ran.
    async fn tool_loop(&self, session_id: &str, mut record: MessageRecord, mut round: u32) {
        let vars = self.env.template_vars();
        let max_rounds = self.settings.max_tool_rounds;
        let mut seen = Vec::new();
        let mode = self.resolve_mode().await;
        let section = (mode == ToolMode::Prompt).then(|| self.tools_section());
        loop {
            let history = self.history(session_id, Some(&record.id)).await;
            let request = self.request(mode, section.as_deref(), &history, &vars, true);
            let streamed = self.stream_into(&request, &mut record, mode == ToolMode::Prompt).await;
            if let Some(offer) = &self.offer {
                let names: Vec<&str> = streamed.calls.iter().map(|c| c.name.as_str()).collect();
                offer.note_answer(record.usage.as_ref().map(|u| u.prompt_tokens).filter(|p| *p > 0), &names);
            }
            if !streamed.ok || streamed.calls.is_empty() || self.abort.is_aborted() {
                return;
            }
            if round >= max_rounds {
                self.refuse_calls(&record, &streamed.calls, max_rounds).await;
                return;
            }
            round += 1;
            let records = self.tool_records(&record, &streamed.calls).await;
            self.run_calls(streamed.calls.into_iter().zip(records).collect(), &mut seen).await;
            if self.abort.is_aborted() {
                return;
            }
            record = self.new_answer(session_id, None).await;
        }
    }

    /// Native, prompt or off for this turn. Auto uses what was found out for
    /// this provider and model, or finds out now (and says so, to be
    /// remembered); if the probe teaches nothing, native.
    async fn resolve_mode(&self) -> ToolMode {
        use air_store::settings::ToolCalling;
        if self.tools.is_empty() || self.mode == ToolMode::Off {
            return ToolMode::Off;
        }
        if self.mode != ToolMode::Auto {
            return self.mode;
        }
        let calling = match self.settings.resolved_tool_calling() {
            Some(c) => Some(c),
            None => {
                let found = crate::provider::probe_tool_calling(self.env.http(), &self.settings, &self.abort).await;
                if let Some(calling) = found {
                    self.env.emit(Event::ToolCallingLearnt { key: self.settings.tool_calling_key(), calling });
                }
                found
            }
        };
        match calling {
            Some(ToolCalling::Prompt) => ToolMode::Prompt,
            _ => ToolMode::Native,
        }
    }

    /// The request for `history` as `mode` asks (`section`: the tools'
    /// part of the system prompt in prompt mode).
    fn request(&self, mode: ToolMode, section: Option<&str>, history: &[MessageRecord], vars: &TemplateVars, note: bool) -> ChatRequest {
        match (mode, section) {
            (ToolMode::Prompt, Some(section)) => {
                if let Some(offer) = self.offer.as_ref().filter(|_| note) {
                    offer.note_request(self.tools, &offer.offered(self.tools));
                }
                build_prompt_mode_request(&self.settings, history, vars, section)
            }
            (ToolMode::Native, _) => {
                let mut r = build_request(&self.settings, history, vars);
                match &self.offer {
                    None => r.tools = self.tools.definitions().map(tool_entry).collect(),
                    Some(offer) => {
                        let offered = offer.offered(self.tools);
                        if note {
                            offer.note_request(self.tools, &offered);
                        }
                        r.tools = offered.into_iter().map(tool_entry).collect();
                        if let Some(prompt) = offer.prompt() {
                            add_to_system_prompt(&mut r, &prompt);
                        }
                    }
                }
                r
            }
            _ => build_request(&self.settings, history, vars),
        }
    }

    /// Reads ahead, for a model that keeps what it read (one running in
    /// this page): the request the next message in `session_id` (`None`:
    /// a new chat) will make, with that message still empty and nothing
    /// generated, so that only the message itself is left to read when it
    /// is sent. Learns how the model calls tools first, if not known yet.
    /// What fails is left to the turn that follows.
    pub async fn warm(&self, session_id: Option<&str>) {
        let vars = self.env.template_vars();
        let mode = self.resolve_mode().await;
        let section = (mode == ToolMode::Prompt).then(|| self.tools_section());
        let mut history = match session_id {
            Some(id) => self.history(id, None).await,
            None => Vec::new(),
        };
        let seq = history.last().map_or(0.0, |m| m.seq + 1.0);
        history.push(MessageRecord::new(String::new(), session_id.unwrap_or_default().to_owned(), seq, Role::User, String::new()));
        let mut request = self.request(mode, section.as_deref(), &history, &vars, false);
        request.max_tokens = Some(0);
        self.send_unseen(&request).await;
    }

    /// The system-prompt section describing the tools (prompt mode): all of
    /// them, or those offered and what the offer says of the others.
    fn tools_section(&self) -> String {
        let defs: Vec<&air_tools::ToolDef> = match &self.offer {
            None => self.tools.definitions().collect(),
            Some(offer) => offer.offered(self.tools),
        };
        let tools: Vec<PromptTool<'_>> = defs
            .iter()
            .map(|d| {
                let (description, parameters, a) = d.told();
                let mut hints = Vec::new();
                if a.read_only_hint == Some(true) {
                    hints.push("read-only");
                }
                if a.destructive_hint == Some(true) {
                    hints.push("destructive");
                }
                if a.idempotent_hint == Some(true) {
                    hints.push("idempotent");
                }
                PromptTool { name: &d.name, description, parameters, hints }
            })
            .collect();
        let section = tools_system_prompt(&tools);
        match self.offer.as_ref().and_then(|o| o.prompt()) {
            Some(more) => format!("{section}\n\n{more}"),
            None => section,
        }
    }

    /// Picks up a tool round that did not finish: the tab closed while its
    /// calls waited for approval or ran. Those calls are checked again (and
    /// approval asked again), run, and the answer goes on. Does nothing
    /// unless the conversation ends with such a round.
    pub async fn resume_tools(&self, session_id: &str) -> Result<(), StoreError> {
        let (_, all) = self.shown(session_id).await?;
        let Some(i) = all.iter().rposition(|m| m.role == Role::Assistant) else { return Ok(()) };
        let answer = &all[i];
        let tail = &all[i + 1..];
        if answer.tool_calls.is_empty() || tail.iter().any(|m| m.role != Role::Tool) {
            return Ok(());
        }
        let mut pending = Vec::new();
        for call in &answer.tool_calls {
            let result = tail.iter().find(|m| m.tool_call_id.as_deref() == Some(call.id.as_str()));
            match result {
                // Finished, except calls an import left unfinished (run
                // only when the user asks: Run again).
                Some(r) if r.tool.as_ref().is_some_and(|t| t.status.is_final() && t.status != ToolStatus::Interrupted) => {}
                Some(r) => pending.push((call.clone(), r.clone())),
                None => {
                    let mut records = self.tool_records(answer, std::slice::from_ref(call)).await;
                    if let Some(r) = records.pop() {
                        pending.push((call.clone(), r));
                    }
                }
            }
        }
        if pending.is_empty() {
            return Ok(());
        }
        self.resuming.set(true);
        let here = self.run_calls(pending, &mut Vec::new()).await;
        self.resuming.set(false);
        // Another tab answered every call: it goes on with the answer.
        if self.abort.is_aborted() || here == 0 {
            return Ok(());
        }
        let next = self.new_answer(session_id, None).await;
        self.tool_loop(session_id, next, 1).await;
        Ok(())
    }

    /// Everything stored for the session that belongs in the request (not
    /// just what is on screen; including what other tabs wrote). `keep`
    /// names a message wanted anyway (the one being continued).
    async fn history(&self, session_id: &str, keep: Option<&str>) -> Vec<MessageRecord> {
        match self.shown(session_id).await {
            Ok((_, shown)) => self.with_file_texts(shown.into_iter().filter(|m| Some(m.id.as_str()) == keep || self.env.in_history(m)).collect()).await,
            Err(error) => {
                self.env.emit(Event::StoreFailed { what: "read", error });
                Vec::new()
            }
        }
    }

    /// The round limit is reached: the calls are answered without running,
    /// and the user is told.
    async fn refuse_calls(&self, answer: &MessageRecord, calls: &[air_chat::ToolCall], rounds: u32) {
        let note = text::round_limit(self.lang, rounds);
        self.answer_without_running(answer, calls, &note).await;
        let mut notice = self.new_answer(&answer.session_id, Some(MessageKind::RoundLimit)).await;
        notice.role = Role::System;
        notice.content = note;
        self.save(&mut notice, "answer").await;
    }

    /// Answers again in place of an answer: the answer (and everything
    /// after it, and the thinking chain made for it) is kept as an
    /// alternative, and the new answer is shown.
    pub async fn regenerate(&self, session_id: &str, message_id: &str) -> Result<(), StoreError> {
        let (_, shown) = self.shown(session_id).await?;
        let Some(i) = shown.iter().position(|m| m.id == message_id) else { return Ok(()) };
        // Back to the start of the answer: the thought before it, and the
        // earlier rounds of a tool loop (assistant and tool messages after
        // the last user message).
        let mut start = i;
        while start > 0 && matches!(shown[start - 1].role, Role::Assistant | Role::Tool) {
            start -= 1;
        }
        self.fork(session_id, &shown, start).await?;
        self.answer(session_id, None).await;
        Ok(())
    }

    /// Continues an answer that was cut off (reload, Stop, token limit).
    pub async fn continue_answer(&self, session_id: &str, message_id: &str) -> Result<(), StoreError> {
        let all = self.env.store().messages(session_id).await?;
        let Some(record) = all.into_iter().find(|m| m.id == message_id) else { return Ok(()) };
        self.answer(session_id, Some(record)).await;
        Ok(())
    }

    /// Sends a changed copy of a user message in its place: the message
    /// and everything after it are kept as an alternative.
    pub async fn edit_and_resend(&self, session_id: &str, message_id: &str, text: &str) -> Result<(), StoreError> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(());
        }
        let (_, shown) = self.shown(session_id).await?;
        let Some(i) = shown.iter().position(|m| m.id == message_id) else { return Ok(()) };
        let old = shown[i].clone();
        self.fork(session_id, &shown, i).await?;
        let env = self.env;
        let now = env.now_ms();
        let mut record = MessageRecord::new(env.new_id(), session_id, next_seq(self.last_seq(session_id).await, now), Role::User, text);
        // The same files (nothing is deleted while a branch names them).
        record.attachments = old.attachments;
        self.follow(&mut record).await;
        // A sibling of the message it replaces (the same as what `follow`
        // found, the message shown before it, unless another tab wrote in
        // between).
        if old.parent.is_some() {
            record.parent = old.parent;
        }
        record.rev = 1;
        env.store().put_message(&record).await?;
        env.emit(Event::MessageSaved(record));
        self.answer(session_id, None).await;
        Ok(())
    }
}
