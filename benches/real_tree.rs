//! Builds a large tree from real content, with the lockfiles of the states a repository is
//! in: the Czech Markdown files of the real bilingual repository's newest tree
//! (`../shared/conformance/harness-lab/58cfea7`, the files its config puts in scope),
//! copied round-robin to `<markdown>` files, each made unique by a footer line (with one
//! finding in it), plus one
//! copy of the bilingual `agenda.json` of `b14f4c7` per 5,000 Markdown files (at least
//! one), byte for byte.
//!
//! `cargo run --release --example real_tree -- <dir> <markdown files>`
//!
//! The tree is `<dir>/tree`; beside it, in `<dir>/states/` (outside the tree, so that no
//! walk or floor reads them), the lockfiles the scaling script swaps in:
//!
//! - `agent.json`: fresh entries shaped as the real agent writes them: one whole-file
//!   `cs prose` span per Markdown file, reviewed, and the real reviewed `agenda.json`
//!   entry;
//! - `stale.json`: the same entries recorded for the files as they were before an edit to
//!   each (the Markdown files without their footer, `agenda.json` without its final line
//!   break), so every entry is stale.
//!
//! The state without a lockfile is the tree without `.copy-editor.lock.json`; the state
//! with `--offline`'s entries is made by running `copy-audit --offline` on it.

#[path = "support/real_files.rs"]
mod real_files;

use lockgraph_queries::copy::lockfile::{self, Backend, Entry, Lockfile, Segmenter, Span};
use lockgraph_queries::hash::ContentHash;
use real_files::{MARKDOWN, whole_file};
use std::fs;
use std::path::{Path, PathBuf};

/// Markdown files per copy of `agenda.json`.
const MARKDOWN_PER_AGENDA: usize = 5_000;

const CONFIG: &str = "\
# Built by benches/real_tree.rs: the real repository's profile, over the copied files.
extends:
  - czech
language: cs
paths:
  include:
    - \"md/**/*.md\"
    - \"json/**/agenda.json\"
ignore_marker: \"copy-editor: ignore\"
";

/// The footer that makes copy `n` unique: a line of Czech prose with one typical
/// mistake (an ordinary space after the preposition `v`), so that each file carries about
/// one finding, as the files of an audited repository do.
fn footer(n: usize) -> String {
    format!("\nKopie {n} v repozitáři.\n")
}

fn entry(bytes: &str, spans: Vec<Span>) -> Entry {
    Entry {
        content_hash: ContentHash::of(bytes.as_bytes()).to_string(),
        segmented_at: "2026-04-12T21:18:18.965Z".to_owned(),
        reviewed_by: Some("bench@real-tree".to_owned()),
        spans,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(count)) = (args.first(), args.get(1)) else {
        eprintln!("usage: real_tree <dir> <markdown files>");
        std::process::exit(2);
    };
    let count: usize = count.parse().expect("a number of Markdown files");
    let shared: PathBuf =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/harness-lab");
    let states = Path::new(dir).join("states");
    let dir = &Path::new(dir).join("tree");
    let sources: Vec<(&str, String)> = MARKDOWN
        .iter()
        .map(|rel| {
            (
                *rel,
                fs::read_to_string(shared.join("58cfea7").join(rel)).unwrap(),
            )
        })
        .collect();
    let agenda = fs::read_to_string(shared.join("b14f4c7/workshop-content/agenda.json")).unwrap();
    let reviewed = lockfile::parse(
        &fs::read_to_string(shared.join("b14f4c7/.copy-editor.lock.json")).unwrap(),
    )
    .unwrap();
    let agenda_entry = reviewed.files["workshop-content/agenda.json"].clone();
    assert_eq!(
        agenda_entry.content_hash,
        ContentHash::of(agenda.as_bytes()).to_string(),
        "the real agenda.json entry is fresh"
    );
    let segmenter = Segmenter {
        backend: Backend::Agent,
        prompt_version: Some(2),
    };
    let mut agent = Lockfile::new(segmenter.clone());
    let mut stale = Lockfile::new(segmenter);
    for n in 0..count {
        let (rel, text) = &sources[n % sources.len()];
        let name = Path::new(rel).file_name().unwrap().to_str().unwrap();
        let path = format!(
            "md/{:03}/{:03}/{n:07}-{name}",
            n / 1_000_000,
            n / 1_000 % 1_000
        );
        let bytes = format!("{text}{}", footer(n));
        let target = dir.join(&path);
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::write(&target, &bytes).unwrap();
        agent
            .files
            .insert(path.clone(), entry(&bytes, vec![whole_file(&bytes)]));
        stale
            .files
            .insert(path, entry(text, vec![whole_file(text)]));
    }
    for n in 0..count.div_ceil(MARKDOWN_PER_AGENDA).max(1) {
        let path = format!("json/{n:03}/agenda.json");
        let target = dir.join(&path);
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::write(&target, &agenda).unwrap();
        agent.files.insert(path.clone(), agenda_entry.clone());
        let before = agenda.strip_suffix('\n').expect("ends with a line break");
        let mut old = agenda_entry.clone();
        old.content_hash = ContentHash::of(before.as_bytes()).to_string();
        stale.files.insert(path, old);
    }
    fs::write(dir.join(".copy-editor.yaml"), CONFIG).unwrap();
    fs::create_dir_all(&states).unwrap();
    for (name, lock) in [("agent.json", &agent), ("stale.json", &stale)] {
        lock.validate().expect("a valid lockfile");
        fs::write(states.join(name), lockfile::to_canonical_string(lock)).unwrap();
    }
    eprintln!(
        "{}: {count} Markdown files, {} agenda.json copies",
        dir.display(),
        agent.files.len() - count
    );
}
