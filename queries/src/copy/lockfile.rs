//! The `.copy-editor.lock.json` model.
