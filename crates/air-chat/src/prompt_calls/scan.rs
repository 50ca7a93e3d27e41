//! Cheap scans over held text: stepping through a JSON value given out
//! as text, remembering how far the searches for a candidate's end got,
//! and small char-level helpers.

use super::Skip;

/// What the searches for the end of a held candidate (a closing tag, the
/// end of a JSON value) found so far, so that each new piece of a long call
/// costs its own length, not the length of everything held. Keyed by where
/// the search starts in `pending`; cleared when `pending` loses its start.
#[derive(Debug, Default)]
pub(super) struct Memo {
    /// (start, needle, bytes of `pending` searched without finding it).
    finds: Vec<(usize, &'static str, usize)>,
    /// (start, single quotes, bytes scanned, scan state).
    scan: Option<(usize, bool, usize, Skip)>,
}

impl Memo {
    /// Where `needle` first occurs in `p[start..]` (relative to `start`).
    pub(super) fn find(&mut self, p: &str, start: usize, needle: &'static str) -> Option<usize> {
        let done = self.finds.iter().find(|(s, n, _)| *s == start && *n == needle).map(|&(_, _, upto)| upto);
        // An occurrence may straddle the end of what was searched.
        let from = floor_boundary(p, done.map_or(start, |upto| upto.saturating_sub(needle.len() - 1).max(start)));
        match p.get(from..).and_then(|rest| rest.find(needle)) {
            Some(i) => Some(from + i - start),
            None => {
                self.finds.retain(|(s, n, _)| !(*s == start && *n == needle));
                self.finds.push((start, needle, p.len()));
                None
            }
        }
    }

    /// Where the JSON value at `p[start..]` ends (relative to `start`).
    pub(super) fn balanced_end(&mut self, p: &str, start: usize, single: bool) -> Option<usize> {
        let (from, mut skip) = match self.scan {
            Some((s, q, upto, skip)) if s == start && q == single => (upto, skip),
            _ => (start, Skip { depth: 0, quote: None, escaped: false, single }),
        };
        let rest = p.get(from..)?;
        match skip_json(&mut skip, rest) {
            (n, true) => Some(from + n - start),
            (_, false) => {
                self.scan = Some((start, single, p.len(), skip));
                None
            }
        }
    }
}

/// Advances through a JSON value given out as text; returns how many bytes
/// of `p` belong to it and whether it ended.
pub(super) fn skip_json(skip: &mut Skip, p: &str) -> (usize, bool) {
    for (i, c) in p.char_indices() {
        if let Some(q) = skip.quote {
            if skip.escaped {
                skip.escaped = false;
            } else if c == '\\' {
                skip.escaped = true;
            } else if c == q {
                skip.quote = None;
            }
            continue;
        }
        match c {
            '"' => skip.quote = Some('"'),
            '\'' if skip.single => skip.quote = Some('\''),
            '{' | '[' => skip.depth += 1,
            '}' | ']' => {
                skip.depth = skip.depth.saturating_sub(1);
                if skip.depth == 0 {
                    return (i + 1, true);
                }
            }
            _ => {}
        }
    }
    (p.len(), false)
}

/// Whether `p` starts with `marker`, or is a proper start of it.
pub(super) fn starts_or_prefix(p: &str, marker: &str) -> bool {
    p.starts_with(marker) || (p.len() < marker.len() && marker.starts_with(p))
}

pub(super) fn line_start_after(mut line_start: bool, text: &str) -> bool {
    for c in text.chars() {
        line_start = match c {
            '\n' => true,
            ' ' | '\t' => line_start,
            _ => false,
        };
    }
    line_start
}

/// `n`, moved back to a char boundary (steps only cut at boundaries; this
/// keeps a mistake from becoming a panic).
pub(super) fn floor_boundary(s: &str, mut n: usize) -> usize {
    n = n.min(s.len());
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    n
}
