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
use lockgraph_queries::copy::engine::{self, EntryState, FileReport, RuleTable, Setup, Source};
use lockgraph_queries::copy::extract::Format;
use lockgraph_queries::copy::lockfile::Kind;
use lockgraph_queries::copy::rules::{CustomRuleSpec, RuleSet, Severity};
use lockgraph_queries::hash::ContentHash;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use sha2::{Digest, Sha256};
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

/// A file's stat and content hash, and its bytes if they had to be read for the hash.
struct Scanned {
    stat: Stat,
    hash: ContentHash,
    source: Option<Source>,
    /// The hash was computed from the bytes this run (so the stat index learns it).
    read: bool,
}

/// Reads and hashes a file unless the stat index vouched for it (`known`, its hash, for
/// the stat the walk took).
fn scan_one(
    ws: &Workspace,
    path: &str,
    stat: Option<Stat>,
    known: Option<ContentHash>,
) -> Result<Scanned, Failure> {
    if let (Some(hash), Some(stat)) = (known, stat) {
        return Ok(Scanned {
            stat,
            hash,
            source: None,
            read: false,
        });
    }
    let (bytes, stat) =
        read_file(&ws.root.join(path), stat).map_err(|e| Failure::new(format!("{path}: {e}")))?;
    // Hashed as the engine's input: the engine reads the hash from it.
    let source = Source::new(bytes);
    Ok(Scanned {
        stat,
        hash: source.hash(),
        source: Some(source),
        read: true,
    })
}

/// The bytes of the file at `path` and its stat: the one the walk took, or else the open
/// file's. The buffer is sized from the stat (a byte more, so the read that finds the end
/// needs no growth); a file that grew since is read on to its end, one that shrank gives
/// what it holds.
fn read_file(path: &std::path::Path, stat: Option<Stat>) -> std::io::Result<(Vec<u8>, Stat)> {
    use std::io::Read;
    let mut file = crate::fsutil::open_regular(path)?;
    let stat = match stat {
        Some(stat) => stat,
        None => Stat::of(&file.metadata()?),
    };
    let mut bytes = Vec::with_capacity(usize::try_from(stat.size).unwrap_or(0) + 1);
    file.read_to_end(&mut bytes)?;
    Ok((bytes, stat))
}

/// One audited file.
pub struct Audited {
    pub path: String,
    /// The hash of the bytes the report describes.
    pub hash: ContentHash,
    pub report: FileReport,
}

/// A finished audit: every file's report, in path order.
///
/// Kept in the chunks the workers audited rather than gathered into one vector: at 100,000
/// files that copy was a tenth of a warm run, most of it the kernel clearing fresh pages.
pub struct Audit {
    chunks: Vec<Vec<Audited>>,
}

impl Audit {
    /// Every file, in path order.
    pub fn files(&self) -> impl Iterator<Item = &Audited> + Clone {
        self.chunks.iter().flatten()
    }

    pub fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// An audit of `files` (in path order), chunked as the workers chunk them.
    #[cfg(test)]
    pub fn from_files(files: Vec<Audited>) -> Audit {
        let mut chunks = Vec::new();
        let mut files = files.into_iter().peekable();
        while files.peek().is_some() {
            chunks.push(files.by_ref().take(CHUNK).collect());
        }
        Audit { chunks }
    }

    /// The files in the chunks they were audited in, for work spread over cores.
    pub fn chunks(&self) -> &[Vec<Audited>] {
        &self.chunks
    }

    fn get_mut(&mut self, i: usize) -> &mut Audited {
        &mut self.chunks[i / CHUNK][i % CHUNK]
    }
}

/// The key of a file's findings in the cache: everything they depend on.
fn findings_key(
    path: &str,
    hash: &ContentHash,
    state: EntryState,
    info: Option<&LockInfo>,
    locale: Option<&str>,
    settings: &ContentHash,
) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(ENGINE_VERSION.as_bytes());
    h.update(settings.0);
    h.update(Format::from_path(path).as_str().as_bytes());
    h.update(hash.0);
    match info {
        Some(info) if state.has_usable_spans() => {
            h.update(b"spans");
            h.update(info.spans.0);
        }
        // Provisional spans: the bytes, the settings and the file's locale make them.
        _ => {
            h.update(b"provisional");
            h.update(locale.unwrap_or_default().as_bytes());
        }
    }
    h.finalize().into()
}

