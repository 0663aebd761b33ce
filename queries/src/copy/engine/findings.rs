//! A file's findings as a report holds them: packed, each text once.
//!
//! A dense file has millions of findings that repeat a few rule ids, messages, snippets
//! and replacements. A [`Finding`] with its four shared texts is about 140 bytes; packed,
//! with each text an index into the file's table of distinct texts, it is 72, and held in
//! fixed chunks, so the list never grows by copying itself (which doubles its memory for
//! the moment it takes). A [`Finding`] is made again whenever one is read.

use super::{Finding, SourceFix, Text};
use crate::copy::rules::Severity;
use crate::text::LineCol;
use serde::de::{self, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, SerializeTuple};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::HashMap;
use std::fmt;

/// Findings per chunk: 1.2 MB of them.
const CHUNK: usize = 1 << 14;

/// The list of a file's findings, in the order they were pushed (the report's: by
/// offset and rule id, duplicates dropped — see [`Findings::sort_and_dedup`]).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Findings {
    /// Distinct, in the order first seen: two lists of equal findings pushed in the same
    /// order are equal values.
    texts: Vec<Text>,
    /// Every chunk but the last holds [`CHUNK`] findings.
    chunks: Vec<Vec<Packed>>,
    len: usize,
}

/// A [`Finding`] with its texts as indices into [`Findings::texts`], in 72 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Packed {
    offset: u64,
    fix_from: u64,
    line: u32,
    column: u32,
    end: LineCol,
    /// The rule id's text index, and the severity in the top two bits.
    rule: u32,
    snippet: u32,
    message: u32,
    /// [`NO_FIX`] when the finding has no fix; the fix's other fields are then zero.
    replacement: u32,
    /// In bytes: a fix's range is one match of a rule, and a file's lines and columns
    /// are `u32` already.
    fix_len: u32,
    fix_start: LineCol,
    fix_end: LineCol,
    fix_length: u32,
}

/// The bits of [`Packed::rule`] that hold the text index.
const RULE_INDEX: u32 = (1 << 30) - 1;

const NO_FIX: u32 = u32::MAX;

/// A finding read in place, its texts borrowed from the list: what an output that writes
/// millions of findings on every core reads. Making each [`Finding`] writes to its shared
/// texts' counts, and two cores writing to the same few counts made a warm run on a
/// 200 MB line of 33 million findings take 53 s instead of 21 s.
#[derive(Clone, Copy, Debug)]
pub struct FindingRef<'a> {
    pub rule_id: &'a str,
    pub severity: Severity,
    pub line: u32,
    pub column: u32,
    pub end: LineCol,
    pub snippet: &'a str,
    pub message: &'a str,
    pub fix: Option<FixRef<'a>>,
}

/// [`SourceFix`] as a [`FindingRef`] reads it: where it starts and ends, its length in
/// UTF-16 code units, and its replacement.
#[derive(Clone, Copy, Debug)]
pub struct FixRef<'a> {
    pub start: LineCol,
    pub end: LineCol,
    pub length: u32,
    pub replacement: &'a str,
}

/// A [`Packed`] as numbers, in the order written.
type Fields = [u64; 17];

impl Packed {
    fn rule_id(&self) -> u32 {
        self.rule & RULE_INDEX
    }

    fn severity(&self) -> Severity {
        match self.rule >> 30 {
            0 => Severity::Error,
            1 => Severity::Warning,
            _ => Severity::Info,
        }
    }

    fn fix_to(&self) -> u64 {
        self.fix_from + u64::from(self.fix_len)
    }

    fn fields(&self) -> Fields {
        [
            self.offset,
            self.line.into(),
            self.column.into(),
            self.end.line.into(),
            self.end.column.into(),
            self.rule_id().into(),
            self.snippet.into(),
            self.message.into(),
            self.replacement.into(),
            self.fix_from,
            self.fix_to(),
            self.fix_start.line.into(),
            self.fix_start.column.into(),
            self.fix_end.line.into(),
            self.fix_end.column.into(),
            self.fix_length.into(),
            self.severity() as u64,
        ]
    }

