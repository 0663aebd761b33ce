//! End-to-end tests of the `soil-lock` binary on private copies of `fixtures/soil`.
//!
//! The fixture root is consistent: every sidecar matches its spec, no flag is set and
//! `check` passes. `csvstats/mean`, `median`, `sort_by`, `split_line` and `sum` are
//! accepted; `median` calls `sort_by` and uses it as a `definition` oracle besides the
//! reference file `ref/stats.py`; `text/word_count` has the CLI oracle
//! `tools/count-words.sh`; `mean` and `variance` call `sum`, `summarize` calls `mean` and
//! `median`; `parity/is_even` and `parity/is_odd` call each other. Each test edits its own
//! copy the way a person or a tool would and asserts what `soil-lock` makes of it.

mod common;

use common::{Tree, json};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

const SUM: &str = "csvstats/sum";
const MEAN: &str = "csvstats/mean";
const MEDIAN: &str = "csvstats/median";
const SORT_BY: &str = "csvstats/sort_by";
const SUMMARIZE: &str = "csvstats/summarize";
const VARIANCE: &str = "csvstats/variance";
const IS_EVEN: &str = "parity/is_even";
const IS_ODD: &str = "parity/is_odd";
const WORD_COUNT: &str = "text/word_count";

/// Every definition of the fixture with its kind and derived status.
const PRISTINE: &[(&str, &str, &str)] = &[
    ("_project", "project", "unlowered"),
    ("csvstats/_module", "module", "unlowered"),
    ("csvstats/cell_count", "function", "tested"),
    ("csvstats/mean", "function", "tested"),
    ("csvstats/median", "function", "tested"),
    ("csvstats/parse_row", "function", "tested"),
    ("csvstats/row", "type", "verified"),
    ("csvstats/sort_by", "function", "verified"),
    ("csvstats/split_line", "function", "verified"),
    ("csvstats/sum", "function", "verified"),
    ("csvstats/summarize", "function", "partial"),
    ("csvstats/variance", "function", "tested"),
    ("parity/_module", "module", "unlowered"),
    ("parity/is_even", "function", "verified"),
    ("parity/is_odd", "function", "verified"),
    ("text/_module", "module", "unlowered"),
    ("text/trim", "function", "unlowered"),
    ("text/word_count", "function", "tested"),
    ("text/words", "function", "typed"),
];

const ACCEPTED: &[&str] = &[
    "csvstats/mean",
    "csvstats/median",
    "csvstats/sort_by",
    "csvstats/split_line",
    "csvstats/sum",
];

/// A hash no fixture file has, in the canonical form.
const OTHER_HASH: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// What a run printed and how it ended.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        json(self.stdout.as_bytes())
    }
}

/// Runs `soil-lock` in the tree's root. The timeout turns a hang (say, a cycle the graph
/// walk does not cut) into a failure instead of a stuck test run.
fn run(tree: &Tree, args: &[&str]) -> Run {
    let out = tree
        .soil_lock()
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    Run {
        code: out
            .status
            .code()
            .unwrap_or_else(|| panic!("soil-lock {args:?} was killed (timed out?)")),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// `run`, asserting the exit code.
fn run_ok(tree: &Tree, args: &[&str], code: i32) -> Run {
    let r = run(tree, args);
    assert_eq!(
        r.code, code,
        "soil-lock {args:?}\nstdout:\n{}\nstderr:\n{}",
        r.stdout, r.stderr
    );
    r
}

/// `status --json`, by definition path.
fn status_json(tree: &Tree) -> BTreeMap<String, Value> {
    let r = run_ok(tree, &["status", "--json"], 0);
    r.json()["defs"]
        .as_array()
        .expect("a `defs` array")
        .iter()
        .map(|d| (d["path"].as_str().unwrap().to_string(), d.clone()))
        .collect()
}

fn flags_of(status: &BTreeMap<String, Value>, path: &str) -> Vec<String> {
    status[path]["flags"]
        .as_array()
        .unwrap_or_else(|| panic!("{path} has flags"))
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect()
}

/// The listed definitions carry exactly these flags and every other definition none.
fn assert_flags(status: &BTreeMap<String, Value>, expected: &[(&str, &[&str])]) {
    let expected: BTreeMap<&str, &[&str]> = expected.iter().copied().collect();
    for path in status.keys() {
        let want: Vec<String> = expected
            .get(path.as_str())
            .map(|f| f.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default();
        assert_eq!(flags_of(status, path), want, "flags of {path}");
    }
    for path in expected.keys() {
        assert!(status.contains_key(*path), "{path} is listed");
    }
}

fn hash(status: &BTreeMap<String, Value>, path: &str, part: &str) -> String {
    status[path]["hashes"][part]
        .as_str()
        .unwrap_or_else(|| panic!("{path} has a {part} hash"))
        .to_string()
}

/// Replaces the one occurrence of `from` in a file of the tree.
fn edit(tree: &Tree, rel: &str, from: &str, to: &str) {
    let text = tree.read(rel);
    assert_eq!(
        text.matches(from).count(),
        1,
        "`{from}` occurs exactly once in {rel}"
    );
    tree.write(rel, &text.replacen(from, to, 1));
}

/// Every file under the tree with this extension, root-relative.
fn files_with(tree: &Tree, ext: &str) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, ext: &str, out: &mut Vec<String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, ext, out);
            } else if path.extension().is_some_and(|e| e == ext) {
                let rel = path.strip_prefix(root).unwrap().to_string_lossy();
                out.push(rel.replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(tree.dir.path(), tree.dir.path(), ext, &mut out);
    out.sort();
    out
}

/// Back-dates every sidecar, so that any write shows as a new mtime even on file systems
/// with a coarse clock.
fn age_sidecars(tree: &Tree) {
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    for rel in files_with(tree, "lock") {
        let file = fs::File::options()
            .write(true)
            .open(tree.path(&rel))
            .unwrap();
        file.set_modified(old).unwrap();
    }
}

type Snapshot = BTreeMap<String, (Vec<u8>, SystemTime)>;

/// Bytes and mtime of every sidecar.
fn sidecars(tree: &Tree) -> Snapshot {
    files_with(tree, "lock")
        .into_iter()
        .map(|rel| {
            let p = tree.path(&rel);
            let bytes = fs::read(&p).unwrap();
            let mtime = fs::metadata(&p).unwrap().modified().unwrap();
            (rel, (bytes, mtime))
        })
        .collect()
}

/// The sidecars created, removed or touched (bytes or mtime) between two snapshots.
fn touched(before: &Snapshot, after: &Snapshot) -> Vec<String> {
    let names: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    names
        .into_iter()
        .filter(|n| before.get(*n) != after.get(*n))
        .cloned()
        .collect()
}

/// Lines of `check` output as `(definition, code)`.
fn violations(out: &str) -> BTreeSet<(String, String)> {
    out.lines()
        .map(|l| {
            let mut parts = l.splitn(3, ": ");
            let def = parts.next().unwrap().to_string();
            let code = parts
                .next()
                .unwrap_or_else(|| panic!("`def: code: message` line: {l}"))
                .to_string();
            (def, code)
        })
        .collect()
}

fn v(def: &str, code: &str) -> (String, String) {
    (def.to_string(), code.to_string())
}

/// The definitions named by `impact --json`, with the kind of edge that reaches them
/// (`None` for the edited definition itself).
fn reached(r: &Run) -> BTreeSet<(String, Option<String>)> {
    r.json()["reached"]
        .as_array()
        .expect("a `reached` array")
        .iter()
        .map(|x| {
            (
                x["def"].as_str().unwrap().to_string(),
                x["via"]["kind"].as_str().map(str::to_string),
            )
        })
        .collect()
}

fn reach(def: &str, via: Option<&str>) -> (String, Option<String>) {
    (def.to_string(), via.map(str::to_string))
}

/// Each `why --json` chain as its `(def, flag, other)` steps.
fn why_chains(r: &Run) -> Vec<Vec<(String, String, Option<String>)>> {
    r.json()["chains"]
        .as_array()
        .expect("a `chains` array")
        .iter()
        .map(|chain| {
            chain
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    (
                        s["def"].as_str().unwrap().to_string(),
                        s["flag"].as_str().unwrap().to_string(),
                        s["other"].as_str().map(str::to_string),
                    )
                })
                .collect()
        })
        .collect()
}

fn step(def: &str, flag: &str, other: Option<&str>) -> (String, String, Option<String>) {
    (def.to_string(), flag.to_string(), other.map(str::to_string))
}

/// The 1-based line of the one line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    let lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(lines.len(), 1, "`{needle}` on exactly one line");
    lines[0]
}

// ---------------------------------------------------------------------------------------
// 1. The pristine root.