/// What the engine needs besides a file, shared by every worker: the configured rules
/// and language defaults, and whether unreviewed entries predate our segmenter prompt.
pub(super) fn engine_setup(ws: &Workspace, prompt_outdated: bool) -> Result<Setup, Failure> {
    Ok(Setup {
        rules: rule_table(&ws.config)?,
        default_language: ws.config.language.clone().unwrap_or_default(),
        declared: ws.config.declared_profiles.clone(),
        unknown_language_default: ws.config.unknown_language_default,
        ignore_marker: ws.config.ignore_marker.clone(),
        prompt_outdated,
    })
}

/// How many files a worker takes at a time, in path order: the unit a lockfile read as
/// the audit goes is read ahead of, and the audit's results are kept in.
const CHUNK: usize = 64;

/// What the merge needs to know of a file besides its report.
struct Side {
    key: [u8; 32],
    origin: Origin,
    /// The file was read for its hash (so the stat index learns it).
    read: bool,
}

/// A chunk's audited files, and what the caches learn of each.
type Chunk = (Vec<Audited>, Vec<Side>);

/// Where a file's report came from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    Engine,
    Cache,
    /// The cached report of another file with the same key (identical content and
    /// spans), which took it out of the cache this run: copied from it after the pass.
    IdenticalFile,
}

