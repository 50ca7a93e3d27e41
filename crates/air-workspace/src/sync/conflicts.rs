//! What edits made apart on two devices left for the user to see: a
//! settings-like record (a session's title, the settings, a server, an
//! assistant) took the newest edit, and the other versions are kept
//! beside it (`RevEntry::superseded`) until the user dismisses them.
//!
//! The store keeps the list of such records under `sync:conflicts`
//! (updated with the bookkeeping itself, `store::conflicts_note`),
//! so finding them never reads every record's.

use air_store::SyncMeta;
use air_sync_local::records::{LocalError, Records};
use serde_json::Value;

use crate::sync::store::{StoreRecords, conflicts_key, conflicts_read, subject};

/// One record whose other versions are kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    /// Its document id (what [`dismiss`] takes).
    pub wire: String,
    /// What it is: `session`, `settings`, `server`, `assistant`, `http`
    /// (or the record kind).
    pub subject: String,
    /// Its title or name now.
    pub name: String,
    pub kept: Vec<Kept>,
}

/// A version that lost to a newer edit.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    /// When it was edited (ms since the epoch); `None`: never dated (what
    /// a device had before it joined the database).
    pub at: Option<f64>,
    /// Edited on this device.
    pub here: bool,
    /// What it had that the record now has not: (field, value) in short.
    pub changes: Vec<(String, String)>,
}

/// Fields that change with every edit, are this device's own, or what
/// the app learned of a model.
const SKIP: [&str; 9] = [crate::sync::prefs::AT, "updatedAt", "createdAt", "titleAt", "timestamp", "tools", "protocol", crate::sync::prefs::LEARNED[0], crate::sync::prefs::LEARNED[1]];

fn short(v: &Value) -> String {
    let text = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut out: String = text.chars().take(80).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// What `old` has that `now` has not (its secrets masked).
fn changes(old: &Value, now: Option<&Value>) -> Vec<(String, String)> {
    let Some(o) = old.as_object() else { return Vec::new() };
    o.iter().filter(|(k, v)| !SKIP.contains(&k.as_str()) && now.and_then(|n| n.get(k.as_str())) != Some(*v)).map(|(k, v)| (k.clone(), short(&masked(k, v)))).collect()
}

/// What stands for a secret a lost version had.
const MASK: &str = "••••";

/// Whether field `name` holds a secret (`apiKey`, a password, a token…).
fn secret_field(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["apikey", "api_key", "password", "passphrase", "secret", "token", "authorization"].iter().any(|w| lower.contains(w))
}

/// `v`, field `name`'s, with every secret in it masked: a secret field's
/// text, and every header's value (a server's `[name, value]` pairs, an
/// HTTP tool's `{name, value}`, a map of them), at any depth (a
/// profile's `apiKey` in the settings' `profiles`).
fn masked(name: &str, v: &Value) -> Value {
    let hide = |v: &Value| match v {
        Value::String(s) if s.is_empty() => v.clone(),
        Value::String(_) | Value::Number(_) => Value::String(MASK.into()),
        other => masked("", other),
    };
    match v {
        Value::String(_) if secret_field(name) => hide(v),
        Value::Array(items) if name.eq_ignore_ascii_case("headers") => Value::Array(
            items
                .iter()
                .map(|h| match h {
                    Value::Array(pair) => Value::Array(pair.iter().enumerate().map(|(i, p)| if i == 0 { p.clone() } else { hide(p) }).collect()),
                    Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), if k == "value" { hide(v) } else { masked(k, v) })).collect()),
                    other => hide(other),
                })
                .collect(),
        ),
        Value::Object(o) if name.eq_ignore_ascii_case("headers") => Value::Object(o.iter().map(|(k, v)| (k.clone(), hide(v))).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), masked(k, v))).collect()),
        Value::Array(items) => Value::Array(items.iter().map(|i| masked(name, i)).collect()),
        other => other.clone(),
    }
}

