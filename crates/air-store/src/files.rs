//! Files the user attaches to a message: which are sent as images, which
//! are read as text and put in the message (with a limit), and which are
//! refused, with why.

/// The image types vision models take as `image_url` parts.
pub const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Larger images are refused (providers refuse them anyway; OpenAI's
/// limit is 20 MB per image).
pub const MAX_IMAGE_BYTES: usize = 20 * 1024 * 1024;

/// Images are sent at most this many pixels on their longer side: a
/// phone's photo (4000 × 3000, several MB) is scaled down before it is
/// stored and sent, as providers scale larger ones down anyway (OpenAI to
/// 2048, Anthropic to about 1568) and each request carries every image of
/// the conversation again.
pub const MAX_IMAGE_SIDE: u32 = 2048;

/// The size an image of `width` × `height` is sent at, keeping its shape,
/// when a side is over `max`; `None` when it fits as it is.
pub fn fit(width: u32, height: u32, max: u32) -> Option<(u32, u32)> {
    if width <= max && height <= max || width == 0 || height == 0 || max == 0 {
        return None;
    }
    let scale = f64::from(max) / f64::from(width.max(height));
    let side = |v: u32| ((f64::from(v) * scale).round() as u32).clamp(1, max);
    Some((side(width), side(height)))
}

/// The type a scaled image is written as, or `None` when an image of
/// `mime` is sent as it is: a GIF may be animated, and scaling would keep
/// only its first frame. PNG stays PNG (screenshots keep their text
/// sharp), JPEG and WebP stay what they are.
pub fn scaled_type(mime: &str) -> Option<&'static str> {
    match mime.trim().to_ascii_lowercase().as_str() {
        "image/png" => Some("image/png"),
        "image/jpeg" => Some("image/jpeg"),
        "image/webp" => Some("image/webp"),
        _ => None,
    }
}

/// At most this many characters of a text file go into the message.
pub const TEXT_LIMIT: usize = 50_000;

/// The first bytes of a stored text file read for a request: enough for
/// [`TEXT_LIMIT`] characters of any script (at most 4 bytes each), so a
/// large file is never read whole to be cut.
pub const TEXT_HEAD_BYTES: usize = TEXT_LIMIT * 4;

/// Larger files are refused. A text file is stored whole (code run in the
/// page reads it all: a 50 MB CSV), and only its first [`TEXT_LIMIT`]
/// characters go to the model.
pub const MAX_TEXT_FILE_BYTES: usize = 100 * 1024 * 1024;

/// What becomes of an attached file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attached {
    /// Sent to the model as an image.
    Image,
    /// Kept as a file whose text goes to the model: whether only its first
    /// [`TEXT_LIMIT`] characters do.
    Text { cut: bool },
    /// Not attached, and why.
    Refused(Refusal),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// An image over [`MAX_IMAGE_BYTES`].
    ImageTooLarge,
    /// A file over [`MAX_TEXT_FILE_BYTES`] that is not an image.
    TooLarge,
    /// Neither an image of a type models take nor text (a PDF, an archive).
    NotText,
}

/// Decides what `bytes` (of media type `mime`) become.
pub fn classify(mime: &str, bytes: &[u8]) -> Attached {
    let mime = mime.trim().to_ascii_lowercase();
    if IMAGE_TYPES.contains(&mime.as_str()) {
        return if bytes.len() > MAX_IMAGE_BYTES { Attached::Refused(Refusal::ImageTooLarge) } else { Attached::Image };
    }
    if bytes.len() > MAX_TEXT_FILE_BYTES {
        return Attached::Refused(Refusal::TooLarge);
    }
    // Text is whatever reads as UTF-8 with no NUL (a BOM is dropped).
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(body) {
        Ok(text) if !text.contains('\0') => Attached::Text { cut: text.len() > TEXT_LIMIT && text.chars().nth(TEXT_LIMIT).is_some() },
        _ => Attached::Refused(Refusal::NotText),
    }
}

/// The media type a text file is kept under: its own, unless it has none
/// or names an image (an SVG is text to a model, never an image part).
pub fn text_type(mime: &str) -> String {
    let mime = mime.trim().to_ascii_lowercase();
    if mime.is_empty() || mime.starts_with("image/") { "text/plain".to_owned() } else { mime }
}

/// [`text_block`] of a stored file whose first bytes are `head`, and
/// which has `more` (its size in bytes) when only its head was read: a
/// file read whole is said as [`text_block`] says it; a longer one is
/// cut, its size given in bytes.
pub fn head_block(name: &str, head: &[u8], more: Option<u64>, limit: usize) -> String {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let Some(total) = more else {
        return text_block(name, &String::from_utf8_lossy(head), limit).0;
    };
    // A character cut off at the end of the head is dropped, not replaced.
    let text = match std::str::from_utf8(head) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(e) if e.error_len().is_none() => String::from_utf8_lossy(&head[..e.valid_up_to()]),
        Err(_) => String::from_utf8_lossy(head),
    };
    let body: String = text.chars().take(limit).collect();
    fenced(name, &body, &format!("File `{name}` (cut: the first {} characters of {}):", body.chars().count(), crate::export::size_text(total)))
}