/// Audits every file in `files` (paths with the stats the walk took, if it took them), from
/// the caches where they vouch for the inputs.
pub fn audit(
    ws: &Workspace,
    lock: &LockView,
    mut files: Vec<(String, Option<Stat>)>,
    mut caches: Option<Caches>,
    progress: &Progress,
) -> Result<(Audit, Learnt), Failure> {
    let setup = engine_setup(ws, lock.prompt_outdated())?;
    // `paths.locale`, for the provisional spans of files without a fresh entry.
    let locales = ws
        .config
        .matcher(None)
        .map_err(|e| Failure::new(e.to_string()))?;
    let settings_key = ContentHash::of(
        format!(
            "{}|{}|{}|{}",
            setup.rules.fingerprint,
            setup.default_language,
            setup.unknown_language_default,
            setup.ignore_marker
        )
        .as_bytes(),
    );
    let join = crate::timings::phase("join the stat index and lockfile summary");
    // Two passes over sorted lists, each on a core.
    let (known, infos) = rayon::join(
        || match caches.as_mut() {
            Some(c) => c.known_hashes(&files),
            None => vec![None; files.len()],
        },
        || lock.infos(files.iter().map(|(p, _)| p.as_str())),
    );
    let infos = infos?;
    drop(join);
    // Between the stat index vouching for hashes and the files being read: where an edit
    // during a run is tested (`tests/stale_caches.rs`).
    crate::testhook::pause();
    let shared = caches.as_ref();
    let scan = crate::timings::phase("stat, read, audit");
    // Each worker moves its chunk's paths into the reports (a copy of each was a tenth of
    // a warm run's merge); the stats stay for the stat index.
    let mut chunks: Vec<(usize, Chunk)> = files
        .chunks_mut(CHUNK)
        .zip(known.chunks(CHUNK))
        .zip(infos.chunks(CHUNK))
        .enumerate()
        .par_bridge()
        .map(|(i, ((chunk, known), infos))| {
            let mut done = Vec::with_capacity(chunk.len());
            let mut sides = Vec::with_capacity(chunk.len());
            let each = chunk.iter_mut().zip(known).zip(infos.iter());
            for (((path, stat), known), info) in each {
                progress.inc();
                let path = std::mem::take(path);
                let mut scanned = scan_one(ws, &path, *stat, *known)?;
                // For the stat index: the walk's, or the one taken as the file was read.
                *stat = Some(scanned.stat);
                let mut state = lock.state(info.as_ref(), scanned.hash);
                let locale = locales.locale_for(&path);
                let mut key = findings_key(
                    &path,
                    &scanned.hash,
                    state,
                    info.as_ref(),
                    locale,
                    &settings_key,
                );
                // Taken out of the cache here, on the workers, not cloned.
                let taken = shared.map_or(Taken::Missing, |c| c.take_findings(&key));
                if info.is_some() && !matches!(taken, Taken::Missing) {
                    lock.release_entry(&path);
                }
                let (report, origin) = match taken {
                    Taken::Report(r) => (
                        FileReport {
                            state,
                            findings: r.findings,
                            error: r.error,
                        },
                        Origin::Cache,
                    ),
                    Taken::ByIdenticalFile => (
                        FileReport {
                            state,
                            findings: Vec::new(),
                            error: None,
                        },
                        Origin::IdenticalFile,
                    ),
                    Taken::Missing => {
                        let source = match scanned.source.take() {
                            Some(s) => s,
                            None => Source::new(
                                crate::fsutil::read_regular(&ws.root.join(&path))
                                    .map_err(|e| Failure::new(format!("{path}: {e}")))?,
                            ),
                        };
                        // The stat index vouched for a hash, and the file was only read
                        // now: if it changed in between (an edit during the run), the
                        // report is of these bytes, so it is keyed and stated by them —
                        // stored under the old key it would be served for the old bytes
                        // later — and the stat index learns nothing of the file.
                        let hash = source.hash();
                        if hash != scanned.hash {
                            scanned.hash = hash;
                            scanned.read = false;
                            state = lock.state(info.as_ref(), hash);
                            key = findings_key(
                                &path,
                                &hash,
                                state,
                                info.as_ref(),
                                locale,
                                &settings_key,
                            );
                        }
                        // A stale entry's spans describe other bytes and are never used:
                        // its file needs no entry (and an edited file, no lockfile read).
                        let entry = match state.has_usable_spans() {
                            true => lock.take_entry(&path, info.as_ref())?,
                            false => None,
                        };
                        let format = Format::from_path(&path);
                        let mut report =
                            engine::report_once(&setup, format, &source, entry.as_ref(), locale);
                        report.state = state;
                        (report, Origin::Engine)
                    }
                };
                sides.push(Side {
                    key,
                    origin,
                    read: scanned.read,
                });
                done.push(Audited {
                    path,
                    hash: scanned.hash,
                    report,
                });
            }
            Ok((i, (done, sides)))
        })
        .collect::<Result<_, Failure>>()?;
    drop(scan);
    crate::timings::count("files read", || {
        let sides = chunks.iter().flat_map(|(_, (_, sides))| sides);
        sides.filter(|s| s.read).count()
    });
    let merge = crate::timings::phase("merge");
    chunks.sort_unstable_by_key(|(i, _)| *i);
    let (chunks, sides): (Vec<_>, Vec<_>) = chunks.into_iter().map(|(_, c)| c).unzip();
    let mut audit = Audit { chunks };
    let mut copies = Vec::new();
    if let Some(c) = caches.as_mut() {
        // Sized once: a cold run records every file, and growing the sets and lists by
        // doubling rehashed and copied them on the one thread the merge runs on.
        let (reads, fresh) = sides.iter().flatten().fold((0, 0), |(r, f), side| {
            (
                r + usize::from(side.read),
                f + usize::from(side.origin == Origin::Engine),
            )
        });
        c.reserve(reads, fresh);
        let each = audit.files().zip(sides.iter().flatten()).zip(&files);
        for (i, ((a, side), (_, stat))) in each.enumerate() {
            if let (true, Some(stat)) = (side.read, stat) {
                c.record_stat(&a.path, *stat, a.hash);
            }
            match side.origin {
                Origin::Engine => c.store_findings(side.key),
                Origin::Cache => {}
                Origin::IdenticalFile => copies.push(i),
            }
        }
    }
    // Files with equal keys (identical content and spans) share one cached report: the
    // one that took it out of the cache is its owner, the others copy from it.
    if !copies.is_empty() {
        let key = |i: usize| &sides[i / CHUNK][i % CHUNK].key;
        let wanted: FxHashSet<&[u8; 32]> = copies.iter().map(|&i| key(i)).collect();
        let owner: FxHashMap<&[u8; 32], usize> = sides
            .iter()
            .flatten()
            .enumerate()
            .filter(|(_, s)| s.origin == Origin::Cache && wanted.contains(&s.key))
            .map(|(i, s)| (&s.key, i))
            .collect();
        for i in copies {
            let first = &audit.get_mut(owner[key(i)]).report;
            let (findings, error) = (first.findings.clone(), first.error.clone());
            let copy = &mut audit.get_mut(i).report;
            copy.findings = findings;
            copy.error = error;
        }
    }
    drop(merge);
    Ok((audit, Learnt { caches, sides }))
}

