//! The copy-audit query graph.
//!
//! ```text
//! SourceFile.source ► content_hash ─┐
//! SourceFile.entry ─────────────────┴► entry_state ─► span_index ───────────┐
//! SourceFile.source ► views ─► hits (all rules, view coordinates) ─► placed ─┴► report
//! Settings (HIGH durability) ────────┘                                        ┘
//! ```
//!
//! `hits` and `placed` depend only on the bytes and the rules, so editing the lockfile
//! (new spans, a review) re-runs only the cheap filter in `report`; editing a file re-runs
//! its own queries and nobody else's; identical bytes re-run the queries that read them,
//! which compare equal, and nothing after them.

use crate::copy::extract::{self, Format};
use crate::copy::lockfile::{Entry, Kind, SpanIndex};
use crate::copy::rules::{Hit, RuleSet, Scans, Severity, Triggers};
pub use crate::copy::source::{FileError, Source};
use crate::copy::view::View;
use crate::hash::ContentHash;
use crate::text::{LineCol, LineIndex};
use rayon::prelude::*;
use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::Arc;

/// One file of the audited tree. The shell sets `source` only when the bytes changed (a
/// setter always starts a new revision) and `entry` when the lockfile entry changed.
#[salsa::input(debug)]
pub struct SourceFile {
    /// Root-relative path with `/` separators, as in the lockfile.
    #[returns(ref)]
    pub path: String,
    #[returns(copy)]
    pub format: Format,
    #[returns(ref)]
    pub source: Source,
    #[returns(ref)]
    pub entry: Option<Entry>,
    /// `paths.locale`'s language for this file: a hint for its provisional spans.
    #[returns(ref)]
    pub locale: Option<String>,
}

/// Everything the audit of one file depends on besides the file, as one value ([`Setup`]):
/// it is set once, before any file, and never changes within a run or a watch session, so
/// there is nothing to gain from tracking its parts apart. HIGH durability.
#[salsa::input(singleton, debug)]
pub struct Settings {
    #[returns(ref)]
    pub setup: Setup,
}

/// The effective rules: the configured rule set plus, for custom rules, the span kinds they
/// are limited to.
#[derive(Clone, Debug)]
pub struct RuleTable {
    pub set: Arc<RuleSet>,
    pub kinds: BTreeMap<String, Vec<Kind>>,
    /// Identifies the configuration the table was built from; two tables with the same
    /// fingerprint are the same rules.
    pub fingerprint: ContentHash,
}

impl PartialEq for RuleTable {
    fn eq(&self, other: &Self) -> bool {
        self.fingerprint == other.fingerprint
    }
}

impl Eq for RuleTable {}

/// The configured rules and the language defaults: [`Settings`]' one value, and what a
/// report computed without a database ([`report_once`]) reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub rules: RuleTable,
    pub default_language: String,
    /// The declared profiles' language codes: what provisional spans tag by key path.
    pub declared: Vec<String>,
    /// `segment.unknown_language: default`: spans tagged `unknown` take the default
    /// language instead of skipping language-scoped rules.
    pub unknown_language_default: bool,
    pub ignore_marker: String,
    /// The lockfile's `segmenter` says its unreviewed entries predate our prompt version.
    pub prompt_outdated: bool,
}

impl Setup {
    /// Creates the `Settings` singleton in `db` (HIGH durability: it never changes
    /// within a run).
    pub fn install<Db: salsa::Database + ?Sized>(&self, db: &Db) -> Settings {
        Settings::builder(self.clone())
            .durability(salsa::Durability::HIGH)
            .new(db)
    }
}

/// How a file's lockfile entry relates to its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryState {
    /// The hash matches: the spans apply.
    Fresh,
    /// The hash matches but the entry is unreviewed and the segmenter prompt has moved on
    /// (seed invariant 6). The spans still describe these bytes and are used.
    PromptOutdated,
    /// The file changed since it was segmented.
    Stale,
    /// No entry.
    Missing,
}

