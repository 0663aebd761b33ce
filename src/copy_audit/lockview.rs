//! The lockfile as an audit reads it.
//!
//! Deciding a file's entry state and its findings-cache key needs three things per entry:
//! the recorded hash, whether it is reviewed, and a fingerprint of its spans. A lockfile
//! of a large tree is tens of megabytes of JSON, so those three are kept in `.lockgraph/`
//! as a summary keyed by the lockfile's stat (git's racy rule applies as for the stat
//! index). While the summary stands, a run whose findings are all cached never reads the
//! lockfile; the first file that must go through the engine reads it whole, once, with
//! the one reader (`Workspace::read_lockfile`). A changed lockfile is read and checked in
//! full before the audit starts, so every invariant holds before anything is reported or
//! written.

use super::Failure;
use super::cache::{Caches, LockInfo, LockSummary, Stat};
use super::workspace::Workspace;
use crate::statcache::HashBytes;
use lockgraph_queries::copy::engine::{self, EntryState};
use lockgraph_queries::copy::lockfile::{self, Entry, Lockfile};
use lockgraph_queries::hash::ContentHash;
use rayon::prelude::*;
use std::fs;
use std::sync::{Mutex, OnceLock};

pub struct LockView<'a> {
    ws: &'a Workspace,
    summary: Summary,
    prompt_outdated: bool,
    /// The lockfile's stat as [`LockView::open`] found it, before reading anything of it;
    /// `None` when there was none (or the view was made from a lockfile read elsewhere).
    stat: Option<Stat>,
    /// The parsed lockfile, once an entry is needed; entries are handed out (moved) once.
    full: OnceLock<Result<Mutex<Lockfile>, String>>,
}

/// What the view knows of each entry without the lockfile in full.
enum Summary {
    /// Made from the parsed lockfile, in path order.
    Parsed(Vec<(String, LockInfo)>),
    /// From `.lockgraph/`, read as it is joined with the files being audited.
    Cached(LockSummary),
}

/// Reads the lockfile (on every core, as `Workspace::read_lockfile` does) without letting
/// the calling thread take other work meanwhile. Called from an audit worker inside the
/// `OnceLock` initialiser, a read on the global pool would have the worker steal jobs
/// while it waits, and a stolen job that needs the lockfile waits on the very initialiser
/// its thread is running: a deadlock (rayon-rs/rayon#592). So a worker hands the read to
/// a thread of its own, which runs it on a pool of its own, and blocks outright.
fn read_off_the_pool(ws: &Workspace) -> Result<Lockfile, Failure> {
    if rayon::current_thread_index().is_none() {
        return ws.read_lockfile();
    }
    let threads = rayon::current_num_threads();
    std::thread::scope(|s| {
        s.spawn(|| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| {
                    Failure::new(format!("cannot start threads to read the lockfile: {e}"))
                })?;
            pool.install(|| ws.read_lockfile())
        })
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

fn info(e: &Entry) -> LockInfo {
    LockInfo {
        hash: ContentHash::parse(&e.content_hash)
            .map(|h| HashBytes(h.0))
            .ok_or_else(|| e.content_hash.clone()),
        reviewed: e.reviewed_by.is_some(),
        spans: HashBytes(lockfile::filter_key(&e.spans)),
    }
}

/// Each entry's summary, in path order.
fn summarize(lock: &Lockfile) -> Vec<(String, LockInfo)> {
    // On every core: the audit waits for this between reading the lockfile and starting.
    let entries: Vec<(&String, &Entry)> = lock.files.iter().collect();
    entries
        .into_par_iter()
        .map(|(path, e)| (path.clone(), info(e)))
        .collect()
}

/// The summaries of `paths` in `infos` (in path order).
fn lookup<'p>(
    infos: &[(String, LockInfo)],
    paths: impl IntoIterator<Item = &'p str>,
) -> Vec<Option<LockInfo>> {
    paths
        .into_iter()
        .map(|p| {
            let i = infos.binary_search_by(|(q, _)| q.as_str().cmp(p)).ok()?;
            Some(infos[i].1.clone())
        })
        .collect()
}

