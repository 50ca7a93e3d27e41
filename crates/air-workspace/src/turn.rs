//! The turn as the core runs it: one at a time, in the open conversation;
//! Stop; the questions a running turn asks (may this tool run? a server's
//! form) and their answers; what a turn's events change; what goes back
//! to the composer when a message could not be saved.
//!
//! The agent loop itself is `air-agent`'s [`Turn`], driven by [`run`]
//! through a [`TurnEnv`]. The core never calls [`run`]: it hands the
//! platform a [`TurnEnv`] and a [`Run`] ([`Platform::run_turn`]), and the
//! page runs it in a part fetched with the first message, with the tools
//! [`crate::toolbox::assemble`] gives it.

use std::cell::RefCell;
use std::rc::Rc;

use air_agent::conversation::TemplateVars;
use air_agent::{Approval, Env, Event, ToolMode, Turn};
use air_chat::Lang;
use air_http::Abort;
use air_store::settings::ToolCalling;
use air_store::{MessageRecord, StoreError};
use air_tools::face::Face;
use air_tools::{ElicitAnswer, Elicitation, ToolDef};
use futures_channel::oneshot;
use futures_util::future::LocalBoxFuture;

use crate::prefs::Change;
pub use crate::turn_env::{Job, Run, TurnEnv};
use crate::{Command, Missing, Notice, Platform, StoreOp, Update, Workspace};

/// A running turn's question to the user.
#[derive(Debug)]
pub enum Ask {
    /// May the call in `record` run? `change`: the server changed the tool
    /// since the user said yes (what was accepted, and what it is now).
    Approval { record: String, change: Option<(Option<Box<Face>>, Face)>, reply: oneshot::Sender<Approval> },
    /// A running call asks a question (MCP elicitation).
    Question { record: String, request: Elicitation, reply: oneshot::Sender<ElicitAnswer> },
}

/// A question "may this tool run?" open on a card: the card's record,
/// what changed since the user last said yes, and where the answer goes.
type Pending = (String, Option<(Option<Box<Face>>, Face)>, oneshot::Sender<Approval>);

/// The turn's state in the core.
#[derive(Debug, Default)]
pub struct Turning {
    /// The job running (what a failure gives back depends on it).
    running: Option<Kind>,
    /// The conversation the last turn ran in (a new chat's, once it was
    /// made): what the turn changes of it is kept under it, whichever
    /// conversation is open meanwhile.
    pub(crate) session: Option<String>,
    abort: Option<Abort>,
    /// Whether a read-ahead ([`Job::Warm`]) runs.
    warming: Rc<std::cell::Cell<Warming>>,
    approvals: Vec<Pending>,
    questions: Vec<(String, Elicitation, oneshot::Sender<ElicitAnswer>)>,
}

/// Whether a read-ahead runs, and whether another is wanted after it (a
/// chat opened meanwhile).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Warming {
    #[default]
    Idle,
    Running,
    RunningThenAgain,
}

/// A job's kind, and for a message, its text.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Send(String),
    Replace,
    Change,
    Resume,
}

impl Turning {
    pub fn busy(&self) -> bool {
        self.running.is_some()
    }
}

/// What the turn is asked, and its end.
#[derive(Debug)]
pub enum Action {
    /// Start a turn in the open conversation (nothing, if one runs).
    Start(Job),
    /// Stop the turn.
    Stop,
    /// The running turn asks the user something.
    Ask(Ask),
    /// The user answers "may this tool run?" on the card of `record`.
    Approve { record: String, approval: Approval },
    /// The user answers the question of the call in `record`.
    Answer { record: String, answer: ElicitAnswer },
    /// Something happened in the running turn.
    Event(Event),
    /// The turn is over (`Err`: its part could not be fetched).
    Ended(Result<Result<(), StoreError>, Missing>),
}

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) {
    match action {
        Action::Start(job) => start(w, job),
        Action::Stop => stop(w),
        Action::Ask(ask) => asked(w, ask),
        Action::Approve { record, approval } => {
            if let Some(i) = w.turn.approvals.iter().position(|(id, ..)| *id == record) {
                let (.., reply) = w.turn.approvals.remove(i);
                let _ = reply.send(approval);
                publish_approvals(w);
            }
        }
        Action::Answer { record, answer } => {
            if let Some(i) = w.turn.questions.iter().position(|(id, ..)| *id == record) {
                let (.., reply) = w.turn.questions.remove(i);
                let _ = reply.send(answer);
                publish_questions(w);
            }
        }
        Action::Event(event) => event_happened(w, event),
        Action::Ended(result) => ended(w, result),
    }
}

