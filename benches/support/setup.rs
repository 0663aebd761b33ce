//! The engine's setup with the built-in rules and a Czech default, as a config with no
//! custom rules gives it: shared by the benches that call the engine directly.

#![allow(dead_code)]

use lockgraph_queries::copy::engine::{RuleTable, Setup};
use lockgraph_queries::copy::rules::RuleSet;
use lockgraph_queries::hash::ContentHash;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The built-in rules, Czech by default, with the `declared` languages.
pub fn builtin(declared: &[&str]) -> Setup {
    Setup {
        rules: RuleTable {
            set: Arc::new(RuleSet::builtin()),
            kinds: BTreeMap::new(),
            fingerprint: ContentHash::of(b"builtin"),
        },
        default_language: "cs".into(),
        declared: declared.iter().map(|&l| l.into()).collect(),
        unknown_language_default: false,
        ignore_marker: "copy-editor: ignore".into(),
        prompt_outdated: false,
    }
}
