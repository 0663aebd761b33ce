//! Each real file's whole report (`engine::report_once`), a number of rounds, in one
//! state of its entry: what `real_stages` times, for counting instructions instead, which
//! do not move with the machine's load the way times do here:
//!
//! ```text
//! cargo build --release --example real_report
//! valgrind --tool=callgrind target/release/examples/real_report markdown none 20
//! ```
//!
//! `markdown` is the twelve Czech Markdown files of `58cfea7`, `agenda` the bilingual
//! `agenda.json` of `b14f4c7`; `none` audits them without an entry (the segmenter's
//! provisional spans), `agent` with the agent's (a whole-file span; the real reviewed
//! entry). It runs on one thread with the binaries' allocator, and prints the findings
//! it counted, so a change that alters them shows. Needs `../shared/`.

#[path = "support/real_files.rs"]
mod real_files;
#[path = "support/setup.rs"]
mod setup;

use lockgraph_queries::copy::engine::{self, Source};
use lockgraph_queries::copy::extract::Format;
use std::path::Path;
use std::process::ExitCode;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "usage: real_report <markdown|agenda> <none|agent> [ROUNDS]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let format = match args.first().map(String::as_str) {
        Some("markdown") => Format::Markdown,
        Some("agenda") => Format::Json,
        _ => return usage(),
    };
    let agent = match args.get(1).map(String::as_str) {
        Some("none") => false,
        Some("agent") => true,
        _ => return usage(),
    };
    let Ok(rounds) = args.get(2).map_or(Ok(20), |r| r.parse::<usize>()) else {
        return usage();
    };
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/harness-lab");
    if !shared.exists() {
        eprintln!("real_report: {} is missing", shared.display());
        return ExitCode::FAILURE;
    }
    let files: Vec<_> = real_files::audited(&shared)
        .into_iter()
        .filter(|f| f.format == format)
        .map(|f| (Source::new(f.text.into_bytes()), agent.then_some(f.agent)))
        .collect();
    let setup = setup::builtin(&["cs"]);
    let mut findings = 0;
    for _ in 0..rounds {
        for (source, entry) in &files {
            let report = engine::report_once(&setup, format, source, entry.as_ref(), None);
            findings += report.findings.len();
        }
    }
    println!(
        "{} files, {rounds} rounds, {findings} findings",
        files.len()
    );
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    eprintln!("{USAGE}");
    ExitCode::from(2)
}
