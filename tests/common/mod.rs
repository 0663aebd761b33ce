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
