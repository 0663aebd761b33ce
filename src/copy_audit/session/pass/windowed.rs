//! The audit pass with a remote cache: files are hashed, looked up and audited a
//! **window** of chunks at a time, so that a file read for its chunk's key is not read
//! again for the engine, and the pass holds the bytes of about two windows, not of the
//! tree.
//!
//! The lookups run on a thread of their own, one window behind the hashing: while the
//! server answers for window *k*, the workers hash window *k + 1* and then audit window
//! *k − 1*. A run that hashed every file before its first lookup read each file twice
//! (the hashing pass was most of what a cold remote run added: 650 ms at 100,000 files)
//! and waited for every lookup with both cores idle.
//!
//! In a git checkout, a chunk whose every file git's index names (its stat as the index
//! recorded it, [`crate::gitindex`]) is looked up by those blob ids instead of content
//! hashes, and its files are not read unless the server lacks the chunk: a fresh CI
//! checkout served from the remote cache reads no file. Such a chunk's blob carries each
//! file's content hash too, which the lockfile's entries are compared with.

use super::{Chunk, Known, Origin, Pass, Side, remote};
use crate::copy_audit::Failure;
use crate::copy_audit::cache::{Caches, LockInfo, Stat};
use crate::copy_audit::session::audited::{Audited, CHUNK};
use crate::copy_audit::session::scan::Scanned;
use crate::gitindex::GitIndex;
use crate::progress::Progress;
use crate::remote::{Remote, chunks_of};
use lockgraph_queries::hash::ContentHash;
use rayon::prelude::*;
use std::collections::VecDeque;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// Files a window holds at least: whole chunks, about four of them. Small enough that
/// two windows' bytes are a few tens of megabytes on real prose; large enough that a
/// window's lookups keep the calls in flight busy.
const WINDOW_FILES: usize = 2048;

/// The bytes read for keys that the pass keeps for the engine, at most, over the windows
/// it holds: past it (files of megabytes), a file's bytes are dropped after hashing and
/// read again if the engine needs them.
const KEPT_BYTES: usize = 64 << 20;

/// Windows hashed and looked up, at most, before the oldest is audited: lookups that lag
/// behind the hashing (a served run, whose audit only takes reports) are sent together.
const AHEAD: usize = 8;

/// A file of a window, keyed for its chunk's lookup.
struct Hashed {
    path: String,
    /// Its stat and content hash, and its bytes if they were read; None for a file named
    /// by git, which is read only if its chunk is not served.
    scanned: Option<std::io::Result<Scanned>>,
    /// For a file named by git: the walk's stat, which its index entry recorded.
    git: Option<Stat>,
    /// Its key in its chunk: its findings key, or its blob key for a chunk by git; None
    /// if it could not be read.
    key: Option<[u8; 32]>,
    /// Its findings key, where its content hash is known.
    local: Option<[u8; 32]>,
    /// Its bytes' share of [`KEPT_BYTES`].
    kept: usize,
}

/// A file audited, with the key its report may be stored under in its chunk, if any.
type Made = (Audited, Side, Option<[u8; 32]>);

/// A window: a run of the pass's files (a range of them in path order) and the chunks
/// they make up.
struct Window {
    files: Range<usize>,
    chunks: Vec<remote::Group>,
}

/// A window hashed and looked up, whose answer is awaited.
struct Asked {
    files: Range<usize>,
    hashed: Vec<Hashed>,
}