impl EntryState {
    pub fn has_usable_spans(self) -> bool {
        matches!(self, EntryState::Fresh | EntryState::PromptOutdated)
    }
}

/// A finding placed in the source file. Serialisable so the shell can cache it across
/// runs, keyed by everything it depends on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Finding {
    pub rule_id: String,
    pub severity: Severity,
    pub line: u32,
    pub column: u32,
    /// Where the matched text ends in the source (exclusive), for editors and SARIF-style
    /// ranges; the reference reports only the start.
    pub end: LineCol,
    /// Source byte offset of the reported position.
    pub offset: usize,
    /// The matched text as the rule saw it (escapes decoded, markup left out), trimmed:
    /// the reference's `snippet`. Cut to [`SNIPPET_MAX`] characters.
    pub snippet: String,
    pub message: String,
    pub fix: Option<SourceFix>,
}

/// A fix in source bytes, with the line:column of both ends (end exclusive) so reports
/// need not read the file again.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SourceFix {
    pub range: Range<usize>,
    pub replacement: String,
    pub start: LineCol,
    pub end: LineCol,
    /// The range's length in UTF-16 code units: the reference's `fix.length`.
    pub length: u32,
}

/// The audit of one file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FileReport {
    pub state: EntryState,
    pub findings: Vec<Finding>,
    pub error: Option<FileError>,
}

/// What computing a file's report reads: the file, the settings and the values computed
/// from them. Each computation is written once, against this trait, and runs two ways:
/// through the database ([`Tracked`]: every read is a tracked query, so salsa records it
/// and keeps the value for the next revision) and without one ([`OneShot`]: each value is
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
}

/// A file's inputs and values read through the database's queries.
struct Tracked<'db> {
    db: &'db dyn salsa::Database,
    file: SourceFile,
}

impl FileInputs for Tracked<'_> {
    fn format(&self) -> Format {
        self.file.format(self.db)
    }
    fn source(&self) -> &Source {
        self.file.source(self.db)
    }
    fn entry(&self) -> Option<&Entry> {
        self.file.entry(self.db).as_ref()
    }
    fn setup(&self) -> &Setup {
        Settings::get(self.db).setup(self.db)
    }
    fn locale(&self) -> Option<&str> {
        self.file.locale(self.db).as_deref()
    }
    fn entry_state(&self) -> EntryState {
        entry_state(self.db, self.file)
    }
    fn line_index(&self) -> &LineIndex {
        line_index(self.db, self.file)
    }
    fn views(&self) -> &Result<Vec<View>, FileError> {
        views(self.db, self.file)
    }
    fn span_index(&self) -> &Result<Option<SpanIndex>, FileError> {
        span_index(self.db, self.file)
    }
    fn languages(&self) -> &BTreeSet<String> {
        languages(self.db, self.file)
    }
}

/// A file's inputs, and each value computed from them the first time it is read.
struct OneShot<'a> {
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

/// The file's SHA-256, which its [`Source`] carries: the bytes are hashed once, when the
/// shell reads them for the lockfile and the caches. A query still, so that equal bytes
/// set again stop here and `entry_state` is reused.
#[salsa::tracked(returns(copy))]
pub fn content_hash(db: &dyn salsa::Database, file: SourceFile) -> ContentHash {
    file.source(db).hash()
}

#[salsa::tracked(returns(copy))]
pub fn entry_state(db: &dyn salsa::Database, file: SourceFile) -> EntryState {
    state_of(
        file.entry(db).as_ref(),
        content_hash(db, file),
        Settings::get(db).setup(db).prompt_outdated,
    )
}

/// How an entry relates to bytes with hash `hash`: the one definition, shared by the query
/// and by the shell when a cache spares it reading the file.
pub fn state_of(entry: Option<&Entry>, hash: ContentHash, prompt_outdated: bool) -> EntryState {
    state_from(
        entry.map(|e| (ContentHash::parse(&e.content_hash), e.reviewed_by.is_some())),
        hash,
        prompt_outdated,
    )
}

