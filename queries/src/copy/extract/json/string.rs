//! String literals: keys and values scanned, escapes decoded, and the decoded pieces fed
//! to a view (values) or to the key of the path (keys). The only place a view is built.

use super::super::ExtractError;
use super::Scanner;
use crate::copy::view::{ViewBuilder, ViewRole};
use std::borrow::Cow;

/// Where the decoded pieces of a string go: a view for values, a key for the path.
trait Sink {
    fn verbatim(&mut self, text: &str, src_start: usize);
    fn decoded(&mut self, c: char, src: std::ops::Range<usize>);
}

impl Sink for ViewBuilder {
    fn verbatim(&mut self, text: &str, src_start: usize) {
        ViewBuilder::verbatim(self, text, src_start);
    }
    fn decoded(&mut self, c: char, src: std::ops::Range<usize>) {
        self.opaque(c.encode_utf8(&mut [0; 4]), src);
    }
}

/// An object key: borrowed from the source unless it has an escape, then decoded.
struct KeySink<'a> {
    src: &'a str,
    start: usize,
    decoded: Option<String>,
}

impl Sink for KeySink<'_> {
    fn verbatim(&mut self, text: &str, _: usize) {
        if let Some(k) = &mut self.decoded {
            k.push_str(text);
        }
    }
    fn decoded(&mut self, c: char, src: std::ops::Range<usize>) {
        let k = self
            .decoded
            .get_or_insert_with(|| self.src[self.start..src.start].to_owned());
        k.push(c);
    }
}
impl<'a> Scanner<'a> {
    /// An object key and the colon after it.
    pub(super) fn key(&mut self) -> Result<Cow<'a, str>, ExtractError> {
        if self.peek() != Some(b'"') {
            return Err(
                self.unexpected("where an object key (a double-quoted string) was expected")
            );
        }
        let mut key = KeySink {
            src: self.src,
            start: self.pos + 1,
            decoded: None,
        };
        let end = self.string_body(&mut key)?;
        let key = match key.decoded {
            Some(k) => Cow::Owned(k),
            None => Cow::Borrowed(&self.src[key.start..end]),
        };
        self.whitespace()?;
        if self.peek() != Some(b':') {
            return Err(self.unexpected("where ':' after an object key was expected"));
        }
        self.pos += 1;
        Ok(key)
    }

    pub(super) fn string_value(&mut self) -> Result<(), ExtractError> {
        let mut view = ViewBuilder::new(ViewRole::Text);
        self.string_body(&mut view)?;
        if !view.is_empty() {
            let hint = self.hints.of(None, &self.path);
            self.views.push(view.path_hint(hint).finish());
        }
        Ok(())
    }

    /// Scans a string literal starting at its opening quote, feeding `sink` verbatim runs
    /// and decoded escapes; returns the offset of the closing quote.
    fn string_body(&mut self, sink: &mut impl Sink) -> Result<usize, ExtractError> {
        let open = self.pos;
        self.pos += 1;
        let mut run = self.pos;
        loop {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(ExtractError::new(open, "unterminated string"));
            };
            match b {
                b'"' => {
                    sink.verbatim(&self.src[run..self.pos], run);
                    let close = self.pos;
                    self.pos += 1;
                    return Ok(close);
                }
                b'\\' => {
                    let escape = self.pos;
                    let c = self.escape()?;
                    sink.verbatim(&self.src[run..escape], run);
                    sink.decoded(c, escape..self.pos);
                    run = self.pos;
                }
                0..=0x1f => {
                    return Err(self.error(format!(
                        "control character U+{b:04X} must be escaped in a JSON string"
                    )));
                }
                _ => self.pos += 1,
            }
        }
    }

    /// Decodes the escape at `self.pos` (a backslash) and moves past it.
    fn escape(&mut self) -> Result<char, ExtractError> {
        let start = self.pos;
        let c = match self.bytes.get(start + 1) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let high = self.hex4(start + 2)?;
                self.pos = start + 6;
                return match high {
                    0xD800..=0xDBFF => {
                        let low = if self.bytes[self.pos..].starts_with(b"\\u") {
                            Some(self.hex4(self.pos + 2)?)
                        } else {
                            None
                        };
                        match low {
                            Some(low @ 0xDC00..=0xDFFF) => {
                                self.pos += 6;
                                let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                                Ok(char::from_u32(c).expect("a surrogate pair is a char"))
                            }
                            _ => Err(ExtractError::new(
                                start,
                                "unpaired surrogate escape in a JSON string",
                            )),
                        }
                    }
                    0xDC00..=0xDFFF => Err(ExtractError::new(
                        start,
                        "unpaired surrogate escape in a JSON string",
                    )),
                    c => Ok(char::from_u32(c).expect("not a surrogate")),
                };
            }
            Some(_) => {
                let shown = self.src[start..].chars().take(2).collect::<String>();
                return Err(ExtractError::new(
                    start,
                    format!("invalid escape {shown:?} in a JSON string"),
                ));
            }
            None => return Err(ExtractError::new(start, "unterminated string")),
        };
        self.pos = start + 2;
        Ok(c)
    }

    fn hex4(&self, at: usize) -> Result<u32, ExtractError> {
        let digits = self
            .bytes
            .get(at..at + 4)
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit));
        match digits {
            Some(d) => Ok(u32::from_str_radix(
                std::str::from_utf8(d).expect("hex digits are ASCII"),
                16,
            )
            .expect("four hex digits")),
            None => Err(ExtractError::new(
                at - 2,
                "'\\u' must be followed by four hex digits in a JSON string",
            )),
        }
    }
}
