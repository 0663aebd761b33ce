//! Which language a text is written in, Czech or English, from its words: the one
//! identifier behind the structural segmenter ([`identify`]) and the Czech gate of the
//! rules that misfire on mis-tagged English ([`reads_as_czech`]).
//!
//! Evidence is counted in one pass over the words, without allocating: each word is
//! lowercased and its Czech letters with a diacritic folded to their base letter (`Že` is
//! `ze`), packed into a `u64` when it fits in eight bytes, and looked up in one hashed
//! table of frequent short words ([`WORDS`]), each marked Czech, English or both. A stop
//! word counts 2 for each of its languages; a Czech letter with a diacritic counts 3 for
//! Czech (at most two per word, so one long name cannot outweigh a sentence). Folding
//! lets Czech typed without diacritics (`Analogie s motorem a podvozkem`) read as Czech:
//! the words carry the evidence the letters do not.
//!
//! The words are those a short heading or list item is made of — prepositions,
//! conjunctions, pronouns, auxiliaries — and none that is a common word of the other
//! language once folded (`let`, `most` and `her` are Czech words too; `me` is `mě`).

/// How much of a text's words speak for each language.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Evidence {
    pub czech: u32,
    pub english: u32,
}

/// The language `text` is written in, when its words say so clearly: the leading
/// language needs a score of at least 3 and a lead of more than 2 (one stop word of each
/// language is a tie; a lone `Ahoj` or a name says nothing). None for text too short or
/// too mixed to tell.
pub fn identify(text: &str) -> Option<&'static str> {
    evidence(text).language()
}

/// Whether `text`, already tagged Czech, reads as Czech: see [`Evidence::reads_as_czech`].
pub fn reads_as_czech(text: &str) -> bool {
    evidence(text).reads_as_czech()
}

impl Evidence {
    /// The language of text with this evidence, when it is clear: see [`identify`].
    pub fn language(self) -> Option<&'static str> {
        let Evidence { czech, english } = self;
        let (best, score, other) = if czech >= english {
            ("cs", czech, english)
        } else {
            ("en", english, czech)
        };
        (score >= 3 && score > other + 2).then_some(best)
    }

    /// Whether text already tagged Czech reads as Czech: some Czech evidence and no more
    /// English. A weaker test than [`identify`]'s clear lead, because the tag is evidence
    /// too: a tie (`Reveal a reflexe`, whose one listed word `a` is English as well) keeps
    /// it. A Czech heading without a diacritic passes on its words, an untranslated
    /// English string of a Czech locale (`A team where everyone works…`) does not, and
    /// neither does text with no word of either language (`Deadline: Friday`).
    pub fn reads_as_czech(self) -> bool {
        self.czech > 0 && self.czech >= self.english
    }
}

/// The evidence of every word of `text` (a word: a run of letters and digits, with an
/// apostrophe inside it kept, so `it's` is one English word and not `it` and the Czech
/// `s`). Words with a digit (`v2`, `H1`) are not words of either language.
///
/// Read a byte at a time: ASCII and the two-byte Czech letters by their bytes, and only
/// other non-ASCII characters (punctuation, other scripts) decoded.
pub fn evidence(text: &str) -> Evidence {
    let bytes = text.as_bytes();
    let mut out = Evidence::default();
    let mut word = Word::default();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            i += 1;
            match b {
                b'a'..=b'z' | b'A'..=b'Z' => {
                    word.capital |= word.len == 0 && b.is_ascii_uppercase();
                    word.push(b | 0x20);
                    // The rest of its letters, lowercase ASCII and Czech, most of a word,
                    // in one tight loop.
                    loop {
                        match bytes.get(i) {
                            Some(&c) if c.is_ascii_lowercase() => {
                                word.push(c);
                                i += 1;
                            }
                            Some(&c @ 0xC3..=0xC5) => {
                                let next = bytes.get(i + 1).copied().unwrap_or(0);
                                let Some(base) = fold_czech(c, next) else {
                                    break;
                                };
                                word.push(base);
                                word.diacritics += 1;
                                i += 2;
                            }
                            _ => break,
                        }
                    }
                }
                b'0'..=b'9' => {
                    word.digit = true;
                    word.len += 1;
                }
                _ if b == b'\'' && word.len > 0 && starts_letter(&text[i..]) => word.push(b'\''),
                _ if word.len > 0 => word.finish(&mut out),
                _ => {}
            }
            continue;
        }
        let next = bytes.get(i + 1).copied().unwrap_or(0);
        if let Some(base) = fold_czech(b, next) {
            i += 2;
            word.push(base);
            word.diacritics += 1;
            continue;
        }
        let c = text[i..].chars().next().expect("a character starts here");
        i += c.len_utf8();
        if c == '\u{2019}' && word.len > 0 && starts_letter(&text[i..]) {
            word.push(b'\'');
        } else if !is_typographic_space_or_punctuation(c) && c.is_alphanumeric() {
            word.foreign = true;
            word.len += 1;
        } else if word.len > 0 {
            word.finish(&mut out);
        }
    }
    word.finish(&mut out);
    out
}

