//! The audit run: files in scope → (caches) → engine → report, `--fix`,
//! `--list-unsegmented`, `--require-reviewed` and `--self-test`.

use super::cache::{CachedReport, Caches, ENGINE_VERSION, Stat};
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
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fs;
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
    let set = RuleSet::builtin()
        .configure(&config.disable, &severity, custom)
        .map_err(|e| Failure::new(format!("{}: {e}", config.path.display())))?;
    let fingerprint = ContentHash::of(
        format!(
            "{:?}|{:?}|{:?}|{}",
            config.disable, severity, config.custom_rules, ENGINE_VERSION
        )
        .as_bytes(),
    );
    Ok(RuleTable {
        set: Arc::new(set),
        kinds,
        fingerprint,
    })
}

/// One file in scope after the stat pass: its hash, and its bytes if they had to be read.
struct Scanned {
    path: String,
    stat: Stat,
    hash: ContentHash,
    bytes: Option<Vec<u8>>,
}

/// Stats every file; reads and hashes only those the stat index cannot vouch for.
fn scan(
    ws: &Workspace,
    paths: &[String],
    caches: Option<&Caches>,
) -> Result<Vec<Scanned>, Failure> {
    paths
        .par_iter()
        .map(|p| {
            let abs = ws.root.join(p);
            let io = |e: std::io::Error| Failure::new(format!("{p}: {e}"));
            let stat = Stat::of(&fs::metadata(&abs).map_err(io)?);
            if let Some(hash) = caches.and_then(|c| c.known_hash(p, &stat)) {
                return Ok(Scanned {
                    path: p.clone(),
                    stat,
                    hash,
                    bytes: None,
                });
            }
            let bytes = fs::read(&abs).map_err(io)?;
            Ok(Scanned {
                path: p.clone(),
                stat,
                hash: ContentHash::of(&bytes),
                bytes: Some(bytes),
            })
        })
        .collect()
}

fn prompt_outdated(lock: &Lockfile) -> bool {
    lock.segmenter.backend == Backend::Agent
        && lock
            .segmenter
            .prompt_version
            .is_some_and(|v| v < lockfile::CURRENT_PROMPT_VERSION)
}

/// One audited file.
pub struct Audited {
    pub path: String,
    pub report: FileReport,
}

/// A finished audit: every file's report, in path order, and the engine that produced
/// the ones not served from the cache.
pub struct Audit {
    pub db: Database,
    pub files: Vec<Audited>,
    inputs: HashMap<String, SourceFile>,
}

impl Audit {
    /// The engine input of a file that went through the engine this run.
    pub fn input(&self, path: &str) -> Option<SourceFile> {
        self.inputs.get(path).copied()
    }

    /// A file's text for rendering: from the engine if it went through it, else from disk
    /// (only files with findings are ever asked for).
    pub fn text(&self, ws: &Workspace, path: &str) -> Option<Cow<'_, str>> {
        if let Some(f) = self.input(path) {
            return engine::source_text(f.bytes(&self.db))
                .ok()
                .map(Cow::Borrowed);
        }
        fs::read_to_string(ws.root.join(path)).ok().map(Cow::Owned)
    }
}

/// The key of a file's findings in the cache: everything they depend on.
fn findings_key(
    scanned: &Scanned,
    state: EntryState,
    lock: &Lockfile,
    settings: &ContentHash,
) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(ENGINE_VERSION.as_bytes());
    h.update(settings.0);
    h.update(Format::from_path(&scanned.path).as_str().as_bytes());
    h.update(scanned.hash.0);
    match lock.files.get(&scanned.path) {
        Some(entry) if state.has_usable_spans() => {
            h.update(b"spans");
            h.update(format!("{:?}", entry.spans).as_bytes());
        }
        _ => h.update(b"no spans"),
    }
    h.finalize().into()
}

