//! JSON: one view per leaf string value, with its key path as the path hint.
//!
//! A hand-written strict scanner rather than `jsonc-parser`, for three reasons:
//!
//! - Exact mapping. A view is built while the string is scanned: runs between escapes are
//!   verbatim, every escape (a surrogate pair counts as one) is an opaque piece over its
//!   source bytes. `jsonc-parser` hands back the decoded value and the literal's range, and
//!   the escapes would have to be found again.
//! - Strictness. The files are RFC 8259 JSON; a comment or a trailing comma is an error
//!   with its offset, not something to accept silently.
//! - Speed. One pass over the bytes, no syntax tree, no allocation for keys without
//!   escapes. Nesting uses an explicit stack, so deep documents cannot overflow the call
//!   stack.
//!
//! An unpaired surrogate escape (`\uD800` alone) is an error: it is not a character and
//! cannot be put in a view (`serde_json` refuses it too).

use super::path::Step;
use super::{ExtractError, PathHints, bom_len};
use crate::copy::view::{View, ViewBuilder, ViewRole};
use std::borrow::Cow;

pub(super) fn extract(text: &str, hints: PathHints) -> Result<Vec<View>, ExtractError> {
    let mut scanner = Scanner {
        src: text,
        bytes: text.as_bytes(),
        pos: bom_len(text),
        views: Vec::new(),
        path: Vec::new(),
        stack: Vec::new(),
        hints,
    };
    scanner.document()?;
    Ok(scanner.views)
}

enum Frame {
    Object,
    Array(usize),
}

struct Scanner<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    views: Vec<View>,
    /// Key path of the value being scanned; one step per open container.
    path: Vec<Step<'a>>,
    stack: Vec<Frame>,
    /// Whether each view gets its key path as its hint.
    hints: PathHints,
}

/// Where the decoded pieces of a string go: a view for values, a key for the path.
trait Sink {
    fn verbatim(&mut self, text: &str, src_start: usize);
    fn decoded(&mut self, c: char, src: std::ops::Range<usize>);
}

impl Sink for ViewBuilder {
    fn verbatim(&mut self, text: &str, src_start: usize) {
        ViewBuilder::verbatim(self, text, src_start);
    }
    fn decoded(&mut self, c: char, src: std::ops::Range<usize>) {
        self.opaque(c.encode_utf8(&mut [0; 4]), src);
    }
}

/// An object key: borrowed from the source unless it has an escape, then decoded.
struct KeySink<'a> {
    src: &'a str,
    start: usize,
    decoded: Option<String>,
}

impl Sink for KeySink<'_> {
    fn verbatim(&mut self, text: &str, _: usize) {
        if let Some(k) = &mut self.decoded {
            k.push_str(text);
        }
    }
    fn decoded(&mut self, c: char, src: std::ops::Range<usize>) {
        let k = self
            .decoded
            .get_or_insert_with(|| self.src[self.start..src.start].to_owned());
        k.push(c);
    }
}

