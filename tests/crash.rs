//! The crash-consistency harness (issue 19, item 2): each writing command is killed with
//! SIGKILL at random instants on a generated tree, and after each kill the next run must
//! find every file old or new (never partial), every review kept, and no temporary file
//! left behind. Ignored by default; `.ci/run` runs a few kills per command, and
//! `docs/reliability.md` reports a long run:
//!
//! ```text
//! CRASH_KILLS=100 cargo test --release --test crash -- --ignored --nocapture
//! ```
#![cfg(unix)]

mod common;

use common::Tree;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const FILES: usize = 300;

fn kills() -> usize {
    std::env::var("CRASH_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20)
}

/// A small deterministic generator: the instants differ from kill to kill, the same in
/// every run of the harness.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

fn all_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            all_files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every file under `dir` by root-relative path, `.lockgraph/` left out.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = Vec::new();
    all_files(dir, &mut files);
    files
        .into_iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            // Temporary files are leftovers, counted after the next run (which removes them).
            let temp = lockgraph::fsutil::is_temp(&p.file_name().unwrap().to_string_lossy());
            (!rel.starts_with(".lockgraph") && !temp).then(|| (rel, std::fs::read(&p).unwrap()))
        })
        .collect()
}

fn leftovers(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    all_files(dir, &mut files);
    files
        .into_iter()
        .filter(|p| lockgraph::fsutil::is_temp(&p.file_name().unwrap().to_string_lossy()))
        .collect()
}

