//! The `.copy-editor.lock.json` model: the committed cache of segmentation spans.
//!
//! The lockfile is load-bearing state that humans review in pull requests, so this module
//! is strict on read (every seed invariant is checked and a violation names the entry and
//! the span) and byte-exact on write (the reference implementation's
//! `JSON.stringify(lockfile, null, 2)` output, so that switching tools never produces a
//! diff). Everything here is pure: the shell reads and writes the bytes.

mod check;
mod de;
pub mod layout;
mod merge;
mod spans;
mod write;

#[cfg(test)]
mod tests;

use crate::text::LineCol;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;

pub use check::check_entry_path;
pub use merge::{Merged, Settled, merge};
pub use spans::{
    Clamped, SpanFit, SpanIndex, filter_key, fit_spans_for_add, normalize_spans, refreshed_entry,
    span_fit, span_range,
};
pub use write::to_canonical_string;

/// The only lockfile format this reader understands. A different version means a
/// migration the user must run deliberately, so it is refused rather than guessed at.
pub const SCHEMA_VERSION: u32 = 1;

/// Version of our segmentation prompt (`docs/segmentation-prompt-v3.md`), recorded as
/// `segmenter.promptVersion`.
///
/// Lockfiles in the field were written under the reference implementation's prompt,
/// version 2. Ours is 3, the first number above it, so that a v2 lockfile's unreviewed
/// entries are re-listed (reason `prompt`) while its reviewed ones keep their signoff
/// (seed invariant 6). Entries are only considered outdated when the lockfile's version is
/// *lower* than ours (see [`entry_state`]); a higher version is a newer prompt than ours
/// and must not invalidate anything.
pub const CURRENT_PROMPT_VERSION: u32 = 3;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Lockfile {
    pub schema_version: u32,
    pub segmenter: Segmenter,
    /// Keyed by root-relative path with `/` separators. The map's own order is only for
    /// lookups; the writer applies the reference's order.
    pub files: BTreeMap<String, Entry>,
}

impl Lockfile {
    /// An empty lockfile of the current schema.
    pub fn new(segmenter: Segmenter) -> Lockfile {
        Lockfile {
            schema_version: SCHEMA_VERSION,
            segmenter,
            files: BTreeMap::new(),
        }
    }

    /// Seed invariant 6: an agent segmentation made with an older prompt than the current
    /// one is outdated, and its unreviewed entries are re-segmented (reviewed ones stay).
    pub fn prompt_outdated(&self) -> bool {
        self.segmenter.backend == Backend::Agent
            && self
                .segmenter
                .prompt_version
                .is_some_and(|v| v < CURRENT_PROMPT_VERSION)
    }

    /// Checks every seed invariant, as [`parse`] does; the shell calls it before writing a
    /// lockfile it assembled, so that an invalid file is never committed.
    pub fn validate(&self) -> Result<(), LockfileError> {
        check::check_lockfile(self)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a segmenter object"
)]
pub struct Segmenter {
    pub backend: Backend,
    /// Required for [`Backend::Agent`]; written only when present.
    #[serde(default, deserialize_with = "de::present")]
    pub prompt_version: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Agent,
    Structural,
    Manual,
}

impl Backend {
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Agent => "agent",
            Backend::Structural => "structural",
            Backend::Manual => "manual",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// `sha256:` and 64 lowercase hex digits of the file's bytes at segmentation time.
    pub content_hash: String,
    /// ISO 8601 UTC; kept as written so that fractional seconds survive a rewrite.
    pub segmented_at: String,
    /// `None` is the lockfile's `null`: segmented but not yet reviewed.
    pub reviewed_by: Option<String>,
    pub spans: Vec<Span>,
}

impl Entry {
    pub fn is_reviewed(&self) -> bool {
        self.reviewed_by.is_some()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a span object"
)]
pub struct Span {
    pub start_line: u32,
    pub start_column: u32,
    /// Inclusive, like `end_column`.
    pub end_line: u32,
    /// Inclusive; one past the last character of the line designates its line break.
    pub end_column: u32,
    /// Two lowercase letters (ISO 639-1) or `unknown`.
    pub language: String,
    pub kind: Kind,
    #[serde(default)]
    pub path_hint: Field<String>,
    #[serde(default)]
    pub note: Field<String>,
}

impl Span {
    pub fn start(&self) -> LineCol {
        LineCol {
            line: self.start_line,
            column: self.start_column,
        }
    }

    pub fn end(&self) -> LineCol {
        LineCol {
            line: self.end_line,
            column: self.end_column,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Prose,
    Code,
    Quote,
    Data,
}

impl Kind {
    /// The inverse of [`Kind::as_str`], for kinds named in the config or on the command line.
    pub const ALL: [Kind; 4] = [Kind::Prose, Kind::Code, Kind::Quote, Kind::Data];

    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Prose => "prose",
            Kind::Code => "code",
            Kind::Quote => "quote",
            Kind::Data => "data",
        }
    }
}

/// An optional, nullable field. The schema allows `pathHint` and `note` to be left out or
/// to be `null`, and reviewers diff the lockfile, so the two must survive a read and a
/// write as they were: collapsing them would rewrite every hand-authored entry.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Field<T> {
    #[default]
    Absent,
    Null,
    Value(T),
}

impl<T> Field<T> {
    pub fn value(&self) -> Option<&T> {
        match self {
            Field::Value(v) => Some(v),
            Field::Absent | Field::Null => None,
        }
    }

    pub fn is_value(&self) -> bool {
        matches!(self, Field::Value(_))
    }
}

impl<T> From<Option<T>> for Field<T> {
    fn from(value: Option<T>) -> Self {
        value.map_or(Field::Null, Field::Value)
    }
}

