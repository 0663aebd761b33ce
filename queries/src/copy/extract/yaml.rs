//! YAML: one view per string scalar value (never keys), with its key path.
//!
//! `saphyr-parser` gives scalar events with spans in characters; [`CharIndex`] turns them
//! into byte offsets. The parser hands back decoded values only, so each scalar style is
//! decoded again here, piece by piece, to map every character back: line contents are
//! verbatim, a folded line break (with the trailing blanks before it and the next line's
//! indentation) is one opaque piece, and so are `''` and backslash escapes. The result is
//! checked against the parser's value; should the two ever disagree (an explicit
//! indentation indicator, a construct this module does not know), the view falls back to
//! one opaque piece over the whole scalar, which still starts at the right place.
//!
//! Plain scalars that the YAML 1.2 core schema reads as null, booleans or numbers are not
//! strings and give no view; quoted and block scalars always are strings. Several
//! documents in one file share the same key paths.

use super::path::Step;
use super::{Draft, ExtractError, PathHints, bom_len};
use crate::copy::view::{View, ViewRole};
use saphyr_parser::{Event, Parser, ScalarStyle, Tag};
use std::borrow::Cow;
use std::ops::Range;

pub(super) fn extract(text: &str, hints: PathHints) -> Result<Vec<View>, ExtractError> {
    extract_in(text, bom_len(text)..text.len(), None, hints)
}

/// The views of the YAML document in `text[range]`, with path hints below `root`
/// (Markdown front matter is `frontmatter`) if `hints` asks for them.
pub(super) fn extract_in(
    text: &str,
    range: Range<usize>,
    root: Option<&str>,
    hints: PathHints,
) -> Result<Vec<View>, ExtractError> {
    let src = &text[range.clone()];
    let base = range.start;
    let chars = CharIndex::new(src);
    let mut walk = Walk::default();
    let mut views = Vec::new();
    for event in Parser::new_from_str(src) {
        let (event, span) = event.map_err(|e| {
            ExtractError::new(
                base + chars.byte(e.marker().index()),
                format!("invalid YAML: {}", e.info()),
            )
        })?;
        let span = chars.byte(span.start.index())..chars.byte(span.end.index());
        match event {
            Event::DocumentStart(_) => walk = Walk::default(),
            Event::Scalar(value, style, _, tag) => {
                if !walk.scalar(value.clone()) {
                    continue;
                }
                if is_string(&value, style, tag.as_deref()) && !value.is_empty() {
                    let mut draft = map_scalar(src, span, style, &value);
                    draft.shift(base);
                    let hint = hints.of(root, &walk.steps);
                    views.extend(draft.into_view_unless_empty(ViewRole::Text, hint, None));
                }
                walk.done_value();
            }
            Event::Alias(_) => walk.alias(),
            Event::MappingStart(..) => walk.start(Frame::Map { want_key: true }),
            Event::SequenceStart(..) => walk.start(Frame::Seq { next: 0 }),
            Event::MappingEnd | Event::SequenceEnd => walk.end(),
            _ => {}
        }
    }
    Ok(views)
}

#[derive(Debug)]
enum Frame {
    Map { want_key: bool },
    Seq { next: usize },
}

/// Where the parser is in the document tree.
#[derive(Debug, Default)]
struct Walk<'a> {
    frames: Vec<Frame>,
    /// One step per frame: the current key or index.
    steps: Vec<Step<'a>>,
    /// Depth inside a mapping or sequence used as a key (`? [a, b]: c`), which is not prose.
    in_key: usize,
}

impl<'a> Walk<'a> {
    /// A scalar node; returns whether it is a value (and not a key).
    fn scalar(&mut self, value: Cow<'a, str>) -> bool {
        if self.in_key > 0 {
            return false;
        }
        match self.frames.last_mut() {
            Some(Frame::Map { want_key }) if *want_key => {
                *want_key = false;
                *self.steps.last_mut().expect("a step per frame") = Step::Key(value);
                false
            }
            _ => true,
        }
    }

