//! The one walk of a root, for both tools: directories listed once each, subdirectories
//! on every core (rayon), the [`SKIPPED_DIRS`] never entered, directory symlinks never
//! followed, paths that are not UTF-8 counted rather than visited (`Walked::unnamed`),
//! and one policy for what is not a regular file ([`walk`]). Options say what differs:
//! `.gitignore` (with `.git/info/exclude`) honoured inside a git repository (copy-audit),
//! directories whose names start with a dot left out (soil-lock, as in trellis).
//!
//! A warm run of a large tree is mostly this walk, so it does only what a run needs: the
//! visitor sees root-relative paths and stats files relative to the open directory.
//! Until 0.1 it was `ignore`'s walker, whose per-entry bookkeeping (a full path, an
//! ignore-rule chain consulted even when no rule exists, a work queue) cost half of a
//! warm run's walk; the ignore rules are still `ignore`'s own matchers, applied as git
//! applies them, which the tests here and in `tests/copy_audit.rs` pin: rules apply only
//! inside a repository (the root's, found above it, or one below it), the innermost match
//! wins, negations re-include, and a repository's own directory is the outermost whose
//! rules count — so a root in a subdirectory of a repository also honours the
//! `.gitignore` files between the repository's top and itself.

use crate::fsutil::SKIPPED_DIRS;
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use rayon::prelude::*;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What differs between the tools' walks.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Honour `.gitignore` and `info/exclude` inside a repository.
    pub git_ignore: bool,
    /// Enter directories whose names start with a dot.
    pub dot_dirs: bool,
}

/// A file the walk hands to the visitor: a regular file, or a symlink that leads to one
/// inside the root.
pub struct Found<'a> {
    /// Root-relative, `/`-separated.
    pub rel: &'a str,
    entry: &'a fs::DirEntry,
    /// A symlink's target's stat, taken when the link was checked.
    target: Option<fs::Metadata>,
}

impl Found<'_> {
    /// The entry's absolute path.
    pub fn path(&self) -> PathBuf {
        self.entry.path()
    }

    /// The stat of what would be read: the file's own, taken relative to the open
    /// directory rather than by looking the whole path up again, or a symlink's target's.
    pub fn metadata(&self) -> io::Result<fs::Metadata> {
        match &self.target {
            Some(m) => Ok(m.clone()),
            None => self.entry.metadata(),
        }
    }
}

/// A wanted path the walk did not hand over, and why: one warning line for the caller.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Skipped {
    pub rel: String,
    pub why: String,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}; skipped", self.rel, self.why)
    }
}

/// What a walk found: what the visitor kept (in batches, in no particular order) and the
/// wanted paths skipped, sorted.
#[derive(Debug)]
pub struct Walked<T> {
    pub kept: Vec<Vec<T>>,
    pub skipped: Vec<Skipped>,
    /// Wanted files whose path is not UTF-8, sorted, each written with its stray bytes as
    /// `\xNN` ([`escaped`]): they cannot be named in a lockfile or a report, so they are
    /// never visited, but a run must say they are there.
    pub unnamed: Vec<String>,
}

/// Walks `root`. For each path that is not a directory, `wants` says whether the run
/// reads it; a wanted regular file, or a symlink leading to one inside the root, goes to
/// `visit` (on any thread), whose result is kept. A wanted path that is anything else —
/// a FIFO (its read would block), a device (its read would never end), a socket, a
/// symlink leading outside the root, to something else or to nothing — is skipped and
/// listed. A leftover temporary file of ours is never wanted, and removed if its writer
/// is gone. The first error (an unreadable directory, a malformed `.gitignore`) ends the
/// walk.
pub fn walk<T: Send>(
    root: &Path,
    options: Options,
    wants: impl Fn(&str) -> bool + Sync,
    visit: impl Fn(&Found) -> Option<T> + Sync,
) -> io::Result<Walked<T>> {
    let walker = Walker {
        options,
        root: fs::canonicalize(root)?,
        wants,
        visit,
        kept: Mutex::new(Vec::new()),
        skipped: Mutex::new(Vec::new()),
        unnamed: Mutex::new(Vec::new()),
    };
    let outer = if options.git_ignore {
        outer_rules(root)?
    } else {
        None
    };
    walker.dir(root.to_path_buf(), String::new(), outer, true)?;
    let mut skipped = walker.skipped.into_inner().expect("no visitor panics");
    skipped.sort();
    let mut unnamed = walker.unnamed.into_inner().expect("no visitor panics");
    unnamed.sort();
    Ok(Walked {
        kept: walker.kept.into_inner().expect("no visitor panics"),
        skipped,
        unnamed,
    })
}