/// The no-break space and the General Punctuation block (dashes, quotes, the ellipsis,
/// thin spaces), which Czech typography is full of: none is a letter or digit, and
/// saying so here spares the Unicode tables a look-up per character.
#[inline]
fn is_typographic_space_or_punctuation(c: char) -> bool {
    matches!(c, '\u{a0}' | '\u{2000}'..='\u{206f}')
}

fn starts_letter(text: &str) -> bool {
    text.chars().next().is_some_and(char::is_alphabetic)
}

/// The word being read: its folded bytes shifted in from the right, so that a word of at
/// most eight bytes is packed whole (a longer one keeps its last eight, and is never
/// looked up).
#[derive(Default)]
struct Word {
    key: u64,
    len: u32,
    diacritics: u32,
    /// A digit: not a word of prose.
    digit: bool,
    /// A letter neither ASCII nor Czech (`ü`, `ñ`, `ж`): not a word of the table.
    foreign: bool,
    /// It began with an ASCII capital.
    capital: bool,
}

impl Word {
    #[inline]
    fn push(&mut self, byte: u8) {
        self.key = self.key << 8 | u64::from(byte);
        self.len += 1;
    }

    #[inline]
    fn finish(&mut self, out: &mut Evidence) {
        if self.len == 0 {
            return;
        }
        out.czech += 3 * self.diacritics.min(2);
        if self.len <= 8 && !self.digit && !self.foreign {
            let languages = match self.len == 1 && self.capital {
                // The English article and pronoun begin a sentence as often as not;
                // the Czech conjunctions mostly stand inside one, lowercase.
                true if matches!(self.key, 0x61 | 0x69) => EN,
                _ => lookup(self.key),
            };
            out.czech += 2 * u32::from(languages & CS != 0);
            out.english += 2 * u32::from(languages & EN != 0);
        }
        *self = Word::default();
    }
}

/// The base letter of a Czech letter with a diacritic, lowercase, from its two UTF-8
/// bytes: [`fold_base`] looked up in [`FOLD`] (the match compiled to a call and a jump
/// in the word loop).
#[inline(always)]
fn fold_czech(lead: u8, next: u8) -> Option<u8> {
    let row = lead.wrapping_sub(0xC3);
    if row > 2 || next & 0xC0 != 0x80 {
        return None;
    }
    let base = FOLD[usize::from(row) << 6 | usize::from(next & 0x3F)];
    (base != 0).then_some(base)
}

/// [`fold_base`] of every lead byte `0xC3..=0xC5` and continuation byte, 0 for none.
static FOLD: [u8; 192] = {
    let mut table = [0; 192];
    let mut i = 0;
    while i < table.len() {
        if let Some(base) = fold_base(0xC3 + (i >> 6) as u8, 0x80 | (i & 0x3F) as u8) {
            table[i] = base;
        }
        i += 1;
    }
    table
};

