//! The rules a run uses: the built-in ones in a stable order, minus the disabled, with
//! severity overrides and the project's custom regex rules.

use super::custom::{CustomRule, CustomRuleSpec};
use super::{Hits, Rule, RuleMeta, Scans, Severity, Triggers};
use super::{
    cs_r1_nbsp_prep, cs_r1b_nbsp_conjunction, cs_r2_quotes, cs_r2b_english_quotes, cs_r3_ellipsis,
    cs_r4_number_unit, cs_r5_ordinal_space, cs_r6_dash, cs_r7_sentence_case_heading,
    cs_r8_english_day_month, cs_r9_date_spacing, cs_r10_tj_abbreviation,
    cs_r11_multiplication_sign, cs_r12_space_before_punctuation, cs_r13_repeated_word,
    en_r1_ellipsis, en_r2_straight_quotes, en_r3_straight_apostrophe, en_r4_spaced_hyphen_dash,
    en_r5_numeric_range, en_r6_repeated_word, en_r7_space_before_punctuation,
};
use crate::copy::view::View;
use std::collections::HashSet;
use std::sync::Arc;

/// An ordered list of rules. Order is the order findings of one position are reported in,
/// so it is fixed: the reference implementation's ids first, in its order, then ours.
#[derive(Debug, Clone)]
pub struct RuleSet {
    rules: Vec<Arc<dyn Rule>>,
}

/// Why a rule configuration cannot be used. Every variant names the rule id at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleConfigError {
    #[error("{setting} names unknown rule `{id}`")]
    UnknownRule { setting: &'static str, id: String },
    #[error("custom rule id `{0}` is defined more than once")]
    DuplicateCustom(String),
    #[error("custom rule id `{0}` is already the id of a built-in rule")]
    CollidesWithBuiltin(String),
    #[error("custom rule id `{0:?}` is not usable: an id is non-empty and has no whitespace")]
    InvalidId(String),
    #[error("custom rule `{id}` has an invalid pattern: {error}")]
    BadPattern { id: String, error: String },
    #[error("custom rule `{id}`: pattern `{pattern}` matches the empty string")]
    EmptyMatch { id: String, pattern: String },
}

impl RuleSet {
    /// Every built-in rule.
    pub fn builtin() -> RuleSet {
        let rules: Vec<Arc<dyn Rule>> = vec![
            // The reference implementation's rules, in its order.
            Arc::new(cs_r1_nbsp_prep::rule()),
            Arc::new(cs_r1b_nbsp_conjunction::rule()),
            Arc::new(cs_r2_quotes::rule()),
            Arc::new(cs_r3_ellipsis::rule()),
            Arc::new(cs_r4_number_unit::rule()),
            Arc::new(cs_r5_ordinal_space::rule()),
            Arc::new(cs_r6_dash::rule()),
            Arc::new(cs_r7_sentence_case_heading::rule()),
            Arc::new(cs_r8_english_day_month::rule()),
            Arc::new(en_r1_ellipsis::rule()),
            // Czech, beyond the reference.
            Arc::new(cs_r2b_english_quotes::rule()),
            Arc::new(cs_r9_date_spacing::rule()),
            Arc::new(cs_r10_tj_abbreviation::rule()),
            Arc::new(cs_r11_multiplication_sign::rule()),
            Arc::new(cs_r12_space_before_punctuation::rule()),
            Arc::new(cs_r13_repeated_word::rule()),
            // English, beyond the reference's stub.
            Arc::new(en_r2_straight_quotes::rule()),
            Arc::new(en_r3_straight_apostrophe::rule()),
            Arc::new(en_r4_spaced_hyphen_dash::rule()),
            Arc::new(en_r5_numeric_range::rule()),
            Arc::new(en_r6_repeated_word::rule()),
            Arc::new(en_r7_space_before_punctuation::rule()),
        ];
        RuleSet { rules }
    }

    /// A set of exactly these rules, in this order.
    pub fn from_rules(rules: Vec<Arc<dyn Rule>>) -> RuleSet {
        RuleSet { rules }
    }

