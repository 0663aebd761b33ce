//! What git's index says of a checkout's files: each file's blob id, for the stat git
//! recorded when it last wrote the file or hashed it. A file whose stat still matches its
//! entry holds that blob (git's own rule, `git status` trusts it the same way), so its
//! identity is known without reading it: a fresh CI checkout, whose index `git clone`
//! has just written, can be looked up in the remote cache without reading a file.
//!
//! The root may be the checkout's top directory or any directory below it: the index is
//! the top's, and its entries under the root are looked up by their path from the root.
//!
//! Read: index versions 2, 3 and 4 (path compression), SHA-1 and SHA-256 repositories.
//! Not read (the run then reads and hashes every file, as without an index): a split
//! index (`link` extension), whose entries live in another file; a worktree whose `.git`
//! is a file; an index that does not parse.

use crate::statcache::Stat;
use std::path::{Path, PathBuf};

/// A blob id: 20 bytes (SHA-1) or 32 (SHA-256), by the repository's object format.
pub type Oid = Vec<u8>;

/// The stat fields git records, as it records them (seconds and nanoseconds, 32 bits each;
/// the size and inode truncated to 32 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Recorded {
    ctime: (u32, u32),
    mtime: (u32, u32),
    ino: u32,
    size: u32,
}

impl Recorded {
    fn of(stat: &Stat) -> Recorded {
        let split = |ns: i128| {
            (
                ns.div_euclid(1_000_000_000) as u32,
                ns.rem_euclid(1_000_000_000) as u32,
            )
        };
        Recorded {
            ctime: split(stat.ctime_ns),
            mtime: split(stat.mtime_ns),
            ino: stat.inode as u32,
            size: stat.size as u32,
        }
    }

    fn ns(time: (u32, u32)) -> i128 {
        i128::from(time.0) * 1_000_000_000 + i128::from(time.1)
    }
}

/// A checkout's index: its stage-0 entries of regular files under the root, by their path
/// from the root, sorted as git sorts them.
pub struct GitIndex {
    entries: Vec<(String, Recorded, Oid)>,
    /// The index file's mtime: an entry recorded in the same tick is not trusted.
    written_ns: i128,
}

/// The index file of the checkout that holds `root`, if it has one.
pub fn path(root: &Path) -> Option<PathBuf> {
    index_of(&top(root)?.0)
}

/// The index file of the checkout whose top directory is `top`, if it has one.
fn index_of(top: &Path) -> Option<PathBuf> {
    let index = top.join(".git").join("index");
    index.is_file().then_some(index)
}

/// The top directory of the checkout `root` is in (`root` or the nearest directory above
/// it with a `.git` directory), and `root`'s path below it: `""`, or `"a/b/"`. None
/// outside a checkout, in a worktree (whose `.git` is a file), or for a path below the
/// top that is not UTF-8.
fn top(root: &Path) -> Option<(PathBuf, String)> {
    let root = std::fs::canonicalize(root).ok()?;
    for dir in root.ancestors() {
        let git = dir.join(".git");
        if git.is_dir() {
            let mut prefix = String::new();
            for part in root.strip_prefix(dir).ok()?.components() {
                prefix.push_str(part.as_os_str().to_str()?);
                prefix.push('/');
            }
            return Some((dir.to_path_buf(), prefix));
        }
        if git.exists() {
            return None;
        }
    }
    None
}

impl GitIndex {
    /// The index of the checkout whose top directory is `root`, if it has one that can be
    /// read (see the module's documentation); why not is logged with `LOCKGRAPH_LOG`.
    pub fn open(root: &Path) -> Option<GitIndex> {
        let (top, prefix) = top(root)?;
        let path = index_of(&top)?;
        let git = top.join(".git");
        let bytes = std::fs::read(&path).ok()?;
        let written_ns = Stat::of(&std::fs::metadata(&path).ok()?).mtime_ns;
        let oid_len = match object_format(&git) {
            Some(format) if format.eq_ignore_ascii_case("sha256") => 32,
            Some(format) if !format.eq_ignore_ascii_case("sha1") => return None,
            _ => 20,
        };
        match parse(&bytes, oid_len) {
            Ok(mut entries) => {
                // Those under the root, a run of the sorted entries, which stays sorted
                // without the prefix they share.
                if !prefix.is_empty() {
                    entries.retain(|(p, _, _)| p.starts_with(&prefix));
                    for (p, _, _) in &mut entries {
                        p.drain(..prefix.len());
                    }
                }
                Some(GitIndex {
                    entries,
                    written_ns,
                })
            }
            Err(why) => {
                tracing::info!("{}: not used: {why}", path.display());
                None
            }
        }
    }

