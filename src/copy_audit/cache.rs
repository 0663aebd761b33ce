//! Caches that survive between runs, in the root's gitignored `.lockgraph/` directory.
//!
//! - The **stat index** maps a path to its size, modification time, inode and content
//!   hash, so an unchanged file is not even read. Git's racy-timestamp rule applies: an
//!   entry whose mtime is not older than the index file itself may have changed within the
//!   same clock tick, so it is not trusted.
//! - The **findings cache** maps everything a file's findings depend on — content hash,
//!   format, the spans that apply, the effective rules and settings, the engine version —
//!   to the findings, so an unchanged file is not audited again. It is split into 256
//!   shards by the key's first byte, each loaded on first use and rewritten only when this
//!   run added to it: an edit of one file rewrites one shard, not every finding.
//! - The **lockfile summary** (see `lockview`) keeps what an audit reads of each entry,
//!   valid while the lockfile's stat is unchanged; the entries themselves are mirrored by
//!   `entrycache`.
//!
//! All are pure accelerators: results with and without them are byte-identical. A file
//! that is corrupt, truncated or from another version is moved aside with a one-line
//! warning and rebuilt; writes replace files atomically, so concurrent runs cannot
//! corrupt them (the last writer wins).

use crate::statcache::{self, ExactMap, Loaded};
use lockgraph_queries::copy::engine::{FileError, Finding};
use lockgraph_queries::hash::ContentHash;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

pub use crate::statcache::Stat;

/// Bumped whenever the engine's output for the same inputs may change, or the keys are
/// derived differently: part of every key and of the file headers.
pub const ENGINE_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+cache5");

const STAT_FILE: &str = "stat-index.v1";
const LOCK_SUMMARY_FILE: &str = "lock-summary.v1";
const FINDINGS_DIR: &str = "findings";
const SHARDS: usize = 256;

type Key = [u8; 32];

#[derive(Serialize)]
struct StatFile {
    /// Sorted by path.
    entries: Vec<(String, Stat, [u8; 32])>,
}

/// [`StatFile`] as read: the same bytes, straight into the index.
#[derive(Deserialize)]
struct StatFileIn {
    entries: ExactMap<String, (Stat, ContentHash)>,
}

/// What an audit reads of one lockfile entry (see `lockview`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockInfo {
    /// The recorded content hash, or the text recorded where it is not a well-formed one.
    pub hash: Result<[u8; 32], String>,
    pub reviewed: bool,
    /// Fingerprint of what the span filter reads of the spans.
    pub spans: [u8; 32],
}

impl LockInfo {
    /// The recorded hash as written in the lockfile.
    pub fn hash_text(&self) -> String {
        match &self.hash {
            Ok(h) => ContentHash(*h).to_string(),
            Err(text) => text.clone(),
        }
    }
}

/// The summary of a lockfile, valid while the lockfile's stat is unchanged.
#[derive(Clone, Debug, Deserialize)]
pub struct LockSummary {
    pub lock: Stat,
    pub prompt_outdated: bool,
    #[serde(deserialize_with = "statcache::exact_map")]
    pub entries: FxHashMap<String, LockInfo>,
}

#[derive(Deserialize)]
struct LockSummaryFile {
    summary: LockSummary,
}

/// [`LockSummaryFile`] as written: the same bytes, from the entries the run holds rather
/// than from a copy of them.
#[derive(Serialize)]
struct LockSummaryOut<'a> {
    lock: Stat,
    prompt_outdated: bool,
    entries: &'a FxHashMap<String, LockInfo>,
}

/// The audit of one file as cached: everything `report` returns except the entry state,
/// which the lockfile decides afresh each run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CachedReport {
    pub findings: Vec<Finding>,
    pub error: Option<FileError>,
}

/// A [`CachedReport`] as written, borrowed from wherever the run holds it (the same bytes).
#[derive(Clone, Copy, Serialize)]
pub struct ReportRef<'a> {
    pub findings: &'a [Finding],
    pub error: &'a Option<FileError>,
}

impl CachedReport {
    fn as_ref(&self) -> ReportRef<'_> {
        ReportRef {
            findings: &self.findings,
            error: &self.error,
        }
    }
}

#[derive(Serialize)]
struct Shard<'a> {
    /// Sorted by key.
    entries: Vec<(Key, ReportRef<'a>)>,
}

/// [`Shard`] as read.
#[derive(Deserialize)]
struct ShardIn {
    entries: ExactMap<Key, CachedReport>,
}

