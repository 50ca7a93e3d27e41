//! The authorization steps, over any [`HttpClient`]. The one step that
//! needs the user, opening [`Pending::authorize_url`] and coming back to
//! the redirect URI, is the host's: a popup or a full-page redirect in the
//! page, a plain GET whose redirect is read in the command-line client.

use air_http::{Abort, Body, HttpClient, HttpError, Request};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::challenge::Challenge;
use crate::discovery::{AuthServer, ProtectedResource, auth_server_urls, protected_resource_urls};
use crate::pkce;
use crate::url::{canonical_resource, is_secure, origin, query_pairs, resource_covers, with_query};

/// Why authorization did not succeed, said so that a user can act on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OAuthError {
    /// A request got no answer (down, or no CORS for this page): which
    /// endpoint, and what the network said.
    Network {
        url: String,
        detail: String,
    },
    Aborted,
    /// Metadata missing or unusable.
    Metadata(String),
    /// No client id could be had.
    Client(String),
    /// The user or the authorization server said no.
    Denied {
        error: String,
        description: Option<String>,
    },
    /// The redirect back does not belong to this request.
    Callback(String),
    /// The token endpoint refused.
    Token {
        status: u16,
        error: Option<String>,
        description: Option<String>,
    },
}

impl std::fmt::Display for OAuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OAuthError::Network { url, detail } => write!(f, "could not reach {url} ({detail})"),
            OAuthError::Aborted => f.write_str("stopped"),
            OAuthError::Metadata(m) | OAuthError::Client(m) | OAuthError::Callback(m) => f.write_str(m),
            OAuthError::Denied { error, description } => match description {
                Some(d) => write!(f, "authorization refused: {error} ({d})"),
                None => write!(f, "authorization refused: {error}"),
            },
            OAuthError::Token { status, error, description } => {
                write!(f, "the token endpoint answered {status}")?;
                if let Some(e) = error {
                    write!(f, ": {e}")?;
                }
                if let Some(d) = description {
                    write!(f, " ({d})")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for OAuthError {}

/// This client, as authorization servers see it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Settings {
    /// Where the authorization server sends the user back.
    pub redirect_uri: String,
    pub client_name: String,
    /// A client id the user entered for this server, and its secret.
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    /// The URL of this client's Client ID Metadata Document, where the
    /// deployment serves one (the URL is then the client id).
    pub metadata_document: Option<String>,
}

/// The OpenID registration `application_type` for a client that is sent
/// back to `redirect_uri`: `native` for this machine (the command line,
/// and a page served from localhost), whose loopback redirect a `web`
/// client may not register; `web` for a page on a real host.
pub fn application_type(redirect_uri: &str) -> &'static str {
    match crate::url::origin(redirect_uri) {
        Some(origin) if !air_http::url::is_loopback_url(origin) => "web",
        // This machine, or not http(s): a custom scheme, which only native
        // apps have.
        _ => "native",
    }
}

/// What discovery found for one MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discovery {
    /// The `resource` to ask tokens for (RFC 8707).
    pub resource: String,
    pub server: AuthServer,
    /// The scope to ask for: the 401's, else all the resource supports.
    pub scope: Option<String>,
}

/// A client id at one authorization server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Client {
    pub client_id: String,
    pub client_secret: Option<String>,
    /// `none`, `client_secret_basic` or `client_secret_post`.
    pub auth_method: String,
}

/// An authorization under way: everything needed to finish it, so that a
/// full-page redirect can store it and resume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    pub authorize_url: String,
    pub state: String,
    pub verifier: String,
    pub redirect_uri: String,
    pub discovery: Discovery,
    pub client: Client,
}

/// Tokens for one resource, from one issuer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub access_token: String,
    pub token_type: String,
    pub refresh_token: Option<String>,
    /// Milliseconds since the epoch.
    pub expires_at: Option<u64>,
    pub scope: Option<String>,
    /// When they were issued (milliseconds since the epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obtained_at: Option<u64>,
}

impl Tokens {
    /// Expired, or about to be within `margin_ms`.
    pub fn expires_within(&self, now_ms: u64, margin_ms: u64) -> bool {
        self.expires_at.is_some_and(|at| now_ms.saturating_add(margin_ms) >= at)
    }

    /// Worth refreshing before use: within `margin_ms` of its end, but not
    /// in the first half of its life (a short-lived token is not refreshed
    /// at every use).
    pub fn due_for_refresh(&self, now_ms: u64, margin_ms: u64) -> bool {
        let margin = match (self.obtained_at, self.expires_at) {
            (Some(from), Some(at)) if at > from => margin_ms.min((at - from) / 2),
            _ => margin_ms,
        };
        self.expires_within(now_ms, margin)
    }

