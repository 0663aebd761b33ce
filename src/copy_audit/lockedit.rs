//! Edits of the lockfile that commands share: each under the root's lock, validated
//! before it is written, and written only when it changed (`lockfile add`, `mark-reviewed`,
//! `normalize`, `invalidate`, the audit's `--refresh-cache`, `--offline` and
//! `--review-cache`).

use super::workspace::Workspace;
use super::{Failure, Outcome};
use crate::fsutil::{DirLock, write_if_changed};
use lockgraph_queries::copy::lockfile::{self, Lockfile};

/// Runs one lockfile edit under the lock and writes the result if it changed.
pub fn edit(
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
