//! The `.tr` parser never panics, its diagnostics point inside the text, and its
//! line-by-line reader of plain bodies reads any body it takes as pulldown-cmark does.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lockgraph_queries::soil::{spec_hash, summary::TrSummary, tr};

fuzz_target!(|text: &str| {
    let parsed = tr::parse("fuzz/f.tr", text);
    let summary = TrSummary::of(&parsed, text);
    let _ = spec_hash::spec_hashes(&parsed, text);
    let lines = text.lines().count() as u32 + 1;
    for e in &summary.errors {
        assert!(e.line <= lines, "{e:?} in {lines} lines");
    }
    assert!(tr::plain_reads_as_the_parser(text), "{text:?}");
});