/// The definition of [`fold_czech`].
const fn fold_base(lead: u8, next: u8) -> Option<u8> {
    Some(match (lead, next) {
        // á Á, é É, í Í, ó Ó, ú Ú, ý Ý
        (0xC3, 0xA1 | 0x81) => b'a',
        (0xC3, 0xA9 | 0x89) => b'e',
        (0xC3, 0xAD | 0x8D) => b'i',
        (0xC3, 0xB3 | 0x93) => b'o',
        (0xC3, 0xBA | 0x9A) => b'u',
        (0xC3, 0xBD | 0x9D) => b'y',
        // Č č Ď ď Ě ě
        (0xC4, 0x8C | 0x8D) => b'c',
        (0xC4, 0x8E | 0x8F) => b'd',
        (0xC4, 0x9A | 0x9B) => b'e',
        // Ň ň Ř ř Š š Ť ť Ů ů Ž ž
        (0xC5, 0x87 | 0x88) => b'n',
        (0xC5, 0x98 | 0x99) => b'r',
        (0xC5, 0xA0 | 0xA1) => b's',
        (0xC5, 0xA4 | 0xA5) => b't',
        (0xC5, 0xAE | 0xAF) => b'u',
        (0xC5, 0xBD | 0xBE) => b'z',
        _ => return None,
    })
}

const CS: u8 = 1;
const EN: u8 = 2;
const BOTH: u8 = CS | EN;

