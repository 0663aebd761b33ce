//! Three-way merge of lockfiles, entry by entry: what `copy-audit lockfile merge` (a git
//! merge driver) computes. Git's line merge cannot do this: two branches that each add an
//! entry in the sorted `files` object touch neighbouring lines, and the conflict markers
//! it leaves make the lockfile unreadable.

use super::{Entry, Lockfile, Segmenter};
use std::collections::BTreeSet;

/// The merged lockfile, and what the merge could not settle.
#[derive(Debug, PartialEq, Eq)]
pub struct Merged {
    pub lock: Lockfile,
    /// Paths (or `segmenter`) whose merge is a guess a person must confirm: an entry
    /// changed on one side and removed on the other (kept), two different segmenters.
    pub unsettled: Vec<String>,
    /// Paths whose entry changed on both sides and was settled by rule (see [`merge`]).
    pub settled: Vec<(String, Settled)>,
}

/// How an entry changed on both sides was settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settled {
    /// Only one side changed the file (the other's entry still has the base's
    /// `contentHash`): the merged file is that side's bytes, and its entry describes them.
    ByFileChange,
    /// The same spans for the same bytes, reviewed on one side: the review.
    ByReview,
    /// Neither side could be told right: the newer `segmentedAt`, unreviewed.
    Newer,
}

/// Merges `ours` and `theirs`, which both come from `base`, entry by entry:
///
/// - an entry changed (added, replaced, removed) on one side only takes that side;
/// - an entry changed on both sides takes the side whose `contentHash` is the merged
///   file's, when that can be told: if only one side changed the file (the other entry
///   still records the base's hash), the merged file is that side's bytes. Git runs merge
///   drivers before it writes any merged file, so the file on disk cannot tell; the
///   entries can. Else the same spans for the same bytes, reviewed on one side, take the
///   review; else the newer `segmentedAt`, with `reviewedBy: null` — a person reviews what
///   no rule could choose (and if both sides changed the file, the entry is stale after
///   the merge and is listed for segmentation, as any edit's is);
/// - an entry changed on one side and removed on the other is kept, and unsettled.
///
/// The segmenter merges the same way; changed on both sides, the same backend takes the
/// newer prompt version, and two backends are unsettled (ours is kept).
pub fn merge(base: &Lockfile, ours: &Lockfile, theirs: &Lockfile) -> Merged {
    let mut unsettled = Vec::new();
    let mut settled = Vec::new();
    let segmenter = match three_way(
        Some(&base.segmenter),
        Some(&ours.segmenter),
        Some(&theirs.segmenter),
    ) {
        Ok(s) => s.cloned().unwrap_or_else(|| ours.segmenter.clone()),
        // Both moved to a newer prompt: the newer one.
        Err(()) if ours.segmenter.backend == theirs.segmenter.backend => {
            newer_prompt(&ours.segmenter, &theirs.segmenter)
        }
        Err(()) => {
            unsettled.push("segmenter".to_owned());
            ours.segmenter.clone()
        }
    };
    let mut lock = Lockfile::new(segmenter);
    let paths: BTreeSet<&String> = base
        .files
        .keys()
        .chain(ours.files.keys())
        .chain(theirs.files.keys())
        .collect();
    for path in paths {
        let (b, o, t) = (
            base.files.get(path),
            ours.files.get(path),
            theirs.files.get(path),
        );
        let entry = match three_way(b, o, t) {
            Ok(entry) => entry.cloned(),
            Err(()) => match (o, t) {
                (Some(o), Some(t)) => {
                    let (entry, how) = both_changed(b, o, t);
                    settled.push((path.clone(), how));
                    Some(entry)
                }
                // Changed on one side, removed on the other: kept, for a person to judge.
                (Some(kept), None) | (None, Some(kept)) => {
                    unsettled.push(path.clone());
                    Some(kept.clone())
                }
                (None, None) => None,
            },
        };
        if let Some(entry) = entry {
            lock.files.insert(path.clone(), entry);
        }
    }
    Merged {
        lock,
        unsettled,
        settled,
    }
}

/// The one side's change, when only one side changed (or both made the same change);
/// `Err` when both changed differently.
fn three_way<'a, T: PartialEq>(
    base: Option<&'a T>,
    ours: Option<&'a T>,
    theirs: Option<&'a T>,
) -> Result<Option<&'a T>, ()> {
    if ours == theirs || theirs == base {
        Ok(ours)
    } else if ours == base {
        Ok(theirs)
    } else {
        Err(())
    }
}

fn both_changed(base: Option<&Entry>, ours: &Entry, theirs: &Entry) -> (Entry, Settled) {
    if let Some(base) = base {
        let kept = |e: &Entry| e.content_hash == base.content_hash;
        match (kept(ours), kept(theirs)) {
            (true, false) => return (theirs.clone(), Settled::ByFileChange),
            (false, true) => return (ours.clone(), Settled::ByFileChange),
            _ => {}
        }
    }
    let same_segmentation = ours.content_hash == theirs.content_hash && ours.spans == theirs.spans;
    if same_segmentation {
        match (&ours.reviewed_by, &theirs.reviewed_by) {
            (Some(_), None) => return (ours.clone(), Settled::ByReview),
            (None, Some(_)) => return (theirs.clone(), Settled::ByReview),
            _ => {}
        }
    }
    // Timestamps of one format compare as text; ours wins a tie.
    let newer = if theirs.segmented_at > ours.segmented_at {
        theirs
    } else {
        ours
    };
    let entry = Entry {
        reviewed_by: None,
        ..newer.clone()
    };
    (entry, Settled::Newer)
}

