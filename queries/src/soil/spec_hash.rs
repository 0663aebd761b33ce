//! The three spec hashes of a `.tr` file (spec §3), which decide what an edit invalidates:
//! `formal` the lowering, `test` the test results, `prose` only a review suggestion.
//!
//! Every hash is a [`digest`] of length-framed parts, so no two different sequences of
//! parts can collide by shifting bytes from one part into the next. No path enters a hash:
//! moving a file keeps its lock valid.

use super::tr::{BlockClass, FileKind, TrFile};
use crate::hash::ContentHash;
use sha2::{Digest, Sha256};
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SpecHashes {
    pub formal: ContentHash,
    /// `None` for types, module and project headers, which have no tests of their own.
    pub test: Option<ContentHash>,
    pub prose: ContentHash,
}

/// SHA-256 over `parts`, each preceded by its length as a little-endian `u64`.
pub fn digest(parts: &[&[u8]]) -> ContentHash {
    let mut framed = Framed::default();
    for part in parts {
        framed.part(part);
    }
    framed.finish()
}

/// What an oracle's `hash` records of a reference file or a CLI oracle's executable: the
/// file's bytes as one length-framed part, trellis's digest convention for everything it
/// hashes (a plain SHA-256 of the bytes would flag every pristine oracle stale).
pub fn oracle_digest(bytes: &[u8]) -> ContentHash {
    digest(&[bytes])
}

/// The hash of each entry of a `decisions` block, as trellis records them in a header's
/// `spec.decisions` and in the reliance edges: an entry is a `label: text` line and the
/// `rejected:` lines after it, joined by `\n` exactly as written, hashed as one part.
/// Blank lines separate nothing; a line with no colon that is not a `rejected:` line is not
/// an entry. `(label, hash)` in document order.
pub fn decision_entry_hashes(content: &str) -> Vec<(String, ContentHash)> {
    let mut entries: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in content.lines().filter(|l| !l.trim().is_empty()) {
        if line.trim_start().starts_with("rejected:") {
            if let Some((_, lines)) = entries.last_mut() {
                lines.push(line);
            }
        } else if let Some((label, _)) = line.split_once(':') {
            entries.push((label.trim(), vec![line]));
        }
    }
    entries
        .into_iter()
        .map(|(label, lines)| (label.to_owned(), digest(&[lines.join("\n").as_bytes()])))
        .collect()
}

/// The hash of which decisions are in scope: their labels, sorted, joined by NUL, as one
/// part. Adding or removing a decision moves it; editing one does not.
pub fn decisions_scope_hash(labels: &[String]) -> ContentHash {
    let mut sorted: Vec<&str> = labels.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    digest(&[sorted.join("\0").as_bytes()])
}

/// [`digest`] fed one part at a time, so callers need not collect the parts first.
#[derive(Default)]
struct Framed(Sha256);

