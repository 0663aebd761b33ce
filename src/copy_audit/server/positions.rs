//! Positions as the client counts them: the encoding negotiated, and the CLI's 1-based
//! line and UTF-16 column turned into it.

use super::*;

/// How the client counts a position's character: UTF-16 code units unless it prefers
/// UTF-8 bytes or UTF-32 characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Encoding {
    Utf8,
    Utf16,
    Utf32,
}

impl Encoding {
    /// The first of the client's encodings, in its order of preference, that the server
    /// speaks; UTF-16, the protocol's default, if none.
    pub(super) fn negotiate(params: &InitializeParams) -> Encoding {
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

    pub(super) fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
            Encoding::Utf32 => PositionEncodingKind::UTF32,
        }
    }
}

/// Where each line of a text starts (byte offsets).
pub(super) fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
        .collect()
}

/// The position of 1-based `line` and 1-based UTF-16 `column` (the CLI's coordinates) in
/// `encoding`.
pub(super) fn position(
    text: &str,
    starts: &[usize],
    line: u32,
    column: u32,
    encoding: Encoding,
) -> Position {
    let row = line.saturating_sub(1);
    let utf16 = column.saturating_sub(1);
    let character = match encoding {
        Encoding::Utf16 => utf16,
        Encoding::Utf8 | Encoding::Utf32 => {
            let start = starts.get(row as usize).copied().unwrap_or(text.len());
            let end = starts.get(row as usize + 1).copied().unwrap_or(text.len());
            let (mut units, mut out) = (0, 0);
            for c in text[start..end].chars() {
                if units >= utf16 {
                    break;
                }
                units += c.len_utf16() as u32;
                out += match encoding {
                    Encoding::Utf8 => c.len_utf8() as u32,
                    _ => 1,
                };
            }
            out
        }
    };
    Position::new(row, character)
}
