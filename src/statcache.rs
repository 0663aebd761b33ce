//! What the caches of both tools in `<root>/.lockgraph/` share: a file's stat as the proof
//! that it is unchanged (with git's racy-timestamp rule), and the envelope of a cache file
//! (a magic number, the engine that wrote it, postcard) with the handling of a file that
//! cannot be read.

use crate::fsutil::write_atomic_unsynced_with;
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// The stat fields that change when a file's content is replaced or edited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stat {
    pub size: u64,
    pub mtime_ns: i128,
    /// The inode change time, which no user can set back (`touch -d`, `rsync -t` and tar
    /// set the mtime only): an edit that restores size and mtime still moves it.
    pub ctime_ns: i128,
    pub inode: u64,
    pub device: u64,
}

/// The time now, in a stat's terms: nanoseconds since the epoch.
pub fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

impl Stat {
    pub fn of(meta: &fs::Metadata) -> Stat {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        #[cfg(unix)]
        let (ctime_ns, inode, device) = {
            use std::os::unix::fs::MetadataExt;
            let ctime = i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec());
            (ctime, meta.ino(), meta.dev())
        };
        #[cfg(not(unix))]
        let (ctime_ns, inode, device) = (0, 0, 0);
        Stat {
            size: meta.len(),
            mtime_ns,
            ctime_ns,
            inode,
            device,
        }
    }

    /// Whether a file that now has this stat provably still holds what was recorded with
    /// `recorded` in a cache file written at `written_ns` (that file's mtime).
    ///
    /// What git compares must match — size, mtime, ctime, inode and device — and, git's
    /// racy-timestamp rule, the recorded mtime and ctime must be older than the cache
    /// file: a file changed in the same clock tick as the cache was written may have
    /// changed again after it was read without either time moving, so such an entry is
    /// not trusted (and the file is read again).
    pub fn unchanged_since(&self, recorded: &Stat, written_ns: i128) -> bool {
        self == recorded && recorded.mtime_ns < written_ns && recorded.ctime_ns < written_ns
    }
}

/// A 32-byte hash in a cache file, encoded as a byte string: serde reads a `[u8; 32]`
/// element by element, and the hashes in a 100,000-file index cost more to decode that way
/// than everything else in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HashBytes(pub [u8; 32]);

impl Serialize for HashBytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for HashBytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = HashBytes;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("32 bytes")
            }

            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<HashBytes, E> {
                v.try_into()
                    .map(HashBytes)
                    .map_err(|_| E::invalid_length(v.len(), &self))
            }
        }
        d.deserialize_bytes(Bytes)
    }
}

/// Which of `shards` cache files holds `path`: FNV-1a, stable across runs, platforms and
/// versions (unlike `std`'s hasher); a change needs a new engine key.
pub fn path_shard(path: &str, shards: usize) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in path.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h % shards as u64) as usize
}

/// The first bytes of every cache file. The file ends with a CRC-32 of everything before
/// it (little-endian): a flipped bit or byte anywhere is a damaged file, moved aside,
/// never a result served.
pub const MAGIC: &[u8; 4] = b"LGC2";

/// The first bytes of the caches of lockgraph versions before the checksum: another
/// engine's, rebuilt without a word.
const OLDER_MAGIC: &[u8; 4] = b"LGC1";

/// A writer that keeps the CRC-32 of what goes through it. postcard writes a value a field
/// at a time, most of them a few bytes, so what comes in is gathered into blocks: the
/// checksum and the writer below take a block at a time (taken per field, a cold
/// soil-lock run at 50k definitions was 1.07× slower).
struct Checksummed<'a, W: Write> {
    out: &'a mut W,
    crc: crc32fast::Hasher,
    block: Vec<u8>,
    /// The first write error, kept: postcard replaces it with one of its own.
    failed: Option<io::Error>,
}

impl<'a, W: Write> Checksummed<'a, W> {
    const BLOCK: usize = 64 << 10;

    fn new(out: &'a mut W) -> Self {
        Checksummed {
            out,
            crc: crc32fast::Hasher::new(),
            block: Vec::with_capacity(Self::BLOCK),
            failed: None,
        }
    }