impl Framed {
    fn part(&mut self, bytes: &[u8]) {
        self.0.update((bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
    }

    fn finish(self) -> ContentHash {
        ContentHash(self.0.finalize().into())
    }
}

pub fn spec_hashes(tr: &TrFile, text: &str) -> SpecHashes {
    SpecHashes {
        formal: formal_hash(tr),
        test: test_hash(tr),
        prose: prose_hash(tr, text),
    }
}

/// The name (`""` without one), then info and content of each formal-class block.
pub fn formal_hash(tr: &TrFile) -> ContentHash {
    let mut framed = Framed::default();
    framed.part(tr.name().as_bytes());
    class_parts(&mut framed, tr, BlockClass::Formal);
    framed.finish()
}

/// Info and content of each test-class block; only functions have tests.
pub fn test_hash(tr: &TrFile) -> Option<ContentHash> {
    (tr.kind == FileKind::Function).then(|| {
        let mut framed = Framed::default();
        class_parts(&mut framed, tr, BlockClass::Test);
        framed.finish()
    })
}

fn class_parts(framed: &mut Framed, tr: &TrFile, class: BlockClass) {
    for block in tr.blocks.iter().filter(|b| b.class() == class) {
        framed.part(block.normalized_info().as_bytes());
        framed.part(block.content.as_bytes());
    }
}

/// One part: the file's bytes without the `name:` line and without any reserved block
/// (fences and the line break after the closing one), so that neither a rename nor a
/// block edit reads as a prose change.
pub fn prose_hash(tr: &TrFile, text: &str) -> ContentHash {
    let mut cuts: Vec<Range<usize>> = tr
        .frontmatter
        .iter()
        .map(|fm| fm.name_line_range.clone())
        .chain(tr.blocks.iter().map(|b| b.fence_range.clone()))
        .filter(|r| !r.is_empty())
        .collect();
    cuts.sort_by_key(|r| r.start);
    let mut kept = Vec::with_capacity(text.len());
    let mut at = 0;
    for cut in cuts {
        if cut.start > at {
            kept.extend_from_slice(&text.as_bytes()[at..cut.start]);
        }
        at = at.max(cut.end);
    }
    kept.extend_from_slice(&text.as_bytes()[at.min(text.len())..]);
    digest(&[&kept])
}

#[cfg(test)]
mod oracle_tests {
    use super::*;

    /// Golden values: SHA-256 of the 8-byte little-endian length then the bytes, computed
    /// independently (`hashlib.sha256(struct.pack('<Q', len(b)) + b)`).
    #[test]
    fn oracle_digests_are_length_framed() {
        assert_eq!(
            oracle_digest(b"def median(xs):\n    return sorted(xs)[len(xs) // 2]\n").to_string(),
            "sha256:a2b8919ebe94bbbccc2a63c78d3e26535c4c2a5d1e24ff0c9c3a0532a21bd209"
        );
        assert_eq!(
            oracle_digest(b"#!/bin/sh\nexec cat\n").to_string(),
            "sha256:ae8277db213193ef58ef723589d0dd2f0b63464d187f74a6f83aa0c9998d301e"
        );
        assert_ne!(oracle_digest(b"x"), crate::hash::ContentHash::of(b"x"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::soil::tr::parse;

    const GOLDEN: &str = include_str!("../../../fixtures/golden/cell_count/cell_count.tr");
    const GOLDEN_FORMAL: &str =
        "sha256:023e31d91591f58338d930f7bfb343a2fa32325e10f63398ea9561e20f912d5f";
    const GOLDEN_TEST: &str =
        "sha256:04b487368277f7da17745403f2bb108d2bd41aa118ea20ee8291f94b1a6311be";
    const GOLDEN_PROSE: &str =
        "sha256:92156a714f20aa518fdefa30cd80989dccecdd1118c51892e2f9de4956c05e32";

    fn hashes(file_name: &str, text: &str) -> SpecHashes {
        spec_hashes(&parse(file_name, text), text)
    }

    fn golden() -> SpecHashes {
        hashes("cell_count.tr", GOLDEN)
    }

    /// `GOLDEN` with `from` replaced by `to` exactly once.
    fn mutate(from: &str, to: &str) -> String {
        assert_eq!(GOLDEN.matches(from).count(), 1, "{from:?} must occur once");
        GOLDEN.replace(from, to)
    }

    /// Which of the three hashes differ from the golden file's.
    fn moved(text: &str) -> [bool; 3] {
        let (old, new) = (golden(), hashes("cell_count.tr", text));
        [
            old.formal != new.formal,
            old.test != new.test,
            old.prose != new.prose,
        ]
    }

    const FORMAL: [bool; 3] = [true, false, false];
    const TEST: [bool; 3] = [false, true, false];
    const PROSE: [bool; 3] = [false, false, true];

    #[test]
    fn golden_vector_hashes_exactly() {
        let tr = parse("cell_count.tr", GOLDEN);
        assert_eq!(tr.diagnostics, []);
        let h = spec_hashes(&tr, GOLDEN);
        assert_eq!(h.formal.to_string(), GOLDEN_FORMAL);
        assert_eq!(h.test.map(|t| t.to_string()).as_deref(), Some(GOLDEN_TEST));
        assert_eq!(h.prose.to_string(), GOLDEN_PROSE);
    }

    #[test]
    fn golden_vector_agrees_with_its_lock() {
        let lock = include_str!("../../../fixtures/golden/cell_count/cell_count.lock");
        for hash in [GOLDEN_FORMAL, GOLDEN_TEST, GOLDEN_PROSE] {
            assert!(lock.contains(hash), "{hash} missing from cell_count.lock");
        }
    }

    #[test]
    fn digest_frames_every_part_with_its_length() {
        let expected = {
            let mut bytes = Vec::new();
            for part in [&b"ab"[..], b"", b"c"] {
                bytes.extend_from_slice(&(part.len() as u64).to_le_bytes());
                bytes.extend_from_slice(part);
            }
            ContentHash::of(&bytes)
        };
        assert_eq!(digest(&[b"ab", b"", b"c"]), expected);
        assert_ne!(digest(&[b"ab", b"c"]), digest(&[b"a", b"bc"]));
        assert_ne!(digest(&[]), digest(&[b""]));
    }

    #[test]
    fn prose_is_the_file_without_name_line_and_reserved_blocks() {
        let kept = "---\ntags: [stats]\n---\n\n# cell_count\n\nReturns how many floats the \
                    list holds. Thin wrapper over the\n`list_len` builtin.\n\n\n\n";
        assert_eq!(golden().prose, digest(&[kept.as_bytes()]));
    }

    #[test]
    fn rewording_the_prose_moves_only_prose() {
        assert_eq!(moved(&mutate("Thin wrapper", "A thin wrapper")), PROSE);
        assert_eq!(moved(&mutate("# cell_count\n", "# Cell count\n")), PROSE);
        assert_eq!(moved(&format!("{GOLDEN}\nMore words.\n")), PROSE);
    }

    #[test]
    fn editing_a_test_case_moves_only_test() {
        assert_eq!(moved(&mutate("=> 3", "=> 4")), TEST);
    }

    #[test]
    fn toggling_xfail_moves_only_test() {
        assert_eq!(
            moved(&mutate("```test basics", "```test basics xfail")),
            TEST
        );
    }

    #[test]
    fn changing_a_clause_moves_only_formal() {
        assert_eq!(moved(&mutate("result >= 0", "result > 0")), FORMAL);
        assert_eq!(moved(&mutate("-> I64", "-> I32")), FORMAL);
    }

    #[test]
    fn renaming_the_file_changes_nothing() {
        assert_eq!(golden(), hashes("count_cells.tr", GOLDEN));
        assert_eq!(golden(), hashes("stats/deep/cell_count.tr", GOLDEN));
    }

    #[test]
    fn renaming_the_definition_moves_only_formal() {
        assert_eq!(
            moved(&mutate("name: cell_count", "name: count_cells")),
            FORMAL
        );
    }

    #[test]
    fn a_non_reserved_fence_is_prose() {
        let text = mutate(
            "`list_len` builtin.\n",
            "`list_len` builtin.\n\n```text\nexample\n```\n",
        );
        assert_eq!(moved(&text), PROSE);
        assert_eq!(parse("cell_count.tr", &text).blocks.len(), 3);
    }

    #[test]
    fn tags_are_prose() {
        assert_eq!(moved(&mutate("tags: [stats]", "tags: [stats, api]")), PROSE);
    }

    #[test]
    fn agent_mark_moves_the_class_of_its_block() {
        assert_eq!(moved(&mutate("```ensures", "```ensures @agent")), FORMAL);
        assert_eq!(moved(&mutate("```soil-sig", "```soil-sig @agent")), FORMAL);
        assert_eq!(
            moved(&mutate("```test basics", "```test basics @agent")),
            TEST
        );
    }

    #[test]
    fn info_spacing_and_fence_style_are_not_hashed() {
        let respaced = mutate("```test basics", "```test   basics ");
        assert_eq!(moved(&respaced), [false; 3]);
        let tildes = mutate(
            "```ensures\nnon-negative: result >= 0\n```",
            "~~~~ensures\nnon-negative: result >= 0\n~~~~",
        );
        assert_eq!(moved(&tildes), [false; 3]);
    }

    #[test]
    fn test_hash_is_null_outside_functions() {
        let ty = "---\nname: point\n---\n\n```soil-type\nPoint = { x : F64 }\n```\n";
        assert_eq!(hashes("point.tr", ty).test, None);
        let module = "---\nname: stats\n---\n\n```exports\nmedian\n```\n";
        assert_eq!(hashes("_module.tr", module).test, None);
        let project = "---\nname: demo\n---\n\n```decisions\nuse F64\n```\n";
        assert_eq!(hashes("_project.tr", project).test, None);
        let bare = "---\nname: f\n---\n\n```soil-sig\nf : I64\n```\n";
        assert_eq!(hashes("f.tr", bare).test, Some(digest(&[])));
    }

    #[test]
    fn decisions_are_cut_from_prose_and_hashed_nowhere() {
        let base =
            "---\nname: stats\n---\n\nWhy.\n\n```exports\nmedian\n```\n\n```decisions\nA\n```\n";
        let edited = base.replace("\nA\n", "\nB\n");
        let (a, b) = (hashes("_module.tr", base), hashes("_module.tr", &edited));
        assert_eq!(a, b);
        let exports = base.replace("median", "mean");
        assert_ne!(a.formal, hashes("_module.tr", &exports).formal);
        assert_eq!(a.prose, hashes("_module.tr", &exports).prose);
    }

    #[test]
    fn a_missing_name_hashes_as_empty() {
        let text = "---\ntags: [a]\n---\n\n```soil-sig\nf : I64\n```\n";
        let tr = parse("f.tr", text);
        assert_eq!(tr.diagnostics[0].code, "tr-missing-name");
        assert_eq!(formal_hash(&tr), digest(&[b"", b"soil-sig", b"f : I64\n"]));
        let without_fm = "```soil-sig\nf : I64\n```\n";
        let tr = parse("f.tr", without_fm);
        assert_eq!(formal_hash(&tr), digest(&[b"", b"soil-sig", b"f : I64\n"]));
        assert_eq!(prose_hash(&tr, without_fm), digest(&[b""]));
    }

    #[test]
    fn crlf_changes_prose_but_not_formal_or_test() {
        let crlf = GOLDEN.replace('\n', "\r\n");
        let tr = parse("cell_count.tr", &crlf);
        assert_eq!(tr.frontmatter.as_ref().unwrap().name, "cell_count");
        assert_eq!(
            tr.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(),
            ["tr-line-endings"]
        );
        let h = spec_hashes(&tr, &crlf);
        assert_eq!(h.formal, golden().formal);
        assert_eq!(h.test, golden().test);
        let kept = "---\r\ntags: [stats]\r\n---\r\n\r\n# cell_count\r\n\r\nReturns how many \
                    floats the list holds. Thin wrapper over the\r\n`list_len` \
                    builtin.\r\n\r\n\r\n\r\n";
        assert_eq!(h.prose, digest(&[kept.as_bytes()]));
    }

    #[test]
    fn an_unclosed_fence_is_cut_to_the_end_of_the_file() {
        let text = "---\nname: f\n---\n\nIntro.\n\n```soil-sig\nf : I64\n\nstill inside\n";
        let tr = parse("f.tr", text);
        assert_eq!(tr.blocks[0].content, "f : I64\n\nstill inside\n");
        assert_eq!(prose_hash(&tr, text), digest(&[b"---\n---\n\nIntro.\n\n"]));
    }

    #[test]
    fn a_fence_in_a_list_item_is_cut_from_its_first_fence_character() {
        let text = "---\nname: f\n---\n\n- intro\n\n  ```soil-sig\n  f : I64\n  ```\n- next\n";
        let tr = parse("f.tr", text);
        assert_eq!(tr.blocks[0].content, "f : I64\n");
        assert_eq!(
            prose_hash(&tr, text),
            digest(&[b"---\n---\n\n- intro\n\n  - next\n"])
        );
    }

    #[test]
    fn decision_entries_hash_their_label_line_and_rejected_lines_as_written() {
        let content = "floats: F64 only\n  rejected: F32\n\nno colon here\nrounding:  none \n";
        let got = decision_entry_hashes(content);
        let labels: Vec<_> = got.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(labels, ["floats", "rounding"]);
        assert_eq!(got[0].1, digest(&[b"floats: F64 only\n  rejected: F32"]));
        assert_eq!(got[1].1, digest(&[b"rounding:  none "]));
        // A `rejected:` line before any entry belongs to none.
        assert_eq!(decision_entry_hashes("rejected: x\n"), []);
    }

    #[test]
    fn a_closing_fence_at_eof_without_newline_is_cut_whole() {
        let text = "---\nname: f\n---\nA\n```soil-sig\nf : I64\n```";
        let tr = parse("f.tr", text);
        let codes: Vec<_> = tr.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["tr-missing-test-block"]);
        assert_eq!(prose_hash(&tr, text), digest(&[b"---\n---\nA\n"]));
    }
}
