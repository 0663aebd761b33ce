//! Typography rules.
//!
//! A rule looks at one prose [`View`] at a time and reports [`Hit`]s in view coordinates.
//! It knows nothing about files, spans or lockfiles: the engine maps hits back to source
//! positions and drops the ones that fall in code, data or another language.
//!
//! One rule is one module, named for its id (`cs_r3_ellipsis.rs`), and that module's doc
//! comment *is* the rule's documentation: [`RuleMeta::doc`] is read from the module's own
//! source, so the rustdoc page, the generated catalogue (`docs/rules.md`) and
//! `--self-test` cannot drift apart. The examples in a rule's [`Declaration`] double as its
//! self-test cases. A rule module holds its declaration, its [`Matcher`] (or the shared
//! matcher it parametrises) and its tests; what several rules share lives in the modules
//! without a rule id (`ellipsis`, `dash`, `space_before`, `repeat`, `one_letter`, the
//! [`Scans`] of `shared`, the [`Triggers`]). A rule module never imports another rule
//! module (a test holds this), and bytes are scanned only through `copy::bytescan`.
//!
//! Every rule scans its view once (byte scanning with cheap prefilters, or one regex
//! compiled in the rule's constructor), so the cost of a run is linear in the prose.

mod builtin;
mod catalogue;
mod custom;
mod dash;
mod ellipsis;
mod one_letter;
mod repeat;
mod scan;
mod self_test;
mod set;
mod shared;
mod space_before;
mod triggers;

pub mod cs_r10_tj_abbreviation;
pub mod cs_r11_multiplication_sign;
pub mod cs_r12_space_before_punctuation;
pub mod cs_r13_repeated_word;
pub mod cs_r1_nbsp_prep;
pub mod cs_r1b_nbsp_conjunction;
pub mod cs_r2_quotes;
pub mod cs_r2b_english_quotes;
pub mod cs_r3_ellipsis;
pub mod cs_r4_number_unit;
pub mod cs_r5_ordinal_space;
pub mod cs_r6_dash;
pub mod cs_r7_sentence_case_heading;
pub mod cs_r8_english_day_month;
pub mod cs_r9_date_spacing;
pub mod en_r1_ellipsis;
pub mod en_r2_straight_quotes;
pub mod en_r3_straight_apostrophe;
pub mod en_r4_spaced_hyphen_dash;
pub mod en_r5_numeric_range;
pub mod en_r6_repeated_word;
pub mod en_r7_space_before_punctuation;

pub use builtin::{Builtin, Declaration, Matcher};
pub use catalogue::catalogue_markdown;
pub use custom::CustomRuleSpec;
pub use self_test::{SelfTestFailure, apply_edits, example_view, self_test};
pub use set::{RuleConfigError, RuleSet};
pub use shared::Scans;
pub use triggers::Triggers;

use crate::copy::view::View;
use std::fmt;
use std::ops::Range;

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            "info" => Some(Severity::Info),
            _ => None,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A replacement of a view range. The engine applies it to the source range the view range
/// maps back to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Edit {
    pub range: Range<usize>,
    pub replacement: String,
}

/// One match of a rule inside a view. `range.start` is where the finding is reported.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Hit {
    pub range: Range<usize>,
    pub message: String,
    pub fix: Option<Edit>,
    /// A source offset to report at instead of `range.start`, for rules that report at
    /// markup the view does not contain (a heading's `#`, see [`ViewRole::Heading`]).
    ///
    /// [`ViewRole::Heading`]: crate::copy::view::ViewRole::Heading
    pub anchor: Option<usize>,
}

/// Where a rule puts its hits, in view order: a buffer that the engine empties as it
/// fills, so that a rule on one dense view never holds all its hits (each with its
/// message) at once — a 20 MB line of Czech prose has over a million of one rule. Not
/// readable while it is being filled: a draining `Hits` holds only the latest hits, so a
/// rule never looks back at what it pushed. A collecting one ([`Default`]) gives all of
/// them by [`into_vec`](Hits::into_vec).
#[derive(Default)]
pub struct Hits<'a> {
    buf: Vec<Hit>,
    drain: Option<&'a mut Drain<'a>>,
}

/// What a draining [`Hits`] hands its full buffer to; it takes the hits out.
pub type Drain<'a> = dyn FnMut(&mut Vec<Hit>) + 'a;

impl<'a> Hits<'a> {
    /// Hits handed to `drain` whenever [`DRAIN_AT`](Hits::DRAIN_AT) have been pushed, and
    /// by [`flush`](Hits::flush); `drain` takes them out of the buffer.
    pub fn draining_into(drain: &'a mut Drain<'a>) -> Self {
        Hits {
            buf: Vec::new(),
            drain: Some(drain),
        }
    }

    /// How many hits are held before they are drained: enough to keep the hand-over's
    /// cost out of sight, few enough that their messages weigh nothing.
    pub const DRAIN_AT: usize = 1024;

