//! The readers the sidecar's objects are built from: an object checked against the keys
//! it may have ([`Fields`]), and strings, hashes, booleans, counts, keywords, nulls,
//! arrays and maps. Each reports what it cannot read as a `Problem` with an offset and a
//! key path.

use super::super::json::{Member, Node, Value};
use super::super::{MAX_HASH_HEX_DIGITS, MIN_HASH_HEX_DIGITS, RecordedHash};
use super::{Keyword, Path, Read, mismatch, one_of, problem};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// An object's members, checked against the keys it may have.
pub(super) struct Fields<'a> {
    members: &'a [Member<'a>],
    start: usize,
    path: &'a Path<'a>,
}

impl<'a> Fields<'a> {
    pub(super) fn new(
        node: &'a Node,
        path: &'a Path<'a>,
        allowed: &[&str],
        what: &str,
    ) -> Read<Fields<'a>> {
        let Value::Object(members) = &node.value else {
            return Err(mismatch(node, path, what));
        };
        for m in members {
            if !allowed.contains(&&*m.key) {
                return Err(problem(
                    m.key_start,
                    &path.key(&m.key),
                    format!(
                        "unknown key `{}`; expected {}",
                        m.key.escape_debug(),
                        one_of(allowed)
                    ),
                ));
            }
        }
        Ok(Fields {
            members,
            start: node.start,
            path,
        })
    }

    fn member(&self, key: &str) -> Option<&'a Member<'a>> {
        self.members.iter().find(|m| m.key == key)
    }

    fn get(&self, key: &str) -> Option<&'a Node<'a>> {
        self.member(key).map(|m| &m.value)
    }

    fn required(&self, key: &str) -> Read<&'a Node<'a>> {
        self.get(key)
            .ok_or_else(|| problem(self.start, self.path, format!("missing key `{key}`")))
    }

    /// Reads a required key with `read`, which receives the key's path.
    pub(super) fn req<T>(&self, key: &str, read: impl FnOnce(&Node, &Path) -> Read<T>) -> Read<T> {
        let node = self.required(key)?;
        read(node, &self.path.key(key))
    }

    /// Reads an optional key: `None` when absent.
    pub(super) fn opt<T>(
        &self,
        key: &str,
        read: impl FnOnce(&Node, &Path) -> Read<T>,
    ) -> Read<Option<T>> {
        self.get(key)
            .map(|node| read(node, &self.path.key(key)))
            .transpose()
    }

    /// Refuses a key the entry's kind may not carry, pointing at the key.
    pub(super) fn forbid(&self, key: &str, why: &str) -> Read<()> {
        match self.member(key) {
            Some(m) => Err(problem(
                m.key_start,
                &self.path.key(key),
                format!("unexpected key `{key}`: {why}"),
            )),
            None => Ok(()),
        }
    }
}

/// A string, as a `String` or (for the short ones a run keeps) a `CompactString`, built
/// from the text it borrows without a `String` in between.
pub(super) fn string<T: for<'c> From<Cow<'c, str>>>(node: &Node, path: &Path) -> Read<T> {
    match &node.value {
        Value::String(s) => Ok(T::from(s.clone())),
        _ => Err(mismatch(node, path, "a string")),
    }
}

pub(super) fn nonempty<T: for<'c> From<Cow<'c, str>>>(node: &Node, path: &Path) -> Read<T> {
    match &node.value {
        Value::String(s) if s.is_empty() => {
            Err(problem(node.start, path, "expected a non-empty string"))
        }
        _ => string(node, path),
    }
}

pub(super) fn hash(node: &Node, path: &Path) -> Read<RecordedHash> {
    let Value::String(s) = &node.value else {
        return Err(mismatch(node, path, "a string"));
    };
    let Some(hash) = RecordedHash::parse(s) else {
        return Err(problem(
            node.start,
            path,
            format!(
                "`{}` is not a hash; expected `sha256:` followed by {MIN_HASH_HEX_DIGITS} to \
                 {MAX_HASH_HEX_DIGITS} lowercase hex digits",
                s.escape_debug()
            ),
        ));
    };
    Ok(hash)
}

pub(super) fn boolean(node: &Node, path: &Path) -> Read<bool> {
    match node.value {
        Value::Bool(b) => Ok(b),
        _ => Err(mismatch(node, path, "`true` or `false`")),
    }
}

pub(super) fn count(node: &Node, path: &Path) -> Read<u32> {
    match &node.value {
        Value::Number(n) => n.parse::<u32>().map_err(|_| {
            problem(
                node.start,
                path,
                format!("expected a whole number from 0 to {}, found {n}", u32::MAX),
            )
        }),
        _ => Err(mismatch(node, path, "a whole number")),
    }
}

pub(super) fn keyword<K: Keyword>(node: &Node, path: &Path) -> Read<K> {
    let spellings = K::spellings();
    let Value::String(s) = &node.value else {
        return Err(mismatch(
            node,
            path,
            &format!("one of {}", one_of(&spellings)),
        ));
    };
    K::from_str(s).ok_or_else(|| {
        problem(
            node.start,
            path,
            format!(
                "unknown {} `{}`; expected {}",
                K::WHAT,
                s.escape_debug(),
                one_of(&spellings)
            ),
        )
    })
}

/// `null` as `None`, anything else through `read`.
pub(super) fn nullable<T>(
    read: impl FnOnce(&Node, &Path) -> Read<T>,
) -> impl FnOnce(&Node, &Path) -> Read<Option<T>> {
    move |node, path| match node.value {
        Value::Null => Ok(None),
        _ => read(node, path).map(Some),
    }
}

pub(super) fn array<T>(
    node: &Node,
    path: &Path,
    read: impl Fn(&Node, &Path) -> Read<T>,
) -> Read<Vec<T>> {
    let Value::Array(elements) = &node.value else {
        return Err(mismatch(node, path, "an array"));
    };
    exact(
        elements
            .iter()
            .enumerate()
            .map(|(i, e)| read(e, &path.index(i))),
    )
}

/// The values read, in a vector of their exact count. Collecting `Result`s cannot know the
/// count and starts at room for four: a run keeps every definition's sidecar, most of
/// whose lists hold one or two.
pub(super) fn exact<T>(values: impl ExactSizeIterator<Item = Read<T>>) -> Read<Vec<T>> {
    let mut out = Vec::with_capacity(values.len());
    for value in values {
        out.push(value?);
    }
    Ok(out)
}

/// An object used as a map; keys are unique already (the JSON reader refuses duplicates).
pub(super) fn map<T>(
    node: &Node,
    path: &Path,
    what: &str,
    read: impl Fn(&Node, &Path) -> Read<T>,
) -> Read<BTreeMap<String, T>> {
    let Value::Object(members) = &node.value else {
        return Err(mismatch(node, path, what));
    };
    let mut out = BTreeMap::new();
    for m in members {
        let p = path.key(&m.key);
        if m.key.is_empty() {
            return Err(problem(m.key_start, &p, "empty key"));
        }
        out.insert(m.key.clone().into_owned(), read(&m.value, &p)?);
    }
    Ok(out)
}
