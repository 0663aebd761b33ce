//! The lockfile as an audit reads it.
//!
//! Deciding a file's entry state and its findings-cache key needs three things per entry:
//! the recorded hash, whether it is reviewed, and a fingerprint of its spans. A lockfile
//! of a large tree is over a hundred megabytes of JSON, so those three are kept in
//! `.lockgraph/` as a summary keyed by the lockfile's stat (git's racy rule applies as for
//! the stat index), with where each entry lies in the lockfile. A file that must go
//! through the engine reads its entry's bytes alone, and the lockfile is parsed whole only
//! when it changed (or an entry cannot be located). A changed lockfile is always parsed,
//! so every invariant is checked before anything is trusted.

use super::Failure;
use super::cache::{Caches, EntryAt, LockInfo, LockSummary, Stat};
use super::workspace::Workspace;
use crate::statcache::Raw32;
use lockgraph_queries::copy::engine::{self, EntryState};
use lockgraph_queries::copy::lockfile::{self, Backend, Entry, Lockfile};
use lockgraph_queries::hash::ContentHash;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use sha2::{Digest, Sha256};
use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::sync::{Mutex, OnceLock};

pub struct LockView<'a> {
    ws: &'a Workspace,
    summary: Summary,
    prompt_outdated: bool,
    /// The parsed lockfile, once an entry is needed; entries are handed out (moved) once.
    full: OnceLock<Result<Mutex<Lockfile>, String>>,
    /// The lockfile's stat when the summary came from `.lockgraph/`: an entry read alone
    /// is trusted only while the lockfile still has it.
    cached_for: Option<Stat>,
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

fn info(e: &Entry, at: Option<EntryAt>) -> LockInfo {
    LockInfo {
        hash: ContentHash::parse(&e.content_hash)
            .map(|h| Raw32(h.0))
            .ok_or_else(|| e.content_hash.clone()),
        reviewed: e.reviewed_by.is_some(),
        spans: Raw32(spans_key(e)),
        at,
    }
}

/// Each entry's summary; `located` (if given) says where each entry lies, in path order.
fn summarize(lock: &Lockfile, located: Option<&[EntryAt]>) -> FxHashMap<String, LockInfo> {
    // On every core: a cold run waits for this between parsing the lockfile and auditing.
    let entries: Vec<(&String, &Entry)> = lock.files.iter().collect();
    let located = located.filter(|at| at.len() == entries.len());
    entries
        .into_par_iter()
        .enumerate()
        .map(|(i, (path, e))| (path.clone(), info(e, located.map(|at| at[i]))))
        .collect()
}

/// The entry for `path` that `info` summarises, read alone from where it lies in the
/// lockfile at `lock_path` — if the lockfile still has the stat `stat`, the bytes there
/// are one valid entry for `path`, and that entry is the one summarised.
fn read_entry(
    lock_path: &std::path::Path,
    stat: Stat,
    path: &str,
    info: &LockInfo,
) -> Option<Entry> {
    let at = info.at?;
    let mut file = fs::File::open(lock_path).ok()?;
    if Stat::of(&file.metadata().ok()?) != stat {
        return None;
    }
    file.seek(SeekFrom::Start(at.offset)).ok()?;
    let mut text = vec![0; at.len as usize];
    file.read_exact(&mut text).ok()?;
    let (read_path, entry) = lockfile::pieces::entry(&text)?;
    (read_path == path && self::info(&entry, info.at) == *info).then_some(entry)
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
                cached_for: Some(stat),
            });
        }
        let read = crate::timings::phase("read lockfile");
        let (lock, located) = ws.read_lockfile_located()?;
        drop(read);
        let summarise = crate::timings::phase("summarise lockfile");
        let summary = summarize(&lock, located.as_deref());
        drop(summarise);
        let view = LockView::with_summary(ws, lock, summary);
        if let (Some(stat), Some(c)) = (stat, caches) {
            c.want_lock_summary(stat, view.prompt_outdated);
        }
        Ok(view)
    }

    /// From a lockfile already read.
    pub fn parsed(ws: &'a Workspace, lock: Lockfile) -> LockView<'a> {
        let summary = summarize(&lock, None);
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
            cached_for: None,
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
                    Ok(lookup(&summarize(&lock, None)))
                }
            },
        }
    }

    /// A file's entry state, from its entry's summary and its content hash.
    pub fn state(&self, info: Option<&LockInfo>, hash: ContentHash) -> EntryState {
        let entry = info.map(|i| (i.hash.as_ref().ok().map(|h| ContentHash(h.0)), i.reviewed));
        engine::state_from(entry, hash, self.prompt_outdated)
    }

    /// The full entry of `path`, whose summary is `info` (None: the lockfile has none).
    /// With the summary from `.lockgraph/`, the entry's bytes are read alone; otherwise
    /// (or if they no longer are that entry) from the lockfile parsed whole on first need,
    /// from any worker thread. An audit asks for each file's entry once, so the entry is
    /// moved out rather than copied: the parsed lockfile shrinks as the audit proceeds
    /// instead of living alongside it.
    pub fn take_entry(
        &self,
        path: &str,
        info: Option<&LockInfo>,
    ) -> Result<Option<Entry>, Failure> {
        let Some(info) = info else {
            return Ok(None);
        };
        if self.full.get().is_none()
            && let Some(stat) = self.cached_for
            && let Some(entry) = read_entry(&self.ws.lock_path, stat, path, info)
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
            lock.map(Mutex::new).map_err(|f| f.message)
        });
        full.as_ref()
            .map_err(|message| Failure::new(message.clone()))
    }
}
