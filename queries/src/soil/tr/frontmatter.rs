//! The front matter: a small YAML subset, read by hand so every key and value keeps its
//! exact byte range (the prose hash cuts the `name:` line out byte for byte).
//!
//! Accepted, between a `---` line at the very start and the next `---` line:
//!
//! - `name: <plain scalar>` on one line;
//! - `tags: [a, b]` (flow list, one line, a trailing comma allowed) or `tags:` followed by
//!   `- a` lines, all indented alike (zero indentation included, as YAML allows);
//! - blank lines, `# comment` lines, and ` # comment` after a value.
//!
//! Anything else (quoted or multi-line scalars, tab indentation, nested mappings, a
//! duplicate key) is `tr-frontmatter-syntax`: the toolchain's files never need it, and a
//! half-understood YAML feature is worse than a clear error. A quoted `name` is reported as
//! `tr-invalid-name` instead, since the quote is simply a character a name cannot hold.
//! Delimiter lines may carry trailing blanks.

use super::{Frontmatter, Sink, offset_in};

/// A line without its terminator (`\n` or `\r\n`), and where the next line starts.
struct Line<'a> {
    start: usize,
    content: &'a str,
    end: usize,
}

fn lines(text: &str) -> impl Iterator<Item = Line<'_>> {
    text.split_inclusive('\n').scan(0, |at, raw| {
        let start = *at;
        *at += raw.len();
        let content = raw.strip_suffix('\n').unwrap_or(raw);
        let content = content.strip_suffix('\r').unwrap_or(content);
        Some(Line {
            start,
            content,
            end: *at,
        })
    })
}

fn is_delimiter(line: &str) -> bool {
    line.trim_end_matches([' ', '\t']) == "---"
}

pub(super) fn parse(text: &str, sink: &mut Sink) -> Option<Frontmatter> {
    let mut all = lines(text);
    if !all.next().is_some_and(|l| is_delimiter(l.content)) {
        let message = if text.starts_with('\u{feff}') {
            "the file starts with a byte order mark; it must start with a `---` line"
        } else {
            "the file must start with front matter: a `---` line, `name: …`, and a closing \
             `---` line"
        };
        sink.error("tr-missing-frontmatter", 0, message.to_owned());
        return None;
    }
    let mut body = Vec::new();
    let closing = loop {
        match all.next() {
            Some(line) if is_delimiter(line.content) => break line,
            Some(line) => body.push(line),
            None => {
                sink.error(
                    "tr-frontmatter-syntax",
                    0,
                    "the front matter is never closed by a `---` line".to_owned(),
                );
                return None;
            }
        }
    };
    let range = 0..closing.end;
    let mut reader = Reader {
        text,
        name: None,
        tags: None,
        tag_offsets: Vec::new(),
        state: State::Top,
    };
    for line in &body {
        reader.line(line, sink);
    }
    let (name, name_line_range) = match reader.name {
        Some((name, line)) => (name, line),
        None => {
            sink.error(
                "tr-missing-name",
                0,
                "the front matter has no `name` key".to_owned(),
            );
            (String::new(), closing.start..closing.start)
        }
    };
    Some(Frontmatter {
        name,
        tags: reader.tags.unwrap_or_default(),
        tag_offsets: reader.tag_offsets,
        name_line_range,
        range,
    })
}

/// What indented or `- ` lines below a key belong to.
enum State {
    Top,
    /// Items of `tags:`, with the indentation of the first one.
    TagItems(Option<usize>),
    /// The value of a key already reported (unknown or duplicate): skipped silently.
    Skip,
}

struct Reader<'a> {
    text: &'a str,
    name: Option<(String, std::ops::Range<usize>)>,
    tags: Option<Vec<String>>,
    /// Byte offset of each tag in `tags`.
    tag_offsets: Vec<usize>,
    state: State,
}

