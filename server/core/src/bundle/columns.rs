//! UTF-16 columns to byte offsets in a line of UTF-8 text: the one conversion, used wherever a map's or an engine's
//! column meets the bytes of a bundle (the fit check, bundle composition).
//!
//! Maps count columns in UTF-16 code units (ECMA-426); text is UTF-8 bytes. An ASCII line needs no conversion. Any
//! other line gets, once, a table of the byte offset of every [`TABLE_STEP`]-th UTF-16 unit, and a query walks at
//! most that many characters from its entry: so a minified bundle whose one line holds a single `é` costs one pass
//! over that line, not one pass per segment (`explore` on terser's 71 KB `lodash.min.js`, 9 long lines with
//! non-ASCII characters, walked each line from its start for every segment: 5.4 s, docs/PERFORMANCE.md).

/// UTF-16 units between the entries of a non-ASCII line's table.
pub const TABLE_STEP: u32 = 32;

/// One line's columns: direct on an ASCII line, through a table built once on any other.
pub struct LineColumns<'a> {
    line: &'a [u8],
    table: Option<Box<[u32]>>,
}

impl<'a> LineColumns<'a> {
    /// The columns of `line` (one line's bytes, without its terminator); a non-ASCII line's table is built here.
    pub fn new(line: &'a [u8]) -> Self {
        LineColumns {
            line,
            table: (!line.is_ascii()).then(|| utf16_table(line)),
        }
    }

    /// The byte offset of UTF-16 `column`; `None` past the line's end. A column inside a surrogate pair is the pair's
    /// end.
    pub fn byte(&self, column: u32) -> Option<usize> {
        match &self.table {
            None => ((column as usize) <= self.line.len()).then_some(column as usize),
            Some(table) => byte_with_table(self.line, table, column),
        }
    }

    /// [`LineColumns::byte`], the line's length past its end.
    pub fn byte_or_end(&self, column: u32) -> usize {
        self.byte(column).unwrap_or(self.line.len())
    }
}

/// The byte offset of UTF-16 `column` in a non-ASCII `line` whose [`utf16_table`] is `table`; `None` past its end.
pub fn byte_with_table(line: &[u8], table: &[u32], column: u32) -> Option<usize> {
    let column = column as usize;
    let step = TABLE_STEP as usize;
    let (entry, e) = match table {
        // A line of 2 GB or more has no table: walked from its start.
        [] => (0, 0),
        _ => (column / step, *table.get(column / step)?),
    };
    let (mut byte, mut units) = (
        (e & !EARLY) as usize,
        entry * step - usize::from(e & EARLY != 0),
    );
    while units < column {
        // Eight ASCII characters at a time while all of them come before the column: minified code is mostly ASCII
        // even on a line that is not (this walk was three quarters of the fit check's landing test on such lines,
        // `perf annotate`). The walk stays on characters' first bytes: an ASCII run ends at one.
        if column - units >= 8 {
            if let Some(chunk) = line.get(byte..byte + 8) {
                let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
                if w & 0x8080_8080_8080_8080 == 0 {
                    units += 8;
                    byte += 8;
                    continue;
                }
            }
        }
        let b = *line.get(byte)?;
        let len = utf8_len(b);
        units += if len == 4 { 2 } else { 1 };
        byte += len;
    }
    (byte <= line.len()).then_some(byte)
}

