//! The export ZIPs of other chat apps (ChatGPT's, Claude's), read in
//! slices: no IO here, the page reads the parts asked for.
//!
//! A ChatGPT export with images can be several GB, so the page never
//! holds the whole file: it reads slices of the `File` (`Blob.slice`) and
//! hands the bytes over.
//!
//! 1. The last [`TAIL`] bytes (or the whole file if shorter) go to
//!    [`directory`], which finds the end record (and the ZIP64 one) and,
//!    if the central directory lies inside that tail, reads it
//!    ([`Directory::Found`]). Otherwise it says which range to read
//!    ([`Directory::NeedRange`]), and those bytes go to [`directory_at`].
//! 2. [`plan`] picks the entries an importer reads ([`wanted`]:
//!    `conversations.json` or the split `conversations-NNN.json`, in
//!    order, by the last part of their names: an entry's name is never a
//!    path here), says which look like them but are left out, and refuses
//!    the ZIP from its directory alone: more than [`LIMIT`] unzipped in
//!    all, two entries naming the same bytes, or one that [`check`] says
//!    cannot be read.
//! 3. For each, the page reads [`local_span`] (clamped to the file's
//!    length) and [`extract`] gives the entry's bytes: local header
//!    skipped, inflated or copied, size and CRC-32 checked, never more
//!    than a limit (a ZIP bomb is refused, not inflated).
//!
//! Sizes and offsets always come from the central directory (entries
//! written with a data descriptor have none in their local header).
//! ZIP64 is read; encrypted entries, split archives and methods other
//! than stored and deflate are refused with a sentence saying so. Any
//! input, however damaged, gives an error, never a panic.

use std::fmt;

mod pick;
pub use pick::{LIMIT, Plan, plan, wanted};

/// How many bytes at the end of the file to read first: the end record
/// (22), its longest comment (65535), the ZIP64 locator (20) and the
/// ZIP64 end record (56).
pub const TAIL: u64 = 22 + 0xFFFF + 20 + 56;

const EOCD_SIG: u32 = 0x0605_4b50;
const EOCD64_SIG: u32 = 0x0606_4b50;
const LOCATOR_SIG: u32 = 0x0706_4b50;
const CENTRAL_SIG: u32 = 0x0201_4b50;
const LOCAL_SIG: u32 = 0x0403_4b50;
/// The fixed part of a central directory entry.
const CENTRAL_LEN: usize = 46;
/// The fixed part of a local header.
const LOCAL_LEN: usize = 30;
/// A 32-bit field saying "see the ZIP64 extra field".
const MAX32: u64 = 0xFFFF_FFFF;

/// One entry of the central directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Its path in the ZIP (`Export/conversations-000.json`).
    pub name: String,
    /// 0 stored, 8 deflate (others are refused by [`extract`]).
    pub method: u16,
    /// Bytes in the ZIP.
    pub compressed: u64,
    /// Bytes once extracted.
    pub size: u64,
    /// CRC-32 of the extracted bytes.
    pub crc32: u32,
    /// Where its local header starts.
    pub local_offset: u64,
    /// Flag bit 0: refused by [`extract`].
    pub encrypted: bool,
}

impl Item {
    /// A folder, not a file.
    pub fn is_dir(&self) -> bool {
        self.name.ends_with('/') || self.name.ends_with('\\')
    }
}

/// What [`directory`] found in the tail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Directory {
    /// Every entry of the ZIP.
    Found(Vec<Item>),
    /// The central directory starts before the tail: read
    /// `[offset, offset + len)` and give it to [`directory_at`] with
    /// `count`.
    NeedRange { offset: u64, len: u64, count: u64 },
}

