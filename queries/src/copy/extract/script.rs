//! TypeScript and JavaScript (with JSX): string literals, template literal text and JSX
//! text, found by a small hand-written lexer.
//!
//! A full parser would be a large dependency for what is a lexing problem. The lexer
//! tracks just enough to stay in sync:
//!
//! - Comments are skipped. A `/` starts a regular expression where an expression may start
//!   (after an operator or punctuator, `}` and keywords such as `return` or `typeof`) and
//!   is division after a name, a number, `)` or `]`.
//! - `<` starts JSX in the same places, when a tag follows that is self-closing or has a
//!   matching closing tag later in the file. That tells `<T,>`, `<T extends U>`, generic
//!   arrows `<T>(x: T) => x` and `.ts` type assertions `<string>x` apart from elements,
//!   on a best-effort basis.
//! - Strings: one view each, escapes decoded as opaque pieces. Not prose and skipped:
//!   module specifiers (`import … from '…'`, `import('…')`, `require('…')`,
//!   `declare module '…'`), object keys (`{'a-b': 1}`), `case '…':` labels and the
//!   `'use client'`-style directives.
//! - Template literals: one view each, `${…}` replaced by a placeholder (its own strings
//!   are views of their own). Templates tagged `css`, `sql`, `gql`, `graphql`,
//!   `keyframes`, `createGlobalStyle`, `injectGlobal` or `styled.x` are code.
//! - JSX text: inline elements (`b`, `em`, `a`, `span`, `Link`, `Trans`, …) keep a sentence
//!   together, other elements end it. Lines are joined as JSX renders them: a line break
//!   inside text is an opaque `"\n"` over the break and its indentation, blank runs with a
//!   line break between elements vanish. Entities are decoded. `{expr}` is a placeholder;
//!   `{' '}` is its string; `{/* … */}` is nothing. `<code>`, `<kbd>`, `<samp>`, `<var>`
//!   become a placeholder, `<pre>`, `<script>`, `<style>`, `<svg>` are skipped.
//! - JSX attribute strings are views, except for attributes that hold identifiers, URLs
//!   or styling ([`CODE_ATTRIBUTES`], `data-*`); strings inside the `{…}` value of such an
//!   attribute are skipped too (`className={cn('…')}`), and so are the values of object
//!   properties of those names (`{ className: '…', href: '…' }`).
//!
//! The lexer never fails: an unterminated construct ends at the end of its line (strings)
//! or of the file.

use super::{Draft, HARD_BREAK, OBJECT, bom_len};
use crate::copy::view::{View, ViewRole};
use std::collections::HashMap;
use std::ops::Range;

pub(super) fn extract(text: &str) -> Vec<View> {
    let mut lexer = Lexer::new(text, bom_len(text)..text.len());
    lexer.code(false, false);
    lexer.views
}

/// The JSX text of `text[range]` (an MDX JSX block), read as element children; `finish`
/// runs on the text of each sentence before it becomes a view.
pub(super) fn jsx_block(text: &str, range: Range<usize>, finish: fn(Draft) -> Draft) -> Vec<View> {
    let mut lexer = Lexer::new(text, range);
    lexer.finish = Some(finish);
    lexer.jsx = Some(JsxText::default());
    while lexer.pos < lexer.end {
        // A closing tag whose opening tag was in an earlier block ends `children` early.
        lexer.children(false);
    }
    lexer.boundary();
    lexer.views
}

/// Attributes whose values are identifiers, URLs or styling, not prose.
const CODE_ATTRIBUTES: &[&str] = &[
    "className",
    "class",
    "href",
    "src",
    "srcSet",
    "id",
    "key",
    "style",
    "type",
    "name",
    "to",
    "htmlFor",
    "for",
    "rel",
    "target",
    "role",
    "lang",
    "dir",
    "method",
    "action",
    "width",
    "height",
    "viewBox",
    "xmlns",
    "d",
    "fill",
    "stroke",
    "variant",
    "size",
    "as",
    "aria-labelledby",
    "aria-describedby",
    "aria-controls",
];

