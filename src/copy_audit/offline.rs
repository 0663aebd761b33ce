//! `--offline`: the structural backend writes the entries of files whose entry is missing
//! or stale, so that an audit without an agent in the loop still has spans to read (see
//! [`lockedit::segment`](super::lockedit::segment), which the language server's "segment"
//! command shares).

use super::Failure;
use super::lockedit;
use super::workspace::Workspace;
use crate::config::PathMatcher;

/// Segments every file in scope whose entry is missing or stale.
pub fn segment(ws: &Workspace, matcher: &PathMatcher) -> Result<(), Failure> {
    let _phase = crate::logging::phase("--offline: segment and write the lockfile");
    let files = ws.files_in_scope(matcher)?;
    lockedit::segment(ws, matcher, &files, "--offline").map(|_| ())
}
