//! The key path: where the parser is in the document tree, followed from its events so
//! that each scalar is known as a key or a value and each value gets its path hint.

use super::super::path::Step;
use std::borrow::Cow;

#[derive(Debug)]
pub(super) enum Frame {
    Map { want_key: bool },
    Seq { next: usize },
}

/// Where the parser is in the document tree.
#[derive(Debug, Default)]
pub(super) struct Walk<'a> {
    frames: Vec<Frame>,
    /// One step per frame: the current key or index.
    pub(super) steps: Vec<Step<'a>>,
    /// Depth inside a mapping or sequence used as a key (`? [a, b]: c`), which is not prose.
    in_key: usize,
}

impl<'a> Walk<'a> {
    /// A scalar node; returns whether it is a value (and not a key).
    pub(super) fn scalar(&mut self, value: Cow<'a, str>) -> bool {
        if self.in_key > 0 {
            return false;
        }
        match self.frames.last_mut() {
            Some(Frame::Map { want_key }) if *want_key => {
                *want_key = false;
                *self.steps.last_mut().expect("a step per frame") = Step::Key(value);
                false
            }
            _ => true,
        }
    }

    /// An alias (`*a`): a key or a value, never a view of its own.
    pub(super) fn alias(&mut self) {
        if self.scalar(Cow::Borrowed("*")) {
            self.done_value();
        }
    }

    /// A value node is complete: the enclosing container moves on.
    pub(super) fn done_value(&mut self) {
        if self.in_key > 0 {
            return;
        }
        match self.frames.last_mut() {
            Some(Frame::Map { want_key }) => *want_key = true,
            Some(Frame::Seq { next }) => {
                *next += 1;
                *self.steps.last_mut().expect("a step per frame") = Step::Index(*next);
            }
            None => {}
        }
    }

    pub(super) fn start(&mut self, frame: Frame) {
        let is_key = matches!(self.frames.last(), Some(Frame::Map { want_key: true }));
        if self.in_key > 0 || is_key {
            self.in_key += 1;
            return;
        }
        self.steps.push(match frame {
            Frame::Map { .. } => Step::Key(Cow::Borrowed("")),
            Frame::Seq { .. } => Step::Index(0),
        });
        self.frames.push(frame);
    }

    pub(super) fn end(&mut self) {
        if self.in_key > 0 {
            self.in_key -= 1;
            if self.in_key == 0 {
                // A complex key is complete; its value follows.
                self.scalar(Cow::Borrowed("?"));
            }
            return;
        }
        self.frames.pop();
        self.steps.pop();
        self.done_value();
    }
}
