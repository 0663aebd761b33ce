//! Positions in source text.
//!
//! Lockfile spans and reported findings use 1-based lines and 1-based columns counted in
//! UTF-16 code units: what the reference script (JavaScript string indices), SARIF and
//! LSP count by default. A column of Czech text is the same as a count of characters; an
//! astral character such as an emoji counts as two. Internally everything is a byte
//! offset; this module converts between the two.

/// A 1-based line and 1-based column (in UTF-16 code units).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct LineCol {
    pub line: u32,
    pub column: u32,
}

/// Where the invalid UTF-8 that `e` reports starts in `bytes`: its 1-based line and
/// column, the column counting Unicode scalar values (as trellis's diagnostics and the
/// sidecar reader count), and a message naming both and the byte.
pub fn invalid_utf8(bytes: &[u8], e: &std::str::Utf8Error) -> (usize, usize, String) {
    let valid = &bytes[..e.valid_up_to()];
    let line_start = memchr::memrchr(b'\n', valid).map_or(0, |i| i + 1);
    let line = memchr::memchr_iter(b'\n', valid).count() + 1;
    let column = std::str::from_utf8(&valid[line_start..])
        .expect("valid up to here")
        .chars()
        .count()
        + 1;
    let message = format!(
        "invalid UTF-8 at line {line}, column {column} (byte {})",
        valid.len()
    );
    (line, column, message)
}

/// See [`LineIndex::cursor`].
pub struct ColumnCursor<'a> {
    index: &'a LineIndex,
    /// The last offset answered (clamped to the text), and its answer.
    last: Option<(usize, LineCol)>,
}

