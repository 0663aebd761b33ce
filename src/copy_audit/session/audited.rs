//! What an audit produces: every file's report, in path order, kept in the chunks the
//! workers audited.

use crate::statcache::Stat;
use lockgraph_queries::copy::engine::FileReport;
use lockgraph_queries::hash::ContentHash;

/// How many files a worker takes at a time, in path order: the unit a lockfile read as
/// the audit goes is read ahead of, and the audit's results are kept in.
pub(super) const CHUNK: usize = 64;

/// One audited file.
pub struct Audited {
    pub path: String,
    /// The hash of the bytes the report describes; None if the file could not be read
    /// (its report is then a file error).
    pub hash: Option<ContentHash>,
    /// The stat the bytes were known by: the walk's, or the one taken as the file was
    /// read; None if it could not be read.
    pub stat: Option<Stat>,
    pub report: FileReport,
}

/// A finished audit: every file's report, in path order.
///
/// Kept in the chunks the workers audited rather than gathered into one vector: at 100,000
/// files that copy was a tenth of a warm run, most of it the kernel clearing fresh pages.
pub struct Audit {
    pub(super) chunks: Vec<Vec<Audited>>,
}

impl Audit {
    /// Every file, in path order.
    pub fn files(&self) -> impl Iterator<Item = &Audited> + Clone {
        self.chunks.iter().flatten()
    }

    pub fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// An audit of `files` (in path order), chunked as the workers chunk them.
    #[cfg(test)]
    pub fn from_files(files: Vec<Audited>) -> Audit {
        let mut chunks = Vec::new();
        let mut files = files.into_iter().peekable();
        while files.peek().is_some() {
            chunks.push(files.by_ref().take(CHUNK).collect());
        }
        Audit { chunks }
    }

    /// The files in the chunks they were audited in, for work spread over cores.
    pub fn chunks(&self) -> &[Vec<Audited>] {
        &self.chunks
    }

    pub(super) fn get(&self, i: usize) -> &Audited {
        &self.chunks[i / CHUNK][i % CHUNK]
    }

    pub(super) fn get_mut(&mut self, i: usize) -> &mut Audited {
        &mut self.chunks[i / CHUNK][i % CHUNK]
    }
}
