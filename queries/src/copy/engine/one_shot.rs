//! The one-shot run: a report computed without a database, each value at most once
//! and dropped with the report.

use super::compute::{find_hits, languages_of, span_index_of, state_of, views_of};
use super::file_report::assemble;
use super::place::Placer;
use super::{EntryState, FileError, FileInputs, FileReport, FindingsBuilder, Setup, Source};
use crate::copy::extract::Format;
use crate::copy::lockfile::{Entry, SpanIndex};
use crate::copy::view::View;
use crate::text::LineIndex;
use std::cell::OnceCell;
use std::collections::BTreeSet;

/// A file's inputs, and each value computed from them the first time it is read.
pub(super) struct OneShot<'a> {
    setup: &'a Setup,
    format: Format,
    source: &'a Source,
    entry: Option<&'a Entry>,
    locale: Option<&'a str>,
    /// Computed when the file is: every other value reads it.
    state: EntryState,
    line_index: OnceCell<LineIndex>,
    views: OnceCell<Result<Vec<View>, FileError>>,
    span_index: OnceCell<Result<Option<SpanIndex>, FileError>>,
    languages: OnceCell<BTreeSet<String>>,
}

impl FileInputs for OneShot<'_> {
    fn format(&self) -> Format {
        self.format
    }
    fn source(&self) -> &Source {
        self.source
    }
    fn entry(&self) -> Option<&Entry> {
        self.entry
    }
    fn setup(&self) -> &Setup {
        self.setup
    }
    fn locale(&self) -> Option<&str> {
        self.locale
    }
    fn entry_state(&self) -> EntryState {
        self.state
    }
    fn line_index(&self) -> &LineIndex {
        self.line_index
            .get_or_init(|| LineIndex::of_bytes(self.source.bytes()))
    }
    fn views(&self) -> &Result<Vec<View>, FileError> {
        self.views.get_or_init(|| views_of(self))
    }
    fn span_index(&self) -> &Result<Option<SpanIndex>, FileError> {
        self.span_index.get_or_init(|| span_index_of(self))
    }
    fn languages(&self) -> &BTreeSet<String> {
        self.languages.get_or_init(|| languages_of(self))
    }
}

/// [`report`](super::report) for a file audited once, without a database: the same value, computed
/// through [`OneShot`], so nothing of it is kept — no query, and no placed hit: each hit
/// becomes its finding, or nothing. A one-shot run reads each report once, and the copies
/// of a large file's findings (a hit's, a placed one, the report's, the caller's) were
/// most of its memory.
pub fn report_once(
    setup: &Setup,
    format: Format,
    source: &Source,
    entry: Option<&Entry>,
    locale: Option<&str>,
) -> FileReport {
    report_with(setup, format, source, entry, locale, OnceCell::new())
}

/// [`report_once`] with every rule run on every view, whatever languages the file is in:
/// what leaving out the rules of other languages must not change (a property test in
/// `tests/incremental.rs` holds the two equal).
#[doc(hidden)]
pub fn report_once_every_rule(
    setup: &Setup,
    format: Format,
    source: &Source,
    entry: Option<&Entry>,
    locale: Option<&str>,
) -> FileReport {
    let every: BTreeSet<String> = setup
        .rules
        .set
        .rules()
        .iter()
        .flat_map(|r| r.meta().languages.iter().map(|l| l.to_string()))
        .collect();
    report_with(setup, format, source, entry, locale, OnceCell::from(every))
}

/// `languages`: the file's languages if already known, as for
/// [`report_once_every_rule`].
fn report_with(
    setup: &Setup,
    format: Format,
    source: &Source,
    entry: Option<&Entry>,
    locale: Option<&str>,
    languages: OnceCell<BTreeSet<String>>,
) -> FileReport {
    let once = OneShot {
        setup,
        format,
        source,
        entry,
        locale,
        state: state_of(entry, source.hash(), setup.prompt_outdated),
        line_index: OnceCell::new(),
        views: OnceCell::new(),
        span_index: OnceCell::new(),
        languages,
    };
    assemble(&once, |admits| {
        // Each part of the hits is placed as soon as it is found and then freed, and only
        // admitted findings are kept, packed: one copy of a finding at a time (a dense
        // 20 MB line once held four), and a hit never beside all the others.
        let mut placer = None;
        let mut findings = FindingsBuilder::default();
        find_hits(&once, |part| {
            let Some(placer) = placer.get_or_insert_with(|| Placer::new(&once)) else {
                return;
            };
            for raw in &part {
                if let Some(p) = placer.place(raw)
                    && admits(&p)
                {
                    findings.push(&p.finding);
                }
            }
        });
        findings.finish()
    })
}
