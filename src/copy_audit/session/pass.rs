//! The audit pass: every file in scope, in chunks of [`CHUNK`] on every core, takes its
//! report from the findings cache where the cache holds its key and from the engine
//! otherwise; then, on one thread, the merge puts the chunks back in path order and
//! records what the caches learnt.

use super::super::Failure;
use super::super::cache::{Caches, ENGINE_VERSION, Fresh, LockInfo, ReportRef, Stat, Taken};
use super::super::lockview::LockView;
use super::super::workspace::Workspace;
use super::audited::{Audit, Audited, CHUNK};
use super::remote;
use super::scan::{Scanned, scan_one, unreadable};
use super::setup::engine_setup;
use crate::config::PathMatcher;
use crate::progress::Progress;
use crate::remote::Remote;
use lockgraph_queries::copy::engine::{self, EntryState, FileReport, Findings, Setup, Source};
use lockgraph_queries::copy::extract::Format;
use lockgraph_queries::copy::source::FileError;
use lockgraph_queries::hash::ContentHash;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use sha2::{Digest, Sha256};
use std::sync::atomic::{AtomicUsize, Ordering};

mod windowed;

/// What every key of a file's report starts with: the engine, the settings and the
/// file's format.
fn key_hasher(path: &str, settings: &ContentHash) -> Sha256 {
    let mut h = Sha256::new();
    h.update(ENGINE_VERSION.as_bytes());
    h.update(settings.0);
    h.update(Format::from_path(path).as_str().as_bytes());
    h
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
    let mut h = key_hasher(path, settings);
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

/// The key of a file in a chunk looked up by git's blob ids (the file unread): what its
/// report depends on, with the blob id in place of the content hash. Its lockfile entry
/// is named whole (recorded hash, review, spans), since whether its spans are used
/// depends on the content hash, which the bytes alone give.
fn blob_key(
    path: &str,
    blob: &[u8],
    info: Option<&LockInfo>,
    locale: Option<&str>,
    settings: &ContentHash,
    prompt_outdated: bool,
) -> [u8; 32] {
    let mut h = key_hasher(path, settings);
    h.update(b"\0git blob");
    h.update([blob.len() as u8]);
    h.update(blob);
    match info {
        Some(info) => {
            match &info.hash {
                Ok(hash) => {
                    h.update(b"entry hash");
                    h.update(hash.0);
                }
                Err(text) => {
                    h.update(b"entry text");
                    h.update((text.len() as u64).to_le_bytes());
                    h.update(text.as_bytes());
                }
            }
            h.update([u8::from(info.reviewed), u8::from(prompt_outdated)]);
            h.update(info.spans.0);
        }
        None => h.update(b"no entry"),
    }
    h.update(b"locale");
    h.update(locale.unwrap_or_default().as_bytes());
    h.finalize().into()
}

/// What the merge needs to know of a file besides its report.
struct Side {
    key: [u8; 32],
    origin: Origin,
    /// The file was read for its hash (so the stat index learns it).
    read: bool,
    /// For a report the remote cache served, its bytes as served: what the local cache
    /// stores.
    served: Option<remote::Encoded>,
}

/// A chunk's audited files, and what the caches learn of each.
type Chunk = (Vec<Audited>, Vec<Side>);

/// Where a file's report came from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    Engine,
    Cache,
    /// Served by the remote cache: the local cache learns it.
    Remote,
    /// The cached report of another file with the same key (identical content and
    /// spans), which took it out of the cache this run: copied from it after the pass.
    IdenticalFile,
    /// Nothing: the file could not be read (it vanished or changed kind since the walk).
    /// Its report is a file error, which no cache learns.
    Unread,
}

