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
//!   by a line of at least as many), a one-line block quote at the margin (`> ` and text,
//!   then a blank line or the end), a thematic break (`---`, `***` or `___` and longer,
//!   not after a paragraph line), a list item or a paragraph line;
//! - a list item is a bullet (`-`, `+`, `*`) or a number (up to nine digits, `.` or `)`),
//!   one space and text, at the margin or at the content column of an open item (a
//!   sibling of the open item whose marker stands there, or the first item of a list
//!   nested in the innermost item); a numbered item that would start a list by
//!   interrupting a paragraph starts at `1`;
//! - a paragraph line starts at the margin (a lazy continuation, when a paragraph is
//!   open) or at the content column of the innermost open item (a continuation, or after
//!   a blank line a new paragraph of that item), and cannot start any other block;
//! - inline content is text, single-backtick code spans on one line, inline links
//!   `[text](destination)` on one line with plain text or code spans and a plain
//!   destination, brackets around plain text, and emphasis (`*text*`, `**text**`) on one
//!   line, opened after a blank or where the text starts and closed before a blank, the
//!   end of the line or ASCII punctuation (where CommonMark's flanking rules have only
//!   one reading).
//!
//! Anything else anywhere in the file (other emphasis, quotes of more lines, tables,
//! HTML, entities, escapes, math, a tab or a carriage return outside code, indentation
//! that is not an item's, trailing blanks) makes [`read`] return None, and the whole file
//! goes to the parser. The tests hold the views read here to the views made from the
//! parser's events, on generated documents in and out of the subset, on every fixture and
//! on every Markdown file of the shared real trees.

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
        items: Vec::new(),
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
    /// The open list items, outermost first.
    items: Vec<Item>,
}

/// An open list item: where its marker stands and where its content starts (both as
/// columns from the margin), and the list it belongs to.
#[derive(Clone, Copy)]
struct Item {
    marker: usize,
    content: usize,
    kind: ListKind,
}

/// What makes items one list: the same bullet, or numbers with the same delimiter.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ListKind {
    Bullet(u8),
    Ordered(u8),
}

