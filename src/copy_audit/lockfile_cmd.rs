//! `copy-audit lockfile add | mark-reviewed | invalidate | list`.
//!
//! Every edit is a read-modify-write under the root's advisory lock, and the lockfile is
//! written canonically, atomically, and only when a byte changes.

use super::cli::{LockfileCommand, OutputFormat};
use super::report::print_json;
use super::workspace::Workspace;
use super::{Failure, Outcome};
use crate::fsutil::{DirLock, write_if_changed};
use lockgraph_queries::copy::lockfile::{self, Lockfile};
use lockgraph_queries::hash::ContentHash;
use lockgraph_queries::text::LineIndex;
use serde::Serialize;
use std::fs;
use std::io::Read;

pub fn run(ws: &Workspace, cmd: LockfileCommand, format: OutputFormat) -> Result<Outcome, Failure> {
    match cmd {
        LockfileCommand::List => list(ws, format),
        LockfileCommand::Add { path, spans, force } => edit(ws, |ws, lock| {
            let rel = ws.lockfile_key(&path)?;
            let text = ws.read_text(&rel)?;
            let input = read_spans_input(&spans)?;
            let new_spans = lockfile::parse_spans(&input)
                .map_err(|e| Failure::new(format!("{}: {e}", spans_name(&spans))))?;
            lockfile::validate_spans_for_file(&text, &LineIndex::new(&text), &new_spans)
                .map_err(|e| Failure::new(format!("{}: for {rel}: {e}", spans_name(&spans))))?;
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
        LockfileCommand::Invalidate { glob } => edit(ws, |_, lock| {
            let matcher = globset::GlobBuilder::new(&glob)
                .literal_separator(true)
                .build()
                .map_err(|e| Failure::new(format!("invalid glob `{glob}`: {e}")))?
                .compile_matcher();
            let before = lock.files.len();
            lock.files.retain(|path, _| !matcher.is_match(path));
            Ok(format!("{} entries removed", before - lock.files.len()))
        }),
    }
}

/// Runs one lockfile edit under the lock and writes the result if it changed.
fn edit(
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
        &ws.lock_path,
        lockfile::to_canonical_string(&lock).as_bytes(),
    )
    .map_err(|e| Failure::new(format!("{}: {e}", ws.lock_display())))?;
    let unchanged = if wrote { "" } else { " (lockfile unchanged)" };
    eprintln!("{message}{unchanged}");
    Ok(Outcome::Clean)
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

fn now_utc() -> String {
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
