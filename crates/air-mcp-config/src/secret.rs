//! Values that look like secrets: never shown in full (a key in an
//! environment variable, a token in a header), and left out of an export
//! unless asked for.

/// Words in a name that say its value is a secret.
const NAMES: [&str; 9] = ["KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "COOKIE", "AUTH", "BEARER"];
/// How well-known secrets begin.
const PREFIXES: [&str; 10] = ["sk-", "ghp_", "gho_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "AKIA", "Bearer ", "Basic "];

/// Whether `value`, named `name`, looks like a secret.
pub fn looks_secret(name: &str, value: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if NAMES.iter().any(|w| upper.contains(w)) || PREFIXES.iter().any(|p| value.starts_with(p)) {
        return true;
    }
    // A header given as one argument (`Authorization: Bearer …`).
    let lower = value.to_ascii_lowercase();
    if lower.starts_with("authorization:") || lower.contains("bearer ") || lower.starts_with("x-api-key:") {
        return true;
    }
    // A long run of letters and digits mixed, as generated keys are.
    let v = value.trim();
    v.len() >= 24 && !v.contains(char::is_whitespace) && v.chars().any(|c| c.is_ascii_digit()) && v.chars().any(|c| c.is_ascii_alphabetic()) && !v.contains('/')
}

/// What stands for a value never shown (an answer typed as a password).
pub const HIDDEN: &str = "••••";

/// `value` as shown: its first characters and its length, when it looks
/// like a secret (placeholders, which are not secrets, in full). Only a
/// run of characters that are plain in every shell is ever masked (a
/// key, or the key after a scheme such as `Bearer `): a value with
/// blanks, quotes, shell or cmd.exe characters, or controls in what
/// would be masked is shown whole, so what a line does is never hidden.
pub fn shown(name: &str, value: &str) -> String {
    // A placeholder is asked, not a secret: shown with a scheme before it.
    let literal = without_placeholders(value);
    let only_placeholders = value.contains("${") && matches!(literal.trim(), "" | "Bearer" | "Basic" | "Token");
    if !looks_secret(name, value) || only_placeholders {
        return value.to_owned();
    }
    if value.chars().all(plain) {
        return masked(value);
    }
    // `Bearer …`, `Authorization: Bearer …`: the scheme shown, the key masked.
    match value.rsplit_once(' ') {
        Some((head, key)) if !key.is_empty() && key.chars().all(plain) && head.chars().all(|c| c.is_ascii_alphanumeric() || "-_: ".contains(c)) => format!("{head} {}", masked(key)),
        _ => value.to_owned(),
    }
}

/// Characters a key is made of, that no shell (nor cmd.exe) reads as its
/// own: letters, digits, `-._~+/=:`, and the `${}` of a placeholder.
fn plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~+/=:${}".contains(c)
}

/// A key as shown: its first four characters and its length.
fn masked(key: &str) -> String {
    let n = key.chars().count();
    if n < 12 {
        return HIDDEN.to_owned();
    }
    let head: String = key.chars().take(4).collect();
    format!("{head}… ({n} characters)")
}

/// `value` without its `${…}` (what it holds besides what is asked).
fn without_placeholders(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start..].find('}') else { break };
        out.push_str(&rest[..start]);
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_tokens_are_masked_and_the_rest_is_shown() {
        assert_eq!(shown("GITHUB_PERSONAL_ACCESS_TOKEN", "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"), "ghp_… (42 characters)");
        assert_eq!(shown("Authorization", "Bearer abc"), "Bearer ••••", "the scheme shown");
        assert_eq!(shown("OPENAI_API_KEY", "${env:OPENAI_API_KEY}"), "${env:OPENAI_API_KEY}", "a placeholder is no secret");
        assert_eq!(shown("Authorization", "Bearer ${env:DOCS_TOKEN}"), "Bearer ${env:DOCS_TOKEN}", "nor a scheme before one");
        assert_eq!(shown("Authorization", "Bearer sk-live-${env:X}"), "Bearer sk-l… (16 characters)", "but a literal key beside one is");
        assert_eq!(shown("API_KEY", "${env:P}abcd1234"), "${en… (16 characters)", "even a short one");
        assert_eq!(shown("X_CONFIG", "a8f3k2m9x7q1w4e6r5t0y2u8"), "a8f3… (24 characters)", "generated-looking");
        assert_eq!(shown("ALLOWED_DIR", "/home/me/projects/notes-2024-archive"), "/home/me/projects/notes-2024-archive");
        assert_eq!(shown("MODE", "readonly"), "readonly");
        assert!(!looks_secret("PATH", "/usr/bin"));
    }

    #[test]
    fn a_value_with_blanks_quotes_or_shell_characters_is_never_masked() {
        let injected = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB x\" --host 0.0.0.0 --allow-origin * \"y";
        assert_eq!(shown("GITHUB_TOKEN", injected), injected, "what the words do is shown");
        for v in ["sk-live-0123456789abcdef&calc", "sk-live-0123456789abcdef%PATH%", "sk-live-0123456789'; rm -rf ~", "sk-live-0123456789\u{202E}gnp.exe", "sk-live-0123456789\nnext"] {
            assert_eq!(shown("API_KEY", v), v);
        }
        assert_eq!(shown("Authorization", "Authorization: Bearer abcdefghijklmnop"), "Authorization: Bearer abcd… (16 characters)");
        assert_eq!(shown("Authorization", "Bearer a\"b"), "Bearer a\"b");
    }
}
