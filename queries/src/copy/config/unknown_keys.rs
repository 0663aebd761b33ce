//! Unknown keys: a warning, not an error, so that a config written for a newer version
//! still loads.

use super::CONFIG_FILE_NAME;
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::path::Path;

pub(super) fn unknown_key_warnings(text: &str, path: &Path) -> Vec<String> {
    const TOP: &[&str] = &[
        "language",
        "extends",
        "paths",
        "rules",
        "voice_doctrine",
        "output",
        "ignore_marker",
        "segment",
        "remote_cache",
        "custom_rules",
    ];
    const REMOTE: &[&str] = &["url", "instance", "read_only", "headers"];
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
            "remote_cache" => REMOTE,
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
