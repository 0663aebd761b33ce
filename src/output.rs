//! Standard output that cannot be written: a closed pipe (`copy-audit | head`) ends the
//! run quietly, as it ends `git log` or `cat`; any other failure (a full disk, an I/O
//! error) is one clear line on stderr and exit 2 — never a panic, and never exit 0 with a
//! report lost.

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
    use std::io::Write;
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value)
        .map_err(io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush())
        .unwrap_or_else(|e| failed(&e));
}

/// For writers of standard output: ends the run as [`guard`] promises.
pub fn failed(e: &io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: cannot write the output: {e}");
    std::process::exit(2);
}