fn newer_prompt(ours: &Segmenter, theirs: &Segmenter) -> Segmenter {
    if theirs.prompt_version > ours.prompt_version {
        theirs.clone()
    } else {
        ours.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Backend, Field, Kind, Span};
    use super::*;

    fn entry(hash: char, at: &str, reviewed: Option<&str>, lang: &str) -> Entry {
        Entry {
            content_hash: format!("sha256:{}", hash.to_string().repeat(64)),
            segmented_at: at.to_owned(),
            reviewed_by: reviewed.map(str::to_owned),
            spans: vec![Span {
                start_line: 1,
                start_column: 1,
                end_line: 1,
                end_column: 4,
                language: lang.to_owned(),
                kind: Kind::Prose,
                path_hint: Field::Absent,
                note: Field::Absent,
            }],
        }
    }

    fn lock(entries: &[(&str, &Entry)]) -> Lockfile {
        let mut lock = Lockfile::new(Segmenter {
            backend: Backend::Agent,
            prompt_version: Some(3),
        });
        for (path, e) in entries {
            lock.files.insert((*path).to_owned(), (*e).clone());
        }
        lock
    }

    const T1: &str = "2026-12-01T10:00:00Z";
    const T2: &str = "2026-12-01T11:00:00Z";

    #[test]
    fn changes_on_one_side_are_taken_from_that_side() {
        let a = entry('a', T1, Some("eva"), "cs");
        let a2 = entry('b', T2, None, "cs");
        let b = entry('c', T1, None, "en");
        let c = entry('d', T1, None, "en");
        let base = lock(&[("a.md", &a), ("gone.md", &c)]);
        // Ours re-segments a.md and removes gone.md; theirs adds b.md.
        let ours = lock(&[("a.md", &a2)]);
        let theirs = lock(&[("a.md", &a), ("b.md", &b), ("gone.md", &c)]);
        let m = merge(&base, &ours, &theirs);
        assert_eq!(m.lock, lock(&[("a.md", &a2), ("b.md", &b)]));
        assert!(m.unsettled.is_empty() && m.settled.is_empty());
    }

    #[test]
    fn both_sides_changed_settle_by_file_change_then_review_then_time() {
        let base_entry = entry('a', T1, Some("eva"), "cs");
        let ours_entry = entry('b', T1, None, "cs");
        let theirs_entry = entry('c', T2, None, "en");
        let base = lock(&[("a.md", &base_entry)]);
        let ours = lock(&[("a.md", &ours_entry)]);
        // Theirs only re-tagged the same bytes: the merged file is ours'.
        let retagged = entry('a', T2, None, "en");
        let m = merge(&base, &ours, &lock(&[("a.md", &retagged)]));
        assert_eq!(m.lock.files["a.md"], ours_entry);
        assert_eq!(m.settled, [("a.md".to_owned(), Settled::ByFileChange)]);
        // Both changed the file: the newer, unreviewed.
        let reviewed_theirs = Entry {
            reviewed_by: Some("jan".into()),
            ..theirs_entry.clone()
        };
        let theirs = lock(&[("a.md", &reviewed_theirs)]);
        let newer = merge(&base, &ours, &theirs);
        assert_eq!(newer.lock.files["a.md"], theirs_entry);
        assert_eq!(newer.settled, [("a.md".to_owned(), Settled::Newer)]);
        // The same segmentation, reviewed on one side: the review.
        let unreviewed = Entry {
            reviewed_by: None,
            ..reviewed_theirs.clone()
        };
        let ours = lock(&[("a.md", &unreviewed)]);
        let review = merge(&base, &ours, &theirs);
        assert_eq!(review.lock.files["a.md"], reviewed_theirs);
        assert_eq!(review.settled, [("a.md".to_owned(), Settled::ByReview)]);
    }

    #[test]
    fn changed_against_removed_is_kept_and_unsettled() {
        let a = entry('a', T1, None, "cs");
        let a2 = entry('b', T2, None, "cs");
        let base = lock(&[("a.md", &a)]);
        let m = merge(&base, &lock(&[]), &lock(&[("a.md", &a2)]));
        assert_eq!(m.lock.files["a.md"], a2);
        assert_eq!(m.unsettled, ["a.md"]);
    }

    #[test]
    fn a_segmenter_changed_on_both_sides_is_unsettled() {
        let base = lock(&[]);
        let mut ours = lock(&[]);
        ours.segmenter.prompt_version = Some(4);
        let mut theirs = lock(&[]);
        theirs.segmenter.backend = Backend::Structural;
        theirs.segmenter.prompt_version = None;
        let m = merge(&base, &ours, &theirs);
        assert_eq!(m.unsettled, ["segmenter"]);
        assert_eq!(m.lock.segmenter, ours.segmenter);
        // The same backend: the newer prompt.
        let mut theirs = lock(&[]);
        theirs.segmenter.prompt_version = Some(5);
        let m = merge(&base, &ours, &theirs);
        assert_eq!(m.lock.segmenter.prompt_version, Some(5));
        assert!(m.unsettled.is_empty());
    }
}
