//! The files a run wrote, as the page keeps them: each name plain and
//! unique, each type decided here from the name, within the run's limits.

use crate::Limits;
use crate::tools::ChatFile;

/// A file a run gave back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutFile {
    pub name: String,
    pub mime: &'static str,
    pub bytes: Vec<u8>,
}

impl OutFile {
    /// Shown in the card as a picture (else offered as a download).
    pub fn is_image(&self) -> bool {
        self.mime.starts_with("image/")
    }
}

/// A file a run wrote that was not kept, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Dropped {
    #[error("{name}: {size} bytes, more than the {limit} a file may have")]
    TooLarge { name: String, size: usize, limit: usize },
    #[error("{name}: the files together would pass {limit} bytes")]
    TooMuch { name: String, limit: usize },
    #[error("{name}: more than {limit} files")]
    TooMany { name: String, limit: usize },
}

/// The name a file is kept under: its last path segment, without control
/// characters or leading dots, at most 100 characters (`file` when
/// nothing is left).
pub fn plain_name(raw: &str) -> String {
    let last = raw.rsplit(['/', '\\']).next().unwrap_or_default();
    let clean: String = last.chars().filter(|c| !c.is_control() && !matches!(c, '<' | '>' | ':' | '"' | '|' | '?' | '*')).collect();
    let clean = clean.trim().trim_start_matches('.').trim();
    let kept: String = clean.chars().rev().take(100).collect::<Vec<_>>().into_iter().rev().collect();
    if kept.is_empty() { "file".into() } else { kept }
}

/// The type of a file by its name's extension (what the code says it is
/// is not asked).
pub fn mime_of(name: &str) -> &'static str {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "csv" => "text/csv",
        "tsv" => "text/tab-separated-values",
        "json" => "application/json",
        "txt" | "log" | "py" | "js" => "text/plain",
        "md" => "text/markdown",
        "html" | "htm" => "text/html",
        "xml" => "application/xml",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ => "application/octet-stream",
    }
}

/// Keeps what fits of `written` ((name as the code gave it, bytes), in
/// order): plain, unique names (`a.csv`, `a (2).csv`), each type from its
/// name, the rest dropped with why.
pub fn keep(written: Vec<(String, Vec<u8>)>, limits: &Limits) -> (Vec<OutFile>, Vec<Dropped>) {
    let (mut kept, mut dropped): (Vec<OutFile>, Vec<Dropped>) = (Vec::new(), Vec::new());
    let mut total = 0usize;
    for (raw, bytes) in written {
        let name = unique(plain_name(&raw), &kept);
        let size = bytes.len();
        if kept.len() >= limits.files {
            dropped.push(Dropped::TooMany { name, limit: limits.files });
        } else if size > limits.file_bytes {
            dropped.push(Dropped::TooLarge { name, size, limit: limits.file_bytes });
        } else if total + size > limits.total_file_bytes {
            dropped.push(Dropped::TooMuch { name, limit: limits.total_file_bytes });
        } else {
            total += size;
            kept.push(OutFile { mime: mime_of(&name), name, bytes });
        }
    }
    (kept, dropped)
}

/// At most this many of the chat's files are given to a run (the latest).
pub const MAX_CHAT_FILES: usize = 200;

/// The chat's files as a run sees them, from `all` (in the order the
/// conversation has them; names as stored, which others may have
/// written): each under its plain name, a later file of the same name
/// (sent again, or written again by code) in place of the earlier.
pub fn chat_files(all: impl IntoIterator<Item = ChatFile>) -> Vec<ChatFile> {
    let mut out: Vec<ChatFile> = Vec::new();
    for mut f in all {
        f.name = plain_name(&f.name);
        out.retain(|o| !o.name.eq_ignore_ascii_case(&f.name));
        out.push(f);
    }
    let extra = out.len().saturating_sub(MAX_CHAT_FILES);
    out.drain(..extra);
    out
}

fn unique(name: String, kept: &[OutFile]) -> String {
    let taken = |n: &str| kept.iter().any(|f| f.name.eq_ignore_ascii_case(n));
    if !taken(&name) {
        return name;
    }
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s.to_owned(), format!(".{e}")),
        _ => (name.clone(), String::new()),
    };
    (2..).map(|i| format!("{stem} ({i}){ext}")).find(|n| !taken(n)).unwrap_or(name)
}

#[cfg(test)]
#[path = "files_tests.rs"]
mod tests;
