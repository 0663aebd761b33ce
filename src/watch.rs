//! The one watch loop both tools run: file events under the root, filtered to the paths
//! the tool reads, settled into batches, handed to the tool's session until the process
//! is interrupted.
//!
//! A tree being watched is rarely quiet: a build writes `target/`, a server its log, an
//! editor its swap files. None of that may delay an edit: events for paths the tool does
//! not read are dropped as they arrive, before any timing, and each path has its own
//! settle time, so one busy file never holds back another ([`Schedule`]).

use crate::Failure;
use notify::{EventKind, RecursiveMode, Watcher};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long a path's events must stop before it is handed over: an editor's save is often
/// a write, a rename and a stat, and one batch should carry all three.
const SETTLE: Duration = Duration::from_millis(30);
/// The longest a changed path waits for its events to stop: a file written without a
/// pause is still re-read.
const MAX_WAIT: Duration = Duration::from_millis(100);
/// The least time between two hand-overs of one path: a file written every few
/// milliseconds is re-audited at most this often, while every other path's edits go
/// through as soon as they settle. Stated in `docs/cli.md`.
pub const BUSY_INTERVAL: Duration = Duration::from_millis(250);

/// What a tool tells the loop.
pub trait Session {
    /// Whether an event for `path` (absolute, under the root) can change what the session
    /// shows. Asked for every event, so it must be cheap: a glob match, not a read.
    fn wants(&self, path: &Path) -> bool;
    /// Takes in a batch of changed paths.
    fn changed(&mut self, paths: &[PathBuf]) -> Result<(), Failure>;
}

/// A watch on a root, set up before the session says it is watching (an edit made as
/// soon as it says so must not be missed).
pub struct Watch {
    root: PathBuf,
    events: Receiver<notify::Result<notify::Event>>,
    /// Dropping it ends the watch.
    _watcher: notify::RecommendedWatcher,
}

impl Watch {
    /// Starts watching everything under `root`.
    pub fn start(root: &Path) -> Result<Watch, Failure> {
        let cannot =
            |e: notify::Error| Failure::new(format!("cannot watch {}: {e}", root.display()));
        let (tx, events) = std::sync::mpsc::channel();
        let mut watcher = notify::recommended_watcher(tx).map_err(cannot)?;
        watcher
            .watch(root, RecursiveMode::Recursive)
            .map_err(cannot)?;
        Ok(Watch {
            root: root.to_path_buf(),
            events,
            _watcher: watcher,
        })
    }

    /// Hands each batch of changed paths to `session`, until interrupted.
    ///
    /// - Only changes count: an event that a file was opened or read is not one. The
    ///   session reads what changed, and the kernel reports that read as an event too:
    ///   counted, every read would bring on another, for ever.
    /// - Paths in the directories no walk enters (`.git/`, `target/`, `node_modules/`,
    ///   our own `.lockgraph/`, … [`crate::fsutil::SKIPPED_DIRS`]) and paths the session
    ///   does not want are dropped on arrival.
    /// - An error from the session is one line on stderr and the session goes on: a
    ///   half-written or malformed file is the normal state of a tree being edited, and
    ///   the next save mends it. Only failing to watch at all ends the session.
    pub fn run(self, session: &mut impl Session) -> Result<(), Failure> {
        let mut schedule = Schedule::default();
        loop {
            // Due paths go first: under a flood of events the receive below would
            // otherwise always find one waiting and never time out.
            let due = schedule.take_due(Instant::now());
            if !due.is_empty() {
                if let Err(f) = session.changed(&due) {
                    eprintln!("error: {}", f.message);
                }
                continue;
            }
            let event = match schedule.next_due() {
                None => match self.events.recv() {
                    Ok(event) => event,
                    Err(_) => return Ok(()),
                },
                Some(at) => match self
                    .events
                    .recv_timeout(at.saturating_duration_since(Instant::now()))
                {
                    Ok(event) => event,
                    Err(RecvTimeoutError::Timeout) => continue,
                    Err(RecvTimeoutError::Disconnected) => return Ok(()),
                },
            };
            let event = event.map_err(|e| Failure::new(format!("watching: {e}")))?;
            if matches!(event.kind, EventKind::Access(_)) {
                continue;
            }
            let now = Instant::now();
            for path in event.paths {
                if !never_read(&self.root, &path) && session.wants(&path) {
                    schedule.note(path, now);
                }
            }
        }
    }
}