/// Whether an attribute (or a property of the same name) holds identifiers, URLs or
/// styling rather than prose.
fn is_code_attribute(name: &str) -> bool {
    CODE_ATTRIBUTES.contains(&name) || name.starts_with("data-")
}

/// Template literal tags whose text is another language.
const CODE_TAGS: &[&str] = &[
    "css",
    "sql",
    "gql",
    "graphql",
    "keyframes",
    "createGlobalStyle",
    "injectGlobal",
];

/// Keywords after which an expression (so a regex or JSX) may start.
const EXPRESSION_KEYWORDS: &[&str] = &[
    "return",
    "typeof",
    "instanceof",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "case",
    "do",
    "else",
    "yield",
    "await",
    "default",
];

/// Nesting deeper than this (templates in JSX in templates …) is not followed; the rest
/// of the file is skipped rather than risking the stack.
const MAX_DEPTH: usize = 200;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Start,
    Punct(u8),
    Word(usize, usize),
    /// A value: a literal, `)` or `]`.
    Value,
    CloseBrace,
}

/// JSX text being collected into one view.
#[derive(Debug, Default)]
struct JsxText {
    draft: Draft,
    /// Blanks without a line break seen after the last piece: kept if more text follows.
    pending_blank: Option<Range<usize>>,
    /// Depth inside elements whose text is not prose (`code`, `pre`).
    mute: usize,
}

struct Lexer<'a> {
    src: &'a str,
    b: &'a [u8],
    pos: usize,
    end: usize,
    views: Vec<View>,
    /// The last three significant tokens, newest first.
    prev: [Tok; 3],
    depth: usize,
    /// JSX text of the innermost element tree being read, if any.
    jsx: Option<JsxText>,
    /// Closing tags searched for: name → (searched from, found at).
    closing: HashMap<String, (usize, Option<usize>)>,
    /// Post-processing of JSX text (MDX reads Markdown inside it).
    finish: Option<fn(Draft) -> Draft>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum TagKind {
    /// Text flows through it (`<b>`, `<Link>`).
    Inline,
    /// Ends the sentence before and after it.
    Block,
    /// Inline code: a placeholder.
    Code,
    /// Not text at all (`<pre>`, `<script>`).
    Raw,
    /// `<br>`.
    Break,
    /// An HTML void element other than `<br>` (`<img>`), which has no children even when
    /// written without `/>`.
    Void,
}

fn tag_kind(name: &str) -> TagKind {
    match name {
        "a" | "abbr" | "b" | "bdi" | "bdo" | "cite" | "data" | "dfn" | "em" | "i" | "mark"
        | "q" | "s" | "small" | "span" | "strong" | "sub" | "sup" | "time" | "u" | "del"
        | "ins" | "label" | "Link" | "NavLink" | "Trans" => TagKind::Inline,
        "code" | "kbd" | "samp" | "var" | "tt" => TagKind::Code,
        "pre" | "script" | "style" | "svg" | "math" | "textarea" => TagKind::Raw,
        "br" => TagKind::Break,
        "img" | "input" | "wbr" | "meta" | "link" | "source" | "area" | "col" | "embed"
        | "param" | "track" => TagKind::Void,
        _ => TagKind::Block,
    }
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$') || c >= 0x80
}

