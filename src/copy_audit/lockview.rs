//! The lockfile as an audit reads it.
//!
//! Deciding a file's entry state and its findings-cache key needs three things per entry:
//! the recorded hash, whether it is reviewed, and a fingerprint of its spans. A lockfile
//! of a large tree is over a hundred megabytes of JSON, so those three are kept in
//! `.lockgraph/` as a summary keyed by the lockfile's stat (git's racy rule applies as for
//! the stat index), and the lockfile itself is parsed only when an entry is needed in full
//! — when a file must go through the engine — or when it changed. A changed lockfile is
//! always parsed, so every invariant is checked before anything is trusted.

use super::Failure;
use super::cache::{Caches, LockInfo, LockSummary, Stat};
use super::entrycache::{self, EntryStore};
use super::workspace::Workspace;
use crate::statcache::Raw32;
use lockgraph_queries::copy::engine::{self, EntryState};
use lockgraph_queries::copy::lockfile::{self, Backend, Entry, Lockfile};
use lockgraph_queries::hash::ContentHash;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use sha2::{Digest, Sha256};
use std::fs;
use std::sync::{Mutex, OnceLock};

pub struct LockView<'a> {
    ws: &'a Workspace,
    summary: Summary,
    prompt_outdated: bool,
    /// The parsed lockfile, once an entry is needed; entries are handed out (moved) once.
    full: OnceLock<Result<Mutex<Lockfile>, String>>,
    /// Entries from `.lockgraph/` while they vouch for the lockfile: what spares parsing
    /// it when a few files changed.
    store: Option<EntryStore>,
}

/// What the view knows of each entry without the lockfile in full.
enum Summary {
    /// Made from the parsed lockfile.
    Parsed(FxHashMap<String, LockInfo>),
    /// From `.lockgraph/`, read as it is joined with the files being audited.
    Cached(LockSummary),
}

/// What an entry's spans contribute to a findings key: what the filter reads of each span
/// (not notes or path hints).
pub fn spans_key(entry: &Entry) -> [u8; 32] {
    let mut h = Sha256::new();
    for span in &entry.spans {
        for n in [
            span.start_line,
            span.start_column,
            span.end_line,
            span.end_column,
        ] {
            h.update(n.to_le_bytes());
        }
        h.update(span.language.as_bytes());
        h.update([0]);
        h.update(span.kind.as_str().as_bytes());
    }
    h.finalize().into()
}

pub fn prompt_outdated(lock: &Lockfile) -> bool {
    lock.segmenter.backend == Backend::Agent
        && lock
            .segmenter
            .prompt_version
            .is_some_and(|v| v < lockfile::CURRENT_PROMPT_VERSION)
}

fn summarize(lock: &Lockfile) -> FxHashMap<String, LockInfo> {
    // On every core: a cold run waits for this between parsing the lockfile and auditing.
    let entries: Vec<(&String, &Entry)> = lock.files.iter().collect();
    entries
        .into_par_iter()
        .map(|(path, e)| {
            let info = LockInfo {
                hash: ContentHash::parse(&e.content_hash)
                    .map(|h| Raw32(h.0))
                    .ok_or_else(|| e.content_hash.clone()),
                reviewed: e.reviewed_by.is_some(),
                spans: Raw32(spans_key(e)),
            };
            (path.clone(), info)
        })
        .collect()
}