impl ColumnCursor<'_> {
    /// [`LineIndex::line_col`] of `offset`.
    pub fn line_col(&mut self, text: &str, offset: usize) -> LineCol {
        let offset = offset.min(text.len());
        let at = match self.last {
            Some((from, at))
                if from <= offset
                    && text.is_char_boundary(from)
                    && self.index.line_end_with_break(at.line) > offset =>
            {
                LineCol {
                    line: at.line,
                    column: at.column + count_units(&text.as_bytes()[from..offset]) as u32,
                }
            }
            _ => self.index.line_col(text, offset),
        };
        self.last = Some((offset, at));
        at
    }
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
    /// `text` may be the bytes the index was built from, not yet checked as UTF-8.
    pub fn line_range(&self, text: impl AsRef<[u8]>, line: u32) -> Option<std::ops::Range<usize>> {
        let text = text.as_ref();
        let i = line.checked_sub(1)? as usize;
        let start = *self.starts.get(i)? as usize;
        let mut end = self
            .starts
            .get(i + 1)
            .map_or(self.len as usize, |&s| s as usize - 1);
        if end > start && text[end - 1] == b'\r' {
            end -= 1;
        }
        Some(start..end)
    }

    /// Where line `line` (1-based) ends with its line terminator: the next line's start,
    /// or the end of the text for the last line.
    fn line_end_with_break(&self, line: u32) -> usize {
        self.starts
            .get(line as usize)
            .map_or(self.len as usize, |&s| s as usize)
    }

    /// The line and column of a byte offset. An offset inside a multi-byte character is
    /// reported at that character.
    pub fn line_col(&self, text: &str, offset: usize) -> LineCol {
        let line = self.starts.partition_point(|&s| s as usize <= offset) - 1;
        let start = self.starts[line] as usize;
        let offset = offset.min(text.len());
        let column = count_units(&text.as_bytes()[start..offset]) + 1;
        LineCol {
            line: line as u32 + 1,
            column: column as u32,
        }
    }

    /// A [`LineCol`] finder for offsets that mostly come in ascending order, as a rule's
    /// hits do: each answer counts from the previous one when it is further on the same
    /// line, so many positions on one long line cost the line once, not once each.
    pub fn cursor(&self) -> ColumnCursor<'_> {
        ColumnCursor {
            index: self,
            last: None,
        }
    }

    /// The byte offset of a 1-based line and column. Column `n + 1` on a line of `n` code
    /// units is the end of the line; anything further is `None`. A column that points at
    /// the second half of a surrogate pair is the character's start.
    pub fn offset(&self, text: &str, at: LineCol) -> Option<usize> {
        let range = self.line_range(text, at.line)?;
        let line = &text.as_bytes()[range.clone()];
        unit_offset(line, at.column.checked_sub(1)? as usize)
            .ok()
            .map(|o| range.start + o)
    }

    /// The first byte at or after `at`, positions compared as (line, column) pairs, a
    /// character's position being its first column: a column past the end of its line
    /// (and its line break) is the next line's start, a line past the last is the end of
    /// the text, and an astral character's second column is the start of the character
    /// after it. Line 0 is before the text; column 0
    /// counts as column 1.
    pub fn start_at_or_after(&self, text: &str, at: LineCol) -> usize {
        if at.line == 0 {
            return 0;
        }
        let Some(range) = self.line_range(text, at.line) else {
            return text.len();
        };
        let line = &text.as_bytes()[range.clone()];
        let want = at.column.saturating_sub(1) as usize;
        match unit_offset(line, want) {
            // The second half of an astral character: the character starts before `at`,
            // so the first one at or after it is the next.
            Ok(o) if o < line.len() && count_units(&line[..o]) < want => {
                range.start + o + utf8_len(line[o])
            }
            Ok(o) => range.start + o,
            Err(_) => self.line_end_with_break(at.line),
        }
    }

    /// The end (exclusive) of the last character at or before `at`, positions compared as
    /// (line, column) pairs: a column at or past the end of its line covers the line
    /// break, a line past the last covers to the end of the text. 0 when no character
    /// comes before (line 0, or column 0 of line 1).
    pub fn end_at_or_before(&self, text: &str, at: LineCol) -> usize {
        if at.line == 0 {
            return 0;
        }
        let Some(range) = self.line_range(text, at.line) else {
            return text.len();
        };
        let Some(unit) = (at.column as usize).checked_sub(1) else {
            // Before the line's first character: the previous line's break.
            return range.start;
        };
        let line = &text.as_bytes()[range.clone()];
        match unit_offset(line, unit) {
            Ok(o) if o < line.len() => range.start + o + utf8_len(line[o]),
            _ => self.line_end_with_break(at.line),
        }
    }

    /// The position (line, inclusive column) of the last character of `text[..end]`, as a
    /// span's end names it: a line break is its line's column `n + 1`, the second half of
    /// an astral character its second column. `None` when `end` is 0.
    pub fn last_char_at(&self, text: &str, end: usize) -> Option<LineCol> {
        let end = end.min(text.len());
        if end == 0 {
            return None;
        }
        let line = self.starts.partition_point(|&s| (s as usize) < end) as u32;
        let range = self.line_range(text, line)?;
        if end > range.end {
            // The line break (or its `\n` after a `\r`).
            return Some(LineCol {
                line,
                column: count_units(&text.as_bytes()[range.clone()]) as u32 + 1,
            });
        }
        Some(LineCol {
            line,
            column: count_units(&text.as_bytes()[range.start..end]) as u32,
        })
    }
}

/// Length of the UTF-8 sequence a lead byte starts.
fn utf8_len(lead: u8) -> usize {
    match lead {
        0x00..0xC0 => 1,
        0xC0..0xE0 => 2,
        0xE0..0xF0 => 3,
        _ => 4,
    }
}

/// Counts UTF-16 code units in valid UTF-8: one per character start, and one more per
/// four-byte sequence (an astral character is a surrogate pair).
pub fn count_units(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .map(|&b| usize::from((b as i8) >= -0x40) + usize::from(b >= 0xF0))
        .sum()
}

