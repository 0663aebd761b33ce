//! The one fast path for reading a lockfile: the canonical layout, on every core.
//!
//! Nearly every lockfile is one the writer made, and its text is predictable to the byte:
//! each key on its own line, at a known indent, in a known order. Checking the text against
//! that template costs about 7 instructions per byte; serde_json, which must be ready for
//! any layout and key order, spent about 19. And since in that layout only entries start
//! with a line break, four spaces and a quote (strings hold no raw line breaks), the
//! entries can be cut into pieces there and read on every core. On the corpus built from
//! the real repository (`benches/real_corpus.rs`, an 88 MB lockfile), the strict reader
//! alone made a cold audit 84% slower (361 against 196 ms) and a run after a lockfile edit
//! twice as slow.
//!
//! The template is a fast path only. Wherever the text leaves it (other whitespace,
//! another key order, a number with a leading zero, a raw control character in a string,
//! a path twice, a broken invariant), [`read`] returns None and `lockfile::read` reads the
//! same text with the strict reader, which gives the answer or the exact error. A string
//! with escapes is decoded by serde_json itself, so both readers agree on every string;
//! property tests hold them to it.

use super::{BTreeMap, Entry, Field, Kind, Lockfile, Span, check, de};
use rayon::prelude::*;

/// The text that ends a canonical lockfile's head: the `files` key, opened.
pub const FILES_OPEN: &str = "\n  \"files\": {";
/// Where an entry starts in the canonical `files` object.
pub const ENTRY_START: &str = "\n    \"";
/// What follows the last entry of a canonical lockfile.
pub const FILES_CLOSE: &str = "\n  }\n}";

/// Text per piece, at least: below that, cutting costs more than the cores give back.
const PIECE: usize = 1 << 20;

/// `text` read as the canonical layout, its entries in about `pieces` pieces read on every
/// core (fewer when the text is short); every invariant checked as in [`super::parse`].
/// None wherever the text leaves the layout.
pub(super) fn read(text: &str, pieces: usize) -> Option<Lockfile> {
    let (lock, open) = head(text)?;
    let body = &text[open..];
    let members = body
        .strip_suffix('\n')
        .unwrap_or(body)
        .strip_suffix(FILES_CLOSE)?;
    finish(lock, vec![entries(members, pieces)?])
}

/// The lockfile whose text starts with `text`, without its entries, and where its
/// entries start (just after [`FILES_OPEN`]); its schema version and segmenter checked as
/// in a whole lockfile. None unless `text` holds the canonical head.
pub fn head(text: &str) -> Option<(Lockfile, usize)> {
    let open = text.find(FILES_OPEN)? + FILES_OPEN.len();
    let lock = de::from_str(&format!("{}}}}}", &text[..open])).ok()?;
    check::check_lockfile(&lock).ok()?;
    Some((lock, open))
}

/// Whole members of a canonical `files` object (each starting at [`ENTRY_START`],
/// separated by commas, no comma after the last), read in about `pieces` pieces on every
/// core, each entry checked. None wherever the text leaves the layout, or is empty (the
/// writer's `{}` is not this layout).
pub fn entries(members: &str, pieces: usize) -> Option<Vec<(String, Entry)>> {
    if members.is_empty() {
        return None;
    }
    let read: Vec<Vec<(String, Entry)>> = cut(members, pieces)
        .into_par_iter()
        .map(|piece| {
            let entries = files(piece)?;
            for (path, entry) in &entries {
                check::check_entry_path(path).ok()?;
                check::check_entry(entry).ok()?;
            }
            Some(entries)
        })
        .collect::<Option<_>>()?;
    Some(read.into_iter().flatten().collect())
}

/// The lockfile of `head` with the entries read in `parts` (in text order); None if a
/// path has two entries.
pub fn finish(mut lock: Lockfile, parts: Vec<Vec<(String, Entry)>>) -> Option<Lockfile> {
    let mut all: Vec<(String, Entry)> = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    all.extend(parts.into_iter().flatten());
    // A canonical lockfile's paths are sorted: one look says so, and that none repeats.
    if !all.windows(2).all(|w| w[0].0 < w[1].0) {
        all.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        if all.windows(2).any(|w| w[0].0 == w[1].0) {
            return None;
        }
    }
    lock.files = all.into_iter().collect::<BTreeMap<_, _>>();
    Some(lock)
}

/// `members` cut into about `pieces` runs of whole members where a member starts, each
/// without the comma after it.
fn cut(members: &str, pieces: usize) -> Vec<&str> {
    let pieces = pieces.clamp(1, members.len() / PIECE + 1);
    let mut out = Vec::with_capacity(pieces);
    let mut from = 0;
    for i in 1..pieces {
        let target = (i * members.len() / pieces).max(from + 1);
        let Some(at) = members.get(target..).and_then(|t| t.find(ENTRY_START)) else {
            break;
        };
        let next = target + at;
        // The comma before the next member ends this piece; an empty piece (no comma
        // there) leaves the layout, and `files` refuses it.
        out.push(members[from..next].strip_suffix(',').unwrap_or(""));
        from = next;
    }
    out.push(&members[from..]);
    out
}

