//! How a config mistake is reported: one sentence, after the file and, where the YAML
//! parser knows it, the line and column (a mistake on the command line has neither).

use serde_saphyr::{Location, MessageFormatter, UserMessageFormatter};
use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The config file; `None` for mistakes on the command line.
    pub path: Option<PathBuf>,
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub message: String,
}

impl ConfigError {
    /// An error in the file at `path`; a location the parser does not know (line 0) is
    /// left out rather than shown as `:0:0`.
    pub fn at(path: &Path, location: Option<Location>, message: impl Into<String>) -> ConfigError {
        let known = location.filter(|l| l.line() > 0);
        ConfigError {
            path: Some(path.to_path_buf()),
            line: known.map(|l| l.line()),
            column: known.map(|l| l.column()),
            message: message.into(),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.path {
            write!(f, "{}", path.display())?;
            if let Some(line) = self.line {
                write!(f, ":{line}")?;
                if let Some(column) = self.column {
                    write!(f, ":{column}")?;
                }
            }
            f.write_str(": ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

/// What the YAML parser refused, in the words of the config's author rather than the
/// parser's, on one line.
pub(super) fn yaml_error(path: &Path, e: &serde_saphyr::Error) -> ConfigError {
    let e = e.without_snippet();
    // The parser names its internal events; say what the author has to write instead.
    let message = match e {
        serde_saphyr::Error::Unexpected {
            expected: "sequence start",
            ..
        } => "expected a list here".to_owned(),
        serde_saphyr::Error::Unexpected {
            expected: "mapping start",
            ..
        } => "expected a mapping here".to_owned(),
        _ => UserMessageFormatter
            .format_message(e)
            .chars()
            .flat_map(|c| {
                let escaped: Vec<char> = if c.is_control() {
                    c.escape_debug().collect()
                } else {
                    vec![c]
                };
                escaped
            })
            .collect(),
    };
    ConfigError::at(path, e.location(), message)
}
