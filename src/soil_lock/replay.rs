//! `status` and `check` replayed: a run that finds every input as an earlier run of the
//! same command found them prints what that run printed, and exits as it did, without
//! decoding the cache or computing anything.
//!
//! The output is a pure function of the root's files, the command line and the directory
//! it runs in, so it is kept, per command line, in `.lockgraph/soil/replay-<key>.v1`
//! beside a [`Fingerprint`] of everything it was computed from: the root's path,
//! `soil.toml` and each `_private.soil` by content; every definition's `.tr`, `.lock` and
//! `.soil` by stat (absent ones as absent); the paths the walk could not name; and each
//! file an oracle names, by where it was found and its stat. A later run computes the same
//! fingerprint from its walk's stats; when it matches, and git's racy rule clears every stat
//! against the replay file's own mtime (as for the cache: [`Stat::unchanged_since`]), the
//! files hold what they held then.
//!
//! Only runs that printed no warning past the walk are kept (a replay would not repeat
//! it), and only with exit 0 or 1: an error is computed again. At most [`KEPT`] command
//! lines are kept per root, the oldest replaced first. A file that is not a replay, is
//! torn or comes from another build is ignored and written over.

use super::Failure;
use super::cli::Command;
use crate::statcache::{HashBytes, Stat};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The first bytes of a replay file.
const MAGIC: &[u8; 8] = b"lgreplay";
/// Command lines whose output a root keeps.
pub const KEPT: usize = 8;
/// The end of a replay file after its header: the output's length, the header's, and
/// the CRC of everything before the CRC.
const TRAILER: usize = 8 + 4 + 4;

/// The command line a replay is kept for: the command with every argument, and the
/// directory it runs in (`check`'s GitHub and GitLab reports give paths relative to it).
pub struct Key {
    text: String,
    /// `replay-<16 hex digits>.v1`.
    file: String,
}

impl Key {
    /// The key of `command`, if its output can be replayed (`status` and `check`: the
    /// commands scripts and CI run again and again; the others write files or answer one
    /// question).
    pub fn of(command: &Command) -> Option<Key> {
        if !matches!(command, Command::Status { .. } | Command::Check { .. }) {
            return None;
        }
        let cwd = std::env::current_dir().ok()?;
        let text = format!("{command:?}\n{}", cwd.display());
        let digest = Sha256::digest(text.as_bytes());
        let file = format!("replay-{}.v1", hex(&digest[..8]));
        Some(Key { text, file })
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A file an oracle names (a reference file, a CLI executable) as a run found it: where
/// its key led and that file's stat, each `None` when there was none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalSeen {
    pub key: String,
    pub file: Option<String>,
    pub stat: Option<Stat>,
}

/// Everything a run's output is computed from, hashed as it is told; `None` from
/// [`Fingerprint::finish`] when some input could not be told (a file whose stat is
/// unknown), so that no replay is used or kept.
pub struct Fingerprint {
    /// Buffered: postcard writes a field at a time, and SHA-256 takes whole blocks best
    /// (150,000 stats at 50,000 definitions).
    hash: io::BufWriter<HashWriter>,
    /// The latest mtime or ctime of the files told by stat.
    latest_ns: i128,
    complete: bool,
}

#[derive(Debug)]
struct HashWriter(Sha256);

impl Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Fingerprint {
    /// Starts with the command line, the root and its `soil.toml`.
    pub fn new(key: &Key, root: &Path, soil_toml: &str) -> Fingerprint {
        let mut f = Fingerprint {
            hash: io::BufWriter::with_capacity(1 << 16, HashWriter(Sha256::new())),
            latest_ns: i128::MIN,
            complete: true,
        };
        f.put(&(key.text.as_str(), root.to_string_lossy(), soil_toml));
        f
    }

    fn put<T: Serialize + ?Sized>(&mut self, value: &T) {
        postcard::to_io(value, &mut self.hash).expect("hashing cannot fail");
    }

    fn saw(&mut self, stat: &Stat) {
        self.latest_ns = self.latest_ns.max(stat.mtime_ns).max(stat.ctime_ns);
    }

    /// A definition's `.tr`, `.lock` and `.soil`, each by stat or absent; in the walk's
    /// order (by stem).
    pub fn definition(&mut self, stem: &str, files: [Option<Stat>; 3]) {
        for stat in files.iter().flatten() {
            self.saw(stat);
        }
        self.put(&(0u8, stem, files));
    }

    /// A file that is there but whose stat is not known: nothing can be vouched for.
    pub fn unknown(&mut self) {
        self.complete = false;
    }

    /// A module's `_private.soil` (read on every run), in the walk's order.
    fn private(&mut self, module: &str, bytes: Option<&[u8]>) {
        self.put(&(1u8, module, bytes.map(Sha256::digest).as_deref()));
    }

