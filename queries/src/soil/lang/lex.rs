//! The tokens of a `.soil` file, as Soil's lexical structure defines them (trellis's
//! `soil-syntax-spec.md` §1): the first stage of recomputing a `soil_hash`, which needs
//! the file parsed and printed in its canonical form.
//!
//! The rules, as the syntax spec states them:
//!
//! - Whitespace only separates tokens; `--` starts a comment that runs to the end of the
//!   line. There are no block comments.
//! - `ident` is `[a-z][a-z0-9_]*`, a private identifier `_` followed by an `ident`, a
//!   `TypeName` `[A-Z][A-Za-z0-9]*`. A lone `_` is the wildcard.
//! - Keywords: `let rec and or not in fun match with if then else decreases`. Effect
//!   names (`div panic io ffi`) are reserved in type position only, so they lex as
//!   identifiers and the parser decides.
//! - `?` immediately followed by an `ident` is a typed hole; a bare `?` is an error.
//! - Integers are `[0-9][0-9_]*`; a float continues with `.` and digits, then optionally
//!   `e`, an optional `-` and digits. A literal is extended only when what follows can
//!   continue it: `1..2` is `1` `..` `2`, and `1.5e` is `1.5` then the identifier `e`.
//!   Underscores may appear in every digit run and are not part of the value, so tokens
//!   keep the text without them (what the canonical form prints).
//! - Strings are `"…"` with exactly the escapes `\"`, `\\`, `\n`, `\r`, `\t` and `\u{…}`
//!   (one to six hex digits, a Unicode scalar value). Anything else may appear raw,
//!   newlines included; a string is unterminated only at the end of the file.
//!
//! Where the spec is silent: an identifier stops at the first character its class does
//! not allow, so `fooBar` is `foo` then `Bar` and the parser reports the juxtaposition.

use super::SyntaxError;
use crate::text::LineIndex;
use std::ops::Range;

/// The words that are never identifiers.
pub const KEYWORDS: [&str; 13] = [
    "let",
    "rec",
    "and",
    "or",
    "not",
    "in",
    "fun",
    "match",
    "with",
    "if",
    "then",
    "else",
    "decreases",
];