#[test]
fn pristine_root_has_the_listed_statuses_and_no_flags() {
    let tree = Tree::copy_of("soil");
    let status = status_json(&tree);
    let listed: Vec<&str> = status.keys().map(String::as_str).collect();
    let want: Vec<&str> = PRISTINE.iter().map(|(p, _, _)| *p).collect();
    assert_eq!(listed, want, "one row per definition, sorted by path");
    for (path, kind, ladder) in PRISTINE {
        let d = &status[*path];
        assert_eq!(d["kind"], *kind, "kind of {path}");
        assert_eq!(d["ladder"], *ladder, "ladder of {path}");
        // trellis's `status`: acceptance above every rung.
        let shown = if ACCEPTED.contains(path) {
            "accepted"
        } else {
            ladder
        };
        assert_eq!(d["status"], shown, "status of {path}");
        assert_eq!(d["accepted"], ACCEPTED.contains(path), "accepted of {path}");
        assert!(d.get("error").is_none(), "{path} reads: {d}");
        let formal = hash(&status, path, "formal");
        let prose = hash(&status, path, "prose");
        for h in [&formal, &prose] {
            assert!(h.starts_with("sha256:") && h.len() == 71, "{path}: {h}");
        }
        let test_hash = &d["hashes"]["test"];
        if matches!(*kind, "function") {
            assert!(test_hash.is_string(), "{path} has a test hash");
        } else {
            assert!(test_hash.is_null(), "{path} ({kind}) has no test hash");
        }
    }
    assert_flags(&status, &[]);
    // The hashes are those the sidecars recorded.
    let sum_lock = tree.read("csvstats/sum.lock");
    for part in ["formal", "test", "prose"] {
        assert!(sum_lock.contains(&hash(&status, SUM, part)), "{part}");
    }

    let check = run_ok(&tree, &["check"], 0);
    assert_eq!(check.stdout, "", "no violations");
    let human = run_ok(&tree, &["status"], 0);
    assert!(
        human.stdout.contains("csvstats/sort_by"),
        "{}",
        human.stdout
    );
}