    /// The blob id of the file at `path` (relative to the root, with `/`), if its entry's
    /// stat is `stat` and was recorded before the index was written.
    pub fn identity(&self, path: &str, stat: &Stat) -> Option<&[u8]> {
        let at = self
            .entries
            .binary_search_by(|(p, _, _)| p.as_str().cmp(path))
            .ok()?;
        let (_, recorded, oid) = &self.entries[at];
        let racy = Recorded::ns(recorded.mtime) >= self.written_ns
            || Recorded::ns(recorded.ctime) >= self.written_ns;
        (*recorded == Recorded::of(stat) && !racy).then_some(oid.as_slice())
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.len()
    }
}

/// `extensions.objectFormat` of the repository at `git`, if set.
fn object_format(git: &Path) -> Option<String> {
    let config = std::fs::read_to_string(git.join("config")).ok()?;
    let mut in_extensions = false;
    for line in config.lines().map(str::trim) {
        if line.starts_with('[') {
            in_extensions = line.eq_ignore_ascii_case("[extensions]");
        } else if let Some((key, value)) = line.split_once('=').filter(|_| in_extensions)
            && key.trim().eq_ignore_ascii_case("objectformat")
        {
            return Some(value.trim().to_owned());
        }
    }
    None
}

/// The stage-0 entries of regular files in an index file, or why it is not read.
fn parse(bytes: &[u8], oid_len: usize) -> Result<Vec<(String, Recorded, Oid)>, String> {
    // The trailing checksum is not checked (`index.skipHash` writes none): an index
    // is read only if every entry and extension parses.
    let body = bytes
        .get(..bytes.len().saturating_sub(oid_len))
        .filter(|body| body.len() >= 12)
        .ok_or("shorter than its header")?;
    if body.get(..4) != Some(b"DIRC") {
        return Err("no DIRC signature".into());
    }
    let mut r = Reader { bytes: body, at: 4 };
    let version = r.u32()?;
    if !(2..=4).contains(&version) {
        return Err(format!("index version {version}"));
    }
    let count = r.u32()? as usize;
    let mut entries: Vec<(String, Recorded, Oid)> = Vec::with_capacity(count);
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = r.at;
        let ctime = (r.u32()?, r.u32()?);
        let mtime = (r.u32()?, r.u32()?);
        let _dev = r.u32()?;
        let ino = r.u32()?;
        let mode = r.u32()?;
        let _uid = r.u32()?;
        let _gid = r.u32()?;
        let size = r.u32()?;
        let oid = r.take(oid_len)?.to_vec();
        let flags = r.u16()?;
        let stage = (flags >> 12) & 3;
        let mut intent_to_add = false;
        if flags & 0x4000 != 0 {
            if version < 3 {
                return Err("an extended entry in a version 2 index".into());
            }
            intent_to_add = r.u16()? & 0x2000 != 0;
        }
        let name = if version == 4 {
            let strip = r.varint()?;
            let keep = previous
                .len()
                .checked_sub(strip)
                .ok_or("a path prefix longer than the previous path")?;
            let suffix = r.until_nul()?;
            previous.truncate(keep);
            previous.extend_from_slice(suffix);
            previous.clone()
        } else {
            let name = r.until_nul()?.to_vec();
            // Entries are padded with NULs to a multiple of eight bytes.
            let len = r.at - start;
            r.take(len.next_multiple_of(8) - len)?;
            name
        };
        // A symlink's blob is its target's path and a submodule's is a commit: only a
        // regular file's (object type 0b1000) is its bytes.
        if stage != 0 || intent_to_add || mode >> 12 != 0b1000 {
            continue;
        }
        let name = String::from_utf8(name).map_err(|_| "a path that is not UTF-8")?;
        let recorded = Recorded {
            ctime,
            mtime,
            ino,
            size,
        };
        entries.push((name, recorded, oid));
    }
    // Extensions: a split index keeps its entries elsewhere.
    while r.bytes.len() - r.at >= 8 {
        let signature = r.take(4)?;
        if signature == b"link" {
            return Err("a split index".into());
        }
        let len = r.u32()? as usize;
        r.take(len)?;
    }
    if !entries.is_sorted_by(|a, b| a.0 < b.0) {
        return Err("entries out of order".into());
    }
    Ok(entries)
}

