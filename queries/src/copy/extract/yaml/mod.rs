//! YAML: one view per string scalar value (never keys), with its key path.
//!
//! `saphyr-parser` gives scalar events with spans in characters; [`CharIndex`] turns them
//! into byte offsets. The parser hands back decoded values only, so each scalar style is
//! decoded again here, piece by piece, to map every character back: line contents are
//! verbatim, a folded line break (with the trailing blanks before it and the next line's
//! indentation) is one opaque piece, and so are `''` and backslash escapes. The result is
//! checked against the parser's value; should the two ever disagree (an explicit
//! indentation indicator, a construct this module does not know), the view falls back to
//! one opaque piece over the whole scalar, which still starts at the right place.
//!
//! Plain scalars that the YAML 1.2 core schema reads as null, booleans or numbers are not
//! strings and give no view; quoted and block scalars always are strings. Several
//! documents in one file share the same key paths.
//!
//! The key path is followed in `walk`, strings are told apart in `schema`, each scalar is
//! mapped back onto its source in `scalar`, and character indices become byte offsets in
//! `char_index`; here is the loop over the parser's events.

mod char_index;
mod scalar;
mod schema;
#[cfg(test)]
mod tests;
mod walk;

use super::{ExtractError, PathHints, bom_len};
use crate::copy::view::{View, ViewRole};
use char_index::CharIndex;
use saphyr_parser::{Event, Parser};
use scalar::map_scalar;
use schema::is_string;
use std::ops::Range;
use walk::{Frame, Walk};

pub(super) fn extract(text: &str, hints: PathHints) -> Result<Vec<View>, ExtractError> {
    extract_in(text, bom_len(text)..text.len(), None, hints)
}

/// The views of the YAML document in `text[range]`, with path hints below `root`
/// (Markdown front matter is `frontmatter`) if `hints` asks for them.
pub(super) fn extract_in(
    text: &str,
    range: Range<usize>,
    root: Option<&str>,
    hints: PathHints,
) -> Result<Vec<View>, ExtractError> {
    let src = &text[range.clone()];
    let base = range.start;
    let chars = CharIndex::new(src);
    let mut walk = Walk::default();
    let mut views = Vec::new();
    for event in Parser::new_from_str(src) {
        let (event, span) = event.map_err(|e| {
            ExtractError::new(
                base + chars.byte(e.marker().index()),
                format!("invalid YAML: {}", e.info()),
            )
        })?;
        let span = chars.byte(span.start.index())..chars.byte(span.end.index());
        match event {
            Event::DocumentStart(_) => walk = Walk::default(),
            Event::Scalar(value, style, _, tag) => {
                if !walk.scalar(value.clone()) {
                    continue;
                }
                if is_string(&value, style, tag.as_deref()) && !value.is_empty() {
                    let mut draft = map_scalar(src, span, style, &value);
                    draft.shift(base);
                    let hint = hints.of(root, &walk.steps);
                    views.extend(draft.into_view_unless_empty(ViewRole::Text, hint, None));
                }
                walk.done_value();
            }
            Event::Alias(_) => walk.alias(),
            Event::MappingStart(..) => walk.start(Frame::Map { want_key: true }),
            Event::SequenceStart(..) => walk.start(Frame::Seq { next: 0 }),
            Event::MappingEnd | Event::SequenceEnd => walk.end(),
            _ => {}
        }
    }
    Ok(views)
}
