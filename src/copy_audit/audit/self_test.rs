//! `--self-test`: every built-in rule run on its own good and bad examples; it needs no
//! config.

use super::super::cli::OutputFormat;
use super::super::{Failure, Outcome};
use lockgraph_queries::copy::rules::RuleSet;

pub fn self_test(format: OutputFormat) -> Result<Outcome, Failure> {
    let set = RuleSet::builtin();
    let failures = lockgraph_queries::copy::rules::self_test(&set);
    let examples: usize = set
        .rules()
        .iter()
        .map(|r| r.meta().bad.len() + r.meta().good.len())
        .sum();
    if format == OutputFormat::Json {
        let json = serde_json::json!({
            "rules": set.rules().len(),
            "examples": examples,
            "failures": failures.iter().map(|f| f.to_string()).collect::<Vec<_>>(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&json).expect("JSON values serialise")
        );
    } else {
        for f in &failures {
            println!("FAIL {f}");
        }
        println!(
            "self-test: {} rules, {} examples, {} failed",
            set.rules().len(),
            examples,
            failures.len()
        );
    }
    Ok(if failures.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Failed
    })
}
