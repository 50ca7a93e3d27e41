//! Where an MCP server's authorization metadata lives, and what it says.

use serde_json::Value;

use crate::url::split;

/// RFC 9728 protected-resource metadata URLs to try, in order: the one
/// the 401 named, else at the server URL's path, then at the root.
pub fn protected_resource_urls(server_url: &str, named: Option<&str>) -> Vec<String> {
    if let Some(url) = named {
        return vec![url.to_owned()];
    }
    let Some((origin, path, _)) = split(server_url) else { return Vec::new() };
    let path = path.trim_end_matches('/');
    let mut out = Vec::new();
    if !path.is_empty() {
        out.push(format!("{origin}/.well-known/oauth-protected-resource{path}"));
    }
    out.push(format!("{origin}/.well-known/oauth-protected-resource"));
    out
}

/// Authorization-server metadata URLs to try for `issuer`, in order:
/// RFC 8414 with the path inserted, OpenID Connect with the path
/// inserted, then OpenID Connect with the path appended (or, for an
/// issuer without a path, the two well-known documents at the root).
pub fn auth_server_urls(issuer: &str) -> Vec<String> {
    let Some((origin, path, _)) = split(issuer) else { return Vec::new() };
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        return vec![format!("{origin}/.well-known/oauth-authorization-server"), format!("{origin}/.well-known/openid-configuration")];
    }
    vec![format!("{origin}/.well-known/oauth-authorization-server{path}"), format!("{origin}/.well-known/openid-configuration{path}"), format!("{origin}{path}/.well-known/openid-configuration")]
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key).and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect()).unwrap_or_default()
}

fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// What the MCP server says about itself (RFC 9728).
/// Why metadata a server published cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetadataError {
    #[error("the protected-resource metadata is not a JSON object")]
    ResourceNotObject,
    #[error("the protected-resource metadata names no authorization server")]
    NoAuthServer,
    #[error("the authorization server's metadata is not a JSON object")]
    ServerNotObject,
    #[error("the authorization server's metadata has no issuer")]
    NoIssuer,
    #[error("the authorization server calls itself {found}, not {expected}")]
    OtherIssuer { found: String, expected: String },
    #[error("the authorization server does not say that it supports PKCE (code_challenge_methods_supported)")]
    NoPkce,
    #[error("the authorization server does not offer PKCE with S256 (only {0})")]
    NoS256(String),
    #[error("the authorization server names no {0} endpoint")]
    NoEndpoint(&'static str),
    #[error("the authorization server names an endpoint that is neither https nor on this machine: {0}")]
    UnsafeEndpoint(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedResource {
    pub resource: Option<String>,
    pub authorization_servers: Vec<String>,
    pub scopes_supported: Vec<String>,
}

impl ProtectedResource {
    pub fn from_json(v: &Value) -> Result<Self, MetadataError> {
        if !v.is_object() {
            return Err(MetadataError::ResourceNotObject);
        }
        let authorization_servers = strings(v, "authorization_servers");
        if authorization_servers.is_empty() {
            return Err(MetadataError::NoAuthServer);
        }
        Ok(Self { resource: string(v, "resource"), authorization_servers, scopes_supported: strings(v, "scopes_supported") })
    }
}

/// What the authorization server says about itself (RFC 8414 / OpenID).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AuthServer {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub registration_endpoint: Option<String>,
    pub scopes_supported: Vec<String>,
    pub token_endpoint_auth_methods_supported: Vec<String>,
    /// The server accepts a URL as client id (Client ID Metadata Document).
    pub client_id_metadata_document_supported: bool,
    /// The server puts `iss` in its redirects (RFC 9207).
    pub authorization_response_iss_parameter_supported: bool,
}

impl AuthServer {
    /// Reads and checks the metadata found at a URL derived from
    /// `expected_issuer`: the issuer must be that one (RFC 8414 §3.3), and
    /// S256 must be offered (without `code_challenge_methods_supported`
    /// the server may not do PKCE at all, and MCP forbids going on).
    /// `None`: the server named no issuer (2025-03-26, metadata at the MCP
    /// server's origin), so any is taken.
    pub fn from_json(v: &Value, expected_issuer: Option<&str>) -> Result<Self, MetadataError> {
        if !v.is_object() {
            return Err(MetadataError::ServerNotObject);
        }
        let issuer = string(v, "issuer").ok_or(MetadataError::NoIssuer)?;
        // Identical to the issuer the metadata's URL was built from (RFC
        // 8414 §3.3), compared as strings.
        if let Some(expected) = expected_issuer.filter(|e| issuer != *e) {
            return Err(MetadataError::OtherIssuer { found: issuer, expected: expected.to_owned() });
        }
        let methods = strings(v, "code_challenge_methods_supported");
        if methods.is_empty() {
            return Err(MetadataError::NoPkce);
        }
        if !methods.iter().any(|m| m == "S256") {
            return Err(MetadataError::NoS256(methods.join(", ")));
        }
        let authorization_endpoint = string(v, "authorization_endpoint").ok_or(MetadataError::NoEndpoint("authorization"))?;
        let token_endpoint = string(v, "token_endpoint").ok_or(MetadataError::NoEndpoint("token"))?;
        let registration_endpoint = string(v, "registration_endpoint");
        for endpoint in [Some(&authorization_endpoint), Some(&token_endpoint), registration_endpoint.as_ref()].into_iter().flatten() {
            if !crate::url::endpoint_ok(endpoint) {
                return Err(MetadataError::UnsafeEndpoint(endpoint.clone()));
            }
        }
        Ok(Self {
            issuer,
            authorization_endpoint,
            token_endpoint,
            registration_endpoint,
            scopes_supported: strings(v, "scopes_supported"),
            token_endpoint_auth_methods_supported: strings(v, "token_endpoint_auth_methods_supported"),
            client_id_metadata_document_supported: v.get("client_id_metadata_document_supported").and_then(Value::as_bool).unwrap_or(false),
            authorization_response_iss_parameter_supported: v.get("authorization_response_iss_parameter_supported").and_then(Value::as_bool).unwrap_or(false),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn protected_resource_metadata_at_the_path_then_the_root() {
        assert_eq!(
            protected_resource_urls("https://mcp.example.com/public/mcp", None),
            ["https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp", "https://mcp.example.com/.well-known/oauth-protected-resource"]
        );
        assert_eq!(protected_resource_urls("https://mcp.example.com/", None), ["https://mcp.example.com/.well-known/oauth-protected-resource"]);
        assert_eq!(protected_resource_urls("https://mcp.example.com/mcp", Some("https://x/prm")), ["https://x/prm"]);
    }

    #[test]
    fn authorization_server_metadata_with_path_insertion_then_openid() {
        assert_eq!(
            auth_server_urls("https://auth.example.com/tenant1"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(auth_server_urls("https://auth.example.com"), ["https://auth.example.com/.well-known/oauth-authorization-server", "https://auth.example.com/.well-known/openid-configuration"]);
    }

    #[test]
    fn metadata_is_checked() {
        let ok = json!({"issuer": "https://as.example", "authorization_endpoint": "https://as.example/a", "token_endpoint": "https://as.example/t",
            "code_challenge_methods_supported": ["S256"], "client_id_metadata_document_supported": true});
        let m = AuthServer::from_json(&ok, Some("https://as.example")).unwrap();
        // RFC 8414 §3.3: identical, not merely alike.
        assert!(AuthServer::from_json(&ok, Some("https://as.example/")).unwrap_err().to_string().contains("calls itself"));
        assert!(m.client_id_metadata_document_supported);
        assert_eq!(m.registration_endpoint, None);
        let mut no_pkce = ok.clone();
        no_pkce.as_object_mut().unwrap().remove("code_challenge_methods_supported");
        assert!(AuthServer::from_json(&no_pkce, Some("https://as.example")).unwrap_err().to_string().contains("PKCE"));
        let mut plain = ok.clone();
        plain["code_challenge_methods_supported"] = json!(["plain"]);
        assert!(AuthServer::from_json(&plain, Some("https://as.example")).unwrap_err().to_string().contains("S256"));
        assert!(AuthServer::from_json(&ok, Some("https://evil.example")).unwrap_err().to_string().contains("calls itself"));
        assert!(AuthServer::from_json(&ok, None).is_ok(), "a 2025-03-26 server named no issuer");
        assert!(AuthServer::from_json(&json!([1]), None).is_err());
        assert!(ProtectedResource::from_json(&json!({"resource": "x"})).is_err());
    }
}
