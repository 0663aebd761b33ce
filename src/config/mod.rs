//! `.copy-editor.yaml` as the shell meets it: finding the file, reading it, and asking the
//! file system whether the Layer 2 files it names exist. What the settings mean, and every
//! check of them, is the core's (`lockgraph_queries::copy::config`).

mod file;
#[cfg(test)]
mod tests;

pub use file::{discover, load, parse};
pub use lockgraph_queries::copy::config::*;
