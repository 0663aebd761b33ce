//! soil-lock's cache in `.lockgraph/soil/` is a pure accelerator: every command prints the
//! same bytes cold, warm and with `--no-cache`; an edit is always seen (also one that keeps
//! size, mtime and inode, if its mtime is racy); a broken cache is moved aside and rebuilt,
//! never trusted; and a run that learnt nothing writes nothing.

mod common;

use common::Tree;
use std::fs;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

const SUM_TR: &str = "csvstats/sum.tr";
const SUM_LOCK: &str = "csvstats/sum.lock";

/// Exit code, stdout, stderr.
type Run = (Option<i32>, String, String);

fn run(tree: &Tree, args: &[&str]) -> Run {
    let out = tree.soil_lock().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn uncached(tree: &Tree, args: &[&str]) -> Run {
    let mut with = vec!["--no-cache"];
    with.extend_from_slice(args);
    run(tree, &with)
}

/// The cache's files, sorted.
fn cache_files(tree: &Tree) -> Vec<PathBuf> {
    tree.cache_files(".lockgraph/soil")
}

/// What changes when a file is replaced: a rewrite goes through a new inode.
fn identities(tree: &Tree) -> Vec<(PathBuf, u64, SystemTime)> {
    use std::os::unix::fs::MetadataExt;
    cache_files(tree)
        .into_iter()
        .map(|p| {
            let m = fs::metadata(&p).unwrap();
            (p, m.ino(), m.modified().unwrap())
        })
        .collect()
}

/// The shard holding `csvstats/sum`: the one file whose entries mention it.
fn shard_of_sum(tree: &Tree) -> PathBuf {
    cache_files(tree)
        .into_iter()
        .find(|p| {
            let bytes = fs::read(p).unwrap();
            bytes.windows(12).any(|w| w == b"csvstats/sum")
        })
        .expect("a shard holds csvstats/sum")
}

/// Overwrites `rel` in place (same inode) with `text`, which must have the same length.
fn overwrite_same_size(tree: &Tree, rel: &str, text: &str) {
    assert_eq!(text.len(), tree.read(rel).len(), "same size");
    fs::write(tree.path(rel), text).unwrap();
}

const COMMANDS: &[&[&str]] = &[
    &["status", "--json"],
    &["status"],
    &["check"],
    &["check", "--require", "verified", "--exported"],
    &["check", "--require", "tested", "--tag", "stats"],
    &["graph"],
    &["graph", "--format", "json"],
    &["graph", "--format", "mermaid"],
    &["manifest", "--check"],
    &["impact", "csvstats/sum", "--change", "soil", "--json"],
    &["impact", "ref/stats.py"],
    &["why", "csvstats/median", "--json"],
];

#[test]
fn cold_warm_and_uncached_runs_print_the_same_bytes() {
    let tree = Tree::copy_of("soil");
    // Something to report in every command: a stale callee and a spec error.
    let lock = tree.read(SUM_LOCK);
    let at = lock.find("\"soil_hash\": \"sha256:").unwrap() + "\"soil_hash\": \"sha256:".len();
    let mut edited = lock.clone();
    edited.replace_range(at..at + 4, "beef");
    tree.write(SUM_LOCK, &edited);
    tree.write("text/broken.tr", "no front matter\n");
    for args in COMMANDS {
        fs::remove_dir_all(tree.path(".lockgraph")).ok();
        let cold = run(&tree, args);
        assert!(!cache_files(&tree).is_empty(), "{args:?}: cache written");
        let warm = run(&tree, args);
        assert_eq!(cold, warm, "{args:?}: warm run differs");
        assert_eq!(cold, uncached(&tree, args), "{args:?}: --no-cache differs");
        assert!(!cold.2.contains(".lockgraph"), "{args:?}: {}", cold.2);
    }
}

#[test]
fn refresh_and_manifest_write_the_same_files_through_a_warm_cache() {
    let (cached, plain) = (Tree::copy_of("soil"), Tree::copy_of("soil"));
    for tree in [&cached, &plain] {
        tree.write(
            SUM_TR,
            &tree
                .read(SUM_TR)
                .replace("Adds the floats", "Adds up the floats"),
        );
        fs::remove_file(tree.path("text/trim.lock")).unwrap();
    }
    run(&cached, &["status"]);
    assert_eq!(run(&cached, &["refresh"]), uncached(&plain, &["refresh"]));
    assert_eq!(run(&cached, &["manifest"]), uncached(&plain, &["manifest"]));
    for file in [SUM_LOCK, "text/trim.lock", "soil.lock"] {
        assert_eq!(cached.read(file), plain.read(file), "{file}");
    }
    // The sidecars refresh rewrote are read again by the next warm run.
    assert_eq!(run(&cached, &["status"]), uncached(&plain, &["status"]));
    assert_eq!(run(&cached, &["manifest", "--check"]).0, Some(0));
}

#[test]
fn a_warm_run_with_nothing_changed_writes_nothing() {
    let tree = Tree::copy_of("soil");
    tree.wait_past_its_timestamps();
    // The first two runs of each command line keep a stub, then the output, for replay.
    for _ in 0..2 {
        run(&tree, &["status"]);
        run(&tree, &["check"]);
    }
    let before = identities(&tree);
    assert!(before.len() > 1, "shards and the externals: {before:?}");
    assert!(
        tree.path(".lockgraph/soil/externals.v1").exists(),
        "the oracles' files are kept too"
    );
    run(&tree, &["status"]);
    run(&tree, &["check"]);
    run(&tree, &["graph"]);
    assert_eq!(identities(&tree), before);
    // And through the cache itself, without the replays.
    tree.forget_replays();
    let before = identities(&tree);
    run(&tree, &["graph"]);
    assert_eq!(identities(&tree), before);
}

/// How many files a run parsed (`LOCKGRAPH_LOG=info`), and its stdout.
fn parsed(tree: &Tree, args: &[&str]) -> (usize, String) {
    let (out, stderr) = tree.soil_lock_logged(args);
    let n = stderr
        .lines()
        .find_map(|l| l.strip_prefix("timing: files parsed "))
        .unwrap_or_else(|| panic!("no count in {stderr}"));
    (
        n.trim().parse().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// The definitions' files of the tree, root-relative: every `.tr`, `.lock` and `.soil` but
/// the manifest and the modules' `_private.soil`.
fn definition_files(tree: &Tree) -> Vec<String> {
    fn walk(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.starts_with('.') {
                    walk(&path, root, out);
                }
            } else if name != "soil.lock"
                && name != "_private.soil"
                && [".tr", ".lock", ".soil"].iter().any(|e| name.ends_with(e))
            {
                out.push(path.strip_prefix(root).unwrap().to_string_lossy().into());
            }
        }
    }
    let mut out = Vec::new();
    walk(tree.dir.path(), tree.dir.path(), &mut out);
    out
}

#[test]
fn a_cold_run_parses_every_file_once_a_warm_run_none_and_an_edit_its_own() {
    let tree = Tree::copy_of("soil");
    let files = definition_files(&tree);
    assert!(files.len() > 10, "{files:?}");
    // Old enough that no stat is racy against the cache written next.
    let old = SystemTime::now() - Duration::from_secs(3600);
    for rel in &files {
        tree.set_mtime(rel, old);
    }
    let (uncached, expected) = parsed(&tree, &["--no-cache", "status", "--json"]);
    assert_eq!(uncached, files.len());
    // The first run has no cache to look in (its walk takes no stats) and saves one.
    assert_eq!(
        parsed(&tree, &["status", "--json"]),
        (files.len(), expected.clone())
    );
    // A warm run through the cache (its output not kept for replay).
    tree.forget_replays();
    assert_eq!(parsed(&tree, &["status", "--json"]), (0, expected));
    tree.write(SUM_TR, &format!("{}\nMore prose.\n", tree.read(SUM_TR)));
    let (edited, out) = parsed(&tree, &["status", "--json"]);
    assert_eq!(edited, 1);
    assert_eq!(out, uncached_json(&tree));
}

fn uncached_json(tree: &Tree) -> String {
    uncached(tree, &["status", "--json"]).1
}

#[test]
fn edits_to_a_spec_and_a_sidecar_are_seen_and_rewrite_one_shard() {
    let tree = Tree::copy_of("soil");
    tree.wait_past_its_timestamps();
    run(&tree, &["status", "--json"]);
    let before = identities(&tree);
    let sum_shard = shard_of_sum(&tree);

    tree.write(
        SUM_TR,
        &tree
            .read(SUM_TR)
            .replace("Adds the floats", "Adds up the floats"),
    );
    let warm = run(&tree, &["status", "--json"]);
    assert_eq!(warm, uncached(&tree, &["status", "--json"]));
    let sum = &common::json(warm.1.as_bytes())["defs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["path"] == "csvstats/sum")
        .unwrap()
        .clone();
    assert_eq!(sum["flags"], serde_json::json!(["prose-stale"]));
    let after = identities(&tree);
    let rewritten: Vec<_> = before
        .iter()
        .zip(&after)
        .filter(|(a, b)| {
            a != b
                && !a
                    .0
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("replay-")
        })
        .map(|(a, _)| a.0.clone())
        .collect();
    assert_eq!(rewritten, [sum_shard], "only the edited definition's shard");

    tree.write(
        SUM_LOCK,
        &tree
            .read(SUM_LOCK)
            .replace("\"accepted\": true", "\"accepted\": false"),
    );
    let warm = run(&tree, &["status"]);
    assert_eq!(warm, uncached(&tree, &["status"]));
    let line = warm
        .1
        .lines()
        .find(|l| l.starts_with("csvstats/sum "))
        .unwrap();
    assert!(!line.contains("accepted"), "{line}");
}

#[test]
fn new_and_deleted_definitions_are_seen() {
    let tree = Tree::copy_of("soil");
    run(&tree, &["status"]);
    fs::remove_file(tree.path("text/trim.tr")).unwrap();
    fs::remove_file(tree.path("text/trim.lock")).unwrap();
    tree.write(
        "text/upper.tr",
        &tree.read("text/words.tr").replace("words", "upper"),
    );
    let warm = run(&tree, &["status"]);
    assert_eq!(warm, uncached(&tree, &["status"]));
    assert!(!warm.1.contains("text/trim"), "{}", warm.1);
    assert!(warm.1.contains("text/upper"), "{}", warm.1);
    // The gone definition's entry is dropped: nothing keeps a stale entry alive.
    let kept = cache_files(&tree)
        .iter()
        .any(|p| fs::read(p).unwrap().windows(9).any(|w| w == b"text/trim"));
    assert!(!kept);
    assert_eq!(run(&tree, &["status"]), warm);
}

#[test]
fn an_edited_reference_file_is_seen() {
    let tree = Tree::copy_of("soil");
    assert_eq!(run(&tree, &["check"]).0, Some(0));
    tree.write(
        "ref/stats.py",
        &format!("{}\n# edited\n", tree.read("ref/stats.py")),
    );
    let warm = run(&tree, &["why", "csvstats/median"]);
    assert_eq!(warm, uncached(&tree, &["why", "csvstats/median"]));
    assert!(warm.1.contains("stale-oracle"), "{}", warm.1);
}

#[test]
fn a_same_stat_edit_with_a_racy_timestamp_is_reread() {
    let tree = Tree::copy_of("soil");
    // The spec's mtime is not older than the cache this run writes: git's "racily clean"
    // case, where size, mtime and inode cannot prove that a later edit did not happen.
    let stamp = SystemTime::now() + Duration::from_secs(3600);
    tree.set_mtime(SUM_TR, stamp);
    let before = run(&tree, &["status", "--json"]);
    // Same size, same inode, same mtime, different bytes: only the racy rule catches it.
    overwrite_same_size(&tree, SUM_TR, &tree.read(SUM_TR).replace("Adds", "Sums"));
    tree.set_mtime(SUM_TR, stamp);
    let after = run(&tree, &["status", "--json"]);
    assert_ne!(before.1, after.1, "the edit is seen");
    assert_eq!(after, uncached(&tree, &["status", "--json"]));
    // A rewrite could not settle an mtime in the future, so nothing was written for it
    // (nor kept for replay, which that mtime would never let match).
    let shard = identities(&tree);
    run(&tree, &["status", "--json"]);
    assert_eq!(identities(&tree), shard);
}

#[test]
fn an_edit_that_restores_size_inode_and_an_old_mtime_is_still_seen() {
    // The stat compared includes the ctime, which no user can set back: restoring size,
    // inode and an mtime older than the cache (as `rsync -t` or `touch -d` leave a file)
    // does not hide an edit. (That a warm run reads nothing unchanged is shown by its
    // shards staying untouched: `a_warm_run_with_nothing_changed_writes_nothing`.)
    let tree = Tree::copy_of("soil");
    let old = SystemTime::now() - Duration::from_secs(3600);
    tree.set_mtime(SUM_LOCK, old);
    run(&tree, &["status"]);
    let edited = tree
        .read(SUM_LOCK)
        .replace("\"accepted\": true", "\"accepted\": tru_");
    overwrite_same_size(&tree, SUM_LOCK, &edited);
    tree.set_mtime(SUM_LOCK, old);
    let warm = run(&tree, &["status"]);
    assert_eq!(warm.0, Some(2), "the broken sidecar is read and refused");
    assert_eq!(warm, uncached(&tree, &["status"]));
}

#[test]
fn corrupt_and_truncated_shards_are_moved_aside_with_one_warning() {
    let tree = Tree::copy_of("soil");
    let expected = uncached(&tree, &["status", "--json"]);
    run(&tree, &["status", "--json"]);
    let shard = shard_of_sum(&tree);
    let name = shard.file_name().unwrap().to_string_lossy().into_owned();
    let good = fs::read(&shard).unwrap();
    let cases = common::damaged(&good);
    for (what, bytes, says) in cases {
        fs::write(&shard, &bytes).unwrap();
        // The shards are what is tested, not the output kept for replay.
        tree.forget_replays();
        let (code, stdout, stderr) = run(&tree, &["status", "--json"]);
        assert_eq!((code, &stdout), (expected.0, &expected.1), "{what}");
        common::assert_one_warning_moved_aside(&stderr, says, what);
        let aside = tree.path(&format!(".lockgraph/soil/{name}.bad"));
        assert_eq!(fs::read(aside).unwrap(), bytes, "{what}");
        // Rebuilt: the next run is quiet and identical.
        assert_eq!(run(&tree, &["status", "--json"]), expected, "{what}");
        assert_eq!(fs::read(&shard).unwrap(), good, "{what}: rebuilt as it was");
    }
}

#[test]
fn another_engines_shard_is_rebuilt_without_a_word() {
    let tree = Tree::copy_of("soil");
    let expected = uncached(&tree, &["status", "--json"]);
    run(&tree, &["status", "--json"]);
    let shard = shard_of_sum(&tree);
    let good = fs::read(&shard).unwrap();
    let mut foreign = b"LGC1".to_vec();
    let engine = "0.0.0+soil0 other-build";
    foreign.push(engine.len() as u8);
    foreign.extend(engine.as_bytes());
    foreign.push(0);
    fs::write(&shard, &foreign).unwrap();
    tree.forget_replays();
    assert_eq!(run(&tree, &["status", "--json"]), expected);
    assert_eq!(fs::read(&shard).unwrap(), good);
    let moved_aside = fs::read_dir(tree.path(".lockgraph/soil"))
        .unwrap()
        .any(|e| e.unwrap().path().extension().is_some_and(|x| x == "bad"));
    assert!(!moved_aside);
}

#[test]
fn no_cache_reads_and_writes_none() {
    let tree = Tree::copy_of("soil");
    uncached(&tree, &["status"]);
    assert!(!tree.path(".lockgraph").exists());
    // And a broken cache is not even looked at.
    run(&tree, &["status"]);
    let shard = shard_of_sum(&tree);
    fs::write(&shard, b"garbage").unwrap();
    let (_, _, stderr) = uncached(&tree, &["status"]);
    assert!(!stderr.contains(".lockgraph"), "{stderr}");
    assert_eq!(fs::read(&shard).unwrap(), b"garbage");
}
