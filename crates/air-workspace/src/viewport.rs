//! A long list shown a few rows at a time (the conversation's messages):
//! which rows are in the page, the space that stands for those above and
//! below them, and where the list must be scrolled to keep the row being
//! read in place while rows are added above, measured or jumped to.
//!
//! A row's height is its measured one once it has been drawn, else an
//! estimate from its text. Positions are in pixels from the list's top.
//! The page measures; this keeps the arithmetic, so it is tested here.

use std::collections::HashMap;

/// What the reader's view is held to.
#[derive(Debug, Clone, PartialEq)]
pub enum Anchor {
    /// The end of the list (the reader follows the conversation).
    End,
    /// Row `id`, with the view's top `offset` pixels below the row's top
    /// (negative: above it).
    Row { id: String, offset: f64 },
}

/// The rows to draw, `first..last`, and the space standing for the rows
/// before and after them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    pub first: usize,
    pub last: usize,
    pub above: f64,
    pub below: f64,
}

/// The list's rows, their heights and the reader's place.
#[derive(Debug)]
pub struct Viewport {
    ids: Vec<String>,
    index: HashMap<String, usize>,
    heights: Vec<f64>,
    /// Measured heights by row, kept while the row is listed again.
    measured: HashMap<String, f64>,
    /// `tops[i]` is row `i`'s top; `tops[n]` the list's height.
    tops: Vec<f64>,
    /// The view: its top and height, in list pixels.
    top: f64,
    height: f64,
    anchor: Anchor,
    /// Pixels drawn beyond the view on each side.
    overscan: f64,
}

/// The estimated height of a row of `chars` characters of text, until it
/// is measured: a row's frame and its lines.
pub fn estimate(chars: usize) -> f64 {
    const FRAME_PX: f64 = 44.0;
    const LINE_PX: f64 = 24.0;
    const CHARS_PER_LINE: usize = 70;
    FRAME_PX + LINE_PX * (chars / CHARS_PER_LINE + 1) as f64
}

impl Viewport {
    /// An empty list, following its end; `overscan` pixels are drawn
    /// beyond the view on each side.
    pub fn new(overscan: f64) -> Self {
        Self { ids: Vec::new(), index: HashMap::new(), heights: Vec::new(), measured: HashMap::new(), tops: vec![0.0], top: 0.0, height: 0.0, anchor: Anchor::End, overscan }
    }

    /// The rows in order, each with its estimated height. A row measured
    /// before keeps its measured height; the anchor stays on its row (or,
    /// when that row is gone, on the row now in its place).
    pub fn set_rows(&mut self, rows: impl IntoIterator<Item = (String, f64)>) {
        let old_place = match &self.anchor {
            Anchor::Row { id, .. } => self.index.get(id).copied(),
            Anchor::End => None,
        };
        let (mut ids, mut heights) = (Vec::new(), Vec::new());
        for (id, estimate) in rows {
            heights.push(self.measured.get(&id).copied().unwrap_or(estimate));
            ids.push(id);
        }
        self.index = ids.iter().enumerate().map(|(i, id)| (id.clone(), i)).collect();
        self.measured.retain(|id, _| self.index.contains_key(id));
        self.ids = ids;
        self.heights = heights;
        self.sum();
        if let Anchor::Row { id, offset } = &self.anchor
            && !self.index.contains_key(id)
        {
            self.anchor = match old_place.and_then(|i| self.ids.get(i.min(self.ids.len().saturating_sub(1)))) {
                Some(now) => Anchor::Row { id: now.clone(), offset: *offset },
                None => Anchor::End,
            };
        }
        self.top = self.wanted_top();
    }

    fn sum(&mut self) {
        self.tops.clear();
        self.tops.push(0.0);
        let mut at = 0.0;
        for h in &self.heights {
            at += h;
            self.tops.push(at);
        }
    }

