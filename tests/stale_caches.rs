//! Caches cannot serve a stale result (issue 19, item 3): an edit that keeps a file's size
//! and mtime (as `rsync -t`, tar or `touch -d` leave one), two files swapping contents
//! with their mtimes kept, or such an edit of the lockfile or a sidecar — every next run
//! equals one without the cache, because the stat compared includes the ctime, which no
//! user can set back.

mod common;

use common::Tree;
use std::time::{Duration, SystemTime};

/// Rewrites `rel` with `edit` applied, keeping its size and putting its mtime back.
fn edit_keeping_stat(tree: &Tree, rel: &str, edit: impl Fn(&str) -> String) {
    let before = std::fs::metadata(tree.path(rel)).unwrap();
    let text = edit(&tree.read(rel));
    assert_eq!(text.len() as u64, before.len(), "{rel}: same size");
    std::fs::write(tree.path(rel), text).unwrap();
    tree.set_mtime(rel, before.modified().unwrap());
}

/// `text` with the hex digit after the first `marker` changed to another.
fn flip_after(text: &str, marker: &str) -> String {
    let at = text.find(marker).expect("marker present") + marker.len();
    let old = &text[at..at + 1];
    let new = if old == "0" { "1" } else { "0" };
    format!("{}{new}{}", &text[..at], &text[at + 1..])
}

/// A run through the caches (and not a replay: `tests/copy_replay.rs` tests those).
fn copy_audit(tree: &Tree, args: &[&str]) -> (i32, String) {
    tree.forget_replays();
    let out = tree.copy_audit().args(args).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

fn soil_lock(tree: &Tree, args: &[&str]) -> (i32, String) {
    let out = tree.soil_lock().args(args).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// Old enough for the racy rule to trust it, so that only the comparison can catch an
/// edit.
fn age(tree: &Tree, rels: &[&str]) {
    let old = SystemTime::now() - Duration::from_secs(3600);
    for rel in rels {
        tree.set_mtime(rel, old);
    }
}

#[test]
fn copy_audit_sees_edits_that_keep_size_and_mtime() {
    let tree = Tree::copy_of("copy");
    let (a, b) = ("content/talks/uvod.md", "content/guide/setup.en.md");
    age(&tree, &[a, b, ".copy-editor.lock.json"]);
    for args in [&["--json"][..], &["--list-unsegmented", "--json"]] {
        copy_audit(&tree, args);
        copy_audit(&tree, args); // warm: every file vouched for by the stat index
    }
    let check = |what: &str| {
        for args in [&["--json"][..], &["--list-unsegmented", "--json"]] {
            let cached = copy_audit(&tree, args);
            let mut uncached_args = vec!["--no-cache"];
            uncached_args.extend_from_slice(args);
            assert_eq!(
                cached,
                copy_audit(&tree, &uncached_args),
                "{what}: {args:?}"
            );
            // And stays right on the run after.
            assert_eq!(
                copy_audit(&tree, args),
                cached,
                "{what}: {args:?}, next run"
            );
        }
    };
    // One character for another: a finding appears.
    edit_keeping_stat(&tree, a, |t| t.replacen("e", "a", 1));
    check("an edit");
    // Two files swap contents, each keeping its mtime (and here the same size).
    let (ta, tb) = (tree.read(a), tree.read(b));
    let common = ta.len().min(tb.len());
    let (ma, mb) = (
        std::fs::metadata(tree.path(a)).unwrap().modified().unwrap(),
        std::fs::metadata(tree.path(b)).unwrap().modified().unwrap(),
    );
    std::fs::write(tree.path(a), format!("{}{}", &tb[..common], &ta[common..])).unwrap();
    std::fs::write(tree.path(b), format!("{}{}", &ta[..common], &tb[common..])).unwrap();
    tree.set_mtime(a, ma);
    tree.set_mtime(b, mb);
    check("a swap");
    // The lockfile: one entry's recorded hash changed by a digit, same size and mtime.
    edit_keeping_stat(&tree, ".copy-editor.lock.json", |t| {
        flip_after(t, "sha256:")
    });
    check("a lockfile edit");
}

#[test]
fn soil_lock_sees_edits_that_keep_size_and_mtime() {
    let tree = Tree::copy_of("soil");
    let files = [
        "csvstats/sum.tr",
        "csvstats/sum.lock",
        "csvstats/sum.soil",
        "ref/stats.py",
    ];
    age(&tree, &files);
    soil_lock(&tree, &["status", "--json"]);
    soil_lock(&tree, &["status", "--json"]);
    let check = |what: &str| {
        let cached = soil_lock(&tree, &["status", "--json"]);
        assert_eq!(
            cached,
            soil_lock(&tree, &["--no-cache", "status", "--json"]),
            "{what}"
        );
        assert_eq!(
            soil_lock(&tree, &["status", "--json"]),
            cached,
            "{what}, next run"
        );
    };
    edit_keeping_stat(&tree, "csvstats/sum.tr", |t| {
        t.replacen("floats", "flaots", 1)
    });
    check("a spec edit");
    edit_keeping_stat(&tree, "csvstats/sum.soil", |t| t.replacen("0.0", "1.0", 1));
    check("a .soil edit");
    edit_keeping_stat(&tree, "csvstats/sum.lock", |t| {
        flip_after(t, "\"soil_hash\": \"sha256:")
    });
    check("a sidecar edit");
    edit_keeping_stat(&tree, "ref/stats.py", |t| t.replacen("return", "retvrn", 1));
    check("an oracle edit");
}

/// A file edited between the stat index vouching for its hash and the file being read:
/// its report is keyed by the bytes read, so reverting the edit later is not served the
/// edited bytes' findings.
#[test]
fn an_edit_during_a_run_does_not_poison_the_cache() {
    let tree = Tree::copy_of("copy");
    let rel = "content/talks/uvod.md";
    age(&tree, &[rel]);
    copy_audit(&tree, &["--json"]);
    copy_audit(&tree, &["--json"]);
    let original = tree.read(rel);
    // Findings must be computed (not served) for the file in the paused run.
    std::fs::remove_dir_all(tree.path(".lockgraph/findings")).unwrap();
    tree.forget_replays();
    let pause = tempfile::tempdir().unwrap();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("copy-audit"))
        .arg("--json")
        .current_dir(tree.dir.path())
        .env("LOCKGRAPH_TEST_PAUSE", pause.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    while !pause.path().join("paused").exists() {
        std::thread::sleep(Duration::from_millis(5));
    }
    tree.write(rel, &original.replace("Vítejte", "Vítám vás"));
    std::fs::write(pause.path().join("go"), b"").unwrap();
    child.wait_with_output().unwrap();
    // Back to the original bytes: the run must see the original's findings.
    tree.write(rel, &original);
    let cached = copy_audit(&tree, &["--json"]);
    assert_eq!(cached, copy_audit(&tree, &["--json", "--no-cache"]));
}