/// The records with kept versions, as the user sees them; `device`: this
/// one's id.
pub async fn list<S: air_store::Store + SyncMeta>(records: &StoreRecords<'_, S>, device: &str) -> Result<Vec<Conflict>, LocalError> {
    let kept = records.store.sync_get(&[conflicts_key()]).await.map_err(|e| LocalError::Store(e.to_string()))?;
    let wires: Vec<String> = conflicts_read(kept.first().and_then(Option::as_ref)).into_iter().collect();
    let mut out = Vec::new();
    for en in records.rev_entries(&wires).await?.into_iter().flatten().filter(|e| !e.superseded.is_empty()) {
        let now = records.read(&en.kind, &en.id).await?;
        let name = now.as_ref().and_then(|v| v.get("title").or(v.get("name"))).and_then(Value::as_str).unwrap_or_default().to_owned();
        // Kept before a version said nothing a user set was not (an older version of the app).
        let worth = |l: &&air_sync_local::records::Leaf| en.kind != "pref" || now.as_ref().is_none_or(|n| crate::sync::prefs::worth_keeping(&l.v, n));
        let kept: Vec<Kept> = en
            .superseded
            .iter()
            .filter(worth)
            .map(|l| Kept { at: (l.at > 0.0).then_some(l.at), here: l.dev == device, changes: changes(&l.v, now.as_ref()) })
            .filter(|k| !k.changes.is_empty())
            .collect();
        if kept.is_empty() {
            continue;
        }
        out.push(Conflict { wire: en.wire, subject: subject(&en.kind, &en.id), name, kept });
    }
    Ok(out)
}

/// The user has seen what record `wire` kept: it goes.
pub async fn dismiss<S: air_store::Store + SyncMeta>(records: &StoreRecords<'_, S>, wire: &str) -> Result<(), LocalError> {
    let Some(Some(mut en)) = records.rev_entries(&[wire.to_owned()]).await?.into_iter().next() else { return Ok(()) };
    en.superseded.clear();
    records.put_rev_entries(&[en]).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_a_lost_version_had_is_said_in_short() {
        let old = json!({"systemPrompt": "Answer in haiku.", "model": "m", "editedAt": 5, "long": "x".repeat(100)});
        let now = json!({"systemPrompt": "Answer in limericks.", "model": "m", "editedAt": 9});
        let c = changes(&old, Some(&now));
        assert_eq!(c[0], ("systemPrompt".to_owned(), "Answer in haiku.".to_owned()));
        assert_eq!(c[1].0, "long");
        assert!(c[1].1.ends_with('…') && c[1].1.chars().count() == 81);
        assert_eq!(c.len(), 2, "unchanged fields and dates are not said");
        let learned = json!({"systemPrompt": "p", "probedToolCalling": {}, "vision": {}});
        assert!(changes(&learned, Some(&json!({"systemPrompt": "p", "vision": {"u m": true}}))).is_empty(), "what the app learned is not said");
        assert_eq!(subject("pref", "server:abc"), "server");
        assert_eq!(subject("session", "s1"), "session");
    }

    #[test]
    fn a_lost_versions_keys_and_headers_are_masked() {
        let old = json!({
            "apiKey": "sk-live-0123456789",
            "profiles": [{"name": "work", "apiKey": "sk-work-0123456789"}],
            "headers": [["Authorization", "Bearer ghp_0123456789"], ["X-Team", "blue"]],
            "model": "m"
        });
        let now = json!({"apiKey": "sk-new", "profiles": [], "headers": [], "model": "n"});
        let said = changes(&old, Some(&now)).iter().map(|(f, v)| format!("{f}: {v}")).collect::<Vec<_>>().join("; ");
        assert!(!said.contains("0123456789") && !said.contains("blue"), "{said}");
        assert!(said.contains("apiKey: ••••") && said.contains("Authorization") && said.contains("\"work\"") && said.contains("model: m"), "{said}");
        let tool = json!({"headers": [{"name": "X-Api-Key", "value": "k-1", "secret": true}], "url": "https://a.test"});
        let said = changes(&tool, None);
        assert_eq!(said[0], ("headers".to_owned(), r#"[{"name":"X-Api-Key","value":"••••","secret":true}]"#.to_owned()));
        assert_eq!(said[1].1, "https://a.test");
        assert_eq!(masked("apiKey", &json!("")), json!(""), "an empty key is no secret to hide");
    }
}
