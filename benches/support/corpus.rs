//! Deterministic corpus generation, shared by the `gen_corpus` example (which writes the
//! files to a directory) and the criterion benches (which keep them in memory). Both
//! include this file with `#[path = "support/corpus.rs"] mod corpus;`.
//!
//! Generators hand every file to an `emit(path, text)` callback in a fixed order instead of
//! returning them, so a 100k-file corpus never has to sit in memory at once.

// Each target that includes this module uses a different part of it.
#![allow(dead_code)]

use lockgraph_queries::copy::lockfile::{
    self, Backend, Entry, Field, Kind, Lockfile, Segmenter, Span,
};
use lockgraph_queries::hash::ContentHash;
use lockgraph_queries::soil::sidecar::{
    self, Author, BlockAuthor, ClauseState, DefKind, Lowering, LoweringProvenance, NameHash,
    Oracle, Origin, Refinements, SpecHashes, TestResult, TestRow, Tier, TypeCheck, Versions,
};
use lockgraph_queries::soil::{lang, spec_hash, tr};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};

/// splitmix64: tiny, deterministic, good enough to shape a corpus.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

pub const CS: &[&str] = &[
    "práce",
    "s",
    "agenty",
    "v",
    "týmu",
    "k",
    "projektu",
    "a",
    "pak",
    "workshop",
    "účastníci",
    "si",
    "vyzkouší",
    "nástroje",
    "na",
    "reálném",
    "kódu",
    "o",
    "tom",
    "jak",
    "psát",
    "zadání",
    "z",
    "praxe",
    "u",
    "stolu",
    "výsledky",
    "ověříme",
    "testy",
    "i",
    "dokumentací",
];
pub const EN: &[&str] = &[
    "the",
    "workshop",
    "covers",
    "working",
    "with",
    "agents",
    "on",
    "a",
    "real",
    "project",
    "participants",
    "try",
    "tools",
    "and",
    "write",
    "specs",
    "then",
    "verify",
    "results",
    "with",
    "tests",
    "in",
    "practice",
];
/// How many words in 10,000 are typography mistakes. The default, 2%, is a harsh case
/// (about 8 findings per Markdown file); an audited repository has far fewer, which
/// `gen_corpus --mistakes` and `benches/scale.sh` model as well.
static MISTAKES_PER_10K: AtomicUsize = AtomicUsize::new(200);

/// Sets the mistake rate of everything generated afterwards, in words per 10,000.
pub fn set_mistakes_per_10k(rate: usize) {
    MISTAKES_PER_10K.store(rate, Ordering::Relaxed);
}

/// Typography mistakes, sprinkled in at the rate above.
pub const MISTAKES: &[&str] = &[
    "50Kč", "1.dubna", "...", "-", "Monday", "don't", "10-20", "v domě",
];

pub fn sentence(rng: &mut Rng, words: &[&str], n: usize) -> String {
    let mut s = String::new();
    let mut glue = false;
    let mut previous = "";
    for i in 0..n {
        if i > 0 {
            // Czech one-letter words are followed by a no-break space, as audited text is.
            s.push(if glue { '\u{a0}' } else { ' ' });
        }
        let mut word = if rng.below(10_000) < MISTAKES_PER_10K.load(Ordering::Relaxed) {
            rng.pick(MISTAKES)
        } else {
            rng.pick(words)
        };
        while word == previous {
            word = rng.pick(words);
        }
        previous = word;
        glue = word.chars().count() == 1;
        s.push_str(word);
    }
    let mut c = s.chars();
    let first = c
        .next()
        .map(|f| f.to_uppercase().collect::<String>())
        .unwrap_or_default();
    format!("{first}{}.", c.as_str())
}

