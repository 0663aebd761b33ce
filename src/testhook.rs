//! A pause for tests of what happens when files change during a run. With
//! `LOCKGRAPH_TEST_PAUSE=<dir>` set, a run stops where [`pause`] is called, creates
//! `<dir>/paused`, and goes on once `<dir>/go` exists (or after a minute). Without the
//! variable it costs one environment lookup.

use std::path::PathBuf;
use std::time::{Duration, Instant};

pub fn pause() {
    let Some(dir) = std::env::var_os("LOCKGRAPH_TEST_PAUSE").map(PathBuf::from) else {
        return;
    };
    let _ = std::fs::write(dir.join("paused"), b"");
    let start = Instant::now();
    while !dir.join("go").exists() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
}
