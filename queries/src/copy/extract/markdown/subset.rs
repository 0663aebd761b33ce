//! The parser's events for plain Markdown, found without the parser.
//!
//! Most documentation is headings, paragraphs, fenced code, inline code and links. For a
//! file written only in those, the events pulldown-cmark would produce are known line by
//! line, and finding them is a scan for a few bytes. The parser builds a tree and resolves
//! it in two passes: a fifth of a cold audit's own work besides hashing, where this scan
//! is about a fourteenth.
//!
//! The subset is chosen so that nothing in it depends on CommonMark's harder rules:
//!
//! - a line is blank (spaces only), an ATX heading at the margin (`#`s, a space, text not
//!   ending in `#` and without `{`), a fence at the margin (three or more backticks, closed
//!   by a line of at least as many) or a paragraph line at the margin that cannot start
//!   any other block;
//! - inline content is text, single-backtick code spans on one line and inline links
//!   `[text](destination)` on one line, with plain text and a plain destination.
//!
//! Anything else anywhere in the file (emphasis, lists, quotes, tables, HTML, entities,
//! escapes, math, a tab or a carriage return outside code, indentation, trailing blanks)
//! makes [`events`] return None, and the whole file goes to the parser. The tests hold the
//! views made from these events to the views made from the parser's, on generated
//! documents in and out of the subset and on every fixture.

use pulldown_cmark::{CodeBlockKind, CowStr, Event, HeadingLevel, LinkType, Tag, TagEnd};
use std::ops::Range;

pub(super) type Events<'a> = Vec<(Event<'a>, Range<usize>)>;

/// The events pulldown-cmark gives for `text` (with the options `markdown::options` sets
/// for Markdown that is not MDX), as far as the views read them: the text of a code block
/// is left out, since no view holds it. None when the text leaves the subset.
pub(super) fn events(text: &str) -> Option<Events<'_>> {
    let b = text.as_bytes();
    if memchr::memchr(b'\r', b).is_some() {
        return None;
    }
    let mut s = Scan {
        text,
        out: Vec::with_capacity(text.len() / 24),
        paragraph: None,
    };
    let mut at = 0;
    while at < b.len() {
        let end = memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |i| at + i);
        let next = (end + 1).min(b.len());
        if b[at..end].iter().all(|&c| c == b' ') {
            s.close_paragraph(at);
            at = next;
            continue;
        }
        at = match b[at] {
            b'`' if b[at..end].starts_with(b"```") => s.fence(at, end)?,
            b'#' => {
                s.heading(at, end, next)?;
                next
            }
            // A list item, a thematic break or a setext underline; `-` and `+` before
            // anything else (`-\u{a0}word`, `+420`) are text.
            b'-' | b'+' if starts_block(&b[at..end]) => return None,
            // What could start another block, or indent this one.
            b' ' | b'\t' | b'>' | b'*' | b'=' | b'_' | b'|' | b'<' | b'~' | b'$' | b'[' | b':' => {
                return None;
            }
            b'0'..=b'9' if starts_ordered_item(&b[at..end]) => return None,
            _ => {
                s.paragraph_line(at, end)?;
                next
            }
        };
    }
    s.close_paragraph(b.len());
    Some(s.out)
}

struct Scan<'a> {
    text: &'a str,
    out: Events<'a>,
    /// The open paragraph: where its start event is in `out`.
    paragraph: Option<usize>,
}

impl<'a> Scan<'a> {
    /// Ends the open paragraph, if any, where the line at `at` starts.
    fn close_paragraph(&mut self, at: usize) {
        if let Some(i) = self.paragraph.take() {
            let range = self.out[i].1.start..at;
            self.out[i].1 = range.clone();
            self.out.push((Event::End(TagEnd::Paragraph), range));
        }
    }

    /// A fenced code block opening on the line `at..end`; returns where the line after its
    /// closing fence starts. None for a fence that is never closed or whose info string
    /// holds a backtick (then it is not a fence).
    fn fence(&mut self, at: usize, end: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let ticks = b[at..end].iter().take_while(|&&c| c == b'`').count();
        let info = &self.text[at + ticks..end];
        if info.contains('`') {
            return None;
        }
        self.close_paragraph(at);
        let mut line = (end + 1).min(b.len());
        while line < b.len() {
            let line_end = memchr::memchr(b'\n', &b[line..]).map_or(b.len(), |i| line + i);
            let indent = b[line..line_end].iter().take_while(|&&c| c == b' ').count();
            let run = b[line + indent..line_end]
                .iter()
                .take_while(|&&c| c == b'`')
                .count();
            // A closing fence may be indented by up to three spaces, like any fence, and
            // followed by spaces; pulldown-cmark does not close a fence followed by a tab.
            let closes = indent <= 3
                && run >= ticks
                && b[line + indent + run..line_end].iter().all(|&c| c == b' ');
            if closes {
                let range = at..line_end;
                let kind = CodeBlockKind::Fenced(CowStr::Borrowed(info.trim()));
                self.out
                    .push((Event::Start(Tag::CodeBlock(kind)), range.clone()));
                self.out.push((Event::End(TagEnd::CodeBlock), range));
                return Some((line_end + 1).min(b.len()));
            }
            line = (line_end + 1).min(b.len());
        }
        None
    }

