//! A strict RFC 8259 reader that keeps the byte offset of every key and value.
//!
//! Only what a sidecar needs: no comments, no trailing commas, no duplicate keys (the
//! second value would silently win in most readers, and one of the two would be lost on
//! the next write), and a nesting limit so that a hostile file cannot exhaust the stack.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Sidecars nest four levels deep; anything far deeper is not a sidecar.
const MAX_DEPTH: usize = 64;

/// A value with its position. Strings and keys without escapes borrow the text: a
/// sidecar's tree is read once into the model and dropped, and copying every key and
/// string into it was most of the allocations of a read.
#[derive(Debug)]
pub(super) struct Node<'t> {
    /// Byte offset of the value's first character.
    pub start: usize,
    pub value: Value<'t>,
}

#[derive(Debug)]
pub(super) enum Value<'t> {
    Null,
    Bool(bool),
    /// The literal as written, already checked against the JSON number grammar.
    Number(&'t str),
    String(Cow<'t, str>),
    Array(Vec<Node<'t>>),
    /// Members in file order.
    Object(Vec<Member<'t>>),
}

impl Value<'_> {
    /// How the value is named in "expected …, found …" messages.
    pub fn describe(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }
}

#[derive(Debug)]
pub(super) struct Member<'t> {
    pub key: Cow<'t, str>,
    pub key_start: usize,
    pub value: Node<'t>,
}

/// One step of a JSON path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Seg {
    Key(String),
    Index(usize),
}

/// `spec.blocks[1].author`; keys that are not plain words (letters, digits, `_`, `-`)
/// are bracketed and quoted, so that a clause label such as `upper bound` or one with a
/// dot in it cannot be misread as two steps.
pub(super) fn render_path(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(key) if is_plain(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Seg::Key(key) => {
                out.push('[');
                out.push_str(&super::write::quote(key));
                out.push(']');
            }
            Seg::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    out
}

fn is_plain(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Boxed wherever it is returned ([`Parsed`]): every value read returns a `Result`, and
/// with the error inline each was 64 bytes moved up the recursion, not the node's 40 (the
/// 50,000 sidecars of the bench's root read in 176–182 ms on one core, 149–159 boxed).
#[derive(Debug)]
pub(super) struct SyntaxError {
    pub offset: usize,
    /// Where in the document the reader was.
    pub path: Vec<Seg>,
    pub message: String,
}

/// What a step of the reader gives: a value, or where and why the text is not JSON.
type Parsed<T> = Result<T, Box<SyntaxError>>;

pub(super) fn parse(text: &str) -> Parsed<Node<'_>> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        path: Vec::new(),
    };
    p.skip_ws();
    let node = p.value(0)?;
    p.skip_ws();
    if p.pos < p.bytes.len() {
        return Err(p.error("unexpected text after the JSON value"));
    }
    Ok(node)
}

struct Parser<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    /// Where the reader is: keys borrowed like the tree's, made into [`Seg`]s only for an
    /// error.
    path: Vec<Step<'t>>,
}

enum Step<'t> {
    Key(Cow<'t, str>),
    Index(usize),
}

impl<'t> Parser<'t> {
    fn error(&self, message: impl Into<String>) -> Box<SyntaxError> {
        self.error_at(self.pos, message)
    }

    fn error_at(&self, offset: usize, message: impl Into<String>) -> Box<SyntaxError> {
        Box::new(SyntaxError {
            offset,
            path: self
                .path
                .iter()
                .map(|step| match step {
                    Step::Key(key) => Seg::Key(key.clone().into_owned()),
                    Step::Index(i) => Seg::Index(*i),
                })
                .collect(),
            message: message.into(),
        })
    }

