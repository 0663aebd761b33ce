//! The caches in `.lockgraph/` are pure accelerators: output with and without them is
//! byte-identical, and a broken cache is moved aside and rebuilt, never trusted.

mod common;

use common::Tree;
use std::fs;
use std::time::{Duration, SystemTime};

const UVOD: &str = "content/talks/uvod.md";

/// A run through the caches: the replays, which would print a kept output without
/// them, are forgotten first (`tests/copy_replay.rs` tests those).
fn run(tree: &Tree, args: &[&str]) -> (Option<i32>, String, String) {
    tree.forget_replays();
    let out = tree.copy_audit().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn cold_warm_and_uncached_runs_print_the_same_bytes() {
    let tree = Tree::copy_of("copy");
    for format in ["json", "human", "github"] {
        let args = ["--format", format];
        let cold = run(&tree, &args);
        assert!(!shards(&tree).is_empty(), "cache written");
        assert!(
            tree.path(".lockgraph/stat-index.v1").exists(),
            "stat index written"
        );
        let warm = run(&tree, &args);
        let uncached = run(&tree, &["--format", format, "--no-cache"]);
        assert_eq!(cold, warm, "{format}: warm run differs");
        assert_eq!(cold, uncached, "{format}: --no-cache differs");
    }
    let unsegmented = run(&tree, &["--list-unsegmented", "--json"]);
    assert_eq!(
        unsegmented,
        run(&tree, &["--list-unsegmented", "--json", "--no-cache"])
    );
}

#[test]
fn an_edit_is_seen_through_the_cache() {
    let tree = Tree::copy_of("copy");
    let units = |out: &str| {
        let r = common::json(out.as_bytes());
        r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["ruleId"] == "cs-R4-number-unit" && f["relativePath"] == UVOD)
            .count()
    };
    assert_eq!(units(&run(&tree, &["--json"]).1), 2, "50Kč and 20%");
    let text = tree
        .read(UVOD)
        .replace("Vstupné je 50Kč", "Vstupné je 50 Kč");
    tree.write(UVOD, &text);
    let warm = run(&tree, &["--json"]);
    assert_eq!(warm, run(&tree, &["--json", "--no-cache"]));
    assert_eq!(
        units(&warm.1),
        1,
        "the fixed unit is gone from the warm run"
    );
}

#[test]
fn a_same_stat_edit_with_a_racy_timestamp_is_reread() {
    let tree = Tree::copy_of("copy");
    let path = tree.path(UVOD);
    let set_mtime = |t: SystemTime| tree.set_mtime(UVOD, t);
    // The file's mtime is not older than the index written by this run: git's "racily
    // clean" case, where size, mtime and inode cannot prove the next edit happened.
    let stamp = SystemTime::now() + Duration::from_secs(3600);
    set_mtime(stamp);
    let before = run(&tree, &["--json"]);
    // Same size, same inode, same mtime, different bytes: only the racy rule catches it.
    let text = tree.read(UVOD).replace("50Kč", "50 Kc");
    assert_eq!(text.len(), tree.read(UVOD).len(), "same size");
    fs::write(&path, &text).unwrap();
    set_mtime(stamp);
    let after = run(&tree, &["--json"]);
    assert_ne!(before.1, after.1, "the edit is seen");
    assert_eq!(after, run(&tree, &["--json", "--no-cache"]));
}

