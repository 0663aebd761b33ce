//! Strict JSON reading of the lockfile's shape.
//!
//! The top level, the `files` map and the entries are read by hand-written visitors that
//! record which entry and which span they are in, so that serde's error (an unknown key, a
//! wrong type) can be reported against that entry and span rather than only as a lockfile
//! line and column. The invariants are checked afterwards, in `check`.

use super::{Entry, Field, Lockfile, LockfileError, LockfileErrorKind, SCHEMA_VERSION, Span};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::fmt;

pub(super) fn from_str(text: &str) -> Result<Lockfile, LockfileError> {
    check_schema_version(text)?;
    let trail = Trail::default();
    let mut de = serde_json::Deserializer::from_str(text);
    LockfileSeed(&trail)
        .deserialize(&mut de)
        .and_then(|lock| de.end().map(|()| lock))
        .map_err(|e| json_error(&e, &trail))
}

/// A `files` object (`{"path": {…}, …}`), read as strictly as in a whole lockfile; None on
/// anything else. The entries come in the order they are written, duplicates included:
/// what the layout reader is held to in its property tests.
#[cfg(test)]
pub(super) fn files_object(text: &str) -> Option<Vec<(String, Entry)>> {
    let trail = Trail::default();
    let mut de = serde_json::Deserializer::from_str(text);
    FilesSeed::<Vec<(String, Entry)>>::new(&trail)
        .deserialize(&mut de)
        .and_then(|files| de.end().map(|()| files))
        .ok()
}

/// Reads the span list that `lockfile add` receives from the agent: `{"spans": [...]}`, or
/// the bare array. Other keys of the wrapper object are the agent's business and ignored;
/// the spans themselves are read as strictly as in the lockfile, since they end up there.
pub(super) fn spans_from_str(text: &str) -> Result<Vec<Span>, LockfileError> {
    let trail = Trail::default();
    let mut de = serde_json::Deserializer::from_str(text);
    SpansInput(&trail)
        .deserialize(&mut de)
        .and_then(|spans| de.end().map(|()| spans))
        .map_err(|e| json_error(&e, &trail))
}

/// Looks at `schemaVersion` before anything else: a lockfile of another version may have
/// any shape, and "unknown key" would hide the real reason it cannot be read.
fn check_schema_version(text: &str) -> Result<(), LockfileError> {
    #[derive(Deserialize)]
    struct Probe {
        #[serde(rename = "schemaVersion")]
        schema_version: Option<serde_json::Value>,
    }
    // Any failure here is reported by the full read, with more context.
    let Ok(probe) = serde_json::from_str::<Probe>(text) else {
        return Ok(());
    };
    match probe.schema_version {
        Some(serde_json::Value::Number(n)) if n.as_u64() != Some(u64::from(SCHEMA_VERSION)) => {
            Err(LockfileError {
                kind: LockfileErrorKind::SchemaVersion,
                message: format!(
                    "unknown lockfile schemaVersion {n}; this copy-audit reads {SCHEMA_VERSION}"
                ),
                ..LockfileError::invariant("")
            })
        }
        _ => Ok(()),
    }
}

/// Where the reader is, so that an error can name the entry and the span.
#[derive(Default)]
struct Trail {
    entry: RefCell<Option<String>>,
    span: Cell<Option<usize>>,
}

fn json_error(e: &serde_json::Error, trail: &Trail) -> LockfileError {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = text.strip_suffix(&suffix).unwrap_or(&text).to_owned();
    let kind = if e.is_data() {
        LockfileErrorKind::Shape
    } else {
        LockfileErrorKind::Syntax
    };
    let known = e.line() > 0;
    LockfileError {
        kind,
        entry: trail.entry.borrow().clone(),
        span: trail.span.get(),
        span_start: None,
        line: known.then(|| e.line()),
        // serde_json counts 0 before a line's first character; positions here are 1-based.
        column: known.then(|| e.column().max(1)),
        message,
    }
}

const TOP_FIELDS: &[&str] = &["schemaVersion", "segmenter", "files"];
const ENTRY_FIELDS: &[&str] = &["contentHash", "segmentedAt", "reviewedBy", "spans"];

struct LockfileSeed<'t>(&'t Trail);

impl<'de> DeserializeSeed<'de> for LockfileSeed<'_> {
    type Value = Lockfile;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Lockfile, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for LockfileSeed<'_> {
    type Value = Lockfile;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a lockfile object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Lockfile, A::Error> {
        let mut schema_version = None;
        let mut segmenter = None;
        let mut files = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "schemaVersion" => set(&mut schema_version, "schemaVersion", map.next_value()?)?,
                "segmenter" => set(&mut segmenter, "segmenter", map.next_value()?)?,
                "files" => set(
                    &mut files,
                    "files",
                    map.next_value_seed(FilesSeed::<BTreeMap<String, Entry>>::new(self.0))?,
                )?,
                other => return Err(de::Error::unknown_field(other, TOP_FIELDS)),
            }
        }
        Ok(Lockfile {
            schema_version: schema_version
                .ok_or_else(|| de::Error::missing_field("schemaVersion"))?,
            segmenter: segmenter.ok_or_else(|| de::Error::missing_field("segmenter"))?,
            files: files.ok_or_else(|| de::Error::missing_field("files"))?,
        })
    }
}

fn set<T, E: de::Error>(slot: &mut Option<T>, name: &'static str, value: T) -> Result<(), E> {
    if slot.replace(value).is_some() {
        return Err(E::duplicate_field(name));
    }
    Ok(())
}