/// Audits every file in `files` (paths with the stats the walk took, if it took them), from
/// the caches where they vouch for the inputs.
pub fn audit<'r>(
    ws: &Workspace,
    lock: &LockView,
    mut files: Vec<(String, Option<Stat>)>,
    mut caches: Option<Caches>,
    progress: &Progress,
    remote: Option<&'r Remote>,
) -> Result<(Audit, Learnt<'r>), Failure> {
    let pass = Pass::new(ws, lock)?;
    let (known, infos) = join_caches(lock, &files, caches.as_mut())?;
    // Between the stat index vouching for hashes and the files being read: where an edit
    // during a run is tested (`tests/stale_caches.rs`).
    crate::testhook::pause("read");
    let scan = crate::logging::phase("stat, read, audit");
    let (chunks, remote) = match (remote, caches.as_ref()) {
        (Some(remote), Some(shared)) => {
            let (chunks, plan) =
                pass.audit_windows(remote, shared, files, &known, &infos, progress)?;
            (chunks, Some((remote, plan)))
        }
        (_, shared) => {
            let chunks = pass.audit_all(&mut files, &known, &infos, shared, progress)?;
            (chunks, None)
        }
    };
    drop(scan);
    crate::logging::count("file reads", || pass.reads.load(Ordering::Relaxed));
    crate::logging::count("files read", || {
        let sides = chunks.iter().flat_map(|(_, (_, sides))| sides);
        sides.filter(|s| s.read).count()
    });
    crate::logging::count("reports computed", || {
        let sides = chunks.iter().flat_map(|(_, (_, sides))| sides);
        sides.filter(|s| s.origin == Origin::Engine).count()
    });
    let merge = crate::logging::phase("merge");
    let (mut audit, sides) = in_path_order(chunks);
    if let Some(c) = caches.as_mut() {
        let copies = teach(c, &audit, &sides);
        copy_identical_reports(&mut audit, &sides, copies);
    }
    drop(merge);
    let learnt = Learnt {
        caches,
        sides,
        remote,
    };
    Ok((audit, learnt))
}

/// A file's hash as the stat index vouches for it (for the stat the walk took), if it does.
type Known = Option<ContentHash>;

/// The stat index's hash (if it vouches for the file's stat) and the lockfile's summary of
/// every file, in path order: two passes over sorted lists, each on a core.
fn join_caches(
    lock: &LockView,
    files: &[(String, Option<Stat>)],
    caches: Option<&mut Caches>,
) -> Result<(Vec<Known>, Vec<Option<LockInfo>>), Failure> {
    let _join = crate::logging::phase("join the stat index and lockfile summary");
    let (known, infos) = rayon::join(
        || match caches {
            Some(c) => c.known_hashes(files),
            None => vec![None; files.len()],
        },
        || lock.infos(files.iter().map(|(p, _)| p.as_str())),
    );
    Ok((known, infos?))
}

/// What every worker reads while it audits its files: set up once for the pass.
struct Pass<'a, 'w> {
    ws: &'a Workspace,
    lock: &'a LockView<'w>,
    setup: Setup,
    /// `paths.locale`, for the provisional spans of files without a fresh entry.
    locales: PathMatcher,
    /// The settings that decide every file's findings, hashed into each findings key.
    settings_key: ContentHash,
    /// Files read, counting a file read twice twice (for `LOCKGRAPH_LOG`).
    reads: AtomicUsize,
}

impl<'a, 'w> Pass<'a, 'w> {
    /// The engine's setup, the locale globs and the settings key, made once for every
    /// worker to share.
    fn new(ws: &'a Workspace, lock: &'a LockView<'w>) -> Result<Self, Failure> {
        let setup = engine_setup(ws, lock.prompt_outdated())?;
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
        Ok(Pass {
            ws,
            lock,
            setup,
            locales,
            settings_key,
            reads: AtomicUsize::new(0),
        })
    }

    /// Every file, in chunks of [`CHUNK`] on every core, each numbered by its place.
    fn audit_all(
        &self,
        files: &mut [(String, Option<Stat>)],
        known: &[Known],
        infos: &[Option<LockInfo>],
        caches: Option<&Caches>,
        progress: &Progress,
    ) -> Result<Vec<(usize, Chunk)>, Failure> {
        files
            .chunks_mut(CHUNK)
            .zip(known.chunks(CHUNK))
            .zip(infos.chunks(CHUNK))
            .enumerate()
            .par_bridge()
            .map(|(i, ((chunk, known), infos))| {
                Ok((i, self.audit_chunk(chunk, known, infos, caches, progress)?))
            })
            .collect()
    }

