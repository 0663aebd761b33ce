//! Caches that survive between runs, in the root's gitignored `.lockgraph/` directory.
//!
//! - The **stat index** maps a path to its size, modification time, inode and content
//!   hash, so an unchanged file is not even read. Git's racy-timestamp rule applies: an
//!   entry whose mtime is not older than the index file itself may have changed within the
//!   same clock tick, so it is not trusted.
//! - The **findings cache** maps everything a file's findings depend on — content hash,
//!   format, the spans that apply, the effective rules and settings, the engine version —
//!   to the findings, so an unchanged file is not audited again.
//!
//! Both are pure accelerators: results with and without them are byte-identical. A file
//! that is corrupt, truncated or from another version is moved aside with a one-line
//! warning and rebuilt; writes replace the file atomically, so concurrent runs cannot
//! corrupt it (the last writer wins).

use crate::fsutil::write_if_changed;
use lockgraph_queries::copy::engine::{FileError, Finding};
use lockgraph_queries::hash::ContentHash;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Bumped whenever the engine's output for the same inputs may change: part of every key
/// and of the file headers.
pub const ENGINE_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+cache1");

const STAT_FILE: &str = "stat-index.v1";
const FINDINGS_FILE: &str = "findings.v1";
const MAGIC: &[u8; 4] = b"LGC1";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stat {
    pub size: u64,
    pub mtime_ns: i128,
    pub inode: u64,
}

impl Stat {
    pub fn of(meta: &fs::Metadata) -> Stat {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(meta);
        #[cfg(not(unix))]
        let inode = 0;
        Stat {
            size: meta.len(),
            mtime_ns,
            inode,
        }
    }
}

#[derive(Serialize, Deserialize)]
struct StatFile {
    engine: String,
    entries: Vec<(String, Stat, [u8; 32])>,
}

/// The audit of one file as cached: everything `report` returns except the entry state,
/// which the lockfile decides afresh each run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CachedReport {
    pub findings: Vec<Finding>,
    pub error: Option<FileError>,
}

#[derive(Serialize, Deserialize)]
struct FindingsFile {
    engine: String,
    entries: Vec<([u8; 32], CachedReport)>,
}

pub struct Caches {
    dir: PathBuf,
    /// Entries older than this (the index file's mtime) are trusted.
    stat_written_ns: i128,
    stats: HashMap<String, (Stat, ContentHash)>,
    new_stats: Vec<(String, Stat, [u8; 32])>,
    findings: HashMap<[u8; 32], CachedReport>,
    /// Keys of cached reports this run served.
    used: HashSet<[u8; 32]>,
    /// Reports this run computed.
    fresh: HashMap<[u8; 32], CachedReport>,
}

impl Caches {
    /// Opens (and, if needed, repairs) the caches under `root/.lockgraph`.
    pub fn open(root: &Path) -> Caches {
        let dir = root.join(".lockgraph");
        let mut caches = Caches {
            dir,
            stat_written_ns: 0,
            stats: HashMap::new(),
            new_stats: Vec::new(),
            findings: HashMap::new(),
            used: HashSet::new(),
            fresh: HashMap::new(),
        };
        if let Some((file, written)) = caches.load::<StatFile>(STAT_FILE) {
            caches.stat_written_ns = written;
            caches.stats = file
                .entries
                .into_iter()
                .map(|(p, s, h)| (p, (s, ContentHash(h))))
                .collect();
        }
        if let Some((file, _)) = caches.load::<FindingsFile>(FINDINGS_FILE) {
            caches.findings = file.entries.into_iter().collect();
        }
        caches
    }

    /// Reads one cache file; anything unreadable is moved aside with a warning.
    fn load<T: for<'de> Deserialize<'de> + HasEngine>(&self, name: &str) -> Option<(T, i128)> {
        let path = self.dir.join(name);
        let bytes = fs::read(&path).ok()?;
        let written = fs::metadata(&path)
            .map(|m| Stat::of(&m).mtime_ns)
            .unwrap_or(0);
        let problem = match bytes.strip_prefix(MAGIC.as_slice()) {
            None => "not a lockgraph cache".to_string(),
            Some(body) => match postcard::from_bytes::<T>(body) {
                Ok(v) if v.engine() == ENGINE_VERSION => return Some((v, written)),
                Ok(v) => format!("written by engine {}", v.engine()),
                Err(e) => format!("unreadable ({e})"),
            },
        };
        let aside = self.dir.join(format!("{name}.bad"));
        let moved = fs::rename(&path, &aside).is_ok();
        eprintln!(
            "warning: .lockgraph/{name}: {problem}; {} and rebuilt",
            if moved {
                format!("moved aside to .lockgraph/{name}.bad")
            } else {
                "ignored".to_string()
            }
        );
        None
    }

