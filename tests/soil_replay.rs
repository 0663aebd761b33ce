//! soil-lock's replays (`src/soil_lock/replay.rs`): a `status` or `check` run whose every
//! input is as an earlier run of the same command line found them prints that run's bytes
//! and exits as it did, without computing; any change to an input, or anything the run
//! warned about, computes again; and every replayed output is the one `--no-cache` prints.
//! A run keeps its output only when its inputs are the last run's (before, a stub of the
//! fingerprint): the third run on unchanged inputs is the first replayed.

mod common;

use common::ReplayRun as Run;
use common::Tree;
use std::fs;
use std::path::PathBuf;
use std::time::Duration;

fn run(tree: &Tree, args: &[&str]) -> Run {
    common::replay_run(tree.soil_lock_logged(args).0)
}

/// What `--no-cache` prints: code, stdout, stderr.
fn computed(tree: &Tree, args: &[&str]) -> (Option<i32>, String, String) {
    common::no_cache_run(|with| run(tree, with), args)
}

fn replays(tree: &Tree) -> Vec<PathBuf> {
    tree.replays(".lockgraph/soil")
}

/// A copy of the soil fixture whose files are an hour old (none racy against the replays
/// written next), with something to report: a stale callee.
fn tree_with_findings() -> Tree {
    let tree = Tree::copy_of("soil");
    let lock = tree.read("csvstats/sum.lock");
    let at = lock.find("\"soil_hash\": \"sha256:").unwrap() + "\"soil_hash\": \"sha256:".len();
    let mut edited = lock.clone();
    edited.replace_range(at..at + 4, "beef");
    tree.write("csvstats/sum.lock", &edited);
    tree.age();
    tree
}

/// `--require verified` leaves violations to report (exit 1).
const REPLAYED: &[&[&str]] = &[
    &["status", "--json"],
    &["status"],
    &["status", "csvstats/sum", "text/words"],
    &["check"],
    &["check", "--require", "verified"],
    &["check", "--require", "tested", "--tag", "stats"],
    &["check", "--require", "verified", "--format", "json"],
    &["check", "--require", "verified", "--format", "github"],
    &["check", "--require", "verified", "--format", "gitlab"],
    &["check", "--require", "verified", "--format", "sarif"],
    &[
        "check",
        "--require",
        "verified",
        "--shard",
        "1/2",
        "--format",
        "json",
    ],
];

/// Runs `args` until its output is kept, then asserts the next run replays it.
fn until_replayed(tree: &Tree, args: &[&str]) {
    common::run_until_replayed(|args| run(tree, args), args);
}

#[test]
fn a_command_line_run_on_the_same_inputs_replays_the_same_bytes_and_exit() {
    let tree = tree_with_findings();
    for args in REPLAYED {
        common::assert_third_run_replays(|a| run(&tree, a), args);
    }
    // A replay exits 1 as the run it repeats did.
    let failing = run(&tree, &["check", "--require", "verified"]);
    assert_eq!((failing.0, failing.3), (Some(1), true));
    assert!(replays(&tree).len() <= 8, "{:?}", replays(&tree));
}

#[test]
fn other_commands_are_never_replayed_and_refresh_is_seen() {
    let tree = tree_with_findings();
    for args in [
        &["graph"][..],
        &["why", "csvstats/median"],
        &["manifest", "--check"],
    ] {
        run(&tree, args);
        let again = run(&tree, args);
        assert!(!again.3, "{args:?}");
    }
    assert!(replays(&tree).is_empty());
    // A command that writes sidecars changes the inputs of the next status.
    run(&tree, &["status"]);
    fs::remove_file(tree.path("text/trim.lock")).unwrap();
    run(&tree, &["refresh"]);
    let after = run(&tree, &["status"]);
    assert!(!after.3);
    assert_eq!((after.0, after.1), {
        let c = computed(&tree, &["status"]);
        (c.0, c.1)
    });
}