    /// One worker's chunk, in path order. Each path is moved into its report (a copy of
    /// each was a tenth of a warm run's merge); the stats stay for the stat index.
    fn audit_chunk(
        &self,
        chunk: &mut [(String, Option<Stat>)],
        known: &[Known],
        infos: &[Option<LockInfo>],
        caches: Option<&Caches>,
        progress: &Progress,
    ) -> Result<Chunk, Failure> {
        let mut done = Vec::with_capacity(chunk.len());
        let mut sides = Vec::with_capacity(chunk.len());
        let each = chunk.iter_mut().zip(known).zip(infos.iter());
        for (((path, stat), known), info) in each {
            progress.inc();
            let path = std::mem::take(path);
            let scanned = self.scan(&path, *stat, *known);
            let (audited, side) = self.audit_scanned(path, scanned, info.as_ref(), caches, None)?;
            sides.push(side);
            done.push(audited);
        }
        Ok((done, sides))
    }

    /// One file, hashed (or not readable): its findings key, and its report, the one the
    /// remote cache `served` if it did, else taken from the local cache when the key is
    /// there and made by the engine otherwise.
    fn audit_scanned(
        &self,
        path: String,
        scanned: std::io::Result<Scanned>,
        info: Option<&LockInfo>,
        caches: Option<&Caches>,
        served: Option<remote::ServedReport>,
    ) -> Result<(Audited, Side), Failure> {
        let mut scanned = match scanned {
            Ok(scanned) => scanned,
            Err(e) => return Ok(self.unread(path, info, &e)),
        };
        let state = self.lock.state(info, scanned.hash);
        let locale = self.locales.locale_for(&path);
        let mut key = self.key(&path, &scanned.hash, state, info, locale);
        // Taken out of the cache here, on the workers, not cloned.
        let (taken, taken_from, served) = match served {
            Some(s) => (Taken::Report(s.report), Origin::Remote, Some(s.encoded)),
            None => (
                caches.map_or(Taken::Missing, |c| c.take_findings(&key)),
                Origin::Cache,
                None,
            ),
        };
        if info.is_some() && !matches!(taken, Taken::Missing) {
            self.lock.release_entry(&path);
        }
        let (report, origin) = match taken {
            Taken::Report(r) => (
                FileReport {
                    state,
                    findings: r.findings,
                    error: r.error,
                },
                taken_from,
            ),
            Taken::ByIdenticalFile => (
                FileReport {
                    state,
                    findings: Findings::default(),
                    error: None,
                },
                Origin::IdenticalFile,
            ),
            Taken::Missing => {
                if let Err(e) = self.load(&path, &mut scanned) {
                    return Ok(self.unread(path, info, &e));
                }
                let uncached = Uncached {
                    path: &path,
                    info,
                    locale,
                    state,
                    key,
                };
                let (report, stored_under) = self.engine_report(uncached, &mut scanned)?;
                key = stored_under;
                (report, Origin::Engine)
            }
        };
        let side = Side {
            key,
            origin,
            read: scanned.read,
            served: served.filter(|_| origin == Origin::Remote),
        };
        let audited = Audited {
            path,
            hash: Some(scanned.hash),
            stat: Some(scanned.stat),
            report,
        };
        Ok((audited, side))
    }

    /// A file's stat and hash ([`scan_one`]), counted if it was read.
    fn scan(&self, path: &str, stat: Option<Stat>, known: Known) -> std::io::Result<Scanned> {
        let scanned = scan_one(self.ws, path, stat, known);
        if scanned.as_ref().is_ok_and(|s| s.read) {
            self.reads.fetch_add(1, Ordering::Relaxed);
        }
        scanned
    }

    /// The bytes of a file the stat index vouched for (or whose bytes were not kept),
    /// read now that the engine needs them.
    fn load(&self, path: &str, scanned: &mut Scanned) -> std::io::Result<()> {
        if scanned.source.is_none() {
            self.reads.fetch_add(1, Ordering::Relaxed);
            let bytes = crate::fsutil::read_regular(&self.ws.root.join(path))?;
            scanned.source = Some(Source::new(bytes));
        }
        Ok(())
    }