    /// `None` where a number does not fit its field.
    fn from_fields(f: &Fields) -> Option<Packed> {
        let n = |i: usize| u32::try_from(f[i]).ok();
        let at = |i: usize| {
            Some(LineCol {
                line: n(i)?,
                column: n(i + 1)?,
            })
        };
        let rule_id = n(5).filter(|&i| i <= RULE_INDEX)?;
        let severity = u32::try_from(f[16]).ok().filter(|&s| s <= 2)?;
        Some(Packed {
            offset: f[0],
            fix_from: f[9],
            line: n(1)?,
            column: n(2)?,
            end: at(3)?,
            rule: rule_id | severity << 30,
            snippet: n(6)?,
            message: n(7)?,
            replacement: n(8)?,
            fix_len: u32::try_from(f[10].checked_sub(f[9])?).ok()?,
            fix_start: at(11)?,
            fix_end: at(13)?,
            fix_length: n(15)?,
        })
    }
}

impl Findings {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `i`th finding. Panics if there is none.
    pub fn get(&self, i: usize) -> Finding {
        self.unpack(self.packed(i))
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = Finding> + '_ {
        (0..self.len).map(|i| self.get(i))
    }

    /// Each finding read in place: see [`FindingRef`].
    pub fn iter_ref(&self) -> impl ExactSizeIterator<Item = FindingRef<'_>> + '_ {
        (0..self.len).map(|i| {
            let p = self.packed(i);
            let text = |i: u32| &*self.texts[i as usize];
            FindingRef {
                rule_id: text(p.rule_id()),
                severity: p.severity(),
                line: p.line,
                column: p.column,
                end: p.end,
                snippet: text(p.snippet),
                message: text(p.message),
                fix: (p.replacement != NO_FIX).then(|| FixRef {
                    start: p.fix_start,
                    end: p.fix_end,
                    length: p.fix_length,
                    replacement: text(p.replacement),
                }),
            }
        })
    }