pub fn markdown(rng: &mut Rng, words: &[&str], target: usize) -> String {
    let mut out = format!("# {}\n\n", sentence(rng, words, 4).trim_end_matches('.'));
    while out.len() < target {
        match rng.below(6) {
            0 => {
                let _ = write!(
                    out,
                    "```bash\nnpm run build -- --port {}\n```\n\n",
                    rng.below(9000)
                );
            }
            1 => {
                let _ = write!(
                    out,
                    "## {}\n\n",
                    sentence(rng, words, 3).trim_end_matches('.')
                );
            }
            _ => {
                let mut para = String::new();
                for _ in 0..1 + rng.below(4) {
                    let n = 6 + rng.below(12);
                    para.push_str(&sentence(rng, words, n));
                    para.push(' ');
                    if rng.chance(20) {
                        para.push_str("Spusťte `cargo test` ");
                    }
                    if rng.chance(15) {
                        para.push_str("[odkaz](https://example.com/a-b) ");
                    }
                }
                out.push_str(para.trim_end());
                out.push_str("\n\n");
            }
        }
    }
    out
}

/// A bilingual JSON document written by hand so every string's position is known: returns
/// the text and one span per leaf string.
pub fn bilingual_json(rng: &mut Rng, items: usize) -> (String, Vec<Span>) {
    let mut text = String::from("{\n  \"items\": [\n");
    let mut spans = Vec::new();
    let mut line = 3u32;
    for i in 0..items {
        let _ = writeln!(text, "    {{");
        line += 1;
        for (k, (lang, words)) in [("en", EN), ("cs", CS)].into_iter().enumerate() {
            let n = 5 + rng.below(8);
            let value = sentence(rng, words, n);
            let prefix = format!("      \"{lang}\": {{ \"title\": \"");
            let start = prefix.chars().count() as u32 + 1;
            let end = start + value.chars().count() as u32 - 1;
            let comma = if k == 0 { "," } else { "" };
            let _ = writeln!(text, "{prefix}{value}\" }}{comma}");
            spans.push(Span {
                start_line: line,
                start_column: start,
                end_line: line,
                end_column: end,
                language: lang.to_string(),
                kind: Kind::Prose,
                path_hint: Field::Value(format!("items[{i}].{lang}.title")),
                note: Field::Null,
            });
            line += 1;
        }
        let comma = if i + 1 < items { "," } else { "" };
        let _ = writeln!(text, "    }}{comma}");
        line += 1;
    }
    text.push_str("  ]\n}\n");
    (text, spans)
}

pub const TSX: &str = "export function Card({ title }: { title: string }) {\n  return (\n    <section title=\"Úvod k workshopu\">\n      <h2>{title}</h2>\n      <p>Začneme v 9:00 a skončíme v 17:00...</p>\n    </section>\n  );\n}\n";

pub fn entry(text: &str, spans: Vec<Span>) -> Entry {
    Entry {
        content_hash: ContentHash::of(text.as_bytes()).to_string(),
        segmented_at: "2026-11-30T00:00:00Z".into(),
        reviewed_by: Some("bench@2026-11-30".into()),
        spans,
    }
}

/// The copy corpus of `files` files (the big JSON file counts as one), handed to `emit` in
/// order: `.copy-editor.yaml`, the files, and last the lockfile, which is also returned.
pub fn copy_corpus(files: usize, seed: u64, mut emit: impl FnMut(&str, &str)) -> Lockfile {
    let mut rng = Rng(seed);
    let mut lock = Lockfile::new(Segmenter {
        backend: Backend::Agent,
        prompt_version: Some(lockfile::CURRENT_PROMPT_VERSION),
    });
    emit(
        ".copy-editor.yaml",
        "language: cs\nextends: [czech, english]\npaths:\n  include: [\"content/**/*.md\", \"content/**/*.json\", \"src/**/*.tsx\"]\n",
    );
    // One large bilingual JSON file with thousands of strings and spans.
    let (big, spans) = bilingual_json(&mut rng, 4000);
    emit("content/data/agenda.json", &big);
    lock.files
        .insert("content/data/agenda.json".into(), entry(&big, spans));
    for i in 1..files {
        let bucket = i % 100;
        let (rel, text, spans) = if bucket < 60 {
            let size = 300 + rng.below(7700);
            let t = markdown(&mut rng, CS, size);
            (
                format!("content/cs/{:03}/doc{i}.md", i / 1000),
                t,
                Vec::new(),
            )
        } else if bucket < 90 {
            let size = 300 + rng.below(7700);
            let t = markdown(&mut rng, EN, size);
            let lines = t.lines().count() as u32;
            let last = t.lines().last().map_or(1, |l| l.chars().count().max(1)) as u32;
            let whole = Span {
                start_line: 1,
                start_column: 1,
                end_line: lines,
                end_column: last,
                language: "en".into(),
                kind: Kind::Prose,
                path_hint: Field::Null,
                note: Field::Null,
            };
            (
                format!("content/en/{:03}/doc{i}.md", i / 1000),
                t,
                vec![whole],
            )
        } else if bucket < 97 {
            let n = 5 + rng.below(60);
            let (t, s) = bilingual_json(&mut rng, n);
            (
                format!("content/data/{:03}/strings{i}.json", i / 1000),
                t,
                s,
            )
        } else {
            (
                format!("src/{:03}/Card{i}.tsx", i / 1000),
                TSX.to_string(),
                Vec::new(),
            )
        };
        emit(&rel, &text);
        lock.files.insert(rel, entry(&text, spans));
    }
    emit(
        ".copy-editor.lock.json",
        &lockfile::to_canonical_string(&lock),
    );
    lock
}

