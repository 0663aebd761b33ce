//! The Czech gate of cs-R1b and cs-R8 on the real repository, in the state every
//! repository starts in: no lockfile, so every file is audited with provisional spans.
//!
//! - In Markdown, every conjunction the reference's own pattern finds is ours too, except
//!   on the English lines named below: the gate reads words as well as letters, so Czech
//!   typed without a diacritic is Czech.
//! - In `agenda.json`, the untranslated English strings of the Czech locale (judged by
//!   whatlang, not by our identifier) get no cs-R1b or cs-R8 finding.

mod common;

use common::{Tree, json};
use lockgraph_queries::copy::extract::{Format, extract};
use lockgraph_queries::text::{LineCol, LineIndex};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const COMMITS: [&str; 3] = ["b14f4c7", "ff85c84", "58cfea7"];

/// Lines where the reference's pattern matches and ours, rightly, does not: English text
/// in the Czech repository's Markdown (the English notes of a demo script, and the
/// English facilitator skill).
const ENGLISH_LINES: &[(&str, &str, &[u32])] = &[
    (
        "b14f4c7",
        "content/talks/codex-demo-script.md",
        &[19, 24, 30],
    ),
    (
        "b14f4c7",
        "workshop-skill/SKILL-facilitator.md",
        &[
            33, 35, 41, 43, 49, 60, 68, 76, 81, 82, 86, 91, 95, 127, 128, 132, 134, 140, 148, 151,
            154,
        ],
    ),
];

fn shared() -> Option<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/harness-lab");
    if dir.exists() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("LOCKGRAPH_SKIP_CONFORMANCE").is_some(),
        "{} is missing (LOCKGRAPH_SKIP_CONFORMANCE=1 skips this)",
        dir.display()
    );
    eprintln!("skipped: {} is missing", dir.display());
    None
}