    pub fn rules(&self) -> &[Arc<dyn Rule>] {
        &self.rules
    }

    pub fn get(&self, id: &str) -> Option<&Arc<dyn Rule>> {
        self.rules.iter().find(|r| r.meta().id == id)
    }

    /// Keeps only the language rules of the declared profiles (`extends`, else
    /// `language`): a repository that declares only `czech` gets no English rule, as with
    /// the reference script, and `extends: [czech, english]` turns the English profile on.
    /// Rules of every language stay, and so do the rules named in `keep` (the config's
    /// own custom rules, whose languages the user chose).
    pub fn for_profiles(mut self, profiles: &[String], keep: &[&str]) -> RuleSet {
        self.rules.retain(|r| {
            let meta = r.meta();
            meta.languages.is_empty()
                || keep.contains(&meta.id.as_str())
                || meta.languages.iter().any(|l| profiles.contains(l))
        });
        self
    }

    /// Applies a project's rule configuration.
    ///
    /// Custom rules are appended after the built-in ones (in the order given), then
    /// `disable` and `severity` apply to the whole set, so a project can also re-level or
    /// switch off one of its own rules. An id that names no rule is an error rather than a
    /// silent no-op: a typo in `rules.disable` would otherwise leave a rule on that the
    /// project believes is off.
    pub fn configure(
        self,
        disable: &[String],
        severity: &[(String, Severity)],
        custom: Vec<CustomRuleSpec>,
    ) -> Result<RuleSet, RuleConfigError> {
        let mut rules = self.rules;
        let mut custom_ids = HashSet::new();
        for spec in &custom {
            if spec.id.is_empty() || spec.id.chars().any(char::is_whitespace) {
                return Err(RuleConfigError::InvalidId(spec.id.clone()));
            }
            if rules.iter().any(|r| r.meta().id == spec.id) {
                return Err(RuleConfigError::CollidesWithBuiltin(spec.id.clone()));
            }
            if !custom_ids.insert(spec.id.as_str()) {
                return Err(RuleConfigError::DuplicateCustom(spec.id.clone()));
            }
        }
        for spec in &custom {
            rules.push(Arc::new(CustomRule::new(spec)?));
        }
        let known = |id: &str| rules.iter().any(|r| r.meta().id == id);
        if let Some(id) = disable.iter().find(|id| !known(id)) {
            return Err(RuleConfigError::UnknownRule {
                setting: "rules.disable",
                id: id.clone(),
            });
        }
        if let Some((id, _)) = severity.iter().find(|(id, _)| !known(id)) {
            return Err(RuleConfigError::UnknownRule {
                setting: "rules.severity",
                id: id.clone(),
            });
        }
        rules.retain(|r| !disable.contains(&r.meta().id));
        for rule in &mut rules {
            // The last setting for an id wins, as with repeated keys in a config file.
            if let Some((_, level)) = severity.iter().rev().find(|(id, _)| *id == rule.meta().id)
                && *level != rule.meta().severity
            {
                let mut meta = rule.meta().clone();
                meta.severity = *level;
                *rule = Arc::new(Releveled {
                    inner: Arc::clone(rule),
                    meta,
                });
            }
        }
        Ok(RuleSet { rules })
    }
}

/// A rule with its severity overridden by the configuration: same matching, new meta.
#[derive(Debug)]
struct Releveled {
    inner: Arc<dyn Rule>,
    meta: RuleMeta,
}

impl Rule for Releveled {
    fn meta(&self) -> &RuleMeta {
        &self.meta
    }

    fn check(&self, view: &View, out: &mut Hits<'_>) {
        self.inner.check(view, out);
    }

    fn check_in(&self, scans: &Scans<'_>, out: &mut Hits<'_>) {
        self.inner.check_in(scans, out);
    }

    fn triggers(&self) -> Triggers {
        self.inner.triggers()
    }
}

#[cfg(test)]
mod tests {
    use super::super::self_test::example_view;
    use super::*;

    fn ids(set: &RuleSet) -> Vec<String> {
        set.rules().iter().map(|r| r.meta().id.clone()).collect()
    }