/// The soil root of `defs` definitions, handed to `emit` in order: `soil.toml`,
/// `ref/oracle.py`, then each definition's `.tr`, `.lock` and `.soil`, then each module's
/// `_private.soil`.
///
/// The `.soil` bodies are real Soil, calling their callees and helpers, and each lowering
/// records the `soil_hash` trellis would compute for it — except in the few call cycles
/// (and above them), where no content hash exists and consistent stand-ins are recorded.
pub fn soil_corpus(defs: usize, seed: u64, mut emit: impl FnMut(&str, &str)) {
    let mut rng = Rng(seed);
    emit(
        "soil.toml",
        "[toolchain]\ntrellis = \"0.1.0\"\nsoil0_cli = 1\n\n[tags]\napi = \"public API\"\ncore = \"the pipeline\"\n",
    );
    emit("ref/oracle.py", "def f(x):\n    return x\n");
    let ref_hash = spec_hash::oracle_digest(b"def f(x):\n    return x\n").to_string();
    let path_of = |i: usize| format!("m{:03}/d{i}", i / 50);
    let stand_in = |i: usize| ContentHash::of(format!("soil body {i}").as_bytes()).to_string();
    // The hash of one definition's text with these edges (its only free names are the
    // edges': callees, helpers and `F64`, a builtin type).
    let hash_of = |text: &str, file: &str, edges: &[(String, String)]| {
        let forms = lang::hash_forms(text, file).expect("generated Soil parses");
        lang::hash_form::soil_hash(&forms[0].text, edges).to_string()
    };
    let helper_text = |i: usize| format!("_h{i} : (x : F64) -> F64\n_h{i} x = x * 2.0\n");
    let helper_hash = |i: usize| hash_of(&helper_text(i), "_private.soil", &[]);
    let mut private: BTreeMap<String, String> = BTreeMap::new();
    let mut formal = Vec::with_capacity(defs);
    let mut calls: Vec<Vec<usize>> = vec![Vec::new(); defs];
    for (i, c) in calls.iter_mut().enumerate() {
        for _ in 0..rng.below(4) {
            if i > 0 {
                c.push(rng.below(i));
            }
        }
        c.sort_unstable();
        c.dedup();
    }
    // A few mutual-recursion pairs, late in the order: nothing has a content hash above
    // a cycle, and late definitions have few callers.
    for k in (10..defs).step_by(997).map(|k| defs + 9 - k) {
        calls[k - 1].push(k);
        if !calls[k].contains(&(k - 1)) {
            calls[k].push(k - 1);
        }
    }
    // Real hashes where every callee has one; a cycle member (its callee comes later)
    // and everything above it gets a stand-in.
    let mut hashes: Vec<Option<String>> = Vec::with_capacity(defs);
    for (i, callees) in calls.iter().enumerate() {
        let name = format!("d{i}");
        let helper = (i % 7 == 0).then(|| format!("_h{i}"));
        let mut body = String::from("x");
        for &c in callees {
            let _ = write!(body, " + d{c} x");
        }
        if let Some(h) = &helper {
            let _ = write!(body, " + {h} x");
        }
        let soil = format!("{name} : (x : F64) -> F64\n{name} x = {body}\n");
        let mut edges: Option<Vec<(String, String)>> = Some(Vec::new());
        for &c in callees {
            match (hashes.get(c).cloned().flatten(), &mut edges) {
                (Some(h), Some(e)) => e.push((format!("d{c}"), h)),
                _ => edges = None,
            }
        }
        if let (Some(h), Some(e)) = (&helper, &mut edges) {
            e.push((h.clone(), helper_hash(i)));
        }
        hashes.push(edges.map(|e| hash_of(&soil, &format!("{name}.soil"), &e)));
        let recorded = |c: usize, hashes: &[Option<String>]| match hashes.get(c) {
            Some(Some(h)) => h.clone(),
            _ => stand_in(c),
        };
        let text = format!(
            "---\nname: {name}\ntags: [{}]\n---\n\n# {name}\n\nComputes step {i} of the pipeline from its inputs.\n\n```soil-sig\n{name} : (x : F64) -> F64\n```\n\n```ensures\nfinite: is_finite result\n```\n\n```test basics\n(1.0) => {i}.0\n```\n",
            if i % 10 == 0 { "api" } else { "core" }
        );
        let parsed = tr::parse(&format!("{name}.tr"), &text);
        let h = spec_hash::spec_hashes(&parsed, &text);
        formal.push(h.formal.to_string());
        let blocks = parsed
            .blocks
            .iter()
            .map(|b| BlockAuthor {
                block: b.identity().into(),
                author: Author::Human,
            })
            .collect();
        let mut s = sidecar::default_for(
            &name,
            DefKind::Function,
            SpecHashes {
                formal: h.formal.into(),
                test: h.test.map(Into::into),
                prose: h.prose.into(),
            },
            blocks,
            Versions(vec![
                ("trellis".into(), "0.1.0".into()),
                ("soil".into(), "0.1".into()),
            ]),
        );
        s.lowering = Some(Lowering {
            soil_hash: recorded(i, &hashes).parse().unwrap(),
            provenance: LoweringProvenance::Agent,
            provider: Some("claude-code".into()),
            model: Some("claude-opus-4-7".into()),
            private_helpers: helper
                .iter()
                .map(|h| NameHash {
                    name: h.as_str().into(),
                    hash: helper_hash(i).parse().unwrap(),
                })
                .collect(),
            calls: callees
                .iter()
                .map(|&c| NameHash {
                    name: format!("d{c}").into(),
                    hash: recorded(c, &hashes).parse().unwrap(),
                })
                .collect(),
            decisions: None,
        });
        s.present.checks = true;
        s.checks.types = Some(TypeCheck::Ok);
        s.checks.refinements = Refinements::Clauses(
            [("finite".to_string(), ClauseState::Proven)]
                .into_iter()
                .collect(),
        );
        s.tests = vec![TestRow {
            name: "basics".into(),
            tier: Tier::Expect,
            mode: "sandboxed".into(),
            origin: Origin::Spec,
            result: TestResult::Pass,
        }];
        s.accepted = i % 20 == 0;
        if i % 20 == 5 && i >= 20 {
            let target = i - 5 - 20 * rng.below(i / 20);
            s.oracles.push(Oracle::Definition {
                name: path_of(target),
                formal_hash: formal[target].parse().unwrap(),
            });
        }
        if i % 50 == 3 {
            s.oracles.push(Oracle::Reference {
                path: "ref/oracle.py::f".into(),
                hash: ref_hash.parse().unwrap(),
            });
        }
        emit(&format!("{}.tr", path_of(i)), &text);
        emit(
            &format!("{}.lock", path_of(i)),
            &sidecar::to_canonical_string(&s),
        );
        emit(&format!("{}.soil", path_of(i)), &soil);
        if helper.is_some() {
            let module = format!("m{:03}", i / 50);
            let file = private.entry(module).or_default();
            if !file.is_empty() {
                file.push('\n');
            }
            file.push_str(&helper_text(i));
        }
    }
    for (module, text) in private {
        emit(&format!("{module}/_private.soil"), &text);
    }
}