/// Whether `p` lies in a directory that no walk of `root` enters.
fn never_read(root: &Path, p: &Path) -> bool {
    p.strip_prefix(root).ok().is_some_and(|r| {
        r.parent().is_some_and(|dirs| {
            dirs.components().any(|c| {
                crate::fsutil::SKIPPED_DIRS
                    .iter()
                    .any(|s| c.as_os_str() == *s)
            })
        })
    })
}

/// When each changed path is due to be handed over.
#[derive(Default)]
struct Schedule {
    /// Changed paths not handed over yet: their first and last event since.
    pending: BTreeMap<PathBuf, (Instant, Instant)>,
    /// When each path was last handed over, kept for [`BUSY_INTERVAL`].
    handed: HashMap<PathBuf, Instant>,
}

impl Schedule {
    fn note(&mut self, path: PathBuf, now: Instant) {
        self.pending
            .entry(path)
            .and_modify(|(_, last)| *last = now)
            .or_insert((now, now));
    }

    fn due(&self, path: &Path, (first, last): (Instant, Instant)) -> Instant {
        let settled = (last + SETTLE).min(first + MAX_WAIT);
        match self.handed.get(path) {
            Some(&at) => settled.max(at + BUSY_INTERVAL),
            None => settled,
        }
    }

    fn next_due(&self) -> Option<Instant> {
        self.pending.iter().map(|(p, &t)| self.due(p, t)).min()
    }

    /// Removes and returns, in path order, every path due by `now`.
    fn take_due(&mut self, now: Instant) -> Vec<PathBuf> {
        let due: Vec<PathBuf> = self
            .pending
            .iter()
            .filter(|&(p, &t)| self.due(p, t) <= now)
            .map(|(p, _)| p.clone())
            .collect();
        for p in &due {
            self.pending.remove(p);
            self.handed.insert(p.clone(), now);
        }
        if !due.is_empty() {
            self.handed.retain(|_, at| now < *at + BUSY_INTERVAL);
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directories_no_walk_enters_are_not_changes() {
        let root = Path::new("/r");
        assert!(never_read(root, Path::new("/r/.lockgraph/stat")));
        assert!(never_read(root, Path::new("/r/.git/index")));
        assert!(never_read(root, Path::new("/r/app/target/debug/x.md")));
        assert!(never_read(root, Path::new("/r/node_modules/a/README.md")));
        assert!(!never_read(root, Path::new("/r/docs/.git-notes.md")));
        assert!(!never_read(root, Path::new("/r/a.md")));
        assert!(!never_read(root, Path::new("/r/target")), "a file named so");
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_save_settles_into_one_hand_over_and_each_path_on_its_own() {
        let t0 = Instant::now();
        let mut s = Schedule::default();
        // A save: a write, a rename and a stat of one path.
        for at in [0, 2, 5] {
            s.note("/r/a.md".into(), t0 + ms(at));
        }
        s.note("/r/b.md".into(), t0 + ms(4));
        assert!(s.take_due(t0 + ms(33)).is_empty());
        assert_eq!(s.next_due(), Some(t0 + ms(34)));
        assert_eq!(s.take_due(t0 + ms(34)), [PathBuf::from("/r/b.md")]);
        assert_eq!(s.next_due(), Some(t0 + ms(35)));
        assert_eq!(s.take_due(t0 + ms(40)), [PathBuf::from("/r/a.md")]);
        assert_eq!(s.next_due(), None);
    }

    #[test]
    fn a_busy_file_neither_starves_nor_holds_back_another() {
        let t0 = Instant::now();
        let mut s = Schedule::default();
        let busy = PathBuf::from("/r/busy.md");
        let edit = PathBuf::from("/r/edit.md");
        let mut handed_busy = Vec::new();
        let mut handed_edit = None;
        // `busy` written every 5 ms for two seconds; `edit` saved once, at 1 s.
        for step in 0..400u64 {
            let now = t0 + ms(step * 5);
            s.note(busy.clone(), now);
            if step == 200 {
                s.note(edit.clone(), now);
            }
            for p in s.take_due(now) {
                if p == busy {
                    handed_busy.push(step * 5);
                } else {
                    handed_edit = Some(step * 5);
                }
            }
        }
        // Never starved: first handed over at MAX_WAIT, then every BUSY_INTERVAL.
        assert_eq!(handed_busy[0], 100);
        for pair in handed_busy.windows(2) {
            assert_eq!(pair[1] - pair[0], 250, "{handed_busy:?}");
        }
        // The edit went through as soon as it settled.
        assert_eq!(handed_edit, Some(1030));
    }
}
