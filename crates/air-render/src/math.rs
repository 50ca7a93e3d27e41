//! TeX math to MathML, for formulas in answers.
//!
//! [`render`](crate::render) writes each formula as its escaped source in
//! an element marked `data-math` (so a page shows the source until the
//! formula is typeset, and a formula that cannot be typeset stays source).
//! [`mathml`] turns one formula into MathML with `pulldown-latex`; the app
//! calls it from a part fetched on first use, when a message has math.

use pulldown_latex::config::DisplayMode;
use pulldown_latex::{Parser, RenderConfig, Storage, push_mathml};

/// The MathML of a TeX formula, or `None` if it does not parse (shown as
/// source then) or its MathML is not plain markup. `display` is for
/// `$$…$$` and `\[…\]`.
pub fn mathml(tex: &str, display: bool) -> Option<String> {
    if tex.trim().is_empty() {
        return None;
    }
    let storage = Storage::new();
    let events: Vec<_> = Parser::new(tex, &storage).collect::<Result<_, _>>().ok()?;
    let config = RenderConfig {
        display_mode: if display { DisplayMode::Block } else { DisplayMode::Inline },
        annotation: None,
        ..RenderConfig::default()
    };
    let mut out = String::new();
    push_mathml(&mut out, events.into_iter().map(Ok::<_, pulldown_latex::ParserError>), config).ok()?;
    Some(clean(&out))
}

/// The MathML elements the renderer writes.
const ELEMENTS: &[&str] = &[
    "math", "mi", "mn", "mo", "ms", "mtext", "mspace", "mrow", "mfrac", "msqrt", "mroot", "mstyle", "merror", "mpadded",
    "mphantom", "msub", "msup", "msubsup", "munder", "mover", "munderover", "mmultiscripts", "mprescripts", "none", "mtable",
    "mtr", "mtd", "mlabeledtr", "semantics", "annotation", "menclose",
];

/// The attributes it writes.
const ATTRIBUTES: &[&str] = &[
    "display", "displaystyle", "scriptlevel", "mathvariant", "stretchy", "symmetric", "fence", "separator", "lspace", "rspace",
    "width", "height", "depth", "voffset", "minsize", "maxsize", "movablelimits", "largeop", "accent", "accentunder",
    "linethickness", "columnalign", "rowalign", "columnspacing", "rowspacing", "columnlines", "rowlines", "frame",
    "framespacing", "notation", "class", "style", "form", "encoding", "xmlns",
];