/// The length of the UTF-8 sequence a lead byte starts (1 for a continuation byte, so a walk always advances).
fn utf8_len(b: u8) -> usize {
    match b {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// Marks a table entry whose unit is the second half of a surrogate pair: the entry is the pair's start, one unit
/// before the entry's own unit.
const EARLY: u32 = 1 << 31;

/// The byte offset of every `TABLE_STEP`-th UTF-16 unit of a line; where that unit is the second half of a surrogate
/// pair, the pair's start, marked `EARLY`. (Recording the byte after the pair instead, as this table once did, put
/// every column up to the next entry one character late: the fit check and composition on lines with emoji.) Empty
/// for a line of 2 GB or more, whose offsets would meet the mark.
pub fn utf16_table(text: &[u8]) -> Box<[u32]> {
    if text.len() >= EARLY as usize {
        return Box::new([]);
    }
    // A character's units are counted at its lead byte (every byte but continuations; a 4-byte lead counts two), so
    // 8 bytes at a time can be skipped when no entry falls inside them (the first table took a third of the fit check
    // on a 95 MB non-ASCII line: bench `--fit-only`, hostile pairs).
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut table = vec![0u32];
    let (mut i, mut units, mut next) = (0usize, 0u32, TABLE_STEP);
    while i < text.len() {
        if let Some(chunk) = text.get(i..i + 8) {
            let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            let continuation = w & HIGH & !((w << 1) & HIGH);
            let four_byte_lead = w & (w << 1) & (w << 2) & (w << 3) & HIGH;
            let chunk_units = 8 - continuation.count_ones() + four_byte_lead.count_ones();
            if units + chunk_units < next {
                units += chunk_units;
                i += 8;
                continue;
            }
        }
        let b = text[i];
        if b & 0xC0 != 0x80 {
            while units >= next {
                table.push(i as u32);
                next += TABLE_STEP;
            }
            let width = if b >= 0xF0 { 2 } else { 1 };
            if width == 2 && units + 1 == next {
                table.push(i as u32 | EARLY);
                next += TABLE_STEP;
            }
            units += width;
        }
        i += 1;
    }
    while units >= next {
        table.push(text.len() as u32);
        next += TABLE_STEP;
    }
    table.into_boxed_slice()
}

/// Byte offset where each line of `bytes` starts, then its end + 1 (so line `n` is `starts[n]..starts[n + 1] - 1`).
///
/// On x86_64, 64 bytes at a time: the newlines' bit mask (SSE2), each set bit a start. A Metro dev bundle has a line
/// every ~40 bytes, where `memchr_iter` paid its per-match setup 1.4 million times (and a counting pass before it):
/// the real Metro build's 57 MB took 29.5–35.3 ms, 14.3–17.7 ms so (`sourcemap-bench --lines-only --samples 7`).
pub fn line_starts(bytes: &[u8]) -> Vec<u32> {
    #[cfg(target_arch = "x86_64")]
    {
        line_starts_blocks(bytes)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        line_starts_memchr(bytes)
    }
}

/// [`line_starts`] with `memchr` (every target; the reference the block scan is tested against).
pub fn line_starts_memchr(bytes: &[u8]) -> Vec<u32> {
    // Sized exactly (a count first): grown by doubling, the steps stayed in the server's heap.
    let mut starts = Vec::with_capacity(memchr::memchr_iter(b'\n', bytes).count() + 2);
    starts.push(0u32);
    starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i as u32 + 1));
    starts.push(bytes.len() as u32 + 1);
    starts
}

#[cfg(target_arch = "x86_64")]
fn line_starts_blocks(bytes: &[u8]) -> Vec<u32> {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    let newlines = |chunk: &[u8]| -> u64 {
        assert!(chunk.len() >= 64);
        let mut mask = 0u64;
        // SAFETY: SSE2 is part of every x86_64 target; each unaligned load reads 16 bytes inside `chunk` (checked
        // above).
        unsafe {
            let nl = _mm_set1_epi8(b'\n' as i8);
            for k in 0..4 {
                let v = _mm_loadu_si128(chunk.as_ptr().add(16 * k) as *const __m128i);
                mask |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)) as u16) << (16 * k);
            }
        }
        mask
    };
    // Room for a line every 32 bytes, then trimmed to what was found: one pass instead of a count first.
    let mut starts = Vec::with_capacity(bytes.len() / 32 + 2);
    starts.push(0u32);
    let mut blocks = bytes.chunks_exact(64);
    let mut base = 0u32;
    for chunk in &mut blocks {
        let mut mask = newlines(chunk);
        while mask != 0 {
            starts.push(base + mask.trailing_zeros() + 1);
            mask &= mask - 1;
        }
        base += 64;
    }
    let rest = blocks.remainder();
    starts.extend(memchr::memchr_iter(b'\n', rest).map(|i| base + i as u32 + 1));
    starts.push(bytes.len() as u32 + 1);
    starts.shrink_to_fit();
    starts
}

