//! Entries read against the canonical layout instead of through a general JSON reader.
//!
//! Nearly every lockfile is one the writer made, and its text is predictable to the byte:
//! each key on its own line, at a known indent, in a known order. Checking the text against
//! that template costs about 7 instructions per byte; serde_json, which must be ready for
//! any layout and key order, spent about 19 on a large tree's lockfile (a ninth of a cold
//! audit's own work besides hashing). The template is a fast path only. Wherever the text
//! leaves it (other whitespace, another key order, a number with a leading zero, a raw
//! control character in a string), the reader returns None and the caller reads the same
//! text with the strict reader, which gives the answer or the exact error. A string with
//! escapes is decoded by serde_json itself, so both readers agree on every string.

use super::{Entry, Field, Kind, Span};

/// The entries of a `files` object as `pieces::entries` hands it over: `{`, the entries
/// exactly as the writer lays them out (the first one's indent included), `}`. None
/// wherever the text leaves that layout.
pub(super) fn files(text: &str) -> Option<Vec<(String, Entry)>> {
    let mut r = Reader {
        text,
        at: 0,
        scratch: Vec::new(),
    };
    r.expect("{    \"")?;
    let mut files = Vec::new();
    loop {
        let path = r.string()?;
        let entry = r.entry()?;
        files.push((path, entry));
        if !r.eat(",\n    \"") {
            break;
        }
    }
    r.expect("}")?;
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