struct Walker<W, V, T> {
    options: Options,
    /// Canonical, for where symlinks lead.
    root: PathBuf,
    wants: W,
    visit: V,
    kept: Mutex<Vec<Vec<T>>>,
    skipped: Mutex<Vec<Skipped>>,
    unnamed: Mutex<Vec<String>>,
}

/// The ignore rules of one directory, linked to those of its parent.
struct Rules {
    parent: Option<Arc<Rules>>,
    /// Length of the directory's root-relative path with its trailing `/` (0 at the root):
    /// what to cut off a path to match it against this directory's rules.
    prefix: usize,
    /// For a directory above the root: the way down from it to the root (`web/`), what to
    /// put before a path instead.
    above: Option<String>,
    gitignore: Gitignore,
    exclude: Gitignore,
    /// The directory is a repository (`.git` or `.jj` in it).
    repository: bool,
    /// It or a directory of its chain is: its rules and its parents' apply.
    in_repository: bool,
}

impl Rules {
    /// Whether `rel` is ignored: the innermost directory with a rule matching it decides
    /// (an ignore or a negation), looking outwards no further than the innermost
    /// repository; rules count only if some directory of the chain is a repository.
    fn ignores(self: &Arc<Rules>, rel: &str, is_dir: bool) -> bool {
        if !self.in_repository {
            return false;
        }
        let (mut gitignore, mut exclude) = (Match::None, Match::None);
        for r in std::iter::successors(Some(self), |r| r.parent.as_ref()) {
            if !(r.gitignore.is_empty() && r.exclude.is_empty()) {
                let joined;
                let path = match &r.above {
                    Some(above) => {
                        joined = format!("{above}{rel}");
                        Path::new(&joined)
                    }
                    None => Path::new(&rel[r.prefix..]),
                };
                if gitignore.is_none() {
                    gitignore = r.gitignore.matched(path, is_dir);
                }
                if exclude.is_none() {
                    exclude = r.exclude.matched(path, is_dir);
                }
            }
            if r.repository {
                break;
            }
        }
        gitignore.or(exclude).is_ignore()
    }
}

