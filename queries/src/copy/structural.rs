//! The `structural` segmenter: language- and kind-tagged spans for a file, computed from
//! its structure alone — deterministic, no model, no I/O. It is what `--offline` writes
//! and what the audit uses, provisionally, for a file whose entry is missing or stale.
//!
//! Each prose view of the file is tagged over its source text, and the tags are then made
//! as compact as the agent writes them ([`pieces`]):
//!
//! - **Language.** A key-path segment that is a language code (`meta.en.title`,
//!   `phases[2].cs.body`; a declared language, or one of [`LANGUAGE_CODES`]) gives the
//!   strings below it that language: how bilingual JSON and YAML are laid out, and how the
//!   agent tags them. Else the format's own hint (Markdown front matter `lang:`), else the
//!   project's (`paths.locale`), else the text itself, when it says clearly which language
//!   it is in ([`identify_view`]), else the default language. A language that is not declared
//!   is still the text's language: the audit runs no rule of it, which is the point.
//! - **Kind.** A string value that is not prose — an identifier, a slug, a path or URL, a
//!   colour, a time, an enum-like word — is `data` (language `unknown`): see
//!   [`looks_like_data`].
//!
//! What no view covers (markup, code, keys) is left as a gap: the audit reads gaps as the
//! default language, and no rule sees them anyway.

use crate::copy::extract::Format;
use crate::copy::lockfile::{Field, Kind, Span, SpanIndex};
use crate::copy::view::{View, ViewRole};

use crate::text::LineIndex;
use std::ops::Range;

/// What the structural segmenter knows of the project.
#[derive(Clone, Debug)]
pub struct Setup<'a> {
    /// The declared profiles' language codes (`extends`, else `language`).
    pub declared: &'a [String],
    /// The config's default language.
    pub default_language: &'a str,
    /// `paths.locale`'s language for this file, if a glob matches.
    pub locale: Option<&'a str>,
}

/// The structural spans of a file in `format` whose text is `text` and whose prose views
/// are `views` (extracted with path hints), sorted and disjoint, as a lockfile entry
/// holds them: see [`pieces`].
pub fn spans(format: Format, text: &str, views: &[View], setup: &Setup<'_>) -> Vec<Span> {
    spans_with(format, text, views, setup, &identify_view)
}

/// The structural spans as the audit reads them, for a file without a fresh entry: the
/// byte ranges of [`pieces`], never written as lines and columns.
pub fn span_index(format: Format, text: &str, views: &[View], setup: &Setup<'_>) -> SpanIndex {
    let pieces = pieces(format, text, views, setup, &identify_view);
    SpanIndex::from_ranges(pieces.iter().map(|p| (p.range.clone(), p.kind, p.language)))
}

/// A language identifier: the language a view's text is written in, when it can tell.
pub type Identifier<'i> = &'i dyn Fn(&View) -> Option<&'static str>;

/// Ours: the [language](crate::copy::language) of the view's evidence, counted once per
/// view and shared with the rules' Czech gate.
pub fn identify_view(view: &View) -> Option<&'static str> {
    view.evidence().language()
}

/// [`spans`] with another language identifier than [`identify_view`]: how the choice of ours
/// over a general-purpose crate is measured (`tests/structural_agreement.rs`).
pub fn spans_with(
    format: Format,
    text: &str,
    views: &[View],
    setup: &Setup<'_>,
    identify: Identifier<'_>,
) -> Vec<Span> {
    let index = LineIndex::new(text);
    pieces(format, text, views, setup, identify)
        .into_iter()
        .map(|piece| {
            let start = index.line_col(text, piece.range.start);
            let end = index
                .last_char_at(text, piece.range.end)
                .expect("a piece is never empty");
            Span {
                start_line: start.line,
                start_column: start.column,
                end_line: end.line,
                end_column: end.column,
                language: piece.language.to_owned(),
                kind: piece.kind,
                path_hint: piece
                    .path_hint
                    .map_or(Field::Null, |h| Field::Value(h.to_owned())),
                note: Field::Null,
            }
        })
        .collect()
}

/// One tagged stretch of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece<'a> {
    /// Bytes of the file, never empty, not ending in a line break.
    pub range: Range<usize>,
    pub language: &'a str,
    pub kind: Kind,
    pub path_hint: Option<&'a str>,
}