impl Reader<'_> {
    fn line(&mut self, line: &Line, sink: &mut Sink) {
        let content = line.content;
        let rest = content.trim_start_matches(' ');
        let indent = content.len() - rest.len();
        if rest.starts_with('\t') {
            sink.error(
                "tr-frontmatter-syntax",
                line.start + indent,
                "YAML does not allow tabs for indentation".to_owned(),
            );
            return;
        }
        if rest.trim_end_matches([' ', '\t']).is_empty() || rest.starts_with('#') {
            return;
        }
        if let Some(item) = rest
            .strip_prefix('-')
            .filter(|r| r.is_empty() || r.starts_with(' '))
        {
            self.list_item(line, indent, item, sink);
        } else if indent > 0 {
            if !matches!(self.state, State::Skip) {
                sink.error(
                    "tr-frontmatter-syntax",
                    line.start + indent,
                    "unexpected indentation: values are single-line and only `tags` takes \
                     `- item` lines"
                        .to_owned(),
                );
            }
        } else {
            self.key(line, sink);
        }
    }

    fn list_item(&mut self, line: &Line, indent: usize, item: &str, sink: &mut Sink) {
        match &mut self.state {
            State::Skip => {}
            State::Top => sink.error(
                "tr-frontmatter-syntax",
                line.start + indent,
                "a list item that belongs to no key (only `tags` is a list)".to_owned(),
            ),
            State::TagItems(first_indent) => {
                if *first_indent.get_or_insert(indent) != indent {
                    sink.error(
                        "tr-frontmatter-syntax",
                        line.start + indent,
                        "list items must be indented alike".to_owned(),
                    );
                    return;
                }
                let value = strip_comment(item).trim_matches([' ', '\t']);
                if value.is_empty() {
                    sink.error(
                        "tr-frontmatter-syntax",
                        line.start + indent,
                        "an empty list item".to_owned(),
                    );
                } else if let Some(tag) = self.tag(value, false, sink) {
                    self.tags.get_or_insert_with(Vec::new).push(tag);
                    self.tag_offsets.push(offset_in(self.text, value));
                }
            }
        }
    }

    fn key(&mut self, line: &Line, sink: &mut Sink) {
        let content = line.content;
        let key_len = content
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
            .count();
        let after = &content[key_len..];
        let value = after
            .strip_prefix(':')
            .filter(|v| v.is_empty() || v.starts_with([' ', '\t']));
        let (Some(value), true) = (value, key_len > 0) else {
            sink.error(
                "tr-frontmatter-syntax",
                line.start + key_len,
                "expected `key: value`".to_owned(),
            );
            self.state = State::Skip;
            return;
        };
        let key = &content[..key_len];
        let value = strip_comment(value).trim_matches([' ', '\t']);
        self.state = State::Top;
        let duplicate = match key {
            "name" => self.name.is_some(),
            "tags" => self.tags.is_some(),
            _ => {
                sink.error(
                    "tr-unknown-frontmatter-key",
                    line.start,
                    format!("unknown front-matter key `{key}`: only `name` and `tags` are allowed"),
                );
                self.state = State::Skip;
                return;
            }
        };
        if duplicate {
            sink.error(
                "tr-frontmatter-syntax",
                line.start,
                format!("duplicate key `{key}`"),
            );
            self.state = State::Skip;
            return;
        }
        if key == "name" {
            self.name_value(line, value, sink);
        } else {
            self.tags_value(value, sink);
        }
    }

    fn name_value(&mut self, line: &Line, value: &str, sink: &mut Sink) {
        let value_at = offset_in(self.text, value);
        if value.is_empty() {
            sink.error(
                "tr-missing-name",
                line.start,
                "`name` has no value".to_owned(),
            );
        } else if let Some((i, c)) = value.char_indices().find(|&(_, c)| !is_name_char(c)) {
            sink.error(
                "tr-invalid-name",
                value_at + i,
                format!(
                    "`{c}` in the name: a name is a plain scalar of ASCII letters, digits, `_` \
                     and `-`"
                ),
            );
        }
        self.name = Some((value.to_owned(), line.start..line.end));
    }

    fn tags_value(&mut self, value: &str, sink: &mut Sink) {
        if value.is_empty() {
            self.tags = Some(Vec::new());
            self.state = State::TagItems(None);
            return;
        }
        let at = offset_in(self.text, value);
        let Some(inner) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) else {
            sink.error(
                "tr-frontmatter-syntax",
                at,
                "`tags` is a list: `[a, b]` or `- a` lines below it".to_owned(),
            );
            self.tags = Some(Vec::new());
            return;
        };
        let mut tags = Vec::new();
        if !inner.trim_matches([' ', '\t']).is_empty() {
            let entries: Vec<&str> = inner.split(',').collect();
            for (i, entry) in entries.iter().enumerate() {
                let tag = entry.trim_matches([' ', '\t']);
                if tag.is_empty() {
                    if i + 1 < entries.len() || i == 0 {
                        sink.error(
                            "tr-frontmatter-syntax",
                            offset_in(self.text, entry),
                            "an empty entry in `tags`".to_owned(),
                        );
                    }
                } else if let Some(parsed) = self.tag(tag, true, sink) {
                    tags.push(parsed);
                    self.tag_offsets.push(offset_in(self.text, tag));
                }
            }
        }
        self.tags = Some(tags);
    }

    /// A tag is a plain scalar; in a flow list (`[a, b]`) it cannot hold flow indicators.
    fn tag(&self, value: &str, in_flow: bool, sink: &mut Sink) -> Option<String> {
        let at = offset_in(self.text, value);
        let bad_start = value.starts_with([
            '[', ']', '{', '}', ',', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`',
        ]);
        let bad_inner = value.contains(": ")
            || value.ends_with(':')
            || (in_flow && value.contains(['[', ']', '{', '}']));
        if bad_start || bad_inner {
            sink.error(
                "tr-frontmatter-syntax",
                at,
                format!(
                    "`{value}` is not a plain tag; quoted and structured values are not supported"
                ),
            );
            return None;
        }
        Some(value.to_owned())
    }
}

/// A value without its trailing ` # comment` (YAML needs whitespace before the `#`).
fn strip_comment(value: &str) -> &str {
    let bytes = value.as_bytes();
    (0..bytes.len())
        .find(|&i| bytes[i] == b'#' && (i == 0 || matches!(bytes[i - 1], b' ' | b'\t')))
        .map_or(value, |i| &value[..i])
}

/// The characters a `name` may hold: ASCII letters, digits, `_` and `-`.
pub(super) fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}
