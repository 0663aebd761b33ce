//! Runs replayed, for both tools: a run that finds every input as an earlier run of the
//! same command line found them prints what that run printed, and exits as it did,
//! without opening a cache or computing anything.
//!
//! A report is a pure function of the files and the command line, so each command line
//! ([`Key`]) keeps its output in a file of its own beside a [`Fingerprint`] of everything
//! the output was computed from: the tool says what that is (for files, their stats, so
//! that a later run can tell the same fingerprint from its walk without reading a byte).
//! When a later run's fingerprint matches, and git's racy rule clears every stat against
//! the replay file's own mtime (as for the stat index: a file changed within the tick the
//! replay was written in is not vouched for), the files hold what they held then.
//!
//! A run keeps its output only when its inputs are those of the last run of its command
//! line, kept as a stub (the fingerprint without the output): a replay pays only when
//! inputs repeat, and a loop of edit and run, whose inputs never repeat, never pays for
//! writing its output twice (at 100,000 files, 62 MB and a third of a warm run). So the
//! first run after a change computes and keeps a stub, the next computes and keeps its
//! output, and the runs after it are replayed.
//!
//! Only runs that exit 0 or 1 are kept (an error is computed again), and a tool keeps
//! none of a run that printed a warning a replay would not repeat. At most [`KEPT`]
//! command lines are kept per tool and root, the least recently written removed first. A
//! file that is not a replay, is torn, or comes from another build is ignored and written
//! over.
//!
//! A replay file: [`MAGIC`], the output, the header (the engine that wrote it, the
//! fingerprint's digest, the tool's extra, the exit, whether the output is kept), the
//! output's length (8 bytes), the header's (4), and a CRC32 of everything before it (4),
//! all little-endian. The output is never held whole: it is written as it streams to
//! standard output, checked a block at a time, and copied out of the file when replayed.

use crate::Failure;
use crate::statcache::{HashBytes, Stat};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The first bytes of a replay file.
const MAGIC: &[u8; 8] = b"lgreplay";
/// Command lines whose output a tool keeps per root.
pub const KEPT: usize = 8;
/// The end of a replay file after its header: the output's length, the header's, and
/// the CRC of everything before the CRC.
const TRAILER: usize = 8 + 4 + 4;

/// A command line a replay is kept for: the tool's text for it (every argument, the
/// directory it runs in, whatever else its output depends on besides the files).
pub struct Key {
    text: String,
    /// `replay-<16 hex digits>.v1`.
    file: String,
}

impl Key {
    pub fn new(text: String) -> Key {
        let digest = Sha256::digest(text.as_bytes());
        let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        Key {
            text,
            file: format!("replay-{hex}.v1"),
        }
    }
}

/// Where a tool keeps its replays: `dir`, inside the root's `lockgraph` (`.lockgraph/`),
/// and the build whose replays count.
pub struct Place {
    pub lockgraph: PathBuf,
    pub dir: PathBuf,
    pub engine: String,
}

/// Everything a run's output is computed from, hashed as it is told; `None` from
/// [`Fingerprint::finish`] when some input could not be told (a file whose stat is
/// unknown), so that no replay is used or kept.
pub struct Fingerprint {
    /// Buffered: postcard writes a field at a time, and SHA-256 takes whole blocks best
    /// (a stat per file, at 100,000 files).
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
    /// Starts with the command line.
    pub fn new(key: &Key) -> Fingerprint {
        let mut f = Fingerprint {
            hash: io::BufWriter::with_capacity(1 << 16, HashWriter(Sha256::new())),
            latest_ns: i128::MIN,
            complete: true,
        };
        f.put(key.text.as_str());
        f
    }

    /// Tells `value`, as postcard encodes it: a tool tells its inputs in an order of its
    /// own, each tagged, so that no two different sequences encode alike.
    pub fn put<T: Serialize + ?Sized>(&mut self, value: &T) {
        postcard::to_io(value, &mut self.hash).expect("hashing cannot fail");
    }