/// The tagged stretches of a file, sorted and disjoint, as compact as the agent writes
/// them: a stretch is kept only where it says what the extractor and the config's default
/// language do not.
///
/// Each prose view is tagged ([`language_of`], [`looks_like_data`]), one stretch over its
/// source text. Then:
///
/// - prose in the default language is left out (the audit reads a gap as the default
///   language); code is never a stretch (the extractor finds it again, and no rule reads
///   it);
/// - what is kept — prose in another language, `data` — merges with the kept stretch
///   before it when both have the same language, kind and path hint and nothing but code
///   and markup lies between (the paragraphs of an English file);
/// - running text (Markdown, plain text) with nothing kept is wholly in the default
///   language, and gets the one whole-file span the agent writes for such a file.
///
/// The audit reads every prose character of the compact stretches as it read the full
/// ones (`compact_stretches_tag_every_prose_character_alike`, and the agreement test on
/// the real trees). It reads neither the code inside a view, which compacting would merge
/// back, nor the code between views, which no span need cover.
pub fn pieces<'a>(
    format: Format,
    text: &str,
    views: &'a [View],
    setup: &Setup<'a>,
    identify: Identifier<'_>,
) -> Vec<Piece<'a>> {
    let mut out: Vec<Piece<'a>> = Vec::new();
    // Whether default-language prose lies between the last kept stretch and the next.
    let mut blocked = false;
    let tagged = tagged(format, text, views, setup, identify);
    let any_prose = !tagged.is_empty();
    for piece in tagged {
        if piece.kind == Kind::Prose && piece.language == setup.default_language {
            blocked = true;
            continue;
        }
        match out.last_mut() {
            Some(last)
                if !blocked
                    && (last.language, last.kind, last.path_hint)
                        == (piece.language, piece.kind, piece.path_hint) =>
            {
                last.range.end = piece.range.end;
            }
            _ => out.push(piece),
        }
        blocked = false;
    }
    let running_text = matches!(format, Format::Markdown | Format::Mdx | Format::Text);
    let end = text.trim_end_matches(['\n', '\r']).len();
    if running_text && out.is_empty() && any_prose && end > 0 {
        out.push(Piece {
            range: 0..end,
            language: setup.default_language,
            kind: Kind::Prose,
            path_hint: None,
        });
    }
    out
}

/// Each prose view's tagged stretch of the file, in order, trimmed of a final line break;
/// a view nested in the one before is left out (the enclosing stretch speaks for it).
/// The code inside a view is not cut out: [`full_pieces`] does that, and compacting
/// merges it back, so [`pieces`] never parses the file for its code.
fn tagged<'a>(
    format: Format,
    text: &str,
    views: &'a [View],
    setup: &Setup<'a>,
    identify: Identifier<'_>,
) -> Vec<Piece<'a>> {
    let structured = matches!(format, Format::Json | Format::Yaml);
    // Running text (Markdown, plain text) has a language of its own: the one most of its
    // identified text is in. A short paragraph or list item the words cannot settle
    // ("QR cards") takes it rather than the project's default. Each view is identified at
    // most once: in running text the file's language and each view's read one answer; in
    // structured files a view is identified only where its key path, hint and locale
    // leave the language open.
    let (identified, surroundings) = if structured {
        (Vec::new(), None)
    } else {
        let identified: Vec<Option<&'static str>> = views.iter().map(identify).collect();
        let surroundings = file_language(views, &identified);
        (identified, surroundings)
    };
    let setup = &Setup {
        default_language: surroundings.unwrap_or(setup.default_language),
        ..setup.clone()
    };
    let mut out: Vec<Piece<'a>> = Vec::with_capacity(views.len());
    let mut covered_to = 0;
    for (i, view) in views.iter().enumerate() {
        if view.text.trim().is_empty() {
            continue;
        }
        let range = view.source_range(0..view.text.len());
        let trimmed = text[range.clone()].trim_end_matches(['\n', '\r']);
        let range = range.start..range.start + trimmed.len();
        if range.start < covered_to || range.is_empty() {
            continue; // nested or empty: the enclosing span speaks for it
        }
        covered_to = range.end;
        let (language, kind) = if structured && looks_like_data(view) {
            ("unknown", Kind::Data)
        } else {
            let identified = || match identified.get(i) {
                Some(&known) => known,
                None => identify(view),
            };
            (
                language_of(view, structured, setup, identified),
                Kind::Prose,
            )
        };
        out.push(Piece {
            range,
            language,
            kind,
            path_hint: view.path_hint.as_deref(),
        });
    }
    out
}

