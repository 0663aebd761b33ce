//! Caches that survive between runs, in the root's gitignored `.lockgraph/` directory.
//!
//! - The **stat index** maps a path to its size, modification time, inode and content
//!   hash, so an unchanged file is not even read. Git's racy-timestamp rule applies: an
//!   entry whose mtime is not older than the index file itself may have changed within the
//!   same clock tick, so it is not trusted.
//! - The **findings cache** maps everything a file's findings depend on — content hash,
//!   format, the spans that apply, the effective rules and settings, the engine version —
//!   to the findings, so an unchanged file is not audited again. It is split into shards
//!   by the key's first bits, each loaded on first use and rewritten only when this run
//!   added to it: an edit of one file rewrites one shard, not every finding. The number of
//!   shards grows with the tree (one per 512 reports or fewer, at most 256, recorded in
//!   `findings-layout.v1`): a tree of 2,000 files is 4 files to write, not 256, and a
//!   layout is redone only when the tree has grown or shrunk fourfold.
//! - The **lockfile summary** (see `lockview`) keeps what an audit reads of each entry,
//!   and where the entry lies in the lockfile, valid while the lockfile's stat is
//!   unchanged.
//!
//! All are pure accelerators: results with and without them are byte-identical. A file
//! that is corrupt, truncated or from another version is moved aside with a one-line
//! warning and rebuilt; writes replace files atomically, so concurrent runs cannot
//! corrupt them (the last writer wins).

use crate::fsutil::CACHE_DIR;
use crate::statcache::{self, HashBytes, Loaded, SortedEntries};
use lockgraph_queries::copy::engine::{FileError, Findings};
use lockgraph_queries::hash::ContentHash;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

pub use crate::statcache::Stat;

/// The engine that wrote a cache: the package version and a hash of every source and of
/// `Cargo.lock` (`build.rs`), so that any build whose findings or cache layout could
/// differ trusts nothing another wrote. Part of every key and of the file headers.
pub const ENGINE_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "+",
    env!("LOCKGRAPH_SOURCE_HASH")
);

const STAT_FILE: &str = "stat-index.v1";
const LOCK_SUMMARY_FILE: &str = "lock-summary.v1";
const FINDINGS_DIR: &str = "findings";
const FINDINGS_LAYOUT: &str = "findings-layout.v1";
/// At most 2^8 shards: the key's first byte.
const MAX_BITS: u8 = 8;
/// Reports per shard a layout is chosen for: at most this many, when the tree allows.
const REPORTS_PER_SHARD: usize = 512;

/// The shard bits for a cache of `reports` reports.
fn bits_for(reports: usize) -> u8 {
    let mut bits = 0;
    while bits < MAX_BITS && reports >> bits > REPORTS_PER_SHARD {
        bits += 1;
    }
    bits
}

/// The shard of `key` among `2^bits`: its first `bits` bits.
fn shard_of(key: &[u8; 32], bits: u8) -> usize {
    usize::from(key[0]) >> (MAX_BITS - bits)
}

/// How this run writes the findings shards: the layout's bits, and whether every shard is
/// written anew under them (a new layout) or only those this run added to.
#[derive(Clone, Copy, Debug)]
struct Plan {
    bits: u8,
    relayout: bool,
}

/// A findings key as stored (see `audit::pass::findings_key`).
type Key = HashBytes;

/// The stat index's body: its entries sorted by path, each `(path, stat, content hash)`,
/// in postcard. Never decoded into a table: a run walks it alongside its own sorted file
/// list (see [`Caches::known_hashes`]), borrowing the paths from the file's bytes, and a
/// save streams it merged with what the run learnt. A hash table of 100,000 owned paths
/// was a sixth of a warm run, most of it fresh pages.
type StatEntry<'a> = (&'a str, Stat, HashBytes);
type StatEntries<'a> = SortedEntries<'a, (Stat, HashBytes)>;

/// A stat index body to write: the entries of an old one (as far as they can be read)
/// merged with new ones, which win on the same path. Both are sorted by path.
struct MergedStats<'a> {
    old: Option<&'a [u8]>,
    new: &'a [(String, Stat, [u8; 32])],
}