    /// An ATX heading on the line `at..end` (`next` is where the following line starts).
    fn heading(&mut self, at: usize, end: usize, next: usize) -> Option<()> {
        let b = self.text.as_bytes();
        let hashes = b[at..end].iter().take_while(|&&c| c == b'#').count();
        let level = match hashes {
            1 => HeadingLevel::H1,
            2 => HeadingLevel::H2,
            3 => HeadingLevel::H3,
            4 => HeadingLevel::H4,
            5 => HeadingLevel::H5,
            6 => HeadingLevel::H6,
            _ => return None,
        };
        if b.get(at + hashes) != Some(&b' ') {
            return None;
        }
        let start = at
            + hashes
            + b[at + hashes..end]
                .iter()
                .take_while(|&&c| c == b' ')
                .count();
        let content = &b[start..end];
        // A closing `#` sequence, trailing blanks and attributes (`{#id}`) are the parser's.
        if content.is_empty()
            || matches!(content.last(), Some(b'#' | b' '))
            || content.contains(&b'{')
        {
            return None;
        }
        self.close_paragraph(at);
        let range = at..next;
        let tag = Tag::Heading {
            level,
            id: None,
            classes: Vec::new(),
            attrs: Vec::new(),
        };
        self.out.push((Event::Start(tag), range.clone()));
        self.inline(start..end)?;
        self.out.push((Event::End(TagEnd::Heading(level)), range));
        Some(())
    }

    /// A line of running text at `at..end`: it opens a paragraph or continues the open one.
    fn paragraph_line(&mut self, at: usize, end: usize) -> Option<()> {
        if self.text.as_bytes()[end - 1] == b' ' {
            return None; // a hard break, or blanks the parser drops
        }
        match self.paragraph {
            Some(_) => self.out.push((Event::SoftBreak, at - 1..at)),
            None => {
                self.paragraph = Some(self.out.len());
                self.out.push((Event::Start(Tag::Paragraph), at..at));
            }
        }
        self.inline(at..end)
    }

    /// Inline content of one line: text, code spans and links.
    fn inline(&mut self, range: Range<usize>) -> Option<()> {
        let text = self.text;
        let b = text.as_bytes();
        let mut plain = range.start;
        let mut i = range.start;
        while let Some(at) = next_special(&b[..range.end], i) {
            i = at;
            match b[i] {
                b'`' => {
                    let close = i + 1 + memchr::memchr(b'`', &b[i + 1..range.end])?;
                    let code = &text[i + 1..close];
                    // A longer backtick run, or blanks at the edges (which the parser
                    // strips), are left to the parser.
                    if code.is_empty()
                        || code.starts_with(' ')
                        || code.ends_with(' ')
                        || b.get(close + 1) == Some(&b'`')
                    {
                        return None;
                    }
                    self.text_event(plain..i);
                    self.out
                        .push((Event::Code(CowStr::Borrowed(code)), i..close + 1));
                    i = close + 1;
                    plain = i;
                }
                b'[' => {
                    if i > range.start && b[i - 1] == b'!' {
                        return None; // an image
                    }
                    let close = i + 1 + memchr::memchr(b']', &b[i + 1..range.end])?;
                    let label = i + 1..close;
                    if label.is_empty() || !b[label.clone()].iter().all(|&c| is_plain(c)) {
                        return None;
                    }
                    if b.get(close + 1) != Some(&b'(') {
                        return None; // a reference, a footnote or just brackets
                    }
                    let dest_start = close + 2;
                    let dest_end = dest_start + memchr::memchr(b')', &b[dest_start..range.end])?;
                    let dest = &text[dest_start..dest_end];
                    if dest.is_empty() || !dest.bytes().all(is_plain_destination) {
                        return None;
                    }
                    self.text_event(plain..i);
                    let link = i..dest_end + 1;
                    let tag = Tag::Link {
                        link_type: LinkType::Inline,
                        dest_url: CowStr::Borrowed(dest),
                        title: CowStr::Borrowed(""),
                        id: CowStr::Borrowed(""),
                    };
                    self.out.push((Event::Start(tag), link.clone()));
                    self.text_event(label);
                    self.out.push((Event::End(TagEnd::Link), link));
                    i = dest_end + 1;
                    plain = i;
                }
                _ => return None,
            }
        }
        self.text_event(plain..range.end);
        Some(())
    }