/// Why a ZIP (or one of its entries) could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// No end record, and nothing that looks like a ZIP.
    NotZip,
    /// Part of the file is missing (a download cut short).
    Truncated,
    /// Inconsistent structure; says what, as the end of a sentence.
    Damaged(String),
    /// A ZIP split into several files (`.z01`, …).
    MultiDisk,
    /// An entry with flag bit 0 (ZipCrypto or AES).
    Encrypted { name: String },
    /// An entry neither stored (0) nor deflated (8).
    Method { name: String, method: u16 },
    /// An entry whose bytes do not match its CRC-32.
    Crc { name: String },
    /// An entry larger than the limit given (bytes).
    TooLarge { name: String, size: u64, limit: u64 },
    /// No entry an importer reads.
    NoConversations,
    /// The entries read are more than the limit (bytes) unzipped in all.
    TooLargeInAll { size: u64, limit: u64 },
    /// Two entries whose bytes are the same (as a hostile ZIP's can be,
    /// all of them one bomb).
    SameBytes { name: String, other: String },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotZip => write!(f, "This file is not a ZIP archive, or its end is missing (was the download complete?)."),
            Error::Truncated => write!(f, "The ZIP file is incomplete: part of it is missing (was the download complete?)."),
            Error::Damaged(what) => write!(f, "The ZIP file is damaged: {what}."),
            Error::MultiDisk => write!(f, "This ZIP is split into several parts, which is not supported: join the parts into one ZIP first."),
            Error::Encrypted { name } => write!(f, "“{name}” in the ZIP is encrypted, which is not supported: unzip it yourself and import the file inside."),
            Error::Method { name, method } => {
                write!(f, "“{name}” in the ZIP is compressed with method {method}, which is not supported (only stored and deflate are): unzip it yourself and import the file inside.")
            }
            Error::Crc { name } => write!(f, "“{name}” in the ZIP is damaged: its content does not match its CRC-32 checksum."),
            Error::TooLarge { name, size, limit } => write!(f, "“{name}” in the ZIP is too large to import: {} once unzipped, more than the {} allowed.", megabytes(*size), megabytes(*limit)),
            Error::NoConversations => write!(f, "This ZIP has no conversations.json (an export of ChatGPT or Claude has one): import the file of conversations itself."),
            Error::TooLargeInAll { size, limit } => {
                write!(f, "The conversations in this ZIP are too large to import: {} once unzipped, more than the {} allowed in all.", megabytes(*size), megabytes(*limit))
            }
            Error::SameBytes { name, other } => write!(f, "The ZIP file is damaged: “{name}” and “{other}” are the same bytes."),
        }
    }
}

impl std::error::Error for Error {}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_000_000.0)
}

fn damaged(what: &str) -> Error {
    Error::Damaged(what.to_string())
}

/// The little-endian number of `n` bytes at `at`, if `b` holds them.
fn le(b: &[u8], at: usize, n: usize) -> Option<u64> {
    let s = b.get(at..at.checked_add(n)?)?;
    Some(s.iter().rev().fold(0, |acc, &x| acc << 8 | u64::from(x)))
}

fn le16(b: &[u8], at: usize) -> Option<u16> {
    le(b, at, 2).and_then(|v| u16::try_from(v).ok())
}

fn le32(b: &[u8], at: usize) -> Option<u32> {
    le(b, at, 4).and_then(|v| u32::try_from(v).ok())
}

fn le64(b: &[u8], at: usize) -> Option<u64> {
    le(b, at, 8)
}

/// Where the central directory is, from the end records.
struct End {
    count: u64,
    size: u64,
    offset: u64,
    /// Where the end record (the ZIP64 one if any) starts: the central
    /// directory ends before it.
    end_at: u64,
}

/// The entries of the ZIP whose last bytes are `tail` (the last
/// `min(TAIL, file_len)` bytes of a file of `file_len` bytes).
pub fn directory(tail: &[u8], file_len: u64) -> Result<Directory, Error> {
    let tail_len = u64::try_from(tail.len()).map_err(|_| damaged("its end is too large"))?;
    let tail_start = file_len.checked_sub(tail_len).ok_or_else(|| damaged("it is shorter than the part read from its end"))?;
    let eocd = find_eocd(tail).ok_or_else(|| not_zip(tail))?;
    let end = end_records(tail, eocd, tail_start)?;
    let cd_end = end.offset.checked_add(end.size).ok_or_else(|| damaged("its directory is out of place"))?;
    if cd_end > end.end_at {
        return Err(damaged("its directory is out of place"));
    }
    if end.size / (CENTRAL_LEN as u64) < end.count {
        return Err(damaged("its directory is shorter than its entry count"));
    }
    if end.offset < tail_start {
        return Ok(Directory::NeedRange { offset: end.offset, len: end.size, count: end.count });
    }
    let from = usize::try_from(end.offset - tail_start).map_err(|_| damaged("its directory is out of place"))?;
    let to = usize::try_from(cd_end - tail_start).map_err(|_| damaged("its directory is out of place"))?;
    let bytes = tail.get(from..to).ok_or_else(|| damaged("its directory is out of place"))?;
    directory_at(bytes, end.count).map(Directory::Found)
}

/// No end record: a ZIP cut short if the bytes show ZIP headers, else
/// not a ZIP at all.
fn not_zip(tail: &[u8]) -> Error {
    let headers = [LOCAL_SIG.to_le_bytes(), CENTRAL_SIG.to_le_bytes()];
    if tail.windows(4).any(|w| headers.iter().any(|h| w == h)) { Error::Truncated } else { Error::NotZip }
}