#[test]
fn status_of_named_definitions_only() {
    let tree = Tree::copy_of("soil");
    let r = run_ok(&tree, &["status", "--json", SUM, "text/trim.tr"], 0);
    let paths: Vec<String> = r.json()["defs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(paths, [SUM, "text/trim"]);
    let r = run_ok(&tree, &["status", "csvstats/nope"], 2);
    assert!(r.stderr.contains("csvstats/nope"), "{}", r.stderr);
}

#[test]
fn manifest_check_fails_until_written_and_a_rewrite_touches_nothing() {
    let tree = Tree::copy_of("soil");
    let manifest = tree.path("soil.lock");
    assert!(!manifest.exists());
    let r = run_ok(&tree, &["manifest", "--check"], 1);
    assert!(r.stdout.contains("soil.lock"), "{}", r.stdout);
    assert!(!manifest.exists(), "--check writes nothing");

    run_ok(&tree, &["manifest"], 0);
    let m = json(&fs::read(&manifest).unwrap());
    assert_eq!(m["lock_format"], 1);
    let defs: Vec<&String> = m["definitions"].as_object().unwrap().keys().collect();
    assert_eq!(defs.len(), PRISTINE.len());
    assert!(defs.windows(2).all(|w| w[0] < w[1]), "sorted by path");
    assert_eq!(m["definitions"][MEDIAN]["name"], "median");
    let private = m["soil_private"].as_array().unwrap();
    assert!(
        private
            .iter()
            .any(|p| p["name"] == "csvstats/_middle" && p["owners"] == serde_json::json!([MEDIAN])),
        "{private:?}"
    );
    assert!(m["trusted_packages"]["prelude"].is_string());
    run_ok(&tree, &["manifest", "--check"], 0);

    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    fs::File::options()
        .write(true)
        .open(&manifest)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let before = fs::read(&manifest).unwrap();
    let r = run_ok(&tree, &["manifest"], 0);
    assert!(r.stderr.contains("unchanged"), "{}", r.stderr);
    assert_eq!(fs::read(&manifest).unwrap(), before);
    assert_eq!(fs::metadata(&manifest).unwrap().modified().unwrap(), old);

    // A sidecar edit puts the manifest out of date again; the manifest is no definition.
    edit(
        &tree,
        "csvstats/variance.lock",
        "\"accepted\": false",
        "\"accepted\": true",
    );
    run_ok(&tree, &["manifest", "--check"], 1);
    assert!(!status_json(&tree).contains_key("soil"));
}

// ---------------------------------------------------------------------------------------
// 2. Prose edits.

const SUM_PROSE: &str = "Adds the floats of a list; the empty list sums to zero.";
const SUM_PROSE_NEW: &str = "Adds up a list of floats. An empty list sums to zero.";

#[test]
fn prose_edit_flags_only_the_edited_definition() {
    let tree = Tree::copy_of("soil");
    let before = status_json(&tree);
    edit(&tree, "csvstats/sum.tr", SUM_PROSE, SUM_PROSE_NEW);
    let after = status_json(&tree);
    // Callers (mean, variance) and everything else are untouched.
    assert_flags(&after, &[(SUM, &["prose-stale"])]);
    assert_eq!(hash(&after, SUM, "formal"), hash(&before, SUM, "formal"));
    assert_eq!(hash(&after, SUM, "test"), hash(&before, SUM, "test"));
    assert_ne!(hash(&after, SUM, "prose"), hash(&before, SUM, "prose"));
    assert_eq!(after[SUM]["ladder"], "verified");
    run_ok(&tree, &["check"], 0);
}

#[test]
fn refresh_reanchors_a_prose_edit_and_writes_only_that_sidecar() {
    let tree = Tree::copy_of("soil");
    edit(&tree, "csvstats/sum.tr", SUM_PROSE, SUM_PROSE_NEW);
    let new_prose = hash(&status_json(&tree), SUM, "prose");
    age_sidecars(&tree);
    let before = sidecars(&tree);

    let r = run_ok(&tree, &["refresh"], 0);
    let after = sidecars(&tree);
    assert_eq!(
        touched(&before, &after),
        ["csvstats/sum.lock"],
        "{}",
        r.stderr
    );
    let status = status_json(&tree);
    assert_flags(&status, &[(SUM, &["review-suggested"])]);
    let lock = tree.read("csvstats/sum.lock");
    assert!(
        lock.contains("\"prose_state\": \"review-suggested\""),
        "{lock}"
    );
    assert!(lock.contains(&new_prose), "{lock}");
    // Nothing but the prose hash and the prose state moved.
    let old_lock = String::from_utf8(before["csvstats/sum.lock"].0.clone()).unwrap();
    let changed: Vec<(&str, &str)> = old_lock
        .lines()
        .zip(lock.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(changed.len(), 2, "{changed:?}");
    assert_eq!(old_lock.lines().count(), lock.lines().count());

    // A second refresh has nothing to do.
    age_sidecars(&tree);
    let before = sidecars(&tree);
    let r = run_ok(&tree, &["refresh"], 0);
    assert!(r.stderr.contains("0 sidecars written"), "{}", r.stderr);
    assert!(touched(&before, &sidecars(&tree)).is_empty());
    run_ok(&tree, &["check"], 0);
}

#[test]
fn renaming_a_definition_changes_none_of_its_hashes() {
    let tree = Tree::copy_of("soil");
    let pristine = status_json(&tree);
    for ext in ["tr", "lock", "soil"] {
        fs::rename(
            tree.path(&format!("csvstats/sum.{ext}")),
            tree.path(&format!("parity/total.{ext}")),
        )
        .unwrap();
    }
    let status = status_json(&tree);
    for part in ["formal", "test", "prose"] {
        assert_eq!(
            hash(&status, "parity/total", part),
            hash(&pristine, SUM, part),
            "{part}"
        );
    }
    // Only its decisions moved: `csvstats`'s `rounding` is no longer in scope in `parity`.
    assert_eq!(flags_of(&status, "parity/total"), ["decision-scope-stale"]);
    // Its callers named it `sum`, which now resolves nowhere.
    assert_eq!(flags_of(&status, MEAN), ["missing-callee"]);
}

// ---------------------------------------------------------------------------------------
// 3. Test edits.

#[test]
fn test_edit_moves_only_the_test_hash() {
    let tree = Tree::copy_of("soil");
    let before = status_json(&tree);
    edit(
        &tree,
        "csvstats/sum.tr",
        "([1.0, 2.0, 3.5]) => 6.5",
        "([1.0, 2.0, 3.5]) => 7.5",
    );
    let after = status_json(&tree);
    assert_flags(&after, &[(SUM, &["test-stale"])]);
    assert_eq!(hash(&after, SUM, "formal"), hash(&before, SUM, "formal"));
    assert_eq!(hash(&after, SUM, "prose"), hash(&before, SUM, "prose"));
    assert_ne!(hash(&after, SUM, "test"), hash(&before, SUM, "test"));
}

#[test]
fn toggling_xfail_is_a_test_change_only() {
    let tree = Tree::copy_of("soil");
    let before = status_json(&tree);
    // Remove an xfail on one definition, add one on another.
    edit(
        &tree,
        "csvstats/variance.tr",
        "```test offsets xfail\n",
        "```test offsets\n",
    );
    edit(
        &tree,
        "csvstats/sum.tr",
        "```test basics\n",
        "```test basics xfail\n",
    );
    let after = status_json(&tree);
    assert_flags(
        &after,
        &[(SUM, &["test-stale"]), (VARIANCE, &["test-stale"])],
    );
    for def in [SUM, VARIANCE] {
        assert_eq!(hash(&after, def, "formal"), hash(&before, def, "formal"));
        assert_eq!(hash(&after, def, "prose"), hash(&before, def, "prose"));
        assert_ne!(hash(&after, def, "test"), hash(&before, def, "test"));
    }
}

#[test]
fn refresh_never_clears_test_stale_or_formal_stale() {
    let tree = Tree::copy_of("soil");
    let pristine = status_json(&tree);
    edit(
        &tree,
        "csvstats/sum.tr",
        "([1.0, 2.0, 3.5]) => 6.5",
        "([1.0, 2.0, 3.5]) => 7.5",
    );
    edit(
        &tree,
        "csvstats/sort_by.tr",
        "sort_by : (key : a -> F64)",
        "sort_by : (key : a -> I64)",
    );
    age_sidecars(&tree);
    let before = sidecars(&tree);
    let r = run_ok(&tree, &["refresh"], 0);
    assert!(
        touched(&before, &sidecars(&tree)).is_empty(),
        "no prose moved, so nothing is written: {}",
        r.stderr
    );
    let status = status_json(&tree);
    assert_flags(
        &status,
        &[
            (SUM, &["test-stale"]),
            (SORT_BY, &["formal-stale"]),
            (MEDIAN, &["stale-oracle"]),
        ],
    );

    // With a prose edit on top, refresh re-anchors the prose and nothing else.
    edit(&tree, "csvstats/sum.tr", SUM_PROSE, SUM_PROSE_NEW);
    run_ok(&tree, &["refresh"], 0);
    let status = status_json(&tree);
    assert_flags(
        &status,
        &[
            (SUM, &["test-stale", "review-suggested"]),
            (SORT_BY, &["formal-stale"]),
            (MEDIAN, &["stale-oracle"]),
        ],
    );
    let lock = tree.read("csvstats/sum.lock");
    assert!(
        lock.contains(&hash(&pristine, SUM, "test")),
        "old test hash kept"
    );
    assert!(!lock.contains(&hash(&status, SUM, "test")));
}

// ---------------------------------------------------------------------------------------
// 4. Signature edits.

fn edit_sort_by_signature(tree: &Tree) {
    edit(
        tree,
        "csvstats/sort_by.tr",
        "sort_by : (key : a -> F64) -> (xs : List a) -> List a",
        "sort_by : (key : a -> I64) -> (xs : List a) -> List a",
    );
}

#[test]
fn signature_edit_is_formal_stale_and_reaches_the_oracle_user() {
    let tree = Tree::copy_of("soil");
    let before = status_json(&tree);
    edit_sort_by_signature(&tree);
    let after = status_json(&tree);
    // median records sort_by's formal hash as its oracle; its call edge is only stale once
    // sort_by is re-lowered, which has not happened.
    assert_flags(
        &after,
        &[(SORT_BY, &["formal-stale"]), (MEDIAN, &["stale-oracle"])],
    );
    assert_ne!(
        hash(&after, SORT_BY, "formal"),
        hash(&before, SORT_BY, "formal")
    );
    assert_eq!(
        hash(&after, SORT_BY, "test"),
        hash(&before, SORT_BY, "test")
    );
    assert_eq!(
        hash(&after, SORT_BY, "prose"),
        hash(&before, SORT_BY, "prose")
    );
}

#[test]
fn impact_of_a_formal_change_follows_calls_and_oracles() {
    let tree = Tree::copy_of("soil");
    let r = run_ok(
        &tree,
        &["impact", SORT_BY, "--change", "formal", "--json"],
        0,
    );
    assert_eq!(r.json()["target"], SORT_BY);
    assert_eq!(
        reached(&r),
        BTreeSet::from([
            reach(SORT_BY, None),
            reach(MEDIAN, Some("call")),
            reach(MEDIAN, Some("oracle")),
        ])
    );
    for x in r.json()["reached"].as_array().unwrap() {
        if let Some(via) = x["via"].as_object() {
            assert_eq!(via["from"], MEDIAN);
            assert_eq!(via["to"], SORT_BY);
        }
    }
    // The default change is `formal`; the human form names the edges.
    let human = run_ok(&tree, &["impact", "csvstats/sort_by.tr"], 0);
    assert!(human.stdout.contains("csvstats/median"), "{}", human.stdout);
    assert!(human.stdout.contains("-oracle->"), "{}", human.stdout);
    assert!(human.stdout.contains("-call->"), "{}", human.stdout);

    // Test and prose edits reach the definition alone.
    for change in ["test", "prose"] {
        let r = run_ok(&tree, &["impact", SORT_BY, "--change", change, "--json"], 0);
        assert_eq!(
            reached(&r),
            BTreeSet::from([reach(SORT_BY, None)]),
            "{change}"
        );
    }
    run_ok(&tree, &["impact", "csvstats/nope"], 2);
}

#[test]
fn why_follows_a_stale_oracle_to_the_formal_edit() {
    let tree = Tree::copy_of("soil");
    edit_sort_by_signature(&tree);
    let r = run_ok(&tree, &["why", MEDIAN, "--json"], 0);
    assert_eq!(r.json()["def"], MEDIAN);
    assert_eq!(
        why_chains(&r),
        [vec![
            step(MEDIAN, "stale-oracle", Some(SORT_BY)),
            step(SORT_BY, "formal-stale", None),
        ]]
    );
    let human = run_ok(&tree, &["why", MEDIAN], 0);
    assert!(human.stdout.contains("stale-oracle"), "{}", human.stdout);
    assert!(human.stdout.contains("formal-stale"), "{}", human.stdout);
    let clean = run_ok(&tree, &["why", SUM, "--json"], 0);
    assert!(why_chains(&clean).is_empty());
}

// ---------------------------------------------------------------------------------------
// 5. A callee's soil_hash changes.

const SUM_SOIL_HASH: &str =
    "sha256:8a1d7c5a21f0f2c15acd3cb37e7d39e99c8994a6daaea0825ac3351cb05f9e52";

/// Re-lowers `sum` as an agent would: a new body, and its new `soil_hash` (which
/// `status --json` computes) recorded in the sidecar. Returns that hash.
fn relower_sum(tree: &Tree) -> String {
    edit(
        tree,
        "csvstats/sum.soil",
        "fun total x -> total + x",
        "fun total x -> x + total",
    );
    let new = hash(&status_json(tree), SUM, "soil");
    assert_ne!(new, SUM_SOIL_HASH);
    edit(
        tree,
        "csvstats/sum.lock",
        &format!("\"soil_hash\": \"{SUM_SOIL_HASH}\""),
        &format!("\"soil_hash\": \"{new}\""),
    );
    new
}

#[test]
fn new_callee_soil_hash_flags_its_callers_and_refresh_reanchors_them() {
    let tree = Tree::copy_of("soil");
    relower_sum(&tree);
    let status = status_json(&tree);
    // As in trellis, content addresses carry the change up: summarize calls mean, whose
    // computed hash moved with sum's.
    assert_flags(
        &status,
        &[
            (MEAN, &["stale-callees"]),
            (VARIANCE, &["stale-callees"]),
            (SUMMARIZE, &["stale-callees"]),
        ],
    );
    // refresh re-anchors the callers without calling them hand-edits.
    age_sidecars(&tree);
    let before = sidecars(&tree);
    run_ok(&tree, &["refresh"], 0);
    assert_eq!(
        touched(&before, &sidecars(&tree)),
        [
            "csvstats/mean.lock",
            "csvstats/summarize.lock",
            "csvstats/variance.lock"
        ]
    );
    assert_flags(&status_json(&tree), &[]);
    assert!(
        tree.read("csvstats/mean.lock")
            .contains("\"provenance\": \"agent\"")
    );
}

#[test]
fn a_hand_edited_soil_is_soil_drift_and_refresh_records_it() {
    let tree = Tree::copy_of("soil");
    // Renaming a local moves no hash.
    edit(
        &tree,
        "csvstats/sum.soil",
        "fun total x -> total + x",
        "fun acc x -> acc + x",
    );
    assert_flags(&status_json(&tree), &[]);
    edit(&tree, "csvstats/sum.soil", "0.0", "1.0");
    let status = status_json(&tree);
    assert_flags(
        &status,
        &[
            (SUM, &["soil-drift"]),
            (MEAN, &["stale-callees"]),
            (VARIANCE, &["stale-callees"]),
            (SUMMARIZE, &["stale-callees"]),
        ],
    );
    let r = run_ok(&tree, &["why", SUMMARIZE, "--json"], 0);
    assert_eq!(
        why_chains(&r),
        [vec![
            step(SUMMARIZE, "stale-callees", Some(MEAN)),
            step(MEAN, "stale-callees", Some(SUM)),
            step(SUM, "soil-drift", None),
        ]]
    );
    run_ok(&tree, &["refresh"], 0);
    assert_flags(&status_json(&tree), &[]);
    let sum = tree.read("csvstats/sum.lock");
    assert!(sum.contains("\"provenance\": \"hand-edited\""), "{sum}");
    assert!(
        tree.read("csvstats/mean.lock")
            .contains("\"provenance\": \"agent\"")
    );
    // A .soil that does not parse is soil-drift, and check names the place.
    edit(&tree, "csvstats/sum.soil", "sum xs =", "sum xs = =");
    assert_flags(&status_json(&tree), &[(SUM, &["soil-drift"])]);
    let r = run_ok(&tree, &["check"], 1);
    assert!(r.stdout.contains("csvstats/sum.soil:2:10"), "{}", r.stdout);
}

#[test]
fn why_names_the_relowered_callee() {
    let tree = Tree::copy_of("soil");
    let new = relower_sum(&tree);
    let r = run_ok(&tree, &["why", MEAN, "--json"], 0);
    assert_eq!(
        why_chains(&r),
        [vec![step(MEAN, "stale-callees", Some(SUM))]]
    );
    let s = &r.json()["chains"][0][0];
    assert_eq!(s["recorded"], SUM_SOIL_HASH);
    assert_eq!(s["current"], new);
    let human = run_ok(&tree, &["why", MEAN], 0);
    assert!(human.stdout.contains("csvstats/sum"), "{}", human.stdout);
}

#[test]
fn impact_of_a_soil_change_is_the_direct_callers() {
    let tree = Tree::copy_of("soil");
    let r = run_ok(&tree, &["impact", SUM, "--change", "soil", "--json"], 0);
    assert_eq!(
        reached(&r),
        BTreeSet::from([reach(MEAN, Some("call")), reach(VARIANCE, Some("call"))])
    );
}

// ---------------------------------------------------------------------------------------
// 6. Oracle files.

#[test]
fn reference_file_edit_flags_its_users() {
    let tree = Tree::copy_of("soil");
    let text = tree.read("ref/stats.py");
    tree.write(
        "ref/stats.py",
        &format!("{text}\n\ndef mean(xs):\n    return sum(xs) / len(xs)\n"),
    );
    let status = status_json(&tree);
    assert_flags(&status, &[(MEDIAN, &["stale-oracle"])]);
    let r = run_ok(&tree, &["why", MEDIAN, "--json"], 0);
    assert_eq!(
        why_chains(&r),
        [vec![step(
            MEDIAN,
            "stale-oracle",
            Some("ref/stats.py::median")
        )]]
    );

    let r = run_ok(&tree, &["impact", "ref/stats.py", "--json"], 0);
    assert_eq!(
        reached(&r),
        BTreeSet::from([reach(MEDIAN, Some("external"))])
    );

    // A missing reference file is stale too, never a crash.
    fs::remove_file(tree.path("ref/stats.py")).unwrap();
    assert_flags(&status_json(&tree), &[(MEDIAN, &["stale-oracle"])]);
}

#[test]
fn cli_oracle_edit_flags_its_users() {
    let tree = Tree::copy_of("soil");
    edit(
        &tree,
        "tools/count-words.sh",
        "grep -c .",
        "grep -c '[^[:space:]]'",
    );
    let status = status_json(&tree);
    assert_flags(&status, &[(WORD_COUNT, &["stale-oracle"])]);
    let r = run_ok(&tree, &["impact", "cli:tools/count-words.sh", "--json"], 0);
    assert_eq!(
        reached(&r),
        BTreeSet::from([reach(WORD_COUNT, Some("external"))])
    );
}

// ---------------------------------------------------------------------------------------
// 7. A deleted sidecar.

#[test]
fn deleted_sidecar_is_no_lock_and_refresh_recreates_defaults() {
    let tree = Tree::copy_of("soil");
    let pristine = status_json(&tree);
    fs::remove_file(tree.path("parity/is_odd.lock")).unwrap();
    let status = status_json(&tree);
    assert_flags(
        &status,
        &[(IS_ODD, &["no-lock"]), (IS_EVEN, &["stale-callees"])],
    );
    assert_eq!(status[IS_ODD]["status"], "unlocked");
    assert_eq!(status[IS_ODD]["kind"], "function", "kind from the spec");
    assert_eq!(status[IS_ODD]["accepted"], false);
    let r = run_ok(&tree, &["why", IS_EVEN, "--json"], 0);
    assert_eq!(
        why_chains(&r),
        [vec![
            step(IS_EVEN, "stale-callees", Some(IS_ODD)),
            step(IS_ODD, "no-lock", None),
        ]]
    );

    age_sidecars(&tree);
    let before = sidecars(&tree);
    run_ok(&tree, &["refresh"], 0);
    let after = sidecars(&tree);
    assert_eq!(touched(&before, &after), ["parity/is_odd.lock"]);

    let lock = json(&after["parity/is_odd.lock"].0);
    assert_eq!(lock["lock_format"], 1);
    assert_eq!(lock["name"], "is_odd");
    assert_eq!(lock["kind"], "function");
    assert_eq!(
        lock["versions"],
        serde_json::json!({"trellis": "0.1.0", "soil": "0.1"})
    );
    assert!(lock["lowering"].is_null());
    assert!(
        lock.get("checks").is_none(),
        "nothing checked yet, as trellis creates it"
    );
    assert_eq!(lock["accepted"], false);
    assert_eq!(lock["tests"], serde_json::json!([]));
    assert_eq!(lock["oracles"], serde_json::json!([]));
    assert_eq!(lock["spec"]["prose_state"], "fresh");
    for part in ["formal", "test", "prose"] {
        assert_eq!(
            lock["spec"]["hashes"][part], pristine[IS_ODD]["hashes"][part],
            "{part}"
        );
    }
    assert_eq!(
        lock["spec"]["blocks"],
        serde_json::json!([
            {"block": "soil-sig", "author": "human"},
            {"block": "requires", "author": "human"},
            {"block": "test small", "author": "human"},
        ])
    );
    let status = status_json(&tree);
    assert_eq!(status[IS_ODD]["status"], "unlowered");
    // is_even was checked against a lowering that no longer exists, and is_odd's `.soil`
    // is one its new sidecar does not track, as trellis would say.
    assert_flags(
        &status,
        &[(IS_EVEN, &["stale-callees"]), (IS_ODD, &["soil-untracked"])],
    );

    // The new sidecar is canonical: a second refresh leaves it alone.
    age_sidecars(&tree);
    let before = sidecars(&tree);
    run_ok(&tree, &["refresh"], 0);
    assert!(touched(&before, &sidecars(&tree)).is_empty());
}

#[test]
fn deleted_spec_leaves_its_sidecar_stale() {
    let tree = Tree::copy_of("soil");
    fs::remove_file(tree.path("csvstats/sum.tr")).unwrap();
    let status = status_json(&tree);
    // The sidecar is still a definition, and nothing it recorded is vouched for any more;
    // its lowering is unchanged, so callers are not flagged.
    assert_flags(
        &status,
        &[(SUM, &["formal-stale", "test-stale", "prose-stale"])],
    );
    assert!(status[SUM]["hashes"].is_null());
    assert_eq!(status[SUM]["kind"], "function", "kind from the sidecar");
    let r = run_ok(&tree, &["why", SUM], 0);
    assert!(r.stdout.contains("spec is gone"), "{}", r.stdout);
    // refresh neither deletes nor rewrites it.
    age_sidecars(&tree);
    let before = sidecars(&tree);
    run_ok(&tree, &["refresh"], 0);
    assert!(touched(&before, &sidecars(&tree)).is_empty());

    // A module header without its spec: no test hash was recorded, so no test-stale.
    fs::remove_file(tree.path("text/_module.tr")).unwrap();
    assert_eq!(
        flags_of(&status_json(&tree), "text/_module"),
        ["formal-stale", "prose-stale"]
    );
}

// ---------------------------------------------------------------------------------------
// 8. Unreadable sidecars.

const MEAN_ROW: &str = r#"{ "name": "basics#2", "tier": "expect", "mode": "sandboxed", "origin": "spec", "result": "pass" }"#;

fn break_mean_result(tree: &Tree) -> usize {
    edit(
        tree,
        "csvstats/mean.lock",
        MEAN_ROW,
        &MEAN_ROW.replace("\"pass\"", "\"passed\""),
    );
    line_of(&tree.read("csvstats/mean.lock"), "\"passed\"")
}

#[test]
fn malformed_sidecar_value_is_exit_2_naming_the_file_and_json_path() {
    let tree = Tree::copy_of("soil");
    let line = break_mean_result(&tree);
    for args in [
        &["status"][..],
        &["status", "--json"],
        &["check"],
        // Neither says "nothing is stale" of, or around, a sidecar it cannot read.
        &["why", "csvstats/mean"],
        &["impact", "csvstats/sum", "--change", "soil"],
    ] {
        let r = run_ok(&tree, args, 2);
        assert!(
            r.stderr.contains("csvstats/mean.lock"),
            "{args:?}: {}",
            r.stderr
        );
        assert!(
            r.stderr.contains("tests[1].result"),
            "{args:?}: {}",
            r.stderr
        );
        assert!(
            r.stderr.contains(&format!("line {line}")),
            "{args:?}: line {line}: {}",
            r.stderr
        );
    }
    run_ok(&tree, &["manifest"], 2);
    assert!(!tree.path("soil.lock").exists());
}

#[test]
fn broken_json_sidecar_is_exit_2_naming_the_file_and_line() {
    let tree = Tree::copy_of("soil");
    // A missing comma: the parser stops at the next key.
    edit(
        &tree,
        "csvstats/mean.lock",
        "\"pinned\": true,\n",
        "\"pinned\": true\n",
    );
    let line = line_of(&tree.read("csvstats/mean.lock"), "\"escape_hatches\"");
    for args in [&["status", "--json"][..], &["check"]] {
        let r = run_ok(&tree, args, 2);
        assert!(
            r.stderr.contains("csvstats/mean.lock"),
            "{args:?}: {}",
            r.stderr
        );
        assert!(
            r.stderr.contains(&format!("line {line}")),
            "{args:?}: line {line}: {}",
            r.stderr
        );
    }
}

#[test]
fn unknown_keys_and_wrong_shapes_name_the_json_path() {
    let tree = Tree::copy_of("soil");
    edit(
        &tree,
        "csvstats/mean.lock",
        "\"pinned\": true,",
        "\"pinned\": true, \"extra\": 1,",
    );
    let r = run_ok(&tree, &["status"], 2);
    assert!(r.stderr.contains("csvstats/mean.lock"), "{}", r.stderr);
    assert!(r.stderr.contains("spec.extra"), "{}", r.stderr);
    edit(
        &tree,
        "csvstats/mean.lock",
        "\"pinned\": true, \"extra\": 1,",
        "\"pinned\": true,",
    );
    edit(
        &tree,
        "csvstats/mean.lock",
        "\"holes\": 0",
        "\"holes\": \"none\"",
    );
    let line = line_of(&tree.read("csvstats/mean.lock"), "\"holes\"");
    let r = run_ok(&tree, &["check"], 2);
    assert!(r.stderr.contains("checks.holes"), "{}", r.stderr);
    assert!(r.stderr.contains(&format!("line {line}")), "{}", r.stderr);
}

#[test]
fn refresh_never_overwrites_an_unreadable_sidecar_but_does_the_rest() {
    let tree = Tree::copy_of("soil");
    break_mean_result(&tree);
    edit(&tree, "csvstats/sum.tr", SUM_PROSE, SUM_PROSE_NEW);
    fs::remove_file(tree.path("parity/is_odd.lock")).unwrap();
    age_sidecars(&tree);
    let before = sidecars(&tree);

    let r = run_ok(&tree, &["refresh"], 2);
    assert!(r.stderr.contains("csvstats/mean.lock"), "{}", r.stderr);
    assert!(r.stderr.contains("tests[1].result"), "{}", r.stderr);
    let after = sidecars(&tree);
    assert_eq!(
        before["csvstats/mean.lock"], after["csvstats/mean.lock"],
        "bytes and mtime untouched"
    );
    assert_eq!(
        touched(&before, &after),
        ["csvstats/sum.lock", "parity/is_odd.lock"]
    );
    assert!(
        tree.read("csvstats/sum.lock")
            .contains("\"prose_state\": \"review-suggested\"")
    );

    // Broken JSON is left alone as well.
    let text = tree.read("csvstats/mean.lock");
    let broken = text.replacen("\"pinned\": true,", "\"pinned\": true", 1);
    tree.write("csvstats/mean.lock", &broken);
    run_ok(&tree, &["refresh"], 2);
    assert_eq!(tree.read("csvstats/mean.lock"), broken);
}

// ---------------------------------------------------------------------------------------
// 9. `check`: invariants and policies.

#[test]
fn accepting_an_xfail_row_is_a_violation() {
    let tree = Tree::copy_of("soil");
    edit(
        &tree,
        "csvstats/variance.lock",
        "\"accepted\": false",
        "\"accepted\": true",
    );
    let r = run_ok(&tree, &["check"], 1);
    assert!(
        r.stdout
            .lines()
            .any(|l| l.contains(VARIANCE) && l.contains("accepted-xfail")),
        "{}",
        r.stdout
    );
    assert_eq!(
        violations(&r.stdout),
        BTreeSet::from([v(VARIANCE, "accepted-xfail")])
    );
}

#[test]
fn accepting_a_partial_definition_is_a_violation() {
    let tree = Tree::copy_of("soil");
    edit(
        &tree,
        "csvstats/summarize.lock",
        "\"accepted\": false",
        "\"accepted\": true",
    );
    let r = run_ok(&tree, &["check"], 1);
    assert_eq!(
        violations(&r.stdout),
        BTreeSet::from([
            v(SUMMARIZE, "accepted-partial"),
            v(SUMMARIZE, "accepted-untested"),
        ])
    );
}

#[test]
fn an_oracle_must_be_accepted() {
    let tree = Tree::copy_of("soil");
    edit(
        &tree,
        "csvstats/sort_by.lock",
        "\"accepted\": true",
        "\"accepted\": false",
    );
    let r = run_ok(&tree, &["check"], 1);
    assert_eq!(
        violations(&r.stdout),
        BTreeSet::from([v(MEDIAN, "oracle-not-accepted")])
    );
    assert!(r.stdout.contains("sort_by"), "{}", r.stdout);
}

/// Marks the spec's human-authored `ensures` block `@agent`: a formal edit (the marker is
/// in the normalised info string) that also drifts the blocks from the sidecar's.
fn mark_ensures_agent(tree: &Tree, spec: &str) {
    edit(tree, spec, "```ensures\n", "```ensures @agent\n");
}

#[test]
fn agent_marker_on_a_human_block_is_blocks_drift() {
    let tree = Tree::copy_of("soil");
    // An accepted definition and one that is not.
    mark_ensures_agent(&tree, "csvstats/sum.tr");
    mark_ensures_agent(&tree, "csvstats/variance.tr");
    let status = status_json(&tree);
    // The marker is part of the normalised info string, hence of the formal hash.
    assert_flags(
        &status,
        &[
            (SUM, &["formal-stale", "blocks-drift"]),
            (VARIANCE, &["formal-stale", "blocks-drift"]),
        ],
    );
    let r = run_ok(&tree, &["check"], 1);
    // sum is accepted: its formal edit also clears what the acceptance vouched for.
    assert_eq!(
        violations(&r.stdout),
        BTreeSet::from([v(SUM, "accepted-stale"), v(SUM, "blocks-drift")])
    );
    let why = run_ok(&tree, &["why", SUM], 0);
    assert!(why.stdout.contains("ensures"), "{}", why.stdout);
}

#[test]
fn require_accepted_on_exported_definitions() {
    let tree = Tree::copy_of("soil");
    let r = run_ok(&tree, &["check", "--require", "accepted", "--exported"], 1);
    let got = violations(&r.stdout);
    assert_eq!(
        got,
        BTreeSet::from([
            v(SUMMARIZE, "policy"),
            v(WORD_COUNT, "policy"),
            v(IS_EVEN, "policy"),
            v(IS_ODD, "policy"),
        ])
    );
    // sum is accepted anyway, but variance is neither accepted nor exported.
    assert!(!r.stdout.contains(VARIANCE), "{}", r.stdout);
    // Over all definitions, the non-exported ones fail too.
    let r = run_ok(&tree, &["check", "--require", "accepted"], 1);
    let all = violations(&r.stdout);
    assert!(all.contains(&v(VARIANCE, "policy")), "{}", r.stdout);
    assert!(!all.contains(&v(SUM, "policy")), "{}", r.stdout);
}

#[test]
fn require_tested_or_verified_on_a_tag_or_everything() {
    let tree = Tree::copy_of("soil");
    let r = run_ok(&tree, &["check", "--require", "tested", "--tag", "api"], 1);
    assert_eq!(
        violations(&r.stdout),
        BTreeSet::from([v(SUMMARIZE, "policy")])
    );
    assert!(r.stdout.contains("partial"), "{}", r.stdout);
    let r = run_ok(
        &tree,
        &["check", "--require", "verified", "--tag", "api"],
        1,
    );
    assert_eq!(
        violations(&r.stdout),
        BTreeSet::from([
            v(MEAN, "policy"),
            v(MEDIAN, "policy"),
            v(SUMMARIZE, "policy"),
            v(WORD_COUNT, "policy"),
        ])
    );
    let r = run_ok(&tree, &["check", "--require", "tested"], 1);
    assert_eq!(
        violations(&r.stdout),
        BTreeSet::from([
            v(SUMMARIZE, "policy"),
            v("text/trim", "policy"),
            v("text/words", "policy"),
        ])
    );
    run_ok(
        &tree,
        &["check", "--require", "verified", "--tag", "nope"],
        0,
    );
    run_ok(
        &tree,
        &["check", "--require", "tested", "--exported", "--tag", "api"],
        2,
    );
}

// ---------------------------------------------------------------------------------------
// 10. Cycles.

/// Makes `a` use `b` as a `definition` oracle, recording `b`'s current formal hash.
fn add_definition_oracle(tree: &Tree, a: &str, b_name: &str, formal: &str) {
    edit(
        tree,
        &format!("{a}.lock"),
        "  \"oracles\": [],\n",
        &format!(
            "  \"oracles\": [\n    {{ \"kind\": \"definition\", \"name\": \"{b_name}\", \"formal_hash\": \"{formal}\" }}\n  ],\n"
        ),
    );
}

#[test]
fn accepted_definitions_vouching_for_each_other_are_an_oracle_cycle() {
    let tree = Tree::copy_of("soil");
    let status = status_json(&tree);
    add_definition_oracle(&tree, SUM, "mean", &hash(&status, MEAN, "formal"));
    add_definition_oracle(&tree, MEAN, "sum", &hash(&status, SUM, "formal"));
    // The edits are canonical and consistent: no flags, nothing to rewrite.
    assert_flags(&status_json(&tree), &[]);
    age_sidecars(&tree);
    let before = sidecars(&tree);
    run_ok(&tree, &["refresh"], 0);
    assert!(touched(&before, &sidecars(&tree)).is_empty());

    let r = run_ok(&tree, &["check"], 1);
    assert_eq!(
        violations(&r.stdout),
        BTreeSet::from([v(MEAN, "oracle-cycle"), v(SUM, "oracle-cycle")])
    );

    let r = run_ok(&tree, &["impact", SUM, "--change", "formal", "--json"], 0);
    assert_eq!(
        reached(&r),
        BTreeSet::from([
            reach(SUM, None),
            reach(MEAN, Some("call")),
            reach(MEAN, Some("oracle")),
            reach(VARIANCE, Some("call")),
        ])
    );
    for def in [SUM, MEAN] {
        let r = run_ok(&tree, &["why", def, "--json"], 0);
        assert!(why_chains(&r).is_empty(), "{def}: {}", r.stdout);
    }
}

#[test]
fn a_stale_oracle_cycle_still_terminates() {
    let tree = Tree::copy_of("soil");
    // Both record a formal hash the other no longer has.
    add_definition_oracle(&tree, SUM, "mean", OTHER_HASH);
    add_definition_oracle(&tree, MEAN, "sum", OTHER_HASH);
    let status_now = status_json(&tree);
    assert_flags(
        &status_now,
        &[(SUM, &["stale-oracle"]), (MEAN, &["stale-oracle"])],
    );
    let r = run_ok(&tree, &["why", SUM, "--json"], 0);
    assert_eq!(
        why_chains(&r),
        [vec![
            step(SUM, "stale-oracle", Some(MEAN)),
            step(MEAN, "stale-oracle", Some(SUM)),
        ]]
    );
    let r = run_ok(&tree, &["check"], 1);
    assert!(violations(&r.stdout).contains(&v(SUM, "oracle-cycle")));
}

/// A definition that is its own oracle vouches for itself: a cycle of one.
#[test]
fn a_definition_that_is_its_own_oracle_is_a_cycle() {
    let tree = Tree::copy_of("soil");
    add_definition_oracle(&tree, SUM, "sum", OTHER_HASH);
    let r = run_ok(&tree, &["check"], 1);
    let found = violations(&r.stdout);
    assert!(found.contains(&v(SUM, "oracle-cycle")), "{}", r.stdout);
    assert!(!found.contains(&v(MEAN, "oracle-cycle")), "{}", r.stdout);
}

#[test]
fn mutual_recursion_impact_and_why_terminate() {
    let tree = Tree::copy_of("soil");
    let r = run_ok(&tree, &["impact", IS_EVEN, "--change", "soil", "--json"], 0);
    assert_eq!(reached(&r), BTreeSet::from([reach(IS_ODD, Some("call"))]));
    let r = run_ok(
        &tree,
        &["impact", IS_EVEN, "--change", "formal", "--json"],
        0,
    );
    assert_eq!(
        reached(&r),
        BTreeSet::from([reach(IS_EVEN, None), reach(IS_ODD, Some("call"))])
    );
    let r = run_ok(&tree, &["why", IS_EVEN, "--json"], 0);
    assert!(why_chains(&r).is_empty());

    // Re-lower both: each now holds the other's old hash, a stale cycle.
    edit(
        &tree,
        "parity/is_even.lock",
        "\"soil_hash\": \"sha256:2e62808d",
        "\"soil_hash\": \"sha256:3e62808d",
    );
    edit(
        &tree,
        "parity/is_odd.lock",
        "\"soil_hash\": \"sha256:0b4e16a8",
        "\"soil_hash\": \"sha256:1b4e16a8",
    );
    assert_flags(
        &status_json(&tree),
        &[(IS_EVEN, &["stale-callees"]), (IS_ODD, &["stale-callees"])],
    );
    let r = run_ok(&tree, &["why", IS_EVEN, "--json"], 0);
    assert_eq!(
        why_chains(&r),
        [vec![
            step(IS_EVEN, "stale-callees", Some(IS_ODD)),
            step(IS_ODD, "stale-callees", Some(IS_EVEN)),
        ]]
    );
    run_ok(&tree, &["why", IS_ODD], 0);
    run_ok(&tree, &["check"], 0);
}

// ---------------------------------------------------------------------------------------
// 11. The graph.

#[test]
fn graph_as_dot() {
    let tree = Tree::copy_of("soil");
    let r = run_ok(&tree, &["graph"], 0);
    let dot = run_ok(&tree, &["graph", "--format", "dot"], 0).stdout;
    assert_eq!(r.stdout, dot, "dot is the default");
    assert!(dot.starts_with("digraph"), "{dot}");
    assert!(dot.trim_end().ends_with('}'), "{dot}");
    let edge = |kind: &str| {
        dot.lines().any(|l| {
            l.contains("\"csvstats/median\" -> \"csvstats/sort_by\"")
                && l.contains(&format!("label=\"{kind}\""))
        })
    };
    assert!(edge("call"), "{dot}");
    assert!(edge("oracle"), "{dot}");
    assert!(
        dot.lines()
            .any(|l| l.contains("\"csvstats/median\" -> \"ref/stats.py\"")),
        "{dot}"
    );
    let median_node = dot
        .lines()
        .find(|l| l.trim_start().starts_with("\"csvstats/median\" ["))
        .unwrap_or_else(|| panic!("a median node: {dot}"));
    assert!(median_node.contains("fillcolor="), "{median_node}");
    assert!(median_node.contains("accepted"), "{median_node}");
    // Graphviz's line break, once escaped: the label draws as two lines.
    assert!(
        median_node.contains("label=\"csvstats/median\\n"),
        "{median_node}"
    );
    assert!(!median_node.contains("\\\\n"), "{median_node}");
    // Every definition is a node, edges or not.
    for (path, _, _) in PRISTINE {
        assert!(dot.contains(&format!("\"{path}\" [")), "{path}");
    }
}

#[test]
fn graph_as_json() {
    let tree = Tree::copy_of("soil");
    let g = run_ok(&tree, &["graph", "--format", "json"], 0).json();
    let nodes = g["nodes"].as_array().unwrap();
    let ids: BTreeSet<&str> = nodes.iter().map(|n| n["id"].as_str().unwrap()).collect();
    for (path, _, _) in PRISTINE {
        assert!(ids.contains(path), "{path}");
    }
    for id in [
        "ref/stats.py",
        "cli:tools/count-words.sh",
        "csvstats/_middle",
    ] {
        assert!(ids.contains(id), "{id}: {ids:?}");
    }
    let edges: BTreeSet<(&str, &str, &str)> = g["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["from"].as_str().unwrap(),
                e["kind"].as_str().unwrap(),
                e["to"].as_str().unwrap(),
            )
        })
        .collect();
    for e in [
        (MEDIAN, "call", SORT_BY),
        (MEDIAN, "oracle", SORT_BY),
        (MEDIAN, "external", "ref/stats.py"),
        (MEDIAN, "helper", "csvstats/_middle"),
        (WORD_COUNT, "external", "cli:tools/count-words.sh"),
        (MEAN, "call", SUM),
        (IS_EVEN, "call", IS_ODD),
        (IS_ODD, "call", IS_EVEN),
    ] {
        assert!(edges.contains(&e), "{e:?}: {edges:?}");
    }
    let kinds: BTreeSet<&str> = edges.iter().map(|e| e.1).collect();
    assert_eq!(
        kinds,
        BTreeSet::from(["call", "external", "helper", "oracle"])
    );
    let median = nodes.iter().find(|n| n["id"] == MEDIAN).unwrap();
    assert_eq!(median["kind"], "definition");
    assert!(median["status"].as_str().unwrap().contains("tested"));
}

