//! The walk of a soil root: every definition's stem with its `.tr`, `.lock` and `.soil`.
//!
//! Directories are listed in parallel, and with `stat` each `.tr` and `.lock` is statted
//! right where it is listed, relative to its open directory (no path lookup from the root):
//! on a warm run with the cache, listing and statting is all the file system work left.
//!
//! The rules are those of copy-audit's walk (`crate::walk`): `.gitignore` not read,
//! symlinks not followed, `fsutil::SKIPPED_DIRS` never entered, and paths that are not
//! UTF-8 skipped. As in trellis, a directory whose name starts with a dot is not part of
//! the root, and a `.lock` beside a `.trp` (a trellis-prose document's lock, `kind:
//! document`) is not a definition's sidecar.

use crate::fsutil::SKIPPED_DIRS;
use crate::statcache::Stat;
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The stem of a module's private helpers file, `_private.soil`.
pub const PRIVATE: &str = "_private";

/// One file of a definition found by the walk: its stat, if asked for and readable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum File {
    Absent,
    Present(Option<Stat>),
}

/// A definition: a stem with a `.tr` or a `.lock` (or both).
#[derive(Debug)]
pub struct Listed {
    /// Root-relative, without extension: the definition's identity.
    pub stem: String,
    pub tr: File,
    pub lock: File,
    /// `f.soil` beside it.
    pub soil: File,
    /// `f.trp` exists beside it: its `.lock` is a prose document's, not a sidecar.
    pub document: bool,
}

/// What the walk found.
#[derive(Debug)]
pub struct Walked {
    /// Every definition, sorted by stem.
    pub definitions: Vec<Listed>,
    /// The modules with a `_private.soil` (root-relative folders, `""` for the root),
    /// sorted.
    pub private_modules: Vec<String>,
}

/// Every definition under `root`, and the modules with private helpers. `root/manifest`
/// (the derived manifest) is not a sidecar.
pub fn definitions(root: &Path, manifest: &str, stat: bool) -> io::Result<Walked> {
    let found = walk(root, String::new(), manifest, stat)?;
    let (private, mut definitions): (Vec<Listed>, Vec<Listed>) = found
        .into_iter()
        .partition(|l| l.tr == File::Absent && l.lock == File::Absent);
    definitions.par_sort_unstable_by(|a, b| a.stem.cmp(&b.stem));
    let mut private_modules: Vec<String> = private
        .into_iter()
        .map(|l| match l.stem.rsplit_once('/') {
            Some((module, _)) => module.to_owned(),
            None => String::new(),
        })
        .collect();
    private_modules.sort();
    Ok(Walked {
        definitions,
        private_modules,
    })
}

fn walk(dir: &Path, rel: String, manifest: &str, stat: bool) -> io::Result<Vec<Listed>> {
    let mut here: HashMap<String, Listed> = HashMap::new();
    let mut subdirs: Vec<(PathBuf, String)> = Vec::new();
    let join = |name: &str| {
        if rel.is_empty() {
            name.to_string()
        } else {
            format!("{rel}/{name}")
        }
    };
    let at = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", dir.display()));
    for entry in fs::read_dir(dir).map_err(at)? {
        let entry = entry.map_err(at)?;
        let kind = entry.file_type().map_err(at)?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if kind.is_dir() {
            if !SKIPPED_DIRS.contains(&name) && !name.starts_with('.') {
                subdirs.push((entry.path(), join(name)));
            }
            continue;
        }
        if rel.is_empty() && name == manifest {
            continue;
        }
        if crate::fsutil::is_temp(name) {
            crate::fsutil::remove_if_leftover(&entry.path());
            continue;
        }
        let Some((stem, ext)) = name.rsplit_once('.') else {
            continue;
        };
        if !matches!(ext, "tr" | "lock" | "soil" | "trp") {
            continue;
        }
        // Symlinks are not followed; anything else that is not a regular file is never
        // opened (a FIFO would block the read, a device never end it). A sidecar that
        // cannot be read is an error, as an unreadable one is.
        if !kind.is_file() {
            if !kind.is_symlink() {
                let what = crate::fsutil::kind_name(&kind);
                let shown = join(name);
                if ext == "lock" {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!("{shown}: {what}, not a regular file; a sidecar must be one"),
                    ));
                }
                eprintln!("warning: {shown}: {what}, not a regular file; skipped");
            }
            continue;
        }
        let listed = here.entry(stem.to_string()).or_insert_with(|| Listed {
            stem: join(stem),
            tr: File::Absent,
            lock: File::Absent,
            soil: File::Absent,
            document: false,
        });
        // `DirEntry::metadata` stats relative to the directory being read; a file that
        // vanished since the listing is statted again (and found missing) when taken in.
        let found = || {
            File::Present(
                stat.then(|| entry.metadata().ok().map(|m| Stat::of(&m)))
                    .flatten(),
            )
        };
        match ext {
            "tr" => listed.tr = found(),
            "lock" => listed.lock = found(),
            "trp" => listed.document = true,
            _ => listed.soil = found(),
        }
    }
    let nested: Vec<Vec<Listed>> = subdirs
        .into_par_iter()
        .map(|(path, rel)| walk(&path, rel, manifest, stat))
        .collect::<io::Result<_>>()?;
    let mut out: Vec<Listed> = here
        .into_values()
        // A sidecar without its spec is a definition whose spec was deleted, unless it is
        // a document's lock. A module's `_private.soil` is listed too, without either.
        .filter(|l| {
            l.tr != File::Absent
                || (l.lock != File::Absent && !l.document)
                || (l.soil != File::Absent && l.stem.rsplit('/').next() == Some(PRIVATE))
        })
        .collect();
    out.extend(nested.into_iter().flatten());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_stems_with_their_files_and_skips_what_the_walker_skips() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for (path, text) in [
            ("soil.toml", ""),
            ("soil.lock", "{}"),
            ("_project.tr", ""),
            ("m/a.tr", ""),
            ("m/a.lock", ""),
            ("m/a.soil", ""),
            ("m/b.lock", ""),
            ("m/only.soil", ""),
            ("m/soil.lock", "{}"),
            ("m/.hidden/c.tr", ""),
            ("prose/doc.trp", ""),
            ("prose/doc.lock", "{}"),
            ("node_modules/x.tr", ""),
            (".lockgraph/y.tr", ""),
            ("m/notes.md", ""),
        ] {
            let p = d.join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(d.join("m/a.tr"), d.join("m/link.tr")).unwrap();
        fs::write(d.join("m/_private.soil"), "").unwrap();
        let walked = definitions(d, "soil.lock", true).unwrap();
        assert_eq!(walked.private_modules, ["m"]);
        let listed = walked.definitions;
        let got: Vec<(&str, bool, bool, bool)> = listed
            .iter()
            .map(|l| {
                (
                    l.stem.as_str(),
                    l.tr != File::Absent,
                    l.lock != File::Absent,
                    l.soil != File::Absent,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("_project", true, false, false),
                // Not `m/.hidden/c` (a dot-directory) nor `prose/doc` (a document's lock).
                ("m/a", true, true, true),
                ("m/b", false, true, false),
                ("m/soil", false, true, false),
            ]
        );
        let a = &listed[1];
        let meta = fs::metadata(d.join("m/a.tr")).unwrap();
        assert_eq!(a.tr, File::Present(Some(Stat::of(&meta))));
        let unstatted = definitions(d, "soil.lock", false).unwrap().definitions;
        assert_eq!(unstatted[1].tr, File::Present(None));
    }
}
