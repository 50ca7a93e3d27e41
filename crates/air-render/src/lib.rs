//! Markdown (CommonMark + GFM tables, task lists, strikethrough) to HTML
//! that is safe to insert into the page.
//!
//! Model, tool and MCP output is untrusted. The renderer walks
//! pulldown-cmark's events and writes HTML itself, so that:
//! * raw HTML in the input is shown as text, never as markup;
//! * links and images keep only `http:`, `https:` and `mailto:` URLs (anything
//!   else, `javascript:` and `data:` included, becomes plain text), and links
//!   open in a new tab with `rel="noopener noreferrer"`;
//! * images become links (the page's CSP blocks remote images anyway), and
//!   table alignment uses classes (the CSP blocks inline styles);
//! * every text and attribute value is escaped.
//!
//! Modules:
//!
//! * `highlight` ([`highlight`]): a small keyword, string and comment
//!   highlighter for the common languages (grammar-based highlighters cost
//!   megabytes of wasm); code blocks also get a copy button, and HTML and
//!   SVG ones a Preview (`previewable`).
//! * `stream` ([`StreamRender`], [`blocks`], [`blocks_after`]): a growing
//!   answer cut into finished blocks (at blank lines outside code fences,
//!   not between the items of a list) and a tail. Blocks are rendered once
//!   and appended, each alone however much arrived at once; only the tail
//!   is rendered again per chunk, so the cost of a chunk does not grow with
//!   the answer. `StreamRender::push` takes what arrived since the last call
//!   and keeps only the unfinished tail, so a caller needs no copy of the
//!   whole answer. `blocks` cuts a complete text the same way (a text with
//!   link reference definitions stays whole): the app puts a long saved
//!   answer in the page a block at a time, so it looks as it did while
//!   streaming and no whole-text HTML or parse tree is built.
//!   `blocks_after` tells, from `StreamRender::committed`'s fingerprint,
//!   which part of a saved answer the streamed blocks already cover.
//! * `visible` ([`visible`]): writes the characters that hide or reorder a
//!   one-line value (Unicode's Cc and Cf: line breaks, the bidirectional
//!   overrides and isolates, zero widths; the line and paragraph separators)
//!   as `\u{…}`. Every command, address and tool or server name the
//!   settings, the MCP import, the HTTP tools and the tool cards show goes
//!   through it, in an element of class `iso` (`unicode-bidi: isolate`), so
//!   `\u{202E}gnp.exe` does not read as `exe.png` nor turn the text around
//!   it.
//! * `math` ([`mathml`]): `$…$`, `$$…$$`, `\(…\)` and `\[…\]` (the last two
//!   rewritten to dollars outside code first) are written as their escaped
//!   source in an element marked `data-math`; `mathml` turns one formula
//!   into MathML with `pulldown-latex` and writes its output again through
//!   an allowlist of MathML elements, attributes and plain values (the
//!   renderer leaves `<` as a relation and `\operatorname`'s argument
//!   unescaped, so anything that is not one of its own tags becomes text).
//!   A formula that does not parse stays source. The page's policy
//!   (`style-src 'self'`) ignores `style` attributes, so the colours the
//!   renderer writes there (`\color`, `\textcolor`, `\colorbox`, always
//!   `rgb(r g b)`) are written as the MathML attributes `mathcolor` and
//!   `mathbackground` (`#rrggbb`); a colour that is not a CSS name, `#rgb`,
//!   `#rrggbb`, `#rrggbbaa` or such an `rgb()` refuses the formula. The
//!   other styles it writes (`\fcolorbox`'s border, a negative space's
//!   `margin-left`, a row's `height` after `\\[…]`) have no MathML
//!   attribute and stay `style`, so the page does not apply them. The app
//!   reaches it only from its lazy `math` part.
//!
//! Architecture invariant: no input produces live markup; the XSS corpus in
//! `tests/fixtures/xss.txt` (at the repository's root) is checked here on
//! the host and in Chromium end to end.

mod highlight;
mod math;
mod stream;
mod visible;

pub use highlight::highlight;
pub use math::mathml;
pub use stream::{StreamRender, StreamUpdate, blocks, blocks_after};
pub use visible::{hidden, visible};

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS | Options::ENABLE_MATH
}

