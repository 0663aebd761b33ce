//! What both language servers share: the batched message loop, positions as the client
//! counts them, `file:` URIs, and the small pieces of the protocol every handler needs.
//!
//! Built on `lsp-server` (synchronous, as the engine is): no async runtime.

use crate::Failure;
use lsp_server::{Connection, Message, Notification, Request, Response};
use lsp_types::notification::{Exit, Notification as LspNotification};
use lsp_types::request::{Request as LspRequest, Shutdown};
use lsp_types::{InitializeParams, Position, PositionEncodingKind, Uri};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// One server's answers to what the client sends.
pub trait Handler {
    /// Answers a request (never `shutdown`: the loop answers that).
    fn request(&mut self, request: Request) -> Response;
    /// Takes in a notification (never `exit`).
    fn notification(&mut self, notification: Notification);
    /// What to send once a batch has been taken in: diagnostics, requests of the server's.
    fn after_batch(&mut self) -> Vec<Message>;
}

/// Serves until the client sends `exit` or goes away. Messages are taken in batches:
/// everything the client has sent by the time one arrives is applied first, then the
/// handler says what to send, so a burst of keystrokes is answered once, at its latest
/// version.
pub fn serve_batches(connection: &Connection, handler: &mut impl Handler) -> Result<(), Failure> {
    loop {
        let Ok(first) = connection.receiver.recv() else {
            return Ok(()); // the client went away
        };
        let batch: Vec<Message> = std::iter::once(first)
            .chain(connection.receiver.try_iter())
            .collect();
        for message in batch {
            match message {
                // `shutdown` is answered here, not by lsp-server's `handle_shutdown`, which
                // waits on the channel for the `exit` this batch may already hold.
                Message::Request(request) if request.method == Shutdown::METHOD => {
                    send(
                        connection,
                        Message::Response(Response::new_ok(request.id, ())),
                    )?;
                }
                Message::Request(request) => {
                    let response = handler.request(request);
                    send(connection, Message::Response(response))?;
                }
                Message::Notification(n) if n.method == Exit::METHOD => return Ok(()),
                Message::Notification(n) => handler.notification(n),
                Message::Response(_) => {}
            }
        }
        for message in handler.after_batch() {
            send(connection, message)?;
        }
    }
}

pub fn send(connection: &Connection, message: Message) -> Result<(), Failure> {
    connection
        .sender
        .send(message)
        .map_err(|e| Failure::new(format!("server: the client went away: {e}")))
}

/// A notification's parameters, or why they do not parse.
pub fn params<N: LspNotification>(n: Notification) -> Result<N::Params, String> {
    serde_json::from_value(n.params).map_err(|e| e.to_string())
}

/// Whether the client tells a server about changed files it registers for.
pub fn watches_files(params: &InitializeParams) -> bool {
    params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|d| d.dynamic_registration)
        .unwrap_or(false)
}

/// How the client counts a position's character: UTF-16 code units unless it prefers
/// UTF-8 bytes or UTF-32 characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
    Utf32,
}

impl Encoding {
    /// The first of the client's encodings, in its order of preference, that the server
    /// speaks; UTF-16, the protocol's default, if none.
    pub fn negotiate(params: &InitializeParams) -> Encoding {
        let offered = params
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref());
        offered
            .into_iter()
            .flatten()
            .find_map(|kind| match kind.as_str() {
                "utf-8" => Some(Encoding::Utf8),
                "utf-16" => Some(Encoding::Utf16),
                "utf-32" => Some(Encoding::Utf32),
                _ => None,
            })
            .unwrap_or(Encoding::Utf16)
    }

    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
            Encoding::Utf32 => PositionEncodingKind::UTF32,
        }
    }

    /// How many units of this encoding `text` is.
    fn units(self, text: &str) -> u32 {
        (match self {
            Encoding::Utf8 => text.len(),
            Encoding::Utf16 => text.encode_utf16().count(),
            Encoding::Utf32 => text.chars().count(),
        }) as u32
    }
}

/// Where each line of a text starts (byte offsets).
pub fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
        .collect()
}