/// [`state_of`] from what it reads of an entry: its recorded hash (`None` if malformed)
/// and whether it is reviewed — all a summary of the lockfile needs to keep.
pub fn state_from(
    entry: Option<(Option<ContentHash>, bool)>,
    hash: ContentHash,
    prompt_outdated: bool,
) -> EntryState {
    let Some((recorded, reviewed)) = entry else {
        return EntryState::Missing;
    };
    if recorded != Some(hash) {
        EntryState::Stale
    } else if !reviewed && prompt_outdated {
        EntryState::PromptOutdated
    } else {
        EntryState::Fresh
    }
}

#[salsa::tracked(returns(ref))]
pub fn line_index(db: &dyn salsa::Database, file: SourceFile) -> LineIndex {
    LineIndex::of_bytes(file.source(db).bytes())
}

#[salsa::tracked(returns(ref))]
pub fn views(db: &dyn salsa::Database, file: SourceFile) -> Result<Vec<View>, FileError> {
    views_of(&Tracked { db, file })
}

fn views_of(i: &impl FileInputs) -> Result<Vec<View>, FileError> {
    let text = i.source().text().map_err(Clone::clone)?;
    // Without path hints, which nothing an audit reports reads (see `PathHints`) — but a
    // file without a fresh entry is segmented from its views, and the key paths are what
    // tag a bilingual file.
    let hints = match i.entry_state().has_usable_spans() {
        true => extract::PathHints::Without,
        false => extract::PathHints::With,
    };
    extract::extract_views(i.format(), text, hints).map_err(|e| FileError {
        line_col: Some(i.line_index().line_col(text, e.offset)),
        message: e.message,
    })
}

/// A rule hit with the indices of its rule and view.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RawHit {
    pub rule: usize,
    pub view: usize,
    pub hit: Hit,
}

/// The languages some prose of the file is in: those of the prose and quote spans its
/// views overlap, and the default language wherever a view reaches into a gap (or when no
/// spans apply). A language-scoped rule of any other language cannot survive the span
/// filter, so it is not run at all — on a Czech-only tree the English rules cost nothing.
/// The set rarely changes when the lockfile does, and an equal set stops the change here.
#[salsa::tracked(returns(ref))]
pub fn languages(db: &dyn salsa::Database, file: SourceFile) -> BTreeSet<String> {
    languages_of(&Tracked { db, file })
}

fn languages_of(i: &impl FileInputs) -> BTreeSet<String> {
    let default = i.setup().default_language.as_str();
    let mut out = BTreeSet::new();
    let (Ok(views), Ok(Some(spans))) = (i.views(), i.span_index()) else {
        out.insert(default.to_string());
        return out;
    };
    let range = |view: &View| view.source_offset(0)..view.source_range(0..view.text.len()).end;
    if spans.is_empty() {
        // Most entries of a tree in the default language have no spans: every view that
        // reaches into the file reaches into the gap, and the first one says so.
        if views.iter().any(|view| !range(view).is_empty()) {
            out.insert(default.to_string());
        }
        return out;
    }
    let unknown_default = i.setup().unknown_language_default;
    for view in views {
        let (overlapping, covered) = spans.overlapping(range(view));
        for (kind, language) in overlapping {
            if matches!(kind, Kind::Code | Kind::Data) {
                continue;
            }
            // Looked up before it is copied: most spans repeat a language already in.
            let language = if language != "unknown" {
                language
            } else if unknown_default {
                default
            } else {
                continue;
            };
            if !out.contains(language) {
                out.insert(language.to_string());
            }
        }
        if !covered && !out.contains(default) {
            out.insert(default.to_string());
        }
    }
    out
}

/// Every rule that can fire in one of the file's [`languages`] on every view, before span
/// filtering.
#[salsa::tracked(returns(ref))]
pub fn hits(db: &dyn salsa::Database, file: SourceFile) -> Vec<RawHit> {
    let mut parts = find_hits(&Tracked { db, file });
    if parts.len() == 1 {
        parts.pop().expect("one part")
    } else {
        parts.concat()
    }
}