    /// A file that could not be read: one file error in the report, and the run goes on.
    fn unread(&self, path: String, info: Option<&LockInfo>, e: &std::io::Error) -> (Audited, Side) {
        if info.is_some() {
            self.lock.release_entry(&path);
        }
        let report = FileReport {
            // No bytes: whatever the entry says, it is not of them.
            state: match info {
                Some(_) => EntryState::Stale,
                None => EntryState::Missing,
            },
            findings: Findings::default(),
            error: Some(FileError {
                line_col: None,
                message: unreadable(e),
            }),
        };
        let side = Side {
            key: [0; 32],
            origin: Origin::Unread,
            read: false,
            served: None,
        };
        let audited = Audited {
            path,
            hash: None,
            stat: None,
            report,
        };
        (audited, side)
    }

    /// [`blob_key`] under this pass's settings.
    fn blob_key(
        &self,
        path: &str,
        blob: &[u8],
        info: Option<&LockInfo>,
        locale: Option<&str>,
    ) -> [u8; 32] {
        let prompt_outdated = self.lock.prompt_outdated();
        blob_key(
            path,
            blob,
            info,
            locale,
            &self.settings_key,
            prompt_outdated,
        )
    }

    /// [`findings_key`] under this pass's settings.
    fn key(
        &self,
        path: &str,
        hash: &ContentHash,
        state: EntryState,
        info: Option<&LockInfo>,
        locale: Option<&str>,
    ) -> [u8; 32] {
        findings_key(path, hash, state, info, locale, &self.settings_key)
    }

    /// The report of a file the cache had none for, from the engine, and the key it is to
    /// be stored under (the one the file was looked up by, unless its bytes changed
    /// meanwhile).
    fn engine_report(
        &self,
        file: Uncached,
        scanned: &mut Scanned,
    ) -> Result<(FileReport, [u8; 32]), Failure> {
        let Uncached {
            path,
            info,
            locale,
            mut state,
            mut key,
        } = file;
        let source = scanned
            .source
            .take()
            .expect("loaded before the engine runs");
        // The stat index vouched for a hash, and the file was only read now: if it
        // changed in between (an edit during the run), the report is of these bytes, so
        // it is keyed and stated by them — stored under the old key it would be served
        // for the old bytes later — and the stat index learns nothing of the file.
        let hash = source.hash();
        if hash != scanned.hash {
            scanned.hash = hash;
            scanned.read = false;
            state = self.lock.state(info, hash);
            key = self.key(path, &hash, state, info, locale);
        }
        // A stale entry's spans describe other bytes and are never used: its file needs
        // no entry (and an edited file, no lockfile read), and a lockfile read whole lets
        // go of it now (every entry stale at 100k files held 80 MB through the audit).
        let entry = match state.has_usable_spans() {
            true => self.lock.take_entry(path, info)?,
            false => {
                self.lock.release_entry(path);
                None
            }
        };
        let format = Format::from_path(path);
        let mut report = engine::report_once(&self.setup, format, &source, entry.as_ref(), locale);
        report.state = state;
        Ok((report, key))
    }
}

/// A file the findings cache had no report for, as it was looked up.
struct Uncached<'f> {
    path: &'f str,
    info: Option<&'f LockInfo>,
    locale: Option<&'f str>,
    state: EntryState,
    key: [u8; 32],
}

/// The workers' chunks back in path order (they finish in any order), and what the caches
/// learn of each file, in the same order.
fn in_path_order(mut chunks: Vec<(usize, Chunk)>) -> (Audit, Vec<Vec<Side>>) {
    chunks.sort_unstable_by_key(|(i, _)| *i);
    let (chunks, sides): (Vec<_>, Vec<_>) = chunks.into_iter().map(|(_, c)| c).unzip();
    (Audit { chunks }, sides)
}