    /// The `Authorization` header value.
    pub fn header(&self) -> String {
        format!("Bearer {}", self.access_token)
    }
}

/// The scope to ask for after a 403 `insufficient_scope`: what was held,
/// and what the server asks for (RFC 6750 scope tokens, each once).
pub fn step_up_scope(held: Option<&str>, required: Option<&str>) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for s in held.into_iter().chain(required).flat_map(str::split_whitespace) {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    (!out.is_empty()).then(|| out.join(" "))
}

/// The steps of authorization, over `http`.
pub struct OAuth<H> {
    http: H,
    settings: Settings,
    /// Sent on metadata requests, as MCP asks.
    protocol_version: Option<String>,
}

impl<H: HttpClient> OAuth<H> {
    pub fn new(http: H, settings: Settings) -> Self {
        Self { http, settings, protocol_version: None }
    }

    pub fn with_protocol_version(mut self, v: Option<&str>) -> Self {
        self.protocol_version = v.map(str::to_owned);
        self
    }

    pub fn http(&self) -> &H {
        &self.http
    }

    async fn get_json(&self, url: &str, abort: &Abort) -> Result<Option<Value>, OAuthError> {
        let mut r = Request::get(url).header("Accept", "application/json");
        if let Some(v) = &self.protocol_version {
            r = r.header("MCP-Protocol-Version", v);
        }
        let response = self.http.send(r, abort).await.map_err(|e| net(url, e))?;
        if !response.ok() {
            return Ok(None);
        }
        let text = response.body.text().await.map_err(|e| net(url, e))?;
        Ok(serde_json::from_str(&text).ok())
    }

    /// Finds the authorization server of the MCP server at `server_url`,
    /// from its 401 `challenge` if there was one.
    pub async fn discover(&self, server_url: &str, challenge: Option<&Challenge>, abort: &Abort) -> Result<Discovery, OAuthError> {
        let server_origin = origin(server_url).ok_or_else(|| OAuthError::Metadata(format!("not an http(s) URL: {server_url}")))?;
        let mut resource_meta = None;
        for url in protected_resource_urls(server_url, challenge.and_then(Challenge::resource_metadata)) {
            if let Some(v) = self.get_json(&url, abort).await? {
                resource_meta = Some(ProtectedResource::from_json(&v).map_err(|e| OAuthError::Metadata(e.to_string()))?);
                break;
            }
        }
        // Without protected-resource metadata (servers of 2025-03-26), the
        // authorization server is at the MCP server's origin.
        let issuer = match &resource_meta {
            Some(m) => m.authorization_servers[0].clone(),
            None => server_origin.to_owned(),
        };
        let mut server = None;
        for url in auth_server_urls(&issuer) {
            if let Some(v) = self.get_json(&url, abort).await? {
                let expected = resource_meta.as_ref().map(|_| issuer.as_str());
                server = Some(AuthServer::from_json(&v, expected).map_err(|e| OAuthError::Metadata(e.to_string()))?);
                break;
            }
        }
        let server = match (server, &resource_meta) {
            (Some(s), _) => s,
            // 2025-03-26 servers without metadata: the default endpoints.
            (None, None) => AuthServer {
                issuer: issuer.clone(),
                authorization_endpoint: format!("{issuer}/authorize"),
                token_endpoint: format!("{issuer}/token"),
                registration_endpoint: Some(format!("{issuer}/register")),
                scopes_supported: Vec::new(),
                token_endpoint_auth_methods_supported: Vec::new(),
                client_id_metadata_document_supported: false,
                authorization_response_iss_parameter_supported: false,
            },
            (None, Some(_)) => return Err(OAuthError::Metadata(format!("the authorization server {issuer} publishes no metadata"))),
        };
        let canonical = canonical_resource(server_url).unwrap_or_else(|| server_url.to_owned());
        let resource = match resource_meta.as_ref().and_then(|m| m.resource.clone()) {
            // The metadata must be about this server (RFC 9728 §3.3).
            Some(r) if !resource_covers(&r, &canonical) => {
                return Err(OAuthError::Metadata(format!("the protected-resource metadata is for {r}, not {canonical}")));
            }
            Some(r) => r,
            None => canonical,
        };
        let scope = challenge.and_then(Challenge::scope).map(str::to_owned).or_else(|| resource_meta.as_ref().filter(|m| !m.scopes_supported.is_empty()).map(|m| m.scopes_supported.join(" ")));
        Ok(Discovery { resource, server, scope })
    }

