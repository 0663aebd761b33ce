//! `copy-audit lockfile add | mark-reviewed | invalidate | list | check | normalize`.
//!
//! Every edit is a read-modify-write under the root's advisory lock, and the lockfile is
//! written canonically, atomically, and only when a byte changes.

use super::cli::{LockfileCommand, OutputFormat};
use super::lockedit::{self, edit, invalidate, now_utc};
use super::problems::{Problem, entry_problems, past_what, range_text};
use super::report::print_json;
use super::workspace::Workspace;
use super::{Failure, Outcome};
use lockgraph_queries::copy::lockfile::Entry;
use lockgraph_queries::copy::lockfile::{self, Lockfile};
use lockgraph_queries::hash::ContentHash;
use lockgraph_queries::text::LineIndex;
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
        LockfileCommand::MarkReviewed { path, by } => {
            let rel = ws.lockfile_key(&path)?;
            lockedit::mark_reviewed(ws, &rel, &by)
        }
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
        crate::output::to_stdout(|out| {
            report
                .files
                .iter()
                .try_for_each(|f| {
                    writeln!(
                        out,
                        "{:<40} {:>5} spans  {}  {}",
                        f.path,
                        f.span_count,
                        f.segmented_at,
                        f.reviewed_by.as_deref().unwrap_or("(unreviewed)")
                    )
                })
                .and_then(|()| writeln!(out, "{} entries", report.files.len()))
                .unwrap_or_else(|e| crate::output::failed(&e))
        });
    }
    Ok(Outcome::Clean)
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
        // One buffer, not standard output's line buffer (a write per line).
        crate::output::to_stdout(|out| {
            let count = |kind| report.problems.iter().filter(|p| p.kind == kind).count();
            report
                .problems
                .iter()
                .try_for_each(|p| {
                    let scope = if p.in_scope { "" } else { " (out of scope)" };
                    writeln!(out, "{}: {}{scope}", p.path, p.message)
                })
                .and_then(|()| {
                    writeln!(
                        out,
                        "{} entries checked: {} stale, {} spans covering nothing, {} spans past an \
                         end{}",
                        report.entries,
                        count("stale"),
                        count("coversNothing"),
                        count("pastEnd"),
                        if count("pastEnd") > 0 {
                            " (harmless; `copy-audit lockfile normalize` writes them exactly)"
                        } else {
                            ""
                        }
                    )
                })
                .unwrap_or_else(|e| crate::output::failed(&e))
        });
    }
    Ok(if failed {
        Outcome::Failed
    } else {
        Outcome::Clean
    })
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