impl<'a> Scanner<'a> {
    fn document(&mut self) -> Result<(), ExtractError> {
        self.value()?;
        self.whitespace()?;
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.unexpected("after the JSON value")),
        }
    }

    /// Scans one value and everything nested in it, without recursion.
    fn value(&mut self) -> Result<(), ExtractError> {
        'value: loop {
            self.whitespace()?;
            match self.peek() {
                Some(b'{') => {
                    self.pos += 1;
                    self.whitespace()?;
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                    } else {
                        let key = self.key()?;
                        self.stack.push(Frame::Object);
                        self.path.push(Step::Key(key));
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.pos += 1;
                    self.whitespace()?;
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                    } else {
                        self.stack.push(Frame::Array(0));
                        self.path.push(Step::Index(0));
                        continue 'value;
                    }
                }
                Some(b'"') => self.string_value()?,
                Some(b't') => self.literal("true")?,
                Some(b'f') => self.literal("false")?,
                Some(b'n') => self.literal("null")?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                Some(b'\'') => {
                    return Err(self.error("single-quoted strings are not allowed in JSON"));
                }
                _ => return Err(self.unexpected("where a JSON value was expected")),
            }
            // The value is complete: move on in the enclosing containers.
            loop {
                match self.stack.last_mut() {
                    None => return Ok(()),
                    Some(Frame::Object) => {
                        self.whitespace()?;
                        match self.peek() {
                            Some(b',') => {
                                let comma = self.pos;
                                self.pos += 1;
                                self.whitespace()?;
                                if self.peek() == Some(b'}') {
                                    return Err(ExtractError::new(
                                        comma,
                                        "trailing comma before '}' is not allowed in JSON",
                                    ));
                                }
                                let key = self.key()?;
                                *self.path.last_mut().expect("a step per frame") = Step::Key(key);
                                continue 'value;
                            }
                            Some(b'}') => {
                                self.pos += 1;
                                self.stack.pop();
                                self.path.pop();
                            }
                            _ => {
                                return Err(self.unexpected("where ',' or '}' was expected"));
                            }
                        }
                    }
                    Some(Frame::Array(index)) => {
                        *index += 1;
                        let next = *index;
                        self.whitespace()?;
                        match self.peek() {
                            Some(b',') => {
                                let comma = self.pos;
                                self.pos += 1;
                                self.whitespace()?;
                                if self.peek() == Some(b']') {
                                    return Err(ExtractError::new(
                                        comma,
                                        "trailing comma before ']' is not allowed in JSON",
                                    ));
                                }
                                *self.path.last_mut().expect("a step per frame") =
                                    Step::Index(next);
                                continue 'value;
                            }
                            Some(b']') => {
                                self.pos += 1;
                                self.stack.pop();
                                self.path.pop();
                            }
                            _ => {
                                return Err(self.unexpected("where ',' or ']' was expected"));
                            }
                        }
                    }
                }
            }
        }
    }

    /// An object key and the colon after it.
    fn key(&mut self) -> Result<Cow<'a, str>, ExtractError> {
        if self.peek() != Some(b'"') {
            return Err(
                self.unexpected("where an object key (a double-quoted string) was expected")
            );
        }
        let mut key = KeySink {
            src: self.src,
            start: self.pos + 1,
            decoded: None,
        };
        let end = self.string_body(&mut key)?;
        let key = match key.decoded {
            Some(k) => Cow::Owned(k),
            None => Cow::Borrowed(&self.src[key.start..end]),
        };
        self.whitespace()?;
        if self.peek() != Some(b':') {
            return Err(self.unexpected("where ':' after an object key was expected"));
        }
        self.pos += 1;
        Ok(key)
    }

    fn string_value(&mut self) -> Result<(), ExtractError> {
        let mut view = ViewBuilder::new(ViewRole::Text);
        self.string_body(&mut view)?;
        if !view.is_empty() {
            let hint = self.hints.of(None, &self.path);
            self.views.push(view.path_hint(hint).finish());
        }
        Ok(())
    }

    /// Scans a string literal starting at its opening quote, feeding `sink` verbatim runs
    /// and decoded escapes; returns the offset of the closing quote.
    fn string_body(&mut self, sink: &mut impl Sink) -> Result<usize, ExtractError> {
        let open = self.pos;
        self.pos += 1;
        let mut run = self.pos;
        loop {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(ExtractError::new(open, "unterminated string"));
            };
            match b {
                b'"' => {
                    sink.verbatim(&self.src[run..self.pos], run);
                    let close = self.pos;
                    self.pos += 1;
                    return Ok(close);
                }
                b'\\' => {
                    let escape = self.pos;
                    let c = self.escape()?;
                    sink.verbatim(&self.src[run..escape], run);
                    sink.decoded(c, escape..self.pos);
                    run = self.pos;
                }
                0..=0x1f => {
                    return Err(self.error(format!(
                        "control character U+{b:04X} must be escaped in a JSON string"
                    )));
                }
                _ => self.pos += 1,
            }
        }
    }

    /// Decodes the escape at `self.pos` (a backslash) and moves past it.
    fn escape(&mut self) -> Result<char, ExtractError> {
        let start = self.pos;
        let c = match self.bytes.get(start + 1) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let high = self.hex4(start + 2)?;
                self.pos = start + 6;
                return match high {
                    0xD800..=0xDBFF => {
                        let low = if self.bytes[self.pos..].starts_with(b"\\u") {
                            Some(self.hex4(self.pos + 2)?)
                        } else {
                            None
                        };
                        match low {
                            Some(low @ 0xDC00..=0xDFFF) => {
                                self.pos += 6;
                                let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                                Ok(char::from_u32(c).expect("a surrogate pair is a char"))
                            }
                            _ => Err(ExtractError::new(
                                start,
                                "unpaired surrogate escape in a JSON string",
                            )),
                        }
                    }
                    0xDC00..=0xDFFF => Err(ExtractError::new(
                        start,
                        "unpaired surrogate escape in a JSON string",
                    )),
                    c => Ok(char::from_u32(c).expect("not a surrogate")),
                };
            }
            Some(_) => {
                let shown = self.src[start..].chars().take(2).collect::<String>();
                return Err(ExtractError::new(
                    start,
                    format!("invalid escape {shown:?} in a JSON string"),
                ));
            }
            None => return Err(ExtractError::new(start, "unterminated string")),
        };
        self.pos = start + 2;
        Ok(c)
    }

    fn hex4(&self, at: usize) -> Result<u32, ExtractError> {
        let digits = self
            .bytes
            .get(at..at + 4)
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit));
        match digits {
            Some(d) => Ok(u32::from_str_radix(
                std::str::from_utf8(d).expect("hex digits are ASCII"),
                16,
            )
            .expect("four hex digits")),
            None => Err(ExtractError::new(
                at - 2,
                "'\\u' must be followed by four hex digits in a JSON string",
            )),
        }
    }

    fn literal(&mut self, word: &'static str) -> Result<(), ExtractError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.unexpected("where a JSON value was expected"))
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    fn number(&mut self) -> Result<(), ExtractError> {
        let start = self.pos;
        let invalid = |_| ExtractError::new(start, "invalid number");
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if self.peek().is_some_and(|b| b.is_ascii_digit()) {
                    return Err(ExtractError::new(
                        start,
                        "numbers with leading zeros are not allowed in JSON",
                    ));
                }
            }
            Some(b'1'..=b'9') => self.digits().map_err(invalid)?,
            _ => return Err(ExtractError::new(start, "invalid number")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.digits().map_err(invalid)?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            self.digits().map_err(invalid)?;
        }
        Ok(())
    }

    /// One or more ASCII digits.
    fn digits(&mut self) -> Result<(), ()> {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.pos == start { Err(()) } else { Ok(()) }
    }

    fn whitespace(&mut self) -> Result<(), ExtractError> {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'/' if matches!(self.bytes.get(self.pos + 1), Some(b'/' | b'*')) => {
                    return Err(self.error("comments are not allowed in JSON"));
                }
                _ => break,
            }
        }
        Ok(())
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn error(&self, message: impl Into<String>) -> ExtractError {
        ExtractError::new(self.pos, message)
    }

    /// An error naming the character at the current position (or the end of the input).
    fn unexpected(&self, context: &str) -> ExtractError {
        match self.src[self.pos..].chars().next() {
            Some(c) => self.error(format!("unexpected {c:?} {context}")),
            None => self.error(format!("unexpected end of input {context}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy::extract::testing::{assert_maps_back, hints, src_of, texts};
    use proptest::prelude::*;

    fn views(src: &str) -> Vec<View> {
        let views = extract(src, PathHints::With).unwrap();
        assert_maps_back(src, &views);
        views
    }

    fn error(src: &str) -> ExtractError {
        extract(src, PathHints::With).expect_err("invalid JSON")
    }

    #[test]
    fn one_view_per_leaf_string_with_its_key_path() {
        let src = r#"{
  "meta": { "en": { "title": "Harness Lab", "n": 3, "ok": true, "x": null } },
  "items": [ {}, [], 1, { "cs": { "body": "v lese" } } ],
  "weird key": { "a-b": "c" },
  "empty": ""
}"#;
        let v = views(src);
        assert_eq!(texts(&v), ["Harness Lab", "v lese", "c"]);
        assert_eq!(
            hints(&v),
            [
                Some("meta.en.title"),
                Some("items[3].cs.body"),
                Some("[\"weird key\"][\"a-b\"]")
            ]
        );
        // The source range of a view is the inside of the quotes.
        assert_eq!(&src[v[0].source_range(0..v[0].text.len())], "Harness Lab");
        assert!(v[0].is_verbatim(0..v[0].text.len()));
    }

    #[test]
    fn top_level_arrays_and_strings() {
        let v = views(r#"[{"x": "a"}, "b", ["c"]]"#);
        assert_eq!(hints(&v), [Some("[0].x"), Some("[1]"), Some("[2][0]")]);
        let v = views(r#" "solo" "#);
        assert_eq!(texts(&v), ["solo"]);
        assert_eq!(hints(&v), [None]);
    }

    #[test]
    fn escapes_are_decoded_and_map_back_exactly() {
        let src = r#"{"k": "a \"q\" b \u00e9 c \uD83D\uDE00 d \\ e \/ f\n g"}"#;
        let v = views(src);
        let view = &v[0];
        assert_eq!(view.text, "a \"q\" b é c 😀 d \\ e / f\n g");
        // A finding right after each escape lands on the right source byte.
        assert_eq!(src_of(src, view, "q\""), "q\\\"");
        assert_eq!(src_of(src, view, " b"), " b");
        assert_eq!(src_of(src, view, "é"), "\\u00e9");
        assert_eq!(src_of(src, view, " c"), " c");
        assert_eq!(src_of(src, view, "😀"), "\\uD83D\\uDE00");
        assert_eq!(src_of(src, view, " d"), " d");
        assert_eq!(src_of(src, view, "\\ e"), "\\\\ e");
        assert_eq!(src_of(src, view, "/ f"), "\\/ f");
        assert_eq!(src_of(src, view, "\n g"), "\\n g");
        let d = view.text.find(" d").unwrap();
        assert_eq!(view.source_offset(d + 1), src.find(" d").unwrap() + 1);
        assert!(!view.is_verbatim(d - 4..d));
        assert!(view.is_verbatim(d..d + 2));
    }

    #[test]
    fn keys_with_escapes_are_decoded_in_path_hints() {
        let v = views(r#"{"a\u0062": {"q\"": "x"}}"#);
        assert_eq!(hints(&v), [Some("ab[\"q\\\"\"]")]);
    }

    #[test]
    fn crlf_bom_and_whitespace_are_fine() {
        let src = "\u{FEFF}{\r\n\t\"a\": \"b\"\r\n}\r\n";
        let v = views(src);
        assert_eq!(texts(&v), ["b"]);
        assert_eq!(v[0].source_offset(0), src.find('b').unwrap());
    }

    #[test]
    fn invalid_json_is_an_error_at_the_problem() {
        let cases = [
            (r#"{"a": 1,}"#, 7, "trailing comma"),
            (r#"[1, 2, ]"#, 5, "trailing comma"),
            ("{\"a\": 1 // c\n}", 8, "comments"),
            ("/* c */ {}", 0, "comments"),
            (r#"{"a": "b\x"}"#, 8, "invalid escape"),
            ("[\"a\nb\"]", 3, "control character U+000A"),
            (r#"[01]"#, 1, "leading zeros"),
            (r#"[1.]"#, 1, "invalid number"),
            (r#"[-]"#, 1, "invalid number"),
            (r#"[.5]"#, 1, "unexpected '.'"),
            (r#"{"a": "b"#, 6, "unterminated string"),
            (r#"{"a" "b"}"#, 5, "':'"),
            (r#"{a: 1}"#, 1, "object key"),
            (r#"['a']"#, 1, "single-quoted"),
            (r#"{"a": 1} x"#, 9, "after the JSON value"),
            (r#"{"a": [1 2]}"#, 9, "',' or ']'"),
            (r#"{"a": 1 "b": 2}"#, 8, "',' or '}'"),
            (r#"["\uD800"]"#, 2, "unpaired surrogate"),
            (r#"["\uDE00 "]"#, 2, "unpaired surrogate"),
            (r#"["\u12"]"#, 2, "four hex digits"),
            (r#"[tru]"#, 1, "unexpected 't'"),
            ("", 0, "end of input"),
            ("[", 1, "end of input"),
        ];
        for (src, offset, needle) in cases {
            let e = error(src);
            assert_eq!(e.offset, offset, "{src}: {e:?}");
            assert!(e.message.contains(needle), "{src}: {e:?}");
        }
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let depth = 100_000;
        let src = format!("{}\"x\"{}", "[".repeat(depth), "]".repeat(depth));
        let v = extract(&src, PathHints::With).unwrap();
        assert_eq!(texts(&v), ["x"]);
    }

    #[test]
    fn many_strings_extract_in_one_pass() {
        let mut src = String::from("{\"items\": [");
        for i in 0..20_000 {
            if i > 0 {
                src.push(',');
            }
            src.push_str(&format!(
                "{{\"cs\": {{\"title\": \"Položka \\\"{i}\\\" v lese\", \"n\": {i}}}}}"
            ));
        }
        src.push_str("]}");
        let v = extract(&src, PathHints::With).unwrap();
        assert_eq!(v.len(), 20_000);
        assert_eq!(v[7].text, "Položka \"7\" v lese");
        assert_eq!(v[7].path_hint.as_deref(), Some("items[7].cs.title"));
    }

    /// A JSON value written with a random choice of escapes for every character.
    fn json_text() -> impl Strategy<Value = String> {
        let chars = prop::sample::select(vec![
            "a",
            "é",
            "😀",
            " ",
            "\\\"",
            "\\\\",
            "\\/",
            "\\n",
            "\\t",
            "\\u00e9",
            "\\uD83D\\uDE00",
            "\\u0041",
            "x",
            "ř",
        ]);
        let string = prop::collection::vec(chars, 0..6).prop_map(|p| format!("\"{}\"", p.concat()));
        let leaf = prop_oneof![
            string,
            Just("1".to_owned()),
            Just("-0.5e3".to_owned()),
            Just("true".to_owned()),
            Just("null".to_owned()),
        ];
        leaf.prop_recursive(4, 32, 4, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(|v| format!("[{}]", v.join(", "))),
                prop::collection::vec(inner, 0..4).prop_map(|v| {
                    let members: Vec<_> = v
                        .iter()
                        .enumerate()
                        .map(|(i, v)| format!("\"k{i}\":\n {v}"))
                        .collect();
                    format!("{{{}}}", members.join(","))
                }),
            ]
        })
    }

    fn leaf_strings(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) if !s.is_empty() => out.push(s.clone()),
            serde_json::Value::Array(a) => a.iter().for_each(|x| leaf_strings(x, out)),
            serde_json::Value::Object(o) => o.values().for_each(|x| leaf_strings(x, out)),
            _ => {}
        }
    }

    proptest! {
        #[test]
        fn valid_json_gives_serde_json_strings_mapped_back(src in json_text()) {
            let v = extract(&src, PathHints::With).unwrap();
            assert_maps_back(&src, &v);
            let parsed: serde_json::Value = serde_json::from_str(&src).unwrap();
            let mut expected = Vec::new();
            leaf_strings(&parsed, &mut expected);
            // serde_json's maps are sorted by key, so compare as sorted lists.
            let mut got: Vec<_> = v.iter().map(|v| v.text.clone()).collect();
            got.sort();
            expected.sort();
            prop_assert_eq!(got, expected);
        }

        #[test]
        fn json_ish_noise_is_accepted_exactly_when_serde_json_accepts_it(
            parts in prop::collection::vec(prop::sample::select(vec![
                "{", "}", "[", "]", ":", ",", "\"", "\\", "u", "D83D", "a", "é", "1", "0", "-",
                ".", "e", " ", "\n", "\r\n", "true", "null", "/", "*", "\t", "'",
            ]), 0..24)
        ) {
            let src = parts.concat();
            let ours = extract(&src, PathHints::With);
            if let Ok(v) = &ours {
                assert_maps_back(&src, v);
            } else if let Err(e) = &ours {
                prop_assert!(e.offset <= src.len());
            }
            let theirs = serde_json::from_str::<serde_json::Value>(&src);
            prop_assert_eq!(ours.is_ok(), theirs.is_ok(), "{:?}: {:?}", src, ours);
        }
    }
}
