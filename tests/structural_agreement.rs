//! The structural segmenter against the real agent's reviewed spans: on every fresh entry
//! of the three shared harness-lab trees, the share of prose characters (the characters
//! the rules read: every view's) on which the two agree.
//!
//! "Agree" is on what the audit does with a character: no language rule (a `code` or
//! `data` span, language `unknown`, or a language the project does not declare), or the
//! rules of one declared language. The agent tags a time or an enum value `unknown` prose
//! where the structural segmenter says `data`, and an English file of this Czech-only
//! repository `unknown` where it says `en`; the audit treats each pair alike, and so does
//! this count.
//!
//! `cargo test --test structural_agreement -- --nocapture` prints the table of
//! `docs/segmentation.md`.

use lockgraph_queries::copy::extract::{Format, extract};
use lockgraph_queries::copy::lockfile::{self, Kind, SpanIndex};
use lockgraph_queries::copy::structural::{self, Setup};
use lockgraph_queries::hash::ContentHash;
use lockgraph_queries::text::LineIndex;
use std::path::Path;

/// What the audit does with a character: the declared language whose rules run, or none.
fn class(at: Option<(Kind, &str)>, default: &str) -> Option<String> {
    match at {
        None => Some(default.to_owned()),
        Some((Kind::Code | Kind::Data, _)) => None,
        Some((_, language)) => DECLARED.contains(&language).then(|| language.to_owned()),
    }
}

/// The real repository's declared profiles: `extends: [czech]`.
const DECLARED: [&str; 1] = ["cs"];

/// (agreeing characters, prose characters) of one file.
fn agreement(text: &str, format: Format, agent: &SpanIndex, ours: &SpanIndex) -> (usize, usize) {
    let views = extract(format, text).unwrap();
    let (mut agree, mut total) = (0, 0);
    for view in &views {
        for (i, c) in view.text.char_indices() {
            // The placeholder a view holds for inline code or an expression: not prose.
            if c == '\u{FFFC}' {
                continue;
            }
            let at = view.source_offset(i);
            total += 1;
            agree += usize::from(class(agent.at(at), "cs") == class(ours.at(at), "cs"));
        }
    }
    (agree, total)
}

/// whatlang, a maintained language identifier, asked about Czech and English only, and
/// trusted when it says it is reliable: the crate the segmenter's own scorer is held to.
fn whatlang(text: &str) -> Option<&'static str> {
    let detector =
        whatlang::Detector::with_allowlist(vec![whatlang::Lang::Ces, whatlang::Lang::Eng]);
    let info = detector.detect(text)?;
    if !info.is_reliable() {
        return None;
    }
    match info.lang() {
        whatlang::Lang::Ces => Some("cs"),
        whatlang::Lang::Eng => Some("en"),
        _ => None,
    }
}