/// The non-ASCII lines' tables of a text whose line starts are `starts`, every line checked on its own: how
/// [`LineIndex::new`] found them before it went from one non-ASCII byte to the next (the reference its property test
/// holds it to, and the benchmark's baseline).
pub fn tables_line_by_line(bytes: &[u8], starts: &[u32]) -> Vec<(u32, Box<[u32]>)> {
    starts
        .windows(2)
        .enumerate()
        .filter_map(|(n, w)| {
            let line = &bytes[w[0] as usize..(w[1] as usize - 1).min(bytes.len())];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            (!line.is_ascii()).then(|| (n as u32, utf16_table(line)))
        })
        .collect()
}

/// The non-ASCII lines' tables of `bytes`, whose line starts are `starts`: from one non-ASCII byte to the next, each
/// time to the line after it (an ASCII text is read once, fast, not line by line: 1.4 million lines in a Metro dev
/// bundle).
fn tables_of(bytes: &[u8], starts: &[u32]) -> Vec<(u32, Box<[u32]>)> {
    let mut tables = Vec::new();
    let mut from = 0;
    while let Some(p) = next_non_ascii(bytes, from) {
        let n = starts.partition_point(|&s| s as usize <= p) - 1;
        let (start, next) = (starts[n] as usize, starts[n + 1] as usize);
        let line = &bytes[start..(next - 1).min(bytes.len())];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        tables.push((n as u32, utf16_table(line)));
        from = next;
    }
    tables
}

/// The first byte at or after `from` that is not ASCII.
fn next_non_ascii(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < bytes.len() {
        let end = (i + 256).min(bytes.len());
        if !bytes[i..end].is_ascii() {
            return bytes[i..end]
                .iter()
                .position(|b| !b.is_ascii())
                .map(|k| i + k);
        }
        i = end;
    }
    None
}

/// A text's line starts and its non-ASCII lines' [`utf16_table`]s, built once in one pass and shared by every reader
/// of the text: a pipeline's warm events weigh the same bundle's lines at every event (`fit::frames_evidence`), which
/// found the line starts and scanned each line asked for non-ASCII bytes again each time (14 % of a warm event on
/// the round-trip corpus's 3,300, `perf`; issue 56). Kept under the cache's budget ([`LineIndex::heap_bytes`]).
pub struct LineIndex {
    /// Byte offset where each line starts, then the text's end + 1 (as `fit`'s `Text`).
    starts: Box<[u32]>,
    /// The non-ASCII lines' tables, by line: every other line is ASCII.
    tables: Box<[(u32, Box<[u32]>)]>,
}

/// Counts, not the million entries.
impl std::fmt::Debug for LineIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineIndex")
            .field("lines", &(self.starts.len().saturating_sub(1)))
            .field("non_ascii_lines", &self.tables.len())
            .finish()
    }
}

impl LineIndex {
    /// The index of `bytes` (up to 4 GB: line starts are 32-bit, as everywhere the fit check reads a text).
    pub fn new(bytes: &[u8]) -> LineIndex {
        let starts = line_starts(bytes);
        LineIndex {
            tables: tables_of(bytes, &starts).into_boxed_slice(),
            starts: starts.into_boxed_slice(),
        }
    }

    /// The index of `bytes` whose line starts (as [`line_starts`] gives them) were found already: by the transport's
    /// unescaping of a large `didOpen` (`literal::unescape_string_in_place`). Only the non-ASCII lines'
    /// tables are found here. `starts` must be `line_starts(bytes)` (checked in debug builds).
    pub fn from_line_starts(bytes: &[u8], starts: Vec<u32>) -> LineIndex {
        debug_assert_eq!(starts, line_starts(bytes));
        LineIndex {
            tables: tables_of(bytes, &starts).into_boxed_slice(),
            starts: starts.into_boxed_slice(),
        }
    }

