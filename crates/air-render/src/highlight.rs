//! A small, fast code highlighter: comments, strings, numbers and keywords
//! for the languages models write most. It marks tokens with
//! `<span class="tok-…">` and escapes everything; unknown languages get
//! strings, numbers and comments only. (Grammar-based highlighters are
//! megabytes of wasm; this is a few kilobytes.)

use crate::escape;

struct Lang {
    keywords: &'static [&'static str],
    line_comments: &'static [&'static str],
    block_comment: bool,
    backtick_strings: bool,
}

const RUST: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "Some", "None", "Ok", "Err",
];
const JS: &[&str] = &[
    "async",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "default",
    "delete",
    "do",
    "else",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "from",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "of",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "type",
    "typeof",
    "undefined",
    "var",
    "void",
    "while",
    "yield",
];
const PYTHON: &[&str] = &[
    "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except", "False", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
    "None", "nonlocal", "not", "or", "pass", "raise", "return", "True", "try", "while", "with", "yield", "self",
];
const GO: &[&str] = &[
    "break",
    "case",
    "chan",
    "const",
    "continue",
    "default",
    "defer",
    "else",
    "fallthrough",
    "false",
    "for",
    "func",
    "go",
    "goto",
    "if",
    "import",
    "interface",
    "map",
    "nil",
    "package",
    "range",
    "return",
    "select",
    "struct",
    "switch",
    "true",
    "type",
    "var",
];
const C: &[&str] = &[
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "delete",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "false",
    "final",
    "float",
    "for",
    "if",
    "import",
    "int",
    "interface",
    "long",
    "namespace",
    "new",
    "null",
    "nullptr",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "struct",
    "switch",
    "template",
    "this",
    "throw",
    "true",
    "try",
    "catch",
    "typedef",
    "unsigned",
    "using",
    "virtual",
    "void",
    "while",
];
const SHELL: &[&str] = &["if", "then", "else", "elif", "fi", "for", "while", "do", "done", "case", "esac", "function", "in", "return", "export", "local", "echo", "cd", "set"];
const SQL: &[&str] = &[
    "select", "from", "where", "insert", "into", "values", "update", "set", "delete", "create", "table", "drop", "alter", "join", "left", "right", "inner", "outer", "on", "group", "by", "order",
    "having", "limit", "and", "or", "not", "null", "as", "distinct", "primary", "key", "SELECT", "FROM", "WHERE", "INSERT", "INTO", "VALUES", "UPDATE", "SET", "DELETE", "CREATE", "TABLE", "DROP",
    "ALTER", "JOIN", "LEFT", "RIGHT", "INNER", "OUTER", "ON", "GROUP", "BY", "ORDER", "HAVING", "LIMIT", "AND", "OR", "NOT", "NULL", "AS", "DISTINCT", "PRIMARY", "KEY",
];
const JSON: &[&str] = &["true", "false", "null"];

fn lang(name: &str) -> Lang {
    let c_like = |keywords| Lang { keywords, line_comments: &["//"], block_comment: true, backtick_strings: false };
    let hash = |keywords| Lang { keywords, line_comments: &["#"], block_comment: false, backtick_strings: false };
    match name.to_ascii_lowercase().as_str() {
        "rust" | "rs" => c_like(RUST),
        "js" | "javascript" | "ts" | "typescript" | "jsx" | "tsx" | "mjs" => Lang { keywords: JS, line_comments: &["//"], block_comment: true, backtick_strings: true },
        "python" | "py" => hash(PYTHON),
        "go" | "golang" => Lang { keywords: GO, line_comments: &["//"], block_comment: true, backtick_strings: true },
        "c" | "h" | "cpp" | "c++" | "cc" | "hpp" | "java" | "kotlin" | "kt" | "cs" | "csharp" | "swift" => c_like(C),
        "sh" | "bash" | "shell" | "zsh" | "console" => hash(SHELL),
        "toml" | "yaml" | "yml" | "ini" | "dockerfile" | "makefile" => hash(JSON),
        "sql" => Lang { keywords: SQL, line_comments: &["--"], block_comment: true, backtick_strings: false },
        "json" | "jsonc" => c_like(JSON),
        _ => Lang { keywords: &[], line_comments: &[], block_comment: false, backtick_strings: false },
    }
}

fn span(class: &str, text: &str, out: &mut String) {
    out.push_str("<span class=\"tok-");
    out.push_str(class);
    out.push_str("\">");
    escape(text, out);
    out.push_str("</span>");
}

/// Highlights `code` written in `language` (a fence info word); returns HTML.
pub fn highlight(language: &str, code: &str) -> String {
    let lang = lang(language);
    let mut out = String::with_capacity(code.len() + code.len() / 4);
    let mut rest = code;
    while let Some(c) = rest.chars().next() {
        if let Some(prefix) = lang.line_comments.iter().find(|p| rest.starts_with(**p)) {
            let end = rest.find('\n').unwrap_or(rest.len());
            let _ = prefix;
            span("comment", &rest[..end], &mut out);
            rest = &rest[end..];
        } else if lang.block_comment && rest.starts_with("/*") {
            let end = rest[2..].find("*/").map(|i| i + 4).unwrap_or(rest.len());
            span("comment", &rest[..end], &mut out);
            rest = &rest[end..];
        } else if c == '"' || c == '\'' || (c == '`' && lang.backtick_strings) {
            let end = string_end(rest, c);
            span("string", &rest[..end], &mut out);
            rest = &rest[end..];
        } else if c.is_ascii_digit() {
            let end = rest.find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '.' || ch == '_')).unwrap_or(rest.len());
            span("number", &rest[..end], &mut out);
            rest = &rest[end..];
        } else if c.is_alphabetic() || c == '_' {
            let end = rest.find(|ch: char| !(ch.is_alphanumeric() || ch == '_')).unwrap_or(rest.len());
            let word = &rest[..end];
            if lang.keywords.contains(&word) {
                span("keyword", word, &mut out);
            } else {
                escape(word, &mut out);
            }
            rest = &rest[end..];
        } else {
            let end = c.len_utf8();
            escape(&rest[..end], &mut out);
            rest = &rest[end..];
        }
    }
    out
}

/// End of a string literal starting at `s[0] == quote`: the closing quote
/// (skipping escapes), or the end of the line for an unclosed one.
fn string_end(s: &str, quote: char) -> usize {
    let mut escaped = false;
    for (i, c) in s.char_indices().skip(1) {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == quote {
            return i + c.len_utf8();
        } else if c == '\n' && quote != '`' {
            return i;
        }
    }
    s.len()
}
