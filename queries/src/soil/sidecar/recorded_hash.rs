//! A hash as a sidecar records it, kept as its digits rather than as its text.

use crate::hash::ContentHash;
use std::cmp::Ordering;
use std::fmt;

/// `sha256:` followed by [`super::MIN_HASH_HEX_DIGITS`] to [`super::MAX_HASH_HEX_DIGITS`]
/// lowercase hex digits, the only hashes the reader accepts, kept as the digits' values two
/// to a byte: 33 bytes in place, where the text was a 24-byte string and 71 bytes on the
/// heap. A parsed sidecar holds five or more, and a run keeps every definition's sidecar:
/// at 50,000 definitions their strings were 20 MB of `status`'s peak heap.
///
/// It reads, compares and orders exactly as its text: [`fmt::Display`] writes the text
/// back, `==` with a `str` compares with it, and the order is the texts' order.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecordedHash {
    /// Digit `i` is the high nibble of byte `i / 2` when `i` is even, else the low one;
    /// the nibbles past the last digit are zero, so equal texts have equal bytes.
    packed: [u8; 32],
    digits: u8,
}

impl RecordedHash {
    /// The hash `text` records; `None` unless it is `sha256:` and 8 to 64 lowercase hex
    /// digits.
    pub fn parse(text: &str) -> Option<RecordedHash> {
        let hex = text.strip_prefix("sha256:")?.as_bytes();
        if !(super::MIN_HASH_HEX_DIGITS..=super::MAX_HASH_HEX_DIGITS).contains(&hex.len()) {
            return None;
        }
        // Two digits at a time, each by a table; whether any was no digit, once at the end.
        let mut packed = [0u8; 32];
        let mut not_digits = 0;
        let pairs = hex.chunks_exact(2);
        let last = pairs.remainder().first().map(|&b| DIGIT[usize::from(b)]);
        for (byte, pair) in packed.iter_mut().zip(pairs) {
            let (high, low) = (DIGIT[usize::from(pair[0])], DIGIT[usize::from(pair[1])]);
            not_digits |= high | low;
            *byte = high << 4 | low;
        }
        if let Some(high) = last {
            not_digits |= high;
            packed[hex.len() / 2] = high << 4;
        }
        if not_digits & NOT_A_DIGIT != 0 {
            return None;
        }
        Some(RecordedHash {
            packed,
            digits: hex.len() as u8,
        })
    }

    /// Whether this is `hash` written in full: what comparing the recorded text with the
    /// current hash's text asks, without writing either.
    pub fn is(&self, hash: &ContentHash) -> bool {
        self.digits == 64 && self.packed == hash.0
    }

    /// The hash of a digit count and digits, if [`RecordedHash::parse`] could have made it:
    /// a count in range, and zeros past the last digit (the binary cache's form).
    fn from_parts(digits: u8, packed: [u8; 32]) -> Option<RecordedHash> {
        let count = usize::from(digits);
        if !(super::MIN_HASH_HEX_DIGITS..=super::MAX_HASH_HEX_DIGITS).contains(&count) {
            return None;
        }
        let odd_tail = count % 2 == 1 && packed[count / 2] & 0x0f != 0;
        let zeros_past = packed[count.div_ceil(2)..].iter().all(|&b| b == 0);
        (zeros_past && !odd_tail).then_some(RecordedHash { packed, digits })
    }
}

/// The value of each lowercase hex digit, [`NOT_A_DIGIT`] for any other byte.
static DIGIT: [u8; 256] = {
    let mut table = [NOT_A_DIGIT; 256];
    let mut i = 0;
    while i < 16 {
        table[b"0123456789abcdef"[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// A bit no digit's value has.
const NOT_A_DIGIT: u8 = 0x10;

/// `text` is not `sha256:` and 8 to 64 lowercase hex digits.
#[derive(Debug, PartialEq, Eq)]
pub struct NotAHash;

impl fmt::Display for NotAHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not `sha256:` and 8 to 64 lowercase hex digits")
    }
}

impl std::str::FromStr for RecordedHash {
    type Err = NotAHash;
    fn from_str(text: &str) -> Result<RecordedHash, NotAHash> {
        RecordedHash::parse(text).ok_or(NotAHash)
    }
}

impl From<ContentHash> for RecordedHash {
    fn from(hash: ContentHash) -> RecordedHash {
        RecordedHash {
            packed: hash.0,
            digits: 64,
        }
    }
}

impl fmt::Display for RecordedHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut text = [0u8; 7 + 64];
        text[..7].copy_from_slice(b"sha256:");
        let digits = usize::from(self.digits);
        for (i, out) in text[7..7 + digits].iter_mut().enumerate() {
            let byte = self.packed[i / 2];
            *out = HEX[usize::from(if i % 2 == 0 { byte >> 4 } else { byte & 0xf })];
        }
        f.write_str(std::str::from_utf8(&text[..7 + digits]).expect("ASCII"))
    }
}

impl fmt::Debug for RecordedHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}

/// A text that is not a recorded hash is equal to none.
impl PartialEq<str> for RecordedHash {
    fn eq(&self, text: &str) -> bool {
        RecordedHash::parse(text) == Some(*self)
    }
}

/// The texts' order: digit by digit, and a text before every longer one it begins. The
/// nibbles past the last digit are zero, below every digit a longer text has there, so
/// comparing the packed digits first and their count second is exactly that.
impl Ord for RecordedHash {
    fn cmp(&self, other: &RecordedHash) -> Ordering {
        (self.packed, self.digits).cmp(&(other.packed, other.digits))
    }
}

