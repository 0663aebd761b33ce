//! soil-lock's cache between runs, in `<root>/.lockgraph/soil/`.
//!
//! Per definition it keeps the stat of its `.tr`, `.lock` and `.soil` and what the engine
//! made of their bytes: the spec's [`TrSummary`] (hashes, blocks, tags, …), the parsed
//! sidecar, and the `.soil`'s hash forms.
//! A file whose stat matches (size, mtime, inode, and git's racy rule: see
//! [`Stat::unchanged_since`]) is neither read nor parsed; its kept value goes into the
//! `Definition` input in place of the bytes, and the engine computes everything downstream
//! — flags, ladder, graph, manifest — exactly as it would from the bytes. Output is
//! byte-identical with and without the cache. Reference files and CLI executables that
//! oracles name are kept the same way, by stat and content hash.
//!
//! The definitions are split into [`SHARDS`] files by a hash of their path. Shards are read
//! and decoded in parallel, and a shard is rewritten only when one of its definitions had a
//! file read from disk (new, edited, or racy) or disappeared: an edit rewrites one
//! 64th of the cache, and a run that learnt nothing writes nothing. Writes replace files
//! atomically, so concurrent runs never corrupt a shard; each shard holds what one run saw,
//! stats taken before the bytes were read, so whichever run wins, its entries are sound.
//!
//! Every shard carries the engine key — the package version, this cache's schema, and a
//! hash of the sources the binary was built from — so a build that could derive anything
//! differently never trusts what another derived; another engine's shard is silently rebuilt. A file
//! that is not a cache or does not decode is moved aside to `*.bad` with one warning.

use crate::statcache::{self, Loaded, Stat};
use lockgraph_queries::db::Database;
use lockgraph_queries::hash::ContentHash;
use lockgraph_queries::soil::engine::{self, Definition, InputError};
use lockgraph_queries::soil::sidecar::{Sidecar, SidecarError};
use lockgraph_queries::soil::soil_hash;
use lockgraph_queries::soil::summary::TrSummary;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Bumped whenever what is kept, or how it is derived, changes.
const SCHEMA: &str = "soil3";
/// Enough files to decode on every core and to keep the rewrite after an edit small; few
/// enough that a small root does not scatter into hundreds of files.
pub const SHARDS: usize = 64;
const DIR: &str = "soil";
const EXTERNALS: &str = "externals.v1";

/// What the engine made of a `.tr` (see `engine::tr_summary`).
pub type TrKnown = Result<TrSummary, InputError>;
/// What the engine made of a `.lock` (see `engine::parsed_sidecar`).
pub type LockKnown = Result<Sidecar, SidecarError>;
pub use lockgraph_queries::soil::soil_hash::SoilKnown;

/// One definition in a shard. Generic so that saving serialises borrowed values (straight
/// from the database) and loading deserialises boxed ones (as the inputs take them), with
/// one layout.
#[derive(Serialize, Deserialize)]
struct Entry<P, T, L, S> {
    path: P,
    tr: Option<(Stat, T)>,
    lock: Option<(Stat, L)>,
    soil: Option<(Stat, S)>,
}

type LoadedEntry = Entry<String, Box<TrKnown>, Box<LockKnown>, Box<SoilKnown>>;

/// A definition's cache entry as a run takes it, with the write time of its shard.
pub struct Cached {
    pub tr: Option<(Stat, Box<TrKnown>)>,
    pub lock: Option<(Stat, Box<LockKnown>)>,
    pub soil: Option<(Stat, Box<SoilKnown>)>,
    pub written_ns: i128,
}

/// How one file of a definition was taken in: what saving needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// No such file, and none in the cache.
    Absent,
    /// No such file, but the cache had one: the entry is out of date.
    Gone,
    /// The cache vouched for the file: its kept value was used, the file was not read.
    Known(Stat),
    /// Read from disk; `stat` was taken before reading. `racy`: the cache had this very
    /// stat but could not trust it.
    Read { stat: Stat, racy: bool },
}