    /// Each finding's rule id and severity, read without making the finding: what
    /// a report's totals count.
    pub fn rules(&self) -> impl Iterator<Item = (&str, Severity)> + '_ {
        self.chunks
            .iter()
            .flatten()
            .map(|p| (&*self.texts[p.rule_id() as usize], p.severity()))
    }

    pub fn to_vec(&self) -> Vec<Finding> {
        self.iter().collect()
    }

    fn packed(&self, i: usize) -> &Packed {
        assert!(i < self.len, "finding {i} of {}", self.len);
        &self.chunks[i / CHUNK][i % CHUNK]
    }

    fn set(&mut self, i: usize, p: Packed) {
        self.chunks[i / CHUNK][i % CHUNK] = p;
    }

    fn text(&self, i: u32) -> Text {
        self.texts[i as usize].clone()
    }

    fn unpack(&self, p: &Packed) -> Finding {
        Finding {
            rule_id: self.text(p.rule_id()),
            severity: p.severity(),
            line: p.line,
            column: p.column,
            end: p.end,
            offset: p.offset as usize,
            snippet: self.text(p.snippet),
            message: self.text(p.message),
            fix: (p.replacement != NO_FIX).then(|| SourceFix {
                range: p.fix_from as usize..p.fix_to() as usize,
                replacement: self.text(p.replacement),
                start: p.fix_start,
                end: p.fix_end,
                length: p.fix_length,
            }),
        }
    }

    fn push_packed(&mut self, p: Packed) {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < CHUNK => chunk.push(p),
            _ => {
                // The first chunk grows as a `Vec` does: most files have a few findings.
                let mut chunk = match self.chunks.is_empty() {
                    true => Vec::new(),
                    false => Vec::with_capacity(CHUNK),
                };
                chunk.push(p);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
    }

    /// Sorts by offset and rule id, ties kept in their order (as a stable sort does), and
    /// drops a finding equal to the one before it. Without the stable sort's scratch copy
    /// of half the findings: an index per finding is sorted instead, and the findings are
    /// moved into place along the permutation's cycles.
    pub fn sort_and_dedup(&mut self) {
        let key = |p: &Packed| (p.offset, &*self.texts[p.rule_id() as usize]);
        let sorted = (1..self.len).all(|i| key(self.packed(i - 1)) <= key(self.packed(i)));
        if !sorted {
            let n = u32::try_from(self.len).expect("fewer than 2^32 findings in one file");
            let mut order: Vec<u32> = (0..n).collect();
            order.sort_unstable_by(|&a, &b| {
                key(self.packed(a as usize))
                    .cmp(&key(self.packed(b as usize)))
                    .then(a.cmp(&b))
            });
            // `order[j]` is the finding that belongs at `j`; `DONE` marks a placed position.
            const DONE: u32 = u32::MAX;
            for start in 0..order.len() {
                if order[start] == DONE {
                    continue;
                }
                // The finding at `start` is held while its cycle moves each other one into
                // place, and goes where the cycle ends.
                let held = *self.packed(start);
                let mut j = start;
                loop {
                    let k = order[j] as usize;
                    order[j] = DONE;
                    if k == start {
                        self.set(j, held);
                        break;
                    }
                    let next = *self.packed(k);
                    self.set(j, next);
                    j = k;
                }
            }
        }
        self.dedup();
    }

    fn dedup(&mut self) {
        let mut kept = 0;
        for i in 0..self.len {
            let p = *self.packed(i);
            if kept > 0 && *self.packed(kept - 1) == p {
                continue;
            }
            self.set(kept, p);
            kept += 1;
        }
        let chunks = kept.div_ceil(CHUNK);
        self.chunks.truncate(chunks);
        if let Some(last) = self.chunks.last_mut() {
            last.truncate(kept - (chunks - 1) * CHUNK);
        }
        self.len = kept;
        self.shrink_to_fit();
    }

    /// Gives back what growing left unused: a report is kept until it is printed, and
    /// tens of thousands of files with a finding or two each would otherwise hold a
    /// doubled `Vec`'s spare room apiece.
    fn shrink_to_fit(&mut self) {
        if let Some(last) = self.chunks.last_mut() {
            last.shrink_to_fit();
        }
        self.texts.shrink_to_fit();
    }
}

/// Builds a [`Findings`]: each text is looked up by its content and stored once.
#[derive(Default)]
pub struct FindingsBuilder {
    findings: Findings,
    index: HashMap<Text, u32>,
}

impl FindingsBuilder {
    pub fn push(&mut self, f: &Finding) {
        let mut text = |t: &Text| self.text(t);
        let (rule_id, snippet, message) = (text(&f.rule_id), text(&f.snippet), text(&f.message));
        let replacement = f.fix.as_ref().map_or(NO_FIX, |fix| text(&fix.replacement));
        assert!(rule_id <= RULE_INDEX, "fewer than 2^30 texts in one file");
        // A finding without a fix packs zeros in the fix's place.
        let zero = LineCol { line: 0, column: 0 };
        let fix = f.fix.as_ref();
        self.findings.push_packed(Packed {
            offset: f.offset as u64,
            fix_from: fix.map_or(0, |fix| fix.range.start as u64),
            line: f.line,
            column: f.column,
            end: f.end,
            rule: rule_id | (f.severity as u32) << 30,
            snippet,
            message,
            replacement,
            fix_len: fix.map_or(0, |fix| {
                u32::try_from(fix.range.len()).expect("a fix shorter than 4 GiB")
            }),
            fix_start: fix.map_or(zero, |fix| fix.start),
            fix_end: fix.map_or(zero, |fix| fix.end),
            fix_length: fix.map_or(0, |fix| fix.length),
        });
    }