/// Each change to an input: the run after it computes, and prints what `--no-cache` does.
#[test]
fn any_change_to_an_input_computes_again() {
    type Change = fn(&Tree);
    let changes: &[(&str, Change)] = &[
        ("a spec edited", |t| {
            t.write(
                "csvstats/sum.tr",
                &t.read("csvstats/sum.tr")
                    .replace("Adds the floats", "Adds up the floats"),
            );
        }),
        ("a sidecar edited", |t| {
            t.write(
                "csvstats/sum.lock",
                &t.read("csvstats/sum.lock")
                    .replace("\"accepted\": true", "\"accepted\": false"),
            );
        }),
        ("a .soil edited", |t| {
            t.write(
                "csvstats/sum.soil",
                &format!("{}\n", t.read("csvstats/sum.soil")),
            );
        }),
        ("a module's _private.soil edited", |t| {
            t.write(
                "csvstats/_private.soil",
                &format!("{}\n", t.read("csvstats/_private.soil")),
            );
        }),
        ("soil.toml edited", |t| {
            t.write("soil.toml", &format!("{}\n", t.read("soil.toml")));
        }),
        ("a definition added", |t| {
            t.write(
                "text/upper.tr",
                &t.read("text/words.tr").replace("words", "upper"),
            );
        }),
        ("a definition deleted", |t| {
            fs::remove_file(t.path("text/trim.tr")).unwrap();
            fs::remove_file(t.path("text/trim.lock")).unwrap();
        }),
        ("a .soil deleted", |t| {
            fs::remove_file(t.path("csvstats/sum.soil")).unwrap();
        }),
        ("an oracle's reference file edited", |t| {
            t.write(
                "ref/stats.py",
                &format!("{}\n# edited\n", t.read("ref/stats.py")),
            );
        }),
        ("an oracle's reference file deleted", |t| {
            fs::remove_file(t.path("ref/stats.py")).unwrap();
        }),
        (
            "a spec edited in place to the same size, mtime set back",
            |t| {
                let rel = "csvstats/sum.tr";
                let meta = fs::metadata(t.path(rel)).unwrap();
                let text = t.read(rel).replacen("floats", "FLOATS", 1);
                fs::write(t.path(rel), text).unwrap();
                t.set_mtime(rel, meta.modified().unwrap());
            },
        ),
    ];
    for (what, change) in changes {
        let tree = tree_with_findings();
        for args in [&["status", "--json"][..], &["check", "--format", "json"]] {
            until_replayed(&tree, args);
        }
        change(&tree);
        for args in [&["status", "--json"][..], &["check", "--format", "json"]] {
            let after = run(&tree, args);
            assert!(!after.3, "{what}: {args:?} was replayed");
            let expected = computed(&tree, args);
            assert_eq!((after.0, after.1, after.2), expected, "{what}: {args:?}");
        }
    }
}

#[test]
fn a_run_that_warned_is_not_kept_so_the_warning_is_given_again() {
    let tree = tree_with_findings();
    // An oracle naming a file outside the root is not read, with a warning.
    let lock = tree.read("csvstats/median.lock");
    assert!(lock.contains("ref/stats.py"), "{lock}");
    tree.write(
        "csvstats/median.lock",
        &lock.replace("ref/stats.py", "../outside.py"),
    );
    tree.age();
    for _ in 0..2 {
        let (_, _, err, replayed) = run(&tree, &["status"]);
        assert!(!replayed);
        assert!(err.contains("outside the root"), "{err}");
    }
    assert!(replays(&tree).is_empty(), "{:?}", replays(&tree));
}

#[test]
fn an_error_is_given_again_not_replayed() {
    let tree = tree_with_findings();
    tree.write("csvstats/sum.lock", "{ not json\n");
    tree.age();
    for args in [&["status"][..], &["check"]] {
        let expected = computed(&tree, args);
        assert!(expected.2.contains("csvstats/sum.lock"), "{expected:?}");
        assert_eq!(expected.0, Some(2), "{args:?}: {expected:?}");
        for _ in 0..2 {
            let got = run(&tree, args);
            assert!(!got.3, "{args:?}");
            assert_eq!((got.0, got.1, got.2), expected, "{args:?}");
        }
    }
    assert!(replays(&tree).is_empty(), "{:?}", replays(&tree));
}

