//! The shapes the YAML is read into, field for field as written. Deserializing checks only
//! the shape (types, required fields); what a value means, and whether it is allowed, is
//! decided as it is turned into a [`Config`](super::Config).

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;
use std::fmt;

#[derive(Default, Deserialize)]
#[serde(default, expecting = "a mapping of settings")]
pub(super) struct Raw {
    pub(super) language: Option<Spanned<String>>,
    pub(super) extends: Option<Spanned<OneOrMany>>,
    pub(super) paths: Option<RawPaths>,
    pub(super) rules: Option<RawRules>,
    pub(super) voice_doctrine: Option<Spanned<OneOrMany>>,
    pub(super) output: Option<Spanned<serde_json::Value>>,
    pub(super) ignore_marker: Option<Spanned<String>>,
    pub(super) segment: Option<RawSegment>,
    pub(super) custom_rules: Option<Vec<Spanned<RawCustomRule>>>,
}

#[derive(Default, Deserialize)]
#[serde(
    default,
    expecting = "a mapping with include, exclude, surface_profile or locale"
)]
pub(super) struct RawPaths {
    pub(super) include: Option<Spanned<Vec<Spanned<String>>>>,
    pub(super) exclude: Option<Spanned<Vec<Spanned<String>>>>,
    pub(super) surface_profile: Option<Ordered<Spanned<String>>>,
    pub(super) locale: Option<Ordered<Spanned<String>>>,
}

#[derive(Default, Deserialize)]
#[serde(default, expecting = "a mapping of rule settings")]
pub(super) struct RawRules {
    pub(super) style_guide: Option<Spanned<OneOrMany>>,
    pub(super) reject_list: Option<Spanned<OneOrMany>>,
    pub(super) examples: Option<Spanned<OneOrMany>>,
    pub(super) approved_terms: Option<Spanned<OneOrMany>>,
    pub(super) disable: Option<Vec<Spanned<String>>>,
    pub(super) severity: Option<Ordered<Spanned<String>>>,
}

#[derive(Default, Deserialize)]
#[serde(default, expecting = "a mapping with cache_path or unknown_language")]
pub(super) struct RawSegment {
    pub(super) cache_path: Option<Spanned<String>>,
    pub(super) unknown_language: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(expecting = "a custom rule mapping")]
pub(super) struct RawCustomRule {
    pub(super) id: String,
    pub(super) pattern: String,
    pub(super) message: String,
    pub(super) severity: String,
    #[serde(default)]
    pub(super) languages: Option<Vec<String>>,
    #[serde(default)]
    pub(super) kinds: Option<Vec<String>>,
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