    fn text_event(&mut self, range: Range<usize>) {
        if !range.is_empty() {
            let text = CowStr::Borrowed(&self.text[range.clone()]);
            self.out.push((Event::Text(text), range));
        }
    }
}

/// The bytes that are not text the parser copies as it is, wherever they stand in a line:
/// they open emphasis, strikethrough, math, HTML, entities, escapes, tables, code and
/// links, or are tabs (which the parser expands in some places).
const SPECIAL_BYTES: &[u8] = b"\\*_~<&$|[]`\t";

/// [`SPECIAL_BYTES`] as a table.
static SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < SPECIAL_BYTES.len() {
        table[SPECIAL_BYTES[i] as usize] = true;
        i += 1;
    }
    table
};

/// Where the first byte of inline syntax at or after `from` is: sixteen bytes compared
/// at a time (SSE2, which every x86-64 processor has), where one table look per byte was
/// five instructions per byte of Markdown.
fn next_special(b: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    #[cfg(target_arch = "x86_64")]
    {
        use crate::copy::rules::simd::{any_of, bits, load};
        while at + 16 <= b.len() {
            let found = bits(any_of(load(b, at), SPECIAL_BYTES));
            if found != 0 {
                return Some(at + found.trailing_zeros() as usize);
            }
            at += 16;
        }
    }
    b[at..]
        .iter()
        .position(|&c| SPECIAL[usize::from(c)])
        .map(|run| at + run)
}

fn is_plain(c: u8) -> bool {
    !SPECIAL[usize::from(c)]
}

/// A byte of a link destination that needs no decoding and cannot end it early.
fn is_plain_destination(c: u8) -> bool {
    c.is_ascii_graphic() && is_plain(c) && !matches!(c, b'>' | b'(' | b')' | b'"' | b'\'')
}

/// Whether a line that starts with `-` or `+` starts a block: a list item (the mark and
/// then a blank or the end of the line), or a line of nothing but marks and blanks (a
/// thematic break or a setext underline).
fn starts_block(line: &[u8]) -> bool {
    matches!(line.get(1), None | Some(b' ' | b'\t'))
        || line
            .iter()
            .all(|&c| c == line[0] || c == b' ' || c == b'\t')
}

/// Whether a line starts like an ordered list item (`1. `, `12)`): digits, `.` or `)`,
/// then a blank or the end of the line (`1.dubna` is text).
fn starts_ordered_item(line: &[u8]) -> bool {
    let digits = line.iter().take_while(|c| c.is_ascii_digit()).count();
    matches!(line.get(digits), Some(b'.' | b')'))
        && matches!(line.get(digits + 1), None | Some(b' ' | b'\t'))
}

#[cfg(test)]
mod tests {
    use super::super::extract_with;
    use super::events;
    use proptest::prelude::*;

    /// Lines in the subset.
    const IN: &[&str] = &[
        "# Nadpis s `kód`",
        "## Reálném s pak",
        "###### Six [odkaz](https://example.com/a-b) deep",
        "První věta `x` a [odkaz](https://example.com/a-b) konec.",
        "Spusťte `cargo test` Si týmu stolu výsledky.",
        "The \"quoted\" words don't end... here - or there 10-20 km.",
        "Text at www.example.cz and https://x.cz/a?b=1#c, see (this).",
        "Hello! [Hi!](/path/to-nothing) (x) {braces} #5 a > b 2026 bylo",
        "-\u{a0}kódu 10-20 pak agenty a\u{a0}o",
        "-word and --flag, then -- a dash",
        "+420 123 456",
        "--x",
        "-+",
        "1.dubna je svátek",
        "\u{a0}začátek po pevné mezeře",
        "konec před pevnou mezerou\u{a0}",
        "2026)x",
        "`code` first",
        "```bash",
        "```",
        "````",
        "npm run build -- --port 8748",
        "",
        "   ",
    ];

    /// Lines outside it, or next to its edges.
    const OUT: &[&str] = &[
        "# Title {#id}",
        "# C#",
        "#hashtag",
        "#\u{a0}není nadpis",
        "#",
        "####### Seven",
        "# Trailing ",
        "text with *emphasis* and **strong**",
        "an *emphasised* word, then plain text long enough to fill a few blocks",
        "a back\\slash, then plain text long enough to fill a few blocks",
        "plain text long enough to fill a block before ~this~ and after it too",
        "snake_case_name",
        "a & b &amp; c",
        "1. item",
        "2) item",
        "3.",
        "4)\titem",
        "2026. rok",
        "- item",
        "+ item",
        "-",
        "+",
        "--",
        "---",
        "- - -",
        "-\titem",
        "+\titem",
        "-- ",
        "* item",
        "> quote",
        " one space",
        "    indented code",
        "trailing  ",
        "trailing ",
        "tab\there",
        "| a | b |",
        "---",
        "===",
        "[ref]: /url",
        "[^1]: a note",
        "see [^1] here",
        "<div>html</div>",
        "an <b>inline</b> tag",
        "![img](a.png)",
        "``double``",
        "` spaced `",
        "`unclosed",
        "[unclosed",
        "[x] (y)",
        "[a](b c)",
        "[a](<b>)",
        "[a](b(c))",
        "[`code`](x)",
        "[a]",
        "$x$ math",
        "~~struck~~",
        "a line\\",
        "esc \\* aped",
        "  ```",
        "~~~",
        "```a`b",
        "text]",
        "a `b``c",
    ];