    /// A client id at the authorization server: the one the user entered,
    /// else this client's metadata document (where the server accepts
    /// one), else one registered now (RFC 7591).
    pub async fn client(&self, discovery: &Discovery, abort: &Abort) -> Result<Client, OAuthError> {
        let server = &discovery.server;
        if let Some(id) = &self.settings.client_id {
            let secret = self.settings.client_secret.clone().filter(|s| !s.is_empty());
            let supported = &server.token_endpoint_auth_methods_supported;
            let auth_method = match &secret {
                None => "none",
                Some(_) if supported.iter().any(|m| m == "client_secret_basic") || supported.is_empty() => "client_secret_basic",
                Some(_) => "client_secret_post",
            };
            return Ok(Client { client_id: id.clone(), client_secret: secret, auth_method: auth_method.into() });
        }
        if let (true, Some(url)) = (server.client_id_metadata_document_supported, &self.settings.metadata_document) {
            return Ok(Client { client_id: url.clone(), client_secret: None, auth_method: "none".into() });
        }
        let Some(endpoint) = &server.registration_endpoint else {
            return Err(OAuthError::Client(format!("{} registers no clients by itself: enter a client id for this server", server.issuer)));
        };
        let mut body = json!({
            "client_name": self.settings.client_name,
            "redirect_uris": [self.settings.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            "application_type": application_type(&self.settings.redirect_uri),
        });
        if let Some(scope) = &discovery.scope {
            body["scope"] = json!(scope);
        }
        let request = Request::post_json(endpoint, body.to_string()).header("Accept", "application/json");
        let response = self.http.send(request, abort).await.map_err(|e| net(endpoint, e))?;
        let status = response.status;
        let text = response.body.text().await.map_err(|e| net(endpoint, e))?;
        let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let Some(client_id) = v.get("client_id").and_then(Value::as_str).filter(|_| (200..300).contains(&status)) else {
            let why = v.get("error_description").or(v.get("error")).and_then(Value::as_str).map_or_else(|| format!("HTTP {status}"), str::to_owned);
            return Err(OAuthError::Client(format!("{endpoint} did not register this client: {why}")));
        };
        let client_secret = v.get("client_secret").and_then(Value::as_str).map(str::to_owned);
        let auth_method = v.get("token_endpoint_auth_method").and_then(Value::as_str).unwrap_or(if client_secret.is_some() { "client_secret_basic" } else { "none" });
        Ok(Client { client_id: client_id.to_owned(), client_secret, auth_method: auth_method.to_owned() })
    }

    /// The authorization request: a URL for the user to open. `random`
    /// gives the PKCE verifier (its first 32 bytes) and `state` (the rest).
    pub fn begin(&self, discovery: &Discovery, client: &Client, random: &[u8; 48]) -> Pending {
        let mut verifier_bytes = [0u8; 32];
        verifier_bytes.copy_from_slice(&random[..32]);
        let verifier = pkce::verifier(&verifier_bytes);
        let state = pkce::b64url(&random[32..]);
        let challenge = pkce::challenge(&verifier);
        let mut params = vec![
            ("response_type", "code"),
            ("client_id", client.client_id.as_str()),
            ("redirect_uri", self.settings.redirect_uri.as_str()),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("state", state.as_str()),
            ("resource", discovery.resource.as_str()),
        ];
        if let Some(scope) = &discovery.scope {
            params.push(("scope", scope));
        }
        let authorize_url = with_query(&discovery.server.authorization_endpoint, &params);
        Pending { authorize_url, state, verifier, redirect_uri: self.settings.redirect_uri.clone(), discovery: discovery.clone(), client: client.clone() }
    }

    /// Checks the redirect back (`callback_url`, with its query) against
    /// the request, then exchanges the code for tokens.
    pub async fn finish(&self, pending: &Pending, callback_url: &str, now_ms: u64, abort: &Abort) -> Result<Tokens, OAuthError> {
        let pairs = query_pairs(callback_url);
        let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        if get("state").as_deref() != Some(pending.state.as_str()) {
            return Err(OAuthError::Callback("the answer does not belong to this sign-in (state differs): start again".into()));
        }
        // RFC 9207: the issuer says who answered; a mix-up is refused.
        let server = &pending.discovery.server;
        match get("iss") {
            // Compared as they are (RFC 9207 §2.4): no trailing slash, case
            // or port is made equal.
            Some(iss) if iss != server.issuer => {
                return Err(OAuthError::Callback(format!("the answer came from {iss}, not {}", server.issuer)));
            }
            None if server.authorization_response_iss_parameter_supported => {
                return Err(OAuthError::Callback(format!("{} promised to name itself in its answer (iss), and did not", server.issuer)));
            }
            _ => {}
        }
        if let Some(error) = get("error") {
            return Err(OAuthError::Denied { error, description: get("error_description") });
        }
        let code = get("code").ok_or_else(|| OAuthError::Callback("the answer carries no code".into()))?;
        let params = [
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", pending.redirect_uri.as_str()),
            ("code_verifier", pending.verifier.as_str()),
            ("resource", pending.discovery.resource.as_str()),
        ];
        self.token(&pending.discovery, &pending.client, &params, None, now_ms, abort).await
    }

    /// New tokens from a refresh token. A server that sends no new refresh
    /// token leaves the old one in use.
    pub async fn refresh(&self, discovery: &Discovery, client: &Client, tokens: &Tokens, now_ms: u64, abort: &Abort) -> Result<Tokens, OAuthError> {
        let Some(refresh) = &tokens.refresh_token else {
            return Err(OAuthError::Token { status: 0, error: Some("no refresh token".into()), description: None });
        };
        let mut params = vec![("grant_type", "refresh_token"), ("refresh_token", refresh.as_str()), ("resource", discovery.resource.as_str())];
        if let Some(scope) = &tokens.scope {
            params.push(("scope", scope));
        }
        self.token(discovery, client, &params, Some(tokens), now_ms, abort).await
    }

    async fn token(&self, discovery: &Discovery, client: &Client, params: &[(&str, &str)], old: Option<&Tokens>, now_ms: u64, abort: &Abort) -> Result<Tokens, OAuthError> {
        let endpoint = &discovery.server.token_endpoint;
        if !is_secure(endpoint) {
            return Err(OAuthError::Metadata(format!("the token endpoint {endpoint} is not https: no secrets are sent there")));
        }
        let mut form = form_urlencoded::Serializer::new(String::new());
        for (k, v) in params {
            form.append_pair(k, v);
        }
        let mut request =
            Request { method: "POST".into(), url: endpoint.clone(), headers: Vec::new(), body: None }.header("Content-Type", "application/x-www-form-urlencoded").header("Accept", "application/json");
        match (client.auth_method.as_str(), &client.client_secret) {
            ("client_secret_basic", Some(secret)) => {
                use base64::Engine;
                let enc = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
                let pair = format!("{}:{}", enc(&client.client_id), enc(secret));
                request = request.header("Authorization", format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(pair)));
            }
            ("client_secret_post", Some(secret)) => {
                form.append_pair("client_id", &client.client_id);
                form.append_pair("client_secret", secret);
            }
            _ => {
                form.append_pair("client_id", &client.client_id);
            }
        }
        request.body = Some(form.finish());
        let response = self.http.send(request, abort).await.map_err(|e| net(endpoint, e))?;
        let status = response.status;
        let text = response.body.text().await.map_err(|e| net(endpoint, e))?;
        let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        let access_token = s("access_token").filter(|_| (200..300).contains(&status));
        let Some(access_token) = access_token else {
            return Err(OAuthError::Token { status, error: s("error"), description: s("error_description") });
        };
        let expires_at = v.get("expires_in").and_then(Value::as_u64).map(|secs| now_ms.saturating_add(secs.saturating_mul(1000)));
        Ok(Tokens {
            access_token,
            token_type: s("token_type").unwrap_or_else(|| "Bearer".into()),
            refresh_token: s("refresh_token").or_else(|| old.and_then(|t| t.refresh_token.clone())),
            expires_at,
            scope: s("scope").or_else(|| params.iter().find(|(k, _)| *k == "scope").map(|(_, v)| (*v).to_owned())).or_else(|| discovery.scope.clone()),
            obtained_at: Some(now_ms),
        })
    }
}