/// A bilingual tree whose every file has reviewed entries and one-for-one fixes (a
/// no-break space after a one-letter conjunction): what `--fix` rewrites while keeping
/// every review.
fn copy_tree() -> Tree {
    let tree = Tree::copy_of("copy");
    for i in 0..FILES {
        tree.write(
            &format!("content/many/p{i:03}.md"),
            &format!("# Kapitola {i}\n\nŘekl ahoj a pak nazdar a odešel v {i} hodin.\n"),
        );
    }
    let c = |args: &[&str]| {
        let out = tree.copy_audit().args(args).output().unwrap();
        assert!(
            out.status.code().unwrap() < 2,
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    c(&["--offline"]);
    for i in 0..FILES {
        c(&[
            "lockfile",
            "mark-reviewed",
            &format!("content/many/p{i:03}.md"),
            "--by",
            "t@2026-12-01",
        ]);
    }
    tree
}

/// Runs `args` of `bin` in `dir` to completion and returns how long it took.
fn timed(bin: &str, dir: &Path, args: &[&str]) -> Duration {
    let start = Instant::now();
    let out = Command::new(assert_cmd::cargo::cargo_bin(bin))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.code().unwrap() < 2, "{bin} {args:?}");
    start.elapsed()
}

/// Kills `bin args` in a fresh copy of `base` after a random delay up to a little over
/// the time a whole run takes; returns the copy and whether the kill landed mid-run.
fn kill_once(bin: &str, base: &Path, args: &[&str], span: Duration, rng: &mut Lcg) -> (Tree, bool) {
    let tree = Tree::copy_of_dir(base);
    let mut child = Command::new(assert_cmd::cargo::cargo_bin(bin))
        .args(args)
        .current_dir(tree.dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let delay = rng.below(span.as_micros() as u64 * 6 / 5);
    std::thread::sleep(Duration::from_micros(delay));
    let landed = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    (tree, landed)
}

#[test]
#[ignore = "long: run by .ci/run with a few kills, by hand with CRASH_KILLS"]
fn copy_audit_writers_killed_at_random_keep_every_review() {
    let base = copy_tree();
    // Work for `--offline` too: files without entries.
    for i in 0..50 {
        base.write(
            &format!("content/new/n{i:02}.md"),
            &format!(
                "# Nová {i}

Text bez záznamu a s chybou v {i} hodin.
"
            ),
        );
    }
    let before = snapshot(base.dir.path());
    let mut rng = Lcg(19);
    // The audit writes only its caches and its replay: what a kill leaves of them is
    // swept by the next run.
    for args in [
        &["--fix"][..],
        &["--offline"],
        &["lockfile", "normalize"],
        &["--json"],
    ] {
        // What a run that is not killed makes of each file.
        let done = Tree::copy_of_dir(base.dir.path());
        let span = timed("copy-audit", done.dir.path(), args);
        let after = snapshot(done.dir.path());
        let (mut landed, mut partial, mut lost, mut left) = (0, 0, 0, 0);
        for _ in 0..kills() {
            let (tree, mid) = kill_once("copy-audit", base.dir.path(), args, span, &mut rng);
            landed += usize::from(mid);
            // The next run: recovers, then audits.
            let out = tree.copy_audit().arg("--json").output().unwrap();
            assert!(
                out.status.code().unwrap() < 2,
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let now = snapshot(tree.dir.path());
            for (rel, bytes) in &now {
                if rel == ".copy-editor.lock.json" {
                    continue;
                }
                if before.get(rel) != Some(bytes) && after.get(rel) != Some(bytes) {
                    partial += 1;
                }
            }
            for l in leftovers(tree.dir.path()) {
                eprintln!("leftover: {}", l.display());
                left += 1;
            }
            // The lockfile reads, and every review is kept: each reviewed entry fresh for
            // its file's bytes, still reviewed.
            let lock = common::json(&now[".copy-editor.lock.json"]);
            for (rel, entry) in lock["files"].as_object().unwrap() {
                if !rel.starts_with("content/many/") {
                    continue;
                }
                let hash = lockgraph_queries::hash::ContentHash::of(&now[rel]).to_string();
                if entry["contentHash"] != hash.as_str() || entry["reviewedBy"].is_null() {
                    lost += 1;
                }
            }
        }
        eprintln!(
            "copy-audit {args:?}: {} kills ({landed} mid-run), {partial} partial files, {lost} lost reviews, {left} leftovers",
            kills()
        );
        assert_eq!((partial, lost, left), (0, 0, 0), "{args:?}");
    }
}

#[test]
#[ignore = "long: run by .ci/run with a few kills, by hand with CRASH_KILLS"]
fn soil_lock_writers_killed_at_random_leave_old_or_new() {
    let base = Tree::copy_of("soil");
    // Work for refresh: every prose edited (each sidecar re-anchored) and two sidecars gone.
    let mut specs = Vec::new();
    all_files(base.dir.path(), &mut specs);
    for p in specs
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "tr"))
    {
        let text = std::fs::read_to_string(p).unwrap();
        std::fs::write(p, format!("{text}\nOne more sentence of prose.\n")).unwrap();
    }
    std::fs::remove_file(base.path("csvstats/sum.lock")).unwrap();
    std::fs::remove_file(base.path("text/words.lock")).unwrap();
    let before = snapshot(base.dir.path());
    let mut rng = Lcg(18);
    // `status` writes only its caches (the shards and its replay): what a kill leaves of
    // them is swept by the next run.
    for args in [&["refresh"][..], &["manifest"], &["status", "--json"]] {
        let done = Tree::copy_of_dir(base.dir.path());
        let span = timed("soil-lock", done.dir.path(), args);
        let after = snapshot(done.dir.path());
        let (mut landed, mut partial, mut left) = (0, 0, 0);
        for _ in 0..kills() {
            let (tree, mid) = kill_once("soil-lock", base.dir.path(), args, span, &mut rng);
            landed += usize::from(mid);
            for (rel, bytes) in snapshot(tree.dir.path()) {
                if before.get(&rel) != Some(&bytes) && after.get(&rel) != Some(&bytes) {
                    partial += 1;
                }
            }
            // The next run completes what the kill interrupted.
            timed("soil-lock", tree.dir.path(), args);
            assert_eq!(snapshot(tree.dir.path()), after, "{args:?}: completed");
            for l in leftovers(tree.dir.path()) {
                eprintln!("leftover: {}", l.display());
                left += 1;
            }
        }
        eprintln!(
            "soil-lock {args:?}: {} kills ({landed} mid-run), {partial} partial files, {left} leftovers",
            kills()
        );
        assert_eq!((partial, left), (0, 0), "{args:?}");
    }
}
