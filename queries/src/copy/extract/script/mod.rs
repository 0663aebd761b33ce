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
//!
//! The lexer over code is in `code`, JSX in `jsx`, escapes and entities in `decode`; here
//! are the entry points, the lexer's state and the tables of names it consults.

mod code;
mod decode;
mod jsx;
#[cfg(test)]
mod tests;

use super::{Draft, bom_len};
use crate::copy::view::View;
use jsx::JsxText;
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
}
