//! Text shown as it is, but with nothing in it that hides or reorders
//! what is around it: control and format characters (Unicode's Cc and
//! Cf: line breaks, tabs, the bidirectional overrides and isolates, zero
//! widths, the byte order mark) and the line and paragraph separators
//! are written as `\u{…}` escapes. For one-line values a person must read
//! as they are: a command, an address, a tool's name. `"\u{202E}gnp.exe"`
//! would read as `exe.png`, and turn the rest of its line around.

use std::borrow::Cow;

/// `text` with its invisible characters escaped (borrowed when it has
/// none).
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hidden(c) {
            out.push_str(&format!("\\u{{{:04X}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether `c` is shown escaped: Cc, Cf, Zl and Zp (Unicode 16).
pub fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{0600}'..='\u{0605}'
                | '\u{061C}'
                | '\u{06DD}'
                | '\u{070F}'
                | '\u{0890}'..='\u{0891}'
                | '\u{08E2}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{110BD}'
                | '\u{110CD}'
                | '\u{13430}'..='\u{1343F}'
                | '\u{1BCA0}'..='\u{1BCA3}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0001}'
                | '\u{E0020}'..='\u{E007F}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidi_and_control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(visible("report\u{202E}gnp.exe"), "report\\u{202E}gnp.exe");
        assert_eq!(visible("\u{2066}a\u{2069} \u{2067}b\u{2068}"), "\\u{2066}a\\u{2069} \\u{2067}b\\u{2068}");
        assert_eq!(visible("npx -y x\nrm -rf ~\t\u{0}"), "npx -y x\\u{000A}rm -rf ~\\u{0009}\\u{0000}");
        assert_eq!(visible("to\u{200B}ol\u{FEFF}\u{00AD}\u{2028}\u{E0041}"), "to\\u{200B}ol\\u{FEFF}\\u{00AD}\\u{2028}\\u{E0041}");
        assert!(matches!(visible("uvx mcp-proxy@0.13.0 'my dir' 名前 café ‘x’"), Cow::Borrowed(_)), "letters of every script, quotes and blanks as they are");
        assert_eq!(visible("\u{85}\u{9F}"), "\\u{0085}\\u{009F}");
    }
}
