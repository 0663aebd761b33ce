//! The lockfile readers: the strict one never panics; what it accepts, the canonical
//! writer writes and the strict reader reads back the same (read → write → read is the
//! identity); and the fast path (`read`) agrees with the strict reader on every text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lockgraph_queries::copy::lockfile;

fuzz_target!(|text: &str| {
    let strict = lockfile::parse(text);
    let fast = lockfile::read(text);
    assert_eq!(
        strict.is_ok(),
        fast.is_ok(),
        "the readers disagree on {text:?}"
    );
    if let (Ok(strict), Ok(fast)) = (&strict, &fast) {
        assert_eq!(strict, fast);
        let written = lockfile::to_canonical_string(strict);
        let again = lockfile::parse(&written).expect("the writer's output reads");
        assert_eq!(&again, strict);
        assert_eq!(lockfile::to_canonical_string(&again), written);
    }
});