    /// Checksums and writes what is gathered.
    fn write_block(&mut self) -> io::Result<()> {
        self.crc.update(&self.block);
        let written = self.out.write_all(&self.block);
        self.block.clear();
        written.inspect_err(|e| {
            self.failed
                .get_or_insert_with(|| io::Error::new(e.kind(), e.to_string()));
        })
    }

    /// Writes out what is gathered; the CRC of everything written.
    fn finish(mut self) -> io::Result<u32> {
        self.write_block()?;
        Ok(self.crc.finalize())
    }
}

impl<W: Write> Write for Checksummed<'_, W> {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf).map(|()| buf.len())
    }

    /// postcard writes a field, often a byte, at a time: inlined into it, a short write is
    /// a store or two rather than a call to `memcpy` through the default loop.
    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.block.extend_from_slice(buf);
        if self.block.len() >= Self::BLOCK {
            self.write_block()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What [`load`] found.
pub enum Loaded<T> {
    /// No such file.
    Missing,
    /// The file's content, and the file's mtime for [`Stat::unchanged_since`].
    Fresh(T, i128),
    /// Written by another engine (version or build), whose key this is: not damaged, just
    /// not ours. Left in place; the caller decides whether to say so.
    OtherEngine(String),
    /// Not a cache file, truncated, or undecodable: it was moved aside (or ignored, if it
    /// could not be moved) with one warning line.
    Broken,
}

/// The bytes of the regular file at `path` and its stat: `stat` if the caller took one (the
/// walk's), else the one the open file was checked by, so a file read for a cache is
/// statted once either way ([`crate::fsutil::read_sized`]).
pub fn read_with_stat(path: &Path, stat: Option<Stat>) -> io::Result<(Vec<u8>, Stat)> {
    let (file, meta) = crate::fsutil::open_regular_stat(path)?;
    let stat = stat.unwrap_or_else(|| Stat::of(&meta));
    Ok((crate::fsutil::read_sized(file, stat.size)?, stat))
}

/// Reads `dir/name`: [`MAGIC`], then postcard of the engine key (a string) followed by a
/// `T`. `shown` is how the warning names the file (`.lockgraph/soil/0a.v1`).
pub fn load<T: for<'de> Deserialize<'de>>(
    dir: &Path,
    name: &str,
    engine: &str,
    shown: &str,
) -> Loaded<T> {
    match load_body(dir, name, engine, shown) {
        Loaded::Fresh(body, written) => match decode::<T>(body.bytes()) {
            Ok(value) => Loaded::Fresh(value, written),
            Err(e) => {
                set_aside(dir, name, shown, &format!("unreadable ({e})"));
                Loaded::Broken
            }
        },
        Loaded::Missing => Loaded::Missing,
        Loaded::OtherEngine(key) => Loaded::OtherEngine(key),
        Loaded::Broken => Loaded::Broken,
    }
}

/// A cache file's body — the bytes after the envelope — for a reader that decodes it as it
/// goes (and calls [`set_aside`] if it turns out damaged).
pub struct Body {
    bytes: Vec<u8>,
    start: usize,
    end: usize,
}

impl Body {
    pub fn bytes(&self) -> &[u8] {
        &self.bytes[self.start..self.end]
    }
}

/// A postcard sequence of `(path, value)` pairs sorted by path, read one pair at a time
/// with the paths borrowed from the bytes: how the large per-file caches are joined with a
/// run's own sorted file list, never decoded into a table.
pub struct SortedEntries<'a, V> {
    rest: &'a [u8],
    left: usize,
    value: std::marker::PhantomData<V>,
}

