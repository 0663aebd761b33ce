//! The include globs most configs are made of, `dir/**/*.ext` and `dir/**/name`, matched
//! by their literal parts. globset matches either by its extension or name and then a
//! regular expression, and on a walk of 100,000 files that was 7% of a replayed run (the
//! regex's cache handed between the walk's threads). Any other glob stays globset's; a
//! property test holds the two shapes to globset's reading of them.

use super::globs::without_dot_slash;

/// A glob of one of the two shapes: a path is matched when it starts with `dir` and a
/// `/`, and ends with `end`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    /// `dir/`: the literal directory, with its slash.
    dir: String,
    /// `.ext` for `dir/**/*.ext` (anything ending a file name in it); `/name` for
    /// `dir/**/name` (a file so named, in `dir` or below).
    end: String,
}

impl Shape {
    /// The shape of `glob` (as `build_glob` compiles it: `*` within a component, `\`
    /// escaping), if it has one.
    pub(super) fn of(glob: &str) -> Option<Shape> {
        let (dir, last) = without_dot_slash(glob).split_once("/**/")?;
        let literal = |s: &str| !s.is_empty() && !s.contains(['*', '?', '[', ']', '{', '}', '\\']);
        if !literal(dir) || dir.split('/').any(str::is_empty) {
            return None;
        }
        let end = match last.strip_prefix('*') {
            // `*` then a literal: a file name ending so (`*` alone is any name).
            Some(ext) if literal(ext) && !ext.contains('/') => ext.to_owned(),
            Some(_) => return None,
            None if literal(last) && !last.contains('/') => format!("/{last}"),
            None => return None,
        };
        Some(Shape {
            dir: format!("{dir}/"),
            end,
        })
    }

    /// Whether `path` (root-relative, `/` separators) matches. With the `dir/` prefix and
    /// an `end` that holds no slash past its first byte, `end` lies in the file name.
    pub(super) fn matches(&self, path: &str) -> bool {
        path.starts_with(&self.dir) && path.ends_with(&self.end)
    }
}

#[cfg(test)]
mod tests {
    use super::super::globs::build_glob;
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_two_shapes_and_nothing_else() {
        let shape = |dir: &str, end: &str| {
            Some(Shape {
                dir: dir.to_owned(),
                end: end.to_owned(),
            })
        };
        assert_eq!(Shape::of("md/**/*.md"), shape("md/", ".md"));
        assert_eq!(Shape::of("./docs/en/**/*.mdx"), shape("docs/en/", ".mdx"));
        assert_eq!(
            Shape::of("json/**/agenda.json"),
            shape("json/", "/agenda.json")
        );
        for other in [
            "**/*.md",
            "md/*.md",
            "md/**/*",
            "md/**/a*.md",
            "m?/**/*.md",
            "md/**/*.{md,mdx}",
            "md/**/x/*.md",
            "md//**/*.md",
            "md/**/\\*.md",
            "md/**/**/*.md",
            "/**/*.md",
        ] {
            assert_eq!(Shape::of(other), None, "{other}");
        }
    }

    fn segment() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("md".to_owned()),
            Just(".md".to_owned()),
            Just("a.md".to_owned()),
            Just("agenda.json".to_owned()),
            Just("md.md".to_owned()),
            "[a-z.]{0,4}",
        ]
    }

    proptest! {
        /// Each shape matches exactly the paths globset matches with the glob it came
        /// from.
        #[test]
        fn a_shape_matches_what_globset_matches(
            dir in proptest::collection::vec("[a-z]{1,3}|md", 1..3),
            name in prop_oneof![Just("*.md".to_owned()), Just("*.json".to_owned()),
                Just("agenda.json".to_owned()), Just("*md".to_owned()), "[a-z.]{1,5}"],
            path in proptest::collection::vec(segment(), 1..5),
        ) {
            let glob = format!("{}/**/{name}", dir.join("/"));
            let shape = Shape::of(&glob).expect("of a shape");
            let compiled = build_glob(&glob).unwrap().compile_matcher();
            // Paths under the glob's directory, and others.
            let inside = format!("{}/{}", dir.join("/"), path.join("/"));
            let outside = path.join("/");
            for p in [&inside, &outside] {
                prop_assert_eq!(shape.matches(p), compiled.is_match(p), "{} against {}", p, glob);
            }
        }
    }
}