/// Every tagged stretch of a file, one per view cut around the code inside it, and the
/// code: the definition [`pieces`] compacts, kept for the tests that hold the compact
/// pieces to it (on the real trees too: `tests/structural_agreement.rs`).
pub fn full_pieces<'a>(
    format: Format,
    text: &str,
    views: &'a [View],
    setup: &Setup<'a>,
    identify: Identifier<'_>,
) -> Vec<Piece<'a>> {
    let code = crate::copy::extract::code_ranges(format, text);
    let mut pieces: Vec<Piece<'a>> = Vec::new();
    for view in tagged(format, text, views, setup, identify) {
        let range = view.range.clone();
        let mut at = range.start;
        let inside = code
            .iter()
            .filter(|c| c.start < range.end && c.end > range.start);
        for cut in inside.chain([&(range.end..range.end)]) {
            let prose = at..cut.start.max(at).min(range.end);
            if !text[prose.clone()].trim().is_empty() {
                pieces.push(Piece {
                    range: prose,
                    ..view.clone()
                });
            }
            at = at.max(cut.end);
        }
    }
    pieces.extend(code.iter().map(|c| Piece {
        range: c.clone(),
        language: "unknown",
        kind: Kind::Code,
        path_hint: None,
    }));
    pieces.sort_by_key(|p| p.range.start);
    let mut out = Vec::with_capacity(pieces.len());
    let mut end_of_last = 0;
    for mut piece in pieces {
        // Without the line break a code block ends with, and never overlapping.
        let trimmed = text[piece.range.clone()].trim_end_matches(['\n', '\r']);
        piece.range.end = piece.range.start + trimmed.len();
        if piece.range.start < end_of_last || piece.range.is_empty() {
            continue;
        }
        end_of_last = piece.range.end;
        out.push(piece);
    }
    out
}

/// The language of a prose view: its key path, the format's hint, the project's locale,
/// the text (`identified`, what the identifier said of it), or the default — in that
/// order.
fn language_of<'s>(
    view: &'s View,
    structured: bool,
    setup: &Setup<'s>,
    identified: impl FnOnce() -> Option<&'static str>,
) -> &'s str {
    // Key paths are a structured file's (and front matter's); a Markdown view's hint is
    // its heading, which says nothing of a language.
    let keyed = |p: &&str| structured || p.starts_with("frontmatter.");
    if let Some(code) = view
        .path_hint
        .as_deref()
        .filter(keyed)
        .and_then(|p| path_language(p, setup.declared))
    {
        return code;
    }
    if let Some(hint) = view.lang_hint.as_deref() {
        return hint;
    }
    if let Some(locale) = setup.locale {
        return locale;
    }
    identified().unwrap_or(setup.default_language)
}

