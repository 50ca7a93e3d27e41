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
    let config = RenderConfig { display_mode: if display { DisplayMode::Block } else { DisplayMode::Inline }, annotation: None, ..RenderConfig::default() };
    let mut out = String::new();
    push_mathml(&mut out, events.into_iter().map(Ok::<_, pulldown_latex::ParserError>), config).ok()?;
    clean(&out)
}

/// The MathML elements the renderer writes.
const ELEMENTS: &[&str] = &[
    "math",
    "mi",
    "mn",
    "mo",
    "ms",
    "mtext",
    "mspace",
    "mrow",
    "mfrac",
    "msqrt",
    "mroot",
    "mstyle",
    "merror",
    "mpadded",
    "mphantom",
    "msub",
    "msup",
    "msubsup",
    "munder",
    "mover",
    "munderover",
    "mmultiscripts",
    "mprescripts",
    "none",
    "mtable",
    "mtr",
    "mtd",
    "mlabeledtr",
    "semantics",
    "annotation",
    "menclose",
];

/// The attributes it writes.
const ATTRIBUTES: &[&str] = &[
    "display",
    "displaystyle",
    "scriptlevel",
    "mathvariant",
    "stretchy",
    "symmetric",
    "fence",
    "separator",
    "lspace",
    "rspace",
    "width",
    "height",
    "depth",
    "voffset",
    "minsize",
    "maxsize",
    "movablelimits",
    "largeop",
    "accent",
    "accentunder",
    "linethickness",
    "columnalign",
    "rowalign",
    "columnspacing",
    "rowspacing",
    "columnlines",
    "rowlines",
    "frame",
    "framespacing",
    "notation",
    "class",
    "style",
    "form",
    "encoding",
    "xmlns",
];