/// What an audit taught the caches, to save while its report is printed.
pub struct Learnt {
    caches: Option<Caches>,
    sides: Vec<Vec<Side>>,
}

impl Learnt {
    /// Saves the caches, if the run learnt anything: `audit` is the audit that taught
    /// them, `summary` the lockfile summary the run made (if it parsed the lockfile).
    pub fn save(self, audit: &Audit, summary: Option<&[(String, LockInfo)]>) {
        let Learnt { caches, sides } = self;
        if let Some(c) = caches.filter(Caches::needs_save) {
            let _save = crate::timings::phase("save caches");
            // A rewritten shard gets the reports this run took out of it back (so
            // only those shards' files are indexed).
            let rewritten = c.rewritten_shards();
            let indexed = sides.iter().flatten().filter(|s| rewritten(&s.key)).count();
            let mut by_key: FxHashMap<[u8; 32], &Audited> =
                FxHashMap::with_capacity_and_hasher(indexed, Default::default());
            by_key.extend(
                sides
                    .iter()
                    .flatten()
                    .zip(audit.files())
                    .filter(|(side, _)| rewritten(&side.key))
                    .map(|(side, a)| (side.key, a)),
            );
            c.save(
                |key| {
                    by_key.get(key).map(|a| ReportRef {
                        findings: &a.report.findings,
                        error: &a.report.error,
                    })
                },
                summary,
            );
        }
    }
}

pub fn run(ws: &Workspace, args: &AuditArgs, format: OutputFormat) -> Result<Outcome, Failure> {
    if let Some(glob) = &args.refresh_cache {
        super::lockfile_cmd::invalidate(ws, glob)?;
    }
    if args.review_cache {
        return super::review::run(ws);
    }
    let matcher = ws
        .config
        .matcher(args.paths.as_deref())
        .map_err(|e| Failure::new(e.to_string()))?;
    if args.offline {
        super::offline::segment(ws, &matcher)?;
    }
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
    // Stats are taken in the walk only to be compared with the stat index's.
    let stat_walk = !args.no_cache && Caches::has_stat_index(&ws.root);
    if !stat_walk {
        // Every file will be read and audited: a cold run.
        crate::memory::small_pages();
    }
    let (files, (mut caches, lock)) = rayon::join(
        || {
            let _walk = crate::timings::phase("  walk and stat");
            ws.scope(&matcher, stat_walk)
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
            files = ws.scope(&matcher, stat_walk)?;
            LockView::open(ws, caches.as_mut())?
        }
    };
    if args.list_unsegmented {
        return list_unsegmented(ws, &lock, &files, format, caches);
    }
    let progress = Progress::new(files.len(), "auditing", args.quiet);
    let (audit, learnt) = audit(ws, &lock, files, caches, &progress)?;
    drop(progress);
    if args.verbose {
        for f in audit.files() {
            eprintln!(
                "{}: entry {:?}, {} findings",
                f.path,
                f.report.state,
                f.report.findings.len()
            );
        }
        // Spans the audit ignored because they cover nothing: what `lockfile check` says.
        let parsed = ws.read_lockfile()?;
        for f in audit.files() {
            if let Some(entry) = parsed.files.get(&f.path) {
                for p in super::lockfile_cmd::entry_problems(ws, &f.path, entry) {
                    if p.kind == "coversNothing" {
                        eprintln!("warning: {}: {}", p.path, p.message);
                    }
                }
            }
        }
    }
    let review = match args.require_reviewed {
        true => Some(review_status(&lock, &audit)?),
        false => None,
    };
    let root = ws.root.to_string_lossy();
    // The caches are written while the report is printed.
    let ((), summary) = rayon::join(
        || learnt.save(&audit, lock.parsed_summary()),
        || {
            let count = crate::timings::phase("count findings");
            let summary = AuditReport::new(&audit, review, &root);
            drop(count);
            let _print = crate::timings::phase("print");
            report::print_audit(ws, &summary, &audit, format);
            summary
        },
    );
    let gate_failed = summary
        .problems
        .review_status
        .as_ref()
        .is_some_and(|r| !r.is_clean());
    let outcome = if summary.totals.error_findings > 0 || summary.file_errors() > 0 || gate_failed {
        Outcome::Failed
    } else {
        Outcome::Clean
    };
    // The process exits next. Freeing every file's report one by one took 8% of a warm
    // run on 100k files (docs/performance.md, "What a run does with its memory"); the OS
    // takes the pages back at once.
    std::mem::forget(summary);
    std::mem::forget(audit);
    std::mem::forget(lock);
    Ok(outcome)
}

