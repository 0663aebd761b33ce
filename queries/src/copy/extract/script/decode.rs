//! JavaScript escapes and HTML character references, decoded: functions of the text
//! alone, which the lexer calls where it meets a backslash in a string or a template, or
//! an `&` in JSX text or an attribute string.

/// A JavaScript escape at the start of `s` (a backslash): the decoded text (empty for a
/// line continuation) and the escape's length.
pub(super) fn escape(s: &str) -> (String, usize) {
    let b = s.as_bytes();
    let hex = |digits: &str| u32::from_str_radix(digits, 16).ok();
    let Some(&c) = b.get(1) else {
        return (String::new(), 1);
    };
    let simple = match c {
        b'n' => Some('\n'),
        b't' => Some('\t'),
        b'r' => Some('\r'),
        b'b' => Some('\u{8}'),
        b'f' => Some('\u{c}'),
        b'v' => Some('\u{b}'),
        b'0' if !b.get(2).is_some_and(u8::is_ascii_digit) => Some('\0'),
        _ => None,
    };
    if let Some(c) = simple {
        return (c.to_string(), 2);
    }
    match c {
        b'\r' if b.get(2) == Some(&b'\n') => (String::new(), 3),
        b'\n' | b'\r' => (String::new(), 2),
        b'x' => match s.get(2..4).and_then(hex).and_then(char::from_u32) {
            Some(c) => (c.to_string(), 4),
            None => ("x".to_owned(), 2),
        },
        b'u' => {
            if s[2..].starts_with('{')
                && let Some(close) = s[3..].find('}')
                && let Some(c) = hex(&s[3..3 + close]).and_then(char::from_u32)
            {
                return (c.to_string(), 3 + close + 1);
            }
            let Some(high) = s.get(2..6).and_then(hex) else {
                return ("u".to_owned(), 2);
            };
            if (0xD800..0xDC00).contains(&high)
                && s[6..].starts_with("\\u")
                && let Some(low) = s.get(8..12).and_then(hex)
                && (0xDC00..0xE000).contains(&low)
            {
                let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                return (char::from_u32(c).unwrap_or('\u{FFFD}').to_string(), 12);
            }
            (char::from_u32(high).unwrap_or('\u{FFFD}').to_string(), 6)
        }
        _ => {
            let c = s[1..]
                .chars()
                .next()
                .expect("a character after the backslash");
            if matches!(c, '\u{2028}' | '\u{2029}') {
                (String::new(), 1 + c.len_utf8())
            } else {
                (c.to_string(), 1 + c.len_utf8())
            }
        }
    }
}

/// An HTML character reference at the start of `s`: the decoded text and its length.
pub(super) fn entity(s: &str) -> Option<(String, usize)> {
    let semi = s.get(..34).unwrap_or(s).find(';')?;
    let name = &s[1..semi];
    let c = if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        char::from_u32(code)?
    } else {
        named_entity(name)?
    };
    Some((c.to_string(), semi + 1))
}

fn named_entity(name: &str) -> Option<char> {
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => '\u{a0}',
        "shy" => '\u{ad}',
        "ensp" => '\u{2002}',
        "emsp" => '\u{2003}',
        "thinsp" => '\u{2009}',
        "hairsp" => '\u{200a}',
        "zwnj" => '\u{200c}',
        "zwj" => '\u{200d}',
        "ndash" => '–',
        "mdash" => '—',
        "minus" => '−',
        "hellip" => '…',
        "laquo" => '«',
        "raquo" => '»',
        "lsaquo" => '‹',
        "rsaquo" => '›',
        "bdquo" => '„',
        "ldquo" => '“',
        "rdquo" => '”',
        "sbquo" => '‚',
        "lsquo" => '‘',
        "rsquo" => '’',
        "copy" => '©',
        "reg" => '®',
        "trade" => '™',
        "times" => '×',
        "divide" => '÷',
        "plusmn" => '±',
        "deg" => '°',
        "euro" => '€',
        "middot" => '·',
        "bull" => '•',
        "sect" => '§',
        "para" => '¶',
        "dagger" => '†',
        "frac12" => '½',
        "larr" => '←',
        "rarr" => '→',
        "uarr" => '↑',
        "darr" => '↓',
        _ => return None,
    })
}
