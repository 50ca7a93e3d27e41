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

/// Larger files are not read at all.
pub const MAX_TEXT_FILE_BYTES: usize = 10 * 1024 * 1024;

/// What becomes of an attached file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attached {
    /// Sent to the model as an image.
    Image,
    /// Put into the message as text: the block, and whether it was cut.
    Text { block: String, cut: bool },
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

/// Decides what `bytes` (named `name`, of media type `mime`) become.
pub fn classify(name: &str, mime: &str, bytes: &[u8]) -> Attached {
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
        Ok(text) if !text.contains('\0') => {
            let (block, cut) = text_block(name, text, TEXT_LIMIT);
            Attached::Text { block, cut }
        }
        _ => Attached::Refused(Refusal::NotText),
    }
}

/// A text file as it goes into the message: its name, then its text (at
/// most `limit` characters, saying so when cut) fenced as code, with a
/// fence longer than any run of backticks inside it.
pub fn text_block(name: &str, text: &str, limit: usize) -> (String, bool) {
    let total = text.chars().count();
    let cut = total > limit;
    let body = if cut { text.chars().take(limit).collect::<String>() } else { text.to_owned() };
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let lang = name.rsplit_once('.').map(|(_, ext)| ext.to_ascii_lowercase()).filter(|e| e.len() <= 10 && e.chars().all(|c| c.is_ascii_alphanumeric())).unwrap_or_default();
    let head = if cut { format!("File `{name}` (cut: the first {limit} of {total} characters):") } else { format!("File `{name}`:") };
    let newline = if body.ends_with('\n') { "" } else { "\n" };
    (format!("{head}\n{fence}{lang}\n{body}{newline}{fence}"), cut)
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
        assert_eq!(classify("a.png", "image/png", &[0x89, b'P']), Attached::Image);
        assert_eq!(classify("a.JPG", "IMAGE/JPEG", &[0xff]), Attached::Image);
        let huge = vec![0u8; MAX_IMAGE_BYTES + 1];
        assert_eq!(classify("big.png", "image/png", &huge), Attached::Refused(Refusal::ImageTooLarge));
        // SVG is text to a model.
        assert!(matches!(classify("x.svg", "image/svg+xml", b"<svg/>"), Attached::Text { cut: false, .. }));
        assert_eq!(classify("x.pdf", "application/pdf", b"%PDF-1.7\n\0\x01"), Attached::Refused(Refusal::NotText));
        assert_eq!(classify("x.bin", "", &[0xff, 0xfe, 0x00]), Attached::Refused(Refusal::NotText));
        let Attached::Text { block, .. } = classify("notes.md", "", "\u{feff}# Hi\n".as_bytes()) else { panic!("text") };
        assert_eq!(block, "File `notes.md`:\n```md\n# Hi\n```");
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
}