pub struct Caches {
    dir: PathBuf,
    /// Entries older than this (the index file's mtime) are trusted.
    stat_written_ns: i128,
    stats: FxHashMap<String, (Stat, ContentHash)>,
    new_stats: Vec<(String, Stat, [u8; 32])>,
    /// Loaded on first use, from any worker thread.
    shards: Vec<OnceLock<Mutex<Shelf>>>,
    /// Reports this run computed.
    fresh: FxHashSet<Key>,
    lock_summary: Option<(LockSummary, i128)>,
    /// The lockfile was parsed this run: its summary is to be written, for this stat.
    lock_summary_wanted: Option<(Stat, bool)>,
}

/// One findings shard as a run holds it: the reports not yet taken, and the keys of those
/// this run took (which a rewrite of the shard asks back for).
#[derive(Default)]
struct Shelf {
    reports: FxHashMap<Key, CachedReport>,
    taken: FxHashSet<Key>,
}

/// What [`Caches::take_findings`] found for a key.
pub enum Taken {
    Report(CachedReport),
    /// Another file with the same key (identical content and spans) took it this run.
    Shared,
    Missing,
}

fn shard_of(key: &Key) -> usize {
    key[0] as usize
}

impl Caches {
    /// Opens (and, if needed, repairs) the caches under `root/.lockgraph`.
    pub fn open(root: &Path) -> Caches {
        let dir = root.join(".lockgraph");
        let mut caches = Caches {
            dir,
            stat_written_ns: 0,
            stats: FxHashMap::default(),
            new_stats: Vec::new(),
            shards: (0..SHARDS).map(|_| OnceLock::new()).collect(),
            fresh: FxHashSet::default(),
            lock_summary: None,
            lock_summary_wanted: None,
        };
        let (summary, stats) = rayon::join(
            || caches.load::<LockSummaryFile>(LOCK_SUMMARY_FILE),
            || caches.load::<StatFileIn>(STAT_FILE),
        );
        if let Some((file, written)) = summary {
            caches.lock_summary = Some((file.summary, written));
        }
        if let Some((file, written)) = stats {
            caches.stat_written_ns = written;
            caches.stats = file.entries.0;
        }
        caches
    }

    fn shard_name(i: usize) -> String {
        format!("{FINDINGS_DIR}/{i:02x}.v1")
    }

    fn shard(&self, i: usize) -> &Mutex<Shelf> {
        self.shards[i].get_or_init(|| {
            let reports = self
                .load::<ShardIn>(&Self::shard_name(i))
                .map(|(s, _)| s.entries.0)
                .unwrap_or_default();
            Mutex::new(Shelf {
                reports,
                taken: FxHashSet::default(),
            })
        })
    }

    fn load<T: for<'de> Deserialize<'de>>(&self, name: &str) -> Option<(T, i128)> {
        load_file(&self.dir, name)
    }

    /// The content hash of `path` if its stat matches the index and is not racy.
    pub fn known_hash(&self, path: &str, stat: &Stat) -> Option<ContentHash> {
        let (s, h) = self.stats.get(path)?;
        stat.unchanged_since(s, self.stat_written_ns).then_some(*h)
    }

    pub fn record_stat(&mut self, path: &str, stat: Stat, hash: ContentHash) {
        self.new_stats.push((path.to_string(), stat, hash.0));
    }

    /// Notes that the run computed the report of `key`; [`Caches::save`] asks for it then,
    /// so the run's reports are never copied into the cache.
    pub fn store_findings(&mut self, key: Key) {
        self.fresh.insert(key);
    }

    /// Moves a cached report out of the cache (the run owns it from here; safe from any
    /// worker thread) and marks it taken, so a rewrite of its shard asks for it back.
    pub fn take_findings(&self, key: &Key) -> Taken {
        let mut shelf = self.shard(shard_of(key)).lock().expect("no holder panics");
        match shelf.reports.remove(key) {
            Some(report) => {
                shelf.taken.insert(*key);
                Taken::Report(report)
            }
            None if shelf.taken.contains(key) => Taken::Shared,
            None => Taken::Missing,
        }
    }

    /// Takes the lockfile summary, if it was made from a lockfile with this stat and the
    /// lockfile is not racily newer than the summary.
    pub fn take_lock_summary(&mut self, lock: &Stat) -> Option<LockSummary> {
        let (s, written) = self.lock_summary.as_ref()?;
        if lock.unchanged_since(&s.lock, *written) {
            self.lock_summary.take().map(|(s, _)| s)
        } else {
            None
        }
    }

    /// Asks [`Caches::save`] to write the summary of the lockfile with this stat.
    pub fn want_lock_summary(&mut self, lock: Stat, prompt_outdated: bool) {
        self.lock_summary = None;
        self.lock_summary_wanted = Some((lock, prompt_outdated));
    }

