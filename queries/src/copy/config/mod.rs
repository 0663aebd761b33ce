//! `.copy-editor.yaml`: what to audit, in which language, and what to pass to the agent.
//!
//! Reading is strict where a mistake would silently change a verdict (an unknown profile, a
//! bad glob, a severity that is not a severity) and lenient where it would not (an unknown
//! key is a warning, so configs written for newer versions still load). Every error is one
//! sentence with the file and, where the YAML parser knows it, the line and column.

mod custom_rule;
mod error;
mod glob_shape;
mod globs;
mod layer2;
mod parse;
mod raw;
mod schema;
mod unknown_keys;

pub use error::ConfigError;
pub use globs::{Named, PathMatcher};
pub use parse::parse;
pub use schema::{json_schema, unwrap_descriptions};

use std::path::PathBuf;

pub const CONFIG_FILE_NAME: &str = ".copy-editor.yaml";
pub const DEFAULT_IGNORE_MARKER: &str = "copy-editor: ignore";
pub const DEFAULT_CACHE_PATH: &str = ".copy-editor.lock.json";

/// Language profiles by name and code; `extends` accepts either spelling.
pub const PROFILES: &[(&str, &str)] = &[("czech", "cs"), ("english", "en")];

const SURFACE_PROFILES: &[&str] = &["participant", "presenter", "hybrid"];
const SEVERITIES: &[&str] = &["error", "warning", "info"];
/// What `segment.unknown_language` may say.
const UNKNOWN_LANGUAGE: &[&str] = &["skip", "default"];

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
    /// `remote_cache`, if the file names one.
    pub remote_cache: Option<RemoteCacheConfig>,
    /// Things worth telling the user that do not stop the run.
    pub warnings: Vec<String>,
    /// `extends` resolved to codes, kept to recompute `declared_profiles` once the
    /// language is final.
    extends: Vec<String>,
}

/// The config's `remote_cache` section: checked for shape and scheme here, used by the
/// shell's client.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RemoteCacheConfig {
    pub url: String,
    pub instance: String,
    pub read_only: bool,
    pub headers: Vec<(String, String)>,
}

/// A remote cache's address: whether it is TLS (`grpcs://`) and its `HOST:PORT`, or what
/// is wrong with it. The one reading of the address, for the config and the flags alike.
pub fn remote_address(url: &str) -> Result<(bool, &str), String> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| format!("`{url}` is not grpc://HOST:PORT or grpcs://HOST:PORT"))?;
    let tls = match scheme {
        "grpc" => false,
        "grpcs" => true,
        _ => {
            return Err(format!(
                "`{url}`: the scheme must be grpc:// or grpcs://, not {scheme}://"
            ));
        }
    };
    if rest.is_empty() || rest.contains('/') {
        return Err(format!(
            "`{url}` is not grpc://HOST:PORT or grpcs://HOST:PORT"
        ));
    }
    Ok((tls, rest))
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
