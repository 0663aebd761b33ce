//! Content hashes as they are written in lockfiles: `sha256:` followed by 64 lowercase hex
//! digits.

use sha2::{Digest, Sha256};
use std::fmt;

/// A SHA-256 digest. Displayed in the lockfile form `sha256:<hex>`.
#[derive(
    Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct ContentHash(pub [u8; 32]);

impl ContentHash {
    pub fn of(bytes: &[u8]) -> Self {
        ContentHash(Sha256::digest(bytes).into())
    }

    /// Parses the `sha256:<64 hex>` form; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        let hex = s.strip_prefix("sha256:")?;
        if hex.len() != 64 {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, pair) in hex.as_bytes().chunks_exact(2).enumerate() {
            let hi = hex_val(pair[0])?;
            let lo = hex_val(pair[1])?;
            out[i] = hi << 4 | lo;
        }
        Some(ContentHash(out))
    }
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    }
}

/// Written from a table rather than with `{:02x}` per byte: hashes are formatted for every
/// definition of a run (comparisons with recorded hashes, reports), and per-byte
/// formatting was about 5% of a 50,000-definition `soil-lock status` profile.
impl fmt::Display for ContentHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut text = *b"sha256:0000000000000000000000000000000000000000000000000000000000000000";
        for (i, b) in self.0.iter().enumerate() {
            text[7 + 2 * i] = HEX[usize::from(b >> 4)];
            text[8 + 2 * i] = HEX[usize::from(b & 0xf)];
        }
        f.write_str(std::str::from_utf8(&text).expect("ASCII"))
    }
}

impl fmt::Debug for ContentHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_input_has_the_well_known_digest() {
        assert_eq!(
            ContentHash::of(b"").to_string(),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn parse_round_trips_and_rejects_malformed() {
        let h = ContentHash::of(b"abc");
        assert_eq!(ContentHash::parse(&h.to_string()), Some(h));
        assert_eq!(ContentHash::parse("sha256:abc"), None);
        assert_eq!(ContentHash::parse(&h.to_string().to_uppercase()), None);
        assert_eq!(
            ContentHash::parse(&h.to_string().replace("sha256:", "md5:")),
            None
        );
    }
}