// Beyond the `gen_corpus` example: inputs only the benches use.

/// A sentence of `min` to `min + spread - 1` words.
fn sentence_of(rng: &mut Rng, words: &[&str], min: usize, spread: usize) -> String {
    let n = min + rng.below(spread);
    sentence(rng, words, n)
}

/// A bilingual YAML document of `items` entries: an English plain scalar and a Czech
/// double-quoted one each, and on every fifth entry a literal block scalar.
pub fn bilingual_yaml(rng: &mut Rng, items: usize) -> String {
    let mut text = String::from("items:\n");
    for i in 0..items {
        let en = sentence_of(rng, EN, 5, 8);
        let cs = sentence_of(rng, CS, 5, 8);
        let _ = write!(
            text,
            "  - id: item-{i}\n    en:\n      title: {en}\n    cs:\n      title: \"{cs}\"\n"
        );
        if i % 5 == 0 {
            let a = sentence_of(rng, CS, 8, 8);
            let b = sentence_of(rng, CS, 8, 8);
            let _ = write!(text, "      description: |\n        {a}\n        {b}\n");
        }
    }
    text
}

/// A TSX module of `components` components, each with a Czech attribute string, JSX text,
/// an inline element, a string literal and a template literal.
pub fn tsx(rng: &mut Rng, components: usize) -> String {
    let mut text = String::from("import { useState } from \"react\";\n\n");
    for i in 0..components {
        let label = sentence_of(rng, CS, 3, 4);
        let intro = sentence_of(rng, CS, 8, 10);
        let more = sentence_of(rng, CS, 6, 8);
        let en = sentence_of(rng, EN, 6, 8);
        let _ = write!(
            text,
            "export function Card{i}({{ title }}: {{ title: string }}) {{\n  const [open, setOpen] = useState(false);\n  const hint = \"{en}\";\n  return (\n    <section className=\"card card-{i}\" title=\"{label}\">\n      <h2>{{title}}</h2>\n      <p>\n        {intro} <strong>{more}</strong>\n      </p>\n      <button onClick={{() => setOpen(!open)}}>{{`${{hint}} ({i})`}}</button>\n    </section>\n  );\n}}\n\n"
        );
    }
    text
}