impl<W, V, T> Walker<W, V, T>
where
    W: Fn(&str) -> bool + Sync,
    V: Fn(&Found) -> Option<T> + Sync,
    T: Send,
{
    /// Walks the directory `path` (`rel` from the root); `named`: its path is UTF-8.
    fn dir(
        &self,
        path: PathBuf,
        rel: String,
        rules: Option<Arc<Rules>>,
        named: bool,
    ) -> io::Result<()> {
        let at = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
        // A subdirectory deleted or replaced since its parent was listed holds nothing
        // this walk saw: as if it had gone before the walk. The root must be there.
        let listing = match fs::read_dir(&path) {
            Err(e) if !rel.is_empty() && vanished(&e) => return Ok(()),
            listing => listing.map_err(at)?,
        };
        // Each name is copied out of its entry once (`file_name` allocates).
        let entries = listing
            .map(|e| e.map(|e| (e.file_name(), e)))
            .collect::<io::Result<Vec<_>>>()
            .map_err(at)?;
        let rules = if self.options.git_ignore {
            Some(self.rules(&path, &rel, &entries, rules)?)
        } else {
            None
        };
        let mut name_at = rel.clone();
        if !name_at.is_empty() {
            name_at.push('/');
        }
        let prefix = name_at.len();
        // Sized for every entry at once: growing it by doubling touched twice the memory,
        // fresh pages each time, which the kernel clears (a warm run is mostly this walk).
        let mut kept = Vec::with_capacity(entries.len());
        let mut skipped = Vec::new();
        let mut unnamed = Vec::new();
        let mut subdirs = Vec::new();
        for (name, entry) in &entries {
            let file_type = match entry.file_type() {
                Err(e) if vanished(&e) => continue,
                file_type => file_type.map_err(at)?,
            };
            // A path that is not UTF-8 cannot be named in a lockfile or a report: it is
            // walked under its escaped name, to be counted, never visited.
            let escaped_name;
            let (name, named) = match name.to_str() {
                Some(name) => (name, named),
                None => {
                    escaped_name = escaped(name);
                    (escaped_name.as_str(), false)
                }
            };
            name_at.truncate(prefix);
            name_at.push_str(name);
            let is_dir = file_type.is_dir();
            if is_dir
                && (SKIPPED_DIRS.contains(&name)
                    || (!self.options.dot_dirs && name.starts_with('.')))
            {
                continue;
            }
            if rules.as_ref().is_some_and(|r| r.ignores(&name_at, is_dir)) {
                continue;
            }
            if is_dir {
                subdirs.push((entry.path(), name_at.clone(), named));
                continue;
            }
            if crate::fsutil::is_temp(name) {
                crate::fsutil::remove_if_leftover(&entry.path());
                continue;
            }
            if !(self.wants)(&name_at) {
                continue;
            }
            if !named {
                unnamed.push(name_at.clone());
                continue;
            }
            let target = if file_type.is_file() {
                None
            } else {
                match self.symlink_target(entry, &file_type) {
                    Ok(meta) => Some(meta),
                    Err(why) => {
                        skipped.push(Skipped {
                            rel: name_at.clone(),
                            why,
                        });
                        continue;
                    }
                }
            };
            kept.extend((self.visit)(&Found {
                rel: &name_at,
                entry,
                target,
            }));
        }
        if !kept.is_empty() {
            // A directory of mostly other files (sources beside one Markdown file) gives
            // back what it reserved, rather than holding it to the end of the walk.
            if kept.len() * 2 < kept.capacity() {
                kept.shrink_to_fit();
            }
            self.kept.lock().expect("no visitor panics").push(kept);
        }
        if !skipped.is_empty() {
            self.skipped
                .lock()
                .expect("no visitor panics")
                .append(&mut skipped);
        }
        if !unnamed.is_empty() {
            self.unnamed
                .lock()
                .expect("no visitor panics")
                .append(&mut unnamed);
        }
        drop(entries);
        subdirs
            .into_par_iter()
            .try_for_each(|(path, rel, named)| self.dir(path, rel, rules.clone(), named))
    }

    /// The stat of the regular file inside the root that a symlink leads to, or why it
    /// is skipped (also for what is neither a symlink nor a regular file).
    fn symlink_target(
        &self,
        entry: &fs::DirEntry,
        kind: &fs::FileType,
    ) -> Result<fs::Metadata, String> {
        if !kind.is_symlink() {
            let kind = crate::fsutil::kind_name(kind);
            return Err(format!("{kind}, not a regular file"));
        }
        let path = entry.path();
        let Ok(meta) = fs::metadata(&path) else {
            return Err("symlink to nothing".into());
        };
        if !fs::canonicalize(&path).is_ok_and(|c| c.starts_with(&self.root)) {
            return Err("symlink leads outside the root".into());
        }
        if !meta.is_file() {
            let kind = crate::fsutil::kind_name(&meta.file_type());
            return Err(format!("symlink to {kind}, not a regular file"));
        }
        Ok(meta)
    }

    /// This directory's rules: its `.gitignore`, and if it is a repository, the
    /// repository's `info/exclude`. Files are read only when the listing shows them.
    fn rules(
        &self,
        path: &Path,
        rel: &str,
        entries: &[(std::ffi::OsString, fs::DirEntry)],
        parent: Option<Arc<Rules>>,
    ) -> io::Result<Arc<Rules>> {
        let has = |name: &str| entries.iter().any(|(n, _)| n == name);
        let git = has(".git")
            .then(|| path.join(".git"))
            .filter(|g| g.exists());
        let repository = git.is_some() || (has(".jj") && path.join(".jj").exists());
        let gitignore = if has(".gitignore") {
            matcher(path, &path.join(".gitignore"))?
        } else {
            Gitignore::empty()
        };
        let exclude = match git.as_deref().and_then(git_common_dir) {
            Some(common) => {
                let file = common.join("info/exclude");
                if file.is_file() {
                    matcher(path, &file)?
                } else {
                    Gitignore::empty()
                }
            }
            None => Gitignore::empty(),
        };
        Ok(Arc::new(Rules {
            in_repository: repository || parent.as_ref().is_some_and(|p| p.in_repository),
            parent,
            prefix: if rel.is_empty() { 0 } else { rel.len() + 1 },
            above: None,
            gitignore,
            exclude,
            repository,
        }))
    }
}