/// A text file as it goes into the message: its name, then its text (at
/// most `limit` characters, saying so when cut) fenced as code, with a
/// fence longer than any run of backticks inside it.
pub fn text_block(name: &str, text: &str, limit: usize) -> (String, bool) {
    let total = text.chars().count();
    let cut = total > limit;
    let body = if cut { text.chars().take(limit).collect::<String>() } else { text.to_owned() };
    let head = if cut { format!("File `{name}` (cut: the first {limit} of {total} characters):") } else { format!("File `{name}`:") };
    (fenced(name, &body, &head), cut)
}

/// `head`, then `body` fenced as code of the language `name`'s extension
/// names, with a fence longer than any run of backticks inside it.
fn fenced(name: &str, body: &str, head: &str) -> String {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let lang = name.rsplit_once('.').map(|(_, ext)| ext.to_ascii_lowercase()).filter(|e| e.len() <= 10 && e.chars().all(|c| c.is_ascii_alphanumeric())).unwrap_or_default();
    let newline = if body.ends_with('\n') { "" } else { "\n" };
    format!("{head}\n{fence}{lang}\n{body}{newline}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_images_are_fitted_to_the_longer_side_keeping_their_shape() {
        assert_eq!(fit(4000, 3000, 2048), Some((2048, 1536)));
        assert_eq!(fit(3000, 4000, 2048), Some((1536, 2048)));
        assert_eq!(fit(4032, 3024, 2048), Some((2048, 1536)));
        assert_eq!(fit(3000, 2000, 2048), Some((2048, 1365)));
        // A long strip keeps at least a pixel.
        assert_eq!(fit(100_000, 10, 2048), Some((2048, 1)));
        // Fits already, or nothing to scale.
        assert_eq!(fit(2048, 2048, 2048), None);
        assert_eq!(fit(800, 600, 2048), None);
        assert_eq!(fit(0, 5000, 2048), None);
        assert_eq!(scaled_type("image/PNG"), Some("image/png"));
        assert_eq!(scaled_type("image/jpeg"), Some("image/jpeg"));
        assert_eq!(scaled_type("image/webp"), Some("image/webp"));
        assert_eq!(scaled_type("image/gif"), None);
    }

    #[test]
    fn images_text_and_the_rest() {
        assert_eq!(classify("image/png", &[0x89, b'P']), Attached::Image);
        assert_eq!(classify("IMAGE/JPEG", &[0xff]), Attached::Image);
        let huge = vec![0u8; MAX_IMAGE_BYTES + 1];
        assert_eq!(classify("image/png", &huge), Attached::Refused(Refusal::ImageTooLarge));
        // SVG is text to a model.
        assert_eq!(classify("image/svg+xml", b"<svg/>"), Attached::Text { cut: false });
        assert_eq!(classify("application/pdf", b"%PDF-1.7\n\0\x01"), Attached::Refused(Refusal::NotText));
        assert_eq!(classify("", &[0xff, 0xfe, 0x00]), Attached::Refused(Refusal::NotText));
        assert_eq!(classify("", "\u{feff}# Hi\n".as_bytes()), Attached::Text { cut: false });
        assert_eq!(classify("", "é".repeat(TEXT_LIMIT + 1).as_bytes()), Attached::Text { cut: true });
        // Many bytes but few characters: not cut.
        assert_eq!(classify("", "中".repeat(TEXT_LIMIT).as_bytes()), Attached::Text { cut: false });
        assert_eq!(text_type(""), "text/plain");
        assert_eq!(text_type("image/svg+xml"), "text/plain");
        assert_eq!(text_type(" Text/CSV"), "text/csv");
    }

    #[test]
    fn long_text_is_cut_and_says_so_and_fences_hold() {
        let (block, cut) = text_block("main.rs", &"é".repeat(12), 10);
        assert!(cut);
        assert_eq!(block, format!("File `main.rs` (cut: the first 10 of 12 characters):\n```rs\n{}\n```", "é".repeat(10)));
        let (block, cut) = text_block("README", "use ```` inside", 100);
        assert!(!cut);
        assert_eq!(block, "File `README`:\n`````\nuse ```` inside\n`````");
    }

    #[test]
    fn a_stored_file_is_said_from_its_head() {
        // Read whole: as the text block says it (its BOM dropped).
        assert_eq!(head_block("a.csv", b"\xEF\xBB\xBFx,y\n1,2\n", None, 100), "File `a.csv`:\n```csv\nx,y\n1,2\n```");
        assert_eq!(head_block("b.txt", "é".repeat(12).as_bytes(), None, 10), format!("File `b.txt` (cut: the first 10 of 12 characters):\n```txt\n{}\n```", "é".repeat(10)));
        // Only the head was read: cut, sized in bytes; a character split
        // at the head's end is dropped.
        let head = &"aé".repeat(10).into_bytes()[..14];
        assert_eq!(head_block("big.csv", head, Some(52_428_800), 100), "File `big.csv` (cut: the first 9 characters of 52.4 MB):\n```csv\naéaéaéaéa\n```");
        assert_eq!(head_block("big.csv", b"abcdef", Some(1_000_000), 4), "File `big.csv` (cut: the first 4 characters of 1.0 MB):\n```csv\nabcd\n```");
    }
}