/// A list item's marker at the start of a line: its kind, its width with the one space
/// after it, and whether it may start a list by interrupting a paragraph (a numbered one
/// only when it is `1`).
struct Marker {
    kind: ListKind,
    width: usize,
    interrupts: bool,
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
            let line = &b[at..end];
            let indent = line.iter().take_while(|&&c| c == b' ').count();
            if indent == line.len() {
                self.close_paragraph();
                at = next;
                continue;
            }
            if indent > 0 {
                self.indented(at, indent, end)?;
                at = next;
                continue;
            }
            at = match b[at] {
                b'`' if line.starts_with(b"```") => self.fence(at, end)?,
                b'#' => {
                    self.heading(at, end)?;
                    next
                }
                b'>' => {
                    self.quote(at, end)?;
                    next
                }
                _ => {
                    if is_break(line) {
                        // After a paragraph line, `---` underlines a heading.
                        if self.paragraph.is_some() {
                            return None;
                        }
                        self.items.clear();
                    } else if let Some(marker) = marker(line) {
                        self.item(at, 0, &marker, end)?;
                    } else if starts_paragraph(line) {
                        if self.paragraph.is_none() {
                            self.items.clear(); // after a blank line, the lists end
                        }
                        self.paragraph_line(at, at, end)?;
                    } else {
                        return None;
                    }
                    next
                }
            };
        }
        self.close_paragraph();
        Some(())
    }

    /// A line indented by `indent` spaces (`at..end`, not blank): an item nested in an
    /// open one, or a paragraph line of the innermost open item.
    fn indented(&mut self, at: usize, indent: usize, end: usize) -> Option<()> {
        let innermost = self.items.last()?.content;
        let rest = &self.text.as_bytes()[at + indent..end];
        if let Some(marker) = marker(rest) {
            return self.item(at, indent, &marker, end);
        }
        if !starts_paragraph(rest) {
            return None;
        }
        if self.paragraph.is_none() {
            // After a blank line: a new paragraph of the item whose content starts here.
            let k = self.items.iter().position(|i| i.content == indent)?;
            self.items.truncate(k + 1);
        } else if indent != innermost {
            return None;
        }
        self.paragraph_line(at, at + indent, end)
    }

    /// A list item whose marker stands `indent` spaces into the line `at..end`.
    fn item(&mut self, at: usize, indent: usize, marker: &Marker, end: usize) -> Option<()> {
        let content = indent + marker.width;
        let text = &self.text.as_bytes()[at + content..end];
        // `[ ]` or `[x]` first is a task list marker.
        if !starts_paragraph(text) || (text.first() == Some(&b'[') && text.get(2) == Some(&b']')) {
            return None;
        }
        let new_list = match self.items.iter().position(|i| i.marker == indent) {
            Some(k) => {
                let same = self.items[k].kind == marker.kind;
                self.items.truncate(k);
                !same
            }
            None if indent == self.items.last().map_or(0, |i| i.content) => true,
            None => return None,
        };
        if new_list && self.paragraph.is_some() && !marker.interrupts {
            return None; // `2.` after a paragraph line continues it
        }
        self.close_paragraph();
        self.items.push(Item {
            marker: indent,
            content,
            kind: marker.kind,
        });
        self.paragraph_line(at, at + content, end)
    }

    /// A block quote of one line at `at..end`: `> ` and a paragraph line, then a blank
    /// line or the end of the text (a longer quote, or a lazy line, is the parser's).
    fn quote(&mut self, at: usize, end: usize) -> Option<()> {
        let b = self.text.as_bytes();
        // `> [!NOTE]` is a GFM alert.
        if b.get(at + 1) != Some(&b' ') || !starts_paragraph(&b[at + 2..end]) || b[at + 2] == b'[' {
            return None;
        }
        let next = (end + 1).min(b.len());
        let next_end = memchr::memchr(b'\n', &b[next..]).map_or(b.len(), |i| next + i);
        if !b[next..next_end].iter().all(|&c| c == b' ') {
            return None;
        }
        self.close_paragraph();
        self.items.clear();
        self.paragraph_line(at + 2, at + 2, end)?;
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
        self.items.clear();
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
        self.items.clear();
        let mut draft = Draft::with_capacity(end - start);
        let mut text = String::new();
        inline(self.text, start..end, &mut draft, Some(&mut text))?;
        let level = hashes as u8;
        self.headings.enter(level, &text);
        let marker = u32::try_from(at).ok()?;
        self.finish(draft, ViewRole::Heading { level, marker });
        Some(())
    }

    /// A line of running text on the line starting at `line`, its text at `at..end`: it
    /// opens a paragraph or continues the open one, after a soft line break (one opaque
    /// newline over the line ending and the indentation).
    fn paragraph_line(&mut self, line: usize, at: usize, end: usize) -> Option<()> {
        if self.text.as_bytes()[end - 1] == b' ' {
            return None; // a hard break, or blanks the parser drops
        }
        let draft = match &mut self.paragraph {
            Some(draft) => {
                draft.opaque("\n", line - 1..at);
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
                let inner = &b[link_text.clone()];
                if inner.is_empty() || inner[0] == b'^' || inner.contains(&b'[') {
                    return None; // a footnote, or brackets in brackets
                }
                if b.get(close + 1) != Some(&b'(') {
                    // Brackets around plain text are text: the subset has no reference
                    // definitions for them to name. `[a][b]` and `[a]:` are the parser's.
                    if !inner.iter().all(|&c| is_plain(c))
                        || matches!(b.get(close + 1), Some(b'[' | b':'))
                    {
                        return None;
                    }
                    i = close + 1;
                    continue;
                }
                let dest_start = close + 2;
                let dest_end = dest_start + memchr::memchr(b')', &b[dest_start..range.end])?;
                let dest = &b[dest_start..dest_end];
                if dest.is_empty() || !dest.iter().all(|&c| is_plain_destination(c)) {
                    return None;
                }
                // The link's text (plain, or with code spans) is prose; its brackets and
                // destination are not.
                if !inner.iter().all(|&c| is_plain(c) || c == b'`') {
                    return None;
                }
                words(draft, plain..i, &mut label);
                inline(text, link_text, draft, label.as_deref_mut())?;
                i = dest_end + 1;
                plain = i;
            }
            b'&' if !starts_entity(b, i) => i += 1,
            b'~' if !can_close(text, i) => i += 1,
            b'*' => {
                let (close, run) = emphasis(text, range.end, i)?;
                words(draft, plain..i, &mut label);
                inline(text, i + run..close, draft, label.as_deref_mut())?;
                i = close + run;
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

/// Where the emphasis (`*`) or strong emphasis (`**`) opened at `at` closes (`end` ends
/// the line), and the length of its delimiters, when CommonMark's delimiter rules give it
/// only one reading: the opener after a blank or at the start of the text and before a
/// character that is not a blank, the closer the next `*` outside code, as long a run,
/// after a character that is not a blank and before a blank, the end of the line or ASCII
/// punctuation. Such an opener is left-flanking only and such a closer right-flanking,
/// so they pair with each other and nothing else. What is between them is read as inline
/// content again.
fn emphasis(text: &str, end: usize, at: usize) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let run = b[at..end].iter().take_while(|&&c| c == b'*').count();
    if run > 2 || can_close(text, at) {
        return None;
    }
    let inner = at + run;
    if text[inner..end].chars().next()?.is_whitespace() {
        return None;
    }
    let mut close = inner;
    loop {
        close = next_special(&b[..end], close)?;
        match b[close] {
            b'*' => break,
            b'`' => close += 1 + memchr::memchr(b'`', &b[close + 1..end])? + 1,
            b'[' | b']' | b'&' | b'~' => close += 1,
            _ => return None,
        }
    }
    if close == inner || b[close..end].iter().take_while(|&&c| c == b'*').count() != run {
        return None;
    }
    let closes = text[close + run..end].chars().next().is_none_or(|c| {
        c.is_whitespace() || matches!(c, '.' | ',' | ':' | ';' | '!' | '?' | ')' | '"' | '\'')
    });
    (closes && can_close(text, close)).then_some((close, run))
}

/// Whether a delimiter at `at` could close emphasis or strikethrough: it follows a
/// character that is not a blank (the line's own start follows a line break or a marker's
/// space).
fn can_close(text: &str, at: usize) -> bool {
    text[..at]
        .chars()
        .next_back()
        .is_some_and(|c| !c.is_whitespace())
}

/// Whether the `&` at `at` may start an entity (a name or `#` follows); any other `&` is
/// text.
fn starts_entity(b: &[u8], at: usize) -> bool {
    b.get(at + 1)
        .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'#')
}

/// The list item marker a line (from its first non-blank) starts with, if any: a bullet
/// or a number of up to nine digits with `.` or `)`, then one space.
fn marker(line: &[u8]) -> Option<Marker> {
    let (kind, width, interrupts) = match line.first()? {
        &c @ (b'-' | b'+' | b'*') => (ListKind::Bullet(c), 2, true),
        b'0'..=b'9' => {
            let digits = line.iter().take_while(|c| c.is_ascii_digit()).count();
            let delim = *line.get(digits)?;
            if digits > 9 || !matches!(delim, b'.' | b')') {
                return None;
            }
            (
                ListKind::Ordered(delim),
                digits + 2,
                &line[..digits] == b"1",
            )
        }
        _ => return None,
    };
    (line.get(width - 1) == Some(&b' ')).then_some(Marker {
        kind,
        width,
        interrupts,
    })
}

/// Whether a line's text (from its first non-blank; not a list item) is a paragraph
/// line: it is not empty and cannot start any other block, nor indent this one.
fn starts_paragraph(line: &[u8]) -> bool {
    match line.first() {
        None => false,
        Some(b'`') => !line.starts_with(b"```"),
        // A thematic break or a setext underline; `-` and `+` before anything else
        // (`-\u{a0}word`, `+420`) are text.
        Some(b'-' | b'+') => !starts_block(line),
        // Emphasis (`*Poznámka*`, `**Pozor:** text`), not a thematic break.
        Some(b'*') => {
            let run = line.iter().take_while(|&&c| c == b'*').count();
            run <= 2 && !matches!(line.get(run), None | Some(b' '))
        }
        Some(b'0'..=b'9') => !starts_ordered_item(line),
        Some(b' ' | b'\t' | b'#' | b'>' | b'=' | b'_' | b'|' | b'<' | b'~' | b'$' | b':') => false,
        Some(_) => true,
    }
}

/// Whether a line is a thematic break of the one form the subset reads: three or more
/// `-`, `*` or `_`, the same, and nothing else.
fn is_break(line: &[u8]) -> bool {
    line.len() >= 3 && matches!(line[0], b'-' | b'*' | b'_') && line.iter().all(|&c| c == line[0])
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
        "**Pozor:** text s **tučným** slovem, a\u{a0}**pevnou**\u{a0}mezerou.",
        "Ve **„uvozovkách“** a **Jeden `AGENTS.md`** a **[odkaz](/a)** a *kurzíva*.",
        "Závorky [X] a [důvod] zůstávají textem, R & D též.",
        "Po ~20–30 vteřinách, ~30 vteřin.",
        "[`coaching-codex.md`](../../coaching-codex.md) první",
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
        "text with *emphasis*and **strong**",
        "a back\\slash, then plain text long enough to fill a few blocks",
        "plain text long enough to fill a block before ~this~ and after it too",
        "snake_case_name",
        "a & b &amp; c",
        "3.",
        "4)\titem",
        "-",
        "+",
        "--",
        "- - -",
        "-\titem",
        "+\titem",
        "-- ",
        " one space",
        "    indented code",
        "trailing  ",
        "trailing ",
        "tab\there",
        "| a | b |",
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
        "[a](b c)",
        "[a](<b>)",
        "[a](b(c))",
        "$x$ math",
        "~~struck~~",
        "a line\\",
        "esc \\* aped",
        "  ```",
        "~~~",
        "```a`b",
        "text]",
        "a `b``c",
        "**a**b",
        "a**b**",
        "** a**",
        "**a **",
        "**a",
        "***a***",
        "*a*b",
        "*a**",
        "**a*",
        "R&D",
        "a ~b~ c",
        "[^x] text",
        "[a][b]",
        "[a]: /url",
        "[a [b] c]",
        "[]",
        "[**a**](b)",
        "> [!NOTE]",
        ">quote",
        "> ",
    ];

    /// Lines of lists, quotes and their neighbours, at the indentations that nest them:
    /// most documents made of them are in the subset.
    const LISTS: &[&str] = &[
        "- položka",
        "- **Tučně:** text",
        "* hvězdička",
        "+ plus",
        "1. první",
        "2. druhá",
        "1) závorka",
        "10. deset",
        "  - vnořená",
        "   - pod číslem",
        "    - hlubší",
        "  1. vnořené číslo",
        "  2. vnořené dvě",
        "  pokračování",
        "   pokračování",
        "líné pokračování",
        "Odstavec.",
        "## Nadpis",
        "> citát",
        "- [odkaz](https://a.cz) popis",
        "- `kód` první",
        "",
        "",
        "",
    ];

    /// Lines next to the edges of lists and quotes.
    const LIST_EDGES: &[&str] = &[
        "    1. hluboké číslo",
        "    pokračování",
        "     moc odsazené",
        "```",
        "  ```",
        "> **Lidé řídí.**",
        "> [!NOTE]",
        "- [ ] úkol",
        "- [x] hotovo",
        "- ```",
        "-",
        "- ",
        "- - x",
        "1. - x",
        "- 1. x",
        "- # nadpis",
        "- > citát",
        "* * *",
        "- ---",
        "---",
        "***",
        "___",
        "--- ",
        "===",
        "  ===",
        "  > citát v položce",
        "  # nadpis v položce",
        "-  dvě mezery",
        "2026. rok",
        "      kód",
    ];

    /// A document of headings, paragraphs, one-line quotes and lists nested up to three
    /// deep (items with continuation lines, lazy lines and paragraphs after a blank
    /// line), drawn from `seed`: built the way writers build them, so most are in the
    /// subset, unlike random sequences of the same lines. `edges` of its lines are then
    /// replaced by lines at the subset's edges.
    fn structured_doc(seed: u64, edges: usize) -> String {
        let mut rng = seed | 1;
        let mut next = move |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        const TEXT: &[&str] = &[
            "prostý text",
            "text s `kódem` a [odkazem](https://a.cz)",
            "**Tučně:** a pak text",
            "věta s **důrazem**.",
            "*Kurzívou* celá věta s [`kódem`](/k).",
            "a\u{a0}**pevná**\u{a0}mezera",
            "Závorky [X] a R & D",
            "~20 minut",
            "[`kód`](../a.md) odkaz",
            "konec.",
        ];
        fn list(
            lines: &mut Vec<String>,
            indent: usize,
            depth: usize,
            next: &mut dyn FnMut(usize) -> usize,
        ) {
            let bullet = ["-", "+", "*"][next(3)];
            let ordered = next(2) == 0;
            let delim = [".", ")"][next(2)];
            for n in 1..=1 + next(4) {
                let marker = if ordered {
                    format!("{}{delim}", if next(4) == 0 { n + 8 } else { n })
                } else {
                    bullet.to_owned()
                };
                let content = indent + marker.len() + 1;
                lines.push(format!(
                    "{}{marker} {}",
                    " ".repeat(indent),
                    TEXT[next(TEXT.len())]
                ));
                match next(6) {
                    0 => lines.push(format!("{}{}", " ".repeat(content), TEXT[next(TEXT.len())])),
                    1 => lines.push(TEXT[next(TEXT.len())].to_owned()),
                    2 => {
                        lines.push(String::new());
                        lines.push(format!("{}{}", " ".repeat(content), TEXT[next(TEXT.len())]));
                    }
                    3 if depth < 3 => list(lines, content, depth + 1, next),
                    _ => {}
                }
                if next(4) == 0 {
                    lines.push(String::new());
                }
            }
        }
        let mut lines: Vec<String> = Vec::new();
        for _ in 0..1 + next(6) {
            match next(5) {
                0 => lines.push(format!(
                    "{} {}",
                    "#".repeat(1 + next(3)),
                    TEXT[next(TEXT.len())]
                )),
                1 => {
                    lines.push(format!("> {}", TEXT[next(TEXT.len())]));
                    lines.push(String::new());
                    if next(2) == 0 {
                        lines.push(["---", "***", "___"][next(3)].to_owned());
                    }
                }
                2 => {
                    for _ in 0..1 + next(3) {
                        lines.push(TEXT[next(TEXT.len())].to_owned());
                    }
                }
                _ => list(&mut lines, 0, 0, &mut next),
            }
            if next(3) > 0 {
                lines.push(String::new());
            }
        }
        for _ in 0..edges {
            let at = next(lines.len() + 1);
            let line = if next(2) == 0 {
                LIST_EDGES[next(LIST_EDGES.len())]
            } else {
                OUT[next(OUT.len())]
            };
            lines.insert(at, line.to_owned());
        }
        lines.join("\n") + "\n"
    }

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

        /// Documents of list items, nested and not, quotes, and the lines next to them.
        #[test]
        fn lists_and_quotes_read_as_the_parser_does(
            lines in prop::collection::vec(
                prop_oneof![
                    24 => prop::sample::select(LISTS),
                    1 => prop::sample::select(LIST_EDGES),
                    2 => prop::sample::select(IN),
                ],
                0..24,
            ),
            final_newline in any::<bool>(),
        ) {
            reads_alike(&doc(&lines, false, final_newline))?;
        }

        /// Documents as writers build them, and the same with lines at the subset's
        /// edges put in.
        #[test]
        fn structured_documents_read_as_the_parser_does(seed in any::<u64>(), edges in 0..3usize) {
            reads_alike(&structured_doc(seed, edges))?;
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
                    "**", "**tučně**", "~", "\u{a0}", "[t]", "&amp;", ".", "'", "„", "“", "^",
                ][..]),
                1..12,
            ),
            block in 0..4u8,
        ) {
            let line: String = pieces.concat();
            let text = match block {
                0 => format!("## {line}\n\ntext\n"),
                1 => format!("- {line}\n  {line}\n"),
                2 => format!("> {line}\n"),
                _ => format!("{line}\n{line}\n"),
            };
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

    #[test]
    fn lists_quotes_and_strong_emphasis_take_the_fast_path() {
        let text = "# Plán\n\n> „Citát na jeden řádek.“\n\nÚvod:\n- první s **tučným**\n  - vnořená\n    pokračuje\n  - druhá [odkaz](/a)\n- zpět\nlíně dál\n\n  odstavec položky\n\n1. číslo\n   - pod číslem\n2. **Varianta B:** text\n10. deset\n\nKonec.\n";
        assert!(in_subset(text));
        reads_alike(text).unwrap();
        // A numbered list interrupting a paragraph starts at 1; `2.` continues the text.
        assert!(!in_subset("Text\n2. dál\n"));
        assert!(in_subset("Text\n1. dál\n2. pak\n"));
        // A thematic break, but not a setext underline.
        assert!(in_subset("a\n\n---\n\n- b\n\n***\nc\n"));
        assert!(!in_subset("a\n---\n"));
        // Items nest at the content column of an open item, nowhere else.
        assert!(!in_subset("- a\n - b\n"));
        assert!(!in_subset("1. a\n  - b\n"));
    }

    /// Every Markdown file of the shared real trees reads alike, and the Czech locale
    /// files of the newest tree, which the real-tree benchmark scales (lists, quotes,
    /// strong emphasis, links), take the fast path: a subset that real files leave buys
    /// nothing.
    #[test]
    fn every_real_markdown_file_reads_as_the_parser_reads_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/conformance/harness-lab");
        if !root.exists() {
            eprintln!("skipped: {} is missing", root.display());
            return;
        }
        let mut files = vec![root.clone()];
        let (mut seen, mut fast) = (0, 0);
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            } else if path.extension().is_some_and(|e| e == "md") {
                let text = std::fs::read_to_string(&path).unwrap();
                seen += 1;
                fast += usize::from(body_in_subset(&text));
                reads_alike(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
        }
        eprintln!("{fast} of {seen} real Markdown files in the subset");
        assert!(seen >= 80, "{seen} real Markdown files");
        // The corpus of `benches/real_tree.rs`: the newest tree's Czech locale files.
        let mut corpus = vec![root.join("58cfea7")];
        let mut czech = 0;
        while let Some(path) = corpus.pop() {
            if path.is_dir() {
                corpus.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            } else if path.extension().is_some_and(|e| e == "md")
                && path.parent().is_some_and(|p| p.ends_with("locales/cs"))
            {
                czech += 1;
                let text = std::fs::read_to_string(&path).unwrap();
                assert!(
                    body_in_subset(&text),
                    "{} leaves the subset",
                    path.display()
                );
            }
        }
        assert!(czech >= 12, "{czech} Czech locale files");
    }

    /// Whether the body of a whole file (front matter blanked out) is in the subset.
    fn body_in_subset(text: &str) -> bool {
        let hidden = super::super::front_matter::front_matter(text, 0).map_or(0..0, |fm| 0..fm.end);
        in_subset(&super::super::front_matter::blank(text, hidden))
    }
}