/// The rules of the directories above `root` when it lies inside a repository: from the
/// repository's top down to the root's parent, each with its `.gitignore` (and the top
/// with `info/exclude`). None outside a repository.
fn outer_rules(root: &Path) -> io::Result<Option<Arc<Rules>>> {
    let above: Vec<&Path> = root.ancestors().skip(1).collect();
    let is_repository = |dir: &Path| dir.join(".git").exists() || dir.join(".jj").exists();
    let Some(top) = above.iter().position(|dir| is_repository(dir)) else {
        return Ok(None);
    };
    let mut rules: Option<Arc<Rules>> = None;
    for dir in above[..=top].iter().rev() {
        // The way down to the root, as the walk's paths are written; a path that is not
        // UTF-8 cannot be matched against, so such a repository's rules are not applied.
        let Some(down) = root.strip_prefix(dir).ok().and_then(Path::to_str) else {
            return Ok(None);
        };
        let down = format!("{}/", down.replace(std::path::MAIN_SEPARATOR, "/"));
        let git = dir.join(".git");
        let file = dir.join(".gitignore");
        let gitignore = if file.is_file() {
            matcher(dir, &file)?
        } else {
            Gitignore::empty()
        };
        let exclude = match git.exists().then(|| git_common_dir(&git)).flatten() {
            Some(common) if common.join("info/exclude").is_file() => {
                matcher(dir, &common.join("info/exclude"))?
            }
            _ => Gitignore::empty(),
        };
        let repository = is_repository(dir);
        rules = Some(Arc::new(Rules {
            in_repository: repository || rules.as_ref().is_some_and(|p| p.in_repository),
            parent: rules,
            prefix: 0,
            above: Some(down),
            gitignore,
            exclude,
            repository,
        }));
    }
    Ok(rules)
}

/// Whether an error says that a path listed a moment ago is gone or is no longer a
/// directory: a tree edited while it is walked.
/// One warning for all the wanted files whose path is not UTF-8 ([`Walked::unnamed`]):
/// the count, the first few names and what such a name means (`consequence`) — 10,000 such files are
/// one line, not 10,000.
pub fn unnamed_warning(unnamed: &[String], consequence: &str) -> String {
    const SHOWN: usize = 5;
    let mut names = unnamed[..unnamed.len().min(SHOWN)].join(", ");
    if unnamed.len() > SHOWN {
        names.push_str(&format!(" and {} more", unnamed.len() - SHOWN));
    }
    let (count, them) = match unnamed.len() {
        1 => ("1 file name is".to_string(), "it"),
        n => (format!("{n} file names are"), "them"),
    };
    format!("{count} not valid UTF-8: {names}; {consequence}: rename {them}")
}

