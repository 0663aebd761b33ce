//! `LOCKGRAPH_LOG`: what a run did and how long each phase took, through `tracing`.
//!
//! The variable is an `EnvFilter` (`info`, `debug`, `lockgraph=info,salsa=info`, …). At
//! `info` each phase of a run prints its wall time and the resident memory at its end,
//! `timing: <phase> <ms> ms rss <MB> MB` on stderr — the first thing to look at before a
//! profile, and what `docs/performance.md` quotes. At `debug` the salsa queries executed
//! are printed too, one line each: what a `--watch` or server edit re-ran. (salsa reports
//! them at its `info` level; they are shown from `debug` on, since a cold run executes
//! millions, unless the filter names `salsa` itself.) `LOCKGRAPH_TIMINGS=1`, the older
//! name, means `LOCKGRAPH_LOG=info`.
//!
//! Without the variable no subscriber is installed, and each phase and each of salsa's
//! events costs the check of one atomic (`tracing`'s global level, off).

use std::time::Instant;
use tracing::Subscriber;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing_subscriber::filter::{EnvFilter, LevelFilter, filter_fn};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

/// The target of phases and their counts: printed by [`PhaseLines`], not by the general
/// formatter.
const PHASE: &str = "lockgraph::phase";

/// Installs the subscriber `LOCKGRAPH_LOG` asks for, if it asks for one. A filter that
/// does not parse is a warning naming the variable; the run goes on without logging.
pub fn init() {
    let spec = match std::env::var("LOCKGRAPH_LOG") {
        Ok(spec) if !spec.trim().is_empty() => spec,
        _ if std::env::var_os("LOCKGRAPH_TIMINGS").is_some_and(|v| v != "0") => "info".into(),
        _ => return,
    };
    let filter = match filter(&spec) {
        Ok(filter) => filter,
        Err(e) => {
            eprintln!("warning: LOCKGRAPH_LOG={spec:?} is not a filter ({e}); nothing is logged");
            return;
        }
    };
    let lines = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_timer(tracing_subscriber::fmt::time::uptime())
        .with_filter(filter_fn(|meta| meta.target() != PHASE));
    // Another subscriber (a test harness's) may be set already: then that one reports.
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(PhaseLines)
        .with(lines)
        .try_init();
}

/// `spec` as a filter, salsa's events raised to `debug` unless `spec` names salsa.
fn filter(spec: &str) -> Result<EnvFilter, tracing_subscriber::filter::ParseError> {
    let filter = EnvFilter::builder().parse(spec)?;
    if spec.contains("salsa") {
        return Ok(filter);
    }
    let queries = filter
        .max_level_hint()
        .is_some_and(|level| level >= LevelFilter::DEBUG);
    let salsa = if queries { "salsa=info" } else { "salsa=warn" };
    Ok(filter.add_directive(salsa.parse()?))
}

/// Starts a phase of a run: it ends, and prints its time at `info`, when the returned
/// guard is dropped (on the thread that started it).
pub fn phase(name: &'static str) -> tracing::span::EnteredSpan {
    tracing::info_span!(target: PHASE, "phase", name).entered()
}

/// Prints a phase's time measured elsewhere (work spread over the workers, summed).
pub fn report(name: &str, time: std::time::Duration) {
    tracing::info!(target: PHASE, phase = name, ms = time.as_secs_f64() * 1000.0);
}

/// Prints a count the phases are explained by (files read, say); the count is made only
/// when it is printed.
pub fn count(name: &str, n: impl FnOnce() -> usize) {
    if tracing::enabled!(target: PHASE, tracing::Level::INFO) {
        tracing::info!(target: PHASE, count = name, n = n() as u64);
    }
}

/// Prints phases as `timing:` lines: a span's wall time from its creation to its close,
/// and [`report`]'s and [`count`]'s events.
struct PhaseLines;

/// When a phase span began.
struct Began(Instant);

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for PhaseLines {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().target() != PHASE {
            return;
        }
        if let Some(span) = ctx.span(id) {
            let mut fields = Fields::default();
            attrs.record(&mut fields);
            let mut ext = span.extensions_mut();
            ext.insert(Began(Instant::now()));
            ext.insert(fields);
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let ext = span.extensions();
        if let (Some(Began(start)), Some(fields)) = (ext.get::<Began>(), ext.get::<Fields>()) {
            print_time(&fields.name, start.elapsed().as_secs_f64() * 1000.0);
        }
    }

    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() != PHASE {
            return;
        }
        let mut fields = Fields::default();
        event.record(&mut fields);
        match (fields.ms, fields.n) {
            (Some(ms), _) => print_time(&fields.name, ms),
            (None, Some(n)) => eprintln!("timing: {:<28} {n:9}", fields.name),
            (None, None) => {}
        }
    }
}

fn print_time(name: &str, ms: f64) {
    eprintln!(
        "timing: {name:<28} {ms:9.1} ms   rss {:>5} MB",
        resident_mb()
    );
}

/// The fields of a phase span or event.
#[derive(Default)]
struct Fields {
    name: String,
    ms: Option<f64>,
    n: Option<u64>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if matches!(field.name(), "name" | "phase" | "count") {
            self.name = value.to_owned();
        }
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        if field.name() == "ms" {
            self.ms = Some(value);
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if field.name() == "n" {
            self.n = Some(value);
        }
    }

    fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
}

/// The resident set size now, from `/proc/self/statm` (0 where there is none).
fn resident_mb() -> u64 {
    let pages = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .unwrap_or(0);
    pages * 4096 / (1 << 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn salsa_queries_show_from_debug_on_unless_the_filter_names_salsa() {
        let shown = |spec: &str| filter(spec).unwrap().to_string();
        assert!(shown("info").contains("salsa=warn"), "{}", shown("info"));
        assert!(shown("debug").contains("salsa=info"));
        assert!(shown("lockgraph=debug").contains("salsa=info"));
        assert!(!shown("info,salsa=trace").contains("salsa=warn"));
        assert!(filter("info,[").is_err());
    }
}