/// Writes the renderer's output again, safe to put in the page.
/// `pulldown-latex` writes some characters and names (`<` as a relation,
/// `\operatorname`'s argument) without escaping them, so its output is
/// read as tags and text: a tag is kept only if it is one of the MathML
/// elements above with known attributes and plain values (a `style` only
/// as the renderer writes it: colours, a border, a margin); anything else
/// becomes text.
fn clean(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len() + 16);
    let mut rest = raw;
    while let Some(c) = rest.chars().next() {
        match c {
            '<' => match tag(rest) {
                Some(len) => {
                    out.push_str(&rest[..len]);
                    rest = &rest[len..];
                    continue;
                }
                None => out.push_str("&lt;"),
            },
            '>' => out.push_str("&gt;"),
            '&' => {
                let entity = ["&amp;", "&lt;", "&gt;", "&quot;"].into_iter().find(|e| rest.starts_with(e));
                match entity {
                    Some(e) => {
                        out.push_str(e);
                        rest = &rest[e.len()..];
                        continue;
                    }
                    None => out.push_str("&amp;"),
                }
            }
            c => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The length of the allowed tag `text` starts with, if it starts with one.
fn tag(text: &str) -> Option<usize> {
    let end = text.find('>')?;
    let inner = &text[1..end];
    let (closing, inner) = match inner.strip_prefix('/') {
        Some(i) => (true, i),
        None => (false, inner),
    };
    let inner = inner.strip_suffix('/').unwrap_or(inner).trim_end();
    let name_len = inner.find(' ').unwrap_or(inner.len());
    if !ELEMENTS.contains(&&inner[..name_len]) {
        return None;
    }
    let mut attrs = &inner[name_len..];
    if closing && !attrs.is_empty() {
        return None;
    }
    while !attrs.is_empty() {
        let a = attrs.strip_prefix(' ')?;
        let eq = a.find("=\"")?;
        let name = &a[..eq];
        let value_len = a[eq + 2..].find('"')?;
        let value = &a[eq + 2..eq + 2 + value_len];
        if !ATTRIBUTES.contains(&name) || !plain_value(name, value) {
            return None;
        }
        attrs = &a[eq + 2 + value_len + 1..];
    }
    Some(end + 1)
}

fn plain_value(name: &str, value: &str) -> bool {
    if name == "style" {
        return value.split("; ").all(|part| {
            let rgb = |v: &str| {
                v.strip_prefix("rgb(").and_then(|v| v.strip_suffix(')')).is_some_and(|v| v.split(' ').all(|n| n.parse::<u8>().is_ok()))
            };
            if let Some(v) = part.strip_prefix("color: ").or_else(|| part.strip_prefix("background-color: ")) {
                rgb(v)
            } else if let Some(v) = part.strip_prefix("border: 0.06em solid ") {
                rgb(v)
            } else if let Some(v) = part.strip_prefix("margin-left: ") {
                v.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
            } else {
                false
            }
        });
    }
    if name == "xmlns" {
        return value == "http://www.w3.org/1998/Math/MathML";
    }
    value.chars().all(|c| c.is_ascii_alphanumeric() || " .#%+-".contains(c))
}

/// Rewrites `\(…\)` and `\[…\]` to `$…$` and `$$…$$`, the delimiters the
/// Markdown parser knows, outside code (fences, indented code and code
/// spans). An opening delimiter without its close is left as it is.
pub(crate) fn normalize_delimiters(markdown: &str) -> std::borrow::Cow<'_, str> {
    if !markdown.contains("\\(") && !markdown.contains("\\[") {
        return markdown.into();
    }
    let mut out = String::with_capacity(markdown.len());
    let mut fence: Option<(char, usize)> = None;
    let mut lines = markdown.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if indent < 4
            && let Some(c) = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')
        {
            let n = trimmed.chars().take_while(|x| *x == c).count();
            if n >= 3 {
                match fence {
                    None => fence = Some((c, n)),
                    Some((oc, on)) if oc == c && n >= on => fence = None,
                    Some(_) => {}
                }
                out.push_str(line);
                continue;
            }
        }
        if fence.is_some() || (indent >= 4 && out.ends_with("\n\n")) || line.starts_with('\t') {
            out.push_str(line);
            continue;
        }
        // `\[` may close on a later line of the same paragraph.
        let mut paragraph = line.to_owned();
        if paragraph.contains("\\[") && !paragraph.contains("\\]") {
            while let Some(next) = lines.peek() {
                if next.trim().is_empty() {
                    break;
                }
                paragraph.push_str(next);
                lines.next();
                if paragraph.contains("\\]") {
                    break;
                }
            }
        }
        rewrite_outside_code_spans(&paragraph, &mut out);
    }
    out.into()
}

fn rewrite_outside_code_spans(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        match bytes[i] {
            b'`' => {
                // A code span: copied as it is, up to the same run of backticks.
                let run = bytes[i..].iter().take_while(|b| **b == b'`').count();
                let ticks = &text[i..i + run];
                let end = text[i + run..].find(ticks).map_or(text.len(), |e| i + run + e + run);
                out.push_str(&text[i..end]);
                i = end;
            }
            b'\\' if matches!(bytes.get(i + 1), Some(b'(' | b'[')) => {
                let (open, close, dollars) = if bytes[i + 1] == b'(' { ("\\(", "\\)", "$") } else { ("\\[", "\\]", "$$") };
                match text[i + 2..].find(close) {
                    Some(len) if !text[i + 2..i + 2 + len].trim().is_empty() => {
                        let inner = text[i + 2..i + 2 + len].trim();
                        out.push_str(dollars);
                        out.push_str(inner);
                        out.push_str(dollars);
                        i += 2 + len + 2;
                    }
                    _ => {
                        out.push_str(open);
                        i += 2;
                    }
                }
            }
            b'\\' => {
                // Any other escape, kept with the character it escapes.
                let next = text[i + 1..].chars().next().map_or(0, char::len_utf8);
                out.push_str(&text[i..i + 1 + next]);
                i += 1 + next;
            }
            _ => {
                let next = text[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&text[i..i + next]);
                i += next;
            }
        }
    }
}
