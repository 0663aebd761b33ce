//! The reserved fences of a plain `.tr` body, read line by line without pulldown-cmark.
//!
//! A spec is mostly a heading, a paragraph or two and its fences: the shape of every
//! spec in trellis's examples. For a body made only of
//!
//! - blank lines,
//! - ATX headings (`#` to `######`, then a space or the line's end),
//! - paragraphs whose first line starts with a letter (or, once prose is known, with
//!   inline code) and whose other lines cannot interrupt them ([`continues_paragraph`]),
//! - fences of exactly three backticks at the start of a line, with an info string
//!   free of backticks, escapes, entities, tabs, form feeds and vertical tabs, closed by
//!   a line of exactly three backticks,
//!
//! CommonMark's reading is plain: a fence or heading interrupts a paragraph, a paragraph
//! line that starts with a letter holds non-blank text, and a fence's text is its lines
//! as written. Anything else — indentation, lists, quotes, HTML, thematic breaks, setext
//! underlines, `~~~` or longer fences, a line that could close a fence another way, CR,
//! NUL, an unclosed fence — is left to the parser ([`parsed`](super::fences::parsed)).
//! Reading plain bodies this way took a cold `status` at 10,000 definitions from 2.065
//! to 1.971 G instructions (callgrind). The tests hold the two to the same blocks and
//! prose on generated bodies and on trellis's examples.

use super::fences::Open;
use super::reserved_class;

/// The reserved blocks of `text` and whether it has prose, as
/// [`parsed`](super::fences::parsed) reads them, or None when `text` is not plain.
pub(super) fn fences(text: &str) -> Option<(Vec<Open>, bool)> {
    let bytes = text.as_bytes();
    if memchr::memchr2(b'\r', 0, bytes).is_some() {
        return None;
    }
    let mut opens = Vec::new();
    let mut has_prose = false;
    // The fence being read, and whether its lang is reserved.
    let mut fence: Option<(Open, bool)> = None;
    let mut in_paragraph = false;
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let next = (end + 1).min(bytes.len());
        let line = &text[start..end];
        if let Some((open, reserved)) = &mut fence {
            if line == "```" {
                open.range.end = end;
                let (open, reserved) = fence.take().expect("a fence is open");
                if reserved {
                    opens.push(open);
                }
            } else if line.trim_start_matches([' ', '\t']).starts_with("```") {
                return None; // a longer or indented fence would close it
            } else if *reserved {
                open.content.push_str(&text[start..next]);
                open.text_end = Some(next);
            }
        } else if line.bytes().all(|b| b == b' ' || b == b'\t') {
            in_paragraph = false;
        } else if let Some(info) = line.strip_prefix("```") {
            // A tab, form feed or vertical tab is whitespace CommonMark trims from an info
            // string and `trim_matches(' ')` does not.
            if info.contains(['`', '\\', '&', '\t', '\x0b', '\x0c']) {
                return None;
            }
            let info = info.trim_matches(' ');
            let lang = info.split_ascii_whitespace().next().unwrap_or("");
            let reserved = reserved_class(lang).is_some();
            has_prose |= !reserved;
            let open = Open {
                info: info.to_owned(),
                range: start..end,
                content: String::new(),
                text_end: None,
            };
            fence = Some((open, reserved));
            in_paragraph = false;
        } else if line.starts_with('#') {
            let level = line.bytes().take_while(|&b| b == b'#').count();
            if level > 6 || !matches!(line.as_bytes().get(level), None | Some(b' ')) {
                return None;
            }
            in_paragraph = false;
        } else if line.chars().next().is_some_and(char::is_alphabetic) {
            has_prose = true;
            in_paragraph = true;
        } else if in_paragraph && continues_paragraph(line) {
        } else if line.starts_with('`') && has_prose {
            // A paragraph that starts with inline code: whether it holds text would take
            // reading its inlines, and the file has prose already.
            in_paragraph = true;
        } else {
            return None;
        }
        start = next;
    }
    match fence {
        Some(_) => None,
        None => Some((opens, has_prose)),
    }
}

/// Whether `line`, after a paragraph line, continues the paragraph: it cannot start a
/// block that interrupts one (a heading or fence is read before this is asked; a quote,
/// a list item, an HTML block, a setext underline or a thematic break starts with one of
/// the bytes refused here, an ordered list that may interrupt with `1.` or `1)`), and it
/// is not indented.
fn continues_paragraph(line: &str) -> bool {
    let refused = matches!(
        line.as_bytes()[0],
        b' ' | b'\t' | b'~' | b'>' | b'-' | b'*' | b'+' | b'_' | b'=' | b'<' | b'|'
    );
    !refused && !line.starts_with("1.") && !line.starts_with("1)")
}
