//! A file's bytes, checked once for being text and hashed once.
//!
//! Every query that reads a file as text used to validate its UTF-8 again (three times per
//! file, 10% of a cold run), and the shell hashed each file for the lockfile and the caches
//! before the engine hashed it again (4% of a cold run). Both now happen when the input is
//! made, and their verdicts travel with the bytes.

use crate::hash::ContentHash;
use crate::text::LineIndex;

/// Why a file could not be audited. Reported per file; never stops the run.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FileError {
    pub line_col: Option<crate::text::LineCol>,
    pub message: String,
}

/// The contents of one file with their SHA-256.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Source {
    hash: ContentHash,
    content: Content,
}

/// Text, or bytes with the reason they are not text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Content {
    Text(String),
    NotText(Vec<u8>, FileError),
}

impl Source {
    pub fn new(bytes: Vec<u8>) -> Source {
        Source {
            hash: ContentHash::of(&bytes),
            content: Content::new(bytes),
        }
    }

    /// The SHA-256 of [`Source::bytes`], computed when the source was made.
    pub fn hash(&self) -> ContentHash {
        self.hash
    }

    pub fn bytes(&self) -> &[u8] {
        match &self.content {
            Content::Text(s) => s.as_bytes(),
            Content::NotText(b, _) => b,
        }
    }

    pub fn text(&self) -> Result<&str, &FileError> {
        match &self.content {
            Content::Text(s) => Ok(s),
            Content::NotText(_, e) => Err(e),
        }
    }
}

impl Content {
    fn new(bytes: Vec<u8>) -> Content {
        if memchr::memchr(0, &bytes).is_some() {
            let error = FileError {
                line_col: None,
                message: "binary file (contains a NUL byte); not audited".into(),
            };
            return Content::NotText(bytes, error);
        }
        if simdutf8::basic::from_utf8(&bytes).is_ok() {
            // SAFETY: the bytes were validated as UTF-8 on the line above; the fast
            // validator says only whether, so the standard one is left for the error path.
            return Content::Text(unsafe { String::from_utf8_unchecked(bytes) });
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
        Content::NotText(bytes, error)
    }
}

impl From<Vec<u8>> for Source {
    fn from(bytes: Vec<u8>) -> Source {
        Source::new(bytes)
    }
}

impl From<&str> for Source {
    fn from(text: &str) -> Source {
        Source {
            hash: ContentHash::of(text.as_bytes()),
            content: Content::Text(text.to_string()),
        }
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
        assert_eq!(binary.hash(), ContentHash::of(b"a\0b"));
        assert_eq!(Source::from("ahoj").hash(), ContentHash::of(b"ahoj"));
        let invalid = Source::new(b"ok\nal\xffx".to_vec());
        let e = invalid.text().unwrap_err();
        let at = e.line_col.unwrap();
        assert_eq!((at.line, at.column), (2, 3));
    }
}