/// Reads a lockfile: strict JSON of the schema's shape, then every seed invariant.
pub fn parse(text: &str) -> Result<Lockfile, LockfileError> {
    if text.trim().is_empty() {
        // JSON's own error ("EOF while parsing a value") says less than this.
        return Err(LockfileError {
            kind: LockfileErrorKind::Syntax,
            line: Some(1),
            column: Some(1),
            ..LockfileError::invariant(
                "the lockfile is empty: restore it from version control, or delete it to \
                 start a new one",
            )
        });
    }
    let lock = de::from_str(text).map_err(|e| conflict_markers(text).unwrap_or(e))?;
    check::check_lockfile(&lock)?;
    Ok(lock)
}

/// A lockfile left with git's merge conflict markers: JSON's own error (a key that is not
/// a string) would hide what happened, so the first marker line is named instead.
fn conflict_markers(text: &str) -> Option<LockfileError> {
    let (line, _) = text.lines().enumerate().find(|(_, l)| {
        ["<<<<<<<", "=======", ">>>>>>>", "|||||||"]
            .iter()
            .any(|m| {
                l.strip_prefix(m)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
            })
    })?;
    Some(LockfileError {
        kind: LockfileErrorKind::Syntax,
        line: Some(line + 1),
        column: Some(1),
        ..LockfileError::invariant(
            "git merge conflict markers: resolve the conflict (keep both sides' entries, \
             then re-run `copy-audit --list-unsegmented` for the files whose entries clash)",
        )
    })
}

/// Reads a lockfile: the one way the shell reads one. The canonical layout (nearly every
/// lockfile) is read on every core by the layout's fast path; anything else, and every
/// error with its exact position, comes from the strict reader, [`parse`]. Both check
/// every invariant, and property tests hold them to the same answer.
pub fn read(text: &str) -> Result<Lockfile, LockfileError> {
    match layout::read(text, rayon::current_num_threads() * 4) {
        Some(lock) => Ok(lock),
        None => parse(text),
    }
}

/// Reads the spans handed to `lockfile add` (`{"spans": [...]}` or a bare array). Only
/// their shape is checked here; [`fit_spans_for_add`] checks them against the file.
pub fn parse_spans(text: &str) -> Result<Vec<Span>, LockfileError> {
    de::spans_from_str(text)
}

/// How a file's entry relates to the file as it is now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryState {
    /// The hash matches: the cached spans apply.
    Fresh,
    /// The file changed since it was segmented (seed invariant 5).
    Stale,
    /// No entry for the file.
    Missing,
    /// The hash matches, but the spans came unreviewed from an older prompt (seed
    /// invariant 6). They still describe the bytes, so callers may use them while listing
    /// the file for re-segmentation.
    PromptOutdated,
}

/// Classifies `entry` (the lockfile's entry for a file whose bytes hash to `actual_hash`).
///
/// A reviewed entry is never outdated by a prompt change: the human signoff stays until
/// the content changes. Only a lower `promptVersion` than ours counts (see
/// [`CURRENT_PROMPT_VERSION`]).
pub fn entry_state(
    lock: &Lockfile,
    entry: Option<&Entry>,
    actual_hash: &str,
    current_prompt_version: u32,
) -> EntryState {
    let Some(entry) = entry else {
        return EntryState::Missing;
    };
    if entry.content_hash != actual_hash {
        return EntryState::Stale;
    }
    let older_prompt = lock.segmenter.backend == Backend::Agent
        && lock
            .segmenter
            .prompt_version
            .is_some_and(|v| v < current_prompt_version);
    if older_prompt && !entry.is_reviewed() {
        EntryState::PromptOutdated
    } else {
        EntryState::Fresh
    }
}

/// What went wrong with a lockfile, with enough context for one sentence.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LockfileError {
    pub kind: LockfileErrorKind,
    /// The path of the entry at fault.
    pub entry: Option<String>,
    /// Index (from 0) into the entry's `spans`. Displayed counting from 1.
    pub span: Option<usize>,
    /// Where the span starts in the audited file, when it could be read.
    pub span_start: Option<LineCol>,
    /// 1-based position in the lockfile text, for JSON syntax and shape errors.
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// The problem itself, without the context above.
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockfileErrorKind {
    /// Not JSON at all (or cut short): the file must be left untouched.
    Syntax,
    /// JSON, but not of the schema's shape: an unknown key, a missing field, a wrong type.
    Shape,
    /// A `schemaVersion` other than [`SCHEMA_VERSION`].
    SchemaVersion,
    /// Of the right shape, but breaking one of the seed's invariants.
    Invariant,
}

impl LockfileError {
    fn invariant(message: impl Into<String>) -> LockfileError {
        LockfileError {
            kind: LockfileErrorKind::Invariant,
            entry: None,
            span: None,
            span_start: None,
            line: None,
            column: None,
            message: message.into(),
        }
    }

    /// Names the entry, for errors found by checks that only saw the span list.
    pub fn in_entry(mut self, path: &str) -> LockfileError {
        self.entry = Some(path.to_owned());
        self
    }
}

impl fmt::Display for LockfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut context = false;
        if let Some(entry) = &self.entry {
            write!(f, "entry \"{}\"", entry.escape_debug())?;
            context = true;
        }
        if let Some(span) = self.span {
            if context {
                f.write_str(", ")?;
            }
            write!(f, "span {}", span + 1)?;
            if let Some(at) = self.span_start {
                write!(f, " (line {}:{})", at.line, at.column)?;
            }
            context = true;
        }
        if context {
            f.write_str(": ")?;
        }
        f.write_str(&self.message)?;
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, " (line {line}, column {column})"),
            (Some(line), None) => write!(f, " (line {line})"),
            _ => Ok(()),
        }
    }
}

impl std::error::Error for LockfileError {}
