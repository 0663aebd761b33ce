//! `--fix`: apply the fixes of findings that survived span filtering.
//!
//! Only files whose lockfile entry is fresh are touched (or any file with
//! `--fix-unsegmented`). A fix that replaces one character by one character, never a line
//! break, keeps every span's line:column, so the entry is re-anchored to the new bytes and
//! keeps its review; any other fix leaves the entry stale, as an edit by hand would.

use super::Failure;
use super::cache::Stat;
use super::journal::{Journal, Planned};
use super::lockview::LockView;
use super::session;
use super::workspace::Workspace;
use crate::config::PathMatcher;
use crate::fsutil::{DirLock, Replaced, replace_if_still, write_if_changed};
use crate::progress::Progress;
use lockgraph_queries::copy::engine::{self, SourceFix};
use lockgraph_queries::copy::fix::{MAX_PASSES, apply};
use lockgraph_queries::copy::lockfile;
use lockgraph_queries::hash::ContentHash;

/// One file's fix, planned: written once the journal holds every plan of the pass.
struct FixWrite {
    abs: std::path::PathBuf,
    fixed: String,
    count: usize,
    /// The hash of the bytes the fix was made from.
    read: ContentHash,
    step: Planned,
}

/// Fixes the files in scope of `matcher`, before the audit that follows reads them.
pub fn run(
    ws: &Workspace,
    matcher: &PathMatcher,
    fix_unsegmented: bool,
    quiet: bool,
) -> Result<(), Failure> {
    let files: Vec<(String, Option<Stat>)> = ws.scope(matcher, false)?.files;
    let files = &files[..];
    let _guard = DirLock::acquire(&ws.root)
        .map_err(|e| Failure::new(format!("cannot lock {}: {e}", ws.root.display())))?;
    // Counted over every pass: a file fixed in two passes is one file.
    let (mut total, mut touched) = (0, std::collections::BTreeSet::new());
    // Every version of each fixed file, by hash: fixes that lead back to one of them undo
    // each other (two custom rules `ab → ba` and `ba → ab`), and would go round for
    // every pass, claiming fixes that change nothing.
    let mut versions: std::collections::HashMap<String, std::collections::HashSet<ContentHash>> =
        Default::default();
    let mut cycling = std::collections::BTreeSet::new();
    for _ in 0..MAX_PASSES {
        let mut lock = ws.read_lockfile()?;
        // Fixing needs the bytes of every file anyway: no caches.
        let progress = Progress::new(files.len(), "fixing", quiet);
        let view = LockView::parsed(ws, lock.clone());
        let (audit, _) = session::audit(ws, &view, files.to_vec(), None, &progress, None)?;
        drop(progress);
        // Planned first, journalled, then written: see `journal`.
        let mut planned: Vec<FixWrite> = Vec::new();
        for audited in audit.files() {
            let (path, report) = (&audited.path, &audited.report);
            // A fix that moved coordinates left the entry stale: its spans no longer say
            // which text is English, so later passes leave the file alone.
            let eligible = report.state.has_usable_spans() || fix_unsegmented;
            let fixes: Vec<SourceFix> = report.findings.iter().filter_map(|f| f.fix).collect();
            let Some(hash) = audited.hash.filter(|_| eligible && !fixes.is_empty()) else {
                continue;
            };
            if cycling.contains(path) {
                continue;
            }
            let abs = ws.root.join(path);
            // The findings describe the bytes that were audited; a file changed or gone
            // since is left alone rather than patched blindly.
            let bytes = match crate::fsutil::read_regular(&abs) {
                Ok(bytes) => bytes,
                Err(e) => {
                    eprintln!("warning: {path}: cannot be read for the fix: {e}; not fixed");
                    continue;
                }
            };
            if ContentHash::of(&bytes) != hash {
                eprintln!("warning: {path}: changed during the run; not fixed");
                continue;
            }
            let source = engine::Source::new(bytes);
            let Ok(text) = source.text() else {
                continue;
            };
            let applied = apply(text, fixes.iter().collect());
            let (fixed, keeps_coordinates) = (applied.text, applied.keeps_coordinates);
            if fixed == text {
                continue;
            }
            let after = ContentHash::of(fixed.as_bytes());
            let seen = versions
                .entry(path.clone())
                .or_insert_with(|| [hash].into());
            if !seen.insert(after) {
                let mut rules: Vec<_> = report
                    .findings
                    .iter()
                    .filter(|f| f.fix.is_some())
                    .map(|f| f.rule_id)
                    .collect();
                rules.sort_unstable();
                rules.dedup();
                eprintln!(
                    "warning: {path}: the fixes of {} lead back to an earlier version of the \
                     file (rules that undo each other's fixes); not fixed further: change \
                     one of the rules",
                    rules.join(", ")
                );
                cycling.insert(path.clone());
                continue;
            }
            let reanchor = keeps_coordinates
                && report.state.has_usable_spans()
                && lock.files.contains_key(path);
            let step = Planned {
                path: path.clone(),
                before: hash.to_string(),
                after: after.to_string(),
                reanchor,
            };
            planned.push(FixWrite {
                abs,
                fixed,
                count: applied.count,
                read: hash,
                step,
            });
        }
        if planned.is_empty() {
            break;
        }
        let journal = Journal {
            files: planned.iter().map(|w| w.step.clone()).collect(),
        };
        journal.begin(&ws.root)?;
        let mut reanchored = false;
        crate::testhook::pause("fix");
        for w in &planned {
            let step = &w.step;
            // A save since the file was read wins over the fix: the file is left as the
            // user saved it, and its entry as it was.
            let replaced = replace_if_still(&ws.root, &w.abs, w.fixed.as_bytes(), |now| {
                now.is_some_and(|b| ContentHash::of(b) == w.read)
            })
            .map_err(|e| Failure::new(format!("{}: cannot write the fix: {e}", step.path)))?;
            if replaced == Replaced::Changed {
                // `Unchanged` (the fixed bytes saved by hand) is as good as fixed.
                eprintln!(
                    "warning: {}: changed during the run; not fixed, the saved version is kept",
                    step.path
                );
                continue;
            }
            total += w.count;
            touched.insert(step.path.clone());
            if step.reanchor
                && let Some(entry) = lock.files.get_mut(&step.path)
            {
                entry.content_hash = step.after.clone();
                reanchored = true;
            }
        }
        if reanchored {
            write_if_changed(
                &ws.root,
                &ws.lock_path,
                lockfile::to_canonical_string(&lock).as_bytes(),
            )
            .map_err(|e| Failure::new(format!("{}: {e}", ws.lock_display())))?;
        }
        Journal::end(&ws.root)?;
    }
    // The reference's line, on stderr so that `--fix --json` stays one JSON document.
    eprintln!("Applied {total} fixes in {} files", touched.len());
    Ok(())
}