/// One file taken in: either the value kept for it or its bytes.
pub enum Taken<T> {
    Absent,
    Known(T),
    Bytes(Vec<u8>),
}

impl<T> Taken<T> {
    /// The file's bytes, if it was read and nothing stands in for them yet.
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            Taken::Bytes(b) => Some(b),
            Taken::Absent | Taken::Known(_) => None,
        }
    }
}

/// One definition's files as taken in, each its bytes, its kept value or absent, and how
/// each was seen.
pub struct Files {
    pub stem: String,
    pub tr: Taken<Box<TrKnown>>,
    pub lock: Taken<Box<LockKnown>>,
    pub soil: Taken<Box<SoilKnown>>,
    pub seen: [Seen; 3],
}

/// Takes in the file at `path`: the kept value if the cache vouches for it, else its bytes.
/// `stat` is the file's stat if the walk took it; else it is taken here, from the path when
/// there is a kept value to compare it with, from the open file when there is none (a cold
/// run's walk takes no stats: one per file is enough). Either way it is taken before the
/// bytes are read, so a file edited in between is recorded with its old stat and read again
/// next time.
pub fn take_in<T>(
    path: &Path,
    stat: Option<Stat>,
    cached: Option<(Stat, T)>,
    written_ns: i128,
) -> io::Result<(Taken<T>, Seen)> {
    let gone = if cached.is_some() {
        Seen::Gone
    } else {
        Seen::Absent
    };
    let absent = |e: io::Error| match e.kind() {
        io::ErrorKind::NotFound => Ok((Taken::Absent, gone)),
        _ => Err(e),
    };
    let Some((recorded, value)) = cached else {
        return match crate::statcache::read_with_stat(path, stat) {
            Ok((bytes, stat)) => Ok((Taken::Bytes(bytes), Seen::Read { stat, racy: false })),
            Err(e) => absent(e),
        };
    };
    let stat = match stat.map_or_else(|| fs::metadata(path).map(|m| Stat::of(&m)), Ok) {
        Ok(stat) => stat,
        Err(e) => return absent(e),
    };
    if stat.unchanged_since(&recorded, written_ns) {
        return Ok((Taken::Known(value), Seen::Known(stat)));
    }
    let racy = recorded == stat;
    match crate::statcache::read_with_stat(path, Some(stat)) {
        Ok((bytes, _)) => Ok((Taken::Bytes(bytes), Seen::Read { stat, racy })),
        Err(e) => absent(e),
    }
}

type Kept = (
    Option<(Stat, Box<TrKnown>)>,
    Option<(Stat, Box<LockKnown>)>,
    Option<(Stat, Box<SoilKnown>)>,
);

struct Shard {
    written_ns: i128,
    /// By definition path; what [`SoilCache::take`] has not taken yet.
    entries: HashMap<String, Kept>,
    /// Whether the file exists (with a readable or an unreadable body).
    on_disk: bool,
}

#[derive(Serialize, Deserialize)]
struct External {
    path: String,
    stat: Stat,
    hash: ContentHash,
}

pub struct SoilCache {
    lockgraph: PathBuf,
    dir: PathBuf,
    engine: String,
    shards: Vec<Shard>,
    externals: HashMap<String, (Stat, ContentHash)>,
    externals_written_ns: i128,
    /// Externals hashed this run: `None` when nothing changed.
    new_externals: Option<Vec<(String, Stat, ContentHash)>>,
}

fn shard_of(path: &str) -> usize {
    crate::statcache::path_shard(path, SHARDS)
}

fn shard_name(i: usize) -> String {
    format!("{i:02x}.v1")
}

/// The package version, the schema, and the hash of the sources the binary was built from
/// (`build.rs`): a build with a changed parser or hash recipe must not trust what another
/// derived, and a version number alone does not change with every such build.
pub(super) fn engine_key() -> String {
    format!(
        "{}+{SCHEMA}+{}",
        env!("CARGO_PKG_VERSION"),
        env!("LOCKGRAPH_SOURCE_HASH")
    )
}

