//! A scalar's decoded value mapped back onto its source, style by style: plain and quoted
//! scalars with their line folding and escapes, literal and folded block scalars line by
//! line. The parser hands back decoded values only; this is where each character of a
//! view is tied to its source bytes.

use super::super::Draft;
use saphyr_parser::ScalarStyle;
use std::ops::Range;

/// Maps a scalar's decoded `value` onto its source `span` (relative to `src`).
pub(super) fn map_scalar(src: &str, span: Range<usize>, style: ScalarStyle, value: &str) -> Draft {
    let start = skip_properties(src, span.clone());
    let mapped = match style {
        ScalarStyle::Plain => Some(flow(src, start..span.end, Quote::None)),
        ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
            let (q, quote) = if style == ScalarStyle::SingleQuoted {
                (b'\'', Quote::Single)
            } else {
                (b'"', Quote::Double)
            };
            let b = src.as_bytes();
            (span.end >= start + 2 && b[start] == q && b[span.end - 1] == q)
                .then(|| flow(src, start + 1..span.end - 1, quote))
        }
        ScalarStyle::Literal | ScalarStyle::Folded => {
            block(src, start..span.end, style == ScalarStyle::Folded, value)
        }
    };
    match mapped {
        Some(draft) if draft.text() == value => draft,
        _ => {
            let mut draft = Draft::new();
            draft.opaque(value, start..span.end.max(start));
            draft
        }
    }
}

/// Skips an anchor (`&a`) and a tag (`!!str`) in front of a scalar.
fn skip_properties(src: &str, span: Range<usize>) -> usize {
    let b = src.as_bytes();
    let mut p = span.start;
    while p < span.end && matches!(b[p], b'&' | b'!') {
        while p < span.end && !b[p].is_ascii_whitespace() {
            p += 1;
        }
        while p < span.end && b[p].is_ascii_whitespace() {
            p += 1;
        }
    }
    p
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Single,
    Double,
}

/// Plain and quoted scalars: lines are folded (one break is a space, `n` breaks are
/// `n - 1` newlines, blanks around breaks go), `''` and backslash escapes are decoded.
fn flow(src: &str, range: Range<usize>, quote: Quote) -> Draft {
    let b = src.as_bytes();
    let mut d = Draft::new();
    let mut p = range.start;
    let mut run = p;
    while p < range.end {
        match b[p] {
            b'\n' | b'\r' => {
                let mut e = p;
                while e > run && matches!(b[e - 1], b' ' | b'\t') {
                    e -= 1;
                }
                d.verbatim(&src[run..e], run);
                let (q, breaks) = line_breaks(b, p, range.end);
                let folded = if breaks == 1 {
                    " ".to_owned()
                } else {
                    "\n".repeat(breaks - 1)
                };
                d.opaque(&folded, e..q);
                p = q;
                run = q;
            }
            b'\'' if quote == Quote::Single && b.get(p + 1) == Some(&b'\'') => {
                d.verbatim(&src[run..p], run);
                d.opaque("'", p..p + 2);
                p += 2;
                run = p;
            }
            b'\\' if quote == Quote::Double => {
                d.verbatim(&src[run..p], run);
                if matches!(b.get(p + 1), Some(b'\n' | b'\r')) {
                    // An escaped line break joins the lines; empty lines after it remain.
                    let (q, breaks) = line_breaks(b, p + 1, range.end);
                    d.opaque(&"\n".repeat(breaks - 1), p..q);
                    p = q;
                } else {
                    let (c, len) = escape(&src[p..range.end]).unwrap_or(('\\', 1));
                    d.opaque(c.encode_utf8(&mut [0; 4]), p..p + len);
                    p += len;
                }
                run = p;
            }
            _ => p += 1,
        }
    }
    d.verbatim(&src[run..range.end], run);
    d
}

/// From a line break at `p`: the offset after it, further empty lines and the next line's
/// indentation, and the number of line breaks passed.
fn line_breaks(b: &[u8], mut p: usize, end: usize) -> (usize, usize) {
    let mut breaks = 0;
    while p < end && matches!(b[p], b'\n' | b'\r') {
        p += if b[p] == b'\r' && b.get(p + 1) == Some(&b'\n') {
            2
        } else {
            1
        };
        breaks += 1;
        while p < end && matches!(b[p], b' ' | b'\t') {
            p += 1;
        }
    }
    (p.min(end), breaks)
}

