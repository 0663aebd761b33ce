//! Extraction throughput per format: from a file's text to its prose views, as an audit
//! extracts them (`copy::extract::extract_views`, without path hints). Inputs come from
//! the corpus generator, in memory.
//!
//! `cargo bench --bench extract`

#[path = "support/corpus.rs"]
mod corpus;

use corpus::{CS, EN, Rng};
use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use lockgraph_queries::copy::extract::{Format, PathHints, extract_views};
use std::hint::black_box;
use std::time::Duration;

/// One input: a name, its format and its text.
struct Input {
    name: &'static str,
    format: Format,
    text: String,
}

fn inputs() -> Vec<Input> {
    let mut rng = Rng(42);
    vec![
        Input {
            name: "markdown_cs",
            format: Format::Markdown,
            text: corpus::markdown(&mut rng, CS, 300_000),
        },
        Input {
            name: "markdown_en",
            format: Format::Markdown,
            text: corpus::markdown(&mut rng, EN, 300_000),
        },
        Input {
            name: "json_6k_items",
            format: Format::Json,
            text: corpus::bilingual_json(&mut rng, 6_000).0,
        },
        Input {
            name: "yaml_5k_items",
            format: Format::Yaml,
            text: corpus::bilingual_yaml(&mut rng, 5_000),
        },
        Input {
            name: "tsx_1k_components",
            format: Format::Script,
            text: corpus::tsx(&mut rng, 1_000),
        },
    ]
}

/// Checks the input extracts into views before timing it, and says what it is.
fn describe(input: &Input) {
    let views = extract_views(input.format, &input.text, PathHints::Without)
        .unwrap_or_else(|e| panic!("{} does not extract: {e}", input.name));
    assert!(!views.is_empty(), "{} has no views", input.name);
    let view_bytes: usize = views.iter().map(|v| v.text.len()).sum();
    eprintln!(
        "extract/{}: {} bytes, {} views, {view_bytes} view bytes",
        input.name,
        input.text.len(),
        views.len()
    );
}

fn size_label(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1}MiB", bytes as f64 / f64::from(1 << 20))
    } else {
        format!("{}KiB", bytes >> 10)
    }
}

fn bench_extract(c: &mut Criterion) {
    let mut group = c.benchmark_group("extract");
    for input in inputs() {
        describe(&input);
        group.throughput(Throughput::Bytes(input.text.len() as u64));
        group.bench_with_input(
            BenchmarkId::new(input.name, size_label(input.text.len())),
            &input,
            |b, input| {
                b.iter(|| extract_views(input.format, black_box(&input.text), PathHints::Without))
            },
        );
    }
    group.finish();
}

/// The 10 MB JSON file with 100k strings, with few samples.
fn bench_extract_big_json(c: &mut Criterion) {
    let input = Input {
        name: "json_100k_strings",
        format: Format::Json,
        text: corpus::bilingual_json(&mut Rng(43), 50_000).0,
    };
    describe(&input);
    let mut group = c.benchmark_group("extract");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(4));
    group.throughput(Throughput::Bytes(input.text.len() as u64));
    group.bench_with_input(
        BenchmarkId::new(input.name, size_label(input.text.len())),
        &input,
        |b, input| {
            b.iter(|| extract_views(input.format, black_box(&input.text), PathHints::Without))
        },
    );
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench_extract, bench_extract_big_json
}
criterion_main!(benches);
