//! The whole authorization, against scripted answers shaped as the MCP
//! authorization spec describes them.

use air_http::fake::{Script, ScriptedHttp};
use air_http::{Abort, Request};
use air_oauth::challenge::bearer;
use air_oauth::flow::{Settings, step_up_scope};
use air_oauth::url::query_pairs;
use air_oauth::{OAuth, OAuthError};
use serde_json::{Value, json};

fn run<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

fn settings() -> Settings {
    Settings { redirect_uri: "https://app.example/oauth/callback.html".into(), client_name: "Air Agent".into(), ..Settings::default() }
}

fn as_metadata(extra: Value) -> Value {
    let mut m = json!({
        "issuer": "https://auth.example.com/tenant1",
        "authorization_endpoint": "https://auth.example.com/tenant1/authorize",
        "token_endpoint": "https://auth.example.com/tenant1/token",
        "registration_endpoint": "https://auth.example.com/tenant1/register",
        "code_challenge_methods_supported": ["S256"],
    });
    for (k, v) in extra.as_object().into_iter().flatten() {
        m[k] = v.clone();
    }
    m
}

fn header<'a>(r: &'a Request, name: &str) -> Option<&'a str> {
    r.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

fn form(r: &Request) -> Vec<(String, String)> {
    query_pairs(&format!("x:?{}", r.body.as_deref().unwrap_or("")))
}

fn get<'a>(pairs: &'a [(String, String)], k: &str) -> Option<&'a str> {
    pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
}

#[test]
fn discovery_registration_authorization_and_the_code_exchanged() {
    let http = ScriptedHttp::new();
    // The 401 named no metadata: at the path first (absent), then the root.
    http.push(Script::status(404, "not here"));
    http.push(Script::status(
        200,
        &json!({"resource": "https://mcp.example.com/mcp", "authorization_servers": ["https://auth.example.com/tenant1"], "scopes_supported": ["files:read", "files:write"]}).to_string(),
    ));
    // RFC 8414 with path insertion: absent; OpenID with path insertion: found.
    http.push(Script::status(404, ""));
    http.push(Script::status(200, &as_metadata(json!({})).to_string()));
    // Dynamic registration.
    http.push(Script::status(201, &json!({"client_id": "dyn-123", "token_endpoint_auth_method": "none"}).to_string()));
    // The code for tokens.
    http.push(Script::status(200, &json!({"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt-1"}).to_string()));
    let oauth = OAuth::new(http, settings()).with_protocol_version(Some("2025-11-25"));
    let abort = Abort::new();
    let challenge = bearer("Bearer realm=\"mcp\"");
    let d = run(oauth.discover("https://mcp.example.com/mcp", challenge.as_ref(), &abort)).unwrap();
    assert_eq!(d.resource, "https://mcp.example.com/mcp");
    assert_eq!(d.scope.as_deref(), Some("files:read files:write"), "without a scope in the 401, all the resource supports");
    let client = run(oauth.client(&d, &abort)).unwrap();
    assert_eq!(client.client_id, "dyn-123");

    let pending = oauth.begin(&d, &client, &[7; 48]);
    let q = query_pairs(&pending.authorize_url);
    assert!(pending.authorize_url.starts_with("https://auth.example.com/tenant1/authorize?"));
    assert_eq!(get(&q, "response_type"), Some("code"));
    assert_eq!(get(&q, "client_id"), Some("dyn-123"));
    assert_eq!(get(&q, "code_challenge_method"), Some("S256"));
    assert_eq!(get(&q, "code_challenge").map(str::len), Some(43));
    assert_eq!(get(&q, "resource"), Some("https://mcp.example.com/mcp"));
    assert_eq!(get(&q, "scope"), Some("files:read files:write"));
    assert_eq!(get(&q, "redirect_uri"), Some("https://app.example/oauth/callback.html"));

    // A redirect for another sign-in is refused; this one is taken.
    let wrong = run(oauth.finish(&pending, "https://app.example/oauth/callback.html?code=c&state=other", 0, &abort));
    assert!(matches!(wrong, Err(OAuthError::Callback(_))));
    let callback = format!("https://app.example/oauth/callback.html?code=the-code&state={}&iss=https%3A%2F%2Fauth.example.com%2Ftenant1", pending.state);
    let tokens = run(oauth.finish(&pending, &callback, 1_000, &abort)).unwrap();
    assert_eq!(tokens.header(), "Bearer at-1");
    assert_eq!(tokens.expires_at, Some(1_000 + 3_600_000));
    assert_eq!(tokens.refresh_token.as_deref(), Some("rt-1"));

    let sent = oauth.http().requests();
    let urls: Vec<&str> = sent.iter().map(|r| r.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
            "https://mcp.example.com/.well-known/oauth-protected-resource",
            "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
            "https://auth.example.com/.well-known/openid-configuration/tenant1",
            "https://auth.example.com/tenant1/register",
            "https://auth.example.com/tenant1/token",
        ]
    );
    assert_eq!(header(&sent[0], "MCP-Protocol-Version"), Some("2025-11-25"));
    let registration: Value = serde_json::from_str(sent[4].body.as_deref().unwrap()).unwrap();
    assert_eq!(registration["application_type"], "web");
    assert_eq!(registration["token_endpoint_auth_method"], "none");
    assert_eq!(registration["redirect_uris"], json!(["https://app.example/oauth/callback.html"]));
    let token = form(&sent[5]);
    assert_eq!(header(&sent[5], "Content-Type"), Some("application/x-www-form-urlencoded"));
    assert_eq!(get(&token, "grant_type"), Some("authorization_code"));
    assert_eq!(get(&token, "code"), Some("the-code"));
    assert_eq!(get(&token, "code_verifier"), Some(pending.verifier.as_str()));
    assert_eq!(get(&token, "resource"), Some("https://mcp.example.com/mcp"));
    assert_eq!(get(&token, "client_id"), Some("dyn-123"));
}

