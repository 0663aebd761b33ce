//! The rules catalogue (`docs/rules.md`), generated from the rules' own metadata so the
//! page never describes a rule that behaves differently.

use super::RuleSet;
use std::fmt::Write;

/// Markdown for the rules page: a title, an overview table, then one section per rule
/// with its doc and examples. Deterministic: the same set gives the same bytes.
pub fn catalogue_markdown(set: &RuleSet) -> String {
    let mut out = String::new();
    out.push_str("# Rules\n\n");
    out.push_str(
        "<!-- Generated from the rules' own docs and examples; edit the rule modules in \
         queries/src/copy/rules/, not this file. -->\n\n",
    );
    out.push_str(
        "Every rule below runs on prose only (Markdown markup, code and URLs are removed \
         before a rule sees the text) and only where the text's language is one of the \
         rule's languages, and only the rules of the profiles the config declares \
         (`extends`, else `language`) run. Each finding is reported at a 1-based line and \
         column counted in UTF-16 code units (an emoji counts as two columns). `copy-audit \
         --self-test` checks that every rule still fires on each *flagged* example, stays \
         silent on each *accepted* one, and that its fix cures its own finding.\n\n",
    );
    out.push_str(
        "Rules can be switched off (`rules.disable`) or re-levelled (`rules.severity`) in \
         `.copy-editor.yaml`; ids are stable.\n\n",
    );
    out.push_str("| Rule | Severity | Languages | Fix | Summary |\n");
    out.push_str("|---|---|---|---|---|\n");
    for rule in set.rules() {
        let m = rule.meta();
        let _ = writeln!(
            out,
            "| [`{id}`](#{anchor}) | {sev} | {langs} | {fix} | {summary} |",
            id = m.id,
            anchor = anchor(&m.id),
            sev = m.severity,
            langs = languages(&m.languages),
            fix = if m.fixable { "yes" } else { "no" },
            summary = m.summary.replace('|', "\\|"),
        );
    }
    for rule in set.rules() {
        let m = rule.meta();
        let _ = write!(
            out,
            "\n## `{id}`\n\n**Severity:** {sev} · **Languages:** {langs} · **Fix:** {fix}\n\n\
             {summary}\n\n{doc}\n",
            id = m.id,
            sev = m.severity,
            langs = languages(&m.languages),
            fix = if m.fixable { "yes" } else { "no" },
            summary = m.summary,
            doc = m.doc,
        );
        examples(&mut out, "Flagged", &m.bad);
        examples(&mut out, "Accepted", &m.good);
    }
    out
}

/// The GitHub heading anchor of ``## `id` ``: lowercase, backticks dropped.
fn anchor(id: &str) -> String {
    id.chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
        .flat_map(char::to_lowercase)
        .collect()
}

fn languages(langs: &[String]) -> String {
    if langs.is_empty() {
        "all".to_owned()
    } else {
        langs.join(", ")
    }
}

fn examples(out: &mut String, label: &str, texts: &[String]) {
    if texts.is_empty() {
        return;
    }
    let _ = write!(out, "\n{label}:\n");
    let mut invisible = false;
    for text in texts {
        let (shown, marked) = visible(text);
        invisible |= marked;
        let _ = write!(out, "\n```text\n{shown}\n```\n");
    }
    if invisible {
        out.push_str(
            "\n(`⍽` marks a no-break space U+00A0, `⟨code⟩` a code span or URL, `↵` a hard \
             line break.)\n",
        );
    }
}

/// The example as a reader of the page can see it, and whether anything was marked.
fn visible(text: &str) -> (String, bool) {
    let mut marked = false;
    let shown = text
        .chars()
        .map(|c| match c {
            '\u{A0}' => {
                marked = true;
                "⍽".to_owned()
            }
            '\u{FFFC}' => {
                marked = true;
                "⟨code⟩".to_owned()
            }
            '\u{2028}' => {
                marked = true;
                "↵\n".to_owned()
            }
            c => c.to_string(),
        })
        .collect();
    (shown, marked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_lists_every_rule_with_its_examples() {
        let set = RuleSet::builtin();
        let md = catalogue_markdown(&set);
        assert!(md.starts_with("# Rules\n"));
        for rule in set.rules() {
            let m = rule.meta();
            assert!(md.contains(&format!("| [`{}`](#{}) |", m.id, anchor(&m.id))));
            assert!(md.contains(&format!("\n## `{}`\n", m.id)));
            assert!(md.contains(&m.doc));
        }
        assert!(md.contains("| [`cs-R1-nbsp-prep`](#cs-r1-nbsp-prep) | error | cs | yes |"));
        assert!(
            md.contains("⍽"),
            "the no-break space in R1's good example is shown"
        );
        assert_eq!(md, catalogue_markdown(&RuleSet::builtin()));
    }

    /// `docs/rules.md` is this generator's output; a rule change that does not regenerate
    /// it fails here. `UPDATE_RULES_DOC=1 cargo test -p lockgraph-queries catalogue`
    /// rewrites the file.
    #[test]
    fn docs_rules_md_is_up_to_date() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/rules.md");
        let want = catalogue_markdown(&RuleSet::builtin());
        if std::env::var_os("UPDATE_RULES_DOC").is_some() {
            std::fs::write(&path, &want).expect("write docs/rules.md");
            return;
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "docs/rules.md is out of date; regenerate it with \
             `UPDATE_RULES_DOC=1 cargo test -p lockgraph-queries --lib catalogue`"
        );
    }

    #[test]
    fn visible_marks_invisible_characters() {
        assert_eq!(visible("v\u{A0}lese"), ("v⍽lese".to_owned(), true));
        assert_eq!(visible("plain"), ("plain".to_owned(), false));
    }
}
