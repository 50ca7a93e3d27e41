//! Incremental rendering of a growing Markdown answer.
//!
//! The text is cut into finished blocks and a tail (see [`Cuts`]). Finished
//! blocks are rendered once and appended; only the tail is rendered again
//! on each update. A complete text is cut the same way ([`blocks`]), so a
//! long answer, once saved, is rendered and laid out a block at a time and
//! looks as it did while it streamed; a text with link reference
//! definitions (used anywhere, defined anywhere) is kept whole.

use crate::render;

/// Finds where a Markdown text can be cut into blocks that render alone as
/// they do in the whole: at a blank line outside a code fence, followed by a
/// line in column one, unless that line is the next item of a list (so
/// loose lists and indented continuations stay together).
#[derive(Debug, Default)]
struct Cuts {
    /// Byte offset of the first line not yet scanned.
    scan: usize,
    /// The open fence (its character and length), if inside a code block.
    fence: Option<(char, usize)>,
    /// End of the last blank line seen outside a fence, if no text followed yet.
    pending_blank: Option<usize>,
    /// The last line in column one started a list item.
    in_list: bool,
}

pub(crate) fn fence_marker(line: &str) -> Option<(char, usize)> {
    let c = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = line.chars().take_while(|x| *x == c).count();
    (n >= 3).then_some((c, n))
}

/// `- a`, `* a`, `+ a`, `1. a`, `2) a` (or the marker alone).
fn list_item(line: &str) -> bool {
    let rest = match line.as_bytes().first() {
        Some(b'-' | b'*' | b'+') => &line[1..],
        Some(b'0'..=b'9') => {
            let digits = line.bytes().take_while(u8::is_ascii_digit).count();
            match line.as_bytes().get(digits) {
                Some(b'.' | b')') if digits <= 9 => &line[digits + 1..],
                _ => return false,
            }
        }
        _ => return false,
    };
    rest.is_empty() || rest.starts_with([' ', '\t'])
}

impl Cuts {
    /// The scanned text lost its first `n` bytes (all scanned, none after a
    /// blank line still pending).
    fn shift(&mut self, n: usize) {
        self.scan -= n;
        self.pending_blank = self.pending_blank.map(|b| b.saturating_sub(n));
    }

    /// Scans the complete lines of `text` not yet scanned; calls `cut` with
    /// each place a block may end.
    /// A `complete` text's last line counts even without a line break.
    fn scan(&mut self, text: &str, complete: bool, mut cut: impl FnMut(usize)) {
        while self.scan < text.len() {
            let (line, line_end) = match text[self.scan..].find('\n') {
                Some(nl) => (&text[self.scan..self.scan + nl], self.scan + nl + 1),
                None if complete => (&text[self.scan..], text.len()),
                None => break,
            };
            let blank = line.trim().is_empty();
            if self.fence.is_none() && !blank {
                let column_one = !line.starts_with([' ', '\t']);
                let item = column_one && list_item(line);
                if let Some(b) = self.pending_blank.take()
                    && column_one
                    && !(item && self.in_list)
                {
                    cut(b);
                }
                if column_one {
                    self.in_list = item;
                }
            }
            if blank && self.fence.is_none() {
                self.pending_blank = Some(line_end);
            }
            let trimmed = line.trim_start();
            if line.len() - trimmed.len() < 4
                && let Some((c, n)) = fence_marker(trimmed)
            {
                match self.fence {
                    None => self.fence = Some((c, n)),
                    Some((open_c, open_n)) if c == open_c && n >= open_n && trimmed[n * c.len_utf8()..].trim().is_empty() => self.fence = None,
                    Some(_) => {}
                }
            }
            self.scan = line_end;
        }
    }
}

/// A link reference definition (`[x]: http://…`) anywhere: links defined
/// in one block may be used in another, so such a text is not cut.
fn has_definitions(text: &str) -> bool {
    text.lines().any(|l| {
        let t = l.trim_start();
        l.len() - t.len() < 4 && t.starts_with('[') && t.find("]:").is_some_and(|i| i > 1)
    })
}