/// Escapes text for use in HTML text or a double-quoted attribute.
/// The runs between the five characters escaped are copied whole (they
/// are most of a text; a character at a time was the renderer's most
/// frequent call).
pub fn escape(s: &str, out: &mut String) {
    let mut copied = 0;
    for (i, b) in s.bytes().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        // ASCII bytes: `i` is a character boundary.
        out.push_str(&s[copied..i]);
        out.push_str(entity);
        copied = i + 1;
    }
    out.push_str(&s[copied..]);
}

/// The URL if it is safe to follow from untrusted content: absolute
/// `http:`, `https:` or `mailto:`. Browsers ignore tabs and newlines inside
/// a scheme (`java\tscript:`), so those are removed before checking.
pub fn safe_url(url: &str) -> Option<String> {
    let cleaned: String = url.trim().chars().filter(|c| !c.is_ascii_control() && *c != ' ').collect();
    let lower = cleaned.to_ascii_lowercase();
    ["http://", "https://", "mailto:"].iter().any(|p| lower.starts_with(p)).then_some(cleaned)
}

/// Renders Markdown to safe HTML.
pub fn render(markdown: &str) -> String {
    let mut w = Writer::default();
    let markdown = math::normalize_delimiters(markdown);
    let mut events = Parser::new_ext(&markdown, options()).peekable();
    while let Some(event) = events.next() {
        // `$5-$10`: a price range, not a formula (a formula starting with
        // a digit whose closing `$` is followed by one).
        if let Event::InlineMath(t) = &event
            && t.starts_with(|c: char| c.is_ascii_digit())
            && matches!(events.peek(), Some(Event::Text(next)) if next.starts_with(|c: char| c.is_ascii_digit()))
        {
            w.text(&format!("${t}$"));
            continue;
        }
        w.event(event);
    }
    w.out
}

#[derive(Default)]
struct Writer {
    out: String,
    /// Inside a code block: its language and the code so far.
    code: Option<(String, String)>,
    /// Links opened, `true` where an `<a>` was written (so the end tag matches).
    links: Vec<bool>,
    /// Inside an image: its safe URL (if any); alt text is collected as text.
    image: Option<(Option<String>, String)>,
    /// Table state: inside the head row, and the alignments / cell index.
    in_table_head: bool,
    alignments: Vec<pulldown_cmark::Alignment>,
    cell: usize,
    /// A task item's `<label>` is open.
    task_label: bool,
}

/// The id of the page element whose text names every code block's copy
/// button (the page writes it in its language).
pub const COPY_LABEL_ID: &str = "copy-code-label";

/// The same for the Preview button of HTML and SVG code blocks.
pub const PREVIEW_LABEL_ID: &str = "preview-code-label";

/// Code blocks of these languages get a Preview button.
pub fn previewable(lang: &str) -> bool {
    ["html", "htm", "xhtml", "svg"].iter().any(|l| lang.eq_ignore_ascii_case(l))
}

impl Writer {
    fn text(&mut self, s: &str) {
        if let Some((_, code)) = &mut self.code {
            code.push_str(s);
        } else if let Some((_, alt)) = &mut self.image {
            alt.push_str(s);
        } else {
            escape(s, &mut self.out);
        }
    }

