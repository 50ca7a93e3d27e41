//! The world a turn runs in: a scripted HTTP client, a store that writes
//! each change into the transcript, a clock, ids, and a user who answers
//! approvals and questions as told.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::rc::Rc;

use air_agent::conversation::TemplateVars;
use air_agent::{Approval, Env, Event};
use air_chat::Lang;
use air_http::fake::ScriptedHttp;
use air_store::{MemoryStore, MessageRecord, SessionRecord, Store};
use air_tools::{ElicitAnswer, Elicitation, ToolDef};
use serde_json::json;

/// A store that writes each change into the transcript.
pub(crate) struct LoggedStore {
    pub(crate) inner: MemoryStore,
    log: Rc<RefCell<String>>,
    /// Each save of a text in pieces: how many, and the text they make.
    pub(crate) in_pieces: RefCell<Vec<(usize, String)>>,
}

impl Store for LoggedStore {
    async fn list_sessions(&self) -> air_store::Result<Vec<SessionRecord>> {
        self.inner.list_sessions().await
    }
    async fn touch_session(&self, id: &str, at: f64) -> air_store::Result<Option<SessionRecord>> {
        let touched = self.inner.touch_session(id, at).await?;
        if let Some(s) = &touched {
            let _ = writeln!(self.log.borrow_mut(), "  store: session {} {:?} updated {}", s.id, s.title, s.updated_at);
        }
        Ok(touched)
    }
    async fn get_message(&self, id: &str) -> air_store::Result<Option<MessageRecord>> {
        self.inner.get_message(id).await
    }
    async fn index_stats(&self) -> air_store::Result<Option<air_store::search::IndexStats>> {
        self.inner.index_stats().await
    }
    async fn postings(&self, term: &str, max: usize) -> air_store::Result<Vec<air_store::segments::Entry>> {
        self.inner.postings(term, max).await
    }
    async fn index_docs(&self, docs: &[air_store::segments::DocNo]) -> air_store::Result<Vec<Option<(String, String)>>> {
        self.inner.index_docs(docs).await
    }
    async fn rebuild_index(&self) -> air_store::Result<()> {
        self.inner.rebuild_index().await
    }
    async fn journal_since(&self, after: air_store::journal::Seq, limit: usize) -> air_store::Result<Vec<air_store::journal::Entry>> {
        self.inner.journal_since(after, limit).await
    }
    async fn sessions_page(&self, after: Option<&air_store::SessionCursor>, limit: usize) -> air_store::Result<Vec<SessionRecord>> {
        self.inner.sessions_page(after, limit).await
    }
    async fn get_session(&self, id: &str) -> air_store::Result<Option<SessionRecord>> {
        self.inner.get_session(id).await
    }
    async fn put_session(&self, s: &SessionRecord) -> air_store::Result<()> {
        let _ = writeln!(self.log.borrow_mut(), "  store: session {} {:?} updated {}", s.id, s.title, s.updated_at);
        self.inner.put_session(s).await
    }
    async fn delete_session(&self, id: &str) -> air_store::Result<()> {
        self.inner.delete_session(id).await
    }
    async fn messages(&self, session_id: &str) -> air_store::Result<Vec<MessageRecord>> {
        self.inner.messages(session_id).await
    }
    async fn messages_page(&self, s: &str, before: Option<f64>, limit: usize) -> air_store::Result<Vec<MessageRecord>> {
        self.inner.messages_page(s, before, limit).await
    }
    async fn messages_after(&self, s: &str, after: f64, limit: usize) -> air_store::Result<Vec<MessageRecord>> {
        self.inner.messages_after(s, after, limit).await
    }
    async fn put_message(&self, m: &MessageRecord) -> air_store::Result<()> {
        let _ = writeln!(self.log.borrow_mut(), "  store: {}", brief(m));
        self.inner.put_message(m).await
    }
    async fn put_message_parts(&self, m: &MessageRecord, parts: &[&str]) -> air_store::Result<()> {
        self.in_pieces.borrow_mut().push((parts.len(), parts.concat()));
        self.put_message(&m.with_text(parts)).await
    }
    async fn delete_message(&self, id: &str) -> air_store::Result<()> {
        let _ = writeln!(self.log.borrow_mut(), "  store: delete {id}");
        self.inner.delete_message(id).await
    }
    async fn get_doc(&self, key: &str) -> air_store::Result<Option<String>> {
        self.inner.get_doc(key).await
    }
    async fn put_doc(&self, key: &str, json: &str) -> air_store::Result<()> {
        let _ = writeln!(self.log.borrow_mut(), "  store: doc {key}");
        self.inner.put_doc(key, json).await
    }
    async fn doc_keys(&self, prefix: &str) -> air_store::Result<Vec<String>> {
        self.inner.doc_keys(prefix).await
    }
    async fn delete_doc(&self, key: &str) -> air_store::Result<()> {
        self.inner.delete_doc(key).await
    }
    async fn put_file(&self, f: &air_store::FileRecord) -> air_store::Result<()> {
        let _ = writeln!(self.log.borrow_mut(), "  store: file {} {} {} bytes", f.id, f.mime, f.bytes.len());
        self.inner.put_file(f).await
    }
    async fn get_file(&self, id: &str) -> air_store::Result<Option<air_store::FileRecord>> {
        self.inner.get_file(id).await
    }
}