/// Audits every file in `paths`, from the caches where they vouch for the inputs.
pub fn audit(
    ws: &Workspace,
    lock: &Lockfile,
    paths: &[String],
    use_cache: bool,
) -> Result<Audit, Failure> {
    let table = rule_table(&ws.config)?;
    let default_language = ws.config.language.clone().unwrap_or_default();
    let settings_key = ContentHash::of(
        format!(
            "{}|{}|{}|{}",
            table.fingerprint,
            default_language,
            ws.config.unknown_language_default,
            ws.config.ignore_marker
        )
        .as_bytes(),
    );
    let mut caches = use_cache.then(|| Caches::open(&ws.root));
    let scanned = scan(ws, paths, caches.as_ref())?;
    let outdated = prompt_outdated(lock);

    let db = Database::default();
    let _settings = Settings::builder(
        table,
        default_language,
        ws.config.unknown_language_default,
        ws.config.ignore_marker.clone(),
        outdated,
    )
    .durability(Durability::HIGH)
    .new(&db);

    let mut files: Vec<Option<FileReport>> = Vec::with_capacity(scanned.len());
    let mut keys = Vec::with_capacity(scanned.len());
    let mut misses = Vec::new();
    let mut inputs = HashMap::new();
    for (i, s) in scanned.iter().enumerate() {
        let entry = lock.files.get(&s.path);
        let state = engine::state_of(entry, s.hash, outdated);
        let key = findings_key(s, state, lock, &settings_key);
        keys.push(key);
        if let Some(hit) = caches.as_mut().and_then(|c| c.findings(&key)) {
            files.push(Some(FileReport {
                state,
                findings: hit.findings,
                error: hit.error,
            }));
            continue;
        }
        files.push(None);
        misses.push(i);
    }
    // Read what the stat pass did not, then run the engine on every miss in parallel.
    let miss_bytes: Vec<Vec<u8>> = misses
        .par_iter()
        .map(|&i| match &scanned[i].bytes {
            Some(b) => Ok(b.clone()),
            None => fs::read(ws.root.join(&scanned[i].path))
                .map_err(|e| Failure::new(format!("{}: {e}", scanned[i].path))),
        })
        .collect::<Result<_, _>>()?;
    let miss_inputs: Vec<SourceFile> = misses
        .iter()
        .zip(miss_bytes)
        .map(|(&i, bytes)| {
            let path = &scanned[i].path;
            let file = SourceFile::new(
                &db,
                path.clone(),
                Format::from_path(path),
                bytes,
                lock.files.get(path).cloned(),
            );
            inputs.insert(path.clone(), file);
            file
        })
        .collect();
    let reports: Vec<FileReport> = miss_inputs
        .par_iter()
        .map_with(db.clone(), |db, file| engine::report(db, *file).clone())
        .collect();
    for (&i, report) in misses.iter().zip(reports) {
        if let Some(c) = caches.as_mut() {
            c.store_findings(
                keys[i],
                CachedReport {
                    findings: report.findings.clone(),
                    error: report.error.clone(),
                },
            );
        }
        files[i] = Some(report);
    }
    if let Some(mut c) = caches {
        for s in scanned.iter().filter(|s| s.bytes.is_some()) {
            c.record_stat(&s.path, s.stat, s.hash);
        }
        c.save();
    }
    let files = scanned
        .into_iter()
        .zip(files)
        .map(|(s, r)| Audited {
            path: s.path,
            report: r.expect("every file is audited or served from the cache"),
        })
        .collect();
    Ok(Audit { db, files, inputs })
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
        return list_unsegmented(ws, &lock, &paths, format, !args.no_cache);
    }
    if args.fix {
        fix::run(ws, &paths, args.fix_unsegmented)?;
    }
    // After --fix the lockfile may have been re-anchored: read it again.
    let lock = if args.fix { ws.read_lockfile()? } else { lock };
    let audit = audit(ws, &lock, &paths, !args.no_cache)?;
    if args.verbose {
        for f in &audit.files {
            eprintln!(
                "{}: entry {:?}, {} findings",
                f.path,
                f.report.state,
                f.report.findings.len()
            );
        }
    }
    let review = args.require_reviewed.then(|| review_status(&lock, &audit));
    let summary = AuditReport::new(&audit, review);
    report::print_audit(ws, &summary, &audit, format);
    let gate_failed = summary
        .review_status
        .as_ref()
        .is_some_and(|r| !r.is_clean());
    Ok(
        if summary.error_findings > 0 || summary.file_errors() > 0 || gate_failed {
            Outcome::Failed
        } else {
            Outcome::Clean
        },
    )
}

fn review_status(lock: &Lockfile, audit: &Audit) -> ReviewStatus {
    let mut status = ReviewStatus::default();
    for f in &audit.files {
        match f.report.state {
            EntryState::Missing => status.unsegmented.push(f.path.clone()),
            EntryState::Stale => status.stale.push(f.path.clone()),
            EntryState::Fresh | EntryState::PromptOutdated => {
                if lock
                    .files
                    .get(&f.path)
                    .is_some_and(|e| e.reviewed_by.is_none())
                {
                    status.unreviewed.push(f.path.clone());
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
    use_cache: bool,
) -> Result<Outcome, Failure> {
    let mut caches = use_cache.then(|| Caches::open(&ws.root));
    let scanned = scan(ws, paths, caches.as_ref())?;
    let outdated = prompt_outdated(lock);
    let mut unsegmented = Vec::new();
    for s in &scanned {
        let entry = lock.files.get(&s.path);
        let state = engine::state_of(entry, s.hash, outdated);
        let reason = match state {
            EntryState::Fresh => continue,
            EntryState::Missing => "missing",
            EntryState::Stale => "stale",
            EntryState::PromptOutdated => "prompt",
        };
        let stale = state == EntryState::Stale;
        unsegmented.push(Unsegmented {
            path: s.path.clone(),
            reason,
            expected_hash: entry.filter(|_| stale).map(|e| e.content_hash.clone()),
            actual_hash: stale.then(|| s.hash.to_string()),
        });
    }
    if let Some(c) = caches.as_mut() {
        for s in scanned.iter().filter(|s| s.bytes.is_some()) {
            c.record_stat(&s.path, s.stat, s.hash);
        }
    }
    if let Some(c) = caches {
        c.save();
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
