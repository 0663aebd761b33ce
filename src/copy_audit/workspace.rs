//! The tree being audited: its config, its lockfile and the files in scope.

use crate::config::{self, Config, Named, PathMatcher};
use crate::copy_audit::Failure;
use crate::copy_audit::cache::Stat;
use crate::fsutil::relative;
use lockgraph_queries::copy::lockfile::{self, Backend, Lockfile, Segmenter};
use rayon::slice::ParallelSliceMut;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

pub struct Workspace {
    pub config: Config,
    /// The config's directory, canonicalised: every path is relative to it.
    pub root: PathBuf,
    pub lock_path: PathBuf,
}

/// What is in scope: the files, in path order, with the stats the walk took (if it took
/// them), and the files whose path is not UTF-8, which cannot be audited or named.
pub struct InScope {
    pub files: Vec<(String, Option<Stat>)>,
    pub unnamed: Vec<String>,
}

impl InScope {
    /// Puts the files in path order (on every core: 100,000 paths).
    pub fn sort(&mut self) {
        self.files.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
    }
}

impl Workspace {
    pub fn load(config: Option<&Path>, lang: Option<&str>) -> Result<Workspace, Failure> {
        let path = match config {
            Some(p) => p.to_path_buf(),
            None => {
                let cwd = std::env::current_dir()
                    .map_err(|e| Failure::new(format!("cannot read the current directory: {e}")))?;
                config::discover(&cwd).ok_or_else(|| {
                    Failure::new(format!(
                        "no .copy-editor.yaml found in {} or any parent directory; pass --config",
                        cwd.display()
                    ))
                })?
            }
        };
        let config = config::load(&path)
            .and_then(|c| c.with_language_override(lang))
            .map_err(|e| Failure::new(e.to_string()))?;
        let root = fs::canonicalize(&config.root).map_err(|e| {
            Failure::new(format!(
                "{}: cannot open the root: {e}",
                config.root.display()
            ))
        })?;
        let lock_path = root.join(&config.cache_path);
        let ws = Workspace {
            config,
            root,
            lock_path,
        };
        let display = ws.lock_display();
        let lock = super::journal::LockAt {
            path: &ws.lock_path,
            display: &display,
            read: || ws.read_lockfile(),
        };
        super::journal::recover(&ws.root, lock)?;
        Ok(ws)
    }

    /// Shows a lockfile path the way a user would type it from the root.
    pub fn lock_display(&self) -> String {
        self.config.cache_path.clone()
    }

    /// Prints the config's warnings (unknown keys, missing Layer 2 files, paths that
    /// leave the root), one line each, on stderr.
    pub fn warn_about_config(&self) {
        for warning in &self.config.warnings {
            eprintln!("warning: {warning}");
        }
    }

