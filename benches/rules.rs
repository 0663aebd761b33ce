//! The rule engine over prose views: every built-in rule on every view, as the `hits`
//! query runs them, for a Czech Markdown corpus and the bilingual JSON corpus; then the
//! Czech and the English rules alone, and each rule alone on the Czech Markdown.
//! Throughput is in bytes of view text, which is what rules scan.
//!
//! `cargo bench --bench rules`

#[path = "support/corpus.rs"]
mod corpus;

use corpus::{CS, Rng};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use lockgraph_queries::copy::extract::{Format, extract};
use lockgraph_queries::copy::rules::{Hit, Hits, Rule, RuleSet, Scans};
use lockgraph_queries::copy::view::View;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

struct Corpus {
    name: &'static str,
    views: Vec<View>,
}

impl Corpus {
    fn new(name: &'static str, format: Format, text: &str) -> Corpus {
        let views = extract(format, text).expect("the generated corpus extracts");
        Corpus { name, views }
    }

    fn view_bytes(&self) -> u64 {
        self.views.iter().map(|v| v.text.len() as u64).sum()
    }
}

fn corpora() -> Vec<Corpus> {
    let mut rng = Rng(42);
    vec![
        Corpus::new(
            "markdown_cs",
            Format::Markdown,
            &corpus::markdown(&mut rng, CS, 300_000),
        ),
        Corpus::new(
            "json_6k_items",
            Format::Json,
            &corpus::bilingual_json(&mut rng, 6_000).0,
        ),
    ]
}

/// Every rule on every view, in the `hits` query's order, sharing the view's scans and
/// skipping the rules whose triggers it lacks, as the query does; returns the number of
/// hits.
fn run(rules: &[Arc<dyn Rule>], views: &[View]) -> usize {
    let mut hits = 0;
    let mut count = |found: &mut Vec<Hit>| {
        hits += found.len();
        found.clear();
    };
    for view in views {
        let scans = Scans::new(view);
        let present = scans.triggers();
        for rule in rules {
            if !rule.triggers().intersects(present) {
                continue;
            }
            let mut out = Hits::draining_into(&mut count);
            rule.check_in(&scans, &mut out);
            out.flush();
        }
    }
    hits
}

/// The built-in rules scoped to `language`.
fn profile(set: &RuleSet, language: &str) -> RuleSet {
    RuleSet::from_rules(
        set.rules()
            .iter()
            .filter(|r| r.meta().languages.iter().any(|l| l == language))
            .cloned()
            .collect(),
    )
}

fn bench_profiles(c: &mut Criterion) {
    let builtin = RuleSet::builtin();
    let profiles = [
        ("all", builtin.clone()),
        ("cs", profile(&builtin, "cs")),
        ("en", profile(&builtin, "en")),
    ];
    let mut group = c.benchmark_group("rules");
    for corpus in corpora() {
        group.throughput(Throughput::Bytes(corpus.view_bytes()));
        for (name, set) in &profiles {
            let hits = run(set.rules(), &corpus.views);
            eprintln!(
                "rules/{}/{name}: {} rules, {} views, {} view bytes, {hits} hits",
                corpus.name,
                set.rules().len(),
                corpus.views.len(),
                corpus.view_bytes()
            );
            group.bench_function(BenchmarkId::new(corpus.name, name), |b| {
                b.iter(|| run(set.rules(), black_box(&corpus.views)))
            });
        }
    }
    group.finish();
}

/// Each rule alone on the Czech Markdown views: where the time of `all` goes.
fn bench_each_rule(c: &mut Criterion) {
    let builtin = RuleSet::builtin();
    let corpus = corpora().swap_remove(0);
    let mut group = c.benchmark_group("rules/each_on_markdown_cs");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    group.throughput(Throughput::Bytes(corpus.view_bytes()));
    for rule in builtin.rules() {
        let one = std::slice::from_ref(rule);
        group.bench_function(rule.meta().id.as_str(), |b| {
            b.iter(|| run(one, black_box(&corpus.views)))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench_profiles, bench_each_rule
}
criterion_main!(benches);
