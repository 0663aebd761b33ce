//! `--shard K/N` and `copy-audit report merge`: on every shared real tree, for N = 1…4,
//! the shards' reports merge into exactly the report of an unsharded run (JSON, SARIF,
//! JSON with `--require-reviewed`), with its exit code; every file is in one shard; sets
//! of reports that are not one complete sharding are refused. And `soil-lock check
//! --shard`: the shards' violations are the unsharded run's, split.

mod common;

use common::{Tree, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

fn shared(commit: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/conformance/harness-lab")
        .join(commit)
}

fn run(tree: &Tree, args: &[&str]) -> Output {
    tree.copy_audit().args(args).output().unwrap()
}

#[test]
fn merged_shards_are_the_unsharded_report_on_every_real_tree() {
    let commits = ["58cfea7", "b14f4c7", "ff85c84"];
    if !shared(commits[0]).exists() {
        assert!(
            std::env::var_os("LOCKGRAPH_SKIP_CONFORMANCE").is_some(),
            "the shared trees are missing (LOCKGRAPH_SKIP_CONFORMANCE=1 skips them)"
        );
        return;
    }
    for commit in commits {
        let tree = Tree::copy_of_dir(&shared(commit));
        for format in [
            &["--json"][..],
            &["--format", "sarif"],
            &["--json", "--require-reviewed"],
        ] {
            let mut args = format.to_vec();
            args.push("--no-cache");
            let whole = run(&tree, &args);
            for n in 1..=4u32 {
                let mut reports = Vec::new();
                for k in 1..=n {
                    let shard = format!("{k}/{n}");
                    let mut sharded = args.clone();
                    sharded.extend(["--shard", &shard]);
                    let out = run(&tree, &sharded);
                    assert!(out.status.code().unwrap() < 2, "{commit} {sharded:?}");
                    let path = tree.path(&format!("shard-{k}.out"));
                    std::fs::write(&path, &out.stdout).unwrap();
                    reports.push(path);
                }
                let merge = || {
                    tree.copy_audit()
                        .args(["report", "merge"])
                        .args(&reports)
                        .output()
                        .unwrap()
                };
                let merged = merge();
                let what = format!("{commit} {format:?} N={n}");
                assert!(
                    merged.stdout == whole.stdout,
                    "{what}: the merge differs from the unsharded report\n{}",
                    String::from_utf8_lossy(&merged.stderr)
                );
                assert_eq!(merged.status.code(), whole.status.code(), "{what}");
                if format.contains(&"sarif") {
                    // Logs laid out otherwise (here on one line) merge into the same log.
                    for r in &reports {
                        let value: serde_json::Value = json(&std::fs::read(r).unwrap());
                        std::fs::write(r, serde_json::to_vec(&value).unwrap()).unwrap();
                    }
                    assert!(merge().stdout == whole.stdout, "{what}: one-line logs");
                }
                for r in &reports {
                    std::fs::remove_file(r).unwrap();
                }
            }
        }
    }
}

#[test]
fn every_file_is_in_one_shard_and_the_gate_works_per_shard() {
    let tree = Tree::copy_of("copy");
    let whole = json(&run(&tree, &["--json", "--no-cache"]).stdout);
    let mut seen = BTreeSet::new();
    let mut files = 0;
    for k in 1..=3 {
        let report = json(
            &run(
                &tree,
                &["--json", "--no-cache", "--shard", &format!("{k}/3")],
            )
            .stdout,
        );
        assert_eq!(report["shard"], format!("{k}/3"));
        files += report["totalFiles"].as_u64().unwrap();
        for f in report["findings"].as_array().unwrap() {
            seen.insert((k, f["relativePath"].as_str().unwrap().to_owned()));
        }
    }
    assert_eq!(files, whole["totalFiles"].as_u64().unwrap());
    let paths: BTreeSet<&String> = seen.iter().map(|(_, p)| p).collect();
    assert_eq!(paths.len(), seen.len(), "a file in two shards: {seen:?}");
    // `--require-reviewed` fails exactly the shards holding a file it names.
    let gate = json(&run(&tree, &["--json", "--require-reviewed"]).stdout);
    let named: BTreeSet<String> = ["unreviewed", "unsegmented", "stale"]
        .iter()
        .flat_map(|k| gate["reviewStatus"][k].as_array().unwrap().clone())
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    assert!(!named.is_empty());
    for k in 1..=3 {
        let shard = lockgraph_queries::shard::Shard { k, n: 3 };
        let out = run(
            &tree,
            &[
                "--json",
                "--require-reviewed",
                "--shard",
                &shard.to_string(),
            ],
        );
        let report = json(&out.stdout);
        let review = &report["reviewStatus"];
        let mine: BTreeSet<String> = named.iter().filter(|p| shard.holds(p)).cloned().collect();
        let listed: BTreeSet<String> = ["unreviewed", "unsegmented", "stale"]
            .iter()
            .flat_map(|key| review[key].as_array().unwrap().clone())
            .map(|v| v.as_str().unwrap().to_owned())
            .collect();
        assert_eq!(listed, mine, "shard {shard}");
    }
}

#[test]
fn a_set_that_is_not_one_complete_sharding_is_refused() {
    let tree = Tree::copy_of("copy");
    let write = |name: &str, args: &[&str]| {
        let out = run(&tree, args);
        let path = tree.path(name);
        std::fs::write(&path, &out.stdout).unwrap();
        path.display().to_string()
    };
    let a = write("a.json", &["--json", "--shard", "1/2"]);
    let b = write("b.json", &["--json", "--shard", "2/2"]);
    let c3 = write("c.json", &["--json", "--shard", "3/3"]);
    let gated = write(
        "g.json",
        &["--json", "--require-reviewed", "--shard", "2/2"],
    );
    let whole = write("w.json", &["--json"]);
    let sarif = write("s.sarif", &["--format", "sarif", "--shard", "2/2"]);
    let other = Tree::copy_of("copy");
    other.write("content/talks/extra.md", "Sejdeme se v lese...\n");
    let elsewhere = {
        let out = run(&other, &["--json", "--shard", "2/2"]);
        let path = tree.path("elsewhere.json");
        std::fs::write(&path, &out.stdout).unwrap();
        path.display().to_string()
    };
    let broken = tree.path("broken.json");
    std::fs::write(&broken, "{\"totalFiles\": 1,").unwrap();
    let broken = broken.display().to_string();
    for (set, says) in [
        (vec![&a], "2/2 is missing"),
        (vec![&a, &a, &b], "given twice"),
        (vec![&a, &c3], "shards of 2"),
        (vec![&a, &gated], "--require-reviewed"),
        (vec![&a, &whole], "not the report of a --shard run"),
        (vec![&a, &sarif], "all JSON or all SARIF"),
        (vec![&a, &elsewhere], "audited"),
        (
            vec![&a, &broken],
            "broken.json: not a copy-audit JSON report",
        ),
    ] {
        let out = tree
            .copy_audit()
            .args(["report", "merge"])
            .args(&set)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{set:?}: {stderr}");
        assert!(stderr.contains(says), "{set:?}: {stderr}");
        assert!(out.stdout.is_empty());
    }
    // A lone unsharded report is its own merge.
    let out = tree
        .copy_audit()
        .args(["report", "merge", &whole])
        .output()
        .unwrap();
    assert_eq!(out.stdout, std::fs::read(&whole).unwrap());
}

#[test]
fn soil_lock_check_shards_split_the_violations() {
    let tree = Tree::copy_of("soil");
    let text = tree.read("csvstats/sum.tr");
    tree.write(
        "csvstats/sum.tr",
        &text.replacen("```ensures\n", "```ensures @agent\n", 1),
    );
    let check = |extra: &[&str]| {
        let out = tree
            .soil_lock()
            .args(["check", "--require", "verified", "--format", "json"])
            .args(extra)
            .output()
            .unwrap();
        (out.status.code().unwrap(), json(&out.stdout))
    };
    let (code, whole) = check(&[]);
    assert_eq!(code, 1);
    let all: Vec<serde_json::Value> = whole["violations"].as_array().unwrap().clone();
    assert!(all.len() > 3);
    let mut joined = Vec::new();
    for k in 1..=3 {
        let (code, part) = check(&["--shard", &format!("{k}/3")]);
        assert_eq!(part["shard"], format!("{k}/3"));
        let mine = part["violations"].as_array().unwrap();
        assert_eq!(code, if mine.is_empty() { 0 } else { 1 });
        joined.extend(mine.iter().cloned());
    }
    let key = |v: &serde_json::Value| v.to_string();
    let mut a: Vec<String> = all.iter().map(key).collect();
    let mut b: Vec<String> = joined.iter().map(key).collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
}
