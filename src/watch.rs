//! The one watch loop both tools run: file events under the root, settled into batches,
//! handed to the tool's session until the process is interrupted.

use crate::Failure;
use notify::{EventKind, RecursiveMode, Watcher};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

/// How long events must stop before a batch is handed over: an editor's save is often a
/// write, a rename and a stat, and one batch should carry all three.
const SETTLE: Duration = Duration::from_millis(30);

/// A watch on a root, set up before the session says it is watching (an edit made as
/// soon as it says so must not be missed).
pub struct Watch {
    root: PathBuf,
    events: Receiver<notify::Result<notify::Event>>,
    /// Dropping it ends the watch.
    _watcher: notify::RecommendedWatcher,
}

impl Watch {
    /// Starts watching everything under `root`.
    pub fn start(root: &Path) -> Result<Watch, Failure> {
        let cannot =
            |e: notify::Error| Failure::new(format!("cannot watch {}: {e}", root.display()));
        let (tx, events) = std::sync::mpsc::channel();
        let mut watcher = notify::recommended_watcher(tx).map_err(cannot)?;
        watcher
            .watch(root, RecursiveMode::Recursive)
            .map_err(cannot)?;
        Ok(Watch {
            root: root.to_path_buf(),
            events,
            _watcher: watcher,
        })
    }

    /// Hands each batch of changed paths to `on_change`, until interrupted.
    ///
    /// - Only changes count: an event that a file was opened or read is not one. The
    ///   session reads what changed, and the kernel reports that read as an event too:
    ///   counted, every read would bring on another, for ever.
    /// - Paths in `.lockgraph/` (our own caches) and `.git/` are left out, and a batch
    ///   left empty is not handed over.
    /// - An error from `on_change` is one line on stderr and the session goes on: a
    ///   half-written or malformed file is the normal state of a tree being edited, and
    ///   the next save mends it. Only failing to watch at all ends the session.
    pub fn run(
        self,
        mut on_change: impl FnMut(&[PathBuf]) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let mut batch = BTreeSet::new();
        loop {
            let event = if batch.is_empty() {
                match self.events.recv() {
                    Ok(event) => event,
                    Err(_) => return Ok(()),
                }
            } else {
                match self.events.recv_timeout(SETTLE) {
                    Ok(event) => event,
                    Err(RecvTimeoutError::Timeout) => {
                        let paths: Vec<PathBuf> = std::mem::take(&mut batch).into_iter().collect();
                        if let Err(f) = on_change(&paths) {
                            eprintln!("error: {}", f.message);
                        }
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => return Ok(()),
                }
            };
            let event = event.map_err(|e| Failure::new(format!("watching: {e}")))?;
            if matches!(event.kind, EventKind::Access(_)) {
                continue;
            }
            let root = &self.root;
            batch.extend(event.paths.into_iter().filter(|p| !ours_or_git(root, p)));
        }
    }
}

fn ours_or_git(root: &Path, p: &Path) -> bool {
    p.strip_prefix(root)
        .ok()
        .and_then(|r| r.components().next())
        .is_some_and(|c| c.as_os_str() == crate::fsutil::CACHE_DIR || c.as_os_str() == ".git")
}

#[cfg(test)]
mod tests {
    use super::ours_or_git;
    use std::path::Path;

    #[test]
    fn caches_and_git_are_not_changes() {
        let root = Path::new("/r");
        assert!(ours_or_git(root, Path::new("/r/.lockgraph/stat")));
        assert!(ours_or_git(root, Path::new("/r/.git/index")));
        assert!(!ours_or_git(root, Path::new("/r/docs/.git-notes.md")));
        assert!(!ours_or_git(root, Path::new("/r/a.md")));
    }
}
