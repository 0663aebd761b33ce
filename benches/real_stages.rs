//! Each stage of a cold audit on the real files, in memory: the twelve Czech Markdown files
//! of the real repository's newest tree (`../shared/conformance/harness-lab/58cfea7`, the
//! ones its config puts in scope, the corpus `real_tree` scales) and the bilingual
//! `agenda.json` of `b14f4c7`. Per stage, as the engine runs it for a file:
//!
//! - `extract`: text to prose views (with path hints, as for a file without a fresh entry);
//! - `language`: the language evidence of every view (what the segmenter and the Czech
//!   gate read);
//! - `extract and structural`: extraction again, then the provisional spans
//!   (`structural::span_index`): fresh views each time, since a view keeps its evidence;
//! - `audit`: the whole report of a file (`engine::report_once`) in each state its entry
//!   can be in: none (provisional spans), the agent's (one whole-file span for a Markdown
//!   file; the real reviewed entry of `agenda.json`).
//!
//! Throughput is in bytes of the files. `cargo bench --bench real_stages` (needs
//! `../shared/`; without it the bench says so and measures nothing). Its times move with
//! the machine's load (a change of 30% between two runs of the same code was seen here):
//! compare two builds by their instructions, with `real_report` under callgrind.

#[path = "support/real_files.rs"]
mod real_files;
#[path = "support/setup.rs"]
mod setup;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lockgraph_queries::copy::engine::{self, Source};
use lockgraph_queries::copy::extract::{Format, PathHints, extract_views};
use lockgraph_queries::copy::language;
use lockgraph_queries::copy::structural;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/harness-lab");
    if !shared.exists() {
        eprintln!("skipped: {} is missing", shared.display());
        return;
    }
    let files = real_files::audited(&shared);
    let setup = setup::builtin(&["cs"]);
    let declared = ["cs".to_owned()];
    let segmenting = structural::Setup {
        declared: &declared,
        default_language: "cs",
        locale: None,
    };
    let views: Vec<_> = files
        .iter()
        .map(|f| extract_views(f.format, &f.text, PathHints::With).unwrap())
        .collect();
    let sources: Vec<Source> = files
        .iter()
        .map(|f| Source::new(f.text.clone().into_bytes()))
        .collect();
    for (name, format) in [
        ("markdown", Format::Markdown),
        ("agenda.json", Format::Json),
    ] {
        let chosen: Vec<usize> = (0..files.len())
            .filter(|&i| files[i].format == format)
            .collect();
        let bytes: u64 = chosen.iter().map(|&i| files[i].text.len() as u64).sum();
        let mut group = c.benchmark_group(format!("real {name}"));
        group
            .throughput(Throughput::Bytes(bytes))
            .sample_size(20)
            .measurement_time(Duration::from_secs(4));
        group.bench_function("extract", |b| {
            b.iter(|| {
                for &i in &chosen {
                    let f = &files[i];
                    black_box(extract_views(f.format, &f.text, PathHints::With).unwrap());
                }
            })
        });
        group.bench_function("language", |b| {
            b.iter(|| {
                for &i in &chosen {
                    for view in &views[i] {
                        black_box(language::evidence(&view.text));
                    }
                }
            })
        });
        group.bench_function("extract and structural", |b| {
            b.iter(|| {
                for &i in &chosen {
                    let f = &files[i];
                    // Fresh views each time: a view counts its evidence once and keeps it.
                    let views = extract_views(f.format, &f.text, PathHints::With).unwrap();
                    black_box(structural::span_index(
                        f.format,
                        &f.text,
                        &views,
                        &segmenting,
                    ));
                }
            })
        });
        for (state, agent) in [("audit, no entry", false), ("audit, agent's entry", true)] {
            group.bench_function(state, |b| {
                b.iter(|| {
                    for &i in &chosen {
                        let entry = agent.then_some(&files[i].agent);
                        black_box(engine::report_once(
                            &setup,
                            files[i].format,
                            &sources[i],
                            entry,
                            None,
                        ));
                    }
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
