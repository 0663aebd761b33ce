//! What the engine is given besides a file: the configured rules as a rule table, and the
//! settings every worker shares.

use super::super::cache::ENGINE_VERSION;
use super::super::workspace::Workspace;
use crate::Failure;
use crate::config::Config;
use lockgraph_queries::copy::engine::{RuleTable, Setup};
use lockgraph_queries::copy::lockfile::Kind;
use lockgraph_queries::copy::rules::{CustomRuleSpec, RuleSet, Severity};
use lockgraph_queries::hash::ContentHash;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The configured rules, ready for the engine.
pub fn rule_table(config: &Config) -> Result<RuleTable, Failure> {
    let severity = config
        .severity
        .iter()
        .map(|(id, level)| {
            Severity::parse(level)
                .map(|s| (id.clone(), s))
                .ok_or_else(|| {
                    Failure::new(format!("rules.severity.{id}: unknown level `{level}`"))
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut kinds = BTreeMap::new();
    let mut custom = Vec::new();
    for rule in &config.custom_rules {
        let rule_kinds = rule
            .kinds
            .iter()
            .map(|k| {
                Kind::parse(k).ok_or_else(|| {
                    Failure::new(format!("custom_rules.{}: unknown kind `{k}`", rule.id))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        kinds.insert(rule.id.clone(), rule_kinds);
        custom.push(CustomRuleSpec {
            id: rule.id.clone(),
            pattern: rule.pattern.clone(),
            message: rule.message.clone(),
            severity: Severity::parse(&rule.severity).ok_or_else(|| {
                Failure::new(format!(
                    "custom_rules.{}: unknown severity `{}`",
                    rule.id, rule.severity
                ))
            })?,
            languages: rule.languages.clone(),
            kinds: rule.kinds.clone(),
            replacement: rule.replacement.clone(),
        });
    }
    let custom_ids: Vec<&str> = config.custom_rules.iter().map(|r| r.id.as_str()).collect();
    let set = RuleSet::builtin()
        .configure(&config.disable, &severity, custom)
        .map_err(|e| Failure::new(format!("{}: {e}", config.path.display())))?
        .for_profiles(&config.declared_profiles, &custom_ids);
    // What decides the rule set, serialised as data (not `Debug` output, which promises
    // nothing about its form): the findings cache is keyed by it.
    let decides = serde_json::to_vec(&(
        &config.disable,
        &config.severity,
        &config.custom_rules,
        &config.declared_profiles,
        ENGINE_VERSION,
    ))
    .expect("strings and lists serialise");
    let fingerprint = ContentHash::of(&decides);
    Ok(RuleTable {
        set: Arc::new(set),
        kinds,
        fingerprint,
    })
}

/// What the engine needs besides a file, shared by every worker: the configured rules
/// and language defaults, and whether unreviewed entries predate our segmenter prompt.
pub fn engine_setup(ws: &Workspace, prompt_outdated: bool) -> Result<Setup, Failure> {
    Ok(Setup {
        rules: rule_table(&ws.config)?,
        default_language: ws.config.language.clone().unwrap_or_default(),
        declared: ws.config.declared_profiles.clone(),
        unknown_language_default: ws.config.unknown_language_default,
        ignore_marker: ws.config.ignore_marker.clone(),
        prompt_outdated,
    })
}