/// The members of one piece of a canonical `files` object, in order (duplicates
/// included): each starting at [`ENTRY_START`], separated by commas. None wherever the
/// text leaves that layout.
pub(super) fn files(text: &str) -> Option<Vec<(String, Entry)>> {
    let mut r = Reader {
        text,
        at: 0,
        scratch: Vec::new(),
    };
    r.expect(ENTRY_START)?;
    let mut files = Vec::new();
    loop {
        let path = r.string()?;
        let entry = r.entry()?;
        files.push((path, entry));
        if !r.eat(",\n    \"") {
            break;
        }
    }
    (r.at == text.len()).then_some(files)
}

struct Reader<'t> {
    text: &'t str,
    at: usize,
    /// Spans gathered for the entry being read: each entry's list is then allocated at
    /// its exact length (see `de::SpansSeed` for why that matters).
    scratch: Vec<Span>,
}

impl Reader<'_> {
    fn entry(&mut self) -> Option<Entry> {
        self.expect(": {\n      \"contentHash\": \"")?;
        let content_hash = self.string()?;
        self.expect(",\n      \"segmentedAt\": \"")?;
        let segmented_at = self.string()?;
        self.expect(",\n      \"reviewedBy\": ")?;
        let reviewed_by = self.nullable()?;
        self.expect(",\n      \"spans\": [")?;
        self.scratch.clear();
        if !self.eat("]") {
            loop {
                let span = self.span()?;
                self.scratch.push(span);
                if !self.eat(",") {
                    break;
                }
            }
            self.expect("\n      ]")?;
        }
        self.expect("\n    }")?;
        Some(Entry {
            content_hash,
            segmented_at,
            reviewed_by,
            spans: self.scratch.drain(..).collect(),
        })
    }

    fn span(&mut self) -> Option<Span> {
        self.expect("\n        {\n          \"startLine\": ")?;
        let start_line = self.number()?;
        self.expect(",\n          \"startColumn\": ")?;
        let start_column = self.number()?;
        self.expect(",\n          \"endLine\": ")?;
        let end_line = self.number()?;
        self.expect(",\n          \"endColumn\": ")?;
        let end_column = self.number()?;
        self.expect(",\n          \"language\": \"")?;
        let language = self.string()?;
        self.expect(",\n          \"kind\": \"")?;
        let kind = self.kind()?;
        let path_hint = self.field(",\n          \"pathHint\": ")?;
        let note = self.field(",\n          \"note\": ")?;
        self.expect("\n        }")?;
        Some(Span {
            start_line,
            start_column,
            end_line,
            end_column,
            language,
            kind,
            path_hint,
            note,
        })
    }

    fn rest(&self) -> &[u8] {
        &self.text.as_bytes()[self.at..]
    }

    fn eat(&mut self, literal: &str) -> bool {
        let found = self.rest().starts_with(literal.as_bytes());
        if found {
            self.at += literal.len();
        }
        found
    }

    fn expect(&mut self, literal: &str) -> Option<()> {
        self.eat(literal).then_some(())
    }

    /// A span's optional, nullable field that starts with `key`.
    fn field(&mut self, key: &str) -> Option<Field<String>> {
        if self.eat(key) {
            self.nullable().map(Field::from)
        } else {
            Some(Field::Absent)
        }
    }

    /// `null`, or a string with its opening quote.
    fn nullable(&mut self) -> Option<Option<String>> {
        if self.eat("null") {
            return Some(None);
        }
        self.expect("\"")?;
        self.string().map(Some)
    }

    /// A JSON number that is a `u32`, written as JSON writes it (no sign, no leading zero,
    /// no fraction or exponent: a `.` or `e` after the digits leaves the template).
    fn number(&mut self) -> Option<u32> {
        let digits = self
            .rest()
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let text = &self.rest()[..digits];
        if digits == 0 || digits > 10 || (digits > 1 && text[0] == b'0') {
            return None;
        }
        let n = text.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
        self.at += digits;
        u32::try_from(n).ok()
    }

    /// A span's kind, after its opening quote: the kinds' names are matched in place, and
    /// only another spelling (with an escape) is read as a string.
    fn kind(&mut self) -> Option<Kind> {
        for kind in Kind::ALL {
            let name = kind.as_str().as_bytes();
            if self.rest().starts_with(name) && self.rest().get(name.len()) == Some(&b'"') {
                self.at += name.len() + 1;
                return Some(kind);
            }
        }
        Kind::parse(&self.string()?)
    }

    /// The rest of a string whose opening quote was read, and its closing quote.
    fn string(&mut self) -> Option<String> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        let mut from = start;
        let mut escaped = false;
        let end = loop {
            let i = from + memchr::memchr2(b'"', b'\\', bytes.get(from..)?)?;
            if bytes[i] == b'"' {
                break i;
            }
            // Whatever follows a backslash is not the closing quote (a `\uXXXX` goes on
            // in hex digits); serde_json checks the escape below.
            escaped = true;
            from = i + 2;
        };
        self.at = end + 1;
        let body = &self.text[start..end];
        if escaped {
            serde_json::from_str(&self.text[start - 1..=end]).ok()
        } else if body.bytes().any(|b| b < 0x20) {
            None // JSON forbids raw control characters: the strict reader says where
        } else {
            Some(body.to_owned())
        }
    }
}
