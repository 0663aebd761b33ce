//! Key paths of structured data, written as the lockfile's `pathHint` writes them:
//! `meta.en.title`, `items[3].cs.body`, `a["weird key"]`, `[0].x`.

use std::borrow::Cow;
use std::fmt::Write;

/// One step from a container to a child.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step<'a> {
    Key(Cow<'a, str>),
    Index(usize),
}

/// The path of `steps` below `root` (`frontmatter`), or `None` for the document itself.
pub(crate) fn format(root: Option<&str>, steps: &[Step<'_>]) -> Option<String> {
    if root.is_none() && steps.is_empty() {
        return None;
    }
    // Sized once (quoted keys aside): a JSON file has a path per string, and growing each
    // one was a third of the JSON extractor's allocations.
    let room = steps.iter().fold(root.map_or(0, str::len), |n, step| {
        n + match step {
            Step::Key(key) => key.len() + 1,
            Step::Index(_) => 8,
        }
    });
    let mut out = String::with_capacity(room);
    out.push_str(root.unwrap_or(""));
    for step in steps {
        match step {
            Step::Key(key) if is_identifier(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Step::Key(key) => {
                out.push('[');
                quote(key, &mut out);
                out.push(']');
            }
            Step::Index(i) => {
                out.push('[');
                out.push_str(itoa::Buffer::new().format(*i));
                out.push(']');
            }
        }
    }
    Some(out)
}

/// A key that can follow a dot: a JavaScript-style identifier (letters in any script,
/// digits after the first character, `_` and `$`). `cs-CZ` and `0` are not.
fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// Writes `key` as a JSON string literal.
fn quote(key: &str, out: &mut String) {
    out.push('"');
    for c in key.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &str) -> Step<'_> {
        Step::Key(Cow::Borrowed(k))
    }

    #[test]
    fn paths_read_like_javascript() {
        assert_eq!(
            format(None, &[key("meta"), key("en"), key("title")]).as_deref(),
            Some("meta.en.title")
        );
        assert_eq!(
            format(
                None,
                &[key("items"), Step::Index(3), key("cs"), key("body")]
            )
            .as_deref(),
            Some("items[3].cs.body")
        );
        assert_eq!(
            format(None, &[key("a"), key("weird key")]).as_deref(),
            Some("a[\"weird key\"]")
        );
        assert_eq!(
            format(None, &[Step::Index(0), key("x")]).as_deref(),
            Some("[0].x")
        );
        assert_eq!(
            format(Some("frontmatter"), &[key("tags"), Step::Index(0)]).as_deref(),
            Some("frontmatter.tags[0]")
        );
        assert_eq!(
            format(None, &[key("cs-CZ"), key("q\"")]).as_deref(),
            Some("[\"cs-CZ\"][\"q\\\"\"]")
        );
        assert_eq!(
            format(None, &[key("název"), key("0")]).as_deref(),
            Some("název[\"0\"]")
        );
        assert_eq!(format(None, &[]), None);
        assert_eq!(
            format(Some("frontmatter"), &[]).as_deref(),
            Some("frontmatter")
        );
    }
}
