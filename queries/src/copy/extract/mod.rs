//! Extraction: from a file's text to the prose views a reader sees.
//!
//! Every format follows the same conventions, because the rules rely on them:
//!
//! - Text copied byte for byte from the source is a verbatim piece; anything decoded (an
//!   escape, an entity, a folded or normalised line break) is one opaque piece covering the
//!   whole source construct, so a fix can never cut an escape in half.
//! - A line break inside running text is an opaque `"\n"` covering the line ending (and a
//!   `\r` before it), trailing blanks before it and the next line's indentation, so a fix
//!   that replaces it with a no-break space joins the lines. A Markdown hard break is
//!   `"\u{2028}"`.
//! - A non-prose token inside prose (inline code, a URL, an MDX or template expression) is
//!   `"\u{FFFC}"` over the whole token, so the sentence around it is not glued together.
//! - Markup that carries no text (emphasis markers, tags) is simply not in the view.
//! - Views are returned in source order; a view holding nothing but blanks and
//!   placeholders is dropped.

mod draft;
mod json;
mod markdown;
mod path;
mod plain;
mod script;
mod yaml;

use crate::copy::view::View;
use std::fmt;

pub(crate) use draft::Draft;

/// Placeholder for a non-prose token inside prose.
pub(crate) const OBJECT: &str = "\u{FFFC}";
/// A line break that is not a breakable space (Markdown hard break, `<br>`).
pub(crate) const HARD_BREAK: &str = "\u{2028}";

/// The file formats extraction understands, chosen by file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    Markdown,
    Mdx,
    Json,
    Yaml,
    /// TypeScript, JavaScript and their JSX flavours.
    Script,
    /// Anything else: the whole file is prose.
    Text,
}

impl Format {
    /// The format of a file, from its extension (case-insensitive).
    pub fn from_path(path: &str) -> Format {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let Some((stem, ext)) = name.rsplit_once('.') else {
            return Format::Text;
        };
        if stem.is_empty() {
            // A dotfile such as `.json` has no extension, only a name.
            return Format::Text;
        }
        match ext.to_ascii_lowercase().as_str() {
            "md" | "markdown" => Format::Markdown,
            "mdx" => Format::Mdx,
            "json" => Format::Json,
            "yaml" | "yml" => Format::Yaml,
            "ts" | "tsx" | "js" | "jsx" | "mjs" | "cjs" | "mts" | "cts" => Format::Script,
            _ => Format::Text,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Mdx => "mdx",
            Format::Json => "json",
            Format::Yaml => "yaml",
            Format::Script => "script",
            Format::Text => "text",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A file that cannot be read as its format (invalid JSON or YAML, broken front matter).
///
/// `message` is one lowercase sentence without a trailing full stop and without the file
/// name, so the caller can prefix `path:line:column: `.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExtractError {
    /// Source byte offset of the problem.
    pub offset: usize,
    pub message: String,
}

impl ExtractError {
    pub(crate) fn new(offset: usize, message: impl Into<String>) -> Self {
        ExtractError {
            offset,
            message: message.into(),
        }
    }
}

impl fmt::Display for ExtractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ExtractError {}

/// Whether views carry their path hints (`items[3].cs.body`, `## Setup`).
///
/// An audit does not read them: rules see a view's text, and findings report source
/// positions. Making them was 82 M of the cold 10k run's 4.56 G instructions (a copy of
/// the heading path for every Markdown view, a key path formatted for every JSON
/// string), so the engine extracts without them. Front matter keeps its hints either
/// way: its `lang` is found by its hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathHints {
    With,
    Without,
}

impl PathHints {
    fn wanted(self) -> bool {
        self == PathHints::With
    }

    /// The hint of a value at `steps` below `root`, if hints are wanted.
    fn of(self, root: Option<&str>, steps: &[path::Step<'_>]) -> Option<String> {
        if self.wanted() {
            path::format(root, steps)
        } else {
            None
        }
    }
}

/// The prose views of `text` read as `format`, in source order, with their path hints.
/// Where a Markdown or MDX file holds code or markup (see `markdown::code_ranges`); none
/// for other formats.
pub fn code_ranges(format: Format, text: &str) -> Vec<std::ops::Range<usize>> {
    match format {
        Format::Markdown => markdown::code_ranges(text, false),
        Format::Mdx => markdown::code_ranges(text, true),
        _ => Vec::new(),
    }
}

pub fn extract(format: Format, text: &str) -> Result<Vec<View>, ExtractError> {
    extract_views(format, text, PathHints::With)
}

/// [`extract`], with or without the views' path hints.
pub fn extract_views(
    format: Format,
    text: &str,
    hints: PathHints,
) -> Result<Vec<View>, ExtractError> {
    let mut views = match format {
        Format::Markdown => markdown::extract(text, false, hints)?,
        Format::Mdx => markdown::extract(text, true, hints)?,
        Format::Json => json::extract(text, hints)?,
        Format::Yaml => yaml::extract(text, hints)?,
        Format::Script => script::extract(text),
        Format::Text => plain::extract(text),
    };
    // Extractors emit a container's view after the views nested inside it (a template
    // literal after the strings in its `${}`); reports want source order. Most files'
    // views are in order already, and a stable sort of them would only copy them.
    if !views.is_sorted_by_key(|v| v.source_offset(0)) {
        views.sort_by_key(|v| v.source_offset(0));
    }
    Ok(views)
}

/// Length of a UTF-8 byte order mark at the start of `text`, which no format treats as text.
pub(crate) fn bom_len(text: &str) -> usize {
    if text.starts_with('\u{FEFF}') { 3 } else { 0 }
}

#[cfg(test)]
pub(crate) mod testing;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use testing::assert_maps_back;

