//! Markdown and MDX: a view per paragraph, heading, list item, table cell and block-quote
//! paragraph, read with pulldown-cmark's source offsets.
//!
//! - Path hints are heading paths: `## Setup > ### Prerequisites` (each heading as `#`
//!   times its level, a space and its text, whatever its source style). A heading's own
//!   path ends with itself; views before the first heading have none.
//! - A view is built from the parser's event ranges. A text event equal to its source slice
//!   is verbatim, except that a backslash escape becomes an opaque piece over both bytes;
//!   anything else (an entity) is one opaque piece over the event.
//! - Bare URLs (`https://…`, `www.…`) are found in the finished text and replaced by a
//!   placeholder; pulldown-cmark does not know them.
//! - Front matter (a `---` line at the top, closed by `---` or `...`) is read as YAML with
//!   path hints below `frontmatter`; its `lang:` becomes the language hint of every body
//!   view (not of the front matter's own views). It is blanked out, byte for byte, before
//!   the body is parsed, so offsets need no adjusting and a `---` elsewhere stays a
//!   thematic break.
//! - MDX: top-level paragraphs starting with `import`/`export` are not prose; `{…}`
//!   expressions become a placeholder (comments vanish); JSX tags are markup. A JSX block
//!   (an HTML block to CommonMark) is read like JSX text in a script: tags dropped,
//!   expressions replaced, text between them kept, and the Markdown in that text read
//!   again (emphasis, inline code, links).

mod subset;

use super::draft::Edit;
use super::{Draft, ExtractError, HARD_BREAK, OBJECT, PathHints, bom_len, script, yaml};
use crate::copy::view::{View, ViewRole};
use memchr::memmem::Finder;
use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};
use std::ops::Range;
use std::sync::LazyLock;

pub(super) fn extract(text: &str, mdx: bool, hints: PathHints) -> Result<Vec<View>, ExtractError> {
    extract_with(text, mdx, !mdx, hints)
}

/// [`extract`], with the views of a file in the [`subset`] read without the parser when
/// `subset` is set (the tests compare the two).
fn extract_with(
    text: &str,
    mdx: bool,
    subset: bool,
    hints: PathHints,
) -> Result<Vec<View>, ExtractError> {
    // Sized for a block every couple of hundred bytes, as documentation runs: growing
    // the list by doubling copied it a few times per file.
    let mut views = Vec::with_capacity(text.len() / 192 + 1);
    let mut lang = None;
    let bom = bom_len(text);
    let mut hidden = 0..bom;
    if let Some(fm) = front_matter(text, bom) {
        // With hints whatever the caller wants: `lang` is found by its hint.
        let fm_views = yaml::extract_in(text, fm.body, Some("frontmatter"), PathHints::With)?;
        lang = fm_views
            .iter()
            .find(|v| v.path_hint.as_deref() == Some("frontmatter.lang"))
            .map(|v| v.text.trim().to_owned())
            .filter(|l| !l.is_empty());
        views.extend(fm_views);
        hidden = 0..fm.end;
    }
    let body = blank(text, hidden);
    let body = body.as_ref();
    if subset && subset::read(body, lang.clone(), hints, &mut views).is_some() {
        return Ok(views);
    }
    let mut walker = Walker {
        src: text,
        mdx,
        lang,
        views,
        headings: Headings::new(hints),
        block: None,
        skip: 0,
        autolink: false,
        containers: 0,
        pending_break: None,
    };
    for (event, range) in Parser::new_ext(body, options(mdx)).into_offset_iter() {
        walker.event(event, range);
    }
    walker.flush();
    Ok(walker.views)
}

/// Where a Markdown (or MDX) file holds code or markup no reader reads as prose: fenced
/// and indented code blocks, inline code, HTML blocks and inline HTML, and math, in
/// source order. What the structural segmenter tags `code`.
pub(crate) fn code_ranges(text: &str, mdx: bool) -> Vec<Range<usize>> {
    use pulldown_cmark::{Event, Tag};
    let bom = bom_len(text);
    let hidden = front_matter(text, bom).map_or(0..bom, |fm| 0..fm.end);
    let body = blank(text, hidden);
    let mut out: Vec<Range<usize>> = Vec::new();
    for (event, range) in Parser::new_ext(&body, options(mdx)).into_offset_iter() {
        let code = matches!(
            event,
            Event::Start(Tag::CodeBlock(_) | Tag::HtmlBlock)
                | Event::Code(_)
                | Event::InlineHtml(_)
                | Event::InlineMath(_)
                | Event::Html(_)
                | Event::DisplayMath(_)
        );
        // A block's own events (the HTML lines of an HTML block) lie inside it.
        if code && out.last().is_none_or(|last| range.start >= last.end) {
            out.push(range);
        }
    }
    out
}

