//! Turning the config's text into a [`Config`]: the YAML is read into its raw shapes, then
//! each setting is checked as it is taken from them, so that an error carries the position
//! of the value at fault.

use super::custom_rule::custom_rules;
use super::error::yaml_error;
use super::globs::{check_glob, globs};
use super::layer2::layer2;
use super::raw::{OneOrMany, Ordered, Raw, RawPaths, RawRemote, RawRules, RawSegment};
use super::unknown_keys::unknown_key_warnings;
use super::{
    Config, ConfigError, DEFAULT_CACHE_PATH, DEFAULT_IGNORE_MARKER, PROFILES, RemoteCacheConfig,
    SEVERITIES, SURFACE_PROFILES, is_code, profile_code,
};
use serde_saphyr::{Location, Spanned};
use std::path::{Path, PathBuf};

/// Checks the config text; `path` is where it came from, for messages and for the root.
/// `exists` answers whether a file the Layer 2 settings name exists (the shell asks the
/// file system; a missing one is a warning).
pub fn parse(
    text: &str,
    path: &Path,
    exists: &dyn Fn(&Path) -> bool,
) -> Result<Config, ConfigError> {
    let options = serde_saphyr::options! { with_snippet: false };
    let raw: Raw =
        serde_saphyr::from_str_with_options(text, options).map_err(|e| yaml_error(path, &e))?;
    let root = root_of(path);
    let language = language(path, raw.language)?;
    let extends = extends(path, raw.extends)?;
    let paths = paths(path, raw.paths.unwrap_or_default())?;
    let RawRules {
        style_guide,
        reject_list,
        examples,
        approved_terms,
        disable,
        severity,
    } = raw.rules.unwrap_or_default();
    let disable = disable
        .map(|l| l.into_iter().map(|s| s.value).collect())
        .unwrap_or_default();
    let severity = severities(path, severity)?;
    let custom_rules = custom_rules(path, raw.custom_rules)?;
    let ignore_marker = ignore_marker(path, raw.ignore_marker)?;
    let segment = segment(path, raw.segment.unwrap_or_default())?;
    let remote_cache = remote_cache(path, raw.remote_cache)?;
    let mut warnings = unknown_key_warnings(text, path);
    warnings.extend(globs_outside(&paths.include, "paths.include"));
    warnings.extend(globs_outside(&paths.exclude, "paths.exclude"));
    let layer2_rules = [
        ("style_guide", style_guide),
        ("reject_list", reject_list),
        ("examples", examples),
        ("approved_terms", approved_terms),
    ];
    let layer2 = layer2(
        path,
        &root,
        exists,
        layer2_rules,
        raw.voice_doctrine,
        raw.output,
        &mut warnings,
    )?;
    let mut config = Config {
        root,
        path: path.to_path_buf(),
        language,
        declared_profiles: Vec::new(),
        include: paths.include,
        exclude: paths.exclude,
        surface_profile: paths.surface_profile,
        locale: paths.locale,
        ignore_marker,
        cache_path: segment.cache_path,
        unknown_language_default: segment.unknown_language_default,
        disable,
        severity,
        custom_rules,
        layer2,
        remote_cache,
        warnings,
        extends,
    };
    config.declared_profiles = config.compute_declared_profiles();
    Ok(config)
}

/// `remote_cache`: the URL must be `grpc://` or `grpcs://` and name a host and port.
fn remote_cache(
    path: &Path,
    raw: Option<RawRemote>,
) -> Result<Option<RemoteCacheConfig>, ConfigError> {
    let Some(raw) = raw else { return Ok(None) };
    let url = raw.url;
    if let Err(why) = super::remote_address(&url.value) {
        return Err(fail(
            path,
            url.referenced,
            format!("remote_cache.url: {why}"),
        ));
    }
    Ok(Some(RemoteCacheConfig {
        url: url.value,
        instance: raw.instance.unwrap_or_default(),
        read_only: raw.read_only.unwrap_or(false),
        headers: raw.headers.unwrap_or_default().into_iter().collect(),
    }))
}

