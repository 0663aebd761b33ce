//! JSX: telling an element from a type argument, then reading its attributes and
//! children into sentences. Expressions inside go back to the lexer over code.

use super::decode::entity;
use super::{Lexer, MAX_DEPTH, is_code_attribute, is_ident_byte, is_ident_start};
use crate::copy::extract::{Draft, HARD_BREAK, OBJECT};
use crate::copy::view::ViewRole;
use std::ops::Range;

/// JSX text being collected into one view.
#[derive(Debug, Default)]
pub(super) struct JsxText {
    draft: Draft,
    /// Blanks without a line break seen after the last piece: kept if more text follows.
    pending_blank: Option<Range<usize>>,
    /// Depth inside elements whose text is not prose (`code`, `pre`).
    mute: usize,
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
impl Lexer<'_> {
    /// Whether the `<` at `self.pos` starts a JSX element.
    pub(super) fn jsx_ahead(&mut self) -> bool {
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
    pub(super) fn jsx_root(&mut self, mute: bool) {
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
    pub(super) fn children(&mut self, mute: bool) {
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
    pub(super) fn boundary(&mut self) {
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
