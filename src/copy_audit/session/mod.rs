//! What an audit computes, below every command that needs one: the engine's setup from
//! the config, each file read and hashed once, and the pass that takes every file's report
//! from the findings cache or the engine. The audit run, `--fix`, `--list-unsegmented`
//! and the reports use it; `--watch` and the language server keep a [`Session`]: the same
//! setup in a database that lives across edits.

mod audited;
mod live;
mod pass;
mod remote;
mod scan;
mod setup;

pub use audited::{Audit, Audited};
pub use live::{Delta, Session, rel_of};
pub use pass::audit;
pub(crate) use scan::{Scanned, scan_one};
pub use setup::rule_table;
