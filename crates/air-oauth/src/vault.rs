//! What is kept between visits: clients by issuer (one registration per
//! authorization server, shared by its resources), and each MCP server's
//! grant (what discovery found, and the tokens) by the server's URL. The
//! host stores it as JSON (the page: localStorage), never in exports.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::flow::{Client, Discovery, Tokens};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vault {
    pub clients: BTreeMap<String, Client>,
    pub grants: BTreeMap<String, Grant>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    pub discovery: Discovery,
    pub tokens: Tokens,
}

impl Vault {
    /// Reads stored JSON; anything unreadable is an empty vault (signing
    /// in again is the cure, and nothing else depends on it).
    pub fn from_json(text: Option<&str>) -> Self {
        text.and_then(|t| serde_json::from_str(t).ok()).unwrap_or_default()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn grant(&self, server_url: &str) -> Option<&Grant> {
        self.grants.get(server_url.trim())
    }

    /// The grant and the client it was given to.
    pub fn grant_and_client(&self, server_url: &str) -> Option<(&Grant, &Client)> {
        let grant = self.grant(server_url)?;
        Some((grant, self.clients.get(&grant.discovery.server.issuer)?))
    }

    pub fn put_grant(&mut self, server_url: &str, discovery: Discovery, tokens: Tokens) {
        self.grants.insert(server_url.trim().to_owned(), Grant { discovery, tokens });
    }

    pub fn forget(&mut self, server_url: &str) {
        self.grants.remove(server_url.trim());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AuthServer;

    #[test]
    fn grants_by_server_clients_by_issuer_and_junk_is_empty() {
        let server = AuthServer {
            issuer: "https://as.example".into(),
            authorization_endpoint: "https://as.example/a".into(),
            token_endpoint: "https://as.example/t".into(),
            registration_endpoint: None,
            scopes_supported: vec![],
            token_endpoint_auth_methods_supported: vec![],
            client_id_metadata_document_supported: false,
            authorization_response_iss_parameter_supported: false,
        };
        let d = Discovery { resource: "https://mcp.example/mcp".into(), server, scope: None };
        let t = Tokens { access_token: "a".into(), token_type: "Bearer".into(), refresh_token: None, expires_at: None, scope: None, obtained_at: None };
        let mut v = Vault::default();
        v.clients.insert("https://as.example".into(), Client { client_id: "c".into(), client_secret: None, auth_method: "none".into() });
        v.put_grant(" https://mcp.example/mcp ", d, t);
        let back = Vault::from_json(Some(&v.to_json()));
        assert_eq!(back, v);
        assert_eq!(back.grant_and_client("https://mcp.example/mcp").map(|(_, c)| c.client_id.as_str()), Some("c"));
        let mut v = back;
        v.forget("https://mcp.example/mcp");
        assert!(v.grant("https://mcp.example/mcp").is_none());
        assert_eq!(Vault::from_json(Some("{not json")), Vault::default());
        assert_eq!(Vault::from_json(None), Vault::default());
    }
}