impl<'a> MergedStats<'a> {
    fn entries(&self) -> impl Iterator<Item = StatEntry<'a>> + use<'a> {
        let mut old = self.old.and_then(|b| StatEntries::new(b).ok());
        let mut old = std::iter::from_fn(move || old.as_mut()?.next_entry().ok().flatten())
            .map(|(p, (s, h))| (p, s, h))
            .peekable();
        let mut new = self
            .new
            .iter()
            .map(|(p, s, h)| (p.as_str(), *s, HashBytes(*h)))
            .peekable();
        std::iter::from_fn(move || match (old.peek(), new.peek()) {
            (Some(o), Some(n)) if o.0 < n.0 => old.next(),
            (Some(o), Some(n)) if o.0 == n.0 => {
                old.next();
                new.next()
            }
            (_, Some(_)) => new.next(),
            (Some(_), None) => old.next(),
            (None, None) => None,
        })
    }
}

impl Serialize for MergedStats<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        // postcard writes a sequence's length first: one pass to count, one to write.
        let mut seq = s.serialize_seq(Some(self.entries().count()))?;
        for entry in self.entries() {
            seq.serialize_element(&entry)?;
        }
        seq.end()
    }
}

/// What an audit reads of one lockfile entry (see `lockview`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockInfo {
    /// The recorded content hash, or the text recorded where it is not a well-formed one.
    pub hash: Result<HashBytes, String>,
    pub reviewed: bool,
    /// Fingerprint of what the span filter reads of the spans.
    pub spans: HashBytes,
}

impl LockInfo {
    /// The recorded hash as written in the lockfile.
    pub fn hash_text(&self) -> String {
        match &self.hash {
            Ok(h) => ContentHash(h.0).to_string(),
            Err(text) => text.clone(),
        }
    }
}

/// The summary of a lockfile as cached, valid while the lockfile's stat is unchanged: a
/// header `(lockfile stat, prompt outdated)`, then each entry's [`LockInfo`] sorted by
/// path, joined with a run's files as the stat index is (see [`LockSummary::join`]).
pub struct LockSummary {
    pub prompt_outdated: bool,
    body: statcache::Body,
    /// Where the entries start in the body, after the header.
    entries_at: usize,
    dir: PathBuf,
}

impl LockSummary {
    /// For each of `paths` (sorted), its entry's summary. A damaged summary is moved aside
    /// (the next run rebuilds it from the lockfile) and `None` returned.
    pub fn join<'p>(
        &self,
        paths: impl IntoIterator<Item = &'p str>,
    ) -> Option<Vec<Option<LockInfo>>> {
        let entries = &self.body.bytes()[self.entries_at..];
        match SortedEntries::<LockInfo>::new(entries).and_then(|e| e.join(paths, |_, v| Some(v))) {
            Ok(infos) => Some(infos),
            Err(e) => {
                let shown = format!(".lockgraph/{LOCK_SUMMARY_FILE}");
                let problem = format!("unreadable ({e})");
                statcache::set_aside(&self.dir, LOCK_SUMMARY_FILE, &shown, &problem);
                None
            }
        }
    }
}

/// The summary as written: the same bytes, from the entries the run holds (sorted by path)
/// rather than from a copy of them.
#[derive(Serialize)]
struct LockSummaryOut<'a> {
    lock: Stat,
    prompt_outdated: bool,
    entries: Vec<(&'a String, &'a LockInfo)>,
}

/// The audit of one file as cached: everything `report` returns except the entry state,
/// which the lockfile decides afresh each run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CachedReport {
    pub findings: Findings,
    pub error: Option<FileError>,
}

/// A [`CachedReport`] as written, borrowed from wherever the run holds it (the same bytes).
#[derive(Clone, Copy, Serialize)]
pub struct ReportRef<'a> {
    pub findings: &'a Findings,
    pub error: &'a Option<FileError>,
}

/// A findings shard as written: each report as its own byte string (a [`CachedReport`]'s
/// postcard bytes), so that a reader finds every key without decoding a report.
#[derive(Serialize)]
struct Shard<'a> {
    /// Sorted by key.
    entries: Vec<(HashBytes, Encoded<'a>)>,
}

/// [`Shard`] as read: each report's bytes borrowed from the file's.
#[derive(Deserialize)]
struct ShardIn<'a> {
    #[serde(borrow)]
    entries: Vec<(HashBytes, &'a [u8])>,
}

/// A report's postcard bytes: encoded by this run ([`encode_fresh`]), or as a shard file
/// held them.
#[derive(Clone, Copy)]
struct Encoded<'a>(&'a [u8]);

impl Serialize for Encoded<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