    fn math(&mut self, tex: &str, display: bool) {
        self.out.push_str(if display { "<span class=\"math display\" data-math=\"display\">" } else { "<span class=\"math\" data-math=\"inline\">" });
        escape(tex, &mut self.out);
        self.out.push_str("</span>");
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => {
                self.out.push_str("<code>");
                escape(&t, &mut self.out);
                self.out.push_str("</code>");
            }
            // Raw HTML is shown, never interpreted.
            Event::Html(t) | Event::InlineHtml(t) => self.text(&t),
            // A formula is its source, marked to be typeset (see `mathml`).
            Event::InlineMath(t) if self.code.is_none() && self.image.is_none() => self.math(&t, false),
            Event::DisplayMath(t) if self.code.is_none() && self.image.is_none() => self.math(&t, true),
            Event::InlineMath(t) | Event::DisplayMath(t) | Event::FootnoteReference(t) => self.text(&t),
            Event::SoftBreak => self.text("\n"),
            Event::HardBreak => self.out.push_str("<br>"),
            Event::Rule => self.out.push_str("<hr>"),
            // The item's text labels its box (up to the end of its paragraph
            // or item, or the next block inside it).
            Event::TaskListMarker(done) => {
                self.out.push_str(if done { "<label class=\"task\"><input type=\"checkbox\" disabled checked> " } else { "<label class=\"task\"><input type=\"checkbox\" disabled> " });
                self.task_label = true;
            }
        }
    }

    /// Closes a task item's label.
    fn end_task_label(&mut self) {
        if std::mem::take(&mut self.task_label) {
            self.out.push_str("</label>");
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        if !matches!(tag, Tag::Emphasis | Tag::Strong | Tag::Strikethrough | Tag::Link { .. } | Tag::Image { .. } | Tag::Superscript | Tag::Subscript) {
            self.end_task_label();
        }
        match tag {
            Tag::Paragraph => self.out.push_str("<p>"),
            Tag::Heading { level, .. } => {
                self.out.push('<');
                self.out.push_str(&level.to_string());
                self.out.push('>');
            }
            Tag::BlockQuote(_) => self.out.push_str("<blockquote>"),
            Tag::CodeBlock(kind) => self.code = Some((code_lang(kind), String::new())),
            Tag::HtmlBlock => self.out.push_str("<p class=\"raw-html\">"),
            Tag::List(Some(1)) => self.out.push_str("<ol>"),
            Tag::List(Some(start)) => {
                self.out.push_str(&format!("<ol start=\"{start}\">"));
            }
            Tag::List(None) => self.out.push_str("<ul>"),
            Tag::Item => self.out.push_str("<li>"),
            Tag::Table(alignments) => {
                self.alignments = alignments;
                self.out.push_str("<div class=\"table-wrap\"><table>");
            }
            Tag::TableHead => {
                self.in_table_head = true;
                self.cell = 0;
                self.out.push_str("<thead><tr>");
            }
            Tag::TableRow => {
                self.cell = 0;
                self.out.push_str("<tr>");
            }
            Tag::TableCell => self.start_cell(),
            Tag::Emphasis => self.out.push_str("<em>"),
            Tag::Strong => self.out.push_str("<strong>"),
            Tag::Strikethrough => self.out.push_str("<del>"),
            Tag::Superscript => self.out.push_str("<sup>"),
            Tag::Subscript => self.out.push_str("<sub>"),
            Tag::Link { dest_url, title, .. } => self.start_link(&dest_url, &title),
            Tag::Image { dest_url, .. } => self.image = Some((safe_url(&dest_url), String::new())),
            Tag::FootnoteDefinition(_) | Tag::DefinitionList | Tag::DefinitionListTitle | Tag::DefinitionListDefinition | Tag::MetadataBlock(_) => self.out.push_str("<div>"),
        }
    }

    /// Opens a table cell: a head or body cell, with its column's alignment.
    fn start_cell(&mut self) {
        let tag = if self.in_table_head { "th" } else { "td" };
        let align = match self.alignments.get(self.cell) {
            // Classes, not inline styles: the CSP forbids those.
            Some(pulldown_cmark::Alignment::Left) => " class=\"align-left\"",
            Some(pulldown_cmark::Alignment::Center) => " class=\"align-center\"",
            Some(pulldown_cmark::Alignment::Right) => " class=\"align-right\"",
            _ => "",
        };
        self.out.push_str(&format!("<{tag}{align}>"));
    }

    /// Opens a link: an `<a>` to a safe URL, else nothing (its text stays).
    fn start_link(&mut self, dest_url: &str, title: &str) {
        match safe_url(dest_url) {
            Some(url) => {
                self.out.push_str("<a href=\"");
                escape(&url, &mut self.out);
                if !title.is_empty() {
                    self.out.push_str("\" title=\"");
                    escape(title, &mut self.out);
                }
                self.out.push_str("\" target=\"_blank\" rel=\"noopener noreferrer\">");
                self.links.push(true);
            }
            None => self.links.push(false),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        if matches!(tag, TagEnd::Paragraph | TagEnd::Item) {
            self.end_task_label();
        }
        match tag {
            TagEnd::Paragraph => self.out.push_str("</p>"),
            TagEnd::Heading(level) => {
                self.out.push_str("</");
                self.out.push_str(&level.to_string());
                self.out.push('>');
            }
            TagEnd::BlockQuote(_) => self.out.push_str("</blockquote>"),
            TagEnd::CodeBlock => {
                if let Some((lang, code)) = self.code.take() {
                    self.code_block(&lang, &code);
                }
            }
            TagEnd::HtmlBlock => self.out.push_str("</p>"),
            TagEnd::List(true) => self.out.push_str("</ol>"),
            TagEnd::List(false) => self.out.push_str("</ul>"),
            TagEnd::Item => self.out.push_str("</li>"),
            TagEnd::Table => self.out.push_str("</tbody></table></div>"),
            TagEnd::TableHead => {
                self.in_table_head = false;
                self.out.push_str("</tr></thead><tbody>");
            }
            TagEnd::TableRow => self.out.push_str("</tr>"),
            TagEnd::TableCell => {
                self.out.push_str(if self.in_table_head { "</th>" } else { "</td>" });
                self.cell += 1;
            }
            TagEnd::Emphasis => self.out.push_str("</em>"),
            TagEnd::Strong => self.out.push_str("</strong>"),
            TagEnd::Strikethrough => self.out.push_str("</del>"),
            TagEnd::Superscript => self.out.push_str("</sup>"),
            TagEnd::Subscript => self.out.push_str("</sub>"),
            TagEnd::Link => {
                if self.links.pop() == Some(true) {
                    self.out.push_str("</a>");
                }
            }
            TagEnd::Image => {
                if let Some((url, alt)) = self.image.take() {
                    let label = if alt.trim().is_empty() { "image".to_owned() } else { alt };
                    match url {
                        // Remote images are not loaded (privacy, and the CSP
                        // forbids them); they become links.
                        Some(url) => {
                            self.out.push_str("<a class=\"image-link\" href=\"");
                            escape(&url, &mut self.out);
                            self.out.push_str("\" target=\"_blank\" rel=\"noopener noreferrer\">");
                            escape(&label, &mut self.out);
                            self.out.push_str("</a>");
                        }
                        None => escape(&label, &mut self.out),
                    }
                }
            }
            TagEnd::FootnoteDefinition | TagEnd::DefinitionList | TagEnd::DefinitionListTitle | TagEnd::DefinitionListDefinition | TagEnd::MetadataBlock(_) => self.out.push_str("</div>"),
        }
    }

    fn code_block(&mut self, lang: &str, code: &str) {
        self.out.push_str("<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-lang\">");
        escape(lang, &mut self.out);
        // The button shows its label from the stylesheet (per language) and
        // is named by the page's element of id `copy-code-label`
        // (`COPY_LABEL_ID`), so this crate stays language-neutral.
        self.out.push_str("</span>");
        // HTML and SVG can be previewed (in the app's sandboxed frame).
        if previewable(lang) {
            self.out.push_str("<button type=\"button\" class=\"preview-code\" data-preview-code=\"\" aria-labelledby=\"preview-code-label\"></button>");
        }
        self.out.push_str("<button type=\"button\" class=\"copy-code\" data-copy-code=\"\" aria-labelledby=\"copy-code-label\"></button></div><pre><code");
        if !lang.is_empty() {
            self.out.push_str(" class=\"language-");
            escape(lang, &mut self.out);
            self.out.push('"');
        }
        self.out.push('>');
        self.out.push_str(&highlight(lang, code));
        self.out.push_str("</code></pre></div>");
    }
}

/// A code block's language: the first word of a fenced block's info
/// string, kept to safe characters; none for an indented block.
fn code_lang(kind: CodeBlockKind<'_>) -> String {
    match kind {
        CodeBlockKind::Fenced(info) => {
            info.split(|c: char| c.is_whitespace() || c == ',' || c == '{').next().unwrap_or("").chars().filter(|c| c.is_ascii_alphanumeric() || "+-#._".contains(*c)).take(20).collect()
        }
        CodeBlockKind::Indented => String::new(),
    }
}

#[cfg(test)]
mod tests;