/// An error at the position of the value it is about.
fn fail(path: &Path, at: Location, message: String) -> ConfigError {
    ConfigError::at(path, Some(at), message)
}

/// The directory every relative path in the config resolves against: the config's own,
/// or `.` when `path` names none.
fn root_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `language`, the default language: a two-letter code, or an error at its line.
fn language(path: &Path, raw: Option<Spanned<String>>) -> Result<Option<String>, ConfigError> {
    match raw {
        Some(l) if !is_code(&l.value) => Err(fail(
            path,
            l.referenced,
            format!(
                "`language: {}` is not a two-letter language code such as cs or en",
                l.value
            ),
        )),
        Some(l) => Ok(Some(l.value)),
        None => Ok(None),
    }
}

/// `extends`: profiles named by name or code, resolved to codes, each kept once in the
/// order first named. An unknown profile is an error that lists the known ones.
fn extends(path: &Path, raw: Option<Spanned<OneOrMany>>) -> Result<Vec<String>, ConfigError> {
    let mut extends = Vec::new();
    if let Some(ext) = &raw {
        for name in &ext.value.items {
            let Some(code) = profile_code(name) else {
                let known: Vec<String> =
                    PROFILES.iter().map(|(n, c)| format!("{n} ({c})")).collect();
                return Err(fail(
                    path,
                    ext.referenced,
                    format!(
                        "unknown profile `{name}` in `extends`; known profiles: {}",
                        known.join(", ")
                    ),
                ));
            };
            if !extends.iter().any(|c| c == code) {
                extends.push(code.to_owned());
            }
        }
    }
    Ok(extends)
}

/// What `paths` says, checked: the [`Config`] fields of the same names.
struct PathSettings {
    include: Vec<String>,
    exclude: Vec<String>,
    surface_profile: Vec<(String, String)>,
    locale: Vec<(String, String)>,
}

/// `paths`: every glob is checked here, where its line is known (the matcher compiles
/// them again without it). An `include` written empty is refused; one left out stays
/// empty, and `--paths` must then supply the globs.
fn paths(path: &Path, raw: RawPaths) -> Result<PathSettings, ConfigError> {
    let include = match raw.include {
        Some(list) if list.value.is_empty() => {
            return Err(fail(
                path,
                list.referenced,
                "`paths.include` is empty; list at least one glob".to_owned(),
            ));
        }
        Some(list) => globs(path, "paths.include", list.value)?,
        None => Vec::new(),
    };
    let exclude = globs(
        path,
        "paths.exclude",
        raw.exclude.map(|l| l.value).unwrap_or_default(),
    )?;
    Ok(PathSettings {
        include,
        exclude,
        surface_profile: surface_profiles(path, raw.surface_profile)?,
        locale: locales(path, raw.locale)?,
    })
}

/// `paths.surface_profile`: glob → surface profile, kept in file order because the first
/// glob that matches a file decides.
fn surface_profiles(
    path: &Path,
    raw: Option<Ordered<Spanned<String>>>,
) -> Result<Vec<(String, String)>, ConfigError> {
    let mut surface_profile = Vec::new();
    for (glob, value) in raw.map(|m| m.0).unwrap_or_default() {
        check_glob(path, "paths.surface_profile", &glob, value.referenced)?;
        if !SURFACE_PROFILES.contains(&value.value.as_str()) {
            return Err(fail(
                path,
                value.referenced,
                format!(
                    "surface profile `{}` for `{glob}` is not participant, presenter or hybrid",
                    value.value
                ),
            ));
        }
        surface_profile.push((glob, value.value));
    }
    Ok(surface_profile)
}

