//! The audit run: files in scope → (caches) → engine → report, `--list-unsegmented`,
//! `--require-reviewed` and `--self-test`. What runs before it (`--refresh-cache`,
//! `--offline`, `--fix`) or instead of it (`--review-cache`, `--watch`) is a command of its
//! own, which `copy_audit::run` calls first.

mod list;
pub mod replay;
mod self_test;

pub use self_test::self_test;

use super::cache::{Caches, Stat};
use super::cli::{AuditArgs, OutputFormat};
use super::lockview::LockView;
use super::report::{self, AuditReport, ReviewStatus};
use super::session::{Audit, audit};
use super::workspace::{InScope, Workspace};
use super::{Failure, Outcome};
use crate::config::PathMatcher;
use crate::progress::Progress;
use crate::replay::{FileSet, Key, Replay};
use crate::statcache::HashBytes;
use list::list_unsegmented;
use lockgraph_queries::copy::engine::EntryState;

/// The audit; with `key`, the output kept for that command line is printed instead if
/// every input is as the run that printed it found them, and this run's output is kept
/// ([`replay`]).
pub fn run(
    ws: &Workspace,
    args: &AuditArgs,
    matcher: &PathMatcher,
    format: OutputFormat,
    key: Option<&Key>,
) -> Result<Outcome, Failure> {
    let remote = remote_cache(ws, args)?;
    let Inputs {
        files,
        unnamed,
        caches,
        lock,
        previous,
    } = match open_inputs(ws, args, matcher, key, remote.is_some())? {
        Opened::Inputs(inputs) => *inputs,
        Opened::Replayed(outcome) => return Ok(outcome),
    };
    if args.list_unsegmented {
        return list_unsegmented(ws, &lock, &files, format, caches);
    }
    let progress = Progress::new(files.len(), "auditing", args.quiet);
    let (audit, learnt) = audit(ws, &lock, files, caches, &progress, remote.as_ref())?;
    drop(progress);
    if args.verbose {
        print_verbose(ws, &audit)?;
    }
    let review = match args.require_reviewed {
        true => Some(review_status(&lock, &audit, unnamed.clone())?),
        false => None,
    };
    let root = ws.root.to_string_lossy();
    // The caches are written while the report is printed.
    let ((), summary) = rayon::join(
        || learnt.save(&audit, lock.parsed_summary()),
        || {
            let count = crate::logging::phase("count findings");
            let mut summary = AuditReport::new(&audit, review, &root);
            summary.problems.shard = matcher.shard().map(|s| s.to_string());
            drop(count);
            let _print = crate::logging::phase("print");
            // Beside the caches being saved.
            let told = key.and_then(|key| {
                let mut files = FileSet::default();
                let mut scratch = Vec::new();
                for a in audit.files() {
                    files.add(&a.path, a.stat.as_ref(), &mut scratch);
                }
                Some((key, replay::told(key, ws, lock.stat(), &files, &unnamed)?))
            });
            let clean = outcome(&summary) == Outcome::Clean;
            let write = |out: &mut dyn std::io::Write| {
                report::write_audit(out, ws, &summary, &audit, format)
                    .unwrap_or_else(|e| crate::output::failed(&e));
                clean
            };
            match told {
                Some((key, told)) => replay::record(ws, key, told, previous, write),
                None => _ = crate::output::to_stdout(write),
            }
            summary
        },
    );
    let outcome = outcome(&summary);
    // The process exits next. Freeing every file's report one by one took 8% of a warm
    // run on 100k files (docs/performance.md, "What each fast mechanism buys"); the OS
    // takes the pages back at once.
    std::mem::forget(summary);
    std::mem::forget(audit);
    std::mem::forget(lock);
    Ok(outcome)
}

/// What an audit starts from.
struct Inputs<'a> {
    /// The files in scope, in path order, with the stats the walk took (if it took them).
    files: Vec<(String, Option<Stat>)>,
    /// The files in scope whose path is not UTF-8 ([`super::workspace::InScope`]).
    unnamed: Vec<String>,
    caches: Option<Caches>,
    lock: LockView<'a>,
    /// The digest of the replay (or stub) kept for the command line, which did not match.
    previous: Option<HashBytes>,
}

