//! The audit run: files in scope → (caches) → engine → report, `--fix`,
//! `--list-unsegmented`, `--require-reviewed` and `--self-test`.

use super::cache::{Caches, ENGINE_VERSION, LockInfo, ReportRef, Stat, Taken};
use super::cli::{AuditArgs, OutputFormat};
use super::lockview::LockView;
use super::report::{self, AuditReport, ReviewStatus, Unsegmented, UnsegmentedReport};
use super::workspace::Workspace;
use super::{Failure, Outcome, fix};
use crate::config::Config;
use crate::progress::Progress;
use lockgraph_queries::copy::engine::{
    self, EntryState, FileReport, RuleTable, Settings, Source, SourceFile,
};
use lockgraph_queries::copy::extract::Format;
use lockgraph_queries::copy::lockfile::Kind;
use lockgraph_queries::copy::rules::{CustomRuleSpec, RuleSet, Severity};
use lockgraph_queries::db::Database;
use lockgraph_queries::hash::ContentHash;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use salsa::Durability;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
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

/// A file's stat and content hash, and its bytes if they had to be read for the hash.
struct Scanned {
    stat: Stat,
    hash: ContentHash,
    bytes: Option<Vec<u8>>,
    /// The hash was computed from the bytes this run (so the stat index learns it).
    read: bool,
}

/// Reads and hashes a file only if the stat index vouches for neither; `stat` was taken
/// when the walk found the file.
fn scan_one(
    ws: &Workspace,
    path: &str,
    stat: Stat,
    caches: Option<&Caches>,
) -> Result<Scanned, Failure> {
    let abs = ws.root.join(path);
    let io = |e: std::io::Error| Failure::new(format!("{path}: {e}"));
    if let Some(hash) = caches.and_then(|c| c.known_hash(path, &stat)) {
        return Ok(Scanned {
            stat,
            hash,
            bytes: None,
            read: false,
        });
    }
    let bytes = fs::read(&abs).map_err(io)?;
    Ok(Scanned {
        stat,
        hash: ContentHash::of(&bytes),
        bytes: Some(bytes),
        read: true,
    })
}

/// One audited file.
pub struct Audited {
    pub path: String,
    /// The hash of the bytes the report describes.
    pub hash: ContentHash,
    pub report: FileReport,
}

/// A finished audit: every file's report, in path order.
pub struct Audit {
    pub files: Vec<Audited>,
}

/// The key of a file's findings in the cache: everything they depend on.
fn findings_key(
    path: &str,
    hash: &ContentHash,
    state: EntryState,
    lock: &LockView,
    settings: &ContentHash,
) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(ENGINE_VERSION.as_bytes());
    h.update(settings.0);
    h.update(Format::from_path(path).as_str().as_bytes());
    h.update(hash.0);
    match lock.info(path) {
        Some(info) if state.has_usable_spans() => {
            h.update(b"spans");
            h.update(info.spans);
        }
        _ => h.update(b"no spans"),
    }
    h.finalize().into()
}

/// What the engine needs besides a file, shared by every worker.
pub(super) struct EngineSetup {
    table: RuleTable,
    default_language: String,
    unknown_language_default: bool,
    ignore_marker: String,
    prompt_outdated: bool,
}

impl EngineSetup {
    pub(super) fn new(ws: &Workspace, prompt_outdated: bool) -> Result<EngineSetup, Failure> {
        Ok(EngineSetup {
            table: rule_table(&ws.config)?,
            default_language: ws.config.language.clone().unwrap_or_default(),
            unknown_language_default: ws.config.unknown_language_default,
            ignore_marker: ws.config.ignore_marker.clone(),
            prompt_outdated,
        })
    }

    /// Creates the `Settings` singleton in `db` (HIGH durability: it never changes
    /// within a run).
    pub(super) fn install(&self, db: &Database) {
        let _settings = Settings::builder(
            self.table.clone(),
            self.default_language.clone(),
            self.unknown_language_default,
            self.ignore_marker.clone(),
            self.prompt_outdated,
        )
        .durability(Durability::HIGH)
        .new(db);
    }

    fn database(&self) -> Database {
        let db = Database::default();
        self.install(&db);
        db
    }
}

/// How many files one worker audits in one database before dropping it. A one-shot run
/// gains nothing from keeping every file's queries alive, and dropping them bounds memory
/// by the chunk, not by the corpus.
const CHUNK: usize = 64;

