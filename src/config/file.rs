//! Finding the config file and reading it: the part of the config that touches the file
//! system.

use super::{CONFIG_FILE_NAME, Config, ConfigError};
use std::path::{Path, PathBuf};

/// Checks the config text read from `path`, with Layer 2 files looked up on disk.
pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
    lockgraph_queries::copy::config::parse(text, path, &|file| file.exists())
}

/// Reads and checks a config file. The language may still be missing: see
/// [`Config::with_language_override`].
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = crate::fsutil::read_regular_to_string(path)
        .map_err(|e| ConfigError::at(path, None, format!("cannot read the config: {e}")))?;
    parse(&text, path)
}

/// The nearest `.copy-editor.yaml` in `start` or one of its ancestors. `start` should be
/// absolute: a relative path is only walked up as far as it goes.
pub fn discover(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join(CONFIG_FILE_NAME))
        .find(|candidate| candidate.is_file())
}
