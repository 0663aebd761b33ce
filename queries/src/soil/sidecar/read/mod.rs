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

fn problem(offset: usize, path: &Path, message: impl Into<String>) -> Problem {
    Problem {
        offset,
        path: path.segs(),
        message: message.into(),
    }
}

/// Where a reader is: a chain of steps up to the root, each on the stack of the reader
/// that took it, made into [`Seg`]s only for a problem (a path built for every value read
/// was more allocations than the sidecar itself).
#[derive(Clone, Copy)]
pub(super) struct Path<'p> {
    up: Option<&'p Path<'p>>,
    step: Option<Step<'p>>,
}

#[derive(Clone, Copy)]
enum Step<'p> {
    Key(&'p str),
    Index(usize),
}

impl<'p> Path<'p> {
    const ROOT: Path<'static> = Path {
        up: None,
        step: None,
    };

    /// The path of this object's member `key`.
    fn key<'q>(&'q self, key: &'q str) -> Path<'q> {
        Path {
            up: Some(self),
            step: Some(Step::Key(key)),
        }
    }

    /// The path of this array's element `i`.
    fn index(&self, i: usize) -> Path<'_> {
        Path {
            up: Some(self),
            step: Some(Step::Index(i)),
        }
    }

    fn segs(&self) -> Vec<Seg> {
        let mut out = Vec::new();
        let mut at = Some(self);
        while let Some(path) = at {
            match path.step {
                Some(Step::Key(key)) => out.push(Seg::Key(key.to_owned())),
                Some(Step::Index(i)) => out.push(Seg::Index(i)),
                None => {}
            }
            at = path.up;
        }
        out.reverse();
        out
    }
}

/// `a`, `a or b`, `a, b or c`.
fn one_of(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [only] => (*only).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn mismatch(node: &Node, path: &Path, expected: &str) -> Problem {
    problem(
        node.start,
        path,
        format!("expected {expected}, found {}", node.value.describe()),
    )
}
