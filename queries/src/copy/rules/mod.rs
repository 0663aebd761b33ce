//! Typography rules.
//!
//! A rule looks at one prose [`View`] at a time and reports [`Hit`]s in view coordinates.
//! It knows nothing about files, spans or lockfiles: the engine maps hits back to source
//! positions and drops the ones that fall in code, data or another language.

use crate::copy::view::View;
use std::fmt;
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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

pub trait Rule: Send + Sync + fmt::Debug {
    fn meta(&self) -> &RuleMeta;
    /// Appends every hit in `view` to `out`, in view order.
    fn check(&self, view: &View, out: &mut Vec<Hit>);
}
