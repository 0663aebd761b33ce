//! Builds a corpus from real content: the three commits of the bilingual workshop
//! repository in `../shared/conformance/harness-lab/`, copied `copies` times side by side
//! under one root, with one lockfile holding every copy's real entries (agent-written,
//! reviewed, `promptVersion: 2`; the stale ones stay stale) and the repository's own
//! config with its globs moved under `copies/`.
//!
//! `cargo run --release --example real_corpus -- <dir> <copies>`
//!
//! Per copy of the three trees: 51 files in scope (Markdown and one large bilingual JSON
//! file each), and about 2.3 MB of lockfile, most of it the JSON file's thousands of
//! spans, so the lockfile weighs what it weighs in the real repository against the files
//! it describes. The synthetic corpus (`gen_corpus`) has many more, smaller files; this
//! one is what the readers of the lockfile meet in the field.

use lockgraph_queries::copy::lockfile::{self, Lockfile};
use std::fs;
use std::path::{Path, PathBuf};

const COMMITS: [&str; 3] = ["b14f4c7", "ff85c84", "58cfea7"];

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == ".reference" || name == ".copy-editor.lock.json" || name == ".copy-editor.yaml" {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
            let mut perms = fs::metadata(&target).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            fs::set_permissions(&target, perms).unwrap();
        }
    }
}

/// The real config's include and exclude globs, each moved under every copy.
const CONFIG: &str = "\
# Built by benches/real_corpus.rs from the real repository's .copy-editor.yaml.
extends:
  - czech
language: cs
paths:
  include:
    - copies/**/workshop-content/agenda.json
    - copies/**/content/project-briefs/**/*.md
    - copies/**/content/challenge-cards/**/*.md
    - copies/**/content/facilitation/**/*.md
    - copies/**/content/talks/**/*.md
    - copies/**/workshop-skill/**/*.md
    - copies/**/materials/**/*.md
  exclude:
    - \"**/locales/en/**\"
    - \"**/content/style-guide.md\"
    - \"**/content/style-examples.md\"
    - \"**/content/czech-reject-list.md\"
    - \"**/content/czech-editorial-review-checklist.md\"
    - \"**/workshop-skill/SKILL.md\"
    - \"**/workshop-skill/facilitator.md\"
    - \"**/workshop-skill/reference.md\"
    - \"**/materials/coaching-codex.md\"
ignore_marker: \"copy-editor: ignore\"
";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(copies)) = (args.first(), args.get(1)) else {
        eprintln!("usage: real_corpus <dir> <copies>");
        std::process::exit(2);
    };
    let copies: usize = copies.parse().expect("copies is a number");
    let shared: PathBuf =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/harness-lab");
    let dir = Path::new(dir);
    let mut merged: Option<Lockfile> = None;
    for commit in COMMITS {
        let tree = shared.join(commit);
        let text = fs::read_to_string(tree.join(".copy-editor.lock.json")).unwrap();
        let lock = lockfile::parse(&text).unwrap();
        for n in 0..copies {
            let prefix = format!("copies/{n:04}/{commit}");
            copy_tree(&tree, &dir.join(&prefix));
            let merged = merged.get_or_insert_with(|| Lockfile::new(lock.segmenter.clone()));
            for (path, entry) in &lock.files {
                merged
                    .files
                    .insert(format!("{prefix}/{path}"), entry.clone());
            }
        }
    }
    let merged = merged.expect("three commits");
    fs::write(dir.join(".copy-editor.yaml"), CONFIG).unwrap();
    fs::write(
        dir.join(".copy-editor.lock.json"),
        lockfile::to_canonical_string(&merged),
    )
    .unwrap();
    eprintln!(
        "{}: {} copies of {} trees, {} lockfile entries",
        dir.display(),
        copies,
        COMMITS.len(),
        merged.files.len()
    );
}