fn net(url: &str, e: HttpError) -> OAuthError {
    match e {
        HttpError::Aborted => OAuthError::Aborted,
        e => OAuthError::Network { url: url.to_owned(), detail: e.to_string() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_up_joins_scopes_once() {
        assert_eq!(step_up_scope(Some("read"), Some("read write")).as_deref(), Some("read write"));
        assert_eq!(step_up_scope(None, Some("admin")).as_deref(), Some("admin"));
        assert_eq!(step_up_scope(None, None), None);
    }

    #[test]
    fn tokens_expire_with_a_margin() {
        let t = Tokens { access_token: "a".into(), token_type: "Bearer".into(), refresh_token: None, expires_at: Some(10_000), scope: None, obtained_at: None };
        assert!(!t.expires_within(0, 5_000));
        assert!(t.expires_within(6_000, 5_000));
        assert_eq!(t.header(), "Bearer a");
        // A one-hour token: refreshed in its last minute.
        let hour = Tokens { expires_at: Some(3_600_000), obtained_at: Some(0), ..t.clone() };
        assert!(!hour.due_for_refresh(3_500_000, 60_000));
        assert!(hour.due_for_refresh(3_550_000, 60_000));
        // A ten-second token: not at every use, only in its second half.
        let brief = Tokens { expires_at: Some(10_000), obtained_at: Some(0), ..t };
        assert!(!brief.due_for_refresh(4_000, 60_000));
        assert!(brief.due_for_refresh(5_000, 60_000));
    }
}
