//! `.copy-editor.yaml`: what to audit, in which language, and what to pass to the agent.
//!
//! Reading is strict where a mistake would silently change a verdict (an unknown profile, a
//! bad glob, a severity that is not a severity) and lenient where it would not (an unknown
//! key is a warning, so configs written for newer versions still load). Every error is one
//! sentence with the file and, where the YAML parser knows it, the line and column.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use lockgraph_queries::copy::lockfile::Kind;
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{Location, MessageFormatter, Spanned, UserMessageFormatter};
use std::fmt;
use std::path::{Path, PathBuf};

pub const CONFIG_FILE_NAME: &str = ".copy-editor.yaml";
pub const DEFAULT_IGNORE_MARKER: &str = "copy-editor: ignore";
pub const DEFAULT_CACHE_PATH: &str = ".copy-editor.lock.json";

/// Language profiles by name and code; `extends` accepts either spelling.
pub const PROFILES: &[(&str, &str)] = &[("czech", "cs"), ("english", "en")];

const SURFACE_PROFILES: &[&str] = &["participant", "presenter", "hybrid"];
const SEVERITIES: &[&str] = &["error", "warning", "info"];

/// A regex rule declared in the config; the rule engine compiles and runs it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CustomRuleConfig {
    pub id: String,
    pub pattern: String,
    pub message: String,
    /// `error`, `warning` or `info`.
    pub severity: String,
    /// Language codes the rule is scoped to; empty (left out) runs it in every language.
    pub languages: Vec<String>,
    /// Span kinds the rule runs in; empty (left out) means the engine's default.
    pub kinds: Vec<String>,
    pub replacement: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The directory of the config file: every relative path resolves against it.
    pub root: PathBuf,
    pub path: PathBuf,
    /// The default language; `None` only until [`Config::with_language_override`].
    pub language: Option<String>,
    /// The profiles the segmenter is told about: `extends`, else `[language]`, else all.
    pub declared_profiles: Vec<String>,
    /// Empty when the config has none; `--paths` must then supply them.
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    /// Glob → `participant` | `presenter` | `hybrid`, in file order (the first match wins).
    pub surface_profile: Vec<(String, String)>,
    /// Glob → language code, in file order (the first match wins).
    pub locale: Vec<(String, String)>,
    pub ignore_marker: String,
    /// Relative to `root`.
    pub cache_path: String,
    /// `segment.unknown_language: default`: spans tagged `unknown` take the default
    /// language instead of skipping language-scoped rules.
    pub unknown_language_default: bool,
    /// Rule ids to switch off. Not checked against the rule list here: the shell knows it.
    pub disable: Vec<String>,
    /// Rule id → `error` | `warning` | `info`, in file order.
    pub severity: Vec<(String, String)>,
    pub custom_rules: Vec<CustomRuleConfig>,
    /// Layer 2 material for the agent, shaped as in the YAML: `rules.style_guide`,
    /// `rules.reject_list`, `rules.examples`, `rules.approved_terms`, `voice_doctrine`,
    /// `output`. Never interpreted.
    pub layer2: serde_json::Value,
    /// Things worth telling the user that do not stop the run.
    pub warnings: Vec<String>,
    /// `extends` resolved to codes, kept to recompute `declared_profiles` once the
    /// language is final.
    extends: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The config file; `None` for mistakes on the command line.
    pub path: Option<PathBuf>,
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub message: String,
}

