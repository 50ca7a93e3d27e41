//! The world a turn runs in ([`TurnEnv`]), what the page asks a turn to
//! do ([`Run`]), what a running turn sees of the core ([`Watch`]), and the
//! vocabulary of the kinds of tool ([`tools`]): shared by the platform,
//! the turn and the toolbox, naming none of them.

use std::cell::RefCell;
use std::rc::Rc;

use air_agent::NewFile;
use air_http::Abort;
use air_tools::policy::Policies;

use crate::Platform;

pub mod inbox;
pub mod tools;

/// What the page asks a turn to do in the open conversation.
#[derive(Debug)]
pub enum Job {
    /// A new user message (with what is attached to the next message).
    Send(String),
    /// A new answer in place of `message` (and nothing after it).
    Regenerate(String),
    /// `message`, cut off, goes on.
    Continue(String),
    /// The user message `message` changes; what followed it goes.
    Edit { message: String, text: String },
    /// The tool round a closed tab left: asked again, run again, answered.
    Resume,
    /// A model running in this page keeps what it read: the next
    /// message's request is read ahead while the user writes it
    /// (`air_agent::Turn::warm`). Not a turn: nothing is shown or saved,
    /// and a message sent meanwhile is not held back.
    Warm,
}

/// A [`Job`] with the session it runs in (`None`: a new one).
#[derive(Debug)]
pub struct Run {
    pub session: Option<String>,
    pub job: Job,
    /// With [`Job::Send`]: the context after the text (the attached
    /// resources) and the files attached.
    pub context: String,
    pub files: Vec<NewFile>,
    /// The preferences when it started: what it runs with is
    /// [`Run::inputs`].
    pub prefs: Box<crate::prefs::Prefs>,
}

impl Run {
    /// What the turn runs with, decided from the preferences as they were
    /// when it started ([`crate::prefs::Prefs::turn_inputs`]; run in the
    /// turn's part, so the first load does not carry it).
    pub fn inputs(&self) -> crate::prefs::Inputs {
        self.prefs.turn_inputs(self.session.as_deref().unwrap_or(air_store::mcp::NEW_CHAT))
    }
}

/// The world a turn runs in: the platform, and the core's answers.
pub struct TurnEnv<P: Platform> {
    pub(crate) p: Rc<P>,
    pub(crate) store: Rc<P::Store>,
    pub(crate) watch: Rc<Watch>,
    pub(crate) abort: Abort,
    /// The policies the turn runs with (a change since "yes" is shown).
    pub(crate) policies: RefCell<Policies>,
    /// Kinds of tool a test adds to those of `crate::toolbox::kinds`.
    #[cfg(test)]
    pub(crate) more_kinds: tools::Kinds<P>,
}

impl<P: Platform> TurnEnv<P> {
    pub fn platform(&self) -> &Rc<P> {
        &self.p
    }
}

/// What a running turn sees of the core (it runs outside [`Workspace::handle`]).
#[derive(Debug, Default)]
pub struct Watch {
    /// The messages shown, by id and place, in order (the open chat's).
    pub(crate) shown: RefCell<Vec<(String, f64)>>,
    /// The answer this tab streams, shown live instead of as its record.
    pub(crate) live: RefCell<Option<String>>,
    /// Answers other tabs are streaming.
    pub(crate) remote: RefCell<Vec<String>>,
    /// The session deleted and waiting for its undo window to close.
    pub(crate) deleting: RefCell<Option<String>>,
}
