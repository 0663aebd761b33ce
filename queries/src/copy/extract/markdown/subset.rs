//! The views of plain Markdown, read without the parser.
//!
//! Most documentation is headings, paragraphs, fenced code, inline code and links. For a
//! file written only in those, what pulldown-cmark would report is known line by line,
//! and finding it is a scan for a few bytes. The parser builds a tree and resolves it in
//! two passes, and its events then go through the walker that turns events into views:
//! together a third of a cold audit's own work besides hashing. Here the scan builds the
//! views itself, with the same drafts and the same finishing steps as the walker (bare
//! URLs, trimming, heading paths), so a paragraph costs a copy of its text and little
//! else.
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
//! makes [`read`] return None, and the whole file goes to the parser. The tests hold the
//! views read here to the views made from the parser's events, on generated documents in
//! and out of the subset and on every fixture.

use super::super::{Draft, OBJECT, PathHints};
use super::headings::Headings;
use super::urls::bare_urls;
use crate::copy::bytescan::{ByteSet, NibbleSet, find_any};
use crate::copy::view::{View, ViewRole};
use std::ops::Range;

/// Appends the views of the Markdown body `text` to `views` (each with the language hint
/// `lang`), as the walker makes them from pulldown-cmark's events with the options
/// `markdown::options` sets for Markdown that is not MDX. None, with `views` as it was,
/// when the text leaves the subset.
pub(super) fn read(
    text: &str,
    lang: Option<String>,
    hints: PathHints,
    views: &mut Vec<View>,
) -> Option<()> {
    let before = views.len();
    let mut s = Scan {
        text,
        views: std::mem::take(views),
        lang,
        headings: Headings::new(hints),
        paragraph: None,
    };
    let read = s.lines();
    *views = s.views;
    if read.is_none() {
        views.truncate(before);
    }
    read
}

struct Scan<'a> {
    text: &'a str,
    views: Vec<View>,
    lang: Option<String>,
    headings: Headings,
    /// The open paragraph.
    paragraph: Option<Draft>,
}

impl Scan<'_> {
    fn lines(&mut self) -> Option<()> {
        let b = self.text.as_bytes();
        if memchr::memchr(b'\r', b).is_some() {
            return None;
        }
        let mut at = 0;
        while at < b.len() {
            let end = memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |i| at + i);
            let next = (end + 1).min(b.len());
            if b[at..end].iter().all(|&c| c == b' ') {
                self.close_paragraph();
                at = next;
                continue;
            }
            at = match b[at] {
                b'`' if b[at..end].starts_with(b"```") => self.fence(at, end)?,
                b'#' => {
                    self.heading(at, end)?;
                    next
                }
                // A list item, a thematic break or a setext underline; `-` and `+` before
                // anything else (`-\u{a0}word`, `+420`) are text.
                b'-' | b'+' if starts_block(&b[at..end]) => return None,
                // What could start another block, or indent this one.
                b' ' | b'\t' | b'>' | b'*' | b'=' | b'_' | b'|' | b'<' | b'~' | b'$' | b'['
                | b':' => {
                    return None;
                }
                b'0'..=b'9' if starts_ordered_item(&b[at..end]) => return None,
                _ => {
                    self.paragraph_line(at, end)?;
                    next
                }
            };
        }
        self.close_paragraph();
        Some(())
    }

    /// Ends the open paragraph, if any.
    fn close_paragraph(&mut self) {
        if let Some(draft) = self.paragraph.take() {
            self.finish(draft, ViewRole::Text);
        }
    }

    /// A block's view, finished as the walker finishes it.
    fn finish(&mut self, draft: Draft, role: ViewRole) {
        let view =
            bare_urls(draft)
                .trim()
                .into_view(role, self.headings.path.clone(), self.lang.clone());
        self.views.extend(view);
    }

    /// A fenced code block opening on the line `at..end`; returns where the line after its
    /// closing fence starts. None for a fence that is never closed or whose info string
    /// holds a backtick (then it is not a fence).
    fn fence(&mut self, at: usize, end: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let ticks = b[at..end].iter().take_while(|&&c| c == b'`').count();
        if b[at + ticks..end].contains(&b'`') {
            return None;
        }
        self.close_paragraph();
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
                return Some((line_end + 1).min(b.len()));
            }
            line = (line_end + 1).min(b.len());
        }
        None
    }

    /// An ATX heading on the line `at..end`: its view, and the heading path from it on.
    fn heading(&mut self, at: usize, end: usize) -> Option<()> {
        let b = self.text.as_bytes();
        let hashes = b[at..end].iter().take_while(|&&c| c == b'#').count();
        if !(1..=6).contains(&hashes) || b.get(at + hashes) != Some(&b' ') {
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
        self.close_paragraph();
        let mut draft = Draft::with_capacity(end - start);
        let mut text = String::new();
        inline(self.text, start..end, &mut draft, Some(&mut text))?;
        let level = hashes as u8;
        self.headings.enter(level, &text);
        let marker = u32::try_from(at).ok()?;
        self.finish(draft, ViewRole::Heading { level, marker });
        Some(())
    }

    /// A line of running text at `at..end`: it opens a paragraph or continues the open
    /// one, after a soft line break (one opaque newline over the line ending).
    fn paragraph_line(&mut self, at: usize, end: usize) -> Option<()> {
        if self.text.as_bytes()[end - 1] == b' ' {
            return None; // a hard break, or blanks the parser drops
        }
        let draft = match &mut self.paragraph {
            Some(draft) => {
                draft.opaque("\n", at - 1..at);
                draft
            }
            None => self.paragraph.insert(Draft::with_capacity(end - at + 1)),
        };
        inline(self.text, at..end, draft, None)
    }
}

