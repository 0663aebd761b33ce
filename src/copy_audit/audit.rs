//! The audit run: files in scope → engine → report, `--fix`, `--list-unsegmented`,
//! `--require-reviewed` and `--self-test`.

use super::cli::{AuditArgs, OutputFormat};
use super::report::{self, AuditReport, ReviewStatus, Unsegmented, UnsegmentedReport};
use super::workspace::Workspace;
use super::{Failure, Outcome, fix};
use crate::config::Config;
use lockgraph_queries::copy::engine::{
    self, EntryState, FileReport, RuleTable, Settings, SourceFile,
};
use lockgraph_queries::copy::extract::Format;
use lockgraph_queries::copy::lockfile::{self, Backend, Kind, Lockfile};
use lockgraph_queries::copy::rules::{CustomRuleSpec, RuleSet, Severity};
use lockgraph_queries::db::Database;
use lockgraph_queries::hash::ContentHash;
use rayon::prelude::*;
use salsa::Durability;
use std::collections::BTreeMap;
use std::fs;
use std::sync::Arc;

/// A loaded tree: the database with one input per file in scope.
pub struct Loaded {
    pub db: Database,
    /// In path order.
    pub files: Vec<(String, SourceFile)>,
}

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
    let set = RuleSet::builtin()
        .configure(&config.disable, &severity, custom)
        .map_err(|e| Failure::new(format!("{}: {e}", config.path.display())))?;
    let fingerprint = ContentHash::of(
        format!(
            "{:?}|{:?}|{:?}|{}",
            config.disable,
            severity,
            config.custom_rules,
            env!("CARGO_PKG_VERSION")
        )
        .as_bytes(),
    );
    Ok(RuleTable {
        set: Arc::new(set),
        kinds,
        fingerprint,
    })
}

/// Reads every file in `paths` and sets up the engine's inputs.
pub fn load(ws: &Workspace, lock: &Lockfile, paths: &[String]) -> Result<Loaded, Failure> {
    let table = rule_table(&ws.config)?;
    let bytes: Vec<Vec<u8>> = paths
        .par_iter()
        .map(|p| fs::read(ws.root.join(p)).map_err(|e| Failure::new(format!("{p}: {e}"))))
        .collect::<Result<_, _>>()?;
    let db = Database::default();
    let default_language = ws.config.language.clone().unwrap_or_default();
    let prompt_outdated = lock.segmenter.backend == Backend::Agent
        && lock
            .segmenter
            .prompt_version
            .is_some_and(|v| v < lockfile::CURRENT_PROMPT_VERSION);
    let _settings = Settings::builder(
        table,
        default_language,
        ws.config.unknown_language_default,
        ws.config.ignore_marker.clone(),
        prompt_outdated,
    )
    .durability(Durability::HIGH)
    .new(&db);
    let files = paths
        .iter()
        .zip(bytes)
        .map(|(p, b)| {
            let entry = lock.files.get(p).cloned();
            let file = SourceFile::new(&db, p.clone(), Format::from_path(p), b, entry);
            (p.clone(), file)
        })
        .collect();
    Ok(Loaded { db, files })
}

impl Loaded {
    /// Every file's report, computed in parallel (one database clone per worker).
    pub fn reports(&self) -> Vec<FileReport> {
        self.files
            .par_iter()
            .map_with(self.db.clone(), |db, (_, file)| {
                engine::report(db, *file).clone()
            })
            .collect()
    }

    pub fn states(&self) -> Vec<EntryState> {
        self.files
            .par_iter()
            .map_with(self.db.clone(), |db, (_, file)| {
                engine::entry_state(db, *file)
            })
            .collect()
    }
}

pub fn run(ws: &Workspace, args: &AuditArgs, format: OutputFormat) -> Result<Outcome, Failure> {
    if args.offline {
        return Err(Failure::new(
            "--offline needs the structural segmenter, which this build does not have yet; \
             segment files with `copy-audit segment` and `copy-audit lockfile add`",
        ));
    }
    let matcher = ws
        .config
        .matcher(args.paths.as_deref())
        .map_err(|e| Failure::new(e.to_string()))?;
    for warning in &ws.config.warnings {
        eprintln!("warning: {warning}");
    }
    let paths = ws.files_in_scope(&matcher)?;
    let lock = ws.read_lockfile()?;

    if args.list_unsegmented {
        return list_unsegmented(ws, &lock, &paths, format);
    }
    if args.fix {
        fix::run(ws, &paths, args.fix_unsegmented)?;
    }
    // After --fix the lockfile may have been re-anchored: read it again.
    let lock = if args.fix { ws.read_lockfile()? } else { lock };
    let loaded = load(ws, &lock, &paths)?;
    let reports = loaded.reports();
    if args.verbose {
        for ((path, _), r) in loaded.files.iter().zip(&reports) {
            eprintln!("{path}: entry {:?}, {} findings", r.state, r.findings.len());
        }
    }
    let review = args
        .require_reviewed
        .then(|| review_status(&lock, &loaded.files, &reports));
    let audit = AuditReport::new(&loaded, &reports, review);
    report::print_audit(&audit, &loaded, &reports, format);
    let gate_failed = audit.review_status.as_ref().is_some_and(|r| !r.is_clean());
    Ok(
        if audit.error_findings > 0 || audit.file_errors() > 0 || gate_failed {
            Outcome::Failed
        } else {
            Outcome::Clean
        },
    )
}

fn review_status(
    lock: &Lockfile,
    files: &[(String, SourceFile)],
    reports: &[FileReport],
) -> ReviewStatus {
    let mut status = ReviewStatus::default();
    for ((path, _), r) in files.iter().zip(reports) {
        match r.state {
            EntryState::Missing => status.unsegmented.push(path.clone()),
            EntryState::Stale => status.stale.push(path.clone()),
            EntryState::Fresh | EntryState::PromptOutdated => {
                if lock
                    .files
                    .get(path)
                    .is_some_and(|e| e.reviewed_by.is_none())
                {
                    status.unreviewed.push(path.clone());
                }
            }
        }
    }
    status
}

fn list_unsegmented(
    ws: &Workspace,
    lock: &Lockfile,
    paths: &[String],
    format: OutputFormat,
) -> Result<Outcome, Failure> {
    let loaded = load(ws, lock, paths)?;
    let states = loaded.states();
    let mut unsegmented = Vec::new();
    for ((path, file), state) in loaded.files.iter().zip(states) {
        let reason = match state {
            EntryState::Fresh => continue,
            EntryState::Missing => "missing",
            EntryState::Stale => "stale",
            EntryState::PromptOutdated => "prompt",
        };
        let stale = state == EntryState::Stale;
        unsegmented.push(Unsegmented {
            path: path.clone(),
            reason,
            expected_hash: stale.then(|| lock.files[path].content_hash.clone()),
            actual_hash: stale.then(|| engine::content_hash(&loaded.db, *file).to_string()),
        });
    }
    let out = UnsegmentedReport {
        total_files: paths.len(),
        unsegmented_count: unsegmented.len(),
        unsegmented,
    };
    report::print_unsegmented(&out, format);
    Ok(if out.unsegmented_count > 0 {
        Outcome::Failed
    } else {
        Outcome::Clean
    })
}

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
