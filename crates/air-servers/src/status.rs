//! Where one saved server stands, as the page shows it: one value made
//! from what its session says ([`Connection`]), whether it is switched on,
//! and whether it waits for the user to sign in.

use air_mcp::Connection;

/// A saved server's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    /// Switched off, or no session tried yet.
    Off,
    Connecting,
    /// Its session is being started again (expired, or the server restarted).
    Reconnecting,
    /// Ready, speaking this protocol revision.
    Ready {
        version: String,
    },
    /// It refused the page until the user signs in (a sign-in waits to be started).
    NeedsSignIn,
    /// It could not be reached or refused the session, with why.
    Failed {
        reason: String,
    },
}

impl ServerState {
    /// From the server's switch, its session's last word, and whether a
    /// sign-in is asked for its URL. A sign-in asked for wins over the
    /// failure it caused; a switched-off server is off whatever its
    /// session said last.
    pub fn of(enabled: bool, connection: Option<&Connection>, needs_sign_in: bool) -> Self {
        if !enabled {
            return ServerState::Off;
        }
        match connection {
            _ if needs_sign_in => ServerState::NeedsSignIn,
            None => ServerState::Off,
            Some(Connection::Connecting) => ServerState::Connecting,
            Some(Connection::Reconnecting) => ServerState::Reconnecting,
            Some(Connection::Connected { version }) => ServerState::Ready { version: version.clone() },
            Some(Connection::Failed { reason }) => ServerState::Failed { reason: reason.clone() },
        }
    }

    /// A stable name for styles and tests: `off`, `connecting`,
    /// `reconnecting`, `connected`, `sign-in` or `failed`.
    pub fn key(&self) -> &'static str {
        match self {
            ServerState::Off => "off",
            ServerState::Connecting => "connecting",
            ServerState::Reconnecting => "reconnecting",
            ServerState::Ready { .. } => "connected",
            ServerState::NeedsSignIn => "sign-in",
            ServerState::Failed { .. } => "failed",
        }
    }

    /// Its tools can be called now.
    pub fn is_ready(&self) -> bool {
        matches!(self, ServerState::Ready { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_state_comes_from_the_switch_the_session_and_the_sign_in() {
        let failed = Connection::Failed { reason: "HTTP 401".into() };
        let ready = Connection::Connected { version: "2025-11-25".into() };
        let table = [
            (false, Some(&ready), false, ServerState::Off),
            (false, None, true, ServerState::Off),
            (true, None, false, ServerState::Off),
            (true, Some(&Connection::Connecting), false, ServerState::Connecting),
            (true, Some(&Connection::Reconnecting), false, ServerState::Reconnecting),
            (true, Some(&ready), false, ServerState::Ready { version: "2025-11-25".into() }),
            (true, Some(&failed), false, ServerState::Failed { reason: "HTTP 401".into() }),
            (true, Some(&failed), true, ServerState::NeedsSignIn),
            (true, None, true, ServerState::NeedsSignIn),
        ];
        for (enabled, connection, sign_in, want) in table {
            assert_eq!(ServerState::of(enabled, connection, sign_in), want, "{enabled} {connection:?} {sign_in}");
        }
        let keys: Vec<&str> = [
            ServerState::Off,
            ServerState::Connecting,
            ServerState::Reconnecting,
            ServerState::Ready { version: String::new() },
            ServerState::NeedsSignIn,
            ServerState::Failed { reason: String::new() },
        ]
        .iter()
        .map(ServerState::key)
        .collect();
        assert_eq!(keys, ["off", "connecting", "reconnecting", "connected", "sign-in", "failed"]);
        assert!(ServerState::of(true, Some(&ready), false).is_ready());
        assert!(!ServerState::NeedsSignIn.is_ready());
    }
}
