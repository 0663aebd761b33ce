//! Prose views: the text a reader sees, with a map back to the source bytes.
//!
//! Rules never see markup or escapes. An extractor builds each view from pieces that are
//! either copied verbatim from the source (a byte of view = a byte of source) or
//! *opaque* (a decoded escape, an entity, a soft line break: the view text stands for a
//! whole source range that cannot be split). A view range maps back to the smallest source
//! range that covers it, so a fix never cuts an escape or a line break in half.

use crate::copy::language::Evidence;
use std::ops::Range;

/// What a view was extracted from. Rules that care about structure (headings) look here.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ViewRole {
    /// Running text: a paragraph, list item, table cell, block quote, a string value.
    Text,
    /// A Markdown heading; `marker` is the source offset of its first `#` (or of the first
    /// character of a setext heading), which is where heading rules report.
    Heading { level: u8, marker: u32 },
}

/// One contiguous piece of a view and the source range it came from; it ends where the
/// next begins (the last at the end of the text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Segment {
    pub view_start: u32,
    pub src_start: u32,
    /// Source end; for a verbatim piece `src_end - src_start == view length`.
    pub src_end: u32,
    pub verbatim: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct View {
    pub text: String,
    pub role: ViewRole,
    /// Where the text came from inside a structured file (`meta.en.title`,
    /// `frontmatter.title`, `## Setup`), as in the lockfile's `pathHint`.
    pub path_hint: Option<String>,
    /// A language the file format itself declares for this text (front matter `lang:`).
    pub lang_hint: Option<String>,
    segments: Vec<Segment>,
    /// The text's language evidence, counted the first time it is asked for: the
    /// structural segmenter and the Czech gate of the rules read the same one.
    evidence: Memo<Evidence>,
}

/// A value computed from the rest of a [`View`] on first use: no part of the view's
/// identity (equal and hashed alike whether computed or not), since it follows from the
/// text.
#[derive(Clone, Debug, Default)]
struct Memo<T>(std::sync::OnceLock<T>);

impl<T> PartialEq for Memo<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> Eq for Memo<T> {}

impl<T> std::hash::Hash for Memo<T> {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

impl View {
    /// The [language evidence](crate::copy::language::evidence) of the text, counted once.
    pub fn evidence(&self) -> Evidence {
        *self
            .evidence
            .0
            .get_or_init(|| crate::copy::language::evidence(&self.text))
    }

    /// Takes `evidence` as the text's, counted elsewhere for an equal text.
    pub(crate) fn set_evidence(&self, evidence: Evidence) {
        let _ = self.evidence.0.set(evidence);
    }

    /// The view as the rules see it, wherever it stands in its file: the source map moved
    /// to start at 0. Rules read only the map's shape (which pieces are verbatim, how long
    /// their sources are), so they find the same hits in both; an edit above the view
    /// leaves this equal, which is what lets a live session keep each view's hits.
    pub fn rebased(&self) -> View {
        let mut view = self.clone();
        if let Some(base) = view.segments.iter().map(|s| s.src_start).min() {
            for s in &mut view.segments {
                s.src_start -= base;
                s.src_end -= base;
            }
        }
        view
    }

    /// Source byte offset of view byte `at` (the start of the piece for opaque pieces).
    pub fn source_offset(&self, at: usize) -> usize {
        if self.segments.is_empty() {
            return 0;
        }
        let seg = &self.segments[self.segment_of(at)];
        if seg.verbatim {
            (seg.src_start as usize + (at - seg.view_start as usize)).min(seg.src_end as usize)
        } else {
            seg.src_start as usize
        }
    }

    /// The source range covering view range `range`. Opaque pieces are never split.
    pub fn source_range(&self, range: Range<usize>) -> Range<usize> {
        let start = self.source_offset(range.start);
        if range.is_empty() {
            return start..start;
        }
        let last = range.end - 1;
        let seg = &self.segments[self.segment_of(last)];
        let end = if seg.verbatim {
            seg.src_start as usize + (range.end - seg.view_start as usize)
        } else {
            seg.src_end as usize
        };
        start..end.max(start)
    }

    /// Index of the segment holding view byte `at` (the last segment for `at == len`).
    fn segment_of(&self, at: usize) -> usize {
        self.segments
            .partition_point(|s| s.view_start as usize <= at)
            .saturating_sub(1)
    }

