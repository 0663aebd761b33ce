//! The Soil reader and printer: parsing never panics; a parsed file prints to a text that
//! parses and prints to itself (the canonical form is a fixpoint), and hashing a parsed
//! file never panics. The one exception to the fixpoint is trellis's own: a definition
//! whose signature or measure ends in bare names including its own name reads back with
//! the equation starting there (`print::head_reads_back_differently`); its text must
//! still parse.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lockgraph_queries::soil::lang::{hash_form, parse, print};

fuzz_target!(|input: (bool, &str)| {
    let (private, text) = input;
    let name = if private { "_private.soil" } else { "f.soil" };
    if let Ok(file) = parse::parse_file(text, name) {
        let printed = print::print_file(&file);
        let reparsed = parse::parse_file(&printed, name).expect("the printer's output parses");
        if !file.defs.iter().any(print::head_reads_back_differently) {
            assert_eq!(print::print_file(&reparsed), printed);
        }
        let _ = hash_form::hash_forms(&file);
    }
});
