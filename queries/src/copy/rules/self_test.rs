//! `--self-test`: every rule against its own examples.
//!
//! The examples in a rule's meta are its contract with the user (they are printed in the
//! catalogue), so the binary checks them at run time too: a rule that no longer fires on
//! its bad example, fires on its good one, or whose fix does not cure its own finding is a
//! broken build, whatever the unit tests said.

use super::{Edit, Hit, Hits, Rule, RuleSet};
use crate::copy::view::{View, ViewBuilder, ViewRole};
use std::fmt;

/// Builds the view an example text stands for.
///
/// A text starting with one to six `#` and a space is a Markdown heading: the view is the
/// text after the `# ` (mapped to its own bytes) with [`ViewRole::Heading`] and the marker
/// at offset 0. Anything else is running text, copied verbatim. No markup is stripped:
/// examples are written as a reader sees them.
pub fn example_view(text: &str) -> View {
    let hashes = text.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes) && text.as_bytes().get(hashes) == Some(&b' ') {
        let body = hashes + 1;
        let mut b = ViewBuilder::new(ViewRole::Heading {
            level: hashes as u8,
            marker: 0,
        });
        b.verbatim(&text[body..], body);
        return b.finish();
    }
    let mut b = ViewBuilder::new(ViewRole::Text);
    b.verbatim(text, 0);
    b.finish()
}

/// Applies edits to `text`: sorted by position, back to front, skipping any edit that
/// overlaps one already taken (edits that merely touch both apply). Ranges are byte
/// ranges of `text`.
pub fn apply_edits(text: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    let mut taken: Vec<Edit> = Vec::with_capacity(edits.len());
    for edit in edits {
        if taken
            .last()
            .is_some_and(|last| edit.range.start < last.range.end)
        {
            continue;
        }
        taken.push(edit);
    }
    let mut out = text.to_owned();
    for edit in taken.iter().rev() {
        out.replace_range(edit.range.clone(), &edit.replacement);
    }
    out
}

/// One way a rule failed its own examples.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfTestFailure {
    pub rule_id: String,
    pub example: String,
    pub problem: String,
}

impl fmt::Display for SelfTestFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} (example {:?})",
            self.rule_id, self.problem, self.example
        )
    }
}

/// Runs every rule of `set` on its examples; an empty list means all passed.
///
/// Checks, per rule: each bad example gets at least one hit; each good example gets none;
/// hits are in view order on character boundaries; a rule that is not fixable carries no
/// fix; and for a fixable rule, applying its fixes to a bad example leaves text it no
/// longer fires on (which is also what makes `--fix` idempotent for that example).
pub fn self_test(set: &RuleSet) -> Vec<SelfTestFailure> {
    let mut failures = Vec::new();
    for rule in set.rules() {
        let meta = rule.meta();
        let mut fail = |example: &str, problem: String| {
            failures.push(SelfTestFailure {
                rule_id: meta.id.clone(),
                example: example.to_owned(),
                problem,
            })
        };
        for bad in &meta.bad {
            let view = example_view(bad);
            let hits = run(rule.as_ref(), &view);
            if hits.is_empty() {
                fail(bad, "bad example produced no finding".into());
                continue;
            }
            if let Some(problem) = malformed(rule.as_ref(), &view, &hits) {
                fail(bad, problem);
                continue;
            }
            if meta.fixable {
                let edits: Vec<Edit> = hits.into_iter().filter_map(|h| h.fix).collect();
                if edits.is_empty() {
                    fail(bad, "fixable rule offered no fix".into());
                    continue;
                }
                let text = apply_edits(&view.text, edits);
                let again = run(rule.as_ref(), &same_role(&view, &text));
                if !again.is_empty() {
                    fail(bad, format!("still fires after its own fix, on {text:?}"));
                }
            }
        }
        for good in &meta.good {
            let view = example_view(good);
            let hits = run(rule.as_ref(), &view);
            if let Some(first) = hits.first() {
                fail(
                    good,
                    format!(
                        "good example produced {} finding(s), first at byte {}: {}",
                        hits.len(),
                        first.range.start,
                        first.message
                    ),
                );
            }
        }
    }
    failures
}