/// The language most of the identified text of `views` is in, by characters
/// (`identified[i]` is what the identifier said of `views[i]`).
fn file_language(views: &[View], identified: &[Option<&'static str>]) -> Option<&'static str> {
    let mut counts: Vec<(&'static str, usize)> = Vec::new();
    for (view, identified) in views.iter().zip(identified) {
        if let &Some(language) = identified {
            match counts.iter_mut().find(|(l, _)| *l == language) {
                Some((_, n)) => *n += view.text.len(),
                None => counts.push((language, view.text.len())),
            }
        }
    }
    counts.into_iter().max_by_key(|&(_, n)| n).map(|(l, _)| l)
}

/// Language codes a key-path segment may be, besides the declared ones: common ISO 639-1
/// codes that are not also common key names (`id`, `no`, `is`, `to` are left out).
pub const LANGUAGE_CODES: &[&str] = &[
    "ar", "bg", "cs", "da", "de", "el", "en", "es", "et", "fi", "fr", "he", "hr", "hu", "it", "ja",
    "ko", "lt", "lv", "nl", "pl", "pt", "ro", "ru", "sk", "sl", "sr", "sv", "tr", "uk", "vi", "zh",
];

/// The last segment of a key path (`phases[2].cs.body`) that is a language code.
fn path_language<'s>(path: &'s str, declared: &[String]) -> Option<&'s str> {
    path.split(['.', '[', ']'])
        .rfind(|segment| declared.iter().any(|d| d == segment) || LANGUAGE_CODES.contains(segment))
}

/// Keys whose values are machine-read, whatever they look like.
const DATA_KEYS: &[&str] = &[
    "id",
    "ids",
    "type",
    "kind",
    "slug",
    "key",
    "icon",
    "href",
    "url",
    "src",
    "uri",
    "ref",
    "variant",
    "color",
    "colour",
    "class",
    "className",
    "style",
    "locale",
    "lang",
    "format",
];

/// Whether a string value is data rather than prose: under a key in [`DATA_KEYS`] (or one
/// ending in `Id`, `Type`, `Key`, `Url`), or a single token that no reader reads as a
/// sentence — a slug or identifier (`code-review-helper`, `opening_framing`,
/// `chromePreset`), a path or URL, a colour, a time or number, or a lowercase ASCII word
/// (the enum values of a config: `hero`, `minimal`).
pub fn looks_like_data(view: &View) -> bool {
    if view.role != ViewRole::Text {
        return false;
    }
    let key = view.path_hint.as_deref().and_then(|p| {
        p.rsplit(['.', '[', ']'])
            .find(|s| !s.is_empty() && !s.bytes().all(|b| b.is_ascii_digit()))
    });
    if let Some(key) = key
        && (DATA_KEYS.contains(&key)
            || ["Id", "Type", "Key", "Url", "Ids"]
                .iter()
                .any(|s| key.ends_with(s)))
    {
        return true;
    }
    let text = view.text.trim();
    if text.chars().any(char::is_whitespace) {
        return false;
    }
    let token = |c: char| c.is_ascii_alphanumeric() || "-_./:#@+=?&%~".contains(c);
    if !text.chars().all(token) {
        return false; // a word with diacritics, punctuation of prose: a word of text
    }
    let lowercase_word = text.bytes().all(|b| b.is_ascii_lowercase());
    // A separator between two characters of the token (`a-b`, `a/b.md`, `x=1`), or a
    // leading `#`, `/`, `@` or `.` (a colour, an absolute path, a handle): a sentence's own
    // full stop, at its end, is neither.
    let bytes = text.as_bytes();
    let joined = text.starts_with(['#', '/', '@', '.'])
        || bytes.windows(3).any(|w| {
            w[0].is_ascii_alphanumeric()
                && b"-_/.:#@=".contains(&w[1])
                && (w[2].is_ascii_alphanumeric() || w[2] == b'/')
        });
    let camel = text.starts_with(|c: char| c.is_ascii_lowercase())
        && text.contains(|c: char| c.is_ascii_uppercase());
    let numeric =
        text.bytes().any(|b| b.is_ascii_digit()) && !text.bytes().any(|b| b.is_ascii_alphabetic());
    lowercase_word || joined || camel || numeric
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy::extract::extract;

    fn langs() -> Vec<String> {
        vec!["cs".to_owned(), "en".to_owned()]
    }

    fn setup(declared: &[String]) -> Setup<'_> {
        Setup {
            declared,
            default_language: "cs",
            locale: None,
        }
    }

    /// `(range, language, kind)` of pieces, for comparing.
    fn tags<'a>(pieces: &[Piece<'a>]) -> Vec<(Range<usize>, &'a str, Kind)> {
        pieces
            .iter()
            .map(|p| (p.range.clone(), p.language, p.kind))
            .collect()
    }

    #[test]
    fn json_strings_take_their_key_paths_language_and_data_is_data() {
        let text = r#"{
  "meta": {
    "en": { "title": "Harness Lab", "subtitle": "A workshop on agents" },
    "cs": { "title": "Harness Lab", "subtitle": "Workshop o agentech" }
  },
  "blocks": [ { "id": "code-review-helper", "type": "hero", "time": "09:10" } ]
}
"#;
        let views = extract(Format::Json, text).unwrap();
        let declared = langs();
        let spans = spans(Format::Json, text, &views, &setup(&declared));
        let tags: Vec<(&str, Kind, String)> = spans
            .iter()
            .map(|s| {
                let hint = s.path_hint.value().cloned().unwrap_or_default();
                (s.language.as_str(), s.kind, hint)
            })
            .collect();
        // The Czech strings are in the default language: a gap says so.
        assert_eq!(
            tags,
            [
                ("en", Kind::Prose, "meta.en.title".to_owned()),
                ("en", Kind::Prose, "meta.en.subtitle".to_owned()),
                ("unknown", Kind::Data, "blocks[0].id".to_owned()),
                ("unknown", Kind::Data, "blocks[0].type".to_owned()),
                ("unknown", Kind::Data, "blocks[0].time".to_owned()),
            ]
        );
        // The span is the string's content, line and UTF-16 columns.
        assert_eq!((spans[0].start_line, spans[0].start_column), (3, 23));
        assert_eq!((spans[0].end_line, spans[0].end_column), (3, 33));
        let full = full_pieces(
            Format::Json,
            text,
            &views,
            &setup(&declared),
            &identify_view,
        );
        let languages: Vec<&str> = full.iter().map(|p| p.language).collect();
        assert_eq!(
            languages,
            ["en", "en", "cs", "cs", "unknown", "unknown", "unknown"]
        );
    }

    #[test]
    fn markdown_paragraphs_are_identified_by_their_words() {
        let text = "# Úvod\n\nDnes se podíváme na to, jak pracovat s agenty.\n\n\
                    The agent reads the repository and writes a plan.\n\nHarness Lab\n";
        let views = extract(Format::Markdown, text).unwrap();
        let declared = langs();
        let full = full_pieces(
            Format::Markdown,
            text,
            &views,
            &setup(&declared),
            &identify_view,
        );
        let languages: Vec<&str> = full.iter().map(|p| p.language).collect();
        // A name says nothing: the language of most of the file.
        assert_eq!(languages, ["cs", "cs", "en", "cs"]);
        // Compact: only the English paragraph says what the default does not.
        let english_paragraph = text.find("The agent").unwrap();
        let compact = pieces(
            Format::Markdown,
            text,
            &views,
            &setup(&declared),
            &identify_view,
        );
        assert_eq!(
            tags(&compact),
            [(english_paragraph..english_paragraph + 49, "en", Kind::Prose)]
        );
        // An English file: its paragraphs merge across the markup between them.
        let english =
            "# Materials\n\nThis directory is for the assets of the workshop.\n\n- QR cards\n";
        let views = extract(Format::Markdown, english).unwrap();
        let compact = pieces(
            Format::Markdown,
            english,
            &views,
            &setup(&declared),
            &identify_view,
        );
        assert_eq!(tags(&compact), [(2..english.len() - 1, "en", Kind::Prose)]);
        let with_locale = Setup {
            locale: Some("en"),
            ..setup(&declared)
        };
        let views = extract(Format::Markdown, text).unwrap();
        let compact = pieces(Format::Markdown, text, &views, &with_locale, &identify_view);
        assert_eq!(tags(&compact), [(2..text.len() - 1, "en", Kind::Prose)]);
    }

    #[test]
    fn code_splits_prose_and_is_code() {
        // The prompt's worked example, and a fenced block.
        let text = "Spusťte `npm install` a pak pokračujte.\n\n```sh\nnpm test\n```\n";
        let views = extract(Format::Markdown, text).unwrap();
        let declared = langs();
        let full = full_pieces(
            Format::Markdown,
            text,
            &views,
            &setup(&declared),
            &identify_view,
        );
        let prose = text.find(" a pak").unwrap();
        assert_eq!(
            tags(&full),
            [
                (0..text.find('`').unwrap(), "cs", Kind::Prose),
                (text.find('`').unwrap()..prose, "unknown", Kind::Code),
                (prose..text.find(".\n").unwrap() + 1, "cs", Kind::Prose),
                (
                    text.find("```").unwrap()..text.len() - 1,
                    "unknown",
                    Kind::Code
                ),
            ]
        );
        // Wholly Czech: the one whole-file span the agent writes.
        let spans = spans(Format::Markdown, text, &views, &setup(&declared));
        let got: Vec<_> = spans
            .iter()
            .map(|s| {
                let at = (s.start_line, s.start_column, s.end_line, s.end_column);
                (at, s.language.as_str(), s.kind)
            })
            .collect();
        assert_eq!(got, [((1, 1, 5, 3), "cs", Kind::Prose)]);
        crate::copy::lockfile::fit_spans_for_add(text, &LineIndex::new(text), &spans)
            .expect("valid as an entry");
    }

    #[test]
    fn an_english_paragraph_split_by_code_is_one_span() {
        let text = "# Úvod\n\nDnes se podíváme na to, jak pracovat s agenty.\n\n\
                    Run `npm test` and then the agent writes the plan.\n";
        let views = extract(Format::Markdown, text).unwrap();
        let declared = langs();
        let compact = pieces(
            Format::Markdown,
            text,
            &views,
            &setup(&declared),
            &identify_view,
        );
        let start = text.find("Run").unwrap();
        assert_eq!(tags(&compact), [(start..text.len() - 1, "en", Kind::Prose)]);
    }

    #[test]
    fn script_strings_are_identified_by_their_words() {
        let text =
            "const a = 'Jdu do lesa a pak domů.';\nconst b = 'This is the plan for the day.';\n";
        let views = extract(Format::Script, text).unwrap();
        let declared = langs();
        let full = full_pieces(
            Format::Script,
            text,
            &views,
            &setup(&declared),
            &identify_view,
        );
        let languages: Vec<&str> = full.iter().map(|p| p.language).collect();
        assert_eq!(languages, ["cs", "en"]);
        // Code is no running text: a wholly Czech script file gets no span at all.
        let compact = pieces(
            Format::Script,
            text,
            &views,
            &setup(&declared),
            &identify_view,
        );
        assert_eq!(compact.len(), 1);
        assert_eq!(
            &text[compact[0].range.clone()],
            "This is the plan for the day."
        );
        let czech = "const a = 'Jdu do lesa a pak domů.';\n";
        let views = extract(Format::Script, czech).unwrap();
        assert!(
            pieces(
                Format::Script,
                czech,
                &views,
                &setup(&declared),
                &identify_view
            )
            .is_empty()
        );
    }

    /// What the audit does with a prose character: no rule (code, data), or one language's.
    fn class(index: &SpanIndex, at: usize, default: &str) -> Option<String> {
        match index.at(at) {
            None => Some(default.to_owned()),
            Some((Kind::Code | Kind::Data, _)) => None,
            Some((_, language)) => Some(language.to_owned()),
        }
    }

    /// Compact pieces tag every prose character as the full ones do.
    pub(crate) fn assert_compact_is_equivalent(format: Format, text: &str, setup: &Setup<'_>) {
        let views = extract(format, text).unwrap();
        let index = |pieces: Vec<Piece<'_>>| {
            SpanIndex::from_ranges(pieces.iter().map(|p| (p.range.clone(), p.kind, p.language)))
        };
        let full = index(full_pieces(format, text, &views, setup, &identify_view));
        let compact = index(pieces(format, text, &views, setup, &identify_view));
        for view in &views {
            for (i, c) in view.text.char_indices() {
                if c == '\u{FFFC}' {
                    continue; // the placeholder of inline code: no prose character
                }
                let at = view.source_offset(i);
                let default = setup.default_language;
                assert_eq!(
                    class(&compact, at, default),
                    class(&full, at, default),
                    "{format:?} at {at} of {text:?}"
                );
            }
        }
    }

    #[test]
    fn compact_stretches_tag_every_prose_character_alike() {
        let declared = langs();
        let texts = [
            (
                Format::Markdown,
                "# Úvod\n\nDnes se podíváme na to, jak pracovat s agenty.\n\n\
                The agent reads the repository and writes a plan.\n\nHarness Lab\n",
            ),
            (
                Format::Markdown,
                "Run `npm test` and the agent writes `plan.md` for you.\n\n\
                A pak `npm` spusťte znovu.\n\n| a | b |\n|---|---|\n| the plan | je tu |\n",
            ),
            (
                Format::Json,
                r#"{"en": {"a": "The plan for the day", "b": "and the next"}, "cs": {"a": "Plán"}, "id": "x-y"}"#,
            ),
            (
                Format::Script,
                "const a = 'Jdu do lesa a pak domů.';\nconst b = 'This is the plan for the day.';\n",
            ),
        ];
        for (format, text) in texts {
            assert_compact_is_equivalent(format, text, &setup(&declared));
        }
    }

    #[test]
    fn data_looks_like_tokens_not_sentences() {
        let view = |text: &str, hint: &str| {
            let json = format!("{{\"{hint}\": {}}}", serde_json::to_string(text).unwrap());
            extract(Format::Json, &json).unwrap().remove(0)
        };
        for (text, hint) in [
            ("code-review-helper", "x"),
            ("hero", "x"),
            ("content/a.md", "x"),
            ("https://example.com/a", "x"),
            ("#ff0000", "x"),
            ("09:10", "x"),
            ("chromePreset", "x"),
            ("Anything at all", "id"),
            ("Brief", "sceneType"),
        ] {
            assert!(looks_like_data(&view(text, hint)), "{text} under {hint}");
        }
        for (text, hint) in [
            ("Harness Lab", "title"),
            ("Úvod", "title"),
            ("Opening", "label"),
            ("úvod", "x"),
            ("Hotovo.", "x"),
        ] {
            assert!(!looks_like_data(&view(text, hint)), "{text} under {hint}");
        }
    }
}