    /// The files the walk found but could not name.
    fn unnamed(&mut self, unnamed: &[String]) {
        self.put(&(2u8, unnamed));
    }

    /// The files the oracles name, by key.
    fn externals(&mut self, externals: &[ExternalSeen]) {
        for e in externals {
            if let Some(stat) = &e.stat {
                self.saw(stat);
            }
        }
        self.put(&(3u8, externals));
    }

    /// The inputs told after the definitions, in the walk's order: each module's
    /// `_private.soil`, the paths the walk could not name, the files the oracles name;
    /// then [`Fingerprint::finish`].
    pub fn finish_with(
        mut self,
        private: &[(String, Option<Vec<u8>>)],
        unnamed: &[String],
        externals: &[ExternalSeen],
    ) -> Option<Told> {
        for (module, bytes) in private {
            self.private(module, bytes.as_deref());
        }
        self.unnamed(unnamed);
        self.externals(externals);
        self.finish()
    }

    /// The digest, and the latest time among the stats, unless something was unknown.
    fn finish(self) -> Option<Told> {
        let hash = self.hash.into_inner().expect("hashing cannot fail").0;
        self.complete.then(|| Told {
            digest: HashBytes(hash.finalize().into()),
            latest_ns: self.latest_ns,
        })
    }
}

/// A finished [`Fingerprint`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Told {
    pub digest: HashBytes,
    pub latest_ns: i128,
}

/// What a replay file says besides the output.
#[derive(Serialize, Deserialize)]
struct Header {
    digest: HashBytes,
    /// The oracles' files as that run found them: a later run looks them up again.
    externals: Vec<ExternalSeen>,
    /// The run's exit: 0 (`true`) or 1.
    clean: bool,
}

/// A replay file as read, checked whole, not yet matched.
pub struct Replay {
    bytes: Vec<u8>,
    output: std::ops::Range<usize>,
    header: Header,
    written_ns: i128,
}

impl Replay {
    /// The files the oracles named in the run that is kept.
    pub fn externals(&self) -> &[ExternalSeen] {
        &self.header.externals
    }

    /// Whether a run whose inputs are `now` would print what was kept: the same inputs,
    /// each stat older than the replay file.
    pub fn matches(&self, now: &Told) -> bool {
        now.digest == self.header.digest && now.latest_ns < self.written_ns
    }

    /// The kept output, and whether the run was clean (exit 0).
    pub fn output(&self) -> (&[u8], bool) {
        (&self.bytes[self.output.clone()], self.header.clean)
    }
}

/// The replay kept for `key` in `root`'s `.lockgraph/soil`, if there is a whole one from
/// this build; what a killed run left there is swept first (a replayed run does not open
/// the cache, which sweeps too).
pub fn load(root: &Path, key: &Key) -> Option<Replay> {
    let (_, dir) = super::cache::dirs(root).ok()?;
    crate::fsutil::sweep_leftovers(&dir);
    let engine = super::cache::engine_key();
    let path = dir.join(&key.file);
    let (file, meta) = crate::fsutil::open_regular_stat(&path).ok()?;
    let written_ns = Stat::of(&meta).mtime_ns;
    let bytes = crate::fsutil::read_sized(file, meta.len()).ok()?;
    let parsed = parse(&bytes, &engine);
    if parsed.is_none() {
        tracing::debug!("{}: not a replay of this build; ignored", path.display());
    }
    let (output, header) = parsed?;
    Some(Replay {
        bytes,
        output,
        header,
        written_ns,
    })
}

/// The output's range and the header of a replay file's `bytes`, if whole and of `engine`.
fn parse(bytes: &[u8], engine: &str) -> Option<(std::ops::Range<usize>, Header)> {
    let body_end = bytes.len().checked_sub(TRAILER)?;
    if !bytes.starts_with(MAGIC) || body_end < MAGIC.len() {
        return None;
    }
    let word = |at: usize, len: usize| -> u64 {
        let mut b = [0u8; 8];
        b[..len].copy_from_slice(&bytes[at..at + len]);
        u64::from_le_bytes(b)
    };
    let output_len = usize::try_from(word(body_end, 8)).ok()?;
    let header_len = word(body_end + 8, 4) as usize;
    let crc = word(body_end + 12, 4) as u32;
    if crc32fast::hash(&bytes[..body_end + 12]) != crc {
        return None;
    }
    let output_end = MAGIC.len().checked_add(output_len)?;
    if output_end.checked_add(header_len)? != body_end {
        return None;
    }
    let (written_by, header): (&str, Header) =
        postcard::from_bytes(&bytes[output_end..body_end]).ok()?;
    (written_by == engine).then_some((MAGIC.len()..output_end, header))
}

