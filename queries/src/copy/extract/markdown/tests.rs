//! Tests of Markdown and MDX extraction, kept apart from the extractor's code.

use super::headings::Headings;
use super::urls::{bare_urls, is_word_char, url_end};
use super::*;
use crate::copy::extract::draft::Edit;
use crate::copy::extract::testing::{assert_maps_back, hints, src_of, texts};
use crate::copy::extract::{Draft, OBJECT};
use crate::copy::view::ViewRole;
use proptest::prelude::*;

/// Bare URLs found by testing every prefix at every byte: the definition.
fn bare_urls_everywhere(text: &str) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let prefix = ["https://", "http://", "ftp://", "www."]
            .into_iter()
            .find(|p| text.as_bytes()[i..].starts_with(p.as_bytes()));
        if let Some(prefix) = prefix
            && (i == 0 || !text[..i].chars().next_back().is_some_and(is_word_char))
            && let Some(end) = url_end(text, i, prefix.len())
        {
            found.push(i..end);
            i = end;
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    found
}

const URL_PIECES: &[&str] = &[
    "https://", "http://", "ftp://", "www.", "://", "x.cz", " ", "a", "(", ")", ".", "h", "w", "/",
    ":", "é", "\u{fffc}", "<",
];

proptest! {
    #[test]
    fn bare_urls_are_the_prefixes_found_anywhere(
        picks in proptest::collection::vec(0..URL_PIECES.len(), 0..24),
    ) {
        let text: String = picks.iter().map(|&i| URL_PIECES[i]).collect();
        let mut draft = Draft::new();
        draft.verbatim(&text, 0);
        let replaced = bare_urls(draft);
        let mut expected = Draft::new();
        expected.verbatim(&text, 0);
        let edits: Vec<Edit> = bare_urls_everywhere(&text)
            .into_iter()
            .map(|range| Edit { range, with: Some(OBJECT) })
            .collect();
        prop_assert_eq!(replaced, expected.apply(&edits));
    }
}

fn md(src: &str) -> Vec<View> {
    let views = extract(src, false, PathHints::With).unwrap();
    assert_maps_back(src, &views);
    views
}

/// A URL prefix with nothing after it stays prose; it used to end the audit with a
/// panic, the trailing full stop reaching back into `www.`.
#[test]
fn a_prefix_alone_is_not_a_url() {
    let views = md("Navštivte www. dnes, nebo http://. Díky.\n");
    assert_eq!(texts(&views), ["Navštivte www. dnes, nebo http://. Díky."]);
}

fn mdx(src: &str) -> Vec<View> {
    let views = extract(src, true, PathHints::With).unwrap();
    assert_maps_back(src, &views);
    views
}

#[test]
fn inline_markup_does_not_split_a_sentence() {
    let src = "Jdu v **lese** a _dál_ ~~pryč~~.\n";
    let v = md(src);
    assert_eq!(texts(&v), ["Jdu v lese a dál pryč."]);
    assert_eq!(src_of(src, &v[0], "v lese"), "v **lese");
    assert_eq!(src_of(src, &v[0], "lese"), "lese");
}

#[test]
fn a_soft_break_is_one_opaque_newline_over_the_indentation() {
    let src = "Jdu v\n   lese a\r\n\tz\n";
    let v = md(src);
    assert_eq!(v[0].text, "Jdu v\nlese a\nz");
    let nl = v[0].text.find('\n').unwrap();
    assert_eq!(v[0].source_range(nl..nl + 1), 5..9);
    assert!(!v[0].is_verbatim(nl..nl + 1));
    assert_eq!(src_of(src, &v[0], "a\nz"), "a\r\n\tz");
    // Trailing blanks before the line ending are part of the break too.
    let src = "v\t\nlese\n";
    let v = md(src);
    assert_eq!(v[0].text, "v\nlese");
    assert_eq!(src_of(src, &v[0], "\n"), "\t\n");
    let src = "v \nlese\n";
    assert_eq!(src_of(src, &md(src)[0], "\n"), " \n");
}

#[test]
fn hard_breaks() {
    let src = "a  \n  b\\\nc\n";
    let v = md(src);
    assert_eq!(v[0].text, "a\u{2028}b\u{2028}c");
    assert_eq!(src_of(src, &v[0], "\u{2028}b"), "  \n  b");
    assert_eq!(src_of(src, &v[0], "\u{2028}c"), "\\\nc");
}