/// [`hits`]'s value in consecutive parts, computed without keeping it.
fn find_hits(i: &impl FileInputs) -> Vec<Vec<RawHit>> {
    let Ok(views) = i.views() else {
        return Vec::new();
    };
    let rules = &i.setup().rules;
    let languages = i.languages();
    type Active<'r> = (
        usize,
        &'r std::sync::Arc<dyn crate::copy::rules::Rule>,
        Triggers,
    );
    let active: Vec<Active<'_>> = rules
        .set
        .rules()
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            let scoped = &r.meta().languages;
            scoped.is_empty() || scoped.iter().any(|l| languages.contains(l))
        })
        .map(|(i, r)| (i, r, r.triggers()))
        .collect();
    let check = |first: usize, views: &[View]| {
        let mut out = Vec::new();
        let mut buf = Vec::new();
        for (vi, view) in (first..).zip(views) {
            let scans = Scans::new(view);
            let present = scans.triggers();
            for &(ri, rule, triggers) in &active {
                if !triggers.intersects(present) {
                    continue;
                }
                rule.check_in(&scans, &mut buf);
                if !buf.is_empty() {
                    out.extend(buf.drain(..).map(|hit| RawHit {
                        rule: ri,
                        view: vi,
                        hit,
                    }));
                }
            }
        }
        out
    };
    // A file of many views (a large JSON file has one per string) is checked on every
    // core, in order; most files are one worker's and stay on it.
    if views.len() < PARALLEL_VIEWS {
        return vec![check(0, views)];
    }
    views
        .par_chunks(PARALLEL_VIEWS / 4)
        .enumerate()
        .map(|(i, chunk)| check(i * (PARALLEL_VIEWS / 4), chunk))
        .collect()
}

/// The views from which a file's rules run on every core.
const PARALLEL_VIEWS: usize = 1024;

#[salsa::tracked(returns(ref))]
pub fn span_index(
    db: &dyn salsa::Database,
    file: SourceFile,
) -> Result<Option<SpanIndex>, FileError> {
    span_index_of(&Tracked { db, file })
}

fn span_index_of(i: &impl FileInputs) -> Result<Option<SpanIndex>, FileError> {
    if !i.entry_state().has_usable_spans() {
        return Ok(provisional_spans(i));
    }
    let (Ok(text), Some(entry)) = (i.source().text(), i.entry()) else {
        return Ok(None);
    };
    if entry.spans.is_empty() {
        // Nothing to place: the file's lines need not be counted.
        return Ok(Some(SpanIndex::default()));
    }
    SpanIndex::new(text, i.line_index(), &entry.spans)
        .map(Some)
        .map_err(|e| FileError {
            line_col: None,
            message: format!("lockfile entry does not fit the file: {e}"),
        })
}

/// The spans a file without a fresh entry is audited with: the structural segmenter's,
/// computed here and never written (`--offline` writes them). Without them, every string
/// of a bilingual file whose entry went stale read as the default language.
fn provisional_spans(i: &impl FileInputs) -> Option<SpanIndex> {
    let text = i.source().text().ok()?;
    // With their path hints (see `views_of`).
    let views = i.views().as_ref().ok()?;
    let setup = crate::copy::structural::Setup {
        declared: &i.setup().declared,
        default_language: &i.setup().default_language,
        locale: i.locale(),
    };
    let spans = crate::copy::structural::spans(i.format(), text, views, &setup);
    SpanIndex::new(text, i.line_index(), &spans).ok()
}

/// A hit placed in the source: everything about a finding that depends on the file's
/// bytes, computed before span filtering so that a lockfile edit never re-places hits and
/// identical bytes stop here (the result compares equal and `report` is reused).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Placed {
    /// Index of the rule in the rule table.
    pub rule: usize,
    /// Source offset of the matched text's start: where span filtering looks.
    pub matched_at: usize,
    pub finding: Finding,
}

