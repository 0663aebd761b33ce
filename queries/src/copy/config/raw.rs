//! The shapes the YAML is read into, field for field as written. Deserializing checks only
//! the shape (types, required fields); what a value means, and whether it is allowed, is
//! decided as it is turned into a [`Config`](super::Config).
//!
//! The same types give the config's JSON Schema (`docs/copy-editor.schema.json`, see
//! [`super::schema`]): each field's doc comment is its description, and each value the
//! parser checks against a list (profiles, severities, …) takes that list from the
//! constants the parser uses.

use super::schema as s;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;
use std::fmt;

/// The settings of `copy-audit`, the typography audit of Czech and English prose; the
/// file marks the root of the audited tree (docs/config.md).
#[derive(Default, Deserialize, JsonSchema)]
#[serde(default, expecting = "a mapping of settings")]
#[schemars(title = ".copy-editor.yaml", deny_unknown_fields)]
pub(super) struct Raw {
    /// The default language (a two-letter code such as `cs` or `en`): of the gaps between
    /// spans and of files without a fresh lockfile entry. Required unless `--lang` is
    /// given.
    #[schemars(schema_with = "s::language_code")]
    pub(super) language: Option<Spanned<String>>,
    /// Profiles the prose is written against, by name or code; handed to the segmenting
    /// agent as `declaredProfiles`.
    #[schemars(schema_with = "s::profiles")]
    pub(super) extends: Option<Spanned<OneOrMany>>,
    /// Which files are audited, and what the ordered globs give each.
    pub(super) paths: Option<RawPaths>,
    /// Rules switched off or re-graded, and the Layer 2 material for the agent.
    pub(super) rules: Option<RawRules>,
    /// Layer 2 guidance for the agent (text or a list of texts): passed through, never
    /// interpreted.
    #[schemars(with = "Option<OneOrMany>")]
    pub(super) voice_doctrine: Option<Spanned<OneOrMany>>,
    /// Layer 2 output conventions for the agent: passed through, never interpreted.
    #[schemars(with = "Option<serde_json::Value>")]
    pub(super) output: Option<Spanned<serde_json::Value>>,
    /// A line containing this text suppresses findings on that line and the next.
    #[schemars(schema_with = "s::not_blank", extend("default" = super::DEFAULT_IGNORE_MARKER))]
    pub(super) ignore_marker: Option<Spanned<String>>,
    /// Where the lockfile is, and what spans tagged `unknown` do.
    pub(super) segment: Option<RawSegment>,
    /// A cache shared between machines on the Remote Execution API (docs/cli.md,
    /// `--remote-cache`): the flags and `LOCKGRAPH_REMOTE_CACHE` win over it.
    pub(super) remote_cache: Option<RawRemote>,
    /// Regex rules that behave exactly like the built-in ones.
    #[schemars(with = "Option<Vec<RawCustomRule>>")]
    pub(super) custom_rules: Option<Vec<Spanned<RawCustomRule>>>,
}

/// Globs relative to the root: `*` and `?` stay within a path component, `**` crosses
/// directories, `{a,b}` and `[…]` work.
#[derive(Default, Deserialize, JsonSchema)]
#[serde(
    default,
    expecting = "a mapping with include, exclude, surface_profile or locale"
)]
#[schemars(deny_unknown_fields)]
pub(super) struct RawPaths {
    /// Globs of the files to audit; `--paths` replaces them.
    #[schemars(with = "Option<Vec<String>>", length(min = 1))]
    pub(super) include: Option<Spanned<Vec<Spanned<String>>>>,
    /// Globs removed from the included files (also from `--paths`).
    #[schemars(with = "Option<Vec<String>>")]
    pub(super) exclude: Option<Spanned<Vec<Spanned<String>>>>,
    /// Glob → the audience of the files (the first glob that matches decides); passed to
    /// the agent, no rule effect.
    #[schemars(schema_with = "s::surface_profiles")]
    pub(super) surface_profile: Option<Ordered<Spanned<String>>>,
    /// Glob → the language of the files (the first glob that matches decides): a hint for
    /// the structural segmenter.
    #[schemars(schema_with = "s::locales")]
    pub(super) locale: Option<Ordered<Spanned<String>>>,
}