    /// Tells the files of `set`, as one value.
    pub fn put_files(&mut self, set: &FileSet) {
        self.put(&(set.count, set.sum));
        self.latest_ns = self.latest_ns.max(set.latest_ns);
        self.complete &= set.complete;
    }

    /// Notes a stat that was told (with [`Fingerprint::put`]): the racy rule is applied
    /// to the latest.
    pub fn saw(&mut self, stat: &Stat) {
        self.latest_ns = self.latest_ns.max(latest_ns(stat));
    }

    /// The digest, and the latest time among the stats, unless something was unknown.
    pub fn finish(self) -> Option<Told> {
        let hash = self.hash.into_inner().expect("hashing cannot fail").0;
        self.complete.then(|| Told {
            digest: HashBytes(hash.finalize().into()),
            latest_ns: self.latest_ns,
        })
    }
}

/// Files told in any order, for a [`Fingerprint`]: each item (a file, or a definition's
/// files) is encoded as [`Fingerprint::put`] would, hashed on its own (XXH3, 128 bits),
/// and the hashes are added. A replay's inputs are a walk's files, which the walk finds in
/// no set order; told this way they need no sort, and are told on every core: the sort
/// and a one-core SHA-256 stream were a tenth of a replayed copy-audit run at 100,000
/// files. The sum is a set's: two sets differ in it unless one item's hash offsets
/// another's, a chance of 2⁻¹²⁸ per changed item, and the stats are not chosen by anyone
/// who could not as well write the replay itself.
#[derive(Clone, Copy, Debug)]
pub struct FileSet {
    sum: u128,
    count: u64,
    /// The latest mtime or ctime among the stats.
    latest_ns: i128,
    /// Every file's stat was known.
    complete: bool,
}

impl Default for FileSet {
    fn default() -> FileSet {
        FileSet {
            sum: 0,
            count: 0,
            latest_ns: i128::MIN,
            complete: true,
        }
    }
}

impl FileSet {
    /// Adds the file at `path` with `stat` (`None`: not known, and nothing can be vouched
    /// for), encoded into `scratch`, a buffer reused between calls.
    pub fn add(&mut self, path: &str, stat: Option<&Stat>, scratch: &mut Vec<u8>) {
        match stat {
            Some(stat) => self.saw(stat),
            None => self.unknown(),
        }
        self.add_item(&(path, stat), scratch);
    }

    /// Adds `item`, whose stats the caller has told with [`FileSet::saw`] (or
    /// [`FileSet::unknown`]).
    pub fn add_item<T: Serialize + ?Sized>(&mut self, item: &T, scratch: &mut Vec<u8>) {
        scratch.clear();
        postcard::to_io(item, &mut *scratch).expect("encoding into memory cannot fail");
        self.sum = self.sum.wrapping_add(xxhash_rust::xxh3::xxh3_128(scratch));
        self.count += 1;
    }

    /// Notes a stat of an item: the racy rule is applied to the latest.
    pub fn saw(&mut self, stat: &Stat) {
        self.latest_ns = self.latest_ns.max(latest_ns(stat));
    }

    /// A file that is there but whose stat is not known: nothing can be vouched for.
    pub fn unknown(&mut self) {
        self.complete = false;
    }

    /// The files of both.
    pub fn merge(self, other: FileSet) -> FileSet {
        FileSet {
            sum: self.sum.wrapping_add(other.sum),
            count: self.count + other.count,
            latest_ns: self.latest_ns.max(other.latest_ns),
            complete: self.complete && other.complete,
        }
    }

    /// The set of `items`, each added by `add` on one of every core.
    pub fn of<T: Sync>(
        items: &[T],
        add: impl Fn(&mut FileSet, &T, &mut Vec<u8>) + Sync,
    ) -> FileSet {
        use rayon::prelude::*;
        items
            .par_iter()
            .fold(
                || (FileSet::default(), Vec::new()),
                |(mut set, mut scratch), item| {
                    add(&mut set, item, &mut scratch);
                    (set, scratch)
                },
            )
            .map(|(set, _)| set)
            .reduce(FileSet::default, FileSet::merge)
    }
}

