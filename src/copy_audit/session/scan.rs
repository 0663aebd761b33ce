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
    let (bytes, stat) = read_file(&ws.root.join(path), stat)?;
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

/// The bytes of the file at `path` and its stat: the one the walk took, or else the open
/// file's. The buffer is sized from the stat (a byte more, so the read that finds the end
/// needs no growth); a file that grew since is read on to its end, one that shrank gives
/// what it holds.
fn read_file(path: &std::path::Path, stat: Option<Stat>) -> std::io::Result<(Vec<u8>, Stat)> {
    use std::io::Read;
    let mut file = crate::fsutil::open_regular(path)?;
    let stat = match stat {
        Some(stat) => stat,
        None => Stat::of(&file.metadata()?),
    };
    let mut bytes = Vec::with_capacity(usize::try_from(stat.size).unwrap_or(0) + 1);
    file.read_to_end(&mut bytes)?;
    Ok((bytes, stat))
}

#[cfg(test)]
mod tests {
    use super::{Stat, read_file};

    #[test]
    fn a_file_is_read_whole_whatever_its_stat_said() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        for len in [0, 1, 15, 4096, 70_000] {
            let content: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            std::fs::write(&path, &content).unwrap();
            let (bytes, stat) = read_file(&path, None).unwrap();
            assert_eq!(bytes, content, "{len} bytes, stat of the open file");
            assert_eq!(stat.size, len as u64);
            // The walk's stat from before the file grew or shrank.
            for said in [0, len / 2, len + 1, 2 * len + 100] {
                let walked = Stat {
                    size: said as u64,
                    ..stat
                };
                let (bytes, kept) = read_file(&path, Some(walked)).unwrap();
                assert_eq!(bytes, content, "{len} bytes, the stat said {said}");
                assert_eq!(kept, walked);
            }
        }
    }
}