fn options(mdx: bool) -> Options {
    // Never ENABLE_SMART_PUNCTUATION: it would turn `"` into `“` and hide what the quote
    // rules look for. Metadata blocks are handled here, not by the parser, which would
    // accept them anywhere in the file. In MDX a `{…}` after a heading is an expression,
    // not heading attributes.
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_MATH
        | Options::ENABLE_GFM;
    if mdx {
        options
    } else {
        options | Options::ENABLE_HEADING_ATTRIBUTES
    }
}

struct FrontMatter {
    /// The YAML between the delimiter lines.
    body: Range<usize>,
    /// End of the closing delimiter line.
    end: usize,
}

/// Front matter at `start`: a `---` line, a first line that is neither blank nor a
/// delimiter (as pulldown-cmark requires), and a closing `---` or `...` line.
fn front_matter(text: &str, start: usize) -> Option<FrontMatter> {
    let mut lines = text[start..].split_inclusive('\n').scan(start, |at, line| {
        let line_start = *at;
        *at += line.len();
        Some((line_start, line))
    });
    let is_delimiter = |line: &str, marks: &[&str]| marks.contains(&line.trim_end());
    let (_, open) = lines.next()?;
    if !is_delimiter(open, &["---"]) || !open.ends_with('\n') {
        return None;
    }
    let body_start = start + open.len();
    let mut first = true;
    for (at, line) in lines {
        let closing = is_delimiter(line, &["---", "..."]);
        if first && (closing || line.trim().is_empty()) {
            return None;
        }
        first = false;
        if closing {
            return Some(FrontMatter {
                body: body_start..at,
                end: at + line.len(),
            });
        }
    }
    None
}

/// `text` with `range` replaced by spaces (line breaks kept), so the parser sees blank
/// lines and every offset stays valid; `text` itself when the range is empty.
fn blank(text: &str, range: Range<usize>) -> std::borrow::Cow<'_, str> {
    if range.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut bytes = text.as_bytes().to_vec();
    for b in &mut bytes[range] {
        if !matches!(*b, b'\n' | b'\r') {
            *b = b' ';
        }
    }
    std::borrow::Cow::Owned(String::from_utf8(bytes).expect("whole characters replaced by ASCII"))
}

/// The headings open at a point of the document, and the path hint they make (none when
/// the views go without hints).
struct Headings {
    /// Level of each, and where its label ends in `path`.
    open: Vec<(u8, usize)>,
    /// The labels joined by ` > `: every view's path hint (none before the first
    /// heading). A heading truncates it to its parent's label and appends its own, so the
    /// labels are written once each.
    path: Option<String>,
    /// Path hints are wanted: headings are entered.
    on: bool,
}

impl Headings {
    fn new(hints: PathHints) -> Self {
        Headings {
            open: Vec::new(),
            path: None,
            on: hints.wanted(),
        }
    }

    /// A heading of `level` whose text is `text`: it closes the open headings of its level
    /// and deeper. Its label is `## Words`, the text with every run of blanks made one
    /// space.
    fn enter(&mut self, level: u8, text: &str) {
        if !self.on {
            return;
        }
        while self.open.last().is_some_and(|(l, _)| *l >= level) {
            self.open.pop();
        }
        let path = self.path.get_or_insert_with(String::new);
        match self.open.last() {
            Some(&(_, end)) => {
                path.truncate(end);
                path.push_str(" > ");
            }
            None => path.clear(),
        }
        path.extend(std::iter::repeat_n('#', usize::from(level)));
        for word in text.split_whitespace() {
            path.push(' ');
            path.push_str(word);
        }
        self.open.push((level, path.len()));
    }
}

/// The block whose inline content is being collected.
struct Block {
    draft: Draft,
    /// Level and marker offset for a heading.
    heading: Option<(u8, u32)>,
    /// A heading's text for path hints, inline code included (empty in other blocks).
    label: String,
    /// An MDX `import`/`export` paragraph: read, never a view.
    esm: bool,
}

impl Block {
    /// A block whose source is `len` bytes long: its view is about as long, so its text
    /// is allocated once.
    fn new(heading: Option<(u8, u32)>, esm: bool, len: usize) -> Self {
        Block {
            draft: Draft::with_capacity(len),
            heading,
            label: String::new(),
            esm,
        }
    }
}

struct Walker<'a> {
    src: &'a str,
    mdx: bool,
    lang: Option<String>,
    views: Vec<View>,
    headings: Headings,
    block: Option<Block>,
    /// Depth inside code blocks and HTML blocks, whose events are not prose.
    skip: usize,
    /// Inside an autolink, whose text is the URL.
    autolink: bool,
    /// Depth inside lists, block quotes, tables and footnotes (MDX `import` lines count
    /// only at the top level).
    containers: usize,
    /// A soft or hard line break waiting for the next piece: it covers the next line's
    /// indentation and block-quote markers, which are only known from the next event.
    pending_break: Option<(&'static str, Range<usize>)>,
}

