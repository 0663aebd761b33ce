//! `--list-unsegmented`: the files in scope without a fresh lockfile entry, and why. Only
//! their hashes are needed, so nothing goes through the engine.

use super::super::cache::{Caches, LockInfo, Stat};
use super::super::cli::OutputFormat;
use super::super::lockview::LockView;
use super::super::report::{self, Unsegmented, UnsegmentedReport};
use super::super::session::{Scanned, scan_one};
use super::super::workspace::Workspace;
use super::super::{Failure, Outcome};
use lockgraph_queries::copy::engine::EntryState;
use rayon::prelude::*;

pub(super) fn list_unsegmented(
    ws: &Workspace,
    lock: &LockView,
    files: &[(String, Option<Stat>)],
    format: OutputFormat,
    mut caches: Option<Caches>,
) -> Result<Outcome, Failure> {
    let known = match caches.as_mut() {
        Some(c) => c.known_hashes(files),
        None => vec![None; files.len()],
    };
    crate::testhook::pause("list");
    // A file gone or changed since the walk has no entry to make: a warning, and it is not
    // listed.
    let scanned: Vec<(&String, Scanned)> = files
        .par_iter()
        .zip(known)
        .filter_map(|((p, stat), known)| match scan_one(ws, p, *stat, known) {
            Ok(mut s) => {
                s.source = None; // only the hash matters here
                Some((p, s))
            }
            Err(e) => {
                eprintln!(
                    "warning: {p}: {}; not listed",
                    crate::fsutil::why_unread(&e)
                );
                None
            }
        })
        .collect();
    let (paths, scanned): (Vec<&String>, Vec<Scanned>) = scanned.into_iter().unzip();
    let infos = lock.infos(paths.iter().map(|p| p.as_str()))?;
    let mut unsegmented = Vec::new();
    for ((&path, s), info) in paths.iter().zip(&scanned).zip(&infos) {
        let state = lock.state(info.as_ref(), s.hash);
        let reason = match state {
            EntryState::Fresh => continue,
            EntryState::Missing => "missing",
            EntryState::Stale => "stale",
            EntryState::PromptOutdated => "prompt",
        };
        let stale = state == EntryState::Stale;
        unsegmented.push(Unsegmented {
            path: path.clone(),
            reason,
            expected_hash: info.as_ref().filter(|_| stale).map(LockInfo::hash_text),
            actual_hash: stale.then(|| s.hash.to_string()),
        });
    }
    if let Some(c) = caches.as_mut() {
        for (&path, s) in paths.iter().zip(&scanned) {
            if s.read {
                c.record_stat(path, s.stat, s.hash);
            }
        }
    }
    if let Some(c) = caches {
        c.save(|_| None, lock.parsed_summary());
    }
    let out = UnsegmentedReport {
        total_files: paths.len(),
        unsegmented_count: unsegmented.len(),
        unsegmented,
    };
    report::print_unsegmented(&out, format);
    Ok(if out.unsegmented_count > 0 {
        Outcome::Failed
    } else {
        Outcome::Clean
    })
}
