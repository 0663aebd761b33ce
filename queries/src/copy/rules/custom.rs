//! Project-defined regex rules (`custom_rules:` in `.copy-editor.yaml`).
//!
//! A custom rule runs exactly like a built-in one: the engine filters its hits by span
//! language and kind, maps them back to source positions and applies its fixes. Only the
//! matching is different: one regular expression over the view text.

use super::set::RuleConfigError;
use super::{Edit, Hit, Hits, Rule, RuleMeta, Severity};
use crate::copy::view::View;
use regex::Regex;

/// A custom rule as the configuration states it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CustomRuleSpec {
    pub id: String,
    /// A `regex` crate pattern (no look-around), matched against the view text.
    pub pattern: String,
    pub message: String,
    pub severity: Severity,
    /// Languages the rule applies to; empty = every language.
    pub languages: Vec<String>,
    /// Span kinds the rule applies to; empty = the engine's default (prose and quotes).
    /// The engine reads this when filtering; the rule itself does not look at spans.
    pub kinds: Vec<String>,
    /// Replacement for the matched text, with `$1` / `${name}` capture references as in
    /// [`regex::Captures::expand`]; `None` = the rule has no fix.
    pub replacement: Option<String>,
}

#[derive(Debug)]
pub(crate) struct CustomRule {
    meta: RuleMeta,
    regex: Regex,
    message: String,
    replacement: Option<String>,
}

impl CustomRule {
    pub(crate) fn new(spec: &CustomRuleSpec) -> Result<Self, RuleConfigError> {
        let regex = Regex::new(&spec.pattern).map_err(|e| RuleConfigError::BadPattern {
            id: spec.id.clone(),
            error: e.to_string(),
        })?;
        // A pattern that matches nothing at all still matches the empty string everywhere:
        // it would report every position (or, as empty hits are dropped, silently nothing).
        if regex.is_match("") {
            return Err(RuleConfigError::EmptyMatch {
                id: spec.id.clone(),
                pattern: spec.pattern.clone(),
            });
        }
        let meta = RuleMeta {
            id: spec.id.clone(),
            severity: spec.severity,
            languages: spec.languages.clone(),
            summary: spec.message.clone(),
            doc: format!(
                "A project rule from the configuration: reports every match of the \
                 regular expression `{}`.",
                spec.pattern
            ),
            bad: Vec::new(),
            good: Vec::new(),
            fixable: spec.replacement.is_some(),
        };
        Ok(CustomRule {
            meta,
            regex,
            message: spec.message.clone(),
            replacement: spec.replacement.clone(),
        })
    }
}

impl Rule for CustomRule {
    fn meta(&self) -> &RuleMeta {
        &self.meta
    }

    fn check(&self, view: &View, out: &mut Hits<'_>) {
        let text = &view.text;
        let Some(replacement) = &self.replacement else {
            for m in self.regex.find_iter(text).filter(|m| !m.is_empty()) {
                out.push(Hit {
                    range: m.range(),
                    message: self.message.clone(),
                    fix: None,
                    anchor: None,
                });
            }
            return;
        };
        for caps in self.regex.captures_iter(text) {
            let m = caps.get(0).expect("group 0 always participates");
            if m.is_empty() {
                continue;
            }
            let mut with = String::new();
            caps.expand(replacement, &mut with);
            out.push(Hit {
                range: m.range(),
                message: self.message.clone(),
                fix: Some(Edit {
                    range: m.range(),
                    replacement: with,
                }),
                anchor: None,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::scan::testing::{fixed, hits};
    use super::*;

    fn spec(pattern: &str, replacement: Option<&str>) -> CustomRuleSpec {
        CustomRuleSpec {
            id: "proj-okay".into(),
            pattern: pattern.into(),
            message: "write “OK”".into(),
            severity: Severity::Warning,
            languages: vec!["en".into()],
            kinds: vec![],
            replacement: replacement.map(Into::into),
        }
    }

    #[test]
    fn reports_matches_with_expanded_fixes() {
        let rule = CustomRule::new(&spec(r"\b(o)kay\b", Some("${1}K"))).unwrap();
        let found = hits(&rule, "okay, okay then");
        assert_eq!(
            found.iter().map(|h| h.range.clone()).collect::<Vec<_>>(),
            vec![0..4, 6..10]
        );
        assert_eq!(found[0].message, "write “OK”");
        assert_eq!(fixed(&rule, "okay, okay then"), "oK, oK then");
        assert!(rule.meta().fixable);
        assert_eq!(rule.meta().languages, vec!["en".to_owned()]);
    }

    #[test]
    fn without_replacement_no_fix() {
        let rule = CustomRule::new(&spec("okay", None)).unwrap();
        let found = hits(&rule, "okay");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].fix, None);
        assert!(!rule.meta().fixable);
    }

    #[test]
    fn rejects_bad_and_empty_patterns_naming_the_rule() {
        let err = CustomRule::new(&spec("(unclosed", None)).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("proj-okay") && text.contains("unclosed"),
            "{text}"
        );
        let err = CustomRule::new(&spec("x*", None)).unwrap_err();
        assert!(matches!(err, RuleConfigError::EmptyMatch { .. }), "{err}");
        // A pattern that can match empty somewhere but not on empty text: empty matches
        // are dropped at run time.
        let rule = CustomRule::new(&spec(r"\b", None)).unwrap();
        assert!(hits(&rule, "a b").is_empty());
    }
}
