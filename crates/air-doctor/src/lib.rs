//! The connectivity doctor: when a server (an MCP server, a model
//! provider) cannot be used from the page, probe it and say exactly why,
//! and what its owner must change.
//!
//! A page cannot read a failed preflight: the browser reports every CORS
//! refusal as the same network error. So the doctor asks a sequence of
//! questions whose answers tell the cases apart, over the same
//! [`HttpClient`] the app uses:
//!
//! 1. Before any request: an `https` page cannot call an `http` server
//!    (mixed content), except on this machine.
//! 2. A plain GET with no custom header (no preflight). No answer, yet an
//!    opaque `no-cors` probe gets one ([`HttpClient::answers_without_cors`]):
//!    the server is up and refuses this origin. Neither: nothing answers
//!    (down, wrong address, DNS, TLS), or, from a public page to a private
//!    address, the browser's private-network protection.
//! 3. The POST the client sends, with only `Content-Type: application/json`
//!    (which needs a preflight): refused means the preflight is.
//! 4. The same POST with each request header the client sends, one at a
//!    time: the one refused is named.
//! 5. What the answers must show: a 401 whose `WWW-Authenticate` is hidden;
//!    an MCP session whose `Mcp-Session-Id` is hidden (the server then
//!    refuses the next request for want of it).
//!
//! [`diagnose`] asks these over the app's own client (the add form, with
//! the headers this MCP client sends, for at most 20 s; Settings → Test for
//! a model provider whose answer the page cannot read; sync for a server
//! that does not answer). Each `Finding` explains itself, and CORS ones come
//! with what to paste into Starlette's `CORSMiddleware`, Express `cors` or
//! nginx. [`couchdb_fix`] gives a sync server's owner CouchDB 3's
//! `[chttpd]`/`[cors]` settings for this page, as `local.ini` lines and as
//! configuration API calls.

use air_http::{Abort, Body, HttpClient, HttpError, Request};

/// What to probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub url: String,
    /// The page's origin (`https://app.example`); `None` off the browser.
    pub page_origin: Option<String>,
    /// The request headers the client sends besides `Content-Type`, each
    /// with a value to send.
    pub headers: Vec<(String, String)>,
    /// The JSON the client POSTs first (an MCP `initialize`, say).
    pub body: String,
    /// An MCP server: after a first answer without `Mcp-Session-Id`, a
    /// second request shows whether the server wanted one.
    pub mcp: bool,
}

/// Why the server cannot be used from the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// An `https` page and an `http` server.
    MixedContent,
    /// A public page and a server at a private address: the browser's
    /// private-network protection stopped the request.
    PrivateNetwork,
    /// Nothing answers: the server is down, the address or port is wrong,
    /// the name does not resolve, or its certificate is not trusted.
    Unreachable { detail: String },
    /// The server answers, but not to this origin (no, or another,
    /// `Access-Control-Allow-Origin`).
    OriginRefused,
    /// Simple requests pass; the preflight of a JSON POST does not (no
    /// answer to OPTIONS, or `Content-Type` not allowed).
    PreflightRefused,
    /// The preflight does not allow this request header.
    HeaderNotAllowed(String),
    /// The answer hides a response header the client must read.
    HeaderNotExposed(String),
    /// Every probe passed.
    Fine,
}

impl Finding {
    /// What is wrong, in a sentence.
    pub fn explain(&self) -> String {
        match self {
            Finding::MixedContent => "This page is served over https and the server over http: browsers block such requests (mixed content).".into(),
            Finding::PrivateNetwork => "The server is on a private network and this page is not: the browser's private-network protection blocked the request.".into(),
            Finding::Unreachable { detail } => {
                format!("Nothing answers at this address: the server is down, the address or port is wrong, the name does not resolve, or its certificate is not trusted ({detail}).")
            }
            Finding::OriginRefused => "The server answers, but not to this page: its CORS settings do not allow this origin.".into(),
            Finding::PreflightRefused => "The server refuses the browser's preflight (OPTIONS) for a JSON POST: CORS is not set up for POST with Content-Type: application/json.".into(),
            Finding::HeaderNotAllowed(h) => format!("The server's CORS settings do not allow the request header {h}."),
            Finding::HeaderNotExposed(h) => format!("The server sends {h}, but its CORS settings hide it from the page (Access-Control-Expose-Headers)."),
            Finding::Fine => "The server can be used from this page.".into(),
        }
    }

