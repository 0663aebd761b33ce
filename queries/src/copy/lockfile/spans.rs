//! Spans against file text: byte ranges, fitting a span list to a file, lookup by offset,
//! and the refresh merge.

use super::check::check_span_list;
use super::{Entry, Field, Kind, LockfileError, Span};
use crate::text::{LineCol, LineIndex};
use std::ops::Range;

/// The bytes of `text` that `span` covers: every character whose (line, column) position
/// lies between the span's start and its inclusive end, positions compared as pairs (the
/// reference script's rule, and what the reviewed lockfiles in the field were checked
/// against). A column past the end of its line reaches the line break and past it; a line
/// past the last reaches the end of the file. Agent-written spans do both all the time,
/// so neither is an error. `None` when the span covers no character at all (it starts past
/// the end of the file).
pub fn span_range(text: &str, index: &LineIndex, span: &Span) -> Option<Range<usize>> {
    range_between(text, index, span.start(), span.end())
}

fn range_between(text: &str, index: &LineIndex, a: LineCol, b: LineCol) -> Option<Range<usize>> {
    let start = index.start_at_or_after(text, a);
    let end = index.end_at_or_before(text, b);
    (start < end).then_some(start..end)
}

/// How a span's coordinates sit against the file it describes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpanFit {
    /// Its start and end name the first and last characters it covers.
    Exact,
    /// It covers what the span from `start` to `end` covers, but reaches past the end of a
    /// line or of the file (or names half of a surrogate pair): `start`..`end` is the same
    /// span written exactly.
    PastEnd { start: LineCol, end: LineCol },
    /// It covers no character: the audit ignores it.
    Empty,
}

/// Where `span` sits in `text`: [`SpanFit`].
pub fn span_fit(text: &str, index: &LineIndex, span: &Span) -> SpanFit {
    let Some(range) = span_range(text, index, span) else {
        return SpanFit::Empty;
    };
    let start = index.line_col(text, range.start);
    let end = index
        .last_char_at(text, range.end)
        .expect("a non-empty range has a last character");
    if (start, end) == (span.start(), span.end()) {
        SpanFit::Exact
    } else {
        SpanFit::PastEnd { start, end }
    }
}

/// What `lockfile add` did to one span: it reached past an end and was written as the
/// exact span that covers the same text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clamped {
    /// Index of the span in the list.
    pub span: usize,
    pub from: (LineCol, LineCol),
    pub to: (LineCol, LineCol),
}

/// Checks a span list for `lockfile add` and writes each span exactly: the invariants every
/// lockfile entry obeys, and that every span starts inside `text` (a start past the end of
/// its line or of the file is a mistake worth refusing: the span would not cover what its
/// author meant). An end past its line or the file is clamped to the real end, which
/// covers the same text; each clamp is returned so that the caller can say so.
pub fn fit_spans_for_add(
    text: &str,
    index: &LineIndex,
    spans: &[Span],
) -> Result<(Vec<Span>, Vec<Clamped>), LockfileError> {
    check_span_list(spans)?;
    let mut fitted = spans.to_vec();
    let mut clamped = Vec::new();
    for (i, span) in fitted.iter_mut().enumerate() {
        let fail = |message: String| LockfileError {
            span: Some(i),
            span_start: Some(span.start()),
            ..LockfileError::invariant(message)
        };
        let Some(line) = index.line_range(text, span.start_line) else {
            return Err(fail(format!(
                "the span starts on line {}, but the file has {} lines",
                span.start_line,
                index.line_count()
            )));
        };
        let units = crate::text::count_units(&text.as_bytes()[line]);
        if span.start_column as usize > units + 1 {
            return Err(fail(format!(
                "the span starts at column {}, past the end of line {} ({units} columns)",
                span.start_column, span.start_line
            )));
        }
        match span_fit(text, index, span) {
            SpanFit::Exact => {}
            SpanFit::Empty => {
                return Err(fail(
                    "the span covers no character (it starts at the end of the file)".to_owned(),
                ));
            }
            SpanFit::PastEnd { start, end } => {
                clamped.push(Clamped {
                    span: i,
                    from: (span.start(), span.end()),
                    to: (start, end),
                });
                set_position(span, start, end);
            }
        }
    }
    Ok((fitted, clamped))
}

