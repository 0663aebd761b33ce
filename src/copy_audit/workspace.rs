//! The tree being audited: its config, its lockfile and the files in scope.

use crate::config::{self, Config, PathMatcher};
use crate::copy_audit::Failure;
use crate::copy_audit::cache::{EntryAt, Stat};
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
        Ok(Workspace {
            config,
            root,
            lock_path,
        })
    }

    /// Shows a lockfile path the way a user would type it from the root.
    pub fn lock_display(&self) -> String {
        self.config.cache_path.clone()
    }

    /// Reads the lockfile; a missing one is an empty lockfile for our prompt version.
    ///
    /// Streamed, so the text (as large as what it parses into) is never held whole; a
    /// lockfile that fails to parse is read again as text for the exact diagnosis.
    pub fn read_lockfile(&self) -> Result<Lockfile, Failure> {
        self.read_lockfile_located().map(|(lock, _)| lock)
    }

    /// [`Workspace::read_lockfile`], with where each entry lies in the file (in path order)
    /// when the lockfile is in the canonical layout with its entries in path order.
    pub fn read_lockfile_located(&self) -> Result<(Lockfile, Option<Vec<EntryAt>>), Failure> {
        if let Some(read) = self.read_lockfile_in_pieces() {
            return Ok(read);
        }
        self.read_lockfile_whole().map(|lock| (lock, None))
    }

    fn read_lockfile_whole(&self) -> Result<Lockfile, Failure> {
        match fs::File::open(&self.lock_path) {
            Ok(file) => {
                if let Ok(lock) =
                    lockfile::parse_reader(io::BufReader::with_capacity(1 << 16, file))
                {
                    return Ok(lock);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(empty_lockfile()),
            Err(_) => {}
        }
        self.read_lockfile_text()
    }

    /// [`Workspace::read_lockfile`] for a lockfile in the canonical layout, parsed on every
    /// core: see [`super::rounds::read_in_pieces`].
    fn read_lockfile_in_pieces(&self) -> Option<(Lockfile, Option<Vec<EntryAt>>)> {
        /// Text per piece and round.
        const PIECE: usize = 4 << 20;
        super::rounds::read_in_pieces(&self.lock_path, PIECE)
    }

    fn read_lockfile_text(&self) -> Result<Lockfile, Failure> {
        match fs::read(&self.lock_path) {
            Ok(bytes) => {
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
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(empty_lockfile()),
            Err(e) => Err(Failure::new(format!("{}: {e}", self.lock_display()))),
        }
    }

    /// Every file in scope, as sorted root-relative paths with `/` separators.
    pub fn files_in_scope(&self, matcher: &PathMatcher) -> Result<Vec<String>, Failure> {
        Ok(self
            .scope(matcher, false)?
            .into_iter()
            .map(|(path, _)| path)
            .collect())
    }

    /// [`Workspace::files_in_scope`] with, if `stat`, each file's stat taken while walking
    /// (in parallel): what the stat index needs to vouch for a file without reading it.
    /// Without a stat index there is nothing to vouch against, and a file read anyway is
    /// statted from its open descriptor: a cold walk without a `statx` per file took a
    /// third of the time.
    pub fn scope(
        &self,
        matcher: &PathMatcher,
        stat: bool,
    ) -> Result<Vec<(String, Option<Stat>)>, Failure> {
        enum Seen {
            File(String, Option<Stat>),
            Skipped(String),
            Failed(String),
        }
        let seen = crate::walk::walk(&self.root, true, |entry| {
            let rel = entry.rel;
            if !matcher.is_included(rel) || rel == self.config.cache_path {
                return None;
            }
            let meta = if entry.file_type.is_symlink() {
                let path = entry.path();
                if self.resolve_inside(&path).is_none() {
                    return Some(Seen::Skipped(format!(
                        "{rel}: symlink leads outside the root; skipped"
                    )));
                }
                // The stat of what the link leads to: that is what gets read (and the
                // walk must know it is a file).
                match fs::metadata(&path) {
                    Ok(m) if m.is_file() => Some(m),
                    _ => return None,
                }
            } else if stat {
                match entry.metadata() {
                    Ok(m) => Some(m),
                    Err(e) => return Some(Seen::Failed(format!("{rel}: {e}"))),
                }
            } else {
                None
            };
            let stat = meta.filter(|_| stat).map(|m| Stat::of(&m));
            Some(Seen::File(rel.to_string(), stat))
        })
        .map_err(|e| Failure::new(format!("walking the tree: {e}")))?;
        let mut files = Vec::with_capacity(seen.iter().map(Vec::len).sum());
        let mut skipped = Vec::new();
        let mut failed = Vec::new();
        for s in seen.into_iter().flatten() {
            match s {
                Seen::File(rel, stat) => files.push((rel, stat)),
                Seen::Skipped(w) => skipped.push(w),
                Seen::Failed(e) => failed.push(e),
            }
        }
        failed.sort();
        if let Some(first) = failed.into_iter().next() {
            return Err(Failure::new(first));
        }
        skipped.sort();
        for warning in skipped {
            eprintln!("warning: {warning}");
        }
        files.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Ok(files)
    }

    /// A root-relative file as text; an unreadable or non-UTF-8 file is a failure naming
    /// it (and the byte where the UTF-8 breaks).
    pub fn read_text(&self, rel: &str) -> Result<String, Failure> {
        let bytes =
            fs::read(self.root.join(rel)).map_err(|e| Failure::new(format!("{rel}: {e}")))?;
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

#[cfg(test)]
pub(crate) mod tests {
    use super::super::rounds::read_in_pieces;
    use super::*;
    use lockgraph_queries::copy::lockfile::pieces;
    use lockgraph_queries::copy::lockfile::{Entry, Field, Kind, Span, to_canonical_string};

    /// Where each entry of a canonical lockfile of [`lockfile`]'s starts.
    pub(crate) fn entry_starts(text: &str) -> Vec<usize> {
        let entry_start = "\n    \"content/";
        text.match_indices(entry_start).map(|(i, _)| i).collect()
    }

    /// The canonical lockfile `text` (of at least `i + 3` entries) with entries `i` and
    /// `i + 1` swapped.
    pub(crate) fn swapped(text: &str, i: usize) -> String {
        let starts = entry_starts(text);
        let (a, b, c) = (starts[i], starts[i + 1], starts[i + 2]);
        format!("{}{}{}{}", &text[..a], &text[b..c], &text[a..b], &text[c..])
    }

    /// A valid lockfile of `n` entries with a variety of spans and reviews.
    pub(crate) fn lockfile(n: usize) -> Lockfile {
        let mut lock = empty_lockfile();
        for i in 0..n {
            let span = |line: u32, language: &str, kind: Kind| Span {
                start_line: line,
                start_column: 1,
                end_line: line,
                end_column: 4,
                language: language.into(),
                kind,
                path_hint: if i % 3 == 0 {
                    Field::Null
                } else {
                    Field::Absent
                },
                note: if i % 5 == 0 {
                    Field::Value(format!("note {i} „uvozovky“"))
                } else {
                    Field::Absent
                },
            };
            let entry = Entry {
                content_hash: format!("sha256:{:064x}", i),
                segmented_at: "2026-11-30T08:00:00.000Z".into(),
                reviewed_by: (i % 2 == 0).then(|| "jana".to_string()),
                spans: (1..=(i % 7) as u32)
                    .map(|l| span(l, if l % 2 == 0 { "en" } else { "cs" }, Kind::Prose))
                    .chain([span(9, "unknown", Kind::Code)])
                    .collect(),
            };
            lock.files
                .insert(format!("content/{}/doc{i}.md", i % 4), entry);
        }
        lock
    }

    fn read(text: &str, piece: usize) -> Option<Lockfile> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock.json");
        fs::write(&path, text).unwrap();
        read_in_pieces(&path, piece).map(|(lock, _)| lock)
    }

    /// Each entry's text, where the read located it, is that entry alone — for rounds and
    /// pieces cut anywhere; out of order, nothing is located.
    #[test]
    fn located_entries_are_each_entry_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock.json");
        for n in [1, 3, 50] {
            let lock = lockfile(n);
            let text = to_canonical_string(&lock);
            fs::write(&path, &text).unwrap();
            for piece in [16, 700, 4 << 20] {
                let (read, at) = read_in_pieces(&path, piece).unwrap();
                let at = at.expect("a canonical lockfile is located");
                assert_eq!(at.len(), read.files.len());
                for (at, (path, entry)) in at.iter().zip(&read.files) {
                    let range = at.offset as usize..at.offset as usize + at.len as usize;
                    let one = pieces::entry(&text.as_bytes()[range]);
                    assert_eq!(one, Some((path.clone(), entry.clone())), "{n}, {piece}");
                }
            }
        }
        let text = to_canonical_string(&lockfile(3));
        fs::write(&path, swapped(&text, 0)).unwrap();
        let (read, at) = read_in_pieces(&path, 4 << 20).unwrap();
        assert_eq!(read, lockfile(3));
        assert_eq!(at, None);
    }

    #[test]
    fn a_canonical_lockfile_read_in_pieces_is_the_lockfile() {
        for n in [1, 2, 3, 50] {
            let lock = lockfile(n);
            let text = to_canonical_string(&lock);
            assert_eq!(lockfile::parse(&text).unwrap(), lock);
            // Rounds smaller than an entry, of a few entries, and of the whole file.
            for piece in [16, 700, 4 << 20] {
                assert_eq!(
                    read(&text, piece),
                    Some(lock.clone()),
                    "{n} entries, {piece}"
                );
            }
            let unterminated = text.strip_suffix('\n').unwrap();
            assert_eq!(read(unterminated, 700), Some(lock.clone()));
        }
    }

    /// A lockfile whose paths are out of order is still read in pieces, as the same map.
    #[test]
    fn entries_out_of_order_are_read_as_the_same_lockfile() {
        let lock = lockfile(20);
        let text = to_canonical_string(&lock);
        let swapped = swapped(&text, 0);
        assert_ne!(swapped, text);
        for piece in [16, 700, 4 << 20] {
            assert_eq!(read(&swapped, piece), Some(lock.clone()), "{piece}");
        }
    }

    #[test]
    fn anything_else_is_left_to_the_whole_read() {
        let lock = lockfile(20);
        let text = to_canonical_string(&lock);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let entry_start = "\n    \"content/";
        let first = text.find(entry_start).unwrap();
        let second = first + 1 + text[first + 1..].find(entry_start).unwrap();
        let first_entry = &text[first..second];
        let cases = [
            ("minified", serde_json::to_string(&value).unwrap()),
            (
                "files first",
                text.replacen("{\n  \"schemaVersion\": 1,", "{\n  \"x\": 1,", 1),
            ),
            (
                "a path twice, side by side",
                text.replacen(first_entry, &format!("{first_entry}{first_entry}"), 1),
            ),
            ("a path twice, far apart", {
                let last = text.rfind(entry_start).unwrap();
                format!("{}{first_entry}{}", &text[..last], &text[last..])
            }),
            (
                "an unknown key in an entry",
                text.replacen("\"reviewedBy\"", "\"reviewer\"", 1),
            ),
            ("an invariant broken", text.replacen("sha256:", "md5:", 1)),
            ("text after the close", format!("{text}{{}}")),
        ];
        for (what, text) in cases {
            for piece in [16, 700, 4 << 20] {
                assert_eq!(read(&text, piece), None, "{what}, {piece}");
            }
        }
    }
}
