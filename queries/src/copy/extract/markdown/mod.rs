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
//!
//! The walk over the parser's events is in `walker`, the views of plain Markdown read
//! without the parser in `subset`, front matter in `front_matter`, the heading path in
//! `headings`, what MDX adds in `mdx` and bare URLs in `urls`.

mod front_matter;
mod headings;
mod mdx;
mod subset;
#[cfg(test)]
mod tests;
mod urls;
mod walker;

use super::{ExtractError, PathHints, bom_len, yaml};
use crate::copy::view::View;
use front_matter::{blank, front_matter};
use pulldown_cmark::{Options, Parser};
use std::ops::Range;

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
    Ok(walker::walk(text, body, mdx, lang, views, hints))
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