/// Whether `root` has a cache to look files up in: when it does not (a first run, a fresh
/// checkout), the walk takes no stats, and each file read is statted as it is opened.
pub fn on_disk(root: &Path) -> bool {
    fs::read_dir(root.join(crate::fsutil::CACHE_DIR).join(DIR)).is_ok_and(|mut entries| {
        entries.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".v1")))
    })
}

/// `root/.lockgraph` and `root/.lockgraph/soil`; an error when either leads outside the
/// root.
pub fn dirs(root: &Path) -> io::Result<(PathBuf, PathBuf)> {
    let lockgraph = crate::fsutil::cache_dir(root)?;
    let dir = lockgraph.join(DIR);
    crate::fsutil::dir_inside_root(root, &dir)?;
    Ok((lockgraph, dir))
}

impl SoilCache {
    /// Reads every shard under `root/.lockgraph/soil`, in parallel; an error when that
    /// directory leads outside the root.
    pub fn open(root: &Path) -> std::io::Result<SoilCache> {
        let (lockgraph, dir) = dirs(root)?;
        // What a run killed while saving left (the walk does not enter `.lockgraph/`).
        crate::fsutil::sweep_leftovers(&dir);
        let engine = engine_key();
        let shards = (0..SHARDS)
            .into_par_iter()
            .map(|i| {
                let name = shard_name(i);
                let shown = format!(".lockgraph/{DIR}/{name}");
                match statcache::load::<Vec<LoadedEntry>>(&dir, &name, &engine, &shown) {
                    Loaded::Fresh(entries, written_ns) => Shard {
                        written_ns,
                        entries: entries
                            .into_iter()
                            .map(|e| (e.path, (e.tr, e.lock, e.soil)))
                            .collect(),
                        on_disk: true,
                    },
                    Loaded::Missing | Loaded::Broken => Shard {
                        written_ns: 0,
                        entries: HashMap::new(),
                        on_disk: false,
                    },
                    Loaded::OtherEngine(_) => Shard {
                        written_ns: 0,
                        entries: HashMap::new(),
                        on_disk: true,
                    },
                }
            })
            .collect();
        let shown = format!(".lockgraph/{DIR}/{EXTERNALS}");
        let (externals, externals_written_ns) =
            match statcache::load::<Vec<External>>(&dir, EXTERNALS, &engine, &shown) {
                Loaded::Fresh(list, written) => (
                    list.into_iter()
                        .map(|e| (e.path, (e.stat, e.hash)))
                        .collect(),
                    written,
                ),
                _ => (HashMap::new(), 0),
            };
        Ok(SoilCache {
            lockgraph,
            dir,
            engine,
            shards,
            externals,
            externals_written_ns,
            new_externals: None,
        })
    }

    /// Moves the entry of the definition `path` out of the cache.
    pub fn take(&mut self, path: &str) -> Option<Cached> {
        let shard = &mut self.shards[shard_of(path)];
        let (tr, lock, soil) = shard.entries.remove(path)?;
        Some(Cached {
            tr,
            lock,
            soil,
            written_ns: shard.written_ns,
        })
    }

    /// Gives back the room of the entries taken: the shards' tables were sized for the
    /// whole root and would otherwise be held to the end of the run (10 MB at 50,000
    /// definitions) to keep only the definitions that are gone.
    pub fn release_taken(&mut self) {
        for shard in &mut self.shards {
            shard.entries.shrink_to_fit();
        }
    }

    /// The content hash of an external file (a reference file or CLI executable) if the
    /// cache vouches for it.
    pub fn known_external(&self, path: &str, stat: &Stat) -> Option<ContentHash> {
        let (recorded, hash) = self.externals.get(path)?;
        stat.unchanged_since(recorded, self.externals_written_ns)
            .then_some(*hash)
    }

    /// Records this run's external files; they are written only if they differ from the
    /// cache's or were not all vouched for.
    pub fn set_externals(&mut self, mut seen: Vec<(String, Stat, ContentHash)>, all_known: bool) {
        seen.sort_by(|a, b| a.0.cmp(&b.0));
        if !(all_known && seen.len() == self.externals.len()) {
            self.new_externals = Some(seen);
        }
    }