/// What a relayout writes into one new shard: the keys of the fresh reports, and the
/// stored reports taken from the old layout.
type NewShard<'a> = (Vec<Key>, Vec<(Key, Encoded<'a>)>);

/// A report to be written into its shard: one the run made (or decoded), or the bytes
/// the remote cache served it as, which are already a [`CachedReport`]'s postcard bytes
/// (a chunk's blob holds each report so): copied, not decoded and encoded again.
#[derive(Clone, Copy)]
pub enum Fresh<'a> {
    Report(ReportRef<'a>),
    Encoded(&'a [u8]),
}

/// The reports `served` gives for `keys`, encoded one after another into one buffer, and
/// where each lies in it: a cold run encodes every report, and a buffer (and its growth)
/// per report took twice the time of writing the shards.
fn encode_fresh<'r>(
    keys: impl IntoIterator<Item = Key>,
    served: &impl Fn(&[u8; 32]) -> Option<Fresh<'r>>,
) -> (Vec<u8>, Vec<(Key, std::ops::Range<usize>)>) {
    let mut bytes = Vec::new();
    let mut at = Vec::new();
    for key in keys {
        let start = bytes.len();
        match served(&key.0) {
            // Through `io::Write` for a `Vec`, a field is an append (postcard's `Extend`
            // flavor pushed byte by byte).
            Some(Fresh::Report(report)) => {
                postcard::to_io(&report, &mut bytes).expect("a report encodes into memory");
            }
            Some(Fresh::Encoded(encoded)) => bytes.extend_from_slice(encoded),
            None => continue,
        }
        at.push((key, start..bytes.len()));
    }
    (bytes, at)
}

pub struct Caches {
    dir: PathBuf,
    /// Entries older than this (the index file's mtime) are trusted.
    stat_written_ns: i128,
    /// The stat index's body, decoded as it is used.
    stats: Option<statcache::Body>,
    new_stats: Vec<(String, Stat, [u8; 32])>,
    /// The layout the shards on disk were written in; none where there is none (every
    /// key is missing then).
    bits: Option<u8>,
    /// Loaded on first use, from any worker thread (`2^bits` of them).
    shards: Vec<OnceLock<LoadedShard>>,
    /// How `save` writes the shards, once [`Caches::plan_findings`] chose.
    plan: Option<Plan>,
    /// Reports this run computed, or took from the remote cache.
    fresh: FxHashSet<Key>,
    /// With the summary's lockfile stat and the summary file's mtime.
    lock_summary: Option<(LockSummary, Stat, i128)>,
    /// The lockfile was parsed this run: its summary is to be written, for this stat.
    lock_summary_wanted: Option<(Stat, bool)>,
}

/// One findings shard as a run holds it: the file's bytes, and where each report lies in
/// them. A report is decoded only when the run takes it: a shard also keeps reports of
/// earlier contents and spans (up to twice those in use, see [`Caches::save`]), and
/// decoding every one at load held them all in memory through the run. A taken report
/// stays in the bytes, so a rewrite of the shard copies it back without encoding it.
#[derive(Default)]
struct LoadedShard {
    /// The file's body (none for a shard that is missing or unreadable).
    body: Option<statcache::Body>,
    reports: Mutex<FxHashMap<HashBytes, Slot>>,
}

/// Where a report lies in its shard's body, and whether this run took it: every report in
/// a shard file is there to be taken once. Taking marks the slot rather than removing the
/// entry and noting the key elsewhere: that second set was a twentieth of a warm run.
struct Slot {
    bytes: std::ops::Range<usize>,
    taken: bool,
}

impl LoadedShard {
    /// Indexes a shard file's body: the key and the place of every report.
    fn index(body: statcache::Body) -> postcard::Result<LoadedShard> {
        let all = body.bytes();
        let base = all.as_ptr() as usize;
        let shard: ShardIn<'_> = postcard::from_bytes(all)?;
        let mut reports =
            FxHashMap::with_capacity_and_hasher(shard.entries.len(), Default::default());
        for (key, report) in shard.entries {
            let at = report.as_ptr() as usize - base;
            let bytes = at..at + report.len();
            reports.insert(
                key,
                Slot {
                    bytes,
                    taken: false,
                },
            );
        }
        Ok(LoadedShard {
            body: Some(body),
            reports: Mutex::new(reports),
        })
    }