impl Pass<'_, '_> {
    /// Audits every file in `files` (in path order), each chunk's reports served by
    /// `remote` where it has them, else from the local cache or the engine. Returns the
    /// audited files in chunks of [`CHUNK`], numbered, and the chunks looked up.
    pub(in crate::copy_audit::session) fn audit_windows(
        &self,
        remote: &Remote,
        caches: &Caches,
        mut files: Vec<(String, Option<Stat>)>,
        known: &[Known],
        infos: &[Option<LockInfo>],
        progress: &Progress,
    ) -> Result<(Vec<(usize, Chunk)>, remote::Plan), Failure> {
        let phase = crate::logging::phase("git's index, windows");
        let index = GitIndex::open(&self.ws.root);
        let mut git: Vec<Option<&[u8]>> = match &index {
            Some(index) => files
                .par_iter()
                .map(|(path, stat)| index.identity(path, stat.as_ref()?))
                .collect(),
            None => vec![None; files.len()],
        };
        let windows = windows_of(&files, &git);
        // Only the files of chunks by git are named by git; the others are read.
        for chunk in windows.iter().flat_map(|w| &w.chunks).filter(|c| !c.by_git) {
            for &i in &chunk.files {
                git[i] = None;
            }
        }
        drop(phase);
        crate::logging::count("files named by git's index", || {
            git.iter().filter(|n| n.is_some()).count()
        });
        let mut plan = remote::Plan::new(files.len());
        let kept = AtomicUsize::new(0);
        let mut done: Vec<(Audited, Side)> = Vec::with_capacity(files.len());
        std::thread::scope(|scope| -> Result<(), Failure> {
            let (ask, asked) = mpsc::channel::<Vec<Vec<u8>>>();
            let (answer, answered) = mpsc::channel();
            scope.spawn(move || look_up(remote, asked, answer));
            let mut waiting: VecDeque<Asked> = VecDeque::new();
            // Whether the bytes hashed are kept for the engine: while the server misses.
            // Once it serves, the next windows' chunks are likely served too, and bytes
            // held across windows for nothing cost a served run a tenth more (freed
            // pages given back and faulted in again).
            let mut keep = true;
            let mut windows = windows.into_iter().peekable();
            while !waiting.is_empty() || windows.peek().is_some() {
                if let Some(Window {
                    files: range,
                    chunks,
                }) = windows.next()
                {
                    let hashed = self.hash(
                        &mut files[range.clone()],
                        &known[range.clone()],
                        &infos[range.clone()],
                        &git[range.clone()],
                        keep.then_some(&kept),
                    );
                    let keys = plan.ask(caches, &chunks, |i| {
                        let h = &hashed[i - range.start];
                        remote::Keyed {
                            path: &h.path,
                            key: h.key,
                            local: h.local,
                            recorded: infos[i]
                                .as_ref()
                                .and_then(|info| Some(info.hash.as_ref().ok()?.0)),
                        }
                    });
                    ask.send(keys)
                        .expect("the lookup thread ends only with the pass");
                    waiting.push_back(Asked {
                        files: range,
                        hashed,
                    });
                }
                // Each window the server has answered for is audited; the hashing waits
                // for an answer only when it is `AHEAD` windows ahead, or done.
                while !waiting.is_empty() {
                    let blobs = if waiting.len() > AHEAD || windows.peek().is_none() {
                        answered.recv().expect("one answer per window asked")
                    } else {
                        match answered.try_recv() {
                            Ok(blobs) => blobs,
                            Err(_) => break,
                        }
                    };
                    let window = waiting
                        .pop_front()
                        .expect("answers come in the order asked");
                    let (asked, missed) = (blobs.len(), plan.missed());
                    let served = plan.answer(blobs);
                    if asked > 0 {
                        keep = plan.missed() > missed;
                    }
                    let start = window.files.start;
                    if done.is_empty() {
                        // Between a file's hash for the remote's keys and its read for
                        // the engine (where the stat index vouched for it): where an edit
                        // during a run is tested (`tests/remote_cache.rs`).
                        crate::testhook::pause("remote-looked-up");
                    }
                    let audited =
                        self.audit_window(window, served, infos, caches, &kept, progress)?;
                    for (i, (audited, side, made)) in (start..).zip(audited) {
                        if let Some(key) = made {
                            plan.made(i, key);
                        }
                        done.push((audited, side));
                    }
                }
            }
            Ok(())
        })?;
        plan.log(remote);
        Ok((in_chunks(done), plan))
    }

