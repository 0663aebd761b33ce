//! The seed's invariants, checked on every read and before every write.
//!
//! The span-list check is shared by the reader and by `lockfile add`, so a span list is
//! accepted or refused by the same rules wherever it comes from.

use super::{Backend, Entry, Lockfile, LockfileError, LockfileErrorKind, SCHEMA_VERSION, Span};
use crate::hash::ContentHash;

pub(super) fn check_lockfile(lock: &Lockfile) -> Result<(), LockfileError> {
    if lock.schema_version != SCHEMA_VERSION {
        return Err(LockfileError {
            kind: LockfileErrorKind::SchemaVersion,
            ..LockfileError::invariant(format!(
                "unknown lockfile schemaVersion {}; this copy-audit reads {SCHEMA_VERSION}",
                lock.schema_version
            ))
        });
    }
    match (lock.segmenter.backend, lock.segmenter.prompt_version) {
        (_, Some(0)) => {
            return Err(LockfileError::invariant(
                "segmenter.promptVersion must be a positive integer, not 0",
            ));
        }
        (Backend::Agent, None) => {
            return Err(LockfileError::invariant(
                "segmenter.promptVersion is required when the backend is \"agent\"",
            ));
        }
        _ => {}
    }
    for (path, entry) in &lock.files {
        check_entry_path(path)?;
        check_entry(entry).map_err(|e| e.in_entry(path))?;
    }
    Ok(())
}

/// Refuses a lockfile key that could name a file outside the root or name one file in
/// two ways: the shell relies on keys being plain root-relative `/` paths.
pub fn check_entry_path(path: &str) -> Result<(), LockfileError> {
    let problem = if path.is_empty() {
        Some("the path is empty")
    } else if path.contains('\0') {
        Some("the path contains a NUL character (`\\u0000`), which no file name can hold")
    } else if path.contains('\\') {
        Some("the path contains a backslash; lockfile paths use `/`")
    } else if path.starts_with('/') {
        Some("the path is absolute; lockfile paths are relative to the root")
    } else if has_drive_prefix(path) {
        Some("the path starts with a drive letter; lockfile paths are relative to the root")
    } else {
        path.split('/').find_map(|c| match c {
            "" => Some("the path has an empty component (`//` or a trailing `/`)"),
            "." => Some("the path has a `.` component"),
            ".." => Some("the path has a `..` component, which could leave the root"),
            _ => None,
        })
    };
    match problem {
        Some(message) => Err(LockfileError::invariant(message).in_entry(path)),
        None => Ok(()),
    }
}

fn has_drive_prefix(path: &str) -> bool {
    let b = path.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

pub(super) fn check_entry(entry: &Entry) -> Result<(), LockfileError> {
    if ContentHash::parse(&entry.content_hash).is_none() {
        return Err(LockfileError::invariant(format!(
            "contentHash \"{}\" is not `sha256:` followed by 64 lowercase hex digits",
            entry.content_hash.escape_debug()
        )));
    }
    if !is_utc_timestamp(&entry.segmented_at) {
        return Err(LockfileError::invariant(format!(
            "segmentedAt \"{}\" is not an ISO 8601 UTC time like 2026-04-12T10:30:00Z",
            entry.segmented_at.escape_debug()
        )));
    }
    if entry
        .reviewed_by
        .as_deref()
        .is_some_and(|r| r.trim().is_empty())
    {
        return Err(LockfileError::invariant(
            "reviewedBy is blank; it must name the reviewer or be null",
        ));
    }
    check_span_list(&entry.spans)
}

/// Checks each span on its own and against its predecessor (seed invariants 1 and 2).
pub(super) fn check_span_list(spans: &[Span]) -> Result<(), LockfileError> {
    for (i, span) in spans.iter().enumerate() {
        let fail = |message: String| LockfileError {
            span: Some(i),
            span_start: Some(span.start()),
            ..LockfileError::invariant(message)
        };
        for (name, value) in [
            ("startLine", span.start_line),
            ("startColumn", span.start_column),
            ("endLine", span.end_line),
            ("endColumn", span.end_column),
        ] {
            if value == 0 {
                return Err(fail(format!("{name} is 0; lines and columns count from 1")));
            }
        }
        if span.end() < span.start() {
            return Err(fail(format!(
                "the span ends at {}:{}, before it starts",
                span.end_line, span.end_column
            )));
        }
        if !is_language(&span.language) {
            return Err(fail(format!(
                "language \"{}\" is neither a two-letter lowercase ISO 639-1 code nor \"unknown\"",
                span.language.escape_debug()
            )));
        }
        if let Some(prev) = i.checked_sub(1).map(|p| &spans[p]) {
            if span.start() < prev.start() {
                return Err(fail(format!(
                    "spans are out of order: this span starts before the previous one (at {}:{})",
                    prev.start_line, prev.start_column
                )));
            }
            if span.start() <= prev.end() {
                return Err(fail(format!(
                    "spans overlap the previous span (ends at {}:{})",
                    prev.end_line, prev.end_column
                )));
            }
        }
    }
    Ok(())
}

fn is_language(s: &str) -> bool {
    s == "unknown" || (s.len() == 2 && s.bytes().all(|b| b.is_ascii_lowercase()))
}

/// `YYYY-MM-DDTHH:MM:SS[.f+]Z` with a real calendar date. Offsets other than `Z` are
/// refused: the schema says UTC, and two spellings of one instant would churn diffs.
pub(super) fn is_utc_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 20 || b[b.len() - 1] != b'Z' {
        return false;
    }
    let num = |range: std::ops::Range<usize>| -> Option<u32> {
        let digits = &b[range];
        digits
            .iter()
            .all(u8::is_ascii_digit)
            .then(|| digits.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
    };
    let seps = b[4] == b'-' && b[7] == b'-' && b[10] == b'T' && b[13] == b':' && b[16] == b':';
    let fraction = &b[19..b.len() - 1];
    let fraction_ok = fraction.is_empty()
        || (fraction.len() >= 2
            && fraction[0] == b'.'
            && fraction[1..].iter().all(u8::is_ascii_digit));
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = (
        num(0..4),
        num(5..7),
        num(8..10),
        num(11..13),
        num(14..16),
        num(17..19),
    ) else {
        return false;
    };
    seps && fraction_ok
        && (1..=12).contains(&month)
        && (1..=days_in_month(year, month)).contains(&day)
        && hour < 24
        && minute < 60
        && second < 60
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}