    /// What the server's owner must change, and a snippet for common
    /// stacks: `(stack, code)`. Empty where nothing on the server helps.
    pub fn fix(&self, page_origin: &str, headers: &[String]) -> Vec<(&'static str, String)> {
        self.fix_exposing(page_origin, headers, &EXPOSE)
    }

    /// [`Finding::fix`] for a server whose client must read the response
    /// headers `expose` (a model provider: `Retry-After`).
    pub fn fix_exposing(&self, page_origin: &str, headers: &[String], expose: &[&str]) -> Vec<(&'static str, String)> {
        match self {
            Finding::OriginRefused | Finding::PreflightRefused | Finding::HeaderNotAllowed(_) | Finding::HeaderNotExposed(_) => snippets(page_origin, headers, expose),
            Finding::PrivateNetwork => vec![(
                "any",
                "Chrome and Edge ask before a public page may reach a local address (Local Network Access): allow it for this page in the browser's site settings. Browsers of the earlier Private Network Access rules need the server to answer the preflight with `Access-Control-Allow-Private-Network: true`. Or serve this page from the same network.".into(),
            )],
            _ => Vec::new(),
        }
    }
}

/// What a CouchDB 3 must be set to for this page to sync with it, for a
/// CORS finding (else as [`Finding::fix`]): its `local.ini`, and the same
/// through its configuration API (`COUCH` is the server's URL with an
/// admin's credentials).
pub fn couchdb_fix(finding: &Finding, page_origin: &str) -> Vec<(&'static str, String)> {
    if !matches!(finding, Finding::OriginRefused | Finding::PreflightRefused | Finding::HeaderNotAllowed(_) | Finding::HeaderNotExposed(_)) {
        return finding.fix(page_origin, &[]);
    }
    let settings = [
        ("chttpd", "enable_cors", "true".to_owned()),
        ("cors", "origins", page_origin.to_owned()),
        ("cors", "credentials", "true".to_owned()),
        ("cors", "headers", "accept, authorization, content-type, origin, referer".to_owned()),
        ("cors", "methods", "GET, PUT, POST, HEAD, DELETE".to_owned()),
    ];
    let ini = format!("[chttpd]\nenable_cors = true\n\n[cors]\n{}", settings.iter().filter(|(s, _, _)| *s == "cors").map(|(_, k, v)| format!("{k} = {v}\n")).collect::<String>());
    let api = settings.iter().map(|(s, k, v)| format!("curl -X PUT \"$COUCH/_node/_local/_config/{s}/{k}\" -d '\"{v}\"'")).collect::<Vec<_>>().join("\n");
    vec![("CouchDB (local.ini)", ini), ("CouchDB (configuration API)", api)]
}

/// The response headers MCP clients must read.
const EXPOSE: [&str; 3] = ["Mcp-Session-Id", "MCP-Protocol-Version", "WWW-Authenticate"];