impl<'a, V: Deserialize<'a>> SortedEntries<'a, V> {
    pub fn new(body: &'a [u8]) -> postcard::Result<Self> {
        let (left, rest) = postcard::take_from_bytes::<usize>(body)?;
        Ok(SortedEntries {
            rest,
            left,
            value: std::marker::PhantomData,
        })
    }

    pub fn next_entry(&mut self) -> postcard::Result<Option<(&'a str, V)>> {
        if self.left == 0 {
            return Ok(None);
        }
        let (entry, rest) = postcard::take_from_bytes::<(&'a str, V)>(self.rest)?;
        self.rest = rest;
        self.left -= 1;
        Ok(Some(entry))
    }

    /// For each of `paths` (sorted), what `keep` makes of the value recorded for it (given
    /// the path's index), if any: one pass over both lists.
    pub fn join<'p, T>(
        mut self,
        paths: impl IntoIterator<Item = &'p str>,
        mut keep: impl FnMut(usize, V) -> Option<T>,
    ) -> postcard::Result<Vec<Option<T>>> {
        let paths = paths.into_iter();
        let mut out = Vec::with_capacity(paths.size_hint().0);
        let mut next = self.next_entry()?;
        for (i, path) in paths.enumerate() {
            while let Some((p, _)) = &next
                && *p < path
            {
                next = self.next_entry()?;
            }
            out.push(match next.take() {
                Some((p, v)) if p == path => {
                    next = self.next_entry()?;
                    keep(i, v)
                }
                other => {
                    next = other;
                    None
                }
            });
        }
        Ok(out)
    }
}

/// [`load`] without decoding the body: the envelope is checked, the rest kept as bytes.
pub fn load_body(dir: &Path, name: &str, engine: &str, shown: &str) -> Loaded<Body> {
    let path = dir.join(name);
    let Ok(bytes) = crate::fsutil::read_regular(&path) else {
        return Loaded::Missing;
    };
    let written = fs::metadata(&path)
        .map(|m| Stat::of(&m).mtime_ns)
        .unwrap_or(0);
    if bytes.starts_with(OLDER_MAGIC) {
        return Loaded::OtherEngine("an earlier lockgraph".to_owned());
    }
    let checked = bytes
        .len()
        .checked_sub(4)
        .filter(|&end| end >= MAGIC.len())
        .filter(|&end| {
            let recorded = u32::from_le_bytes(bytes[end..].try_into().expect("four bytes"));
            crc32fast::hash(&bytes[..end]) == recorded
        });
    let problem = match (bytes.strip_prefix(MAGIC.as_slice()), checked) {
        (None, _) => "not a lockgraph cache".to_string(),
        (Some(_), None) => "damaged (its checksum does not match)".to_string(),
        (Some(_), Some(end)) => match postcard::take_from_bytes::<&str>(&bytes[MAGIC.len()..end]) {
            Ok((key, _)) if key != engine => return Loaded::OtherEngine(key.to_string()),
            Ok((_, rest)) => {
                let start = end - rest.len();
                return Loaded::Fresh(Body { bytes, start, end }, written);
            }
            Err(e) => format!("unreadable ({e})"),
        },
    };
    set_aside(dir, name, shown, &problem);
    Loaded::Broken
}

/// Moves the damaged cache file `dir/name` aside to `name.bad` (or leaves it, if it
/// cannot be moved) with one warning line saying why; the next save rebuilds it.
pub fn set_aside(dir: &Path, name: &str, shown: &str, problem: &str) {
    let aside = dir.join(format!("{name}.bad"));
    let what = if fs::rename(dir.join(name), &aside).is_ok() {
        format!("moved aside to {shown}.bad")
    } else {
        "ignored".to_string()
    };
    eprintln!("warning: {shown}: {problem}; {what} and rebuilt");
}

/// Decodes a cache body.
fn decode<'a, T: Deserialize<'a>>(body: &'a [u8]) -> postcard::Result<T> {
    postcard::from_bytes(body)
}

/// Replaces `dir/name` atomically with the envelope of `value` (see [`load`]); `dir` is
/// `lockgraph` (a root's `.lockgraph/`) or below it, and the file stays inside that root.
pub fn store<T: Serialize + ?Sized>(
    lockgraph: &Path,
    dir: &Path,
    name: &str,
    engine: &str,
    value: &T,
) -> io::Result<()> {
    // Encoded straight into the file's buffer: a 100,000-file index is 7 MB, and the
    // copies of it a run made before writing were a third of what a one-file edit saved.
    write_atomic_unsynced_with(crate::fsutil::root_of(lockgraph), &dir.join(name), |out| {
        encode_into(out, engine, value)
    })
}

