//! JSON with comments and trailing commas (VS Code's `mcp.json`, Zed's
//! `settings.json`) made plain JSON: comments become spaces (so an error's
//! column still points at the text the user pasted), and a comma followed
//! only by blanks before `}` or `]` goes. Strings are left as they are.

/// `text` without comments and trailing commas.
pub fn strip(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let end = string_end(bytes, i);
                out.extend_from_slice(&bytes[i..end]);
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    out.push(b' ');
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let close = text[i + 2..].find("*/").map_or(bytes.len(), |p| i + 2 + p + 2);
                out.extend(bytes[i..close].iter().map(|&b| if b == b'\n' { b'\n' } else { b' ' }));
                i = close;
            }
            b',' if trailing(bytes, i + 1) => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    // Only ASCII bytes were replaced, by ASCII: still UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// Where the string starting at `start` (a `"`) ends (after its closing
/// quote, or at the end of the text).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Only blanks and comments follow `from` before a `}` or `]`.
fn trailing(bytes: &[u8], mut i: usize) -> bool {
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'}' | b']' => return true,
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_go_and_strings_stay() {
        let text = "{\n  // servers\n  \"servers\": { \"a\": { \"url\": \"http://x/*y*/z//w\", }, /* end */ },\n}";
        let plain = strip(text);
        let v: serde_json::Value = serde_json::from_str(&plain).expect("plain JSON");
        assert_eq!(v["servers"]["a"]["url"], "http://x/*y*/z//w");
        assert_eq!(plain.lines().count(), text.lines().count(), "lines kept, for error positions");
    }

    #[test]
    fn an_escaped_quote_does_not_end_a_string() {
        let v: serde_json::Value = serde_json::from_str(&strip(r#"{"a": "say \"hi\", // not a comment", }"#)).expect("plain");
        assert_eq!(v["a"], "say \"hi\", // not a comment");
    }

    #[test]
    fn an_unclosed_comment_or_string_ends_with_the_text() {
        assert_eq!(strip("{} /* open"), "{}        ");
        assert_eq!(strip("\"open"), "\"open");
    }
}
