//! What the client needs from where it runs, and what it tells it.

use futures_util::future::LocalBoxFuture;
use serde_json::Value;

/// Something a server announced outside any answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// `notifications/tools/list_changed`: list the tools again.
    ToolsChanged,
    PromptsChanged,
    ResourcesChanged,
    /// `notifications/resources/updated` for a subscribed resource.
    ResourceUpdated {
        uri: String,
    },
    /// `notifications/message`: a log line.
    Log {
        level: String,
        logger: Option<String>,
        data: Value,
    },
    /// A listed tool was left out: it could not be called as described.
    ToolRefused {
        tool: String,
        reason: String,
    },
}

/// Where the session with a server stands, for the user to see.
#[derive(Debug, Clone, PartialEq)]
pub enum Connection {
    Connecting,
    /// A session existed and is being started again (it expired, or the
    /// server restarted).
    Reconnecting,
    Connected {
        version: String,
    },
    Failed {
        reason: String,
    },
}

/// What the client needs from where it runs: a timer, and someone to tell
/// about the server's announcements.
pub trait ClientHost {
    /// Resolves after `ms` milliseconds.
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()>;
    fn notice(&self, _notice: Notice) {}
    /// A session started: a good time to [`McpClient::listen`](crate::McpClient::listen).
    fn connected(&self) {}
    /// The session's state changed.
    fn connection(&self, _state: Connection) {}
    /// The time now, in milliseconds since the epoch. Without a clock,
    /// nothing is cached (results with `ttlMs` are asked for every time).
    fn now_ms(&self) -> Option<u64> {
        None
    }
}

/// A host without a timer: waits are not waited (tests, tools).
pub(crate) struct Immediate;

impl ClientHost for Immediate {
    fn sleep(&self, _ms: u64) -> LocalBoxFuture<'static, ()> {
        Box::pin(async {})
    }
}