/// The file's bytes — magic, postcard body, CRC — written to `out`.
fn encode_into<T: Serialize + ?Sized, W: Write>(
    out: &mut W,
    engine: &str,
    value: &T,
) -> io::Result<()> {
    let mut summed = Checksummed::new(out);
    summed.write_all(MAGIC)?;
    if let Err(e) = postcard::to_io(&(engine, value), &mut summed) {
        // postcard reports any write error as "the serialize buffer is full": the
        // writer's own error (a full disk, say) is the one to give.
        return Err(summed.failed.take().unwrap_or_else(|| io::Error::other(e)));
    }
    let crc = summed.finish()?;
    out.write_all(&crc.to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_whole_whatever_its_stat_said() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        for len in [0, 1, 15, 4096, 70_000] {
            let content: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            fs::write(&path, &content).unwrap();
            let (bytes, stat) = read_with_stat(&path, None).unwrap();
            assert_eq!(bytes, content, "{len} bytes, stat of the open file");
            assert_eq!(stat.size, len as u64);
            assert_eq!(stat, Stat::of(&fs::metadata(&path).unwrap()));
            // The walk's stat from before the file grew or shrank.
            for said in [0, len / 2, len + 1, 2 * len + 100] {
                let walked = Stat {
                    size: said as u64,
                    ..stat
                };
                let (bytes, kept) = read_with_stat(&path, Some(walked)).unwrap();
                assert_eq!(bytes, content, "{len} bytes, the stat said {said}");
                assert_eq!(kept, walked);
            }
        }
    }

    /// Issue 28, item 9: a full disk while a cache is written is named as a full disk,
    /// not as postcard's "serialize buffer is full".
    #[test]
    fn a_full_disk_is_named_as_such() {
        struct Full(usize);
        impl Write for Full {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                if self.0 == 0 {
                    return Err(io::Error::from_raw_os_error(28)); // ENOSPC
                }
                let n = buf.len().min(self.0);
                self.0 -= n;
                Ok(n)
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let value = vec!["x".repeat(100); 100];
        let e = encode_into(&mut Full(500), "engine", &value).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::StorageFull, "{e}");
        assert!(!e.to_string().contains("serialize buffer"), "{e}");
        let mut all = Vec::new();
        encode_into(&mut all, "engine", &value).unwrap();
        assert!(all.starts_with(MAGIC));
    }

    #[test]
    fn a_stat_is_trusted_only_when_older_than_the_cache() {
        let s = Stat {
            size: 3,
            mtime_ns: 100,
            ctime_ns: 90,
            inode: 7,
            device: 1,
        };
        assert!(s.unchanged_since(&s, 101));
        assert!(!s.unchanged_since(&s, 100), "same tick: racy");
        let late_change = Stat { ctime_ns: 101, ..s };
        assert!(
            !late_change.unchanged_since(&late_change, 101),
            "changed in the tick"
        );
        assert!(!s.unchanged_since(&Stat { size: 4, ..s }, 101));
        assert!(!s.unchanged_since(&Stat { inode: 8, ..s }, 101));
        assert!(!s.unchanged_since(&Stat { device: 2, ..s }, 101));
        // Size and mtime restored by hand (`touch -d`): the ctime still moved.
        assert!(!s.unchanged_since(&Stat { ctime_ns: 95, ..s }, 101));
    }

    #[test]
    fn envelopes_round_trip_and_tell_engines_and_damage_apart() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        assert!(matches!(
            load::<Vec<u32>>(d, "x", "e1", "x"),
            Loaded::Missing
        ));
        store(d, d, "x", "e1", &vec![1u32, 2, 3]).unwrap();
        match load::<Vec<u32>>(d, "x", "e1", "x") {
            Loaded::Fresh(v, written) => {
                assert_eq!(v, [1, 2, 3]);
                assert!(written > 0);
            }
            _ => panic!("not read back"),
        }
        assert!(matches!(
            load::<Vec<u32>>(d, "x", "e2", "x"),
            Loaded::OtherEngine(key) if key == "e1"
        ));
        assert!(d.join("x").exists(), "another engine's file is left alone");
        let good = fs::read(d.join("x")).unwrap();
        fs::write(d.join("x"), &good[..good.len() - 1]).unwrap();
        assert!(matches!(
            load::<Vec<u32>>(d, "x", "e1", "x"),
            Loaded::Broken
        ));
        assert!(!d.join("x").exists());
        assert_eq!(fs::read(d.join("x.bad")).unwrap(), good[..good.len() - 1]);
    }
}
