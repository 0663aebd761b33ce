//! Relative paths as written in configs and sidecars, judged by their text alone.

use std::path::{Component, Path};

/// Whether the relative path `rel` names something inside the directory it is relative to,
/// by its text alone: not absolute, and no `..` climbing above where it starts. (A symlink
/// on the way is the walk's business; this is for paths written in configs and sidecars.)
pub fn stays_inside(rel: &str) -> bool {
    let mut depth = 0usize;
    for c in Path::new(rel).components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_by_their_text() {
        for inside in ["a", "a/b", "./a", "a/../b", "a/b/../../c", "."] {
            assert!(stays_inside(inside), "{inside}");
        }
        for outside in ["..", "../a", "a/../../b", "/etc/passwd", "a/../.."] {
            assert!(!stays_inside(outside), "{outside}");
        }
    }
}
