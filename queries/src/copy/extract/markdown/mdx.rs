//! What MDX adds to Markdown: `import`/`export` lines, `{…}` expressions and JSX tags
//! left in the text, and the Markdown inside JSX blocks, which CommonMark reads as HTML.
//! Only MDX files reach this code.

use super::super::draft::Edit;
use super::super::{Draft, OBJECT};
use super::options;
use super::walker::is_escaped;
use pulldown_cmark::{Event, LinkType, Parser, Tag, TagEnd};

/// Reads the Markdown inside a draft (the text of an MDX JSX block, where CommonMark saw
/// only HTML): emphasis markers and link destinations go, inline code becomes a
/// placeholder, escapes and entities are decoded. Everything maps back through the draft.
pub(super) fn inline_markdown(draft: Draft) -> Draft {
    let text = draft.text();
    let mut out = Draft::new();
    let mut autolink = false;
    let mut copied = 0;
    for (event, range) in Parser::new_ext(text, options(true)).into_offset_iter() {
        match event {
            Event::Text(t) if !autolink => {
                if text.get(range.clone()) == Some(&*t) {
                    if is_escaped(text, range.start, copied) {
                        let escape = range.start - 1..range.start + 1;
                        out.opaque(&t[..1], draft.src_range(escape));
                        draft.copy_range(range.start + 1..range.end, &mut out);
                    } else {
                        draft.copy_range(range.clone(), &mut out);
                    }
                    copied = range.end;
                } else {
                    out.opaque(&t, draft.src_range(range));
                }
            }
            Event::Code(_) | Event::InlineMath(_) | Event::DisplayMath(_) => {
                out.opaque(OBJECT, draft.src_range(range));
            }
            Event::SoftBreak | Event::HardBreak => draft.copy_range(range, &mut out),
            Event::Start(Tag::Link {
                link_type: LinkType::Autolink | LinkType::Email,
                ..
            }) => {
                out.opaque(OBJECT, draft.src_range(range));
                autolink = true;
            }
            Event::End(TagEnd::Link) => autolink = false,
            Event::End(TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::Item)
                if text[..range.end].ends_with('\n') && !out.text().ends_with('\n') =>
            {
                // Block structure inside the text: keep the blocks apart with the line
                // break that separated them.
                draft.copy_range(range.end - 1..range.end, &mut out);
            }
            _ => {}
        }
    }
    out
}

/// An MDX `import`/`export` statement at the start of a line.
pub(super) fn is_esm(src: &str, at: usize) -> bool {
    let line_start = at == 0 || src.as_bytes()[at - 1] == b'\n';
    let rest = &src[at..];
    line_start
        && ["import", "export"].iter().any(|kw| {
            rest.strip_prefix(kw)
                .is_some_and(|r| r.starts_with([' ', '\t', '{', '*']))
        })
}

/// MDX expressions and JSX tags the parser left in the text.
pub(super) fn mdx_inline(draft: Draft) -> Draft {
    let text = draft.text();
    let b = text.as_bytes();
    let mut edits = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let found = match b[i] {
            b'{' if draft.is_verbatim_at(i) => balanced(text, i).map(|end| {
                let inner = text[i + 1..end - 1].trim();
                let comment = inner.starts_with("/*") && inner.ends_with("*/");
                let with = (!comment && !inner.is_empty()).then_some(OBJECT);
                Edit {
                    range: i..end,
                    with,
                }
            }),
            b'<' if draft.is_verbatim_at(i) && starts_tag(&b[i + 1..]) => {
                tag_end(text, i).map(|end| Edit {
                    range: i..end,
                    with: None,
                })
            }
            _ => None,
        };
        match found {
            Some(edit) => {
                i = edit.range.end;
                edits.push(edit);
            }
            None => i += 1,
        }
    }
    draft.apply(&edits)
}

/// After `<`: a tag name, a closing slash or a fragment.
fn starts_tag(rest: &[u8]) -> bool {
    match rest {
        [b'>', ..] => true,
        [b'/', c, ..] => c.is_ascii_alphabetic() || *c == b'>',
        [c, ..] => c.is_ascii_alphabetic(),
        [] => false,
    }
}

/// End (exclusive) of the `{…}` starting at `open`, skipping strings and nested braces.
fn balanced(text: &str, open: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            q @ (b'"' | b'\'' | b'`') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// End (exclusive) of the JSX tag starting at `open`, skipping quoted values and `{…}`.
fn tag_end(text: &str, open: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = open + 1;
    while i < b.len() {
        match b[i] {
            b'>' => return Some(i + 1),
            b'{' => i = balanced(text, i)? - 1,
            q @ (b'"' | b'\'') => i += memchr::memchr(q, &b[i + 1..])? + 1,
            b'<' => return None,
            _ => {}
        }
        i += 1;
    }
    None
}