    /// The content hash of `path` if its stat matches the index and is not racy.
    pub fn known_hash(&self, path: &str, stat: &Stat) -> Option<ContentHash> {
        let (s, h) = self.stats.get(path)?;
        (s == stat && s.mtime_ns < self.stat_written_ns).then_some(*h)
    }

    pub fn record_stat(&mut self, path: &str, stat: Stat, hash: ContentHash) {
        self.new_stats.push((path.to_string(), stat, hash.0));
    }

    pub fn findings(&self, key: &[u8; 32]) -> Option<&CachedReport> {
        self.findings.get(key)
    }

    /// Records a freshly computed report.
    pub fn store_findings(&mut self, key: [u8; 32], report: CachedReport) {
        self.fresh.insert(key, report);
    }

    /// Marks a cached report as used by this run, so it survives the next save.
    pub fn keep_findings(&mut self, key: [u8; 32]) {
        self.used.insert(key);
    }

    /// Writes both caches — unless this run learnt nothing new, the common warm case,
    /// which then costs no write at all. Cached reports this run did not use are kept
    /// while the file stays within a few times the size of what it used, so auditing a
    /// subset does not evict the rest, yet the cache cannot grow without bound.
    pub fn save(mut self) {
        if self.new_stats.is_empty() && self.fresh.is_empty() {
            return;
        }
        if let Err(e) = fs::create_dir_all(&self.dir) {
            eprintln!("warning: .lockgraph: {e}; caches not saved");
            return;
        }
        let ignore = self.dir.join(".gitignore");
        if !ignore.exists() {
            let _ = fs::write(&ignore, "*\n");
        }
        if !self.new_stats.is_empty() {
            let mut stats: HashMap<String, (Stat, [u8; 32])> = self
                .stats
                .drain()
                .map(|(p, (s, h))| (p, (s, h.0)))
                .collect();
            for (p, s, h) in self.new_stats.drain(..) {
                stats.insert(p, (s, h));
            }
            let mut entries: Vec<_> = stats.into_iter().map(|(p, (s, h))| (p, s, h)).collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            self.write(
                STAT_FILE,
                &StatFile {
                    engine: ENGINE_VERSION.into(),
                    entries,
                },
            );
        }
        let budget = 3 * (self.used.len() + self.fresh.len()) + 1000;
        let mut all = std::mem::take(&mut self.fresh);
        let mut old = std::mem::take(&mut self.findings);
        for k in &self.used {
            if let Some(v) = old.remove(k) {
                all.insert(*k, v);
            }
        }
        for (k, v) in old {
            if all.len() >= budget {
                break;
            }
            all.entry(k).or_insert(v);
        }
        let mut entries: Vec<_> = all.into_iter().collect();
        entries.sort_by_key(|e| e.0);
        self.write(
            FINDINGS_FILE,
            &FindingsFile {
                engine: ENGINE_VERSION.into(),
                entries,
            },
        );
    }

    fn write<T: Serialize>(&self, name: &str, value: &T) {
        let mut bytes = MAGIC.to_vec();
        match postcard::to_extend(value, bytes) {
            Ok(b) => bytes = b,
            Err(e) => {
                eprintln!("warning: .lockgraph/{name}: {e}; not saved");
                return;
            }
        }
        if let Err(e) = write_if_changed(&self.dir.join(name), &bytes) {
            eprintln!("warning: .lockgraph/{name}: {e}; not saved");
        }
    }
}

trait HasEngine {
    fn engine(&self) -> &str;
}

impl HasEngine for StatFile {
    fn engine(&self) -> &str {
        &self.engine
    }
}

impl HasEngine for FindingsFile {
    fn engine(&self) -> &str {
        &self.engine
    }
}