    /// An alias (`*a`): a key or a value, never a view of its own.
    fn alias(&mut self) {
        if self.scalar(Cow::Borrowed("*")) {
            self.done_value();
        }
    }

    /// A value node is complete: the enclosing container moves on.
    fn done_value(&mut self) {
        if self.in_key > 0 {
            return;
        }
        match self.frames.last_mut() {
            Some(Frame::Map { want_key }) => *want_key = true,
            Some(Frame::Seq { next }) => {
                *next += 1;
                *self.steps.last_mut().expect("a step per frame") = Step::Index(*next);
            }
            None => {}
        }
    }

    fn start(&mut self, frame: Frame) {
        let is_key = matches!(self.frames.last(), Some(Frame::Map { want_key: true }));
        if self.in_key > 0 || is_key {
            self.in_key += 1;
            return;
        }
        self.steps.push(match frame {
            Frame::Map { .. } => Step::Key(Cow::Borrowed("")),
            Frame::Seq { .. } => Step::Index(0),
        });
        self.frames.push(frame);
    }

    fn end(&mut self) {
        if self.in_key > 0 {
            self.in_key -= 1;
            if self.in_key == 0 {
                // A complex key is complete; its value follows.
                self.scalar(Cow::Borrowed("?"));
            }
            return;
        }
        self.frames.pop();
        self.steps.pop();
        self.done_value();
    }
}

/// Whether a scalar is a string in the YAML 1.2 core schema.
fn is_string(value: &str, style: ScalarStyle, tag: Option<&Tag>) -> bool {
    if let Some(tag) = tag
        && tag.handle == "tag:yaml.org,2002:"
    {
        return tag.suffix == "str";
    }
    style != ScalarStyle::Plain || !is_core_non_string(value)
}