    /// Whether view range `range` is a faithful copy of its source range, so replacing
    /// the source range is the same as replacing the view text.
    pub fn is_verbatim(&self, range: Range<usize>) -> bool {
        if range.is_empty() {
            return true;
        }
        let first = self.segment_of(range.start);
        let last = self.segment_of(range.end - 1);
        self.segments[first..=last].iter().all(|s| s.verbatim)
    }
}

/// Builds a [`View`] piece by piece, in source order.
#[derive(Debug)]
pub struct ViewBuilder {
    view: View,
}

impl ViewBuilder {
    pub fn new(role: ViewRole) -> Self {
        ViewBuilder {
            view: View {
                text: String::new(),
                role,
                path_hint: None,
                lang_hint: None,
                segments: Vec::new(),
                evidence: Memo::default(),
            },
        }
    }

    pub fn path_hint(mut self, hint: Option<String>) -> Self {
        self.view.path_hint = hint;
        self
    }

    pub fn lang_hint(mut self, hint: Option<String>) -> Self {
        self.view.lang_hint = hint;
        self
    }

    pub fn is_empty(&self) -> bool {
        self.view.text.is_empty()
    }

    pub fn text(&self) -> &str {
        &self.view.text
    }

    /// Appends `text`, which is byte for byte the source starting at `src_start`.
    pub fn verbatim(&mut self, text: &str, src_start: usize) {
        let at = self.view.text.len();
        self.view.text.push_str(text);
        self.mark_verbatim(at..self.view.text.len(), src_start);
    }

    /// Appends `text`, which stands for the whole source range `src` (an escape, an entity,
    /// a line break with the next line's indentation).
    pub fn opaque(&mut self, text: &str, src: Range<usize>) {
        let at = self.view.text.len();
        self.view.text.push_str(text);
        self.mark_opaque(at..self.view.text.len(), src);
    }

    /// Marks view range `view`, the last so far, as the source from `src_start` on.
    fn mark_verbatim(&mut self, view: Range<usize>, src_start: usize) {
        if view.is_empty() {
            return;
        }
        let view_start = view.start as u32;
        let src_end = (src_start + view.len()) as u32;
        if let Some(last) = self.view.segments.last_mut()
            && last.verbatim
            && last.src_end == src_start as u32
            && last.view_start + (last.src_end - last.src_start) == view_start
        {
            last.src_end = src_end;
        } else {
            self.view.segments.push(Segment {
                view_start,
                src_start: src_start as u32,
                src_end,
                verbatim: true,
            });
        }
    }

    /// Marks view range `view`, the last so far, as standing for the whole of `src`.
    fn mark_opaque(&mut self, view: Range<usize>, src: Range<usize>) {
        if view.is_empty() {
            return;
        }
        self.view.segments.push(Segment {
            view_start: view.start as u32,
            src_start: src.start as u32,
            src_end: src.end as u32,
            verbatim: false,
        });
    }

    /// The view of `text` whose pieces are `segments`, as a draft keeps them: in order,
    /// covering the text, each verbatim one as long as its source and none that could
    /// have been joined to the one before (so the view is the one appending the pieces
    /// one by one builds).
    pub(crate) fn from_segments(role: ViewRole, text: String, segments: Vec<Segment>) -> Self {
        let mut b = ViewBuilder::new(role);
        b.view.text = text;
        b.view.segments = segments;
        b
    }

    pub fn finish(self) -> View {
        self.view
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbatim_and_opaque_pieces_map_back() {
        // Source: `v **lese** a\\"b` → view `v lese a"b`
        let src = r#"v **lese** a\"b"#;
        let mut b = ViewBuilder::new(ViewRole::Text);
        b.verbatim("v ", 0);
        b.verbatim("lese", 4);
        b.verbatim(" a", 10);
        b.opaque("\"", 12..14);
        b.verbatim("b", 14);
        let v = b.finish();
        assert_eq!(v.text, "v lese a\"b");
        assert_eq!(v.source_range(2..6), 4..8);
        assert_eq!(&src[v.source_range(1..2)], " ");
        assert_eq!(v.source_range(8..9), 12..14);
        assert_eq!(v.source_range(7..10), 11..15);
        assert!(v.is_verbatim(0..8));
        assert!(!v.is_verbatim(7..9));
        assert_eq!(v.source_offset(10), 15);
    }

    #[test]
    fn adjacent_verbatim_pieces_merge() {
        let mut b = ViewBuilder::new(ViewRole::Text);
        b.verbatim("ab", 3);
        b.verbatim("cd", 5);
        let v = b.finish();
        assert_eq!(v.segments.len(), 1);
        assert_eq!(v.source_range(1..4), 4..7);
    }
}