impl PartialOrd for RecordedHash {
    fn partial_cmp(&self, other: &RecordedHash) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The text in human-readable formats; in the binary cache (postcard), the digit count and
/// the digits, checked on the way in as `parse` would have checked the text.
impl serde::Serialize for RecordedHash {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            s.collect_str(self)
        } else {
            serde::Serialize::serialize(&(self.digits, self.packed), s)
        }
    }
}

impl<'de> serde::Deserialize<'de> for RecordedHash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RecordedHash, D::Error> {
        use serde::de::Error;
        if d.is_human_readable() {
            let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
            RecordedHash::parse(&text)
                .ok_or_else(|| D::Error::custom(format!("`{text}` is not a recorded hash")))
        } else {
            let (digits, packed) = <(u8, [u8; 32])>::deserialize(d)?;
            RecordedHash::from_parts(digits, packed)
                .ok_or_else(|| D::Error::custom("not a recorded hash"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = String> {
        "sha256:[0-9a-f]{8,64}"
    }

    #[test]
    fn the_text_is_read_back_as_written() {
        for written in [
            "sha256:9f2c41aa".to_string(),
            "sha256:0123456789".to_string(),
            ContentHash::of(b"abc").to_string(),
        ] {
            let hash = RecordedHash::parse(&written).expect("a hash");
            assert_eq!(hash.to_string(), written);
            assert!(hash == *written.as_str());
        }
        let full = ContentHash::of(b"abc");
        assert!(RecordedHash::from(full).is(&full));
        let short = RecordedHash::parse(&full.to_string()[..20]).expect("abbreviated");
        assert!(!short.is(&full));
    }

    /// Abbreviations down to eight digits are hashes (the_text_is_read_back_as_written);
    /// anything shorter, longer, in capitals or with another prefix is not.
    #[test]
    fn refuses_what_is_not_a_hash() {
        for text in [
            "sha256:9f2c41a",
            "sha256:9F2C41AA",
            "sha1:9f2c41aa",
            "9f2c41aa",
            "sha256:9f2c41ag",
            "sha256:9f2c41aa ",
            "",
        ] {
            assert_eq!(RecordedHash::parse(text), None, "{text:?}");
        }
        let long = format!("sha256:{}", "a".repeat(65));
        assert_eq!(RecordedHash::parse(&long), None);
    }

    #[test]
    fn both_encodings_round_trip() {
        let hash = RecordedHash::parse("sha256:0123456789abc").expect("a hash");
        let json = serde_json::to_string(&hash).expect("json");
        assert_eq!(json, "\"sha256:0123456789abc\"");
        assert_eq!(serde_json::from_str::<RecordedHash>(&json).ok(), Some(hash));
        let bytes = postcard::to_stdvec(&hash).expect("postcard");
        assert_eq!(
            postcard::from_bytes::<RecordedHash>(&bytes).ok(),
            Some(hash)
        );
        // The digit count, then the digits.
        assert_eq!(bytes.len(), 33);
        assert_eq!(bytes[0], 13);
        // A nibble past the last digit, or a digit count out of range, is not a hash.
        for (at, value) in [(1 + 6, 0x01), (1 + 31, 0x10), (0, 7), (0, 65)] {
            let mut bad = bytes.clone();
            bad[at] = value;
            assert!(
                postcard::from_bytes::<RecordedHash>(&bad).is_err(),
                "{at}: {value:#x}"
            );
        }
        let mut other = bytes;
        other[1 + 6] = 0xa0;
        let other = postcard::from_bytes::<RecordedHash>(&other).expect("another last digit");
        assert_eq!(other.to_string(), "sha256:0123456789aba");
    }

    proptest! {
        #[test]
        fn reads_compares_and_orders_as_its_text(a in text(), b in text()) {
            let (ha, hb) = (RecordedHash::parse(&a).unwrap(), RecordedHash::parse(&b).unwrap());
            prop_assert_eq!(ha.to_string(), a.clone());
            prop_assert_eq!(ha == hb, a == b);
            prop_assert_eq!(ha.cmp(&hb), a.cmp(&b));
            prop_assert_eq!(ha == *b.as_str(), a == b);
        }

        /// A text is a hash exactly when it is `sha256:` and 8 to 64 lowercase hex digits,
        /// whichever byte is off (every digit's place, odd counts, any other character).
        #[test]
        fn a_hash_is_what_its_definition_says(
            digits in "[0-9a-f]{0,66}",
            off in proptest::option::of((0usize..66, "[A-Fg:x /@`]")),
            prefixed in any::<bool>(),
        ) {
            let mut digits = digits;
            if let Some((at, c)) = off.filter(|(at, _)| *at < digits.len()) {
                digits.replace_range(at..at + 1, &c);
            }
            let text = if prefixed { format!("sha256:{digits}") } else { digits.clone() };
            let is_hash = prefixed
                && (8..=64).contains(&digits.len())
                && digits.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
            prop_assert_eq!(RecordedHash::parse(&text).is_some(), is_hash, "{}", text);
        }

        /// `is` is comparing the texts, the recorded one and the hash's full one.
        #[test]
        fn is_compares_the_written_forms(bytes in any::<[u8; 32]>(), digits in 8usize..=64) {
            let full = ContentHash(bytes);
            let text = full.to_string()[..7 + digits].to_string();
            let recorded = RecordedHash::parse(&text).unwrap();
            prop_assert_eq!(recorded.is(&full), full.to_string() == text);
        }

        #[test]
        fn a_prefix_orders_before_its_extensions(a in text(), more in "[0-9a-f]{0,8}") {
            let longer = format!("{a}{more}");
            prop_assume!(longer.len() <= 7 + 64);
            let (ha, hl) = (RecordedHash::parse(&a).unwrap(), RecordedHash::parse(&longer).unwrap());
            prop_assert_eq!(ha.cmp(&hl), a.cmp(&longer));
        }
    }
}
