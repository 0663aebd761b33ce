//! A file's content hash, from the stat index when it vouches for the file, else from the
//! bytes, which are then kept for the engine.

use super::super::cache::Stat;
use super::super::workspace::Workspace;
use lockgraph_queries::copy::engine::Source;
use lockgraph_queries::hash::ContentHash;

/// A file's stat and content hash, and its bytes if they had to be read for the hash.
pub(crate) struct Scanned {
    pub(crate) stat: Stat,
    pub(crate) hash: ContentHash,
    pub(crate) source: Option<Source>,
    /// The hash was computed from the bytes this run (so the stat index learns it).
    pub(crate) read: bool,
}

/// Reads and hashes a file unless the stat index vouched for it (`known`, its hash, for
/// the stat the walk took). An error is the file's own (it vanished or changed kind since
/// the walk, or cannot be read): see [`unreadable`].
pub(crate) fn scan_one(
    ws: &Workspace,
    path: &str,
    stat: Option<Stat>,
    known: Option<ContentHash>,
) -> std::io::Result<Scanned> {
    if let (Some(hash), Some(stat)) = (known, stat) {
        return Ok(Scanned {
            stat,
            hash,
            source: None,
            read: false,
        });
    }
    let (bytes, stat) = crate::statcache::read_with_stat(&ws.root.join(path), stat)?;
    // Hashed as the engine's input: the engine reads the hash from it.
    let source = Source::new(bytes);
    Ok(Scanned {
        stat,
        hash: source.hash(),
        source: Some(source),
        read: true,
    })
}

/// What the report says of a file in scope that could not be read: one file's error, never
/// the end of the run (docs/cli.md, `fileErrors`).
pub(crate) fn unreadable(e: &std::io::Error) -> String {
    format!("{}; not audited", crate::fsutil::why_unread(e))
}