/// Where a `files` object's entries go.
trait Files: Default {
    /// Whether `path` already has an entry, which makes a second one an error.
    fn has(&self, path: &str) -> bool;
    fn add(&mut self, path: String, entry: Entry);
}

/// A whole lockfile's entries: a second entry for a path is an error where it stands.
impl Files for BTreeMap<String, Entry> {
    fn has(&self, path: &str) -> bool {
        self.contains_key(path)
    }

    fn add(&mut self, path: String, entry: Entry) {
        self.insert(path, entry);
    }
}

/// A piece's entries, in order, duplicates included (for `files_object`).
#[cfg(test)]
impl Files for Vec<(String, Entry)> {
    fn has(&self, _: &str) -> bool {
        false
    }

    fn add(&mut self, path: String, entry: Entry) {
        self.push((path, entry));
    }
}

struct FilesSeed<'t, F>(&'t Trail, std::marker::PhantomData<F>);

impl<'t, F> FilesSeed<'t, F> {
    fn new(trail: &'t Trail) -> Self {
        FilesSeed(trail, std::marker::PhantomData)
    }
}

impl<'de, F: Files> DeserializeSeed<'de> for FilesSeed<'_, F> {
    type Value = F;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, F: Files> Visitor<'de> for FilesSeed<'_, F> {
    type Value = F;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object mapping file paths to entries")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut files = F::default();
        while let Some(path) = map.next_key::<String>()? {
            // The trail names the entry only when it has an error to report, so reading
            // a good entry copies no path.
            let named = |path| *self.0.entry.borrow_mut() = Some(path);
            if files.has(&path) {
                named(path);
                return Err(de::Error::custom("the path has two entries"));
            }
            match map.next_value_seed(EntrySeed(self.0)) {
                Ok(entry) => files.add(path, entry),
                Err(e) => {
                    named(path);
                    return Err(e);
                }
            };
        }
        Ok(files)
    }
}

struct EntrySeed<'t>(&'t Trail);

impl<'de> DeserializeSeed<'de> for EntrySeed<'_> {
    type Value = Entry;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Entry, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EntrySeed<'_> {
    type Value = Entry;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an entry object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entry, A::Error> {
        let mut content_hash = None;
        let mut segmented_at = None;
        // Required but nullable: the outer `Option` records presence.
        let mut reviewed_by: Option<Option<String>> = None;
        let mut spans = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "contentHash" => set(&mut content_hash, "contentHash", map.next_value()?)?,
                "segmentedAt" => set(&mut segmented_at, "segmentedAt", map.next_value()?)?,
                "reviewedBy" => set(&mut reviewed_by, "reviewedBy", map.next_value()?)?,
                "spans" => set(&mut spans, "spans", map.next_value_seed(SpansSeed(self.0))?)?,
                other => return Err(de::Error::unknown_field(other, ENTRY_FIELDS)),
            }
        }
        Ok(Entry {
            content_hash: content_hash.ok_or_else(|| de::Error::missing_field("contentHash"))?,
            segmented_at: segmented_at.ok_or_else(|| de::Error::missing_field("segmentedAt"))?,
            reviewed_by: reviewed_by.ok_or_else(|| de::Error::missing_field("reviewedBy"))?,
            spans: spans.ok_or_else(|| de::Error::missing_field("spans"))?,
        })
    }
}

struct SpansInput<'t>(&'t Trail);

impl<'de> DeserializeSeed<'de> for SpansInput<'_> {
    type Value = Vec<Span>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Span>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for SpansInput<'_> {
    type Value = Vec<Span>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object with a `spans` array, or an array of spans")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Vec<Span>, A::Error> {
        SpansSeed(self.0).visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<Span>, A::Error> {
        let mut spans = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "spans" {
                set(&mut spans, "spans", map.next_value_seed(SpansSeed(self.0))?)?;
            } else {
                map.next_value::<de::IgnoredAny>()?;
            }
        }
        spans.ok_or_else(|| de::Error::missing_field("spans"))
    }
}

struct SpansSeed<'t>(&'t Trail);

impl<'de> DeserializeSeed<'de> for SpansSeed<'_> {
    type Value = Vec<Span>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Span>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for SpansSeed<'_> {
    type Value = Vec<Span>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of spans")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Span>, A::Error> {
        // The spans are gathered in this thread's scratch vector and then moved into one
        // of their exact length: a vector grown span by span holds a third more than it
        // needs and leaves the smaller ones it outgrew behind, and a large lockfile's
        // spans are most of its memory (fresh memory that the kernel must clear first).
        thread_local! {
            static SCRATCH: Cell<Vec<Span>> = const { Cell::new(Vec::new()) };
        }
        let mut scratch = SCRATCH.take();
        scratch.clear();
        loop {
            self.0.span.set(Some(scratch.len()));
            match seq.next_element::<Span>()? {
                Some(span) => scratch.push(span),
                None => break,
            }
        }
        self.0.span.set(None);
        let mut spans = Vec::with_capacity(scratch.len());
        spans.append(&mut scratch);
        SCRATCH.set(scratch);
        Ok(spans)
    }
}

/// `null` is refused: the reference writes `promptVersion` only with a number, and a
/// `null` could not be written back as it was.
pub(super) fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    u32::deserialize(d).map(Some)
}

/// Present fields are `null` or a value; an absent one never reaches this (`default`).
impl<'de, T: Deserialize<'de>> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Field<T>, D::Error> {
        Option::<T>::deserialize(d).map(Field::from)
    }
}