#[test]
fn corrupt_truncated_and_foreign_caches_are_moved_aside_and_rebuilt() {
    let tree = Tree::copy_of("copy");
    let expected = run(&tree, &["--json", "--no-cache"]);
    run(&tree, &["--json"]);
    let shard = shards(&tree)[0].clone();
    let shard = shard.strip_prefix(tree.path("")).unwrap().to_string_lossy();
    // A findings shard is decoded whole; the stat index and the lockfile summary entry by
    // entry as they are joined with the files.
    let joined = [".lockgraph/stat-index.v1", ".lockgraph/lock-summary.v1"];
    for file in [shard.as_ref()].into_iter().chain(joined) {
        let good = fs::read(tree.path(file)).unwrap();
        // Another engine's file is rebuilt without a word and nothing is set aside.
        fs::write(tree.path(file), common::foreign_cache("0.0.0-other")).unwrap();
        let (code, stdout, stderr) = run(&tree, &["--json"]);
        assert_eq!(
            (code, &stdout),
            (expected.0, &expected.1),
            "{file}: foreign"
        );
        assert!(!stderr.contains(".lockgraph"), "{file}: foreign: {stderr}");
        assert!(
            !tree.path(&format!("{file}.bad")).exists(),
            "{file}: foreign"
        );
        for (what, bytes, says) in common::damaged(&good) {
            let what = format!("{file}: {what}");
            fs::write(tree.path(file), &bytes).unwrap();
            let (code, stdout, stderr) = run(&tree, &["--json"]);
            assert_eq!((code, &stdout), (expected.0, &expected.1), "{what}");
            common::assert_one_warning_moved_aside(&stderr, says, &what);
            let aside = tree.path(&format!("{file}.bad"));
            assert_eq!(fs::read(aside).unwrap(), bytes, "{what}");
            // Rebuilt: the next run is quiet and identical.
            let (code, stdout, stderr) = run(&tree, &["--json"]);
            assert_eq!((code, stdout), (expected.0, expected.1.clone()), "{what}");
            assert!(!stderr.contains(".lockgraph"), "{what}: {stderr}");
        }
    }
}

/// Single bit flips anywhere in a cache file (issue 19: 118 of 600 were once served as
/// results): every one is caught by the checksum, moved aside, and the run's output is
/// the uncached one.
#[test]
fn every_flipped_bit_in_a_cache_file_is_caught() {
    let tree = Tree::copy_of("copy");
    let expected = run(&tree, &["--json", "--no-cache"]);
    run(&tree, &["--json"]);
    for file in [".lockgraph/stat-index.v1", ".lockgraph/lock-summary.v1"] {
        let good = fs::read(tree.path(file)).unwrap();
        let step = (good.len() / 40).max(1);
        for at in (0..good.len()).step_by(step) {
            let what = format!("{file}: bit flipped at byte {at}");
            fs::write(tree.path(file), common::flipped(&good, at)).unwrap();
            let (code, stdout, _) = run(&tree, &["--json"]);
            assert_eq!((code, &stdout), (expected.0, &expected.1), "{what}");
            // Rebuilt, then put back for the next flip.
            fs::write(tree.path(file), &good).unwrap();
        }
    }
}

#[test]
fn no_cache_writes_nothing() {
    let tree = Tree::copy_of("copy");
    run(&tree, &["--json", "--no-cache"]);
    assert!(shards(&tree).is_empty());
    assert!(!tree.path(".lockgraph/stat-index.v1").exists());
}

#[test]
fn identical_files_share_one_cached_report() {
    let tree = Tree::copy_of("copy");
    let text = tree.read(UVOD);
    tree.write("content/talks/kopie.md", &text);
    tree.write("content/talks/kopie2.md", &text);
    let cold = run(&tree, &["--json"]);
    let warm = run(&tree, &["--json"]);
    assert_eq!(cold, warm);
    assert_eq!(warm, run(&tree, &["--json", "--no-cache"]));
    assert_eq!(
        warm.1.matches("content/talks/kopie2.md").count(),
        warm.1.matches("content/talks/kopie.md").count()
    );
}