/// Session `id` is being deleted (here or in another tab): a turn running
/// in it stops.
pub(crate) fn session_removed<P: Platform>(w: &mut Workspace<P>, id: &str) {
    if w.turn.busy() && w.turn.session.as_deref() == Some(id) {
        stop(w);
    }
}

/// Starts `job` unless a turn runs already or there is nothing to send.
fn start<P: Platform>(w: &mut Workspace<P>, job: Job) {
    if let Job::Warm = job {
        return read_ahead(w);
    }
    let Some(store) = w.p.store() else { return };
    if w.turn.busy() {
        return;
    }
    // A message is sent without the spaces around it.
    let job = match job {
        Job::Send(text) => Job::Send(text.trim().to_owned()),
        other => other,
    };
    let session = w.chat.active.clone();
    let kind = match &job {
        Job::Send(text) if text.trim().is_empty() && !w.attach_pending() => return,
        Job::Send(text) => Kind::Send(text.clone()),
        _ if session.is_none() => return,
        Job::Regenerate(_) | Job::Continue(_) => Kind::Replace,
        Job::Edit { text, .. } if text.trim().is_empty() => return,
        Job::Edit { .. } => Kind::Change,
        Job::Resume => Kind::Resume,
        Job::Warm => return,
    };
    let sending = matches!(kind, Kind::Send(_));
    // The attached resources go after the text (the files' text after
    // them, read from the files stored with the message).
    let (context, files) = if sending { (crate::attach::take_for_sending(w).join("\n\n"), crate::files::take_for_sending(w)) } else { (String::new(), Vec::new()) };
    crate::log::turn_started(w, &job, session.as_deref());
    w.turn.running = Some(kind);
    w.turn.session = session.clone();
    w.chat.busy = true;
    let abort = Abort::new();
    w.turn.abort = Some(abort.clone());
    w.emit(Update::Busy(true));
    if sending {
        w.emit(Update::Sending);
    }
    let running = run_turn(w, store, abort, Run { session, job, context, files, prefs: Box::new(w.prefs.clone()) });
    w.spawn(async move { Some(Command::Turn(Action::Ended(running.await))) });
}

/// Hands the platform `run` (a turn, or a read-ahead) with the store, the
/// watch and `abort`, and the policies it starts with.
fn run_turn<P: Platform>(w: &Workspace<P>, store: Rc<P::Store>, abort: Abort, run: Run) -> LocalBoxFuture<'static, Result<Result<(), StoreError>, Missing>> {
    let env = TurnEnv {
        p: w.p.clone(),
        store,
        watch: w.watch.clone(),
        abort,
        policies: RefCell::default(),
        #[cfg(test)]
        more_kinds: w.more_kinds.clone(),
    };
    w.p.run_turn(env, run)
}

