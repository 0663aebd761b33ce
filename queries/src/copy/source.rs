//! A file's bytes, checked once for being text.
//!
//! Every query that reads a file as text used to validate its UTF-8 again (three times per
//! file, 10% of a cold run). The check now happens when the input is set, with a SIMD
//! validator, and its verdict travels with the bytes.

use crate::text::LineIndex;

/// Why a file could not be audited. Reported per file; never stops the run.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FileError {
    pub line_col: Option<crate::text::LineCol>,
    pub message: String,
}

/// The contents of one file: text, or bytes with the reason they are not text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    Text(String),
    NotText(Vec<u8>, FileError),
}

impl Source {
    pub fn new(bytes: Vec<u8>) -> Source {
        if memchr::memchr(0, &bytes).is_some() {
            let error = FileError {
                line_col: None,
                message: "binary file (contains a NUL byte); not audited".into(),
            };
            return Source::NotText(bytes, error);
        }
        if simdutf8::basic::from_utf8(&bytes).is_ok() {
            // SAFETY: the bytes were validated as UTF-8 on the line above; the fast
            // validator says only whether, so the standard one is left for the error path.
            return Source::Text(unsafe { String::from_utf8_unchecked(bytes) });
        }
        let at = std::str::from_utf8(&bytes)
            .err()
            .map_or(bytes.len(), |e| e.valid_up_to());
        // The valid prefix is text, so its line index places the bad byte exactly.
        let valid = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
        let error = FileError {
            line_col: Some(LineIndex::new(valid).line_col(valid, at)),
            message: "invalid UTF-8; not audited".into(),
        };
        Source::NotText(bytes, error)
    }

    pub fn bytes(&self) -> &[u8] {
        match self {
            Source::Text(s) => s.as_bytes(),
            Source::NotText(b, _) => b,
        }
    }

    pub fn text(&self) -> Result<&str, &FileError> {
        match self {
            Source::Text(s) => Ok(s),
            Source::NotText(_, e) => Err(e),
        }
    }
}

impl From<Vec<u8>> for Source {
    fn from(bytes: Vec<u8>) -> Source {
        Source::new(bytes)
    }
}

impl From<&str> for Source {
    fn from(text: &str) -> Source {
        Source::Text(text.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_binary_and_invalid_utf8() {
        assert_eq!(Source::new(b"ahoj\n".to_vec()).text(), Ok("ahoj\n"));
        let binary = Source::new(b"a\0b".to_vec());
        assert!(binary.text().unwrap_err().message.contains("NUL"));
        assert_eq!(binary.bytes(), b"a\0b");
        let invalid = Source::new(b"ok\nal\xffx".to_vec());
        let e = invalid.text().unwrap_err();
        let at = e.line_col.unwrap();
        assert_eq!((at.line, at.column), (2, 3));
    }
}