/// Standard output, and the replay file being written beside it (until a write to it
/// fails: then the replay is dropped, and the run goes on).
struct Recorder<'a, W: Write> {
    out: W,
    replay: Option<&'a mut dyn Write>,
    crc: crc32fast::Hasher,
    len: u64,
}

impl<W: Write> Recorder<'_, W> {
    fn keep(&mut self, buf: &[u8]) {
        if let Some(replay) = &mut self.replay {
            if replay.write_all(buf).is_ok() {
                self.crc.update(buf);
                self.len += buf.len() as u64;
            } else {
                self.replay = None;
            }
        }
    }
}

impl<W: Write> Write for Recorder<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        self.keep(&buf[..n]);
        Ok(n)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.write_all(buf)?;
        self.keep(buf);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// What a run derived its output from, for its replay: the fingerprint and the files the
/// oracles named (which a later run looks up again before it can compute the fingerprint).
pub struct Inputs {
    pub told: Told,
    pub externals: Vec<ExternalSeen>,
}

/// Runs `run`, which writes the command's output to the writer it is given (standard
/// output, buffered) and says whether anything past the walk was warned about; and keeps
/// that output as the replay of `key` for `inputs` in `root`'s `.lockgraph/soil`, if the
/// run ended with exit 0 or 1 and warned of nothing. A replay that cannot be written is
/// not kept, silently: the run's own output is whole either way.
pub fn record(
    root: &Path,
    key: &Key,
    inputs: Inputs,
    run: impl FnOnce(&mut dyn Write) -> (Result<bool, Failure>, bool),
) -> Result<bool, Failure> {
    // A stat not older than the replay file never lets it match (a file in the same
    // clock tick, or dated in the future): such a replay would only be written again.
    let Ok((lockgraph, dir)) = super::cache::dirs(root) else {
        return unrecorded(run);
    };
    if inputs.told.latest_ns >= super::cache::now_ns() {
        return unrecorded(run);
    }
    let (lockgraph, dir) = (lockgraph.as_path(), dir.as_path());
    let engine = super::cache::engine_key();
    let mut run = Some(run);
    let mut outcome = None;
    let kept = crate::fsutil::create_cache_dir(lockgraph, dir).and_then(|()| {
        crate::fsutil::write_atomic_unsynced_with(
            crate::fsutil::root_of(lockgraph),
            &dir.join(&key.file),
            |file| {
                file.write_all(MAGIC)?;
                let mut out = Recorder {
                    out: io::BufWriter::with_capacity(1 << 16, io::stdout().lock()),
                    replay: Some(file),
                    crc: crc32fast::Hasher::new(),
                    len: 0,
                };
                out.crc.update(MAGIC);
                let (result, warned) = (run.take().expect("run once"))(&mut out);
                out.flush().unwrap_or_else(|e| crate::output::failed(&e));
                let Recorder {
                    replay,
                    mut crc,
                    len,
                    ..
                } = out;
                let kept = match (&result, warned, replay) {
                    (Ok(clean), false, Some(file)) => Some((*clean, file)),
                    _ => None,
                };
                outcome = Some(result);
                let Some((clean, file)) = kept else {
                    return Err(io::Error::other("not kept"));
                };
                let header = Header {
                    digest: inputs.told.digest,
                    externals: inputs.externals,
                    clean,
                };
                let mut trailer =
                    postcard::to_stdvec(&(engine.as_str(), &header)).map_err(io::Error::other)?;
                let header_len = trailer.len() as u32;
                trailer.extend_from_slice(&len.to_le_bytes());
                trailer.extend_from_slice(&header_len.to_le_bytes());
                crc.update(&trailer);
                trailer.extend_from_slice(&crc.finalize().to_le_bytes());
                file.write_all(&trailer)
            },
        )
    });
    if kept.is_ok() {
        forget_the_oldest(dir);
    }
    if let Some(result) = outcome {
        return result;
    }
    // The replay file could not even be begun: the command runs as it would without.
    unrecorded(run.expect("not begun"))
}

/// Runs `run` with standard output alone.
fn unrecorded(
    run: impl FnOnce(&mut dyn Write) -> (Result<bool, Failure>, bool),
) -> Result<bool, Failure> {
    super::to_stdout(run).0
}

/// Removes the least recently written replays beyond [`KEPT`].
fn forget_the_oldest(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut replays: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("replay-") && name.ends_with(".v1")
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    if replays.len() <= KEPT {
        return;
    }
    replays.sort();
    for (_, path) in &replays[..replays.len() - KEPT] {
        let _ = fs::remove_file(path);
    }
}