/// Null, boolean, integer and float spellings of the core schema.
fn is_core_non_string(v: &str) -> bool {
    if matches!(
        v,
        "" | "~"
            | "null"
            | "Null"
            | "NULL"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | ".nan"
            | ".NaN"
            | ".NAN"
    ) {
        return true;
    }
    let unsigned = v.strip_prefix(['-', '+']).unwrap_or(v);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    if let Some(hex) = v.strip_prefix("0x") {
        return !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
    }
    if let Some(oct) = v.strip_prefix("0o") {
        return !oct.is_empty() && oct.bytes().all(|b| (b'0'..=b'7').contains(&b));
    }
    // [0-9]+ | ([0-9]+(\.[0-9]*)? | \.[0-9]+)([eE][-+]?[0-9]+)?
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (&unsigned[..i], Some(&unsigned[i + 1..])),
        None => (unsigned, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => {
            (digits(int) && (frac.is_empty() || digits(frac))) || (int.is_empty() && digits(frac))
        }
        None => digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}

/// Maps a scalar's decoded `value` onto its source `span` (relative to `src`).
fn map_scalar(src: &str, span: Range<usize>, style: ScalarStyle, value: &str) -> Draft {
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

/// Character index → byte offset, for parser markers that count characters.
///
/// Markers mostly move forward, so a lookup walks on from the previous one; a lookup
/// behind it starts from a checkpoint (the byte offset of every 256th character), so no
/// lookup walks far and the table stays small for large files.
struct CharIndex<'a> {
    text: &'a str,
    checkpoints: Option<Vec<usize>>,
    /// The previous lookup: character index and byte offset.
    last: std::cell::Cell<(usize, usize)>,
}

const STRIDE: usize = 256;

impl<'a> CharIndex<'a> {
    fn new(text: &'a str) -> Self {
        let checkpoints = (!text.is_ascii()).then(|| {
            text.char_indices()
                .step_by(STRIDE)
                .map(|(i, _)| i)
                .collect()
        });
        CharIndex {
            text,
            checkpoints,
            last: std::cell::Cell::new((0, 0)),
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        let Some(checkpoints) = &self.checkpoints else {
            return char_index.min(self.text.len());
        };
        let (last_char, last_byte) = self.last.get();
        let (from_char, from_byte) = if char_index >= last_char && char_index - last_char < STRIDE {
            (last_char, last_byte)
        } else {
            match checkpoints.get(char_index / STRIDE) {
                Some(&b) => (char_index - char_index % STRIDE, b),
                None => return self.text.len(),
            }
        };
        let byte = self.text[from_byte..]
            .char_indices()
            .nth(char_index - from_char)
            .map_or(self.text.len(), |(i, _)| from_byte + i);
        self.last.set((char_index, byte));
        byte
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy::extract::testing::{assert_maps_back, hints, src_of, texts};

    fn views(src: &str) -> Vec<View> {
        let views = extract(src, PathHints::With).unwrap();
        assert_maps_back(src, &views);
        views
    }

    #[test]
    fn string_values_with_key_paths() {
        let src = "\
meta:
  en:
    title: Harness Lab
  cs:
    title: Žluťoučký kůň v lese
    count: 3
    on: true
    none: ~
    pi: -1.5e3
items:
  - name: první
  - [x, \"y\"]
\"weird key\": {a: b, n: 0x1F}
tagged: !!str 5
empty: ''
";
        let v = views(src);
        assert_eq!(
            texts(&v),
            [
                "Harness Lab",
                "Žluťoučký kůň v lese",
                "první",
                "x",
                "y",
                "b",
                "5"
            ]
        );
        assert_eq!(
            hints(&v),
            [
                Some("meta.en.title"),
                Some("meta.cs.title"),
                Some("items[0].name"),
                Some("items[1][0]"),
                Some("items[1][1]"),
                Some("[\"weird key\"].a"),
                Some("tagged"),
            ]
        );
        for view in &v {
            assert!(view.is_verbatim(0..view.text.len()), "{:?}", view.text);
        }
        // Byte offsets, not character offsets, after the Czech title.
        assert_eq!(src_of(src, &v[2], "první"), "první");
    }

    #[test]
    fn plain_multi_line_scalars_fold() {
        let src = "a: one v\n  lese\n\n  three\n";
        let v = views(src);
        assert_eq!(v[0].text, "one v lese\nthree");
        let at = v[0].text.find(' ').unwrap();
        assert_eq!(src_of(src, &v[0], "v lese"), "v\n  lese");
        assert!(v[0].is_verbatim(0..at));
        assert_eq!(src_of(src, &v[0], "three"), "three");
    }

    #[test]
    fn quoted_scalars_decode_escapes() {
        let src = "s: 'it''s v\n  lese'\nd: \"a\\\"b\\u00e9 c\\\n  d\\n\\x41\"\n";
        let v = views(src);
        assert_eq!(texts(&v), ["it's v lese", "a\"bé cd\nA"]);
        assert_eq!(src_of(src, &v[0], "'s"), "''s");
        assert_eq!(src_of(src, &v[1], "\"b"), "\\\"b");
        assert_eq!(src_of(src, &v[1], "é c"), "\\u00e9 c");
        assert_eq!(src_of(src, &v[1], "cd"), "c\\\n  d");
        assert_eq!(src_of(src, &v[1], "A"), "\\x41");
    }

    #[test]
    fn block_scalars_map_line_by_line() {
        let src = "lit: |\n  line one\n  v lese\n\nfold: >-\n  f one\n  f two\n\n  f three\n";
        let v = views(src);
        assert_eq!(texts(&v), ["line one\nv lese\n", "f one f two\nf three"]);
        assert_eq!(src_of(src, &v[0], "v lese"), "v lese");
        assert_eq!(src_of(src, &v[0], "one\nv"), "one\n  v");
        assert_eq!(src_of(src, &v[1], "one f"), "one\n  f");
        assert_eq!(src_of(src, &v[1], "f three"), "f three");
        // A kept final line break ends at the line ending, not at the next key.
        let src = "a:\n  b: |\n    x\n  c: y\n";
        let v = views(src);
        assert_eq!(src_of(src, &v[0], "x\n"), "x\n");
    }

    #[test]
    fn anchored_and_kept_block_scalars() {
        let src = "a: &x |\n\n  line\n\n    more\n  end\n\nb: *x\nc: >+\n  keep\n\n";
        let v = views(src);
        assert_eq!(texts(&v), ["\nline\n\n  more\nend\n", "keep\n\n"]);
        assert_eq!(hints(&v), [Some("a"), Some("c")]);
        assert_eq!(src_of(src, &v[0], "more"), "more");
        assert_eq!(src_of(src, &v[1], "keep"), "keep");
    }

    #[test]
    fn explicit_indentation_indicators() {
        let src = "e: |2\n    two\n   three\n";
        let v = views(src);
        assert_eq!(v[0].text, "  two\n three\n");
        assert_eq!(v[0].source_offset(0), src.find("  two").unwrap());
        assert!(v[0].is_verbatim(0..5));
    }

    #[test]
    fn scalars_the_decoder_does_not_know_fall_back_to_one_opaque_piece() {
        let src = "a: x\n";
        let d = map_scalar(src, 3..4, ScalarStyle::Plain, "not x");
        let v = d
            .into_view_unless_empty(ViewRole::Text, None, None)
            .unwrap();
        assert_eq!(v.text, "not x");
        assert_eq!(v.source_range(0..5), 3..4);
        assert!(!v.is_verbatim(0..1));
    }

    #[test]
    fn crlf_line_breaks() {
        let src = "a: one\r\n  two\r\nb: |\r\n  x\r\n  y\r\n";
        let v = views(src);
        assert_eq!(texts(&v), ["one two", "x\ny\n"]);
        assert_eq!(src_of(src, &v[0], " "), "\r\n  ");
        assert_eq!(src_of(src, &v[1], "y"), "y");
    }

    #[test]
    fn keys_are_never_views() {
        let src = "? [a, b]\n: value\nplain: x\n";
        let v = views(src);
        assert_eq!(texts(&v), ["value", "x"]);
        assert_eq!(hints(&v), [Some("[\"?\"]"), Some("plain")]);
    }

    #[test]
    fn top_level_sequences_and_documents() {
        let v = views("- a\n- x: b\n---\nc: d\n");
        assert_eq!(hints(&v), [Some("[0]"), Some("[1].x"), Some("c")]);
        let v = views("just text\n");
        assert_eq!(hints(&v), [None]);
    }

    #[test]
    fn invalid_yaml_is_an_error_with_a_byte_offset() {
        let src = "á: b: c\n";
        let e = extract(src, PathHints::With).unwrap_err();
        assert!(e.message.starts_with("invalid YAML: "), "{e:?}");
        assert_eq!(e.offset, src.find(": c").unwrap());
        let e = extract("ž: [1, 2\nb: x\n", PathHints::With).unwrap_err();
        assert!(e.offset <= 16, "{e:?}");
    }

    #[test]
    fn core_schema_non_strings() {
        for v in [
            "1", "-2", "+3", "0x1F", "0o17", "1.5", ".5", "1e3", "-1.5E-3", ".inf", "-.Inf",
        ] {
            assert!(is_core_non_string(v), "{v}");
        }
        for v in ["1.2.3", "v1", "0x", "e3", "1e", "abc", "yes", "-", "."] {
            assert!(!is_core_non_string(v), "{v}");
        }
    }

    #[test]
    fn char_index_counts_characters() {
        let text = "ž".repeat(600) + "x";
        let idx = CharIndex::new(&text);
        assert_eq!(idx.byte(0), 0);
        assert_eq!(idx.byte(300), 600);
        assert_eq!(idx.byte(301), 602);
        assert_eq!(idx.byte(600), 1200);
        assert_eq!(idx.byte(10), 20);
        assert_eq!(idx.byte(601), 1201);
        assert_eq!(idx.byte(5000), 1201);
        assert_eq!(idx.byte(599), 1198);
    }
}