    fn doc(lines: &[&str], crlf: bool, final_newline: bool) -> String {
        let eol = if crlf { "\r\n" } else { "\n" };
        let mut text = lines.join(eol);
        if final_newline {
            text.push_str(eol);
        }
        text
    }

    /// The views made from the subset's events, where it takes the text, are the views
    /// made from the parser's.
    fn reads_alike(text: &str) -> Result<(), TestCaseError> {
        prop_assert_eq!(
            extract_with(text, false, true).ok(),
            extract_with(text, false, false).ok(),
            "{:?}",
            text
        );
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Whatever the subset accepts reads exactly as the parser's events read.
        #[test]
        fn the_subset_reads_as_the_parser_does(
            lines in prop::collection::vec(
                prop_oneof![
                    4 => prop::sample::select(IN),
                    1 => prop::sample::select(OUT),
                ],
                0..14,
            ),
            crlf in prop::bool::weighted(0.05),
            final_newline in any::<bool>(),
        ) {
            let text = doc(&lines, crlf, final_newline);
            reads_alike(&text)?;
        }

        /// Lines made of inline pieces, in and out of the subset, in a heading and in a
        /// paragraph.
        #[test]
        fn inline_content_reads_as_the_parser_does(
            pieces in prop::collection::vec(
                prop::sample::select(&[
                    "slovo", " ", "`", "`kód`", "[", "]", "(", ")", "[t](u)", "[t](https://a.cz/b)",
                    "!", "#", "é", "\"", ":", "*", "_", "{", "a.b", "x", "--", "…",
                    "dlouhý úsek prostého textu bez ničeho zvláštního", "\\", "&", "<b>",
                ][..]),
                1..12,
            ),
            heading in any::<bool>(),
        ) {
            let line: String = pieces.concat();
            let text = if heading { format!("## {line}\n\ntext\n") } else { format!("{line}\n") };
            reads_alike(&text)?;
        }
    }

    #[test]
    fn documents_of_subset_lines_take_the_fast_path() {
        // Every line of `IN` in turn after every other, fences closed: all in the subset.
        let mut accepted = 0;
        for a in IN {
            for b in IN {
                let text = doc(&[a, b, "", "```", "code", "```", "Po kódu"], false, true);
                let fenced = [a, b].iter().filter(|l| l.starts_with("```")).count();
                if fenced == 0 {
                    assert!(events(&text).is_some(), "{text:?}");
                    accepted += 1;
                }
            }
        }
        assert!(accepted > 100);
    }

    #[test]
    fn every_line_out_of_the_subset_leaves_it() {
        for line in OUT {
            let text = doc(&["Úvod.", "", line, "", "Závěr."], false, true);
            assert!(events(&text).is_none(), "{text:?}");
            reads_alike(&text).unwrap();
        }
    }

    #[test]
    fn fences_close_as_the_parser_closes_them() {
        for text in [
            // Indented up to three spaces, a fence still closes; by four, it is code.
            "```\ncode\n   ```\nText.\n```\n",
            "```\ncode\n    ```\nstill code\n```\nText.\n```\nAfter.\n",
            // Followed by a tab, a fence does not close (in pulldown-cmark).
            "```\ncode\n```\t\nText.\n```\nAfter.\n```\n",
            // Shorter than the opening fence, or with an info string: still code.
            "````\ncode\n```\n```rust\nText.\n````\nAfter.\n",
            // Never closed: left to the parser.
            "Text.\n```\ncode\n",
        ] {
            reads_alike(text).unwrap();
        }
        assert!(events("````\ncode\n```\n```rust\nText.\n````\nAfter.\n").is_some());
        assert!(events("```\ncode\n   ```\nText.\n```\n").is_none()); // never closed
    }

    #[test]
    fn every_fixture_reads_as_the_parser_reads_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let mut files = vec![root];
        let (mut seen, mut fast) = (0, 0);
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            } else if path.extension().is_some_and(|e| e == "md")
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                seen += 1;
                fast += usize::from(events(&text).is_some());
                reads_alike(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
        }
        assert!(seen >= 4, "{seen} Markdown fixtures");
        eprintln!("{fast} of {seen} Markdown fixtures in the subset");
    }
}