/// One file's outcome, before the caches are updated.
struct Outcome1 {
    scanned: Scanned,
    key: [u8; 32],
    report: FileReport,
    origin: Origin,
}

/// Where a file's report came from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    Engine,
    Cache,
    /// The cached report of another file with the same key (identical content and
    /// spans), which took it out of the cache this run: copied from it after the pass.
    SameAs,
}

/// Audits every file in `files` (paths with the stats the walk took), from the caches where
/// they vouch for the inputs.
pub fn audit(
    ws: &Workspace,
    lock: &LockView,
    files: Vec<(String, Stat)>,
    mut caches: Option<Caches>,
    progress: &Progress,
) -> Result<Audit, Failure> {
    let setup = EngineSetup::new(ws, lock.prompt_outdated())?;
    let settings_key = ContentHash::of(
        format!(
            "{}|{}|{}|{}",
            setup.table.fingerprint,
            setup.default_language,
            setup.unknown_language_default,
            setup.ignore_marker
        )
        .as_bytes(),
    );
    let shared = caches.as_ref();
    let scan = crate::timings::phase("stat, read, audit");
    let outcomes: Vec<Vec<Outcome1>> = files
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut db: Option<Database> = None;
            chunk
                .iter()
                .map(|(path, stat)| {
                    progress.inc();
                    let mut scanned = scan_one(ws, path, *stat, shared)?;
                    let state = lock.state(path, scanned.hash);
                    let key = findings_key(path, &scanned.hash, state, lock, &settings_key);
                    // Taken out of the cache here, on the workers, not cloned.
                    let taken = shared.map_or(Taken::Missing, |c| c.take_findings(&key));
                    if !matches!(taken, Taken::Missing) {
                        let (findings, error, origin) = match taken {
                            Taken::Report(r) => (r.findings, r.error, Origin::Cache),
                            _ => (Vec::new(), None, Origin::SameAs),
                        };
                        let report = FileReport {
                            state,
                            findings,
                            error,
                        };
                        return Ok(Outcome1 {
                            scanned,
                            key,
                            report,
                            origin,
                        });
                    }
                    let bytes = match scanned.bytes.take() {
                        Some(b) => b,
                        None => fs::read(ws.root.join(path))
                            .map_err(|e| Failure::new(format!("{path}: {e}")))?,
                    };
                    let db = db.get_or_insert_with(|| setup.database());
                    let file = SourceFile::new(
                        db,
                        path.clone(),
                        Format::from_path(path),
                        Source::new(bytes),
                        lock.take_entry(path)?,
                    );
                    let report = engine::report(db, file).clone();
                    Ok(Outcome1 {
                        scanned,
                        key,
                        report,
                        origin: Origin::Engine,
                    })
                })
                .collect::<Result<Vec<_>, Failure>>()
        })
        .collect::<Result<Vec<Vec<Outcome1>>, Failure>>()?;
    drop(scan);
    let _merge = crate::timings::phase("merge and save caches");
    // One pass in path order: cache bookkeeping, and each outcome becomes its file's
    // report in a vector allocated once (growing a vector of 100k reports was a fifth of
    // a warm run, most of it the kernel handing out fresh pages).
    let mut audited = Vec::with_capacity(files.len());
    // Files with equal keys (identical content and spans) share one cached report: the
    // one that took it out of the cache is its owner, the others copy from it.
    let mut owner: FxHashMap<[u8; 32], usize> = FxHashMap::default();
    let mut copies = Vec::new();
    let mut keys = Vec::with_capacity(files.len());
    // The paths move into the reports: a copy of each was a tenth of a warm run's merge.
    for (o, (path, _)) in outcomes.into_iter().flatten().zip(files) {
        let Outcome1 {
            scanned,
            key,
            report,
            origin,
        } = o;
        if let Some(c) = caches.as_mut() {
            if scanned.read {
                c.record_stat(&path, scanned.stat, scanned.hash);
            }
            match origin {
                Origin::Engine => c.store_findings(key),
                Origin::Cache => {
                    owner.insert(key, audited.len());
                }
                Origin::SameAs => copies.push(audited.len()),
            }
        }
        keys.push(key);
        audited.push(Audited {
            path,
            hash: scanned.hash,
            report,
        });
    }
    for i in copies {
        let first = &audited[owner[&keys[i]]].report;
        let (findings, error) = (first.findings.clone(), first.error.clone());
        audited[i].report.findings = findings;
        audited[i].report.error = error;
    }
    match caches {
        Some(c) if c.needs_save() => {
            // Only when this run learnt something; a rewritten shard gets the reports
            // this run took out of it back.
            let by_key: FxHashMap<[u8; 32], &Audited> =
                keys.iter().copied().zip(&audited).collect();
            c.save(
                |key| {
                    by_key.get(key).map(|a| ReportRef {
                        findings: &a.report.findings,
                        error: &a.report.error,
                    })
                },
                lock.summary(),
            );
        }
        // The process ends soon after: freeing every cached entry one by one would cost
        // more than the whole warm audit of a small tree (a sixth of it on a large one).
        other => std::mem::forget(other),
    }
    let files = audited;
    Ok(Audit { files })
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
    if args.watch {
        return super::watch::run(ws, matcher).map(|()| Outcome::Clean);
    }
    let walk = crate::timings::phase("walk and stat, open caches");
    // The walk waits on the file system while the caches and the lockfile are decoded on
    // the CPU: side by side. `--fix` may re-anchor the lockfile, so then it is opened
    // after the fixes.
    let (files, (mut caches, lock)) = rayon::join(
        || {
            let _walk = crate::timings::phase("  walk and stat");
            ws.scope_with_stats(&matcher)
        },
        || {
            let open = crate::timings::phase("  open caches");
            let mut caches = (!args.no_cache).then(|| Caches::open(&ws.root));
            drop(open);
            let lock = (!args.fix).then(|| LockView::open(ws, caches.as_mut()));
            (caches, lock)
        },
    );
    let mut files = files?;
    drop(walk);
    let lock = match lock {
        Some(lock) => lock?,
        None => {
            fix::run(ws, &files, args.fix_unsegmented, args.quiet)?;
            // The fixes changed files: the stats the walk took no longer describe them
            // (the stat index and the lockfile summary notice by their own stats).
            files = ws.scope_with_stats(&matcher)?;
            LockView::open(ws, caches.as_mut())?
        }
    };
    if args.list_unsegmented {
        return list_unsegmented(ws, &lock, &files, format, caches);
    }
    let progress = Progress::new(files.len(), "auditing", args.quiet);
    let audit = audit(ws, &lock, files, caches, &progress)?;
    drop(progress);
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
    let print = crate::timings::phase("print");
    report::print_audit(ws, &summary, &audit, format);
    drop(print);
    let gate_failed = summary
        .review_status
        .as_ref()
        .is_some_and(|r| !r.is_clean());
    let outcome = if summary.error_findings > 0 || summary.file_errors() > 0 || gate_failed {
        Outcome::Failed
    } else {
        Outcome::Clean
    };
    // As above: the process exits next, and the OS reclaims this faster than `drop` would.
    std::mem::forget(summary);
    std::mem::forget(audit);
    std::mem::forget(lock);
    Ok(outcome)
}

