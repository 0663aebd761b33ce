//! The canonical lockfile text: byte for byte what the reference implementation writes
//! with `JSON.stringify(lockfile, null, 2) + "\n"` after sorting the files by path.
//!
//! Written by hand rather than through a serializer because three details of the
//! reference are JavaScript's, not JSON's: the order of object keys (integer-like keys
//! first), string comparison by UTF-16 code units, and the exact escape set.

use super::{Entry, Field, Lockfile, Span};
use std::cmp::Ordering;
use std::fmt::Write as _;

/// Serialises `lock` the way the reference does; `parse` of the result gives `lock` back.
pub fn to_canonical_string(lock: &Lockfile) -> String {
    let span_count: usize = lock.files.values().map(|e| e.spans.len()).sum();
    let mut w = Writer {
        out: String::with_capacity(256 + lock.files.len() * 300 + span_count * 250),
        depth: 0,
    };
    w.open('{');
    w.key("schemaVersion");
    w.number(lock.schema_version);
    w.key("segmenter");
    w.open('{');
    w.key("backend");
    w.string(lock.segmenter.backend.as_str());
    if let Some(version) = lock.segmenter.prompt_version {
        w.key("promptVersion");
        w.number(version);
    }
    w.close('}');
    w.key("files");
    if lock.files.is_empty() {
        w.empty("{}");
    } else {
        let mut paths: Vec<&String> = lock.files.keys().collect();
        paths.sort_by(|a, b| js_property_order(a, b));
        w.open('{');
        for path in paths {
            w.key(path);
            entry(&mut w, &lock.files[path]);
        }
        w.close('}');
    }
    w.close('}');
    w.out.push('\n');
    w.out
}

fn entry(w: &mut Writer, entry: &Entry) {
    w.open('{');
    w.key("contentHash");
    w.string(&entry.content_hash);
    w.key("segmentedAt");
    w.string(&entry.segmented_at);
    w.key("reviewedBy");
    match &entry.reviewed_by {
        Some(reviewer) => w.string(reviewer),
        None => w.null(),
    }
    w.key("spans");
    if entry.spans.is_empty() {
        w.empty("[]");
    } else {
        w.open('[');
        for s in &entry.spans {
            w.element();
            span(w, s);
        }
        w.close(']');
    }
    w.close('}');
}

fn span(w: &mut Writer, span: &Span) {
    w.open('{');
    w.key("startLine");
    w.number(span.start_line);
    w.key("startColumn");
    w.number(span.start_column);
    w.key("endLine");
    w.number(span.end_line);
    w.key("endColumn");
    w.number(span.end_column);
    w.key("language");
    w.string(&span.language);
    w.key("kind");
    w.string(span.kind.as_str());
    for (name, field) in [("pathHint", &span.path_hint), ("note", &span.note)] {
        match field {
            Field::Absent => {}
            Field::Null => {
                w.key(name);
                w.null();
            }
            Field::Value(v) => {
                w.key(name);
                w.string(v);
            }
        }
    }
    w.close('}');
}

/// The order `JSON.stringify` emits the keys of an object whose keys were inserted in
/// `Array.prototype.sort` order: array-index keys (`"0"`, `"42"`) come first in numeric
/// order, as for every JavaScript object, then the rest compared by UTF-16 code units.
pub(super) fn js_property_order(a: &str, b: &str) -> Ordering {
    match (array_index(a), array_index(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => utf16_order(a, b),
    }
}

/// UTF-16 order differs from UTF-8 byte order only where an astral character meets one
/// in U+E000..=U+FFFF, so ASCII-heavy paths compare as bytes up to the first difference.
fn utf16_order(a: &str, b: &str) -> Ordering {
    let common = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    // Back up to a character boundary so the comparison starts at a whole character.
    let mut start = common;
    while !a.is_char_boundary(start) {
        start -= 1;
    }
    a[start..].encode_utf16().cmp(b[start..].encode_utf16())
}

/// ECMAScript's array index: the canonical decimal form of an integer below 2³² − 1.
fn array_index(key: &str) -> Option<u32> {
    let b = key.as_bytes();
    if b.is_empty() || b.len() > 10 || (b.len() > 1 && b[0] == b'0') {
        return None;
    }
    if !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n: u64 = key.parse().ok()?;
    (n < u64::from(u32::MAX)).then_some(n as u32)
}

/// Emits `JSON.stringify(_, null, 2)` layout: every member and element on its own line.
struct Writer {
    out: String,
    depth: usize,
}

impl Writer {
    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
    }

    /// Separates a member or element from the previous one, if any.
    fn element(&mut self) {
        if !matches!(self.out.as_bytes().last(), Some(b'{' | b'[')) {
            self.out.push(',');
        }
        self.newline();
    }

    fn key(&mut self, key: &str) {
        self.element();
        self.string(key);
        self.out.push_str(": ");
    }

    fn open(&mut self, bracket: char) {
        self.out.push(bracket);
        self.depth += 1;
    }

    fn close(&mut self, bracket: char) {
        self.depth -= 1;
        self.newline();
        self.out.push(bracket);
    }

    fn empty(&mut self, brackets: &str) {
        self.out.push_str(brackets);
    }

    fn null(&mut self) {
        self.out.push_str("null");
    }

    fn number(&mut self, n: u32) {
        let _ = write!(self.out, "{n}");
    }

    /// JSON.stringify's escapes: the two-character forms where JSON has them, `\u00xx`
    /// (lowercase) for the other C0 controls, everything else (DEL, U+2028, U+2029,
    /// non-ASCII) as is.
    fn string(&mut self, s: &str) {
        self.out.push('"');
        let mut plain = 0;
        for (i, b) in s.bytes().enumerate() {
            let escape = match b {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\x08' => "\\b",
                b'\x0c' => "\\f",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'\t' => "\\t",
                0..=0x1f => "",
                _ => continue,
            };
            self.out.push_str(&s[plain..i]);
            if escape.is_empty() {
                let _ = write!(self.out, "\\u{b:04x}");
            } else {
                self.out.push_str(escape);
            }
            plain = i + 1;
        }
        self.out.push_str(&s[plain..]);
        self.out.push('"');
    }
}