    /// A report as this shard holds it, to be written back.
    fn stored(&self, slot: &Slot) -> Encoded<'_> {
        Encoded(self.bytes(slot.bytes.clone()))
    }

    /// The bytes of a report of this shard (at its slot's place).
    fn bytes(&self, at: std::ops::Range<usize>) -> &[u8] {
        let body = self
            .body
            .as_ref()
            .expect("a shard with reports has its bytes");
        &body.bytes()[at]
    }
}

/// What [`Caches::take_findings`] found for a key.
pub enum Taken {
    Report(CachedReport),
    /// Another file with the same key (identical content and spans) took it this run.
    ByIdenticalFile,
    Missing,
}

impl Caches {
    /// Whether `root` has a stat index (fresh or not: this only decides whether the walk
    /// takes stats to compare with it).
    pub fn has_stat_index(root: &Path) -> bool {
        root.join(CACHE_DIR).join(STAT_FILE).is_file()
    }

    /// Removes what a run killed while saving left in `dir` (`.lockgraph/`, which the walk
    /// does not enter) and its findings directory.
    pub fn sweep(dir: &Path) {
        crate::fsutil::sweep_leftovers(dir);
        crate::fsutil::sweep_leftovers(&dir.join(FINDINGS_DIR));
    }

    /// Opens (and, if needed, repairs) the caches under `root/.lockgraph`; an error when
    /// that directory leads outside the root ([`crate::fsutil::cache_dir`]).
    pub fn open(root: &Path) -> std::io::Result<Caches> {
        let dir = crate::fsutil::cache_dir(root)?;
        crate::fsutil::dir_inside_root(root, &dir.join(FINDINGS_DIR))?;
        Caches::sweep(&dir);
        let mut caches = Caches {
            dir,
            stat_written_ns: 0,
            stats: None,
            new_stats: Vec::new(),
            bits: None,
            shards: Vec::new(),
            plan: None,
            fresh: FxHashSet::default(),
            lock_summary: None,
            lock_summary_wanted: None,
        };
        let (summary, stats) = rayon::join(
            || load_ours(&caches.dir, LOCK_SUMMARY_FILE, statcache::load_body),
            || load_ours(&caches.dir, STAT_FILE, statcache::load_body),
        );
        if let Some((body, written)) = summary {
            match postcard::take_from_bytes::<(Stat, bool)>(body.bytes()) {
                Ok(((lock, prompt_outdated), rest)) => {
                    let entries_at = body.bytes().len() - rest.len();
                    let summary = LockSummary {
                        prompt_outdated,
                        body,
                        entries_at,
                        dir: caches.dir.clone(),
                    };
                    caches.lock_summary = Some((summary, lock, written));
                }
                Err(e) => {
                    let shown = format!(".lockgraph/{LOCK_SUMMARY_FILE}");
                    let problem = format!("unreadable ({e})");
                    statcache::set_aside(&caches.dir, LOCK_SUMMARY_FILE, &shown, &problem);
                }
            }
        }
        if let Some((body, written)) = stats {
            caches.stat_written_ns = written;
            caches.stats = Some(body);
        }
        if let Some((bits, _)) = load_file::<u8>(&caches.dir, FINDINGS_LAYOUT)
            && bits <= MAX_BITS
        {
            caches.bits = Some(bits);
            caches.shards = (0..1 << bits).map(|_| OnceLock::new()).collect();
        }
        Ok(caches)
    }

    fn shard_name(bits: u8, i: usize) -> String {
        format!("{FINDINGS_DIR}/b{bits}-{i:02x}.v1")
    }

    /// Shard `i` of the layout on disk (which exists: `bits` is set).
    fn shard(&self, i: usize) -> &LoadedShard {
        let bits = self.bits.expect("a layout to load from");
        self.shards[i].get_or_init(|| {
            let name = Self::shard_name(bits, i);
            let Some((body, _)) = load_ours(&self.dir, &name, statcache::load_body) else {
                return LoadedShard::default();
            };
            LoadedShard::index(body).unwrap_or_else(|e| {
                let shown = format!(".lockgraph/{name}");
                statcache::set_aside(&self.dir, &name, &shown, &format!("unreadable ({e})"));
                LoadedShard::default()
            })
        })
    }