impl Walker<'_> {
    fn event(&mut self, event: Event<'_>, range: Range<usize>) {
        match event {
            Event::Start(tag) => self.start(tag, range),
            Event::End(tag) => self.end(tag, range),
            Event::Text(text) => self.text(&text, range),
            Event::Code(code) => {
                if let Some(block) = self.inline_block(range.start)
                    && block.heading.is_some()
                {
                    block.label.push_str(&code);
                }
                self.placeholder(OBJECT, range);
            }
            Event::InlineMath(_) | Event::DisplayMath(_) => self.placeholder(OBJECT, range),
            Event::InlineHtml(html) => {
                let tag = html.trim().to_ascii_lowercase();
                if matches!(tag.as_str(), "<br>" | "<br/>" | "<br />") {
                    self.placeholder(HARD_BREAK, range);
                }
            }
            Event::SoftBreak => self.line_break("\n", range),
            Event::HardBreak => self.line_break(HARD_BREAK, range),
            Event::Rule => self.flush(),
            Event::Html(_) | Event::FootnoteReference(_) | Event::TaskListMarker(_) => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>, range: Range<usize>) {
        match tag {
            Tag::Paragraph => {
                self.flush();
                let esm = self.mdx && self.containers == 0 && is_esm(self.src, range.start);
                self.block = Some(Block::new(None, esm, range.len()));
            }
            Tag::Heading { level, .. } => {
                self.flush();
                let slice = &self.src[range.clone()];
                let marker = range.start + (slice.len() - slice.trim_start().len());
                self.block = Some(Block::new(
                    Some((level as u8, marker as u32)),
                    false,
                    range.len(),
                ));
            }
            Tag::Item => {
                // A tight item has no paragraph: its text comes straight in the item.
                self.flush();
                self.containers += 1;
                self.block = Some(Block::new(None, false, 0));
            }
            Tag::TableCell => {
                self.flush();
                self.block = Some(Block::new(None, false, range.len()));
            }
            Tag::CodeBlock(_) | Tag::HtmlBlock | Tag::MetadataBlock(_) => {
                self.flush();
                self.skip += 1;
            }
            Tag::List(_)
            | Tag::BlockQuote(_)
            | Tag::FootnoteDefinition(_)
            | Tag::Table(_)
            | Tag::TableHead
            | Tag::TableRow
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition => {
                self.flush();
                self.containers += 1;
            }
            Tag::Link {
                link_type: LinkType::Autolink | LinkType::Email,
                ..
            } => {
                self.placeholder(OBJECT, range);
                self.autolink = true;
            }
            Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Superscript
            | Tag::Subscript
            | Tag::Link { .. }
            | Tag::Image { .. } => {}
        }
    }

    fn end(&mut self, tag: TagEnd, range: Range<usize>) {
        match tag {
            TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::TableCell => self.flush(),
            TagEnd::CodeBlock | TagEnd::MetadataBlock(_) => self.skip -= 1,
            TagEnd::HtmlBlock => {
                self.skip -= 1;
                if self.mdx && self.skip == 0 {
                    let path = self.path();
                    let finish = |d: Draft| bare_urls(inline_markdown(d));
                    for mut view in script::jsx_block(self.src, range, finish) {
                        view.path_hint.clone_from(&path);
                        view.lang_hint.clone_from(&self.lang);
                        self.views.push(view);
                    }
                }
            }
            TagEnd::Item
            | TagEnd::List(_)
            | TagEnd::BlockQuote(_)
            | TagEnd::FootnoteDefinition
            | TagEnd::Table
            | TagEnd::TableHead
            | TagEnd::TableRow
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition => {
                self.flush();
                self.containers = self.containers.saturating_sub(1);
            }
            TagEnd::Link => self.autolink = false,
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Image => {}
        }
    }

    /// The block inline content at `at` goes to (opened if the parser gave none), with a
    /// pending line break resolved up to `at`; `None` where inline content is not prose.
    fn inline_block(&mut self, at: usize) -> Option<&mut Block> {
        if self.skip > 0 || self.autolink {
            return None;
        }
        let block = self.block.get_or_insert_with(|| Block::new(None, false, 0));
        if let Some((text, r)) = self.pending_break.take() {
            let b = self.src.as_bytes();
            let mut end = r.end;
            while end < at && matches!(b[end], b' ' | b'\t' | b'>') {
                end += 1;
            }
            block.draft.opaque(text, r.start..end);
            if block.heading.is_some() {
                block.label.push(' ');
            }
        }
        Some(block)
    }

    fn text(&mut self, text: &str, range: Range<usize>) {
        let src = self.src;
        let Some(block) = self.inline_block(range.start) else {
            return;
        };
        if block.heading.is_some() {
            block.label.push_str(text);
        }
        // The parser's text is usually the source slice itself: same address, no compare.
        let copied = src
            .get(range.clone())
            .is_some_and(|s| std::ptr::eq(s, text) || s == text);
        if !copied {
            // An entity or another decoded construct: one piece, never split.
            block.draft.opaque(text, range);
            return;
        }
        if is_escaped(src, range.start, block.draft.src_end().unwrap_or(0)) {
            block
                .draft
                .opaque(&text[..1], range.start - 1..range.start + 1);
            block.draft.verbatim(&text[1..], range.start + 1);
        } else {
            block.draft.verbatim(text, range.start);
        }
    }

    fn placeholder(&mut self, text: &str, range: Range<usize>) {
        if let Some(block) = self.inline_block(range.start) {
            block.draft.opaque(text, range);
        }
    }

    fn line_break(&mut self, text: &'static str, range: Range<usize>) {
        let b = self.src.as_bytes();
        let Some(block) = self.inline_block(range.start) else {
            return;
        };
        // Blanks before the line ending belong to the break.
        let floor = block.draft.src_end().unwrap_or(0);
        let mut start = range.start;
        while start > floor && matches!(b[start - 1], b' ' | b'\t') {
            start -= 1;
        }
        self.pending_break = Some((text, start..range.end));
    }

    /// The heading path of the current position.
    fn path(&self) -> Option<String> {
        self.headings.path.clone()
    }

    /// Finishes the open block into a view.
    fn flush(&mut self) {
        let Some(mut block) = self.block.take() else {
            return;
        };
        if let Some((text, r)) = self.pending_break.take() {
            block.draft.opaque(text, r);
        }
        if block.esm {
            return;
        }
        let mut draft = block.draft;
        if self.mdx {
            draft = mdx_inline(draft);
        }
        let draft = bare_urls(draft).trim();
        let role = match block.heading {
            Some((level, marker)) => {
                self.headings.enter(level, &block.label);
                ViewRole::Heading { level, marker }
            }
            None => ViewRole::Text,
        };
        let path = self.path();
        self.views
            .extend(draft.into_view(role, path, self.lang.clone()));
    }
}

