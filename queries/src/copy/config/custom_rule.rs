//! Custom rules, each checked as it is read (a valid regex, a known severity, languages and
//! kinds, a replacement that does not match its own pattern), so that a mistake is refused
//! at the rule's position in the file.

use super::raw::RawCustomRule;
use super::{ConfigError, CustomRuleConfig, SEVERITIES, is_code};
use crate::copy::lockfile::Kind;
use serde_saphyr::Spanned;
use std::path::Path;

/// `custom_rules`: every rule checked, an error placed at the rule's line, and no id used
/// twice (the rule table is keyed by id).
pub(super) fn custom_rules(
    path: &Path,
    raw: Option<Vec<Spanned<RawCustomRule>>>,
) -> Result<Vec<CustomRuleConfig>, ConfigError> {
    let mut custom_rules: Vec<CustomRuleConfig> = Vec::new();
    for rule in raw.unwrap_or_default() {
        let at = rule.referenced;
        let rule =
            custom_rule(rule.value).map_err(|message| ConfigError::at(path, Some(at), message))?;
        if custom_rules.iter().any(|r| r.id == rule.id) {
            return Err(ConfigError::at(
                path,
                Some(at),
                format!("custom rule id `{}` is used twice", rule.id),
            ));
        }
        custom_rules.push(rule);
    }
    Ok(custom_rules)
}

/// What a replacement writes whatever the match: its text without the capture references
/// (`$1`, `$name`, `${name}`), `$$` being a `$`.
pub(super) fn replacement_literal(replacement: &str) -> String {
    let mut out = String::new();
    let mut rest = replacement;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        rest = if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            tail
        } else if let Some(braced) = after.strip_prefix('{') {
            braced.find('}').map_or("", |end| &braced[end + 1..])
        } else {
            after.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_')
        };
    }
    out.push_str(rest);
    out
}

/// One rule checked; the error is the message alone, which [`custom_rules`] places at
/// the rule.
fn custom_rule(raw: RawCustomRule) -> Result<CustomRuleConfig, String> {
    let id = raw.id;
    if id.trim().is_empty() {
        return Err("a custom rule has an empty `id`".to_owned());
    }
    if !SEVERITIES.contains(&raw.severity.as_str()) {
        return Err(format!(
            "severity `{}` of custom rule `{id}` is not error, warning or info",
            raw.severity
        ));
    }
    let pattern = match regex::Regex::new(&raw.pattern) {
        Ok(pattern) => pattern,
        Err(e) => {
            // The regex error draws a caret diagram over several lines; keep its last line.
            let shown = e.to_string();
            let last = shown.lines().last().unwrap_or_default().trim();
            let reason = last.strip_prefix("error: ").unwrap_or(last).to_owned();
            return Err(format!(
                "the pattern of custom rule `{id}` is not a valid regex: {reason}"
            ));
        }
    };
    if let Some(replacement) = &raw.replacement
        && let literal = replacement_literal(replacement)
        && pattern.find_iter(&literal).any(|m| !m.is_empty())
    {
        return Err(format!(
            "the replacement of custom rule `{id}` matches its own pattern: each fix would \
             make another, and `--fix` would never settle"
        ));
    }
    // An empty list would read as "nowhere"; leaving the key out says "everywhere".
    for (name, list) in [("languages", &raw.languages), ("kinds", &raw.kinds)] {
        if list.as_ref().is_some_and(Vec::is_empty) {
            return Err(format!(
                "custom rule `{id}`: `{name}` is an empty list; leave it out to apply everywhere"
            ));
        }
    }
    if let Some(bad) = raw.languages.iter().flatten().find(|l| !is_code(l)) {
        return Err(format!(
            "custom rule `{id}`: language `{bad}` is not a two-letter language code"
        ));
    }
    if let Some(bad) = raw
        .kinds
        .iter()
        .flatten()
        .find(|k| Kind::parse(k).is_none())
    {
        return Err(format!(
            "custom rule `{id}`: kind `{bad}` is not prose, code, quote or data"
        ));
    }
    Ok(CustomRuleConfig {
        id,
        pattern: raw.pattern,
        message: raw.message,
        severity: raw.severity,
        languages: raw.languages.unwrap_or_default(),
        kinds: raw.kinds.unwrap_or_default(),
        replacement: raw.replacement,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replacement_literal_leaves_out_capture_references() {
        assert_eq!(replacement_literal("x${1}y${name}z$$w$name"), "xyz$w");
        // As the regex crate reads it, `$1y` names a group `1y`.
        assert_eq!(replacement_literal("x$1y"), "x");
    }
}