/// Reads the next message's request ahead ([`Job::Warm`]) for the chat
/// open, when the provider is a model in this page and no turn runs. One
/// at a time: asked while one runs, it runs again after it.
pub(crate) fn read_ahead<P: Platform>(w: &mut Workspace<P>) {
    if w.turn.busy() || !air_store::settings::is_in_browser(&w.prefs.settings.base_url) {
        return;
    }
    let Some(store) = w.p.store() else { return };
    let warming = w.turn.warming.clone();
    if warming.get() != Warming::Idle {
        return warming.set(Warming::RunningThenAgain);
    }
    warming.set(Warming::Running);
    let run = Run { session: w.chat.active.clone(), job: Job::Warm, context: String::new(), files: Vec::new(), prefs: Box::new(w.prefs.clone()) };
    let running = run_turn(w, store, Abort::new(), run);
    w.spawn(async move {
        let _ = running.await;
        let again = warming.replace(Warming::Idle) == Warming::RunningThenAgain;
        again.then_some(Command::Turn(Action::Start(Job::Warm)))
    });
}

/// Stop: the request streaming is aborted (what arrived is kept), a call
/// running is abandoned, and the questions asked go unanswered (denied,
/// cancelled).
fn stop<P: Platform>(w: &mut Workspace<P>) {
    if let Some(abort) = &w.turn.abort {
        abort.abort();
    }
    clear_asks(w);
}

fn asked<P: Platform>(w: &mut Workspace<P>, ask: Ask) {
    // Asked after Stop, or with no turn: nobody answers (denied, cancelled).
    if w.turn.abort.as_ref().is_none_or(Abort::is_aborted) {
        return;
    }
    match ask {
        Ask::Approval { record, change, reply } => {
            w.turn.approvals.push((record, change, reply));
            publish_approvals(w);
        }
        Ask::Question { record, request, reply } => {
            w.turn.questions.push((record, request, reply));
            publish_questions(w);
        }
    }
}

fn clear_asks<P: Platform>(w: &mut Workspace<P>) {
    if !w.turn.approvals.is_empty() {
        w.turn.approvals.clear();
        publish_approvals(w);
    }
    if !w.turn.questions.is_empty() {
        w.turn.questions.clear();
        publish_questions(w);
    }
}

fn publish_approvals<P: Platform>(w: &mut Workspace<P>) {
    let awaiting = w.turn.approvals.iter().map(|(id, ..)| id.clone()).collect();
    let changes = w.turn.approvals.iter().filter_map(|(id, change, _)| change.clone().map(|(old, new)| (id.clone(), old, new))).collect();
    w.emit(Update::Approvals { awaiting, changes });
}

fn publish_questions<P: Platform>(w: &mut Workspace<P>) {
    let questions = w.turn.questions.iter().map(|(id, q, _)| (id.clone(), q.clone())).collect();
    w.emit(Update::Questions(questions));
}

/// The turn is over: what it could not do is said, and a message that
/// was not saved goes back to the composer.
fn ended<P: Platform>(w: &mut Workspace<P>, result: Result<Result<(), StoreError>, Missing>) {
    let Some(kind) = w.turn.running.take() else { return };
    crate::log::turn_ended(w, &result);
    w.turn.abort = None;
    w.chat.busy = false;
    *w.watch.live.borrow_mut() = None;
    clear_asks(w);
    w.emit(Update::Busy(false));
    let op = match &kind {
        Kind::Send(_) => StoreOp::SaveMessage,
        Kind::Replace => StoreOp::Replace,
        Kind::Change => StoreOp::Change,
        Kind::Resume => StoreOp::ReadMessages,
    };
    let failed = !matches!(result, Ok(Ok(())));
    match result {
        Ok(Ok(())) => {}
        Ok(Err(error)) => w.emit(Update::Notice(Notice::Store { op, error })),
        Err(Missing) => w.emit(Update::Notice(Notice::PartMissing)),
    }
    if let Kind::Send(text) = kind {
        crate::attach::sending_ended(w, !failed);
        crate::files::sending_ended(w, !failed);
        w.emit(if failed { Update::NotSent(text) } else { Update::Sent });
    }
}