fn run(rule: &dyn Rule, view: &View) -> Vec<Hit> {
    let mut out = Hits::default();
    rule.check(view, &mut out);
    out.into_vec()
}

fn same_role(view: &View, text: &str) -> View {
    let mut b = ViewBuilder::new(view.role.clone());
    b.verbatim(text, view.source_offset(0));
    b.finish()
}

/// A reason the hits cannot be reported or applied as they are, if there is one.
fn malformed(rule: &dyn Rule, view: &View, hits: &[Hit]) -> Option<String> {
    let text = &view.text;
    let in_text = |r: &std::ops::Range<usize>| {
        r.start <= r.end
            && r.end <= text.len()
            && text.is_char_boundary(r.start)
            && text.is_char_boundary(r.end)
    };
    let mut last = 0;
    for hit in hits {
        if !in_text(&hit.range) {
            return Some(format!("hit range {:?} is not inside the text", hit.range));
        }
        if hit.range.start < last {
            return Some("hits are not in view order".into());
        }
        last = hit.range.start;
        match &hit.fix {
            Some(_) if !rule.meta().fixable => {
                return Some("rule is not marked fixable but offers a fix".into());
            }
            Some(edit) if !in_text(&edit.range) => {
                return Some(format!("fix range {:?} is not inside the text", edit.range));
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::{RuleMeta, Severity};
    use super::*;
    use std::sync::Arc;

    #[test]
    fn heading_examples_become_heading_views() {
        let v = example_view("## Nový Projekt");
        assert_eq!(v.text, "Nový Projekt");
        assert_eq!(
            v.role,
            ViewRole::Heading {
                level: 2,
                marker: 0
            }
        );
        assert_eq!(v.source_offset(0), 3);
        assert_eq!(example_view("#hashtag").role, ViewRole::Text);
        assert_eq!(example_view("####### seven").role, ViewRole::Text);
        assert_eq!(example_view("#hashtag").text, "#hashtag");
    }

    #[test]
    fn edits_apply_back_to_front_and_skip_overlaps() {
        let e = |r: std::ops::Range<usize>, s: &str| Edit {
            range: r,
            replacement: s.into(),
        };
        let out = apply_edits(
            "abcdef",
            vec![e(4..5, "E"), e(0..2, "X"), e(1..3, "no"), e(2..2, "+")],
        );
        assert_eq!(out, "X+cdEf");
    }

    /// A rule that fires on every `!`, and whose "fix" does nothing: the self-test must
    /// notice each way it breaks its contract.
    #[derive(Debug)]
    struct Bang(RuleMeta);

    impl Rule for Bang {
        fn meta(&self) -> &RuleMeta {
            &self.0
        }
        fn check(&self, view: &View, out: &mut Hits<'_>) {
            for (i, _) in view.text.match_indices('!') {
                out.push(Hit {
                    range: i..i + 1,
                    message: "bang".into(),
                    fix: Some(Edit {
                        range: i..i + 1,
                        replacement: "!".into(),
                    }),
                    anchor: None,
                });
            }
        }
    }

    #[test]
    fn self_test_reports_each_broken_promise() {
        let meta = RuleMeta {
            id: "x-bang".into(),
            severity: Severity::Info,
            languages: vec![],
            summary: "bang".into(),
            doc: "bang".into(),
            bad: vec!["quiet".into(), "loud!".into()],
            good: vec!["also loud!".into()],
            fixable: true,
        };
        let set = RuleSet::from_rules(vec![Arc::new(Bang(meta))]);
        let problems: Vec<String> = self_test(&set).into_iter().map(|f| f.problem).collect();
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems[0].contains("no finding"));
        assert!(problems[1].contains("still fires"));
        assert!(problems[2].contains("good example"));
    }
}
