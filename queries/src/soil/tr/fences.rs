//! Reserved fenced blocks, found by pulldown-cmark so that fence rules (``` vs ~~~, longer
//! closing fences, containers, indented code) are CommonMark's and not a regex's — except
//! in a plain body, which [`plain`](super::plain) reads line by line to the same result.

use super::{Block, Sink, is_test_case_lang, offset_in, plain, reserved_class};
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use std::ops::Range;

/// A reserved block as the parser reports it: its info string, the range from its opening
/// fence to the end of its closing one (without the line break), and its text.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Open {
    pub info: String,
    pub range: Range<usize>,
    pub content: String,
    /// End of the last text event: where the body stops, when it has any.
    pub text_end: Option<usize>,
}

/// Reserved blocks of `source`. `parse_text` is `source` with the front matter blanked:
/// same length, same bytes elsewhere, so offsets from one slice the other.
///
/// Also says whether the file has prose as trellis counts it: non-blank text in a
/// paragraph, an indented code block, or a fence that is not reserved. Headings and the
/// text of tight list items (which CommonMark puts in no paragraph) do not count.
///
/// A plain body is read line by line ([`plain::fences`]); any other goes to the parser.
pub(super) fn scan(source: &str, parse_text: &str, sink: &mut Sink) -> (Vec<Block>, bool) {
    let (opens, has_prose) = plain::fences(parse_text).unwrap_or_else(|| parsed(parse_text));
    let blocks = opens
        .into_iter()
        .map(|open| finish(source, open, sink))
        .collect();
    (blocks, has_prose)
}

/// The reserved blocks and the prose of `parse_text` as pulldown-cmark reads them: the
/// definition [`plain::fences`] is held to.
pub(super) fn parsed(parse_text: &str) -> (Vec<Open>, bool) {
    let mut opens = Vec::new();
    let mut open: Option<Open> = None;
    let mut has_prose = false;
    let mut in_paragraph = false;
    for (event, range) in Parser::new_ext(parse_text, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let lang = info.split_ascii_whitespace().next().unwrap_or("");
                if reserved_class(lang).is_none() {
                    has_prose = true;
                } else {
                    open = Some(Open {
                        info: info.to_string(),
                        range,
                        content: String::new(),
                        text_end: None,
                    });
                }
            }
            Event::Start(Tag::CodeBlock(CodeBlockKind::Indented)) => has_prose = true,
            Event::Start(Tag::Paragraph) => in_paragraph = true,
            Event::End(TagEnd::Paragraph) => in_paragraph = false,
            Event::Text(text) => {
                if let Some(open) = &mut open {
                    open.content.push_str(&text);
                    open.text_end = Some(range.end);
                } else if in_paragraph && !text.trim().is_empty() {
                    has_prose = true;
                }
            }
            Event::End(TagEnd::CodeBlock) => opens.extend(open.take()),
            _ => {}
        }
    }
    (opens, has_prose)
}

fn finish(source: &str, open: Open, sink: &mut Sink) -> Block {
    let Range { start, end } = open.range;
    let opening_end = source[start..end].find('\n').map_or(end, |i| start + i + 1);
    // The parser's range stops before the line break of a closing fence; an unclosed
    // fence's range already runs through the last line of its container. Anything after
    // the opening line and the body is therefore the closing fence.
    let closed = end > open.text_end.unwrap_or(0).max(opening_end);
    let mut fence_end = end;
    if closed {
        if source[end..].starts_with("\r\n") {
            fence_end += 2;
        } else if source[end..].starts_with('\n') {
            fence_end += 1;
        }
    } else {
        sink.warning(
            "tr-unclosed-fence",
            start,
            "this fence is never closed, so it runs to the end of its container or of the \
             file"
                .to_owned(),
        );
    }
    let words = info_words(source, start, opening_end, &open.info);
    let info = parse_info(&words, start, sink);
    Block {
        lang: info.lang,
        name: info.name,
        xfail: info.xfail,
        agent: info.agent,
        content: open.content,
        fence_range: start..fence_end,
        line: sink.line_col(start).line,
    }
}

/// The info words with their source offsets. The parser decodes entities and escapes in
/// the info string; when that changed anything, the words are still right but can only be
/// placed at the fence.
fn info_words<'a>(
    source: &'a str,
    start: usize,
    opening_end: usize,
    info: &'a str,
) -> Vec<(usize, &'a str)> {
    let line = source[start..opening_end].trim_end_matches(['\n', '\r']);
    let fence_char = line.chars().next().unwrap_or('`');
    let raw = line.trim_start_matches(fence_char);
    if raw.trim_matches([' ', '\t']) == info {
        raw.split_ascii_whitespace()
            .map(|w| (offset_in(source, w), w))
            .collect()
    } else {
        info.split_ascii_whitespace().map(|w| (start, w)).collect()
    }
}

struct Info {
    lang: String,
    name: Option<String>,
    xfail: bool,
    agent: bool,
}

/// `<lang> [<name>] [xfail] [@agent]`. A misplaced word is still recorded (a name after
/// `xfail`, a name on a block that takes none), so the hashes follow what is written while
/// the diagnostic asks for the fix.
fn parse_info(words: &[(usize, &str)], fence_at: usize, sink: &mut Sink) -> Info {
    let (lang_at, lang) = words.first().copied().unwrap_or((fence_at, ""));
    let test_case = is_test_case_lang(lang);
    let mut info = Info {
        lang: lang.to_owned(),
        name: None,
        xfail: false,
        agent: false,
    };
    let mut error = |at: usize, message: String| sink.error("tr-block-info", at, message);
    for &(at, word) in words.iter().skip(1) {
        match word {
            "xfail" => {
                if info.xfail {
                    error(at, "`xfail` appears twice".to_owned());
                } else if info.agent {
                    error(
                        at,
                        "`xfail` must come before `@agent`: the order is `<lang> [<name>] \
                         [xfail] [@agent]`"
                            .to_owned(),
                    );
                } else if !test_case {
                    error(
                        at,
                        format!(
                            "`xfail` applies to `test`, `property` and `cram` blocks, not to \
                             `{lang}`"
                        ),
                    );
                }
                info.xfail = true;
            }
            "@agent" => {
                if info.agent {
                    error(at, "`@agent` appears twice".to_owned());
                }
                info.agent = true;
            }
            _ if word.starts_with('@') => error(
                at,
                format!("unknown modifier `{word}`: the only author mark is `@agent`"),
            ),
            _ if info.name.is_some() => error(
                at,
                format!(
                    "unexpected `{word}`: a block has at most one name, then `xfail`, then \
                     `@agent`"
                ),
            ),
            _ => {
                if info.xfail || info.agent {
                    error(
                        at,
                        format!(
                            "the name `{word}` must come right after `{lang}`, before the \
                             modifiers"
                        ),
                    );
                } else if !test_case {
                    error(
                        at,
                        format!(
                            "`{lang}` blocks take no name; only `test`, `property` and `cram` \
                             are named"
                        ),
                    );
                }
                info.name = Some(word.to_owned());
            }
        }
    }
    if test_case && info.name.is_none() {
        sink.error(
            "tr-missing-block-name",
            lang_at,
            format!("a `{lang}` block needs a name: `{lang} <name>`"),
        );
    }
    info
}