    /// Where each line starts, then the text's end + 1.
    pub fn starts(&self) -> &[u32] {
        &self.starts
    }

    /// Line `n`'s table; `None` for an ASCII line.
    pub fn table(&self, n: u32) -> Option<&[u32]> {
        let at = self
            .tables
            .binary_search_by_key(&n, |(line, _)| *line)
            .ok()?;
        Some(&self.tables[at].1)
    }

    /// What it holds on the heap, as the cache's budget counts it.
    pub fn heap_bytes(&self) -> usize {
        self.starts.len() * 4
            + self
                .tables
                .iter()
                .map(|(_, t)| std::mem::size_of::<(u32, Box<[u32]>)>() + t.len() * 4)
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The walk from the line's start, as composition did it: the reference.
    fn walked(line: &[u8], column: u32) -> usize {
        let (mut units, mut i) = (0u32, 0usize);
        while i < line.len() && units < column {
            let len = utf8_len(line[i]);
            units += if len == 4 { 2 } else { 1 };
            i += len;
        }
        i.min(line.len())
    }

    proptest! {
        /// Newlines anywhere in or across 64-byte blocks, `\r\n`, non-ASCII lines among ASCII ones, lines longer than
        /// a block: the block scan finds what `memchr` finds, and the index what a line-by-line check found.
        #[test]
        fn line_starts_and_non_ascii_lines_as_found_line_by_line(
            text in "([a-z]{0,90}|\r|\n|\n\n|\u{e9}|\u{1f389}){0,200}",
        ) {
            let bytes = text.as_bytes();
            prop_assert_eq!(line_starts(bytes), line_starts_memchr(bytes));
            let index = LineIndex::new(bytes);
            prop_assert_eq!(&index.starts[..], &line_starts_memchr(bytes)[..]);
            prop_assert_eq!(index.tables.to_vec(), tables_line_by_line(bytes, &line_starts_memchr(bytes)));
        }

        #[test]
        fn the_table_agrees_with_the_walk(text in "[a-z \u{e9}\u{20ac}\u{1f389}]{0,300}", column in 0u32..400) {
            let line = text.as_bytes();
            prop_assert_eq!(LineColumns::new(line).byte_or_end(column), walked(line, column));
        }
    }

    #[test]
    fn every_column_of_a_long_mixed_line_agrees_with_the_walk() {
        // Surrogate pairs straddle table entries here (the 8-byte skip and the per-byte path both meet them); in the
        // second, ASCII runs of every length from 1 to 20 between them (the walk's 8 ASCII characters at a time).
        let runs: String = (1..=20)
            .map(|n| "x".repeat(n) + ["é", "😀", "€"][n % 3])
            .collect();
        for text in ["aé😀€b".repeat(97) + "tail", runs.repeat(5) + "tail"] {
            let line = text.as_bytes();
            let columns = LineColumns::new(line);
            let units: u32 = text.chars().map(|c| c.len_utf16() as u32).sum();
            for column in 0..units + 3 {
                assert_eq!(
                    columns.byte_or_end(column),
                    walked(line, column),
                    "column {column}"
                );
            }
        }
    }

    #[test]
    fn ascii_and_past_the_end() {
        let c = LineColumns::new(b"abc");
        assert_eq!((c.byte(2), c.byte(3), c.byte(4)), (Some(2), Some(3), None));
        // "é" is one unit and two bytes, "🎉" two units and four bytes.
        let line = "aé🎉b".as_bytes();
        let c = LineColumns::new(line);
        assert_eq!(
            (c.byte(1), c.byte(2), c.byte(4), c.byte(5), c.byte(6)),
            (Some(1), Some(3), Some(7), Some(8), None)
        );
    }
}
