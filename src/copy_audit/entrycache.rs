//! The lockfile's entries in binary, sharded by path, in `.lockgraph/lock-entries/`.
//!
//! A run that must audit one changed file of a large tree needs that file's full entry,
//! and parsing a lockfile of a hundred megabytes for it cost more than the rest of the run.
//! The shards are written whenever the lockfile is parsed — so they only ever mirror a
//! lockfile that passed every check — and are trusted, like the lockfile summary, only
//! while the lockfile's stat is the one they were written for (with git's racy rule). A
//! run reads the one shard it needs.

use super::cache::{Stat, load_file, write_file};
use lockgraph_queries::copy::lockfile::{Entry, Field, Kind, Lockfile, Span};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Deserialize, Serialize, Serializer};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const DIR: &str = "lock-entries";
const SHARDS: usize = 64;

fn shard_of(path: &str) -> usize {
    crate::statcache::path_shard(path, SHARDS)
}

fn shard_name(i: usize) -> String {
    format!("{DIR}/{i:02x}.v1")
}

#[derive(Deserialize)]
struct ShardFile {
    lock: Stat,
    entries: Vec<(String, StoredEntry)>,
}

/// An [`Entry`] as a shard holds it (the lockfile's types keep their JSON encoding).
#[derive(Deserialize)]
struct StoredEntry {
    content_hash: String,
    segmented_at: String,
    reviewed_by: Option<String>,
    spans: Vec<StoredSpan>,
}

#[derive(Deserialize)]
struct StoredSpan {
    start_line: u32,
    start_column: u32,
    end_line: u32,
    end_column: u32,
    language: String,
    kind: u8,
    path_hint: StoredField,
    note: StoredField,
}

#[derive(Deserialize)]
enum StoredField {
    Absent,
    Null,
    Value(String),
}

const KINDS: [Kind; 4] = [Kind::Prose, Kind::Code, Kind::Quote, Kind::Data];

impl StoredEntry {
    fn to_entry(&self) -> Option<Entry> {
        let spans = self
            .spans
            .iter()
            .map(|s| {
                Some(Span {
                    start_line: s.start_line,
                    start_column: s.start_column,
                    end_line: s.end_line,
                    end_column: s.end_column,
                    language: s.language.clone(),
                    kind: *KINDS.get(usize::from(s.kind))?,
                    path_hint: (&s.path_hint).into(),
                    note: (&s.note).into(),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Entry {
            content_hash: self.content_hash.clone(),
            segmented_at: self.segmented_at.clone(),
            reviewed_by: self.reviewed_by.clone(),
            spans,
        })
    }
}

impl From<&StoredField> for Field<String> {
    fn from(f: &StoredField) -> Self {
        match f {
            StoredField::Absent => Field::Absent,
            StoredField::Null => Field::Null,
            StoredField::Value(v) => Field::Value(v.clone()),
        }
    }
}

/// Writes the shapes above straight from the lockfile's own values: copying 100k entries
/// to write them would double the memory of the run that just parsed them.
struct ShardOut<'a> {
    lock: Stat,
    entries: Vec<(&'a str, &'a Entry)>,
}

impl Serialize for ShardOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("ShardFile", 2)?;
        st.serialize_field("lock", &self.lock)?;
        let entries: Vec<(&str, EntryOut<'_>)> = self
            .entries
            .iter()
            .map(|(p, e)| (*p, EntryOut(e)))
            .collect();
        st.serialize_field("entries", &entries)?;
        st.end()
    }
}

struct EntryOut<'a>(&'a Entry);

impl Serialize for EntryOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        let mut st = s.serialize_struct("StoredEntry", 4)?;
        st.serialize_field("content_hash", &e.content_hash)?;
        st.serialize_field("segmented_at", &e.segmented_at)?;
        st.serialize_field("reviewed_by", &e.reviewed_by)?;
        st.serialize_field("spans", &SpansOut(&e.spans))?;
        st.end()
    }
}

struct SpansOut<'a>(&'a [Span]);

impl Serialize for SpansOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for span in self.0 {
            seq.serialize_element(&SpanOut(span))?;
        }
        seq.end()
    }
}

struct SpanOut<'a>(&'a Span);