/// What one of the turn's events changes.
fn event_happened<P: Platform>(w: &mut Workspace<P>, event: Event) {
    crate::log::turn_event(w, &event);
    match event {
        Event::SessionCreated(session) => {
            let id = session.id.clone();
            w.turn.session = Some(id.clone());
            w.session_began(&id);
            w.handle(Command::Sessions(crate::sessions::Action::Saved(session)));
            w.handle(Command::Chat(crate::chat::Action::Created(id)));
        }
        Event::SessionSaved(session) => w.handle(Command::Sessions(crate::sessions::Action::Saved(session))),
        Event::MessageSaved(record) => {
            // The finished answer replaces its live view.
            let mut live = w.watch.live.borrow_mut();
            if live.as_deref() == Some(record.id.as_str()) {
                *live = None;
            }
            drop(live);
            w.handle(Command::Chat(crate::chat::Action::Saved(record)));
        }
        Event::MessagesRemoved { session_id, ids } => {
            if w.chat.active.as_deref() == Some(session_id.as_str()) {
                w.handle(Command::Chat(crate::chat::Action::Removed(ids)));
            }
        }
        Event::StreamStarted { ref message_id, .. } => {
            // A continued answer is shown live instead of as its record.
            w.handle(Command::Chat(crate::chat::Action::Removed(vec![message_id.clone()])));
            *w.watch.live.borrow_mut() = Some(message_id.clone());
        }
        Event::ToolCallingLearnt { key, calling } => w.handle(Command::Prefs(crate::prefs::Action::Change(Change::ToolCallingLearnt { key, calling }))),
        Event::VisionLearnt { key, vision } => w.handle(Command::Prefs(crate::prefs::Action::Change(Change::VisionLearnt { key, vision }))),
        Event::StoreFailed { what, error } => {
            let op = if what == "read" { StoreOp::ReadMessages } else { StoreOp::SaveAnswer };
            w.emit(Update::Notice(Notice::Store { op, error }));
        }
        // What shows live went to the page directly (`Platform::show_live`).
        Event::StreamDelta { .. } | Event::StreamModel(_) | Event::StreamStatus(_) | Event::StreamEnded { .. } | Event::ToolProgress { .. } | Event::Broadcast(_) => {}
    }
}

impl<P: Platform> Env for TurnEnv<P> {
    type Http = P::Http;
    type Store = P::Store;

    fn http(&self) -> &P::Http {
        self.p.http()
    }
    fn store(&self) -> &P::Store {
        &self.store
    }
    fn now_ms(&self) -> f64 {
        self.p.now_ms()
    }
    fn new_id(&self) -> String {
        self.p.new_id()
    }
    async fn sleep(&self, ms: u64) {
        self.p.sleep(ms).await;
    }
    fn template_vars(&self) -> TemplateVars {
        self.p.template_vars()
    }
    fn emit(&self, event: Event) {
        match event {
            // Both: the core shows it live instead of as its record, the page starts drawing it.
            Event::StreamStarted { .. } => {
                self.p.feed(Command::Turn(Action::Event(event.clone())));
                self.p.show_live(event);
            }
            Event::StreamDelta { .. } | Event::StreamModel(_) | Event::StreamStatus(_) | Event::StreamEnded { .. } | Event::ToolProgress { .. } | Event::Broadcast(_) => self.p.show_live(event),
            // What the new chat chose (servers, assistant) becomes the
            // session's before it opens; what was learnt is kept.
            Event::SessionCreated(_)
            | Event::ToolCallingLearnt { .. }
            | Event::VisionLearnt { .. }
            | Event::SessionSaved(_)
            | Event::MessageSaved(_)
            | Event::MessagesRemoved { .. }
            | Event::StoreFailed { .. } => {
                self.p.feed(Command::Turn(Action::Event(event)));
            }
        }
    }
    fn in_history(&self, m: &MessageRecord) -> bool {
        // An answer still streaming in another tab (incomplete, and not
        // shown here) is not part of the conversation yet.
        let remote = self.watch.remote.borrow().contains(&m.id);
        let shown = || self.watch.shown.borrow().iter().any(|(id, _)| *id == m.id) && self.watch.live.borrow().as_deref() != Some(m.id.as_str());
        !remote && (!m.incomplete || shown())
    }
    fn is_deleted(&self, session_id: &str) -> bool {
        self.watch.deleting.borrow().as_deref() == Some(session_id)
    }
    async fn approve(&self, record: &MessageRecord, tool: &ToolDef) -> Approval {
        let (reply, answer) = oneshot::channel();
        // Asked because the server changed it since the user said yes: the card shows what changed.
        let change = self.policies.borrow().changed(tool).then(|| (tool.mcp.as_ref().and_then(|m| m.accepted.clone()), Face::of(tool)));
        self.p.feed(Command::Turn(Action::Ask(Ask::Approval { record: record.id.clone(), change, reply })));
        answer.await.unwrap_or(Approval::Deny)
    }
    async fn elicit(&self, record: &MessageRecord, _tool: &ToolDef, request: Elicitation) -> ElicitAnswer {
        let (reply, answer) = oneshot::channel();
        self.p.feed(Command::Turn(Action::Ask(Ask::Question { record: record.id.clone(), request, reply })));
        // Dropped unanswered (Stop, the turn ended): cancelled.
        answer.await.unwrap_or(ElicitAnswer::Cancel)
    }
    fn always_allow(&self, tool: &ToolDef) {
        self.p.feed(Command::Servers(crate::servers::Action::AllowAlways(Box::new(tool.clone()))));
    }
}