fn is_ident_start(c: u8) -> bool {
    is_ident_byte(c) && !c.is_ascii_digit()
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str, range: Range<usize>) -> Self {
        Lexer {
            src,
            b: src.as_bytes(),
            pos: range.start,
            end: range.end,
            views: Vec::new(),
            prev: [Tok::Start; 3],
            depth: 0,
            jsx: None,
            closing: HashMap::new(),
            finish: None,
        }
    }

    fn at(&self, i: usize) -> Option<u8> {
        (i < self.end).then(|| self.b[i])
    }

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
    fn code(&mut self, until_brace: bool, mute: bool) {
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
    fn nested_code(&mut self, mute: bool) {
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

    fn line_comment(&mut self) {
        self.pos =
            memchr::memchr(b'\n', &self.b[self.pos..self.end]).map_or(self.end, |i| self.pos + i);
    }

    fn block_comment(&mut self) {
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
    fn string_literal(&self, start: usize) -> (Draft, usize) {
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

    fn emit(&mut self, draft: Draft) {
        self.views
            .extend(draft.into_view_unless_empty(ViewRole::Text, None, None));
    }

    /// Whether the `<` at `self.pos` starts a JSX element.
    fn jsx_ahead(&mut self) -> bool {
        let start = self.pos + 1;
        match self.at(start) {
            Some(b'>') => return true,
            Some(c) if is_ident_start(c) => {}
            _ => return false,
        }
        let name_end = self.tag_name_end(start);
        let after = self.src[name_end..self.end].trim_start();
        if after.starts_with(',')
            || after
                .strip_prefix("extends")
                .is_some_and(|r| r.starts_with(|c: char| c.is_whitespace()))
        {
            return false;
        }
        match self.tag_end(name_end) {
            Some((_, true)) => true,
            Some((open_end, false)) => {
                let name = self.src[start..name_end].to_owned();
                self.has_closing(&name, open_end)
            }
            None => false,
        }
    }

    fn tag_name_end(&self, start: usize) -> usize {
        let mut p = start;
        while self
            .at(p)
            .is_some_and(|c| is_ident_byte(c) || matches!(c, b'.' | b':' | b'-'))
        {
            p += 1;
        }
        p
    }

    /// The end of an opening tag whose attributes start at `from`: the offset after `>`
    /// and whether it was `/>`.
    fn tag_end(&self, from: usize) -> Option<(usize, bool)> {
        let mut p = from;
        let mut braces = 0usize;
        while let Some(c) = self.at(p) {
            match c {
                b'"' | b'\'' if braces == 0 => {
                    p += memchr::memchr(c, &self.b[p + 1..self.end])? + 1;
                }
                b'"' | b'\'' | b'`' => {
                    let (_, end) = self.string_literal(p);
                    p = end.max(p + 1) - 1;
                }
                b'{' => braces += 1,
                b'}' => braces = braces.saturating_sub(1),
                b'/' if braces == 0 && self.at(p + 1) == Some(b'>') => return Some((p + 2, true)),
                b'>' if braces == 0 => return Some((p + 1, false)),
                b'<' if braces == 0 => return None,
                _ => {}
            }
            p += 1;
        }
        None
    }

    /// Whether `</name` follows somewhere after `from`.
    fn has_closing(&mut self, name: &str, from: usize) -> bool {
        if let Some(&(searched, found)) = self.closing.get(name) {
            match found {
                Some(at) if at >= from => return true,
                None if searched <= from => return false,
                _ => {}
            }
        }
        let needle = format!("</{name}");
        let mut at = from;
        let found = loop {
            let Some(i) = memchr::memmem::find(&self.b[at..self.end], needle.as_bytes()) else {
                break None;
            };
            let after = at + i + needle.len();
            if self
                .at(after)
                .is_none_or(|c| c == b'>' || c.is_ascii_whitespace())
            {
                break Some(at + i);
            }
            at = after;
        };
        self.closing.insert(name.to_owned(), (from, found));
        found.is_some()
    }

    /// A JSX element met in code: its text is collected apart from any enclosing JSX.
    fn jsx_root(&mut self, mute: bool) {
        let saved = self.jsx.replace(JsxText::default());
        self.element(mute);
        self.boundary();
        self.jsx = saved;
    }

    /// The element at `self.pos` (`<`), its attributes and children.
    fn element(&mut self, mute: bool) {
        if self.depth >= MAX_DEPTH {
            self.pos = self.end;
            return;
        }
        self.depth += 1;
        let start = self.pos;
        self.pos += 1;
        if self.at(self.pos) == Some(b'>') {
            // A fragment: transparent.
            self.pos += 1;
            self.children(mute);
        } else {
            let name_end = self.tag_name_end(self.pos);
            let name = &self.src[self.pos..name_end];
            self.pos = name_end;
            let kind = tag_kind(name);
            let self_closing = self.attributes(mute);
            match kind {
                TagKind::Break => self.jsx_piece(HARD_BREAK, start..self.pos),
                TagKind::Void => {}
                _ if self_closing => {
                    if kind == TagKind::Block {
                        self.boundary();
                    }
                }
                TagKind::Inline => self.children(mute),
                TagKind::Block => {
                    self.boundary();
                    self.children(mute);
                    self.boundary();
                }
                TagKind::Code | TagKind::Raw => {
                    if kind == TagKind::Raw {
                        self.boundary();
                    }
                    self.set_mute(true);
                    self.children(true);
                    self.set_mute(false);
                    if kind == TagKind::Code {
                        self.jsx_piece(OBJECT, start..self.pos);
                    } else {
                        self.boundary();
                    }
                }
            }
        }
        self.depth -= 1;
    }

    fn set_mute(&mut self, on: bool) {
        if let Some(jsx) = &mut self.jsx {
            if on {
                jsx.mute += 1;
            } else {
                jsx.mute -= 1;
            }
        }
    }

    /// Attributes up to and including `>` or `/>`; returns whether it was `/>`.
    fn attributes(&mut self, mute: bool) -> bool {
        while let Some(c) = self.at(self.pos) {
            match c {
                b'/' if self.at(self.pos + 1) == Some(b'>') => {
                    self.pos += 2;
                    return true;
                }
                b'/' if self.at(self.pos + 1) == Some(b'*') => self.block_comment(),
                b'/' if self.at(self.pos + 1) == Some(b'/') => self.line_comment(),
                b'>' => {
                    self.pos += 1;
                    return false;
                }
                b'{' => {
                    self.pos += 1;
                    self.nested_code(mute);
                }
                c if is_ident_start(c) => {
                    let name_start = self.pos;
                    let name_end = self.tag_name_end(name_start);
                    let name = &self.src[name_start..name_end];
                    let code = is_code_attribute(name);
                    self.pos = name_end;
                    let value = self.src[self.pos..self.end].trim_start();
                    if let Some(value) = value.strip_prefix('=') {
                        self.pos = self.end - value.trim_start().len();
                        self.attribute_value(mute || code);
                    }
                }
                _ => self.pos += 1,
            }
        }
        false
    }

    fn attribute_value(&mut self, mute: bool) {
        match self.at(self.pos) {
            Some(q @ (b'"' | b'\'')) => {
                let start = self.pos + 1;
                let end =
                    memchr::memchr(q, &self.b[start..self.end]).map_or(self.end, |i| start + i);
                if !mute {
                    let mut d = Draft::new();
                    push_jsx_text(&mut d, self.src, start..end, false);
                    self.emit(d);
                }
                self.pos = (end + 1).min(self.end);
            }
            Some(b'{') => {
                self.pos += 1;
                self.nested_code(mute);
            }
            Some(b'<') => self.jsx_root(mute),
            _ => {}
        }
    }

    /// Element children up to and including the closing tag (any closing tag: the lexer
    /// trusts the file to be well-formed).
    fn children(&mut self, mute: bool) {
        let mut run = self.pos;
        while let Some(c) = self.at(self.pos) {
            match c {
                b'<' if self.at(self.pos + 1) == Some(b'/') => {
                    self.jsx_text(run..self.pos);
                    self.pos = memchr::memchr(b'>', &self.b[self.pos..self.end])
                        .map_or(self.end, |i| self.pos + i + 1);
                    return;
                }
                b'<' if self.b[self.pos..self.end].starts_with(b"<!--") => {
                    self.jsx_text(run..self.pos);
                    self.pos = memchr::memmem::find(&self.b[self.pos..self.end], b"-->")
                        .map_or(self.end, |i| self.pos + i + 3);
                    run = self.pos;
                }
                b'<' if self
                    .at(self.pos + 1)
                    .is_some_and(|c| is_ident_start(c) || c == b'>') =>
                {
                    self.jsx_text(run..self.pos);
                    self.element(mute);
                    run = self.pos;
                }
                b'{' => {
                    self.jsx_text(run..self.pos);
                    self.expression(mute);
                    run = self.pos;
                }
                _ => self.pos += 1,
            }
        }
        self.jsx_text(run..self.end);
    }

    /// A `{…}` expression container among children.
    fn expression(&mut self, mute: bool) {
        let start = self.pos;
        let mut p = start + 1;
        // Skip blanks and comments to see whether anything but a string is inside.
        loop {
            while self.at(p).is_some_and(|c| c.is_ascii_whitespace()) {
                p += 1;
            }
            if self.b[p..self.end].starts_with(b"/*") {
                p = memchr::memmem::find(&self.b[p + 2..self.end], b"*/")
                    .map_or(self.end, |i| p + 2 + i + 2);
            } else if self.b[p..self.end].starts_with(b"//") {
                p = memchr::memchr(b'\n', &self.b[p..self.end]).map_or(self.end, |i| p + i);
            } else {
                break;
            }
        }
        match self.at(p) {
            Some(b'}') => {
                self.pos = p + 1;
                return;
            }
            Some(b'\'' | b'"') => {
                let (draft, end) = self.string_literal(p);
                let close = end
                    + (self.src[end..self.end].len() - self.src[end..self.end].trim_start().len());
                if self.at(close) == Some(b'}') {
                    self.pos = close + 1;
                    self.jsx_piece(draft.text(), start..self.pos);
                    return;
                }
            }
            _ => {}
        }
        self.pos = start + 1;
        self.nested_code(mute);
        self.jsx_piece(OBJECT, start..self.pos);
    }

    /// Appends an opaque piece (a placeholder, a `{' '}`) to the JSX text.
    fn jsx_piece(&mut self, text: &str, src: Range<usize>) {
        let Some(jsx) = &mut self.jsx else {
            return;
        };
        if jsx.mute > 0 {
            return;
        }
        if let Some(blank) = jsx.pending_blank.take()
            && !jsx.draft.is_empty()
        {
            jsx.draft.verbatim(&self.src[blank.clone()], blank.start);
        }
        jsx.draft.opaque(text, src);
    }

    /// A run of JSX text between tags and expressions.
    fn jsx_text(&mut self, range: Range<usize>) {
        let src = self.src;
        let Some(jsx) = &mut self.jsx else {
            return;
        };
        if jsx.mute > 0 || range.is_empty() {
            return;
        }
        let text = &src[range.clone()];
        let is_blank = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r');
        let has_break = |s: &str| s.contains(['\n', '\r']);
        let lead = &text[..text.len() - text.trim_start_matches(is_blank).len()];
        if lead.len() == text.len() {
            // Blanks with a line break between elements vanish in JSX.
            jsx.pending_blank = (!has_break(text)).then_some(range);
            return;
        }
        if !lead.is_empty() {
            jsx.pending_blank = (!has_break(lead)).then(|| range.start..range.start + lead.len());
        }
        if let Some(blank) = jsx.pending_blank.take()
            && !jsx.draft.is_empty()
        {
            jsx.draft.verbatim(&src[blank.clone()], blank.start);
        }
        let inner = text.trim_matches(is_blank);
        let inner_start = range.start + lead.len();
        push_jsx_text(
            &mut jsx.draft,
            src,
            inner_start..inner_start + inner.len(),
            true,
        );
        let trail_start = inner_start + inner.len();
        let trail = &src[trail_start..range.end];
        if !trail.is_empty() && !has_break(trail) {
            jsx.pending_blank = Some(trail_start..range.end);
        }
    }

    /// Ends the current JSX sentence: what was collected becomes a view.
    fn boundary(&mut self) {
        let Some(jsx) = &mut self.jsx else {
            return;
        };
        jsx.pending_blank = None;
        let mut draft = std::mem::take(&mut jsx.draft).trim();
        if let Some(finish) = self.finish {
            draft = finish(draft).trim();
        }
        self.views
            .extend(draft.into_view(ViewRole::Text, None, None));
    }
}

/// Appends JSX text (children or an attribute string) with entities decoded. In children
/// (`fold_lines`) a blank run with a line break is one opaque `"\n"`, as JSX joins lines;
/// in attribute strings only `\r\n` reads as `\n`.
fn push_jsx_text(d: &mut Draft, src: &str, range: Range<usize>, fold_lines: bool) {
    let b = src.as_bytes();
    let mut p = range.start;
    let mut run = p;
    while p < range.end {
        match b[p] {
            b'&' => match entity(&src[p..range.end]) {
                Some((decoded, len)) => {
                    d.verbatim_lf(&src[run..p], run);
                    d.opaque(&decoded, p..p + len);
                    p += len;
                    run = p;
                }
                None => p += 1,
            },
            b' ' | b'\t' | b'\n' | b'\r' if fold_lines => {
                let mut q = p;
                while q < range.end && matches!(b[q], b' ' | b'\t' | b'\n' | b'\r') {
                    q += 1;
                }
                if src[p..q].contains(['\n', '\r']) {
                    d.verbatim(&src[run..p], run);
                    d.opaque("\n", p..q);
                    run = q;
                }
                p = q;
            }
            _ => p += 1,
        }
    }
    d.verbatim_lf(&src[run..range.end], run);
}

/// A JavaScript escape at the start of `s` (a backslash): the decoded text (empty for a
/// line continuation) and the escape's length.
fn escape(s: &str) -> (String, usize) {
    let b = s.as_bytes();
    let hex = |digits: &str| u32::from_str_radix(digits, 16).ok();
    let Some(&c) = b.get(1) else {
        return (String::new(), 1);
    };
    let simple = match c {
        b'n' => Some('\n'),
        b't' => Some('\t'),
        b'r' => Some('\r'),
        b'b' => Some('\u{8}'),
        b'f' => Some('\u{c}'),
        b'v' => Some('\u{b}'),
        b'0' if !b.get(2).is_some_and(u8::is_ascii_digit) => Some('\0'),
        _ => None,
    };
    if let Some(c) = simple {
        return (c.to_string(), 2);
    }
    match c {
        b'\r' if b.get(2) == Some(&b'\n') => (String::new(), 3),
        b'\n' | b'\r' => (String::new(), 2),
        b'x' => match s.get(2..4).and_then(hex).and_then(char::from_u32) {
            Some(c) => (c.to_string(), 4),
            None => ("x".to_owned(), 2),
        },
        b'u' => {
            if s[2..].starts_with('{')
                && let Some(close) = s[3..].find('}')
                && let Some(c) = hex(&s[3..3 + close]).and_then(char::from_u32)
            {
                return (c.to_string(), 3 + close + 1);
            }
            let Some(high) = s.get(2..6).and_then(hex) else {
                return ("u".to_owned(), 2);
            };
            if (0xD800..0xDC00).contains(&high)
                && s[6..].starts_with("\\u")
                && let Some(low) = s.get(8..12).and_then(hex)
                && (0xDC00..0xE000).contains(&low)
            {
                let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                return (char::from_u32(c).unwrap_or('\u{FFFD}').to_string(), 12);
            }
            (char::from_u32(high).unwrap_or('\u{FFFD}').to_string(), 6)
        }
        _ => {
            let c = s[1..]
                .chars()
                .next()
                .expect("a character after the backslash");
            if matches!(c, '\u{2028}' | '\u{2029}') {
                (String::new(), 1 + c.len_utf8())
            } else {
                (c.to_string(), 1 + c.len_utf8())
            }
        }
    }
}

/// An HTML character reference at the start of `s`: the decoded text and its length.
fn entity(s: &str) -> Option<(String, usize)> {
    let semi = s.get(..34).unwrap_or(s).find(';')?;
    let name = &s[1..semi];
    let c = if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        char::from_u32(code)?
    } else {
        named_entity(name)?
    };
    Some((c.to_string(), semi + 1))
}

fn named_entity(name: &str) -> Option<char> {
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => '\u{a0}',
        "shy" => '\u{ad}',
        "ensp" => '\u{2002}',
        "emsp" => '\u{2003}',
        "thinsp" => '\u{2009}',
        "hairsp" => '\u{200a}',
        "zwnj" => '\u{200c}',
        "zwj" => '\u{200d}',
        "ndash" => '–',
        "mdash" => '—',
        "minus" => '−',
        "hellip" => '…',
        "laquo" => '«',
        "raquo" => '»',
        "lsaquo" => '‹',
        "rsaquo" => '›',
        "bdquo" => '„',
        "ldquo" => '“',
        "rdquo" => '”',
        "sbquo" => '‚',
        "lsquo" => '‘',
        "rsquo" => '’',
        "copy" => '©',
        "reg" => '®',
        "trade" => '™',
        "times" => '×',
        "divide" => '÷',
        "plusmn" => '±',
        "deg" => '°',
        "euro" => '€',
        "middot" => '·',
        "bull" => '•',
        "sect" => '§',
        "para" => '¶',
        "dagger" => '†',
        "frac12" => '½',
        "larr" => '←',
        "rarr" => '→',
        "uarr" => '↑',
        "darr" => '↓',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy::extract::testing::{assert_maps_back, src_of, texts};

    fn views(src: &str) -> Vec<View> {
        let mut views = extract(src);
        views.sort_by_key(|v| v.source_offset(0));
        assert_maps_back(src, &views);
        views
    }

    #[test]
    fn string_literals_decode_escapes() {
        let src =
            r#"const a = 'it\'s v lese'; const b = "a\"b\u00e9\u{1F600}\uD83D\uDE00 \x41\n";"#;
        let v = views(src);
        assert_eq!(texts(&v), ["it's v lese", "a\"bé😀😀 A\n"]);
        assert_eq!(src_of(src, &v[0], "'s"), "\\'s");
        assert_eq!(src_of(src, &v[0], "v lese"), "v lese");
        assert_eq!(src_of(src, &v[1], "é"), "\\u00e9");
        assert_eq!(src_of(src, &v[1], "😀😀"), "\\u{1F600}\\uD83D\\uDE00");
        assert_eq!(src_of(src, &v[1], " A"), " \\x41");
    }

    #[test]
    fn comments_and_regexes_are_not_prose() {
        let src = "\
// 'not a string'
/* \"nor this\" */
const re = /['\"]+/g; const d = a / b / c; const t = 'yes';
function f() { return /\"/.test(y); }
const r = (1) / 2 + '/'; // `no`
";
        let v = views(src);
        assert_eq!(texts(&v), ["yes", "/"]);
    }

    #[test]
    fn template_literals_with_nested_expressions() {
        let src = "const t = `Ahoj ${user.name}, máš ${n > 1 ? `${n} zprávy` : 'zprávu'}\\n`;";
        let v = views(src);
        assert_eq!(
            texts(&v),
            ["Ahoj \u{FFFC}, máš \u{FFFC}\n", "\u{FFFC} zprávy", "zprávu"]
        );
        assert_eq!(src_of(src, &v[0], "\u{FFFC},"), "${user.name},");
        assert_eq!(src_of(src, &v[0], "\n"), "\\n");
        let src = "const s = css`color: red;`; const q = sql`select 1`; const c = styled.div`x: y`; const ok = t`Ahoj`;";
        assert_eq!(texts(&views(src)), ["Ahoj"]);
    }

    #[test]
    fn module_specifiers_keys_and_directives_are_skipped() {
        let src = "\
'use client';
import x from './x';
import './side.css';
export * from 'y';
const l = await import('./lazy');
const r = require('fs');
declare module 'z' {}
const o = { 'aria-label': 'Zavřít', b: cond ? 'ano' : 'ne' };
switch (k) { case 'a': break; }
const s = { className: 'border border-[#ccc]', href: '/a/b', d: 'M0 0L1 1', title: 'Nápověda' };
";
        let v = views(src);
        assert_eq!(texts(&v), ["Zavřít", "ano", "ne", "Nápověda"]);
    }

    #[test]
    fn jsx_text_joins_inline_elements_and_splits_blocks() {
        let src = "\
export function A() {
  return (
    <div className=\"card\" title=\"Titulek karty\">
      <p>
        Ahoj <b>světe</b>, jak se máš
        dnes?{' '}
        <Link to=\"/x\">Odkaz</Link>
      </p>
      <p>Cena: {price}&nbsp;Kč {/* komentář */}</p>
      <ul><li>Jedna</li><li>Dvě</li></ul>
      <p>Spusť <code>npm i</code> a<br/>hotovo</p>
      <pre>not prose</pre>
      <img src=\"a.png\" alt=\"Popis obrázku\" />
    </div>
  );
}
";
        let v = views(src);
        assert_eq!(
            texts(&v),
            [
                "Titulek karty",
                "Ahoj světe, jak se máš\ndnes? Odkaz",
                "Cena: \u{FFFC}\u{a0}Kč",
                "Jedna",
                "Dvě",
                "Spusť \u{FFFC} a\u{2028}hotovo",
                "Popis obrázku"
            ]
        );
        assert_eq!(src_of(src, &v[1], "máš\ndnes"), "máš\n        dnes");
        assert_eq!(
            src_of(src, &v[1], " Odkaz"),
            "{' '}\n        <Link to=\"/x\">Odkaz"
        );
        assert_eq!(src_of(src, &v[2], "\u{a0}"), "&nbsp;");
        assert_eq!(src_of(src, &v[5], "\u{FFFC}"), "<code>npm i</code>");
    }

    #[test]
    fn attribute_expressions() {
        let src = "const a = <Btn className={cn('px-2', x)} label={'Uložit'} onClick={() => alert(\"Hotovo\")} />;";
        let v = views(src);
        assert_eq!(texts(&v), ["Uložit", "Hotovo"]);
    }

    #[test]
    fn generics_are_not_jsx() {
        let src = "\
const id = <T,>(x: T) => x;
function f<T extends object>(x: T) { return 'a'; }
const g = <T>(x: T): T => x;
const n = <string>value;
const y = a < b && c > d ? 'yes' : 'no';
const j = <p>Text</p>;
";
        let v = views(src);
        assert_eq!(texts(&v), ["a", "yes", "no", "Text"]);
    }

    #[test]
    fn crlf_in_templates_and_jsx() {
        let src = "const t = `a\r\nb`;\r\nconst j = <p>\r\n  Jdu v\r\n  lese\r\n</p>;\r\n";
        let v = views(src);
        assert_eq!(texts(&v), ["a\nb", "Jdu v\nlese"]);
        assert_eq!(src_of(src, &v[0], "\n"), "\r\n");
        assert_eq!(src_of(src, &v[1], "\n"), "\r\n  ");
    }

    #[test]
    fn unterminated_constructs_do_not_panic() {
        for src in [
            "'abc", "`a ${b", "<p>text", "/* x", "a = /x", "<p {", "'\\", "`\\u{12",
        ] {
            let v = views(src);
            assert!(v.len() <= 2, "{src}: {v:?}");
        }
    }

    #[test]
    fn mdx_blocks_read_as_jsx_children() {
        let src = "<Card title=\"Titulek\">\n  Uvnitř {x} karty.\n</Card>\n";
        let v = jsx_block(src, 0..src.len(), |d| d);
        assert_maps_back(src, &v);
        assert_eq!(texts(&v), ["Titulek", "Uvnitř \u{FFFC} karty."]);
        let v = jsx_block("</Card>\nafter\n", 0..14, |d| d);
        assert_eq!(texts(&v), ["after"]);
    }

    #[test]
    fn entities() {
        assert_eq!(entity("&amp;x"), Some(("&".into(), 5)));
        assert_eq!(entity("&#233;"), Some(("é".into(), 6)));
        assert_eq!(entity("&#x1F600;"), Some(("😀".into(), 9)));
        assert_eq!(entity("&bogus;"), None);
        assert_eq!(entity("& a;"), None);
    }
}
