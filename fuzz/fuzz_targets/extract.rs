//! Each extractor (Markdown, MDX, JSON, YAML, TS/JSX, plain text) never panics, and every
//! view maps back into the source it came from.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lockgraph_queries::copy::extract::{self, Format};

const FORMATS: [Format; 6] = [
    Format::Markdown,
    Format::Mdx,
    Format::Json,
    Format::Yaml,
    Format::Script,
    Format::Text,
];

fuzz_target!(|input: (u8, &str)| {
    let (which, text) = input;
    let format = FORMATS[usize::from(which) % FORMATS.len()];
    if let Ok(views) = extract::extract(format, text) {
        for view in &views {
            let range = view.source_range(0..view.text.len());
            assert!(
                range.start <= range.end && range.end <= text.len(),
                "{range:?}"
            );
        }
    }
});
