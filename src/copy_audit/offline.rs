//! `--offline`: the structural backend writes the entries of files whose entry is missing
//! or stale, so that an audit without an agent in the loop still has spans to read.
//!
//! New entries are unreviewed, and a reviewed entry they replace hands its notes and path
//! hints on (the seed's merge rules, `lockfile::refreshed_entry`). In a lockfile the agent
//! writes, the backend is left alone and each structural span says so in its note, so a
//! reviewer can tell them from the agent's.

use super::Failure;
use super::lockedit::{edit, now_utc};
use super::workspace::Workspace;
use crate::config::PathMatcher;
use lockgraph_queries::copy::extract::{Format, extract};
use lockgraph_queries::copy::lockfile::{self, Backend, Field, Segmenter};
use lockgraph_queries::copy::structural::{self, Setup};
use lockgraph_queries::hash::ContentHash;

/// Segments every file in scope whose entry is missing or stale, under the lockfile's
/// lock; files that are not text or do not parse are left to the audit to report.
pub fn segment(ws: &Workspace, matcher: &PathMatcher) -> Result<(), Failure> {
    let files = ws.files_in_scope(matcher)?;
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
        let mut written = 0;
        for rel in &files {
            let Ok(text) = ws.read_text(rel) else {
                continue;
            };
            let hash = ContentHash::of(text.as_bytes()).to_string();
            let previous = lock.files.get(rel);
            if previous.is_some_and(|e| e.content_hash == hash) {
                continue;
            }
            let format = Format::from_path(rel);
            let Ok(views) = extract(format, &text) else {
                continue;
            };
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
            lock.files.insert(rel.clone(), entry);
            written += 1;
        }
        Ok(format!(
            "--offline: {written} entries written by the structural segmenter, unreviewed"
        ))
    })
    .map(|_| ())
}
