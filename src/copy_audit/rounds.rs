//! A lockfile in the canonical layout, read a round of text at a time (see
//! `lockfile::pieces`).
//!
//! A round is the text up to the last entry start within the next `pieces × piece` bytes;
//! it is cut into that many pieces where entries start, and each piece is read where it
//! lies. Whole reads ([`read_in_pieces`]) read a round's pieces on every core; a cold
//! audit reads one piece per round, on whichever worker reaches the end of what has been
//! read or finds few entries waiting, so the lockfile is parsed alongside the audit
//! instead of before it (`lockview`).

use super::cache::EntryAt;
use lockgraph_queries::copy::lockfile::pieces::{self, ENTRY_START, FILES_CLOSE, FILES_OPEN};
use lockgraph_queries::copy::lockfile::{Entry, Lockfile};
use rayon::prelude::*;
use std::fs;
use std::io::Read;
use std::path::Path;

/// The entries of a round, in the order they are written, and where each lies.
pub struct Round {
    pub entries: Vec<(String, Entry)>,
    pub at: Vec<EntryAt>,
}

/// A lockfile that does not read in rounds: not in the canonical layout, or with an entry
/// that does not read. The whole read gives the answer or the exact error.
#[derive(Debug)]
pub struct NotInRounds;

pub struct Rounds {
    file: fs::File,
    buf: Vec<u8>,
    /// Where `buf` starts in the file.
    base: u64,
    eof: bool,
    done: bool,
    piece: usize,
    pieces: usize,
}

impl Rounds {
    /// Opens the lockfile at `path` and reads its head (the lockfile without entries, its
    /// schema version and segmenter checked); rounds of `pieces` pieces of `piece` bytes.
    pub fn open(path: &Path, piece: usize, pieces: usize) -> Option<(Rounds, Lockfile)> {
        let mut rounds = Rounds {
            file: fs::File::open(path).ok()?,
            buf: Vec::new(),
            base: 0,
            eof: false,
            done: false,
            piece,
            pieces: pieces.max(1),
        };
        // The head (schema version and segmenter) is a few lines.
        rounds.fill(piece.max(1 << 16))?;
        let open = memchr::memmem::find(&rounds.buf, FILES_OPEN)? + FILES_OPEN.len();
        let head = pieces::head(std::str::from_utf8(&rounds.buf[..open]).ok()?)?;
        rounds.buf.drain(..open);
        rounds.base = open as u64;
        Some((rounds, head))
    }

    /// Reads until `buf` holds `want` bytes or the file has ended.
    fn fill(&mut self, want: usize) -> Option<()> {
        while self.buf.len() < want && !self.eof {
            let n = (&mut self.file)
                .take((want - self.buf.len()) as u64)
                .read_to_end(&mut self.buf)
                .ok()?;
            self.eof = n == 0;
        }
        Some(())
    }

    /// The next round, or None after the last.
    pub fn next_round(&mut self) -> Result<Option<Round>, NotInRounds> {
        if self.done {
            return Ok(None);
        }
        let mut want = self.pieces * self.piece;
        // This round's entries: up to the last entry start (the entry there may not be
        // whole yet), or at the end of the file everything before the close.
        let end = loop {
            self.fill(want).ok_or(NotInRounds)?;
            let end = if self.eof {
                let text = self.buf.strip_suffix(b"\n").unwrap_or(&self.buf);
                text.strip_suffix(FILES_CLOSE).ok_or(NotInRounds)?.len()
            } else {
                last_entry_start(&self.buf).ok_or(NotInRounds)?
            };
            if end > 0 || self.eof {
                break end;
            }
            want *= 2; // one entry larger than a round: read on
        };
        let eof = self.eof;
        if end == 0 {
            // No entries at all: the writer's `{}` is not this layout.
            return Err(NotInRounds);
        }
        let round = self.read_pieces(end, eof)?;
        if eof {
            self.done = true;
        } else {
            self.buf.drain(..end);
            self.base += end as u64;
        }
        Ok(Some(round))
    }

