//! `--review-cache`: a person reviews the unreviewed entries in the terminal, one at a
//! time — the source with each span coloured by language and kind, then accept, edit,
//! skip or quit. Each decision is written at once (atomically, under the lockfile's
//! lock), so quitting halfway keeps what was accepted.

use super::lockedit::edit;
use super::workspace::Workspace;
use super::{Failure, Outcome};
use lockgraph_queries::copy::lockfile::{self, Entry, Kind, SpanIndex};
use lockgraph_queries::hash::ContentHash;
use lockgraph_queries::text::LineIndex;
use std::io::{BufRead, IsTerminal, Write};

pub fn run(ws: &Workspace) -> Result<Outcome, Failure> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(Failure::new(
            "--review-cache asks about each entry, so it needs a terminal; \
             without one, review with `copy-audit lockfile mark-reviewed <path> --by <id>`",
        ));
    }
    let lock = ws.read_lockfile()?;
    let pending: Vec<(String, Entry)> = lock
        .files
        .into_iter()
        .filter(|(_, e)| !e.is_reviewed())
        .collect();
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    let total = pending.len();
    let mut reviewer: Option<String> = std::env::var("COPY_EDITOR_REVIEWER")
        .ok()
        .filter(|r| !r.trim().is_empty());
    let mut accepted = 0;
    for (n, (path, mut entry)) in pending.into_iter().enumerate() {
        let Ok(text) = ws.read_text(&path) else {
            writeln!(out, "[{}/{total}] {path}: cannot be read; skipped", n + 1).ok();
            continue;
        };
        if ContentHash::of(text.as_bytes()).to_string() != entry.content_hash {
            writeln!(
                out,
                "[{}/{total}] {path}: stale (the file changed since it was segmented); \
                 segment it again before review",
                n + 1
            )
            .ok();
            continue;
        }
        loop {
            show(&mut out, n + 1, total, &path, &text, &entry);
            match ask(&mut input, &mut out, "[a]ccept, [e]dit, [s]kip, [q]uit? ")?.as_str() {
                "a" | "accept" => {
                    let by = match &reviewer {
                        Some(r) => r.clone(),
                        None => {
                            let default = default_reviewer();
                            let answer =
                                ask(&mut input, &mut out, &format!("reviewer id [{default}]: "))?;
                            let r = if answer.is_empty() { default } else { answer };
                            reviewer = Some(r.clone());
                            r
                        }
                    };
                    write_entry(ws, &path, &entry, Some(by))?;
                    accepted += 1;
                    break;
                }
                "e" | "edit" => {
                    if let Some(spans) = edit_spans(&mut input, &mut out, &path, &text, &entry)? {
                        entry.spans = spans;
                        write_entry(ws, &path, &entry, None)?;
                    }
                }
                "s" | "skip" => break,
                "q" | "quit" => {
                    writeln!(out, "{accepted} accepted; the rest left for later").ok();
                    return Ok(Outcome::Clean);
                }
                _ => {}
            }
        }
    }
    writeln!(out, "{accepted} of {total} unreviewed entries accepted").ok();
    Ok(Outcome::Clean)
}

/// Writes `path`'s entry with `entry`'s spans and `reviewed_by`, re-reading the lockfile
/// under its lock: the entry must still be the one shown (same content hash).
fn write_entry(
    ws: &Workspace,
    path: &str,
    entry: &Entry,
    reviewed_by: Option<String>,
) -> Result<(), Failure> {
    edit(ws, |_, lock| {
        let current = lock
            .files
            .get_mut(path)
            .filter(|e| e.content_hash == entry.content_hash)
            .ok_or_else(|| {
                Failure::new(format!("{path}: its entry changed meanwhile; not written"))
            })?;
        current.spans = entry.spans.clone();
        let said = match &reviewed_by {
            Some(by) => format!("{path}: reviewed by {by}"),
            None => format!("{path}: spans edited, awaiting review"),
        };
        current.reviewed_by = reviewed_by;
        Ok(said)
    })
    .map(|_| ())
}

/// Opens `$EDITOR` (else `vi`) on the entry's spans as JSON until they check out against
/// the file, or the reviewer discards the edit (None).
fn edit_spans(
    input: &mut impl BufRead,
    out: &mut impl Write,
    path: &str,
    text: &str,
    entry: &Entry,
) -> Result<Option<Vec<lockfile::Span>>, Failure> {
    let file = std::env::temp_dir().join(format!(
        "copy-audit-review-{}-{}.json",
        std::process::id(),
        path.replace('/', "_")
    ));
    // A new file, never one already there: in a shared temporary directory a name that
    // exists may be another user's link to a file of ours.
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&file)
        .and_then(|mut f| f.write_all(spans_json(entry).as_bytes()))
        .map_err(|e| Failure::new(format!("{}: {e}", file.display())))?;
    // Removed however the edit ends.
    struct Remove<'p>(&'p std::path::Path);
    impl Drop for Remove<'_> {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(self.0);
        }
    }
    let _remove = Remove(&file);
    let editor = std::env::var("EDITOR").unwrap_or_else(|_| "vi".to_owned());
    loop {
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{editor} \"$1\""))
            .arg("sh")
            .arg(&file)
            .status()
            .map_err(|e| Failure::new(format!("cannot run the editor `{editor}`: {e}")))?;
        let edited = std::fs::read_to_string(&file).unwrap_or_default();
        let checked = status
            .success()
            .then_some(())
            .ok_or_else(|| format!("the editor `{editor}` failed"))
            .and_then(|()| lockfile::parse_spans(&edited).map_err(|e| e.to_string()))
            .and_then(|spans| {
                lockfile::fit_spans_for_add(text, &LineIndex::new(text), &spans)
                    .map(|(fitted, _)| fitted)
                    .map_err(|e| e.to_string())
            });
        match checked {
            Ok(spans) => return Ok(Some(spans)),
            Err(e) => {
                writeln!(out, "{path}: the edited spans do not check out: {e}").ok();
                if ask(input, out, "[e]dit again or [d]iscard? ")? != "e" {
                    return Ok(None);
                }
            }
        }
    }
}

