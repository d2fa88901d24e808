//! LSP positions ↔ index positions, in one place.
//!
//! The server negotiates `utf-16` (LSP's default and the only encoding VS Code offers), which is also the unit of
//! source-map columns, so a column passes through unchanged; lines are 0-based on both sides. Original positions
//! (in the original source) use the same units. The one conversion that needs text is a byte offset in a file
//! (where a map error sits) to an LSP position: that is `offset_to_position`.

use sourcemap_core::GeneratedPosition;
use tower_lsp::lsp_types::Position;

pub fn to_generated(p: Position) -> GeneratedPosition {
    GeneratedPosition {
        line: p.line,
        column: p.character,
    }
}

pub fn to_lsp(line: u32, column: u32) -> Position {
    Position::new(line, column)
}

/// A span of an answer (`answers::LineSpan`: 0-based line, UTF-16 columns) as an LSP range.
pub fn span_to_lsp(span: crate::answers::LineSpan) -> tower_lsp::lsp_types::Range {
    tower_lsp::lsp_types::Range::new(to_lsp(span.line, span.start), to_lsp(span.line, span.end))
}

/// The LSP (UTF-16) position of byte `offset` in `text`; past the end clamps to the end.
pub fn offset_to_position(text: &[u8], offset: usize) -> Position {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line_start = memchr_last_newline(before).map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() as u32;
    let column: usize = String::from_utf8_lossy(&before[line_start..])
        .encode_utf16()
        .count();
    Position::new(line, column as u32)
}

fn memchr_last_newline(b: &[u8]) -> Option<usize> {
    b.iter().rposition(|&c| c == b'\n')
}

/// Number of UTF-16 code units in `s`.
pub fn utf16_len(s: &str) -> u32 {
    s.encode_utf16().count() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_offsets_become_utf16_positions() {
        let text = "ab\né🎉x";
        // 'x' is at byte 3 + 2 (é) + 4 (🎉) = 9; UTF-16 column 1 + 2 = 3.
        assert_eq!(offset_to_position(text.as_bytes(), 9), Position::new(1, 3));
        assert_eq!(offset_to_position(text.as_bytes(), 0), Position::new(0, 0));
        assert_eq!(
            offset_to_position(text.as_bytes(), 999),
            Position::new(1, 4)
        );
        assert_eq!(utf16_len("é🎉x"), 4);
    }

    /// `$0` marks the byte offset; the position is counted in UTF-16 units from its line's start.
    #[test]
    fn marked_offsets_as_positions() {
        let cases = [
            ("$0abc", (0, 0)),
            ("ab$0c", (0, 2)),
            ("a\nb\n$0", (2, 0)),
            ("x\r\n$0y", (1, 0)),
            ("é$0", (0, 1)),
            ("🎉$0z", (0, 2)),
            ("\u{10000}\u{10000}\n\u{10000}$0", (1, 2)),
        ];
        for (marked, (line, character)) in cases {
            let at = marked.find("$0").unwrap();
            let text = marked.replace("$0", "");
            assert_eq!(
                offset_to_position(text.as_bytes(), at),
                Position::new(line, character),
                "{marked:?}"
            );
        }
    }
}