    /// The entries of `buf[..end]`, cut into pieces where entries start.
    fn read_pieces(&mut self, end: usize, eof: bool) -> Result<Round, NotInRounds> {
        let region = &self.buf[..end];
        let mut cuts = vec![0];
        for i in 1..self.pieces {
            let from = (i * end / self.pieces).max(cuts[cuts.len() - 1] + 1);
            match region
                .get(from..)
                .and_then(|r| memchr::memmem::find(r, ENTRY_START))
            {
                Some(cut) if from + cut < end => cuts.push(from + cut),
                _ => break,
            }
        }
        cuts.push(end);
        // Every piece but the file's last ends with the comma before the next; the last
        // takes the byte after it too (see `pieces::entries`).
        let mut rest = &mut self.buf[..end + usize::from(eof)];
        let mut slices = Vec::with_capacity(cuts.len() - 1);
        for (i, w) in cuts.windows(2).enumerate() {
            let len = if i + 2 == cuts.len() {
                rest.len()
            } else {
                w[1] - w[0]
            };
            let (piece, tail) = std::mem::take(&mut rest).split_at_mut(len);
            slices.push((piece, self.base + w[0] as u64));
            rest = tail;
        }
        let n = slices.len();
        let read = |i: usize, (piece, base): (&mut [u8], u64)| {
            let ranges = pieces::entry_ranges(piece);
            let entries = pieces::entries(piece, eof && i == n - 1)?;
            (entries.len() == ranges.len()).then_some(())?;
            let at = ranges.into_iter().map(|r| EntryAt {
                offset: base + r.start as u64,
                len: u32::try_from(r.len()).unwrap_or(u32::MAX),
            });
            Some((entries, at.collect::<Vec<_>>()))
        };
        // One piece is read on this thread: a cold audit's worker reads while holding
        // back the others' next chunks, so it must not wait on the pool's other work.
        let read: Vec<Option<_>> = if n == 1 {
            slices
                .into_iter()
                .enumerate()
                .map(|(i, s)| read(i, s))
                .collect()
        } else {
            slices
                .into_par_iter()
                .enumerate()
                .map(|(i, s)| read(i, s))
                .collect()
        };
        let mut round = Round {
            entries: Vec::new(),
            at: Vec::new(),
        };
        for piece in read {
            let (entries, at) = piece.ok_or(NotInRounds)?;
            round.entries.extend(entries);
            round.at.extend(at);
        }
        Ok(round)
    }
}

/// Where the last entry of `text` starts: the last line break that begins
/// [`ENTRY_START`]. Found line by line from the end, in the last lines of a round as a
/// rule; `memmem::rfind` took about a byte at a time from the end (1.25 M instructions
/// for each 1 MB round of the cold 10k run).
fn last_entry_start(text: &[u8]) -> Option<usize> {
    memchr::memrchr_iter(b'\n', text).find(|&i| text[i..].starts_with(ENTRY_START))
}

/// The lockfile at `path` if it is in the canonical layout, read in rounds of `piece`
/// bytes per core, each round's pieces on every core (one core parsed 155 MB at about
/// 250 MB/s); with where each entry lies, when the entries are in path order. None when
/// the file is not in that layout or anything in it does not read: the whole read then
/// gives the answer or the exact error.
pub fn read_in_pieces(path: &Path, piece: usize) -> Option<(Lockfile, Option<Vec<EntryAt>>)> {
    let cores = rayon::current_num_threads();
    let (mut rounds, mut lock) = Rounds::open(path, piece, cores)?;
    let mut parsed = Vec::new();
    let mut located = Vec::new();
    while let Some(round) = rounds.next_round().ok()? {
        parsed.push(round.entries);
        located.extend(round.at);
    }
    let (files, sorted) = pieces::join(parsed)?;
    lock.files = files;
    Some((lock, sorted.then_some(located)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The last entry start, as a search for the whole marker from the end finds it.
    #[test]
    fn the_last_entry_start_is_the_last_marker() {
        let texts: [&[u8]; 6] = [
            b"",
            b"\n    \"a\": {}",
            b"\n    \"a\": {},\n    \"b\": {\n      \"spans\": []\n    }",
            b"\n    x\n     \"\n   \"",
            b"{\n    \"a\"\n\n\n",
            b"\n    \"",
        ];
        for text in texts {
            assert_eq!(
                last_entry_start(text),
                memchr::memmem::rfind(text, ENTRY_START),
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
    }
}