/// A cursor over an index file's bytes.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize) -> Result<&'b [u8], String> {
        let out = self
            .bytes
            .get(self.at..self.at + n)
            .ok_or_else(|| format!("cut short at byte {}", self.at))?;
        self.at += n;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_be_bytes(self.take(4)?.try_into().expect("4")))
    }

    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_be_bytes(self.take(2)?.try_into().expect("2")))
    }

    fn until_nul(&mut self) -> Result<&'b [u8], String> {
        let rest = &self.bytes[self.at..];
        let end = memchr::memchr(0, rest).ok_or("a path without its NUL")?;
        self.at += end + 1;
        Ok(&rest[..end])
    }

    /// Git's offset varint (index v4's prefix length): each continuation adds one before
    /// shifting, so that every length has one encoding.
    fn varint(&mut self) -> Result<usize, String> {
        let mut byte = self.take(1)?[0];
        let mut value = usize::from(byte & 0x7f);
        while byte & 0x80 != 0 {
            byte = self.take(1)?[0];
            value = value
                .checked_add(1)
                .and_then(|v| v.checked_mul(128))
                .ok_or("a prefix length too large")?
                | usize::from(byte & 0x7f);
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) -> bool {
        Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(dir)
            .output()
            .is_ok_and(|o| o.status.success())
    }

    /// The blob id git computes for `bytes`.
    fn blob_id(dir: &Path, file: &str) -> Vec<u8> {
        let out = Command::new("git")
            .args(["hash-object", file])
            .current_dir(dir)
            .output()
            .unwrap();
        let hex = String::from_utf8(out.stdout).unwrap();
        (0..hex.trim().len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn every_index_version_names_each_clean_file_by_its_blob() {
        let probe = tempfile::tempdir().unwrap();
        if !git(probe.path(), &["init", "-q"]) {
            println!("skipped: no git to write an index with");
            return;
        }
        for version in ["2", "3", "4"] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            assert!(git(root, &["init", "-q"]));
            std::fs::create_dir_all(root.join("docs/deep")).unwrap();
            let files = [
                "a.md",
                "docs/b.md",
                "docs/deep/c.md",
                "docs/deep/cc.md",
                "z.json",
            ];
            for (i, f) in files.iter().enumerate() {
                std::fs::write(root.join(f), format!("file {i}\n")).unwrap();
            }
            // A symlink's entry names its target's path, not the bytes read through it.
            #[cfg(unix)]
            std::os::unix::fs::symlink("a.md", root.join("link.md")).unwrap();
            // The index written after the files' last tick, so none is racy.
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert!(git(root, &["add", "-A"]));
            assert!(git(root, &["update-index", "--index-version", version]));
            let index = GitIndex::open(root).expect("an index");
            // The symlink has no entry.
            assert_eq!(index.len(), files.len(), "version {version}");
            for f in files {
                let stat = Stat::of(&std::fs::metadata(root.join(f)).unwrap());
                assert_eq!(
                    index.identity(f, &stat),
                    Some(blob_id(root, f).as_slice()),
                    "version {version}: {f}"
                );
            }
            // A root below the top: the entries under it, by their path from it.
            let below = GitIndex::open(&root.join("docs")).expect("the top's index");
            assert_eq!(below.len(), 3, "version {version}");
            let stat = Stat::of(&std::fs::metadata(root.join("docs/deep/c.md")).unwrap());
            assert_eq!(
                below.identity("deep/c.md", &stat),
                Some(blob_id(root, "docs/deep/c.md").as_slice())
            );
            assert_eq!(below.identity("docs/deep/c.md", &stat), None);
            // An edit moves the stat: no identity, the file is read.
            std::fs::write(root.join("docs/b.md"), "edited\n").unwrap();
            let stat = Stat::of(&std::fs::metadata(root.join("docs/b.md")).unwrap());
            assert_eq!(index.identity("docs/b.md", &stat), None);
            assert_eq!(index.identity("absent.md", &stat), None);
        }
    }

    #[test]
    fn a_file_recorded_in_the_tick_the_index_was_written_is_not_trusted() {
        let index = GitIndex {
            entries: vec![(
                "a.md".into(),
                Recorded {
                    ctime: (10, 0),
                    mtime: (10, 5),
                    ino: 1,
                    size: 3,
                },
                vec![7; 20],
            )],
            written_ns: 10_000_000_005,
        };
        let stat = Stat {
            size: 3,
            mtime_ns: 10_000_000_005,
            ctime_ns: 10_000_000_000,
            inode: 1,
            device: 9,
        };
        assert_eq!(index.identity("a.md", &stat), None);
        let later = GitIndex {
            written_ns: 10_000_000_006,
            ..index
        };
        assert_eq!(later.identity("a.md", &stat), Some([7; 20].as_slice()));
    }

    #[test]
    fn what_does_not_parse_is_refused_not_guessed() {
        assert!(parse(b"", 20).is_err());
        assert!(parse(&[b"DIRX".as_slice(), &[0; 28]].concat(), 20).is_err());
        let mut header = b"DIRC".to_vec();
        header.extend_from_slice(&2u32.to_be_bytes());
        header.extend_from_slice(&1u32.to_be_bytes()); // one entry, none there
        header.extend_from_slice(&[0; 20]);
        assert!(parse(&header, 20).unwrap_err().contains("cut short"));
        let mut v9 = b"DIRC".to_vec();
        v9.extend_from_slice(&9u32.to_be_bytes());
        v9.extend_from_slice(&0u32.to_be_bytes());
        v9.extend_from_slice(&[0; 20]);
        assert_eq!(parse(&v9, 20).unwrap_err(), "index version 9");
    }
}
