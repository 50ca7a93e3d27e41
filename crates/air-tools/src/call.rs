//! What a running call can do besides return: report progress and ask the
//! user for input (MCP elicitation), and learn that it was stopped.

use air_http::Abort;
use futures_util::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How far a long call has come (MCP `notifications/progress`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Grows with every report; a fraction of `total` when that is known.
    pub progress: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Progress {
    /// Done so far, from 0 to 1, when the total is known.
    pub fn fraction(&self) -> Option<f64> {
        self.total.filter(|t| *t > 0.0).map(|t| (self.progress / t).clamp(0.0, 1.0))
    }
}

/// A question a tool asks the user while it runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "camelCase")]
pub enum Elicitation {
    /// Fill in a form: `schema` is a flat object schema of primitive
    /// fields (MCP `requestedSchema`).
    Form { message: String, schema: Value },
    /// Open `url` (after the user agrees) and finish there.
    Url { message: String, url: String },
}

impl Elicitation {
    pub fn message(&self) -> &str {
        match self {
            Elicitation::Form { message, .. } | Elicitation::Url { message, .. } => message,
        }
    }
}

/// The user's answer to an [`Elicitation`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum ElicitAnswer {
    /// Submitted (the form's values; an empty object for a URL).
    Accept { content: Value },
    /// Said no.
    Decline,
    /// Closed the question without choosing.
    Cancel,
}

/// Where a call reports to. The agent shows progress on the call's card
/// and asks the user there.
pub trait CallHost {
    fn progress(&self, progress: Progress);
    fn elicit(&self, request: Elicitation) -> LocalBoxFuture<'_, ElicitAnswer>;
    /// The conversation the call belongs to (`None`: none, as for a call
    /// nobody watches). A tool that reads the conversation's files asks.
    fn session(&self) -> Option<&str> {
        None
    }
}

/// A host for calls nobody watches: progress is dropped and questions are
/// declined.
pub struct Unattended;

impl CallHost for Unattended {
    fn progress(&self, _progress: Progress) {}

    fn elicit(&self, _request: Elicitation) -> LocalBoxFuture<'_, ElicitAnswer> {
        Box::pin(async { ElicitAnswer::Decline })
    }
}

/// Given to [`crate::Tool::call`].
#[derive(Clone, Copy)]
pub struct CallContext<'a> {
    /// Fires when the user stops the turn. A tool that has work elsewhere
    /// (a server) cancels it there and returns soon after.
    pub abort: &'a Abort,
    pub host: &'a dyn CallHost,
}
