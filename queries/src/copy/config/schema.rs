//! The JSON Schema of `.copy-editor.yaml`, generated from the types the file is read into
//! ([`super::raw`]), for editors that check YAML as it is typed (the YAML language server:
//! `# yaml-language-server: $schema=…`). Committed as `docs/copy-editor.schema.json`;
//! `tests/config_schema.rs` fails when that file is out of date.
//!
//! The schema is a little stricter than the reader in one place on purpose: an unknown
//! key, which the reader reports as a warning and ignores, is refused, since in an editor
//! it is almost always a typo. What only the reader can check (that a glob compiles, that a
//! rule id exists, that a pattern is a valid regex, that the lockfile stays inside the
//! root) is left to it.

use super::raw::{OneOrMany, Raw};
use super::{PROFILES, SEVERITIES, SURFACE_PROFILES, UNKNOWN_LANGUAGE};
use crate::copy::lockfile::Kind;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use std::borrow::Cow;

/// The schema, as committed.
pub fn json_schema() -> serde_json::Value {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<Raw>();
    let mut schema = serde_json::to_value(schema).expect("a schema is JSON");
    unwrap_descriptions(&mut schema);
    schema
}

/// Joins the lines a doc comment was wrapped at, in every `description` of `schema`
/// (a blank line still starts a paragraph): editors reflow the text themselves.
pub fn unwrap_descriptions(schema: &mut serde_json::Value) {
    use serde_json::Value;
    match schema {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(text) if key == "description" => {
                        *text = text
                            .split("\n\n")
                            .map(|p| p.split('\n').collect::<Vec<_>>().join(" "))
                            .collect::<Vec<_>>()
                            .join("\n\n");
                    }
                    _ => unwrap_descriptions(value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}

impl JsonSchema for OneOrMany {
    fn schema_name() -> Cow<'static, str> {
        "OneOrMany".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A string, or a list of strings.",
            "anyOf": [
                { "type": "string" },
                { "type": "array", "items": { "type": "string" } },
            ],
        })
    }
}

pub(super) fn language_code(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "pattern": "^[a-z]{2}$" })
}

pub(super) fn language_codes(g: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "array", "minItems": 1, "items": language_code(g) })
}

pub(super) fn profiles(_: &mut SchemaGenerator) -> Schema {
    let names: Vec<&str> = PROFILES.iter().flat_map(|(n, c)| [*n, *c]).collect();
    json_schema!({
        "anyOf": [
            { "enum": names },
            { "type": "array", "items": { "enum": names } },
        ],
    })
}

pub(super) fn surface_profiles(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "object", "additionalProperties": { "enum": SURFACE_PROFILES } })
}

pub(super) fn locales(g: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "object", "additionalProperties": language_code(g) })
}

pub(super) fn severity(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "enum": SEVERITIES })
}

pub(super) fn severity_map(g: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "object", "additionalProperties": severity(g) })
}

pub(super) fn not_blank(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "pattern": "\\S" })
}

pub(super) fn unknown_language(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "enum": UNKNOWN_LANGUAGE })
}

pub(super) fn remote_url(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "pattern": "^grpcs?://[^/]+$" })
}

pub(super) fn kinds(_: &mut SchemaGenerator) -> Schema {
    let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
    json_schema!({ "type": "array", "minItems": 1, "items": { "enum": kinds } })
}