pub(crate) struct World {
    pub(crate) http: ScriptedHttp,
    pub(crate) store: LoggedStore,
    clock: Cell<f64>,
    /// Added to the clock at every reading (time passing while streaming).
    pub(crate) tick: Cell<f64>,
    ids: Cell<u32>,
    log: Rc<RefCell<String>>,
    pub(crate) approvals: RefCell<VecDeque<Approval>>,
    pub(crate) always: RefCell<Vec<String>>,
    /// While the question is open, another tab answers it and runs the call.
    pub(crate) other_tab_runs_it: Cell<bool>,
}

impl World {
    pub(crate) fn new() -> Self {
        let log = Rc::new(RefCell::new(String::new()));
        Self {
            http: ScriptedHttp::new(),
            store: LoggedStore { inner: MemoryStore::new(), log: log.clone(), in_pieces: RefCell::default() },
            clock: Cell::new(1_000.0),
            tick: Cell::new(0.0),
            ids: Cell::new(0),
            log,
            approvals: RefCell::new(VecDeque::new()),
            always: RefCell::new(Vec::new()),
            other_tab_runs_it: Cell::new(false),
        }
    }

    fn note(&self, line: impl AsRef<str>) {
        let _ = writeln!(self.log.borrow_mut(), "{}", line.as_ref());
    }

    /// The transcript so far, with every request the model was sent.
    pub(crate) fn transcript(&self) -> String {
        self.log.borrow().clone()
    }
}

impl Env for World {
    type Http = ScriptedHttp;
    type Store = LoggedStore;