#[test]
fn code_html_and_link_destinations_are_not_prose() {
    let src = "\
Run `cargo test` now <b>v</b> [odkaz](https://x.cz \"Titulek\") ![obr *x*](a.png).

```rust
let v = \"lese\";
```

    indented code

<div>
HTML block
</div>

Mail <a@b.cz>, <https://a.b/c>, https://c.d/e_f. and www.example.com!
Math $x^2$ and $$y$$.
";
    let v = md(src);
    assert_eq!(
        texts(&v),
        [
            "Run \u{FFFC} now v odkaz obr x.",
            "Mail \u{FFFC}, \u{FFFC}, \u{FFFC}. and \u{FFFC}!\nMath \u{FFFC} and \u{FFFC}."
        ]
    );
    assert_eq!(src_of(src, &v[0], "\u{FFFC}"), "`cargo test`");
    assert_eq!(
        src_of(src, &v[1], "\u{FFFC}, \u{FFFC}, "),
        "<a@b.cz>, <https://a.b/c>, "
    );
    let url = src_of(src, &v[1], "\u{FFFC}. and");
    assert_eq!(url, "https://c.d/e_f. and");
    assert_eq!(src_of(src, &v[1], "\u{FFFC}!"), "www.example.com!");
}

#[test]
fn escapes_and_entities_are_opaque() {
    let src = "a \\*b\\* &amp; &nbsp;c &#233; \\\\d\n";
    let v = md(src);
    assert_eq!(v[0].text, "a *b* & \u{a0}c é \\d");
    assert_eq!(src_of(src, &v[0], "*b"), "\\*b");
    assert_eq!(src_of(src, &v[0], "b*"), "b\\*");
    assert_eq!(src_of(src, &v[0], "&"), "&amp;");
    assert_eq!(src_of(src, &v[0], "\u{a0}c"), "&nbsp;c");
    assert_eq!(src_of(src, &v[0], "é"), "&#233;");
    assert_eq!(src_of(src, &v[0], "\\d"), "\\\\d");
    let star = v[0].text.find('*').unwrap();
    assert!(!v[0].is_verbatim(star..star + 1));
}

#[test]
fn headings_mark_their_first_character_and_build_paths() {
    let src = "\
Intro text.

# Úvod *kurzu*

  ## Setup {#setup}

Body.

Setext `code`
---

### Prerequisites

Deep.

# Second
";
    let v = md(src);
    assert_eq!(
        texts(&v),
        [
            "Intro text.",
            "Úvod kurzu",
            "Setup",
            "Body.",
            "Setext \u{FFFC}",
            "Prerequisites",
            "Deep.",
            "Second"
        ]
    );
    assert_eq!(
        hints(&v),
        [
            None,
            Some("# Úvod kurzu"),
            Some("# Úvod kurzu > ## Setup"),
            Some("# Úvod kurzu > ## Setup"),
            Some("# Úvod kurzu > ## Setext code"),
            Some("# Úvod kurzu > ## Setext code > ### Prerequisites"),
            Some("# Úvod kurzu > ## Setext code > ### Prerequisites"),
            Some("# Second"),
        ]
    );
    let marker = |i: usize| match v[i].role {
        ViewRole::Heading { marker, level } => (marker as usize, level),
        ViewRole::Text => panic!("not a heading"),
    };
    assert_eq!(marker(1), (src.find("# Úvod").unwrap(), 1));
    assert_eq!(marker(2), (src.find("## Setup").unwrap(), 2));
    assert_eq!(marker(4), (src.find("Setext").unwrap(), 2));
    assert_eq!(v[0].role, ViewRole::Text);
}

proptest! {
    /// The path after each heading is the labels of the open headings joined, each
    /// `#` times its level and its words: a heading closes those of its level and
    /// deeper.
    #[test]
    fn a_heading_path_is_the_open_labels_joined(
        headings in proptest::collection::vec(
            (1u8..=6, prop::sample::select(&["A", " b  c ", "Úvod\tkurzu", "", "x\u{a0}y"][..])),
            1..12,
        ),
    ) {
        let mut path = Headings::new(PathHints::With);
        let mut open: Vec<(u8, String)> = Vec::new();
        for (level, text) in headings {
            path.enter(level, text);
            open.retain(|(l, _)| *l < level);
            let words: Vec<&str> = text.split_whitespace().collect();
            let label = std::iter::once("#".repeat(usize::from(level)))
                .chain(words.iter().map(|w| format!(" {w}")))
                .collect::<String>();
            open.push((level, label));
            let labels: Vec<&str> = open.iter().map(|(_, l)| l.as_str()).collect();
            let expected = labels.join(" > ");
            prop_assert_eq!(path.path.as_deref(), Some(expected.as_str()));
        }
    }
}