/// A small tree's findings fit one shard, written under a recorded layout; a cache whose
/// layout is lost (or one of the layout before layouts were recorded: `00.v1` … `ff.v1`)
/// is written anew and the old files removed, the output unchanged throughout.
#[test]
fn the_findings_shards_are_as_many_as_the_tree_needs() {
    let tree = Tree::copy_of("copy");
    let cold = run(&tree, &["--json"]);
    let names = |tree: &Tree| -> Vec<String> {
        shards(tree)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(names(&tree), ["b0-00.v1"], "one shard for a few files");
    assert!(tree.path(".lockgraph/findings-layout.v1").exists());
    let written = |tree: &Tree| fs::metadata(&shards(tree)[0]).unwrap().modified().unwrap();
    let before = written(&tree);
    assert_eq!(run(&tree, &["--json"]), cold, "warm");
    assert_eq!(
        written(&tree),
        before,
        "a warm run is served and writes nothing"
    );
    fs::remove_file(tree.path(".lockgraph/findings-layout.v1")).unwrap();
    fs::write(tree.path(".lockgraph/findings/3f.v1"), b"an older layout").unwrap();
    assert_eq!(run(&tree, &["--json"]), cold, "layout lost");
    assert_eq!(names(&tree), ["b0-00.v1"], "the old files removed");
    assert!(tree.path(".lockgraph/findings-layout.v1").exists());
    assert_eq!(run(&tree, &["--json"]), cold, "warm again");
}

/// The findings cache's shard files.
fn shards(tree: &Tree) -> Vec<std::path::PathBuf> {
    tree.cache_files(".lockgraph/findings")
}

#[test]
fn a_changed_lockfile_is_always_read_again() {
    let tree = Tree::copy_of("copy");
    let lock = ".copy-editor.lock.json";
    let before = run(&tree, &["--json", "--require-reviewed"]);
    assert!(tree.path(".lockgraph/lock-summary.v1").exists());
    // Broken after the summary was written: the summary must not vouch for it.
    let original = tree.read(lock);
    tree.write(
        lock,
        &original.replacen("\"schemaVersion\": 1", "\"schemaVersion\": 2", 1),
    );
    let (code, _, stderr) = run(&tree, &["--json"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("schemaVersion 2"), "{stderr}");
    // A review recorded through the CLI shows up in the next warm run.
    tree.write(lock, &original);
    tree.copy_audit()
        .args([
            "lockfile",
            "mark-reviewed",
            "content/agenda.json",
            "--by",
            "eva",
        ])
        .assert()
        .success();
    let after = run(&tree, &["--json", "--require-reviewed"]);
    assert_ne!(before.1, after.1);
    assert!(
        !after
            .1
            .contains("\"unreviewed\": [\n      \"content/agenda.json\""),
        "{}",
        after.1
    );
    assert_eq!(
        after,
        run(&tree, &["--json", "--require-reviewed", "--no-cache"])
    );
}

/// Moves a file's mtime a minute into the past, out of reach of the racy-timestamp rule.
fn age(tree: &Tree, rel: &str) {
    tree.set_mtime(rel, SystemTime::now() - Duration::from_secs(60));
}

fn audit_with_timings(tree: &Tree) -> (String, String) {
    tree.forget_replays();
    let out = tree
        .copy_audit()
        .env("LOCKGRAPH_LOG", "info")
        .arg("--json")
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The number of files a run read, from its timings.
fn files_read(timings: &str) -> usize {
    counted(timings, "files read")
}

/// A count a run's timings give (`timing: <what>  <n>`).
fn counted(timings: &str, what: &str) -> usize {
    let line = timings
        .lines()
        .find(|l| l.starts_with(&format!("timing: {what}")))
        .unwrap_or_else(|| panic!("no count of {what}: {timings}"));
    line.split_whitespace().last().unwrap().parse().unwrap()
}

/// A cold run takes no stat in its walk (there is no index to compare one with): the stat
/// index it writes holds the stats of the files as they were opened, and those vouch for
/// every unchanged file in the next run, which reads none of them — and reads again the
/// one edited since.
#[test]
fn the_stat_index_a_cold_run_writes_spares_the_next_run_every_read() {
    let tree = Tree::copy_of("copy");
    for rel in [
        "content/talks/uvod.md",
        "content/agenda.json",
        "content/guide/setup.en.md",
    ] {
        age(&tree, rel);
    }
    let (cold_out, cold) = audit_with_timings(&tree);
    assert!(files_read(&cold) >= 3, "{cold}");
    let (warm_out, warm) = audit_with_timings(&tree);
    assert_eq!(files_read(&warm), 0, "{warm}");
    assert_eq!(cold_out, warm_out);
    tree.write(
        UVOD,
        &tree
            .read(UVOD)
            .replace("Vstupné je 50Kč", "Vstupné je 50 Kč"),
    );
    age(&tree, UVOD);
    let (_, edited) = audit_with_timings(&tree);
    assert_eq!(files_read(&edited), 1, "{edited}");
}

#[test]
fn the_lockfile_is_read_only_when_an_entry_is_needed() {
    let tree = Tree::copy_of("copy");
    age(&tree, ".copy-editor.lock.json");
    let (_, cold) = audit_with_timings(&tree);
    assert!(
        cold.contains("read lockfile"),
        "the cold run parses it: {cold}"
    );

    // An edited file's entry is stale, and a stale entry's spans are never used: the
    // summary says so without the lockfile.
    let edit = |from: &str, to: &str| tree.write(UVOD, &tree.read(UVOD).replace(from, to));
    edit("Vstupné je 50Kč", "Vstupné je 50 Kč");
    let (out, err) = audit_with_timings(&tree);
    assert!(
        !err.contains("read lockfile"),
        "one edit parsed the lockfile: {err}"
    );
    assert_eq!(out, run(&tree, &["--json", "--no-cache"]).1);

    // Fresh files whose findings are not cached need their entries: the lockfile is read
    // whole, once, and the report is the uncached one.
    edit("Vstupné je 50 Kč", "Vstupné je 50Kč");
    fs::remove_dir_all(tree.path(".lockgraph/findings")).unwrap();
    let (out, err) = audit_with_timings(&tree);
    assert_eq!(err.matches("read lockfile").count(), 1, "{err}");
    assert!(!err.contains("warning"), "{err}");
    assert_eq!(out, run(&tree, &["--json", "--no-cache"]).1);
    let edit = |from: &str, to: &str| tree.write(UVOD, &tree.read(UVOD).replace(from, to));
    edit("Vstupné je 50Kč", "Vstupné je 60Kč");

    // A damaged summary is moved aside and the lockfile parsed; the next edit needs no
    // parse again.
    fs::write(
        tree.path(".lockgraph/lock-summary.v1"),
        b"LGC2 not postcard",
    )
    .unwrap();
    edit("Vstupné je 60Kč", "Vstupné je 70Kč");
    let (out, err) = audit_with_timings(&tree);
    assert!(err.contains("moved aside"), "{err}");
    assert!(err.contains("read lockfile"), "{err}");
    assert_eq!(out, run(&tree, &["--json", "--no-cache"]).1);
    edit("Vstupné je 70Kč", "Vstupné je 80Kč");
    let (out, err) = audit_with_timings(&tree);
    assert!(
        !err.contains("read lockfile"),
        "the summary was not rebuilt: {err}"
    );
    assert!(!err.contains("warning"), "{err}");
    assert_eq!(out, run(&tree, &["--json", "--no-cache"]).1);
}

/// The number of reports a run computed (not taken from a cache), from its timings.
fn reports_computed(timings: &str) -> usize {
    counted(timings, "reports computed")
}

/// An edit rewrites its findings shard: the reports the run took from that shard go back
/// into it as they were, and the edited file's earlier report stays beside the new one,
/// so undoing the edit computes nothing either.
#[test]
fn a_rewritten_shard_keeps_the_reports_taken_from_it_and_the_earlier_ones() {
    let tree = Tree::copy_of("copy");
    let all: Vec<String> = fs::read_dir(tree.path("content/talks"))
        .unwrap()
        .map(|e| format!("content/talks/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    for rel in &all {
        age(&tree, rel);
    }
    let (first, cold) = audit_with_timings(&tree);
    assert!(reports_computed(&cold) > 1, "{cold}");
    let original = tree.read(UVOD);
    tree.write(UVOD, &format!("{original}\nDoplněná věta.\n"));
    age(&tree, UVOD);
    let (_, edited) = audit_with_timings(&tree);
    assert_eq!(reports_computed(&edited), 1, "{edited}");
    let (_, warm) = audit_with_timings(&tree);
    assert_eq!(reports_computed(&warm), 0, "every report kept: {warm}");
    tree.write(UVOD, &original);
    age(&tree, UVOD);
    let (undone, undo) = audit_with_timings(&tree);
    assert_eq!(files_read(&undo), 1, "{undo}");
    assert_eq!(
        reports_computed(&undo),
        0,
        "the earlier report kept: {undo}"
    );
    assert_eq!(undone, first);
    let uncached = run(&tree, &["--json", "--no-cache"]).1;
    assert_eq!(undone, uncached);
}
