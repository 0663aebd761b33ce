//! Character indices into byte offsets: the parser counts characters, views count bytes.

/// Character index → byte offset, for parser markers that count characters.
///
/// Markers mostly move forward, so a lookup walks on from the previous one; a lookup
/// behind it starts from a checkpoint (the byte offset of every 256th character), so no
/// lookup walks far and the table stays small for large files.
pub(super) struct CharIndex<'a> {
    text: &'a str,
    checkpoints: Option<Vec<usize>>,
    /// The previous lookup: character index and byte offset.
    last: std::cell::Cell<(usize, usize)>,
}

const STRIDE: usize = 256;

impl<'a> CharIndex<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        let checkpoints = (!text.is_ascii()).then(|| {
            text.char_indices()
                .step_by(STRIDE)
                .map(|(i, _)| i)
                .collect()
        });
        CharIndex {
            text,
            checkpoints,
            last: std::cell::Cell::new((0, 0)),
        }
    }

    pub(super) fn byte(&self, char_index: usize) -> usize {
        let Some(checkpoints) = &self.checkpoints else {
            return char_index.min(self.text.len());
        };
        let (last_char, last_byte) = self.last.get();
        let (from_char, from_byte) = if char_index >= last_char && char_index - last_char < STRIDE {
            (last_char, last_byte)
        } else {
            match checkpoints.get(char_index / STRIDE) {
                Some(&b) => (char_index - char_index % STRIDE, b),
                None => return self.text.len(),
            }
        };
        let byte = self.text[from_byte..]
            .char_indices()
            .nth(char_index - from_char)
            .map_or(self.text.len(), |(i, _)| from_byte + i);
        self.last.set((char_index, byte));
        byte
    }
}