impl ConfigError {
    fn at(path: &Path, location: Option<Location>, message: impl Into<String>) -> ConfigError {
        let known = location.filter(|l| l.line() > 0);
        ConfigError {
            path: Some(path.to_path_buf()),
            line: known.map(|l| l.line()),
            column: known.map(|l| l.column()),
            message: message.into(),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.path {
            write!(f, "{}", path.display())?;
            if let Some(line) = self.line {
                write!(f, ":{line}")?;
                if let Some(column) = self.column {
                    write!(f, ":{column}")?;
                }
            }
            f.write_str(": ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

/// Reads and checks a config file. The language may still be missing: see
/// [`Config::with_language_override`].
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = crate::fsutil::read_regular_to_string(path)
        .map_err(|e| ConfigError::at(path, None, format!("cannot read the config: {e}")))?;
    parse(&text, path)
}

/// The nearest `.copy-editor.yaml` in `start` or one of its ancestors. `start` should be
/// absolute: a relative path is only walked up as far as it goes.
pub fn discover(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join(CONFIG_FILE_NAME))
        .find(|candidate| candidate.is_file())
}

/// Checks the config text; `path` is where it came from, for messages and for the root.
pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
    let options = serde_saphyr::options! { with_snippet: false };
    let raw: Raw =
        serde_saphyr::from_str_with_options(text, options).map_err(|e| yaml_error(path, &e))?;
    let root = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let fail = |at: Location, message: String| ConfigError::at(path, Some(at), message);

    let language = match raw.language {
        Some(l) if !is_code(&l.value) => {
            return Err(fail(
                l.referenced,
                format!(
                    "`language: {}` is not a two-letter language code such as cs or en",
                    l.value
                ),
            ));
        }
        Some(l) => Some(l.value),
        None => None,
    };

    let mut extends = Vec::new();
    if let Some(ext) = &raw.extends {
        for name in &ext.value.items {
            let Some(code) = profile_code(name) else {
                let known: Vec<String> =
                    PROFILES.iter().map(|(n, c)| format!("{n} ({c})")).collect();
                return Err(fail(
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

    let paths = raw.paths.unwrap_or_default();
    let include = match paths.include {
        Some(list) if list.value.is_empty() => {
            return Err(fail(
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
        paths.exclude.map(|l| l.value).unwrap_or_default(),
    )?;
    let mut surface_profile = Vec::new();
    for (glob, value) in paths.surface_profile.map(|m| m.0).unwrap_or_default() {
        check_glob(path, "paths.surface_profile", &glob, value.referenced)?;
        if !SURFACE_PROFILES.contains(&value.value.as_str()) {
            return Err(fail(
                value.referenced,
                format!(
                    "surface profile `{}` for `{glob}` is not participant, presenter or hybrid",
                    value.value
                ),
            ));
        }
        surface_profile.push((glob, value.value));
    }
    let mut locale = Vec::new();
    for (glob, value) in paths.locale.map(|m| m.0).unwrap_or_default() {
        check_glob(path, "paths.locale", &glob, value.referenced)?;
        if !is_code(&value.value) {
            return Err(fail(
                value.referenced,
                format!(
                    "locale `{}` for `{glob}` is not a two-letter language code",
                    value.value
                ),
            ));
        }
        locale.push((glob, value.value));
    }

    let rules = raw.rules.unwrap_or_default();
    let disable = rules
        .disable
        .map(|l| l.into_iter().map(|s| s.value).collect())
        .unwrap_or_default();
    let mut severity = Vec::new();
    for (id, level) in rules.severity.map(|m| m.0).unwrap_or_default() {
        if !SEVERITIES.contains(&level.value.as_str()) {
            return Err(fail(
                level.referenced,
                format!(
                    "severity `{}` for rule `{id}` is not error, warning or info",
                    level.value
                ),
            ));
        }
        severity.push((id, level.value));
    }

    let mut custom_rules: Vec<CustomRuleConfig> = Vec::new();
    for rule in raw.custom_rules.unwrap_or_default() {
        let at = rule.referenced;
        let rule = custom_rule(rule.value).map_err(|message| fail(at, message))?;
        if custom_rules.iter().any(|r| r.id == rule.id) {
            return Err(fail(
                at,
                format!("custom rule id `{}` is used twice", rule.id),
            ));
        }
        custom_rules.push(rule);
    }

    let ignore_marker = match raw.ignore_marker {
        Some(m) if m.value.trim().is_empty() => {
            return Err(fail(m.referenced, "`ignore_marker` is empty".to_owned()));
        }
        Some(m) => m.value,
        None => DEFAULT_IGNORE_MARKER.to_owned(),
    };
    let segment = raw.segment.unwrap_or_default();
    let cache_path = match segment.cache_path {
        Some(p) if p.value.trim().is_empty() => {
            return Err(fail(
                p.referenced,
                "`segment.cache_path` is empty".to_owned(),
            ));
        }
        Some(p) if !crate::fsutil::stays_inside(&p.value) => {
            return Err(fail(
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
    let unknown_language_default = match segment.unknown_language {
        Some(u) if u.value == "default" => true,
        Some(u) if u.value == "skip" => false,
        Some(u) => {
            return Err(fail(
                u.referenced,
                format!(
                    "`segment.unknown_language: {}` is neither skip nor default",
                    u.value
                ),
            ));
        }
        None => false,
    };

    let mut warnings = unknown_key_warnings(text, path);
    let mut layer2_rules = serde_json::Map::new();
    for (name, field) in [
        ("style_guide", rules.style_guide),
        ("reject_list", rules.reject_list),
        ("examples", rules.examples),
        ("approved_terms", rules.approved_terms),
    ] {
        if let Some(field) = field {
            let key = format!("rules.{name}");
            warnings.extend(missing_files(&root, &key, &field.value));
            layer2_rules.insert(name.to_owned(), field.value.into_json());
        }
    }
    let mut layer2 = serde_json::Map::new();
    if !layer2_rules.is_empty() {
        layer2.insert("rules".to_owned(), layer2_rules.into());
    }
    if let Some(doctrine) = raw.voice_doctrine {
        warnings.extend(missing_files(&root, "voice_doctrine", &doctrine.value));
        layer2.insert("voice_doctrine".to_owned(), doctrine.value.into_json());
    }
    if let Some(output) = raw.output {
        match output.value {
            serde_json::Value::Object(_) => {
                layer2.insert("output".to_owned(), output.value);
            }
            serde_json::Value::Null => {}
            _ => {
                return Err(fail(
                    output.referenced,
                    "`output` must be a mapping".to_owned(),
                ));
            }
        }
    }

    let mut config = Config {
        root,
        path: path.to_path_buf(),
        language,
        declared_profiles: Vec::new(),
        include,
        exclude,
        surface_profile,
        locale,
        ignore_marker,
        cache_path,
        unknown_language_default,
        disable,
        severity,
        custom_rules,
        layer2: layer2.into(),
        warnings,
        extends,
    };
    config.declared_profiles = config.compute_declared_profiles();
    Ok(config)
}

impl Config {
    /// Applies `--lang` (which wins over the file) and requires a language from one of
    /// the two: without it, text outside every span would have no language.
    pub fn with_language_override(mut self, lang: Option<&str>) -> Result<Config, ConfigError> {
        if let Some(lang) = lang {
            if !is_code(lang) {
                return Err(ConfigError {
                    path: None,
                    line: None,
                    column: None,
                    message: format!(
                        "`--lang {lang}` is not a two-letter language code such as cs or en"
                    ),
                });
            }
            self.language = Some(lang.to_owned());
        }
        if self.language.is_none() {
            return Err(ConfigError::at(
                &self.path,
                None,
                "no default language: set `language:` (for example `language: cs`) or pass `--lang`",
            ));
        }
        self.declared_profiles = self.compute_declared_profiles();
        Ok(self)
    }

    fn compute_declared_profiles(&self) -> Vec<String> {
        if !self.extends.is_empty() {
            self.extends.clone()
        } else if let Some(language) = &self.language {
            vec![language.clone()]
        } else {
            PROFILES
                .iter()
                .map(|(_, code)| (*code).to_owned())
                .collect()
        }
    }

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
        Ok(PathMatcher {
            include: set(&mut include.iter(), "paths.include")?,
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
        })
    }
}

/// The config's globs, compiled. Paths are root-relative with `/` separators.
#[derive(Clone, Debug)]
pub struct PathMatcher {
    include: GlobSet,
    exclude: GlobSet,
    surface_profile: GlobSet,
    surface_profile_values: Vec<String>,
    locale: GlobSet,
    locale_values: Vec<String>,
}

impl PathMatcher {
    pub fn is_included(&self, rel_path: &str) -> bool {
        self.include.is_match(rel_path) && !self.exclude.is_match(rel_path)
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
fn build_glob(glob: &str) -> Result<globset::Glob, globset::Error> {
    let glob = glob.strip_prefix("./").unwrap_or(glob);
    GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
}

fn check_glob(path: &Path, field: &str, glob: &str, at: Location) -> Result<(), ConfigError> {
    build_glob(glob).map(drop).map_err(|e| {
        ConfigError::at(
            path,
            Some(at),
            format!("invalid glob `{glob}` in `{field}`: {}", e.kind()),
        )
    })
}

fn globs(path: &Path, field: &str, list: Vec<Spanned<String>>) -> Result<Vec<String>, ConfigError> {
    list.into_iter()
        .map(|g| check_glob(path, field, &g.value, g.referenced).map(|()| g.value))
        .collect()
}

fn is_code(s: &str) -> bool {
    s.len() == 2 && s.bytes().all(|b| b.is_ascii_lowercase())
}

fn profile_code(name: &str) -> Option<&'static str> {
    PROFILES
        .iter()
        .find(|(n, c)| *n == name || *c == name)
        .map(|(_, c)| *c)
}

/// What a replacement writes whatever the match: its text without the capture references
/// (`$1`, `$name`, `${name}`), `$$` being a `$`.
fn replacement_literal(replacement: &str) -> String {
    let mut out = String::new();
    let mut rest = replacement;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        rest = if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            tail
        } else if let Some(braced) = after.strip_prefix('{') {
            braced.find('}').map_or("", |end| &braced[end + 1..])
        } else {
            after.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_')
        };
    }
    out.push_str(rest);
    out
}

fn custom_rule(raw: RawCustomRule) -> Result<CustomRuleConfig, String> {
    let id = raw.id;
    if id.trim().is_empty() {
        return Err("a custom rule has an empty `id`".to_owned());
    }
    if !SEVERITIES.contains(&raw.severity.as_str()) {
        return Err(format!(
            "severity `{}` of custom rule `{id}` is not error, warning or info",
            raw.severity
        ));
    }
    let pattern = match regex::Regex::new(&raw.pattern) {
        Ok(pattern) => pattern,
        Err(e) => {
            // The regex error draws a caret diagram over several lines; keep its last line.
            let shown = e.to_string();
            let last = shown.lines().last().unwrap_or_default().trim();
            let reason = last.strip_prefix("error: ").unwrap_or(last).to_owned();
            return Err(format!(
                "the pattern of custom rule `{id}` is not a valid regex: {reason}"
            ));
        }
    };
    if let Some(replacement) = &raw.replacement
        && let literal = replacement_literal(replacement)
        && pattern.find_iter(&literal).any(|m| !m.is_empty())
    {
        return Err(format!(
            "the replacement of custom rule `{id}` matches its own pattern: each fix would \
             make another, and `--fix` would never settle"
        ));
    }
    // An empty list would read as "nowhere"; leaving the key out says "everywhere".
    for (name, list) in [("languages", &raw.languages), ("kinds", &raw.kinds)] {
        if list.as_ref().is_some_and(Vec::is_empty) {
            return Err(format!(
                "custom rule `{id}`: `{name}` is an empty list; leave it out to apply everywhere"
            ));
        }
    }
    if let Some(bad) = raw.languages.iter().flatten().find(|l| !is_code(l)) {
        return Err(format!(
            "custom rule `{id}`: language `{bad}` is not a two-letter language code"
        ));
    }
    if let Some(bad) = raw
        .kinds
        .iter()
        .flatten()
        .find(|k| Kind::parse(k).is_none())
    {
        return Err(format!(
            "custom rule `{id}`: kind `{bad}` is not prose, code, quote or data"
        ));
    }
    Ok(CustomRuleConfig {
        id,
        pattern: raw.pattern,
        message: raw.message,
        severity: raw.severity,
        languages: raw.languages.unwrap_or_default(),
        kinds: raw.kinds.unwrap_or_default(),
        replacement: raw.replacement,
    })
}

/// Layer 2 files are the agent's to read, so a missing one is worth a warning but must not
/// stop the Layer 1 audit. Only values that are paths are checked: `voice_doctrine` is
/// usually the doctrine itself (several lines of prose), and a `#anchor` names a heading
/// inside the file (`style-examples.md#approved-english-terms`), so it is dropped first.
fn missing_files(root: &Path, key: &str, paths: &OneOrMany) -> Vec<String> {
    paths
        .items
        .iter()
        .filter(|p| looks_like_path(p))
        .filter(|p| {
            !root
                .join(p.split_once('#').map_or(p.as_str(), |(file, _)| file))
                .exists()
        })
        .map(|p| {
            format!(
                "`{key}`: {p} does not exist (relative to {})",
                root.display()
            )
        })
        .collect()
}

/// One line without blanks that names a directory or has an extension: a path, where a
/// sentence of doctrine is not.
fn looks_like_path(value: &str) -> bool {
    let value = value.trim();
    !value.is_empty()
        && !value.chars().any(char::is_whitespace)
        && (value.contains('/')
            || value
                .rsplit_once('.')
                .is_some_and(|(_, ext)| !ext.is_empty()))
}

fn yaml_error(path: &Path, e: &serde_saphyr::Error) -> ConfigError {
    let e = e.without_snippet();
    // The parser names its internal events; say what the author has to write instead.
    let message = match e {
        serde_saphyr::Error::Unexpected {
            expected: "sequence start",
            ..
        } => "expected a list here".to_owned(),
        serde_saphyr::Error::Unexpected {
            expected: "mapping start",
            ..
        } => "expected a mapping here".to_owned(),
        _ => UserMessageFormatter
            .format_message(e)
            .chars()
            .flat_map(|c| {
                let escaped: Vec<char> = if c.is_control() {
                    c.escape_debug().collect()
                } else {
                    vec![c]
                };
                escaped
            })
            .collect(),
    };
    ConfigError::at(path, e.location(), message)
}

fn unknown_key_warnings(text: &str, path: &Path) -> Vec<String> {
    const TOP: &[&str] = &[
        "language",
        "extends",
        "paths",
        "rules",
        "voice_doctrine",
        "output",
        "ignore_marker",
        "segment",
        "custom_rules",
    ];
    const PATHS: &[&str] = &["include", "exclude", "surface_profile", "locale"];
    const RULES: &[&str] = &[
        "style_guide",
        "reject_list",
        "examples",
        "approved_terms",
        "disable",
        "severity",
    ];
    const SEGMENT: &[&str] = &["cache_path", "unknown_language"];
    const CUSTOM: &[&str] = &[
        "id",
        "pattern",
        "message",
        "severity",
        "languages",
        "kinds",
        "replacement",
    ];
    let file = path
        .file_name()
        .map_or_else(|| CONFIG_FILE_NAME.into(), |n| n.to_string_lossy());
    // The typed read already succeeded, so this one only fails on exotic keys; then there
    // is simply nothing to warn about.
    let Ok(Node::Map(top)) = serde_saphyr::from_str::<Node>(text) else {
        return Vec::new();
    };
    let mut unknown = Vec::new();
    for (key, value) in &top {
        if !TOP.contains(&key.as_str()) {
            unknown.push(key.clone());
            continue;
        }
        let nested = match key.as_str() {
            "paths" => PATHS,
            "rules" => RULES,
            "segment" => SEGMENT,
            "custom_rules" => {
                if let Node::Seq(items) = value {
                    for (i, item) in items.iter().enumerate() {
                        for k in item.unknown_keys(CUSTOM) {
                            unknown.push(format!("custom_rules[{i}].{k}"));
                        }
                    }
                }
                continue;
            }
            _ => continue,
        };
        for k in value.unknown_keys(nested) {
            unknown.push(format!("{key}.{k}"));
        }
    }
    unknown
        .into_iter()
        .map(|k| format!("unknown key `{k}` in {file}, ignored"))
        .collect()
}

#[derive(Default, Deserialize)]
#[serde(default, expecting = "a mapping of settings")]
struct Raw {
    language: Option<Spanned<String>>,
    extends: Option<Spanned<OneOrMany>>,
    paths: Option<RawPaths>,
    rules: Option<RawRules>,
    voice_doctrine: Option<Spanned<OneOrMany>>,
    output: Option<Spanned<serde_json::Value>>,
    ignore_marker: Option<Spanned<String>>,
    segment: Option<RawSegment>,
    custom_rules: Option<Vec<Spanned<RawCustomRule>>>,
}

#[derive(Default, Deserialize)]
#[serde(
    default,
    expecting = "a mapping with include, exclude, surface_profile or locale"
)]
struct RawPaths {
    include: Option<Spanned<Vec<Spanned<String>>>>,
    exclude: Option<Spanned<Vec<Spanned<String>>>>,
    surface_profile: Option<Ordered<Spanned<String>>>,
    locale: Option<Ordered<Spanned<String>>>,
}

#[derive(Default, Deserialize)]
#[serde(default, expecting = "a mapping of rule settings")]
struct RawRules {
    style_guide: Option<Spanned<OneOrMany>>,
    reject_list: Option<Spanned<OneOrMany>>,
    examples: Option<Spanned<OneOrMany>>,
    approved_terms: Option<Spanned<OneOrMany>>,
    disable: Option<Vec<Spanned<String>>>,
    severity: Option<Ordered<Spanned<String>>>,
}

#[derive(Default, Deserialize)]
#[serde(default, expecting = "a mapping with cache_path or unknown_language")]
struct RawSegment {
    cache_path: Option<Spanned<String>>,
    unknown_language: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(expecting = "a custom rule mapping")]
struct RawCustomRule {
    id: String,
    pattern: String,
    message: String,
    severity: String,
    #[serde(default)]
    languages: Option<Vec<String>>,
    #[serde(default)]
    kinds: Option<Vec<String>>,
    #[serde(default)]
    replacement: Option<String>,
}

/// A string or a list of strings, as YAML authors write either for a single item.
#[derive(Debug, Default)]
struct OneOrMany {
    items: Vec<String>,
    /// Written as a bare string rather than a list.
    single: bool,
}

impl OneOrMany {
    /// Back in the shape it was written, for passing through to the agent.
    fn into_json(self) -> serde_json::Value {
        match (self.single, self.items) {
            (true, mut items) if items.len() == 1 => serde_json::Value::from(items.remove(0)),
            (_, items) => serde_json::Value::from(items),
        }
    }
}

impl<'de> Deserialize<'de> for OneOrMany {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OneOrMany;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a list of strings")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<OneOrMany, E> {
                Ok(OneOrMany {
                    items: vec![v.to_owned()],
                    single: true,
                })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OneOrMany, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<String>()? {
                    items.push(item);
                }
                Ok(OneOrMany {
                    items,
                    single: false,
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// A mapping read in file order, because "the first glob that matches" depends on it.
#[derive(Debug)]
struct Ordered<V>(Vec<(String, V)>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Ordered<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Vis<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for Vis<V> {
            type Value = Ordered<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered<V>, A::Error> {
                let mut items = Vec::new();
                while let Some(entry) = map.next_entry::<String, V>()? {
                    items.push(entry);
                }
                Ok(Ordered(items))
            }
        }
        d.deserialize_map(Vis(std::marker::PhantomData))
    }
}

/// The key structure of a YAML document, for spotting unknown keys.
enum Node {
    Map(Vec<(String, Node)>),
    Seq(Vec<Node>),
    Scalar,
}

impl Node {
    fn unknown_keys<'a>(&'a self, known: &'a [&str]) -> impl Iterator<Item = &'a String> + 'a {
        let keys: &[(String, Node)] = match self {
            Node::Map(entries) => entries,
            Node::Seq(_) | Node::Scalar => &[],
        };
        keys.iter()
            .map(|(k, _)| k)
            .filter(move |k| !known.contains(&k.as_str()))
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_none<E: de::Error>(self) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
                Node::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Node::Seq(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut entries = Vec::new();
                while let Some((key, value)) = map.next_entry::<KeyName, Node>()? {
                    entries.push((key.0, value));
                }
                Ok(Node::Map(entries))
            }
        }
        d.deserialize_any(V)
    }
}

/// A mapping key of any scalar type, as text.
struct KeyName(String);

impl<'de> Deserialize<'de> for KeyName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<KeyName, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = KeyName;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a scalar key")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<KeyName, E> {
                Ok(KeyName(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<KeyName, E> {
                Ok(KeyName(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<KeyName, E> {
                Ok(KeyName(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<KeyName, E> {
                Ok(KeyName(v.to_string()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<KeyName, E> {
                Ok(KeyName(v.to_owned()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<KeyName, E> {
                Ok(KeyName("~".to_owned()))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(text: &str) -> Result<Config, ConfigError> {
        parse(text, Path::new("/nonexistent/repo/.copy-editor.yaml"))
    }

    fn err(text: &str) -> ConfigError {
        cfg(text).expect_err("the config should be refused")
    }

    const FULL: &str = "\
language: cs
extends: [czech, english]
paths:
  include:
    - \"content/**/*.md\"
    - \"workshop-content/*.json\"
  exclude: [\"content/drafts/**\"]
  surface_profile:
    \"content/talks/**\": presenter
    \"content/**\": participant
  locale:
    \"**/en/**\": en
rules:
  style_guide: docs/style.md
  examples: [docs/good.md, docs/bad.md]
  disable: [cs-R7-sentence-case-heading]
  severity:
    cs-R6-dash: error
voice_doctrine: docs/voice.md
output:
  review_note: true
  format: markdown
ignore_marker: \"lint: off\"
segment:
  cache_path: .cache/spans.lock.json
  unknown_language: default
custom_rules:
  - id: cs-custom-tj
    pattern: 't\\. j\\.'
    message: use tj.
    severity: warning
    languages: [cs]
    kinds: [prose, quote]
    replacement: tj.
";

    #[test]
    fn a_full_config_reads_every_field() {
        let c = cfg(FULL).unwrap().with_language_override(None).unwrap();
        assert_eq!(c.root, Path::new("/nonexistent/repo"));
        assert_eq!(c.language.as_deref(), Some("cs"));
        assert_eq!(c.declared_profiles, ["cs", "en"]);
        assert_eq!(c.include, ["content/**/*.md", "workshop-content/*.json"]);
        assert_eq!(c.exclude, ["content/drafts/**"]);
        assert_eq!(
            c.surface_profile,
            [
                ("content/talks/**".to_owned(), "presenter".to_owned()),
                ("content/**".to_owned(), "participant".to_owned())
            ]
        );
        assert_eq!(c.locale, [("**/en/**".to_owned(), "en".to_owned())]);
        assert_eq!(c.ignore_marker, "lint: off");
        assert_eq!(c.cache_path, ".cache/spans.lock.json");
        assert!(c.unknown_language_default);
        assert_eq!(c.disable, ["cs-R7-sentence-case-heading"]);
        assert_eq!(c.severity, [("cs-R6-dash".to_owned(), "error".to_owned())]);
        assert_eq!(
            c.custom_rules,
            [CustomRuleConfig {
                id: "cs-custom-tj".to_owned(),
                pattern: "t\\. j\\.".to_owned(),
                message: "use tj.".to_owned(),
                severity: "warning".to_owned(),
                languages: vec!["cs".to_owned()],
                kinds: vec!["prose".to_owned(), "quote".to_owned()],
                replacement: Some("tj.".to_owned()),
            }]
        );
        assert_eq!(
            c.layer2,
            serde_json::json!({
                "rules": {"style_guide": "docs/style.md", "examples": ["docs/good.md", "docs/bad.md"]},
                "voice_doctrine": "docs/voice.md",
                "output": {"review_note": true, "format": "markdown"}
            })
        );
        // The Layer 2 files do not exist under the fake root: warnings, not errors.
        assert_eq!(c.warnings.len(), 4, "{:?}", c.warnings);
        assert!(c.warnings[0].contains("`rules.style_guide`: docs/style.md does not exist"));
    }

    #[test]
    fn defaults() {
        let c = cfg("language: en\npaths:\n  include: ['**/*.md']\n").unwrap();
        assert_eq!(c.ignore_marker, "copy-editor: ignore");
        assert_eq!(c.cache_path, ".copy-editor.lock.json");
        assert!(!c.unknown_language_default);
        assert_eq!(c.declared_profiles, ["en"]);
        assert_eq!(c.layer2, serde_json::json!({}));
        assert!(c.warnings.is_empty());
        assert!(c.custom_rules.is_empty());
    }

    #[test]
    fn declared_profiles_fall_back_to_every_profile_until_the_language_is_known() {
        let c = cfg("paths:\n  include: ['*.md']\n").unwrap();
        assert_eq!(c.language, None);
        assert_eq!(c.declared_profiles, ["cs", "en"]);
        let c = c.with_language_override(Some("en")).unwrap();
        assert_eq!(c.declared_profiles, ["en"]);
        let c = cfg("extends: english\nlanguage: cs\n").unwrap();
        assert_eq!(c.declared_profiles, ["en"]);
        let c = cfg("extends: [cs, czech, en]\n").unwrap();
        assert_eq!(c.declared_profiles, ["cs", "en"]);
    }

    #[test]
    fn the_language_override_wins_and_a_missing_language_names_lang() {
        let c = cfg("language: cs\n").unwrap();
        let c = c.with_language_override(Some("en")).unwrap();
        assert_eq!(c.language.as_deref(), Some("en"));
        let e = cfg("paths:\n  include: ['*.md']\n")
            .unwrap()
            .with_language_override(None)
            .unwrap_err();
        assert!(e.message.contains("--lang"), "{e}");
        assert!(
            e.to_string()
                .starts_with("/nonexistent/repo/.copy-editor.yaml: no default language"),
            "{e}"
        );
        let e = cfg("language: cs\n")
            .unwrap()
            .with_language_override(Some("Czech"))
            .unwrap_err();
        assert_eq!(e.path, None);
        assert!(e.message.contains("--lang Czech"), "{e}");
        let e = err("language: czech\n");
        assert!(e.message.contains("`language: czech`"), "{e}");
        assert_eq!((e.line, e.column), (Some(1), Some(11)));
    }

    #[test]
    fn invalid_yaml_reports_line_and_column() {
        let e = err("language: cs\npaths:\n  include: [\"a\n");
        assert!(e.line.is_some(), "{e:?}");
        let shown = e.to_string();
        assert!(
            shown.starts_with(&format!(
                "/nonexistent/repo/.copy-editor.yaml:{}:",
                e.line.unwrap()
            )),
            "{shown}"
        );
        assert!(!shown.contains('\n'), "{shown}");

        let e = err("language: cs\npaths:\n  include: 5\n");
        assert_eq!(e.line, Some(3), "{e}");
        let e = err("- a\n- b\n");
        assert!(e.message.contains("mapping"), "{e}");
    }

    #[test]
    fn unknown_profile_is_an_error() {
        let e = err("language: cs\nextends: [czech, german]\n");
        assert!(e.message.contains("unknown profile `german`"), "{e}");
        assert!(e.message.contains("czech (cs)"), "{e}");
        assert_eq!(e.line, Some(2));
    }

    #[test]
    fn an_empty_include_list_is_an_error_and_a_missing_one_needs_paths() {
        let e = err("language: cs\npaths:\n  include: []\n");
        assert!(e.message.contains("`paths.include` is empty"), "{e}");
        assert_eq!(e.line, Some(3));

        let c = cfg("language: cs\n").unwrap();
        let e = c.matcher(None).unwrap_err();
        assert!(e.message.contains("--paths"), "{e}");
        let m = c.matcher(Some(&["*.md".to_owned()])).unwrap();
        assert!(m.is_included("a.md"));
    }

    #[test]
    fn bad_globs_are_named() {
        let e = err("language: cs\npaths:\n  include:\n    - 'docs/**'\n    - 'docs/[a'\n");
        assert!(
            e.message
                .contains("invalid glob `docs/[a` in `paths.include`"),
            "{e}"
        );
        assert_eq!(e.line, Some(5));
        let e = err("language: cs\npaths:\n  exclude: ['{a,b']\n");
        assert!(e.message.contains("`{a,b`"), "{e}");
        let e = err("language: cs\npaths:\n  locale:\n    'x/[': en\n");
        assert!(e.message.contains("`paths.locale`"), "{e}");
        let c = cfg("language: cs\n").unwrap();
        let e = c.matcher(Some(&["a/[".to_owned()])).unwrap_err();
        assert!(e.message.contains("invalid glob `a/[` in --paths"), "{e}");
    }

    #[test]
    fn bad_values_are_refused_with_their_position() {
        let cases = [
            (
                "rules:\n  severity:\n    cs-R1-nbsp-prep: fatal\n",
                "severity `fatal` for rule `cs-R1-nbsp-prep` is not error, warning or info",
                3,
            ),
            (
                "paths:\n  surface_profile:\n    'a/**': audience\n",
                "surface profile `audience`",
                3,
            ),
            (
                "paths:\n  locale:\n    'a/**': english\n",
                "locale `english`",
                3,
            ),
            (
                "segment:\n  unknown_language: guess\n",
                "neither skip nor default",
                2,
            ),
            ("ignore_marker: ''\n", "`ignore_marker` is empty", 1),
            (
                "segment:\n  cache_path: ' '\n",
                "`segment.cache_path` is empty",
                2,
            ),
            ("output: loud\n", "`output` must be a mapping", 1),
        ];
        for (text, expect, line) in cases {
            let e = err(&format!("language: cs\n{text}"));
            assert!(e.message.contains(expect), "{text}: {e}");
            assert_eq!(e.line, Some(line + 1), "{text}: {e}");
        }
    }

    #[test]
    fn custom_rules_are_checked() {
        let rule = |extra: &str| {
            format!(
                "language: cs\ncustom_rules:\n  - id: x\n    pattern: 'a+'\n    message: m\n{extra}"
            )
        };
        assert!(cfg(&rule("    severity: info\n")).is_ok());
        let cases = [
            ("    severity: loud\n", "severity `loud` of custom rule `x`"),
            ("", "missing field `severity`"),
            (
                "    severity: info\n    languages: [czech]\n",
                "language `czech`",
            ),
            ("    severity: info\n    kinds: [markup]\n", "kind `markup`"),
            (
                "    severity: info\n    kinds: []\n",
                "`kinds` is an empty list",
            ),
            (
                "    severity: info\n    languages: []\n",
                "`languages` is an empty list",
            ),
            // A fix whose result the rule matches again would grow the file every pass.
            (
                "    severity: info\n    replacement: aa\n",
                "matches its own pattern",
            ),
            (
                "    severity: info\n    replacement: 'b${0}a'\n",
                "matches its own pattern",
            ),
        ];
        for (extra, expect) in cases {
            let e = err(&rule(extra));
            assert!(e.message.contains(expect), "{extra}: {e}");
            assert!(e.line.is_some(), "{e}");
        }
        // Capture references are not literal text: `$1` does not re-match `(a+)b`.
        let settled = "    severity: info\n    replacement: 'b$1 ${x}$$'\n";
        assert!(cfg(&rule(settled).replace("'a+'", "'(a+)b'")).is_ok());
        assert_eq!(replacement_literal("x${1}y${name}z$$w$name"), "xyz$w");
        // As the regex crate reads it, `$1y` names a group `1y`.
        assert_eq!(replacement_literal("x$1y"), "x");
        let e = err("custom_rules:\n  - {id: x, pattern: '(', message: m, severity: info}\n");
        assert!(e.message.contains("not a valid regex"), "{e}");
        let e = err(
            "custom_rules:\n  - {id: x, pattern: a, message: m, severity: info}\n  - {id: x, pattern: b, message: m, severity: info}\n",
        );
        assert!(e.message.contains("used twice"), "{e}");
        assert_eq!(e.line, Some(3));
    }

    #[test]
    fn unknown_keys_are_warnings() {
        let c = cfg(
            "language: cs\nfoo: 1\npaths:\n  include: ['*.md']\n  bar: []\noutput:\n  anything: 1\ncustom_rules:\n  - {id: x, pattern: a, message: m, severity: info, replace: y}\n",
        )
        .unwrap();
        assert_eq!(
            c.warnings,
            [
                "unknown key `foo` in .copy-editor.yaml, ignored",
                "unknown key `paths.bar` in .copy-editor.yaml, ignored",
                "unknown key `custom_rules[0].replace` in .copy-editor.yaml, ignored",
            ]
        );
    }

    #[test]
    fn glob_semantics() {
        let c = cfg(
            "language: cs\npaths:\n  include: ['docs/**/*.md', '*.md', 'src/{a,b}.ts', 'data/[xy]?.json']\n  exclude: ['docs/private/**']\n",
        )
        .unwrap();
        let m = c.matcher(None).unwrap();
        for yes in [
            "docs/a.md",
            "docs/x/y.md",
            "README.md",
            "src/a.ts",
            "src/b.ts",
            "data/x1.json",
        ] {
            assert!(m.is_included(yes), "{yes}");
        }
        for no in [
            "a/b.md",
            "docs/private/a.md",
            "docs/a.txt",
            "src/c.ts",
            "src/x/a.ts",
            "data/z1.json",
            "data/x12.json",
            "data/x/.json",
        ] {
            assert!(!m.is_included(no), "{no}");
        }
        let m = c.matcher(Some(&["./other/*.md".to_owned()])).unwrap();
        assert!(m.is_included("other/a.md"));
        assert!(!m.is_included("docs/a.md"));
    }

    #[test]
    fn locale_and_surface_profile_take_the_first_matching_glob() {
        let c = cfg(FULL).unwrap();
        let m = c.matcher(None).unwrap();
        assert_eq!(
            m.surface_profile_for("content/talks/a.md"),
            Some("presenter")
        );
        assert_eq!(m.surface_profile_for("content/a.md"), Some("participant"));
        assert_eq!(m.surface_profile_for("README.md"), None);
        assert_eq!(m.locale_for("content/en/a.md"), Some("en"));
        assert_eq!(m.locale_for("content/cs/a.md"), None);
    }

    #[test]
    fn layer2_text_and_anchors_are_not_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("examples.md"), "# Příklady\n").unwrap();
        let config_path = dir.path().join(CONFIG_FILE_NAME);
        std::fs::write(
            &config_path,
            "language: cs\nrules:\n  approved_terms: ./examples.md#approved-english-terms\n  \
             reject_list: ./missing.md#x\nvoice_doctrine: |\n  Piš jako zkušený peer.\n  \
             Krátké věty.\npaths:\n  include: ['**/*.md']\n",
        )
        .unwrap();
        let c = load(&config_path).unwrap();
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
        assert!(c.warnings[0].contains("`rules.reject_list`: ./missing.md#x does not exist"));
    }

    #[test]
    fn discover_walks_up_and_load_reads_relative_to_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let deep = root.join("a/b/c");
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(discover(&deep), None);
        let config_path = root.join(CONFIG_FILE_NAME);
        std::fs::write(
            &config_path,
            "language: cs\nrules:\n  style_guide: docs/style.md\n  reject_list: missing.md\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("docs/style.md"), "# Style\n").unwrap();
        assert_eq!(discover(&deep), Some(config_path.clone()));
        assert_eq!(discover(&root), Some(config_path.clone()));
        // A nearer config wins.
        std::fs::write(deep.join("../.copy-editor.yaml"), "language: en\n").unwrap();
        assert_eq!(discover(&deep), Some(root.join("a/b/.copy-editor.yaml")));

        let c = load(&config_path).unwrap();
        assert_eq!(c.root, root);
        assert_eq!(
            c.warnings,
            [format!(
                "`rules.reject_list`: missing.md does not exist (relative to {})",
                root.display()
            )]
        );
        let e = load(&root.join("nope.yaml")).unwrap_err();
        assert!(e.message.starts_with("cannot read the config"), "{e}");
    }
}
