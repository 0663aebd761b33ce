//! copy-audit's replays (`src/copy_audit/audit/replay.rs`, `src/replay.rs`): an audit
//! whose every input is as the last runs of the same command line found them prints
//! their bytes and exits as they did, without opening a cache or the lockfile; any change
//! to an input computes again; every replayed output is the one `--no-cache` prints; and
//! a loop of edit and run keeps only stubs (the output is kept once inputs repeat).

mod common;

use common::ReplayRun as Run;
use common::Tree;
use std::fs;
use std::path::PathBuf;

fn run(tree: &Tree, args: &[&str]) -> Run {
    let mut logged = tree.copy_audit();
    logged.args(args).env("LOCKGRAPH_LOG", "info");
    common::replay_run(logged.output().unwrap())
}

/// What `--no-cache` prints: code, stdout, stderr.
fn computed(tree: &Tree, args: &[&str]) -> (Option<i32>, String, String) {
    common::no_cache_run(|with| run(tree, with), args)
}

fn replays(tree: &Tree) -> Vec<PathBuf> {
    tree.replays(".lockgraph")
}

/// A copy of the copy fixture whose files are an hour old: none is racy against the
/// replays written next.
fn aged_copy() -> Tree {
    let tree = Tree::copy_of("copy");
    tree.age();
    tree
}

/// Runs `args` until its output is kept, then asserts the next run replays it.
fn until_replayed(tree: &Tree, args: &[&str]) {
    common::run_until_replayed(|args| run(tree, args), args);
}

/// Every format, the gates and the ways of naming what is in scope.
const REPLAYED: &[&[&str]] = &[
    &[],
    &["--format", "github"],
    &["--format", "gitlab"],
    &["--format", "sarif"],
    &["--json", "--require-reviewed"],
    &["--json", "--shard", "1/2"],
    &["--json", "content/talks/uvod.md"],
    &["--format", "github", "content"],
    &["--json", "--paths", "content/**/*.md"],
    &["--json", "--lang", "en"],
    &["--json"],
];

#[test]
fn a_command_line_run_on_the_same_inputs_replays_the_same_bytes_and_exit() {
    let tree = aged_copy();
    for args in REPLAYED {
        common::assert_third_run_replays(|a| run(&tree, a), args);
    }
    // A replay exits 1 as the run it repeats did: the fixture has error findings. (The
    // newest eight command lines are kept, the last one's among them.)
    let failing = run(&tree, &["--json"]);
    assert_eq!((failing.0, failing.3), (Some(1), true));
    assert!(replays(&tree).len() <= 8, "{:?}", replays(&tree));
}

/// Each change to an input: the run after it computes, and prints what `--no-cache` does.
#[test]
fn any_change_to_an_input_computes_again() {
    type Change = fn(&Tree);
    let changes: &[(&str, Change)] = &[
        ("a file edited", |t| {
            let text = t.read("content/talks/uvod.md");
            t.write(
                "content/talks/uvod.md",
                &format!("{text}\nVstupné je 80Kč.\n"),
            );
        }),
        ("a file added", |t| {
            t.write("content/talks/novy.md", "# Nový\n\nCena je 50Kč.\n");
        }),
        ("a file deleted", |t| {
            fs::remove_file(t.path("content/guide/setup.en.md")).unwrap();
        }),
        ("a file renamed", |t| {
            fs::rename(
                t.path("content/talks/uvod.md"),
                t.path("content/talks/zacatek.md"),
            )
            .unwrap();
        }),
        ("an entry marked reviewed", |t| {
            t.copy_audit()
                .args(["lockfile", "mark-reviewed", "content/agenda.json"])
                .args(["--by", "t@2026-12-06"])
                .assert()
                .success();
        }),
        ("the lockfile deleted", |t| {
            fs::remove_file(t.path(".copy-editor.lock.json")).unwrap();
        }),
        ("the config edited", |t| {
            let config = t.read(".copy-editor.yaml");
            t.write(
                ".copy-editor.yaml",
                &format!("{config}rules:\n  disable: [cs-R4-number-unit]\n"),
            );
        }),
        ("a directory ignored by git", |t| {
            fs::create_dir(t.path(".git")).unwrap();
            t.write(".gitignore", "content/guide/\n");
        }),
        (
            "a file edited in place to the same size, mtime set back",
            |t| {
                let rel = "content/talks/uvod.md";
                let meta = fs::metadata(t.path(rel)).unwrap();
                let text = t.read(rel).replacen("Vstupné", "VSTUPNÉ", 1);
                assert_eq!(text.len() as u64, meta.len());
                fs::write(t.path(rel), text).unwrap();
                t.set_mtime(rel, meta.modified().unwrap());
            },
        ),
    ];
    for (what, change) in changes {
        let tree = aged_copy();
        for args in [&["--json"][..], &["--json", "--require-reviewed"]] {
            until_replayed(&tree, args);
        }
        change(&tree);
        for args in [&["--json"][..], &["--json", "--require-reviewed"]] {
            let after = run(&tree, args);
            assert!(!after.3, "{what}: {args:?} was replayed");
            let expected = computed(&tree, args);
            assert_eq!((after.0, after.1, after.2), expected, "{what}: {args:?}");
        }
    }
}

