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
        let hex = s.strip_prefix("sha256:")?.as_bytes();
        if hex.len() != 64 {
            return None;
        }
        // Digits from a table, checked once at the end: a run parses the recorded hash of
        // every lockfile entry twice, and a branch per digit showed in a cold profile.
        let mut out = [0u8; 32];
        let mut seen = 0u8;
        for (byte, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
            let (hi, lo) = (
                HEX_VALUE[usize::from(pair[0])],
                HEX_VALUE[usize::from(pair[1])],
            );
            seen |= hi | lo;
            *byte = hi << 4 | lo;
        }
        (seen & !0x0F == 0).then_some(ContentHash(out))
    }
}

/// The value of each lowercase hex digit, and `0xFF` for every other byte.
static HEX_VALUE: [u8; 256] = {
    let mut t = [0xFF; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = match b as u8 {
            d @ b'0'..=b'9' => d - b'0',
            d @ b'a'..=b'f' => d - b'a' + 10,
            _ => 0xFF,
        };
        b += 1;
    }
    t
};

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

    /// Every byte in every digit position: accepted exactly when it is a lowercase hex
    /// digit, and then read as one.
    #[test]
    fn every_byte_is_a_digit_or_refused() {
        let digits = "0123456789abcdef";
        for at in [0, 1, 62, 63] {
            for b in 0..=255u8 {
                let mut hex = [b'7'; 64];
                hex[at] = b;
                let Ok(text) = std::str::from_utf8(&hex) else {
                    continue;
                };
                let parsed = ContentHash::parse(&format!("sha256:{text}"));
                match digits.find(char::from(b)) {
                    Some(value) => {
                        let byte = parsed.expect("a digit").0[at / 2];
                        let expected = if at % 2 == 0 {
                            value << 4 | 7
                        } else {
                            0x70 | value
                        };
                        assert_eq!(usize::from(byte), expected, "{b:#x} at {at}");
                    }
                    None => assert_eq!(parsed, None, "{b:#x} at {at}"),
                }
            }
        }
    }
}
