//! A view under construction that can still be edited.
//!
//! [`ViewBuilder`] only appends. Some decisions can only be made once a whole block has been
//! read: a bare URL may span several parser events, an MDX expression may contain emphasis
//! markers, and blanks at the edges of a table cell or JSX text must go. A [`Draft`] keeps
//! its pieces so those passes can replace or drop view ranges, and becomes a [`View`] at
//! the end.

use crate::copy::view::{Segment, View, ViewBuilder, ViewRole};
use std::ops::Range;

/// An edit of a draft: replace a view range by an opaque `with`, or drop it (`None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Edit {
    pub range: Range<usize>,
    pub with: Option<&'static str>,
}

/// The pieces are kept as the view keeps them ([`Segment`]: where each starts in the
/// text, its source range, whether it is verbatim), so the finished view takes them
/// as they are.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Draft {
    text: String,
    pieces: Vec<Segment>,
}

impl Draft {
    pub fn new() -> Self {
        Draft::default()
    }

    /// A draft with room for `len` bytes of text, and for the few pieces a line of it
    /// usually makes.
    pub fn with_capacity(len: usize) -> Self {
        Draft {
            text: String::with_capacity(len),
            pieces: Vec::with_capacity(4),
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Source end of the last piece.
    pub fn src_end(&self) -> Option<usize> {
        self.pieces.last().map(|p| p.src_end as usize)
    }

    /// The view range of piece `i`: up to the next piece, or to the end of the text.
    fn view(&self, i: usize) -> Range<usize> {
        let end = self
            .pieces
            .get(i + 1)
            .map_or(self.text.len(), |p| p.view_start as usize);
        self.pieces[i].view_start as usize..end
    }

    fn src(&self, i: usize) -> Range<usize> {
        let p = &self.pieces[i];
        p.src_start as usize..p.src_end as usize
    }

    /// Appends `text`, which is byte for byte the source starting at `src_start`.
    pub fn verbatim(&mut self, text: &str, src_start: usize) {
        if text.is_empty() {
            return;
        }
        let view_start = self.text.len();
        self.text.push_str(text);
        let src_end = (src_start + text.len()) as u32;
        if let Some(last) = self.pieces.last_mut()
            && last.verbatim
            && last.src_end == src_start as u32
        {
            last.src_end = src_end;
            return;
        }
        self.pieces.push(Segment {
            view_start: view_start as u32,
            src_start: src_start as u32,
            src_end,
            verbatim: true,
        });
    }

    /// Appends `text`, which stands for the whole source range `src`.
    pub fn opaque(&mut self, text: &str, src: Range<usize>) {
        if text.is_empty() {
            return;
        }
        let view_start = self.text.len();
        self.text.push_str(text);
        self.pieces.push(Segment {
            view_start: view_start as u32,
            src_start: src.start as u32,
            src_end: src.end as u32,
            verbatim: false,
        });
    }

    /// Appends a verbatim source slice in which every `\r\n` reads as `\n`.
    pub fn verbatim_lf(&mut self, text: &str, src_start: usize) {
        let mut from = 0;
        for cr in memchr::memmem::find_iter(text.as_bytes(), b"\r\n") {
            self.verbatim(&text[from..cr], src_start + from);
            self.opaque("\n", src_start + cr..src_start + cr + 2);
            from = cr + 2;
        }
        self.verbatim(&text[from..], src_start + from);
    }

    /// Whether view byte `at` was copied verbatim (so a delimiter there is real syntax and
    /// not, say, a decoded escape).
    pub fn is_verbatim_at(&self, at: usize) -> bool {
        self.piece_at(at).is_some_and(|i| self.pieces[i].verbatim)
    }

    /// Whether the draft holds anything but blanks and placeholders.
    pub fn has_prose(&self) -> bool {
        self.text
            .chars()
            .any(|c| !c.is_whitespace() && c != '\u{FFFC}' && c != '\u{2028}')
    }

    fn piece_at(&self, at: usize) -> Option<usize> {
        let i = self.pieces.partition_point(|p| p.view_start as usize <= at);
        (i > 0 && at < self.view(i - 1).end).then(|| i - 1)
    }

    /// Source offset where view byte `at` starts.
    fn src_start_of(&self, at: usize) -> usize {
        match self.piece_at(at) {
            Some(i) => {
                let p = &self.pieces[i];
                if p.verbatim {
                    p.src_start as usize + (at - p.view_start as usize)
                } else {
                    p.src_start as usize
                }
            }
            None => self.src_end().unwrap_or(0),
        }
    }

    /// Source offset where view byte `end - 1` ends.
    fn src_end_of(&self, end: usize) -> usize {
        let Some(i) = end.checked_sub(1).and_then(|last| self.piece_at(last)) else {
            return self.src_start_of(end);
        };
        let p = &self.pieces[i];
        if p.verbatim {
            p.src_start as usize + (end - p.view_start as usize)
        } else {
            p.src_end as usize
        }
    }

    /// Widens `range` so it does not cut an opaque piece.
    fn widen(&self, range: Range<usize>) -> Range<usize> {
        let mut r = range;
        if let Some(i) = self.piece_at(r.start)
            && !self.pieces[i].verbatim
        {
            r.start = self.pieces[i].view_start as usize;
        }
        if let Some(i) = r.end.checked_sub(1).and_then(|l| self.piece_at(l))
            && !self.pieces[i].verbatim
        {
            r.end = r.end.max(self.view(i).end);
        }
        r
    }

    /// Copies view range `range` (not cutting opaque pieces) into `out`.
    fn copy_into(&self, range: Range<usize>, out: &mut Draft) {
        if range.is_empty() {
            return;
        }
        let first = self.piece_at(range.start).unwrap_or(self.pieces.len());
        for i in first..self.pieces.len() {
            let view = self.view(i);
            if view.start >= range.end {
                break;
            }
            if self.pieces[i].verbatim {
                let s = view.start.max(range.start);
                let e = view.end.min(range.end);
                let src_start = self.pieces[i].src_start as usize;
                out.verbatim(&self.text[s..e], src_start + (s - view.start));
            } else {
                out.opaque(&self.text[view], self.src(i));
            }
        }
    }

    /// Appends view range `range` of this draft to `out`, widened so no opaque piece is
    /// cut.
    pub fn copy_range(&self, range: Range<usize>, out: &mut Draft) {
        let r = self.widen(range);
        self.copy_into(r, out);
    }

    /// The source range behind view range `range`, widened like [`Draft::copy_range`].
    pub fn src_range(&self, range: Range<usize>) -> Range<usize> {
        let r = self.widen(range);
        self.src_start_of(r.start)..self.src_end_of(r.end).max(self.src_start_of(r.start))
    }

    /// Applies `edits` (sorted, non-overlapping view ranges). A replacement becomes one
    /// opaque piece over the source of everything it replaces; an edit that touches an
    /// opaque piece takes all of it.
    pub fn apply(self, edits: &[Edit]) -> Draft {
        if edits.is_empty() {
            return self;
        }
        let mut out = Draft::new();
        let mut cursor = 0;
        for edit in edits {
            let r = self.widen(edit.range.clone());
            let r = r.start.max(cursor)..r.end.max(cursor);
            self.copy_into(cursor..r.start, &mut out);
            if let Some(with) = edit.with
                && !r.is_empty()
            {
                out.opaque(with, self.src_start_of(r.start)..self.src_end_of(r.end));
            }
            cursor = r.end;
        }
        self.copy_into(cursor..self.text.len(), &mut out);
        out
    }

    /// Drops ASCII blanks at both ends (an opaque piece is kept whole unless it is all
    /// blank).
    pub fn trim(self) -> Draft {
        let blank = |c: char| c.is_ascii_whitespace();
        let start = self.text.len() - self.text.trim_start_matches(blank).len();
        let end = self.text.trim_end_matches(blank).len();
        if start == 0 && end == self.text.len() {
            return self;
        }
        if start >= end {
            return Draft::new();
        }
        let mut keep = start..end;
        if let Some(i) = self.piece_at(keep.start)
            && !self.pieces[i].verbatim
        {
            keep.start = self.pieces[i].view_start as usize;
        }
        if let Some(i) = self.piece_at(keep.end - 1)
            && !self.pieces[i].verbatim
        {
            keep.end = self.view(i).end;
        }
        let mut out = Draft::new();
        self.copy_into(keep, &mut out);
        out
    }

    /// Moves every source range by `by` bytes (a draft built from a slice of the file).
    pub fn shift(&mut self, by: usize) {
        for p in &mut self.pieces {
            p.src_start += by as u32;
            p.src_end += by as u32;
        }
    }

    /// The finished view, or `None` when there is no prose in it.
    pub fn into_view(
        self,
        role: ViewRole,
        path_hint: Option<String>,
        lang_hint: Option<String>,
    ) -> Option<View> {
        if !self.has_prose() {
            return None;
        }
        Some(self.into_view_always(role, path_hint, lang_hint))
    }

    /// The finished view even when it holds only blanks (a JSON or YAML string value is a
    /// view whatever it contains); `None` only for an empty draft.
    pub fn into_view_unless_empty(
        self,
        role: ViewRole,
        path_hint: Option<String>,
        lang_hint: Option<String>,
    ) -> Option<View> {
        if self.is_empty() {
            return None;
        }
        Some(self.into_view_always(role, path_hint, lang_hint))
    }

    fn into_view_always(
        self,
        role: ViewRole,
        path_hint: Option<String>,
        lang_hint: Option<String>,
    ) -> View {
        // The pieces cover the text in order, and `verbatim` joined every verbatim piece
        // that continued the one before: the view takes text and pieces as they are.
        debug_assert!(self.pieces.first().is_none_or(|p| p.view_start == 0));
        ViewBuilder::from_segments(role, self.text, self.pieces)
            .path_hint(path_hint)
            .lang_hint(lang_hint)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A draft's view, its text moved in and its pieces marked, is the view that
        /// appending the pieces one by one builds.
        #[test]
        fn the_view_is_the_pieces_appended(
            pieces in proptest::collection::vec((any::<bool>(), 0usize..3, 1usize..4, any::<bool>()), 0..12),
            blank_edges in any::<bool>(),
        ) {
            let mut d = Draft::new();
            let mut src = 0;
            if blank_edges {
                d.verbatim("  ", src);
                src += 2;
            }
            for (verbatim, gap, len, word) in pieces {
                src += gap;
                let text = if word { &"slovo č"[..len] } else { &"   "[..len] };
                if verbatim {
                    d.verbatim(text, src);
                } else {
                    d.opaque(text, src..src + len + 1);
                }
                src += len;
            }
            let d = d.trim();
            let mut appended = ViewBuilder::new(ViewRole::Text).path_hint(Some("p".into()));
            for i in 0..d.pieces.len() {
                if d.pieces[i].verbatim {
                    appended.verbatim(&d.text[d.view(i)], d.src(i).start);
                } else {
                    appended.opaque(&d.text[d.view(i)], d.src(i));
                }
            }
            let moved = d.into_view_always(ViewRole::Text, Some("p".into()), None);
            prop_assert_eq!(moved, appended.finish());
        }
    }

    fn sample() -> Draft {
        // Source `a &amp; https://x.cz b` with the entity decoded.
        let mut d = Draft::new();
        d.verbatim("a ", 0);
        d.opaque("&", 2..7);
        d.verbatim(" https://x.cz b", 7);
        d
    }

    #[test]
    fn replacing_a_range_makes_one_opaque_piece() {
        let d = sample();
        let url = d.text().find("https").unwrap();
        let d = d.apply(&[Edit {
            range: url..url + "https://x.cz".len(),
            with: Some("\u{FFFC}"),
        }]);
        assert_eq!(d.text(), "a & \u{FFFC} b");
        let v = d.into_view(ViewRole::Text, None, None).unwrap();
        let at = v.text.find('\u{FFFC}').unwrap();
        assert_eq!(v.source_range(at..at + 3), 8..20);
        assert_eq!(v.source_range(at + 3..at + 5), 20..22);
    }

    #[test]
    fn an_edit_never_cuts_an_opaque_piece() {
        let d = sample().apply(&[Edit {
            range: 1..3,
            with: None,
        }]);
        assert_eq!(d.text(), "a https://x.cz b");
        let v = d.into_view(ViewRole::Text, None, None).unwrap();
        assert_eq!(v.source_range(0..1), 0..1);
        assert_eq!(v.source_range(1..2), 7..8);
    }

    #[test]
    fn trim_drops_blank_edges() {
        let mut d = Draft::new();
        d.opaque("\n", 0..3);
        d.verbatim("  ab  ", 3);
        d.opaque(" ", 9..12);
        let d = d.trim();
        assert_eq!(d.text(), "ab");
        let v = d.into_view(ViewRole::Text, None, None).unwrap();
        assert_eq!(v.source_range(0..2), 5..7);
        assert!(Draft::new().trim().is_empty());
    }

    #[test]
    fn crlf_reads_as_lf() {
        let mut d = Draft::new();
        d.verbatim_lf("a\r\nb\r\n", 10);
        assert_eq!(d.text(), "a\nb\n");
        let v = d.into_view(ViewRole::Text, None, None).unwrap();
        assert_eq!(v.source_range(1..2), 11..13);
        assert_eq!(v.source_range(2..3), 13..14);
    }

    #[test]
    fn placeholders_alone_are_not_prose() {
        let mut d = Draft::new();
        d.opaque("\u{FFFC}", 0..5);
        d.verbatim(" ", 5);
        assert!(!d.has_prose());
        assert!(d.into_view(ViewRole::Text, None, None).is_none());
    }
}
