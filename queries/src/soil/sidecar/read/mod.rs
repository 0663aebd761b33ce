//! Builds the model from the positioned JSON tree, checking every key and value.
//!
//! The readers every object is built from are in `values`, one reader per object of the
//! format in `objects`; here are the entry point and the problems they report.

mod objects;
mod values;

use super::json::{self, Node, Seg, render_path};
use super::{Sidecar, SidecarError};
use crate::text::LineIndex;
use objects::top;

/// A string value from a closed set; implemented by `keyword_enum!`.
pub(super) trait Keyword: Sized {
    /// What the value is called in "unknown …" messages.
    const WHAT: &'static str;
    fn spellings() -> Vec<&'static str>;
    fn from_str(text: &str) -> Option<Self>;
}

/// An error before line and column are known: the tree holds byte offsets, and the line
/// index is only worth building once something went wrong.
struct Problem {
    offset: usize,
    path: Vec<Seg>,
    message: String,
}

type Read<T> = Result<T, Problem>;

pub(super) fn sidecar(text: &str) -> Result<Sidecar, SidecarError> {
    let problem = match json::parse(text) {
        Ok(root) => match top(&root) {
            Ok(sidecar) => return Ok(sidecar),
            Err(problem) => problem,
        },
        Err(e) => Problem {
            offset: e.offset,
            path: e.path,
            message: e.message,
        },
    };
    let at = LineIndex::new(text).line_col(text, problem.offset);
    Err(SidecarError {
        path: render_path(&problem.path),
        line: Some(at.line as usize),
        column: Some(at.column as usize),
        message: problem.message,
    })
}

fn problem(offset: usize, path: &[Seg], message: impl Into<String>) -> Problem {
    Problem {
        offset,
        path: path.to_vec(),
        message: message.into(),
    }
}

fn child(path: &[Seg], key: &str) -> Vec<Seg> {
    let mut p = path.to_vec();
    p.push(Seg::Key(key.to_owned()));
    p
}

fn index(path: &[Seg], i: usize) -> Vec<Seg> {
    let mut p = path.to_vec();
    p.push(Seg::Index(i));
    p
}

/// `a`, `a or b`, `a, b or c`.
fn one_of(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [only] => (*only).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn mismatch(node: &Node, path: &[Seg], expected: &str) -> Problem {
    problem(
        node.start,
        path,
        format!("expected {expected}, found {}", node.value.describe()),
    )
}