    /// Reads the lockfile; a missing one is an empty lockfile for our prompt version. The
    /// one way any command reads it: in the canonical layout, the fast path
    /// ([`read_canonical`]); anything else, and the exact error of a bad lockfile, from the
    /// strict reader (`lockfile::parse`). Both check every invariant.
    pub fn read_lockfile(&self) -> Result<Lockfile, Failure> {
        let _read = crate::logging::phase("  lockfile text");
        match read_canonical(&self.lock_path) {
            Ok(Some(lock)) => return Ok(lock),
            Ok(None) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(empty_lockfile()),
            Err(e) => return Err(Failure::new(format!("{}: {e}", self.lock_display()))),
        }
        let bytes = crate::fsutil::read_regular(&self.lock_path)
            .map_err(|e| Failure::new(format!("{}: {e}", self.lock_display())))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            Failure::new(format!(
                "{}: invalid UTF-8 at byte {}; the lockfile is left untouched",
                self.lock_display(),
                e.utf8_error().valid_up_to()
            ))
        })?;
        lockfile::parse(&text).map_err(|e| {
            Failure::new(format!(
                "{}: {e}; the lockfile is left untouched",
                self.lock_display()
            ))
        })
    }

    /// Every file in scope, as sorted root-relative paths with `/` separators.
    pub fn files_in_scope(&self, matcher: &PathMatcher) -> Result<Vec<String>, Failure> {
        Ok(self
            .scope(matcher, false)?
            .files
            .into_iter()
            .map(|(path, _)| path)
            .collect())
    }

    /// [`Workspace::files_in_scope`] with, if `stat`, each file's stat taken while walking
    /// (in parallel): what the stat index needs to vouch for a file without reading it.
    /// Without a stat index there is nothing to vouch against, and a file read anyway is
    /// statted from its open descriptor: a cold walk without a `statx` per file took a
    /// third of the time.
    pub fn scope(&self, matcher: &PathMatcher, stat: bool) -> Result<InScope, Failure> {
        let mut in_scope = self.scope_unordered(matcher, stat)?;
        in_scope.sort();
        Ok(in_scope)
    }

    /// [`Workspace::scope`] in the order the walk found the files: what a replay is
    /// matched against, which needs no order ([`crate::replay::FileSet`]).
    pub fn scope_unordered(&self, matcher: &PathMatcher, stat: bool) -> Result<InScope, Failure> {
        if let Some(named) = matcher.named()
            && named.dirs.is_empty()
        {
            return Ok(self.named_files(named, matcher, stat));
        }
        let options = crate::walk::Options {
            git_ignore: true,
            dot_dirs: true,
        };
        let wanted = |rel: &str| matcher.is_included(rel) && rel != self.config.cache_path;
        let walked = crate::walk::walk(&self.root, options, wanted, |found| {
            // A file that cannot be statted (deleted since the listing) goes on without a
            // stat: its read says what became of it, in the report.
            let stat = stat.then(|| found.metadata().ok()).flatten();
            Some((found.rel.to_string(), stat.as_ref().map(Stat::of)))
        })
        .map_err(|e| Failure::new(format!("walking the tree: {e}")))?;
        // One allocation of the final size: collecting the batches grew it by doubling,
        // each time onto fresh pages the kernel clears (half the page clearing of a warm
        // 100k run).
        let mut files = Vec::with_capacity(walked.kept.iter().map(Vec::len).sum());
        for batch in walked.kept {
            files.extend(batch);
        }
        // A run that walks twice (`--fix` audits again after fixing) warns once.
        static WARNED: std::sync::Mutex<std::collections::BTreeSet<String>> =
            std::sync::Mutex::new(std::collections::BTreeSet::new());
        let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
        let unnamed = (!walked.unnamed.is_empty()).then(|| {
            crate::walk::unnamed_warning(
                &walked.unnamed,
                "a file so named cannot be audited or named in the lockfile",
            )
        });
        for warning in walked.skipped.iter().map(|s| s.to_string()).chain(unnamed) {
            if warned.insert(warning.clone()) {
                eprintln!("warning: {warning}");
            }
        }
        Ok(InScope {
            files,
            unnamed: walked.unnamed,
        })
    }

    /// The named files in scope, without a walk: pre-commit names a handful of files in a
    /// tree that may hold a hundred thousand.
    fn named_files(&self, named: &Named, matcher: &PathMatcher, stat: bool) -> InScope {
        let files = named
            .files
            .iter()
            .filter(|rel| matcher.is_included(rel) && **rel != self.config.cache_path)
            .map(|rel| {
                let stat = stat
                    .then(|| fs::symlink_metadata(self.root.join(rel)).ok())
                    .flatten();
                (rel.clone(), stat.as_ref().map(Stat::of))
            })
            .collect();
        InScope {
            files,
            unnamed: Vec::new(),
        }
    }

    /// The paths named on the command line, root-relative: each must exist and lie under
    /// the root. A file keeps its own name (a symlink is not followed to its target's);
    /// a directory stands for the files under it.
    pub fn named(&self, args: &[PathBuf]) -> Result<Named, Failure> {
        let cwd = std::env::current_dir()
            .map_err(|e| Failure::new(format!("cannot read the current directory: {e}")))?;
        let mut named = Named::default();
        for arg in args {
            let abs = cwd.join(arg);
            let meta = fs::symlink_metadata(&abs)
                .map_err(|e| Failure::new(format!("{}: {e}", arg.display())))?;
            // The directory it is in, resolved; the file's own name kept.
            let resolved = if meta.is_dir() {
                fs::canonicalize(&abs)
            } else {
                match (abs.parent(), abs.file_name()) {
                    (Some(parent), Some(name)) => fs::canonicalize(parent).map(|p| p.join(name)),
                    _ => fs::canonicalize(&abs),
                }
            }
            .map_err(|e| Failure::new(format!("{}: {e}", arg.display())))?;
            if !resolved.starts_with(&self.root) {
                return Err(Failure::new(format!(
                    "{}: outside the root {} (the directory of {}); name files under it, \
                     or pass the --config of the tree they are in",
                    arg.display(),
                    self.root.display(),
                    self.config.path.display()
                )));
            }
            let rel = if resolved == self.root {
                String::new()
            } else {
                relative(&self.root, &resolved).ok_or_else(|| {
                    Failure::new(format!(
                        "{}: the path is not valid UTF-8; it cannot be audited",
                        arg.display()
                    ))
                })?
            };
            if meta.is_dir() {
                named.dirs.insert(rel);
            } else {
                named.files.insert(rel);
            }
        }
        Ok(named)
    }

    /// A root-relative file as text; an unreadable or non-UTF-8 file is a failure naming
    /// it (and the byte where the UTF-8 breaks).
    pub fn read_text(&self, rel: &str) -> Result<String, Failure> {
        let bytes = crate::fsutil::read_regular(&self.root.join(rel))
            .map_err(|e| Failure::new(format!("{rel}: {e}")))?;
        String::from_utf8(bytes).map_err(|e| {
            Failure::new(format!(
                "{rel}: invalid UTF-8 at byte {}",
                e.utf8_error().valid_up_to()
            ))
        })
    }

    /// The canonical path of `path` if it lies inside the root (following symlinks).
    pub fn resolve_inside(&self, path: &Path) -> Option<PathBuf> {
        let canonical = fs::canonicalize(path).ok()?;
        canonical.starts_with(&self.root).then_some(canonical)
    }

    /// Turns a path given on the command line into the root-relative form the lockfile
    /// uses, refusing anything outside the root (`..`, absolute elsewhere, symlinks out).
    pub fn lockfile_key(&self, arg: &Path) -> Result<String, Failure> {
        let cwd = std::env::current_dir()
            .map_err(|e| Failure::new(format!("cannot read the current directory: {e}")))?;
        let abs = cwd.join(arg);
        let canonical =
            fs::canonicalize(&abs).map_err(|e| Failure::new(format!("{}: {e}", arg.display())))?;
        if !canonical.starts_with(&self.root) {
            return Err(Failure::new(format!(
                "{}: outside the root {} (through `..`, an absolute path or a symlink); refused",
                arg.display(),
                self.root.display()
            )));
        }
        relative(&self.root, &canonical)
            .ok_or_else(|| Failure::new(format!("{}: not a file below the root", arg.display())))
    }
}