/// One definition of a soil corpus: its identity and its three files.
pub struct SoilDef {
    pub path: String,
    pub tr: String,
    pub lock: String,
    pub soil: String,
}

/// The definitions of `soil_corpus(defs, seed)`, kept in memory.
pub fn soil_defs(defs: usize, seed: u64) -> Vec<SoilDef> {
    let mut out: Vec<SoilDef> = Vec::with_capacity(defs);
    soil_corpus(defs, seed, |rel, text| {
        if let Some(path) = rel.strip_suffix(".tr") {
            out.push(SoilDef {
                path: path.to_string(),
                tr: text.to_string(),
                lock: String::new(),
                soil: String::new(),
            });
        } else if let Some(def) = out.last_mut() {
            if rel.strip_suffix(".lock") == Some(&def.path) {
                def.lock = text.to_string();
            } else if rel.strip_suffix(".soil") == Some(&def.path) {
                def.soil = text.to_string();
            }
        }
    });
    assert_eq!(out.len(), defs, "one .tr per definition");
    out
}

/// The `_private.soil` files of `soil_corpus(defs, seed)`: module and text.
pub fn soil_privates(defs: usize, seed: u64) -> Vec<(String, String)> {
    let mut out = Vec::new();
    soil_corpus(defs, seed, |rel, text| {
        if let Some(module) = rel.strip_suffix("/_private.soil") {
            out.push((module.to_string(), text.to_string()));
        }
    });
    out
}
