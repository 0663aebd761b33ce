//! `--fix` survives being killed at any instant without costing a review.
//!
//! A fix that replaces one character by one character keeps every span's line:column, so
//! the file's lockfile entry is re-anchored to the fixed bytes and keeps its review. The
//! fixed files and the lockfile are separate files, replaced one by one; a kill between
//! them once left reviewed entries stale. So each pass of `--fix` first writes (and syncs)
//! this journal — every file it is about to rewrite, with the hash before and after and
//! whether its entry is to be re-anchored — then the files, then the lockfile, and only
//! then removes the journal. Any later run that finds a journal (every command opens the
//! workspace through [`recover`]) completes it under the same lock: an entry still at the
//! old hash whose file now holds the fixed bytes is re-anchored; a file the kill spared is
//! left as it is, its entry untouched. Each file on disk is always old or new (atomic
//! replacement), so nothing else can be half done.

use super::Failure;
use crate::fsutil::{CACHE_DIR, DirLock, read_regular, write_atomic};
use lockgraph_queries::copy::lockfile::{self, Lockfile};
use lockgraph_queries::hash::ContentHash;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

const FILE: &str = "fix-journal.json";

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Journal {
    pub files: Vec<Planned>,
}

/// One file a pass is about to rewrite.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Planned {
    pub path: String,
    pub before: String,
    pub after: String,
    /// The fix kept every position: the entry follows the file to `after`.
    pub reanchor: bool,
}

fn path(root: &Path) -> PathBuf {
    root.join(CACHE_DIR).join(FILE)
}

impl Journal {
    /// Writes the journal, synced, before any file it names is touched.
    pub fn begin(&self, root: &Path) -> Result<(), Failure> {
        let file = path(root);
        let text = serde_json::to_string_pretty(self).expect("strings serialise");
        crate::fsutil::create_cache_dir(&root.join(CACHE_DIR), &root.join(CACHE_DIR))
            .and_then(|()| write_atomic(root, &file, text.as_bytes()))
            .map_err(|e| Failure::new(format!("{}: {e}", file.display())))
    }

    /// Removes the journal: everything it named is done.
    pub fn end(root: &Path) -> Result<(), Failure> {
        let file = path(root);
        match std::fs::remove_file(&file) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Failure::new(format!("{}: {e}", file.display()))),
        }
    }
}

/// Where a root's lockfile is, and how it is read (the workspace's reader: what a
/// missing or broken lockfile means is decided there).
pub struct LockAt<'a, R> {
    pub path: &'a Path,
    pub display: &'a str,
    pub read: R,
}

/// Completes a `--fix` pass under `root` that was interrupted, if one was (see the
/// module's doc). Runs before anything reads the lockfile; without a journal it costs one
/// `stat`.
pub fn recover<R>(root: &Path, lock: LockAt<'_, R>) -> Result<(), Failure>
where
    R: FnOnce() -> Result<Lockfile, Failure>,
{
    let file = path(root);
    if !file.exists() {
        return Ok(());
    }
    // A `--fix` still running holds the lock and removes its journal before letting go.
    let _guard = DirLock::acquire(root)
        .map_err(|e| Failure::new(format!("cannot lock {}: {e}", root.display())))?;
    let text = match read_regular(&file) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Failure::new(format!("{}: {e}", file.display()))),
    };
    let journal: Journal = match serde_json::from_slice(&text) {
        Ok(journal) => journal,
        Err(e) => {
            // Written atomically, so never half written: damaged by something else.
            eprintln!("warning: {}: {e}; removed", file.display());
            return Journal::end(root);
        }
    };
    let LockAt {
        path: lock_path,
        display,
        read,
    } = lock;
    let mut lock = read()?;
    let mut reanchored = 0;
    for planned in journal.files.iter().filter(|p| p.reanchor) {
        let Ok(bytes) = read_regular(&root.join(&planned.path)) else {
            continue;
        };
        let fixed = ContentHash::of(&bytes).to_string() == planned.after;
        if let Some(entry) = lock.files.get_mut(&planned.path)
            && fixed
            && entry.content_hash == planned.before
        {
            entry.content_hash = planned.after.clone();
            reanchored += 1;
        }
    }
    if reanchored > 0 {
        crate::fsutil::write_if_changed(
            root,
            lock_path,
            lockfile::to_canonical_string(&lock).as_bytes(),
        )
        .map_err(|e| Failure::new(format!("{display}: {e}")))?;
    }
    Journal::end(root)?;
    eprintln!("note: completed an interrupted --fix ({reanchored} lockfile entries re-anchored)");
    Ok(())
}