#[test]
fn the_401s_metadata_and_scope_a_metadata_document_client_and_a_refresh() {
    let http = ScriptedHttp::new();
    http.push(Script::status(200, &json!({"authorization_servers": ["https://auth.example.com"]}).to_string()));
    http.push(Script::status(
        200,
        &json!({
            "issuer": "https://auth.example.com", "authorization_endpoint": "https://auth.example.com/authorize", "token_endpoint": "https://auth.example.com/token",
            "code_challenge_methods_supported": ["S256"], "client_id_metadata_document_supported": true, "authorization_response_iss_parameter_supported": true,
        })
        .to_string(),
    ));
    http.push(Script::status(200, &json!({"access_token": "at-2", "expires_in": 60, "scope": "admin"}).to_string()));
    let oauth = OAuth::new(http, Settings { metadata_document: Some("https://app.example/oauth/client.json".into()), ..settings() });
    let abort = Abort::new();
    let challenge = bearer(r#"Bearer resource_metadata="https://mcp.example.com/prm", scope="admin""#);
    let d = run(oauth.discover("https://mcp.example.com/mcp", challenge.as_ref(), &abort)).unwrap();
    assert_eq!(d.scope.as_deref(), Some("admin"));
    let client = run(oauth.client(&d, &abort)).unwrap();
    assert_eq!(client.client_id, "https://app.example/oauth/client.json", "the document's URL is the client id");
    let pending = oauth.begin(&d, &client, &[1; 48]);
    // The server promised iss: an answer without it is refused.
    let no_iss = run(oauth.finish(&pending, &format!("https://app.example/cb?code=c&state={}", pending.state), 0, &abort));
    assert!(matches!(no_iss, Err(OAuthError::Callback(m)) if m.contains("iss")));
    let mixed_up = run(oauth.finish(&pending, &format!("https://app.example/cb?code=c&state={}&iss=https://evil.example", pending.state), 0, &abort));
    assert!(matches!(mixed_up, Err(OAuthError::Callback(m)) if m.contains("evil")));
    let denied = run(oauth.finish(&pending, &format!("https://app.example/cb?error=access_denied&state={}&iss=https://auth.example.com", pending.state), 0, &abort));
    assert_eq!(denied, Err(OAuthError::Denied { error: "access_denied".into(), description: None }));
    assert_eq!(oauth.http().requests().len(), 2, "nothing sent for a refused answer");
    let tokens = run(oauth.finish(&pending, &format!("https://app.example/cb?code=c&state={}&iss=https://auth.example.com", pending.state), 0, &abort)).unwrap();
    assert_eq!(tokens.scope.as_deref(), Some("admin"));
    assert_eq!(tokens.refresh_token, None);

    // Refreshing needs a refresh token; a 403 insufficient_scope asks for more.
    assert!(run(oauth.refresh(&d, &client, &tokens, 0, &abort)).is_err());
    let more = bearer(r#"Bearer error="insufficient_scope", scope="admin write""#).unwrap();
    assert!(more.insufficient_scope());
    assert_eq!(step_up_scope(tokens.scope.as_deref(), more.scope()).as_deref(), Some("admin write"));
}

#[test]
fn secrets_and_refusals() {
    let http = ScriptedHttp::new();
    http.push(Script::status(400, &json!({"error": "invalid_grant", "error_description": "expired"}).to_string()));
    http.push(Script::status(200, &json!({"access_token": "at-3", "refresh_token": "rt-new"}).to_string()));
    let oauth = OAuth::new(http, Settings { client_id: Some("pre".into()), client_secret: Some("s3cret".into()), ..settings() });
    let abort = Abort::new();
    let d = air_oauth::Discovery {
        resource: "https://mcp.example.com/mcp".into(),
        server: air_oauth::AuthServer::from_json(&as_metadata(json!({"token_endpoint_auth_methods_supported": ["client_secret_post"]})), Some("https://auth.example.com/tenant1")).unwrap(),
        scope: None,
    };
    let client = run(oauth.client(&d, &abort)).unwrap();
    assert_eq!((client.client_id.as_str(), client.auth_method.as_str()), ("pre", "client_secret_post"), "the entered id, with the method the server takes");
    let old = air_oauth::Tokens { access_token: "at".into(), token_type: "Bearer".into(), refresh_token: Some("rt".into()), expires_at: Some(0), scope: None, obtained_at: None };
    let refused = run(oauth.refresh(&d, &client, &old, 0, &abort)).unwrap_err();
    assert_eq!(refused.to_string(), "the token endpoint answered 400: invalid_grant (expired)");
    let renewed = run(oauth.refresh(&d, &client, &old, 0, &abort)).unwrap();
    assert_eq!(renewed.refresh_token.as_deref(), Some("rt-new"));
    let sent = oauth.http().requests();
    let f = form(&sent[1]);
    assert_eq!(get(&f, "grant_type"), Some("refresh_token"));
    assert_eq!(get(&f, "client_secret"), Some("s3cret"));

    // A token endpoint over plain http elsewhere gets nothing.
    let mut insecure = d.clone();
    insecure.server.token_endpoint = "http://auth.example.com/token".into();
    assert!(matches!(run(oauth.refresh(&insecure, &client, &old, 0, &abort)), Err(OAuthError::Metadata(_))));
    assert_eq!(oauth.http().requests().len(), 2);

    // A token endpoint that answers 307 elsewhere: the form (its refresh
    // token and client secret) is not posted again there.
    oauth.http().push(Script::status(307, "").with_header("Location", "https://evil.example/token"));
    oauth.http().push(Script::status(200, &json!({"access_token": "stolen"}).to_string()));
    let moved = run(oauth.refresh(&d, &client, &old, 0, &abort)).unwrap_err();
    assert!(moved.to_string().contains(air_http::REDIRECT_REFUSED), "{moved}");
    assert_eq!(oauth.http().requests().len(), 3, "sent once, to the token endpoint only");
}

/// Discovery of `server_url` whose protected-resource metadata names `named`.
fn discover_naming(server_url: &str, named: &str) -> Result<air_oauth::Discovery, OAuthError> {
    let http = ScriptedHttp::new();
    http.push(Script::status(200, &json!({"resource": named, "authorization_servers": ["https://auth.example.com/tenant1"]}).to_string()));
    http.push(Script::status(200, &as_metadata(json!({})).to_string()));
    let oauth = OAuth::new(http, settings());
    run(oauth.discover(server_url, None, &Abort::new()))
}

#[test]
fn metadata_about_another_resource_is_refused() {
    // A host that ends like the victim's gets no token for it.
    let suffix = discover_naming("https://mcp.victim.com.attacker.net/mcp", "https://mcp.victim.com");
    assert!(matches!(suffix, Err(OAuthError::Metadata(ref m)) if m.contains("is for https://mcp.victim.com")), "{suffix:?}");
    // A path that only starts like it is another resource.
    assert!(discover_naming("https://mcp.victim.com/mcp-evil", "https://mcp.victim.com/mcp").is_err());
    // The same resource, and a parent on the same origin, are taken.
    assert_eq!(discover_naming("https://mcp.victim.com/mcp", "https://mcp.victim.com/mcp").unwrap().resource, "https://mcp.victim.com/mcp");
    assert!(discover_naming("https://mcp.victim.com/mcp", "https://mcp.victim.com/").is_ok());
}

#[test]
fn the_answers_issuer_is_compared_exactly() {
    let http = ScriptedHttp::new();
    http.push(Script::status(200, &json!({"access_token": "at"}).to_string()));
    let oauth = OAuth::new(http, Settings { client_id: Some("pre".into()), ..settings() });
    let abort = Abort::new();
    let d = air_oauth::Discovery {
        resource: "https://mcp.example.com/mcp".into(),
        server: air_oauth::AuthServer::from_json(&as_metadata(json!({"authorization_response_iss_parameter_supported": true})), Some("https://auth.example.com/tenant1")).unwrap(),
        scope: None,
    };
    let client = run(oauth.client(&d, &abort)).unwrap();
    let pending = oauth.begin(&d, &client, &[7; 48]);
    for iss in ["https://auth.example.com/tenant1/", "https://AUTH.example.com/tenant1", "https://auth.example.com:443/tenant1", "https://auth.example.com/tenant%31"] {
        let callback = air_oauth::url::with_query("https://app.example/oauth/callback.html", &[("code", "c"), ("state", &pending.state), ("iss", iss)]);
        assert!(matches!(run(oauth.finish(&pending, &callback, 0, &abort)), Err(OAuthError::Callback(_))), "{iss}");
    }
    assert!(oauth.http().requests().is_empty(), "the token endpoint was never called");
    let callback = format!("https://app.example/oauth/callback.html?code=c&state={}&iss=https%3A%2F%2Fauth.example.com%2Ftenant1", pending.state);
    assert!(run(oauth.finish(&pending, &callback, 0, &abort)).is_ok());
    // The metadata's own issuer must be the one its URL was built from.
    assert!(air_oauth::AuthServer::from_json(&as_metadata(json!({"issuer": "https://auth.example.com/tenant1/"})), Some("https://auth.example.com/tenant1")).is_err());
}

#[test]
fn endpoints_of_other_schemes_are_refused() {
    for (key, value) in [("authorization_endpoint", "javascript:alert(document.domain)"), ("registration_endpoint", "data:text/html,x"), ("token_endpoint", "http://auth.example.com/token")] {
        let m = as_metadata(json!({ key: value }));
        assert!(air_oauth::AuthServer::from_json(&m, None).is_err(), "{key}: {value}");
    }
    let local = as_metadata(json!({"authorization_endpoint": "http://127.0.0.1:9000/authorize"}));
    assert!(air_oauth::AuthServer::from_json(&local, None).is_ok(), "http on this machine is fine");
}

#[test]
fn a_client_on_this_machine_registers_as_native() {
    use air_oauth::flow::application_type;
    assert_eq!(application_type("https://app.example/oauth-callback.html"), "web");
    assert_eq!(application_type("http://127.0.0.1:8976/callback"), "native", "the command line");
    assert_eq!(application_type("http://localhost:8080/oauth-callback.html"), "native", "a page served from localhost");
    assert_eq!(application_type("http://[::1]:8080/cb"), "native");
    assert_eq!(application_type("https://localhost.example.com/cb"), "web");
    // And the registration says so.
    let http = ScriptedHttp::new();
    http.push(Script::status(201, &json!({"client_id": "c"}).to_string()));
    let oauth = OAuth::new(http, Settings { redirect_uri: "http://127.0.0.1:8976/callback".into(), ..settings() });
    let d = air_oauth::Discovery { resource: "https://mcp.example.com/mcp".into(), server: air_oauth::AuthServer::from_json(&as_metadata(json!({})), None).unwrap(), scope: None };
    run(oauth.client(&d, &Abort::new())).unwrap();
    let sent: Value = serde_json::from_str(oauth.http().requests()[0].body.as_deref().unwrap()).unwrap();
    assert_eq!(sent["application_type"], "native");
}
