//! Assertions shared by the extractor tests.

use crate::copy::view::View;

/// Every view maps each of its characters into `src` on character boundaries, in order,
/// and every verbatim character is the same bytes in the source.
pub(crate) fn assert_maps_back(src: &str, views: &[View]) {
    for view in views {
        let mut last = 0;
        for (i, c) in view.text.char_indices() {
            let r = view.source_range(i..i + c.len_utf8());
            assert!(
                r.start <= r.end && r.end <= src.len(),
                "{:?}: char {i} {c:?} maps to {r:?} outside 0..{}",
                view.text,
                src.len()
            );
            assert!(
                src.is_char_boundary(r.start) && src.is_char_boundary(r.end),
                "{:?}: char {i} {c:?} maps to {r:?}, not on a char boundary",
                view.text
            );
            assert!(
                r.start >= last,
                "{:?}: char {i} {c:?} maps to {r:?}, before {last}",
                view.text
            );
            last = r.start;
            if view.is_verbatim(i..i + c.len_utf8()) {
                assert_eq!(
                    &src[r.clone()],
                    c.encode_utf8(&mut [0; 4]),
                    "{:?}: verbatim char {i} maps to {r:?}",
                    view.text
                );
            }
        }
        let end = view.source_offset(view.text.len());
        assert!(end <= src.len() && end >= last);
    }
}

/// The source text a view range stands for.
pub(crate) fn src_of<'a>(src: &'a str, view: &View, needle: &str) -> &'a str {
    let at = view
        .text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in {:?}", view.text));
    &src[view.source_range(at..at + needle.len())]
}

/// Texts of `views`.
pub(crate) fn texts(views: &[View]) -> Vec<&str> {
    views.iter().map(|v| v.text.as_str()).collect()
}

/// Path hints of `views`.
pub(crate) fn hints(views: &[View]) -> Vec<Option<&str>> {
    views.iter().map(|v| v.path_hint.as_deref()).collect()
}