/// Runs a turn (the platform calls it, where the agent loop is loaded).
pub async fn run<P: Platform>(env: &TurnEnv<P>, run: Run) -> Result<(), StoreError> {
    let inputs = run.inputs();
    let warm = matches!(run.job, Job::Warm);
    if warm && !air_store::settings::is_in_browser(&inputs.settings.base_url) {
        // This chat's assistant answers from elsewhere.
        return Ok(());
    }
    let mut snap = crate::toolbox::Snapshot { session: run.session.as_deref(), prefs: &run.prefs, inputs, sending: &run.files };
    #[cfg(not(test))]
    let kinds = crate::toolbox::kinds();
    #[cfg(test)]
    let kinds: crate::toolbox::Kinds<P> = crate::toolbox::kinds().into_iter().chain(env.more_kinds.iter().cloned()).collect();
    let toolbox = crate::toolbox::assemble(env, &kinds, &mut snap).await;
    if toolbox.missing {
        env.p.feed(Command::Tell(Notice::PartMissing));
    }
    let (settings, tools, offer) = (*snap.inputs.settings, toolbox.registry, toolbox.offer);
    let lang: Lang = settings.language.into();
    let mode = match (settings.tools_enabled, settings.tool_calling) {
        (false, _) => ToolMode::Off,
        (true, ToolCalling::Auto) => ToolMode::Auto,
        (true, ToolCalling::Native) => ToolMode::Native,
        (true, ToolCalling::Prompt) => ToolMode::Prompt,
    };
    let policies = settings.tool_policies.clone();
    *env.policies.borrow_mut() = policies.clone();
    if !warm {
        crate::log::offered(&*env.p, mode, &tools, offer.as_deref());
    }
    let turn = Turn::new(env, settings, &tools, env.abort.clone(), lang).with_mode(mode).with_policies(policies).with_offer(offer);
    let Run { session, job, context, files, .. } = run;
    let here = || session.clone().unwrap_or_default();
    match job {
        Job::Send(text) => turn.send_with_files(session.clone(), &text, &context, files).await.map(drop),
        Job::Regenerate(message) => turn.regenerate(&here(), &message).await,
        Job::Continue(message) => turn.continue_answer(&here(), &message).await,
        Job::Edit { message, text } => turn.edit_and_resend(&here(), &message, &text).await,
        Job::Resume => turn.resume_tools(&here()).await,
        Job::Warm => {
            turn.warm(session.as_deref()).await;
            Ok(())
        }
    }
}

#[cfg(test)]
#[path = "turn_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "turn_dynamic_tests.rs"]
mod dynamic_tests;