#[salsa::tracked(returns(ref))]
pub fn placed(db: &dyn salsa::Database, file: SourceFile) -> Vec<Placed> {
    let hits = hits(db, file);
    place(
        &Tracked { db, file },
        hits.iter().map(Cow::Borrowed),
        hits.len(),
    )
}

/// [`placed`]'s value from the `count` `hits`, computed without keeping it; the messages of
/// hits handed over owned move into the findings.
fn place<'h>(
    i: &impl FileInputs,
    hits: impl Iterator<Item = Cow<'h, RawHit>>,
    count: usize,
) -> Vec<Placed> {
    // Most files have no hits: their lines need not be counted nor searched for the
    // ignore marker.
    if count == 0 {
        return Vec::new();
    }
    let Ok(views) = i.views() else {
        return Vec::new();
    };
    let text = i
        .source()
        .text()
        .expect("views succeeded, so the file is text");
    let index = i.line_index();
    let table = &i.setup().rules;
    let ignored = IgnoredLines::new(text, index, &i.setup().ignore_marker);
    // One cursor per kind of position: each rule's hits come in order, so thousands of
    // findings on one long line count its columns once, not once each.
    let (mut at_cursor, mut end_cursor) = (index.cursor(), index.cursor());
    let (mut fix_start, mut fix_end) = (index.cursor(), index.cursor());
    // Sized once: a file with 200k findings spent a fifth of its audit growing this.
    let mut out = Vec::with_capacity(count);
    for raw in hits {
        let view = &views[raw.view];
        let meta = table.set.rules()[raw.rule].meta();
        let matched_at = view.source_offset(raw.hit.range.start);
        let offset = raw.hit.anchor.unwrap_or(matched_at);
        let at = at_cursor.line_col(text, offset);
        if ignored.covers(at.line) {
            continue;
        }
        let matched_end = view.source_range(raw.hit.range.clone()).end.max(offset);
        let snippet = snippet(&view.text[raw.hit.range.clone()]);
        let fix_range = raw
            .hit
            .fix
            .as_ref()
            .map(|e| view.source_range(e.range.clone()));
        let rule = raw.rule;
        let (message, replacement) = match raw {
            Cow::Owned(raw) => (raw.hit.message, raw.hit.fix.map(|e| e.replacement)),
            Cow::Borrowed(raw) => (
                raw.hit.message.clone(),
                raw.hit.fix.as_ref().map(|e| e.replacement.clone()),
            ),
        };
        let fix = fix_range
            .zip(replacement)
            .filter(|(_, replacement)| crate::copy::fix::fits(i.format(), replacement))
            .map(|(range, replacement)| SourceFix {
                start: fix_start.line_col(text, range.start),
                end: fix_end.line_col(text, range.end),
                length: crate::text::count_units(&text.as_bytes()[range.clone()]) as u32,
                range,
                replacement,
            });
        out.push(Placed {
            rule,
            matched_at,
            finding: Finding {
                rule_id: meta.id.clone(),
                severity: meta.severity,
                line: at.line,
                column: at.column,
                end: end_cursor.line_col(text, matched_end),
                offset,
                snippet,
                message,
                fix,
            },
        });
    }
    out
}

#[salsa::tracked(returns(ref))]
pub fn report(db: &dyn salsa::Database, file: SourceFile) -> FileReport {
    assemble(&Tracked { db, file }, |admits| {
        placed(db, file)
            .iter()
            .filter(|p| admits(p))
            .map(|p| p.finding.clone())
            .collect()
    })
}