    /// For each of `files` (sorted by path, with the stats the walk took), its content hash
    /// if the stat index holds the same stat for it and that stat is not racy: one pass
    /// over both sorted lists.
    pub fn known_hashes(&mut self, files: &[(String, Option<Stat>)]) -> Vec<Option<ContentHash>> {
        let Some(body) = &self.stats else {
            return vec![None; files.len()];
        };
        let written = self.stat_written_ns;
        let joined = StatEntries::new(body.bytes()).and_then(|entries| {
            entries.join(files.iter().map(|(p, _)| p.as_str()), |i, (stat, hash)| {
                files[i]
                    .1
                    .is_some_and(|walked| walked.unchanged_since(&stat, written))
                    .then_some(ContentHash(hash.0))
            })
        });
        match joined {
            Ok(known) => known,
            Err(e) => {
                let shown = format!(".lockgraph/{STAT_FILE}");
                statcache::set_aside(&self.dir, STAT_FILE, &shown, &format!("unreadable ({e})"));
                self.stats = None;
                vec![None; files.len()]
            }
        }
    }

    /// Room for the stats of `reads` files read and `fresh` reports computed this run.
    pub fn reserve(&mut self, reads: usize, fresh: usize) {
        self.new_stats.reserve_exact(reads);
        self.fresh.reserve(fresh);
    }

    pub fn record_stat(&mut self, path: &str, stat: Stat, hash: ContentHash) {
        self.new_stats.push((path.to_string(), stat, hash.0));
    }

    /// Notes that the run computed the report of `key`; [`Caches::save`] asks for it then,
    /// so the run's reports are never copied into the cache.
    pub fn store_findings(&mut self, key: [u8; 32]) {
        self.fresh.insert(HashBytes(key));
    }

    /// Whether the cache holds a report for `key` (loading its shard, taking nothing).
    pub fn has_findings(&self, key: &[u8; 32]) -> bool {
        let Some(bits) = self.bits else {
            return false;
        };
        let shard = self.shard(shard_of(key, bits));
        let reports = shard.reports.lock().expect("no holder panics");
        reports
            .get(&HashBytes(*key))
            .is_some_and(|slot| !slot.taken)
    }

    /// Moves a cached report out of the cache (the run owns it from here; safe from any
    /// worker thread) and marks it taken, so a rewrite of its shard asks for it back.
    pub fn take_findings(&self, key: &[u8; 32]) -> Taken {
        let Some(bits) = self.bits else {
            return Taken::Missing;
        };
        let shard = self.shard(shard_of(key, bits));
        let bytes = {
            let mut reports = shard.reports.lock().expect("no holder panics");
            match reports.get_mut(&HashBytes(*key)) {
                Some(slot) if slot.taken => return Taken::ByIdenticalFile,
                Some(slot) => {
                    slot.taken = true;
                    slot.bytes.clone()
                }
                None => return Taken::Missing,
            }
        };
        // Decoded outside the lock; a report that does not decode (the file's checksum
        // held, so never in practice) is computed again, and the new one replaces it.
        postcard::from_bytes(shard.bytes(bytes)).map_or(Taken::Missing, Taken::Report)
    }

    /// Takes the lockfile summary, if it was made from a lockfile with this stat and the
    /// lockfile is not racily newer than the summary.
    pub fn take_lock_summary(&mut self, lock: &Stat) -> Option<LockSummary> {
        let (_, recorded, written) = self.lock_summary.as_ref()?;
        if lock.unchanged_since(recorded, *written) {
            self.lock_summary.take().map(|(s, _, _)| s)
        } else {
            None
        }
    }

    /// Asks [`Caches::save`] to write the summary of the lockfile with this stat.
    pub fn want_lock_summary(&mut self, lock: Stat, prompt_outdated: bool) {
        self.lock_summary = None;
        self.lock_summary_wanted = Some((lock, prompt_outdated));
    }

    /// Chooses how [`Caches::save`] writes the findings shards, for a run that used
    /// `reports` reports (computed or taken from the cache): the layout on disk while it is
    /// within a factor of two of what that many reports want, else a new one.
    pub fn plan_findings(&mut self, reports: usize) {
        self.plan = Some(self.plan_for(reports));
    }

    /// The plan chosen, or for a run that chose none (`--list-unsegmented`, which computes
    /// no report) the one its fresh reports alone would choose.
    fn planned(&self) -> Plan {
        self.plan.unwrap_or_else(|| self.plan_for(self.fresh.len()))
    }

    fn plan_for(&self, reports: usize) -> Plan {
        let wanted = bits_for(reports);
        match self.bits {
            Some(bits) if bits.abs_diff(wanted) <= 1 => Plan {
                bits,
                relayout: false,
            },
            _ => Plan {
                bits: wanted,
                relayout: true,
            },
        }
    }

