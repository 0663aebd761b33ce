//! One long line with many findings: a Markdown file of a single 1.4 MB paragraph holding
//! 120,000 findings, audited with no lockfile entry (`engine::report_once`, what a cold
//! run does per file). Positions were once counted from the line's start per finding:
//! this file took 64 s; counted incrementally, about a tenth of a second. Time must grow
//! linearly with the line, which the two sizes side by side show.
//!
//! `cargo bench --bench long_line`

#[path = "support/setup.rs"]
mod setup;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use lockgraph_queries::copy::engine::{self, Source};
use lockgraph_queries::copy::extract::Format;
use std::hint::black_box;
use std::time::Duration;

/// `repeats` sentences on one line, three findings each (a space before a comma, three
/// dots for an ellipsis, a number before its unit without a no-break space).
fn line(repeats: usize) -> String {
    format!(
        "# Nadpis\n\n{}\n",
        "Toto je slovo , které ... a 5 km. ".repeat(repeats)
    )
}

fn bench(c: &mut Criterion) {
    let setup = setup::builtin(&["cs", "en"]);
    let mut group = c.benchmark_group("one long line");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    for repeats in [10_000, 40_000] {
        let text = line(repeats);
        let source = Source::new(text.clone().into_bytes());
        let found = engine::report_once(&setup, Format::Markdown, &source, None, None);
        assert_eq!(
            found.findings.len(),
            3 * repeats,
            "three findings a sentence"
        );
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(repeats),
            &source,
            |b, source| {
                b.iter(|| {
                    engine::report_once(&setup, Format::Markdown, black_box(source), None, None)
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