fn snippets(origin: &str, headers: &[String], expose: &[&str]) -> Vec<(&'static str, String)> {
    let mut allow: Vec<String> = vec!["content-type".into()];
    for h in headers {
        let h = h.to_ascii_lowercase();
        if !allow.contains(&h) {
            allow.push(h);
        }
    }
    let py_list = |v: &[String]| v.iter().map(|h| format!("\"{h}\"")).collect::<Vec<_>>().join(", ");
    let expose: Vec<String> = expose.iter().map(|s| (*s).to_owned()).collect();
    vec![
        (
            "Python (mcp / Starlette)",
            format!(
                "from starlette.middleware.cors import CORSMiddleware\n\napp = CORSMiddleware(\n    app,\n    allow_origins=[\"{origin}\"],\n    allow_methods=[\"GET\", \"POST\", \"DELETE\", \"OPTIONS\"],\n    allow_headers=[{}],\n    expose_headers=[{}],\n)",
                py_list(&allow),
                py_list(&expose)
            ),
        ),
        (
            "Node (Express + cors)",
            format!(
                "import cors from 'cors';\n\napp.use(cors({{\n  origin: '{origin}',\n  methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],\n  allowedHeaders: [{}],\n  exposedHeaders: [{}],\n}}));",
                allow.iter().map(|h| format!("'{h}'")).collect::<Vec<_>>().join(", "),
                expose.iter().map(|h| format!("'{h}'")).collect::<Vec<_>>().join(", ")
            ),
        ),
        (
            "nginx",
            format!(
                "add_header Access-Control-Allow-Origin \"{origin}\" always;\nadd_header Access-Control-Expose-Headers \"{}\" always;\nif ($request_method = OPTIONS) {{\n    add_header Access-Control-Allow-Origin \"{origin}\";\n    add_header Access-Control-Allow-Methods \"GET, POST, DELETE, OPTIONS\";\n    add_header Access-Control-Allow-Headers \"{}\";\n    return 204;\n}}",
                expose.join(", "),
                allow.join(", ")
            ),
        ),
    ]
}

/// `(scheme, host)` of an absolute URL, lower case.
fn scheme_host(url: &str) -> Option<(String, String)> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = match authority.rsplit_once(':') {
        // `[::1]:8080`, `host:8080`; a bare IPv6 literal keeps its colons.
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) && (h.ends_with(']') || !h.contains(':')) => h,
        _ => authority,
    };
    Some((scheme.to_ascii_lowercase(), host.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase()))
}

fn loopback(host: &str) -> bool {
    air_http::url::is_loopback_host(host)
}

/// A private or loopback address (RFC 1918, loopback, link-local, `.local`).
fn private(host: &str) -> bool {
    if loopback(host) || host.ends_with(".local") || host.starts_with("fd") || host.starts_with("fe80") {
        return true;
    }
    let octets: Vec<u8> = host.split('.').filter_map(|p| p.parse().ok()).collect();
    match octets.as_slice() {
        [10, ..] | [192, 168, ..] | [169, 254, ..] => true,
        [172, b, ..] => (16..32).contains(b),
        _ => false,
    }
}

fn post(target: &Target, extra: Option<(&str, &str)>) -> Request {
    let mut r = Request::post_json(&target.url, target.body.clone()).header("Accept", "application/json, text/event-stream");
    if let Some((k, v)) = extra {
        r = r.header(k, v);
    }
    r
}

