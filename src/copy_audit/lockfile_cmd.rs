//! `copy-audit lockfile add | mark-reviewed | invalidate | list | check | normalize`.
//!
//! Every edit is a read-modify-write under the root's advisory lock, and the lockfile is
//! written canonically, atomically, and only when a byte changes.

use super::cli::{LockfileCommand, OutputFormat};
use super::report::print_json;
use super::workspace::Workspace;
use super::{Failure, Outcome};
use crate::fsutil::{DirLock, write_if_changed};
use lockgraph_queries::copy::lockfile::{self, Lockfile};
use lockgraph_queries::copy::lockfile::{Entry, SpanFit};
use lockgraph_queries::hash::ContentHash;
use lockgraph_queries::text::{LineCol, LineIndex};
use rayon::prelude::*;
use serde::Serialize;
use std::fs;
use std::io::Read;
use std::path::Path;

pub fn run(ws: &Workspace, cmd: LockfileCommand, format: OutputFormat) -> Result<Outcome, Failure> {
    match cmd {
        LockfileCommand::List => list(ws, format),
        LockfileCommand::Add { path, spans, force } => edit(ws, |ws, lock| {
            let rel = ws.lockfile_key(&path)?;
            let text = ws.read_text(&rel)?;
            let input = read_spans_input(&spans)?;
            let new_spans = lockfile::parse_spans(&input)
                .map_err(|e| Failure::new(format!("{}: {e}", spans_name(&spans))))?;
            let (new_spans, clamped) =
                lockfile::fit_spans_for_add(&text, &LineIndex::new(&text), &new_spans)
                    .map_err(|e| Failure::new(format!("{}: for {rel}: {e}", spans_name(&spans))))?;
            for c in &clamped {
                eprintln!(
                    "{rel}: span {} ({}) reaches past the end of {}; written as {}",
                    c.span + 1,
                    range_text(c.from),
                    past_what(c.from, c.to),
                    range_text(c.to)
                );
            }
            let previous = lock.files.get(&rel);
            if previous.is_some() && !force {
                return Err(Failure::new(format!(
                    "{rel}: already has a lockfile entry; pass --force to replace it"
                )));
            }
            let entry = lockfile::refreshed_entry(
                previous,
                new_spans,
                ContentHash::of(text.as_bytes()).to_string(),
                now_utc(),
            );
            let count = entry.spans.len();
            lock.files.insert(rel.clone(), entry);
            Ok(format!(
                "{rel}: entry written with {count} spans, awaiting review"
            ))
        }),
        LockfileCommand::MarkReviewed { path, by } => edit(ws, |ws, lock| {
            if by.trim().is_empty() {
                return Err(Failure::new(
                    "--by needs a reviewer id, e.g. ondrej@2026-04-12",
                ));
            }
            let rel = ws.lockfile_key(&path)?;
            let text = ws.read_text(&rel)?;
            let entry = lock.files.get_mut(&rel).ok_or_else(|| {
                Failure::new(format!(
                    "{rel}: no lockfile entry to review; segment it first (copy-audit segment {rel})"
                ))
            })?;
            let actual = ContentHash::of(text.as_bytes()).to_string();
            if entry.content_hash != actual {
                return Err(Failure::new(format!(
                    "{rel}: the file changed since it was segmented (entry {}, file {actual}); \
                     re-segment before review",
                    entry.content_hash
                )));
            }
            entry.reviewed_by = Some(by.clone());
            Ok(format!("{rel}: reviewed by {by}"))
        }),
        LockfileCommand::Check => check(ws, format),
        LockfileCommand::Merge { base, ours, theirs } => merge(&base, &ours, &theirs),
        LockfileCommand::Normalize => edit(ws, |ws, lock| {
            let (mut clamped, mut dropped, mut entries, mut skipped) = (0, 0, 0, 0);
            for (rel, entry) in lock.files.iter_mut() {
                let Ok(text) = ws.read_text(rel) else {
                    skipped += 1;
                    continue;
                };
                if ContentHash::of(text.as_bytes()).to_string() != entry.content_hash {
                    // A stale entry's spans describe other bytes: clamping them against
                    // these would change what they cover.
                    eprintln!("{rel}: stale; left as it is (re-segment it)");
                    skipped += 1;
                    continue;
                }
                let (c, d) =
                    lockfile::normalize_spans(&text, &LineIndex::new(&text), &mut entry.spans);
                if c + d > 0 {
                    eprintln!("{rel}: {c} spans clamped, {d} covering nothing dropped");
                    entries += 1;
                }
                (clamped, dropped) = (clamped + c, dropped + d);
            }
            Ok(format!(
                "{entries} entries normalized ({clamped} spans clamped, {dropped} dropped); \
                 {skipped} stale or missing files skipped"
            ))
        }),
        LockfileCommand::Invalidate { glob } => invalidate(ws, &glob),
    }
}

