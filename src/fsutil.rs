//! Writing files without ever losing data: atomic replacement, no-op writes skipped, and an
//! advisory lock so concurrent runs serialise their read-modify-write cycles.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

/// Opens `path` for reading if it is a regular file (symlinks followed), and refuses
/// anything else — a FIFO, a device, a socket, a directory — with an error that says what
/// it is. Never blocks: the file is opened non-blocking (opening a FIFO would otherwise
/// wait for a writer) and checked on the open descriptor, so a file swapped between a
/// check and the open cannot slip through; a regular file reads the same either way.
pub fn open_regular(path: &Path) -> io::Result<File> {
    open_regular_stat(path).map(|(file, _)| file)
}

/// [`open_regular`], with the metadata it checked the open file by: a reader that wants
/// the size or the stat has it without asking again.
pub fn open_regular_stat(path: &Path) -> io::Result<(File, fs::Metadata)> {
    #[cfg(unix)]
    let file = {
        use std::os::unix::fs::OpenOptionsExt;
        OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)?
    };
    #[cfg(not(unix))]
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.file_type().is_file() {
        Ok((file, meta))
    } else {
        Err(not_regular(&meta.file_type()))
    }
}

/// The error for a file that is not a regular file, naming what it is.
pub fn not_regular(kind: &fs::FileType) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("not a regular file ({}); not read", kind_name(kind)),
    )
}

/// Why a file that a walk listed could not be read: deleted since, replaced by a directory
/// or a FIFO (the walk saw a regular file, so [`not_regular`] means it changed kind), or
/// unreadable. Both tools report it as that file's error and go on.
pub fn why_unread(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "deleted during the run".to_string(),
        io::ErrorKind::InvalidInput => format!("changed kind during the run: {e}"),
        _ => format!("cannot be read: {e}"),
    }
}

/// What a non-regular file is, in words.
pub fn kind_name(kind: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symlink"
    } else {
        "not a file"
    }
}

/// The whole content of the regular file at `path` ([`open_regular`]), read until the
/// end: a short read is not taken for the end of the file.
pub fn read_regular(path: &Path) -> io::Result<Vec<u8>> {
    let (file, meta) = open_regular_stat(path)?;
    read_sized(file, meta.len())
}

/// The rest of `file`, whose size was `len` when it was statted: the buffer is sized
/// from it (a byte more, so the read that finds the end needs no growth), and the file
/// is not asked its size again (std's `read_to_end` on a file does, with two more system
/// calls). A file that grew since is read on to its end; one that shrank gives what it
/// holds.
pub fn read_sized(mut file: File, len: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0).saturating_add(1));
    io::Read::read_to_end(&mut io::Read::take(&mut file, u64::MAX), &mut bytes)?;
    Ok(bytes)
}

/// [`read_regular`] as UTF-8 text.
pub fn read_regular_to_string(path: &Path) -> io::Result<String> {
    String::from_utf8(read_regular(path)?)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.utf8_error()))
}

/// Where `path` leads once every symlink on it is followed. A path that does not exist
/// yet (a file about to be created) is its nearest existing ancestor resolved, then the
/// rest; a dangling symlink leads to where its target would be.
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    resolve_within(path, 0)
}

fn resolve_within(path: &Path, links: u32) -> io::Result<PathBuf> {
    let missing = match fs::canonicalize(path) {
        Ok(resolved) => return Ok(resolved),
        Err(e) if e.kind() == io::ErrorKind::NotFound => e,
        Err(e) => return Err(e),
    };
    let parent = path.parent().map(|p| {
        if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        }
    });
    if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        // As the kernel does: at most 40 links on one path.
        if links >= 40 {
            return Err(io::Error::other("too many levels of symbolic links"));
        }
        let target = fs::read_link(path)?;
        let next = parent.unwrap_or(Path::new(".")).join(target);
        return resolve_within(&next, links + 1);
    }
    match (parent, path.file_name()) {
        (Some(parent), Some(name)) => Ok(resolve_within(parent, links)?.join(name)),
        _ => Err(missing),
    }
}

/// `path` resolved ([`resolve`]), if it stays inside `root`: what every write, rename
/// and removal of both tools goes through, so that a symlink committed into a
/// repository (`soil.lock -> ~/.bashrc`, a `.lockgraph` that leads elsewhere) can never
/// make a run touch a file outside it. The error names the path and where it leads.
pub fn inside_root(root: &Path, path: &Path) -> io::Result<PathBuf> {
    let root = fs::canonicalize(root)?;
    let resolved = resolve(path)?;
    if resolved.starts_with(&root) {
        Ok(resolved)
    } else {
        Err(outside(&resolved))
    }
}

