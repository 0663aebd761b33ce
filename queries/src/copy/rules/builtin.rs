//! What every built-in rule is made of: a [`Declaration`] (its id, severity, languages,
//! summary, examples and fixability, written once as a constant in the rule's module)
//! and a [`Matcher`] (how it finds hits). [`Builtin`] joins the two into a [`Rule`].
//!
//! Twin rules of the two languages share one matcher type, parametrised by what differs
//! between them (`ellipsis.rs`, `dash.rs`, `space_before.rs`, `repeat.rs`), and differ
//! only in their declarations: a rule module never imports another rule module.

use super::{Hits, Rule, RuleMeta, Scans, Severity, Triggers};
use crate::copy::view::View;
use std::fmt;

/// Everything about a built-in rule except how it matches. The rule's documentation is
/// the module doc of `source` (the rule's own file, `include_str!`d): it lives in exactly
/// one place, where a reader of the code finds it.
pub struct Declaration {
    pub id: &'static str,
    pub severity: Severity,
    pub languages: &'static [&'static str],
    pub summary: &'static str,
    pub source: &'static str,
    pub bad: &'static [&'static str],
    pub good: &'static [&'static str],
    pub fixable: bool,
}

impl Declaration {
    fn meta(&self) -> RuleMeta {
        let strings = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect();
        RuleMeta {
            id: self.id.to_owned(),
            severity: self.severity,
            languages: strings(self.languages),
            summary: self.summary.to_owned(),
            doc: module_doc(self.source),
            bad: strings(self.bad),
            good: strings(self.good),
            fixable: self.fixable,
        }
    }
}

/// How a built-in rule finds its hits: [`Rule`] without the metadata.
pub trait Matcher: Send + Sync + fmt::Debug + 'static {
    /// See [`Rule::check`].
    fn check(&self, view: &View, out: &mut Hits<'_>);

    /// See [`Rule::check_in`].
    fn check_in(&self, scans: &Scans<'_>, out: &mut Hits<'_>) {
        self.check(scans.view(), out);
    }

    /// See [`Rule::triggers`].
    fn triggers(&self) -> Triggers {
        Triggers::ANY
    }
}

/// A built-in rule: its declaration's metadata and its matcher.
#[derive(Debug)]
pub struct Builtin<M> {
    meta: RuleMeta,
    matcher: M,
}

impl<M: Matcher> Builtin<M> {
    pub fn new(declaration: &Declaration, matcher: M) -> Self {
        Builtin {
            meta: declaration.meta(),
            matcher,
        }
    }
}

impl<M: Matcher> Rule for Builtin<M> {
    fn meta(&self) -> &RuleMeta {
        &self.meta
    }

    fn check(&self, view: &View, out: &mut Hits<'_>) {
        self.matcher.check(view, out);
    }

    fn check_in(&self, scans: &Scans<'_>, out: &mut Hits<'_>) {
        self.matcher.check_in(scans, out);
    }

    fn triggers(&self) -> Triggers {
        self.matcher.triggers()
    }
}

/// The module doc comment (`//!` lines at the top) of a rule's source file.
fn module_doc(source: &str) -> String {
    let mut doc = String::new();
    for line in source.lines() {
        let Some(rest) = line.trim_start().strip_prefix("//!") else {
            break;
        };
        doc.push_str(rest.strip_prefix(' ').unwrap_or(rest));
        doc.push('\n');
    }
    doc.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_doc_reads_leading_inner_comments_only() {
        let src = "//! First line.\n//!\n//! Second `para`.\n\nuse x;\n//! not this\n";
        assert_eq!(module_doc(src), "First line.\n\nSecond `para`.");
    }
}