/// Removes the entries whose path matches `glob` (`lockfile invalidate`, and the audit's
/// `--refresh-cache`): their files are then missing, to be segmented again.
pub fn invalidate(ws: &Workspace, glob: &str) -> Result<Outcome, Failure> {
    edit(ws, |_, lock| {
        let matcher = globset::GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|e| Failure::new(format!("invalid glob `{glob}`: {e}")))?
            .compile_matcher();
        let before = lock.files.len();
        lock.files.retain(|path, _| !matcher.is_match(path));
        Ok(format!("{} entries removed", before - lock.files.len()))
    })
}

/// Runs one lockfile edit under the lock and writes the result if it changed.
pub(super) fn edit(
    ws: &Workspace,
    change: impl FnOnce(&Workspace, &mut Lockfile) -> Result<String, Failure>,
) -> Result<Outcome, Failure> {
    let _guard = DirLock::acquire(&ws.root)
        .map_err(|e| Failure::new(format!("cannot lock {}: {e}", ws.root.display())))?;
    let mut lock = ws.read_lockfile()?;
    let message = change(ws, &mut lock)?;
    // Never write what the next run could not read.
    lock.validate()
        .map_err(|e| Failure::new(format!("{}: refusing to write: {e}", ws.lock_display())))?;
    let wrote = write_if_changed(
        &ws.root,
        &ws.lock_path,
        lockfile::to_canonical_string(&lock).as_bytes(),
    )
    .map_err(|e| Failure::new(format!("{}: {e}", ws.lock_display())))?;
    let unchanged = if wrote { "" } else { " (lockfile unchanged)" };
    eprintln!("{message}{unchanged}");
    Ok(Outcome::Clean)
}

/// `3:1–60:111`, a span's coordinates as `lockfile check` and `add` print them.
fn range_text((start, end): (LineCol, LineCol)) -> String {
    format!(
        "{}:{}–{}:{}",
        start.line, start.column, end.line, end.column
    )
}

/// Which end a span reached past, from its coordinates as given and written exactly: the
/// file, or a line (its start's when the start moved, else its end's).
fn past_what(given: (LineCol, LineCol), exact: (LineCol, LineCol)) -> String {
    if given.1.line > exact.1.line && given.0 == exact.0 {
        "the file".to_owned()
    } else if given.0 != exact.0 {
        format!("line {}", given.0.line)
    } else {
        format!("line {}", given.1.line)
    }
}

fn spans_name(arg: &str) -> &str {
    if arg == "-" { "<stdin>" } else { arg }
}

fn read_spans_input(arg: &str) -> Result<String, Failure> {
    if arg == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| Failure::new(format!("<stdin>: {e}")))?;
        Ok(s)
    } else {
        fs::read_to_string(arg).map_err(|e| Failure::new(format!("{arg}: {e}")))
    }
}

