//! Which language a text is written in, Czech or English, from its words: the one
//! identifier behind the structural segmenter ([`identify`]) and the Czech gate of the
//! rules that misfire on mis-tagged English ([`reads_as_czech`]).
//!
//! Evidence is counted in one pass over the words, without allocating: each word is
//! lowercased and its Czech letters with a diacritic folded to their base letter (`Že` is
//! `ze`), packed into a `u64` when it fits in eight bytes, and looked up in one sorted
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
    let Evidence { czech, english } = evidence(text);
    let (best, score, other) = if czech >= english {
        ("cs", czech, english)
    } else {
        ("en", english, czech)
    };
    (score >= 3 && score > other + 2).then_some(best)
}

/// Whether `text`, already tagged Czech, reads as Czech: some Czech evidence and no more
/// English. A weaker test than [`identify`]'s clear lead, because the tag is evidence too:
/// a tie (`Reveal a reflexe`, whose one listed word `a` is English as well) keeps it. A
/// Czech heading without a diacritic passes on its words, an untranslated English string
/// of a Czech locale (`A team where everyone works…`) does not, and neither does text
/// with no word of either language (`Deadline: Friday`).
pub fn reads_as_czech(text: &str) -> bool {
    let Evidence { czech, english } = evidence(text);
    czech > 0 && czech >= english
}

/// The evidence of every word of `text` (a word: a run of letters and digits, with an
/// apostrophe inside it kept, so `it's` is one English word and not `it` and the Czech
/// `s`). Words with a digit (`v2`, `H1`) are not words of either language.
pub fn evidence(text: &str) -> Evidence {
    let mut out = Evidence::default();
    let mut word = Word::default();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii() {
            let b = c as u8;
            if b.is_ascii_alphabetic() {
                word.capital |= word.len == 0 && b.is_ascii_uppercase();
                word.push(b.to_ascii_lowercase());
                continue;
            }
            if b.is_ascii_digit() {
                word.digit = true;
                word.len += 1;
                continue;
            }
            if b == b'\'' && word.len > 0 && chars.peek().is_some_and(|c| c.is_alphabetic()) {
                word.push(b'\'');
                continue;
            }
        } else if let Some(base) = fold_czech(c) {
            word.push(base);
            word.diacritics += 1;
            continue;
        } else if c == '\u{2019}' && word.len > 0 && chars.peek().is_some_and(|c| c.is_alphabetic())
        {
            word.push(b'\'');
            continue;
        } else if c.is_alphanumeric() {
            word.foreign = true;
            word.len += 1;
            continue;
        }
        word.finish(&mut out);
    }
    word.finish(&mut out);
    out
}

/// The word being read: its folded bytes packed big-endian while they fit.
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
    fn push(&mut self, byte: u8) {
        if self.len < 8 {
            self.key |= u64::from(byte) << (56 - 8 * self.len);
        }
        self.len += 1;
    }

    fn finish(&mut self, out: &mut Evidence) {
        if self.len > 0 {
            out.czech += 3 * self.diacritics.min(2);
            if self.len <= 8 && !self.digit && !self.foreign {
                let languages = match self.len == 1 && self.capital {
                    // The English article and pronoun begin a sentence as often as not;
                    // the Czech conjunctions mostly stand inside one, lowercase.
                    true if matches!(self.key >> 56, 0x61 | 0x69) => EN,
                    _ => lookup(self.key),
                };
                out.czech += 2 * u32::from(languages & CS != 0);
                out.english += 2 * u32::from(languages & EN != 0);
            }
        }
        *self = Word::default();
    }
}

/// The base letter of a Czech letter with a diacritic, lowercase.
fn fold_czech(c: char) -> Option<u8> {
    Some(match c {
        'á' | 'Á' => b'a',
        'č' | 'Č' => b'c',
        'ď' | 'Ď' => b'd',
        'é' | 'É' | 'ě' | 'Ě' => b'e',
        'í' | 'Í' => b'i',
        'ň' | 'Ň' => b'n',
        'ó' | 'Ó' => b'o',
        'ř' | 'Ř' => b'r',
        'š' | 'Š' => b's',
        'ť' | 'Ť' => b't',
        'ú' | 'Ú' | 'ů' | 'Ů' => b'u',
        'ý' | 'Ý' => b'y',
        'ž' | 'Ž' => b'z',
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

/// [`WORDS`] packed as [`Word`] packs a word, in the same order.
static KEYS: [u64; WORDS.len()] = {
    let mut keys = [0; WORDS.len()];
    let mut i = 0;
    while i < WORDS.len() {
        keys[i] = pack(WORDS[i].0.as_bytes());
        i += 1;
    }
    keys
};

const fn pack(word: &[u8]) -> u64 {
    assert!(word.len() <= 8, "a table word fits in eight bytes");
    let mut key = 0;
    let mut i = 0;
    while i < word.len() {
        key |= (word[i] as u64) << (56 - 8 * i);
        i += 1;
    }
    key
}

/// The languages of the folded word packed as `key`: `CS`, `EN`, both, or neither (0).
fn lookup(key: u64) -> u8 {
    KEYS.binary_search(&key).map_or(0, |i| WORDS[i].1)
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
        // Packing keeps the bytewise order: a search over the keys is one over the words.
        assert!(KEYS.windows(2).all(|k| k[0] < k[1]));
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
