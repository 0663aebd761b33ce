//! JSON: one view per leaf string value, with its key path as the path hint.
//!
//! A hand-written strict scanner rather than `jsonc-parser`, for three reasons:
//!
//! - Exact mapping. A view is built while the string is scanned: runs between escapes are
//!   verbatim, every escape (a surrogate pair counts as one) is an opaque piece over its
//!   source bytes. `jsonc-parser` hands back the decoded value and the literal's range, and
//!   the escapes would have to be found again.
//! - Strictness. The files are RFC 8259 JSON; a comment or a trailing comma is an error
//!   with its offset, not something to accept silently.
//! - Speed. One pass over the bytes, no syntax tree, no allocation for keys without
//!   escapes. Nesting uses an explicit stack, so deep documents cannot overflow the call
//!   stack.
//!
//! An unpaired surrogate escape (`\uD800` alone) is an error: it is not a character and
//! cannot be put in a view (`serde_json` refuses it too).
//!
//! Strings, the only values that give views, are scanned in `string`, the other scalars
//! in `literal`; here is the scan over the structure.

mod literal;
mod string;
#[cfg(test)]
mod tests;

use super::path::Step;
use super::{ExtractError, PathHints, bom_len};
use crate::copy::view::View;

pub(super) fn extract(text: &str, hints: PathHints) -> Result<Vec<View>, ExtractError> {
    let mut scanner = Scanner {
        src: text,
        bytes: text.as_bytes(),
        pos: bom_len(text),
        views: Vec::new(),
        path: Vec::new(),
        stack: Vec::new(),
        hints,
    };
    scanner.document()?;
    Ok(scanner.views)
}

enum Frame {
    Object,
    Array(usize),
}

struct Scanner<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    views: Vec<View>,
    /// Key path of the value being scanned; one step per open container.
    path: Vec<Step<'a>>,
    stack: Vec<Frame>,
    /// Whether each view gets its key path as its hint.
    hints: PathHints,
}

impl<'a> Scanner<'a> {
    fn document(&mut self) -> Result<(), ExtractError> {
        self.value()?;
        self.whitespace()?;
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.unexpected("after the JSON value")),
        }
    }

    /// Scans one value and everything nested in it, without recursion.
    fn value(&mut self) -> Result<(), ExtractError> {
        'value: loop {
            self.whitespace()?;
            match self.peek() {
                Some(b'{') => {
                    self.pos += 1;
                    self.whitespace()?;
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                    } else {
                        let key = self.key()?;
                        self.stack.push(Frame::Object);
                        self.path.push(Step::Key(key));
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.pos += 1;
                    self.whitespace()?;
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                    } else {
                        self.stack.push(Frame::Array(0));
                        self.path.push(Step::Index(0));
                        continue 'value;
                    }
                }
                Some(b'"') => self.string_value()?,
                Some(b't') => self.literal("true")?,
                Some(b'f') => self.literal("false")?,
                Some(b'n') => self.literal("null")?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                Some(b'\'') => {
                    return Err(self.error("single-quoted strings are not allowed in JSON"));
                }
                _ => return Err(self.unexpected("where a JSON value was expected")),
            }
            // The value is complete: move on in the enclosing containers.
            loop {
                match self.stack.last_mut() {
                    None => return Ok(()),
                    Some(Frame::Object) => {
                        self.whitespace()?;
                        match self.peek() {
                            Some(b',') => {
                                let comma = self.pos;
                                self.pos += 1;
                                self.whitespace()?;
                                if self.peek() == Some(b'}') {
                                    return Err(ExtractError::new(
                                        comma,
                                        "trailing comma before '}' is not allowed in JSON",
                                    ));
                                }
                                let key = self.key()?;
                                *self.path.last_mut().expect("a step per frame") = Step::Key(key);
                                continue 'value;
                            }
                            Some(b'}') => {
                                self.pos += 1;
                                self.stack.pop();
                                self.path.pop();
                            }
                            _ => {
                                return Err(self.unexpected("where ',' or '}' was expected"));
                            }
                        }
                    }
                    Some(Frame::Array(index)) => {
                        *index += 1;
                        let next = *index;
                        self.whitespace()?;
                        match self.peek() {
                            Some(b',') => {
                                let comma = self.pos;
                                self.pos += 1;
                                self.whitespace()?;
                                if self.peek() == Some(b']') {
                                    return Err(ExtractError::new(
                                        comma,
                                        "trailing comma before ']' is not allowed in JSON",
                                    ));
                                }
                                *self.path.last_mut().expect("a step per frame") =
                                    Step::Index(next);
                                continue 'value;
                            }
                            Some(b']') => {
                                self.pos += 1;
                                self.stack.pop();
                                self.path.pop();
                            }
                            _ => {
                                return Err(self.unexpected("where ',' or ']' was expected"));
                            }
                        }
                    }
                }
            }
        }
    }

    fn whitespace(&mut self) -> Result<(), ExtractError> {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'/' if matches!(self.bytes.get(self.pos + 1), Some(b'/' | b'*')) => {
                    return Err(self.error("comments are not allowed in JSON"));
                }
                _ => break,
            }
        }
        Ok(())
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn error(&self, message: impl Into<String>) -> ExtractError {
        ExtractError::new(self.pos, message)
    }

    /// An error naming the character at the current position (or the end of the input).
    fn unexpected(&self, context: &str) -> ExtractError {
        match self.src[self.pos..].chars().next() {
            Some(c) => self.error(format!("unexpected {c:?} {context}")),
            None => self.error(format!("unexpected end of input {context}")),
        }
    }
}
