//! The config reader never panics, whatever the YAML.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = lockgraph::config::parse(text, std::path::Path::new("/fuzz/.copy-editor.yaml"));
});
