//! URL rules shared by everything that sends or opens one.

use std::net::{Ipv4Addr, Ipv6Addr};

/// An `http://` or `https://` URL: the only kind a server, a link a
/// server or a View hands over, or a page to open may be (never
/// `javascript:`, `data:`, `file:`…). The scheme is taken as written, in
/// lower case.
pub fn is_http(url: &str) -> bool {
    url.starts_with("https://") || url.starts_with("http://")
}

/// The host of an absolute URL as written (`[::1]` keeps its brackets),
/// without who signs in (`user:pw@`) or the port; `None` without `://`.
pub fn host_of(url: &str) -> Option<&str> {
    let rest = url.trim().split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit('@').next().unwrap_or_default();
    let host = if authority.starts_with('[') { authority.split_inclusive(']').next() } else { authority.split(':').next() };
    host.filter(|h| !h.is_empty())
}

/// Whether `host` (as a URL names it, any case, no port) is this machine:
/// `localhost` and the names under it (RFC 6761), 127.0.0.0/8 and `::1`
/// (bracketed or bare). Nothing that only starts so is:
/// `localhost.evil.example` and `127.0.0.1.nip.io` are other machines.
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    if host == "localhost" || host.ends_with(".localhost") {
        return true;
    }
    let bare = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(&host);
    bare.parse::<Ipv6Addr>().is_ok_and(|a| a.is_loopback()) || host.parse::<Ipv4Addr>().is_ok_and(|a| a.is_loopback())
}

/// Whether `url` is on this machine ([`is_loopback_host`] of its host).
pub fn is_loopback_url(url: &str) -> bool {
    host_of(url).is_some_and(is_loopback_host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_and_https() {
        for ok in ["http://x", "https://x.test/a?b#c"] {
            assert!(is_http(ok), "{ok}");
        }
        for no in ["javascript:alert(1)", "data:text/html,x", "file:///etc", "ftp://x", " https://x", "httpx://y", "", "//x"] {
            assert!(!is_http(no), "{no}");
        }
    }

    #[test]
    fn this_machine_is_named_exactly() {
        for here in ["localhost", "LOCALHOST", "localhost.", "app.localhost", "127.0.0.1", "127.8.9.10", "[::1]", "::1", "[0:0:0:0:0:0:0:1]"] {
            assert!(is_loopback_host(here), "{here}");
        }
        for elsewhere in ["localhost.evil.example", "localhostx", "127.0.0.1.nip.io", "127.0.0.1x", "128.0.0.1", "[::2]", "evil.example", "", "0.0.0.0", "[::]"] {
            assert!(!is_loopback_host(elsewhere), "{elsewhere}");
        }
    }

    #[test]
    fn a_url_s_host_is_read_past_who_signs_in_and_the_port() {
        assert_eq!(host_of("http://admin:pw@localhost:5984/db"), Some("localhost"));
        assert_eq!(host_of("http://[::1]:8080/mcp"), Some("[::1]"));
        assert_eq!(host_of("https://localhost.evil.example/x?y"), Some("localhost.evil.example"));
        assert_eq!(host_of("http://127.0.0.1@evil.example/"), Some("evil.example"), "who signs in is not where it goes");
        assert_eq!(host_of("no scheme"), None);
        assert!(is_loopback_url("http://127.0.0.1:8081/v1") && !is_loopback_url("http://localhost.evil.example:8081/"));
    }
}
