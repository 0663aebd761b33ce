//! Front matter: where the YAML block at the top of a Markdown file is, and the body
//! with that block blanked out. Both the extractor and [`super::code_ranges`] read the
//! body this way, so offsets into it are offsets into the file.

use std::ops::Range;

pub(super) struct FrontMatter {
    /// The YAML between the delimiter lines.
    pub(super) body: Range<usize>,
    /// End of the closing delimiter line.
    pub(super) end: usize,
}

/// Front matter at `start`: a `---` line, a first line that is neither blank nor a
/// delimiter (as pulldown-cmark requires), and a closing `---` or `...` line.
pub(super) fn front_matter(text: &str, start: usize) -> Option<FrontMatter> {
    let mut lines = text[start..].split_inclusive('\n').scan(start, |at, line| {
        let line_start = *at;
        *at += line.len();
        Some((line_start, line))
    });
    let is_delimiter = |line: &str, marks: &[&str]| marks.contains(&line.trim_end());
    let (_, open) = lines.next()?;
    if !is_delimiter(open, &["---"]) || !open.ends_with('\n') {
        return None;
    }
    let body_start = start + open.len();
    let mut first = true;
    for (at, line) in lines {
        let closing = is_delimiter(line, &["---", "..."]);
        if first && (closing || line.trim().is_empty()) {
            return None;
        }
        first = false;
        if closing {
            return Some(FrontMatter {
                body: body_start..at,
                end: at + line.len(),
            });
        }
    }
    None
}

/// `text` with `range` replaced by spaces (line breaks kept), so the parser sees blank
/// lines and every offset stays valid; `text` itself when the range is empty.
pub(super) fn blank(text: &str, range: Range<usize>) -> std::borrow::Cow<'_, str> {
    if range.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut bytes = text.as_bytes().to_vec();
    for b in &mut bytes[range] {
        if !matches!(*b, b'\n' | b'\r') {
            *b = b' ';
        }
    }
    std::borrow::Cow::Owned(String::from_utf8(bytes).expect("whole characters replaced by ASCII"))
}