impl<'a> LockView<'a> {
    /// From the summary in the caches when it vouches for the lockfile, else by parsing
    /// (and refreshing the summary).
    pub fn open(ws: &'a Workspace, caches: Option<&mut Caches>) -> Result<LockView<'a>, Failure> {
        let stat = fs::metadata(&ws.lock_path).ok().map(|m| Stat::of(&m));
        let mut caches = caches;
        if let (Some(stat), Some(c)) = (stat, caches.as_deref_mut())
            && let Some(s) = c.take_lock_summary(&stat)
        {
            return Ok(LockView {
                ws,
                prompt_outdated: s.prompt_outdated,
                summary: Summary::Cached(s),
                full: OnceLock::new(),
                store: Some(EntryStore::new(&ws.root, stat)),
            });
        }
        let read = crate::timings::phase("read lockfile");
        let lock = ws.read_lockfile()?;
        drop(read);
        // The entry mirror is written while the lockfile is summarised: a cold run waits
        // for both between parsing the lockfile and auditing.
        let mirror = stat.filter(|_| caches.is_some());
        let (summary, ()) = rayon::join(
            || {
                let _summary = crate::timings::phase("summarise lockfile");
                summarize(&lock)
            },
            || {
                if let Some(stat) = mirror {
                    let _write = crate::timings::phase("write lockfile entries");
                    entrycache::write(&ws.root, &lock, stat);
                }
            },
        );
        let view = LockView::with_summary(ws, lock, summary);
        if let (Some(stat), Some(c)) = (stat, caches) {
            c.want_lock_summary(stat, view.prompt_outdated);
        }
        Ok(view)
    }

    /// From a lockfile already read.
    pub fn parsed(ws: &'a Workspace, lock: Lockfile) -> LockView<'a> {
        let summary = summarize(&lock);
        LockView::with_summary(ws, lock, summary)
    }

    fn with_summary(
        ws: &'a Workspace,
        lock: Lockfile,
        summary: FxHashMap<String, LockInfo>,
    ) -> LockView<'a> {
        LockView {
            ws,
            summary: Summary::Parsed(summary),
            prompt_outdated: prompt_outdated(&lock),
            full: OnceLock::from(Ok(Mutex::new(lock))),
            store: None,
        }
    }

    /// The summary made from the lockfile, if this run parsed it: what the caches keep of
    /// the lockfile (see [`Caches::save`]).
    pub fn parsed_summary(&self) -> Option<&FxHashMap<String, LockInfo>> {
        match &self.summary {
            Summary::Parsed(map) => Some(map),
            Summary::Cached(_) => None,
        }
    }

    pub fn prompt_outdated(&self) -> bool {
        self.prompt_outdated
    }

    /// What the lockfile records for each of `paths` (sorted by path, as the walk lists
    /// them): one pass over the cached summary, or lookups in the parsed one.
    pub fn infos<'p>(
        &self,
        paths: impl IntoIterator<Item = &'p str> + Clone,
    ) -> Result<Vec<Option<LockInfo>>, Failure> {
        let lookup = |map: &FxHashMap<String, LockInfo>| {
            paths
                .clone()
                .into_iter()
                .map(|p| map.get(p).cloned())
                .collect()
        };
        match &self.summary {
            Summary::Parsed(map) => Ok(lookup(map)),
            Summary::Cached(cached) => match cached.join(paths.clone()) {
                Some(infos) => Ok(infos),
                // Damaged (and moved aside): the lockfile itself answers.
                None => {
                    let lock = self.full()?.lock().expect("no holder panics");
                    Ok(lookup(&summarize(&lock)))
                }
            },
        }
    }

    /// A file's entry state, from its entry's summary and its content hash.
    pub fn state(&self, info: Option<&LockInfo>, hash: ContentHash) -> EntryState {
        let entry = info.map(|i| (i.hash.as_ref().ok().map(|h| ContentHash(h.0)), i.reviewed));
        engine::state_from(entry, hash, self.prompt_outdated)
    }

    /// The full entry, parsing the lockfile on first need (from any worker thread). An
    /// audit asks for each file's entry once, so the entry is moved out rather than
    /// copied: the parsed lockfile shrinks as the audit proceeds instead of living
    /// alongside it.
    /// `listed` says whether the lockfile has an entry for `path` (its summary).
    pub fn take_entry(&self, path: &str, listed: bool) -> Result<Option<Entry>, Failure> {
        if !listed {
            return Ok(None);
        }
        // The summary has an entry for `path`, so a mirror without one cannot vouch either.
        if self.full.get().is_none()
            && let Some(Some(entry)) = self.store.as_ref().and_then(|s| s.entry(path))
        {
            return Ok(Some(entry));
        }
        Ok(self
            .full()?
            .lock()
            .expect("no holder panics")
            .files
            .remove(path))
    }

    /// The parsed lockfile, parsing it on first need (from any worker thread).
    fn full(&self) -> Result<&Mutex<Lockfile>, Failure> {
        let full = self.full.get_or_init(|| {
            let _read = crate::timings::phase("read lockfile");
            let lock = self.ws.read_lockfile();
            // The entry mirror could not vouch (missing or damaged): rebuild it, so the
            // next run does not parse the lockfile again.
            if let (Ok(lock), Some(store)) = (&lock, &self.store) {
                store.rebuild(&self.ws.lock_path, lock);
            }
            lock.map(Mutex::new).map_err(|f| f.message)
        });
        full.as_ref()
            .map_err(|message| Failure::new(message.clone()))
    }
}