/// Rules switched off or re-graded (by rule id, see docs/rules.md), and the Layer 2
/// material for the agent: files that are checked to exist, then passed through.
#[derive(Default, Deserialize, JsonSchema)]
#[serde(default, expecting = "a mapping of rule settings")]
#[schemars(deny_unknown_fields)]
pub(super) struct RawRules {
    /// The house style guide (a path, or a list of paths), for the agent.
    #[schemars(with = "Option<OneOrMany>")]
    pub(super) style_guide: Option<Spanned<OneOrMany>>,
    /// Words and phrases to reject (a path, or a list of paths), for the agent.
    #[schemars(with = "Option<OneOrMany>")]
    pub(super) reject_list: Option<Spanned<OneOrMany>>,
    /// Good and bad examples (a path, or a list of paths), for the agent.
    #[schemars(with = "Option<OneOrMany>")]
    pub(super) examples: Option<Spanned<OneOrMany>>,
    /// Terms kept as they are (a path, or a list of paths), for the agent.
    #[schemars(with = "Option<OneOrMany>")]
    pub(super) approved_terms: Option<Spanned<OneOrMany>>,
    /// Rule ids to switch off (built-in or custom); an unknown id is an error.
    #[schemars(with = "Option<Vec<String>>")]
    pub(super) disable: Option<Vec<Spanned<String>>>,
    /// Rule id → the severity its findings get.
    #[schemars(schema_with = "s::severity_map")]
    pub(super) severity: Option<Ordered<Spanned<String>>>,
}

/// The lockfile's place and what spans tagged `unknown` do.
#[derive(Default, Deserialize, JsonSchema)]
#[serde(default, expecting = "a mapping with cache_path or unknown_language")]
#[schemars(deny_unknown_fields)]
pub(super) struct RawSegment {
    /// The lockfile, relative to the root (and inside it).
    #[schemars(schema_with = "s::not_blank", extend("default" = super::DEFAULT_CACHE_PATH))]
    pub(super) cache_path: Option<Spanned<String>>,
    /// In spans tagged `unknown`: `skip` language-scoped rules (what the reference script
    /// does), or give the spans the default `language`.
    #[schemars(schema_with = "s::unknown_language")]
    pub(super) unknown_language: Option<Spanned<String>>,
}

/// Where the remote cache is and how to use it.
#[derive(Deserialize, JsonSchema)]
#[serde(expecting = "a mapping with url, instance, read_only or headers")]
#[schemars(deny_unknown_fields)]
pub(super) struct RawRemote {
    /// `grpc://HOST:PORT`, or `grpcs://HOST:PORT` for TLS.
    #[schemars(schema_with = "s::remote_url")]
    pub(super) url: Spanned<String>,
    /// The server's instance name (default: its default instance).
    #[serde(default)]
    pub(super) instance: Option<String>,
    /// Fetch, never store.
    #[serde(default)]
    pub(super) read_only: Option<bool>,
    /// Headers sent with every call. Keep secrets such as API keys out of a committed
    /// file: pass them with `--remote-header` from the CI's secrets.
    #[serde(default)]
    pub(super) headers: Option<std::collections::BTreeMap<String, String>>,
}

/// A regex rule: span filtering, fixes and reports as for the built-in rules.
#[derive(Deserialize, JsonSchema)]
#[serde(expecting = "a custom rule mapping")]
#[schemars(deny_unknown_fields)]
pub(super) struct RawCustomRule {
    /// The rule's id; it must not be a built-in one.
    #[schemars(schema_with = "s::not_blank")]
    pub(super) id: String,
    /// A Rust `regex`.
    pub(super) pattern: String,
    /// What a finding says.
    pub(super) message: String,
    /// The findings' severity.
    #[schemars(schema_with = "s::severity")]
    pub(super) severity: String,
    /// The languages it applies to (leave it out for every language).
    #[serde(default)]
    #[schemars(schema_with = "s::language_codes")]
    pub(super) languages: Option<Vec<String>>,
    /// The span kinds it applies to (leave it out for every kind).
    #[serde(default)]
    #[schemars(schema_with = "s::kinds")]
    pub(super) kinds: Option<Vec<String>>,
    /// What a match is replaced with by `--fix` (`$1`-style captures); it must not match
    /// the pattern itself.
    #[serde(default)]
    pub(super) replacement: Option<String>,
}

/// A string or a list of strings, as YAML authors write either for a single item.
#[derive(Debug, Default)]
pub(super) struct OneOrMany {
    pub(super) items: Vec<String>,
    /// Written as a bare string rather than a list.
    pub(super) single: bool,
}

impl OneOrMany {
    /// Back in the shape it was written, for passing through to the agent.
    pub(super) fn into_json(self) -> serde_json::Value {
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
pub(super) struct Ordered<V>(pub(super) Vec<(String, V)>);

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
