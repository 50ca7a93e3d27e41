//! Incremental rendering of a growing Markdown answer.
//!
//! The text is cut into finished blocks and a tail. A cut is made at a blank
//! line outside a code fence that is followed by a line starting in column
//! one (so indented continuations and indented code stay together). Finished
//! blocks are rendered once and appended; only the tail is rendered again
//! on each update. When the answer is complete the caller renders it whole
//! (a few constructs, like reference links defined later, only resolve then).

use crate::render;

#[derive(Debug, Default)]
pub struct StreamRender {
    /// Byte offset up to which blocks were handed out.
    committed: usize,
    /// Byte offset of the first line not yet scanned.
    scan: usize,
    /// The open fence (its character and length), if inside a code block.
    fence: Option<(char, usize)>,
    /// End of the last blank line seen outside a fence, if no text followed yet.
    pending_blank: Option<usize>,
    /// Latest safe cut found and not yet committed.
    cut: Option<usize>,
}

/// What changed since the last update.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StreamUpdate {
    /// HTML of blocks finished since the last update, in order; append them.
    pub blocks: Vec<String>,
    /// HTML of the unfinished tail; replaces the previous tail.
    pub tail: String,
}

fn fence_marker(line: &str) -> Option<(char, usize)> {
    let c = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = line.chars().take_while(|x| *x == c).count();
    (n >= 3).then_some((c, n))
}

impl StreamRender {
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes the whole text so far (it only ever grows) and returns what to
    /// append and the new tail.
    pub fn update(&mut self, text: &str) -> StreamUpdate {
        if text.len() < self.scan || !text.is_char_boundary(self.scan) {
            // The text was replaced, not extended: start over.
            *self = Self::default();
        }
        while let Some(nl) = text[self.scan..].find('\n') {
            let line = &text[self.scan..self.scan + nl];
            let line_end = self.scan + nl + 1;
            let blank = line.trim().is_empty();
            if self.fence.is_none() && !blank {
                if let Some(b) = self.pending_blank.take() {
                    if !line.starts_with([' ', '\t']) {
                        self.cut = Some(b);
                    }
                }
            }
            if blank && self.fence.is_none() {
                self.pending_blank = Some(line_end);
            }
            let trimmed = line.trim_start();
            if line.len() - trimmed.len() < 4 {
                if let Some((c, n)) = fence_marker(trimmed) {
                    match self.fence {
                        None => self.fence = Some((c, n)),
                        Some((open_c, open_n)) if c == open_c && n >= open_n && trimmed[n * c.len_utf8()..].trim().is_empty() => {
                            self.fence = None
                        }
                        Some(_) => {}
                    }
                }
            }
            self.scan = line_end;
        }
        let mut update = StreamUpdate::default();
        if let Some(cut) = self.cut.take() {
            if cut > self.committed {
                update.blocks.push(render(&text[self.committed..cut]));
                self.committed = cut;
            }
        }
        update.tail = render(&text[self.committed..]);
        update
    }
}