/// Rewrites a fresh entry's spans exactly (`lockfile normalize`): each span that reaches
/// past an end is written as the span covering the same text, and a span covering nothing
/// is dropped. The covered text is unchanged, so the review still holds. Returns how many
/// spans were clamped and how many dropped.
pub fn normalize_spans(text: &str, index: &LineIndex, spans: &mut Vec<Span>) -> (usize, usize) {
    let before = spans.len();
    let mut clamped = 0;
    spans.retain_mut(|span| match span_fit(text, index, span) {
        SpanFit::Exact => true,
        SpanFit::Empty => false,
        SpanFit::PastEnd { start, end } => {
            clamped += 1;
            set_position(span, start, end);
            true
        }
    });
    (clamped, before - spans.len())
}

fn set_position(span: &mut Span, start: LineCol, end: LineCol) {
    span.start_line = start.line;
    span.start_column = start.column;
    span.end_line = end.line;
    span.end_column = end.column;
}

/// Language and kind by byte offset, for the span filter. Lookups are binary searches:
/// a generated file can carry thousands of spans, and every finding asks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SpanIndex {
    /// Sorted and disjoint, because the span list was checked; each with its language's
    /// index in `languages`.
    ranges: Vec<(Range<usize>, Kind, u32)>,
    /// The languages, each once, in order of first use: a file has a few, and its spans
    /// (thousands in a generated file) need not own a copy each.
    languages: Vec<String>,
}

/// What the span filter reads of a span: its two positions, its language and its kind —
/// never its path hint or note. [`SpanIndex::new`] reads spans only through this, and
/// [`filter_key`] hashes exactly this, so the key cannot miss what the filter sees.
struct Filtered<'a> {
    start: LineCol,
    end: LineCol,
    language: &'a str,
    kind: Kind,
}

fn filtered(span: &Span) -> Filtered<'_> {
    Filtered {
        start: span.start(),
        end: span.end(),
        language: &span.language,
        kind: span.kind,
    }
}

/// A digest of all the span filter reads of an entry's spans (see [`Filtered`]): equal
/// for two span lists, the filter admits the same findings from either, whatever their
/// notes and path hints say. The findings cache keys reports by it.
pub fn filter_key(spans: &[Span]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for span in spans.iter().map(filtered) {
        for n in [
            span.start.line,
            span.start.column,
            span.end.line,
            span.end.column,
        ] {
            h.update(n.to_le_bytes());
        }
        h.update(span.language.as_bytes());
        h.update([0]);
        h.update(span.kind.as_str().as_bytes());
    }
    h.finalize().into()
}

impl SpanIndex {
    /// Fails only when the spans break the lockfile invariants (the reader has checked
    /// them already). Spans reaching past an end cover what [`span_range`] says; a span
    /// covering nothing is left out.
    pub fn new(text: &str, index: &LineIndex, spans: &[Span]) -> Result<SpanIndex, LockfileError> {
        check_span_list(spans)?;
        let ranges = spans.iter().map(filtered).filter_map(|span| {
            let range = range_between(text, index, span.start, span.end)?;
            Some((range, span.kind, span.language))
        });
        Ok(Self::interned(ranges))
    }

    /// From byte ranges already sorted, disjoint and non-empty, as the structural
    /// segmenter computes them: no line or column is ever written or read back.
    pub fn from_ranges<'l>(
        ranges: impl IntoIterator<Item = (Range<usize>, Kind, &'l str)>,
    ) -> Self {
        let index = Self::interned(ranges);
        debug_assert!(
            index
                .ranges
                .windows(2)
                .all(|w| w[0].0.end <= w[1].0.start && !w[0].0.is_empty())
        );
        index
    }