/// Frequent short words, folded (lowercase ASCII, Czech diacritics dropped), sorted
/// bytewise, with their languages. A word in both languages (`a`, `to`) adds to both and
/// so decides nothing. The capitals `A` and `I` alone are English (see `Word::finish`):
/// the lowercase `i` is Czech.
pub const WORDS: &[(&str, u8)] = &[
    ("a", BOTH),
    ("about", EN),
    ("aby", CS),
    ("after", EN),
    ("ale", CS),
    ("all", EN),
    ("also", EN),
    ("an", EN),
    ("and", EN),
    ("ani", CS),
    ("ano", CS),
    ("any", EN),
    ("are", EN),
    ("as", EN),
    ("at", EN),
    ("be", EN),
    ("because", EN),
    ("been", EN),
    ("before", EN),
    ("bez", CS),
    ("bude", CS),
    ("budou", CS),
    ("but", EN),
    ("by", BOTH),
    ("byl", CS),
    ("byla", CS),
    ("byli", CS),
    ("bylo", CS),
    ("byt", CS),
    ("can", EN),
    ("can't", EN),
    ("co", CS),
    ("could", EN),
    ("dalsi", CS),
    ("do", BOTH),
    ("does", EN),
    ("doesn't", EN),
    ("don't", EN),
    ("each", EN),
    ("every", EN),
    ("for", EN),
    ("from", EN),
    ("has", EN),
    ("have", EN),
    ("he", EN),
    ("here", EN),
    ("his", EN),
    ("how", EN),
    ("i", CS),
    ("i'm", EN),
    ("if", EN),
    ("in", EN),
    ("into", EN),
    ("is", EN),
    ("isn't", EN),
    ("it", EN),
    ("it's", EN),
    ("its", EN),
    ("jak", CS),
    ("jake", CS),
    ("jako", CS),
    ("je", CS),
    ("jeho", CS),
    ("jeji", CS),
    ("jejich", CS),
    ("jen", CS),
    ("jeste", CS),
    ("jestli", CS),
    ("jsem", CS),
    ("jsi", CS),
    ("jsme", CS),
    ("jsou", CS),
    ("jste", CS),
    ("k", CS),
    ("kam", CS),
    ("kazdy", CS),
    ("kde", CS),
    ("kdo", CS),
    ("kdy", CS),
    ("kdyz", CS),
    ("ke", CS),
    ("ktera", CS),
    ("ktere", CS),
    ("kteri", CS),
    ("ktery", CS),
    ("let's", EN),
    ("lze", CS),
    ("ma", CS),
    ("maji", CS),
    ("mate", CS),
    ("mezi", CS),
    ("more", EN),
    ("must", EN),
    ("muze", CS),
    ("my", EN),
    ("na", CS),
    ("nad", CS),
    ("nas", CS),
    ("ne", CS),
    ("nebo", CS),
    ("neni", CS),
    ("nez", CS),
    ("not", EN),
    ("o", CS),
    ("od", CS),
    ("of", EN),
    ("on", EN),
    ("only", EN),
    ("or", EN),
    ("other", EN),
    ("our", EN),
    ("out", EN),
    ("pak", CS),
    ("po", CS),
    ("pod", CS),
    ("podle", CS),
    ("pokud", CS),
    ("pred", CS),
    ("pri", CS),
    ("pro", CS),
    ("proc", CS),
    ("proto", CS),
    ("protoze", CS),
    ("s", CS),
    ("se", CS),
    ("she", EN),
    ("should", EN),
    ("si", CS),
    ("some", EN),
    ("sve", CS),
    ("svuj", CS),
    ("tady", CS),
    ("tak", CS),
    ("take", CS),
    ("tedy", CS),
    ("tento", CS),
    ("teto", CS),
    ("than", EN),
    ("that", EN),
    ("that's", EN),
    ("the", EN),
    ("their", EN),
    ("them", EN),
    ("then", EN),
    ("there", EN),
    ("these", EN),
    ("they", EN),
    ("this", EN),
    ("those", EN),
    ("tim", CS),
    ("to", BOTH),
    ("tohle", CS),
    ("toho", CS),
    ("tomu", CS),
    ("toto", CS),
    ("u", CS),
    ("uz", CS),
    ("v", CS),
    ("vam", CS),
    ("vas", CS),
    ("ve", CS),
    ("velmi", CS),
    ("vse", CS),
    ("vsech", CS),
    ("was", EN),
    ("we", EN),
    ("were", EN),
    ("what", EN),
    ("when", EN),
    ("where", EN),
    ("which", EN),
    ("while", EN),
    ("who", EN),
    ("why", EN),
    ("will", EN),
    ("with", EN),
    ("would", EN),
    ("you", EN),
    ("you're", EN),
    ("your", EN),
    ("z", CS),
    ("za", CS),
    ("zda", CS),
    ("ze", CS),
];

/// [`WORDS`] packed as [`Word`] packs a word, each at its own [`slot`]: the multiplier
/// was chosen so that no two words share one (building the table fails to compile
/// otherwise), so a look-up is one probe and one comparison, with no loop.
static TABLE: [(u64, u8); SLOTS] = {
    let mut table = [(0, 0); SLOTS];
    let mut i = 0;
    while i < WORDS.len() {
        let key = pack(WORDS[i].0.as_bytes());
        let at = slot(key);
        assert!(
            table[at].0 == 0,
            "two words share a slot: choose another multiplier"
        );
        table[at] = (key, WORDS[i].1);
        i += 1;
    }
    table
};

/// Slots of [`TABLE`]: a power of two, enough for a multiplier without collisions to
/// exist.
const SLOTS: usize = 2048;

/// A packed word's slot in [`TABLE`]: the top bits of a multiplicative hash, with a
/// multiplier found by trying random odd ones until the words' slots were distinct.
const fn slot(key: u64) -> usize {
    (key.wrapping_mul(0x4fde_f00e_ccb2_81d3) >> (64 - SLOTS.trailing_zeros())) as usize
}

const fn pack(word: &[u8]) -> u64 {
    assert!(word.len() <= 8, "a table word fits in eight bytes");
    let mut key = 0;
    let mut i = 0;
    while i < word.len() {
        key = key << 8 | word[i] as u64;
        i += 1;
    }
    key
}

