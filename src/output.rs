//! Standard output that cannot be written: a closed pipe (`copy-audit | head`) ends the
//! run quietly, as it ends `git log` or `cat`; any other failure (a full disk, an I/O
//! error) is one clear line on stderr and exit 2 — never a panic, and never exit 0 with a
//! report lost.

use rayon::prelude::*;
use serde::Serialize;
use std::io;

/// Installs both rules for the whole process; the first thing each binary does.
pub fn guard() {
    // Rust ignores SIGPIPE, turning a closed pipe into an error on every write; restored,
    // the kernel ends the process at the first write to it, with nothing printed.
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to its default has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // `print!` panics when stdout cannot be written; that one panic becomes the error line.
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied());
        if let Some(why) = message.and_then(|m| m.strip_prefix("failed printing to stdout: ")) {
            // A closed pipe where SIGPIPE is ignored ([`sockets_need_no_sigpipe`]): the
            // reader has what it wanted.
            if why.contains("Broken pipe") {
                std::process::exit(0);
            }
            eprintln!("error: cannot write the output: {why}");
            std::process::exit(2);
        }
        default(info);
    }));
}

/// For a run that talks to a server (the remote cache): a socket the server closed must
/// be an error of that call, not the end of the process, so SIGPIPE is ignored again, as
/// Rust has it; a closed standard output is then the error every writer of it handles
/// ([`failed`], and [`guard`]'s hook), ending the run as quietly.
pub fn sockets_need_no_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to "ignore" has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

/// Streams `value` to standard output as pretty JSON and a line break, ending the run as
/// [`guard`] promises if it cannot be written: a report of a large tree can be hundreds of
/// megabytes, which should never exist in memory as one string. Every JSON, SARIF and
/// GitLab report of both tools goes through it.
pub fn print_json<T: serde::Serialize + ?Sized>(value: &T) {
    to_stdout(|mut out| write_json(&mut out, value).unwrap_or_else(|e| failed(&e)));
}

/// Writes `value` to `out` as pretty JSON and a line break.
pub fn write_json<T: serde::Serialize + ?Sized>(
    out: &mut impl io::Write,
    value: &T,
) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)
}

/// Runs `run` with standard output, buffered, to write to; a failed write ends the run
/// ([`failed`]).
pub fn to_stdout<T>(run: impl FnOnce(&mut dyn io::Write) -> T) -> T {
    use std::io::Write;
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let result = run(&mut out);
    out.flush().unwrap_or_else(|e| failed(&e));
    result
}

/// For writers of standard output: ends the run as [`guard`] promises.
pub fn failed(e: &io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: cannot write the output: {e}");
    std::process::exit(2);
}

/// serde_json's pretty formatter (two-space indent) starting at a given depth: what a
/// value nested that deep in a pretty document looks like.
pub struct Indented {
    depth: usize,
    has_value: bool,
}

impl Indented {
    pub fn at(depth: usize) -> Self {
        Indented {
            depth,
            has_value: false,
        }
    }

    fn newline<W: ?Sized + io::Write>(&self, w: &mut W, comma: bool) -> io::Result<()> {
        w.write_all(if comma { b",\n" } else { b"\n" })?;
        for _ in 0..self.depth {
            w.write_all(b"  ")?;
        }
        Ok(())
    }
}

impl Indented {
    fn open<W: ?Sized + io::Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    fn close<W: ?Sized + io::Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.newline(w, false)?;
        }
        w.write_all(bracket)
    }
}

impl serde_json::ser::Formatter for Indented {
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.newline(w, !first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.newline(w, !first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Writes the elements of a pretty JSON array that stands `depth` deep, then its `]`, as
/// serde's pretty printer lays them out (`out` has written the `[`). Each element is
/// `render` of an item, rendered on every core a window of `window_len` items at a time
/// and written as it is: a report of a large tree is never held whole, as text or as
/// values, and its findings are not rendered on one core.
pub fn write_pretty_elements<T: Sync, V: Serialize>(
    out: &mut impl io::Write,
    items: impl Iterator<Item = T>,
    depth: usize,
    window_len: usize,
    render: impl Fn(&T) -> V + Sync,
) -> io::Result<()> {
    write_pretty_elements_with(out, items, depth, window_len, (), |(), item| render(item))
}

/// [`write_pretty_elements`] whose `render` is given a copy of `state` on each core: a
/// database handle, which one thread cannot share with another.
pub fn write_pretty_elements_with<T: Sync, V: Serialize, S: Clone + Send>(
    out: &mut impl io::Write,
    items: impl Iterator<Item = T>,
    depth: usize,
    window_len: usize,
    state: S,
    render: impl Fn(&mut S, &T) -> V + Sync,
) -> io::Result<()> {
    let separator = format!(",\n{}", "  ".repeat(depth));
    let mut first = true;
    let mut flush = |window: &mut Vec<T>| -> io::Result<()> {
        let rendered: Vec<Vec<u8>> = window
            .par_chunks(512)
            .map_with(state.clone(), |state, part| {
                let mut buf = Vec::new();
                for item in part {
                    buf.extend_from_slice(separator.as_bytes());
                    let mut ser =
                        serde_json::Serializer::with_formatter(&mut buf, Indented::at(depth));
                    render(state, item)
                        .serialize(&mut ser)
                        .expect("values serialise");
                }
                buf
            })
            .collect();
        window.clear();
        for buf in &rendered {
            // The first element has no comma before it.
            out.write_all(if first { &buf[1..] } else { buf })?;
            first = false;
        }
        Ok(())
    };
    let mut window = Vec::with_capacity(window_len);
    for item in items {
        window.push(item);
        if window.len() == window_len {
            flush(&mut window)?;
        }
    }
    flush(&mut window)?;
    match first {
        true => out.write_all(b"]"),
        false => write!(out, "\n{}]", "  ".repeat(depth - 1)),
    }
}