/// How a tool counts the column of a 1-based (line, column) pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// UTF-16 code units (copy-audit's findings, `.tr` diagnostics).
    Utf16,
    /// Unicode scalar values (trellis's sidecar and Soil diagnostics).
    Chars,
}

/// The position of 1-based `line` and 1-based `column` (counted as `counted`) in
/// `encoding`.
pub fn position(
    text: &str,
    starts: &[usize],
    line: u32,
    column: u32,
    counted: Column,
    encoding: Encoding,
) -> Position {
    let row = line.saturating_sub(1);
    let want = column.saturating_sub(1);
    if counted == Column::Utf16 && encoding == Encoding::Utf16 {
        return Position::new(row, want);
    }
    let start = starts.get(row as usize).copied().unwrap_or(text.len());
    let end = starts.get(row as usize + 1).copied().unwrap_or(text.len());
    let (mut seen, mut out) = (0, 0);
    for c in text[start..end].chars() {
        if seen >= want || c == '\n' {
            break;
        }
        seen += match counted {
            Column::Utf16 => c.len_utf16() as u32,
            Column::Chars => 1,
        };
        out += encoding.units(c.encode_utf8(&mut [0; 4]));
    }
    Position::new(row, out)
}

/// The position of byte `offset` of `text` (at the character it falls in).
pub fn position_of(text: &str, starts: &[usize], offset: usize, encoding: Encoding) -> Position {
    let offset = offset.min(text.len());
    let row = starts.partition_point(|&s| s <= offset) - 1;
    let mut from = offset;
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    Position::new(row as u32, encoding.units(&text[starts[row]..from]))
}

/// Where `text` ends, as a position.
pub fn end_of(text: &str, starts: &[usize], encoding: Encoding) -> Position {
    position_of(text, starts, text.len(), encoding)
}

/// A path with its directory canonicalised, to compare the client's paths with ours.
pub fn canonical(path: &Path) -> PathBuf {
    match (path.parent().map(std::fs::canonicalize), path.file_name()) {
        (Some(Ok(dir)), Some(name)) => dir.join(name),
        _ => path.to_owned(),
    }
}

/// The `file:` URI of a local path (percent-encoding what a URI cannot hold).
pub fn uri_of(path: &Path) -> Option<Uri> {
    let mut text = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            text.push(b as char);
        } else {
            text.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&text).ok()
}

/// The local path of a `file:` URI, percent-decoded.
pub fn file_path(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file:///home/…`; a host (`file://server/…`) is not a local file.
    let path = rest.strip_prefix('/').map(|p| format!("/{p}"))?;
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied(),
            bytes.get(i + 2).copied(),
        ) {
            (b'%', Some(h), Some(l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h)? * 16 + hex(l)?) as u8);
                i += 3;
            }
            (b'?' | b'#', _, _) => break,
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_turn_into_each_encoding() {
        let text = "a😀b\nčd";
        let starts = line_starts(text);
        // `b` is UTF-16 column 4 and scalar column 3.
        for (encoding, want) in [
            (Encoding::Utf16, 3),
            (Encoding::Utf8, 5),
            (Encoding::Utf32, 2),
        ] {
            let at = position(text, &starts, 1, 4, Column::Utf16, encoding);
            assert_eq!(at, Position::new(0, want), "{encoding:?}");
            let at = position(text, &starts, 1, 3, Column::Chars, encoding);
            assert_eq!(at, Position::new(0, want), "{encoding:?}");
            let offset = text.find('b').unwrap();
            assert_eq!(position_of(text, &starts, offset, encoding), at);
        }
        assert_eq!(
            position(text, &starts, 2, 2, Column::Chars, Encoding::Utf8),
            Position::new(1, 2)
        );
        assert_eq!(end_of(text, &starts, Encoding::Utf8), Position::new(1, 3));
    }

    #[test]
    fn uris_and_paths_round_trip() {
        let path = Path::new("/tmp/a b/č#.md");
        let uri = uri_of(path).unwrap();
        assert_eq!(file_path(&uri).unwrap(), path);
    }
}