/// Where in `tail` the end of central directory record starts: the
/// nearest to the end whose comment ends the file, else the nearest to
/// the end whose comment fits.
fn find_eocd(tail: &[u8]) -> Option<usize> {
    let mut fits = None;
    for i in (0..=tail.len().checked_sub(22)?).rev() {
        if le32(tail, i) != Some(EOCD_SIG) {
            continue;
        }
        match le16(tail, i + 20).map(|c| i + 22 + usize::from(c)) {
            Some(end) if end == tail.len() => return Some(i),
            Some(end) if end < tail.len() => fits = fits.or(Some(i)),
            _ => {}
        }
    }
    fits
}

/// The end record at `tail[eocd..]`, and the ZIP64 one if its locator
/// precedes it.
fn end_records(tail: &[u8], eocd: usize, tail_start: u64) -> Result<End, Error> {
    let field = |at: usize, n: usize| le(tail, eocd + at, n).ok_or(Error::Truncated);
    let end_at = tail_start + eocd as u64;
    let locator = eocd.checked_sub(20).filter(|&l| le32(tail, l) == Some(LOCATOR_SIG));
    let Some(locator) = locator else {
        if field(4, 2)? != 0 || field(6, 2)? != 0 {
            return Err(Error::MultiDisk);
        }
        return Ok(End { count: field(10, 2)?, size: field(12, 4)?, offset: field(16, 4)?, end_at });
    };
    if le32(tail, locator + 16).is_some_and(|disks| disks > 1) {
        return Err(Error::MultiDisk);
    }
    let at = le64(tail, locator + 8).ok_or(Error::Truncated)?;
    let rel =
        at.checked_sub(tail_start).and_then(|r| usize::try_from(r).ok()).filter(|&r| r.checked_add(56).is_some_and(|e| e <= locator)).ok_or_else(|| damaged("its ZIP64 end record is out of place"))?;
    if le32(tail, rel) != Some(EOCD64_SIG) {
        return Err(damaged("its ZIP64 end record is missing"));
    }
    let field = |at: usize| le64(tail, rel + at).ok_or(Error::Truncated);
    if le32(tail, rel + 16) != Some(0) || le32(tail, rel + 20) != Some(0) {
        return Err(Error::MultiDisk);
    }
    Ok(End { count: field(32)?, size: field(40)?, offset: field(48)?, end_at: at })
}

/// The `count` entries of a central directory read on its own.
pub fn directory_at(bytes: &[u8], count: u64) -> Result<Vec<Item>, Error> {
    let short = || damaged("its directory is shorter than its entry count");
    if (bytes.len() / CENTRAL_LEN) < usize::try_from(count).map_err(|_| short())? {
        return Err(short());
    }
    let mut items = Vec::new();
    let mut at = 0;
    for _ in 0..count {
        let (item, next) = entry(bytes, at)?;
        items.push(item);
        at = next;
    }
    Ok(items)
}

/// The central directory entry at `b[at..]`, and where the next starts.
fn entry(b: &[u8], at: usize) -> Result<(Item, usize), Error> {
    let short = || damaged("its directory is shorter than its entry count");
    if le32(b, at) != Some(CENTRAL_SIG) {
        return Err(damaged("an entry of its directory is not where it should be"));
    }
    let field = |off: usize, n: usize| le(b, at + off, n).ok_or_else(short);
    let flags = field(8, 2)?;
    let name_len = field(28, 2)? as usize;
    let extra_len = field(30, 2)? as usize;
    let comment_len = field(32, 2)? as usize;
    let name_at = at + CENTRAL_LEN;
    let extra_at = name_at + name_len;
    let next = extra_at + extra_len + comment_len;
    let name = b.get(name_at..extra_at).ok_or_else(short)?;
    let extra = b.get(extra_at..extra_at + extra_len).ok_or_else(short)?;
    if next > b.len() {
        return Err(short());
    }
    let mut item = Item {
        name: decode_name(name, flags & 0x0800 != 0),
        method: le16(b, at + 10).ok_or_else(short)?,
        compressed: field(20, 4)?,
        size: field(24, 4)?,
        crc32: le32(b, at + 16).ok_or_else(short)?,
        local_offset: field(42, 4)?,
        encrypted: flags & 1 != 0,
    };
    zip64_extra(extra, &mut item)?;
    Ok((item, next))
}

/// A name as UTF-8 (flag bit 11, or bytes that are valid UTF-8 anyway,
/// as macOS writes them); else CP437, whose bytes past ASCII become `�`.
fn decode_name(bytes: &[u8], utf8: bool) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) if utf8 => String::from_utf8_lossy(bytes).into_owned(),
        Err(_) => bytes.iter().map(|&c| if c < 0x80 { char::from(c) } else { '\u{FFFD}' }).collect(),
    }
}