/// A stat's latest time: its mtime or its ctime.
fn latest_ns(stat: &Stat) -> i128 {
    stat.mtime_ns.max(stat.ctime_ns)
}

/// A finished [`Fingerprint`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Told {
    pub digest: HashBytes,
    pub latest_ns: i128,
}

/// What a replay file says besides the output.
#[derive(Serialize, Deserialize)]
struct Header<E> {
    digest: HashBytes,
    /// What the tool keeps beside the fingerprint (soil-lock: the files its oracles
    /// named, which a later run looks up again).
    extra: E,
    /// The run's exit: 0 (`true`) or 1.
    clean: bool,
    /// The output is kept (else this is a stub, which says only what the inputs were).
    output_kept: bool,
}

/// A replay file, checked whole and its header read, not yet matched. Its output stays
/// in the file until it is printed: it is as large as the report (hundreds of megabytes
/// with many findings), which a replayed run never holds.
pub struct Replay<E> {
    file: fs::File,
    output_len: u64,
    header: Header<E>,
    written_ns: i128,
}

impl<E> Replay<E> {
    pub fn extra(&self) -> &E {
        &self.header.extra
    }

    /// Whether a run whose inputs are `now` would print what was kept: the same inputs,
    /// each stat older than the replay file, and the output kept.
    pub fn matches(&self, now: &Told) -> bool {
        self.header.output_kept
            && now.digest == self.header.digest
            && now.latest_ns < self.written_ns
    }

    /// Whether a run whose files have the stats `stats` could match: the output is kept,
    /// and no stat's mtime or ctime is as new as the replay file. Asked before the
    /// fingerprint is computed: after an edit it is not, and the run that computes the
    /// output computes the fingerprint beside it, off the walk's path.
    pub fn could_match<'s>(&self, stats: impl IntoIterator<Item = &'s Stat>) -> bool {
        self.header.output_kept && stats.into_iter().all(|s| latest_ns(s) < self.written_ns)
    }

    /// The fingerprint the kept run had: [`record`] keeps the output of a run whose
    /// inputs are these.
    pub fn digest(&self) -> HashBytes {
        self.header.digest
    }

    /// Prints the kept output on standard output, copied from the file by the kernel where
    /// it can; whether the run was clean (exit 0).
    pub fn print(&self) -> bool {
        use std::io::{Read, Seek};
        crate::logging::count("replayed", || 1);
        let mut out = io::stdout().lock();
        let mut file = &self.file;
        file.seek(io::SeekFrom::Start(MAGIC.len() as u64))
            .and_then(|_| io::copy(&mut file.take(self.output_len), &mut out))
            .and_then(|_| out.flush())
            .unwrap_or_else(|e| crate::output::failed(&e));
        self.header.clean
    }
}

/// The replay kept for `key` in `place`, if there is a whole one from its build. (A
/// replayed run opens no cache: the tool sweeps what a killed run left beside it.)
pub fn load<E: DeserializeOwned>(place: &Place, key: &Key) -> Option<Replay<E>> {
    let path = place.dir.join(&key.file);
    let (file, meta) = crate::fsutil::open_regular_stat(&path).ok()?;
    let written_ns = Stat::of(&meta).mtime_ns;
    let parsed = parse(&file, meta.len(), &place.engine);
    if parsed.is_none() {
        tracing::debug!("{}: not a replay of this build; ignored", path.display());
    }
    let (output_len, header) = parsed?;
    Some(Replay {
        file,
        output_len,
        header,
        written_ns,
    })
}