    /// Whether [`Caches::save`] will rewrite the findings shard holding a key (and so ask
    /// for the reports this run took out of it), for every key at once: every key, under
    /// a new layout.
    pub fn rewritten_shards(&self) -> impl Fn(&[u8; 32]) -> bool + use<> {
        let plan = self.planned();
        let mut dirty = [plan.relayout; 1 << MAX_BITS];
        for k in &self.fresh {
            dirty[shard_of(&k.0, plan.bits)] = true;
        }
        move |key| dirty[shard_of(key, plan.bits)]
    }

    /// Whether this run learnt anything worth writing.
    pub fn needs_save(&self) -> bool {
        !self.new_stats.is_empty() || !self.fresh.is_empty() || self.lock_summary_wanted.is_some()
    }

    /// Writes what changed: the stat index if any file was read, and each findings shard
    /// this run added to. A rewritten shard keeps the reports this run used (`served`
    /// gives those it computed or the remote cache served; those it took from the shard
    /// are copied back as the shard held them), and older ones while it stays within
    /// twice that size, so auditing a subset of the tree does not evict the rest, yet a
    /// shard cannot grow without bound.
    /// `summary` is the lockfile summary the run holds (in path order), written if it was
    /// rebuilt.
    pub fn save<'r>(
        mut self,
        served: impl for<'k> Fn(&'k [u8; 32]) -> Option<Fresh<'r>> + Sync,
        summary: Option<&[(String, LockInfo)]>,
    ) {
        if !self.needs_save() {
            return;
        }
        if let Err(e) = crate::fsutil::create_cache_dir(&self.dir, &self.dir.join(FINDINGS_DIR)) {
            eprintln!("warning: .lockgraph: {e}; caches not saved");
            return;
        }
        if let (Some((lock, prompt_outdated)), Some(summary)) =
            (self.lock_summary_wanted.take(), summary)
        {
            let _phase = crate::logging::phase("  save the lockfile summary");
            let entries = summary.iter().map(|(p, info)| (p, info)).collect();
            self.write(
                LOCK_SUMMARY_FILE,
                &LockSummaryOut {
                    lock,
                    prompt_outdated,
                    entries,
                },
            );
            // Where versions before the summary located entries kept a copy of them.
            let _ = fs::remove_dir_all(self.dir.join("lock-entries"));
        }
        if !self.new_stats.is_empty() {
            let _phase = crate::logging::phase("  save the stat index");
            // The old entries (those of files this run did not read, and of files outside
            // its `--paths`) merged with the new, both sorted by path, as they are written.
            self.new_stats.sort_by(|a, b| a.0.cmp(&b.0));
            let merged = MergedStats {
                old: self.stats.as_ref().map(statcache::Body::bytes),
                new: &self.new_stats,
            };
            self.write(STAT_FILE, &merged);
        }
        let _phase = crate::logging::phase("  save the findings shards");
        let plan = self.planned();
        if plan.relayout {
            self.relayout(plan.bits, &served);
            return;
        }
        let mut fresh_by_shard: Vec<Vec<Key>> = vec![Vec::new(); 1 << plan.bits];
        for k in std::mem::take(&mut self.fresh) {
            fresh_by_shard[shard_of(&k.0, plan.bits)].push(k);
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
                let shard = this.shard(i);
                let reports = shard.reports.lock().expect("no holder panics");
                let used = reports.values().filter(|slot| slot.taken).count();
                let budget = 2 * (fresh.len() + used) + 16;
                let (encoded, fresh_at) = encode_fresh(fresh, &served);
                let mut all: FxHashMap<Key, Encoded<'_>> = FxHashMap::default();
                for (k, at) in fresh_at {
                    all.entry(k).or_insert(Encoded(&encoded[at]));
                }
                // The used ones first, then older ones while the budget lasts.
                for taken in [true, false] {
                    for (k, slot) in reports.iter().filter(|(_, slot)| slot.taken == taken) {
                        if !taken && all.len() >= budget {
                            break;
                        }
                        all.entry(*k).or_insert_with(|| shard.stored(slot));
                    }
                }
                let mut entries: Vec<_> = all.into_iter().collect();
                entries.sort_by_key(|e| e.0);
                this.write(&Self::shard_name(plan.bits, i), &Shard { entries });
            });
    }

    /// Writes the findings cache anew in `2^bits` shards: the reports this run computed
    /// and those it took from the old layout's shards (the ones it did not use are
    /// dropped, as a tree that grew or shrank fourfold has moved on), then the layout, then
    /// removes the old layout's shard files. A run that reads the old layout meanwhile
    /// finds fewer reports, never a wrong one: a report is found by its whole key.
    fn relayout<'r>(
        &mut self,
        bits: u8,
        served: &(impl for<'k> Fn(&'k [u8; 32]) -> Option<Fresh<'r>> + Sync),
    ) {
        // Each new shard: the fresh reports of its keys (encoded on its core) and the
        // stored ones taken from the old layout.
        let mut by_shard: Vec<NewShard<'_>> = Vec::new();
        by_shard.resize_with(1 << bits, Default::default);
        for k in std::mem::take(&mut self.fresh) {
            by_shard[shard_of(&k.0, bits)].0.push(k);
        }
        for shard in self.shards.iter().filter_map(OnceLock::get) {
            let reports = shard.reports.lock().expect("no holder panics");
            for (k, slot) in reports.iter().filter(|(_, slot)| slot.taken) {
                by_shard[shard_of(&k.0, bits)]
                    .1
                    .push((*k, shard.stored(slot)));
            }
        }
        if by_shard
            .iter()
            .all(|(fresh, stored)| fresh.is_empty() && stored.is_empty())
        {
            return; // nothing to keep: no layout either
        }
        let this = &*self;
        by_shard
            .into_par_iter()
            .enumerate()
            .for_each(|(i, (fresh, stored))| {
                let (encoded, fresh_at) = encode_fresh(fresh, served);
                let mut all: FxHashMap<Key, Encoded<'_>> = FxHashMap::default();
                for (k, at) in fresh_at {
                    all.insert(k, Encoded(&encoded[at]));
                }
                for (k, report) in stored {
                    all.entry(k).or_insert(report);
                }
                if all.is_empty() {
                    return;
                }
                let mut entries: Vec<_> = all.into_iter().collect();
                entries.sort_by_key(|e| e.0);
                this.write(&Self::shard_name(bits, i), &Shard { entries });
            });
        self.write(FINDINGS_LAYOUT, &bits);
        let ours = format!("b{bits}-");
        if let Ok(files) = fs::read_dir(self.dir.join(FINDINGS_DIR)) {
            for file in files.flatten() {
                let name = file.file_name();
                let name = name.to_string_lossy();
                let shard = name.starts_with('b') && name.ends_with(".v1") && name.contains('-');
                // The one layout before layouts were recorded: `00.v1` … `ff.v1`.
                let unrecorded = name.len() == 5
                    && name.ends_with(".v1")
                    && name[..2].bytes().all(|b| b.is_ascii_hexdigit());
                if (shard && !name.starts_with(&ours)) || unrecorded {
                    let _ = fs::remove_file(file.path());
                }
            }
        }
    }

    fn write<T: Serialize>(&self, name: &str, value: &T) {
        write_file(&self.dir, name, value);
    }
}

