//! What one tab tells the others after it writes (sent over a
//! BroadcastChannel as JSON), so every open tab shows the same data.

use serde::Serialize;

/// Name of the channel.
pub const CHANNEL: &str = "air-agent-sync";

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum SyncEvent {
    /// A session's record or messages changed.
    #[serde(rename_all = "camelCase")]
    SessionChanged { session_id: String },
    /// A session was deleted.
    #[serde(rename_all = "camelCase")]
    SessionDeleted { session_id: String },
    /// Many sessions may have changed (an import).
    SessionsChanged,
    /// The preferences kept changed (written, or pulled by sync).
    PrefsChanged,
    /// A tab started (`active: true`) or finished streaming into a message.
    #[serde(rename_all = "camelCase")]
    Streaming { session_id: String, message_id: String, active: bool },
}

impl SyncEvent {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// `None` for anything that is not a sync event (other apps, other
    /// versions). Read by hand from a JSON value: every tab reads these
    /// from its first moment, and a derived reader costs the first load
    /// several KB more.
    pub fn parse(text: &str) -> Option<Self> {
        let v: serde_json::Value = serde_json::from_str(text).ok()?;
        let s = |k: &str| v.get(k).and_then(serde_json::Value::as_str).map(str::to_owned);
        match v.get("type")?.as_str()? {
            "sessionChanged" => Some(Self::SessionChanged { session_id: s("sessionId")? }),
            "sessionDeleted" => Some(Self::SessionDeleted { session_id: s("sessionId")? }),
            "sessionsChanged" => Some(Self::SessionsChanged),
            "prefsChanged" => Some(Self::PrefsChanged),
            "streaming" => Some(Self::Streaming { session_id: s("sessionId")?, message_id: s("messageId")?, active: v.get("active")?.as_bool()? }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_unknown_messages() {
        let e = SyncEvent::SessionChanged { session_id: "s1".into() };
        assert_eq!(e.to_json(), r#"{"type":"sessionChanged","sessionId":"s1"}"#);
        assert_eq!(SyncEvent::parse(&e.to_json()), Some(e));
        assert_eq!(SyncEvent::parse(r#"{"type":"somethingNew"}"#), None);
        let s = SyncEvent::Streaming { session_id: "s".into(), message_id: "m".into(), active: true };
        assert_eq!(s.to_json(), r#"{"type":"streaming","sessionId":"s","messageId":"m","active":true}"#);
        assert_eq!(SyncEvent::parse("garbage"), None);
        assert_eq!(SyncEvent::parse(&SyncEvent::PrefsChanged.to_json()), Some(SyncEvent::PrefsChanged));
        assert_eq!(SyncEvent::parse(&s.to_json()), Some(s));
        for e in [SyncEvent::SessionDeleted { session_id: "x".into() }, SyncEvent::SessionsChanged] {
            assert_eq!(SyncEvent::parse(&e.to_json()), Some(e));
        }
        assert_eq!(SyncEvent::parse(r#"{"type":"streaming","sessionId":"s"}"#), None, "a field missing");
        assert_eq!(SyncEvent::parse(r#"{"type":"sessionChanged","sessionId":7}"#), None, "a field of another type");
    }
}
