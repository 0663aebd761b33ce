//! The copy-audit query graph.
//!
//! ```text
//! source ─► content_hash ─┐
//! entry ──────────────────┴─► entry_state ─► span_index ─► languages ─► hits ─► placed ─► report
//! source, entry_state ─────► views ───────────┴───────────────┴──────────┴─────────┘        ┘
//! Settings (one value, HIGH durability) ─► entry_state, languages, hits, placed, report
//! ```
//!
//! (`ARCHITECTURE.md` lists what each query reads.) An edit of a file re-runs its own
//! queries and nobody else's. An edit of its lockfile entry re-runs `entry_state`,
//! `span_index`, `languages` and the filter in `report`; `views` only if the entry's
//! freshness changed (a file without a fresh entry is extracted with path hints), and
//! `hits` only if the set of languages changed (`tests/incremental.rs`:
//! `a_lockfile_edit_reruns_the_filter_but_not_the_rules`). Identical bytes re-run the
//! queries that read them, which compare equal, and nothing after them.
//!
//! The inputs are in `inputs` and the queries in `queries`; what the queries compute, they
//! share with the one-shot run (`one_shot`) through `compute`, `place` and `file_report`.

mod compute;
mod file_report;
mod findings;
mod inputs;
mod one_shot;
mod place;
mod queries;

pub use crate::copy::source::{FileError, Source};
pub use compute::{RawHit, state_from, state_of};
pub use file_report::{EntryState, FileReport, Finding, SourceFix, Text};
pub use findings::{FindingRef, Findings, FindingsBuilder, FixRef};
pub use inputs::{RuleTable, Settings, Setup, SourceFile};
pub use one_shot::{report_once, report_once_every_rule};
pub use place::{Placed, SNIPPET_MAX};
pub use queries::{
    LanguageSet, ViewKey, content_hash, entry_state, hits, languages, line_index, placed, report,
    span_index, view_evidence, view_hits, view_keys, views,
};

use crate::copy::extract::Format;
use crate::copy::lockfile::{Entry, SpanIndex};
use crate::copy::view::View;
use crate::text::LineIndex;
use std::collections::BTreeSet;

/// What computing a file's report reads: the file, the settings and the values computed
/// from them. Each computation is written once, against this trait, and runs two ways:
/// through the database ([`Tracked`](queries::Tracked): every read is a tracked query, so salsa records it
/// and keeps the value for the next revision) and without one ([`OneShot`](one_shot::OneShot): each value is
/// computed at most once for one report and dropped with it). A one-shot audit reads each
/// file once and has nothing to reuse; salsa's claims, memos and dependency edges for its
/// eight queries per file cost a cold run 9% of its CPU (measured by going without).
trait FileInputs {
    fn format(&self) -> Format;
    fn source(&self) -> &Source;
    fn entry(&self) -> Option<&Entry>;
    fn setup(&self) -> &Setup;
    fn locale(&self) -> Option<&str>;
    fn entry_state(&self) -> EntryState;
    fn line_index(&self) -> &LineIndex;
    fn views(&self) -> &Result<Vec<View>, FileError>;
    fn span_index(&self) -> &Result<Option<SpanIndex>, FileError>;
    fn languages(&self) -> &BTreeSet<String>;
    /// Fills each view's language evidence from what is known of an equal view, before the
    /// structural segmenter counts it: a live session knows the views an edit left alone.
    fn known_evidence(&self) {}
}