    /// Whether this run learnt anything worth writing.
    pub fn needs_save(&self) -> bool {
        !self.new_stats.is_empty() || !self.fresh.is_empty() || self.lock_summary_wanted.is_some()
    }

    /// Writes what changed: the stat index if any file was read, and each findings shard
    /// this run added to. A rewritten shard keeps the reports this run used (`served`
    /// gives back the ones taken out), and older ones while it stays within twice that
    /// size, so auditing a subset of the tree does not evict the rest, yet a shard cannot
    /// grow without bound.
    /// `summary` is the lockfile summary the run holds, written if it was rebuilt.
    pub fn save<'r>(
        mut self,
        served: impl for<'k> Fn(&'k Key) -> Option<ReportRef<'r>> + Sync,
        summary: &FxHashMap<String, LockInfo>,
    ) {
        if !self.needs_save() {
            return;
        }
        if let Err(e) = statcache::create_dir(&self.dir, &self.dir.join(FINDINGS_DIR)) {
            eprintln!("warning: .lockgraph: {e}; caches not saved");
            return;
        }
        if let Some((lock, prompt_outdated)) = self.lock_summary_wanted.take() {
            self.write(
                LOCK_SUMMARY_FILE,
                &LockSummaryOut {
                    lock,
                    prompt_outdated,
                    entries: summary,
                },
            );
        }
        if !self.new_stats.is_empty() {
            let mut stats: FxHashMap<String, (Stat, [u8; 32])> = self
                .stats
                .drain()
                .map(|(p, (s, h))| (p, (s, h.0)))
                .collect();
            for (p, s, h) in self.new_stats.drain(..) {
                stats.insert(p, (s, h));
            }
            let mut entries: Vec<_> = stats.into_iter().map(|(p, (s, h))| (p, s, h)).collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            self.write(STAT_FILE, &StatFile { entries });
        }
        let mut fresh_by_shard: Vec<Vec<Key>> = vec![Vec::new(); SHARDS];
        for k in std::mem::take(&mut self.fresh) {
            fresh_by_shard[shard_of(&k)].push(k);
        }
        // Shards are independent files: encoded and written on every core (a cold run of a
        // large tree writes all 256).
        let this = &self;
        fresh_by_shard
            .into_par_iter()
            .enumerate()
            .for_each(|(i, fresh)| {
                if fresh.is_empty() {
                    return;
                }
                let shelf = this.shard(i).lock().expect("no holder panics");
                let (old, used) = (&shelf.reports, &shelf.taken);
                let budget = 2 * (fresh.len() + used.len()) + 16;
                let mut all: FxHashMap<Key, ReportRef<'_>> = FxHashMap::default();
                for k in fresh.iter().chain(used) {
                    if let Some(v) = served(k) {
                        all.entry(*k).or_insert(v);
                    }
                }
                for (k, v) in old {
                    if all.len() >= budget {
                        break;
                    }
                    all.entry(*k).or_insert_with(|| v.as_ref());
                }
                let mut entries: Vec<_> = all.into_iter().collect();
                entries.sort_by_key(|e| e.0);
                this.write(&Self::shard_name(i), &Shard { entries });
            });
    }

    fn write<T: Serialize>(&self, name: &str, value: &T) {
        write_file(&self.dir, name, value);
    }
}

/// Reads one cache file of `dir` (see [`statcache::load`]) with its mtime. A file of
/// another engine is moved aside with a warning like a damaged one: copy-audit's engine
/// changes only with a new version, and a user should hear why the next run is cold.
pub(super) fn load_file<T: for<'de> Deserialize<'de>>(dir: &Path, name: &str) -> Option<(T, i128)> {
    let shown = format!(".lockgraph/{name}");
    match statcache::load(dir, name, ENGINE_VERSION, &shown) {
        Loaded::Fresh(value, written) => Some((value, written)),
        Loaded::Missing | Loaded::Broken => None,
        Loaded::OtherEngine(engine) => {
            let what = if fs::rename(dir.join(name), dir.join(format!("{name}.bad"))).is_ok() {
                format!("moved aside to {shown}.bad")
            } else {
                "ignored".to_string()
            };
            // An upgrade finds every cache file from the old engine: one line says so, not
            // one per file (a large tree has hundreds).
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                eprintln!(
                    "warning: {shown}: written by engine {engine}; {what} and rebuilt \
                     (with any other cache file of that engine)"
                );
            });
            None
        }
    }
}

/// Replaces one cache file of `dir`; a failure is a warning, never an error.
pub(super) fn write_file<T: Serialize>(dir: &Path, name: &str, value: &T) {
    if let Err(e) = statcache::store(dir, name, ENGINE_VERSION, value) {
        eprintln!("warning: .lockgraph/{name}: {e}; not saved");
    }
}
