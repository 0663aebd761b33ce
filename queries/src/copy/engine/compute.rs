//! The computations the queries and the one-shot run share: the entry's state (from the
//! entry and the file's hash), and, written against [`FileInputs`], the views, the
//! languages, the rule hits and the spans.

use super::file_report::Interner;
use super::{EntryState, FileError, FileInputs, Text};
use crate::copy::extract;
use crate::copy::lockfile::{Entry, Kind, SpanIndex};
use crate::copy::rules::{Hit, Hits, Scans, Triggers};
use crate::copy::view::View;
use crate::hash::ContentHash;
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::ops::Range;

/// How an entry relates to bytes with hash `hash`: the one definition, shared by the query
/// and by the shell when a cache spares it reading the file.
pub fn state_of(entry: Option<&Entry>, hash: ContentHash, prompt_outdated: bool) -> EntryState {
    state_from(
        entry.map(|e| (ContentHash::parse(&e.content_hash), e.reviewed_by.is_some())),
        hash,
        prompt_outdated,
    )
}

/// [`state_of`] from what it reads of an entry: its recorded hash (`None` if malformed)
/// and whether it is reviewed — all a summary of the lockfile needs to keep.
pub fn state_from(
    entry: Option<(Option<ContentHash>, bool)>,
    hash: ContentHash,
    prompt_outdated: bool,
) -> EntryState {
    let Some((recorded, reviewed)) = entry else {
        return EntryState::Missing;
    };
    if recorded != Some(hash) {
        EntryState::Stale
    } else if !reviewed && prompt_outdated {
        EntryState::PromptOutdated
    } else {
        EntryState::Fresh
    }
}

pub(super) fn views_of(i: &impl FileInputs) -> Result<Vec<View>, FileError> {
    let text = i.source().text().map_err(Clone::clone)?;
    if let Some(at) = lone_cr(text) {
        return Err(FileError {
            line_col: Some(i.line_index().line_col(text, at)),
            message: LONE_CR.to_string(),
        });
    }
    // Without path hints, which nothing an audit reports reads (see `PathHints`) — but a
    // file without a fresh entry is segmented from its views, and the key paths are what
    // tag a bilingual file.
    let hints = match i.entry_state().has_usable_spans() {
        true => extract::PathHints::Without,
        false => extract::PathHints::With,
    };
    extract::extract_views(i.format(), text, hints).map_err(|e| FileError {
        line_col: Some(i.line_index().line_col(text, e.offset)),
        message: e.message,
    })
}

/// Why a file with a lone carriage return is not audited. Editors disagree on it: VS Code,
/// the Language Server Protocol and CommonMark break the line there, Vim and Neovim (with
/// their default `fileformats`) show a `^M` and do not, and the extractors (front matter,
/// comments, strings) know only LF and CRLF. Any line or column given for such a file
/// would be wrong in one of them, and findings after it could be lost without a word: so
/// the file is one file's error, at the first lone CR, and never a silent zero.
const LONE_CR: &str = "a carriage return without a line feed (a classic Mac OS line \
                       ending): editors disagree on where its lines are, so the file is not \
                       audited; convert it to LF or CRLF line endings";

/// The first carriage return not followed by a line feed.
fn lone_cr(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'\r', bytes).find(|&at| bytes.get(at + 1) != Some(&b'\n'))
}

/// A rule hit with the indices of its rule and view, its text shared ([`Text`]): all of a
/// dense file's hits are held at once, before they are placed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RawHit {
    pub rule: usize,
    pub view: usize,
    /// [`Hit::range`].
    pub range: Range<usize>,
    pub message: Text,
    /// [`Hit::fix`]: a view range and its replacement.
    pub fix: Option<(Range<usize>, Text)>,
    /// [`Hit::anchor`].
    pub anchor: Option<usize>,
}

impl RawHit {
    fn new(rule: usize, view: usize, hit: Hit, texts: &mut Interner) -> RawHit {
        RawHit {
            rule,
            view,
            range: hit.range,
            message: texts.get(&hit.message),
            fix: hit.fix.map(|e| (e.range, texts.get(&e.replacement))),
            anchor: hit.anchor,
        }
    }
}

/// The most hits in one part of [`find_hits`]'s value: a part is freed as soon as it is
/// placed, so the hits and the findings made from them are never all held at once.
const HITS_PER_PART: usize = 1 << 16;

pub(super) fn languages_of(i: &impl FileInputs) -> BTreeSet<String> {
    let default = i.setup().default_language.as_str();
    let mut out = BTreeSet::new();
    let (Ok(views), Ok(Some(spans))) = (i.views(), i.span_index()) else {
        out.insert(default.to_string());
        return out;
    };
    let range = |view: &View| view.source_offset(0)..view.source_range(0..view.text.len()).end;
    if spans.is_empty() {
        // Most entries of a tree in the default language have no spans: every view that
        // reaches into the file reaches into the gap, and the first one says so.
        if views.iter().any(|view| !range(view).is_empty()) {
            out.insert(default.to_string());
        }
        return out;
    }
    let unknown_default = i.setup().unknown_language_default;
    for view in views {
        let (overlapping, covered) = spans.overlapping(range(view));
        for (kind, language) in overlapping {
            if matches!(kind, Kind::Code | Kind::Data) {
                continue;
            }
            // Looked up before it is copied: most spans repeat a language already in.
            let language = if language != "unknown" {
                language
            } else if unknown_default {
                default
            } else {
                continue;
            };
            if !out.contains(language) {
                out.insert(language.to_string());
            }
        }
        if !covered && !out.contains(default) {
            out.insert(default.to_string());
        }
    }
    out
}