/// Appends the inline content of one line (`range` of `text`: text, code spans and
/// links) to `draft`, and for a heading the text its path hint is made of to `label`
/// (code spans' code included).
fn inline(
    text: &str,
    range: Range<usize>,
    draft: &mut Draft,
    mut label: Option<&mut String>,
) -> Option<()> {
    let b = text.as_bytes();
    let mut plain = range.start;
    let mut i = range.start;
    let words = |draft: &mut Draft, r: Range<usize>, label: &mut Option<&mut String>| {
        if !r.is_empty() {
            draft.verbatim(&text[r.clone()], r.start);
            if let Some(label) = label {
                label.push_str(&text[r]);
            }
        }
    };
    while let Some(at) = next_special(&b[..range.end], i) {
        i = at;
        match b[i] {
            b'`' => {
                let close = i + 1 + memchr::memchr(b'`', &b[i + 1..range.end])?;
                let code = &text[i + 1..close];
                // A longer backtick run, or blanks at the edges (which the parser strips),
                // are left to the parser.
                if code.is_empty()
                    || code.starts_with(' ')
                    || code.ends_with(' ')
                    || b.get(close + 1) == Some(&b'`')
                {
                    return None;
                }
                words(draft, plain..i, &mut label);
                if let Some(label) = &mut label {
                    label.push_str(code);
                }
                draft.opaque(OBJECT, i..close + 1);
                i = close + 1;
                plain = i;
            }
            b'[' => {
                if i > range.start && b[i - 1] == b'!' {
                    return None; // an image
                }
                let close = i + 1 + memchr::memchr(b']', &b[i + 1..range.end])?;
                let link_text = i + 1..close;
                if link_text.is_empty() || !b[link_text.clone()].iter().all(|&c| is_plain(c)) {
                    return None;
                }
                if b.get(close + 1) != Some(&b'(') {
                    return None; // a reference, a footnote or just brackets
                }
                let dest_start = close + 2;
                let dest_end = dest_start + memchr::memchr(b')', &b[dest_start..range.end])?;
                let dest = &b[dest_start..dest_end];
                if dest.is_empty() || !dest.iter().all(|&c| is_plain_destination(c)) {
                    return None;
                }
                // The link's text is prose; its brackets and destination are not.
                words(draft, plain..i, &mut label);
                words(draft, link_text, &mut label);
                i = dest_end + 1;
                plain = i;
            }
            _ => return None,
        }
    }
    words(draft, plain..range.end, &mut label);
    Some(())
}

/// The bytes that are not text the parser copies as it is, wherever they stand in a line:
/// they open emphasis, strikethrough, math, HTML, entities, escapes, tables, code and
/// links, or are tabs (which the parser expands in some places).
const SPECIAL_BYTES: &[u8] = b"\\*_~<&$|[]`\t";

/// [`SPECIAL_BYTES`] as a table.
static SPECIAL: ByteSet = ByteSet::new(SPECIAL_BYTES);

/// Where the first byte of inline syntax at or after `from` is: a table look per byte
/// was five instructions per byte of Markdown and comparing sixteen bytes with each of
/// the dozen (SSE2) under two; looking thirty-two up in two nibble tables (AVX2) took
/// another 47 M instructions off the cold 10k run.
fn next_special(b: &[u8], from: usize) -> Option<usize> {
    static SET: NibbleSet = NibbleSet::new(SPECIAL_BYTES);
    find_any(b, from, &SET)
}

fn is_plain(c: u8) -> bool {
    !SPECIAL.0[usize::from(c)]
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
    use super::{PathHints, read};

    /// Whether `text` is in the subset.
    fn in_subset(text: &str) -> bool {
        read(text, None, PathHints::With, &mut Vec::new()).is_some()
    }
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

    /// The views read in the subset, where it takes the text, are the views made from the
    /// parser's events.
    fn reads_alike(text: &str) -> Result<(), TestCaseError> {
        prop_assert_eq!(
            extract_with(text, false, true, PathHints::With).ok(),
            extract_with(text, false, false, PathHints::With).ok(),
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
                    assert!(in_subset(&text), "{text:?}");
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
            assert!(!in_subset(&text), "{text:?}");
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
        assert!(in_subset("````\ncode\n```\n```rust\nText.\n````\nAfter.\n"));
        assert!(!in_subset("```\ncode\n   ```\nText.\n```\n")); // never closed
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
                fast += usize::from(in_subset(&text));
                reads_alike(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
        }
        assert!(seen >= 4, "{seen} Markdown fixtures");
        eprintln!("{fast} of {seen} Markdown fixtures in the subset");
    }
}