#[test]
fn lists_quotes_tables_and_footnotes() {
    let src = "\
- první **bod**
- druhý
  - vnořený
- [ ] úkol

1. loose

   second para

> citát
> dál

| a | b \\| c |
|---|---|
| `x` y | z |

Text[^1].

[^1]: Poznámka.
";
    let v = md(src);
    assert_eq!(
        texts(&v),
        [
            "první bod",
            "druhý",
            "vnořený",
            "úkol",
            "loose",
            "second para",
            "citát\ndál",
            "a",
            "b | c",
            "\u{FFFC} y",
            "z",
            "Text.",
            "Poznámka."
        ]
    );
    assert_eq!(src_of(src, &v[8], "| c"), "\\| c");
    assert_eq!(src_of(src, &v[6], "\ndál"), "\n> dál");
}

#[test]
fn front_matter_becomes_views_and_a_language_hint() {
    let src = "---\ntitle: Úvod do kurzu\nlang: cs\ntags:\n  - první\nmeta:\n  a: b\n---\n# Nadpis\n\nText v lese.\n\n---\n\nKonec.\n";
    let v = md(src);
    assert_eq!(
        texts(&v),
        [
            "Úvod do kurzu",
            "cs",
            "první",
            "b",
            "Nadpis",
            "Text v lese.",
            "Konec."
        ]
    );
    assert_eq!(
        hints(&v)[..4],
        [
            Some("frontmatter.title"),
            Some("frontmatter.lang"),
            Some("frontmatter.tags[0]"),
            Some("frontmatter.meta.a")
        ]
    );
    assert_eq!(v[0].lang_hint, None);
    for body in &v[4..] {
        assert_eq!(body.lang_hint.as_deref(), Some("cs"));
    }
    assert_eq!(src_of(src, &v[0], "do kurzu"), "do kurzu");
}

#[test]
fn front_matter_needs_its_delimiters() {
    // A leading thematic break with a blank line after it is not front matter.
    let v = md("---\n\nText.\n\n---\n");
    assert_eq!(texts(&v), ["Text."]);
    // Unclosed: Markdown all the way.
    let v = md("---\ntitle: x\n");
    assert_eq!(texts(&v), ["title: x"]);
    // `...` closes, CRLF works, a BOM is not text.
    let src = "\u{FEFF}---\r\ntitle: a\r\n...\r\nBody\r\nnext\r\n";
    let v = md(src);
    assert_eq!(texts(&v), ["a", "Body\nnext"]);
    assert_eq!(src_of(src, &v[1], "\n"), "\r\n");
}

#[test]
fn broken_front_matter_is_an_error_at_its_offset() {
    let src = "---\ntitle: a: b\n---\nBody\n";
    let e = extract(src, false, PathHints::With).unwrap_err();
    assert!(e.message.contains("YAML"), "{e:?}");
    assert!(e.offset > 4 && e.offset < 16, "{e:?}");
}

#[test]
fn crlf_documents() {
    let src = "# Nadpis\r\n\r\nJdu v\r\n  lese.\r\n\r\n- a\r\n- b\r\n";
    let v = md(src);
    assert_eq!(texts(&v), ["Nadpis", "Jdu v\nlese.", "a", "b"]);
    assert_eq!(src_of(src, &v[1], "\n"), "\r\n  ");
    for view in &v {
        assert!(!view.text.contains('\r'));
    }
}

#[test]
fn mdx_imports_expressions_and_jsx() {
    let src = "\
import { Card } from './card'
export const meta = { title: 'x' }

# Ahoj {props.name}

Text v <Badge>novém</Badge> {count} okně {/* komentář */} a <Tip x={a + b}>tip</Tip>.

<Card title=\"Titulek\">
  Uvnitř *karty* {value}.
</Card>

Konec.
";
    let v = mdx(src);
    assert_eq!(
        texts(&v),
        [
            "Ahoj \u{FFFC}",
            "Text v novém \u{FFFC} okně  a tip.",
            "Titulek",
            "Uvnitř karty \u{FFFC}.",
            "Konec."
        ]
    );
    assert_eq!(src_of(src, &v[1], "\u{FFFC}"), "{count}");
    assert_eq!(v[3].path_hint.as_deref(), Some("# Ahoj {props.name}"));
    // Markdown inside a JSX block is read too, and maps back through the block.
    assert_eq!(src_of(src, &v[3], "karty"), "karty");
    assert_eq!(src_of(src, &v[3], "Uvnitř karty"), "Uvnitř *karty");
    let src = "<Tip>\n  A \\*b\\* `c`.\n</Tip>\n";
    let v = mdx(src);
    assert_eq!(texts(&v), ["A *b* \u{FFFC}."]);
    assert_eq!(src_of(src, &v[0], "*b"), "\\*b");
    assert_eq!(src_of(src, &v[0], "\u{FFFC}"), "`c`");
}

#[test]
fn markdown_keeps_braces_and_skips_html_blocks() {
    let v = md("Set {a} here.\n\n<Card>\nText\n</Card>\n");
    assert_eq!(texts(&v), ["Set {a} here."]);
}