impl<'a> LockView<'a> {
    /// From the summary in the caches when it vouches for the lockfile, else by reading
    /// the lockfile (and refreshing the summary).
    pub fn open(ws: &'a Workspace, caches: Option<&mut Caches>) -> Result<LockView<'a>, Failure> {
        let stat = fs::metadata(&ws.lock_path).ok().map(|m| Stat::of(&m));
        let mut caches = caches;
        if let (Some(stat), Some(c)) = (stat, caches.as_deref_mut())
            && let Some(s) = c.take_lock_summary(&stat)
        {
            return Ok(LockView {
                ws,
                stat: Some(stat),
                prompt_outdated: s.prompt_outdated,
                summary: Summary::Cached(s),
                full: OnceLock::new(),
            });
        }
        let read = crate::logging::phase("read lockfile");
        let lock = ws.read_lockfile()?;
        drop(read);
        let mut view = LockView::parsed(ws, lock);
        view.stat = stat;
        // Read this run: the caches keep its summary.
        if let (Some(stat), Some(c)) = (stat, caches) {
            c.want_lock_summary(stat, view.prompt_outdated);
        }
        Ok(view)
    }

    /// From a lockfile already read.
    pub fn parsed(ws: &'a Workspace, lock: Lockfile) -> LockView<'a> {
        let summarise = crate::logging::phase("summarise lockfile");
        let summary = summarize(&lock);
        drop(summarise);
        LockView {
            ws,
            stat: None,
            summary: Summary::Parsed(summary),
            prompt_outdated: lock.prompt_outdated(),
            full: OnceLock::from(Ok(Mutex::new(lock))),
        }
    }

    /// The summary made from the lockfile, in path order, if this run read it: what the
    /// caches keep of the lockfile (see [`Caches::save`]).
    pub fn parsed_summary(&self) -> Option<&[(String, LockInfo)]> {
        match &self.summary {
            Summary::Parsed(infos) => Some(infos),
            Summary::Cached(..) => None,
        }
    }

    pub fn prompt_outdated(&self) -> bool {
        self.prompt_outdated
    }

    /// The lockfile's stat as [`LockView::open`] found it, if it found one.
    pub fn stat(&self) -> Option<&Stat> {
        self.stat.as_ref()
    }

    /// What the lockfile records for each of `paths` (sorted by path, as the walk lists
    /// them): one pass over the cached summary, or lookups in the parsed one.
    pub fn infos<'p>(
        &self,
        paths: impl IntoIterator<Item = &'p str> + Clone,
    ) -> Result<Vec<Option<LockInfo>>, Failure> {
        match &self.summary {
            Summary::Parsed(infos) => Ok(lookup(infos, paths)),
            Summary::Cached(cached) => match cached.join(paths.clone()) {
                Some(infos) => Ok(infos),
                // Damaged (and moved aside): the lockfile itself answers. Summarised on
                // this thread: no parallel work runs while the lock is held.
                None => {
                    let lock = self.full()?.lock().expect("no holder panics");
                    let infos: Vec<(String, LockInfo)> = lock
                        .files
                        .iter()
                        .map(|(p, e)| (p.clone(), info(e)))
                        .collect();
                    Ok(lookup(&infos, paths))
                }
            },
        }
    }

    /// A file's entry state, from its entry's summary and its content hash.
    pub fn state(&self, info: Option<&LockInfo>, hash: ContentHash) -> EntryState {
        let entry = info.map(|i| (i.hash.as_ref().ok().map(|h| ContentHash(h.0)), i.reviewed));
        engine::state_from(entry, hash, self.prompt_outdated)
    }

    /// The full entry of `path`, whose summary is `info` (None: the lockfile has none),
    /// from the lockfile read whole on first need (from any worker thread). An audit asks
    /// for each file's entry once, so the entry is moved out rather than copied: the
    /// parsed lockfile shrinks as the audit proceeds instead of living alongside it. The
    /// lockfile has not changed since the summary was made (its stat is the summary's
    /// key); if it has meanwhile, the entry read is the one now there.
    pub fn take_entry(
        &self,
        path: &str,
        info: Option<&LockInfo>,
    ) -> Result<Option<Entry>, Failure> {
        if info.is_none() {
            return Ok(None);
        }
        Ok(self
            .full()?
            .lock()
            .expect("no holder panics")
            .files
            .remove(path))
    }

    /// Lets go of the entry of `path`, which the audit does not need (its findings were
    /// cached), if the lockfile was read: a run whose lockfile changed but whose files
    /// did not then holds only the entries still to come, not all of them.
    pub fn release_entry(&self, path: &str) {
        if let Some(Ok(full)) = self.full.get() {
            full.lock().expect("no holder panics").files.remove(path);
        }
    }

    /// The parsed lockfile, reading it on first need (from any worker thread).
    fn full(&self) -> Result<&Mutex<Lockfile>, Failure> {
        let full = self.full.get_or_init(|| {
            let _read = crate::logging::phase("read lockfile");
            let lock = read_off_the_pool(self.ws);
            lock.map(Mutex::new).map_err(|f| f.message)
        });
        full.as_ref()
            .map_err(|message| Failure::new(message.clone()))
    }
}
