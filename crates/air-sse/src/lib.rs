//! A sans-IO decoder for `text/event-stream` (Server-Sent Events).
//!
//! The decoder follows the WHATWG "event stream interpretation" rules:
//! lines end in CRLF, LF or a lone CR (also when the CR and LF arrive in
//! different chunks); lines starting with `:` are comments; `data:` lines of
//! one event are joined with `\n`; an event is dispatched at a blank line; a
//! leading UTF-8 byte-order mark is dropped; `id` and `retry` are tracked.
//!
//! It does no IO: the caller feeds whatever byte chunks the transport hands
//! it (split anywhere, even inside a UTF-8 sequence) and gets back whole
//! [`Frame`]s. [`Decoder::feed`] returns the frames (events, comments,
//! retry) that the bytes completed; [`Decoder::finish`] flushes at the end
//! of the body. Malformed input cannot make it fail: invalid UTF-8 becomes
//! U+FFFD and unknown fields are ignored, as the standard says.
//!
//! One deliberate leniency: at the end of the body ([`Decoder::finish`]) an
//! event that was not closed by a blank line is still dispatched. The
//! standard drops it, but real servers close the connection right after the
//! last `data:` line and that text belongs to the answer.
//!
//! Architecture invariant: no input makes it panic or fail; every split of
//! a body gives the same frames (tested by splitting at every byte); a line
//! or an event holds at most [`MAX_EVENT_BYTES`] (16 MB, or
//! [`Decoder::with_limit`]): past it the event is dropped, `Frame::TooLong`
//! is said once, and the stream goes on.

/// One event, as dispatched at a blank line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The `event:` field, or `None` for the default type (`message`).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The last event id seen so far in the stream (it persists across events).
    pub id: Option<String>,
}

/// What the decoder hands back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A complete event. The caller interprets `data`.
    Event(Event),
    /// A comment line (`: keep-alive`). Carries no data, but shows the
    /// connection is alive; callers may use it to reset an idle timer.
    Comment(String),
    /// A valid `retry:` field: the reconnection delay the server asks for, in ms.
    Retry(u64),
    /// A line or an event grew past the decoder's limit: it was dropped
    /// (the stream goes on after it). A hostile or broken server cannot
    /// make the decoder hold more than the limit.
    TooLong { limit: usize },
}

/// The default most a line or an event may hold: far more than any chat
/// chunk or MCP message, far less than a tab can afford.
pub const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// Incremental SSE decoder. Feed bytes with [`Decoder::feed`], then call
/// [`Decoder::finish`] once the body has ended.
#[derive(Debug, Default)]
pub struct Decoder {
    /// Bytes of the line being read (not yet terminated).
    line: Vec<u8>,
    /// The previous chunk ended in `\r`: a `\n` at the start of the next one
    /// belongs to the same line terminator.
    after_cr: bool,
    /// Whether the start of the stream (and a possible BOM) has been passed.
    started: bool,
    data: String,
    has_data: bool,
    event_type: Option<String>,
    last_event_id: Option<String>,
    /// The most a line or an event may hold (0: [`MAX_EVENT_BYTES`]).
    limit: usize,
    /// The line being read went past the limit: its bytes are dropped up to
    /// its end, and the event it belongs to with it.
    skipping: bool,
    /// The event being read went past the limit: dropped at its end.
    dropped: bool,
}