    /// Row `id` measured `height` pixels tall; true when that changes
    /// what was assumed.
    pub fn measured(&mut self, id: &str, height: f64) -> bool {
        let Some(&i) = self.index.get(id) else { return false };
        if (self.heights[i] - height).abs() < 0.5 {
            self.measured.insert(id.to_owned(), self.heights[i]);
            return false;
        }
        self.measured.insert(id.to_owned(), height);
        self.heights[i] = height;
        self.sum();
        true
    }

    /// The reader scrolled: the view is at `top`, `height` tall, and held
    /// to `anchor` from now on (the page finds the row at the view's top).
    pub fn scrolled(&mut self, top: f64, height: f64, anchor: Anchor) {
        self.top = top.max(0.0);
        self.height = height.max(0.0);
        self.anchor = anchor;
    }

    /// The view is `height` tall.
    pub fn resized(&mut self, height: f64) {
        self.height = height.max(0.0);
        self.top = self.wanted_top();
    }

    /// The view goes to row `id`, a little below the view's top; false
    /// when the row is not listed.
    pub fn show(&mut self, id: &str) -> bool {
        if !self.index.contains_key(id) {
            return false;
        }
        self.anchor = Anchor::Row { id: id.to_owned(), offset: -(self.height / 4.0).round() };
        self.top = self.wanted_top();
        true
    }

    /// The view follows the end from now on.
    pub fn follow(&mut self) {
        self.anchor = Anchor::End;
        self.top = self.wanted_top();
    }

    pub fn anchor(&self) -> &Anchor {
        &self.anchor
    }

    /// The list's height, as measured and estimated.
    pub fn total(&self) -> f64 {
        self.tops.last().copied().unwrap_or(0.0)
    }

    /// Row `id`'s top, if it is listed.
    pub fn top_of(&self, id: &str) -> Option<f64> {
        self.index.get(id).map(|&i| self.tops[i])
    }

    /// The row at `y` (the last one when `y` is past the end).
    pub fn row_at(&self, y: f64) -> Option<&str> {
        if self.ids.is_empty() {
            return None;
        }
        let i = self.tops.partition_point(|&t| t <= y).saturating_sub(1).min(self.ids.len() - 1);
        Some(&self.ids[i])
    }

    /// Where the view's top must be for the anchor to hold.
    pub fn wanted_top(&self) -> f64 {
        let end = (self.total() - self.height).max(0.0);
        match &self.anchor {
            Anchor::End => end,
            Anchor::Row { id, offset } => self.top_of(id).map_or(self.top, |t| (t + offset).clamp(0.0, end)),
        }
    }

    /// The rows to draw for the view as it is. While it follows the end,
    /// the last rows, wherever the page last scrolled: an answer streaming
    /// below the list takes the view past the list's end, and the answer
    /// saved in its place must be drawn at once (not dropped by a view top
    /// that no longer holds, then drawn again).
    pub fn range(&self) -> Range {
        let n = self.ids.len();
        let top = if self.anchor == Anchor::End { self.wanted_top() } else { self.top };
        let from = top - self.overscan;
        let to = top + self.height + self.overscan;
        // The first row whose bottom is below `from`, the first whose top
        // is at or past `to`.
        let first = self.tops[1..].partition_point(|&bottom| bottom <= from).min(n);
        let last = self.tops[..n].partition_point(|&top| top < to).max(first).min(n);
        Range { first, last, above: self.tops[first], below: self.total() - self.tops[last] }
    }

    /// The view is within a view's height of the list's top: time to read
    /// older rows.
    pub fn near_start(&self) -> bool {
        self.anchor != Anchor::End && self.top < self.height.max(1.0)
    }

    /// The view is within a view's height of the list's end (while it
    /// does not follow the end): time to read later rows.
    pub fn near_end(&self) -> bool {
        self.anchor != Anchor::End && self.top + 2.0 * self.height.max(1.0) >= self.total()
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

#[cfg(test)]
#[path = "viewport_tests.rs"]
mod tests;
