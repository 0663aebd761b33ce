//! The lockfile as an audit reads it.
//!
//! Deciding a file's entry state and its findings-cache key needs three things per entry:
//! the recorded hash, whether it is reviewed, and a fingerprint of its spans. A lockfile
//! of a large tree is over a hundred megabytes of JSON, so those three are kept in
//! `.lockgraph/` as a summary keyed by the lockfile's stat (git's racy rule applies as for
//! the stat index), with where each entry lies in the lockfile. A file that must go
//! through the engine reads its entry's bytes alone, and the lockfile is parsed whole only
//! when it changed (or an entry cannot be located). A changed lockfile is always parsed,
//! so every invariant is checked before anything is reported or written: in the canonical
//! layout, a round at a time as the audit reaches its paths ([`Reading`]), otherwise
//! whole before the audit.

use super::Failure;
use super::cache::{Caches, EntryAt, LockInfo, LockSummary, Stat};
use super::rounds::{Round, Rounds};
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
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

pub struct LockView<'a> {
    ws: &'a Workspace,
    summary: Summary,
    prompt_outdated: bool,
    /// The parsed lockfile, once an entry is needed; entries are handed out (moved) once.
    full: OnceLock<Result<Mutex<Lockfile>, String>>,
}

/// What the view knows of each entry without the lockfile in full.
enum Summary {
    /// Made from the parsed lockfile, in path order.
    Parsed(Vec<(String, LockInfo)>),
    /// From `.lockgraph/`, read as it is joined with the files being audited, for the
    /// lockfile with this stat: an entry read alone is trusted only while the lockfile
    /// still has it.
    Cached(LockSummary, Stat),
    /// Made as the lockfile is read, a round at a time, while the audit goes.
    Reading(Reading),
}

/// A chunk's summaries, and its entries when the view hands them out with them (see
/// [`LockView::chunk_infos`]).
pub type ChunkInfos = (Vec<Option<LockInfo>>, Option<Vec<Option<Entry>>>);

/// Text of a round read while the audit goes: about 650 entries of a large tree's
/// lockfile, a few milliseconds on one core.
const ROUND: usize = 1 << 20;

/// Entries read ahead of the audit: a worker that finds fewer waiting reads the next
/// round while the other workers audit, so none waits for one.
const AHEAD: usize = 2048;

/// A canonical lockfile read as the audit reaches its paths. Both are in path order, so
/// the audit takes its chunks in order and a worker whose chunk lies past what has been
/// read reads the next round: a cold run audits while the lockfile is parsed instead of
/// after, and holds a few rounds of entries instead of all of them.
struct Reading {
    state: Mutex<ReadState>,
    /// A round was read (or failed): a waiting worker looks again.
    read: Condvar,
    /// Every entry's summary, once the whole lockfile has been read ([`LockView::finish`]).
    summary: OnceLock<Vec<(String, LockInfo)>>,
    /// [`AHEAD`], but for tests.
    ahead: usize,
}

struct ReadState {
    /// The rounds still to read: out while a worker reads one.
    rounds: Option<Rounds>,
    reading: bool,
    /// Every entry read so far, in path order.
    infos: Vec<(String, LockInfo)>,
    /// The entries read and not yet taken.
    entries: FxHashMap<String, Entry>,
    /// Every entry has been read.
    done: bool,
    failed: Option<String>,
    /// Time the workers spent reading rounds.
    spent: Duration,
}

impl ReadState {
    /// Whether every entry up to `path` has been read.
    fn reached(&self, path: &str) -> bool {
        self.done || self.infos.last().is_some_and(|(p, _)| p.as_str() >= path)
    }

    /// Takes in a round (its entries and their summaries), if its paths continue the
    /// order of those read so far. Cheap: the round was read and summarised unlocked.
    fn take_in(&mut self, round: Summarised) -> bool {
        let ordered = round.infos.windows(2).all(|w| w[0].0 < w[1].0);
        let continues = match (self.infos.last(), round.infos.first()) {
            (Some((last, _)), Some((first, _))) => last < first,
            _ => true,
        };
        if !(ordered && continues) {
            return false;
        }
        self.infos.extend(round.infos);
        self.entries.extend(round.entries);
        true
    }
}

