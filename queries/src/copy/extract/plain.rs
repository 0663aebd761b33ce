//! Plain text: the whole file is one view.
//!
//! Nothing is decoded, so the view is the file itself, except that a byte order mark is
//! not text and a `\r\n` line ending reads as `\n` (as it does in every other format).

use super::{Draft, bom_len};
use crate::copy::view::{View, ViewRole};

pub(super) fn extract(text: &str) -> Vec<View> {
    let start = bom_len(text);
    let mut draft = Draft::new();
    draft.verbatim_lf(&text[start..], start);
    draft
        .into_view_unless_empty(ViewRole::Text, None, None)
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy::extract::testing::assert_maps_back;

    #[test]
    fn the_whole_file_is_one_verbatim_view() {
        let src = "Ahoj, v lese.\nDruhý řádek.\n";
        let views = extract(src);
        assert_eq!(views.len(), 1);
        assert_eq!(views[0].text, src);
        assert!(views[0].is_verbatim(0..src.len()));
        assert_eq!(views[0].path_hint, None);
        assert_maps_back(src, &views);
    }

    #[test]
    fn crlf_and_bom_are_not_text() {
        let src = "\u{FEFF}a v\r\nlese\r\n";
        let views = extract(src);
        assert_eq!(views[0].text, "a v\nlese\n");
        let nl = views[0].text.find('\n').unwrap();
        assert_eq!(views[0].source_range(nl..nl + 1), 6..8);
        assert_eq!(views[0].source_offset(0), 3);
        assert_maps_back(src, &views);
    }

    #[test]
    fn an_empty_file_has_no_view() {
        assert!(extract("").is_empty());
        assert!(extract("\u{FEFF}").is_empty());
    }
}
