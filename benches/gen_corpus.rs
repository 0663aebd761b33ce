//! Generates a deterministic corpus shaped like real content, for the scaling script and
//! for profiling: `cargo run --release --example gen_corpus -- copy <dir> <files> [seed]`
//! or `... soil <dir> <definitions> [seed]`. `--mistakes <percent>` sets how many words of
//! the copy corpus are typography mistakes (default 2, a harsh case; an audited repository
//! is nearer 0.1).
//!
//! The copy corpus is mostly Czech and English Markdown of 0.3–8 KB with fences, inline
//! code and links, bilingual JSON files (one of about 1 MB with thousands of leaf strings),
//! some TSX, a `.copy-editor.yaml` and a lockfile whose entries are all fresh — including
//! one JSON entry with a span per string. The soil corpus is a root of N definitions with a
//! random call DAG plus a few mutual-recursion pairs, private helpers, definition and
//! reference oracles, and canonical, consistent sidecars. The generators live in
//! `support/corpus.rs`, shared with the criterion benches.

#[path = "support/corpus.rs"]
mod corpus;

use std::fs;
use std::path::Path;

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: gen_corpus copy|soil <dir> <count> [seed] [--mistakes <percent>]";
    if let Some(at) = args.iter().position(|a| a == "--mistakes") {
        let percent: f64 = args
            .get(at + 1)
            .and_then(|p| p.parse().ok())
            .filter(|p| (0.0..=100.0).contains(p))
            .unwrap_or_else(|| {
                eprintln!("--mistakes takes a percentage from 0 to 100\n{usage}");
                std::process::exit(2);
            });
        corpus::set_mistakes_per_10k((percent * 100.0).round() as usize);
        args.drain(at..at + 2);
    }
    let (Some(kind), Some(dir), Some(count)) = (args.first(), args.get(1), args.get(2)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let count: usize = count.parse().expect("count is a number");
    let seed: u64 = args
        .get(3)
        .map_or(42, |s| s.parse().expect("seed is a number"));
    let dir = Path::new(dir);
    match kind.as_str() {
        "copy" => {
            corpus::copy_corpus(count, seed, |rel, text| write(dir, rel, text));
        }
        "soil" => corpus::soil_corpus(count, seed, |rel, text| write(dir, rel, text)),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
}
