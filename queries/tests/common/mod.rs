//! What the property tests of this crate share: random prose built from pieces that hold
//! the typography mistakes the rules look for.

use proptest::prelude::*;

/// Words, numbers and marks the rules fire on (and their correct forms), with the blanks
/// and line breaks around them.
pub const PIECES: &[&str] = &[
    "v",
    "s",
    "k",
    "z",
    "o",
    "u",
    "a",
    "i",
    "A",
    "V",
    "domě",
    "lese",
    "Praze",
    "5.",
    "1.dubna",
    "50Kč",
    "20%",
    "...",
    ". . .",
    "-",
    " - ",
    "23-26",
    "\"práce\"",
    "“úkol”",
    "t. j.",
    "3x4",
    "21.6.2013",
    " ",
    " ",
    " ",
    "\n",
    "\n\n",
    ",",
    " ,",
    "the",
    "the the",
    "je je",
    "Monday",
];

/// Up to `max` of `pieces`, joined by spaces.
pub fn text_of(pieces: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(pieces), 0..max).prop_map(|p| p.join(" "))
}