    /// Reads (unless the stat index vouches for it) and hashes each file of a window, on
    /// every core, and makes its key; a file `git` names is not read, and keyed by its
    /// blob. The bytes are kept within `kept`'s budget ([`KEPT_BYTES`]), or dropped if
    /// there is none.
    fn hash(
        &self,
        files: &mut [(String, Option<Stat>)],
        known: &[Known],
        infos: &[Option<LockInfo>],
        git: &[Option<&[u8]>],
        kept: Option<&AtomicUsize>,
    ) -> Vec<Hashed> {
        files
            .par_iter_mut()
            .zip(known)
            .zip(infos)
            .zip(git)
            .map(|((((path, stat), known), info), git)| {
                let path = std::mem::take(path);
                let info = info.as_ref();
                let locale = self.locales.locale_for(&path);
                let findings_key = |hash: &ContentHash| {
                    self.key(&path, hash, self.lock.state(info, *hash), info, locale)
                };
                if let (Some(blob), Some(stat)) = (git, *stat) {
                    let scanned = known.map(|hash| {
                        Ok(Scanned {
                            stat,
                            hash,
                            source: None,
                            read: false,
                        })
                    });
                    return Hashed {
                        local: known.as_ref().map(findings_key),
                        key: Some(self.blob_key(&path, blob, info, locale)),
                        path,
                        scanned,
                        git: Some(stat),
                        kept: 0,
                    };
                }
                let mut scanned = self.scan(&path, *stat, *known);
                let mut share = 0;
                let key = scanned.as_mut().ok().map(|s| {
                    if let Some(source) = &s.source {
                        let n = source.bytes().len();
                        match kept {
                            Some(kept)
                                if kept.fetch_add(n, Ordering::Relaxed) + n <= KEPT_BYTES =>
                            {
                                share = n;
                            }
                            Some(kept) => {
                                kept.fetch_sub(n, Ordering::Relaxed);
                                s.source = None;
                            }
                            None => s.source = None,
                        }
                    }
                    findings_key(&s.hash)
                });
                Hashed {
                    path,
                    scanned: Some(scanned),
                    git: None,
                    key,
                    local: key,
                    kept: share,
                }
            })
            .collect()
    }

    /// Audits a window on every core, in path order: `served` are the reports the server
    /// served for its files. With each file, the key its report may be stored under in
    /// its chunk, if any: its findings key as made, or, for a file named by git, its blob
    /// key where the bytes audited were the blob's (its stat did not move).
    fn audit_window(
        &self,
        window: Asked,
        served: Vec<remote::Served>,
        infos: &[Option<LockInfo>],
        caches: &Caches,
        kept: &AtomicUsize,
        progress: &Progress,
    ) -> Result<Vec<Made>, Failure> {
        let Asked { files, hashed } = window;
        let mut by_file: Vec<Option<remote::Served>> = Vec::new();
        by_file.resize_with(hashed.len(), || None);
        for s in served {
            let at = s.file - files.start;
            by_file[at] = Some(s);
        }
        let share: usize = hashed.iter().map(|h| h.kept).sum();
        let done = hashed
            .into_par_iter()
            .zip(by_file)
            .zip(&infos[files])
            .map(|((h, served), info)| {
                progress.inc();
                self.audit_hashed(h, served, info.as_ref(), caches)
            })
            .collect();
        kept.fetch_sub(share, Ordering::Relaxed);
        done
    }

