//! Helpers for end-to-end tests: a private copy of a fixture tree and the built binaries.

#![allow(dead_code)]

use assert_cmd::Command;
use std::fs;
use std::path::{Path, PathBuf};

/// A fixture tree copied into a temporary directory, so tests may mutate it.
pub struct Tree {
    pub dir: tempfile::TempDir,
}

impl Tree {
    pub fn copy_of(fixture: &str) -> Tree {
        Tree::copy_of_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures")
                .join(fixture),
        )
    }

    /// A writable copy of any directory (the shared conformance trees are read-only).
    pub fn copy_of_dir(src: &Path) -> Tree {
        let dir = tempfile::tempdir().expect("temp dir");
        copy_dir(src, dir.path());
        Tree { dir }
    }

    /// A copy of this tree after `copy-audit --fix`: what the fixes should leave.
    pub fn fixed_copy(&self) -> Tree {
        let fixed = Tree::copy_of_dir(self.dir.path());
        fixed
            .copy_audit()
            .args(["--fix", "--quiet"])
            .output()
            .unwrap();
        fixed
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.path(rel)).expect("readable file")
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    /// `copy-audit` run from the tree's root (config discovered by walking up).
    pub fn copy_audit(&self) -> Command {
        let mut cmd = Command::cargo_bin("copy-audit").expect("binary built");
        cmd.current_dir(self.dir.path());
        cmd
    }

    /// Sets the modification time of the tree's file `rel` (to step around, or into, the
    /// racy-timestamp rule of the caches).
    pub fn set_mtime(&self, rel: &str, t: std::time::SystemTime) {
        fs::File::options()
            .write(true)
            .open(self.path(rel))
            .unwrap()
            .set_modified(t)
            .unwrap();
    }

    /// Waits until the file system's clock has moved past every file of the tree, so that a
    /// cache written next is strictly newer than each of them. Otherwise a cold run right
    /// after the copy may write its cache in the tick of the copy's last files, and git's
    /// racy-timestamp rule has the next run read them again and rewrite their shards — the
    /// right behaviour, but not what a test of an unchanged or a one-file run is about.
    pub fn wait_past_its_timestamps(&self) {
        use std::os::unix::fs::MetadataExt;
        fn newest(dir: &Path) -> i128 {
            let at = |s: i64, ns: i64| i128::from(s) * 1_000_000_000 + i128::from(ns);
            fs::read_dir(dir)
                .unwrap()
                .map(|e| {
                    let e = e.unwrap();
                    let m = e.metadata().unwrap();
                    let own = at(m.mtime(), m.mtime_nsec()).max(at(m.ctime(), m.ctime_nsec()));
                    if m.is_dir() {
                        own.max(newest(&e.path()))
                    } else {
                        own
                    }
                })
                .max()
                .unwrap_or(i128::MIN)
        }
        let newest = newest(self.dir.path());
        let probe = self.dir.path().join(".clock-probe");
        loop {
            fs::write(&probe, b"").unwrap();
            let m = fs::metadata(&probe).unwrap();
            let now = i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec());
            fs::remove_file(&probe).unwrap();
            if now > newest {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// The cache files (`*.v1`) in the tree's directory `rel`, sorted; none if it is missing.
    pub fn cache_files(&self, rel: &str) -> Vec<PathBuf> {
        let mut out: Vec<_> = fs::read_dir(self.path(rel))
            .map(|d| {
                d.map(|e| e.unwrap().path())
                    .filter(|p| p.extension().is_some_and(|e| e == "v1"))
                    .collect()
            })
            .unwrap_or_default();
        out.sort();
        out
    }

    /// Sets every file of the tree (but the caches) an hour back, past the racy rule of
    /// the caches and replays written next.
    pub fn age(&self) {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for entry in fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    if !path.ends_with(".lockgraph") {
                        walk(&path, out);
                    }
                } else {
                    out.push(path);
                }
            }
        }
        let mut files = Vec::new();
        walk(self.dir.path(), &mut files);
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for f in files {
            let rel = f.strip_prefix(self.dir.path()).unwrap().to_string_lossy();
            self.set_mtime(&rel, old);
        }
        self.wait_past_its_timestamps();
    }

    /// The replay files (`replay-*.v1`) in the tree's directory `rel`, sorted.
    pub fn replays(&self, rel: &str) -> Vec<PathBuf> {
        let is_replay = |p: &PathBuf| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("replay-")
        };
        self.cache_files(rel)
            .into_iter()
            .filter(is_replay)
            .collect()
    }

    /// Removes both tools' replays, so that the next run goes through the caches.
    pub fn forget_replays(&self) {
        for dir in [".lockgraph", ".lockgraph/soil"] {
            for p in self.replays(dir) {
                fs::remove_file(p).unwrap();
            }
        }
    }

    /// `soil-lock` run from the tree's root (soil.toml discovered by walking up).
    pub fn soil_lock(&self) -> Command {
        let mut cmd = Command::cargo_bin("soil-lock").expect("binary built");
        cmd.current_dir(self.dir.path());
        cmd
    }

    /// [`Tree::soil_lock`] with `args`, run with `LOCKGRAPH_LOG=info` (its phases and
    /// counts on stderr): the output and stderr as text.
    pub fn soil_lock_logged(&self, args: &[&str]) -> (std::process::Output, String) {
        let out = self
            .soil_lock()
            .args(args)
            .env("LOCKGRAPH_LOG", "info")
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr.clone()).unwrap();
        (out, stderr)
    }
}