/// The byte offset in `line` (valid UTF-8, no line break) of its code unit `want`
/// (0-based); `want` equal to the line's units is its end. `Err(units)` when the line is
/// shorter.
fn unit_offset(line: &[u8], want: usize) -> Result<usize, usize> {
    // Characters to skip. Each code unit takes at least a byte, so the next `left` bytes
    // hold at most `left` units' worth of character starts: they are counted in bulk (a
    // paragraph is one line, and every span of it asks), and the rest after them.
    let mut left = want;
    let mut at = 0;
    while left > 0 {
        if at == line.len() {
            return Err(want - left);
        }
        let take = left.min(line.len() - at);
        let units = count_units(&line[at..at + take]);
        if units > left {
            // The window's last byte starts an astral character and `want` is its second
            // half: the character's start.
            return Ok(at + take - 1);
        }
        left -= units;
        at += take;
        // The continuation bytes of the last character counted.
        while at < line.len() && (line[at] as i8) < -0x40 {
            at += 1;
        }
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_is_placed_by_line_and_column() {
        // Built at run time: a literal would be refused by `invalid_from_utf8`.
        let bytes = [&b"first\nsecond \xc5\xbe"[..], &[0xff], b" tail"].concat();
        let e = std::str::from_utf8(&bytes).unwrap_err();
        let (line, column, message) = invalid_utf8(&bytes, &e);
        assert_eq!((line, column), (2, 9), "`second ž` is 8 characters");
        assert_eq!(message, "invalid UTF-8 at line 2, column 9 (byte 15)");
        let lone = vec![0xff];
        let e = std::str::from_utf8(&lone).unwrap_err();
        assert_eq!(invalid_utf8(&lone, &e).0, 1);
    }

    fn at(line: u32, column: u32) -> LineCol {
        LineCol { line, column }
    }

    #[test]
    fn columns_count_utf16_code_units() {
        let text = "a\nžluťoučký kůň\n😀x\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0), at(1, 1));
        let kun = text.find("kůň").unwrap();
        assert_eq!(idx.line_col(text, kun), at(2, 11));
        // The emoji is a surrogate pair: two columns, as JavaScript and LSP count.
        let x = text.find('x').unwrap();
        assert_eq!(idx.line_col(text, x), at(3, 3));
        assert_eq!(idx.offset(text, at(2, 11)), Some(kun));
        assert_eq!(idx.offset(text, at(3, 3)), Some(x));
        // Its second half is the emoji itself.
        assert_eq!(idx.offset(text, at(3, 2)), Some(x - 4));
        assert_eq!(idx.line_count(), 4);
    }

    /// The position of every character of `text` one by one, UTF-16 columns counted the
    /// slow way, with the line break as its line's last column.
    fn positions(text: &str) -> Vec<(usize, usize, LineCol)> {
        let mut out = Vec::new();
        let (mut line, mut column) = (1, 1);
        for (i, c) in text.char_indices() {
            out.push((i, i + c.len_utf8(), at(line, column)));
            if c == '\n' {
                line += 1;
                column = 1;
            } else {
                column += c.len_utf16() as u32;
            }
        }
        out
    }

    proptest::proptest! {
        /// A cursor answers what `line_col` answers, whatever order the offsets come in
        /// (inside characters and past the end included).
        #[test]
        fn a_cursor_agrees_with_line_col(
            pieces in proptest::collection::vec(
                proptest::sample::select(&["a", "ž", "😀", "\n", "ab", "\r\n"][..]),
                0..40,
            ),
            offsets in proptest::collection::vec(0usize..200, 0..30),
        ) {
            let text: String = pieces.concat();
            let idx = LineIndex::new(&text);
            let mut cursor = idx.cursor();
            let mut sorted = offsets.clone();
            sorted.sort_unstable();
            for offset in offsets.into_iter().chain(sorted) {
                proptest::prop_assert_eq!(
                    cursor.line_col(&text, offset),
                    idx.line_col(&text, offset),
                    "offset {}", offset
                );
            }
        }

        /// The offset of every column of every line, and of the columns past its end, is
        /// where counting the line's code units one by one gets.
        #[test]
        fn offsets_are_the_units_counted_one_by_one(
            pieces in proptest::collection::vec(
                proptest::sample::select(&["a", "ž", "😀", "\n", "ab", "日本"][..]),
                0..40,
            ),
        ) {
            let text: String = pieces.concat();
            let idx = LineIndex::new(&text);
            for line in 1..=idx.line_count() + 1 {
                let range = idx.line_range(&text, line);
                for column in 0..50u32 {
                    let expected = range.clone().and_then(|r| {
                        let mut units = 0;
                        for (i, c) in text[r.clone()].char_indices() {
                            if units + 1 == column as usize
                                || (c.len_utf16() == 2 && units + 2 == column as usize)
                            {
                                return Some(r.start + i);
                            }
                            units += c.len_utf16();
                        }
                        (units + 1 == column as usize).then_some(r.end)
                    });
                    proptest::prop_assert_eq!(idx.offset(&text, at(line, column)), expected);
                }
            }
        }

        /// Positions compared as pairs: a span from `a` to `b` covers exactly the
        /// characters whose position (first column) lies between them, however far past a
        /// line's or the text's end either reaches. So two spans that do not overlap as
        /// pairs never share a character.
        #[test]
        fn clamped_ranges_are_the_characters_between_two_positions(
            pieces in proptest::collection::vec(
                proptest::sample::select(&["a", "ž", "😀", "\n", "ab"][..]),
                0..30,
            ),
            a in (0u32..8, 0u32..12),
            b in (0u32..8, 0u32..12),
        ) {
            let text: String = pieces.concat();
            let idx = LineIndex::new(&text);
            let (a, b) = (at(a.0, a.1), at(b.0, b.1));
            let chars = positions(&text);
            let inside: Vec<_> = chars
                .iter()
                .filter(|(_, _, p)| a <= *p && *p <= b)
                .collect();
            let start = idx.start_at_or_after(&text, a);
            let end = idx.end_at_or_before(&text, b);
            match (inside.first(), inside.last()) {
                (Some(first), Some(last)) => {
                    proptest::prop_assert_eq!(start, first.0);
                    proptest::prop_assert_eq!(end, last.1);
                    proptest::prop_assert_eq!(idx.last_char_at(&text, end), Some(last.2).map(|p| {
                        let c = text[last.0..].chars().next().unwrap();
                        at(p.line, p.column + c.len_utf16() as u32 - 1)
                    }));
                }
                _ => proptest::prop_assert!(start >= end),
            }
        }
    }

    #[test]
    fn offset_past_the_line_end_is_none() {
        let text = "ab\r\ncd";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_range(text, 1), Some(0..2));
        assert_eq!(idx.offset(text, at(1, 3)), Some(2));
        assert_eq!(idx.offset(text, at(1, 4)), None);
        assert_eq!(idx.offset(text, at(3, 1)), None);
        assert_eq!(idx.offset(text, at(1, 0)), None);
    }

    #[test]
    fn positions_past_an_end_clamp() {
        let text = "ab\ncd\n";
        let idx = LineIndex::new(text);
        // Past line 1's end: the rest of it and its line break.
        assert_eq!(idx.end_at_or_before(text, at(1, 40)), 3);
        assert_eq!(idx.start_at_or_after(text, at(1, 40)), 3);
        // The line break's own column.
        assert_eq!(idx.start_at_or_after(text, at(1, 3)), 2);
        // The empty line after the final newline, and lines past it: the end.
        assert_eq!(idx.end_at_or_before(text, at(3, 1)), 6);
        assert_eq!(idx.end_at_or_before(text, at(9, 1)), 6);
        assert_eq!(idx.start_at_or_after(text, at(3, 1)), 6);
        assert_eq!(idx.last_char_at(text, 6), Some(at(2, 3)));
        assert_eq!(idx.last_char_at(text, 2), Some(at(1, 2)));
        assert_eq!(idx.last_char_at(text, 0), None);
    }
}