    fn http(&self) -> &ScriptedHttp {
        let before = self.http.requests().len();
        let _ = before;
        &self.http
    }
    fn store(&self) -> &LoggedStore {
        &self.store
    }
    fn now_ms(&self) -> f64 {
        let now = self.clock.get();
        self.clock.set(now + self.tick.get());
        now
    }
    fn new_id(&self) -> String {
        self.ids.set(self.ids.get() + 1);
        format!("id{}", self.ids.get())
    }
    async fn sleep(&self, ms: u64) {
        self.note(format!("  sleep {ms} ms"));
        self.clock.set(self.clock.get() + ms as f64);
    }
    fn template_vars(&self) -> TemplateVars {
        TemplateVars { date: "2026-11-22".into(), time: "10:00".into(), locale: "en-US".into() }
    }
    fn emit(&self, event: Event) {
        let line = match &event {
            Event::SessionCreated(s) => format!("session created {} {:?}", s.id, s.title),
            Event::SessionSaved(s) => format!("session saved {}", s.id),
            Event::MessageSaved(m) => format!("shown: {}", brief(m)),
            Event::MessagesRemoved { ids, .. } => format!("removed {ids:?}"),
            Event::StreamStarted { message_id, model, thought, text, .. } => {
                // The request was just sent: put it in the transcript.
                let reqs = self.http.requests();
                let _ = reqs;
                format!("stream started {message_id} model={model} thought={thought} after={text:?}")
            }
            Event::StreamDelta { text, reasoning } if reasoning.is_empty() => format!("delta {text:?}"),
            Event::StreamDelta { text, reasoning } => format!("delta {text:?} reasoning {reasoning:?}"),
            Event::StreamModel(m) => format!("model {m}"),
            Event::StreamStatus(s) => format!("status {s:?}"),
            Event::StreamEnded { message_id, .. } => format!("stream ended {message_id}"),
            Event::Broadcast(e) => format!("broadcast {}", e.to_json()),
            Event::StoreFailed { what, error } => format!("store failed ({what}): {error}"),
            Event::ToolCallingLearnt { key, calling } => format!("learnt: {key} calls tools {calling:?}"),
            Event::VisionLearnt { key, vision } => format!("learnt: {key} takes images: {vision}"),
            Event::ToolProgress { message_id, progress, .. } => format!("progress {message_id}: {progress:?}"),
        };
        self.note(line);
    }
    async fn approve(&self, record: &MessageRecord, tool: &ToolDef) -> Approval {
        if self.other_tab_runs_it.get() {
            let mut done = record.clone();
            done.content = "done in the other tab".into();
            if let Some(t) = done.tool.as_mut() {
                t.status = air_store::records::ToolStatus::Done;
            }
            let _ = self.store.inner.put_message(&done).await;
        }
        let a = self.approvals.borrow_mut().pop_front().unwrap_or(Approval::Deny);
        self.note(format!("asked to approve {} ({}): {a:?}", tool.name, record.id));
        a
    }
    fn always_allow(&self, tool: &ToolDef) {
        self.always.borrow_mut().push(tool.name.clone());
    }
    async fn elicit(&self, record: &MessageRecord, tool: &ToolDef, request: Elicitation) -> ElicitAnswer {
        self.note(format!("{} ({}) asks the user: {request:?}", tool.name, record.id));
        ElicitAnswer::Accept { content: json!({"name": "Ada"}) }
    }
}

/// One line for a record: what a reader of the transcript needs.
fn brief(m: &MessageRecord) -> String {
    let mut s = format!("{} {:?} rev {}", m.id, m.role, m.rev);
    if let Some(k) = &m.kind {
        let _ = write!(s, " {k:?}");
    }
    let _ = write!(s, " {:?}", m.content);
    for c in &m.tool_calls {
        let _ = write!(s, " call {}:{}({})", c.id, c.name, c.arguments);
    }
    if let Some(t) = &m.tool {
        let _ = write!(s, " tool {} for {} {:?}", t.name, m.tool_call_id.as_deref().unwrap_or("?"), t.status);
        if let Some(d) = t.duration_ms {
            let _ = write!(s, " {d} ms");
        }
    }
    for (flag, on) in [("incomplete", m.incomplete), ("stopped", m.stopped)] {
        if on {
            let _ = write!(s, " {flag}");
        }
    }
    if let Some(e) = &m.error {
        let _ = write!(s, " error={:?}", e.message(Lang::En));
    }
    for a in &m.attachments {
        let _ = write!(s, " file {}:{}:{}:{}", a.id, a.name, a.mime, a.size);
    }
    if !m.branch.is_empty() {
        let steps: Vec<String> = m.branch.iter().map(|b| format!("{}#{}", if b.fork.is_empty() { "root" } else { &b.fork }, b.alt)).collect();
        let _ = write!(s, " branch {}", steps.join(">"));
    }
    if let Some(p) = &m.parent {
        let _ = write!(s, " after {p}");
    }
    if let Some(f) = &m.finish {
        let _ = write!(s, " finish={f:?}");
    }
    s
}
