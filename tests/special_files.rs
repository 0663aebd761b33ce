//! Only regular files are read (issue 19): a FIFO, a device or a socket under the include
//! globs or in a soil root is skipped with one warning line, never opened — a FIFO's read
//! would wait for a writer forever, a device's never end — and a lockfile, config or
//! sidecar that is not a regular file is exit 2 naming it. Every command runs under a
//! timeout: a hang fails the test instead of the suite.
#![cfg(unix)]

mod common;

use common::Tree;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::Duration;

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.expect("mkfifo runs").success(), "{}", path.display());
}

/// Runs a command to its end (or fails the test after a minute) and returns its exit code
/// and stderr.
fn run(cmd: &mut assert_cmd::Command) -> (i32, String) {
    let out = cmd.timeout(Duration::from_secs(60)).output().expect("runs");
    let code = out
        .status
        .code()
        .expect("ended by itself, not killed at the timeout");
    (code, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn once(stderr: &str, line: &str) {
    assert_eq!(
        stderr.matches(line).count(),
        1,
        "`{line}` once in:\n{stderr}"
    );
}

#[test]
fn copy_audit_skips_what_is_not_a_regular_file_with_one_warning_each() {
    let tree = Tree::copy_of("copy");
    mkfifo(&tree.path("content/fifo.md"));
    symlink("fifo.md", tree.path("content/link.md")).unwrap();
    symlink("nowhere.md", tree.path("content/dangling.md")).unwrap();
    for args in [
        &[][..],
        &["--list-unsegmented"],
        &["--fix"],
        &["--offline"],
        &["--no-cache", "--format", "json"],
    ] {
        let (code, stderr) = run(tree.copy_audit().args(args));
        assert!(code < 2, "{args:?}: exit {code}\n{stderr}");
        once(
            &stderr,
            "content/fifo.md: a FIFO, not a regular file; skipped",
        );
        once(
            &stderr,
            "content/link.md: symlink to a FIFO, not a regular file; skipped",
        );
        once(&stderr, "content/dangling.md: symlink to nothing; skipped");
    }
}

#[test]
fn copy_audit_refuses_to_read_a_named_fifo() {
    let tree = Tree::copy_of("copy");
    mkfifo(&tree.path("content/fifo.md"));
    tree.write("spans.json", r#"{"spans":[]}"#);
    for args in [
        &[
            "lockfile",
            "add",
            "content/fifo.md",
            "--spans",
            "spans.json",
        ][..],
        &["segment", "content/fifo.md"],
    ] {
        let (code, stderr) = run(tree.copy_audit().args(args));
        assert_eq!(code, 2, "{args:?}\n{stderr}");
        assert!(
            stderr.contains("content/fifo.md: not a regular file (a FIFO); not read"),
            "{args:?}\n{stderr}"
        );
    }
}

#[test]
fn a_lockfile_or_config_that_is_not_a_regular_file_is_exit_2_naming_it() {
    let tree = Tree::copy_of("copy");
    std::fs::remove_file(tree.path(".copy-editor.lock.json")).unwrap();
    mkfifo(&tree.path(".copy-editor.lock.json"));
    for args in [&[][..], &["lockfile", "check"], &["--list-unsegmented"]] {
        let (code, stderr) = run(tree.copy_audit().args(args));
        assert_eq!(code, 2, "{args:?}\n{stderr}");
        assert!(
            stderr.contains(".copy-editor.lock.json: not a regular file (a FIFO)"),
            "{args:?}\n{stderr}"
        );
    }
    let tree = Tree::copy_of("copy");
    mkfifo(&tree.path("fifo.yaml"));
    let (code, stderr) = run(tree.copy_audit().args(["--config", "fifo.yaml"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("fifo.yaml: cannot read the config: not a regular file (a FIFO)"),
        "{stderr}"
    );
}

#[test]
fn soil_lock_skips_specs_and_bodies_that_are_not_regular_files() {
    let tree = Tree::copy_of("soil");
    mkfifo(&tree.path("csvstats/fifo.tr"));
    std::fs::remove_file(tree.path("csvstats/sum.soil")).unwrap();
    mkfifo(&tree.path("csvstats/sum.soil"));
    std::fs::remove_file(tree.path("ref/stats.py")).unwrap();
    mkfifo(&tree.path("ref/stats.py"));
    for args in [&["status"][..], &["check"], &["refresh"], &["graph"]] {
        let (code, stderr) = run(tree.soil_lock().args(args));
        assert!(code < 2, "{args:?}: exit {code}\n{stderr}");
        once(
            &stderr,
            "csvstats/fifo.tr: a FIFO, not a regular file; skipped",
        );
        once(
            &stderr,
            "csvstats/sum.soil: a FIFO, not a regular file; skipped",
        );
        once(
            &stderr,
            "ref/stats.py: not a regular file (a FIFO); not read",
        );
    }
    let out = tree
        .soil_lock()
        .args(["status", "--json"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let status = common::json(&out.stdout);
    let flags = |path: &str| {
        let d = status["defs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["path"] == path);
        d.unwrap()["flags"].clone()
    };
    assert_eq!(flags("csvstats/sum"), serde_json::json!(["soil-missing"]));
    assert_eq!(
        flags("csvstats/median"),
        serde_json::json!(["stale-oracle"])
    );
}

#[test]
fn a_sidecar_that_is_not_a_regular_file_is_exit_2_naming_it() {
    let tree = Tree::copy_of("soil");
    std::fs::remove_file(tree.path("csvstats/sum.lock")).unwrap();
    mkfifo(&tree.path("csvstats/sum.lock"));
    for args in [&["status"][..], &["check"], &["refresh"]] {
        let (code, stderr) = run(tree.soil_lock().args(args));
        assert_eq!(code, 2, "{args:?}\n{stderr}");
        assert!(
            stderr.contains("csvstats/sum.lock: a FIFO, not a regular file; a sidecar must be one"),
            "{args:?}\n{stderr}"
        );
    }
}

#[test]
fn paths_in_configs_and_sidecars_stay_inside_the_root() {
    let tree = Tree::copy_of("copy");
    let config = tree.read(".copy-editor.yaml");
    let outside = config.replace(
        "cache_path: .copy-editor.lock.json",
        "cache_path: ../spans.lock.json",
    );
    assert_ne!(outside, config);
    tree.write("outside.yaml", &outside);
    let (code, stderr) = run(tree.copy_audit().args(["--config", "outside.yaml"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("outside the root"), "{stderr}");

    let tree = Tree::copy_of("soil");
    let lock = tree.read("csvstats/median.lock");
    tree.write(
        "csvstats/median.lock",
        &lock.replace("\"ref/stats.py::median\"", "\"../../etc/passwd\""),
    );
    let (code, stderr) = run(tree.soil_lock().args(["status"]));
    assert!(code < 2, "{stderr}");
    once(
        &stderr,
        "../../etc/passwd: outside the root; an oracle's file is not read there",
    );

    // The same file reached through a link to an identical copy outside: not read, so
    // its users stay flagged, never cleared by the copy.
    let tree = Tree::copy_of("soil");
    let outside = tempfile::tempdir().unwrap();
    let copy = outside.path().join("stats.py");
    std::fs::copy(tree.path("ref/stats.py"), &copy).unwrap();
    std::fs::remove_file(tree.path("ref/stats.py")).unwrap();
    symlink(&copy, tree.path("ref/stats.py")).unwrap();
    let (code, stderr) = run(tree.soil_lock().args(["status"]));
    assert!(code < 2, "{stderr}");
    once(
        &stderr,
        "ref/stats.py: a symlink leads outside the root; an oracle's file is not read there",
    );
}