#[test]
fn the_directory_a_run_is_made_in_is_part_of_its_command_line() {
    let tree = aged_copy();
    let args = ["--format", "github"];
    until_replayed(&tree, &args);
    // From the directory above the root, the annotations' paths start with the root's name.
    let above = tree.dir.path().parent().unwrap();
    let config = tree.path(".copy-editor.yaml");
    let from_above = |extra: &[&str]| {
        let out = tree
            .copy_audit()
            .current_dir(above)
            .env("LOCKGRAPH_LOG", "info")
            .args(extra)
            .arg("--config")
            .arg(&config)
            .args(args)
            .output()
            .unwrap();
        let (_, stdout, _, replayed) = common::replay_run(out);
        (stdout, replayed)
    };
    common::assert_replayed_apart(from_above, &run(&tree, &args).1);
}

#[test]
fn runs_that_write_or_print_more_are_never_replayed() {
    let tree = aged_copy();
    for args in [
        &["--json", "--verbose"][..],
        &["--json", "--list-unsegmented"],
        &["--json", "--no-cache"],
        &["lockfile", "list"],
    ] {
        for _ in 0..3 {
            assert!(!run(&tree, args).3, "{args:?}");
        }
    }
    assert!(replays(&tree).is_empty(), "{:?}", replays(&tree));
    // What --fix and --offline write is seen by the next audit.
    for writes in [&["--offline", "--json"][..], &["--fix", "--json"]] {
        until_replayed(&tree, &["--json"]);
        let wrote = run(&tree, writes);
        assert!(!wrote.3, "{writes:?}");
        let after = run(&tree, &["--json"]);
        assert!(!after.3, "after {writes:?}");
        let expected = computed(&tree, &["--json"]);
        assert_eq!((after.0, after.1, after.2), expected, "after {writes:?}");
    }
}

#[test]
fn an_edit_before_every_run_keeps_only_stubs() {
    let tree = aged_copy();
    for i in 0..4 {
        let text = tree.read("content/talks/uvod.md");
        tree.write("content/talks/uvod.md", &format!("{text}\nVěta {i}.\n"));
        tree.wait_past_its_timestamps();
        let got = run(&tree, &["--json"]);
        assert!(!got.3);
        let kept = fs::read(&replays(&tree)[0]).unwrap();
        assert!(
            kept.len() < got.1.len() / 4,
            "a stub of {} bytes for {} bytes of output",
            kept.len(),
            got.1.len()
        );
    }
}

#[test]
fn a_replayed_run_writes_nothing_sweeps_leftovers_and_a_damaged_replay_is_written_over() {
    use std::os::unix::fs::MetadataExt;
    let tree = aged_copy();
    until_replayed(&tree, &["--json"]);
    let identities = || -> Vec<(PathBuf, u64, i64, i64)> {
        let mut all = tree.cache_files(".lockgraph");
        all.extend(tree.cache_files(".lockgraph/findings"));
        all.push(tree.path(".copy-editor.lock.json"));
        all.into_iter()
            .map(|p| {
                let m = fs::metadata(&p).unwrap();
                (p, m.ino(), m.mtime(), m.mtime_nsec())
            })
            .collect()
    };
    let before = identities();
    // What a killed run left is swept even by a run that opens no cache.
    let leftover = tree.path(".lockgraph/findings/.b0-00.v1.999999999.0.lockgraph-tmp");
    fs::write(&leftover, b"half a shard").unwrap();
    assert!(run(&tree, &["--json"]).3);
    assert_eq!(identities(), before);
    assert!(!leftover.exists(), "swept");
    let replay = replays(&tree).remove(0);
    let good = fs::read(&replay).unwrap();
    let expected = computed(&tree, &["--json"]);
    fs::write(&replay, &good[..good.len() / 2]).unwrap();
    for _ in 0..2 {
        let got = run(&tree, &["--json"]);
        assert!(!got.3, "a torn replay is not used");
        assert_eq!((got.0, got.1, got.2), expected);
    }
    assert_eq!(fs::read(&replay).unwrap(), good, "written over");
}