    /// The ranges with each language kept once, in order of first use.
    fn interned<'l>(ranges: impl IntoIterator<Item = (Range<usize>, Kind, &'l str)>) -> Self {
        let mut languages: Vec<String> = Vec::new();
        let ranges = ranges
            .into_iter()
            .map(|(range, kind, language)| {
                let at = match languages.iter().position(|l| l == language) {
                    Some(at) => at,
                    None => {
                        languages.push(language.to_owned());
                        languages.len() - 1
                    }
                };
                (range, kind, at as u32)
            })
            .collect();
        SpanIndex { ranges, languages }
    }

    fn language(&self, at: u32) -> &str {
        &self.languages[at as usize]
    }

    /// The kind and language of the span covering byte `offset`; `None` in a gap.
    pub fn at(&self, offset: usize) -> Option<(Kind, &str)> {
        let i = self.ranges.partition_point(|(r, _, _)| r.start <= offset);
        let (range, kind, language) = &self.ranges[i.checked_sub(1)?];
        range
            .contains(&offset)
            .then_some((*kind, self.language(*language)))
    }

    /// The spans overlapping byte range `range`, in file order, and whether they cover all
    /// of it (no gap, where the default language applies). Binary search, then a walk over
    /// the overlapping spans only.
    pub fn overlapping(&self, range: Range<usize>) -> (impl Iterator<Item = (Kind, &str)>, bool) {
        let first = self
            .ranges
            .partition_point(|(r, _, _)| r.end <= range.start);
        let hits = &self.ranges[first..];
        let count = hits.partition_point(|(r, _, _)| r.start < range.end);
        let hits = &hits[..count];
        let mut at = range.start;
        let mut covered = true;
        for (r, _, _) in hits {
            if r.start > at {
                covered = false;
                break;
            }
            at = at.max(r.end);
        }
        covered &= at >= range.end;
        (
            hits.iter().map(|(_, k, l)| (*k, self.language(*l))),
            covered,
        )
    }

    /// The spans as byte ranges, in file order.
    pub fn iter(&self) -> impl Iterator<Item = (Range<usize>, Kind, &str)> {
        self.ranges
            .iter()
            .map(|(r, k, l)| (r.clone(), *k, self.language(*l)))
    }

    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

/// The entry that replaces `previous` after the file was re-segmented (seed merge rules).
///
/// The review is always reset: new spans need a new signoff. From a reviewed previous
/// entry, each new span inherits `note` and `pathHint` (where it has none of its own) from
/// the first previous span with the same language and kind whose lines intersect its
/// lines. Lines rather than bytes, because an edit shifts every byte after it. An
/// unreviewed previous entry holds nothing a human vouched for and is dropped whole.
pub fn refreshed_entry(
    previous: Option<&Entry>,
    mut new_spans: Vec<Span>,
    content_hash: String,
    segmented_at: String,
) -> Entry {
    if let Some(previous) = previous.filter(|p| p.is_reviewed()) {
        for span in &mut new_spans {
            carry_forward(&previous.spans, span);
        }
    }
    Entry {
        content_hash,
        segmented_at,
        reviewed_by: None,
        spans: new_spans,
    }
}

fn carry_forward(previous: &[Span], span: &mut Span) {
    // Valid spans are sorted and disjoint, so their end lines never decrease: the first
    // span that could reach this one's lines is found by bisection.
    let first = previous.partition_point(|p| p.end_line < span.start_line);
    let Some(source) = previous[first..]
        .iter()
        .take_while(|p| p.start_line <= span.end_line)
        .find(|p| p.language == span.language && p.kind == span.kind)
    else {
        return;
    };
    for (target, from) in [
        (&mut span.note, &source.note),
        (&mut span.path_hint, &source.path_hint),
    ] {
        if !target.is_value()
            && let Field::Value(v) = from
        {
            *target = Field::Value(v.clone());
        }
    }
}