impl Decoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder that holds at most `bytes` of one line or one event.
    pub fn with_limit(bytes: usize) -> Self {
        Self { limit: bytes.max(1), ..Self::default() }
    }

    fn limit(&self) -> usize {
        if self.limit == 0 { MAX_EVENT_BYTES } else { self.limit }
    }

    /// Marks the event being read as dropped (once per event).
    fn overflow(&mut self, out: &mut Vec<Frame>) {
        if !self.dropped {
            out.push(Frame::TooLong { limit: self.limit() });
        }
        self.dropped = true;
        self.data = String::new();
        self.has_data = false;
    }

    /// The id the stream last set with `id:`; send it as `Last-Event-ID`
    /// when resuming.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// Consumes one chunk of the body and returns the frames it completed.
    pub fn feed(&mut self, mut chunk: &[u8]) -> Vec<Frame> {
        let mut out = Vec::new();
        if !self.started {
            // The BOM may itself be split across chunks; wait for 3 bytes.
            let mut head = std::mem::take(&mut self.line);
            head.extend_from_slice(chunk);
            if head.len() < 3 && b"\xEF\xBB\xBF".starts_with(&head) {
                self.line = head;
                return out;
            }
            self.started = true;
            let body = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head).to_vec();
            self.feed_started(&body, &mut out);
            return out;
        }
        if self.after_cr {
            self.after_cr = false;
            if let Some(rest) = chunk.strip_prefix(b"\n") {
                chunk = rest;
            }
        }
        self.feed_started(chunk, &mut out);
        out
    }

    fn feed_started(&mut self, mut chunk: &[u8], out: &mut Vec<Frame>) {
        while let Some(pos) = chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.take(&chunk[..pos], out);
            let line = std::mem::take(&mut self.line);
            if std::mem::take(&mut self.skipping) {
                // The end of an overlong line: nothing of it is read.
            } else {
                self.process_line(&line, out);
            }
            let was_cr = chunk[pos] == b'\r';
            chunk = &chunk[pos + 1..];
            if was_cr {
                match chunk.first() {
                    Some(b'\n') => chunk = &chunk[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        self.take(chunk, out);
    }

    /// Adds bytes to the line being read, unless that takes it past the limit.
    fn take(&mut self, bytes: &[u8], out: &mut Vec<Frame>) {
        if self.skipping {
            return;
        }
        if self.line.len() + bytes.len() > self.limit() {
            self.line = Vec::new();
            self.skipping = true;
            self.overflow(out);
            return;
        }
        self.line.extend_from_slice(bytes);
    }

    /// Ends the stream: a pending line and a pending event are processed as
    /// if the body had ended with a blank line.
    pub fn finish(&mut self) -> Vec<Frame> {
        let mut out = Vec::new();
        if !self.started {
            self.started = true;
            let head = std::mem::take(&mut self.line);
            if !b"\xEF\xBB\xBF".starts_with(&head) {
                self.line = head;
            }
        }
        if !self.line.is_empty() && !std::mem::take(&mut self.skipping) {
            let line = std::mem::take(&mut self.line);
            self.process_line(&line, &mut out);
        }
        self.skipping = false;
        self.dispatch(&mut out);
        self.after_cr = false;
        out
    }

    fn process_line(&mut self, line: &[u8], out: &mut Vec<Frame>) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        let line = String::from_utf8_lossy(line);
        if let Some(comment) = line.strip_prefix(':') {
            out.push(Frame::Comment(comment.strip_prefix(' ').unwrap_or(comment).to_owned()));
            return;
        }
        let (field, value) = match line.find(':') {
            Some(i) => {
                let value = &line[i + 1..];
                (&line[..i], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (&line[..], ""),
        };
        match field {
            "data" if self.dropped => {}
            "data" if self.data.len() + value.len() + 1 > self.limit() => self.overflow(out),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
                self.has_data = true;
            }
            "event" => self.event_type = Some(value.to_owned()),
            "id" if !value.contains('\0') => self.last_event_id = Some(value.to_owned()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                if let Ok(ms) = value.parse() {
                    out.push(Frame::Retry(ms));
                }
            }
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<Frame>) {
        let event_type = self.event_type.take();
        // An event that went past the limit ends here, and is not sent.
        self.dropped = false;
        if !self.has_data {
            // An event with no data is not dispatched (e.g. a priming
            // event that only sets `id:`).
            self.data.clear();
            return;
        }
        self.has_data = false;
        let mut data = std::mem::take(&mut self.data);
        if data.ends_with('\n') {
            data.pop();
        }
        out.push(Frame::Event(Event { event: event_type.filter(|t| !t.is_empty()), data, id: self.last_event_id.clone() }));
    }
}

/// Decodes a whole body at once; convenient for tests and small responses.
pub fn decode_all(body: &[u8]) -> Vec<Frame> {
    let mut decoder = Decoder::new();
    let mut frames = decoder.feed(body);
    frames.extend(decoder.finish());
    frames
}

#[cfg(test)]
mod tests;
