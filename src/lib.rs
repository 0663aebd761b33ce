//! The shell of lockgraph: command lines, files, output. The domain lives in
//! `lockgraph-queries`; this crate reads bytes into it and writes what comes out.

pub mod config;
pub mod copy_audit;
pub mod fsutil;
pub mod progress;
pub mod soil_lock;
