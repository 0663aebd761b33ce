//! Spans against file text: byte ranges, fitting a span list to a file, lookup by offset,
//! and the refresh merge.

use super::check::check_span_list;
use super::{Entry, Field, Kind, LockfileError, Span};
use crate::text::LineIndex;
use std::ops::Range;

/// The bytes of `text` that `span` covers: from its start to the end of the character at
/// its (inclusive) end. An end column one past the line's last character designates the
/// line break, which is then covered whole (`\r\n` too); at the end of a file without a
/// final newline it designates nothing more. `None` when the span does not lie inside
/// the file.
pub fn span_range(text: &str, index: &LineIndex, span: &Span) -> Option<Range<usize>> {
    let start = index.offset(text, span.start())?;
    let end = index.offset(text, span.end())?;
    let line = index.line_range(text, span.end_line)?;
    let end = if end == line.end {
        index
            .line_range(text, span.end_line + 1)
            .map_or(text.len(), |next| next.start)
    } else {
        end + text[end..].chars().next().map_or(0, char::len_utf8)
    };
    (start <= end).then_some(start..end)
}

/// Checks a span list for `lockfile add`: the invariants every lockfile entry obeys, and
/// that every span lies inside `text`.
pub fn validate_spans_for_file(
    text: &str,
    index: &LineIndex,
    spans: &[Span],
) -> Result<(), LockfileError> {
    check_span_list(spans)?;
    for (i, span) in spans.iter().enumerate() {
        check_inside(text, index, i, span)?;
    }
    Ok(())
}

fn check_inside(
    text: &str,
    index: &LineIndex,
    i: usize,
    span: &Span,
) -> Result<Range<usize>, LockfileError> {
    // The span fits (the common case): its range is all there is to know.
    if let Some(range) = span_range(text, index, span) {
        return Ok(range);
    }
    let fail = |message: String| LockfileError {
        span: Some(i),
        span_start: Some(span.start()),
        ..LockfileError::invariant(message)
    };
    for at in [span.start(), span.end()] {
        let Some(line) = index.line_range(text, at.line) else {
            return Err(fail(format!(
                "line {} does not exist; the file has {} lines",
                at.line,
                index.line_count()
            )));
        };
        let chars = text[line].chars().count();
        if at.column as usize > chars + 1 {
            return Err(fail(format!(
                "column {} is past the end of line {} ({chars} characters)",
                at.column, at.line
            )));
        }
    }
    Err(fail("the span does not lie inside the file".to_owned()))
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

impl SpanIndex {
    /// Fails when the spans break the lockfile invariants or do not fit `text`: a hand
    /// edit can make an entry whose hash matches describe lines the file does not have.
    pub fn new(text: &str, index: &LineIndex, spans: &[Span]) -> Result<SpanIndex, LockfileError> {
        check_span_list(spans)?;
        let mut languages: Vec<String> = Vec::new();
        let ranges = spans
            .iter()
            .enumerate()
            .map(|(i, span)| {
                let range = check_inside(text, index, i, span)?;
                let language = match languages.iter().position(|l| *l == span.language) {
                    Some(at) => at,
                    None => {
                        languages.push(span.language.clone());
                        languages.len() - 1
                    }
                };
                Ok((range, span.kind, language as u32))
            })
            .collect::<Result<_, LockfileError>>()?;
        Ok(SpanIndex { ranges, languages })
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