#[test]
fn graph_as_mermaid() {
    let tree = Tree::copy_of("soil");
    let m = run_ok(&tree, &["graph", "--format", "mermaid"], 0).stdout;
    assert!(m.starts_with("flowchart LR\n"), "{m}");
    let json = run_ok(&tree, &["graph", "--format", "json"], 0).json();
    let nodes = json["nodes"].as_array().unwrap().len();
    let styles: Vec<&str> = m
        .lines()
        .filter(|l| l.trim_start().starts_with("style "))
        .collect();
    assert_eq!(styles.len(), nodes, "{m}");
    assert!(styles.iter().all(|l| l.contains("fill:#")), "{m}");
    let declared: BTreeSet<&str> = m
        .lines()
        .filter_map(|l| l.trim_start().split_once("[\""))
        .map(|(id, _)| id)
        .collect();
    assert_eq!(declared.len(), nodes, "one declaration per node: {m}");
    assert!(m.contains("|call|"), "{m}");
    // Helper edges are bold, as in the dot output.
    assert!(m.contains(" ==>|helper| "), "{m}");
    assert!(!m.contains("-.->|helper|"), "{m}");
    assert!(m.contains("|oracle|"), "{m}");
}

// ---------------------------------------------------------------------------------------
// 12. Byte identity and roots.