/// Operators and punctuation, longest first so that the first match is the longest.
const OPERATORS: [&str; 22] = [
    "->", "==", "!=", "<=", ">=", "::", "..", "=", "|", ":", ".", ",", "(", ")", "{", "}", "<",
    ">", "+", "-", "*", "/",
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    Ident(String),
    /// `_name`: a module-private definition.
    PrivateIdent(String),
    TypeName(String),
    Keyword(&'static str),
    /// Operators and punctuation, `%` and the wildcard `_` included.
    Op(&'static str),
    /// The digits without underscores.
    Int(String),
    /// The literal without underscores.
    Float(String),
    /// The decoded value.
    Str(String),
    /// `?name`, by its name.
    Hole(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lexed {
    pub token: Token,
    /// Byte range in the source.
    pub span: Range<usize>,
}

/// The tokens of `src`, or the first thing that is not Soil.
pub fn lex(src: &str) -> Result<Vec<Lexed>, SyntaxError> {
    let mut lexer = Lexer {
        src,
        bytes: src.as_bytes(),
        pos: 0,
        out: Vec::new(),
    };
    lexer.run().map_err(|(code, offset, message)| SyntaxError {
        code,
        at: LineIndex::new(src).line_col(src, offset),
        message,
    })?;
    Ok(lexer.out)
}

type Failure = (&'static str, usize, String);

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    out: Vec<Lexed>,
}

fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    fn push(&mut self, token: Token, start: usize) {
        self.out.push(Lexed {
            token,
            span: start..self.pos,
        });
    }

    /// Advances over bytes that satisfy `ok`, from the current position.
    fn take_while(&mut self, ok: impl Fn(u8) -> bool) {
        while self.peek(0).is_some_and(&ok) {
            self.pos += 1;
        }
    }

    fn run(&mut self) -> Result<(), Failure> {
        while let Some(b) = self.peek(0) {
            let start = self.pos;
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'-' if self.peek(1) == Some(b'-') => {
                    self.take_while(|b| b != b'\n');
                }
                b'a'..=b'z' => {
                    self.take_while(is_ident_continue);
                    let word = &self.src[start..self.pos];
                    let token = match KEYWORDS.iter().find(|k| **k == word) {
                        Some(k) => Token::Keyword(k),
                        None => Token::Ident(word.to_owned()),
                    };
                    self.push(token, start);
                }
                b'_' if self.peek(1).is_some_and(|b| b.is_ascii_lowercase()) => {
                    self.pos += 1;
                    self.take_while(is_ident_continue);
                    self.push(
                        Token::PrivateIdent(self.src[start..self.pos].to_owned()),
                        start,
                    );
                }
                b'_' => {
                    self.pos += 1;
                    self.push(Token::Op("_"), start);
                }
                b'A'..=b'Z' => {
                    self.take_while(|b| b.is_ascii_alphanumeric());
                    self.push(Token::TypeName(self.src[start..self.pos].to_owned()), start);
                }
                b'0'..=b'9' => self.number(start),
                b'"' => self.string(start)?,
                b'?' => {
                    if !self.peek(1).is_some_and(|b| b.is_ascii_lowercase()) {
                        return Err((
                            "soil-bare-hole",
                            start,
                            "a hole is `?` followed by its name, as in `?rest`".to_owned(),
                        ));
                    }
                    self.pos += 1;
                    let name_start = self.pos;
                    self.take_while(is_ident_continue);
                    let name = self.src[name_start..self.pos].to_owned();
                    self.push(Token::Hole(name), start);
                }
                b'%' => {
                    self.pos += 1;
                    self.push(Token::Op("%"), start);
                }
                _ => {
                    let rest = &self.src[start..];
                    let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(**op)) else {
                        let c = rest.chars().next().expect("not at the end");
                        return Err((
                            "soil-stray-character",
                            start,
                            format!("`{}` is not part of Soil's syntax", c.escape_debug()),
                        ));
                    };
                    self.pos += op.len();
                    self.push(Token::Op(op), start);
                }
            }
        }
        Ok(())
    }

    /// A digit run with underscores, from the current position (which is a digit).
    fn digits(&mut self, text: &mut String) {
        while let Some(b) = self.peek(0).filter(|b| b.is_ascii_digit() || *b == b'_') {
            if b != b'_' {
                text.push(b as char);
            }
            self.pos += 1;
        }
    }

    fn number(&mut self, start: usize) {
        let mut text = String::new();
        self.digits(&mut text);
        let digit_at =
            |lexer: &Self, ahead: usize| lexer.peek(ahead).is_some_and(|b| b.is_ascii_digit());
        if self.peek(0) != Some(b'.') || !digit_at(self, 1) {
            self.push(Token::Int(text), start);
            return;
        }
        text.push('.');
        self.pos += 1;
        self.digits(&mut text);
        if self.peek(0) == Some(b'e') {
            let exponent_digits = if self.peek(1) == Some(b'-') { 2 } else { 1 };
            if digit_at(self, exponent_digits) {
                text.push('e');
                if exponent_digits == 2 {
                    text.push('-');
                }
                self.pos += exponent_digits;
                self.digits(&mut text);
            }
        }
        self.push(Token::Float(text), start);
    }

    fn string(&mut self, start: usize) -> Result<(), Failure> {
        self.pos += 1;
        let mut value = String::new();
        loop {
            let rest = &self.src[self.pos..];
            let Some(c) = rest.chars().next() else {
                return Err((
                    "soil-unterminated-string",
                    start,
                    "this string is never closed".to_owned(),
                ));
            };
            match c {
                '"' => {
                    self.pos += 1;
                    break;
                }
                '\\' => {
                    let escape_at = self.pos;
                    let decoded = match rest[1..].chars().next() {
                        Some('"') => Some(('"', 2)),
                        Some('\\') => Some(('\\', 2)),
                        Some('n') => Some(('\n', 2)),
                        Some('r') => Some(('\r', 2)),
                        Some('t') => Some(('\t', 2)),
                        Some('u') => unicode_escape(&rest[2..]),
                        _ => None,
                    };
                    let Some((ch, len)) = decoded else {
                        return Err((
                            "soil-bad-escape",
                            escape_at,
                            "the escapes are `\\\"`, `\\\\`, `\\n`, `\\r`, `\\t` and `\\u{…}` \
                             (one to six hex digits naming a Unicode scalar value)"
                                .to_owned(),
                        ));
                    };
                    value.push(ch);
                    self.pos += len;
                }
                c => {
                    value.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
        self.push(Token::Str(value), start);
        Ok(())
    }
}

/// `{hex}` after `\u`: the character and the length of the whole escape, `\u` included.
fn unicode_escape(after_u: &str) -> Option<(char, usize)> {
    let body = after_u.strip_prefix('{')?;
    let close = body.find('}')?;
    let hex = &body[..close];
    if hex.is_empty() || hex.len() > 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
    Some((c, 2 + 1 + close + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(src: &str) -> Vec<Token> {
        lex(src)
            .unwrap_or_else(|e| panic!("{src:?}: {e:?}"))
            .into_iter()
            .map(|l| l.token)
            .collect()
    }

    fn error(src: &str) -> (&'static str, u32, u32) {
        let e = lex(src).expect_err(src);
        (e.code, e.at.line, e.at.column)
    }

    use Token::*;

    fn id(s: &str) -> Token {
        Ident(s.to_owned())
    }

    #[test]
    fn the_specs_worked_example_lexes() {
        let src =
            "gcd : U64 -> U64 -> U64\ndecreases b\ngcd a b = if b == 0 then a else gcd b (a % b)\n";
        let got = tokens(src);
        assert_eq!(
            got[..6],
            [
                id("gcd"),
                Op(":"),
                TypeName("U64".into()),
                Op("->"),
                TypeName("U64".into()),
                Op("->")
            ]
        );
        assert!(got.contains(&Keyword("decreases")));
        assert!(got.contains(&Op("%")));
        assert!(got.contains(&Op("==")));
        assert_eq!(got.last(), Some(&Op(")")));
    }

    #[test]
    fn identifiers_keywords_privates_and_wildcards() {
        assert_eq!(
            tokens("let rec go_1 = _helper _ in fooBar io"),
            [
                Keyword("let"),
                Keyword("rec"),
                id("go_1"),
                Op("="),
                PrivateIdent("_helper".into()),
                Op("_"),
                Keyword("in"),
                id("foo"),
                TypeName("Bar".into()),
                id("io"),
            ]
        );
    }

    #[test]
    fn numbers_extend_only_when_they_can_continue() {
        assert_eq!(tokens("1..2"), [Int("1".into()), Op(".."), Int("2".into())]);
        assert_eq!(tokens("1.5e"), [Float("1.5".into()), id("e")]);
        assert_eq!(
            tokens("1.5e3 1.5e-3"),
            [Float("1.5e3".into()), Float("1.5e-3".into())]
        );
        assert_eq!(tokens("1_000.2_5e1_0"), [Float("1000.25e10".into())]);
        assert_eq!(
            tokens("1.5e+3"),
            [Float("1.5".into()), id("e"), Op("+"), Int("3".into())]
        );
        assert_eq!(tokens("r.cells"), [id("r"), Op("."), id("cells")]);
        assert_eq!(tokens("-1"), [Op("-"), Int("1".into())]);
    }

    #[test]
    fn strings_decode_exactly_the_listed_escapes() {
        assert_eq!(
            tokens(r#""a\"b\\c\n\r\t\u{1F600}""#),
            [Str("a\"b\\c\n\r\t\u{1F600}".into())]
        );
        assert_eq!(tokens("\"two\nlines é\""), [Str("two\nlines é".into())]);
        assert_eq!(error(r#"  "\x41""#), ("soil-bad-escape", 1, 4));
        assert_eq!(error(r#""\u{D800}""#).0, "soil-bad-escape");
        assert_eq!(error(r#""\u{1234567}""#).0, "soil-bad-escape");
        assert_eq!(error(r#""\u{}""#).0, "soil-bad-escape");
        assert_eq!(error("x\n \"open"), ("soil-unterminated-string", 2, 2));
    }

    #[test]
    fn comments_holes_and_strays() {
        assert_eq!(tokens("a -- b c\nd"), [id("a"), id("d")]);
        assert_eq!(tokens("a - b"), [id("a"), Op("-"), id("b")]);
        assert_eq!(tokens("?rest"), [Hole("rest".into())]);
        assert_eq!(error("f = ? x"), ("soil-bare-hole", 1, 5));
        assert_eq!(error("f = a # b"), ("soil-stray-character", 1, 7));
        assert_eq!(error("a & b").0, "soil-stray-character");
    }

    #[test]
    fn spans_cover_the_source_text() {
        let src = "median xs = nth (sort xs) 0";
        for l in lex(src).unwrap() {
            let text = &src[l.span.clone()];
            match &l.token {
                Ident(s) | TypeName(s) | Int(s) => assert_eq!(text, s),
                Op(op) => assert_eq!(text, *op),
                other => panic!("{other:?}"),
            }
        }
    }
}