fn review_status(lock: &LockView, audit: &Audit) -> ReviewStatus {
    let mut status = ReviewStatus::default();
    for f in &audit.files {
        match f.report.state {
            EntryState::Missing => status.unsegmented.push(f.path.clone()),
            EntryState::Stale => status.stale.push(f.path.clone()),
            EntryState::Fresh | EntryState::PromptOutdated => {
                if lock.info(&f.path).is_some_and(|i| !i.reviewed) {
                    status.unreviewed.push(f.path.clone());
                }
            }
        }
    }
    status
}

fn list_unsegmented(
    ws: &Workspace,
    lock: &LockView,
    files: &[(String, Stat)],
    format: OutputFormat,
    mut caches: Option<Caches>,
) -> Result<Outcome, Failure> {
    let paths: Vec<&String> = files.iter().map(|(p, _)| p).collect();
    let scanned: Vec<Scanned> = files
        .par_iter()
        .map(|(p, stat)| {
            let mut s = scan_one(ws, p, *stat, caches.as_ref())?;
            s.bytes = None; // only the hash matters here
            Ok(s)
        })
        .collect::<Result<_, Failure>>()?;
    let mut unsegmented = Vec::new();
    for (&path, s) in paths.iter().zip(&scanned) {
        let state = lock.state(path, s.hash);
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
            expected_hash: lock.info(path).filter(|_| stale).map(LockInfo::hash_text),
            actual_hash: stale.then(|| s.hash.to_string()),
        });
    }
    if let Some(c) = caches.as_mut() {
        for (&path, s) in paths.iter().zip(&scanned) {
            if s.read {
                c.record_stat(path, s.stat, s.hash);
            }
        }
    }
    if let Some(c) = caches {
        c.save(|_| None, lock.summary());
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