/// The output's length and the header of the replay file `file` (`len` bytes), if it is
/// whole and of `engine`: its trailer and header read first, then its CRC over every
/// byte, a block at a time.
fn parse<E: DeserializeOwned>(file: &fs::File, len: u64, engine: &str) -> Option<(u64, Header<E>)> {
    use std::os::unix::fs::FileExt;
    let body_end = len.checked_sub(TRAILER as u64)?;
    let mut magic = [0u8; MAGIC.len()];
    file.read_exact_at(&mut magic, 0).ok()?;
    if &magic != MAGIC || body_end < MAGIC.len() as u64 {
        return None;
    }
    let mut trailer = [0u8; TRAILER];
    file.read_exact_at(&mut trailer, body_end).ok()?;
    let word = |at: usize, len: usize| -> u64 {
        let mut b = [0u8; 8];
        b[..len].copy_from_slice(&trailer[at..at + len]);
        u64::from_le_bytes(b)
    };
    let (output_len, header_len, crc) = (word(0, 8), word(8, 4), word(12, 4) as u32);
    let output_end = (MAGIC.len() as u64).checked_add(output_len)?;
    if output_end.checked_add(header_len)? != body_end {
        return None;
    }
    let mut header = vec![0u8; usize::try_from(header_len).ok()?];
    file.read_exact_at(&mut header, output_end).ok()?;
    let (written_by, header): (&str, Header<E>) = postcard::from_bytes(&header).ok()?;
    if written_by != engine {
        return None;
    }
    let mut hasher = crc32fast::Hasher::new();
    let mut block = vec![0u8; (1 << 20).min(body_end as usize)];
    let mut at = 0;
    while at < body_end {
        let n = block.len().min((body_end - at) as usize);
        file.read_exact_at(&mut block[..n], at).ok()?;
        hasher.update(&block[..n]);
        at += n as u64;
    }
    hasher.update(&trailer[..12]);
    (hasher.finalize() == crc).then_some((output_len, header))
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

/// Runs `run`, which writes the command's output to the writer it is given (standard
/// output, buffered) and returns its result (clean or not) and whether it warned of
/// anything a replay would not repeat; and keeps the replay of `key` in `place` for the
/// inputs `told` (and the tool's `extra`), if the run ended with exit 0 or 1 and warned
/// of nothing: with the output if `previous`, the digest of the replay or stub kept
/// before, is `told`'s, else as a stub. A replay that cannot be written (or has no
/// `place`) is not kept, silently: the run's own output is whole either way.
pub fn record<E: Serialize>(
    place: Option<&Place>,
    key: &Key,
    told: Told,
    extra: E,
    previous: Option<HashBytes>,
    run: impl FnOnce(&mut dyn Write) -> (Result<bool, Failure>, bool),
) -> Result<bool, Failure> {
    // A stat not older than the replay file never lets it match (a file in the same
    // clock tick, or dated in the future): such a replay would only be written again.
    let Some(place) = place.filter(|_| told.latest_ns < crate::statcache::now_ns()) else {
        return unrecorded(run);
    };
    if previous != Some(told.digest) {
        let (result, warned) = crate::output::to_stdout(run);
        if let (Ok(clean), false) = (&result, warned) {
            let header = Header {
                digest: told.digest,
                extra: &extra,
                clean: *clean,
                output_kept: false,
            };
            let _ = write_stub(place, key, &header);
        }
        return result;
    }
    let mut run = Some(run);
    let mut outcome = None;
    let kept = crate::fsutil::create_cache_dir(&place.lockgraph, &place.dir).and_then(|()| {
        crate::fsutil::write_atomic_unsynced_with(
            crate::fsutil::root_of(&place.lockgraph),
            &place.dir.join(&key.file),
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
                    replay, crc, len, ..
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
                    digest: told.digest,
                    extra: &extra,
                    clean,
                    output_kept: true,
                };
                file.write_all(&trailer(place, &header, len, crc)?)
            },
        )
    });
    if kept.is_ok() {
        forget_the_oldest(&place.dir);
    }
    if let Some(result) = outcome {
        return result;
    }
    // The replay file could not even be begun: the command runs as it would without.
    unrecorded(run.expect("not begun"))
}

/// The end of a replay file whose output, `len` bytes, is written: the header, the
/// lengths and the CRC, which `crc` has taken everything before into.
fn trailer<E: Serialize>(
    place: &Place,
    header: &Header<&E>,
    len: u64,
    mut crc: crc32fast::Hasher,
) -> io::Result<Vec<u8>> {
    let mut trailer = postcard::to_stdvec(&(&place.engine, header)).map_err(io::Error::other)?;
    let header_len = trailer.len() as u32;
    trailer.extend_from_slice(&len.to_le_bytes());
    trailer.extend_from_slice(&header_len.to_le_bytes());
    crc.update(&trailer);
    trailer.extend_from_slice(&crc.finalize().to_le_bytes());
    Ok(trailer)
}