/// A round's entries with their summaries, in the order read.
struct Summarised {
    entries: Vec<(String, Entry)>,
    infos: Vec<(String, LockInfo)>,
}

impl From<Round> for Summarised {
    fn from(round: Round) -> Summarised {
        let infos = round
            .entries
            .iter()
            .zip(round.at)
            .map(|((path, entry), at)| (path.clone(), info(entry, Some(at))))
            .collect();
        Summarised {
            entries: round.entries,
            infos,
        }
    }
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

/// Each entry's summary, in path order; `located` (if given) says where each entry
/// lies, in path order.
fn summarize(lock: &Lockfile, located: Option<&[EntryAt]>) -> Vec<(String, LockInfo)> {
    // On every core: a run whose lockfile is not in the canonical layout waits for this
    // between parsing the lockfile and auditing.
    let entries: Vec<(&String, &Entry)> = lock.files.iter().collect();
    let located = located.filter(|at| at.len() == entries.len());
    entries
        .into_par_iter()
        .enumerate()
        .map(|(i, (path, e))| (path.clone(), info(e, located.map(|at| at[i]))))
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
                summary: Summary::Cached(s, stat),
                full: OnceLock::new(),
            });
        }
        let view = match Rounds::open(&ws.lock_path, ROUND, 1) {
            Some((rounds, head)) => LockView::reading(ws, rounds, &head, AHEAD),
            None => {
                let read = crate::timings::phase("read lockfile");
                let (lock, located) = ws.read_lockfile_located()?;
                drop(read);
                let summarise = crate::timings::phase("summarise lockfile");
                let summary = summarize(&lock, located.as_deref());
                drop(summarise);
                LockView::with_summary(ws, lock, summary)
            }
        };
        // Parsed this run, one way or the other: the caches keep its summary.
        if let (Some(stat), Some(c)) = (stat, caches) {
            c.want_lock_summary(stat, view.prompt_outdated);
        }
        Ok(view)
    }

    /// A lockfile to read in `rounds` as the audit goes, `ahead` entries ahead of it;
    /// `head` is the lockfile without its entries.
    fn reading(ws: &'a Workspace, rounds: Rounds, head: &Lockfile, ahead: usize) -> LockView<'a> {
        LockView {
            ws,
            prompt_outdated: prompt_outdated(head),
            summary: Summary::Reading(Reading {
                state: Mutex::new(ReadState {
                    rounds: Some(rounds),
                    reading: false,
                    infos: Vec::new(),
                    entries: FxHashMap::default(),
                    done: false,
                    failed: None,
                    spent: Duration::ZERO,
                }),
                read: Condvar::new(),
                summary: OnceLock::new(),
                ahead,
            }),
            full: OnceLock::new(),
        }
    }

    /// From a lockfile already read.
    pub fn parsed(ws: &'a Workspace, lock: Lockfile) -> LockView<'a> {
        let summary = summarize(&lock, None);
        LockView::with_summary(ws, lock, summary)
    }

    fn with_summary(
        ws: &'a Workspace,
        lock: Lockfile,
        summary: Vec<(String, LockInfo)>,
    ) -> LockView<'a> {
        LockView {
            ws,
            summary: Summary::Parsed(summary),
            prompt_outdated: prompt_outdated(&lock),
            full: OnceLock::from(Ok(Mutex::new(lock))),
        }
    }

    /// The summary made from the lockfile, in path order, if this run parsed it (and,
    /// reading it as the audit went, [`finished`](LockView::finish)): what the caches keep
    /// of the lockfile (see [`Caches::save`]).
    pub fn parsed_summary(&self) -> Option<&[(String, LockInfo)]> {
        match &self.summary {
            Summary::Parsed(infos) => Some(infos),
            Summary::Reading(r) => r.summary.get().map(Vec::as_slice),
            Summary::Cached(..) => None,
        }
    }

    /// Whether the lockfile is read as the audit reaches its paths: the audit then asks
    /// for each chunk's summaries ([`LockView::chunk_infos`]), in order, and
    /// [`finishes`](LockView::finish) the lockfile after.
    pub fn reads_as_it_goes(&self) -> bool {
        matches!(self.summary, Summary::Reading(_))
    }

    /// What the lockfile records for each of `paths` (sorted by path), once the lockfile
    /// has been read through the last of them; for a lockfile read as the audit goes,
    /// also their entries, taken out of the view (an audit asks for a path once, and
    /// the entries of those whose findings were cached are dropped with the chunk). Any
    /// error in the lockfile read on the way fails the audit, as it would have before
    /// it started.
    ///
    /// Taken a chunk at a time, the entries cost the workers one lock of the reading
    /// state per chunk, not one per file; each lock was contended while a round was
    /// taken in.
    pub fn chunk_infos<'p>(
        &self,
        paths: impl IntoIterator<Item = &'p str> + Clone,
    ) -> Result<ChunkInfos, Failure> {
        let Summary::Reading(r) = &self.summary else {
            return Ok((self.infos(paths)?, None));
        };
        let Some(last) = paths.clone().into_iter().last() else {
            return Ok((Vec::new(), Some(Vec::new())));
        };
        let mut st = self.reach(r, last)?;
        let infos = lookup(&st.infos, paths.clone());
        let entries = paths
            .into_iter()
            .zip(&infos)
            .map(|(path, info)| info.as_ref().and_then(|_| st.entries.remove(path)))
            .collect();
        Ok((infos, Some(entries)))
    }

    /// The reading state once every entry up to `path` has been read and enough are read
    /// ahead; reads rounds on this thread as needed.
    fn reach<'r>(&self, r: &'r Reading, path: &str) -> Result<MutexGuard<'r, ReadState>, Failure> {
        let mut st = r.state.lock().expect("no holder panics");
        loop {
            if let Some(message) = &st.failed {
                return Err(Failure::new(message.clone()));
            }
            let reached = st.reached(path);
            if reached && (st.done || st.reading || st.entries.len() >= r.ahead) {
                return Ok(st);
            }
            if st.reading {
                st = r.read.wait(st).expect("no holder panics");
                continue;
            }
            st = self.read_round(r, st);
        }
    }

    /// Reads the next round with the state unlocked, then takes it in. A round that does
    /// not read, or breaks the path order, leaves the answer to the whole read.
    fn read_round<'r>(
        &self,
        r: &'r Reading,
        mut st: MutexGuard<'r, ReadState>,
    ) -> MutexGuard<'r, ReadState> {
        let Some(mut rounds) = st.rounds.take() else {
            st.done = true;
            return st;
        };
        st.reading = true;
        drop(st);
        let started = Instant::now();
        // Read and summarised before the state is locked again: the other workers take
        // their entries meanwhile.
        let round = rounds.next_round().map(|r| r.map(Summarised::from));
        let mut st = r.state.lock().expect("no holder panics");
        st.reading = false;
        st.spent += started.elapsed();
        match round {
            Ok(Some(round)) => {
                if st.take_in(round) {
                    st.rounds = Some(rounds);
                } else {
                    self.read_whole(&mut st);
                }
            }
            Ok(None) => st.done = true,
            Err(_) => self.read_whole(&mut st),
        }
        r.read.notify_all();
        st
    }

    /// Reads the whole lockfile into the state: its exact error, or every entry (those
    /// already taken are not asked for again).
    fn read_whole(&self, st: &mut ReadState) {
        match self.ws.read_lockfile_located() {
            Ok((lock, located)) => {
                st.infos = summarize(&lock, located.as_deref());
                st.entries = lock.files.into_iter().collect();
                st.done = true;
            }
            Err(f) => st.failed = Some(f.message),
        }
    }

    /// Reads the rest of a lockfile read as the audit went: every entry is checked before
    /// anything is written, and the summary is complete. Nothing to do otherwise.
    pub fn finish(&self) -> Result<(), Failure> {
        let Summary::Reading(r) = &self.summary else {
            return Ok(());
        };
        if r.summary.get().is_some() {
            return Ok(());
        }
        let mut st = r.state.lock().expect("no holder panics");
        while !st.done && st.failed.is_none() {
            st = self.read_round(r, st);
        }
        if let Some(message) = &st.failed {
            return Err(Failure::new(message.clone()));
        }
        crate::timings::report("read lockfile, in rounds", st.spent);
        let infos = std::mem::take(&mut st.infos);
        // The entries no file took: files out of scope, or gone.
        let untaken = std::mem::take(&mut st.entries);
        std::mem::forget(untaken);
        let _ = r.summary.set(infos);
        Ok(())
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
        match &self.summary {
            Summary::Parsed(infos) => Ok(lookup(infos, paths)),
            Summary::Reading(r) => {
                self.finish()?;
                let infos = r.summary.get().map_or(&[][..], Vec::as_slice);
                Ok(lookup(infos, paths))
            }
            Summary::Cached(cached, _) => match cached.join(paths.clone()) {
                Some(infos) => Ok(infos),
                // Damaged (and moved aside): the lockfile itself answers.
                None => {
                    let lock = self.full()?.lock().expect("no holder panics");
                    Ok(lookup(&summarize(&lock, None), paths))
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
    /// instead of living alongside it. A lockfile read as the audit goes hands its entries
    /// out with each chunk's summaries ([`LockView::chunk_infos`]) instead.
    pub fn take_entry(
        &self,
        path: &str,
        info: Option<&LockInfo>,
    ) -> Result<Option<Entry>, Failure> {
        let Some(info) = info else {
            return Ok(None);
        };
        if self.full.get().is_none()
            && let Summary::Cached(_, stat) = &self.summary
            && let Some(entry) = read_entry(&self.ws.lock_path, *stat, path, info)
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

    /// Lets go of the entry of `path`, which the audit does not need (its findings were
    /// cached), if the lockfile was parsed: a run whose lockfile changed but whose files
    /// did not then holds only the entries still to come, not all of them. (A lockfile
    /// read as the audit goes hands the entries out with the chunk, which drops them.)
    pub fn release_entry(&self, path: &str) {
        if let Some(Ok(full)) = self.full.get() {
            full.lock().expect("no holder panics").files.remove(path);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy_audit::workspace::tests::{entry_starts, lockfile, swapped};
    use lockgraph_queries::copy::lockfile::to_canonical_string;

    fn tree(text: &str) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join(".copy-editor.yaml");
        fs::write(&config, "language: cs\n").unwrap();
        fs::write(dir.path().join(".copy-editor.lock.json"), text).unwrap();
        let ws = Workspace::load(Some(&config), None).unwrap();
        (dir, ws)
    }

    /// A file's summary and entry, as the audit takes them.
    type Taken = (Option<LockInfo>, Option<Entry>);

    /// The lockfile's paths and as many more that it has no entry for, in path order.
    fn audited_paths(lock: &Lockfile) -> Vec<String> {
        let mut paths: Vec<String> = lock.files.keys().cloned().collect();
        paths.extend(lock.files.keys().map(|p| format!("{p}x")));
        paths.sort();
        paths
    }

    /// Audits `paths` against `view` chunk by chunk on every core, in order as the audit
    /// does: each chunk's summaries and the entries of those it has, or the first error.
    fn audit(view: &LockView<'_>, paths: &[String]) -> Result<Vec<Taken>, Failure> {
        let mut chunks: Vec<(usize, Vec<_>)> = paths
            .chunks(7)
            .enumerate()
            .par_bridge()
            .map(|(i, chunk)| {
                let (infos, entries) = view.chunk_infos(chunk.iter().map(String::as_str))?;
                let entries = entries.expect("a view read as the audit goes hands entries out");
                let taken = infos.into_iter().zip(entries).collect();
                Ok((i, taken))
            })
            .collect::<Result<_, Failure>>()?;
        chunks.sort_by_key(|(i, _)| *i);
        view.finish()?;
        Ok(chunks.into_iter().flat_map(|(_, c)| c).collect())
    }

    /// What the whole read gives for `paths`: each summary and entry, and the summary.
    #[allow(clippy::type_complexity)]
    fn whole(
        ws: &Workspace,
        paths: &[String],
    ) -> (
        Vec<(Option<LockInfo>, Option<Entry>)>,
        Vec<(String, LockInfo)>,
    ) {
        let (lock, located) = ws.read_lockfile_located().unwrap();
        let summary = summarize(&lock, located.as_deref());
        let each = paths
            .iter()
            .zip(lookup(&summary, paths.iter().map(String::as_str)))
            .map(|(p, info)| (info, lock.files.get(p).cloned()))
            .collect();
        (each, summary)
    }

    #[test]
    fn read_as_the_audit_goes_a_lockfile_gives_what_the_whole_read_gives() {
        let lock = lockfile(300);
        let text = to_canonical_string(&lock);
        let (_dir, ws) = tree(&text);
        let paths = audited_paths(&lock);
        let (expected, summary) = whole(&ws, &paths);
        assert!(summary.iter().all(|(_, info)| info.at.is_some()));
        // Rounds of a few entries, of many, and of the whole file; read just in time, or
        // ahead.
        for (round, ahead) in [(200, 0), (200, 16), (4096, 0), (4096, 64), (1 << 20, AHEAD)] {
            let (rounds, head) = Rounds::open(&ws.lock_path, round, 1).unwrap();
            let view = LockView::reading(&ws, rounds, &head, ahead);
            assert!(view.reads_as_it_goes());
            assert_eq!(audit(&view, &paths).unwrap(), expected, "{round}, {ahead}");
            assert_eq!(view.parsed_summary(), Some(&summary[..]));
        }
    }

    /// Entries out of order, or a layout the rounds cannot read, leave the answer to the
    /// whole read, whichever round finds it: the same summaries and entries (those the
    /// rounds read first also say where they lie).
    #[test]
    fn what_rounds_cannot_read_the_whole_read_answers() {
        let lock = lockfile(300);
        let text = to_canonical_string(&lock);
        let starts = entry_starts(&text);
        let swapped = swapped(&text, 250);
        // A late entry indented by one more space: the same lockfile in another layout.
        let indented = format!("{} {}", &text[..starts[280] + 1], &text[starts[280] + 1..]);
        assert!(lockgraph_queries::copy::lockfile::parse(&indented).is_ok());
        let unlocated = |each: Vec<Taken>| {
            each.into_iter()
                .map(|(info, entry)| (info.map(|i| LockInfo { at: None, ..i }), entry))
                .collect::<Vec<_>>()
        };
        for changed in [swapped, indented] {
            let (_dir, ws) = tree(&changed);
            let paths = audited_paths(&lock);
            let (expected, summary) = whole(&ws, &paths);
            assert!(summary.iter().all(|(_, info)| info.at.is_none()));
            for (round, ahead) in [(200, 0), (4096, 16)] {
                let (rounds, head) = Rounds::open(&ws.lock_path, round, 1).unwrap();
                let view = LockView::reading(&ws, rounds, &head, ahead);
                let each = audit(&view, &paths).unwrap();
                assert_eq!(unlocated(each), expected, "{round}, {ahead}");
                assert_eq!(view.parsed_summary(), Some(&summary[..]));
            }
        }
    }

    /// An entry that breaks an invariant late in the lockfile, or a path written twice,
    /// fails the audit with the whole read's exact error, though earlier chunks were
    /// audited.
    #[test]
    fn a_broken_entry_late_in_the_lockfile_fails_with_the_exact_error() {
        let lock = lockfile(300);
        let text = to_canonical_string(&lock);
        let last = text.rfind("sha256:").unwrap();
        let broken = format!("{}md5:{}", &text[..last], &text[last + "sha256:".len()..]);
        let starts = entry_starts(&text);
        let entry = &text[starts[250]..starts[251]];
        let twice = format!("{}{entry}{}", &text[..starts[251]], &text[starts[251]..]);
        let paths = audited_paths(&lock);
        for text in [broken, twice] {
            let (_dir, ws) = tree(&text);
            let error = ws.read_lockfile().unwrap_err().message;
            for (round, ahead) in [(200, 0), (4096, 16), (1 << 20, AHEAD)] {
                let (rounds, head) = Rounds::open(&ws.lock_path, round, 1).unwrap();
                let view = LockView::reading(&ws, rounds, &head, ahead);
                let first = view.chunk_infos(paths[..7].iter().map(String::as_str));
                assert_eq!(first.is_ok(), round < 1 << 20, "{round}, {ahead}");
                assert_eq!(audit(&view, &paths).unwrap_err().message, error);
                assert_eq!(view.finish().unwrap_err().message, error);
            }
        }
    }
}
