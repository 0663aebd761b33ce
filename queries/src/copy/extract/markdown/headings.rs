//! The heading path: the labels of the open headings, which every view gets as its path
//! hint. Apart from the walker because the [`super::subset`] reader keeps one too.

use super::super::PathHints;

/// The headings open at a point of the document, and the path hint they make (none when
/// the views go without hints).
pub(super) struct Headings {
    /// Level of each, and where its label ends in `path`.
    open: Vec<(u8, usize)>,
    /// The labels joined by ` > `: every view's path hint (none before the first
    /// heading). A heading truncates it to its parent's label and appends its own, so the
    /// labels are written once each.
    pub(super) path: Option<String>,
    /// Path hints are wanted: headings are entered.
    on: bool,
}

impl Headings {
    pub(super) fn new(hints: PathHints) -> Self {
        Headings {
            open: Vec::new(),
            path: None,
            on: hints.wanted(),
        }
    }

    /// A heading of `level` whose text is `text`: it closes the open headings of its level
    /// and deeper. Its label is `## Words`, the text with every run of blanks made one
    /// space.
    pub(super) fn enter(&mut self, level: u8, text: &str) {
        if !self.on {
            return;
        }
        while self.open.last().is_some_and(|(l, _)| *l >= level) {
            self.open.pop();
        }
        let path = self.path.get_or_insert_with(String::new);
        match self.open.last() {
            Some(&(_, end)) => {
                path.truncate(end);
                path.push_str(" > ");
            }
            None => path.clear(),
        }
        path.extend(std::iter::repeat_n('#', usize::from(level)));
        for word in text.split_whitespace() {
            path.push(' ');
            path.push_str(word);
        }
        self.open.push((level, path.len()));
    }
}