/// What [`open_inputs`] comes to: the inputs of an audit, or a replay printed in its
/// place.
enum Opened<'a> {
    Inputs(Box<Inputs<'a>>),
    Replayed(Outcome),
}

/// The caches and the lockfile, opened, or the replay kept for the command line, loaded.
enum Beside<'a, 'k> {
    Opened(Box<Opening<'a>>),
    Kept(Replay<()>, &'k Key),
}

/// The caches, and the lockfile opened with them unless they could not be.
type Opening<'a> = (
    std::io::Result<Option<Caches>>,
    Option<Result<LockView<'a>, Failure>>,
);

/// Walks the root and opens the caches and the lockfile. The walk waits on the file
/// system while the caches and the lockfile are decoded on the CPU: side by side. Where
/// a replay is kept for `key`, it is loaded beside the walk instead, and the caches and
/// the lockfile are opened only if it does not match.
fn open_inputs<'a>(
    ws: &'a Workspace,
    args: &AuditArgs,
    matcher: &PathMatcher,
    key: Option<&Key>,
    remote: bool,
) -> Result<Opened<'a>, Failure> {
    let walk = crate::logging::phase("walk and stat, open caches");
    // Stats are taken in the walk only to be compared with the stat index's (and a
    // replay's, which is kept only beside a stat index), or, with a remote cache, with
    // git's index (files it names need not be read).
    let stat_index = !args.no_cache && Caches::has_stat_index(&ws.root);
    let stat_walk =
        stat_index || !args.no_cache && remote && crate::gitindex::path(&ws.root).is_some();
    if !stat_index {
        // A cold run: every file is read and audited, or served by the remote cache.
        crate::memory::small_pages();
    }
    // Where a replay may be kept, the walk's files are matched against it in the order
    // the walk found them, and sorted only if it does not match.
    let replayable = key.filter(|_| stat_index);
    let (files, beside) = rayon::join(
        || {
            let _walk = crate::logging::phase("  walk and stat");
            match replayable {
                Some(_) => ws.scope_unordered(matcher, stat_walk),
                None => ws.scope(matcher, stat_walk),
            }
        },
        || match replayable.and_then(|key| Some((replay::load(ws, key)?, key))) {
            Some((kept, key)) => Beside::Kept(kept, key),
            None => Beside::Opened(Box::new(open_caches(ws, args))),
        },
    );
    let mut in_scope = files?;
    drop(walk);
    let mut previous = None;
    let (caches, lock) = match beside {
        Beside::Opened(opening) => *opening,
        Beside::Kept(kept, key) => {
            let phase = crate::logging::phase("match the replay");
            let InScope { files, unnamed } = &in_scope;
            if let Some(outcome) = replay::print_if_matched(&kept, key, ws, files, unnamed) {
                return Ok(Opened::Replayed(outcome));
            }
            previous = Some(kept.digest());
            drop((phase, kept));
            let _open = crate::logging::phase("open caches");
            open_caches(ws, args)
        }
    };
    if replayable.is_some() {
        in_scope.sort();
    }
    let InScope { files, unnamed } = in_scope;
    let caches = caches.map_err(|e| Failure::new(e.to_string()))?;
    let lock = lock.expect("opened with the caches")?;
    Ok(Opened::Inputs(Box::new(Inputs {
        files,
        unnamed,
        caches,
        lock,
        previous,
    })))
}

/// Opens the caches (unless `--no-cache`), then the lockfile with them.
fn open_caches<'a>(ws: &'a Workspace, args: &AuditArgs) -> Opening<'a> {
    let open = crate::logging::phase("  open caches");
    let caches = (!args.no_cache).then(|| Caches::open(&ws.root)).transpose();
    drop(open);
    let Ok(mut caches) = caches else {
        return (caches, None);
    };
    let lock = LockView::open(ws, caches.as_mut());
    (Ok(caches), Some(lock))
}