/// Records in the caches what the pass learnt: the stats of the files it read, and the
/// keys of the reports the engine made. Returns the files whose report is to be copied
/// from an identical file's.
fn teach(c: &mut Caches, audit: &Audit, sides: &[Vec<Side>]) -> Vec<usize> {
    // Sized once: a cold run records every file, and growing the sets and lists by
    // doubling rehashed and copied them on the one thread the merge runs on.
    let (reads, fresh) = sides.iter().flatten().fold((0, 0), |(r, f), side| {
        (
            r + usize::from(side.read),
            f + usize::from(side.origin == Origin::Engine),
        )
    });
    c.reserve(reads, fresh);
    let mut copies = Vec::new();
    let each = audit.files().zip(sides.iter().flatten());
    for (i, (a, side)) in each.enumerate() {
        if let (true, Some(stat)) = (side.read, a.stat) {
            c.record_stat(&a.path, stat, a.hash.expect("a file read has a hash"));
        }
        match side.origin {
            Origin::Engine | Origin::Remote => c.store_findings(side.key),
            Origin::Cache | Origin::Unread => {}
            Origin::IdenticalFile => copies.push(i),
        }
    }
    copies
}

/// Files with equal keys (identical content and spans) share one cached report: the one
/// that took it out of the cache is its owner, the others (`copies`) copy from it.
fn copy_identical_reports(audit: &mut Audit, sides: &[Vec<Side>], copies: Vec<usize>) {
    if copies.is_empty() {
        return;
    }
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

/// What an audit taught the caches, local and remote, to save while its report is
/// printed.
pub struct Learnt<'r> {
    caches: Option<Caches>,
    sides: Vec<Vec<Side>>,
    /// The remote cache and the chunks it was asked for, whose missed ones are stored.
    remote: Option<(&'r Remote, remote::Plan)>,
}

impl Learnt<'_> {
    /// Saves the caches, if the run learnt anything, and stores the chunks the remote
    /// cache lacked, side by side (the upload mostly waits on the server): `audit` is the
    /// audit that taught them, `summary` the lockfile summary the run made (if it parsed
    /// the lockfile).
    pub fn save(self, audit: &Audit, summary: Option<&[(String, LockInfo)]>) {
        let Learnt {
            caches,
            sides,
            remote,
        } = self;
        rayon::join(
            || {
                if let Some((remote, plan)) = &remote {
                    upload(remote, plan, audit, &sides);
                }
            },
            || save_local(caches, audit, &sides, summary),
        );
    }
}

/// Stores the chunks `plan` looked up and `remote` did not serve, from the reports the
/// audit made.
fn upload(remote: &Remote, plan: &remote::Plan, audit: &Audit, sides: &[Vec<Side>]) {
    remote::upload(remote, plan, |i| {
        let side = &sides[i / CHUNK][i % CHUNK];
        let audited = audit.get(i);
        let report = &audited.report;
        let hash = audited.hash.filter(|_| side.origin != Origin::Unread)?;
        let report = ReportRef {
            findings: &report.findings,
            error: &report.error,
        };
        Some((hash, report))
    });
}

/// Saves the local caches, if the run learnt anything.
fn save_local(
    caches: Option<Caches>,
    audit: &Audit,
    sides: &[Vec<Side>],
    summary: Option<&[(String, LockInfo)]>,
) {
    if let Some(mut c) = caches.filter(Caches::needs_save) {
        let _save = crate::logging::phase("save caches");
        c.plan_findings(sides.iter().flatten().count());
        // A rewritten shard asks for the reports this run computed or the remote
        // cache served (those it took from the shard it copies back itself), so
        // only those shards' files are indexed.
        let rewritten = c.rewritten_shards();
        let indexed = sides.iter().flatten().filter(|s| rewritten(&s.key)).count();
        // A served report as the server sent it; another as the audit holds it.
        let mut by_key: FxHashMap<[u8; 32], Fresh> =
            FxHashMap::with_capacity_and_hasher(indexed, Default::default());
        by_key.extend(
            sides
                .iter()
                .flatten()
                .zip(audit.files())
                .filter(|(side, _)| side.origin != Origin::Unread && rewritten(&side.key))
                .map(|(side, a)| {
                    let fresh = match &side.served {
                        Some(encoded) => Fresh::Encoded(encoded.bytes()),
                        None => Fresh::Report(ReportRef {
                            findings: &a.report.findings,
                            error: &a.report.error,
                        }),
                    };
                    (side.key, fresh)
                }),
        );
        c.save(|key| by_key.get(key).copied(), summary);
    }
}