fn review_status(lock: &LockView, audit: &Audit) -> Result<ReviewStatus, Failure> {
    let mut status = ReviewStatus::default();
    let infos = lock.infos(audit.files().map(|f| f.path.as_str()))?;
    for (f, info) in audit.files().zip(infos) {
        match f.report.state {
            EntryState::Missing => status.unsegmented.push(f.path.clone()),
            EntryState::Stale => status.stale.push(f.path.clone()),
            EntryState::Fresh | EntryState::PromptOutdated => {
                if info.is_some_and(|i| !i.reviewed) {
                    status.unreviewed.push(f.path.clone());
                }
            }
        }
    }
    Ok(status)
}

fn list_unsegmented(
    ws: &Workspace,
    lock: &LockView,
    files: &[(String, Option<Stat>)],
    format: OutputFormat,
    mut caches: Option<Caches>,
) -> Result<Outcome, Failure> {
    let paths: Vec<&String> = files.iter().map(|(p, _)| p).collect();
    let known = match caches.as_mut() {
        Some(c) => c.known_hashes(files),
        None => vec![None; files.len()],
    };
    let scanned: Vec<Scanned> = files
        .par_iter()
        .zip(known)
        .map(|((p, stat), known)| {
            let mut s = scan_one(ws, p, *stat, known)?;
            s.source = None; // only the hash matters here
            Ok(s)
        })
        .collect::<Result<_, Failure>>()?;
    let infos = lock.infos(paths.iter().map(|p| p.as_str()))?;
    let mut unsegmented = Vec::new();
    for ((&path, s), info) in paths.iter().zip(&scanned).zip(&infos) {
        let state = lock.state(info.as_ref(), s.hash);
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
            expected_hash: info.as_ref().filter(|_| stale).map(LockInfo::hash_text),
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
        c.save(|_| None, lock.parsed_summary());
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

#[cfg(test)]
mod tests {
    use super::{Stat, read_file};

    #[test]
    fn a_file_is_read_whole_whatever_its_stat_said() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        for len in [0, 1, 15, 4096, 70_000] {
            let content: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            std::fs::write(&path, &content).unwrap();
            let (bytes, stat) = read_file(&path, None).unwrap();
            assert_eq!(bytes, content, "{len} bytes, stat of the open file");
            assert_eq!(stat.size, len as u64);
            // The walk's stat from before the file grew or shrank.
            for said in [0, len / 2, len + 1, 2 * len + 100] {
                let walked = Stat {
                    size: said as u64,
                    ..stat
                };
                let (bytes, kept) = read_file(&path, Some(walked)).unwrap();
                assert_eq!(bytes, content, "{len} bytes, the stat said {said}");
                assert_eq!(kept, walked);
            }
        }
    }
}
