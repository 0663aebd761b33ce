//! The copy-audit domain: prose views, typography rules, lockfile spans and the filter
//! that joins them.

pub(crate) mod bytescan;
pub mod config;
pub mod engine;
pub mod extract;
pub mod fix;
pub mod language;
pub mod lockfile;
pub mod rules;
pub mod source;
pub mod structural;
pub mod view;