/// Reads the Markdown inside a draft (the text of an MDX JSX block, where CommonMark saw
/// only HTML): emphasis markers and link destinations go, inline code becomes a
/// placeholder, escapes and entities are decoded. Everything maps back through the draft.
fn inline_markdown(draft: Draft) -> Draft {
    let text = draft.text();
    let mut out = Draft::new();
    let mut autolink = false;
    let mut copied = 0;
    for (event, range) in Parser::new_ext(text, options(true)).into_offset_iter() {
        match event {
            Event::Text(t) if !autolink => {
                if text.get(range.clone()) == Some(&*t) {
                    if is_escaped(text, range.start, copied) {
                        let escape = range.start - 1..range.start + 1;
                        out.opaque(&t[..1], draft.src_range(escape));
                        draft.copy_range(range.start + 1..range.end, &mut out);
                    } else {
                        draft.copy_range(range.clone(), &mut out);
                    }
                    copied = range.end;
                } else {
                    out.opaque(&t, draft.src_range(range));
                }
            }
            Event::Code(_) | Event::InlineMath(_) | Event::DisplayMath(_) => {
                out.opaque(OBJECT, draft.src_range(range));
            }
            Event::SoftBreak | Event::HardBreak => draft.copy_range(range, &mut out),
            Event::Start(Tag::Link {
                link_type: LinkType::Autolink | LinkType::Email,
                ..
            }) => {
                out.opaque(OBJECT, draft.src_range(range));
                autolink = true;
            }
            Event::End(TagEnd::Link) => autolink = false,
            Event::End(TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::Item)
                if text[..range.end].ends_with('\n') && !out.text().ends_with('\n') =>
            {
                // Block structure inside the text: keep the blocks apart with the line
                // break that separated them.
                draft.copy_range(range.end - 1..range.end, &mut out);
            }
            _ => {}
        }
    }
    out
}

/// Whether the text event starting at `start` follows an escaping backslash (one not
/// already part of the view, which ends at `consumed`). The parser starts the text after
/// the backslash; the view keeps the two together as one opaque piece.
fn is_escaped(text: &str, start: usize, consumed: usize) -> bool {
    let b = text.as_bytes();
    start > consumed && b[start - 1] == b'\\' && b.get(start).is_some_and(u8::is_ascii_punctuation)
}

/// An MDX `import`/`export` statement at the start of a line.
fn is_esm(src: &str, at: usize) -> bool {
    let line_start = at == 0 || src.as_bytes()[at - 1] == b'\n';
    let rest = &src[at..];
    line_start
        && ["import", "export"].iter().any(|kw| {
            rest.strip_prefix(kw)
                .is_some_and(|r| r.starts_with([' ', '\t', '{', '*']))
        })
}

