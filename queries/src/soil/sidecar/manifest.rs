//! The derived manifest `soil.lock` (soil-lock spec §8): a pure merge of the sidecars plus
//! the nodes and aggregates that only exist across definitions.
//!
//! It is regenerated on demand and compared byte for byte by `manifest --check`, so the
//! output depends only on the set of sidecars, never on the order they were found in.

use super::write::{
    Layout, inline_object, inline_strings, quote, render_at, render_document_sized, sidecar_layout,
};
use super::{LOCK_FORMAT, RecordedHash, Sidecar};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Manifest<'s> {
    /// Root-relative definition path (`csvstats/median`) → its sidecar (borrowed: at
    /// 50,000 definitions a copy of every sidecar is 100 MB).
    pub definitions: BTreeMap<String, &'s Sidecar>,
    /// Sorted by name, then hash.
    pub soil_private: Vec<PrivateNode>,
    /// Definition path → its non-empty `spec.escape_hatches`.
    pub escape_hatches: BTreeMap<String, Vec<String>>,
    /// Package name → full package hash, from `soil.toml`.
    pub trusted_packages: BTreeMap<String, String>,
}

/// A private Soil helper as the graph sees it: one node per name and hash, so that two
/// lowerings that were made against different versions of a helper show both versions.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PrivateNode {
    /// `module/_helper`, the module being the owning definitions' folder; a helper of a
    /// definition at the root is named without a folder.
    pub name: String,
    pub hash: RecordedHash,
    /// Paths of the definitions whose lowering lists the helper, sorted and unique.
    pub owners: Vec<String>,
}

/// Merges the sidecars into the manifest. If a path appears twice the later sidecar wins,
/// and the derived parts are computed from the surviving set only.
pub fn build_manifest<'s>(
    defs: impl IntoIterator<Item = (String, &'s Sidecar)>,
    trusted_packages: BTreeMap<String, String>,
) -> Manifest<'s> {
    let definitions: BTreeMap<String, &Sidecar> = defs.into_iter().collect();

    let mut private: BTreeMap<(String, RecordedHash), BTreeSet<&str>> = BTreeMap::new();
    for (path, sidecar) in &definitions {
        let Some(lowering) = &sidecar.lowering else {
            continue;
        };
        let folder = path.rsplit_once('/').map(|(folder, _)| folder);
        for helper in &lowering.private_helpers {
            let name = match folder {
                Some(folder) => format!("{folder}/{}", helper.name),
                None => helper.name.to_string(),
            };
            private.entry((name, helper.hash)).or_default().insert(path);
        }
    }
    let soil_private = private
        .into_iter()
        .map(|((name, hash), owners)| PrivateNode {
            name,
            hash,
            owners: owners.into_iter().map(str::to_owned).collect(),
        })
        .collect();

    let escape_hatches = definitions
        .iter()
        .filter(|(_, s)| !s.spec.escape_hatches.is_empty())
        .map(|(path, s)| (path.clone(), s.spec.escape_hatches.clone()))
        .collect();

    Manifest {
        definitions,
        soil_private,
        escape_hatches,
        trusted_packages,
    }
}

/// The manifest in the sidecars' canonical style: each sidecar object nested under its
/// path, `soil_private` nodes one inline object per line with an inline `owners` list,
/// maps one entry per line sorted by key (`trusted_packages` included: only `versions` is
/// packed on one line in the sidecars).
/// How deep a sidecar stands in the manifest: under `definitions`, under the document.
const DEFINITION_DEPTH: usize = 2;

pub fn manifest_to_canonical_string(manifest: &Manifest<'_>) -> String {
    // Each sidecar rendered on its own, at the depth it stands in the document, on every
    // core: the layouts of 50,000 sidecars held at once were most of a gigabyte.
    let definitions: Vec<(String, Layout)> = manifest
        .definitions
        .par_iter()
        .map(|(path, sidecar)| {
            let text = render_at(&sidecar_layout(sidecar), DEFINITION_DEPTH);
            (path.clone(), Layout::Inline(text))
        })
        .collect();
    let soil_private = manifest
        .soil_private
        .iter()
        .map(|node| {
            inline_object(&[
                ("name", quote(&node.name)),
                ("hash", quote(&node.hash.to_string())),
                ("owners", inline_strings(&node.owners)),
            ])
        })
        .collect();
    let escape_hatches = manifest
        .escape_hatches
        .iter()
        .map(|(path, list)| (path.clone(), Layout::Inline(inline_strings(list))))
        .collect();
    let trusted_packages = manifest
        .trusted_packages
        .iter()
        .map(|(name, hash)| (name.clone(), Layout::Inline(quote(hash))))
        .collect();
    // The document is a little more than its sidecars: sized once, not grown by doubling.
    let size = definitions
        .iter()
        .map(|(path, sidecar)| match sidecar {
            Layout::Inline(text) => path.len() + text.len() + 16,
            _ => 0,
        })
        .sum::<usize>()
        + 4096;
    render_document_sized(
        size,
        &Layout::Object(vec![
            (
                "lock_format".to_owned(),
                Layout::Inline(LOCK_FORMAT.to_string()),
            ),
            ("definitions".to_owned(), Layout::Object(definitions)),
            ("soil_private".to_owned(), Layout::Lines(soil_private)),
            ("escape_hatches".to_owned(), Layout::Object(escape_hatches)),
            (
                "trusted_packages".to_owned(),
                Layout::Object(trusted_packages),
            ),
        ]),
    )
}
