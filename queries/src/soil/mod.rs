pub mod check;
pub mod engine;
pub mod graph;
pub mod sidecar;
pub mod spec_hash;
pub mod status;
pub mod summary;
pub mod tr;
