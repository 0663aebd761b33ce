//! Positions in source text.
//!
//! Lockfile spans and reported findings use 1-based lines and 1-based columns counted in
//! Unicode scalar values: a column of Czech text is the same as JavaScript's UTF-16 count,
//! and an astral character such as an emoji counts as one column (JavaScript would count
//! two). Internally everything is a byte offset; this module converts between the two.

/// A 1-based line and 1-based column (in Unicode scalar values).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct LineCol {
    pub line: u32,
    pub column: u32,
}

/// Start offsets of every line of a text, so that offset → line is a binary search and
/// line → offset is an index. Lines end at `\n`; a `\r` before it belongs to the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    starts: Vec<u32>,
    len: u32,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        LineIndex::of_bytes(text.as_bytes())
    }

    /// Line starts need only the `\n` bytes, so the index can be built before (or
    /// without) validating the text as UTF-8.
    pub fn of_bytes(bytes: &[u8]) -> Self {
        let mut starts = Vec::with_capacity(bytes.len() / 40 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i as u32 + 1));
        LineIndex {
            starts,
            len: bytes.len() as u32,
        }
    }

    /// Number of lines. A trailing newline opens one more (empty) line, as editors show it.
    pub fn line_count(&self) -> u32 {
        self.starts.len() as u32
    }

    /// Byte range of line `line` (1-based) without its line terminator (`\n` or `\r\n`).
    pub fn line_range(&self, text: &str, line: u32) -> Option<std::ops::Range<usize>> {
        let i = line.checked_sub(1)? as usize;
        let start = *self.starts.get(i)? as usize;
        let mut end = self
            .starts
            .get(i + 1)
            .map_or(self.len as usize, |&s| s as usize - 1);
        if end > start && text.as_bytes()[end - 1] == b'\r' {
            end -= 1;
        }
        Some(start..end)
    }

    /// The line and column of a byte offset. An offset inside a multi-byte character is
    /// reported at that character.
    pub fn line_col(&self, text: &str, offset: usize) -> LineCol {
        let line = self.starts.partition_point(|&s| s as usize <= offset) - 1;
        let start = self.starts[line] as usize;
        let offset = offset.min(text.len());
        let column = count_chars(&text.as_bytes()[start..offset]) + 1;
        LineCol {
            line: line as u32 + 1,
            column: column as u32,
        }
    }

    /// The byte offset of a 1-based line and column. Column `n + 1` on a line of `n`
    /// characters is the end of the line; anything further is `None`.
    pub fn offset(&self, text: &str, at: LineCol) -> Option<usize> {
        let range = self.line_range(text, at.line)?;
        let line = &text.as_bytes()[range.clone()];
        // Characters to skip. Each is at least a byte, so the next `left` bytes hold at
        // most `left` character starts: they are counted in bulk (a paragraph is one
        // line, and every span of it asks), and the rest are looked for after them.
        let mut left = at.column.checked_sub(1)? as usize;
        let mut at = 0;
        while left > 0 {
            if at == line.len() {
                return None;
            }
            let take = left.min(line.len() - at);
            left -= count_chars(&line[at..at + take]);
            at += take;
            // The continuation bytes of the last character counted.
            while at < line.len() && (line[at] as i8) < -0x40 {
                at += 1;
            }
        }
        Some(range.start + at)
    }
}

/// Counts Unicode scalar values in valid UTF-8 by counting non-continuation bytes.
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_scalar_values() {
        let text = "a\nžluťoučký kůň\n😀x\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0), LineCol { line: 1, column: 1 });
        let kun = text.find("kůň").unwrap();
        assert_eq!(
            idx.line_col(text, kun),
            LineCol {
                line: 2,
                column: 11
            }
        );
        let x = text.find('x').unwrap();
        assert_eq!(idx.line_col(text, x), LineCol { line: 3, column: 2 });
        assert_eq!(
            idx.offset(
                text,
                LineCol {
                    line: 2,
                    column: 11
                }
            ),
            Some(kun)
        );
        assert_eq!(idx.offset(text, LineCol { line: 3, column: 2 }), Some(x));
        assert_eq!(idx.line_count(), 4);
    }

    proptest::proptest! {
        /// The offset of every column of every line, and of the columns past its end, is
        /// where counting the line's characters one by one gets.
        #[test]
        fn offsets_are_the_characters_counted_one_by_one(
            pieces in proptest::collection::vec(
                proptest::sample::select(&["a", "ž", "😀", "\n", "\r\n", "ab", "日本"][..]),
                0..40,
            ),
        ) {
            let text: String = pieces.concat();
            let idx = LineIndex::new(&text);
            for line in 1..=idx.line_count() + 1 {
                let range = idx.line_range(&text, line);
                for column in 0..50u32 {
                    let expected = range.clone().and_then(|r| {
                        let starts = text[r.clone()]
                            .char_indices()
                            .map(|(i, _)| r.start + i)
                            .chain([r.end]);
                        starts.enumerate().find(|&(k, _)| k + 1 == column as usize).map(|(_, o)| o)
                    });
                    proptest::prop_assert_eq!(idx.offset(&text, LineCol { line, column }), expected);
                }
            }
        }
    }

    #[test]
    fn offset_past_the_line_end_is_none() {
        let text = "ab\r\ncd";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_range(text, 1), Some(0..2));
        assert_eq!(idx.offset(text, LineCol { line: 1, column: 3 }), Some(2));
        assert_eq!(idx.offset(text, LineCol { line: 1, column: 4 }), None);
        assert_eq!(idx.offset(text, LineCol { line: 3, column: 1 }), None);
        assert_eq!(idx.offset(text, LineCol { line: 1, column: 0 }), None);
    }
}