/// The remote cache the flags (or `$LOCKGRAPH_REMOTE_CACHE`) name, else the config's
/// `remote_cache`, if any: a flag wins over the file, headers add up, and read-only from
/// either holds. Never a network error: the client connects at its first call.
fn remote_cache(
    ws: &Workspace,
    args: &AuditArgs,
) -> Result<Option<crate::remote::Remote>, Failure> {
    let file = ws.config.remote_cache.as_ref();
    let Some(url) = args
        .remote_cache
        .clone()
        .or_else(|| file.map(|f| f.url.clone()))
    else {
        return Ok(None);
    };
    let instance = match (args.remote_instance.as_str(), file) {
        ("", Some(f)) => f.instance.clone(),
        (flag, _) => flag.to_owned(),
    };
    let mut headers: Vec<(String, String)> = file.map(|f| f.headers.clone()).unwrap_or_default();
    headers.extend(args.remote_headers.iter().cloned());
    let settings = crate::remote::Settings {
        url,
        instance,
        headers,
        read_only: args.remote_cache_read_only || file.is_some_and(|f| f.read_only),
    };
    crate::remote::Remote::new(settings)
        .map(Some)
        .map_err(|e| Failure::new(format!("--remote-cache {e}")))
}

/// `--verbose`: each file's entry state and number of findings on stderr, then a warning
/// for each span the audit ignored.
fn print_verbose(ws: &Workspace, audit: &Audit) -> Result<(), Failure> {
    use rayon::prelude::*;
    use std::io::Write;
    // One buffer, not a write per line: standard error is not buffered.
    let mut err = std::io::BufWriter::with_capacity(1 << 16, std::io::stderr().lock());
    let files: Vec<_> = audit.files().collect();
    for f in &files {
        let _ = writeln!(
            err,
            "{}: entry {:?}, {} findings",
            f.path,
            f.report.state,
            f.report.findings.len()
        );
    }
    // Spans the audit ignored because they cover nothing: what `lockfile check` says,
    // each file read again on every core.
    let parsed = ws.read_lockfile()?;
    let warnings: Vec<Vec<String>> = files
        .par_iter()
        .map(|f| match parsed.files.get(&f.path) {
            Some(entry) => super::problems::entry_problems(ws, &f.path, entry)
                .into_iter()
                .filter(|p| p.kind == "coversNothing")
                .map(|p| format!("warning: {}: {}", p.path, p.message))
                .collect(),
            None => Vec::new(),
        })
        .collect();
    for line in warnings.iter().flatten() {
        let _ = writeln!(err, "{line}");
    }
    let _ = err.flush();
    Ok(())
}

/// The exit status: a run fails on an error finding, a file that could not be audited, or
/// a failed `--require-reviewed` gate.
fn outcome(summary: &AuditReport) -> Outcome {
    let gate_failed = summary
        .problems
        .review_status
        .as_ref()
        .is_some_and(|r| !r.is_clean());
    if summary.totals.error_findings > 0 || summary.file_errors() > 0 || gate_failed {
        Outcome::Failed
    } else {
        Outcome::Clean
    }
}

/// `--require-reviewed`: the files whose entry is missing, stale, or not yet reviewed, and
/// those whose name is not UTF-8 (which no entry can name).
fn review_status(
    lock: &LockView,
    audit: &Audit,
    unnamable: Vec<String>,
) -> Result<ReviewStatus, Failure> {
    let mut status = ReviewStatus {
        unnamable,
        ..ReviewStatus::default()
    };
    let infos = lock.infos(audit.files().map(|f| f.path.as_str()))?;
    for (f, info) in audit.files().zip(infos) {
        // A file that vanished during the run is a file error, which fails the run; it
        // has nothing to review.
        if f.hash.is_none() {
            continue;
        }
        match f.report.state {
            EntryState::Missing => status.unsegmented.push(f.path.clone()),
            EntryState::Stale => status.stale.push(f.path.clone()),
            EntryState::Fresh | EntryState::PromptOutdated => {
                if info.is_some_and(|i| !i.reviewed) {
                    status.unreviewed.push(f.path.clone());
                }
            }
        }
    }
    Ok(status)
}