#[test]
fn an_mtime_newer_than_the_replay_never_matches() {
    let tree = tree_with_findings();
    until_replayed(&tree, &["status"]);
    // A file whose mtime is not older than the replay: it may have changed since it was
    // read without its stat moving.
    let replay = &replays(&tree)[0];
    let written = fs::metadata(replay).unwrap().modified().unwrap();
    tree.set_mtime("csvstats/sum.tr", written + Duration::from_secs(60));
    let after = run(&tree, &["status"]);
    assert!(!after.3);
    assert_eq!(after.1, computed(&tree, &["status"]).1);
    // Nor once that run is kept: the mtime is still not older than any replay written.
    for _ in 0..2 {
        let again = run(&tree, &["status"]);
        assert!(!again.3);
        assert_eq!(again.1, after.1);
    }
}

#[test]
fn the_directory_a_run_is_made_in_is_part_of_its_command_line() {
    let tree = tree_with_findings();
    let args = ["check", "--require", "verified", "--format", "github"];
    until_replayed(&tree, &args);
    // From the directory above the root, the annotations' paths start with the root's name.
    let above = tree.dir.path().parent().unwrap();
    let root = tree.dir.path().to_str().unwrap();
    let from_above = |extra: &[&str]| {
        let out = tree
            .soil_lock()
            .current_dir(above)
            .env("LOCKGRAPH_LOG", "info")
            .args(extra)
            .args(["--root", root])
            .args(args)
            .output()
            .unwrap();
        let (_, stdout, _, replayed) = common::replay_run(out);
        (stdout, replayed)
    };
    common::assert_replayed_apart(from_above, &run(&tree, &args).1);
}

#[test]
fn a_damaged_or_foreign_replay_is_ignored_and_written_over() {
    let tree = tree_with_findings();
    let args = ["status", "--json"];
    let expected = computed(&tree, &args);
    until_replayed(&tree, &args);
    let replay = replays(&tree).remove(0);
    let good = fs::read(&replay).unwrap();
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("truncated", good[..good.len() / 2].to_vec()),
        ("its last byte flipped", {
            let mut b = good.clone();
            *b.last_mut().unwrap() ^= 1;
            b
        }),
        ("a byte of the output flipped", {
            let mut b = good.clone();
            b[20] ^= 0x20;
            b
        }),
    ];
    cases.push(("not a replay", b"{\"defs\": []}\n".to_vec()));
    for (what, bytes) in cases {
        fs::write(&replay, &bytes).unwrap();
        // Written over: with a stub, then with the output.
        for _ in 0..2 {
            let got = run(&tree, &args);
            assert!(!got.3, "{what}");
            assert_eq!((got.0, got.1, got.2), expected.clone(), "{what}");
        }
        assert_eq!(fs::read(&replay).unwrap(), good, "{what}: written over");
    }
}

#[test]
fn at_most_eight_command_lines_are_kept() {
    let tree = tree_with_findings();
    let defs = [
        "csvstats/sum",
        "csvstats/mean",
        "csvstats/median",
        "csvstats/variance",
        "text/words",
        "text/trim",
        "text/word_count",
        "parity/is_even",
        "parity/is_odd",
        "csvstats/row",
    ];
    for def in defs {
        run(&tree, &["status", def]);
        assert!(replays(&tree).len() <= 8, "{:?}", replays(&tree));
    }
    assert_eq!(replays(&tree).len(), 8);
    // The newest are the ones kept: the last one's stub, whose output the next run keeps.
    run(&tree, &["status", "csvstats/row"]);
    assert!(run(&tree, &["status", "csvstats/row"]).3);
}

#[test]
fn an_edit_before_every_run_keeps_only_stubs() {
    let tree = tree_with_findings();
    let args = ["status", "--json"];
    for i in 0..4 {
        let spec = tree.read("csvstats/sum.tr");
        tree.write(
            "csvstats/sum.tr",
            &format!(
                "{spec}
Edit {i}.
"
            ),
        );
        tree.wait_past_its_timestamps();
        let got = run(&tree, &args);
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
