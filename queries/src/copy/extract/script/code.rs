//! The lexer over code: blanks, comments, regular expressions, numbers and names, which
//! only keep it in sync, and the string and template literals that become views.
//! Where an expression may start, a `<` that opens an element goes to [`super::jsx`].

use super::decode::escape;
use super::{
    CODE_TAGS, EXPRESSION_KEYWORDS, Lexer, MAX_DEPTH, Tok, is_code_attribute, is_ident_byte,
    is_ident_start,
};
use crate::copy::extract::{Draft, OBJECT};
use crate::copy::view::ViewRole;

impl<'a> Lexer<'a> {
    fn push(&mut self, tok: Tok) {
        self.prev = [tok, self.prev[0], self.prev[1]];
    }

    fn word(&self, tok: Tok) -> Option<&'a str> {
        match tok {
            Tok::Word(s, e) => Some(&self.src[s..e]),
            _ => None,
        }
    }

    /// Whether an expression may start here (so `/` is a regex and `<` may be JSX).
    fn expression_allowed(&self) -> bool {
        match self.prev[0] {
            Tok::Start | Tok::Punct(_) | Tok::CloseBrace => true,
            Tok::Word(..) => self
                .word(self.prev[0])
                .is_some_and(|w| EXPRESSION_KEYWORDS.contains(&w)),
            Tok::Value => false,
        }
    }

    /// Code until the end, or with `until_brace` until the `}` closing the current
    /// `${`/`{` (consumed). `mute`: strings and templates here are not prose.
    pub(super) fn code(&mut self, until_brace: bool, mute: bool) {
        let mut braces = 0usize;
        while let Some(c) = self.at(self.pos) {
            match c {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                b'/' if self.at(self.pos + 1) == Some(b'/') => self.line_comment(),
                b'/' if self.at(self.pos + 1) == Some(b'*') => self.block_comment(),
                b'#' if self.pos == 0 && self.at(1) == Some(b'!') => self.line_comment(),
                b'/' if self.expression_allowed() => {
                    self.regex();
                    self.push(Tok::Value);
                }
                b'\'' | b'"' => {
                    let start = self.pos;
                    let (draft, end) = self.string_literal(start);
                    self.pos = end;
                    if !mute && !self.is_code_string(&draft, end) {
                        self.emit(draft);
                    }
                    self.push(Tok::Value);
                }
                b'`' => {
                    let tagged = self
                        .word(self.prev[0])
                        .is_some_and(|w| CODE_TAGS.contains(&w))
                        || (self.prev[1] == Tok::Punct(b'.')
                            && self.word(self.prev[2]) == Some("styled"));
                    self.template(mute || tagged);
                    self.push(Tok::Value);
                }
                b'{' => {
                    braces += 1;
                    self.pos += 1;
                    self.push(Tok::Punct(b'{'));
                }
                b'}' => {
                    self.pos += 1;
                    if braces == 0 && until_brace {
                        return;
                    }
                    braces = braces.saturating_sub(1);
                    self.push(Tok::CloseBrace);
                }
                b'<' if self.expression_allowed() && self.jsx_ahead() => {
                    self.jsx_root(mute);
                    self.push(Tok::Value);
                }
                b')' | b']' => {
                    self.pos += 1;
                    self.push(Tok::Value);
                }
                b'0'..=b'9' => self.number(),
                b'.' if self.at(self.pos + 1).is_some_and(|d| d.is_ascii_digit()) => self.number(),
                c if is_ident_start(c) || c == b'#' => {
                    let start = self.pos;
                    self.pos += 1;
                    while self.at(self.pos).is_some_and(is_ident_byte) {
                        self.pos += 1;
                    }
                    self.push(Tok::Word(start, self.pos));
                }
                c => {
                    self.pos += 1;
                    self.push(Tok::Punct(c));
                }
            }
        }
    }

    /// Runs `code` for a nested `${…}` or `{…}`, up to and including its `}`.
    pub(super) fn nested_code(&mut self, mute: bool) {
        if self.depth >= MAX_DEPTH {
            self.pos = self.end;
            return;
        }
        self.depth += 1;
        let saved_jsx = self.jsx.take();
        self.prev = [Tok::Start; 3];
        self.code(true, mute);
        self.jsx = saved_jsx;
        self.depth -= 1;
    }

    pub(super) fn line_comment(&mut self) {
        self.pos =
            memchr::memchr(b'\n', &self.b[self.pos..self.end]).map_or(self.end, |i| self.pos + i);
    }

    pub(super) fn block_comment(&mut self) {
        self.pos = memchr::memmem::find(&self.b[self.pos + 2..self.end], b"*/")
            .map_or(self.end, |i| self.pos + 2 + i + 2);
    }

    fn number(&mut self) {
        let start = self.pos;
        while let Some(c) = self.at(self.pos) {
            let exponent_sign = matches!(c, b'+' | b'-')
                && matches!(self.b[self.pos - 1], b'e' | b'E')
                && !self.src[start..self.pos].starts_with("0x");
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || exponent_sign {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.push(Tok::Value);
    }

    fn regex(&mut self) {
        let mut class = false;
        self.pos += 1;
        while let Some(c) = self.at(self.pos) {
            match c {
                b'\\' => self.pos += 1,
                b'[' => class = true,
                b']' => class = false,
                b'/' if !class => {
                    self.pos += 1;
                    break;
                }
                b'\n' | b'\r' => break,
                _ => {}
            }
            self.pos += 1;
        }
        while self.at(self.pos).is_some_and(is_ident_byte) {
            self.pos += 1;
        }
        self.pos = self.pos.min(self.end);
    }

    /// A `'…'` or `"…"` literal at `start`: its decoded text and the offset after it.
    pub(super) fn string_literal(&self, start: usize) -> (Draft, usize) {
        let quote = self.b[start];
        let mut d = Draft::new();
        let mut p = start + 1;
        let mut run = p;
        while let Some(c) = self.at(p) {
            match c {
                _ if c == quote => {
                    d.verbatim(&self.src[run..p], run);
                    return (d, p + 1);
                }
                b'\\' => {
                    d.verbatim(&self.src[run..p], run);
                    let (decoded, len) = escape(&self.src[p..self.end]);
                    d.opaque(&decoded, p..p + len);
                    p += len;
                    run = p;
                }
                b'\n' | b'\r' => break,
                _ => p += 1,
            }
        }
        d.verbatim(&self.src[run..p], run);
        (d, p)
    }

    /// Whether a string just read (ending at `end`) is a module specifier, an object key,
    /// a `case` label or a directive.
    fn is_code_string(&self, draft: &Draft, end: usize) -> bool {
        let [p0, p1, _] = self.prev.map(|t| self.word(t));
        let specifier = matches!(p0, Some("from" | "import"))
            || (p0 == Some("module") && p1 == Some("declare"))
            || (self.prev[0] == Tok::Punct(b'(') && matches!(p1, Some("import" | "require")));
        let before_colon = self.src[end..self.end].trim_start().starts_with(':');
        let key =
            before_colon && (matches!(self.prev[0], Tok::Punct(b'{' | b',')) || p0 == Some("case"));
        let directive = matches!(draft.text(), "use strict" | "use client" | "use server");
        // `{ className: '…' }`, `{ href: '…' }`: the value of a property named like an
        // attribute that holds identifiers, URLs or styling (class lists passed around in
        // objects, not only in JSX attributes).
        let code_property = self.prev[0] == Tok::Punct(b':') && p1.is_some_and(is_code_attribute);
        specifier || key || directive || code_property
    }

    fn template(&mut self, mute: bool) {
        let mut d = Draft::new();
        self.pos += 1;
        let mut run = self.pos;
        while let Some(c) = self.at(self.pos) {
            match c {
                b'`' => {
                    d.verbatim_lf(&self.src[run..self.pos], run);
                    self.pos += 1;
                    if !mute {
                        self.emit(d);
                    }
                    return;
                }
                b'\\' => {
                    d.verbatim_lf(&self.src[run..self.pos], run);
                    let (decoded, len) = escape(&self.src[self.pos..self.end]);
                    d.opaque(&decoded, self.pos..self.pos + len);
                    self.pos += len;
                    run = self.pos;
                }
                b'$' if self.at(self.pos + 1) == Some(b'{') => {
                    d.verbatim_lf(&self.src[run..self.pos], run);
                    let start = self.pos;
                    self.pos += 2;
                    self.nested_code(mute);
                    d.opaque(OBJECT, start..self.pos);
                    run = self.pos;
                }
                _ => self.pos += 1,
            }
        }
        d.verbatim_lf(&self.src[run..self.end], run);
        if !mute {
            self.emit(d);
        }
    }

    pub(super) fn emit(&mut self, draft: Draft) {
        self.views
            .extend(draft.into_view_unless_empty(ViewRole::Text, None, None));
    }
}
