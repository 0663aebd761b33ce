//! Extraction: from a file's text to the prose views a reader sees.
