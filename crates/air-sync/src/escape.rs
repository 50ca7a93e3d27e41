//! Document ids and query values in URLs: percent-encoded as
//! `encodeURIComponent` does, so that an id with `/`, `?`, `#`, `%`,
//! spaces or any other character names that document and nothing else.

/// `s` with everything but ASCII letters, digits and `-_.!~*'()`
/// percent-encoded (as UTF-8).
pub fn component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The path of document `id` under its database: design documents keep
/// their `_design/` prefix as a path (CouchDB's own links do), the rest of
/// an id is one segment.
pub fn doc_path(id: &str) -> String {
    match id.strip_prefix("_design/") {
        Some(name) => format!("_design/{}", component(name)),
        None => component(id),
    }
}

/// `?k=v&…` with the values encoded (names are written by this crate).
pub fn query(pairs: &[(&str, String)]) -> String {
    let parts: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={}", component(v))).collect();
    if parts.is_empty() { String::new() } else { format!("?{}", parts.join("&")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_one_segment() {
        assert_eq!(doc_path("chat:1"), "chat%3A1");
        assert_eq!(doc_path("a/b?c#d%e f"), "a%2Fb%3Fc%23d%25e%20f");
        assert_eq!(doc_path("é"), "%C3%A9");
        assert_eq!(doc_path("_design/app/x"), "_design/app%2Fx");
        assert_eq!(doc_path("Az09-_.!~*'()"), "Az09-_.!~*'()");
        assert_eq!(query(&[("since", "12-g1AA=".into()), ("limit", "5".into())]), "?since=12-g1AA%3D&limit=5");
        assert_eq!(query(&[]), "");
    }
}
