//! The generated text as the check reads it: its lines, and the byte where a UTF-16 column lands on one.

use super::evidence::{is_word, on_token, Landing};
use crate::bundle::columns::{byte_with_table, line_starts, utf16_table, LineIndex};

/// The generated text as lines, with UTF-16 columns turned into byte offsets.
pub(super) struct FitText<'a> {
    pub(super) bytes: &'a [u8],
    /// Byte offset where each line starts; one more entry, the end of the text (+1), closes the last line. (4 B a
    /// line: texts are read up to 1 GB; `check_fit` refuses larger ones.)
    pub(super) starts: std::borrow::Cow<'a, [u32]>,
    /// Per line: 0 not looked at, 1 ASCII, 2 not ASCII (its table is in `tables`).
    kind: Vec<u8>,
    /// The non-ASCII lines' tables, sorted by line: segments come in generated order, so the line asked is nearly
    /// always the last one here, where a hash map took a SipHash per segment (110 cold crash events, whole process,
    /// 4 runs in turn: 1.53–1.66 s with the hash map, 1.48–1.63 s with this; docs/PERFORMANCE.md).
    tables: Vec<(u32, Box<[u32]>)>,
    /// Line starts and tables built once for the text and shared (`kind` and `tables` are then unused).
    shared: Option<&'a LineIndex>,
}

impl<'a> FitText<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        let starts = line_starts(bytes);
        let lines = starts.len() - 1;
        FitText {
            bytes,
            starts: starts.into(),
            kind: vec![0; lines],
            tables: Vec::new(),
            shared: None,
        }
    }

    /// The text's lines as `index` (built from `bytes`) has them.
    pub(super) fn shared(bytes: &'a [u8], index: &'a LineIndex) -> Self {
        FitText {
            bytes,
            starts: index.starts().into(),
            kind: Vec::new(),
            tables: Vec::new(),
            shared: Some(index),
        }
    }

    pub(super) fn line_count(&self) -> usize {
        self.starts.len() - 1
    }

    /// Line `n`'s bytes, without its terminator.
    pub(super) fn line(&self, n: usize) -> &'a [u8] {
        let start = self.starts[n] as usize;
        let mut end = (self.starts[n + 1] as usize - 1).min(self.bytes.len());
        if end > start && self.bytes[end - 1] == b'\r' {
            end -= 1;
        }
        &self.bytes[start..end]
    }

    /// The byte of the text a segment at (line, UTF-16 column) landed on `landing` asks about: its own byte, or its
    /// line's end (the terminator) when it landed past it.
    pub(super) fn byte_asked(&mut self, line: u32, column: u32, landing: Landing) -> Option<usize> {
        let n = line as usize;
        let end = self.starts[n + 1] as usize - 1;
        match landing {
            Landing::PastLineEnd => Some(end),
            _ => {
                let text = self.line(n);
                Some(self.starts[n] as usize + self.byte_of(n, text, column)?)
            }
        }
    }

    /// Where a segment at (line, UTF-16 column) lands.
    pub(super) fn landing(&mut self, line: u32, column: u32, name: Option<&str>) -> Landing {
        self.landing_read(line, column, name, Columns::Utf16)
    }

    /// Where a segment at (line, column) lands, its column read as `columns` says.
    pub(super) fn landing_read(
        &mut self,
        line: u32,
        column: u32,
        name: Option<&str>,
        columns: Columns,
    ) -> Landing {
        let n = line as usize;
        if n >= self.line_count() {
            return Landing::BeyondText;
        }
        let text = self.line(n);
        let byte = match columns {
            Columns::Utf16 => self.byte_of(n, text, column),
            // Inside a character's UTF-8 bytes it lands mid-word (`is_word`: every non-ASCII byte is).
            Columns::Utf8Bytes => ((column as usize) <= text.len()).then_some(column as usize),
        };
        let Some(byte) = byte else {
            return Landing::PastLineEnd;
        };
        if byte == text.len() {
            return Landing::LineEnd;
        }
        if byte > 0 && is_word(text[byte - 1]) && is_word(text[byte]) {
            return Landing::MidIdentifier;
        }
        match name {
            Some(name) if name.len() >= 3 && on_token(text, byte, name.as_bytes()) => {
                Landing::OnItsName
            }
            _ => Landing::TokenStart,
        }
    }

    /// The byte offset of UTF-16 `column` in line `n` (`text`); `None` past its end (`bundle::columns`).
    pub(super) fn byte_of(&mut self, n: usize, text: &[u8], column: u32) -> Option<usize> {
        if let Some(index) = self.shared {
            return match index.table(n as u32) {
                None => ((column as usize) <= text.len()).then_some(column as usize),
                Some(table) => byte_with_table(text, table, column),
            };
        }
        if self.kind[n] == 0 {
            self.kind[n] = if text.is_ascii() { 1 } else { 2 };
            if self.kind[n] == 2 {
                let at = self
                    .tables
                    .partition_point(|(line, _)| (*line as usize) < n);
                self.tables.insert(at, (n as u32, utf16_table(text)));
            }
        }
        if self.kind[n] == 1 {
            return ((column as usize) <= text.len()).then_some(column as usize);
        }
        let table = match self.tables.last() {
            Some((line, table)) if *line as usize == n => table,
            _ => {
                let at = self
                    .tables
                    .binary_search_by_key(&(n as u32), |(line, _)| *line)
                    .expect("a non-ASCII line's table is built when it is first looked at");
                &self.tables[at].1
            }
        };
        byte_with_table(text, table, column)
    }
}

/// How a map's generated columns are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Columns {
    /// UTF-16 code units, as the format says (ECMA-426 §"Mappings": "the 0-based starting column of the line in the
    /// generated code", in UTF-16 code units, as every JS engine reports columns).
    Utf16,
    /// UTF-8 bytes: what some producers count after a non-ASCII character (`ByteColumns`).
    Utf8Bytes,
}
