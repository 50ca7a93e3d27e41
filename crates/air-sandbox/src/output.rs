//! A run's outcome as a tool's output: the text the model reads (how it
//! ended, stdout, stderr, the value, the files given back, what was cut
//! or not kept) and the files it wrote; the call card reads the same.

use air_tools::{Content, OutputFile, ToolOutput};
use serde_json::json;

use crate::run::{End, Outcome};
use crate::tools::size;

impl Outcome {
    /// As a tool's output: an error for the model unless the code ran to
    /// its end; the files it wrote given back (the card shows the images
    /// and offers the rest as downloads); the card's facts in `structured`.
    pub fn output(self) -> ToolOutput {
        let content = vec![Content::Text { text: self.model_text() }];
        let structured = json!({"sandbox": {"lang": self.lang.wire(), "end": self.end_kind(), "ranMs": self.ran_ms}});
        let files = self.files.into_iter().map(|f| OutputFile { name: f.name, mime: f.mime.to_owned(), bytes: f.bytes }).collect();
        ToolOutput { content, is_error: self.end != End::Finished, structured: Some(structured), files }
    }

    /// What the model reads.
    pub fn model_text(&self) -> String {
        let mut out = vec![self.end_text()];
        for (label, text) in [("stdout", &self.stdout), ("stderr", &self.stderr)] {
            if !text.is_empty() {
                out.push(format!("{label}:\n{}", text.trim_end_matches('\n')));
            }
        }
        if let Some(v) = &self.value {
            out.push(format!("value: {v}"));
        }
        if !self.files.is_empty() {
            let list: Vec<String> = self.files.iter().map(|f| format!("{} ({}, {})", f.name, f.mime, size(f.bytes.len() as u64))).collect();
            out.push(format!("Files given back to the user: {}.", list.join(", ")));
        }
        if !self.dropped.is_empty() {
            let list: Vec<String> = self.dropped.iter().map(ToString::to_string).collect();
            out.push(format!("Files not kept: {}.", list.join("; ")));
        }
        if self.cut > 0 {
            out.push(format!("({} characters of output were left out: print less, or write it to a file.)", self.cut));
        }
        out.join("\n")
    }

    fn end_text(&self) -> String {
        let lang = self.lang.name();
        match &self.end {
            End::Finished => format!("{lang} ran to its end in {} ms.", self.ran_ms.unwrap_or(0.0).round()),
            End::Raised { name, message } => format!("The code raised {name}: {message}"),
            End::TimedOut { limit_ms } => format!("Stopped at the time limit of {} s: the code ran too long (an endless loop?).", limit_ms / 1000),
            End::Stalled { ms } => format!("{lang} could not be made ready: no progress for {} s.", ms / 1000),
            End::Stopped => "Stopped by the user.".to_owned(),
            End::Crashed(why) => format!("The sandbox stopped: {why}"),
            End::Missing { packages, available } => {
                let offered = if available.is_empty() { "none".to_owned() } else { available.join(", ") };
                format!("Not run: this site does not offer {}. Packages it offers: {offered}.", packages.join(", "))
            }
        }
    }

    /// The end as the card names it.
    pub fn end_kind(&self) -> &'static str {
        match self.end {
            End::Finished => "finished",
            End::Raised { .. } => "raised",
            End::TimedOut { .. } => "timed-out",
            End::Stalled { .. } => "stalled",
            End::Stopped => "stopped",
            End::Crashed(_) => "crashed",
            End::Missing { .. } => "missing",
        }
    }
}

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;