/// `paths.locale`: glob → language code, kept in file order because the first glob that
/// matches a file decides.
fn locales(
    path: &Path,
    raw: Option<Ordered<Spanned<String>>>,
) -> Result<Vec<(String, String)>, ConfigError> {
    let mut locale = Vec::new();
    for (glob, value) in raw.map(|m| m.0).unwrap_or_default() {
        check_glob(path, "paths.locale", &glob, value.referenced)?;
        if !is_code(&value.value) {
            return Err(fail(
                path,
                value.referenced,
                format!(
                    "locale `{}` for `{glob}` is not a two-letter language code",
                    value.value
                ),
            ));
        }
        locale.push((glob, value.value));
    }
    Ok(locale)
}

/// `rules.severity`: rule id → level, in file order. A level that is not a severity would
/// silently change a verdict, so it is an error.
fn severities(
    path: &Path,
    raw: Option<Ordered<Spanned<String>>>,
) -> Result<Vec<(String, String)>, ConfigError> {
    let mut severity = Vec::new();
    for (id, level) in raw.map(|m| m.0).unwrap_or_default() {
        if !SEVERITIES.contains(&level.value.as_str()) {
            return Err(fail(
                path,
                level.referenced,
                format!(
                    "severity `{}` for rule `{id}` is not error, warning or info",
                    level.value
                ),
            ));
        }
        severity.push((id, level.value));
    }
    Ok(severity)
}

/// `ignore_marker`, or [`DEFAULT_IGNORE_MARKER`] when it is left out; a blank one is
/// refused.
fn ignore_marker(path: &Path, raw: Option<Spanned<String>>) -> Result<String, ConfigError> {
    match raw {
        Some(m) if m.value.trim().is_empty() => Err(fail(
            path,
            m.referenced,
            "`ignore_marker` is empty".to_owned(),
        )),
        Some(m) => Ok(m.value),
        None => Ok(DEFAULT_IGNORE_MARKER.to_owned()),
    }
}

/// What `segment` says, checked: the [`Config`] fields of the same names.
struct SegmentSettings {
    cache_path: String,
    unknown_language_default: bool,
}

/// `segment`: where the lockfile is, which must be a path inside the root (the default
/// [`DEFAULT_CACHE_PATH`]), and what spans tagged `unknown` do (`skip`, the default, or
/// `default`).
fn segment(path: &Path, raw: RawSegment) -> Result<SegmentSettings, ConfigError> {
    let cache_path = match raw.cache_path {
        Some(p) if p.value.trim().is_empty() => {
            return Err(fail(
                path,
                p.referenced,
                "`segment.cache_path` is empty".to_owned(),
            ));
        }
        Some(p) if !crate::relpath::stays_inside(&p.value) => {
            return Err(fail(
                path,
                p.referenced,
                format!(
                    "`segment.cache_path` is `{}`, outside the root; it must be a path \
                     inside it",
                    p.value
                ),
            ));
        }
        Some(p) => p.value,
        None => DEFAULT_CACHE_PATH.to_owned(),
    };
    let unknown_language_default = match raw.unknown_language {
        Some(u) if u.value == "default" => true,
        Some(u) if u.value == "skip" => false,
        Some(u) => {
            return Err(fail(
                path,
                u.referenced,
                format!(
                    "`segment.unknown_language: {}` is neither skip nor default",
                    u.value
                ),
            ));
        }
        None => false,
    };
    Ok(SegmentSettings {
        cache_path,
        unknown_language_default,
    })
}

/// Globs are matched against clean root-relative paths, so one that starts at `/` or has
/// a `..` component (`../x/**`, meant to reach outside the root) can never match: worth a
/// warning, where silence would look like an empty tree.
fn globs_outside(globs: &[String], field: &str) -> Vec<String> {
    globs
        .iter()
        .filter(|g| g.starts_with('/') || g.split('/').any(|part| part == ".."))
        .map(|g| {
            format!(
                "`{field}`: `{g}` can never match: paths are matched relative to the \
                 root, without `..` or a leading `/`"
            )
        })
        .collect()
}
