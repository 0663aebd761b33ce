//! Soil, the language trellis lowers specs to: enough of it to recompute a `soil_hash`
//! as trellis does. [`lex`] and [`parse`] read a `.soil` file into the tree of [`ast`],
//! [`print`] prints a tree in its one canonical text, and [`hash_form`] numbers the local
//! binders and collects what a definition refers to.
//!
//! No type checking and no name resolution beyond telling locals from free names: a
//! `.soil` file that parses but does not check is trellis's to report.

pub mod ast;
pub mod hash_form;
pub mod lex;
pub mod parse;
pub mod print;

use crate::text::LineCol;

/// Why a `.soil` file cannot be read, and where.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SyntaxError {
    /// Stable: `soil-stray-character`, `soil-bare-hole`, `soil-bad-escape`,
    /// `soil-unterminated-string` (tokens); `soil-expected`, `soil-multiple-defs`,
    /// `soil-misplaced-private`, `soil-name-mismatch`, `soil-nonassoc-comparison`,
    /// `soil-duplicate-field`, `soil-wildcard-in-let-rec` (grammar).
    pub code: &'static str,
    pub at: LineCol,
    pub message: String,
}

/// The hash forms of the definitions in a `.soil` file named `file_name`.
pub fn hash_forms(src: &str, file_name: &str) -> Result<Vec<hash_form::HashForm>, SyntaxError> {
    Ok(hash_form::hash_forms(parse::parse_file(src, file_name)?))
}
#[cfg(test)]
mod tests;