/// MDX expressions and JSX tags the parser left in the text.
fn mdx_inline(draft: Draft) -> Draft {
    let text = draft.text();
    let b = text.as_bytes();
    let mut edits = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let found = match b[i] {
            b'{' if draft.is_verbatim_at(i) => balanced(text, i).map(|end| {
                let inner = text[i + 1..end - 1].trim();
                let comment = inner.starts_with("/*") && inner.ends_with("*/");
                let with = (!comment && !inner.is_empty()).then_some(OBJECT);
                Edit {
                    range: i..end,
                    with,
                }
            }),
            b'<' if draft.is_verbatim_at(i) && starts_tag(&b[i + 1..]) => {
                tag_end(text, i).map(|end| Edit {
                    range: i..end,
                    with: None,
                })
            }
            _ => None,
        };
        match found {
            Some(edit) => {
                i = edit.range.end;
                edits.push(edit);
            }
            None => i += 1,
        }
    }
    draft.apply(&edits)
}

/// After `<`: a tag name, a closing slash or a fragment.
fn starts_tag(rest: &[u8]) -> bool {
    match rest {
        [b'>', ..] => true,
        [b'/', c, ..] => c.is_ascii_alphabetic() || *c == b'>',
        [c, ..] => c.is_ascii_alphabetic(),
        [] => false,
    }
}