/// Probes `target` and says what keeps the page from using it.
pub async fn diagnose<H: HttpClient>(http: &H, target: &Target, abort: &Abort) -> Finding {
    let Some((scheme, host)) = scheme_host(&target.url) else {
        return Finding::Unreachable { detail: format!("not an http(s) URL: {}", target.url) };
    };
    let page = target.page_origin.as_deref().and_then(scheme_host);
    if let Some((page_scheme, _)) = &page
        && page_scheme == "https"
        && scheme == "http"
        && !loopback(&host)
    {
        return Finding::MixedContent;
    }
    let private_from_public = page.as_ref().is_some_and(|(_, page_host)| !private(page_host)) && private(&host);

    // 2. A simple request: no preflight. Only whether it is answered
    // matters (its body, a stream perhaps, is not read).
    match http.send(Request::get(&target.url), abort).await {
        Ok(_) => {}
        Err(HttpError::Network(detail)) => {
            if http.answers_without_cors(&target.url).await {
                return Finding::OriginRefused;
            }
            return if private_from_public { Finding::PrivateNetwork } else { Finding::Unreachable { detail } };
        }
        Err(e) => return Finding::Unreachable { detail: e.to_string() },
    }
    // 3. The JSON POST: a preflight.
    let first = match http.send(post(target, None), abort).await {
        Ok(r) => r,
        Err(_) => return Finding::PreflightRefused,
    };
    let status = first.status;
    let challenge = first.header("www-authenticate").is_some();
    let session = first.header("mcp-session-id").is_some();
    let text = first.body.text().await.unwrap_or_default();
    // 4. Each request header.
    for (name, value) in &target.headers {
        match http.send(post(target, Some((name, value))), abort).await {
            Ok(r) => {
                let _ = r.body.text().await;
            }
            Err(_) => return Finding::HeaderNotAllowed(name.clone()),
        }
    }
    // 5. What the answers must show.
    // (An MCP server must challenge; a model provider's 401 need not.)
    if target.mcp && status == 401 && !challenge {
        return Finding::HeaderNotExposed("WWW-Authenticate".into());
    }
    if target.mcp && (200..300).contains(&status) && !session && text.contains("\"result\"") {
        // A session server refuses what comes without its id.
        let next = Request::post_json(&target.url, r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#).header("Accept", "application/json, text/event-stream");
        if let Ok(r) = http.send(next, abort).await {
            let st = r.status;
            let body = r.body.text().await.unwrap_or_default().to_ascii_lowercase();
            if matches!(st, 400 | 404) && body.contains("session") {
                return Finding::HeaderNotExposed("Mcp-Session-Id".into());
            }
        }
    }
    Finding::Fine
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_read_and_classified() {
        assert_eq!(scheme_host("HTTPS://Example.COM:8443/mcp"), Some(("https".into(), "example.com".into())));
        assert_eq!(scheme_host("http://[::1]:3000/mcp"), Some(("http".into(), "::1".into())));
        assert_eq!(scheme_host("http://127.0.0.1/x?y"), Some(("http".into(), "127.0.0.1".into())));
        assert!(private("192.168.1.5") && private("10.0.0.1") && private("172.20.1.1") && private("localhost") && private("printer.local"));
        assert!(!private("172.32.0.1") && !private("8.8.8.8") && !private("example.com"));
    }

    #[test]
    fn every_finding_explains_itself_and_cors_ones_come_with_snippets() {
        let headers = vec!["mcp-protocol-version".to_owned(), "Authorization".to_owned()];
        let fix = Finding::HeaderNotAllowed("mcp-protocol-version".into()).fix("https://app.example", &headers);
        assert_eq!(fix.len(), 3);
        assert!(fix[0].1.contains(r#"allow_headers=["content-type", "mcp-protocol-version", "authorization"]"#), "{}", fix[0].1);
        assert!(fix[0].1.contains(r#"expose_headers=["Mcp-Session-Id", "MCP-Protocol-Version", "WWW-Authenticate"]"#));
        assert!(fix[1].1.contains("origin: 'https://app.example'"));
        assert!(fix[2].1.contains("Access-Control-Allow-Headers \"content-type, mcp-protocol-version, authorization\""));
        assert!(Finding::MixedContent.fix("x", &headers).is_empty());
        for f in [Finding::MixedContent, Finding::PrivateNetwork, Finding::Unreachable { detail: "x".into() }, Finding::OriginRefused, Finding::PreflightRefused, Finding::Fine] {
            assert!(!f.explain().is_empty());
        }
    }

    #[test]
    fn a_couchdb_gets_its_own_cors_settings_to_paste() {
        let fix = couchdb_fix(&Finding::OriginRefused, "https://app.example");
        assert_eq!(fix[0].0, "CouchDB (local.ini)");
        assert_eq!(
            fix[0].1,
            "[chttpd]\nenable_cors = true\n\n[cors]\norigins = https://app.example\ncredentials = true\nheaders = accept, authorization, content-type, origin, referer\nmethods = GET, PUT, POST, HEAD, DELETE\n"
        );
        let api: Vec<&str> = fix[1].1.lines().collect();
        assert_eq!(api.len(), 5);
        assert_eq!(api[0], r#"curl -X PUT "$COUCH/_node/_local/_config/chttpd/enable_cors" -d '"true"'"#);
        assert_eq!(api[1], r#"curl -X PUT "$COUCH/_node/_local/_config/cors/origins" -d '"https://app.example"'"#);
        // Not a CORS matter: what any server would get.
        assert!(couchdb_fix(&Finding::MixedContent, "https://app.example").is_empty());
        assert_eq!(couchdb_fix(&Finding::PrivateNetwork, "https://app.example").len(), 1);
    }
}