pub(super) fn now_utc() -> String {
    let now = time::OffsetDateTime::now_utc();
    now.format(time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second]Z"
    ))
    .expect("a UTC timestamp formats")
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListReport {
    schema_version: u32,
    segmenter: ListSegmenter,
    files: Vec<ListEntry>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListSegmenter {
    backend: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_version: Option<u32>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListEntry {
    path: String,
    content_hash: String,
    segmented_at: String,
    reviewed_by: Option<String>,
    span_count: usize,
}

fn list(ws: &Workspace, format: OutputFormat) -> Result<Outcome, Failure> {
    let lock = ws.read_lockfile()?;
    let report = ListReport {
        schema_version: lock.schema_version,
        segmenter: ListSegmenter {
            backend: lock.segmenter.backend.as_str(),
            prompt_version: lock.segmenter.prompt_version,
        },
        files: lock
            .files
            .iter()
            .map(|(path, e)| ListEntry {
                path: path.clone(),
                content_hash: e.content_hash.clone(),
                segmented_at: e.segmented_at.clone(),
                reviewed_by: e.reviewed_by.clone(),
                span_count: e.spans.len(),
            })
            .collect(),
    };
    if format == OutputFormat::Json {
        print_json(&report);
    } else {
        for f in &report.files {
            println!(
                "{:<40} {:>5} spans  {}  {}",
                f.path,
                f.span_count,
                f.segmented_at,
                f.reviewed_by.as_deref().unwrap_or("(unreviewed)")
            );
        }
        println!("{} entries", report.files.len());
    }
    Ok(Outcome::Clean)
}

/// One thing `lockfile check` found wrong with an entry.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Problem {
    pub path: String,
    /// `stale`, `fileMissing`, `unreadable`, `coversNothing` or `pastEnd`.
    pub kind: &'static str,
    /// The span's 1-based number in the entry.
    #[serde(skip_serializing_if = "Option::is_none")]
    span: Option<usize>,
    /// The exact coordinates of a `pastEnd` span (what `lockfile normalize` writes).
    #[serde(skip_serializing_if = "Option::is_none")]
    exact: Option<String>,
    pub message: String,
    /// The file is in `paths.include` and not excluded: the audit reads its entry.
    in_scope: bool,
}

impl Problem {
    /// Whether the audit reads the entry differently from what it says: the check fails.
    /// An entry out of scope is kept but never read, so it fails nothing.
    fn blocks(&self) -> bool {
        self.in_scope && matches!(self.kind, "stale" | "coversNothing")
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CheckReport {
    entries: usize,
    problems: Vec<Problem>,
}

fn check(ws: &Workspace, format: OutputFormat) -> Result<Outcome, Failure> {
    let lock = ws.read_lockfile()?;
    let matcher = ws
        .config
        .matcher(None)
        .map_err(|e| Failure::new(e.to_string()))?;
    let entries: Vec<(&String, &Entry)> = lock.files.iter().collect();
    let problems: Vec<Problem> = entries
        .par_iter()
        .flat_map_iter(|(rel, entry)| {
            let in_scope = matcher.is_included(rel);
            entry_problems(ws, rel, entry)
                .into_iter()
                .map(move |p| Problem { in_scope, ..p })
        })
        .collect();
    let report = CheckReport {
        entries: entries.len(),
        problems,
    };
    let failed = report.problems.iter().any(Problem::blocks);
    if format == OutputFormat::Json {
        print_json(&report);
    } else {
        for p in &report.problems {
            let scope = if p.in_scope { "" } else { " (out of scope)" };
            println!("{}: {}{scope}", p.path, p.message);
        }
        let count = |kind| report.problems.iter().filter(|p| p.kind == kind).count();
        println!(
            "{} entries checked: {} stale, {} spans covering nothing, {} spans past an end{}",
            report.entries,
            count("stale"),
            count("coversNothing"),
            count("pastEnd"),
            if count("pastEnd") > 0 {
                " (harmless; `copy-audit lockfile normalize` writes them exactly)"
            } else {
                ""
            }
        );
    }
    Ok(if failed {
        Outcome::Failed
    } else {
        Outcome::Clean
    })
}

/// What is wrong with `rel`'s entry, against the file as it is now.
pub(super) fn entry_problems(ws: &Workspace, rel: &str, entry: &Entry) -> Vec<Problem> {
    let problem = |kind, span: Option<usize>, exact: Option<String>, message: String| Problem {
        path: rel.to_owned(),
        kind,
        span,
        exact,
        message,
        in_scope: true,
    };
    let text = match crate::fsutil::read_regular(&ws.root.join(rel)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let message = "no such file (the entry is kept; `lockfile invalidate` removes it)";
            return vec![problem("fileMissing", None, None, message.to_owned())];
        }
        Err(e) => return vec![problem("unreadable", None, None, e.to_string())],
        Ok(bytes) => bytes,
    };
    let actual = ContentHash::of(&text).to_string();
    if actual != entry.content_hash {
        let message = format!(
            "stale: the entry is for {}, the file is {actual}; re-segment it",
            entry.content_hash
        );
        return vec![problem("stale", None, None, message)];
    }
    let Ok(text) = String::from_utf8(text) else {
        let message = "not UTF-8 text".to_owned();
        return vec![problem("unreadable", None, None, message)];
    };
    let index = LineIndex::new(&text);
    let mut out = Vec::new();
    for (i, span) in entry.spans.iter().enumerate() {
        let given = (span.start(), span.end());
        match lockfile::span_fit(&text, &index, span) {
            SpanFit::Exact => {}
            SpanFit::Empty => out.push(problem(
                "coversNothing",
                Some(i + 1),
                None,
                format!(
                    "span {} ({}) covers no character (it starts past the end of the file); \
                     the audit ignores it",
                    i + 1,
                    range_text(given)
                ),
            )),
            SpanFit::PastEnd { start, end } => out.push(problem(
                "pastEnd",
                Some(i + 1),
                Some(range_text((start, end))),
                format!(
                    "span {} ({}) reaches past the end of {}; it covers {}",
                    i + 1,
                    range_text(given),
                    past_what(given, (start, end)),
                    range_text((start, end))
                ),
            )),
        }
    }
    out
}

/// `lockfile merge BASE OURS THEIRS`, git's merge driver: merges entry by entry
/// (`lockfile::merge`) and writes the canonical result over OURS, as git expects. Each
/// entry changed on both sides is named on stderr with how it was settled; exit 1 when
/// something could not be settled (git then reports a conflict, and the lockfile holds
/// the merge, readable, for a person to finish).
pub fn merge(base: &Path, ours: &Path, theirs: &Path) -> Result<Outcome, Failure> {
    let read = |path: &Path| -> Result<Lockfile, Failure> {
        let text = crate::fsutil::read_regular_to_string(path)
            .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
        // Git hands an empty base when the lockfile is new on both sides.
        if text.trim().is_empty() {
            return Ok(super::workspace::empty_lockfile());
        }
        lockfile::read(&text).map_err(|e| Failure::new(format!("{}: {e}", path.display())))
    };
    let (b, o, t) = (read(base)?, read(ours)?, read(theirs)?);
    let merged = lockfile::merge(&b, &o, &t);
    merged
        .lock
        .validate()
        .map_err(|e| Failure::new(format!("{}: refusing to write: {e}", ours.display())))?;
    // OURS is named by git (or the user): it is written where it is, never through a
    // link to another directory.
    let here = ours
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    crate::fsutil::write_if_changed(
        here,
        ours,
        lockfile::to_canonical_string(&merged.lock).as_bytes(),
    )
    .map_err(|e| Failure::new(format!("{}: {e}", ours.display())))?;
    for (path, how) in &merged.settled {
        let how = match how {
            lockfile::Settled::ByFileChange => "the side that changed the file",
            lockfile::Settled::ByReview => "the reviewed side (same spans, same bytes)",
            lockfile::Settled::Newer => "the newer segmentation, unreviewed",
        };
        eprintln!("{path}: changed on both sides; kept {how}");
    }
    for path in &merged.unsettled {
        let what = if path == "segmenter" {
            "the segmenter changed to different backends on both sides; ours kept".to_owned()
        } else {
            format!("{path}: its entry changed on one side and was removed on the other; kept")
        };
        eprintln!("unsettled: {what}");
    }
    Ok(if merged.unsettled.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Failed
    })
}