/// The blocks of a complete Markdown text, in order: each renders alone as
/// it does in the whole (the cuts [`StreamRender`] makes), so a long text
/// can be rendered and laid out a block at a time. A text with link
/// reference definitions is one block.
pub fn blocks(text: &str) -> impl Iterator<Item = &str> {
    let mut ends = Vec::new();
    if !has_definitions(text) {
        Cuts::default().scan(text, true, |c| ends.push(c));
    }
    ends.push(text.len());
    let mut start = 0;
    ends.into_iter().filter_map(move |end| {
        let block = &text[start..end];
        start = end;
        (!block.trim().is_empty()).then_some(block)
    })
}

/// FNV-1a of `bytes`, continued from `hash` (start with [`FNV_START`]).
fn fnv(mut hash: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// The blocks of a complete `text` after its first `from` bytes, if those
/// are what a [`StreamRender`] handed out as finished blocks (the same
/// text, by [`StreamRender::committed`]'s fingerprint, and a text that is
/// cut at all): a caller that kept those blocks in the page needs only
/// these.
pub fn blocks_after(text: &str, from: usize, fingerprint: u64) -> Option<impl Iterator<Item = &str>> {
    let head = text.get(..from)?;
    if has_definitions(text) || fnv(FNV_START, head.as_bytes()) != fingerprint {
        return None;
    }
    Some(blocks(&text[from..]))
}

/// Renders an answer as it arrives, from its pieces ([`push`]) or from the
/// whole text so far ([`update`]). It keeps only the unfinished tail: the
/// finished blocks are handed out once and forgotten.
///
/// [`push`]: StreamRender::push
/// [`update`]: StreamRender::update
#[derive(Debug)]
pub struct StreamRender {
    /// Byte offset (in the whole text) up to which blocks were handed out.
    committed: usize,
    /// Fingerprint of the text up to `committed`.
    hash: u64,
    /// The text after `committed`; `cuts` scans it.
    tail: String,
    cuts: Cuts,
}

impl Default for StreamRender {
    fn default() -> Self {
        Self { committed: 0, hash: FNV_START, tail: String::new(), cuts: Cuts::default() }
    }
}

/// What changed since the last update.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StreamUpdate {
    /// HTML of blocks finished since the last update, in order; append them.
    pub blocks: Vec<String>,
    /// HTML of the unfinished tail; replaces the previous tail.
    pub tail: String,
}

impl StreamRender {
    pub fn new() -> Self {
        Self::default()
    }

    /// How much of the text the blocks handed out cover, and its
    /// fingerprint (see [`blocks_after`]).
    pub fn committed(&self) -> (usize, u64) {
        (self.committed, self.hash)
    }

    /// How long the whole text is so far.
    pub fn len(&self) -> usize {
        self.committed + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Takes the whole text so far (it only ever grows) and returns what to
    /// append and the new tail. A text that is not the last one extended
    /// starts over.
    pub fn update(&mut self, text: &str) -> StreamUpdate {
        if text.get(self.committed..self.len()) != Some(self.tail.as_str()) {
            *self = Self::default();
        }
        let from = self.len();
        self.push(&text[from..])
    }

    /// Takes what arrived since the last call and returns what to append
    /// and the new tail.
    pub fn push(&mut self, piece: &str) -> StreamUpdate {
        self.tail.push_str(piece);
        // Each finished block is rendered alone, however much arrived at
        // once (a page busy elsewhere may see the whole answer in one go).
        let mut update = StreamUpdate::default();
        let (tail, hash) = (&self.tail, &mut self.hash);
        let mut done = 0;
        self.cuts.scan(tail, false, |cut| {
            if cut > done {
                update.blocks.push(render(&tail[done..cut]));
                *hash = fnv(*hash, &tail.as_bytes()[done..cut]);
                done = cut;
            }
        });
        if done > 0 {
            self.tail.drain(..done);
            self.committed += done;
            self.cuts.shift(done);
        }
        update.tail = render(&self.tail);
        update
    }
}