/// The languages of the folded word packed as `key`: `CS`, `EN`, both, or neither (0).
#[inline]
fn lookup(key: u64) -> u8 {
    let (k, languages) = TABLE[slot(key)];
    if k == key { languages } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_unique_and_folded() {
        for pair in WORDS.windows(2) {
            assert!(
                pair[0].0 < pair[1].0,
                "{:?} before {:?}",
                pair[0].0,
                pair[1].0
            );
        }
        for (word, languages) in WORDS {
            assert!(
                word.bytes().all(|b| b.is_ascii_lowercase() || b == b'\''),
                "{word}"
            );
            assert!((1..=3).contains(languages), "{word}");
            assert_eq!(lookup(pack(word.as_bytes())), *languages, "{word}");
        }
        // Every word is found, each once.
        assert_eq!(TABLE.iter().filter(|(k, _)| *k != 0).count(), WORDS.len());
        assert_eq!(lookup(pack(b"plan")), 0);
    }

    /// The definition [`evidence`] reads bytes for: words split at characters, each
    /// lowercased and folded, then the same counting.
    fn evidence_by_chars(text: &str) -> Evidence {
        let mut out = Evidence::default();
        let chars: Vec<char> = text.chars().collect();
        let mut word = String::new();
        let mut flush = |word: &mut String| {
            if word.is_empty() {
                return;
            }
            let diacritics = word.chars().filter(|c| fold_char(*c).is_some()).count() as u32;
            out.czech += 3 * diacritics.min(2);
            let folded: Option<String> = word
                .chars()
                .map(|c| match c {
                    'a'..='z' | '\'' => Some(c),
                    'A'..='Z' => Some(c.to_ascii_lowercase()),
                    '\u{2019}' => Some('\''),
                    _ => fold_char(c).map(char::from),
                })
                .collect();
            if let Some(folded) = folded.filter(|f| f.len() <= 8) {
                let languages = if ["A", "I"].contains(&word.as_str()) {
                    EN
                } else {
                    WORDS
                        .iter()
                        .find(|(w, _)| *w == folded)
                        .map_or(0, |(_, l)| *l)
                };
                out.czech += 2 * u32::from(languages & CS != 0);
                out.english += 2 * u32::from(languages & EN != 0);
            }
            word.clear();
        };
        for (i, &c) in chars.iter().enumerate() {
            let apostrophe = matches!(c, '\'' | '\u{2019}')
                && !word.is_empty()
                && chars.get(i + 1).is_some_and(|n| n.is_alphabetic());
            if c.is_alphanumeric() || apostrophe {
                word.push(c);
            } else {
                flush(&mut word);
            }
        }
        flush(&mut word);
        out
    }

    fn fold_char(c: char) -> Option<u8> {
        let mut utf8 = [0; 4];
        let bytes = c.encode_utf8(&mut utf8).as_bytes();
        (bytes.len() == 2)
            .then(|| fold_czech(bytes[0], bytes[1]))
            .flatten()
    }

    const PIECES: &[&str] = &[
        "a",
        "A",
        "i",
        "I",
        "to",
        "The",
        "že",
        "ŽE",
        "s",
        "it",
        "'",
        "’",
        "s ",
        " ",
        ".",
        "v2",
        "über",
        "ж",
        "protože",
        "protozeee",
        "ř",
        "Ů",
        "–",
        "„",
        "1",
        "\u{a0}",
        "nebo",
        "with",
        "x",
        "e\u{301}",
        "日本",
        "¹",
        "µ",
        "‿",
        "\u{2028}",
        "«",
        "ª",
        "…",
        "“",
        "\u{206f}",
        "⁰",
        "Ã",
    ];

    proptest::proptest! {
        #[test]
        fn evidence_by_bytes_is_evidence_by_characters(
            picks in proptest::collection::vec(0..PIECES.len(), 0..30),
        ) {
            let text: String = picks.iter().map(|&i| PIECES[i]).collect();
            proptest::prop_assert_eq!(evidence(&text), evidence_by_chars(&text), "{:?}", text);
        }
    }

    /// The two-byte reading of the Czech letters is the characters' own.
    #[test]
    fn czech_letters_fold_by_their_bytes() {
        let letters = "áčďéěíňóřšťúůýžÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ";
        let bases = "acdeeinorstuuyzacdeeinorstuuyz";
        for (c, base) in letters.chars().zip(bases.bytes()) {
            let mut utf8 = [0; 4];
            let bytes = c.encode_utf8(&mut utf8).as_bytes();
            assert_eq!(fold_czech(bytes[0], bytes[1]), Some(base), "{c}");
        }
        for c in "äöüßñøłżźćńśęąàèìòùâêîôûœæçğışĺľŕ".chars() {
            let mut utf8 = [0; 4];
            let bytes = c.encode_utf8(&mut utf8).as_bytes();
            assert_eq!(fold_czech(bytes[0], bytes[1]), None, "{c}");
        }
    }

    #[test]
    fn the_fold_table_is_its_definition() {
        for lead in 0..=u8::MAX {
            for next in 0..=u8::MAX {
                assert_eq!(
                    fold_czech(lead, next),
                    fold_base(lead, next),
                    "{lead:x} {next:x}"
                );
            }
        }
    }

    #[test]
    fn typographic_spaces_and_punctuation_are_no_letters() {
        for c in ('\u{0}'..='\u{10ffff}').filter(|&c| is_typographic_space_or_punctuation(c)) {
            assert!(!c.is_alphanumeric(), "{c:?}");
        }
    }

    #[test]
    fn words_are_folded_and_counted() {
        assert_eq!(
            evidence("Že"),
            Evidence {
                czech: 5,
                english: 0
            }
        );
        assert_eq!(
            evidence("a to"),
            Evidence {
                czech: 4,
                english: 4
            }
        );
        assert_eq!(
            evidence("A i I"),
            Evidence {
                czech: 2,
                english: 4
            }
        );
        assert_eq!(
            evidence("The plan"),
            Evidence {
                czech: 0,
                english: 2
            }
        );
        // A diacritic counts whatever the word; at most two per word.
        assert_eq!(evidence("Žluťoučký").czech, 6);
        // Contractions are English words, not `it` and the Czech `s`.
        assert_eq!(
            evidence("it's"),
            Evidence {
                czech: 0,
                english: 2
            }
        );
        assert_eq!(
            evidence("it’s"),
            Evidence {
                czech: 0,
                english: 2
            }
        );
        // Words with a digit or a foreign letter are no words of the table.
        assert_eq!(evidence("v2 s3 über"), Evidence::default());
        // Longer than eight bytes: not a table word, even when a prefix is.
        assert_eq!(evidence("protozeee"), Evidence::default());
    }

    #[test]
    fn identify_needs_a_clear_lead() {
        assert_eq!(identify("Jdu do lesa a pak domů."), Some("cs"));
        assert_eq!(identify("This is the plan for the day."), Some("en"));
        assert_eq!(identify("Analogie s motorem a podvozkem"), None);
        assert_eq!(identify("Harness Lab"), None);
        assert_eq!(identify("Ahoj"), None);
    }

    #[test]
    fn czech_without_diacritics_reads_as_czech_and_english_does_not() {
        for czech in [
            "Analogie s motorem a podvozkem",
            "Motor a podvozek pro agenta",
            "Jdu do lesa a pak domů.",
        ] {
            assert!(reads_as_czech(czech), "{czech}");
        }
        for english in [
            "A team where everyone works with agents",
            "I read your check-ins and reply by noon.",
            "Harness Lab",
            "Deadline: Friday",
            "A plan. Short, followable.",
        ] {
            assert!(!reads_as_czech(english), "{english}");
        }
        // Too little to tell (the one listed word is English too): the tag stands.
        assert!(reads_as_czech("Reveal a reflexe"));
    }
}
