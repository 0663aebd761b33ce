//! What soil-lock takes of the root's walk (`crate::walk`, the one both tools use):
//! every definition's stem with its `.tr`, `.lock` and `.soil`, each statted as it is
//! listed when there is a cache to compare the stats with, relative to its open directory
//! (no path lookup from the root): on a warm run, listing and statting is all the file
//! system work left. Without a cache every file is read, and statted as it is opened.
//!
//! `.gitignore` is not read, and as in trellis a directory whose name starts with a dot is
//! not part of the root; a `.lock` beside a `.trp` (a trellis-prose document's lock,
//! `kind: document`) is not a definition's sidecar. What is not a regular file is skipped
//! with one warning, as in copy-audit, except a sidecar: that is an error.

use crate::statcache::Stat;
use crate::walk::{Options, walk};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::io;
use std::path::Path;

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

/// The extensions the walk keeps.
enum Ext {
    Tr,
    Lock,
    Soil,
    Trp,
}

/// What the walk found.
#[derive(Debug)]
pub struct Walked {
    /// Every definition, sorted by stem.
    pub definitions: Vec<Listed>,
    /// The modules with a `_private.soil` (root-relative folders, `""` for the root),
    /// sorted.
    pub private_modules: Vec<String>,
    /// Specs, sidecars and `.soil` files whose path is not UTF-8 (stray bytes as `\xNN`),
    /// sorted: no manifest or report can name them, so no check can pass over them.
    pub unnamed: Vec<String>,
}

/// Every definition under `root`, and the modules with private helpers. `root/manifest`
/// (the derived manifest) is not a sidecar.
pub fn definitions(root: &Path, manifest: &str, stat: bool) -> io::Result<Walked> {
    let options = Options {
        git_ignore: false,
        dot_dirs: false,
    };
    let wanted = |rel: &str| {
        rel != manifest
            && rel
                .rsplit_once('.')
                .is_some_and(|(_, ext)| matches!(ext, "tr" | "lock" | "soil" | "trp"))
    };
    let walked = walk(root, options, wanted, |found| {
        // A file that vanished since the listing is statted again (and found missing)
        // when taken in.
        let stat = stat
            .then(|| found.metadata().ok().map(|m| Stat::of(&m)))
            .flatten();
        Some((found.rel.to_string(), File::Present(stat)))
    })?;
    if let Some(sidecar) = walked.skipped.iter().find(|s| s.rel.ends_with(".lock")) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: {}; a sidecar must be one", sidecar.rel, sidecar.why),
        ));
    }
    for skipped in &walked.skipped {
        eprintln!("warning: {skipped}");
    }
    if !walked.unnamed.is_empty() {
        let consequence = "a file so named is not read, as no report or manifest could name it";
        let warning = crate::walk::unnamed_warning(&walked.unnamed, consequence);
        eprintln!("warning: {warning}");
    }
    // By stem, each path's own string cut down to its stem: a warm run lists 150,000
    // files at 50,000 definitions, and this is all it does with them.
    // Sized once for a `.tr`, `.lock` and `.soil` per definition: grown by doubling, each
    // new table was fresh memory the kernel clears.
    let files: usize = walked.kept.iter().map(Vec::len).sum();
    let mut stems: FxHashMap<String, Listed> =
        FxHashMap::with_capacity_and_hasher(files.div_ceil(3), Default::default());
    for (mut rel, file) in walked.kept.into_iter().flatten() {
        let dot = rel.rfind('.').expect("wanted paths have an extension");
        let ext = match &rel[dot + 1..] {
            "tr" => Ext::Tr,
            "lock" => Ext::Lock,
            "trp" => Ext::Trp,
            _ => Ext::Soil,
        };
        rel.truncate(dot);
        let listed = match stems.get_mut(&rel) {
            Some(listed) => listed,
            None => stems.entry(rel.clone()).or_insert(Listed {
                stem: rel,
                tr: File::Absent,
                lock: File::Absent,
                soil: File::Absent,
                document: false,
            }),
        };
        match ext {
            Ext::Tr => listed.tr = file,
            Ext::Lock => listed.lock = file,
            Ext::Trp => listed.document = true,
            Ext::Soil => listed.soil = file,
        }
    }
    let mut definitions = Vec::with_capacity(stems.len());
    let mut private_modules = Vec::new();
    for l in stems.into_values() {
        let (module, name) = l.stem.rsplit_once('/').unwrap_or(("", &l.stem));
        // A sidecar without its spec is a definition whose spec was deleted, unless it is
        // a document's lock. A module's `_private.soil` is not a definition.
        if l.tr != File::Absent || (l.lock != File::Absent && !l.document) {
            definitions.push(l);
        } else if l.soil != File::Absent && name == PRIVATE {
            private_modules.push(module.to_owned());
        }
    }
    definitions.par_sort_unstable_by(|a, b| a.stem.cmp(&b.stem));
    private_modules.sort();
    Ok(Walked {
        definitions,
        private_modules,
        unnamed: walked.unnamed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

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
                // A symlink to a spec inside the root is read through, as copy-audit does.
                ("m/link", true, false, false),
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
