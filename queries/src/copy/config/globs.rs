//! The path globs: each checked as the config is read, so that a glob that does not
//! compile stops the run at its line, then compiled into a [`PathMatcher`] that says which
//! files are in scope and what the ordered globs give each.

use super::glob_shape::Shape;
use super::{Config, ConfigError};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde_saphyr::{Location, Spanned};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

impl Config {
    /// Compiles the path globs. `include_override` (from `--paths`) replaces
    /// `paths.include`; `paths.exclude` applies either way.
    pub fn matcher(&self, include_override: Option<&[String]>) -> Result<PathMatcher, ConfigError> {
        let cli_error = |glob: &str, e: globset::Error| ConfigError {
            path: None,
            line: None,
            column: None,
            message: format!("invalid glob `{glob}` in --paths: {}", e.kind()),
        };
        let include = match include_override {
            Some(globs) => {
                for glob in globs {
                    build_glob(glob).map_err(|e| cli_error(glob, e))?;
                }
                globs
            }
            None => &self.include[..],
        };
        if include.is_empty() {
            return Err(ConfigError::at(
                &self.path,
                None,
                "nothing to audit: set `paths.include` or pass --paths",
            ));
        }
        let set = |globs: &mut dyn Iterator<Item = &String>, field: &str| {
            let mut builder = GlobSetBuilder::new();
            for glob in globs {
                let compiled = build_glob(glob).map_err(|e| {
                    ConfigError::at(
                        &self.path,
                        None,
                        format!("invalid glob `{glob}` in `{field}`: {}", e.kind()),
                    )
                })?;
                builder.add(compiled);
            }
            builder
                .build()
                .map_err(|e| ConfigError::at(&self.path, None, format!("`{field}`: {}", e.kind())))
        };
        // The include globs of a common shape are matched by their literal parts, the
        // others by globset.
        let shapes: Vec<Option<Shape>> = include.iter().map(|g| Shape::of(g)).collect();
        let mut others =
            (include.iter().zip(&shapes)).filter_map(|(g, s)| s.is_none().then_some(g));
        Ok(PathMatcher {
            include: set(&mut others, "paths.include")?,
            include_shapes: shapes.into_iter().flatten().collect(),
            exclude: set(&mut self.exclude.iter(), "paths.exclude")?,
            surface_profile: set(
                &mut self.surface_profile.iter().map(|(g, _)| g),
                "paths.surface_profile",
            )?,
            surface_profile_values: self
                .surface_profile
                .iter()
                .map(|(_, v)| v.clone())
                .collect(),
            locale: set(&mut self.locale.iter().map(|(g, _)| g), "paths.locale")?,
            locale_values: self.locale.iter().map(|(_, v)| v.clone()).collect(),
            named: None,
            shard: None,
        })
    }
}

/// The config's globs, compiled. Paths are root-relative with `/` separators.
#[derive(Clone, Debug)]
pub struct PathMatcher {
    /// The include globs other than those in `include_shapes`.
    include: GlobSet,
    include_shapes: Vec<Shape>,
    exclude: GlobSet,
    surface_profile: GlobSet,
    surface_profile_values: Vec<String>,
    locale: GlobSet,
    locale_values: Vec<String>,
    /// The paths named on the command line, if any: then nothing else is in scope.
    named: Option<Arc<Named>>,
    /// `--shard K/N`: only the files of that shard are in scope.
    shard: Option<crate::shard::Shard>,
}

/// Paths named on the command line (as pre-commit passes them), root-relative: files, and
/// directories whose files are meant. They narrow the scope and never widen it: a named
/// file the globs leave out is not audited, as a walk would not audit it (ruff's
/// `--force-exclude`, always on).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Named {
    pub files: BTreeSet<String>,
    /// `""` for the root itself.
    pub dirs: BTreeSet<String>,
}

impl Named {
    fn admits(&self, rel: &str) -> bool {
        self.files.contains(rel)
            || self.dirs.iter().any(|d| {
                d.is_empty() || (rel.starts_with(d.as_str()) && rel[d.len()..].starts_with('/'))
            })
    }
}

impl PathMatcher {
    pub fn is_included(&self, rel_path: &str) -> bool {
        (self.include_shapes.iter().any(|s| s.matches(rel_path)) || self.include.is_match(rel_path))
            && !self.exclude.is_match(rel_path)
            && self.named.as_ref().is_none_or(|n| n.admits(rel_path))
            && self.shard.is_none_or(|s| s.holds(rel_path))
    }

    /// This matcher narrowed to one shard of the files it includes.
    pub fn in_shard(mut self, shard: crate::shard::Shard) -> PathMatcher {
        self.shard = Some(shard);
        self
    }

    /// The shard the scope is narrowed to, if any.
    pub fn shard(&self) -> Option<crate::shard::Shard> {
        self.shard
    }

    /// This matcher narrowed to `named`.
    pub fn only(mut self, named: Named) -> PathMatcher {
        self.named = Some(Arc::new(named));
        self
    }

    /// The named paths, when the scope is narrowed to them.
    pub fn named(&self) -> Option<&Named> {
        self.named.as_deref()
    }

    /// The language `paths.locale` gives the file, from the first glob that matches.
    pub fn locale_for(&self, rel: &str) -> Option<&str> {
        first_match(&self.locale, rel).map(|i| self.locale_values[i].as_str())
    }

    /// The surface profile `paths.surface_profile` gives the file (first match).
    pub fn surface_profile_for(&self, rel: &str) -> Option<&str> {
        first_match(&self.surface_profile, rel).map(|i| self.surface_profile_values[i].as_str())
    }
}

fn first_match(set: &GlobSet, rel: &str) -> Option<usize> {
    set.matches(rel).into_iter().min()
}

/// `*` and `?` stay within one path component, as in the reference's glob library; `**`
/// crosses components. A leading `./` is dropped: paths are matched without it.
pub(super) fn build_glob(glob: &str) -> Result<globset::Glob, globset::Error> {
    GlobBuilder::new(without_dot_slash(glob))
        .literal_separator(true)
        .backslash_escape(true)
        .build()
}

/// `glob` as it is matched: without a leading `./`.
pub(super) fn without_dot_slash(glob: &str) -> &str {
    glob.strip_prefix("./").unwrap_or(glob)
}

/// Refuses a glob that does not compile, naming the field and the glob's position.
pub(super) fn check_glob(
    path: &Path,
    field: &str,
    glob: &str,
    at: Location,
) -> Result<(), ConfigError> {
    build_glob(glob).map(drop).map_err(|e| {
        ConfigError::at(
            path,
            Some(at),
            format!("invalid glob `{glob}` in `{field}`: {}", e.kind()),
        )
    })
}

/// Checks each glob of a list (see [`check_glob`]) and keeps their text.
pub(super) fn globs(
    path: &Path,
    field: &str,
    list: Vec<Spanned<String>>,
) -> Result<Vec<String>, ConfigError> {
    list.into_iter()
        .map(|g| check_glob(path, field, &g.value, g.referenced).map(|()| g.value))
        .collect()
}