/// A double-quoted escape at the start of `s`: the character and the escape's length.
fn escape(s: &str) -> Option<(char, usize)> {
    let b = s.as_bytes();
    let hex = |n: usize| {
        let digits = s.get(2..2 + n)?;
        let code = u32::from_str_radix(digits, 16).ok()?;
        Some((char::from_u32(code)?, 2 + n))
    };
    let c = match *b.get(1)? {
        b'0' => '\0',
        b'a' => '\u{7}',
        b'b' => '\u{8}',
        b't' | b'\t' => '\t',
        b'n' => '\n',
        b'v' => '\u{b}',
        b'f' => '\u{c}',
        b'r' => '\r',
        b'e' => '\u{1b}',
        b' ' => ' ',
        b'"' => '"',
        b'/' => '/',
        b'\\' => '\\',
        b'N' => '\u{85}',
        b'_' => '\u{a0}',
        b'L' => '\u{2028}',
        b'P' => '\u{2029}',
        b'x' => return hex(2),
        b'u' => return hex(4),
        b'U' => return hex(8),
        _ => return None,
    };
    Some((c, 2))
}

/// Literal (`|`) and folded (`>`) block scalars. `range` starts at the header (`|-`) or,
/// when the parser's span does, at the first content line.
fn block(src: &str, range: Range<usize>, folded: bool, value: &str) -> Option<Draft> {
    let b = src.as_bytes();
    let first_line = if range.start < range.end && matches!(b[range.start], b'|' | b'>') {
        range.start + memchr::memchr(b'\n', &b[range.start..range.end])? + 1
    } else {
        // Leading empty lines belong to the scalar too.
        let mut start = line_start(b, range.start);
        while start > 0 {
            let prev = line_start(b, start - 1);
            if src[prev..start].trim().is_empty() {
                start = prev;
            } else {
                break;
            }
        }
        start
    };
    let lines = lines(b, first_line..range.end);
    // The block's indentation is what the first content line loses in the value; that
    // also covers an explicit indentation indicator (`|2`) without parsing it.
    let leading = |s: &str| s.len() - s.trim_start_matches(' ').len();
    let first = lines
        .iter()
        .map(|l| &src[l.clone()])
        .find(|l| !l.trim().is_empty())?;
    let first_value = value.lines().find(|l| !l.trim().is_empty())?;
    let indent = leading(first).checked_sub(leading(first_value))?;
    let mut d = Draft::new();
    let mut prev: Option<(usize, bool)> = None;
    let mut empties = 0;
    for line in &lines {
        let text = &src[line.clone()];
        if text.len() <= indent && text.trim_matches([' ', '\t']).is_empty()
            || folded && text.trim_matches([' ', '\t']).is_empty()
        {
            empties += 1;
            continue;
        }
        if !text.as_bytes()[..indent.min(text.len())]
            .iter()
            .all(|&c| c == b' ')
            || text.len() <= indent
        {
            return None;
        }
        let content = line.start + indent;
        let more = matches!(b[content], b' ' | b'\t');
        match prev {
            None => d.opaque(&"\n".repeat(empties), first_line..content),
            Some((prev_end, prev_more)) => {
                let sep = if !folded || prev_more || more {
                    "\n".repeat(1 + empties)
                } else if empties == 0 {
                    " ".to_owned()
                } else {
                    "\n".repeat(empties)
                };
                d.opaque(&sep, prev_end..content);
            }
        }
        d.verbatim(&src[content..line.end], content);
        prev = Some((line.end, more));
        empties = 0;
    }
    let tail = value.strip_prefix(d.text())?;
    if !tail.bytes().all(|c| c == b'\n') {
        return None;
    }
    // The span runs on to the next key's indentation; the trailing line breaks end at the
    // last line ending.
    let tail_start = prev.map_or(first_line, |(end, _)| end).min(range.end);
    let tail_end =
        memchr::memrchr(b'\n', &b[tail_start..range.end]).map_or(range.end, |i| tail_start + i + 1);
    d.opaque(tail, tail_start..tail_end);
    Some(d)
}

fn line_start(b: &[u8], at: usize) -> usize {
    memchr::memrchr(b'\n', &b[..at]).map_or(0, |i| i + 1)
}

/// Content ranges of the lines in `range`, without their line endings.
fn lines(b: &[u8], range: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = range.start;
    while start < range.end {
        let nl = memchr::memchr(b'\n', &b[start..range.end]).map(|i| start + i);
        let mut end = nl.unwrap_or(range.end);
        if end > start && b[end - 1] == b'\r' {
            end -= 1;
        }
        out.push(start..end);
        match nl {
            Some(nl) => start = nl + 1,
            None => break,
        }
    }
    out
}
