//! The `WWW-Authenticate` header (RFC 9110 §11.6.1): one or more
//! challenges, each a scheme and auth-params. For MCP the Bearer challenge
//! matters: `resource_metadata` (RFC 9728), `scope`, and `error`
//! (`invalid_token`, `insufficient_scope`).

/// One challenge: its scheme and its parameters (names in lower case).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    pub scheme: String,
    pub params: Vec<(String, String)>,
}

impl Challenge {
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Where the protected-resource metadata is.
    pub fn resource_metadata(&self) -> Option<&str> {
        self.param("resource_metadata")
    }

    /// The scope the server asks for.
    pub fn scope(&self) -> Option<&str> {
        self.param("scope")
    }

    pub fn error(&self) -> Option<&str> {
        self.param("error")
    }

    /// The token lacks a scope (403): ask again with more.
    pub fn insufficient_scope(&self) -> bool {
        self.error() == Some("insufficient_scope")
    }
}

/// Every challenge in a `WWW-Authenticate` value. Malformed input gives
/// what could be read.
pub fn parse(header: &str) -> Vec<Challenge> {
    let mut out: Vec<Challenge> = Vec::new();
    let mut rest = header.trim();
    while !rest.is_empty() {
        rest = rest.trim_start_matches([',', ' ', '\t']);
        if rest.is_empty() {
            break;
        }
        let (token, after) = take_token(rest);
        if token.is_empty() {
            // Not a token: skip a character and go on.
            rest = &rest[rest.chars().next().map_or(1, char::len_utf8)..];
            continue;
        }
        let after_ws = after.trim_start_matches([' ', '\t']);
        if let (Some(stripped), Some(current)) = (after_ws.strip_prefix('='), out.last_mut()) {
            // An auth-param of the current challenge.
            let stripped = stripped.trim_start_matches([' ', '\t']);
            let (value, after_value) = if let Some(quoted) = stripped.strip_prefix('"') { take_quoted(quoted) } else { take_value(stripped) };
            current.params.push((token.to_ascii_lowercase(), value));
            rest = after_value;
        } else if after_ws.starts_with('=') {
            // A parameter with no challenge before it: skip it.
            let (_, after_value) = take_value(after_ws.trim_start_matches('=').trim_start());
            rest = after_value;
        } else {
            // A new challenge; a token68 after it is kept as `token68`.
            out.push(Challenge { scheme: token.to_owned(), params: Vec::new() });
            let (word, after_word) = take_token68(after_ws);
            let alone = after_word.trim_start().is_empty() || after_word.trim_start().starts_with(',');
            if !word.is_empty() && alone {
                if let Some(c) = out.last_mut() {
                    c.params.push(("token68".into(), word.to_owned()));
                }
                rest = after_word;
            } else {
                rest = after_ws;
            }
        }
    }
    out
}

/// The Bearer challenge, if there is one.
pub fn bearer(header: &str) -> Option<Challenge> {
    parse(header).into_iter().find(|c| c.scheme.eq_ignore_ascii_case("bearer"))
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

fn take_token(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !is_tchar(c)).unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
fn take_token68(s: &str) -> (&str, &str) {
    let body = s.find(|c: char| !(c.is_ascii_alphanumeric() || "-._~+/".contains(c))).unwrap_or(s.len());
    if body == 0 {
        return ("", s);
    }
    let end = body + s[body..].find(|c: char| c != '=').unwrap_or(s.len() - body);
    (&s[..end], &s[end..])
}

/// A quoted string (after its opening quote), with `\` escapes.
fn take_quoted(s: &str) -> (String, &str) {
    let mut value = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    value.push(escaped);
                }
            }
            '"' => return (value, &s[i + 1..]),
            c => value.push(c),
        }
    }
    (value, "")
}

fn take_value(s: &str) -> (String, &str) {
    let end = s.find([',', ' ', '\t']).unwrap_or(s.len());
    (s[..end].to_owned(), &s[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bearer_challenge_with_resource_metadata_and_scope() {
        let c = bearer(r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="files:read files:write""#).unwrap();
        assert_eq!(c.resource_metadata(), Some("https://mcp.example.com/.well-known/oauth-protected-resource/mcp"));
        assert_eq!(c.scope(), Some("files:read files:write"));
        assert!(!c.insufficient_scope());
    }

    #[test]
    fn several_challenges_escapes_and_bare_values() {
        let all = parse(r#"Basic realm="a \"b\"", Bearer error=insufficient_scope, scope="admin", error_description="needs admin""#);
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].scheme, "Basic");
        assert_eq!(all[0].param("realm"), Some("a \"b\""));
        assert_eq!(all[1].error(), Some("insufficient_scope"));
        assert!(all[1].insufficient_scope());
        assert_eq!(all[1].scope(), Some("admin"));
        assert_eq!(all[1].param("error_description"), Some("needs admin"));
    }

    #[test]
    fn a_bare_scheme_a_token68_and_nonsense_do_not_panic() {
        assert_eq!(parse("Bearer"), [Challenge { scheme: "Bearer".into(), params: vec![] }]);
        assert_eq!(parse("Negotiate abc123=")[0].param("token68"), Some("abc123="));
        for junk in ["", "=", "\"", "Bearer x=\"unterminated", ",,,", "Bearer =y", "é"] {
            let _ = parse(junk);
        }
        assert_eq!(bearer("Basic realm=x"), None);
        assert_eq!(bearer("BEARER scope=a").unwrap().scope(), Some("a"));
    }
}
