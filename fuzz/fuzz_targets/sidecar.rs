//! The sidecar reader never panics; what it accepts the canonical writer writes, and the
//! reader reads back the same (read → write → read is the identity).
#![no_main]

use libfuzzer_sys::fuzz_target;
use lockgraph_queries::soil::sidecar;

fuzz_target!(|text: &str| {
    if let Ok(read) = sidecar::parse(text) {
        let written = sidecar::to_canonical_string(&read);
        let again = sidecar::parse(&written).expect("the writer's output reads");
        assert_eq!(again, read);
        assert_eq!(sidecar::to_canonical_string(&again), written);
    }
});