    /// Pieces of Markdown, MDX, JSON, YAML and script syntax, to be shuffled together.
    const FRAGMENTS: &[&str] = &[
        "#",
        "# ",
        "##",
        "*",
        "**",
        "_",
        "`",
        "```",
        "~~~",
        "\\",
        "\\*",
        "&amp;",
        "&nbsp;",
        "&#233;",
        "&#x1F600;",
        "&bogus;",
        "[",
        "]",
        "(",
        ")",
        "![",
        "<b>",
        "</b>",
        "<br>",
        "<div>",
        "<Card x={a}>",
        "</Card>",
        "<>",
        "\n",
        "\r\n",
        "\n\n",
        "  ",
        "    ",
        "\t",
        ">",
        "- ",
        "1. ",
        "|",
        "|---|",
        "$",
        "$$",
        "é",
        "ž",
        "😀",
        "https://x.cz/a",
        "www.a.cz",
        "www.",
        "http://",
        "ftp://",
        ".",
        "<https://a.b>",
        "---",
        "...",
        "{",
        "}",
        "{x}",
        "{/* c */}",
        "import x",
        "export ",
        "lang: cs",
        "title: ",
        ": ",
        "'",
        "''",
        "\"",
        "v ",
        "a",
        "[^1]",
        "[^1]: ",
        "~",
        "text",
        "${",
        "/",
        "//",
        "/*",
        "*/",
        "=",
        "return ",
        "<p>",
        "</p>",
        "\\u00e9",
        "\\uD83D\\uDE00",
        "\\n",
        ",",
        "key: ",
        "|",
        ">-",
        "&a ",
        "*a",
        "? ",
        "!!str ",
        "1",
        "true",
        "null",
        "<code>",
        "</code>",
        "\u{FEFF}",
        "\r",
    ];

    fn noise() -> impl Strategy<Value = String> {
        let body =
            prop::collection::vec(prop::sample::select(FRAGMENTS), 0..40).prop_map(|p| p.concat());
        let front = prop_oneof![
            Just(""),
            Just("---\ntitle: Úvod\nlang: cs\n---\n"),
            Just("\u{FEFF}"),
            Just("\u{FEFF}---\r\na: 'b'\r\n...\r\n"),
        ];
        (front, body).prop_map(|(f, b)| format!("{f}{b}"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn every_view_maps_back_into_the_source(src in noise()) {
            for format in [
                Format::Markdown,
                Format::Mdx,
                Format::Json,
                Format::Yaml,
                Format::Script,
                Format::Text,
            ] {
                let with = extract(format, &src);
                match &with {
                    Ok(views) => assert_maps_back(&src, views),
                    Err(e) => prop_assert!(
                        e.offset <= src.len() && src.is_char_boundary(e.offset),
                        "{format}: {e:?}"
                    ),
                }
                // Without hints, the same views (or error) but for the hints; front
                // matter keeps its own.
                let without = extract_views(format, &src, PathHints::Without);
                let unhinted = with.map(|views| {
                    views
                        .into_iter()
                        .map(|mut v| {
                            if !v.path_hint.as_deref().is_some_and(|h| h.starts_with("frontmatter")) {
                                v.path_hint = None;
                            }
                            v
                        })
                        .collect::<Vec<_>>()
                });
                prop_assert_eq!(without, unhinted, "{}", format);
            }
        }
    }

    #[test]
    fn formats_come_from_extensions() {
        assert_eq!(Format::from_path("docs/a.md"), Format::Markdown);
        assert_eq!(Format::from_path("A.MARKDOWN"), Format::Markdown);
        assert_eq!(Format::from_path("x/page.mdx"), Format::Mdx);
        assert_eq!(Format::from_path("agenda.json"), Format::Json);
        assert_eq!(Format::from_path("c.yaml"), Format::Yaml);
        assert_eq!(Format::from_path("c.yml"), Format::Yaml);
        for ext in ["ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts"] {
            assert_eq!(Format::from_path(&format!("src/x.{ext}")), Format::Script);
        }
        assert_eq!(Format::from_path("notes.txt"), Format::Text);
        assert_eq!(Format::from_path("Makefile"), Format::Text);
        assert_eq!(Format::from_path(".json"), Format::Text);
        assert_eq!(Format::from_path("dir.md/file"), Format::Text);
        assert_eq!(Format::Yaml.as_str(), "yaml");
    }

    #[test]
    fn views_come_back_in_source_order() {
        let src = "const t = `a ${'b'} c`;";
        let views = extract(Format::Script, src).unwrap();
        let texts: Vec<_> = views.iter().map(|v| v.text.as_str()).collect();
        assert_eq!(texts, ["a \u{FFFC} c", "b"]);
    }
}
