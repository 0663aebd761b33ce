//! The scans that several rules share, made once per view.
//!
//! Some rules ask the same question of a view: the repeated-word rules of both languages
//! (`cs-R13`, `en-R6`) look at every pair of neighbouring words, the space-before-punctuation
//! rules (`cs-R12`, `en-R7`) at every space before a mark, and the two no-break rules
//! (`cs-R1`, `cs-R1b`) at every one-letter word, each for its own letters. In a bilingual
//! file both languages' rules run on every view, and a Czech file always runs both
//! no-break rules, so each scan used to run twice. The engine hands every rule of a view
//! the same [`Scans`]: a scan runs when the first rule asks for it, and the next rule
//! filters the kept candidates for its own language, letters or word list. Candidates are
//! rare in prose (a repeated word, a misplaced space), so keeping them costs next to
//! nothing; the scan is what costs. The rules that need a rare byte share one pass that
//! finds all of them: the view's [`Triggers`].

use super::one_letter::for_each_standalone;
use super::repeat::{Repeat, for_each_repeat};
use super::space_before::for_each_space_before;
use super::triggers::Triggers;
use crate::copy::view::View;
use std::cell::OnceCell;
use std::ops::Range;

/// One view and whatever shared scans its rules have asked for so far.
pub struct Scans<'v> {
    view: &'v View,
    repeats: OnceCell<Vec<Repeat>>,
    standalone: OnceCell<Vec<(usize, Range<usize>)>>,
    spaces_before: OnceCell<Vec<(Range<usize>, char)>>,
    triggers: OnceCell<Triggers>,
}

impl<'v> Scans<'v> {
    pub fn new(view: &'v View) -> Self {
        Scans {
            view,
            repeats: OnceCell::new(),
            standalone: OnceCell::new(),
            spaces_before: OnceCell::new(),
            triggers: OnceCell::new(),
        }
    }

    /// The view's [`Triggers`]: which rules can hit it at all.
    pub fn triggers(&self) -> Triggers {
        *self.triggers.get_or_init(|| Triggers::of(&self.view.text))
    }

    /// Whether the view [reads as Czech](crate::copy::language::reads_as_czech): the gate
    /// of the rules that misfire on English mis-tagged as Czech, from the view's evidence
    /// (counted once, and shared with the structural segmenter).
    pub fn reads_as_czech(&self) -> bool {
        self.view.evidence().reads_as_czech()
    }

    pub fn view(&self) -> &'v View {
        self.view
    }

    /// Every word that repeats the word before it across a gap, whatever its length and
    /// whether or not a rule allows it (see [`Repeat::admitted`]).
    pub(super) fn repeats(&self) -> &[Repeat] {
        self.repeats.get_or_init(|| {
            let mut out = Vec::new();
            for_each_repeat(&self.view.text, |repeat| out.push(repeat));
            out
        })
    }

    /// `(letter, space)` for every one of the [one-letter words](super::one_letter) that stands alone before
    /// one breakable space and a word.
    pub(super) fn standalone(&self) -> &[(usize, Range<usize>)] {
        self.standalone.get_or_init(|| {
            let mut out = Vec::new();
            for_each_standalone(&self.view.text, |letter, space| out.push((letter, space)));
            out
        })
    }

    /// `(spaces, mark)` for every run of spaces before a punctuation mark that should
    /// follow its word directly.
    pub(super) fn spaces_before(&self) -> &[(Range<usize>, char)] {
        self.spaces_before.get_or_init(|| {
            let mut out = Vec::new();
            for_each_space_before(&self.view.text, |spaces, mark| out.push((spaces, mark)));
            out
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Hit, Hits, RuleSet, example_view};
    use super::*;

    /// Every rule of a view sharing one [`Scans`] finds exactly what it finds alone, in
    /// either order of the rules that share a scan.
    #[test]
    fn sharing_a_scan_changes_no_rule_result() {
        let texts = [
            "Včera jsme jsme byli v lese , a i pak s kamarády. The the end ?",
            "Jsme jsme tu a\nv lese. Open the the file ; really ! se se, that that",
            "A pak v\u{a0}lese i\u{a0}k nám … Nový NOVÝ web, it is a\na problem .",
            "Sejdeme se 5.5.2026 k 5. výročí, stojí 50Kč a 3x4 m, see pages 10-20 , tj. vše.",
        ];
        let rules = RuleSet::builtin();
        for text in texts {
            let view = example_view(text);
            let alone: Vec<Vec<Hit>> = rules
                .rules()
                .iter()
                .map(|rule| {
                    let mut out = Hits::default();
                    rule.check(&view, &mut out);
                    out.into_vec()
                })
                .collect();
            for order in [false, true] {
                let scans = Scans::new(&view);
                let mut shared = vec![Vec::new(); rules.rules().len()];
                let mut indices: Vec<usize> = (0..rules.rules().len()).collect();
                if order {
                    indices.reverse();
                }
                for i in indices {
                    let mut out = Hits::default();
                    rules.rules()[i].check_in(&scans, &mut out);
                    shared[i] = out.into_vec();
                }
                assert_eq!(shared, alone, "{text:?}");
            }
            assert!(
                alone.iter().filter(|h| !h.is_empty()).count() >= 5,
                "{text:?}"
            );
        }
    }
}