    /// One file of a window: its report, served, cached or made.
    fn audit_hashed(
        &self,
        h: Hashed,
        served: Option<remote::Served>,
        info: Option<&LockInfo>,
        caches: &Caches,
    ) -> Result<Made, Failure> {
        let Hashed {
            path,
            scanned,
            git,
            key,
            ..
        } = h;
        let Some(stat) = git else {
            let scanned = scanned.expect("a file not named by git was read for its key");
            let served = served.map(|s| s.report);
            let (audited, side) = self.audit_scanned(path, scanned, info, Some(caches), served)?;
            let made = (side.origin != Origin::Unread).then_some(side.key);
            return Ok((audited, side, made));
        };
        let known = scanned
            .as_ref()
            .and_then(|s| s.as_ref().ok())
            .map(|s| s.hash);
        let served = served.and_then(|s| Some((ContentHash(s.hash?.0), s.report)));
        let (scanned, served) = match (scanned, served) {
            // The server's content hash, unless the stat index knows another.
            (None, Some((hash, report))) => {
                let scanned = Scanned {
                    stat,
                    hash,
                    source: None,
                    read: true,
                };
                (Ok(scanned), Some(report))
            }
            (Some(scanned), Some((hash, report))) if known == Some(hash) => (scanned, Some(report)),
            (Some(scanned), _) => (scanned, None),
            // Missed: read now, with a stat of its own to see that it did not move.
            (None, None) => (self.scan(&path, None, None), None),
        };
        let (audited, side) = self.audit_scanned(path, scanned, info, Some(caches), served)?;
        let blob_held = audited.stat == Some(stat) && (known.is_none() || audited.hash == known);
        let made = key.filter(|_| blob_held && side.origin != Origin::Unread);
        Ok((audited, side, made))
    }
}

/// Looks up the chunks of each window `asked`, answering in the order asked. What was
/// asked while the server answered is looked up together, keeping its calls in flight
/// busy: a window holds a few chunks, one round trip each.
fn look_up(
    remote: &Remote,
    asked: mpsc::Receiver<Vec<Vec<u8>>>,
    answer: mpsc::Sender<Vec<Option<Vec<u8>>>>,
) {
    while let Ok(first) = asked.recv() {
        let mut sizes = vec![first.len()];
        let mut keys = first;
        while let Ok(more) = asked.try_recv() {
            sizes.push(more.len());
            keys.extend(more);
        }
        let mut blobs = remote.fetch(&keys).into_iter();
        for n in sizes {
            if answer.send(blobs.by_ref().take(n).collect()).is_err() {
                return;
            }
        }
    }
}

/// The pass's files by window: whole chunks of the remote cache, at least
/// [`WINDOW_FILES`] files each but the last, each chunk by git if `named` names every one
/// of its files. The files are in path order, so each chunk is a run of them; were they
/// not, every file is one window, which is right but holds every file's bytes.
fn windows_of(files: &[(String, Option<Stat>)], named: &[Option<&[u8]>]) -> Vec<Window> {
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let chunks: Vec<remote::Group> = chunks_of(&paths)
        .into_iter()
        .map(|(name, files)| remote::Group {
            by_git: files.iter().all(|&i| named[i].is_some()),
            name,
            files,
        })
        .collect();
    if !paths.is_sorted_by(|a, b| a < b) {
        return vec![Window {
            files: 0..files.len(),
            chunks,
        }];
    }
    let mut windows = Vec::new();
    let mut current = Window {
        files: 0..0,
        chunks: Vec::new(),
    };
    for chunk in chunks {
        current.files.end += chunk.files.len();
        current.chunks.push(chunk);
        if current.files.len() >= WINDOW_FILES {
            let next = current.files.end..current.files.end;
            windows.push(std::mem::replace(
                &mut current,
                Window {
                    files: next,
                    chunks: Vec::new(),
                },
            ));
        }
    }
    if !current.chunks.is_empty() {
        windows.push(current);
    }
    windows
}

/// The audited files, in path order, in numbered chunks of [`CHUNK`] as the pass without
/// a remote cache makes them.
fn in_chunks(done: Vec<(Audited, Side)>) -> Vec<(usize, Chunk)> {
    let mut done = done.into_iter();
    let mut chunks = Vec::new();
    loop {
        let chunk: Chunk = done.by_ref().take(CHUNK).unzip();
        if chunk.0.is_empty() {
            return chunks;
        }
        chunks.push((chunks.len(), chunk));
    }
}