/// Reads one cache file of `dir` (see [`statcache::load`]) with its mtime.
pub(super) fn load_file<T: for<'de> Deserialize<'de>>(dir: &Path, name: &str) -> Option<(T, i128)> {
    load_ours(dir, name, statcache::load)
}

/// What `load` (a [`statcache`] reader) found in `dir/name`, if it is this engine's. A file
/// of another engine (another version or build: `ENGINE_VERSION`) is not damaged, only not
/// ours: it is rebuilt without a word, as soil-lock's are.
fn load_ours<T>(
    dir: &Path,
    name: &str,
    load: impl FnOnce(&Path, &str, &str, &str) -> Loaded<T>,
) -> Option<(T, i128)> {
    let shown = format!(".lockgraph/{name}");
    match load(dir, name, ENGINE_VERSION, &shown) {
        Loaded::Fresh(value, written) => Some((value, written)),
        Loaded::Missing | Loaded::Broken | Loaded::OtherEngine(_) => None,
    }
}

/// Replaces one cache file of `dir`; a failure is a warning, never an error.
pub(super) fn write_file<T: Serialize>(dir: &Path, name: &str, value: &T) {
    if let Err(e) = statcache::store(dir, dir, name, ENGINE_VERSION, value) {
        eprintln!("warning: .lockgraph/{name}: {e}; not saved");
    }
}