    pub fn push(&mut self, hit: Hit) {
        self.buf.push(hit);
        if self.buf.len() >= Self::DRAIN_AT {
            self.flush();
        }
    }

    /// Hands what is held to the drain (a collecting `Hits` keeps it).
    pub fn flush(&mut self) {
        if let Some(drain) = self.drain.as_mut() {
            drain(&mut self.buf);
            self.buf.clear();
        }
    }

    /// What a collecting `Hits` holds.
    pub fn into_vec(self) -> Vec<Hit> {
        self.buf
    }
}

impl Extend<Hit> for Hits<'_> {
    fn extend<I: IntoIterator<Item = Hit>>(&mut self, hits: I) {
        hits.into_iter().for_each(|hit| self.push(hit));
    }
}

impl fmt::Debug for Hits<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.buf).finish()
    }
}

/// Everything about a rule except how it matches: what the reports, the rules catalogue and
/// `--self-test` are made from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RuleMeta {
    /// Stable id, matched by id in the field (`cs-R1-nbsp-prep`).
    pub id: String,
    pub severity: Severity,
    /// Language codes the rule applies to; empty = every language.
    pub languages: Vec<String>,
    /// One line: what the rule reports.
    pub summary: String,
    /// A paragraph: what it does and why (Markdown).
    pub doc: String,
    /// Example texts the rule must fire on. A text starting with `#` is a Markdown heading.
    pub bad: Vec<String>,
    /// Example texts the rule must stay silent on.
    pub good: Vec<String>,
    /// Whether hits carry a fix.
    pub fixable: bool,
}

/// The reference implementation's rule ids: reports and `byRule` keys in the field are
/// matched by these exact strings, and any other rule is one the reference lacks.
pub const REFERENCE_IDS: [&str; 10] = [
    "cs-R1-nbsp-prep",
    "cs-R1b-nbsp-conjunction",
    "cs-R2-quotes",
    "cs-R3-ellipsis",
    "cs-R4-number-unit",
    "cs-R5-ordinal-space",
    "cs-R6-dash",
    "cs-R7-sentence-case-heading",
    "cs-R8-english-day-month",
    "en-R1-ellipsis",
];