/// A run of either tool as the replay tests see it: exit code, stdout, stderr without the
/// timing lines (what a user sees), and whether it said its output was replayed.
pub type ReplayRun = (Option<i32>, String, String, bool);

/// [`ReplayRun`] of a run made with `LOCKGRAPH_LOG=info`.
pub fn replay_run(out: std::process::Output) -> ReplayRun {
    let stderr = String::from_utf8(out.stderr).unwrap();
    let replayed = said_replayed(&stderr);
    let said: String = stderr
        .lines()
        .filter(|l| !l.starts_with("timing:"))
        .map(|l| format!("{l}\n"))
        .collect();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        said,
        replayed,
    )
}

/// What `run` (a [`replay_run`]) gives with `--no-cache` before `args`: code, stdout,
/// stderr; never a replay.
pub fn no_cache_run(
    run: impl Fn(&[&str]) -> ReplayRun,
    args: &[&str],
) -> (Option<i32>, String, String) {
    let mut with = vec!["--no-cache"];
    with.extend_from_slice(args);
    let (code, out, err, replayed) = run(&with);
    assert!(!replayed, "--no-cache never replays");
    (code, out, err)
}

/// Runs the command line `args` three times through `run` (a [`replay_run`]): the first
/// computes (and keeps a stub), the second computes (and keeps its output), the third is
/// replayed; each prints what `--no-cache` prints and exits as it does.
pub fn assert_third_run_replays(run: impl Fn(&[&str]) -> ReplayRun, args: &[&str]) {
    let expected = no_cache_run(&run, args);
    for (nth, replayed) in [("first", false), ("second", false), ("third", true)] {
        let (code, out, err, said) = run(args);
        assert_eq!(said, replayed, "{args:?}: the {nth} run replayed: {said}");
        assert_eq!((code, out, err), expected, "{args:?}: the {nth} run");
    }
}

/// Runs `args` through `run` (a [`replay_run`]) until its output is kept (twice: a stub,
/// then the output), then asserts the next run replays it.
pub fn run_until_replayed(run: impl Fn(&[&str]) -> ReplayRun, args: &[&str]) {
    for _ in 0..2 {
        run(args);
    }
    assert!(run(args).3, "{args:?}: replayed");
}

/// A GitHub report from above the root (`from_above(extra flags)`: stdout, and whether it
/// was replayed) is kept apart from the same command line's in the root
/// (`in_root`): its paths differ, it is computed, kept, and replayed as its own.
pub fn assert_replayed_apart(from_above: impl Fn(&[&str]) -> (String, bool), in_root: &str) {
    let (expected, _) = from_above(&["--no-cache"]);
    assert!(expected.contains("::error file="), "{expected}");
    assert_ne!(expected, in_root, "the paths differ");
    assert_eq!(from_above(&[]), (expected.clone(), false));
    assert_eq!(from_above(&[]), (expected.clone(), false));
    assert_eq!(from_above(&[]), (expected, true));
}

/// Whether a run's `LOCKGRAPH_LOG=info` stderr says its output was replayed.
pub fn said_replayed(stderr: &str) -> bool {
    stderr
        .lines()
        .any(|l| l.split_whitespace().eq(["timing:", "replayed", "1"]))
}

/// Copies a fixture without its `.lockgraph/` caches, which a run of either tool inside
/// `fixtures/` leaves behind: tests start cold unless they warm up themselves.
pub fn copy_dir(src: &Path, dst: &Path) {
    fs::create_dir_all(dst).unwrap();
    for entry in fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() == ".lockgraph" {
            continue;
        }
        let to = dst.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to);
        } else {
            fs::copy(entry.path(), &to).unwrap();
            // Read-only sources make read-only copies: the copy is the test's to change.
            let mut perms = fs::metadata(&to).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            fs::set_permissions(&to, perms).unwrap();
        }
    }
}

pub fn json(output: &[u8]) -> serde_json::Value {
    serde_json::from_slice(output)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", String::from_utf8_lossy(output)))
}

/// Two ways a cache file gets damaged, each as (what, the file's bytes, what the warning
/// says): not a cache at all, and cut in half.
pub fn damaged(good: &[u8]) -> Vec<(&'static str, Vec<u8>, &'static str)> {
    vec![
        (
            "garbage",
            b"not a cache at all".to_vec(),
            "not a lockgraph cache",
        ),
        ("truncated", good[..good.len() / 2].to_vec(), "damaged"),
        ("a flipped bit", flipped(good, good.len() / 2), "damaged"),
    ]
}

/// `good` with one bit of byte `at` flipped.
pub fn flipped(good: &[u8], at: usize) -> Vec<u8> {
    let mut bytes = good.to_vec();
    bytes[at] ^= 0x10;
    bytes
}

/// A well-formed cache file written by another engine (`engine`), with an empty body.
pub fn foreign_cache(engine: &str) -> Vec<u8> {
    let mut bytes = b"LGC2".to_vec();
    bytes.push(engine.len() as u8);
    bytes.extend(engine.as_bytes());
    bytes.push(0);
    let crc = crc32fast::hash(&bytes);
    bytes.extend(crc.to_le_bytes());
    bytes
}

/// The stderr of a run that met a damaged cache file: exactly one line about
/// `.lockgraph/`, saying `says` and that the file was moved aside.
pub fn assert_one_warning_moved_aside(stderr: &str, says: &str, what: &str) {
    assert!(stderr.contains(says), "{what}: {stderr}");
    assert!(stderr.contains("moved aside"), "{what}: {stderr}");
    assert_eq!(
        stderr.lines().filter(|l| l.contains(".lockgraph")).count(),
        1,
        "{what}: one line: {stderr}"
    );
}
