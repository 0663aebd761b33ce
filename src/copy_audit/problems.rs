//! What is wrong with a lockfile entry against its file as it is now: what `lockfile
//! check` reports and `--verbose` warns about.

use super::workspace::Workspace;
use lockgraph_queries::copy::lockfile::{self, Entry, SpanFit};
use lockgraph_queries::hash::ContentHash;
use lockgraph_queries::text::{LineCol, LineIndex};
use serde::Serialize;

/// One thing `lockfile check` found wrong with an entry.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    pub path: String,
    /// `stale`, `fileMissing`, `unreadable`, `coversNothing` or `pastEnd`.
    pub kind: &'static str,
    /// The span's 1-based number in the entry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<usize>,
    /// The exact coordinates of a `pastEnd` span (what `lockfile normalize` writes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<String>,
    pub message: String,
    /// The file is in `paths.include` and not excluded: the audit reads its entry.
    pub in_scope: bool,
}

impl Problem {
    /// Whether the audit reads the entry differently from what it says: the check fails.
    /// An entry out of scope is kept but never read, so it fails nothing.
    pub fn blocks(&self) -> bool {
        self.in_scope && matches!(self.kind, "stale" | "coversNothing")
    }
}

/// What is wrong with `rel`'s entry, against the file as it is now.
pub fn entry_problems(ws: &Workspace, rel: &str, entry: &Entry) -> Vec<Problem> {
    let problem = |kind, span: Option<usize>, exact: Option<String>, message: String| Problem {
        path: rel.to_owned(),
        kind,
        span,
        exact,
        message,
        in_scope: true,
    };
    let text = match crate::fsutil::read_regular(&ws.root.join(rel)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let message = "no such file (the entry is kept; `lockfile invalidate` removes it)";
            return vec![problem("fileMissing", None, None, message.to_owned())];
        }
        Err(e) => return vec![problem("unreadable", None, None, e.to_string())],
        Ok(bytes) => bytes,
    };
    let actual = ContentHash::of(&text).to_string();
    if actual != entry.content_hash {
        let message = format!(
            "stale: the entry is for {}, the file is {actual}; re-segment it",
            entry.content_hash
        );
        return vec![problem("stale", None, None, message)];
    }
    let Ok(text) = String::from_utf8(text) else {
        let message = "not UTF-8 text".to_owned();
        return vec![problem("unreadable", None, None, message)];
    };
    let index = LineIndex::new(&text);
    let mut out = Vec::new();
    for (i, span) in entry.spans.iter().enumerate() {
        let given = (span.start(), span.end());
        match lockfile::span_fit(&text, &index, span) {
            SpanFit::Exact => {}
            SpanFit::Empty => out.push(problem(
                "coversNothing",
                Some(i + 1),
                None,
                format!(
                    "span {} ({}) covers no character (it starts past the end of the file); \
                     the audit ignores it",
                    i + 1,
                    range_text(given)
                ),
            )),
            SpanFit::PastEnd { start, end } => out.push(problem(
                "pastEnd",
                Some(i + 1),
                Some(range_text((start, end))),
                format!(
                    "span {} ({}) reaches past the end of {}; it covers {}",
                    i + 1,
                    range_text(given),
                    past_what(given, (start, end)),
                    range_text((start, end))
                ),
            )),
        }
    }
    out
}

/// `3:1–60:111`, a span's coordinates as `lockfile check` and `add` print them.
pub fn range_text((start, end): (LineCol, LineCol)) -> String {
    format!(
        "{}:{}–{}:{}",
        start.line, start.column, end.line, end.column
    )
}

/// Which end a span reached past, from its coordinates as given and written exactly: the
/// file, or a line (its start's when the start moved, else its end's).
pub fn past_what(given: (LineCol, LineCol), exact: (LineCol, LineCol)) -> String {
    if given.1.line > exact.1.line && given.0 == exact.0 {
        "the file".to_owned()
    } else if given.0 != exact.0 {
        format!("line {}", given.0.line)
    } else {
        format!("line {}", given.1.line)
    }
}