fn outside(resolved: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "a symlink leads outside the root, to {}; nothing written",
            resolved.display()
        ),
    )
}

/// `root/.lockgraph`, the caches' and the lock's directory, once it is known not to lead
/// outside the root: read from there, a planted cache could hide findings, and written
/// there, files outside would be replaced and removed.
pub fn cache_dir(root: &Path) -> io::Result<PathBuf> {
    let dir = root.join(CACHE_DIR);
    dir_inside_root(root, &dir)?;
    Ok(dir)
}

/// [`inside_root`] for a directory, the error naming it.
pub fn dir_inside_root(root: &Path, dir: &Path) -> io::Result<PathBuf> {
    inside_root(root, dir).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))
}

/// Writes `bytes` to `path` unless the file already holds exactly those bytes. Returns
/// whether it wrote. The new content goes to a temporary file in the same directory, is
/// synced, then renamed over the target, so a crash leaves either the old or the new file,
/// never half of one. The target's permissions are kept. Nothing is written where `path`
/// leads outside `root` ([`inside_root`]).
pub fn write_if_changed(root: &Path, path: &Path, bytes: &[u8]) -> io::Result<bool> {
    let path = &inside_root(root, path)?;
    match read_regular(path) {
        Ok(existing) if existing == bytes => return Ok(false),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    replace_with(path, true, |file| file.write_all(bytes)).map(|()| true)
}

/// Replaces `path` with `bytes` through a synced temporary file in the same directory and
/// a rename, keeping the target's permissions; never outside `root`.
pub fn write_atomic(root: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace_with(&inside_root(root, path)?, true, |file| {
        file.write_all(bytes)
    })
}

/// [`write_atomic`] of what `write` writes, through a buffer, and without waiting for the
/// disk: for caches, which a crash may leave stale or garbled but never wrong — every
/// reader checks and rebuilds them — and whose `fsync` was most of the time a one-file
/// edit took to save them. A large cache is written as it is encoded, never held whole.
pub fn write_atomic_unsynced_with(
    root: &Path,
    path: &Path,
    write: impl FnOnce(&mut io::BufWriter<&mut File>) -> io::Result<()>,
) -> io::Result<()> {
    replace_with(&inside_root(root, path)?, false, |file| {
        let mut out = io::BufWriter::with_capacity(1 << 16, file);
        write(&mut out)?;
        out.flush()
    })
}

/// [`write_if_changed`] of `bytes` over a file that was read, only if it still is what was
/// read:
/// `still` is given the file's bytes as they are once the new content is on disk, just
/// before the rename (`None`: no such file), and a file edited since (in place, or
/// replaced by an editor's own rename), created or deleted is left as it is — the user's
/// save wins. What is left is the time between that last read and the rename,
/// microseconds rather than the length of the run.
pub fn replace_if_still(
    root: &Path,
    path: &Path,
    bytes: &[u8],
    still: impl FnOnce(Option<&[u8]>) -> bool,
) -> io::Result<Replaced> {
    let path = &inside_root(root, path)?;
    match read_regular(path) {
        Ok(existing) if existing == bytes => return Ok(Replaced::Unchanged),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    // Another writer may have put the very same bytes there meanwhile (two runs of one
    // refresh): nothing is lost, and nothing is left to do.
    let checked = || {
        let now = match read_regular(path) {
            Ok(now) if now == bytes => return Ok(Replaced::Unchanged),
            Ok(now) => Some(now),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        Ok(if still(now.as_deref()) {
            Replaced::Written
        } else {
            Replaced::Changed
        })
    };
    replace_checked(path, true, |file| file.write_all(bytes), checked)
}

/// What [`replace_if_still`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replaced {
    Written,
    /// The file already held the new bytes: not rewritten.
    Unchanged,
    /// The file was not what was read any more: left alone.
    Changed,
}

/// Replaces the file at the resolved `path` ([`inside_root`]). A symlink inside the root
/// is written through, to the file it leads to: renaming over the link would replace it
/// with a copy and cut the file it pointed to off from the edit.
fn replace_with(
    path: &Path,
    sync: bool,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    replace_checked(path, sync, write, || Ok(Replaced::Written)).map(|_| ())
}

/// [`replace_with`], renaming only if `check`, asked once the new content is written, says
/// [`Replaced::Written`]; otherwise what it says is returned and nothing renamed. With
/// `sync`, the content is synced before the rename and the directory after it, so that the
/// rename itself survives a power cut.
fn replace_checked(
    path: &Path,
    sync: bool,
    write: impl FnOnce(&mut File) -> io::Result<()>,
    check: impl FnOnce() -> io::Result<Replaced>,
) -> io::Result<Replaced> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile_in(dir, &name)?;
    let result = (|| {
        write(&mut tmp.file)?;
        if let Ok(meta) = fs::metadata(path) {
            tmp.file.set_permissions(meta.permissions())?;
        }
        if sync {
            tmp.file.sync_all()?;
        }
        let go = check()?;
        if go != Replaced::Written {
            return Ok(go);
        }
        fs::rename(&tmp.path, path)?;
        if sync {
            sync_dir(dir);
        }
        Ok(Replaced::Written)
    })();
    if !matches!(result, Ok(Replaced::Written)) {
        let _ = fs::remove_file(&tmp.path);
    }
    result
}

/// Syncs the directory `dir`, making a rename in it durable. Not every file system can
/// sync a directory (some report `EINVAL`): the rename is then as durable as it gets, and
/// the write is not failed for it.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

struct TempFile {
    file: File,
    path: PathBuf,
}

/// What every temporary file lockgraph writes ends with: the walks never read such a file,
/// and remove one that a process no longer running left behind ([`remove_if_leftover`]).
pub const TEMP_SUFFIX: &str = ".lockgraph-tmp";

/// Creates `.<name>.<pid>.<n>.lockgraph-tmp` next to the target, `name` cut short enough
/// for the whole to stay within a file name's 255 bytes; `create_new` makes a collision
/// with another process an error we step past rather than a shared file.
fn tempfile_in(dir: &Path, name: &str) -> io::Result<TempFile> {
    let pid = std::process::id();
    let mut cut = name.len().min(160);
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    let name = &name[..cut];
    for n in 0..1000 {
        let path = dir.join(format!(".{name}.{pid}.{n}{TEMP_SUFFIX}"));
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => return Ok(TempFile { file, path }),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("could not create a temporary file in {}", dir.display()),
    ))
}