/// `{"spans": [...]}`, one span a line, as `lockfile add` takes it.
fn spans_json(entry: &Entry) -> String {
    let mut lock = lockfile::Lockfile::new(lockfile::Segmenter {
        backend: lockfile::Backend::Manual,
        prompt_version: None,
    });
    lock.files.insert("x".to_owned(), entry.clone());
    let canonical = lockfile::to_canonical_string(&lock);
    let value: serde_json::Value = serde_json::from_str(&canonical).expect("canonical JSON");
    let spans = &value["files"]["x"]["spans"];
    let mut text = String::from("{\"spans\": [\n");
    let items = spans.as_array().map(Vec::as_slice).unwrap_or(&[]);
    for (i, span) in items.iter().enumerate() {
        let comma = if i + 1 < items.len() { "," } else { "" };
        text.push_str(&format!("  {span}{comma}\n"));
    }
    text.push_str("]}\n");
    text
}

fn ask(input: &mut impl BufRead, out: &mut impl Write, prompt: &str) -> Result<String, Failure> {
    write!(out, "{prompt}").ok();
    out.flush().ok();
    let mut line = String::new();
    let read = input
        .read_line(&mut line)
        .map_err(|e| Failure::new(format!("reading the answer: {e}")))?;
    if read == 0 {
        return Ok("q".to_owned()); // end of input: as if quit
    }
    Ok(line.trim().to_lowercase())
}

/// `name@YYYY-MM-DD`, the form reviewed lockfiles in the field use: the login name and
/// today's date.
fn default_reviewer() -> String {
    let name = std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_else(|_| "reviewer".to_owned());
    let today = time::OffsetDateTime::now_utc().date();
    format!("{name}@{today}")
}

/// ANSI styles per span: a background colour for each language and kind.
fn style(kind: Kind, language: &str) -> &'static str {
    match (kind, language) {
        (Kind::Code, _) => "\x1b[30;43m",  // black on yellow
        (Kind::Data, _) => "\x1b[30;47m",  // black on grey
        (Kind::Quote, _) => "\x1b[30;46m", // black on cyan
        (_, "cs") => "\x1b[30;42m",        // black on green
        (_, "en") => "\x1b[30;44m",        // black on blue
        (_, "unknown") => "\x1b[30;41m",   // black on red
        _ => "\x1b[30;45m",                // black on magenta: another language
    }
}

const RESET: &str = "\x1b[0m";

fn show(out: &mut impl Write, n: usize, total: usize, path: &str, text: &str, entry: &Entry) {
    let index = LineIndex::new(text);
    let spans = SpanIndex::new(text, &index, &entry.spans).unwrap_or_default();
    writeln!(
        out,
        "\n[{n}/{total}] {path} — {} spans, segmented {}",
        entry.spans.len(),
        entry.segmented_at
    )
    .ok();
    writeln!(
        out,
        "legend: {}cs prose{RESET} {}en prose{RESET} {}other language{RESET} {}unknown{RESET} \
         {}quote{RESET} {}code{RESET} {}data{RESET} plain: a gap (the default language)",
        style(Kind::Prose, "cs"),
        style(Kind::Prose, "en"),
        style(Kind::Prose, "de"),
        style(Kind::Prose, "unknown"),
        style(Kind::Quote, "cs"),
        style(Kind::Code, "unknown"),
        style(Kind::Data, "unknown"),
    )
    .ok();
    // The text, each span's part in its style; styles end at each line's end so that a
    // terminal does not paint the rest of the line.
    let mut at = 0;
    for (range, kind, language) in spans.iter() {
        // Sorted and disjoint: each span starts at or after the last one's end.
        write_plain(out, &text[at..range.start]);
        write_styled(out, &text[range.clone()], style(kind, language));
        at = range.end;
    }
    write_plain(out, &text[at..]);
    if !text.ends_with('\n') {
        writeln!(out).ok();
    }
}

fn write_plain(out: &mut impl Write, s: &str) {
    write!(out, "{s}").ok();
}

fn write_styled(out: &mut impl Write, s: &str, style: &str) {
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            writeln!(out).ok();
        }
        if !line.is_empty() {
            write!(out, "{style}{line}{RESET}").ok();
        }
    }
}