/// A copy of the tree without its lockfile, what `copy-audit --json` reported on it, and
/// the files it audited (all of them unsegmented). `unfixed`: with every no-break space of
/// its Markdown an ordinary space again, as the repository was before its typography
/// pass (the committed Markdown has almost no conjunction left to find).
fn audit_without_lockfile(tree: &Path, unfixed: bool) -> (Tree, serde_json::Value, Vec<String>) {
    let copy = Tree::copy_of_dir(tree);
    std::fs::remove_file(copy.path(".copy-editor.lock.json")).unwrap();
    if unfixed {
        for entry in walkdir(copy.dir.path()) {
            if entry.extension().is_some_and(|e| e == "md") {
                let text = std::fs::read_to_string(&entry).unwrap();
                std::fs::write(&entry, text.replace('\u{a0}', " ")).unwrap();
            }
        }
    }
    let run = |args: &[&str]| {
        let out = copy
            .copy_audit()
            .args(["--config", ".copy-editor.yaml", "--json"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
        json(&out.stdout)
    };
    let report = run(&[]);
    let files = run(&["--list-unsegmented"])["unsegmented"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect();
    (copy, report, files)
}

/// `(line, column)` of each finding of `rule` in each file, by relative path.
fn findings(report: &serde_json::Value, rule: &str) -> BTreeMap<String, BTreeSet<(u32, u32)>> {
    let mut out: BTreeMap<String, BTreeSet<(u32, u32)>> = BTreeMap::new();
    for f in report["findings"].as_array().unwrap() {
        if f["ruleId"] == rule {
            let at = (
                f["line"].as_u64().unwrap() as u32,
                f["column"].as_u64().unwrap() as u32,
            );
            out.entry(f["relativePath"].as_str().unwrap().to_owned())
                .or_default()
                .insert(at);
        }
    }
    out
}

#[test]
fn every_conjunction_the_reference_finds_in_czech_markdown_is_found() {
    let Some(shared) = shared() else { return };
    // The reference's cs-R1b pattern: a sentence mark and a space, or whitespace, then
    // `a` or `i`, one space and a letter.
    let reference = regex::Regex::new(r"(?:[.!?;:,] |[ \t\n])([aiAI]) \p{L}").unwrap();
    let (mut theirs, mut found) = (0, 0);
    let mut missed = Vec::new();
    for commit in COMMITS {
        let (tree, report, files) = audit_without_lockfile(&shared.join(commit), true);
        let ours = findings(&report, "cs-R1b-nbsp-conjunction");
        for path in files.iter().filter(|p| p.ends_with(".md")) {
            let text = tree.read(path);
            let index = LineIndex::new(&text);
            for view in extract(Format::Markdown, &text).unwrap() {
                // The reference reads a chunk from its start: a leading letter counts.
                let padded = format!(" {}", view.text);
                for m in reference.captures_iter(&padded) {
                    let letter = m.get(1).unwrap().start() - 1;
                    let at = index.line_col(&text, view.source_offset(letter));
                    theirs += 1;
                    if ours
                        .get(path)
                        .is_some_and(|o| o.contains(&(at.line, at.column)))
                    {
                        found += 1;
                    } else {
                        let line = text.lines().nth(at.line as usize - 1).unwrap();
                        missed.push((commit, path.clone(), at.line, line.to_owned()));
                    }
                }
            }
        }
    }
    eprintln!("cs-R1b in Markdown without a lockfile: {found} of the reference's {theirs}");
    for (commit, path, line, text) in &missed {
        eprintln!("missed: {commit} {path}:{line}: {text}");
    }
    assert!(theirs > 100, "the pattern finds conjunctions: {theirs}");
    let named: BTreeSet<(&str, &str, u32)> = ENGLISH_LINES
        .iter()
        .flat_map(|&(c, p, lines)| lines.iter().map(move |&l| (c, p, l)))
        .collect();
    let missed_at: BTreeSet<(&str, &str, u32)> = missed
        .iter()
        .map(|(c, p, l, _)| (*c, p.as_str(), *l))
        .collect();
    assert_eq!(missed_at, named, "the misses are exactly the English lines");
}

/// Every file under `dir`.
fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walkdir(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// whatlang's verdict, Czech or English only, on text long enough for it to be sure.
fn english_by_whatlang(text: &str) -> bool {
    let detector =
        whatlang::Detector::with_allowlist(vec![whatlang::Lang::Ces, whatlang::Lang::Eng]);
    text.split_whitespace().count() >= 4
        && detector
            .detect(text)
            .is_some_and(|info| info.lang() == whatlang::Lang::Eng && info.is_reliable())
}

#[test]
fn english_strings_of_the_czech_locale_get_no_czech_gated_finding() {
    let Some(shared) = shared() else { return };
    let mut english_strings = 0;
    for commit in COMMITS {
        let (tree, report, files) = audit_without_lockfile(&shared.join(commit), false);
        let ours = [
            findings(&report, "cs-R1b-nbsp-conjunction"),
            findings(&report, "cs-R8-english-day-month"),
        ];
        for path in files.iter().filter(|p| p.ends_with(".json")) {
            let text = tree.read(path);
            let index = LineIndex::new(&text);
            let czech_locale = extract(Format::Json, &text)
                .unwrap()
                .into_iter()
                .filter(|v| {
                    let hint = v.path_hint.as_deref().unwrap_or_default();
                    hint.split(['.', '[', ']']).any(|s| s == "cs")
                });
            for view in czech_locale.filter(|v| english_by_whatlang(&v.text)) {
                english_strings += 1;
                let range = view.source_range(0..view.text.len());
                for (line, column) in ours.iter().filter_map(|o| o.get(path)).flatten() {
                    let at = LineCol {
                        line: *line,
                        column: *column,
                    };
                    let offset = index.offset(&text, at).unwrap();
                    assert!(
                        !range.contains(&offset),
                        "{commit} {path}:{line}:{column}: a Czech-gated finding in the \
                         English {:?}",
                        view.text
                    );
                }
            }
        }
    }
    assert!(
        english_strings > 0,
        "the Czech locale holds untranslated English strings"
    );
}