#[test]
fn refresh_on_the_pristine_root_writes_nothing() {
    let tree = Tree::copy_of("soil");
    age_sidecars(&tree);
    let before = sidecars(&tree);
    assert_eq!(before.len(), PRISTINE.len(), "every fixture has a sidecar");
    let r = run_ok(&tree, &["refresh"], 0);
    assert!(r.stderr.contains("0 sidecars written"), "{}", r.stderr);
    assert!(touched(&before, &sidecars(&tree)).is_empty());
    // No stray temporary files either.
    let mut all = Vec::new();
    for entry in fs::read_dir(tree.path("csvstats")).unwrap() {
        all.push(entry.unwrap().file_name().to_string_lossy().into_owned());
    }
    assert!(
        all.iter().all(|n| !lockgraph::fsutil::is_temp(n)),
        "{all:?}"
    );
}

#[test]
fn outside_any_root_is_exit_2_naming_soil_toml() {
    let elsewhere = tempfile::tempdir().unwrap();
    let out = assert_cmd::Command::cargo_bin("soil-lock")
        .unwrap()
        .current_dir(elsewhere.path())
        .arg("status")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("soil.toml"), "{stderr}");

    // --root to a directory without soil.toml fails the same way.
    let out = assert_cmd::Command::cargo_bin("soil-lock")
        .unwrap()
        .arg("--root")
        .arg(elsewhere.path())
        .arg("check")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("soil.toml"));
}

