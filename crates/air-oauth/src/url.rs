//! The little URL handling OAuth needs, for `http(s)` URLs only (no
//! general parser: the `url` crate's IDNA tables would cost the page more
//! than everything else here).

/// `(origin, path, query)` of an absolute `http(s)` URL, the fragment
/// dropped: `https://a.example:8443/x/y?q=1#f` → (`https://a.example:8443`,
/// `/x/y`, `Some("q=1")`). The path is empty when the URL has none.
pub fn split(url: &str) -> Option<(&str, &str, Option<&str>)> {
    let url = url.split('#').next().unwrap_or(url);
    let scheme_end = url.find("://")?;
    let scheme = &url[..scheme_end];
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return None;
    }
    let rest = &url[scheme_end + 3..];
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    if authority_end == 0 {
        return None;
    }
    let origin = &url[..scheme_end + 3 + authority_end];
    let after = &rest[authority_end..];
    let (path, query) = match after.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (after, None),
    };
    Some((origin, path, query))
}

/// The origin of an absolute URL (`https://host:port`).
pub fn origin(url: &str) -> Option<&str> {
    split(url).map(|(o, _, _)| o)
}

/// The canonical form of an MCP server's URL, used as the OAuth
/// `resource` (RFC 8707): scheme and host in lower case, no fragment, no
/// trailing slash after a path.
pub fn canonical_resource(url: &str) -> Option<String> {
    let (origin, path, query) = split(url)?;
    let mut out = origin.to_ascii_lowercase();
    out.push_str(path.strip_suffix('/').unwrap_or(path));
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    Some(out)
}

/// Whether protected-resource metadata naming `named` is about the server
/// whose canonical URL is `canonical` (RFC 9728 §3.3): the same URL, or a
/// parent path on the same origin ending at a `/` boundary. A string
/// prefix is not enough: `https://mcp.victim.com` does not cover
/// `https://mcp.victim.com.attacker.net/mcp`, nor `/mcp` cover `/mcp-evil`.
pub fn resource_covers(named: &str, canonical: &str) -> bool {
    let (Some(named), Some((origin, path, query))) = (canonical_resource(named), split(canonical)) else { return false };
    let Some((n_origin, n_path, n_query)) = split(&named) else { return false };
    if !n_origin.eq_ignore_ascii_case(origin) {
        return false;
    }
    if named == canonical_resource(canonical).unwrap_or_default() {
        return true;
    }
    // A parent names no query, and ends where a path segment does.
    n_query.is_none() && query.is_none() && (n_path.is_empty() || path.strip_prefix(n_path).is_some_and(|rest| rest.starts_with('/')))
}

/// Whether an endpoint from an authorization server's metadata may be
/// used at all: https, or http on this machine. Anything else (another
/// scheme such as `javascript:`, or plain http elsewhere) is refused.
pub fn endpoint_ok(url: &str) -> bool {
    is_secure(url)
}

/// `url` with `params` added to its query string.
pub fn with_query(url: &str, params: &[(&str, &str)]) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    for (k, v) in params {
        q.append_pair(k, v);
    }
    let q = q.finish();
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{q}")
}

/// The query parameters of a URL (the fragment ignored).
pub fn query_pairs(url: &str) -> Vec<(String, String)> {
    let url = url.split('#').next().unwrap_or(url);
    let Some((_, q)) = url.split_once('?') else { return Vec::new() };
    form_urlencoded::parse(q.as_bytes()).into_owned().collect()
}

/// Whether `url` may receive secrets: https, or http on this machine.
pub fn is_secure(url: &str) -> bool {
    let Some((origin, _, _)) = split(url) else { return false };
    let lower = origin.to_ascii_lowercase();
    if lower.starts_with("https://") {
        return true;
    }
    lower.starts_with("http://") && air_http::url::is_loopback_url(&lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_split_into_origin_path_and_query() {
        assert_eq!(split("https://a.example:8443/x/y?q=1#f"), Some(("https://a.example:8443", "/x/y", Some("q=1"))));
        assert_eq!(split("http://a.example"), Some(("http://a.example", "", None)));
        assert_eq!(split("http://a.example?x"), Some(("http://a.example", "", Some("x"))));
        assert_eq!(split("ftp://a.example/"), None);
        assert_eq!(split("https:///x"), None);
        assert_eq!(split("not a url"), None);
    }

    #[test]
    fn a_resource_covers_itself_and_its_parents_only() {
        let server = "https://mcp.victim.com/mcp";
        assert!(resource_covers("https://mcp.victim.com/mcp", server));
        assert!(resource_covers("HTTPS://MCP.victim.com/mcp/", server), "scheme and host case, a trailing slash");
        assert!(resource_covers("https://mcp.victim.com", server), "the origin is a parent");
        assert!(resource_covers("https://mcp.victim.com/", server));
        assert!(resource_covers("https://mcp.victim.com/a", "https://mcp.victim.com/a/b/mcp"));
        // Someone else's name.
        assert!(!resource_covers("https://mcp.victim.com", "https://mcp.victim.com.attacker.net/mcp"), "a host suffix");
        assert!(!resource_covers("https://mcp.victim.com/mcp", "https://mcp.victim.com/mcp-evil"), "not on a / boundary");
        assert!(!resource_covers("https://mcp.victim.com/mcp/x", server), "a child is not a parent");
        assert!(!resource_covers("http://mcp.victim.com/mcp", server), "another scheme");
        assert!(!resource_covers("https://mcp.victim.com:8443/mcp", server), "another port");
        assert!(!resource_covers("https://mcp.victim.com/mcp?a=1", server));
        assert!(!resource_covers("not a url", server));
    }

    #[test]
    fn endpoints_are_https_or_this_machine() {
        assert!(endpoint_ok("https://as.example/authorize"));
        assert!(endpoint_ok("http://127.0.0.1:9000/authorize"));
        assert!(endpoint_ok("http://[::1]:9000/register"));
        for bad in ["javascript:alert(1)", "http://as.example/authorize", "data:text/html,x", "file:///etc/passwd", "//as.example/x", ""] {
            assert!(!endpoint_ok(bad), "{bad}");
        }
    }

    #[test]
    fn the_resource_is_the_canonical_server_url() {
        assert_eq!(canonical_resource("HTTPS://MCP.Example.com/mcp/#x").as_deref(), Some("https://mcp.example.com/mcp"));
        assert_eq!(canonical_resource("https://mcp.example.com").as_deref(), Some("https://mcp.example.com"));
    }

    #[test]
    fn queries_are_built_and_read() {
        let u = with_query("https://as.example/authorize", &[("a", "1 2"), ("b", "x&y")]);
        assert_eq!(u, "https://as.example/authorize?a=1+2&b=x%26y");
        assert_eq!(query_pairs(&u), [("a".to_owned(), "1 2".to_owned()), ("b".to_owned(), "x&y".to_owned())]);
        assert_eq!(with_query("https://x/?p=1", &[("q", "2")]), "https://x/?p=1&q=2");
    }

    #[test]
    fn secrets_go_only_over_https_or_to_this_machine() {
        assert!(is_secure("https://as.example/token"));
        assert!(is_secure("http://127.0.0.1:9000/token"));
        assert!(is_secure("http://localhost/token"));
        assert!(!is_secure("http://as.example/token"));
    }
}
