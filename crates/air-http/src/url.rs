//! URL rules shared by everything that sends or opens one.

/// An `http://` or `https://` URL: the only kind a server, a link a
/// server or a View hands over, or a page to open may be (never
/// `javascript:`, `data:`, `file:`…). The scheme is taken as written, in
/// lower case.
pub fn is_http(url: &str) -> bool {
    url.starts_with("https://") || url.starts_with("http://")
}

#[cfg(test)]
mod tests {
    use super::is_http;

    #[test]
    fn only_http_and_https() {
        for ok in ["http://x", "https://x.test/a?b#c"] {
            assert!(is_http(ok), "{ok}");
        }
        for no in ["javascript:alert(1)", "data:text/html,x", "file:///etc", "ftp://x", " https://x", "httpx://y", "", "//x"] {
            assert!(!is_http(no), "{no}");
        }
    }
}