/// Whether `file_name` is one of lockgraph's temporary files.
pub fn is_temp(file_name: &str) -> bool {
    file_name.starts_with('.') && file_name.ends_with(TEMP_SUFFIX)
}

/// Removes the temporary file at `path` if the process that made it is gone (a kill
/// between creating and renaming it), and says so. Returns whether it did.
pub fn remove_if_leftover(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let Some(stem) = name.strip_suffix(TEMP_SUFFIX) else {
        return false;
    };
    // `.<name>.<pid>.<n>`: the pid is the second field from the end.
    let mut fields = stem.rsplit('.');
    let pid = fields.nth(1).and_then(|p| p.parse::<i32>().ok());
    let Some(pid) = pid else {
        return false;
    };
    #[cfg(unix)]
    // SAFETY: signal 0 only asks whether the process exists; nothing is sent.
    let alive = unsafe { libc::kill(pid, 0) } == 0
        || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    #[cfg(not(unix))]
    let alive = true;
    if alive || fs::remove_file(path).is_err() {
        return false;
    }
    eprintln!(
        "note: {}: removed, left by an interrupted run",
        path.display()
    );
    true
}

/// Removes the temporary files in `dir` (not below) whose writers are gone: for the
/// directories the walks do not enter, such as `.lockgraph/`.
pub fn sweep_leftovers(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_str().is_some_and(is_temp) {
            remove_if_leftover(&entry.path());
        }
    }
}

/// Where under a root lockgraph keeps its caches and its lock (it ignores itself for git).
pub const CACHE_DIR: &str = ".lockgraph";

/// An exclusive advisory lock, released on drop.
///
/// The lock lives in `.lockgraph/lock` under the root rather than on the lockfile itself:
/// the lockfile is replaced by rename, so a lock on its old inode would not exclude a
/// writer that opened the new one. `.lockgraph/` ignores itself for git.
pub struct DirLock {
    _file: File,
}

impl DirLock {
    pub fn acquire(root: &Path) -> io::Result<DirLock> {
        let dir = cache_dir(root)?;
        create_cache_dir(&dir, &dir)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join("lock"))?;
        file.lock()?;
        Ok(DirLock { _file: file })
    }
}

/// Creates `dir` (a directory under `.lockgraph/`) and the `.gitignore` that keeps
/// `.lockgraph/` out of version control.
pub fn create_cache_dir(lockgraph: &Path, dir: &Path) -> io::Result<()> {
    // Checked before anything is created: `create_dir_all` would follow a link out.
    let dir = &dir_inside_root(root_of(lockgraph), dir)?;
    fs::create_dir_all(dir)?;
    let ignore = lockgraph.join(".gitignore");
    if !ignore.exists() {
        // Best effort: a missing .gitignore only means git shows the directory.
        let _ = fs::write(&ignore, "*\n");
    }
    Ok(())
}