#[test]
fn structural_spans_agree_with_the_reviewed_agent_spans() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/harness-lab");
    if !shared.exists() {
        assert!(
            std::env::var_os("LOCKGRAPH_SKIP_CONFORMANCE").is_some(),
            "{} is missing (LOCKGRAPH_SKIP_CONFORMANCE=1 skips this)",
            shared.display()
        );
        return;
    }
    let declared = DECLARED.map(str::to_owned);
    let setup = Setup {
        declared: &declared,
        default_language: "cs",
        locale: None,
    };
    let (mut agree, mut total) = (0, 0);
    // The same with whatlang identifying the language instead of our scorer.
    let mut agree_whatlang = 0;
    // Running text only (Markdown), where the identifier decides most.
    let (mut md_ours, mut md_theirs, mut md_total) = (0, 0, 0);
    let mut rows = Vec::new();
    // How compact our entries are beside the agent's: (agent, ours) span counts in
    // Markdown and in all, and the bytes of the entries as the lockfile writes them.
    let (mut md_spans, mut all_spans) = ((0, 0), (0, 0));
    let (mut agent_lock, mut our_lock) = (empty_lock(), empty_lock());
    for commit in ["b14f4c7", "ff85c84", "58cfea7"] {
        let tree = shared.join(commit);
        let lock =
            lockfile::parse(&std::fs::read_to_string(tree.join(".copy-editor.lock.json")).unwrap())
                .unwrap();
        for (path, entry) in &lock.files {
            let Ok(text) = std::fs::read_to_string(tree.join(path)) else {
                continue;
            };
            if ContentHash::of(text.as_bytes()).to_string() != entry.content_hash {
                continue; // stale: the agent's spans describe other bytes
            }
            let format = Format::from_path(path);
            let index = LineIndex::new(&text);
            let views = extract(format, &text).unwrap();
            let ours = structural::spans(format, &text, &views, &setup);
            all_spans = (all_spans.0 + entry.spans.len(), all_spans.1 + ours.len());
            if format == Format::Markdown {
                md_spans = (md_spans.0 + entry.spans.len(), md_spans.1 + ours.len());
            }
            let key = format!("{commit}/{path}");
            agent_lock.files.insert(key.clone(), entry.clone());
            let our_entry = lockfile::Entry {
                spans: ours.clone(),
                ..entry.clone()
            };
            our_lock.files.insert(key, our_entry);
            // The audit reads the compact spans as it read the full ones, and reads the
            // lines and columns written as the byte ranges it computed.
            let full =
                structural::full_pieces(format, &text, &views, &setup, &structural::identify_view);
            let full =
                SpanIndex::from_ranges(full.iter().map(|p| (p.range.clone(), p.kind, p.language)));
            let direct = structural::span_index(format, &text, &views, &setup);
            let written = SpanIndex::new(&text, &index, &ours).unwrap();
            assert_eq!(written, direct, "{commit} {path}");
            let full_agreement = agreement(&text, format, &full, &direct);
            assert_eq!(
                full_agreement.0, full_agreement.1,
                "{commit} {path}: compact differs"
            );
            let agent = SpanIndex::new(&text, &index, &entry.spans).unwrap();
            let ours = SpanIndex::new(&text, &index, &ours).expect("structural spans are valid");
            let (a, t) = agreement(&text, format, &agent, &ours);
            let theirs =
                structural::spans_with(format, &text, &views, &setup, &|v| whatlang(&v.text));
            let theirs = SpanIndex::new(&text, &index, &theirs).unwrap();
            let theirs = agreement(&text, format, &agent, &theirs).0;
            agree_whatlang += theirs;
            if format == Format::Markdown {
                (md_ours, md_theirs, md_total) = (md_ours + a, md_theirs + theirs, md_total + t);
            }
            rows.push(format!(
                "| `{commit}` | `{path}` | {t} | {:.1}% |",
                100.0 * a as f64 / t.max(1) as f64
            ));
            (agree, total) = (agree + a, total + t);
        }
    }
    let overall = 100.0 * agree as f64 / total as f64;
    println!("| commit | file | prose characters | agreement |\n|---|---|---|---|");
    for row in &rows {
        println!("{row}");
    }
    println!(
        "| all | {} files | {total} | **{overall:.1}%** |",
        rows.len()
    );
    let with_whatlang = 100.0 * agree_whatlang as f64 / total as f64;
    let percent = |n: usize| 100.0 * n as f64 / md_total as f64;
    println!(
        "with whatlang identifying the language: {with_whatlang:.1}%; Markdown only \
         ({md_total} characters): ours {:.2}%, whatlang {:.2}%",
        percent(md_ours),
        percent(md_theirs)
    );
    // Ours is kept because it agrees more: if the crate overtakes it, switch.
    assert!(
        overall >= with_whatlang,
        "whatlang {with_whatlang:.1}% beats ours {overall:.1}%"
    );
    // The figure this segmenter reaches, 98.9% (the target is 97%): a change that lowers
    // it fails here.
    assert!(overall >= 98.5, "overall agreement {overall:.1}%");
    let bytes = (
        lockfile::to_canonical_string(&agent_lock).len(),
        lockfile::to_canonical_string(&our_lock).len(),
    );
    let ratio = |(agent, ours): (usize, usize)| ours as f64 / agent as f64;
    println!(
        "spans, agent's and ours: Markdown {} and {} ({:.2}×), all {} and {} ({:.2}×); \
         entry bytes {} and {} ({:.2}×)",
        md_spans.0,
        md_spans.1,
        ratio(md_spans),
        all_spans.0,
        all_spans.1,
        ratio(all_spans),
        bytes.0,
        bytes.1,
        ratio(bytes)
    );
    // As compact as the agent's entries (issue 27): the Markdown span count within 2×,
    // the total span count and the bytes within 1.25×.
    assert!(ratio(md_spans) <= 2.0, "Markdown spans {md_spans:?}");
    assert!(ratio(all_spans) <= 1.25, "all spans {all_spans:?}");
    assert!(ratio(bytes) <= 1.25, "entry bytes {bytes:?}");
}

fn empty_lock() -> lockfile::Lockfile {
    lockfile::Lockfile {
        schema_version: 1,
        segmenter: lockfile::Segmenter {
            backend: lockfile::Backend::Agent,
            prompt_version: Some(2),
        },
        files: Default::default(),
    }
}
