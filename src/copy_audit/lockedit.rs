//! Edits of the lockfile that commands share: each under the root's lock, validated
//! before it is written, and written only when it changed (`lockfile add`, `mark-reviewed`,
//! `normalize`, `invalidate`, the audit's `--refresh-cache`, `--offline` and
//! `--review-cache`, and the language server's segment and mark-reviewed commands and its
//! re-anchoring on save).

use super::workspace::Workspace;
use super::{Failure, Outcome};
use crate::config::PathMatcher;
use crate::fsutil::{DirLock, write_if_changed};
use lockgraph_queries::copy::extract::{Format, extract};
use lockgraph_queries::copy::lockfile::{self, Backend, Entry, Field, Lockfile, Segmenter};
use lockgraph_queries::copy::structural::{self, Setup};
use lockgraph_queries::hash::ContentHash;
use rayon::prelude::*;

/// Runs one lockfile edit under the lock and writes the result if it changed.
pub fn edit(
    ws: &Workspace,
    change: impl FnOnce(&Workspace, &mut Lockfile) -> Result<String, Failure>,
) -> Result<Outcome, Failure> {
    let _guard = DirLock::acquire(&ws.root)
        .map_err(|e| Failure::new(format!("cannot lock {}: {e}", ws.root.display())))?;
    let mut lock = ws.read_lockfile()?;
    let message = change(ws, &mut lock)?;
    let _phase = crate::logging::phase("  validate and write the lockfile");
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

/// Now, as the lockfile writes `segmentedAt` and `reviewedAt`.
pub fn now_utc() -> String {
    let now = time::OffsetDateTime::now_utc();
    now.format(time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second]Z"
    ))
    .expect("a UTC timestamp formats")
}

/// The structural backend's entries for `files` whose entry is missing or stale, under
/// the lockfile's lock; files that are not text or do not parse are left to the audit to
/// report. New entries are unreviewed, and a reviewed entry they replace hands its notes
/// and path hints on (the seed's merge rules, `lockfile::refreshed_entry`). In a lockfile
/// the agent writes, the backend is left alone and each structural span says so in its
/// note, so a reviewer can tell them from the agent's. `by` names who asked, in the
/// message.
pub fn segment(
    ws: &Workspace,
    matcher: &PathMatcher,
    files: &[String],
    by: &str,
) -> Result<Outcome, Failure> {
    let existed = ws.lock_path.exists();
    edit(ws, |ws, lock| {
        if !existed && lock.files.is_empty() {
            // A lockfile this run creates is the structural backend's own.
            lock.segmenter = Segmenter {
                backend: Backend::Structural,
                prompt_version: None,
            };
        }
        let agent = lock.segmenter.backend == Backend::Agent;
        let now = now_utc();
        let declared = &ws.config.declared_profiles;
        let default_language = ws.config.language.as_deref().unwrap_or_default();
        // Each file read, hashed and segmented on every core; the entries go in after.
        let phase = crate::logging::phase("  read and segment");
        let kept = &lock.files;
        let entries: Vec<(String, Entry)> = files
            .par_iter()
            .filter_map(|rel| {
                let text = ws.read_text(rel).ok()?;
                let hash = ContentHash::of(text.as_bytes()).to_string();
                let previous = kept.get(rel);
                if previous.is_some_and(|e| e.content_hash == hash) {
                    return None;
                }
                let format = Format::from_path(rel);
                let views = extract(format, &text).ok()?;
                let setup = Setup {
                    declared,
                    default_language,
                    locale: matcher.locale_for(rel),
                };
                let spans = structural::spans(format, &text, &views, &setup);
                let mut entry = lockfile::refreshed_entry(previous, spans, hash, now.clone());
                if agent {
                    for span in &mut entry.spans {
                        span.note = Field::Value(match span.note.value() {
                            Some(kept) => format!("structural; {kept}"),
                            None => "structural".to_owned(),
                        });
                    }
                }
                Some((rel.clone(), entry))
            })
            .collect();
        let written = entries.len();
        lock.files.extend(entries);
        drop(phase);
        Ok(format!(
            "{by}: {written} entries written by the structural segmenter, unreviewed"
        ))
    })
}

/// Marks the entry of `rel` reviewed by `by`: only an entry fresh for the file on disk.
pub fn mark_reviewed(ws: &Workspace, rel: &str, by: &str) -> Result<Outcome, Failure> {
    edit(ws, |ws, lock| {
        if by.trim().is_empty() {
            return Err(Failure::new(
                "--by needs a reviewer id, e.g. ondrej@2026-04-12",
            ));
        }
        let text = ws.read_text(rel)?;
        let entry = lock.files.get_mut(rel).ok_or_else(|| {
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
        entry.reviewed_by = Some(by.to_owned());
        Ok(format!("{rel}: reviewed by {by}"))
    })
}