/// End (exclusive) of the `{…}` starting at `open`, skipping strings and nested braces.
fn balanced(text: &str, open: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            q @ (b'"' | b'\'' | b'`') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// End (exclusive) of the JSX tag starting at `open`, skipping quoted values and `{…}`.
fn tag_end(text: &str, open: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = open + 1;
    while i < b.len() {
        match b[i] {
            b'>' => return Some(i + 1),
            b'{' => i = balanced(text, i)? - 1,
            q @ (b'"' | b'\'') => i += memchr::memchr(q, &b[i + 1..])? + 1,
            b'<' => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// Replaces bare URLs with a placeholder.
fn bare_urls(draft: Draft) -> Draft {
    let text = draft.text();
    let b = text.as_bytes();
    // Most paragraphs hold neither `://` nor `www.`. Two searchers built once say so
    // faster than one pass for the first bytes of both: each tests a pair of its bytes
    // (`:` and `/`, `w` and `.`) a block at a time, where the pass stopped at every `w`
    // of English prose (the English extract bench: 499 → 418 µs).
    static SCHEME: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("://"));
    static WWW: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("www."));
    if SCHEME.find(b).is_none() && WWW.find(b).is_none() {
        return draft;
    }
    const PREFIXES: [&str; 4] = ["https://", "http://", "ftp://", "www."];
    // Where a prefix starts: found from the rarer `://` and `www.` (testing each prefix
    // at every byte was a twentieth of a cold audit, and at every `h`, `f` and `w` still a
    // sixtieth).
    let mut starts: Vec<(usize, usize)> = SCHEME
        .find_iter(b)
        .filter_map(|colon| {
            PREFIXES[..3].iter().find_map(|p| {
                let start = colon.checked_sub(p.len() - 3)?;
                b[start..]
                    .starts_with(p.as_bytes())
                    .then_some((start, p.len()))
            })
        })
        .chain(WWW.find_iter(b).map(|w| (w, 4)))
        .collect();
    if starts.is_empty() {
        return draft;
    }
    starts.sort_unstable();
    let mut edits = Vec::new();
    let mut done = 0;
    for (i, prefix) in starts {
        // Only ASCII bytes start a prefix, so `i` is on a character boundary.
        if i < done || (i > 0 && text[..i].chars().next_back().is_some_and(is_word_char)) {
            continue;
        }
        if let Some(end) = url_end(text, i, prefix) {
            edits.push(Edit {
                range: i..end,
                with: Some(OBJECT),
            });
            done = end;
        }
    }
    draft.apply(&edits)
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '/' | '.' | '@' | '-')
}

/// End of a URL starting at `start` (GFM rules: up to a blank or `<`, without trailing
/// punctuation or an unbalanced closing parenthesis); `None` when nothing follows the
/// prefix.
fn url_end(text: &str, start: usize, prefix: usize) -> Option<usize> {
    let rest = &text[start..];
    let mut end = rest
        .find(|c: char| c.is_whitespace() || matches!(c, '<' | '\u{FFFC}' | '\u{2028}'))
        .unwrap_or(rest.len());
    loop {
        let url = &rest[..end];
        match url.chars().next_back() {
            Some('?' | '!' | '.' | ',' | ':' | '*' | '_' | '~' | '\'' | '"' | ';') => end -= 1,
            Some(')') if url.matches(')').count() > url.matches('(').count() => end -= 1,
            _ => break,
        }
    }
    // Trailing punctuation can reach back into the prefix itself (`www.` alone).
    let host = rest.get(prefix..end)?.chars().next();
    host.is_some_and(|c| c.is_alphanumeric())
        .then_some(start + end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy::extract::testing::{assert_maps_back, hints, src_of, texts};
    use proptest::prelude::*;

    /// Bare URLs found by testing every prefix at every byte: the definition.
    fn bare_urls_everywhere(text: &str) -> Vec<Range<usize>> {
        let mut found = Vec::new();
        let mut i = 0;
        while i < text.len() {
            let prefix = ["https://", "http://", "ftp://", "www."]
                .into_iter()
                .find(|p| text.as_bytes()[i..].starts_with(p.as_bytes()));
            if let Some(prefix) = prefix
                && (i == 0 || !text[..i].chars().next_back().is_some_and(is_word_char))
                && let Some(end) = url_end(text, i, prefix.len())
            {
                found.push(i..end);
                i = end;
            } else {
                i += text[i..].chars().next().map_or(1, char::len_utf8);
            }
        }
        found
    }

    const URL_PIECES: &[&str] = &[
        "https://", "http://", "ftp://", "www.", "://", "x.cz", " ", "a", "(", ")", ".", "h", "w",
        "/", ":", "é", "\u{fffc}", "<",
    ];

    proptest! {
        #[test]
        fn bare_urls_are_the_prefixes_found_anywhere(
            picks in proptest::collection::vec(0..URL_PIECES.len(), 0..24),
        ) {
            let text: String = picks.iter().map(|&i| URL_PIECES[i]).collect();
            let mut draft = Draft::new();
            draft.verbatim(&text, 0);
            let replaced = bare_urls(draft);
            let mut expected = Draft::new();
            expected.verbatim(&text, 0);
            let edits: Vec<Edit> = bare_urls_everywhere(&text)
                .into_iter()
                .map(|range| Edit { range, with: Some(OBJECT) })
                .collect();
            prop_assert_eq!(replaced, expected.apply(&edits));
        }
    }

    fn md(src: &str) -> Vec<View> {
        let views = extract(src, false, PathHints::With).unwrap();
        assert_maps_back(src, &views);
        views
    }

    /// A URL prefix with nothing after it stays prose; it used to end the audit with a
    /// panic, the trailing full stop reaching back into `www.`.
    #[test]
    fn a_prefix_alone_is_not_a_url() {
        let views = md("Navštivte www. dnes, nebo http://. Díky.\n");
        assert_eq!(texts(&views), ["Navštivte www. dnes, nebo http://. Díky."]);
    }

    fn mdx(src: &str) -> Vec<View> {
        let views = extract(src, true, PathHints::With).unwrap();
        assert_maps_back(src, &views);
        views
    }

    #[test]
    fn inline_markup_does_not_split_a_sentence() {
        let src = "Jdu v **lese** a _dál_ ~~pryč~~.\n";
        let v = md(src);
        assert_eq!(texts(&v), ["Jdu v lese a dál pryč."]);
        assert_eq!(src_of(src, &v[0], "v lese"), "v **lese");
        assert_eq!(src_of(src, &v[0], "lese"), "lese");
    }

    #[test]
    fn a_soft_break_is_one_opaque_newline_over_the_indentation() {
        let src = "Jdu v\n   lese a\r\n\tz\n";
        let v = md(src);
        assert_eq!(v[0].text, "Jdu v\nlese a\nz");
        let nl = v[0].text.find('\n').unwrap();
        assert_eq!(v[0].source_range(nl..nl + 1), 5..9);
        assert!(!v[0].is_verbatim(nl..nl + 1));
        assert_eq!(src_of(src, &v[0], "a\nz"), "a\r\n\tz");
        // Trailing blanks before the line ending are part of the break too.
        let src = "v\t\nlese\n";
        let v = md(src);
        assert_eq!(v[0].text, "v\nlese");
        assert_eq!(src_of(src, &v[0], "\n"), "\t\n");
        let src = "v \nlese\n";
        assert_eq!(src_of(src, &md(src)[0], "\n"), " \n");
    }

    #[test]
    fn hard_breaks() {
        let src = "a  \n  b\\\nc\n";
        let v = md(src);
        assert_eq!(v[0].text, "a\u{2028}b\u{2028}c");
        assert_eq!(src_of(src, &v[0], "\u{2028}b"), "  \n  b");
        assert_eq!(src_of(src, &v[0], "\u{2028}c"), "\\\nc");
    }

    #[test]
    fn code_html_and_link_destinations_are_not_prose() {
        let src = "\
Run `cargo test` now <b>v</b> [odkaz](https://x.cz \"Titulek\") ![obr *x*](a.png).

```rust
let v = \"lese\";
```

    indented code

<div>
HTML block
</div>

Mail <a@b.cz>, <https://a.b/c>, https://c.d/e_f. and www.example.com!
Math $x^2$ and $$y$$.
";
        let v = md(src);
        assert_eq!(
            texts(&v),
            [
                "Run \u{FFFC} now v odkaz obr x.",
                "Mail \u{FFFC}, \u{FFFC}, \u{FFFC}. and \u{FFFC}!\nMath \u{FFFC} and \u{FFFC}."
            ]
        );
        assert_eq!(src_of(src, &v[0], "\u{FFFC}"), "`cargo test`");
        assert_eq!(
            src_of(src, &v[1], "\u{FFFC}, \u{FFFC}, "),
            "<a@b.cz>, <https://a.b/c>, "
        );
        let url = src_of(src, &v[1], "\u{FFFC}. and");
        assert_eq!(url, "https://c.d/e_f. and");
        assert_eq!(src_of(src, &v[1], "\u{FFFC}!"), "www.example.com!");
    }

    #[test]
    fn escapes_and_entities_are_opaque() {
        let src = "a \\*b\\* &amp; &nbsp;c &#233; \\\\d\n";
        let v = md(src);
        assert_eq!(v[0].text, "a *b* & \u{a0}c é \\d");
        assert_eq!(src_of(src, &v[0], "*b"), "\\*b");
        assert_eq!(src_of(src, &v[0], "b*"), "b\\*");
        assert_eq!(src_of(src, &v[0], "&"), "&amp;");
        assert_eq!(src_of(src, &v[0], "\u{a0}c"), "&nbsp;c");
        assert_eq!(src_of(src, &v[0], "é"), "&#233;");
        assert_eq!(src_of(src, &v[0], "\\d"), "\\\\d");
        let star = v[0].text.find('*').unwrap();
        assert!(!v[0].is_verbatim(star..star + 1));
    }

    #[test]
    fn headings_mark_their_first_character_and_build_paths() {
        let src = "\
Intro text.

# Úvod *kurzu*

  ## Setup {#setup}

Body.

Setext `code`
---

### Prerequisites

Deep.

# Second
";
        let v = md(src);
        assert_eq!(
            texts(&v),
            [
                "Intro text.",
                "Úvod kurzu",
                "Setup",
                "Body.",
                "Setext \u{FFFC}",
                "Prerequisites",
                "Deep.",
                "Second"
            ]
        );
        assert_eq!(
            hints(&v),
            [
                None,
                Some("# Úvod kurzu"),
                Some("# Úvod kurzu > ## Setup"),
                Some("# Úvod kurzu > ## Setup"),
                Some("# Úvod kurzu > ## Setext code"),
                Some("# Úvod kurzu > ## Setext code > ### Prerequisites"),
                Some("# Úvod kurzu > ## Setext code > ### Prerequisites"),
                Some("# Second"),
            ]
        );
        let marker = |i: usize| match v[i].role {
            ViewRole::Heading { marker, level } => (marker as usize, level),
            ViewRole::Text => panic!("not a heading"),
        };
        assert_eq!(marker(1), (src.find("# Úvod").unwrap(), 1));
        assert_eq!(marker(2), (src.find("## Setup").unwrap(), 2));
        assert_eq!(marker(4), (src.find("Setext").unwrap(), 2));
        assert_eq!(v[0].role, ViewRole::Text);
    }

    proptest! {
        /// The path after each heading is the labels of the open headings joined, each
        /// `#` times its level and its words: a heading closes those of its level and
        /// deeper.
        #[test]
        fn a_heading_path_is_the_open_labels_joined(
            headings in proptest::collection::vec(
                (1u8..=6, prop::sample::select(&["A", " b  c ", "Úvod\tkurzu", "", "x\u{a0}y"][..])),
                1..12,
            ),
        ) {
            let mut path = Headings::new(PathHints::With);
            let mut open: Vec<(u8, String)> = Vec::new();
            for (level, text) in headings {
                path.enter(level, text);
                open.retain(|(l, _)| *l < level);
                let words: Vec<&str> = text.split_whitespace().collect();
                let label = std::iter::once("#".repeat(usize::from(level)))
                    .chain(words.iter().map(|w| format!(" {w}")))
                    .collect::<String>();
                open.push((level, label));
                let labels: Vec<&str> = open.iter().map(|(_, l)| l.as_str()).collect();
                let expected = labels.join(" > ");
                prop_assert_eq!(path.path.as_deref(), Some(expected.as_str()));
            }
        }
    }

    #[test]
    fn lists_quotes_tables_and_footnotes() {
        let src = "\
- první **bod**
- druhý
  - vnořený
- [ ] úkol

1. loose

   second para

> citát
> dál

| a | b \\| c |
|---|---|
| `x` y | z |

Text[^1].

[^1]: Poznámka.
";
        let v = md(src);
        assert_eq!(
            texts(&v),
            [
                "první bod",
                "druhý",
                "vnořený",
                "úkol",
                "loose",
                "second para",
                "citát\ndál",
                "a",
                "b | c",
                "\u{FFFC} y",
                "z",
                "Text.",
                "Poznámka."
            ]
        );
        assert_eq!(src_of(src, &v[8], "| c"), "\\| c");
        assert_eq!(src_of(src, &v[6], "\ndál"), "\n> dál");
    }

    #[test]
    fn front_matter_becomes_views_and_a_language_hint() {
        let src = "---\ntitle: Úvod do kurzu\nlang: cs\ntags:\n  - první\nmeta:\n  a: b\n---\n# Nadpis\n\nText v lese.\n\n---\n\nKonec.\n";
        let v = md(src);
        assert_eq!(
            texts(&v),
            [
                "Úvod do kurzu",
                "cs",
                "první",
                "b",
                "Nadpis",
                "Text v lese.",
                "Konec."
            ]
        );
        assert_eq!(
            hints(&v)[..4],
            [
                Some("frontmatter.title"),
                Some("frontmatter.lang"),
                Some("frontmatter.tags[0]"),
                Some("frontmatter.meta.a")
            ]
        );
        assert_eq!(v[0].lang_hint, None);
        for body in &v[4..] {
            assert_eq!(body.lang_hint.as_deref(), Some("cs"));
        }
        assert_eq!(src_of(src, &v[0], "do kurzu"), "do kurzu");
    }

    #[test]
    fn front_matter_needs_its_delimiters() {
        // A leading thematic break with a blank line after it is not front matter.
        let v = md("---\n\nText.\n\n---\n");
        assert_eq!(texts(&v), ["Text."]);
        // Unclosed: Markdown all the way.
        let v = md("---\ntitle: x\n");
        assert_eq!(texts(&v), ["title: x"]);
        // `...` closes, CRLF works, a BOM is not text.
        let src = "\u{FEFF}---\r\ntitle: a\r\n...\r\nBody\r\nnext\r\n";
        let v = md(src);
        assert_eq!(texts(&v), ["a", "Body\nnext"]);
        assert_eq!(src_of(src, &v[1], "\n"), "\r\n");
    }

    #[test]
    fn broken_front_matter_is_an_error_at_its_offset() {
        let src = "---\ntitle: a: b\n---\nBody\n";
        let e = extract(src, false, PathHints::With).unwrap_err();
        assert!(e.message.contains("YAML"), "{e:?}");
        assert!(e.offset > 4 && e.offset < 16, "{e:?}");
    }

    #[test]
    fn crlf_documents() {
        let src = "# Nadpis\r\n\r\nJdu v\r\n  lese.\r\n\r\n- a\r\n- b\r\n";
        let v = md(src);
        assert_eq!(texts(&v), ["Nadpis", "Jdu v\nlese.", "a", "b"]);
        assert_eq!(src_of(src, &v[1], "\n"), "\r\n  ");
        for view in &v {
            assert!(!view.text.contains('\r'));
        }
    }

    #[test]
    fn mdx_imports_expressions_and_jsx() {
        let src = "\
import { Card } from './card'
export const meta = { title: 'x' }

# Ahoj {props.name}

Text v <Badge>novém</Badge> {count} okně {/* komentář */} a <Tip x={a + b}>tip</Tip>.

<Card title=\"Titulek\">
  Uvnitř *karty* {value}.
</Card>

Konec.
";
        let v = mdx(src);
        assert_eq!(
            texts(&v),
            [
                "Ahoj \u{FFFC}",
                "Text v novém \u{FFFC} okně  a tip.",
                "Titulek",
                "Uvnitř karty \u{FFFC}.",
                "Konec."
            ]
        );
        assert_eq!(src_of(src, &v[1], "\u{FFFC}"), "{count}");
        assert_eq!(v[3].path_hint.as_deref(), Some("# Ahoj {props.name}"));
        // Markdown inside a JSX block is read too, and maps back through the block.
        assert_eq!(src_of(src, &v[3], "karty"), "karty");
        assert_eq!(src_of(src, &v[3], "Uvnitř karty"), "Uvnitř *karty");
        let src = "<Tip>\n  A \\*b\\* `c`.\n</Tip>\n";
        let v = mdx(src);
        assert_eq!(texts(&v), ["A *b* \u{FFFC}."]);
        assert_eq!(src_of(src, &v[0], "*b"), "\\*b");
        assert_eq!(src_of(src, &v[0], "\u{FFFC}"), "`c`");
    }

    #[test]
    fn markdown_keeps_braces_and_skips_html_blocks() {
        let v = md("Set {a} here.\n\n<Card>\nText\n</Card>\n");
        assert_eq!(texts(&v), ["Set {a} here."]);
    }
}
