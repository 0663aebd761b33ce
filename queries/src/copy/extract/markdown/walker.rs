//! The walk over pulldown-cmark's events: blocks opened and closed, inline events turned
//! into the pieces of a draft, each finished block turned into a view. Every MDX file,
//! and every Markdown file outside the [`super::subset`], is read this way; the subset
//! reader makes the same views without the parser.

use super::super::{Draft, HARD_BREAK, OBJECT, PathHints, script};
use super::headings::Headings;
use super::mdx::{inline_markdown, is_esm, mdx_inline};
use super::options;
use super::urls::bare_urls;
use crate::copy::view::{View, ViewRole};
use pulldown_cmark::{Event, LinkType, Parser, Tag, TagEnd};
use std::ops::Range;

/// The views of the Markdown `body` (`text` with its front matter blanked out), appended
/// to `views` as the parser's events are walked.
pub(super) fn walk(
    text: &str,
    body: &str,
    mdx: bool,
    lang: Option<String>,
    views: Vec<View>,
    hints: PathHints,
) -> Vec<View> {
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
    walker.views
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

/// Whether the text event starting at `start` follows an escaping backslash (one not
/// already part of the view, which ends at `consumed`). The parser starts the text after
/// the backslash; the view keeps the two together as one opaque piece.
pub(super) fn is_escaped(text: &str, start: usize, consumed: usize) -> bool {
    let b = text.as_bytes();
    start > consumed && b[start - 1] == b'\\' && b.get(start).is_some_and(u8::is_ascii_punctuation)
}