/// The root a `.lockgraph/` directory belongs to.
pub fn root_of(lockgraph: &Path) -> &Path {
    lockgraph
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Directories that never hold anything either tool reads: VCS data, dependencies, build
/// output, and lockgraph's own caches.
pub const SKIPPED_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    ".next",
    "dist",
    "build",
    ".turbo",
    ".cache",
    "coverage",
    "__pycache__",
    "target",
    CACHE_DIR,
];

/// `path` relative to `root` with `/` separators — the form lockfiles and reports use — if
/// it lies below `root` and is valid UTF-8.
pub fn relative(root: &Path, path: &Path) -> Option<String> {
    // The walkers hand out `root` joined with clean names: on Unix that is a byte prefix
    // and a `/`, and the text after it is the answer — no component splitting per file.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let (root_b, path_b) = (root.as_os_str().as_bytes(), path.as_os_str().as_bytes());
        let clean = |rel: &str| {
            !rel.is_empty() && rel.split('/').all(|part| !matches!(part, "" | "." | ".."))
        };
        if let Some(rest) = path_b.strip_prefix(root_b)
            && let Some(rest) = rest.strip_prefix(b"/")
            && let Ok(rel) = std::str::from_utf8(rest)
            && clean(rel)
        {
            return Some(rel.to_string());
        }
    }
    let rel = path.strip_prefix(root).ok()?;
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(p) => parts.push(p.to_str()?),
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_name_gets_a_temporary_name_within_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let name = format!("{}.md", "é".repeat(125)); // 253 bytes
        let path = dir.path().join(&name);
        write_atomic(dir.path(), &path, b"one").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"one");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let (target, link) = (dir.path().join("real.md"), dir.path().join("link.md"));
        fs::write(&target, "old").unwrap();
        std::os::unix::fs::symlink("real.md", &link).unwrap();
        assert!(write_if_changed(dir.path(), &link, b"new").unwrap());
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&target).unwrap(), b"new");
    }

    #[cfg(unix)]
    #[test]
    fn only_a_gone_process_leftovers_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let ours = dir
            .path()
            .join(format!(".a.md.{}.0{TEMP_SUFFIX}", std::process::id()));
        // Beyond any pid the kernel hands out (pid_max is at most 2^22).
        let gone = dir.path().join(format!(".a.md.{}.0{TEMP_SUFFIX}", 1 << 30));
        for p in [&ours, &gone] {
            fs::write(p, "half").unwrap();
            assert!(is_temp(p.file_name().unwrap().to_str().unwrap()));
        }
        assert!(!remove_if_leftover(&ours));
        assert!(remove_if_leftover(&gone));
        assert!(ours.exists() && !gone.exists());
        assert!(!is_temp("a.md") && !is_temp(".hidden.md"));
    }

    #[test]
    fn relative_paths_are_clean_slash_separated_text() {
        let root = Path::new("/r/oot");
        let rel = |p: &str| relative(root, Path::new(p));
        assert_eq!(rel("/r/oot/a/b.md"), Some("a/b.md".into()));
        assert_eq!(rel("/r/oot/a//b.md"), Some("a/b.md".into()));
        assert_eq!(rel("/r/oot"), None);
        assert_eq!(rel("/r/ootx/a.md"), None);
        assert_eq!(rel("/r/other/a.md"), None);
        assert_eq!(rel("/r/oot/../a.md"), None);
        assert_eq!(
            relative(Path::new("/"), Path::new("/a/b")),
            Some("a/b".into())
        );
    }

    #[test]
    fn unchanged_bytes_are_not_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        let root = dir.path();
        assert!(write_if_changed(root, &path, b"one").unwrap());
        let before = fs::metadata(&path).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!write_if_changed(root, &path, b"one").unwrap());
        assert_eq!(fs::metadata(&path).unwrap().modified().unwrap(), before);
        assert!(write_if_changed(root, &path, b"two").unwrap());
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "no temporary files left: {leftovers:?}");
    }

    #[test]
    fn lock_excludes_a_second_holder() {
        let dir = tempfile::tempdir().unwrap();
        let first = DirLock::acquire(dir.path()).unwrap();
        let file = OpenOptions::new()
            .write(true)
            .open(dir.path().join(".lockgraph/lock"))
            .unwrap();
        assert!(matches!(file.try_lock(), Err(fs::TryLockError::WouldBlock)));
        drop(first);
        assert!(file.try_lock().is_ok());
        assert_eq!(
            fs::read_to_string(dir.path().join(".lockgraph/.gitignore")).unwrap(),
            "*\n"
        );
    }
}