pub trait Rule: Send + Sync + fmt::Debug {
    fn meta(&self) -> &RuleMeta;
    /// Appends every hit in `view` to `out`, in view order.
    fn check(&self, view: &View, out: &mut Hits<'_>);

    /// [`check`](Rule::check) for a view whose rules share `scans`: what the engine calls.
    /// A rule whose work is one of the [shared scans](Scans) takes it from there.
    fn check_in(&self, scans: &Scans<'_>, out: &mut Hits<'_>) {
        self.check(scans.view(), out);
    }

    /// What a view must hold for this rule to hit it: the engine skips the rule on views
    /// without any of these (see [`Triggers`]). Never more than necessary.
    fn triggers(&self) -> Triggers {
        Triggers::ANY
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashSet;

    /// Pieces of prose, markup the extractors leave, and characters that have broken
    /// byte-level scans elsewhere (multi-byte letters next to ASCII, combining marks,
    /// case mappings that change length, digits and units, quotes and dashes). The first
    /// [`DENSE`] are drawn half the time, so that repeated words, one-letter words before
    /// a space and numbers with units come up in most texts.
    const NOISE: &[&str] = &[
        "the",
        " ",
        "The",
        "se",
        "v",
        "a",
        "\u{a0}",
        "5",
        ".",
        "…",
        "Kč",
        "\n",
        "i",
        "k",
        "s",
        "A",
        "V",
        "že",
        "Že",
        "ŽE",
        "čas",
        "tj.",
        "t.",
        "j.",
        "T. j.",
        "  ",
        "\t",
        "\r\n",
        "\r",
        "\u{2028}",
        "\u{fffc}",
        ",",
        "...",
        ". . .",
        ":",
        ";",
        "!",
        "?",
        "-",
        " - ",
        "–",
        "—",
        "\"",
        "'",
        "„",
        "“",
        "”",
        "‚",
        "‘",
        "’",
        "«",
        "»",
        "(",
        ")",
        "[",
        "]",
        "1",
        "10",
        "2026",
        "5.",
        "5.5.",
        "50",
        "%",
        "km",
        "°C",
        "x",
        "×",
        "3x4",
        "10-20",
        "Monday",
        "May",
        "March",
        "İ",
        "i̇",
        "ß",
        "ǅ",
        "K",
        "日本",
        "😀",
        "\u{301}",
        "é",
        "#",
        "## ",
        "_",
        "/",
        "www.",
        "https://x.cz",
    ];
    const DENSE: usize = 12;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        /// Every built-in rule, on any text: no panic, every hit and fix on character
        /// boundaries inside the view, its fixes applicable, the same hits whether the
        /// rule runs alone or sharing the view's scans with the others, and no hit in a
        /// view without one of its triggers (which the engine would skip).
        #[test]
        fn every_rule_reports_inside_any_text(
            picks in proptest::collection::vec(prop_oneof![0..DENSE, 0..NOISE.len()], 0..48),
        ) {
            let text: String = picks.iter().map(|&i| NOISE[i]).collect();
            let view = example_view(&text);
            let rules = RuleSet::builtin();
            let scans = Scans::new(&view);
            for rule in rules.rules() {
                let id = &rule.meta().id;
                let (mut alone, mut shared) = (Hits::default(), Hits::default());
                rule.check(&view, &mut alone);
                rule.check_in(&scans, &mut shared);
                let (alone, shared) = (alone.into_vec(), shared.into_vec());
                prop_assert_eq!(&alone, &shared, "{}", id);
                prop_assert!(
                    alone.is_empty() || rule.triggers().intersects(scans.triggers()),
                    "{} hit {:?} without its triggers", id, view.text
                );
                let inside = |r: &Range<usize>| {
                    r.start <= r.end
                        && r.end <= view.text.len()
                        && view.text.is_char_boundary(r.start)
                        && view.text.is_char_boundary(r.end)
                };
                for hit in alone.iter() {
                    prop_assert!(inside(&hit.range), "{} hit {:?} in {:?}", id, hit.range, view.text);
                    if let Some(fix) = &hit.fix {
                        prop_assert!(inside(&fix.range), "{} fix {:?} in {:?}", id, fix.range, view.text);
                    }
                }
                let edits = alone.into_iter().filter_map(|h| h.fix).collect();
                let _ = apply_edits(&view.text, edits);
            }
        }
    }

    /// The examples a rule must fire on hold one of its triggers: a check of the
    /// triggers against texts written to hit, beside the property test's random ones.
    #[test]
    fn every_bad_example_holds_a_trigger_of_its_rule() {
        for rule in RuleSet::builtin().rules() {
            for bad in &rule.meta().bad {
                assert!(
                    rule.triggers().intersects(Triggers::of(bad)),
                    "{}: {bad:?}",
                    rule.meta().id
                );
            }
        }
    }

    #[test]
    fn builtin_rules_pass_their_own_examples() {
        let failures = self_test(&RuleSet::builtin());
        let text: Vec<String> = failures.iter().map(ToString::to_string).collect();
        assert!(failures.is_empty(), "{}", text.join("\n"));
    }

    #[test]
    fn builtin_keeps_every_reference_id_first_and_in_order() {
        let all: Vec<String> = RuleSet::builtin()
            .rules()
            .iter()
            .map(|r| r.meta().id.clone())
            .collect();
        for id in REFERENCE_IDS {
            assert!(all.iter().any(|a| a == id), "missing {id}");
        }
        assert_eq!(&all[..10], &REFERENCE_IDS);
        let unique: HashSet<_> = all.iter().collect();
        assert_eq!(unique.len(), all.len(), "duplicate ids in {all:?}");
        assert_eq!(all.len(), 22, "{all:?}");
    }

    #[test]
    fn reference_severities_and_fixability_are_kept() {
        let set = RuleSet::builtin();
        let expect = [
            ("cs-R1-nbsp-prep", Severity::Error, true),
            ("cs-R1b-nbsp-conjunction", Severity::Warning, true),
            ("cs-R2-quotes", Severity::Error, true),
            ("cs-R3-ellipsis", Severity::Error, true),
            ("cs-R4-number-unit", Severity::Error, true),
            ("cs-R5-ordinal-space", Severity::Error, false),
            ("cs-R6-dash", Severity::Warning, true),
            ("cs-R7-sentence-case-heading", Severity::Warning, false),
            ("cs-R8-english-day-month", Severity::Error, false),
            ("en-R1-ellipsis", Severity::Warning, true),
        ];
        for (id, severity, fixable) in expect {
            let meta = set.get(id).unwrap().meta();
            assert_eq!((meta.severity, meta.fixable), (severity, fixable), "{id}");
        }
    }

    #[test]
    fn each_doc_is_its_module_doc() {
        let set = RuleSet::builtin();
        let r1 = set.get("cs-R1-nbsp-prep").unwrap().meta();
        assert!(
            r1.doc.starts_with("Czech typography (ČSN 01 6910)"),
            "{}",
            r1.doc
        );
        assert!(!r1.doc.contains("//!"));
    }

    /// A rule module names no other rule module: what twins share lives in a module of
    /// its own, so a change to one rule cannot change another by accident.
    #[test]
    fn no_rule_module_imports_another() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/copy/rules");
        let is_rule = |name: &str| name.starts_with("cs_r") || name.starts_with("en_r");
        let mut rules = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            if !is_rule(&name) {
                continue;
            }
            rules += 1;
            let own = name.trim_end_matches(".rs");
            let source = std::fs::read_to_string(&path).unwrap();
            for (n, line) in source.lines().enumerate() {
                for word in line.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                    assert!(
                        !is_rule(word) || word == own,
                        "{name}:{}: names the rule module {word}",
                        n + 1
                    );
                }
            }
        }
        assert_eq!(rules, 22);
    }
}
