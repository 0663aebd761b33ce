//! `true`, `false`, `null` and numbers: values that give no view, checked as strictly as
//! RFC 8259 says and then skipped.

use super::super::ExtractError;
use super::Scanner;

impl Scanner<'_> {
    pub(super) fn literal(&mut self, word: &'static str) -> Result<(), ExtractError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.unexpected("where a JSON value was expected"))
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    pub(super) fn number(&mut self) -> Result<(), ExtractError> {
        let start = self.pos;
        let invalid = |_| ExtractError::new(start, "invalid number");
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if self.peek().is_some_and(|b| b.is_ascii_digit()) {
                    return Err(ExtractError::new(
                        start,
                        "numbers with leading zeros are not allowed in JSON",
                    ));
                }
            }
            Some(b'1'..=b'9') => self.digits().map_err(invalid)?,
            _ => return Err(ExtractError::new(start, "invalid number")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.digits().map_err(invalid)?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            self.digits().map_err(invalid)?;
        }
        Ok(())
    }

    /// One or more ASCII digits.
    fn digits(&mut self) -> Result<(), ()> {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.pos == start { Err(()) } else { Ok(()) }
    }
}
