//! Three full stops where the ellipsis character `…` belongs: the match of the two
//! ellipsis rules (`cs-R3`, `en-R1`), which differ in whether the spaced form `. . .`
//! fires (Czech sets it as `…` too; English style guides prescribe it).

use super::scan::NBSP;
use super::{Edit, Hit, Hits, Matcher, Triggers};
use crate::copy::view::View;
use std::ops::Range;

/// Either language's ellipsis rule.
#[derive(Debug)]
pub struct Ellipsis {
    /// Whether the spaced form `. . .` fires too.
    pub spaced: bool,
}

impl Matcher for Ellipsis {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        for_each_ellipsis(&view.text, self.spaced, |range| {
            out.push(ellipsis_hit(range));
        });
    }

    fn triggers(&self) -> Triggers {
        Triggers::DOTS
    }
}

fn ellipsis_hit(range: Range<usize>) -> Hit {
    Hit {
        range: range.clone(),
        message: "three full stops: use the ellipsis character “…”".into(),
        fix: Some(Edit {
            range,
            replacement: "…".into(),
        }),
        anchor: None,
    }
}

/// Calls `f` with the range of every `...` (in non-overlapping threes) and, if `spaced`,
/// every `. . .`.
fn for_each_ellipsis(text: &str, spaced: bool, mut f: impl FnMut(Range<usize>)) {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'.', &bytes[at..]) {
        let i = at + found;
        if bytes[i..].starts_with(b"...") {
            f(i..i + 3);
            at = i + 3;
        } else if let Some(end) = spaced.then(|| spaced_end(text, i)).flatten() {
            f(i..end);
            at = end;
        } else {
            at = i + 1;
        }
    }
}

/// End of `. . .` starting at `i`, with one space or no-break space between the stops.
fn spaced_end(text: &str, i: usize) -> Option<usize> {
    let mut at = i + 1;
    for _ in 0..2 {
        let space = text[at..]
            .chars()
            .next()
            .filter(|&c| c == ' ' || c == NBSP)?;
        at += space.len_utf8();
        if text.as_bytes().get(at) != Some(&b'.') {
            return None;
        }
        at += 1;
    }
    Some(at)
}