    /// Names the character at the cursor for "unexpected …" messages.
    fn unexpected(&self) -> Box<SyntaxError> {
        match self.text[self.pos..].chars().next() {
            None => self.error("unexpected end of input"),
            Some(c) if c.is_ascii_graphic() => self.error(format!("unexpected `{c}`")),
            Some(c) => self.error(format!("unexpected character U+{:04X}", c as u32)),
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Parsed<Node<'t>> {
        let start = self.pos;
        let value = match self.bytes.get(self.pos) {
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Value::String(self.string()?),
            Some(b't') => self.literal("true", Value::Bool(true))?,
            Some(b'f') => self.literal("false", Value::Bool(false))?,
            Some(b'n') => self.literal("null", Value::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            _ => return Err(self.unexpected()),
        };
        Ok(Node { start, value })
    }

    fn enter(&self, depth: usize) -> Parsed<usize> {
        if depth >= MAX_DEPTH {
            return Err(self.error(format!("nested more than {MAX_DEPTH} levels deep")));
        }
        Ok(depth + 1)
    }

    fn object(&mut self, depth: usize) -> Parsed<Value<'t>> {
        let depth = self.enter(depth)?;
        self.pos += 1;
        // Sidecar objects have up to a dozen keys: one allocation for most of them.
        let mut members: Vec<Member<'t>> = Vec::with_capacity(16);
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b'"') {
                return Err(match self.bytes.get(self.pos) {
                    Some(b'}') => self.error("trailing comma before `}`"),
                    _ if self.pos >= self.bytes.len() => self.unexpected(),
                    _ => self.error("expected a key in double quotes"),
                });
            }
            let key_start = self.pos;
            let key = self.string()?;
            if members.iter().any(|m| m.key == key) {
                let e = format!("duplicate key `{key}`");
                self.path.push(Step::Key(key));
                let e = self.error_at(key_start, e);
                return Err(e);
            }
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b':') => {}
                None => return Err(self.unexpected()),
                Some(_) => return Err(self.error("expected `:` after the key")),
            }
            self.pos += 1;
            self.skip_ws();
            self.path.push(Step::Key(key));
            let value = self.value(depth)?;
            let Some(Step::Key(key)) = self.path.pop() else {
                unreachable!("the key pushed above")
            };
            members.push(Member {
                key,
                key_start,
                value,
            });
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(members));
                }
                None => return Err(self.unexpected()),
                Some(_) => return Err(self.error("expected `,` or `}`")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Parsed<Value<'t>> {
        let depth = self.enter(depth)?;
        self.pos += 1;
        let mut elements = Vec::new();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Value::Array(elements));
        }
        loop {
            self.skip_ws();
            if self.bytes.get(self.pos) == Some(&b']') {
                return Err(self.error("trailing comma before `]`"));
            }
            self.path.push(Step::Index(elements.len()));
            let element = self.value(depth)?;
            self.path.pop();
            elements.push(element);
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(elements));
                }
                None => return Err(self.unexpected()),
                Some(_) => return Err(self.error("expected `,` or `]`")),
            }
        }
    }

    fn literal(&mut self, word: &str, value: Value<'t>) -> Parsed<Value<'t>> {
        if self.text[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.unexpected())
        }
    }

    fn number(&mut self) -> Parsed<Value<'t>> {
        let start = self.pos;
        let digits = |p: &mut Self| {
            let from = p.pos;
            while p.bytes.get(p.pos).is_some_and(u8::is_ascii_digit) {
                p.pos += 1;
            }
            p.pos - from
        };
        if self.bytes[self.pos] == b'-' {
            self.pos += 1;
        }
        match self.bytes.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.error("expected a digit")),
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if digits(self) == 0 {
                return Err(self.error("expected a digit after `.`"));
            }
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.pos) {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.pos) {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(self.error("expected a digit in the exponent"));
            }
        }
        Ok(Value::Number(&self.text[start..self.pos]))
    }

    /// Reads a string starting at its opening quote: borrowed from the text unless it has
    /// an escape.
    fn string(&mut self) -> Parsed<Cow<'t, str>> {
        let open = self.pos;
        self.pos += 1;
        let mut out: Option<String> = None;
        let mut plain = self.pos;
        loop {
            // To the next quote or backslash at once, stopping early at a control
            // character (a sidecar is mostly strings: a match per byte was 8% of a cold
            // status run's instructions).
            let rest = &self.bytes[self.pos..];
            let run = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
            self.pos += rest[..run].iter().position(|&b| b < 0x20).unwrap_or(run);
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(self.error_at(open, "string is not closed"));
            };
            match b {
                b'"' => {
                    let text = self.text;
                    let rest = &text[plain..self.pos];
                    self.pos += 1;
                    return Ok(match out {
                        None => Cow::Borrowed(rest),
                        Some(mut out) => {
                            out.push_str(rest);
                            Cow::Owned(out)
                        }
                    });
                }
                b'\\' => {
                    let out = out.get_or_insert_with(String::new);
                    out.push_str(&self.text[plain..self.pos]);
                    self.escape(out)?;
                    plain = self.pos;
                }
                0..=0x1f => {
                    return Err(self.error(format!(
                        "control character U+{b:04X} in a string; write it as an escape"
                    )));
                }
                _ => self.pos += 1,
            }
        }
    }

    /// Reads one escape sequence starting at its backslash.
    fn escape(&mut self, out: &mut String) -> Parsed<()> {
        let start = self.pos;
        let Some(&kind) = self.bytes.get(self.pos + 1) else {
            self.pos += 1;
            return Err(self.unexpected());
        };
        self.pos += 2;
        let c = match kind {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let high = self.hex4(start)?;
                match high {
                    0xD800..=0xDBFF => {
                        if !self.text[self.pos..].starts_with("\\u") {
                            return Err(self.error_at(start, "unpaired surrogate escape"));
                        }
                        self.pos += 2;
                        let low = self.hex4(start)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(self.error_at(start, "unpaired surrogate escape"));
                        }
                        let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                        char::from_u32(code).expect("a surrogate pair is a scalar value")
                    }
                    0xDC00..=0xDFFF => {
                        return Err(self.error_at(start, "unpaired surrogate escape"));
                    }
                    _ => char::from_u32(high).expect("not a surrogate"),
                }
            }
            _ => return Err(self.error_at(start, "unknown escape sequence")),
        };
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self, escape_start: usize) -> Parsed<u32> {
        let hex = self.bytes.get(self.pos..self.pos + 4);
        let value = hex
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .and_then(|h| u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
        match value {
            Some(v) => {
                self.pos += 4;
                Ok(v)
            }
            None => Err(self.error_at(escape_start, "expected four hex digits after `\\u`")),
        }
    }
}