    fn custom(id: &str, pattern: &str) -> CustomRuleSpec {
        CustomRuleSpec {
            id: id.into(),
            pattern: pattern.into(),
            message: "m".into(),
            severity: Severity::Error,
            languages: vec![],
            kinds: vec![],
            replacement: None,
        }
    }

    #[test]
    fn builtin_metas_are_complete() {
        for rule in RuleSet::builtin().rules() {
            let m = rule.meta();
            assert!(!m.bad.is_empty() && !m.good.is_empty(), "{}", m.id);
            assert!(m.doc.len() > 80, "{} has no real doc", m.id);
            assert!(
                !m.summary.is_empty() && !m.summary.contains('\n'),
                "{}",
                m.id
            );
            assert!(!m.languages.is_empty(), "{} is language-scoped", m.id);
            let prefix = format!("{}-", m.languages[0]);
            assert!(m.id.starts_with(&prefix), "{} vs {:?}", m.id, m.languages);
        }
    }

    #[test]
    fn disable_and_severity_apply() {
        let set = RuleSet::builtin()
            .configure(
                &["cs-R6-dash".into()],
                &[("cs-R1-nbsp-prep".into(), Severity::Info)],
                vec![],
            )
            .unwrap();
        assert!(set.get("cs-R6-dash").is_none());
        let r1 = set.get("cs-R1-nbsp-prep").unwrap();
        assert_eq!(r1.meta().severity, Severity::Info);
        // Same matching as before.
        let mut out = Hits::default();
        r1.check(&example_view("s v domě"), &mut out);
        assert_eq!(out.into_vec().len(), 2);
        assert_eq!(
            RuleSet::builtin()
                .get("cs-R1-nbsp-prep")
                .unwrap()
                .meta()
                .severity,
            Severity::Error
        );
    }

    #[test]
    fn unknown_ids_are_errors_naming_the_id() {
        let err = RuleSet::builtin()
            .configure(&["cs-R99".into()], &[], vec![])
            .unwrap_err();
        assert!(err.to_string().contains("`cs-R99`"), "{err}");
        let err = RuleSet::builtin()
            .configure(&[], &[("nope".into(), Severity::Error)], vec![])
            .unwrap_err();
        assert_eq!(
            err,
            RuleConfigError::UnknownRule {
                setting: "rules.severity",
                id: "nope".into()
            }
        );
    }

    #[test]
    fn custom_rules_are_appended_and_configurable() {
        let set = RuleSet::builtin()
            .configure(
                &[],
                &[("proj-a".into(), Severity::Warning)],
                vec![custom("proj-a", "foo"), custom("proj-b", "bar")],
            )
            .unwrap();
        let all = ids(&set);
        assert_eq!(&all[all.len() - 2..], &["proj-a", "proj-b"]);
        assert_eq!(
            set.get("proj-a").unwrap().meta().severity,
            Severity::Warning
        );
        let set = RuleSet::builtin()
            .configure(&["proj-b".into()], &[], vec![custom("proj-b", "bar")])
            .unwrap();
        assert!(set.get("proj-b").is_none());
    }

    #[test]
    fn custom_id_conflicts_and_bad_patterns_are_errors() {
        let conf = |c: Vec<CustomRuleSpec>| RuleSet::builtin().configure(&[], &[], c);
        assert_eq!(
            conf(vec![custom("x", "a"), custom("x", "b")]).unwrap_err(),
            RuleConfigError::DuplicateCustom("x".into())
        );
        assert_eq!(
            conf(vec![custom("cs-R3-ellipsis", "a")]).unwrap_err(),
            RuleConfigError::CollidesWithBuiltin("cs-R3-ellipsis".into())
        );
        assert_eq!(
            conf(vec![custom("a b", "a")]).unwrap_err(),
            RuleConfigError::InvalidId("a b".into())
        );
        let err = conf(vec![custom("proj-x", "[z-a]")]).unwrap_err();
        assert!(
            matches!(&err, RuleConfigError::BadPattern { id, .. } if id == "proj-x"),
            "{err}"
        );
    }
}
