//! `LOCKGRAPH_TIMINGS=1` prints how long each phase of a run took to stderr — the first
//! thing to look at before a profile, and what `docs/performance.md` quotes phase figures
//! from, with the resident memory at the end of each phase. Off, a phase costs one
//! check of a cached flag.

use std::sync::OnceLock;
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("LOCKGRAPH_TIMINGS").is_some_and(|v| v != "0"))
}

/// Prints `timing: <name> <ms>` when dropped, if timings are on.
pub struct Phase {
    name: &'static str,
    start: Option<Instant>,
}

/// Starts timing a phase; the phase ends when the returned guard is dropped.
pub fn phase(name: &'static str) -> Phase {
    Phase {
        name,
        start: enabled().then(Instant::now),
    }
}

impl Drop for Phase {
    fn drop(&mut self) {
        if let Some(start) = self.start {
            report(self.name, start.elapsed());
        }
    }
}

/// Prints a phase's time measured elsewhere (work spread over the workers, summed), if
/// timings are on.
pub fn report(name: &str, time: std::time::Duration) {
    if enabled() {
        let ms = time.as_secs_f64() * 1000.0;
        eprintln!(
            "timing: {name:<28} {ms:9.1} ms   rss {:>5} MB",
            resident_mb()
        );
    }
}

/// Prints a count the phases are explained by (files read, say), if timings are on; the
/// count is made only then.
pub fn count(name: &str, n: impl FnOnce() -> usize) {
    if enabled() {
        eprintln!("timing: {name:<28} {:9}", n());
    }
}

/// The resident set size now, from `/proc/self/statm` (0 where there is none).
fn resident_mb() -> u64 {
    let pages = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .unwrap_or(0);
    pages * 4096 / (1 << 20)
}