/// The renderer's output, checked and written again to be safe to put in
/// the page, or `None` (the formula is then shown as source).
/// `pulldown-latex` writes some characters and names without escaping them
/// (`<` as a relation, `\operatorname`'s argument), so its output is read
/// as tags and text: a `<` that cannot start a tag is text and escaped;
/// one that does must be one of the MathML elements above, with known
/// attributes and plain values (a `class` only of the renderer's own, a
/// `style` only as it writes it: colours, a border, a margin, a height),
/// or the whole formula is refused.
///
/// The page's policy (`style-src 'self'`) ignores `style` attributes, so a
/// colour in one (`\color`, `\textcolor`, `\colorbox`) is written as the
/// MathML attributes `mathcolor` and `mathbackground` instead, which the
/// policy does not govern; see [`style`].
fn clean(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len() + 16);
    let mut rest = raw;
    while let Some(c) = rest.chars().next() {
        match c {
            '<' if rest[1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '/') => {
                let len = tag(rest, &mut out)?;
                rest = &rest[len..];
                continue;
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => match entity(rest)? {
                0 => out.push_str("&amp;"),
                len => {
                    out.push_str(&rest[..len]);
                    rest = &rest[len..];
                    continue;
                }
            },
            c => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    Some(out)
}

/// The length of the character reference `text` starts with (`&amp;`,
/// `&lt;`, `&gt;`, `&quot;`, `&nbsp;`, `&#…;`), 0 for a bare `&` (a raw
/// ampersand the renderer left, escaped by the caller), `None` for
/// anything else that looks like a reference.
fn entity(text: &str) -> Option<usize> {
    if let Some(e) = ["&amp;", "&lt;", "&gt;", "&quot;", "&nbsp;"].into_iter().find(|e| text.starts_with(e)) {
        return Some(e.len());
    }
    let digits = text.strip_prefix("&#").map(|r| r.bytes().take_while(u8::is_ascii_digit).count()).unwrap_or(0);
    if digits > 0 && text[2 + digits..].starts_with(';') {
        return Some(2 + digits + 1);
    }
    // Not a reference: refused rather than guessed (a named one the
    // browser would read differently).
    if text[1..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '#') { None } else { Some(0) }
}

/// Writes the allowed tag `text` starts with to `out` (as it is, but for
/// its `style`: see [`style`]) and gives its length; `None` if it is not
/// one.
fn tag(text: &str, out: &mut String) -> Option<usize> {
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
    let mut attrs = inner[name_len..].trim_start();
    if closing && !attrs.is_empty() {
        return None;
    }
    // The `style` attribute: where it is in `text`, and what replaces it.
    let mut restyled: Option<(usize, usize, String)> = None;
    while !attrs.is_empty() {
        let eq = attrs.find("=\"")?;
        let name = &attrs[..eq];
        let value_len = attrs[eq + 2..].find('"')?;
        let value = &attrs[eq + 2..eq + 2 + value_len];
        if !ATTRIBUTES.contains(&name) || !plain_value(name, value) {
            return None;
        }
        let attr_len = eq + 2 + value_len + 1;
        if name == "style" {
            // One only, as the renderer writes: a second would write its
            // colour attributes twice.
            if restyled.is_some() {
                return None;
            }
            // `attrs` is a part of `text`: where this attribute starts in it.
            let start = attrs.as_ptr() as usize - text.as_ptr() as usize;
            restyled = Some((start, start + attr_len, style(value)?));
        }
        // The renderer sometimes writes no space between attributes.
        attrs = attrs[attr_len..].trim_start();
    }
    match restyled {
        Some((start, end_of_style, with)) => {
            let before = &text[..start];
            out.push_str(if with.is_empty() { before.trim_end() } else { before });
            out.push_str(&with);
            out.push_str(&text[end_of_style..=end]);
        }
        None => out.push_str(&text[..=end]),
    }
    Some(end + 1)
}

/// A `style` value the renderer wrote, as the attributes to write instead:
/// its text and background colours as `mathcolor` and `mathbackground`
/// (each a [`color`], or the formula is refused), the rest (a border, a
/// margin, a height) left in `style`, where the page's policy ignores it.
fn style(value: &str) -> Option<String> {
    let (mut text, mut background, mut rest) = (None, None, Vec::new());
    for part in value.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let slot = if let Some(v) = part.strip_prefix("color: ") { Some((&mut text, v)) } else { part.strip_prefix("background-color: ").map(|v| (&mut background, v)) };
        match slot {
            // Twice would be an attribute written twice: refused.
            Some((Some(_), _)) => return None,
            Some((slot, v)) => *slot = Some(color(v)?),
            None => rest.push(part),
        }
    }
    let attrs = [text.map(|c| format!("mathcolor=\"{c}\"")), background.map(|c| format!("mathbackground=\"{c}\"")), (!rest.is_empty()).then(|| format!("style=\"{}\"", rest.join("; ")))];
    Some(attrs.into_iter().flatten().collect::<Vec<_>>().join(" "))
}

/// A colour safe to write as an attribute value: `rgb(r g b)` (as the
/// renderer writes every colour) as `#rrggbb`; a CSS colour name (letters
/// only) or `#rgb`, `#rrggbb`, `#rrggbbaa` as they are; anything else
/// `None`.
fn color(v: &str) -> Option<String> {
    if let Some(channels) = v.strip_prefix("rgb(").and_then(|v| v.strip_suffix(')')) {
        let channels: Vec<u8> = channels.split(' ').map(|n| n.parse().ok()).collect::<Option<_>>()?;
        return match channels[..] {
            [r, g, b] => Some(format!("#{r:02x}{g:02x}{b:02x}")),
            _ => None,
        };
    }
    let named = !v.is_empty() && v.len() <= 32 && v.bytes().all(|b| b.is_ascii_alphabetic());
    let hex = v.strip_prefix('#').is_some_and(|h| [3, 6, 8].contains(&h.len()) && h.bytes().all(|b| b.is_ascii_hexdigit()));
    (named || hex).then(|| v.to_ascii_lowercase())
}

/// A CSS length as the renderer writes one (`-0.5em`, `4pt`, `1.2em`).
fn dimension(v: &str) -> bool {
    let number = v.strip_prefix('-').unwrap_or(v);
    let digits = number.bytes().take_while(|b| b.is_ascii_digit() || *b == b'.').count();
    digits > 0 && ["em", "ex", "pt", "px", "mu", "pc", "in", "cm", "mm", "bp", "dd", "cc", "sp"].contains(&&number[digits..])
}

fn plain_value(name: &str, value: &str) -> bool {
    match name {
        "style" => value.split(';').map(str::trim).filter(|p| !p.is_empty()).all(|part| {
            if let Some(v) = part.strip_prefix("color: ").or_else(|| part.strip_prefix("background-color: ")) {
                color(v).is_some()
            } else if let Some(v) = part.strip_prefix("border: 0.06em solid ") {
                v.starts_with("rgb(") && color(v).is_some()
            } else if let Some(v) = part.strip_prefix("margin-left: ").or_else(|| part.strip_prefix("height: ")) {
                dimension(v)
            } else {
                false
            }
        }),
        // Only the renderer's own classes (the page's could be borrowed).
        "class" => value.split(' ').all(|c| c.starts_with("menv-") || c.starts_with("cell-")),
        "xmlns" => value == "http://www.w3.org/1998/Math/MathML",
        _ => value.chars().all(|c| c.is_ascii_alphanumeric() || " .#%+-".contains(c)),
    }
}

/// Rewrites `\(…\)` and `\[…\]` to `$…$` and `$$…$$`, the delimiters the
/// Markdown parser knows, outside code (fences, indented code and code
/// spans). An opening delimiter without its close is left as it is.
pub(crate) fn normalize_delimiters(markdown: &str) -> std::borrow::Cow<'_, str> {
    if !markdown.contains("\\(") && !markdown.contains("\\[") {
        return markdown.into();
    }
    let mut out = String::with_capacity(markdown.len());
    // The open fence, if inside one; inside an indented code block; the
    // previous line was blank (or there was none); the paragraph so far.
    let mut fence: Option<(char, usize)> = None;
    let mut indented = false;
    let mut after_blank = true;
    let mut paragraph = String::new();
    for line in markdown.split_inclusive('\n') {
        let indent: usize = line.chars().take_while(|c| *c == ' ' || *c == '\t').map(|c| if c == '\t' { 4 } else { 1 }).sum();
        let trimmed = line.trim_start_matches([' ', '\t']);
        let blank = trimmed.trim().is_empty();
        let code = if let Some((c, n)) = fence {
            let run = trimmed.chars().take_while(|x| *x == c).count();
            if indent < 4 && run >= n && trimmed[run * c.len_utf8()..].trim().is_empty() {
                fence = None;
            }
            true
        } else if let Some(open) = (indent < 4).then(|| crate::stream::fence_marker(trimmed)).flatten() {
            fence = Some(open);
            true
        } else if indented && (blank || indent >= 4) {
            true
        } else if indent >= 4 && !blank && after_blank && paragraph.is_empty() {
            indented = true;
            true
        } else {
            indented = false;
            false
        };
        if code || blank {
            rewrite_outside_code_spans(&paragraph, &mut out);
            paragraph.clear();
            out.push_str(line);
        } else {
            // A paragraph is rewritten whole: `\[` may close on a later line.
            paragraph.push_str(line);
        }
        after_blank = blank;
    }
    rewrite_outside_code_spans(&paragraph, &mut out);
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