impl Serialize for SpanOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let sp = self.0;
        let kind = KINDS.iter().position(|k| *k == sp.kind).unwrap_or(0) as u8;
        let mut st = s.serialize_struct("StoredSpan", 8)?;
        st.serialize_field("start_line", &sp.start_line)?;
        st.serialize_field("start_column", &sp.start_column)?;
        st.serialize_field("end_line", &sp.end_line)?;
        st.serialize_field("end_column", &sp.end_column)?;
        st.serialize_field("language", &sp.language)?;
        st.serialize_field("kind", &kind)?;
        st.serialize_field("path_hint", &FieldOut(&sp.path_hint))?;
        st.serialize_field("note", &FieldOut(&sp.note))?;
        st.end()
    }
}

struct FieldOut<'a>(&'a Field<String>);

impl Serialize for FieldOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Field::Absent => s.serialize_unit_variant("StoredField", 0, "Absent"),
            Field::Null => s.serialize_unit_variant("StoredField", 1, "Null"),
            Field::Value(v) => s.serialize_newtype_variant("StoredField", 2, "Value", v),
        }
    }
}

/// Writes the shards for `lock`, just parsed from a lockfile with stat `stat`.
pub fn write(root: &Path, lock: &Lockfile, stat: Stat) {
    let dir = root.join(".lockgraph");
    if let Err(e) = crate::statcache::create_dir(&dir, &dir.join(DIR)) {
        eprintln!("warning: .lockgraph/{DIR}: {e}; not saved");
        return;
    }
    let mut shards: Vec<Vec<(&str, &Entry)>> = vec![Vec::new(); SHARDS];
    for (path, entry) in &lock.files {
        shards[shard_of(path)].push((path, entry));
    }
    shards.into_par_iter().enumerate().for_each(|(i, entries)| {
        write_file(
            &dir,
            &shard_name(i),
            &ShardOut {
                lock: stat,
                entries,
            },
        );
    });
}

/// The shards of one lockfile, read on demand from any worker thread.
pub struct EntryStore {
    dir: PathBuf,
    lock: Stat,
    shards: Vec<OnceLock<Option<FxHashMap<String, StoredEntry>>>>,
}

impl EntryStore {
    /// The store for the lockfile whose stat is `lock`; nothing is read yet.
    pub fn new(root: &Path, lock: Stat) -> EntryStore {
        EntryStore {
            dir: root.join(".lockgraph"),
            lock,
            shards: (0..SHARDS).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Writes the shards again from `lock`, just parsed from `lock_path` — if the
    /// lockfile still has the stat this store is for, so that what is written is what
    /// that stat describes.
    pub fn rebuild(&self, lock_path: &Path, lock: &Lockfile) {
        let now = std::fs::metadata(lock_path).map(|m| Stat::of(&m));
        if now.is_ok_and(|s| s == self.lock)
            && let Some(root) = self.dir.parent()
        {
            write(root, lock, self.lock);
        }
    }

    /// The entry of `path` (`Some(None)`: the lockfile has none), or `None` when the store
    /// cannot vouch for the lockfile and it must be parsed.
    pub fn entry(&self, path: &str) -> Option<Option<Entry>> {
        let i = shard_of(path);
        let shard = self.shards[i].get_or_init(|| {
            let (file, written) = load_file::<ShardFile>(&self.dir, &shard_name(i))?;
            self.lock
                .unchanged_since(&file.lock, written)
                .then(|| file.entries.into_iter().collect())
        });
        let stored = shard.as_ref()?;
        match stored.get(path) {
            None => Some(None),
            Some(e) => e.to_entry().map(Some),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_give_back_exactly_the_entries_written() {
        let text = include_str!("../../fixtures/copy/.copy-editor.lock.json");
        let lock = lockgraph_queries::copy::lockfile::parse(text).unwrap();
        let root = tempfile::tempdir().unwrap();
        let stat = Stat {
            size: 1,
            mtime_ns: 0,
            inode: 1,
        };
        write(root.path(), &lock, stat);
        let store = EntryStore::new(root.path(), stat);
        for (path, entry) in &lock.files {
            assert_eq!(store.entry(path), Some(Some(entry.clone())), "{path}");
        }
        assert_eq!(store.entry("no/such/file.md"), Some(None));
        // Another stat of the lockfile: the store cannot vouch for it.
        let other = EntryStore::new(root.path(), Stat { size: 2, ..stat });
        let any = lock.files.keys().next().unwrap();
        assert_eq!(other.entry(any), None);
    }
}
