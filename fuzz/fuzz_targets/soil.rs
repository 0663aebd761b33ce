//! The Soil reader and printer: parsing never panics; a parsed file prints to a text that
//! parses and prints to itself (the canonical form is a fixpoint), and hashing a parsed
//! file never panics. The exceptions are trellis's own: where its printer leaves out
//! parentheses its reader needs (`print::reads_back_differently`), the text may read back
//! as another definition or not at all.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lockgraph_queries::soil::lang::{hash_form, parse, print};

fuzz_target!(|input: (bool, &str)| {
    let (private, text) = input;
    let name = if private { "_private.soil" } else { "f.soil" };
    if let Ok(file) = parse::parse_file(text, name) {
        let printed = print::print_file(&file);
        if !file.defs.iter().any(print::reads_back_differently) {
            let reparsed = parse::parse_file(&printed, name).expect("the printer's output parses");
            assert_eq!(print::print_file(&reparsed), printed);
        }
        let _ = hash_form::hash_forms(file);
    }
});
