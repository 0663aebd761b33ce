//! Nothing is written, renamed or removed outside the root (issue 28, item 1): a symlink
//! committed into a repository — `soil.lock -> ~/.bashrc`, a `.lockgraph` or a lockfile
//! directory that leads elsewhere — makes a writing command exit 2 naming the link, and
//! the file it leads to stays byte for byte as it was. A link that stays inside the root
//! is still written through.
#![cfg(unix)]

mod common;

use common::Tree;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::Duration;

/// Runs a command to its end and returns its exit code and stderr.
fn run(cmd: &mut assert_cmd::Command) -> (i32, String) {
    let out = cmd.timeout(Duration::from_secs(60)).output().expect("runs");
    let code = out.status.code().expect("ended by itself");
    (code, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Every file under `dir`, with its bytes: what "nothing touched" is compared by.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push((path.display().to_string(), fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn refused(code: i32, stderr: &str, names: &str) {
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(names) && stderr.contains("leads outside the root"),
        "names `{names}`:\n{stderr}"
    );
}

#[test]
fn soil_lock_manifest_never_writes_through_a_link_out_of_the_root() {
    let tree = Tree::copy_of("soil");
    let outside = tempfile::tempdir().unwrap();
    let bashrc = outside.path().join(".bashrc");
    fs::write(&bashrc, "export PATH=/usr/bin\n").unwrap();
    let manifest = tree.path("soil.lock");
    let _ = fs::remove_file(&manifest);
    symlink(&bashrc, &manifest).unwrap();
    let (code, stderr) = run(tree.soil_lock().arg("manifest"));
    refused(code, &stderr, "soil.lock");
    assert_eq!(
        fs::read_to_string(&bashrc).unwrap(),
        "export PATH=/usr/bin\n"
    );
    // A dangling link out is refused as well: it would create the file outside.
    fs::remove_file(&bashrc).unwrap();
    let (code, stderr) = run(tree.soil_lock().arg("manifest"));
    refused(code, &stderr, "soil.lock");
    assert!(!bashrc.exists());
}

#[test]
fn a_lockgraph_directory_that_leads_out_is_an_error_for_both_tools() {
    for soil in [false, true] {
        let tree = Tree::copy_of(if soil { "soil" } else { "copy" });
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("keep"), "mine").unwrap();
        let _ = fs::remove_dir_all(tree.path(".lockgraph"));
        symlink(outside.path(), tree.path(".lockgraph")).unwrap();
        let before = snapshot(outside.path());
        let runs: Vec<assert_cmd::Command> = if soil {
            let mut status = tree.soil_lock();
            status.arg("status");
            vec![status]
        } else {
            let mut offline = tree.copy_audit();
            offline.arg("--offline");
            let mut fix = tree.copy_audit();
            fix.arg("--fix");
            vec![tree.copy_audit(), offline, fix]
        };
        for mut cmd in runs {
            let (code, stderr) = run(&mut cmd);
            refused(code, &stderr, ".lockgraph");
            assert_eq!(snapshot(outside.path()), before, "soil {soil}");
        }
        // Without the caches nothing goes there either.
        if !soil {
            let (code, stderr) = run(tree.copy_audit().arg("--no-cache"));
            assert!(code < 2, "{stderr}");
            assert_eq!(snapshot(outside.path()), before);
        }
    }
}

#[test]
fn a_lockfile_reached_through_a_link_out_of_the_root_is_not_rewritten() {
    let tree = Tree::copy_of("copy");
    let outside = tempfile::tempdir().unwrap();
    // The lockfile itself a link out.
    let theirs = outside.path().join("lock.json");
    fs::copy(tree.path(".copy-editor.lock.json"), &theirs).unwrap();
    fs::remove_file(tree.path(".copy-editor.lock.json")).unwrap();
    symlink(&theirs, tree.path(".copy-editor.lock.json")).unwrap();
    let before = snapshot(outside.path());
    let (code, stderr) =
        run(tree
            .copy_audit()
            .args(["lockfile", "invalidate", "content/talks/uvod.md"]));
    refused(code, &stderr, ".copy-editor.lock.json");
    assert_eq!(snapshot(outside.path()), before);
    // `--fix` rewrites the lockfile only to re-anchor entries; whatever it does, the
    // file outside stays as it was.
    let (code, stderr) = run(tree.copy_audit().arg("--fix"));
    assert!(code <= 2, "{stderr}");
    assert_eq!(snapshot(outside.path()), before);
    // `segment.cache_path` through a linked directory: `--offline` would create it there.
    let tree = Tree::copy_of("copy");
    let config = tree.read(".copy-editor.yaml").replace(
        "cache_path: .copy-editor.lock.json",
        "cache_path: locks/.copy-editor.lock.json",
    );
    tree.write(".copy-editor.yaml", &config);
    symlink(outside.path(), tree.path("locks")).unwrap();
    let (code, stderr) = run(tree.copy_audit().arg("--offline"));
    refused(code, &stderr, ".copy-editor.lock.json");
    assert_eq!(snapshot(outside.path()), before);
}

#[test]
fn a_link_inside_the_root_is_still_written_through() {
    let tree = Tree::copy_of("soil");
    fs::create_dir_all(tree.path("generated")).unwrap();
    let real = tree.path("generated/soil.lock");
    let _ = fs::remove_file(tree.path("soil.lock"));
    symlink("generated/soil.lock", tree.path("soil.lock")).unwrap();
    let (code, stderr) = run(tree.soil_lock().arg("manifest"));
    assert_eq!(code, 0, "{stderr}");
    assert!(real.is_file(), "{stderr}");
    assert!(
        fs::symlink_metadata(tree.path("soil.lock"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}