/// A rule that can fire in one of the file's languages: its index, the rule, its triggers.
pub(super) type Active<'r> = (
    usize,
    &'r std::sync::Arc<dyn crate::copy::rules::Rule>,
    Triggers,
);

/// The rules that can fire in one of `languages`.
pub(super) fn active_rules<'r>(
    setup: &'r super::Setup,
    languages: &BTreeSet<String>,
) -> Vec<Active<'r>> {
    setup
        .rules
        .set
        .rules()
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            let scoped = &r.meta().languages;
            scoped.is_empty() || scoped.iter().any(|l| languages.contains(l))
        })
        .map(|(i, r)| (i, r, r.triggers()))
        .collect()
}

/// Every hit of the `active` rules on `view`, as view number `vi`, handed to `push` as
/// the rules find them.
pub(super) fn view_hits_of(
    vi: usize,
    view: &View,
    active: &[Active<'_>],
    texts: &mut Interner,
    push: &mut dyn FnMut(RawHit),
) {
    let scans = Scans::new(view);
    let present = scans.triggers();
    for &(ri, rule, triggers) in active {
        if !triggers.intersects(present) {
            continue;
        }
        let mut drain = |found: &mut Vec<Hit>| {
            for hit in found.drain(..) {
                push(RawHit::new(ri, vi, hit, texts));
            }
        };
        let mut out = Hits::draining_into(&mut drain);
        rule.check_in(&scans, &mut out);
        out.flush();
    }
}

/// [`hits`](super::hits)'s value in consecutive parts, each handed to `each` as it is
/// found and not kept: at most [`HITS_PER_PART`] hits of one worker are held at once, and
/// a rule's hits are taken from it as it finds them (see [`Hits`]).
pub(super) fn find_hits(i: &impl FileInputs, mut each: impl FnMut(Vec<RawHit>)) {
    let Ok(views) = i.views() else {
        return;
    };
    let active = active_rules(i.setup(), i.languages());
    let check = |first: usize, views: &[View], each: &mut dyn FnMut(Vec<RawHit>)| {
        let mut part = Vec::new();
        let mut texts = Interner::default();
        for (vi, view) in (first..).zip(views) {
            view_hits_of(vi, view, &active, &mut texts, &mut |hit| {
                part.push(hit);
                if part.len() == HITS_PER_PART {
                    each(std::mem::take(&mut part));
                }
            });
        }
        if !part.is_empty() {
            each(part);
        }
    };
    // A file of many views (a large JSON file has one per string) is checked on every
    // core, in order, a batch of views at a time; most files are one worker's and stay on
    // it.
    if views.len() < PARALLEL_VIEWS {
        return check(0, views, &mut each);
    }
    const CHUNK: usize = PARALLEL_VIEWS / 4;
    for (b, batch) in views.chunks(PARALLEL_VIEWS * 16).enumerate() {
        let parts: Vec<Vec<Vec<RawHit>>> = batch
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                let mut parts = Vec::new();
                check(b * PARALLEL_VIEWS * 16 + c * CHUNK, chunk, &mut |p| {
                    parts.push(p)
                });
                parts
            })
            .collect();
        parts.into_iter().flatten().for_each(&mut each);
    }
}

/// The views from which a file's rules run on every core.
const PARALLEL_VIEWS: usize = 1024;

pub(super) fn span_index_of(i: &impl FileInputs) -> Result<Option<SpanIndex>, FileError> {
    if !i.entry_state().has_usable_spans() {
        return Ok(provisional_spans(i));
    }
    let (Ok(text), Some(entry)) = (i.source().text(), i.entry()) else {
        return Ok(None);
    };
    if entry.spans.is_empty() {
        // Nothing to place: the file's lines need not be counted.
        return Ok(Some(SpanIndex::default()));
    }
    SpanIndex::new(text, i.line_index(), &entry.spans)
        .map(Some)
        .map_err(|e| FileError {
            line_col: None,
            message: format!("lockfile entry does not fit the file: {e}"),
        })
}

/// The spans a file without a fresh entry is audited with: the structural segmenter's,
/// computed here and never written (`--offline` writes them). Without them, every string
/// of a bilingual file whose entry went stale read as the default language.
fn provisional_spans(i: &impl FileInputs) -> Option<SpanIndex> {
    let text = i.source().text().ok()?;
    i.known_evidence();
    // With their path hints (see `views_of`).
    let views = i.views().as_ref().ok()?;
    let setup = crate::copy::structural::Setup {
        declared: &i.setup().declared,
        default_language: &i.setup().default_language,
        locale: i.locale(),
    };
    Some(crate::copy::structural::span_index(
        i.format(),
        text,
        views,
        &setup,
    ))
}
