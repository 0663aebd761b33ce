//! Layer 2: the material for the agent (`rules.style_guide`, `rules.reject_list`,
//! `rules.examples`, `rules.approved_terms`, `voice_doctrine`, `output`), passed through in
//! the shape it was written and never interpreted.

use super::ConfigError;
use super::raw::OneOrMany;
use serde_saphyr::Spanned;
use std::path::Path;

/// The Layer 2 fields of `rules`, by name, as read.
pub(super) type RuleFields = [(&'static str, Option<Spanned<OneOrMany>>); 4];

/// The Layer 2 value the agent is given. Files it names that do not exist become
/// `warnings` (see [`missing_files`]); the one error is an `output` that is neither a
/// mapping nor null.
pub(super) fn layer2(
    path: &Path,
    root: &Path,
    exists: &dyn Fn(&Path) -> bool,
    rules: RuleFields,
    voice_doctrine: Option<Spanned<OneOrMany>>,
    output: Option<Spanned<serde_json::Value>>,
    warnings: &mut Vec<String>,
) -> Result<serde_json::Value, ConfigError> {
    let mut layer2_rules = serde_json::Map::new();
    for (name, field) in rules {
        if let Some(field) = field {
            let key = format!("rules.{name}");
            warnings.extend(outside_root(&key, &field.value));
            warnings.extend(missing_files(root, exists, &key, &field.value));
            layer2_rules.insert(name.to_owned(), field.value.into_json());
        }
    }
    let mut layer2 = serde_json::Map::new();
    if !layer2_rules.is_empty() {
        layer2.insert("rules".to_owned(), layer2_rules.into());
    }
    if let Some(doctrine) = voice_doctrine {
        warnings.extend(missing_files(
            root,
            exists,
            "voice_doctrine",
            &doctrine.value,
        ));
        layer2.insert("voice_doctrine".to_owned(), doctrine.value.into_json());
    }
    if let Some(output) = output {
        match output.value {
            serde_json::Value::Object(_) => {
                layer2.insert("output".to_owned(), output.value);
            }
            serde_json::Value::Null => {}
            _ => {
                return Err(ConfigError::at(
                    path,
                    Some(output.referenced),
                    "`output` must be a mapping".to_owned(),
                ));
            }
        }
    }
    Ok(layer2.into())
}

/// Layer 2 files are the agent's to read, so a missing one is worth a warning but must not
/// stop the Layer 1 audit. Only values that are paths are checked: `voice_doctrine` is
/// usually the doctrine itself (several lines of prose), and a `#anchor` names a heading
/// inside the file (`style-examples.md#approved-english-terms`), so it is dropped first.
fn missing_files(
    root: &Path,
    exists: &dyn Fn(&Path) -> bool,
    key: &str,
    paths: &OneOrMany,
) -> Vec<String> {
    paths
        .items
        .iter()
        .filter(|p| looks_like_path(p))
        .filter(|p| !exists(&root.join(p.split_once('#').map_or(p.as_str(), |(file, _)| file))))
        .map(|p| {
            format!(
                "`{key}`: {p} does not exist (relative to {})",
                root.display()
            )
        })
        .collect()
}

/// The agent reads Layer 2 files where the config says, and the config is committed: a
/// path that leads out of the root (`../x.md`, `/etc/x`) is passed on as written, with a
/// warning, since a reviewer may not expect the agent to read outside the repository.
fn outside_root(key: &str, paths: &OneOrMany) -> Vec<String> {
    paths
        .items
        .iter()
        .filter(|p| looks_like_path(p))
        .filter(|p| !crate::relpath::stays_inside(p.split_once('#').map_or(p.as_str(), |(f, _)| f)))
        .map(|p| format!("`{key}`: {p} is outside the root; the agent is given it as written"))
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