    fn text(&mut self, t: &Text) -> u32 {
        if let Some(&i) = self.index.get(t) {
            return i;
        }
        let i = u32::try_from(self.findings.texts.len()).expect("fewer than 2^32 texts");
        self.findings.texts.push(t.clone());
        self.index.insert(t.clone(), i);
        i
    }

    pub fn finish(self) -> Findings {
        self.findings
    }
}

impl FromIterator<Finding> for Findings {
    fn from_iter<I: IntoIterator<Item = Finding>>(findings: I) -> Self {
        let mut b = FindingsBuilder::default();
        findings.into_iter().for_each(|f| b.push(&f));
        b.finish()
    }
}

impl<'a> FromIterator<&'a Finding> for Findings {
    fn from_iter<I: IntoIterator<Item = &'a Finding>>(findings: I) -> Self {
        let mut b = FindingsBuilder::default();
        findings.into_iter().for_each(|f| b.push(f));
        b.finish()
    }
}

impl fmt::Debug for Findings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Written packed, as it is held: the texts, then the findings with their indices, each
/// number as its difference from the same number of the finding before (findings come
/// in order, so most differences take a byte). A cache of a dense 200 MB line takes
/// 16 bytes a finding rather than 36, and is read back without a copy of each text.
impl Serialize for Findings {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Items<'a>(&'a Findings);
        impl Serialize for Items<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                // Its length first (postcard writes it before the items).
                let mut seq = s.serialize_seq(Some(self.0.len))?;
                let mut before: Fields = [0; 17];
                for p in self.0.chunks.iter().flatten() {
                    let now = p.fields();
                    let delta: [i64; 17] =
                        std::array::from_fn(|i| now[i].wrapping_sub(before[i]) as i64);
                    seq.serialize_element(&delta)?;
                    before = now;
                }
                seq.end()
            }
        }
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(&self.texts)?;
        t.serialize_element(&Items(self))?;
        t.end()
    }
}

