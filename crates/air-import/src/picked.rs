//! A file the user picked for import, before it is read: a ZIP, read by
//! slices ([`crate::zip`]), or a text read whole, within [`LIMIT`] (the
//! page's memory is the other limit).

pub use crate::zip::LIMIT;

/// How a picked file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Picked {
    Zip,
    Text,
}

/// Why a picked file is not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("{name} is {} MB: more than the {} MB this page can read at once", size.div_ceil(1_000_000), LIMIT >> 20)]
    TooBig { name: String, size: u64 },
    #[error("{name} is not a text file")]
    NotText { name: String },
}

/// How file `name` of `size` bytes, starting with `head`, is read.
pub fn picked(name: &str, head: &[u8], size: u64) -> Result<Picked, Refused> {
    if head.starts_with(b"PK") {
        Ok(Picked::Zip)
    } else if size > LIMIT {
        Err(Refused::TooBig { name: name.to_owned(), size })
    } else {
        Ok(Picked::Text)
    }
}

/// The text of file `name`, read whole.
pub fn text(name: &str, bytes: Vec<u8>) -> Result<String, Refused> {
    String::from_utf8(bytes).map_err(|_| Refused::NotText { name: name.to_owned() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zip_is_read_by_slices_whatever_its_size_and_a_text_whole_within_the_limit() {
        assert_eq!(picked("export.zip", b"PK\x03\x04", 5 << 30), Ok(Picked::Zip));
        assert_eq!(picked("conversations.json", b"[{\"", LIMIT), Ok(Picked::Text));
        let refused = picked("huge.json", b"[{\"", LIMIT + 1).unwrap_err();
        assert_eq!(refused.to_string(), "huge.json is 1074 MB: more than the 1024 MB this page can read at once");
    }

    #[test]
    fn a_text_that_is_not_utf8_says_so() {
        assert_eq!(text("a.json", b"[]".to_vec()), Ok("[]".to_owned()));
        assert_eq!(text("photo.json", vec![0xFF, 0xD8]).unwrap_err().to_string(), "photo.json is not a text file");
    }
}