/// `name` with every byte that is not part of valid UTF-8 written `\xNN`, the way git
/// and ripgrep show such names.
pub fn escaped(name: &std::ffi::OsStr) -> String {
    #[cfg(unix)]
    {
        use std::fmt::Write;
        use std::os::unix::ffi::OsStrExt;
        let mut out = String::new();
        for chunk in name.as_bytes().utf8_chunks() {
            out.push_str(chunk.valid());
            for b in chunk.invalid() {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
        out
    }
    #[cfg(not(unix))]
    name.to_string_lossy().into_owned()
}

fn vanished(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// The rules of `file`, for paths below `dir`; a malformed line is an error naming it. A
/// file deleted since the listing has no rules.
fn matcher(dir: &Path, file: &Path) -> io::Result<Gitignore> {
    let mut builder = GitignoreBuilder::new(dir);
    if let Some(e) = builder.add(file) {
        if !file.exists() {
            return Ok(Gitignore::empty());
        }
        return Err(io::Error::new(io::ErrorKind::InvalidData, e.to_string()));
    }
    builder
        .build()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))
}

/// The directory holding a repository's shared files (`info/exclude`): `.git` itself, or
/// for a worktree or submodule (a `.git` file saying `gitdir: …`) the directory it names,
/// or that directory's `commondir`. None if it cannot be resolved.
fn git_common_dir(git: &Path) -> Option<PathBuf> {
    if git.is_dir() {
        return Some(git.to_path_buf());
    }
    let text = fs::read_to_string(git).ok()?;
    let base = git.parent()?;
    let gitdir = base.join(text.strip_prefix("gitdir:")?.trim());
    match fs::read_to_string(gitdir.join("commondir")) {
        Ok(common) => Some(gitdir.join(common.trim())),
        Err(_) => Some(gitdir),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIT: Options = Options {
        git_ignore: true,
        dot_dirs: true,
    };
    const PLAIN: Options = Options {
        git_ignore: false,
        dot_dirs: true,
    };

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        dir
    }

    fn listed(root: &Path) -> Vec<String> {
        listed_with(root, GIT)
    }

    /// Every path the walk hands over, sorted.
    fn listed_with(root: &Path, options: Options) -> Vec<String> {
        let mut all: Vec<String> = walk(root, options, |_| true, |e| Some(e.rel.to_string()))
            .unwrap()
            .kept
            .into_iter()
            .flatten()
            .collect();
        all.sort();
        all
    }

    #[test]
    fn skipped_directories_are_never_entered_and_hidden_files_are_kept() {
        let dir = tree(&[
            ("a.md", ""),
            (".hidden/b.md", ""),
            ("node_modules/c.md", ""),
            ("x/target/d.md", ""),
            (".lockgraph/e", ""),
        ]);
        assert_eq!(listed(dir.path()), [".hidden/b.md", "a.md"]);
    }

    #[test]
    fn ignore_rules_need_a_repository_and_stop_at_the_innermost_one() {
        let dir = tree(&[
            (".gitignore", "*.log\nsub/\n"),
            ("a.log", ""),
            ("a.md", ""),
            ("sub/b.md", ""),
            ("inner/.gitignore", "!keep.log\n"),
            ("inner/keep.log", ""),
            ("inner/drop.log", ""),
        ]);
        let all = [
            ".gitignore",
            "a.log",
            "a.md",
            "inner/.gitignore",
            "inner/drop.log",
            "inner/keep.log",
            "sub/b.md",
        ];
        assert_eq!(listed(dir.path()), all, "no repository: no rules");
        fs::create_dir(dir.path().join(".git")).unwrap();
        assert_eq!(
            listed(dir.path()),
            [".gitignore", "a.md", "inner/.gitignore", "inner/keep.log"]
        );
        fs::create_dir_all(dir.path().join(".git/info")).unwrap();
        fs::write(dir.path().join(".git/info/exclude"), "a.md\n").unwrap();
        assert_eq!(
            listed(dir.path()),
            [".gitignore", "inner/.gitignore", "inner/keep.log"]
        );
        // A repository of its own below: the outer rules stop at it.
        fs::create_dir(dir.path().join("inner/.git")).unwrap();
        assert_eq!(
            listed(dir.path()),
            [
                ".gitignore",
                "inner/.gitignore",
                "inner/drop.log",
                "inner/keep.log"
            ]
        );
    }

    #[test]
    fn a_root_inside_a_repository_honours_the_rules_above_it() {
        let dir = tree(&[
            (".gitignore", "*.log\nweb/drafts/\n!web/keep.log\n"),
            ("web/.gitignore", "/local.md\n"),
            ("web/a.md", ""),
            ("web/a.log", ""),
            ("web/keep.log", ""),
            ("web/local.md", ""),
            ("web/drafts/b.md", ""),
            ("web/sub/local.md", ""),
        ]);
        let root = dir.path().join("web");
        let all = [
            ".gitignore",
            "a.log",
            "a.md",
            "drafts/b.md",
            "keep.log",
            "local.md",
            "sub/local.md",
        ];
        assert_eq!(listed(&root), all, "no repository: no rules");
        fs::create_dir_all(dir.path().join(".git/info")).unwrap();
        fs::write(dir.path().join(".git/info/exclude"), "web/sub/\n").unwrap();
        assert_eq!(listed(&root), [".gitignore", "a.md", "keep.log"]);
    }

    /// One policy for what is not a regular file: a symlink to a regular file inside the
    /// root is taken; a directory symlink is not followed; a symlink out of the root, to
    /// nothing or to a directory, and a FIFO, are skipped and listed; unwanted paths are
    /// neither; names that are not UTF-8 are left out.
    #[cfg(unix)]
    #[test]
    fn one_policy_for_symlinks_and_what_is_not_a_regular_file() {
        use std::os::unix::ffi::OsStrExt;
        let outside = tree(&[("secret.md", "")]);
        let dir = tree(&[("a/b.md", ""), ("c.md", ""), ("notes.txt", "")]);
        let d = dir.path();
        std::os::unix::fs::symlink(d.join("a"), d.join("dir-link.md")).unwrap();
        std::os::unix::fs::symlink(d.join("c.md"), d.join("file-link.md")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), d.join("out.md")).unwrap();
        std::os::unix::fs::symlink(d.join("gone.md"), d.join("dangling.md")).unwrap();
        let fifo = std::ffi::CString::new(d.join("pipe.md").as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path and a mode.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        fs::write(d.join(std::ffi::OsStr::from_bytes(b"bad\xff.md")), "").unwrap();
        let walked = walk(
            d,
            PLAIN,
            |rel| rel.ends_with(".md"),
            |f| Some((f.rel.to_string(), f.metadata().unwrap().len())),
        )
        .unwrap();
        let mut kept: Vec<(String, u64)> = walked.kept.into_iter().flatten().collect();
        kept.sort();
        assert_eq!(
            kept,
            [
                ("a/b.md".to_string(), 0),
                ("c.md".to_string(), 0),
                ("file-link.md".to_string(), 0)
            ]
        );
        let skipped: Vec<String> = walked.skipped.iter().map(ToString::to_string).collect();
        assert_eq!(
            skipped,
            [
                "dangling.md: symlink to nothing; skipped",
                "dir-link.md: symlink to a directory, not a regular file; skipped",
                "out.md: symlink leads outside the root; skipped",
                "pipe.md: a FIFO, not a regular file; skipped",
            ]
        );
    }

    #[test]
    fn directories_starting_with_a_dot_are_entered_only_if_asked() {
        let dir = tree(&[(".hidden/a.md", ""), ("b.md", ""), (".c.md", "")]);
        let listed = |dot_dirs| {
            let options = Options {
                git_ignore: false,
                dot_dirs,
            };
            listed_with(dir.path(), options)
        };
        assert_eq!(listed(true), [".c.md", ".hidden/a.md", "b.md"]);
        assert_eq!(listed(false), [".c.md", "b.md"]);
    }

    #[test]
    fn a_malformed_gitignore_is_an_error_naming_it() {
        let dir = tree(&[(".gitignore", "ok\n[z-a]\n"), ("a.md", "")]);
        fs::create_dir(dir.path().join(".git")).unwrap();
        let err = walk(dir.path(), GIT, |_| true, |e| Some(e.rel.to_string())).unwrap_err();
        let err = err.to_string();
        assert!(
            err.contains(".gitignore") && err.contains("line 2"),
            "{err}"
        );
        assert!(walk(dir.path(), PLAIN, |_| true, |_| Some(())).is_ok());
    }
}