/// [`report`] for a file audited once, without a database: the same value, computed
/// through [`OneShot`], so nothing of it is kept — no query, no placed or raw hit (whose
/// messages move into the placed hits). A one-shot run reads each report once, and the
/// copies of a large file's findings (a hit's, a placed one, the report's, the caller's)
/// were most of its memory.
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
        let parts = find_hits(&once);
        let count = parts.iter().map(Vec::len).sum();
        let hits = parts.into_iter().flatten().map(Cow::Owned);
        let placed = place(&once, hits, count);
        // Copied, not moved, out of the placed hits: the copies are packed together,
        // where moved strings would stay scattered among the pages of everything freed
        // with the file's values (on a tree with 800k findings the run held 90 MB more).
        placed
            .iter()
            .filter(|p| admits(p))
            .map(|p| p.finding.clone())
            .collect()
    })
}

/// A file's report around its admitted findings (from `findings`, given the filter): its
/// entry state, or the error that stopped it; findings in source order, duplicates
/// dropped.
fn assemble(
    i: &impl FileInputs,
    findings: impl FnOnce(&dyn Fn(&Placed) -> bool) -> Vec<Finding>,
) -> FileReport {
    let state = i.entry_state();
    let failed = |e: &FileError| FileReport {
        state,
        findings: Vec::new(),
        error: Some(e.clone()),
    };
    if let Err(e) = i.views() {
        return failed(e);
    }
    let spans = match i.span_index() {
        Ok(s) => s.as_ref(),
        Err(e) => return failed(e),
    };
    let table = &i.setup().rules;
    let filter = Filter {
        spans,
        default_language: &i.setup().default_language,
        unknown_language_default: i.setup().unknown_language_default,
        table,
    };
    let mut findings = findings(&|p: &Placed| {
        let meta = table.set.rules()[p.rule].meta();
        filter.admits(&meta.id, &meta.languages, p.matched_at)
    });
    findings.sort_by(|a, b| (a.offset, &a.rule_id).cmp(&(b.offset, &b.rule_id)));
    findings.dedup();
    FileReport {
        state,
        findings,
        error: None,
    }
}

/// The seed's filter: code and data spans drop findings; language-scoped rules fire only
/// where the position's language is theirs; gaps take the config default language.
struct Filter<'a> {
    spans: Option<&'a SpanIndex>,
    default_language: &'a str,
    unknown_language_default: bool,
    table: &'a RuleTable,
}

impl Filter<'_> {
    fn admits(&self, rule_id: &str, languages: &[String], offset: usize) -> bool {
        let (kind, language) = self
            .spans
            .and_then(|s| s.at(offset))
            .unwrap_or((Kind::Prose, self.default_language));
        if matches!(kind, Kind::Code | Kind::Data) {
            return false;
        }
        if let Some(kinds) = self.table.kinds.get(rule_id)
            && !kinds.is_empty()
            && !kinds.contains(&kind)
        {
            return false;
        }
        if languages.is_empty() {
            return true;
        }
        let language = if language == "unknown" {
            if !self.unknown_language_default {
                return false;
            }
            self.default_language
        } else {
            language
        };
        languages.iter().any(|l| l == language)
    }
}

/// Lines holding the ignore marker; a finding on such a line or the line after is dropped.
struct IgnoredLines(Vec<u32>);

impl IgnoredLines {
    fn new(text: &str, index: &LineIndex, marker: &str) -> Self {
        if marker.is_empty() {
            return IgnoredLines(Vec::new());
        }
        let mut lines: Vec<u32> = memchr::memmem::find_iter(text.as_bytes(), marker.as_bytes())
            .map(|at| index.line_col(text, at).line)
            .collect();
        lines.dedup();
        IgnoredLines(lines)
    }

    fn covers(&self, line: u32) -> bool {
        self.0.binary_search(&line).is_ok()
            || (line > 1 && self.0.binary_search(&(line - 1)).is_ok())
    }
}

/// Longest snippet, in characters, before it is cut with `…`.
pub const SNIPPET_MAX: usize = 80;

/// The matched text, trimmed, cut to [`SNIPPET_MAX`] characters.
fn snippet(matched: &str) -> String {
    let matched = matched.trim();
    match matched.char_indices().nth(SNIPPET_MAX) {
        None => matched.to_owned(),
        Some((cut, _)) => format!("{}…", matched[..cut].trim_end()),
    }
}
