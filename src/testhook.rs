//! Hooks for tests, each costing a run one environment lookup when unset.
//!
//! A pause for tests of what happens when files change during a run. With
//! `LOCKGRAPH_TEST_PAUSE=<dir>` set, a run stops where [`pause`] is called, creates
//! `<dir>/paused`, and goes on once `<dir>/go` exists (or after a minute). With
//! `LOCKGRAPH_TEST_PAUSE_AT=<point>` too, it stops only at that point.
//!
//! `LOCKGRAPH_TEST_CHUNK_FILES=<n>`: the remote cache's chunks hold `n` files on average
//! rather than 512 ([`chunk_files`]), so that a test's tree of a few dozen files makes
//! several chunks.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The points a run can be paused at, in the order a run passes them.
pub const POINTS: &[&str] = &[
    // copy-audit: files listed and stats vouched for, none read yet.
    "read",
    // copy-audit --remote-cache: the first window's files hashed and looked up, none
    // audited.
    "remote-looked-up",
    // copy-audit --remote-cache: the remote looked up and the audit done, nothing stored.
    "remote-store",
    // copy-audit --list-unsegmented: files listed, none read yet.
    "list",
    // copy-audit --fix: a file's fixed bytes made, the file not yet replaced.
    "fix",
    // soil-lock: the root walked, no spec or sidecar read yet.
    "soil-read",
    // soil-lock --remote-cache in a git checkout: the files git's index names looked up,
    // none read yet.
    "soil-named",
    // soil-lock refresh: every sidecar read, none written yet.
    "soil-write",
];

pub fn pause(point: &str) {
    debug_assert!(POINTS.contains(&point), "{point}: not a pause point");
    let Some(dir) = std::env::var_os("LOCKGRAPH_TEST_PAUSE").map(PathBuf::from) else {
        return;
    };
    if std::env::var("LOCKGRAPH_TEST_PAUSE_AT").is_ok_and(|at| at != point) {
        return;
    }
    let _ = std::fs::write(dir.join("paused"), b"");
    let start = Instant::now();
    while !dir.join("go").exists() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The average chunk size `LOCKGRAPH_TEST_CHUNK_FILES` sets, if it is a positive number.
pub fn chunk_files() -> Option<u64> {
    let n = std::env::var("LOCKGRAPH_TEST_CHUNK_FILES")
        .ok()?
        .parse()
        .ok()?;
    (n > 0).then_some(n)
}
