//! The pure engine of lockgraph.
//!
//! Everything in this crate is a deterministic function of its inputs: it never touches the
//! filesystem, the clock or the environment. The shell (the `lockgraph` package) reads
//! bytes, feeds them in as salsa inputs, and writes whatever comes out.

pub mod copy;
pub mod db;
pub mod hash;
pub mod relpath;
pub mod shard;
pub mod soil;
pub mod text;