/// The ZIP64 extra field (0x0001) in `extra`, if any, gives the sizes
/// and offset whose 32-bit fields are all ones, in that order.
fn zip64_extra(extra: &[u8], item: &mut Item) -> Result<(), Error> {
    let mut at = 0;
    while let (Some(id), Some(len)) = (le16(extra, at), le16(extra, at + 2)) {
        let data = extra.get(at + 4..at + 4 + usize::from(len)).unwrap_or_default();
        at += 4 + usize::from(len);
        if id != 1 {
            continue;
        }
        let mut read = 0;
        for value in [&mut item.size, &mut item.compressed, &mut item.local_offset] {
            if *value == MAX32 {
                *value = le64(data, read).ok_or_else(|| damaged("an entry's ZIP64 field is too short"))?;
                read += 8;
            }
        }
        return Ok(());
    }
    Ok(())
}

/// A range of the file that surely holds `item`'s local header and data
/// (offset, length): the header, its name and extra field at their
/// longest, then the data. Clamp it to the file's length.
pub fn local_span(item: &Item) -> (u64, u64) {
    let header = LOCAL_LEN as u64 + 2 * 0xFFFF;
    (item.local_offset, header.saturating_add(item.compressed))
}

/// Whether [`extract`] could read `item` within `limit` bytes, from the
/// central directory alone: call it before reading [`local_span`].
pub fn check(item: &Item, limit: usize) -> Result<(), Error> {
    let name = || item.name.clone();
    if item.encrypted {
        return Err(Error::Encrypted { name: name() });
    }
    if item.method != 0 && item.method != 8 {
        return Err(Error::Method { name: name(), method: item.method });
    }
    let limit = u64::try_from(limit).unwrap_or(u64::MAX);
    let size = item.size.max(item.compressed);
    if size > limit {
        return Err(Error::TooLarge { name: name(), size, limit });
    }
    Ok(())
}

/// The bytes of `item`, from `local` (the file from its local header on,
/// as read with [`local_span`]): inflated or copied, size and CRC-32
/// checked, refused (see [`check`]) if more than `limit` bytes.
pub fn extract(local: &[u8], item: &Item, limit: usize) -> Result<Vec<u8>, Error> {
    check(item, limit)?;
    let data = local_data(local, item)?;
    let out = if item.method == 0 {
        if item.compressed != item.size {
            return Err(damaged(&format!("the sizes of “{}” do not agree", item.name)));
        }
        data.to_vec()
    } else {
        inflate(data, item)?
    };
    if out.len() as u64 != item.size {
        return Err(damaged(&format!("“{}” is shorter than its recorded size", item.name)));
    }
    if crc32(&out) != item.crc32 {
        return Err(Error::Crc { name: item.name.clone() });
    }
    Ok(out)
}

/// The compressed bytes of `item` after the local header at `local[0..]`
/// (whose name and extra field may differ in length from the central
/// directory's).
fn local_data<'a>(local: &'a [u8], item: &Item) -> Result<&'a [u8], Error> {
    if local.len() < LOCAL_LEN {
        return Err(Error::Truncated);
    }
    if le32(local, 0) != Some(LOCAL_SIG) {
        return Err(damaged(&format!("the header of “{}” is not where it should be", item.name)));
    }
    if le16(local, 6).is_some_and(|flags| flags & 1 != 0) {
        return Err(Error::Encrypted { name: item.name.clone() });
    }
    let name_len = le16(local, 26).map_or(0, usize::from);
    let extra_len = le16(local, 28).map_or(0, usize::from);
    let start = LOCAL_LEN + name_len + extra_len;
    let len = usize::try_from(item.compressed).map_err(|_| Error::Truncated)?;
    let end = start.checked_add(len).ok_or(Error::Truncated)?;
    local.get(start..end).ok_or(Error::Truncated)
}

/// Deflated `data`, never inflated past one byte more than `item.size`
/// (already checked against the limit).
fn inflate(data: &[u8], item: &Item) -> Result<Vec<u8>, Error> {
    use miniz_oxide::inflate::{TINFLStatus, decompress_to_vec_with_limit};
    let cap = usize::try_from(item.size).ok().and_then(|s| s.checked_add(1)).ok_or_else(|| damaged(&format!("the size of “{}” is out of range", item.name)))?;
    decompress_to_vec_with_limit(data, cap).map_err(|e| match e.status {
        TINFLStatus::HasMoreOutput => damaged(&format!("“{}” holds more than its recorded size", item.name)),
        _ => damaged(&format!("the compressed data of “{}” is invalid", item.name)),
    })
}

/// The CRC-32 (ISO-HDLC, as ZIP uses) of `bytes`.
pub fn crc32(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
                k += 1;
            }
            table[i] = c;
            i += 1;
        }
        table
    };
    !bytes.iter().fold(!0u32, |c, &b| TABLE[usize::from((c as u8) ^ b)] ^ (c >> 8))
}

#[cfg(test)]
mod tests;