/// Writes the stub of `key` (a replay file without output).
fn write_stub<E: Serialize>(place: &Place, key: &Key, header: &Header<&E>) -> io::Result<()> {
    crate::fsutil::create_cache_dir(&place.lockgraph, &place.dir)?;
    let mut crc = crc32fast::Hasher::new();
    crc.update(MAGIC);
    let mut bytes = MAGIC.to_vec();
    bytes.extend(trailer(place, header, 0, crc)?);
    crate::fsutil::write_atomic_unsynced_with(
        crate::fsutil::root_of(&place.lockgraph),
        &place.dir.join(&key.file),
        |file| file.write_all(&bytes),
    )?;
    forget_the_oldest(&place.dir);
    Ok(())
}

/// Runs `run` with standard output alone.
fn unrecorded(
    run: impl FnOnce(&mut dyn Write) -> (Result<bool, Failure>, bool),
) -> Result<bool, Failure> {
    crate::output::to_stdout(run).0
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

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(size: u64, mtime_ns: i128, inode: u64) -> Stat {
        Stat {
            size,
            mtime_ns,
            ctime_ns: mtime_ns,
            inode,
            device: 1,
        }
    }

    fn set_of(files: &[(String, Option<Stat>)]) -> FileSet {
        let mut set = FileSet::default();
        let mut scratch = Vec::new();
        for (path, stat) in files {
            set.add(path, stat.as_ref(), &mut scratch);
        }
        set
    }

    fn of(files: &[(String, Option<Stat>)]) -> FileSet {
        FileSet::of(files, |set, (path, stat), scratch| {
            set.add(path, stat.as_ref(), scratch)
        })
    }

    fn digest(set: &FileSet) -> Option<Told> {
        let mut f = Fingerprint::new(&Key::new("test".to_owned()));
        f.put_files(set);
        f.finish()
    }

    /// The same files in any order, told one by one or on every core, give one
    /// fingerprint; a changed stat, a renamed file, two files' stats swapped, a file
    /// more or a file fewer give another; a file whose stat is unknown gives none.
    #[test]
    fn a_file_set_is_told_alike_in_any_order_and_tells_every_change() {
        let files: Vec<(String, Option<Stat>)> = (0..2_000)
            .map(|i| {
                (
                    format!("d{}/f{i}.md", i % 7),
                    Some(stat(i, 1_000 + i as i128, i)),
                )
            })
            .collect();
        let told = digest(&set_of(&files)).expect("every stat known");
        let mut reversed = files.clone();
        reversed.reverse();
        assert_eq!(digest(&set_of(&reversed)), Some(told));
        assert_eq!(digest(&of(&files)), Some(told));
        assert_eq!(told.latest_ns, 1_000 + 1_999);

        let mut changes: Vec<Vec<(String, Option<Stat>)>> = Vec::new();
        let mut touched = files.clone();
        touched[10].1.as_mut().unwrap().mtime_ns += 1;
        changes.push(touched);
        let mut renamed = files.clone();
        renamed[10].0.push('x');
        changes.push(renamed);
        let mut swapped = files.clone();
        let (a, b) = (swapped[3].1, swapped[4].1);
        (swapped[3].1, swapped[4].1) = (b, a);
        changes.push(swapped);
        let mut more = files.clone();
        more.push(("new.md".to_owned(), Some(stat(1, 1, 9_999))));
        changes.push(more);
        changes.push(files[1..].to_vec());
        let mut twice = files.clone();
        twice.push(files[0].clone());
        changes.push(twice);
        for changed in &changes {
            let now = digest(&of(changed)).expect("every stat known");
            assert_ne!(now.digest, told.digest);
        }

        let mut unknown = files.clone();
        unknown[5].1 = None;
        assert_eq!(digest(&of(&unknown)), None);
    }
}