impl<'de> Deserialize<'de> for Findings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Whole;
        impl<'de> Visitor<'de> for Whole {
            type Value = Findings;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a file's texts and its findings")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Findings, A::Error> {
                let texts: Vec<Text> = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(0, &self))?;
                let findings = seq
                    .next_element_seed(Items(Findings {
                        texts,
                        ..Findings::default()
                    }))?
                    .ok_or_else(|| de::Error::invalid_length(1, &self))?;
                Ok(findings)
            }
        }
        /// The findings, pushed into their chunks as they are read, each index checked.
        struct Items(Findings);
        impl<'de> de::DeserializeSeed<'de> for Items {
            type Value = Findings;
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Findings, D::Error> {
                d.deserialize_seq(self)
            }
        }
        impl<'de> Visitor<'de> for Items {
            type Value = Findings;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a sequence of findings")
            }
            fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Findings, A::Error> {
                let n = self.0.texts.len();
                let fits = |i: u32| (i as usize) < n;
                let mut before: Fields = [0; 17];
                while let Some(delta) = seq.next_element::<[i64; 17]>()? {
                    let now: Fields =
                        std::array::from_fn(|i| before[i].wrapping_add(delta[i] as u64));
                    let p = Packed::from_fields(&now)
                        .ok_or_else(|| de::Error::custom("a finding's number is out of range"))?;
                    before = now;
                    let texts_fit = fits(p.rule_id())
                        && fits(p.snippet)
                        && fits(p.message)
                        && (p.replacement == NO_FIX || fits(p.replacement));
                    if !texts_fit {
                        return Err(de::Error::custom("a finding's text index is out of range"));
                    }
                    self.0.push_packed(p);
                }
                self.0.shrink_to_fit();
                Ok(self.0)
            }
        }
        d.deserialize_tuple(2, Whole)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn finding(offset: usize, rule: &str, tag: u32, fix: bool) -> Finding {
        let at = LineCol { line: 1, column: 1 };
        Finding {
            rule_id: rule.into(),
            severity: Severity::Warning,
            line: 1,
            column: tag,
            end: at,
            offset,
            snippet: format!("s{}", tag % 3).into(),
            message: "m".into(),
            fix: fix.then(|| SourceFix {
                range: offset..offset + 1,
                replacement: "\u{a0}".into(),
                start: at,
                end: at,
                length: 1,
            }),
        }
    }

    fn findings() -> impl Strategy<Value = Vec<Finding>> {
        // Enough to span chunks now and then.
        prop::collection::vec((0usize..20, 0usize..3, 0u32..4, any::<bool>()), 0..300)
            .prop_flat_map(|keys| {
                let rules = ["a", "b", "c"];
                let small: Vec<Finding> = keys
                    .iter()
                    .map(|&(o, r, t, fix)| finding(o, rules[r], t, fix))
                    .collect();
                (Just(small), 0usize..3)
            })
            .prop_map(|(small, times)| {
                let mut all = small.clone();
                for _ in 0..times * 60 {
                    all.extend(small.iter().cloned());
                }
                all
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Packed and read back, each finding is the one pushed.
        #[test]
        fn findings_read_back_as_pushed(all in findings()) {
            let packed: Findings = all.iter().collect();
            prop_assert_eq!(packed.len(), all.len());
            prop_assert_eq!(packed.iter().collect::<Vec<_>>(), all);
        }

        /// The same order as the stable sort and `dedup` it replaces, ties included.
        #[test]
        fn findings_sort_and_dedup_as_a_stable_sort_does(all in findings()) {
            let mut packed: Findings = all.iter().collect();
            packed.sort_and_dedup();
            let mut stable = all.clone();
            stable.sort_by(|a, b| (a.offset, &a.rule_id).cmp(&(b.offset, &b.rule_id)));
            stable.dedup();
            prop_assert_eq!(packed.iter().collect::<Vec<_>>(), stable);
        }

        /// Written and read back by the cache's format, the same list.
        #[test]
        fn findings_round_trip_through_postcard(all in findings()) {
            let packed: Findings = all.iter().collect();
            let bytes = postcard::to_stdvec(&packed).unwrap();
            let back: Findings = postcard::from_bytes(&bytes).unwrap();
            prop_assert_eq!(back, packed);
        }
    }

    #[test]
    fn a_finding_packs_in_72_bytes() {
        assert_eq!(std::mem::size_of::<Packed>(), 72);
    }

    /// A report is kept until it is printed: a file with three findings holds three, not
    /// the room a growing `Vec` left (20,000 real files held 27 MB more before this).
    #[test]
    fn sorted_or_read_findings_hold_no_spare_room() {
        let three = [
            finding(5, "b", 1, false),
            finding(3, "a", 1, true),
            finding(9, "a", 2, false),
        ];
        let mut sorted: Findings = three.iter().collect();
        sorted.sort_and_dedup();
        assert_eq!(sorted.chunks[0].capacity(), 3);
        let bytes = postcard::to_allocvec(&sorted).unwrap();
        let read: Findings = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(read.chunks[0].capacity(), 3);
        assert_eq!(read.texts.capacity(), read.texts.len());
    }

    #[test]
    fn an_index_out_of_range_is_an_error_not_a_panic() {
        let packed: Findings = [finding(3, "a", 1, true)].iter().collect();
        let mut bytes = postcard::to_stdvec(&packed).unwrap();
        // The texts ("a", "s1", "m", nbsp) are first; drop them all: the indices dangle.
        bytes[0] = 0;
        let without_texts = [&bytes[..1], &bytes[1 + 2 + 3 + 2 + 3..]].concat();
        assert!(postcard::from_bytes::<Findings>(&without_texts).is_err());
    }
}
