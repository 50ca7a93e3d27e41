//! Files from this machine attached to the next message: images (shown
//! meanwhile through a preview the platform makes) and text files, kept
//! whole; anything else refused with why. They are stored with the
//! message (the model gets images as images and a text file's text, cut
//! at a limit; code run in the page reads them whole) and come back when
//! it could not be saved; a preview is let go of once its file is sent or
//! taken off.
//!
//! Reading a file (and drawing a large image smaller) is the page's; what
//! it read becomes a [`Prepared`] through [`prepare`], in the part fetched
//! with the first file, and reaches the core as [`Command::Files(Action::Read)`].

use std::sync::Arc;

use air_agent::NewFile;
use air_store::files::{Attached, Refusal};

use crate::{Notice, Platform, Update, Workspace};

/// A file attached to the next message.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalFile {
    /// Tells the chips apart.
    pub key: u32,
    pub name: String,
    pub size: u64,
    pub kind: LocalKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum LocalKind {
    /// Sent as an image; `url` (a preview the platform made) shows it
    /// meanwhile; `scaled`: the size it had before it was drawn smaller.
    Image { mime: String, bytes: Arc<Vec<u8>>, url: String, scaled: Option<(u32, u32)> },
    /// A text file: its type, bytes, and whether the model gets only the
    /// first part of its text.
    Text { mime: String, bytes: Arc<Vec<u8>>, cut: bool },
}

/// A file as the page read it (a large image already drawn smaller).
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    pub name: String,
    pub mime: String,
    pub bytes: Vec<u8>,
    /// The size a large image had before it was drawn smaller.
    pub scaled: Option<(u32, u32)>,
}

/// What a file the user picked becomes.
#[derive(Debug, Clone, PartialEq)]
pub enum Prepared {
    /// Attached: its name, size and what it is.
    File { name: String, size: u64, kind: Kind },
    /// Not attached, and why.
    Refused { name: String, why: Refusal },
    /// The browser could not read it (or draw it smaller).
    Unreadable { name: String, error: String },
}

/// An attached file, before it has a preview.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Image { mime: String, bytes: Vec<u8>, scaled: Option<(u32, u32)> },
    Text { mime: String, bytes: Vec<u8>, cut: bool },
}

/// Images of these types are drawn smaller when large (what is stored and
/// sent is at most [`air_store::files::MAX_IMAGE_SIDE`] pixels on its
/// longer side).
pub fn scalable(mime: &str) -> bool {
    air_store::files::IMAGE_TYPES.contains(&mime.to_ascii_lowercase().as_str())
}

/// What the file the page read (or could not read: its name and why)
/// becomes.
pub fn prepare(read: Result<Read, (String, String)>) -> Prepared {
    let read = match read {
        Ok(read) => read,
        Err((name, error)) => return Prepared::Unreadable { name, error },
    };
    let size = read.bytes.len() as u64;
    let kind = match air_store::files::classify(&read.mime, &read.bytes) {
        Attached::Image => Kind::Image { mime: read.mime.trim().to_ascii_lowercase(), bytes: read.bytes, scaled: read.scaled },
        Attached::Text { cut } => Kind::Text { mime: air_store::files::text_type(&read.mime), bytes: read.bytes, cut },
        Attached::Refused(why) => return Prepared::Refused { name: read.name, why },
    };
    Prepared::File { name: read.name, size, kind }
}

/// The files of the next message, and those of the message being sent
/// (given back if it is not saved).
#[derive(Debug, Default)]
pub struct Files {
    list: Vec<LocalFile>,
    sending: Vec<LocalFile>,
}

impl Files {
    pub(crate) fn has_any(&self) -> bool {
        !self.list.is_empty()
    }
}

/// What the files attached to the next message are asked.
#[derive(Debug)]
pub enum Action {
    /// Files the user picked, as the page read them: attached to the next
    /// message, or refused with why.
    Read(Vec<Prepared>),
    /// Take a file (by its key) off the next message.
    Remove(u32),
}

pub(crate) fn handle<P: Platform>(w: &mut Workspace<P>, action: Action) {
    match action {
        Action::Read(files) => {
            for file in files {
                add(w, file);
            }
            publish(w);
        }
        Action::Remove(key) => {
            let (gone, kept) = std::mem::take(&mut w.files.list).into_iter().partition(|f| f.key == key);
            w.files.list = kept;
            publish(w);
            forget(w, &gone);
        }
    }
}

fn add<P: Platform>(w: &mut Workspace<P>, file: Prepared) {
    let (name, size, kind) = match file {
        Prepared::File { name, size, kind } => (name, size, kind),
        Prepared::Refused { name, why } => return w.emit(Update::Notice(Notice::FileRefused { name, why })),
        Prepared::Unreadable { name, error } => return w.emit(Update::Notice(Notice::FileUnreadable { name, error })),
    };
    let kind = match kind {
        Kind::Image { mime, bytes, scaled } => {
            let url = w.p.preview(&bytes, &mime).unwrap_or_default();
            LocalKind::Image { mime, bytes: Arc::new(bytes), url, scaled }
        }
        Kind::Text { mime, bytes, cut } => LocalKind::Text { mime, bytes: Arc::new(bytes), cut },
    };
    let key = w.files.list.iter().map(|f| f.key + 1).max().unwrap_or(0);
    w.files.list.push(LocalFile { key, name, size, kind });
}

/// The message takes the files with it, in order.
pub(crate) fn take_for_sending<P: Platform>(w: &mut Workspace<P>) -> Vec<NewFile> {
    w.files.sending = std::mem::take(&mut w.files.list);
    if !w.files.sending.is_empty() {
        publish(w);
    }
    w.files.sending.iter().map(LocalFile::to_send).collect()
}

impl LocalFile {
    fn to_send(&self) -> NewFile {
        let (LocalKind::Image { mime, bytes, .. } | LocalKind::Text { mime, bytes, .. }) = &self.kind;
        NewFile { name: self.name.clone(), mime: mime.clone(), bytes: bytes.to_vec() }
    }
}

/// The message was saved (`sent`) or not: its files' previews go, or the
/// files come back unless others were attached meanwhile.
pub(crate) fn sending_ended<P: Platform>(w: &mut Workspace<P>, sent: bool) {
    let sending = std::mem::take(&mut w.files.sending);
    if !sent && w.files.list.is_empty() && !sending.is_empty() {
        w.files.list = sending;
        return publish(w);
    }
    forget(w, &sending);
}

/// Lets the platform free the previews of files no longer attached.
fn forget<P: Platform>(w: &mut Workspace<P>, files: &[LocalFile]) {
    for f in files {
        if let LocalKind::Image { url, .. } = &f.kind
            && !url.is_empty()
        {
            w.p.forget_preview(url);
        }
    }
}

fn publish<P: Platform>(w: &mut Workspace<P>) {
    let list = w.files.list.clone();
    w.emit(Update::Files(list));
}

#[cfg(test)]
#[path = "files_tests.rs"]
mod tests;
