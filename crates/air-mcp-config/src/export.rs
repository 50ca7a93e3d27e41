//! Saved servers written as an `mcpServers` configuration (read by
//! Cursor, Claude Code, Windsurf and this app): each server's address and
//! headers; a header whose value looks like a secret only when asked for.

use serde_json::{Map, Value, json};

use crate::secret;

/// A saved server, as exported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    pub name: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
}

/// The configuration's text, and how many secret headers were left out.
pub fn export(servers: &[Saved], secrets: bool) -> (String, usize) {
    let mut left_out = 0;
    let mut all = Map::new();
    for s in servers {
        let mut headers = Map::new();
        for (k, v) in &s.headers {
            if secrets || !secret::looks_secret(k, v) {
                headers.insert(k.clone(), Value::String(v.clone()));
            } else {
                left_out += 1;
            }
        }
        let mut entry = json!({"type": "http", "url": s.url});
        if !headers.is_empty() {
            entry["headers"] = Value::Object(headers);
        }
        all.insert(s.name.clone(), entry);
    }
    let text = serde_json::to_string_pretty(&json!({"mcpServers": all})).unwrap_or_default();
    (text, left_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_reads_back_as_the_same_servers_and_keeps_secrets_only_when_asked() {
        let saved = vec![Saved { name: "docs".into(), url: "https://mcp.example/mcp".into(), headers: vec![("Authorization".into(), "Bearer s3cret-token".into()), ("X-Team".into(), "blue".into())] }];
        let (text, left_out) = export(&saved, false);
        assert_eq!(left_out, 1);
        assert!(!text.contains("s3cret"));
        let back = crate::parse(&text).expect("reads back");
        assert_eq!(back.entries[0].name, "docs");
        assert_eq!(
            back.entries[0].server,
            crate::Server::Remote { url: "https://mcp.example/mcp".into(), transport: crate::Transport::StreamableHttp, headers: vec![("X-Team".into(), "blue".into())] }
        );
        let (with, none) = export(&saved, true);
        assert_eq!(none, 0);
        assert!(with.contains("Bearer s3cret-token"));
    }
}
