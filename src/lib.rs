//! The shell of lockgraph: command lines, files, output. The domain lives in
//! `lockgraph-queries`; this crate reads bytes into it and writes what comes out.

/// A run that cannot go on — usage, config, I/O, or input that cannot be read — reported as
/// one sentence on stderr with exit code 2 by both tools.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
}

impl Failure {
    pub fn new(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
        }
    }
}

pub mod annotations;
pub mod config;
pub mod copy_audit;
pub mod fsutil;
pub mod gitindex;
pub mod logging;
pub mod lsp;
mod memory;
pub mod output;
pub mod progress;
pub mod remote;
pub mod replay;
pub mod shellkit;
pub mod soil_lock;
pub mod statcache;
pub mod testhook;
pub mod walk;
pub mod watch;