/// The lockfile at `path` read in the canonical layout (`lockfile::layout`), a chunk of
/// text at a time, each chunk's whole entries on every core. The text is never held
/// whole: read at once, a large lockfile's text (149 MB on the synthetic 100k tree) sat
/// beside its entries and doubled a cold run's peak memory. None wherever the text leaves
/// the layout; the strict reader then answers.
fn read_canonical(path: &Path) -> io::Result<Option<Lockfile>> {
    use lockgraph_queries::copy::lockfile::layout::{self, ENTRY_START, FILES_CLOSE, FILES_OPEN};
    /// Text read per chunk: a few milliseconds of parsing.
    const CHUNK: usize = 8 << 20;
    let mut file = crate::fsutil::open_regular(path)?;
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK + (CHUNK >> 2));
    let mut eof = false;
    let mut fill = |buf: &mut Vec<u8>, want: usize| -> io::Result<bool> {
        while buf.len() < want && !eof {
            let n = io::Read::read_to_end(
                &mut io::Read::take(&mut file, (want - buf.len()) as u64),
                buf,
            )?;
            eof = n == 0;
        }
        Ok(eof)
    };
    fill(&mut buf, CHUNK)?;
    let Some(open) = memchr::memmem::find(&buf, FILES_OPEN.as_bytes()) else {
        return Ok(None);
    };
    let open = open + FILES_OPEN.len();
    let Some((lock, _)) = std::str::from_utf8(&buf[..open])
        .ok()
        .and_then(layout::head)
    else {
        return Ok(None);
    };
    buf.drain(..open);
    let pieces = rayon::current_num_threads() * 4;
    let entries = |members: Option<&[u8]>| {
        members
            .and_then(|m| std::str::from_utf8(m).ok())
            .and_then(|m| layout::entries(m, pieces))
    };
    let mut parts = Vec::new();
    let mut want = CHUNK;
    loop {
        if fill(&mut buf, want)? {
            // The last members, then the close.
            let text = buf.strip_suffix(b"\n").unwrap_or(&buf);
            let Some(read) = entries(text.strip_suffix(FILES_CLOSE.as_bytes())) else {
                return Ok(None);
            };
            parts.push(read);
            return Ok(layout::finish(lock, parts));
        }
        // The whole members so far: up to where the last one read starts.
        match memchr::memmem::rfind(&buf, ENTRY_START.as_bytes()) {
            Some(cut) if cut > 0 => {
                let Some(read) = entries(buf[..cut].strip_suffix(b",")) else {
                    return Ok(None);
                };
                parts.push(read);
                buf.drain(..cut);
                want = CHUNK;
            }
            // One entry longer than a chunk: read on.
            _ => want = buf.len() * 2,
        }
    }
}

pub fn empty_lockfile() -> Lockfile {
    Lockfile {
        schema_version: 1,
        segmenter: Segmenter {
            backend: Backend::Agent,
            prompt_version: Some(lockfile::CURRENT_PROMPT_VERSION),
        },
        files: Default::default(),
    }
}
