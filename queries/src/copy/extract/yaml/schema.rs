//! Which scalars are strings: the YAML 1.2 core schema's tags and plain spellings. Only
//! the decoded value, the style and the tag are read, never the source.

use saphyr_parser::{ScalarStyle, Tag};

/// Whether a scalar is a string in the YAML 1.2 core schema.
pub(super) fn is_string(value: &str, style: ScalarStyle, tag: Option<&Tag>) -> bool {
    if let Some(tag) = tag
        && tag.handle == "tag:yaml.org,2002:"
    {
        return tag.suffix == "str";
    }
    style != ScalarStyle::Plain || !is_core_non_string(value)
}

/// Null, boolean, integer and float spellings of the core schema.
pub(super) fn is_core_non_string(v: &str) -> bool {
    if matches!(
        v,
        "" | "~"
            | "null"
            | "Null"
            | "NULL"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | ".nan"
            | ".NaN"
            | ".NAN"
    ) {
        return true;
    }
    let unsigned = v.strip_prefix(['-', '+']).unwrap_or(v);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    if let Some(hex) = v.strip_prefix("0x") {
        return !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
    }
    if let Some(oct) = v.strip_prefix("0o") {
        return !oct.is_empty() && oct.bytes().all(|b| (b'0'..=b'7').contains(&b));
    }
    // [0-9]+ | ([0-9]+(\.[0-9]*)? | \.[0-9]+)([eE][-+]?[0-9]+)?
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (&unsigned[..i], Some(&unsigned[i + 1..])),
        None => (unsigned, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => {
            (digits(int) && (frac.is_empty() || digits(frac))) || (int.is_empty() && digits(frac))
        }
        None => digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}
