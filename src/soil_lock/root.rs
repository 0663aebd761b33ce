//! A soil root on disk: `soil.toml`, every `.tr`/`.lock`/`.soil`, and the files and
//! executables that oracles name. Reads everything the engine needs and nothing else.

use super::Failure;
use lockgraph_queries::db::Database;
use lockgraph_queries::hash::ContentHash;
use lockgraph_queries::soil::engine::{self, Definition, Project, external_key};
use lockgraph_queries::soil::sidecar::Versions;
use rayon::prelude::*;
use salsa::Setter;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The derived manifest's file name; never a definition's sidecar.
pub const MANIFEST: &str = "soil.lock";

/// `soil.toml`, as far as soil-lock reads it.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SoilToml {
    #[serde(default)]
    pub toolchain: BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    #[serde(default)]
    pub trusted_packages: BTreeMap<String, String>,
}

impl SoilToml {
    /// The `versions` a new sidecar records: `trellis` and `soil` from `[toolchain]`, in
    /// that order, where present.
    pub fn versions(&self) -> Versions {
        let mut out = Vec::new();
        for key in ["trellis", "soil"] {
            if let Some(v) = self.toolchain.get(key) {
                let text = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                out.push((key.to_string(), text));
            }
        }
        Versions(out)
    }
}

pub struct Root {
    pub dir: PathBuf,
    pub toml: SoilToml,
    pub db: Database,
    /// By path, sorted.
    pub defs: Vec<Definition>,
}

/// The nearest directory with `soil.toml`, walking up from `start`.
pub fn discover(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|d| d.join("soil.toml").is_file())
        .map(Path::to_path_buf)
}

impl Root {
    pub fn open(root: Option<&Path>) -> Result<Root, Failure> {
        Root::open_with(root, Database::default())
    }

    /// Opens the root into `db` (a database with an execution log, in watch tests).
    pub fn open_with(root: Option<&Path>, db: Database) -> Result<Root, Failure> {
        let dir = match root {
            Some(r) => r.to_path_buf(),
            None => {
                let cwd = std::env::current_dir()
                    .map_err(|e| Failure::new(format!("cannot read the current directory: {e}")))?;
                discover(&cwd).ok_or_else(|| {
                    Failure::new(format!(
                        "no soil.toml in {} or any parent directory; pass --root",
                        cwd.display()
                    ))
                })?
            }
        };
        // Absolute, so file events (which carry absolute paths) map back to identities.
        let dir = fs::canonicalize(&dir).unwrap_or(dir);
        let toml_path = dir.join("soil.toml");
        let text = fs::read_to_string(&toml_path)
            .map_err(|e| Failure::new(format!("{}: {e}", toml_path.display())))?;
        let toml: SoilToml = toml::from_str(&text).map_err(|e| {
            let at = e
                .span()
                .map(|s| {
                    let before = &text[..s.start.min(text.len())];
                    let line = before.matches('\n').count() + 1;
                    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                    format!(":{line}:{col}")
                })
                .unwrap_or_default();
            Failure::new(format!("{}{at}: {}", toml_path.display(), e.message()))
        })?;
        let defs = load_definitions(&dir, &db)?;
        let _project = Project::new(&db, defs.clone(), BTreeMap::new());
        let mut root = Root {
            dir,
            toml,
            db,
            defs,
        };
        root.hash_externals();
        Ok(root)
    }

    /// Hashes every reference file and CLI executable an oracle names, and sets them when
    /// they changed.
    pub fn hash_externals(&mut self) {
        let mut keys = BTreeSet::new();
        for &def in &self.defs {
            if let Some(s) = engine::sidecar_of(&self.db, def) {
                keys.extend(s.oracles.iter().filter_map(external_key));
            }
        }
        let hashes: BTreeMap<String, Option<String>> = keys
            .into_par_iter()
            .map(|key| {
                let file = match key.strip_prefix("cli:") {
                    Some(command) => executable(&self.dir, command),
                    None => Some(self.dir.join(&key)),
                };
                let hash = file
                    .and_then(|f| fs::read(f).ok())
                    .map(|b| ContentHash::of(&b).to_string());
                (key, hash)
            })
            .collect();
        Project::get(&self.db)
            .set_externals(&mut self.db)
            .to(hashes);
    }

    pub fn find(&self, path: &str) -> Result<Definition, Failure> {
        let path = path.trim_end_matches(".tr").trim_end_matches(".lock");
        engine::def_index(&self.db).get(path).ok_or_else(|| {
            Failure::new(format!(
                "no definition `{path}` under {}",
                self.dir.display()
            ))
        })
    }

    pub fn file(&self, def: Definition, ext: &str) -> PathBuf {
        self.dir.join(format!("{}.{ext}", def.path(&self.db)))
    }
}

/// The executable a CLI oracle runs: its first word, relative to the root if it has a
/// slash, else looked up on `PATH`.
fn executable(root: &Path, command: &str) -> Option<PathBuf> {
    let program = command.split_whitespace().next()?;
    if program.contains('/') {
        return Some(root.join(program));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// Every definition under the root: the union of `.tr` and `.lock` stems (a sidecar whose
/// spec is gone is still a definition, so its staleness shows).
pub fn load_definitions(dir: &Path, db: &Database) -> Result<Vec<Definition>, Failure> {
    let mut stems = BTreeSet::new();
    let mut soil = BTreeSet::new();
    let walker = crate::fsutil::walker(dir, false);
    for entry in walker {
        let entry = entry.map_err(|e| Failure::new(format!("walking {}: {e}", dir.display())))?;
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Some(rel) = crate::fsutil::relative(dir, entry.path()) else {
            continue;
        };
        if rel == MANIFEST {
            continue;
        }
        if let Some(stem) = rel
            .strip_suffix(".tr")
            .or_else(|| rel.strip_suffix(".lock"))
        {
            stems.insert(stem.to_string());
        } else if let Some(stem) = rel.strip_suffix(".soil") {
            soil.insert(stem.to_string());
        }
    }
    let read = |p: PathBuf| -> Result<Option<Vec<u8>>, Failure> {
        match fs::read(&p) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Failure::new(format!("{}: {e}", p.display()))),
        }
    };
    struct Files {
        stem: String,
        tr: Option<Vec<u8>>,
        lock: Option<Vec<u8>>,
    }
    let contents: Vec<Files> = stems
        .into_par_iter()
        .map(|stem| {
            let tr = read(dir.join(format!("{stem}.tr")))?;
            let lock = read(dir.join(format!("{stem}.lock")))?;
            Ok(Files { stem, tr, lock })
        })
        .collect::<Result<_, Failure>>()?;
    Ok(contents
        .into_iter()
        .map(|f| {
            let has_soil = soil.contains(&f.stem);
            Definition::new(db, f.stem, f.tr, f.lock, has_soil)
        })
        .collect())
}