#[test]
fn root_flag_selects_the_root_from_anywhere() {
    let tree = Tree::copy_of("soil");
    let elsewhere = tempfile::tempdir().unwrap();
    let out = assert_cmd::Command::cargo_bin("soil-lock")
        .unwrap()
        .current_dir(elsewhere.path())
        .arg("--root")
        .arg(tree.dir.path())
        .args(["status", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let defs = json(&out.stdout)["defs"].as_array().unwrap().len();
    assert_eq!(defs, PRISTINE.len());

    // Discovery walks up from a subdirectory.
    let out = tree
        .soil_lock()
        .current_dir(tree.path("csvstats"))
        .arg("check")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_tag_soil_toml_does_not_declare_fails_check_at_its_position() {
    let tree = Tree::copy_of("soil");
    edit(
        &tree,
        "csvstats/mean.tr",
        "tags: [stats, api]",
        "tags: [stats, apis]",
    );
    let r = run_ok(&tree, &["check"], 1);
    assert_eq!(violations(&r.stdout), [v("csvstats/mean", "spec")].into());
    assert!(
        r.stdout.contains("3:15: the tag `apis` is not declared")
            && r.stdout.contains("[tr-undeclared-tag]"),
        "{}",
        r.stdout
    );
    // Declaring it is the fix; the spec itself did not have to change.
    edit(
        &tree,
        "soil.toml",
        "api = \"public API\"",
        "api = \"public API\"\napis = \"several\"",
    );
    run_ok(&tree, &["check"], 0);
}

#[test]
fn refresh_keeps_a_headers_decisions_snapshot_as_entry_hashes() {
    let tree = Tree::copy_of("soil");
    let lock = json(tree.read("csvstats/_module.lock").as_bytes());
    let before = lock["spec"]["decisions"]["rounding"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(before.starts_with("sha256:"), "{before}");
    edit(
        &tree,
        "csvstats/_module.tr",
        "rounding: never round inside the module; callers format",
        "rounding: never round inside the module; callers format\n  rejected: round half even",
    );
    age_sidecars(&tree);
    let old = sidecars(&tree);
    run_ok(&tree, &["refresh"], 0);
    assert_eq!(touched(&old, &sidecars(&tree)), ["csvstats/_module.lock"]);
    let lock = json(tree.read("csvstats/_module.lock").as_bytes());
    let after = lock["spec"]["decisions"]["rounding"].as_str().unwrap();
    assert!(after.starts_with("sha256:") && after != before, "{after}");
    assert_eq!(lock["spec"]["decisions"].as_object().unwrap().len(), 1);
}

#[test]
fn decision_edits_flag_the_lowerings_made_under_them() {
    let tree = Tree::copy_of("soil");
    let rounding = "rounding: never round inside the module; callers format";
    let recorded = lockgraph_queries::soil::spec_hash::decision_entry_hashes(rounding)[0]
        .1
        .to_string();
    // median says it applied `rounding` as it reads today: nothing is stale.
    edit(
        &tree,
        "csvstats/median.lock",
        "\"applied\": []",
        &format!(
            "\"applied\": [\n        {{ \"scope\": \"module\", \"label\": \"rounding\", \"hash\": \"{recorded}\" }}\n      ]"
        ),
    );
    assert!(flags_of(&status_json(&tree), MEDIAN).is_empty());

    // Rewording it makes exactly the lowerings that applied it stale, by label.
    edit(
        &tree,
        "csvstats/_module.tr",
        rounding,
        "rounding: round half to even, only when printing",
    );
    let status = status_json(&tree);
    assert_eq!(flags_of(&status, MEDIAN), ["decision-stale:rounding"]);
    assert!(flags_of(&status, MEAN).is_empty());

    // A new decision in the project changes every lowering's scope.
    edit(
        &tree,
        "_project.tr",
        "errors: parse failures",
        "units: SI only\nerrors: parse failures",
    );
    let status = status_json(&tree);
    assert_eq!(
        flags_of(&status, MEDIAN),
        ["decision-scope-stale", "decision-stale:rounding"]
    );
    assert_eq!(flags_of(&status, MEAN), ["decision-scope-stale"]);
    assert_eq!(flags_of(&status, IS_ODD), ["decision-scope-stale"]);
}

#[test]
fn an_accepted_definition_whose_spec_moved_fails_check() {
    let tree = Tree::copy_of("soil");
    // A prose edit is not a spec change that acceptance depends on.
    edit(&tree, "csvstats/sum.tr", "# sum", "# sum\n\nReworded.");
    run_ok(&tree, &["check"], 0);
    // A test edit is.
    let text = tree.read("csvstats/sum.tr");
    let case = text
        .lines()
        .find(|l| l.starts_with('(') && l.contains("=>"))
        .expect("sum has a test row")
        .to_owned();
    edit(&tree, "csvstats/sum.tr", &case, &format!("{case}\n{case}"));
    let r = run_ok(&tree, &["check"], 1);
    assert_eq!(
        violations(&r.stdout),
        BTreeSet::from([v(SUM, "accepted-stale")])
    );
    assert!(r.stdout.contains("test-stale"), "{}", r.stdout);
}

#[test]
fn one_definitions_status_is_not_failed_by_another_files_error() {
    let tree = Tree::copy_of("soil");
    break_mean_result(&tree);
    let r = run_ok(&tree, &["status", "--json", MEDIAN], 0);
    assert!(r.stdout.contains(MEDIAN), "{}", r.stdout);
    // Asked about the broken one, it still fails, naming the file.
    let r = run_ok(&tree, &["status", MEAN], 2);
    assert!(r.stderr.contains("csvstats/mean.lock"), "{}", r.stderr);
}

#[test]
fn impact_and_why_take_bare_names_and_the_oracle_form() {
    let tree = Tree::copy_of("soil");
    for args in [
        &["impact", "median", "--json"][..],
        &["impact", MEDIAN, "--json"],
    ] {
        let r = run_ok(&tree, args, 0);
        assert!(
            reached(&r).contains(&reach("csvstats/summarize", Some("call"))),
            "{args:?}: {}",
            r.stdout
        );
    }
    // The oracle's own `path::symbol` form names the reference file.
    let by_symbol = run_ok(&tree, &["impact", "ref/stats.py::median", "--json"], 0);
    let by_file = run_ok(&tree, &["impact", "ref/stats.py", "--json"], 0);
    assert_eq!(reached(&by_symbol), reached(&by_file));
    assert!(reached(&by_file).iter().any(|(d, _)| d == MEDIAN));
    run_ok(&tree, &["why", "median"], 0);
    let r = run_ok(&tree, &["why", "no_such_thing"], 2);
    assert!(
        r.stderr.contains("no definition `no_such_thing`"),
        "{}",
        r.stderr
    );
}

/// Issue 28, item 9: invalid UTF-8 in a spec or a sidecar is placed by line and column.
#[test]
fn invalid_utf8_in_a_spec_or_sidecar_is_placed_by_line_and_column() {
    let tree = Tree::copy_of("soil");
    for (file, line) in [("text/trim.tr", "bad \u{17e}"), ("text/trim.lock", "")] {
        let whole = tree.read(file);
        let lines = whole.lines().count();
        let mut bytes = whole.into_bytes();
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(0xff);
        std::fs::write(tree.path(file), &bytes).unwrap();
        let out = tree.soil_lock().arg("status").output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        let column = line.chars().count() + 1;
        let at = format!("invalid UTF-8 at line {}, column {column}", lines + 1);
        assert!(
            text.contains(&format!("{file}: ")) && text.contains(&at),
            "{at}\n{text}"
        );
        std::fs::write(tree.path(file), &bytes[..bytes.len() - 1 - line.len()]).unwrap();
    }
}

/// The root with three violations: `sum` accepted but formal-stale, its blocks drifted,
/// and its `.soil` broken at line 2, column 10.
fn root_with_violations() -> Tree {
    let tree = Tree::copy_of("soil");
    mark_ensures_agent(&tree, "csvstats/sum.tr");
    edit(&tree, "csvstats/sum.soil", "sum xs =", "sum xs = =");
    tree
}

#[test]
fn check_formats_say_the_same_violations_where_they_stand() {
    let tree = root_with_violations();
    let human = run_ok(&tree, &["check"], 1);
    let expected = violations(&human.stdout);
    assert_eq!(
        expected,
        BTreeSet::from([
            v(SUM, "accepted-stale"),
            v(SUM, "blocks-drift"),
            v(SUM, "soil")
        ])
    );
    assert_eq!(
        run_ok(&tree, &["check", "--format", "human"], 1).stdout,
        human.stdout
    );

    let report = run_ok(&tree, &["check", "--format", "json"], 1).json();
    assert_eq!(report["ok"], false);
    let rows = report["violations"].as_array().unwrap();
    let places: BTreeSet<(String, String, String, u64, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["def"].as_str().unwrap().to_owned(),
                r["code"].as_str().unwrap().to_owned(),
                r["file"].as_str().unwrap().to_owned(),
                r["line"].as_u64().unwrap(),
                r["column"].as_u64().unwrap(),
            )
        })
        .collect();
    let at = |code: &str, file: &str, line, column| {
        (
            SUM.to_owned(),
            code.to_owned(),
            file.to_owned(),
            line,
            column,
        )
    };
    // The definition as a whole stands on its spec's `name:` line; the parse error where
    // the parser stopped.
    assert_eq!(
        places,
        BTreeSet::from([
            at("accepted-stale", "csvstats/sum.tr", 2, 1),
            at("blocks-drift", "csvstats/sum.tr", 2, 1),
            at("soil", "csvstats/sum.soil", 2, 10),
        ])
    );

    // GitHub: one workflow command per violation, paths as the job sees them.
    let github = run_ok(&tree, &["check", "--format", "github"], 1).stdout;
    let lines: Vec<&str> = github.lines().collect();
    assert_eq!(lines.len(), 3, "{github}");
    assert!(
        lines.contains(&"::error file=csvstats/sum.tr,line=2,col=1,title=blocks-drift::a human-authored block changed author without review"),
        "{github}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("::error file=csvstats/sum.soil,line=2,col=10,title=soil::")),
        "{github}"
    );
    let name = tree.dir.path().file_name().unwrap().to_str().unwrap();
    let from_above = tree
        .soil_lock()
        .current_dir(tree.dir.path().parent().unwrap())
        .args(["--root", name, "check", "--format", "github"])
        .output()
        .unwrap();
    let from_above = String::from_utf8(from_above.stdout).unwrap();
    assert!(
        from_above
            .lines()
            .all(|l| l.contains(&format!("file={name}/csvstats/sum."))),
        "{from_above}"
    );

    // A clean root: every format says so and exits 0.
    let clean = Tree::copy_of("soil");
    assert_eq!(
        run_ok(&clean, &["check", "--format", "json"], 0).json(),
        serde_json::json!({ "ok": true, "violations": [] })
    );
    assert_eq!(
        run_ok(&clean, &["check", "--format", "github"], 0).stdout,
        ""
    );
    assert_eq!(
        run_ok(&clean, &["check", "--format", "gitlab"], 0).json(),
        serde_json::json!([])
    );
    let sarif = run_ok(&clean, &["check", "--format", "sarif"], 0).json();
    assert_eq!(sarif["runs"][0]["results"], serde_json::json!([]));
}

#[test]
fn check_gitlab_report_has_the_code_quality_shape_and_stable_fingerprints() {
    let tree = root_with_violations();
    let report = run_ok(&tree, &["check", "--format", "gitlab"], 1).json();
    let issues = report.as_array().unwrap();
    assert_eq!(issues.len(), 3);
    let mut fingerprints = BTreeSet::new();
    for issue in issues {
        let keys: BTreeSet<&str> = issue
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(
            keys,
            BTreeSet::from([
                "check_name",
                "description",
                "fingerprint",
                "location",
                "severity"
            ])
        );
        assert_eq!(issue["severity"], "major");
        let fingerprint = issue["fingerprint"].as_str().unwrap();
        assert!(
            fingerprint.len() == 32 && fingerprint.bytes().all(|b| b.is_ascii_hexdigit()),
            "{fingerprint}"
        );
        fingerprints.insert(fingerprint.to_owned());
        assert!(issue["location"]["lines"]["begin"].as_u64().unwrap() >= 1);
        assert!(
            issue["location"]["path"]
                .as_str()
                .unwrap()
                .starts_with("csvstats/sum.")
        );
    }
    assert_eq!(fingerprints.len(), 3, "one per violation");
    // Lines above the parse error move it and change its message; its fingerprint stays.
    let soil = tree.read("csvstats/sum.soil");
    tree.write("csvstats/sum.soil", &format!("\n\n{soil}"));
    let moved = run_ok(&tree, &["check", "--format", "gitlab"], 1).json();
    let begin = |report: &Value| {
        report
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["check_name"] == "soil")
            .map(|i| i["location"]["lines"]["begin"].clone())
            .unwrap()
    };
    assert_eq!((begin(&report), begin(&moved)), (2.into(), 4.into()));
    let moved: BTreeSet<String> = moved
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["fingerprint"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(moved, fingerprints);
}