    /// Writes the shards this run changed: those with a definition whose file was read
    /// from disk (or vanished), and those whose entries were not all taken (definitions
    /// that are gone). A file read only because its entry was racy counts only when a
    /// rewrite can settle it, i.e. its mtime is in the past; otherwise (an mtime in the
    /// future) the entry stays racy whatever is written, and the file is simply read again.
    pub fn save(mut self, db: &Database, defs: &[Definition], seen: &[[Seen; 3]]) {
        let now = crate::statcache::now_ns();
        let settles = |s: &Seen| match s {
            Seen::Absent | Seen::Known(_) => false,
            Seen::Gone => true,
            Seen::Read { stat, racy } => !racy || stat.mtime_ns < now,
        };
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); SHARDS];
        for (i, def) in defs.iter().enumerate() {
            members[shard_of(def.path(db))].push(i);
        }
        let dirty: Vec<usize> = (0..SHARDS)
            .filter(|&s| {
                let shard = &self.shards[s];
                !shard.entries.is_empty()
                    || (shard.on_disk && members[s].is_empty())
                    || members[s].iter().any(|&i| seen[i].iter().any(settles))
                    || (!shard.on_disk && !members[s].is_empty())
            })
            .collect();
        if dirty.is_empty() && self.new_externals.is_none() {
            return;
        }
        if let Err(e) = crate::fsutil::create_cache_dir(&self.lockgraph, &self.dir) {
            eprintln!("warning: .lockgraph/{DIR}: {e}; cache not saved");
            return;
        }
        if let Some(list) = self.new_externals.take() {
            let list: Vec<External> = list
                .into_iter()
                .map(|(path, stat, hash)| External { path, stat, hash })
                .collect();
            self.write(EXTERNALS, &list);
        }
        let this = &self;
        dirty.into_par_iter().for_each_with(db.clone(), |db, s| {
            let name = shard_name(s);
            if members[s].is_empty() {
                if let Err(e) = fs::remove_file(this.dir.join(&name))
                    && e.kind() != io::ErrorKind::NotFound
                {
                    eprintln!("warning: .lockgraph/{DIR}/{name}: {e}; not removed");
                }
                return;
            }
            let entries: Vec<_> = members[s]
                .iter()
                .map(|&i| entry(db, defs[i], &seen[i]))
                .collect();
            this.write(&name, &entries);
        });
    }

    fn write<T: Serialize + ?Sized>(&self, name: &str, value: &T) {
        // Only changed files are written, so comparing with the old bytes first would only
        // cost.
        if let Err(e) = statcache::store(&self.lockgraph, &self.dir, name, &self.engine, value) {
            eprintln!("warning: .lockgraph/{DIR}/{name}: {e}; not saved");
        }
    }
}

/// A definition's entry, borrowing the values from the database: the kept ones went into
/// the inputs, the derived ones are the memoised query results.
fn entry<'db>(
    db: &'db Database,
    def: Definition,
    seen: &[Seen; 3],
) -> Entry<&'db str, &'db TrKnown, &'db LockKnown, &'db SoilKnown> {
    let stat = |s: &Seen| match s {
        Seen::Known(stat) | Seen::Read { stat, .. } => Some(*stat),
        Seen::Absent | Seen::Gone => None,
    };
    Entry {
        path: def.path(db),
        tr: stat(&seen[0]).zip(engine::tr_summary(db, def)),
        lock: stat(&seen[1]).zip(engine::parsed_sidecar(db, def)),
        soil: stat(&seen[2]).zip(soil_hash::own_forms(db, def)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_spread_over_every_shard() {
        let used: std::collections::BTreeSet<usize> = (0..1000)
            .map(|i| shard_of(&format!("m{:03}/d{i}", i % 7)))
            .collect();
        assert_eq!(used.len(), SHARDS);
    }
}
